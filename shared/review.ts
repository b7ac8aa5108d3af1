/**
 * Review mode's part of the contract: a folder attached in Review mode is seen by the chat at its
 * usual /workspace path, but what the chat sees is the chat's own working copy in Berth's data
 * dir. The user's folder changes only through review.apply. Shapes only; main validates every
 * request.
 */
import { z } from 'zod';

/** The most text one resolved conflict region may hold (an edit in the three-way view). */
const REVIEW_LIMITS_MAX_EDIT = 1024 * 1024;

// ---------- attach modes ----------

export const ATTACH_MODES = ['review', 'readwrite', 'readonly'] as const;
export const AttachMode = z.enum(ATTACH_MODES);
export type AttachMode = z.infer<typeof AttachMode>;
/** New attachments are reviewed unless the user picks otherwise. */
export const DEFAULT_ATTACH_MODE: AttachMode = 'review';

/**
 * The mode a request asks for: `mode`, else the older `readOnly` (true: read-only, false:
 * read-write), else Review. Applied where a request is parsed, so main sees `mode` only.
 */
export function attachModeOf(mode: AttachMode | undefined, readOnly: boolean | undefined): AttachMode {
  if (mode) return mode;
  if (readOnly !== undefined) return readOnly ? 'readonly' : 'readwrite';
  return DEFAULT_ATTACH_MODE;
}

/** One line per mode, for the attach picker (both ends show the same words). */
export const ATTACH_MODE_DESCRIPTIONS: Record<AttachMode, string> = {
  review: "The chat works on its own copy; your folder changes only when you apply the chat's changes.",
  readwrite: 'The chat writes straight into your folder.',
  readonly: 'The chat can read your folder but not change it.',
};

/**
 * What a Review-mode copy holds besides the repository's tracked files and the user's uncommitted
 * changes (always copied). Untracked files are copied too, except secret-looking ones
 * (`.env`, keys, credentials) unless named in `include`.
 */
export const CopyContents = z
  .object({
    /** Also copy files git ignores (node_modules, build output). They are not reviewed or applied. */
    ignored: z.boolean().default(false),
    /** Secret-looking files to copy anyway, by path relative to the folder (exact names). */
    include: z.array(z.string().min(1).max(4096)).max(256).default([]),
  })
  .strict();
export type CopyContents = z.infer<typeof CopyContents>;
export type CopyContentsInput = z.input<typeof CopyContents>;

/** A Review-mode attachment's copy, as the attachment shows it. */
export const ReviewCopyInfo = z.object({
  kind: z.enum(['git', 'folder']),
  /** The copy's branch inside the sandbox (`berth/<chat>`), for a git repository. */
  branch: z.string().nullable(),
  /** The user's HEAD commit the copy started from (null for a plain folder or an unborn branch). */
  baseCommit: z.string().nullable(),
  /** The user's uncommitted changes (modified, added, deleted, untracked) the copy started with. */
  uncommittedFiles: z.array(z.string()),
  uncommittedCount: z.number().int(),
  contents: CopyContents,
  /** Secret-looking files left out of the copy (include them by name with `contents.include`). */
  excludedSecrets: z.array(z.string()),
  /** Files the copy held when it was made. */
  fileCount: z.number().int(),
  createdAt: z.number(),
  /** Changed files at the last look (also sent live as `review.changed`). */
  changedCount: z.number().int(),
});
export type ReviewCopyInfo = z.infer<typeof ReviewCopyInfo>;

// ---------- changes ----------

export const ChangeStatus = z.enum(['added', 'modified', 'deleted', 'renamed', 'typechange']);
export type ChangeStatus = z.infer<typeof ChangeStatus>;

export const FileChange = z.object({
  /** Path relative to the folder (the new path for a rename). */
  path: z.string(),
  /** The old path of a rename; null otherwise. */
  oldPath: z.string().nullable(),
  status: ChangeStatus,
  binary: z.boolean(),
  /** The file is over the diff limit: listed, never diffed (and never applied above the copy limit). */
  tooLarge: z.boolean(),
  /** The new (or, when deleted, old) entry is a symbolic link. */
  symlink: z.boolean(),
  additions: z.number().int().nullable(),
  deletions: z.number().int().nullable(),
  /** Unified diff text (git format, with headers); null when binary, too large or omitted. */
  diff: z.string().nullable(),
  /** The diff was left out to keep the answer small: fetch it with review.diff. */
  diffOmitted: z.boolean(),
});
export type FileChange = z.infer<typeof FileChange>;

