/**
 * A chat's folders, owned in one place: the attachment record (the only way a host folder
 * reaches a sandbox), the Review-mode copies' life (made at attach, gone at detach or a switch of
 * mode), the chat's slot folder when it took a warm sandbox, and what its container's mounts are
 * planned from (`planInput`). workspace/ validates a folder before it gets here; sandbox/ asks
 * here for the plan; nothing here calls up: what a change means for a running container is
 * returned (`FolderChange`) for sandbox/ to act on.
 */
import { CopyContents, type AttachmentView, type ParsedRequest } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { resolveContainerKey, qualifyTaskId, type ContainerTarget } from '../policy/containerKey.js';
import { overlapProblem } from '../policy/attachmentOverlap.js';
import { planMounts, usesSlot, workspaceTargets, type AttachmentInput, type MountPlanInput } from '../policy/mountPlan.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import type { SessionService } from '../sessions/sessionService.js';
import type { AttachmentRecord, ChatRecord, ProfileRecord, Store } from '../store/repositories.js';
import type { Clock } from '../base/clock.js';
import { resolveAttachableFolder } from '../workspace/folderValidation.js';
import { mountedFolders } from '../sessions/mountedFolders.js';
import { firstFolderNotes, folderMoveNote, folderMoves, type FolderPlace } from '../workspace/folderMoves.js';
import { hasSlot, makeSlot, removeSlot, slotDirFor } from '../review/slotFolders.js';
import type { ReviewAttachment, ReviewService } from '../review/reviewService.js';
import { FOLDER_MESSAGES, refusal } from '../messages.js';

/** What the chat's container is made with (`mountsFingerprint`: its planned mounts as one string); whether it took a warm sandbox (`pooled`) and still sees its folders through the slot. */
export interface MountShape {
  mountsFingerprint: string;
  viaSlot: boolean;
  pooled: boolean;
}

/**
 * What a change of the chat's folders means for its container: `remounts` when what it is made
 * with changed (a running one is replaced at the next bring-up); `freshReason` when a chat that
 * took a warm sandbox leaves it for one made with its folders (why, for the progress line);
 * `movedNote` when the container is kept but folders moved in it (its shells are told).
 */
export interface FolderChange {
  remounts: boolean;
  freshReason: string | null;
  movedNote: string | null;
  /** The chat's first folder arrived in the container it keeps: idle shells start again in it (`restart`), busy ones are told (`kept`). */
  firstFolder?: { restart: string; kept: string } | null;
}

/** Which container a plan is for: the chat asking, its profile and its resolved target. */
export interface PlanTarget {
  chat: ChatRecord;
  profile: ProfileRecord;
  target: ContainerTarget;
}

export interface ChatFoldersDeps {
  store: Store;
  sessions: SessionService;
  review: ReviewService;
  hostFacts: () => readonly HostFacts[];
  clock: Clock;
  dataDir: string;
  /** Who Review copies belong to on this computer when Berth runs as root (the sandbox user), else null. */
  copyOwner: (profile: string) => { uid: number; gid: number } | null;
  /** Per read-write folder the sandbox could not write: why and what to do (policy/writableFolders). */
  writeWarnings: (chat: ChatRecord, readWrite: readonly string[], hasReviewCopies: boolean) => ReadonlyMap<string, string>;
}

/** Why a chat that took a warm sandbox leaves it for one made with its folders (main's messages). */
export const freshSandboxReason = FOLDER_MESSAGES.freshSandboxReason;

export class ChatFolders {
  private readonly store: Store;
  private readonly sessions: SessionService;
  private readonly review: ReviewService;

  constructor(private readonly deps: ChatFoldersDeps) {
    this.store = deps.store;
    this.sessions = deps.sessions;
    this.review = deps.review;
  }

  /** The folders attached to the chat itself (not its profile's), in order. */
  private session(chatId: string): AttachmentRecord[] {
    return this.store.attachments.forChat(chatId).filter((a) => a.provenance === 'session');
  }

  // --- the chat's slot folder (review/slotFolders.ts): made with its warm reservation, gone with the chat.

  /** The chat's slot folder if it has one (it took a warm sandbox), else null. */
  slotOf(profile: string, chatId: string): string | null {
    const dir = slotDirFor(this.deps.dataDir, profile, chatId);
    return hasSlot(dir) ? dir : null;
  }

