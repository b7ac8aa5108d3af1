/**
 * Review mode, per chat: the copies of its Review-mode attachments, their changes, apply,
 * discard, refresh, checkpoints and undo, and the live count of changed files.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import {
  type Checkpoint, type CopyChanges, type CopyContents, type FileChange,
} from '../../../shared/review.js';
import type { EventHub, MainEvents } from '../events.js';
import { branchNameFor, selectChanges, touchedPaths } from '../policy/reviewPolicy.js';
import type { Clock } from '../base/clock.js';
import { applyWrites } from './applyToFolder.js';
import type { CopyTools } from './copyTools.js';
import { discardCopy, refreshCopy } from './copyResync.js';
import { undoLastApply } from './undoApply.js';
import { exportToBranch } from './branchExport.js';
import { pushBranch, type PushOutcome } from './pushBranch.js';
import { ChangeListings } from './changeListing.js';
import { applyProblemsFor, folderWrites } from './applyPlan.js';
import { ChangeCounts } from './changeCounts.js';
import { CheckpointStore, checkpointView, type StoredCheckpoint } from './checkpointStore.js';
import { ReviewCopy, objectsTargetFor, slotProblem } from './reviewCopy.js';
import { removeTree } from './linkSafe.js';
import { arrangeSlot, emptySlot, isInSlot, removeFromSlot } from './slotFolders.js';
import { workspaceTargets } from '../policy/mountPlan.js';

export interface ReviewAttachment {
  hostPath: string;
  containerPath: string | null;
}

export interface ReviewDeps {
  dataDir: string;
  events: EventHub;
  clock: Clock;
  /** Told (and waited for) before Berth uses a chat's copies and around a write into them (events.ts `copies.*`): never called up into. */
  mainEvents: MainEvents;
  /** The chat's Review-mode attachments, in order. */
  attachments: (chatId: string) => ReviewAttachment[];
  chatTitle: (chatId: string) => string;
  /** The chat's slot folder, when it took a warm sandbox (review/slotFolders.ts): its first folder copy fills it. */
  slotOf?: (chatId: string) => string | null;
  /** Every folder attached to the chat (not the profile's), in order, with its mode: whether its slot can take one more copy. */
  sessionFolders?: (chatId: string) => { hostPath: string; mode: string }[];
  /** The most of a git repository's history a slot's copy takes (reviewCopy SLOT_HISTORY_MAX_BYTES by default). */
  slotHistoryMaxBytes?: number;
  /** Who else can write a host folder directly (a chat's read-write attachment, a profile's mount), as a sentence's subject; null when no sandbox can. */
  writableBySandbox?: (hostPath: string) => string | null;
}

const COUNT_DEBOUNCE_MS = 400;

export class ReviewService {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly changeCounts: ChangeCounts;
  /** The last listing of each copy (by copy id): reused while the copy's content and base stay the same. */
  private readonly listings = new ChangeListings();
  private readonly stored: CheckpointStore;
  private readonly countTimers = new Map<string, unknown>();

  constructor(private readonly deps: ReviewDeps) {
    this.changeCounts = new ChangeCounts(deps.events);
    this.stored = new CheckpointStore(path.join(deps.dataDir, 'review', 'checkpoints'), deps.clock);
  }

  get root(): string {
    return path.join(this.deps.dataDir, 'review');
  }

  copyDirFor(chatId: string, hostPath: string): string {
    const id = createHash('sha256').update(`${chatId}\0${hostPath}`).digest('hex').slice(0, 24);
    return path.join(this.root, id);
  }

  /**
   * What `mountSources` is read from, as a stamp that changes when it does (the copy's meta
   * file: every save renames a new one in), or null for no copy: a cache key, read with one stat.
   */
  mountStamp(chatId: string, hostPath: string): string | null {
    try {
      const st = fs.statSync(path.join(this.copyDirFor(chatId, hostPath), 'meta.json'), { bigint: true });
      return `${st.ino}:${st.mtimeNs}:${st.size}`;
    } catch {
      return null;
    }
  }

  copyFor(chatId: string, hostPath: string): ReviewCopy | null {
    return ReviewCopy.load(this.copyDirFor(chatId, hostPath));
  }

  private requireCopy(chatId: string, hostPath: string): ReviewCopy {
    const att = this.deps.attachments(chatId).find((a) => a.hostPath === hostPath);
    const copy = att ? this.copyFor(chatId, hostPath) : null;
    if (!copy) throw new BerthError('not_found', `"${hostPath}" is not attached to this chat in Review mode.`, { hint: 'Pick one of the chat’s Review-mode folders.' });
    return copy;
  }

