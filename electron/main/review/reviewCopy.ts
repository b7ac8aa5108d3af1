/**
 * One chat's copy of one folder attached in Review mode, and Berth's tracking repository beside
 * it. Layout, under <data dir>/review/<copy id>/ (never mounted, except work/):
 *   work/        the copy the chat sees at /workspace/...; for a git repository it has its own
 *                .git (branch berth/<chat>, the user's objects shared read-only through an
 *                alternates path that only exists inside the container; in a slot, a copy of
 *                them instead: copyHistory)
 *   track.git/   Berth's own bare repository: the copy's work tree is only ever read and written
 *                through it, so nothing the chat writes into work/.git is ever read by Berth.
 *                Its objects borrow the user's (alternates, read-only use); its refs hold the
 *                base (the folder as it was copied) and the checkpoints.
 *   shadow/      what the copy held when Berth last looked, read without following any link
 *                (review/shadowCopy.ts): git's work tree, so git never looks up a path in the
 *                copy the sandbox can change while it runs.
 *   meta.json    what the copy is (kind, base, what was left out).
 * A chat that took a warm sandbox has its copies' work trees in its slot folder instead
 * (review/slotFolders.ts; meta.workDir says so), so they appear in the running container.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { REVIEW_LIMITS, type CopyContents, type ReviewCopyInfo } from '../../../shared/review.js';
import { partitionSecrets, parseRawDiff, type RawChange } from '../policy/reviewPolicy.js';
import { git, gitText, gitZ, type GitOptions } from './git.js';
import { emptySlot, fillSlot } from './slotFolders.js';
import { forgetConvertedStat, overrideAttributes } from './trackAttributes.js';
import { chownTree, runChecked } from './copyOwner.js';
import { changedPaths, removeFromBoth, syncToShadow, writeBack } from './shadowCopy.js';
import { makeSandboxRepo } from './sandboxRepo.js';
import { keptOrTaken } from './snapshotMemo.js';
import { breather, copyEntry, copyTree, indexEntryCount, scanFolder, tooManyFiles } from './copyFiles.js';
import { SLOT_HISTORY_MAX_BYTES, historyProblem, userRepository } from './userRepository.js';

export { indexEntryCount, scanFolder } from './copyFiles.js';
export { SLOT_HISTORY_MAX_BYTES, historyProblem, slotProblem } from './userRepository.js';

export interface CopyMeta {
  copyId: string;
  chatId: string;
  hostPath: string;
  kind: 'git' | 'folder';
  branch: string | null;
  /** The user's HEAD when the copy was made. */
  headCommit: string | null;
  /** The user's git common dir (kind 'git'). */
  userGitDir: string | null;
  userObjects: string | null;
  /** The tree of the folder as last taken in (made, discarded, refreshed, applied). */
  baseTree: string;
  uncommittedFiles: string[];
  uncommittedCount: number;
  contents: CopyContents;
  excludedSecrets: string[];
  fileCount: number;
  createdAt: number;
  /** The last commit Berth put on the export branch in the user's repository. */
  exportedCommit: string | null;
  /** The branch in the user's repository that holds the chat's work ("Create branch"), named from the chat's title when first made. */
  exportBranch?: string | null;
  /** Where the work tree is when not work/ beside the meta: inside the chat's slot folder. */
  workDir?: string | null;
  /**
   * Kind 'git' in a slot: the copy's .git holds a copy of the user's objects (never links to
   * them), so no read-only mount of the user's objects is needed. Absent or false: borrowed.
   */
  historyCopied?: boolean;
  /** Kind 'git', history borrowed although the chat had a free slot: why (said at attach). */
  historyNotCopied?: string | null;
  /**
   * The last apply to the user's folder, for review.undoApply: the base before and after it, the
   * paths it wrote or removed, and the folders it made. Undoable while baseTree is still `after`.
   * An apply of chosen lines (review/partialApply) also keeps the folder's own trees before and
   * after it: there the folder may hold the user's other edits, which the base does not.
   */
  lastApply?: { before: string; after: string; files: string[]; madeDirs: string[]; at: number; userBefore?: string; userAfter?: string } | null;
}

/** `message` says what is being done, in words; the counts are `files` and `total` (the panel shows them beside it). */
export type Progress = (phase: 'scanning' | 'copying' | 'indexing' | 'done', files: number, total: number | null, message: string) => void;

