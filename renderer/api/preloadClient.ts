/** The desktop transport: `window.berth`, exposed by the preload (docs/transport.md). */
import type { AttachMode, AttachmentView } from '../../shared/contract';
import type { AttachChoice, BerthApi, ConnectionInfo, ConnectionSource, EventName, EventPayload, MethodName, PickFolderResult, Request, Response } from './types';
import { ApiError, toApiError } from './errors';

/** What the preload exposes: named verbs only. */
export interface PreloadBridge {
  call(method: string, params: unknown): Promise<unknown>;
  on(event: string, listener: (payload: unknown) => void): () => void;
  /**
   * Main opens the native folder dialog for the chat and attaches what the user chose, in `mode`
   * (which wins over `readOnly`; bridges from before Review mode know only `readOnly`).
   */
  pickFolder(chatId: string, readOnly?: boolean, mode?: AttachMode): Promise<{ attached: AttachmentView | null; notice?: string | null }>;
}

declare global {
  interface Window {
    berth?: PreloadBridge;
  }
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
      // The bridge takes the mode, not yet what a Review copy holds: refuse rather than drop it.
      const contents = choice.contents;
      if (contents && (contents.ignored === true || (contents.include?.length ?? 0) > 0)) {
        throw new ApiError(
          'invalid_request',
          'The desktop folder picker cannot pass which files the copy holds yet (ignored files, secret-looking files named to include).',
          'Attach with the default files, or choose them in the browser host (npm run web).',
        );
      }
      const { attached } = await this.bridge.pickFolder(chatId, choice.mode === 'readonly', choice.mode);
      return attached ? 'picked' : 'cancelled';
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
