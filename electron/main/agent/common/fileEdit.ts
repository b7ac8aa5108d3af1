/**
 * What an edit_file call does to a file's text: each edit replaces an exact string that must
 * occur exactly once (or every occurrence, when the edit asks for it), the edits apply in
 * order, each to the text the one before left, and one edit that cannot apply refuses them
 * all. Pure: the tool reads and writes the file inside the sandbox.
 */

export interface TextEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

export type EditPlan =
  | { ok: true; text: string; replacements: number }
  | { ok: false; problem: string };

/** How often `needle` occurs in `text`, without overlaps (as a replacement would see them). */
export function countOccurrences(text: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

export function planEdits(original: string, edits: readonly TextEdit[]): EditPlan {
  if (edits.length === 0) return { ok: false, problem: 'No edits were given.' };
  let text = original;
  let replacements = 0;
  for (const [i, e] of edits.entries()) {
    const which = edits.length === 1 ? 'The edit' : `Edit ${i + 1} of ${edits.length}`;
    const none = edits.length === 1 ? 'the file is unchanged' : 'no edit was made';
    if (e.old_string === '') return { ok: false, problem: `${which} has an empty old_string; ${none}. Use write_file to create a file.` };
    if (e.old_string === e.new_string) return { ok: false, problem: `${which} replaces a string with itself; ${none}.` };
    const count = countOccurrences(text, e.old_string);
    if (count === 0) {
      return { ok: false, problem: `${which}: old_string was not found${i > 0 ? ' (after the edits before it)' : ''}; ${none}. Read the file and copy the text exactly, with its whitespace.` };
    }
    if (count > 1 && e.replace_all !== true) {
      return { ok: false, problem: `${which}: old_string occurs ${count} times, so which one is meant is ambiguous; ${none}. Add surrounding lines to make it unique, or set replace_all.` };
    }
    // split/join replaces literally: `$&` and friends in new_string stay as written.
    text = text.split(e.old_string).join(e.new_string);
    replacements += count;
  }
  return { ok: true, text, replacements };
}
