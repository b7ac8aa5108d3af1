/** Attaching and detaching a chat's folders. The only way a host folder reaches a sandbox. */
import { CopyContents, type AttachMode, type AttachmentView, type ParsedRequest, type ReviewCopyInfo } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { resolveContainerKey } from '../policy/containerKey.js';
import { overlapProblem } from '../policy/attachmentOverlap.js';
import { workspaceTargets } from '../policy/mountPlan.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { ChatRecord, Store } from '../store/repositories.js';
import type { Clock } from '../base/clock.js';
import { resolveAttachableFolder } from './folderValidation.js';
import { mountedFolders } from '../sessions/mountedFolders.js';
import { firstFolderNotes, folderMoveNote, folderMoves, type FolderPlace } from './folderMoves.js';

export const RECREATE_NOTICE =
  "The chat's sandbox is recreated the next time it runs a command, to apply the change (Docker cannot change a running container's mounts). The sandbox home and attached folders are kept; other container state, such as installed packages and running processes, is reset.";

/** How the chat's container sees its folders (sandbox/sandboxService.ts behind core.ts). */
export interface ContainerView {
  /** What the container is made with (`bound`); whether it took a warm sandbox (`pooled`) and still sees its folders through the slot. */
  shape(chat: ChatRecord): { bound: string; viaSlot: boolean; pooled: boolean } | null;
  /** Tells the chat's next bring-up why it makes a new container (shown on its progress line). */
  noteFresh(chat: ChatRecord, why: string): void;
}

/**
 * Why a chat that took a warm sandbox leaves it for one made with its folders. `history`: why a
 * Review-mode git copy borrows the user's history through a mount (review/reviewCopy.ts), if it does.
 */
export function freshSandboxReason(mode: AttachMode, history: string | null): string {
  const what = mode === 'readwrite' ? 'a read-write folder' : mode === 'readonly' ? 'a read-only folder' : (history ?? 'a second folder');
  return `${what} must be mounted when Docker creates the container`;
}

/** Review mode's copies, as attaching and detaching need them (core.ts wires the ReviewService in). */
export interface ReviewCopies {
  create(chat: ChatRecord, hostPath: string, contents: CopyContents): Promise<void>;
  info(chatId: string, hostPath: string): ReviewCopyInfo | null;
  hasChanges(chatId: string, hostPath: string): Promise<boolean>;
  remove(chatId: string, hostPath: string): void;
  /** Why the chat's git copy borrows the user's history through a mount although the chat had a free slot, or null. */
  historyNotCopied(chatId: string, hostPath: string): string | null;
  /** Why a copy of this folder would not fit a free slot (its git history), or null when it would. */
  slotProblem(hostPath: string): Promise<string | null>;
  /** Whether the chat's copy of this folder is seen through its slot. */
  inSlot(chatId: string, hostPath: string): boolean;
}

/** The mode a request asks for: `mode`, else the older `readOnly`, else Review. */
export function requestedMode(req: { mode?: AttachMode | undefined; readOnly?: boolean | undefined }): AttachMode {
  if (req.mode) return req.mode;
  if (req.readOnly !== undefined) return req.readOnly ? 'readonly' : 'readwrite';
  return 'review';
}

export class WorkspaceService {
  private review: ReviewCopies | null = null;
  setReviewCopies(review: ReviewCopies): void {
    this.review = review;
  }

  private container: ContainerView | null = null;
  setContainerView(view: ContainerView): void {
    this.container = view;
  }

  private shapeOf(chat: ChatRecord): ReturnType<ContainerView['shape']> {
    try {
      return this.container?.shape(chat) ?? null;
    } catch {
      // A copy gone missing: the next command says so; here the shape is just unknown.
      return null;
    }
  }

  /** Tells the chat's running shells, once, that their folders moved in the container they keep (core.ts: TerminalService.noteForChat). */
  private tellShells: (chatId: string, note: string, restartIdle?: string) => void = () => undefined;
  /** `restartIdle`: a terminal with nothing running in it starts again in the folders instead, saying this. */
  setShellNotes(tell: (chatId: string, note: string, restartIdle?: string) => void): void {
    this.tellShells = tell;
  }

  /** Where each of the chat's folders is in its container, as `views` says, without the checks views makes. */
  private places(chat: ChatRecord): FolderPlace[] {
    const session = this.store.attachments.forChat(chat.id).filter((a) => a.provenance === 'session');
    const targets = workspaceTargets(session.map((a) => a.hostPath));
    return session.map((a, i) => ({ hostPath: a.hostPath, containerPath: targets[i] ?? null }));
  }

  /** After a change that kept what the chat's container is made with (it runs on): its shells hear where their folders went. */
  private tellMoved(chat: ChatRecord, before: readonly FolderPlace[], shapeBefore: ReturnType<ContainerView['shape']>): void {
    const shapeAfter = this.shapeOf(chat);
    if (!shapeBefore || !shapeAfter || shapeBefore.bound !== shapeAfter.bound) return;
    const after = this.places(chat);
    const first = firstFolderNotes(before, after);
    if (first) this.tellShells(chat.id, first.kept, first.restart);
    const note = folderMoveNote(folderMoves(before, after));
    if (note) this.tellShells(chat.id, note);
  }