export const ChangeCounts = z.object({
  added: z.number().int(),
  modified: z.number().int(),
  deleted: z.number().int(),
  renamed: z.number().int(),
  total: z.number().int(),
});
export type ChangeCounts = z.infer<typeof ChangeCounts>;

/** The changes of one Review-mode attachment: its copy against the folder as it was copied. */
export const CopyChanges = z.object({
  hostPath: z.string(),
  containerPath: z.string().nullable(),
  kind: z.enum(['git', 'folder']),
  branch: z.string().nullable(),
  /** The branch "Create branch" made in the user's repository (named from the chat's title), once it exists: what review.push pushes. */
  exportBranch: z.string().nullable(),
  files: z.array(FileChange),
  counts: ChangeCounts,
  /** More files changed than the list holds (REVIEW_LIMITS.maxListedFiles). */
  truncated: z.boolean(),
  /** Changes whenever the copy's changes do (content too, not only the count): what the page compares. */
  version: z.string(),
  at: z.number(),
  /**
   * The last apply to the user's folder, while review.undoApply can still take it back (no apply
   * or discard since, and no refresh that brought newer changes in); null otherwise.
   */
  lastApply: z.object({ files: z.array(z.string()), at: z.number() }).nullable(),
});
export type CopyChanges = z.infer<typeof CopyChanges>;

/** Why one file cannot be applied; when any exists, nothing is applied. */
export const ApplyProblem = z.object({
  path: z.string(),
  kind: z.enum(['conflict', 'unsafe_symlink', 'unsafe_path', 'too_large']),
  message: z.string(),
});
export type ApplyProblem = z.infer<typeof ApplyProblem>;

/** The lines chosen in one file's diff: removed lines by their old number, added lines by their new one. */
export const LineSelection = z
  .object({
    path: z.string().min(1).max(4096),
    removed: z.array(z.number().int().positive()).max(1_000_000),
    added: z.array(z.number().int().positive()).max(1_000_000),
  })
  .strict();
export type LineSelection = z.infer<typeof LineSelection>;

/**
 * One hunk that does not fit the user's folder as it is now: the lines the chat's change was made
 * against (base), what the user's file holds there now (mine, from line `mineStart`), and the
 * chat's lines (chat). 'changed': those lines changed in the folder; 'ambiguous': they appear more
 * than once; 'gone': the file was deleted, or created, in the folder.
 */
export const HunkConflict = z.object({
  path: z.string(),
  why: z.enum(['changed', 'ambiguous', 'gone']),
  mineStart: z.number().int(),
  base: z.array(z.string()),
  mine: z.array(z.string()),
  chat: z.array(z.string()),
});
export type HunkConflict = z.infer<typeof HunkConflict>;

/** One region of a file both the user and the chat changed since the copy's base, as git merge-file sees it. */
export const MergeSegment = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('same'), lines: z.array(z.string()) }),
  z.object({ kind: z.literal('conflict'), base: z.array(z.string()), mine: z.array(z.string()), chat: z.array(z.string()) }),
]);
export type MergeSegment = z.infer<typeof MergeSegment>;

/** How the user settles one conflicting region: their lines, the chat's, or text of their own. */
export const ConflictChoice = z.union([z.literal('mine'), z.literal('chat'), z.object({ text: z.string().max(REVIEW_LIMITS_MAX_EDIT) }).strict()]);
export type ConflictChoice = z.infer<typeof ConflictChoice>;

