/**
 * Review mode, per chat: the copies of its Review-mode attachments, their changes, apply,
 * discard, refresh, checkpoints and undo, and the live count of changed files.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import {
  REVIEW_LIMITS, type ApplyProblem, type Checkpoint, type CopyChanges, type CopyContents, type FileChange,
} from '../../../shared/review.js';
import type { EventHub } from '../events.js';
import {
  NULL_OID, SYMLINK_MODE, applyProblems, branchNameFor, selectChanges, touchedPaths, type ApplyCandidate, type RawChange,
} from '../policy/reviewPolicy.js';
import type { Clock } from '../base/clock.js';
import { applyWrites, removeEmptyFolders, type FolderWrite } from './applyToFolder.js';
import { readBlobs } from './blobBatch.js';
import type { CopyTools } from './copyTools.js';
import { mergeBothChanged } from './threeWay.js';
import { exportToBranch } from './branchExport.js';
import { git } from './git.js';
import { pushBranch, type PushOutcome } from './pushBranch.js';
import { ReviewCopy, objectsTargetFor, slotProblem } from './reviewCopy.js';
import { arrangeSlot, emptySlot, isInSlot, removeFromSlot } from './slotFolders.js';
import { workspaceTargets } from '../policy/mountPlan.js';

interface StoredCheckpoint {
  id: string;
  chatId: string;
  reason: Checkpoint['reason'];
  messageId: string | null;
  label: string;
  createdAt: number;
  /** copy id → commit in that copy's tracking repository */
  commits: Record<string, string>;
  /** A turn's: copy id → the copy as the turn ended (what the user did afterwards is not the turn's). */
  endCommits?: Record<string, string>;
}

export interface ReviewAttachment {
  hostPath: string;
  containerPath: string | null;
}

export interface ReviewDeps {
  dataDir: string;
  events: EventHub;
  clock: Clock;
  /** The chat's Review-mode attachments, in order. */
  attachments: (chatId: string) => ReviewAttachment[];
  /**
   * Runs `write` (Berth writing into the chat's copies: undo, restore, discard, refresh) as the
   * chat's sandbox needs it (terminal/copyRewrite.ts): in place while a local sandbox and its
   * terminals keep running; a remote sandbox is started again with the rewritten copies.
   */
  rewriting: <T>(chatId: string, write: () => Promise<T>) => Promise<T>;
  chatTitle: (chatId: string) => string;
  /** The chat's slot folder, when it took a warm sandbox (review/slotFolders.ts): its first folder copy fills it. */
  slotOf?: (chatId: string) => string | null;
  /** Every folder attached to the chat (not the profile's), in order, with its mode: whether its slot can take one more copy. */
  sessionFolders?: (chatId: string) => { hostPath: string; mode: string }[];
  /** The most of a git repository's history a slot's copy takes (reviewCopy SLOT_HISTORY_MAX_BYTES by default). */
  slotHistoryMaxBytes?: number;
  /**
   * Brings the chat's copies on a remote engine into their copies here before Berth reads or
   * writes them (sandbox/sandboxManager syncRemoteCopies); nothing for a local sandbox. A remote
   * engine that does not answer leaves the copy here as it was last brought.
   */
  pull?: (chatId: string) => Promise<void>;
  /** Who else can write a host folder directly (a chat's read-write attachment, a profile's mount), as a sentence's subject; null when no sandbox can. */
  writableBySandbox?: (hostPath: string) => string | null;
}

const COUNT_DEBOUNCE_MS = 400;

/** -c settings for listing diffs: a file over the diff limit counts as binary, so it is never read through. */
const BIG_FILE_CONFIG = [`core.bigFileThreshold=${REVIEW_LIMITS.maxDiffBytes}`];

interface Listing {
  /** The base tree, the copy's tree and its too-large files: what the listing was made from. */
  key: string;
  /** A short hash of the key, sent to the page (`CopyChanges.version`, `review.changed`). */
  version: string;
  tree: string;
  /** Without diff text. */
  files: FileChange[];
}

function versionOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function listingKey(copy: ReviewCopy, snap: { tree: string; large: readonly string[] }): string {
  return `${copy.meta.baseTree}\0${snap.tree}\0${snap.large.join('\0')}`;
}