  /** Per read-write folder the sandbox could not write: why and what to do (policy/writableFolders). */
  private writeWarnings: (chat: ChatRecord, readWrite: readonly string[], hasReviewCopies: boolean) => ReadonlyMap<string, string> = () => new Map();

  setWriteCheck(check: (chat: ChatRecord, readWrite: readonly string[], hasReviewCopies: boolean) => ReadonlyMap<string, string>): void {
    this.writeWarnings = check;
  }

  constructor(
    private readonly store: Store,
    private readonly sessions: SessionService,
    private readonly hostFacts: () => readonly HostFacts[],
    private readonly clock: Clock,
    private readonly containerExists: (chat: ChatRecord) => Promise<boolean>,
  ) {}

  views(chat: ChatRecord): AttachmentView[] {
    const profile = this.sessions.requireProfile(chat.profile);
    const mounted = profile.settings.backend === 'docker' && profile.settings.mountWorkspace;
    const session = this.store.attachments.forChat(chat.id).filter((a) => a.provenance === 'session');
    const targets = workspaceTargets(session.map((a) => a.hostPath));
    const warnings = mounted
      ? this.writeWarnings(chat, session.filter((a) => a.mode === 'readwrite').map((a) => a.hostPath), session.some((a) => a.mode === 'review'))
      : new Map<string, string>();
    return session.map((a, i) => ({
      hostPath: a.hostPath,
      containerPath: mounted ? (targets[i] ?? null) : null,
      readOnly: a.mode === 'readonly',
      mode: a.mode,
      review: a.mode === 'review' ? (this.review?.info(chat.id, a.hostPath) ?? null) : null,
      attachedAt: a.attachedAt,
      writeWarning: warnings.get(a.hostPath) ?? null,
    }));
  }

  private assertOwnContainer(chat: ChatRecord): void {
    const profile = this.sessions.requireProfile(chat.profile);
    const target = resolveContainerKey(
      { name: profile.name, backend: profile.settings.backend, containerScope: profile.settings.containerScope },
      chat.id,
      this.sessions.taskLookup(chat.profile),
    );
    if (target.kind === 'container' && target.ownerTaskId === null) {
      throw new BerthError(
        'workspace_refused',
        `The profile "${profile.name}" shares one container among all its chats, so a folder attached to one chat would be visible to every chat.`,
        { hint: 'Switch the profile to one container per chat, give this chat its own image, or add the folder as a profile mount.' },
      );
    }
  }

  /**
   * What to tell the user after a change of the chat's folders: nothing when its container is
   * made with the same mounts (a copy that appeared in its slot); else that it is recreated, and,
   * for a chat leaving its warm sandbox, why (also on the progress line of that bring-up).
   */
  private async noticeFor(chat: ChatRecord, before: ReturnType<ContainerView['shape']>, why: string | null): Promise<string | null> {
    const after = this.shapeOf(chat);
    if (before && after && before.bound === after.bound) return null;
    if (why && after?.pooled && !after.viaSlot) this.container?.noteFresh(chat, why);
    let exists: boolean;
    try {
      exists = await this.containerExists(chat);
    } catch {
      return null;
    }
    if (!exists) return null;
    if (why && after?.pooled && !after.viaSlot) {
      const reason = why.charAt(0).toUpperCase() + why.slice(1);
      return `${reason}, so this chat waits for a new sandbox at its next command instead of the ready one it started with (Docker cannot add a folder to a running container; only Review-mode copies, while all its folders are, appear in it as they are). The sandbox home is kept; other container state, such as installed packages and running processes, is reset.`;
    }
    return RECREATE_NOTICE;
  }

  async attach(req: ParsedRequest<'workspace.attach'>): Promise<{ attachment: AttachmentView; attachments: AttachmentView[]; notice: string | null }> {
    const chat = this.sessions.requireChat(req.chatId);
    this.assertOwnContainer(chat);
    const real = resolveAttachableFolder(req.path, this.hostFacts());
    const mode = requestedMode(req);
    const readOnly = mode === 'readonly';
    // A Review-mode copy never writes the folder itself (only Apply does), so it nests like a read-only one.
    const problem = overlapProblem({ hostPath: real, readOnly: mode !== 'readwrite' }, mountedFolders(this.store, { chatId: chat.id, hostPath: real }));
    if (problem) {
      throw new BerthError('workspace_refused', `Berth will not share "${req.path}" with this chat: ${problem}`, {
        hint: 'Pick a folder that does not overlap another chat’s writable folder.',
      });
    }
    const before = this.store.attachments.forChat(chat.id).find((a) => a.hostPath === real);
    const shapeBefore = this.shapeOf(chat);
    const placesBefore = this.places(chat);
    if (before?.mode === 'review' && mode !== 'review') await this.dropCopy(chat.id, real, 'switch it to another mode');
    if (mode === 'review' && before?.mode !== 'review') {
      if (!this.review) throw new BerthError('internal', 'Review mode is not available in this Berth.');
      await this.review.create(chat, real, CopyContents.parse(req.contents ?? {}));
    }
    this.store.attachments.upsert({
      chatId: chat.id, hostPath: real, readOnly, mode, provenance: 'session', attachedAt: this.clock.now(),
    });
    const attachments = this.views(chat);
    const attachment = attachments.find((a) => a.hostPath === real) as AttachmentView;
    const why = freshSandboxReason(mode, mode === 'review' ? (this.review?.historyNotCopied(chat.id, real) ?? null) : null);
    const notice = await this.noticeFor(chat, shapeBefore, why);
    this.tellMoved(chat, placesBefore, shapeBefore);
    return { attachment, attachments, notice };
  }