  private copies(chatId: string): { copy: ReviewCopy; att: ReviewAttachment }[] {
    return this.deps.attachments(chatId).flatMap((att) => {
      const copy = this.copyFor(chatId, att.hostPath);
      return copy ? [{ copy, att }] : [];
    });
  }

  /** One review operation per chat at a time (checkpoints, applies, undos never interleave). */
  private serial<T>(chatId: string, work: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(chatId) ?? Promise.resolve();
    const pulled = async () => {
      // A remote engine that does not answer leaves the copy here as it was last brought.
      await this.deps.mainEvents.emitAndWait('copies.willUse', { chatId }).catch(() => undefined);
      return work();
    };
    const next = prev.then(pulled, pulled);
    const settled = next.then(() => undefined, () => undefined);
    this.locks.set(chatId, settled);
    void settled.then(() => {
      if (this.locks.get(chatId) === settled) this.locks.delete(chatId);
    });
    return next;
  }

  /** One review operation that writes into the chat's copies (ReviewDeps.mainEvents). */
  private rewrite<T>(chatId: string, work: () => Promise<T>): Promise<T> {
    return this.serial(chatId, () => this.rewriting(chatId, work));
  }

  /** A write into the chat's copies, with what runs on them told before and after (`copies.rewritten` even when it fails). */
  private async rewriting<T>(chatId: string, work: () => Promise<T>): Promise<T> {
    try {
      await this.deps.mainEvents.emitAndWait('copies.willRewrite', { chatId });
      return await work();
    } finally {
      this.deps.mainEvents.emit('copies.rewritten', { chatId });
    }
  }

  // ---------- making and removing copies ----------