  makeSlot(profile: string, chatId: string): void {
    makeSlot(slotDirFor(this.deps.dataDir, profile, chatId));
  }

  removeSlot(profile: string, chatId: string): void {
    removeSlot(slotDirFor(this.deps.dataDir, profile, chatId));
  }

  // --- what the container's mounts are planned from.

  /** The chat's Review-mode folders as its container sees them, read from the record alone. */
  reviewAttachments(chatId: string): ReviewAttachment[] {
    const chat = this.store.chats.get(chatId);
    if (!chat) return [];
    const session = this.session(chatId);
    const mounted = this.mountsFolders(chat);
    const targets = workspaceTargets(session.map((a) => a.hostPath));
    return session.flatMap((a, i) => (a.mode === 'review' ? [{ hostPath: a.hostPath, containerPath: mounted ? (targets[i] ?? null) : null }] : []));
  }

  private mountsFolders(chat: ChatRecord): boolean {
    const profile = this.sessions.requireProfile(chat.profile);
    return profile.settings.backend === 'docker' && profile.settings.mountWorkspace;
  }

  /** The last plan input per container, with the inputs it was computed from (`planKey`). */
  private readonly planCache = new Map<string, { key: string; input: MountPlanInput }>();
  /** How many times a plan input was computed rather than reused: one per state of the chat's folders. */
  planComputations = 0;

  /**
   * What a container's mounts are planned from (policy/mountPlan): the attachments of the chat
   * that owns it (a subagent's container: its chat's), each Review-mode one as its copy, and
   * the chat's slot for its own container. Null for no container (the local backend).
   * Computed once per state of its inputs (the profile's mount settings, the owner's attachment
   * record, the slot, each copy's meta file): an attach, its notice and the bring-up after it
   * all read the same one.
   */
  planInput(r: PlanTarget): MountPlanInput | null {
    if (r.target.kind !== 'container') return null;
    const owner = r.target.ownerTaskId;
    let ownerChat: ChatRecord | undefined;
    if (owner !== null) {
      ownerChat = this.store.chats.get(owner);
      if (!ownerChat || ownerChat.profile !== r.profile.name) {
        const task = this.store.tasks.get(qualifyTaskId(r.profile.name, owner));
        ownerChat = task ? this.store.chats.get(task.chatId) : undefined;
      }
    }
    // Only the chat's own container has its slot: a subagent with a runtime of its own does not.
    const slot = owner !== null && owner === r.chat.id ? this.slotOf(r.profile.name, r.chat.id) : null;
    const records = ownerChat ? this.store.attachments.forChat(ownerChat.id) : [];
    const { backend, mountWorkspace, staticMounts } = r.profile.settings;
    const key = JSON.stringify([
      r.chat.id, ownerChat?.id ?? null, backend, mountWorkspace, staticMounts, slot, records,
      records.map((a) => (a.mode === 'review' && ownerChat ? this.review.mountStamp(ownerChat.id, a.hostPath) : null)),
    ]);
    const cached = this.planCache.get(r.target.key);
    if (cached?.key === key) return cached.input;
    this.planComputations += 1;
    const input: MountPlanInput = {
      backend,
      mountWorkspace,
      attachments: ownerChat
        ? records.map((a) => ({ ...a, review: a.mode === 'review' ? this.reviewCopyOf(ownerChat.id, a.hostPath) : null }))
        : [],
      staticMounts,
      slot,
    };
    this.planCache.set(r.target.key, { key, input });
    return input;
  }

  private reviewCopyOf(chatId: string, hostPath: string): AttachmentInput['review'] {
    const sources = this.review.mountSources(chatId, hostPath);
    if (!sources) {
      // Never fall back to the user's own folder: that is what Review mode promises not to do.
      throw refusal('workspace_changed', FOLDER_MESSAGES.copyMissing(hostPath));
    }
    return sources;
  }

  /**
   * What the chat's container is created with, and whether its folders are seen through its
   * slot: a change in the first means a new container.
   */
  shape(r: PlanTarget): MountShape | null {
    const input = this.planInput(r);
    if (!input) return null;
    return {
      mountsFingerprint: JSON.stringify(planMounts(input).map((m) => [m.source, m.target, m.readOnly])),
      viaSlot: usesSlot(input),
      pooled: Boolean(input.slot),
    };
  }