  /**
   * Whether an attach or detach would replace the chat's running container (what runs in it
   * stops), decided as attach and detach do: a change of what the container is made with, for a
   * container that exists. A pooled chat's Review-mode copy filling or leaving its slot changes
   * nothing (review/slotFolders.ts).
   */
  async effect(req: ParsedRequest<'workspace.attachEffect'>): Promise<{ recreates: boolean; reason: string | null }> {
    const chat = this.sessions.requireChat(req.chatId);
    const shape = this.shapeOf(chat);
    const keeps = { recreates: false, reason: null };
    // No container made with folders (the local backend, folders not mounted): nothing to replace.
    if (!shape || !this.sessions.requireProfile(chat.profile).settings.mountWorkspace) return keeps;
    const session = this.store.attachments.forChat(chat.id).filter((a) => a.provenance === 'session');
    // Resolved once (a realpath and the folder checks), not per attachment compared.
    const resolved = req.path === undefined ? null : this.resolvedOrNull(req.path);
    const known = req.path === undefined ? undefined : session.find((a) => a.hostPath === req.path || a.hostPath === resolved);
    let reason: string;
    if (req.action === 'detach') {
      if (!known) return keeps;
      if (known.mode === 'review' && shape.viaSlot && this.review?.inSlot(chat.id, known.hostPath)) return keeps;
      reason = `Detaching "${known.hostPath}" recreates the chat's sandbox: Docker cannot remove a folder from a running container.`;
    } else {
      const mode = req.mode ?? 'review';
      if (known?.mode === mode) return keeps;
      // A folder the attach refuses replaces nothing: the refusal is said once, by the attach.
      if (!known && req.path !== undefined && resolved === null) return keeps;
      // A chat that still sees its folders through its slot: a copy goes into it beside the others.
      if (mode === 'review' && !known && shape.viaSlot) {
        const problem = req.path === undefined ? null : await this.review?.slotProblem(resolved ?? req.path).catch(() => null);
        if (!problem) return keeps;
        reason = freshSandboxReason(mode, problem);
      } else {
        reason = shape.viaSlot ? freshSandboxReason(mode, null) : 'Docker cannot add a folder to a running container';
      }
      reason = `Attaching recreates the chat's sandbox: ${reason}.`;
    }
    try {
      if (!(await this.containerExists(chat))) return keeps;
    } catch {
      // Not knowing whether it exists: say it may be replaced (asking once too often loses nothing).
    }
    return { recreates: true, reason };
  }

  private resolvedOrNull(p: string): string | null {
    try {
      return resolveAttachableFolder(p, this.hostFacts());
    } catch {
      return null;
    }
  }

  /** A Review-mode copy goes only when nothing of the chat's work would go with it. */
  private async dropCopy(chatId: string, hostPath: string, what: string): Promise<void> {
    if (!this.review) return;
    if (await this.review.hasChanges(chatId, hostPath)) {
      throw new BerthError('invalid_request', `The chat's copy of "${hostPath}" has changes that are not applied; Berth will not ${what} and lose them.`, {
        hint: 'Apply or discard the changes in the Changes panel first.',
      });
    }
    this.review.remove(chatId, hostPath);
  }

  async detach(req: ParsedRequest<'workspace.detach'>): Promise<{ attachments: AttachmentView[]; notice: string | null }> {
    const chat = this.sessions.requireChat(req.chatId);
    const known = this.store.attachments.forChat(chat.id);
    const match = known.find((a) => a.hostPath === req.path) ?? known.find((a) => {
      try {
        return a.hostPath === resolveAttachableFolder(req.path, this.hostFacts());
      } catch {
        return false;
      }
    });
    if (!match) throw new BerthError('not_found', `"${req.path}" is not attached to this chat.`);
    const shapeBefore = this.shapeOf(chat);
    const placesBefore = this.places(chat);
    if (match.mode === 'review') await this.dropCopy(chat.id, match.hostPath, 'detach it');
    this.store.attachments.remove(chat.id, match.hostPath);
    const notice = await this.noticeFor(chat, shapeBefore, null);
    this.tellMoved(chat, placesBefore, shapeBefore);
    return { attachments: this.views(chat), notice };
  }
}
