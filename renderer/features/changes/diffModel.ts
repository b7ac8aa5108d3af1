/**
 * From one file's unified git diff text to what the viewer draws: parsed hunks (react-diff-view's
 * parseDiff, i.e. gitdiff-parser), whether it is binary, whether it is too large to draw at once,
 * and its syntax-highlighting tokens (lowlight: highlight.js's grammars, the ones the
 * conversation's code blocks use). No React here, so it is testable on its own.
 */
import { common, createLowlight } from 'lowlight';
import { parseDiff, tokenize, type FileData, type HunkData, type HunkTokens } from 'react-diff-view';

/** Above this many changed or context lines a file's diff starts collapsed ("Show diff"). */
export const LARGE_DIFF_LINES = 1500;
/** Above this many characters of diff text, likewise. */
export const LARGE_DIFF_CHARS = 200_000;
/** Above this many lines a diff is drawn without highlighting: tokenizing is the slow part. */
export const HIGHLIGHT_MAX_LINES = 3000;

export interface ParsedDiff {
  /** Null when there is no diff text (nothing but a binary or mode change, or none given). */
  file: FileData | null;
  hunks: HunkData[];
  binary: boolean;
  /** Lines in all hunks (context, additions, deletions). */
  lines: number;
  additions: number;
  deletions: number;
  large: boolean;
}

const lowlight = createLowlight(common);

/** File names and extensions highlight.js does not know by alias. */
const EXTRA_LANGUAGES: Record<string, string> = {
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  h: 'c',
  hpp: 'cpp',
  yml: 'yaml',
  toml: 'ini',
  dockerfile: 'bash',
  makefile: 'makefile',
  gitignore: 'bash',
};

/** The highlight.js language for a path, or null when none fits (then the diff is plain text). */
export function languageFor(path: string): string | null {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  const ext = dot >= 0 ? base.slice(dot + 1) : base;
  const candidate = EXTRA_LANGUAGES[ext] ?? EXTRA_LANGUAGES[base] ?? ext;
  return lowlight.registered(candidate) ? candidate : null;
}

export function parseFileDiff(text: string | null | undefined, binaryHint = false): ParsedDiff {
  const empty: ParsedDiff = { file: null, hunks: [], binary: binaryHint, lines: 0, additions: 0, deletions: 0, large: false };
  if (!text) return empty;
  // gitdiff-parser wants the `diff --git` header; a bare `--- / +++ / @@` diff gets one.
  const source = text.startsWith('diff --git') ? text : withGitHeader(text);
  const [file] = parseDiff(source, { nearbySequences: 'zip' });
  if (!file) return { ...empty, binary: binaryHint || /^Binary files .* differ$/m.test(text) };
  let lines = 0;
  let additions = 0;
  let deletions = 0;
  for (const hunk of file.hunks) {
    for (const change of hunk.changes) {
      lines++;
      if (change.type === 'insert') additions++;
      else if (change.type === 'delete') deletions++;
    }
  }
  const binary = binaryHint || file.isBinary === true || /^(Binary files .* differ|GIT binary patch)$/m.test(text);
  return {
    file,
    hunks: file.hunks,
    binary,
    lines,
    additions,
    deletions,
    large: lines > LARGE_DIFF_LINES || text.length > LARGE_DIFF_CHARS,
  };
}

function withGitHeader(text: string): string {
  const oldPath = /^--- (?:a\/)?(.+)$/m.exec(text)?.[1] ?? 'file';
  const newPath = /^\+\+\+ (?:b\/)?(.+)$/m.exec(text)?.[1] ?? oldPath;
  const a = oldPath === '/dev/null' ? newPath : oldPath;
  const b = newPath === '/dev/null' ? oldPath : newPath;
  return `diff --git a/${a} b/${b}\n${text}`;
}

/** lowlight speaks refractor's `highlight(code, language)` the other way round; this adapts it. */
const refractorLike = {
  highlight: (code: string, language: string) => lowlight.highlight(language, code).children,
};

/**
 * Tokens for the viewer: syntax-highlighted when the language is known and the diff is not huge,
 * with changed words inside changed lines marked; null means "draw the plain text".
 */
export function diffTokens(hunks: HunkData[], path: string, lines: number): HunkTokens | null {
  if (hunks.length === 0) return null;
  const language = lines <= HIGHLIGHT_MAX_LINES ? languageFor(path) : null;
  try {
    if (language === null) return null;
    // react-diff-view types its option after refractor's node shapes; lowlight's hast nodes are the same shape.
    return tokenize(hunks, { highlight: true, refractor: refractorLike as never, language });
  } catch {
    // A grammar that throws on odd input: the diff is still readable as plain text.
    return null;
  }
}

/**
 * What to say for a change with no content lines, from git's extended header lines (gitdiff-parser
 * calls a header-only diff "modify" and drops its modes): an empty file added or deleted, a
 * rename, or a mode change.
 */
export function noContentNote(text: string | null | undefined): string {
  const t = text ?? '';
  if (/^new file mode /m.test(t)) return 'An empty file was added.';
  if (/^deleted file mode /m.test(t)) return 'An empty file was deleted.';
  const oldMode = /^old mode (\d+)$/m.exec(t)?.[1];
  const newMode = /^new mode (\d+)$/m.exec(t)?.[1];
  const modes = oldMode && newMode ? `${oldMode} → ${newMode}` : null;
  if (/^rename from /m.test(t)) return `Renamed; its content did not change${modes ? ` (mode ${modes})` : ''}.`;
  return modes ? `Only its mode changed (${modes}).` : 'No content changes.';
}