  async create(chatId: string, hostPath: string, contents: CopyContents, owner: { uid: number; gid: number } | null): Promise<ReviewCopy> {
    const dir = this.copyDirFor(chatId, hostPath);
    const existing = ReviewCopy.load(dir);
    if (existing) return existing;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    // The chat's slot takes its copies while every folder of the chat is one (else its container
    // is made with its folders anyway): the first fills it, more go beside it (arrange).
    const slot = this.deps.slotOf?.(chatId) ?? null;
    const peers = slot ? this.slotCopies(chatId) : null;
    const copy = await ReviewCopy.create({
      dir, chatId, hostPath, branch: branchNameFor(chatId), contents, owner, now: this.deps.clock.now(),
      slot: peers ? slot : null,
      ...(this.deps.slotHistoryMaxBytes !== undefined ? { historyMaxBytes: this.deps.slotHistoryMaxBytes } : {}),
      progress: (phase, files, totalFiles, message) => this.deps.events.emit('review.progress', { chatId, hostPath, phase, files, totalFiles, message }),
    });
    if (slot && peers && peers.length > 0 && !copy.meta.workDir && (copy.meta.kind === 'folder' || copy.meta.historyCopied)) {
      try {
        this.arrange(slot, [...peers.filter((p) => p.hostPath !== hostPath), { copy, hostPath }]);
      } catch (error) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
    return copy;
  }

  /** The chat's copies in its slot, in the chat's order, when every folder of the chat is one; else null. */
  private slotCopies(chatId: string): { copy: ReviewCopy; hostPath: string }[] | null {
    const out: { copy: ReviewCopy; hostPath: string }[] = [];
    for (const f of this.deps.sessionFolders?.(chatId) ?? []) {
      const copy = f.mode === 'review' ? this.copyFor(chatId, f.hostPath) : null;
      if (!copy?.meta.workDir) return null;
      out.push({ copy, hostPath: f.hostPath });
    }
    return out;
  }

  /** Lays the slot out for these copies, each where a container made with them has it (policy/mountPlan workspaceTargets). */
  private arrange(slot: string, list: { copy: ReviewCopy; hostPath: string }[]): void {
    const names = workspaceTargets(list.map((l) => l.hostPath)).map((t) => path.posix.basename(t));
    const dirs = arrangeSlot(slot, list.map((l) => l.copy.workDir), names);
    list.forEach((l, i) => {
      l.copy.meta.workDir = dirs[i] ?? null;
      l.copy.saveMeta();
      this.listings.forget(l.copy.meta.copyId);
    });
  }

  /** Whether removing this copy would lose the chat's work. */
  async hasChanges(chatId: string, hostPath: string): Promise<boolean> {
    const copy = this.copyFor(chatId, hostPath);
    if (!copy) return false;
    const snap = await copy.snapshot();
    return snap.tree !== copy.meta.baseTree || snap.large.length > 0;
  }

  remove(chatId: string, hostPath: string): void {
    const copy = this.copyFor(chatId, hostPath);
    if (copy) this.listings.forget(copy.meta.copyId);
    const slot = this.deps.slotOf?.(chatId) ?? null;
    if (copy?.meta.workDir && slot && isInSlot(copy.meta.workDir, slot)) {
      // One of several in the slot: it goes, and the others take the places a container made
      // with them would give them (the last one fills the slot again).
      const rest = this.slotCopies(chatId)?.filter((l) => l.hostPath !== hostPath) ?? null;
      removeFromSlot(copy.meta.workDir);
      if (rest && rest.length > 0) this.arrange(slot, rest);
    } else if (copy?.meta.workDir) emptySlot(copy.meta.workDir);
    this.changeCounts.forget(chatId, hostPath);
    // Its work tree may still be mounted in the running sandbox: removed without following a link.
    removeTree(this.copyDirFor(chatId, hostPath));
  }

  removeChat(chatId: string, hostPaths: readonly string[]): void {
    for (const h of hostPaths) this.remove(chatId, h);
    this.stored.remove(chatId);
  }

  /** What a Review-mode attachment mounts instead of the user's folder. */
  mountSources(chatId: string, hostPath: string): { workDir: string; objects: { source: string; target: string } | null } | null {
    const copy = this.copyFor(chatId, hostPath);
    if (!copy) return null;
    // A copy that holds its own history (in a slot) borrows nothing through a mount.
    const objects = copy.meta.userObjects && !copy.meta.historyCopied ? { source: copy.meta.userObjects, target: objectsTargetFor(copy.meta.copyId) } : null;
    return { workDir: copy.workDir, objects };
  }

  /** Why a Review-mode copy of this folder would not fit a chat's free slot (its git history), or null when it would. */
  slotProblem(hostPath: string): Promise<string | null> {
    return slotProblem(hostPath, this.deps.slotHistoryMaxBytes);
  }

  /** Whether the chat's copy of this folder is seen through its slot folder. */
  inSlot(chatId: string, hostPath: string): boolean {
    return Boolean(this.copyFor(chatId, hostPath)?.meta.workDir);
  }

  /** Why a chat's git copy borrows the user's history through a mount although it had a free slot, or null. */
  historyNotCopied(chatId: string, hostPath: string): string | null {
    return this.copyFor(chatId, hostPath)?.meta.historyNotCopied ?? null;
  }

  // ---------- changes ----------


  changes(chatId: string, hostPath: string | undefined, diffs: boolean): Promise<{ copies: CopyChanges[] }> {
    return this.serial(chatId, async () => {
      const list = this.copies(chatId).filter((c) => hostPath === undefined || c.att.hostPath === hostPath);
      if (hostPath !== undefined && list.length === 0) this.requireCopy(chatId, hostPath);
      const copies: CopyChanges[] = [];
      for (const { copy, att } of list) {
        const changes = await this.listings.changesOf(copy, att.containerPath, diffs, this.deps.clock.now());
        this.changeCounts.set(copy.meta.chatId, copy.meta.hostPath, changes.counts.total, changes.version);
        copies.push(changes);
      }
      return { copies };
    });
  }

  diff(chatId: string, hostPath: string, file: string): Promise<FileChange> {
    return this.serial(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const listing = await this.listings.listing(copy, await copy.snapshot());
      const found = listing.files.find((f) => f.path === file) ?? listing.files.find((f) => f.oldPath === file);
      if (!found) throw new BerthError('not_found', `"${file}" has no changes in this chat's copy.`, { hint: 'Reload the Changes panel.' });
      const change = { ...found };
      if (!change.binary && !change.tooLarge) change.diff = (await this.listings.patches(copy, copy.meta.baseTree, listing.tree, [change])).get(change.path) ?? null;
      return change;
    });
  }

  // ---------- live count ----------

  /**
   * The last known count of changed files of one copy (0 before the first look). Asked before
   * any look since Berth started (a restart: the page lists its chats), it looks soon, so the
   * count comes back with `review.changed` without waiting for the chat's next command.
   */
  knownCount(chatId: string, hostPath: string): number {
    const known = this.changeCounts.known(chatId, hostPath);
    if (known === undefined) this.touched(chatId);
    return known ?? 0;
  }

  /** Something may have written into the chat's copies (a command ended, terminal output): recount soon. */
  touched(chatId: string): void {
    // Called for every command and terminal output event: only a map lookup here; whether the
    // chat has copies at all (a store read) is asked once per debounce, when the timer fires.
    if (this.countTimers.has(chatId)) return;
    const timer = this.deps.clock.setTimeout(() => {
      this.countTimers.delete(chatId);
      if (this.copies(chatId).length === 0) return;
      void this.recount(chatId).catch(() => undefined);
    }, COUNT_DEBOUNCE_MS);
    this.countTimers.set(chatId, timer);
  }