export const Checkpoint = z.object({
  id: z.string(),
  chatId: z.string(),
  /** 'turn': before an agent turn (the user's message that started it); 'manual': the Checkpoint button. */
  reason: z.enum(['turn', 'manual', 'undo']),
  /** The agent message whose turn starts here (the user's message), for 'turn'. */
  messageId: z.string().nullable(),
  label: z.string(),
  createdAt: z.number(),
  /** What that turn changed: files changed between this checkpoint and the turn's end (or, while it runs or for other kinds, the next checkpoint, or now). */
  changedFiles: z.array(z.string()),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/** Limits both ends rely on. */
export const REVIEW_LIMITS = {
  /** Files in one copy; a bigger folder is refused with a clear error. */
  maxCopyFiles: 1_000_000,
  /** A changed file above this is listed as too large: never hashed, diffed or applied. */
  maxTrackedFileBytes: 100 * 1024 * 1024,
  /** A file above this is listed without a diff (tooLarge). */
  maxDiffBytes: 1024 * 1024,
  /** Diff text sent inline by review.changes, in total; the rest has diffOmitted. */
  maxInlineDiffBytes: 4 * 1024 * 1024,
  /** Files whose diff review.changes sends inline (the first in the list); the others come from review.diff when shown. */
  inlineDiffFiles: 20,
  /** Files listed by review.changes. */
  maxListedFiles: 5000,
} as const;

const ChatIdField = z.string().min(1).max(256);
const HostPathField = z.string().min(1).max(4096);
const RelPath = z.string().min(1).max(4096);

export const reviewMethods = {
  /** The chat's Review-mode copies and their changes (added, modified, deleted, renamed, with diffs). */
  'review.changes': {
    request: z
      .object({
        chatId: ChatIdField,
        /** One attachment only; all Review-mode attachments of the chat when omitted. */
        hostPath: HostPathField.optional(),
        /** Include the diff text of the first files (REVIEW_LIMITS.inlineDiffFiles, up to the inline budget); the rest have diffOmitted. */
        diffs: z.boolean().default(true),
      })
      .strict(),
    response: z.object({ copies: z.array(CopyChanges) }),
  },
  /** One file's diff, for a file whose diff review.changes omitted. */
  'review.diff': {
    request: z.object({ chatId: ChatIdField, hostPath: HostPathField, path: RelPath }).strict(),
    response: FileChange,
  },
  /**
   * Applies the copy's changes (all, or the named files) to the user's folder. 'files' writes the
   * files (in a git repository they become uncommitted changes there: nothing is staged or
   * committed); 'uncommitted' is the same as 'files', kept for older clients. 'branch' creates
   * a branch named from the chat's title (berth/<title>) in the user's repository with one commit
   * holding the changes, authored as the user, leaving the user's files alone; again, it moves that
   * branch on (no commit when it already holds the changes). With any problem nothing is applied.
   */
  'review.apply': {
    request: z
      .object({
        chatId: ChatIdField,
        hostPath: HostPathField,
        mode: z.enum(['files', 'branch', 'uncommitted']).default('files'),
        files: z.array(RelPath).max(100_000).optional(),
      })
      .strict(),
    response: z.object({
      ok: z.boolean(),
      applied: z.array(z.string()),
      problems: z.array(ApplyProblem),
      /** The branch created in the user's repository ('branch' mode). */
      branch: z.string().nullable(),
      message: z.string(),
    }),
  },
  /**
   * Applies only the chosen lines (or whole hunks: all their lines) of the named files to the
   * user's folder; the rest stays in the copy as changes still to apply. The patch is made against
   * the folder as it is now: a hunk whose lines moved applies where they are when it fits without
   * ambiguity; otherwise nothing at all is written and each hunk that does not fit is returned with
   * both sides. Text files only (binary, too-large, link and mode-only changes apply whole with
   * review.apply); an added or deleted file only with all its lines. `version` is the copy's
   * version the lines were chosen from (CopyChanges.version): a copy that changed since is refused.
   */
  'review.applyLines': {
    request: z
      .object({ chatId: ChatIdField, hostPath: HostPathField, version: z.string().min(1).max(64), files: z.array(LineSelection).min(1).max(10_000) })
      .strict(),
    response: z.object({
      ok: z.boolean(),
      applied: z.array(z.string()),
      conflicts: z.array(HunkConflict),
      problems: z.array(ApplyProblem),
      message: z.string(),
    }),
  },
  /**
   * A file both the user's folder and the chat's copy changed since the copy's base, three ways:
   * git merge-file's regions, each either the same for all (merged) or a conflict with the base's,
   * the user's and the chat's lines.
   */
  'review.conflict': {
    request: z.object({ chatId: ChatIdField, hostPath: HostPathField, path: RelPath }).strict(),
    response: z.object({ path: z.string(), segments: z.array(MergeSegment), conflicts: z.number().int() }),
  },
  /**
   * Settles a file's conflicts with one choice per conflicting region (in order) and applies the
   * result: the user's folder and the chat's copy both get it (the sandbox is stopped first, as for
   * a refresh), so the file is no longer a change. Undo last apply takes it back in the folder.
   */
  'review.resolve': {
    request: z
      .object({ chatId: ChatIdField, hostPath: HostPathField, path: RelPath, choices: z.array(ConflictChoice).min(1).max(10_000) })
      .strict(),
    response: z.object({ ok: z.boolean(), applied: z.array(z.string()), problems: z.array(ApplyProblem), message: z.string() }),
  },
  /**
   * Pushes the branch 'branch' mode made to the user's remote (the current branch's upstream
   * remote, else origin, else the only one), with the user's own git, credentials and
   * configuration on this computer, read from the user's real repository (never the chat's
   * copy). A refusal by the remote (not a fast-forward, credentials) is ok: false with a sentence
   * and git's words; nothing is forced.
   */
  'review.push': {
    request: z.object({ chatId: ChatIdField, hostPath: HostPathField }).strict(),
    response: z.object({
      ok: z.boolean(),
      branch: z.string(),
      remote: z.string().nullable(),
      /** The address pushed to, with any password in it removed. */
      remoteUrl: z.string().nullable(),
      /** git's own words (capped). */
      output: z.string(),
      message: z.string(),
      /** The forge's page that opens a pull request (GitHub, GitLab, Bitbucket, Gitea); null for other remotes. */
      pullRequestUrl: z.string().nullable(),
    }),
  },
  /**
   * Takes back the last apply ('files' mode) to the user's folder: each file it wrote, deleted or
   * renamed is put back as it was before, and folders it made go; the chat's copy keeps its work,
   * listed again as changes to apply. Refused (nothing undone, the files named) when the user's
   * folder changed any of those files since the apply.
   */
  'review.undoApply': {
    request: z.object({ chatId: ChatIdField, hostPath: HostPathField }).strict(),
    response: z.object({
      ok: z.boolean(),
      restored: z.array(z.string()),
      problems: z.array(ApplyProblem),
      message: z.string(),
    }),
  },
  /** Discards the chat's changes: the copy goes back to the user's folder as it is now. Stops the sandbox first. */
  'review.discard': {
    request: z.object({ chatId: ChatIdField, hostPath: HostPathField }).strict(),
    response: z.object({ discarded: z.number().int(), message: z.string() }),
  },
  /** Brings the user's newer changes into the copy; files the chat also changed are kept and listed. */
  'review.refresh': {
    request: z.object({ chatId: ChatIdField, hostPath: HostPathField }).strict(),
    response: z.object({
      updated: z.array(z.string()),
      /** Files both sides changed whose changes git merge-file put together: the copy holds both, and the next apply is clean. */
      merged: z.array(z.string()).default([]),
      /** Files both sides changed in the same lines: the chat's version is kept; review.conflict shows them three ways. */
      conflicts: z.array(z.string()),
      message: z.string(),
    }),
  },
  /** Records a restore point of every Review-mode copy of the chat. */
  'review.checkpoint': {
    request: z.object({ chatId: ChatIdField, label: z.string().trim().max(200).optional() }).strict(),
    response: Checkpoint,
  },
  /** The chat's restore points, oldest first, with what changed after each. */
  'review.checkpoints': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ checkpoints: z.array(Checkpoint) }),
  },
  /** Restores every Review-mode copy of the chat to a checkpoint (the current state is checkpointed first). */
  'review.restore': {
    request: z.object({ chatId: ChatIdField, checkpointId: z.string().min(1).max(128) }).strict(),
    response: z.object({ restored: z.array(z.string()), message: z.string() }),
  },
  /** Undo this turn: restores the copies to just before the agent turn that the user's message started. */
  'review.undoTurn': {
    request: z.object({ chatId: ChatIdField, messageId: z.string().min(1).max(128) }).strict(),
    response: z.object({ restored: z.array(z.string()), message: z.string() }),
  },
} as const;

export const reviewEvents = {
  /**
   * A chat's changes in its Review-mode copies changed: the count of changed files (for the
   * sidebar), and a version that changes with any content change too (a file modified again
   * keeps the count; the open Changes panel reloads on a new version).
   */
  'review.changed': z.object({ chatId: z.string(), count: z.number().int(), version: z.string() }),
  /** Progress of making a Review-mode copy. */
  'review.progress': z.object({
    chatId: z.string(),
    hostPath: z.string(),
    phase: z.enum(['scanning', 'copying', 'indexing', 'done']),
    files: z.number().int(),
    totalFiles: z.number().int().nullable(),
    message: z.string(),
  }),
} as const;
