import { describe, expect, it } from 'vitest';
import { EgressAllowEntry, egressEntryProblem } from './egress.js';
import { entriesFromText, normalizeEntry, splitEntry } from './egressMethods.js';

describe('HTTP-only rules in the allowlist (host METHOD,…)', () => {
  it('keeps an entry as the destination in lower case and its methods in upper case, each once', () => {
    expect(EgressAllowEntry.parse('  Other.Test  get, head,GET ')).toBe('other.test GET,HEAD');
    expect(EgressAllowEntry.parse('Reg.Test:8080')).toBe('reg.test:8080');
    expect(normalizeEntry('*.example.com options')).toBe('*.example.com OPTIONS');
    expect(splitEntry('other.test GET,HEAD')).toEqual({ target: 'other.test', methods: ['GET', 'HEAD'] });
    expect(splitEntry('other.test')).toEqual({ target: 'other.test', methods: null });
  });

  it('refuses a word that is not a method, and a bad destination, saying which', () => {
    expect(egressEntryProblem('other.test GET,HEAD')).toBeNull();
    expect(egressEntryProblem('other.test FETCH')).toBe('"other.test FETCH": FETCH is not a method an entry can name (GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE).');
    expect(egressEntryProblem('10.0.0.1 GET')).toMatch(/looks like an IP address/);
    expect(EgressAllowEntry.safeParse('other.test CONNECT').success).toBe(false);
  });

  it("reads the profile form's text: method words belong to the entry before them", () => {
    expect(entriesFromText('allowed.test\nother.test GET HEAD\ndeb.debian.org get,head, pypi.org')).toEqual([
      'allowed.test', 'other.test GET,HEAD', 'deb.debian.org GET,HEAD', 'pypi.org',
    ]);
    // A method word at the start of a line has no entry before it: it is read as a host name.
    expect(entriesFromText('GET other.test')).toEqual(['get', 'other.test']);
  });
});