  /** The chat's own container. */
  private targetOf(chat: ChatRecord): PlanTarget {
    const profile = this.sessions.requireProfile(chat.profile);
    const target = resolveContainerKey(
      { name: profile.name, backend: profile.settings.backend, containerScope: profile.settings.containerScope },
      chat.id,
      this.sessions.taskLookup(profile.name),
    );
    return { chat, profile, target };
  }

  private shapeOf(chat: ChatRecord): MountShape | null {
    try {
      return this.shape(this.targetOf(chat));
    } catch {
      // A copy gone missing: the next command says so; here the shape is just unknown.
      return null;
    }
  }

  /** Where each of the chat's folders is in its container, as `views` says, without the checks views makes. */
  private places(chat: ChatRecord): FolderPlace[] {
    const session = this.session(chat.id);
    const targets = workspaceTargets(session.map((a) => a.hostPath));
    return session.map((a, i) => ({ hostPath: a.hostPath, containerPath: targets[i] ?? null }));
  }

  /**
   * What a change did to the chat's container: the same mounts (a copy that appeared in its
   * slot) keep it, its shells told where their folders went; else it is replaced, and a chat
   * leaving its warm sandbox says why.
   */
  private changeFrom(chat: ChatRecord, before: MountShape | null, placesBefore: readonly FolderPlace[], why: string | null): FolderChange {
    const after = this.shapeOf(chat);
    if (before && after && before.mountsFingerprint === after.mountsFingerprint) {
      const placesAfter = this.places(chat);
      return { remounts: false, freshReason: null, movedNote: folderMoveNote(folderMoves(placesBefore, placesAfter)), firstFolder: firstFolderNotes(placesBefore, placesAfter) };
    }
    return { remounts: true, freshReason: why && after?.pooled && !after.viaSlot ? why : null, movedNote: null };
  }

  // --- the record: views, attach, detach.

  views(chat: ChatRecord): AttachmentView[] {
    const mounted = this.mountsFolders(chat);
    const session = this.session(chat.id);
    const targets = workspaceTargets(session.map((a) => a.hostPath));
    const warnings = mounted
      ? this.deps.writeWarnings(chat, session.filter((a) => a.mode === 'readwrite').map((a) => a.hostPath), session.some((a) => a.mode === 'review'))
      : new Map<string, string>();
    return session.map((a, i) => ({
      hostPath: a.hostPath,
      containerPath: mounted ? (targets[i] ?? null) : null,
      readOnly: a.mode === 'readonly',
      mode: a.mode,
      review: a.mode === 'review' ? (this.review.copyFor(chat.id, a.hostPath)?.info(this.review.knownCount(chat.id, a.hostPath)) ?? null) : null,
      attachedAt: a.attachedAt,
      writeWarning: warnings.get(a.hostPath) ?? null,
    }));
  }

  private assertOwnContainer(chat: ChatRecord): void {
    const { profile, target } = this.targetOf(chat);
    if (target.kind === 'container' && target.ownerTaskId === null) {
      throw refusal('workspace_refused', FOLDER_MESSAGES.sharedContainer(profile.name));
    }
  }

  async attach(req: ParsedRequest<'workspace.attach'>): Promise<{ attachment: AttachmentView; attachments: AttachmentView[]; change: FolderChange }> {
    const chat = this.sessions.requireChat(req.chatId);
    this.assertOwnContainer(chat);
    const real = resolveAttachableFolder(req.path, this.deps.hostFacts());
    const { mode } = req;
    const readOnly = mode === 'readonly';
    // A Review-mode copy never writes the folder itself (only Apply does), so it nests like a read-only one.
    const problem = overlapProblem({ hostPath: real, readOnly: mode !== 'readwrite' }, mountedFolders(this.store, { chatId: chat.id, hostPath: real }));
    if (problem) {
      throw refusal('workspace_refused', FOLDER_MESSAGES.overlaps(req.path, problem));
    }
    const before = this.store.attachments.forChat(chat.id).find((a) => a.hostPath === real);
    const shapeBefore = this.shapeOf(chat);
    const placesBefore = this.places(chat);
    if (before?.mode === 'review' && mode !== 'review') await this.dropCopy(chat.id, real, 'switch it to another mode');
    if (mode === 'review' && before?.mode !== 'review') {
      await this.review.create(chat.id, real, CopyContents.parse(req.contents ?? {}), this.deps.copyOwner(chat.profile));
    }
    this.store.attachments.upsert({
      chatId: chat.id, hostPath: real, readOnly, mode, provenance: 'session', attachedAt: this.deps.clock.now(),
    });
    const attachments = this.views(chat);
    const attachment = attachments.find((a) => a.hostPath === real) as AttachmentView;
    const why = freshSandboxReason(mode, mode === 'review' ? this.review.historyNotCopied(chat.id, real) : null);
    return { attachment, attachments, change: this.changeFrom(chat, shapeBefore, placesBefore, why) };
  }

