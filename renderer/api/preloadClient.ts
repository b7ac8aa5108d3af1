/** The desktop transport: `window.berth`, exposed by the preload (docs/transport.md). */
import type { AttachMode, AttachmentView, CopyContentsInput } from '../../shared/contract';

type BridgeAnswer = { attached: AttachmentView | null; notice?: string | null; confirm?: Extract<PickFolderResult, { confirm: unknown }>['confirm'] | null };
import type { AttachChoice, BerthApi, ConnectionInfo, ConnectionSource, EventName, EventPayload, MethodName, PickFolderResult, Picked, Request, Response } from './types';
import { toApiError } from './errors';

/** What the preload exposes: named verbs only. */
export interface PreloadBridge {
  call(method: string, params: unknown): Promise<unknown>;
  on(event: string, listener: (payload: unknown) => void): () => void;
  /**
   * Main opens the native folder dialog for the chat and attaches what the user chose, in `mode`
   * (which wins over `readOnly`; bridges from before Review mode know only `readOnly`), and for
   * Review mode what the copy holds (`contents`; main validates it).
   */
  pickFolder(chatId: string, readOnly?: boolean, mode?: AttachMode, contents?: CopyContentsInput): Promise<BridgeAnswer>;
  /** Attaches the folder chosen under a `confirm` token, or lets it go (a bridge from before it has none). */
  confirmFolder?(token: string, attach: boolean): Promise<BridgeAnswer>;
}

declare global {
  interface Window {
    berth?: PreloadBridge;
  }
}

function picked({ attached, notice }: BridgeAnswer): Picked | 'cancelled' {
  if (!attached) return 'cancelled';
  return notice ? { notice } : 'picked';
}

export class PreloadClient implements BerthApi, ConnectionSource {
  private readonly info: ConnectionInfo = { transport: 'ipc', state: 'open', epoch: 1, retryAt: null };

  constructor(private readonly bridge: PreloadBridge) {}

  async call<M extends MethodName>(method: M, params: Request<M>): Promise<Response<M>> {
    try {
      return (await this.bridge.call(method, params)) as Response<M>;
    } catch (error) {
      throw toApiError(error);
    }
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    return this.bridge.on(event, listener as (payload: unknown) => void);
  }

  async pickFolder(chatId: string, choice: AttachChoice): Promise<PickFolderResult> {
    try {
      const readOnly = choice.mode === 'readonly';
      const answer = choice.contents
        ? await this.bridge.pickFolder(chatId, readOnly, choice.mode, choice.contents)
        : await this.bridge.pickFolder(chatId, readOnly, choice.mode);
      if (answer.confirm) return { confirm: answer.confirm };
      return picked(answer);
    } catch (error) {
      throw toApiError(error);
    }
  }

  async confirmFolder(token: string, attach: boolean): Promise<Picked | 'cancelled'> {
    try {
      if (!this.bridge.confirmFolder) throw new Error('This Berth cannot attach a folder after asking; restart it.');
      return picked(await this.bridge.confirmFolder(token, attach));
    } catch (error) {
      throw toApiError(error);
    }
  }

  get(): ConnectionInfo {
    return this.info;
  }

  subscribe(_listener: (info: ConnectionInfo) => void): () => void {
    return () => {};
  }
}