/** What writing `changes` (tree to tree, from the copy's objects) into the user's folder takes. */
export async function folderWrites(copy: ReviewCopy, changes: readonly RawChange[]): Promise<FolderWrite[]> {
  const writes: FolderWrite[] = [];
  // Every blob in one git process (blobBatch.ts): one process per file cost most of an apply's time.
  const kept = changes.filter((c) => c.status !== 'deleted');
  const blobs = new Map(kept.map((c, i) => [c, i]));
  const contents = await readBlobs(copy, kept.map((c) => c.newOid));
  const content = async (c: RawChange) => contents[blobs.get(c) as number] ?? copy.blob(c.newOid);
  for (const c of changes) {
    if (c.oldPath) writes.push({ kind: 'delete', path: c.oldPath });
    if (c.status === 'deleted') writes.push({ kind: 'delete', path: c.path });
    else if (c.newMode === SYMLINK_MODE) writes.push({ kind: 'symlink', path: c.path, target: (await content(c)).toString('utf8') });
    else writes.push({ kind: 'file', path: c.path, content: await content(c), executable: c.newMode === '100755' });
  }
  return writes;
}

/** The copy's last apply while review.undoApply can take it back, as the panel shows it. */
function undoableApply(copy: ReviewCopy): { files: string[]; at: number } | null {
  const last = copy.meta.lastApply;
  return last && last.after === copy.meta.baseTree ? { files: last.files, at: last.at } : null;
}

export class ReviewService {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly counts = new Map<string, number>();
  private readonly versions = new Map<string, string>();
  /** The last listing of each copy (by copy id): reused while the copy's content and base stay the same. */
  private readonly listings = new Map<string, Listing>();
  private readonly countTimers = new Map<string, unknown>();

  constructor(private readonly deps: ReviewDeps) {}

  get root(): string {
    return path.join(this.deps.dataDir, 'review');
  }

