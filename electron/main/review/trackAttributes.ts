/**
 * Berth's tracking repository never obeys the .gitattributes a chat writes into its copy (nor,
 * for the same reason, those in the user's folder, which a chat's applied change may have
 * written): nothing may decide how a change is shown, which bytes are stored or which bytes a
 * checkout, restore or Apply writes. git reads `$GIT_DIR/info/attributes` before any
 * .gitattributes in the work tree (gitattributes(5), "the highest precedence"), and the first
 * file that names an attribute decides it; `!attr` decides it as "unspecified", git's own
 * default. So one line there makes every file, at any depth, plain bytes: a diff by its content
 * (binary only when it holds NULs), no line-ending, encoding, ident or filter conversion, no
 * merge driver, nothing for archive. A macro the chat defines (`[attr]m -diff`) only sets
 * attributes not decided yet, and these all are (checked with git 2.39's check-attr).
 * git 2.39 has no attr.tree or GIT_ATTR_SOURCE, so this file is the way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { git, gitZ, type GitOptions } from './git.js';

/** Every attribute git consults while diffing, hashing, checking out, merging or archiving (gitattributes(5)). */
export const CONTENT_ATTRIBUTES = [
  'binary', 'diff', 'merge', 'text', 'eol', 'crlf', 'filter', 'ident', 'working-tree-encoding', 'encoding', 'whitespace',
  'conflict-marker-size', 'delta', 'export-subst', 'export-ignore',
] as const;

export const ATTRIBUTES_OVERRIDE = `* ${CONTENT_ATTRIBUTES.map((a) => `!${a}`).join(' ')}\n`;

/** Writes the override into a tracking repository (a copy made before it existed gets it on its next use). */
export function overrideAttributes(gitDir: string): void {
  const file = path.join(gitDir, 'info', 'attributes');
  try {
    if (fs.readFileSync(file, 'utf8') === ATTRIBUTES_OVERRIDE) return;
  } catch {
    /* not written yet */
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, ATTRIBUTES_OVERRIDE);
  fs.renameSync(`${file}.tmp`, file);
}

/**
 * The attributes by which the user's checkout holds other bytes than the blobs it stores: CRLF
 * endings (`eol=crlf`), an expanded `$Id$` (ident), another encoding. (`text` or `text=auto`
 * alone store CR-less blobs that a checkout here writes back as they are; a filter has no
 * program in Berth's git, so it never changed a checkout either.)
 */
function checksOutOtherBytes(attribute: string, value: string): boolean {
  if (attribute === 'eol') return value === 'crlf';
  if (attribute === 'ident') return value === 'set';
  return attribute === 'working-tree-encoding' && value !== 'unspecified' && value !== 'unset';
}

/**
 * A copy starts from the user's index (its stat data spares hashing unchanged files), but the
 * user's git stored files its attributes convert (a CRLF file as LF, UTF-16 as UTF-8, `$Id$`
 * collapsed) as converted blobs. Those entries lose their stat data here, so Berth hashes them
 * again as the bytes they are, and the copy holds exactly the user's bytes. Only a repository
 * with attributes is asked at all. Returns how many entries were dropped from the cache.
 */
export async function forgetConvertedStat(user: { hostPath: string; gitDir: string; common: string }, tracking: GitOptions): Promise<number> {
  const entries = await gitZ(['ls-files', '-z', '-s'], tracking);
  const pathOf = (e: string) => e.slice(e.indexOf('\t') + 1);
  const hasAttributes =
    entries.some((e) => pathOf(e) === '.gitattributes' || pathOf(e).endsWith('/.gitattributes')) ||
    fs.existsSync(path.join(user.hostPath, '.gitattributes')) ||
    fs.existsSync(path.join(user.common, 'info', 'attributes'));
  if (!hasAttributes || entries.length === 0) return 0;
  // check-attr reads attributes only (it runs no filter); in the user's repository, as their git sees it.
  const out = await gitZ(['check-attr', '-z', '--stdin', 'eol', 'ident', 'working-tree-encoding'], {
    gitDir: user.gitDir, workTree: user.hostPath, config: [`safe.directory=${user.hostPath}`, `safe.directory=${user.gitDir}`],
    input: entries.map((e) => `${pathOf(e)}\0`).join(''),
  });
  const converted = new Set<string>();
  for (let i = 0; i + 2 < out.length; i += 3) if (checksOutOtherBytes(out[i + 1] as string, out[i + 2] as string)) converted.add(out[i] as string);
  const lines = entries.filter((e) => converted.has(pathOf(e)));
  // --index-info puts each entry back as it is but without stat data: the next `add` hashes the file.
  if (lines.length > 0) await git(['update-index', '-z', '--index-info'], { ...tracking, input: lines.map((l) => `${l}\0`).join('') });
  return lines.length;
}
