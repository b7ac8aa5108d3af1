/**
 * Plain-HTTP method rules in the allowlist: an entry `host[:port] METHOD,…` (`other.test
 * GET,HEAD`) lets only those methods through to that host, over plain HTTP only: inside an HTTPS
 * tunnel the method cannot be seen without decrypting, so such an entry never opens a tunnel.
 * The entry's spelling, split and normalized here; no Node or DOM APIs.
 */

/** The methods an entry may name. */
export const HTTP_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** An entry's destination (`host`, `*.domain`, either with `:port`) and its methods (null: every method, and HTTPS). */
export function splitEntry(entry: string): { target: string; methods: string[] | null } {
  const [target = '', ...rest] = entry.trim().split(/[\s,]+/);
  return { target, methods: rest.length ? rest : null };
}

/** Why an entry's methods are not valid, or null. */
export function methodsProblem(entry: string, methods: readonly string[] | null): string | null {
  if (methods === null) return null;
  const unknown = methods.find((m) => !(HTTP_METHODS as readonly string[]).includes(m));
  return unknown === undefined ? null : `"${entry}": ${unknown} is not a method an entry can name (${HTTP_METHODS.join(', ')}).`;
}

/** The entry as it is kept: the destination in lower case, then its methods in upper case, each once, comma-separated. */
export function normalizeEntry(entry: string): string {
  const { target, methods } = splitEntry(entry);
  return methods === null ? target.toLowerCase() : `${target.toLowerCase()} ${[...new Set(methods.map((m) => m.toUpperCase()))].join(',')}`;
}

/**
 * The entries typed in some text (the profile form's list): separated by white space, commas or
 * lines; a word that is a method name belongs to the entry before it (`other.test GET HEAD`).
 */
export function entriesFromText(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    let last: string | null = null;
    for (const word of line.split(/[\s,]+/).filter(Boolean)) {
      if (last !== null && (HTTP_METHODS as readonly string[]).includes(word.toUpperCase())) {
        last = normalizeEntry(`${last} ${word}`);
        entries[entries.length - 1] = last;
      } else {
        last = normalizeEntry(word);
        entries.push(last);
      }
    }
  }
  return entries;
}