  recount(chatId: string): Promise<number> {
    return this.serial(chatId, async () => {
      for (const { copy } of this.copies(chatId)) await this.recountCopy(copy);
      return this.changeCounts.total(chatId);
    });
  }

  dispose(): void {
    for (const t of this.countTimers.values()) this.deps.clock.clearTimeout(t);
    this.countTimers.clear();
  }

  // ---------- apply ----------

  apply(chatId: string, hostPath: string, mode: 'files' | 'branch' | 'uncommitted', files: readonly string[] | undefined) {
    return this.serial(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const snap = await copy.snapshot();
      const all = await copy.diff(copy.meta.baseTree, snap.tree);
      const chosen = selectChanges(all, files);
      const largeChosen = files ? snap.large.filter((p) => files.includes(p)) : snap.large;
      if (files) {
        const known = new Set([...all.flatMap(touchedPaths), ...snap.large]);
        const unknown = files.filter((f) => !known.has(f));
        if (unknown.length) throw new BerthError('invalid_request', `These files have no changes in the chat's copy: ${unknown.slice(0, 5).join(', ')}.`, { hint: 'Refresh the Changes panel and pick again.' });
      }
      if (chosen.length === 0 && largeChosen.length === 0) {
        return { ok: true, applied: [], problems: [], branch: null, message: 'There is nothing to apply.' };
      }
      if (mode === 'branch') return exportToBranch(copy, chosen, largeChosen, this.deps.chatTitle(chatId));

      const problems = await applyProblemsFor(copy, chosen, largeChosen);
      if (problems.length > 0) {
        return {
          ok: false, applied: [], problems, branch: null,
          message: `Nothing was applied: ${problems.length === 1 ? 'one file has a problem' : `${problems.length} problems`}. ${problems[0]?.message ?? ''}`,
        };
      }
      const madeDirs = applyWrites(copy.meta.hostPath, await folderWrites(copy, chosen));
      const before = copy.meta.baseTree;
      copy.meta.baseTree = await copy.compose(before, snap.tree, chosen);
      copy.meta.lastApply = { before, after: copy.meta.baseTree, files: [...new Set(chosen.flatMap(touchedPaths))], madeDirs, at: this.deps.clock.now() };
      copy.saveMeta();
      const applied = chosen.map((c) => c.path);
      await this.recountCopy(copy);
      return {
        ok: true, applied, problems: [], branch: null,
        message: `Applied ${applied.length} ${applied.length === 1 ? 'file' : 'files'} to ${copy.meta.hostPath}${copy.meta.kind === 'git' ? ' as uncommitted changes' : ''}.`,
      };
    });
  }

  /**
   * Takes back the last apply: the user's folder gets each applied path as it was before (from the
   * base before the apply), the folders the apply made go when empty, and the base goes back, so
   * the chat's copy lists those changes again. Nothing is written when the user changed any of the
   * applied files since (they are named), or when the base moved on (another apply, a refresh, a
   * discard).
   */
  undoApply(chatId: string, hostPath: string) {
    return this.serial(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const out = await undoLastApply(copy);
      if (out.ok) await this.recountCopy(copy);
      return out;
    });
  }

  /**
   * Runs `work` on the chat's copy of a folder in the chat's queue (after a remote copy was
   * brought here), then recounts it: the way in for Review's parts in modules of their own
   * (partialApply, threeWay). `tools.version` is the copy's version now (CopyChanges.version).
   */
  onCopy<T>(chatId: string, hostPath: string, work: (copy: ReviewCopy, tools: CopyTools) => Promise<T>): Promise<T> {
    return this.serial(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      // The copy as a work that only reads it took it (tools.readOnly): the recount's picture too, not a snapshot more.
      let read: { tree: string; large: string[] } | undefined;
      const tools: CopyTools = {
        version: async (snap) => (await this.listings.listing(copy, snap ?? (await copy.snapshot()))).version,
        readOnly: (snap) => void (read = snap),
        write: async (changes) => applyWrites(copy.meta.hostPath, await folderWrites(copy, changes)),
        rewriting: (write) => this.rewriting(chatId, write),
        now: () => this.deps.clock.now(),
      };
      try {
        return await work(copy, tools);
      } finally {
        await this.recountCopy(copy, read);
      }
    });
  }

  /** The copy's count of changed files now (one snapshot, or `snap` just taken, and one tree diff; the listing waits until the panel asks). */
  private async recountCopy(copy: ReviewCopy, snap?: { tree: string; large: string[] }): Promise<void> {
    const { count, version } = await this.listings.count(copy, snap);
    this.changeCounts.set(copy.meta.chatId, copy.meta.hostPath, count, version);
  }

  /**
   * Pushes the chat's branch (made by "Create branch") to the user's remote with the user's own
   * git, credentials and configuration; refused while any sandbox can write that repository,
   * whose configuration and hooks git obeys.
   */
  push(chatId: string, hostPath: string): Promise<PushOutcome> {
    return this.serial(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const m = copy.meta;
      if (m.kind !== 'git' || !m.exportBranch || !m.exportedCommit) {
        throw new BerthError('invalid_request', 'There is no branch to push yet.', { hint: 'Create the branch from the Changes panel first, then push it.' });
      }
      const writer = this.deps.writableBySandbox?.(m.hostPath) ?? null;
      if (writer) {
        throw new BerthError('invalid_request', `Berth does not push from "${m.hostPath}" while ${writer} can write it: git would obey the configuration and hooks a sandbox could have written there.`, {
          hint: 'Detach the folder from that chat (or attach it read-only or in Review mode there), then push again.',
        });
      }
      return pushBranch(m.hostPath, m.exportBranch);
    });
  }

  // ---------- discard and refresh ----------

  discard(chatId: string, hostPath: string) {
    return this.rewrite(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const out = await discardCopy(copy);
      await this.recountCopy(copy);
      return out;
    });
  }

  refresh(chatId: string, hostPath: string) {
    return this.rewrite(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const out = await refreshCopy(copy);
      await this.recountCopy(copy);
      return out;
    });
  }

  // ---------- checkpoints ----------

  checkpoint(chatId: string, reason: 'turn' | 'manual', messageId: string | null, label?: string): Promise<Checkpoint> {
    return this.serial(chatId, async () => {
      const cp = await this.stored.record(chatId, this.copies(chatId), reason, messageId, label ?? (reason === 'turn' ? 'Before an agent turn' : 'Checkpoint'));
      return { ...checkpointView(cp), changedFiles: [] };
    });
  }

  /**
   * The turn's end: each copy as it is now, kept on the turn's checkpoint, so the turn's changes
   * stop here and the user's own edits in a terminal afterwards are not counted as the turn's.
   */
  endTurn(chatId: string, messageId: string): Promise<void> {
    return this.serial(chatId, () => this.stored.endTurn(chatId, messageId, this.copies(chatId)));
  }

  /** Whether the chat has any Review-mode copy (agent turns checkpoint only then). */
  hasCopies(chatId: string): boolean {
    return this.copies(chatId).length > 0;
  }

  checkpoints(chatId: string): Promise<{ checkpoints: Checkpoint[] }> {
    return this.serial(chatId, async () => ({ checkpoints: await this.stored.withChangedFiles(chatId, this.copies(chatId)) }));
  }

  restore(chatId: string, checkpointId: string): Promise<{ restored: string[]; message: string }> {
    return this.rewrite(chatId, async () => {
      const list = this.stored.load(chatId);
      const cp = list.find((c) => c.id === checkpointId);
      if (!cp) throw new BerthError('not_found', 'That checkpoint does not exist (any more).', { hint: 'Pick one from the chat’s checkpoints.' });
      return this.restoreTo(chatId, cp);
    });
  }

  undoTurn(chatId: string, messageId: string): Promise<{ restored: string[]; message: string }> {
    return this.rewrite(chatId, async () => {
      const cp = this.stored.load(chatId).find((c) => c.reason === 'turn' && c.messageId === messageId);
      if (!cp) throw new BerthError('not_found', 'Berth has no restore point for that turn (it ran before the folder was attached in Review mode).');
      return this.restoreTo(chatId, cp);
    });
  }

  private async restoreTo(chatId: string, cp: StoredCheckpoint): Promise<{ restored: string[]; message: string }> {
    // What is there now stays recoverable: a checkpoint of it comes first.
    await this.stored.record(chatId, this.copies(chatId), 'undo', null, `Before restoring "${cp.label}"`);
    const restored: string[] = [];
    for (const { copy } of this.copies(chatId)) {
      const commit = cp.commits[copy.meta.copyId];
      if (!commit) continue;
      const snap = await copy.snapshot();
      const changes = await copy.diff(snap.tree, `${commit}^{tree}`);
      await copy.resetWorkTo(`${commit}^{tree}`);
      restored.push(...changes.map((c) => c.path));
      await this.recountCopy(copy);
    }
    return { restored, message: `Restored ${restored.length} ${restored.length === 1 ? 'file' : 'files'} to "${cp.label}".` };
  }
}