  /**
   * Why an attach or detach would change what the chat's container is made with (a running one
   * is then replaced: sandbox/ asks whether one exists), decided as attach and detach do; null
   * when it would not. A pooled chat's Review-mode copy filling or leaving its slot changes
   * nothing (review/slotFolders.ts).
   */
  async remountReason(req: ParsedRequest<'workspace.attachPreview'>): Promise<string | null> {
    const chat = this.sessions.requireChat(req.chatId);
    const shape = this.shapeOf(chat);
    const keeps = null;
    // No container made with folders (the local backend, folders not mounted): nothing to replace.
    if (!shape || !this.sessions.requireProfile(chat.profile).settings.mountWorkspace) return keeps;
    const session = this.session(chat.id);
    // Resolved once (a realpath and the folder checks), not per attachment compared.
    const resolved = req.path === undefined ? null : this.resolvedOrNull(req.path);
    const known = req.path === undefined ? undefined : session.find((a) => a.hostPath === req.path || a.hostPath === resolved);
    let reason: string;
    if (req.action === 'detach') {
      if (!known) return keeps;
      if (known.mode === 'review' && shape.viaSlot && this.review.inSlot(chat.id, known.hostPath)) return keeps;
      reason = FOLDER_MESSAGES.detachRecreates(known.hostPath);
    } else {
      const mode = req.mode ?? 'review';
      if (known?.mode === mode) return keeps;
      // A folder the attach refuses replaces nothing: the refusal is said once, by the attach.
      if (!known && req.path !== undefined && resolved === null) return keeps;
      // A chat that still sees its folders through its slot: a copy goes into it beside the others.
      if (mode === 'review' && !known && shape.viaSlot) {
        const problem = req.path === undefined ? null : await this.review.slotProblem(resolved ?? req.path).catch(() => null);
        if (!problem) return keeps;
        reason = freshSandboxReason(mode, problem);
      } else {
        reason = shape.viaSlot ? freshSandboxReason(mode, null) : FOLDER_MESSAGES.cannotAddToRunning;
      }
      reason = FOLDER_MESSAGES.attachRecreates(reason);
    }
    return reason;
  }

  private resolvedOrNull(p: string): string | null {
    try {
      return resolveAttachableFolder(p, this.deps.hostFacts());
    } catch {
      return null;
    }
  }

  /** A Review-mode copy goes only when nothing of the chat's work would go with it. */
  private async dropCopy(chatId: string, hostPath: string, what: string): Promise<void> {
    if (await this.review.hasChanges(chatId, hostPath)) {
      throw refusal('invalid_request', FOLDER_MESSAGES.unappliedChanges(hostPath, what));
    }
    this.review.remove(chatId, hostPath);
  }

  async detach(req: ParsedRequest<'workspace.detach'>): Promise<{ attachments: AttachmentView[]; change: FolderChange }> {
    const chat = this.sessions.requireChat(req.chatId);
    const known = this.store.attachments.forChat(chat.id);
    const match = known.find((a) => a.hostPath === req.path) ?? known.find((a) => {
      try {
        return a.hostPath === resolveAttachableFolder(req.path, this.deps.hostFacts());
      } catch {
        return false;
      }
    });
    if (!match) throw new BerthError('not_found', FOLDER_MESSAGES.notAttached(req.path));
    const shapeBefore = this.shapeOf(chat);
    const placesBefore = this.places(chat);
    if (match.mode === 'review') await this.dropCopy(chat.id, match.hostPath, 'detach it');
    this.store.attachments.remove(chat.id, match.hostPath);
    return { attachments: this.views(chat), change: this.changeFrom(chat, shapeBefore, placesBefore, null) };
  }
}