  copyDirFor(chatId: string, hostPath: string): string {
    const id = createHash('sha256').update(`${chatId}\0${hostPath}`).digest('hex').slice(0, 24);
    return path.join(this.root, id);
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
      await this.deps.pull?.(chatId).catch(() => undefined);
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

  /** One review operation that writes into the chat's copies (ReviewDeps.rewriting). */
  private rewrite<T>(chatId: string, work: () => Promise<T>): Promise<T> {
    return this.serial(chatId, () => this.deps.rewriting(chatId, work));
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
      this.listings.delete(l.copy.meta.copyId);
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
    if (copy) this.listings.delete(copy.meta.copyId);
    const slot = this.deps.slotOf?.(chatId) ?? null;
    if (copy?.meta.workDir && slot && isInSlot(copy.meta.workDir, slot)) {
      // One of several in the slot: it goes, and the others take the places a container made
      // with them would give them (the last one fills the slot again).
      const rest = this.slotCopies(chatId)?.filter((l) => l.hostPath !== hostPath) ?? null;
      removeFromSlot(copy.meta.workDir);
      if (rest && rest.length > 0) this.arrange(slot, rest);
    } else if (copy?.meta.workDir) emptySlot(copy.meta.workDir);
    this.counts.delete(`${chatId}\0${hostPath}`);
    this.versions.delete(`${chatId}\0${hostPath}`);
    fs.rmSync(this.copyDirFor(chatId, hostPath), { recursive: true, force: true });
  }

  removeChat(chatId: string, hostPaths: readonly string[]): void {
    for (const h of hostPaths) this.remove(chatId, h);
    fs.rmSync(this.checkpointFile(chatId), { force: true });
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

  /**
   * The copy's changed files without diff text, for one (base, copy) pair of trees. Listing is
   * the costly part of `review.changes` (two diffs over every changed file), and the panel asks
   * for it again after every write; the snapshot that gives the key is cheap (git's index stat
   * cache), so a listing is reused until the copy's content or its base really changes.
   */
  private async listing(copy: ReviewCopy, snap: { tree: string; large: string[] }): Promise<Listing> {
    const key = listingKey(copy, snap);
    const cached = this.listings.get(copy.meta.copyId);
    if (cached && cached.key === key) return cached;
    const base = copy.meta.baseTree;
    const [raw, numstat] = await Promise.all([copy.diff(base, snap.tree), this.numstat(copy, base, snap.tree)]);
    // Above the diff limit git calls a file binary without reading it through (core.bigFileThreshold):
    // only those need their size looked up, to tell "too large" from "binary".
    const maybeLarge = raw.filter((c) => numstat.get(c.path)?.binary ?? true);
    const sizes = await copy.blobSizes([...new Set(maybeLarge.flatMap((c) => [c.oldOid, c.newOid]).filter((o) => !NULL_OID.test(o)))]);
    const files: FileChange[] = raw.map((c) => {
      const stat = numstat.get(c.path);
      const tooLarge = Math.max(sizes.get(c.oldOid) ?? 0, sizes.get(c.newOid) ?? 0) > REVIEW_LIMITS.maxDiffBytes;
      return {
        path: c.path, oldPath: c.oldPath, status: c.status, binary: !tooLarge && (stat?.binary ?? false), tooLarge,
        symlink: c.newMode === SYMLINK_MODE || (c.status === 'deleted' && c.oldMode === SYMLINK_MODE),
        additions: tooLarge ? null : (stat?.additions ?? null), deletions: tooLarge ? null : (stat?.deletions ?? null), diff: null, diffOmitted: false,
      };
    });
    const largeInBase = await copy.inTree(base, snap.large);
    for (const p of snap.large) {
      files.push({ path: p, oldPath: null, status: largeInBase.has(p) ? 'modified' : 'added', binary: false, tooLarge: true, symlink: false, additions: null, deletions: null, diff: null, diffOmitted: false });
    }
    const listing: Listing = { key, version: versionOf(key), tree: snap.tree, files };
    this.listings.set(copy.meta.copyId, listing);
    return listing;
  }

  private async changesOf(copy: ReviewCopy, att: ReviewAttachment, diffs: boolean): Promise<CopyChanges> {
    const snap = await copy.snapshot();
    const listing = await this.listing(copy, snap);
    const files = listing.files.map((f) => ({ ...f, diffOmitted: !f.binary && !f.tooLarge }));
    // The diffs of the first files in the list come along (the panel shows the first at once);
    // the others when they are shown (review.diff): a thousand diffs are not read for one look.
    if (diffs) {
      let budget = REVIEW_LIMITS.maxInlineDiffBytes;
      const wanted: FileChange[] = [];
      for (const f of files) {
        if (!f.diffOmitted) continue;
        if (wanted.length >= REVIEW_LIMITS.inlineDiffFiles) break;
        const cost = f.additions !== null && f.deletions !== null ? (f.additions + f.deletions) * 120 : REVIEW_LIMITS.maxDiffBytes;
        if (cost > budget) continue;
        budget -= cost;
        wanted.push(f);
      }
      const texts = await this.patches(copy, copy.meta.baseTree, listing.tree, wanted);
      for (const f of wanted) {
        const text = texts.get(f.path);
        if (text === undefined) continue;
        f.diff = text;
        f.diffOmitted = false;
      }
    }
    const counts = { added: 0, modified: 0, deleted: 0, renamed: 0, total: files.length };
    for (const f of files) {
      if (f.status === 'added') counts.added++;
      else if (f.status === 'deleted') counts.deleted++;
      else if (f.status === 'renamed') counts.renamed++;
      else counts.modified++;
    }
    const truncated = files.length > REVIEW_LIMITS.maxListedFiles;
    this.setCount(copy.meta.chatId, copy.meta.hostPath, files.length, listing.version);
    return {
      hostPath: copy.meta.hostPath, containerPath: att.containerPath, kind: copy.meta.kind, branch: copy.meta.branch,
      exportBranch: copy.meta.exportBranch ?? null,
      files: truncated ? files.slice(0, REVIEW_LIMITS.maxListedFiles) : files, counts, truncated, version: listing.version, at: this.deps.clock.now(),
      lastApply: undoableApply(copy),
    };
  }

  private async numstat(copy: ReviewCopy, from: string, to: string): Promise<Map<string, { additions: number | null; deletions: number | null; binary: boolean }>> {
    const out = (await git(['diff-tree', '-r', '-z', '--numstat', '-M', '--no-ext-diff', '--no-textconv', from, to], {
      gitDir: copy.trackDir,
      config: BIG_FILE_CONFIG,
    })).stdout.toString('utf8');
    const parts = out.split('\0');
    const map = new Map<string, { additions: number | null; deletions: number | null; binary: boolean }>();
    for (let i = 0; i < parts.length; i++) {
      const line = parts[i] as string;
      if (!line) continue;
      const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(line);
      if (!m) continue;
      let p = m[3] as string;
      if (p === '') {
        // a rename: old path and new path follow
        i += 2;
        p = parts[i] as string;
      }
      const binary = m[1] === '-';
      map.set(p, { additions: binary ? null : Number(m[1]), deletions: binary ? null : Number(m[2]), binary });
    }
    return map;
  }

  /** Unified diffs of the named files, from one git call split at each file's header. */
  private async patches(copy: ReviewCopy, from: string, to: string, files: readonly FileChange[]): Promise<Map<string, string>> {
    const map = new Map<string, string>();
    if (files.length === 0) return map;
    const paths = files.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
    const text = await copy.patch(from, to, paths);
    const byHeader = new Map<string, string>();
    for (const s of text.split(/^(?=diff --git )/m)) {
      if (s.startsWith('diff --git ')) byHeader.set(s.slice(0, s.indexOf('\n')), s);
    }
    for (const f of files) {
      const found = byHeader.get(`diff --git a/${f.oldPath ?? f.path} b/${f.path}`);
      if (found !== undefined) map.set(f.path, found);
    }
    return map;
  }

  changes(chatId: string, hostPath: string | undefined, diffs: boolean): Promise<{ copies: CopyChanges[] }> {
    return this.serial(chatId, async () => {
      const list = this.copies(chatId).filter((c) => hostPath === undefined || c.att.hostPath === hostPath);
      if (hostPath !== undefined && list.length === 0) this.requireCopy(chatId, hostPath);
      const copies: CopyChanges[] = [];
      for (const { copy, att } of list) copies.push(await this.changesOf(copy, att, diffs));
      return { copies };
    });
  }

  diff(chatId: string, hostPath: string, file: string): Promise<FileChange> {
    return this.serial(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const listing = await this.listing(copy, await copy.snapshot());
      const found = listing.files.find((f) => f.path === file) ?? listing.files.find((f) => f.oldPath === file);
      if (!found) throw new BerthError('not_found', `"${file}" has no changes in this chat's copy.`, { hint: 'Reload the Changes panel.' });
      const change = { ...found };
      if (!change.binary && !change.tooLarge) change.diff = (await this.patches(copy, copy.meta.baseTree, listing.tree, [change])).get(change.path) ?? null;
      return change;
    });
  }

  // ---------- live count ----------

  private setCount(chatId: string, hostPath: string, n: number, version: string): void {
    const key = `${chatId}\0${hostPath}`;
    const before = this.summary(chatId);
    this.counts.set(key, n);
    this.versions.set(key, version);
    const after = this.summary(chatId);
    // The version too: a file changed again leaves the count as it was, and the panel must still follow.
    if (before.count !== after.count || before.version !== after.version) this.deps.events.emit('review.changed', { chatId, ...after });
  }

  private totalCount(chatId: string): number {
    return this.summary(chatId).count;
  }

  /** The chat's count of changed files and a version that changes whenever any of its copies' changes do. */
  private summary(chatId: string): { count: number; version: string } {
    let count = 0;
    const parts: string[] = [];
    for (const [k, v] of this.counts) {
      if (!k.startsWith(`${chatId}\0`)) continue;
      count += v;
      parts.push(`${k}\0${this.versions.get(k) ?? ''}`);
    }
    return { count, version: createHash('sha256').update(parts.sort().join('\n')).digest('hex').slice(0, 16) };
  }

  /**
   * The last known count of changed files of one copy (0 before the first look). Asked before
   * any look since Berth started (a restart: the page lists its chats), it looks soon, so the
   * count comes back with `review.changed` without waiting for the chat's next command.
   */
  knownCount(chatId: string, hostPath: string): number {
    const known = this.counts.get(`${chatId}\0${hostPath}`);
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
      return this.totalCount(chatId);
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

      const candidates: ApplyCandidate[] = [];
      for (const c of chosen) {
        const linkTarget = c.newMode === SYMLINK_MODE && c.status !== 'deleted' ? (await copy.blob(c.newOid)).toString('utf8') : null;
        candidates.push({ ...c, tooLarge: false, linkTarget });
      }
      for (const p of largeChosen) {
        candidates.push({ status: 'modified', path: p, oldPath: null, oldMode: '100644', newMode: '100644', oldOid: '', newOid: '', tooLarge: true, linkTarget: null });
      }
      const userNow = await copy.userSnapshot();
      const userChanged = new Set([...(await copy.diff(copy.meta.baseTree, userNow.tree)).flatMap(touchedPaths), ...userNow.large]);
      const problems: ApplyProblem[] = applyProblems(candidates, userChanged);
      const { leadingLinkProblem } = await import('./applyToFolder.js');
      if (problems.length === 0) {
        for (const c of candidates) {
          for (const p of touchedPaths(c)) {
            const why = leadingLinkProblem(copy.meta.hostPath, p);
            if (why) problems.push({ path: p, kind: 'unsafe_path', message: why });
          }
        }
      }
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
      const last = copy.meta.lastApply;
      if (!last || last.after !== copy.meta.baseTree) {
        throw new BerthError('invalid_request', `There is no apply to undo for "${copy.meta.hostPath}": nothing was applied since the copy was made, refreshed or discarded, or it was undone already.`, {
          hint: 'Reload the Changes panel.',
        });
      }
      const applied = new Set(last.files);
      const userNow = await copy.userSnapshot();
      // What the folder held after the apply: the base after it, or (chosen lines) the folder's own tree then.
      const folderAfter = last.userAfter ?? last.after;
      const changedSince = new Set([...(await copy.diff(folderAfter, userNow.tree)).flatMap(touchedPaths), ...userNow.large]);
      const problems: ApplyProblem[] = last.files
        .filter((p) => changedSince.has(p))
        .map((p) => ({ path: p, kind: 'conflict' as const, message: `"${p}" changed in your folder after the apply; Berth leaves your version as it is.` }));
      if (problems.length > 0) {
        return {
          ok: false, restored: [], problems,
          message: `Nothing was undone: ${problems.length === 1 ? 'one applied file' : `${problems.length} applied files`} changed in your folder since (${problems.slice(0, 3).map((p) => p.path).join(', ')}). Undo those edits yourself, or keep the apply.`,
        };
      }
      // From the base after the apply back to the one before: exactly the applied paths change.
      const back = (await copy.diff(folderAfter, last.userBefore ?? last.before)).filter((c) => touchedPaths(c).some((p) => applied.has(p)));
      applyWrites(copy.meta.hostPath, await folderWrites(copy, back));
      removeEmptyFolders(copy.meta.hostPath, last.madeDirs);
      copy.meta.baseTree = last.before;
      copy.meta.lastApply = null;
      copy.saveMeta();
      await this.recountCopy(copy);
      const restored = [...applied].sort();
      return {
        ok: true, restored, problems: [],
        message:
          restored.length === 1
            ? `Undid the apply: one file in ${copy.meta.hostPath} is back as it was.`
            : `Undid the apply: ${restored.length} files in ${copy.meta.hostPath} are back as they were.`,
      };
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
      const tools: CopyTools = {
        version: async () => (await this.listing(copy, await copy.snapshot())).version,
        write: async (changes) => applyWrites(copy.meta.hostPath, await folderWrites(copy, changes)),
        rewriting: (write) => this.deps.rewriting(chatId, write),
        now: () => this.deps.clock.now(),
      };
      try {
        return await work(copy, tools);
      } finally {
        await this.recountCopy(copy);
      }
    });
  }

  /** The copy's count of changed files now (one snapshot and one tree diff; the listing waits until the panel asks). */
  private async recountCopy(copy: ReviewCopy): Promise<void> {
    const snap = await copy.snapshot();
    const key = listingKey(copy, snap);
    const cached = this.listings.get(copy.meta.copyId);
    const n = cached && cached.key === key ? cached.files.length : (await copy.diff(copy.meta.baseTree, snap.tree)).length + snap.large.length;
    this.setCount(copy.meta.chatId, copy.meta.hostPath, n, versionOf(key));
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
      const snap = await copy.snapshot();
      const discarded = (await copy.diff(copy.meta.baseTree, snap.tree)).length + snap.large.length;
      const userNow = await copy.userSnapshot();
      copy.removeFiles(snap.large);
      await copy.resetWorkTo(userNow.tree);
      copy.meta.baseTree = userNow.tree;
      // The chat's work is gone: an apply of it is the user's own now, not something to take back.
      copy.meta.lastApply = null;
      copy.saveMeta();
      await this.recountCopy(copy);
      return { discarded, message: `Discarded ${discarded} changed ${discarded === 1 ? 'file' : 'files'}; the copy matches your folder again.` };
    });
  }

  refresh(chatId: string, hostPath: string) {
    return this.rewrite(chatId, async () => {
      const copy = this.requireCopy(chatId, hostPath);
      const snap = await copy.snapshot();
      const chatChanged = new Set((await copy.diff(copy.meta.baseTree, snap.tree)).flatMap(touchedPaths));
      const userNow = await copy.userSnapshot();
      const userChanges = await copy.diff(copy.meta.baseTree, userNow.tree);
      const both = userChanges.filter((c) => touchedPaths(c).some((p) => chatChanged.has(p)));
      const take = userChanges.filter((c) => !both.includes(c));
      // Files both sides changed: git merge-file puts clean ones together (threeWay.ts).
      const merge = await mergeBothChanged(copy, both, snap.tree);
      if (take.length > 0 || merge.copyEntries.length > 0) {
        const next = await copy.compose(snap.tree, userNow.tree, [...take, ...merge.copyEntries]);
        await copy.resetWorkTo(next);
        copy.meta.baseTree = await copy.compose(copy.meta.baseTree, userNow.tree, [...take, ...merge.baseEntries]);
        copy.saveMeta();
      }
      await this.recountCopy(copy);
      const updated = take.map((c) => c.path);
      const merged = merge.copyEntries.map((c) => c.path);
      const conflictPaths = merge.conflicting;
      return {
        updated, merged, conflicts: conflictPaths,
        message: `Brought in ${updated.length} ${updated.length === 1 ? 'file' : 'files'} from your folder.` +
          (merged.length ? ` Merged your changes into the chat's in ${merged.length} ${merged.length === 1 ? 'file' : 'files'}: ${merged.slice(0, 5).join(', ')}.` : '') +
          (conflictPaths.length ? ` ${conflictPaths.length} changed in the same lines in your folder and in the chat; the chat's versions are kept until you resolve them in the Changes panel: ${conflictPaths.slice(0, 5).join(', ')}.` : ''),
      };
    });
  }

  // ---------- checkpoints ----------

  private checkpointFile(chatId: string): string {
    return path.join(this.root, 'checkpoints', `${createHash('sha256').update(chatId).digest('hex').slice(0, 24)}.json`);
  }

  private loadCheckpoints(chatId: string): StoredCheckpoint[] {
    try {
      return JSON.parse(fs.readFileSync(this.checkpointFile(chatId), 'utf8')) as StoredCheckpoint[];
    } catch {
      return [];
    }
  }

  private saveCheckpoints(chatId: string, list: StoredCheckpoint[]): void {
    const file = this.checkpointFile(chatId);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(list));
    fs.renameSync(`${file}.tmp`, file);
  }

  private async record(chatId: string, reason: Checkpoint['reason'], messageId: string | null, label: string): Promise<StoredCheckpoint> {
    const list = this.loadCheckpoints(chatId);
    const commits: Record<string, string> = {};
    for (const { copy } of this.copies(chatId)) {
      const snap = await copy.snapshot();
      const prev = [...list].reverse().find((c) => c.commits[copy.meta.copyId])?.commits[copy.meta.copyId] ?? null;
      const commit = await copy.commit(snap.tree, prev, label || reason);
      await copy.setRef(`refs/berth/checkpoints/${list.length}`, commit);
      commits[copy.meta.copyId] = commit;
    }
    const cp: StoredCheckpoint = { id: randomUUID(), chatId, reason, messageId, label, createdAt: this.deps.clock.now(), commits };
    list.push(cp);
    this.saveCheckpoints(chatId, list);
    return cp;
  }

  checkpoint(chatId: string, reason: 'turn' | 'manual', messageId: string | null, label?: string): Promise<Checkpoint> {
    return this.serial(chatId, async () => {
      const cp = await this.record(chatId, reason, messageId, label ?? (reason === 'turn' ? 'Before an agent turn' : 'Checkpoint'));
      return { ...this.view(cp), changedFiles: [] };
    });
  }

  /**
   * The turn's end: each copy as it is now, kept on the turn's checkpoint, so the turn's changes
   * stop here and the user's own edits in a terminal afterwards are not counted as the turn's.
   */
  endTurn(chatId: string, messageId: string): Promise<void> {
    return this.serial(chatId, async () => {
      const list = this.loadCheckpoints(chatId);
      const cp = list.find((c) => c.reason === 'turn' && c.messageId === messageId);
      if (!cp) return;
      const ends: Record<string, string> = {};
      for (const { copy } of this.copies(chatId)) {
        const from = cp.commits[copy.meta.copyId];
        if (!from) continue;
        ends[copy.meta.copyId] = await copy.commit((await copy.snapshot()).tree, from, 'After an agent turn');
        // Referenced like the checkpoints, so nothing that tidies the repository drops it.
        await copy.setRef(`refs/berth/turn-ends/${list.indexOf(cp)}`, ends[copy.meta.copyId]!);
      }
      cp.endCommits = ends;
      this.saveCheckpoints(chatId, list);
    });
  }

  /** Whether the chat has any Review-mode copy (agent turns checkpoint only then). */
  hasCopies(chatId: string): boolean {
    return this.copies(chatId).length > 0;
  }

  private view(cp: StoredCheckpoint): Omit<Checkpoint, 'changedFiles'> {
    return { id: cp.id, chatId: cp.chatId, reason: cp.reason, messageId: cp.messageId, label: cp.label, createdAt: cp.createdAt };
  }

  checkpoints(chatId: string): Promise<{ checkpoints: Checkpoint[] }> {
    return this.serial(chatId, async () => {
      const list = this.loadCheckpoints(chatId);
      const copies = this.copies(chatId);
      const now = new Map<string, string>();
      for (const { copy } of copies) now.set(copy.meta.copyId, (await copy.snapshot()).tree);
      const out: Checkpoint[] = [];
      for (const [i, cp] of list.entries()) {
        const changed = new Set<string>();
        for (const { copy, att } of copies) {
          const from = cp.commits[copy.meta.copyId];
          if (!from) continue;
          const next = list.slice(i + 1).find((c) => c.commits[copy.meta.copyId])?.commits[copy.meta.copyId];
          const to = cp.endCommits?.[copy.meta.copyId] ?? next ?? now.get(copy.meta.copyId);
          if (!to) continue;
          const prefix = copies.length > 1 ? `${path.basename(att.hostPath)}/` : '';
          for (const c of await copy.diff(from, to)) changed.add(prefix + c.path);
        }
        out.push({ ...this.view(cp), changedFiles: [...changed].sort() });
      }
      return { checkpoints: out };
    });
  }

  restore(chatId: string, checkpointId: string): Promise<{ restored: string[]; message: string }> {
    return this.rewrite(chatId, async () => {
      const list = this.loadCheckpoints(chatId);
      const cp = list.find((c) => c.id === checkpointId);
      if (!cp) throw new BerthError('not_found', 'That checkpoint does not exist (any more).', { hint: 'Pick one from the chat’s checkpoints.' });
      return this.restoreTo(chatId, cp);
    });
  }

  undoTurn(chatId: string, messageId: string): Promise<{ restored: string[]; message: string }> {
    return this.rewrite(chatId, async () => {
      const cp = this.loadCheckpoints(chatId).find((c) => c.reason === 'turn' && c.messageId === messageId);
      if (!cp) throw new BerthError('not_found', 'Berth has no restore point for that turn (it ran before the folder was attached in Review mode).');
      return this.restoreTo(chatId, cp);
    });
  }

  private async restoreTo(chatId: string, cp: StoredCheckpoint): Promise<{ restored: string[]; message: string }> {
    // What is there now stays recoverable: a checkpoint of it comes first.
    await this.record(chatId, 'undo', null, `Before restoring "${cp.label}"`);
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
