/**
 * A Review copy's changed files as the panel lists them: the listing (raw diff + numstat, sizes
 * for too-large files) kept per copy and keyed by base tree, snapshot tree and too-large files,
 * and the diffs of the first files read with it.
 */
import { createHash } from 'node:crypto';
import { REVIEW_LIMITS, type CopyChanges, type FileChange } from '../../../shared/review.js';
import { NULL_OID, SYMLINK_MODE } from '../policy/reviewPolicy.js';
import { filePatches, treeChanges } from './diffMemo.js';
import { git } from './git.js';
import type { ReviewCopy } from './reviewCopy.js';


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

/** The copy's last apply while review.undoApply can take it back, as the panel shows it. */
export function undoableApply(copy: ReviewCopy): { files: string[]; at: number } | null {
  const last = copy.meta.lastApply;
  return last && last.after === copy.meta.baseTree ? { files: last.files, at: last.at } : null;
}

export class ChangeListings {
  private readonly listings = new Map<string, Listing>();

  /** The copy's listing is no longer what its content is (moved, removed). */
  forget(copyId: string): void {
    this.listings.delete(copyId);
  }

  /** The copy's count of changed files now (or as `taken`, a snapshot just taken, has it) and its version: the kept listing's if it still fits, else one tree diff. */
  async count(copy: ReviewCopy, taken?: { tree: string; large: string[] }): Promise<{ count: number; version: string }> {
    const snap = taken ?? (await copy.snapshot());
    const key = listingKey(copy, snap);
    const cached = this.listings.get(copy.meta.copyId);
    const count = cached && cached.key === key ? cached.files.length : (await treeChanges(copy, copy.meta.baseTree, snap.tree)).length + snap.large.length;
    return { count, version: versionOf(key) };
  }

  /**
   * The copy's changed files without diff text, for one (base, copy) pair of trees. Listing is
   * the costly part of `review.changes` (two diffs over every changed file), and the panel asks
   * for it again after every write; the snapshot that gives the key is cheap (git's index stat
   * cache), so a listing is reused until the copy's content or its base really changes.
   */
  async listing(copy: ReviewCopy, snap: { tree: string; large: string[] }): Promise<Listing> {
    const key = listingKey(copy, snap);
    const cached = this.listings.get(copy.meta.copyId);
    if (cached && cached.key === key) return cached;
    const base = copy.meta.baseTree;
    const [raw, numstat] = await Promise.all([treeChanges(copy, base, snap.tree), this.numstat(copy, base, snap.tree)]);
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

  /** The copy's changes as the panel lists them, with the first files' diffs when `diffs`. */
  async changesOf(copy: ReviewCopy, containerPath: string | null, diffs: boolean, now: number): Promise<CopyChanges> {
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
    return {
      hostPath: copy.meta.hostPath, containerPath, kind: copy.meta.kind, branch: copy.meta.branch,
      exportBranch: copy.meta.exportBranch ?? null,
      files: truncated ? files.slice(0, REVIEW_LIMITS.maxListedFiles) : files, counts, truncated, version: listing.version, at: now,
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
  async patches(copy: ReviewCopy, from: string, to: string, files: readonly FileChange[]): Promise<Map<string, string>> {
    const map = new Map<string, string>();
    if (files.length === 0) return map;
    const paths = files.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
    // Kept (diffMemo): an apply of chosen lines asks for the same diffs again.
    const byHeader = await filePatches(copy, from, to, paths);
    for (const f of files) {
      const found = byHeader.get(`diff --git a/${f.oldPath ?? f.path} b/${f.path}`);
      if (found !== undefined) map.set(f.path, found);
    }
    return map;
  }
}