/** The container path at which a git copy's borrowed objects are mounted read-only. */
export function objectsTargetFor(copyId: string): string {
  return `/.berth-git/${copyId}`;
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export class ReviewCopy {
  /** Files a copy may hold (REVIEW_LIMITS.maxCopyFiles; lower in tests). */
  private maxFiles: number = REVIEW_LIMITS.maxCopyFiles;

  constructor(readonly dir: string, public meta: CopyMeta) {}

  get workDir(): string {
    return this.meta.workDir ?? path.join(this.dir, 'work');
  }
  /** Berth's own picture of the copy, which git reads and writes (shadowCopy.ts). */
  get shadowDir(): string {
    return path.join(this.dir, 'shadow');
  }
  get trackDir(): string {
    return path.join(this.dir, 'track.git');
  }
  private attributesChecked = false;
  /** Berth's repository, with the attributes of the copy and the folder overridden (trackAttributes.ts). */
  private get trackGitDir(): string {
    if (!this.attributesChecked) {
      overrideAttributes(this.trackDir);
      this.attributesChecked = true;
    }
    return this.trackDir;
  }
  /** git on the copy: Berth's repository, the copy's shadow as work tree (never the copy itself), Berth's index. */
  private copyGit(): GitOptions {
    return { gitDir: this.trackGitDir, workTree: this.shadowDir, indexFile: path.join(this.trackDir, 'index') };
  }
  /** git on the user's folder, through Berth's repository and a separate index (a cache of the folder's stat data). */
  private userGit(): GitOptions {
    return { gitDir: this.trackGitDir, workTree: this.meta.hostPath, indexFile: path.join(this.trackDir, 'user-index') };
  }

  saveMeta(): void {
    const file = path.join(this.dir, 'meta.json');
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(this.meta, null, 1));
    fs.renameSync(`${file}.tmp`, file);
  }

  static load(dir: string): ReviewCopy | null {
    try {
      return new ReviewCopy(dir, JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as CopyMeta);
    } catch {
      return null;
    }
  }

  info(changedCount: number): ReviewCopyInfo {
    const m = this.meta;
    return {
      kind: m.kind, branch: m.branch, baseCommit: m.headCommit, uncommittedFiles: m.uncommittedFiles.slice(0, 200),
      uncommittedCount: m.uncommittedCount, contents: m.contents, excludedSecrets: m.excludedSecrets, fileCount: m.fileCount,
      createdAt: m.createdAt, changedCount,
    };
  }

  // ---------- snapshots ----------

  /** Files git would add that are over the size limit: listed, never hashed. */
  private async largeFiles(opts: GitOptions, root: string, candidates?: readonly string[]): Promise<string[]> {
    const args = ['ls-files', '-z', '-o', '-m'];
    if (this.meta.kind === 'git') args.push('--exclude-standard');
    const paths = candidates ?? (await gitZ(args, opts));
    const large: string[] = [];
    for (const p of new Set(paths)) {
      try {
        const st = fs.lstatSync(path.join(root, p));
        if (st.isFile() && st.size > REVIEW_LIMITS.maxTrackedFileBytes) large.push(p);
      } catch {
        /* gone meanwhile */
      }
    }
    return large;
  }

  /** Takes the state of a work tree (the copy, or the user's folder) into an index; returns its tree and the files left out as too large. */
  private async snapshotWith(opts: GitOptions, root: string, exclude: readonly string[] = [], candidates?: readonly string[]): Promise<{ tree: string; large: string[] }> {
    const large = await this.largeFiles(opts, root, candidates);
    const pathspec = ['.', ...[...large, ...exclude].map((p) => `:(exclude,literal)${p}`)];
    const add = ['add', '-A', '--ignore-errors'];
    if (this.meta.kind === 'folder') add.push('-f');
    await git([...add, '--', ...pathspec], { ...opts, okCodes: [1] });
    const tree = await gitText(['write-tree'], opts);
    return { tree, large };
  }

  /** The copy as it is now: its shadow brought up to date (read link-safe), then taken in by git (or kept from the last look when nothing changed: snapshotMemo). */
  async snapshot(): Promise<{ tree: string; large: string[] }> {
    this.assertWorkTree();
    return keptOrTaken(this.trackDir, await syncToShadow(this.workDir, this.shadowDir, REVIEW_LIMITS.maxTrackedFileBytes), () => this.snapshotWith(this.copyGit(), this.shadowDir));
  }

  /** Removes files from the copy (never through a link) and from its shadow. */
  removeFiles(paths: readonly string[]): void {
    if (paths.length > 0) removeFromBoth(this.workDir, this.shadowDir, paths);
  }

  /**
   * A work tree in a slot folder is reached by its path: it must still be the real folder Berth
   * made (the container cannot rename its own mount point, so only a slot tampered with on the
   * host could fail this), never a link git would follow elsewhere.
   */
  private assertWorkTree(): void {
    if (!this.meta.workDir) return;
    let ok: boolean;
    try {
      ok = fs.realpathSync.native(this.meta.workDir) === this.meta.workDir && fs.lstatSync(this.meta.workDir).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) {
      throw new BerthError('workspace_changed', `The chat's copy at "${this.meta.workDir}" is missing or was replaced, so Berth will not read it.`, {
        hint: 'Detach the folder and attach it again in Review mode.',
      });
    }
  }

  /** The user's folder as it is now (secrets left out of the copy stay left out), and the index file that holds exactly that tree. */
  async userSnapshot(): Promise<{ tree: string; large: string[]; index: string }> {
    const index = path.join(this.trackDir, 'user-index');
    if (!fs.existsSync(index)) await git(['read-tree', this.meta.baseTree], this.userGit());
    return { ...(await this.snapshotWith(this.userGit(), this.meta.hostPath, this.meta.excludedSecrets)), index };
  }

  async diff(from: string, to: string): Promise<RawChange[]> {
    return parseRawDiff(await gitZ(['diff-tree', '-r', '-z', '--raw', '-M', '--no-ext-diff', '--no-textconv', from, to], this.copyGit()));
  }

  /** A commit of `tree`, authored and committed as `identity` (the user's own, for a branch in their repository) or as Berth. */
  async commit(tree: string, parent: string | null, message: string, identity?: { name: string; email: string } | null): Promise<string> {
    const args = ['commit-tree', tree, '-m', message];
    if (parent) args.push('-p', parent);
    const opts = this.copyGit();
    // Later -c settings win over SAFE_GIT_CONFIG's user.name=Berth.
    return gitText(args, identity ? { ...opts, config: [...(opts.config ?? []), `user.name=${identity.name}`, `user.email=${identity.email}`] } : opts);
  }

  async setRef(ref: string, oid: string): Promise<void> {
    await git(['update-ref', ref, oid], this.copyGit());
  }

  /** Sizes of blobs, by id. */
  async blobSizes(oids: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    if (oids.length === 0) return sizes;
    const out = await gitText(['cat-file', '--batch-check=%(objectname) %(objectsize)'], { ...this.copyGit(), input: `${oids.join('\n')}\n` });
    for (const line of out.split('\n')) {
      const [oid, size] = line.split(' ');
      if (oid && size && /^\d+$/.test(size)) sizes.set(oid, Number(size));
    }
    return sizes;
  }

  /** Which of these paths a tree holds (as any kind of entry). */
  async inTree(tree: string, paths: readonly string[]): Promise<Set<string>> {
    // One query per line: a name with a newline cannot be asked, and counts as not there.
    const asked = paths.filter((p) => !p.includes('\n'));
    if (asked.length === 0) return new Set();
    const out = await gitText(['cat-file', '--batch-check=%(objectname)'], { ...this.copyGit(), input: asked.map((p) => `${tree}:${p}\n`).join('') });
    const lines = out.split('\n');
    return new Set(asked.filter((_, i) => lines[i] !== undefined && !lines[i]!.endsWith(' missing')));
  }

  async blob(oid: string): Promise<Buffer> {
    return (await git(['cat-file', 'blob', oid], this.copyGit())).stdout;
  }

  async patch(from: string, to: string, paths: readonly string[]): Promise<string> {
    if (paths.length === 0) return '';
    const out = await git(
      ['diff-tree', '-r', '-p', '-M', '--no-ext-diff', '--no-textconv', '--no-color', from, to, '--', ...paths.map((p) => `:(literal)${p}`)],
      { ...this.copyGit(), maxOutput: 256 * 1024 * 1024 },
    );
    return out.stdout.toString('utf8');
  }

  /** A tree made from `base` with the entries of `paths` taken from `source` (or removed where `source` lacks them). */
  async compose(base: string, source: string, changes: readonly RawChange[]): Promise<string> {
    const index = path.join(this.trackDir, `compose-${randomBytes(4).toString('hex')}`);
    const opts = { gitDir: this.trackGitDir, indexFile: index };
    try {
      await git(['read-tree', base], opts);
      const lines: string[] = [];
      for (const c of changes) {
        if (c.oldPath) lines.push(`0 ${'0'.repeat(40)}\t${c.oldPath}`);
        if (c.status === 'deleted') lines.push(`0 ${'0'.repeat(40)}\t${c.path}`);
        else lines.push(`${c.newMode} ${c.newOid}\t${c.path}`);
      }
      void source;
      if (lines.length) await git(['update-index', '-z', '--index-info'], { ...opts, input: lines.map((l) => `${l}\0`).join('') });
      return await gitText(['write-tree'], opts);
    } finally {
      fs.rmSync(index, { force: true });
    }
  }

  /**
   * Makes the copy's files match a tree, the sandbox's to edit again: git checks it out into the
   * shadow, and the paths that changed are written into the copy link-safe (shadowCopy.writeBack),
   * owned by the copy's owner, so no write follows a link the sandbox put in the way.
   */
  async resetWorkTo(tree: string): Promise<void> {
    const snap = await this.snapshot();
    const changes = parseRawDiff(await gitZ(['diff-tree', '-r', '-z', '--raw', '--no-renames', snap.tree, tree], this.copyGit()));
    await git(['read-tree', '-u', '--reset', tree], this.copyGit());
    writeBack(this.workDir, this.shadowDir, changedPaths(changes));
  }

  /**
   * A fork's files (forkCopy): checked out into the new shadow, then cp -a into work/, times kept, so the next look reads
   * nothing again (reading work/ back into the shadow file by file took 28 of a 50,000-file fork's 47 s: bench:review).
   */
  async checkOutFresh(tree: string): Promise<void> {
    await git(['read-tree', tree], this.copyGit());
    await git(['checkout-index', '-a', '-f', '-q', '-u'], this.copyGit());
    this.meta.fileCount = indexEntryCount(path.join(this.trackDir, 'index')) ?? 0;
    await runChecked('cp', ['-a', '--reflink=auto', `${this.shadowDir}/.`, this.workDir], 'fill the new copy');
    const { kind, branch, headCommit, copyId } = this.meta;
    if (kind === 'git') await makeSandboxRepo({ workDir: this.workDir, trackDir: this.trackDir, branch, headCommit, alternates: objectsTargetFor(copyId), git: this.copyGit() });
  }

  // ---------- making a copy ----------

  static async create(input: {
    dir: string;
    chatId: string;
    hostPath: string;
    branch: string;
    contents: CopyContents;
    owner: { uid: number; gid: number } | null;
    now: number;
    progress: Progress;
    /** Files the copy may hold; more is refused before anything is copied. Default REVIEW_LIMITS.maxCopyFiles. */
    maxFiles?: number;
    /** The chat's slot folder when the copy may go into it (it took a warm sandbox): a free one the copy's work tree becomes. */
    slot?: string | null;
    /** The most a git copy copies of the user's history to fit the slot (SLOT_HISTORY_MAX_BYTES). */
    historyMaxBytes?: number;
  }): Promise<ReviewCopy> {
    const { dir, hostPath } = input;
    fs.mkdirSync(path.join(dir, 'work'), { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.join(dir, 'shadow'), { mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const copyId = path.basename(dir);
    const userGitDir = await userRepository(hostPath);
    await git(['init', '-q', '--bare', '--template=', path.join(dir, 'track.git')], { cwd: dir });
    const meta: CopyMeta = {
      copyId, chatId: input.chatId, hostPath, kind: userGitDir ? 'git' : 'folder', branch: userGitDir ? input.branch : null,
      headCommit: null, userGitDir: userGitDir?.common ?? null, userObjects: null, baseTree: EMPTY_TREE, uncommittedFiles: [],
      uncommittedCount: 0, contents: input.contents, excludedSecrets: [], fileCount: 0, createdAt: input.now, exportedCommit: null,
    };
    const copy = new ReviewCopy(dir, meta);
    copy.maxFiles = input.maxFiles ?? REVIEW_LIMITS.maxCopyFiles;
    try {
      if (userGitDir) await copy.populateFromRepo(userGitDir, input.progress);
      else await copy.populateFromFolder(input.progress);
      // A git copy goes into the slot only with its own copy of the history: borrowing the
      // user's objects needs a mount of its own, which only a container created with it has.
      // Free, the copy fills it; one that holds the chat's other copies takes this one beside them
      // (ReviewService arranges it: review/slotFolders.ts arrangeSlot).
      const slot = input.slot ?? null;
      if (slot && meta.kind === 'git') {
        meta.historyNotCopied = await copy.copyHistory(input.historyMaxBytes ?? SLOT_HISTORY_MAX_BYTES, input.progress);
        meta.historyCopied = meta.historyNotCopied === null;
      }
      if (input.owner) await chownTree(copy.workDir, input.owner);
      if (slot && (meta.kind === 'folder' || meta.historyCopied) && fillSlot(slot, copy.workDir)) meta.workDir = slot;
      copy.saveMeta();
      input.progress('done', meta.fileCount, meta.fileCount, 'The copy is ready.');
      return copy;
    } catch (error) {
      if (meta.workDir) emptySlot(meta.workDir);
      fs.rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private async populateFromRepo(repo: { gitDir: string; common: string }, progress: Progress): Promise<void> {
    const m = this.meta;
    const userOpts: GitOptions = { cwd: m.hostPath, config: [`safe.directory=${m.hostPath}`] };
    m.userObjects = path.join(repo.common, 'objects');
    fs.mkdirSync(path.join(this.trackDir, 'objects', 'info'), { recursive: true });
    fs.writeFileSync(path.join(this.trackDir, 'objects', 'info', 'alternates'), `${m.userObjects}\n`);
    // The user's own excludes (.git/info/exclude) keep meaning the same in the copy.
    try {
      fs.mkdirSync(path.join(this.trackDir, 'info'), { recursive: true });
      fs.copyFileSync(path.join(repo.common, 'info', 'exclude'), path.join(this.trackDir, 'info', 'exclude'));
    } catch {
      /* none */
    }
    progress('scanning', 0, null, 'Reading the repository’s state…');
    m.headCommit = (await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { ...userOpts, okCodes: [1] })).stdout.toString().trim() || null;
    // The user's index already knows which files are unchanged: start from it, so only changed files are hashed.
    const userIndex = path.join(this.trackDir, 'user-index');
    try {
      fs.copyFileSync(path.join(repo.gitDir, 'index'), userIndex);
    } catch {
      /* no index yet */
    }
    if (!fs.existsSync(userIndex)) await git(['read-tree', m.headCommit ?? EMPTY_TREE], this.userGit());
    else await forgetConvertedStat({ hostPath: m.hostPath, ...repo }, this.userGit());
    // The cap first, before anything is hashed or checked out: the index says how many files are
    // tracked in its header, and the untracked ones are counted while git lists them.
    const tracked = indexEntryCount(userIndex);
    if (tracked !== null && tracked > this.maxFiles) throw tooManyFiles(m.hostPath, this.maxFiles);
    progress('indexing', 0, null, 'Taking in your uncommitted changes…');
    const untrackedNow = () =>
      gitZ(['ls-files', '-z', '-o', '--exclude-standard'], {
        ...this.userGit(),
        maxRecords: { limit: Math.max(0, this.maxFiles - (tracked ?? 0)), tooMany: () => tooManyFiles(m.hostPath, this.maxFiles) },
      });
    let untracked: string[];
    try {
      untracked = await untrackedNow();
    } catch (error) {
      if (error instanceof BerthError && error.code === 'review_too_large') throw error;
      // An index git cannot reuse here (split index, another version): start from HEAD.
      fs.rmSync(userIndex, { force: true });
      await git(['read-tree', m.headCommit ?? EMPTY_TREE], this.userGit());
      untracked = await untrackedNow();
    }
    const { excluded } = partitionSecrets(untracked, m.contents.include);
    m.excludedSecrets = excluded;
    const modified = await gitZ(['ls-files', '-z', '-m'], this.userGit());
    const snap = await this.snapshotWith(this.userGit(), m.hostPath, excluded, [...untracked, ...modified]);
    // What the copy starts with beyond HEAD: the user's uncommitted changes, named for the UI.
    const extra = parseRawDiff(await gitZ(['diff-tree', '-r', '-z', '--raw', '--no-renames', m.headCommit ?? EMPTY_TREE, snap.tree], this.userGit()));
    m.uncommittedFiles = extra.map((c) => c.path).sort();
    m.uncommittedCount = m.uncommittedFiles.length;
    m.baseTree = snap.tree;
    progress('copying', 0, null, 'Checking out the copy…');
    const trackOpts = this.copyGit();
    await git(['read-tree', m.baseTree], trackOpts);
    m.fileCount = indexEntryCount(path.join(this.trackDir, 'index')) ?? (await gitZ(['ls-files', '--cached', '-z'], trackOpts)).length;
    if (m.fileCount > this.maxFiles) throw tooManyFiles(m.hostPath, this.maxFiles);
    // Checked out into work/ (Berth's own until the sandbox starts), then its shadow taken from it keeping mtimes, so the index's stat data fits both.
    await git(['checkout-index', '-a', '-f', '-q'], { ...trackOpts, workTree: this.workDir });
    if (m.contents.ignored) await this.copyIgnored(userOpts, progress);
    await syncToShadow(this.workDir, this.shadowDir, REVIEW_LIMITS.maxTrackedFileBytes);
    await makeSandboxRepo({ workDir: this.workDir, trackDir: this.trackDir, branch: m.branch, headCommit: m.headCommit, alternates: objectsTargetFor(m.copyId), git: this.copyGit() });
  }

  /** Files git ignores (node_modules, build output), when the user asked for them: never secret-looking ones unless named. */
  private async copyIgnored(userOpts: GitOptions, progress: Progress): Promise<void> {
    const m = this.meta;
    const ignored = await gitZ(['ls-files', '-z', '-o', '-i', '--exclude-standard'], {
      ...userOpts,
      maxRecords: { limit: Math.max(0, this.maxFiles - m.fileCount), tooMany: () => tooManyFiles(m.hostPath, this.maxFiles) },
    });
    const { keep, excluded } = partitionSecrets(ignored, m.contents.include);
    m.excludedSecrets.push(...excluded);
    let n = 0;
    for (const rel of keep) {
      copyEntry(path.join(m.hostPath, rel), path.join(this.workDir, rel));
      if (++n % 500 === 0) {
        progress('copying', n, keep.length, 'Copying ignored files…');
        await breather();
      }
    }
    m.fileCount += keep.length;
  }

  /**
   * Copies the user's object store into the copy's own .git (a copy, never a hard link: the
   * sandbox owns that .git and may write its files, which must never be the user's) and drops
   * the alternates that borrowed it. Null when done; else why not (the copy keeps borrowing).
   */
  async copyHistory(maxBytes: number, progress: Progress): Promise<string | null> {
    const m = this.meta;
    const from = m.userObjects;
    if (!from) return null;
    const problem = await historyProblem(from, maxBytes);
    if (problem) return problem;
    progress('copying', 0, null, 'Copying the repository’s history…');
    const to = path.join(this.workDir, '.git', 'objects');
    const staged = `${to}.copying`;
    try {
      await copyTree(from, staged, (rel) => rel === path.join('info', 'alternates'));
      fs.rmSync(to, { recursive: true, force: true });
      fs.renameSync(staged, to);
      fs.mkdirSync(path.join(to, 'info'), { recursive: true });
      return null;
    } catch (error) {
      // The user's repository changed under the copy (gc, a fetch): borrow it as without a slot.
      fs.rmSync(staged, { recursive: true, force: true });
      return `a git repository whose history could not be copied (${error instanceof Error ? error.message : String(error)}; it is mounted read-only instead)`;
    }
  }

  private async populateFromFolder(progress: Progress): Promise<void> {
    const m = this.meta;
    progress('scanning', 0, null, 'Counting files…');
    const entries = await scanFolder(m.hostPath, this.maxFiles, (n) => progress('scanning', n, null, 'Counting files…'));
    const { keep, excluded } = partitionSecrets(entries, m.contents.include);
    m.excludedSecrets = excluded;
    let n = 0;
    for (const rel of keep) {
      copyEntry(path.join(m.hostPath, rel), path.join(this.workDir, rel));
      if (++n % 500 === 0) {
        progress('copying', n, keep.length, 'Copying files…');
        await breather();
      }
    }
    m.fileCount = keep.length;
    progress('indexing', 0, null, 'Recording the starting point…');
    const snap = await this.snapshot();
    m.baseTree = snap.tree;
    // Same files, same mtimes: the copy's index is a valid cache of the user's folder too.
    fs.copyFileSync(path.join(this.trackDir, 'index'), path.join(this.trackDir, 'user-index'));
  }
}
