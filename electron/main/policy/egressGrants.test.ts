import { describe, expect, it } from 'vitest';
import { activeGrants, chatAllowList, grantsOf, nextExpiry, squidEntries, withGrant, type HeldGrant } from './egressGrants.js';

const g = (chatId: string, entry: string, scope: 'once' | 'chat', expiresAt: number | null = null): HeldGrant => ({ chatId, profile: 'work', entry, scope, expiresAt });

describe("a chat's own allowances", () => {
  it('an "Allow once" ends at its time; a chat allowance stays', () => {
    const grants = [g('a', 'x.test:443', 'once', 1000), g('a', 'y.test', 'chat')];
    expect(activeGrants(grants, 999).map((x) => x.entry)).toEqual(['x.test:443', 'y.test']);
    expect(activeGrants(grants, 1000).map((x) => x.entry)).toEqual(['y.test']);
    expect(nextExpiry(grants, 0)).toBe(1000);
    expect(nextExpiry(grants, 1000)).toBeNull();
  });

  it("lets HAProxy match each by the chat's sandbox address and host:port only, never another chat's", () => {
    const list = chatAllowList([g('a', 'blocked.test:443', 'chat'), g('b', 'other.test', 'once', 5000)],
      [{ ip: '10.213.0.2', chatId: 'a' }, { ip: '10.213.0.18', chatId: 'b' }, { ip: '10.213.0.34', chatId: 'c' }], 0);
    const patterns = list.split('\n').filter((l) => l.startsWith('^')).map((l) => new RegExp(l));
    const allows = (who: string) => patterns.some((p) => p.test(who));
    expect(allows('10.213.0.2@blocked.test:443')).toBe(true);
    expect(allows('10.213.0.2@blocked.test:80')).toBe(false);
    expect(allows('10.213.0.2@blocked.test')).toBe(false);
    expect(allows('10.213.0.18@blocked.test:443')).toBe(false);
    expect(allows('10.213.0.34@blocked.test:443')).toBe(false);
    expect(allows('10.213.0.18@other.test')).toBe(true);
    expect(allows('10.213.0.18@other.test:443')).toBe(true);
    // The dots of the address are literal: a look-alike address matches nothing.
    expect(allows('10x213x0x2@blocked.test:443')).toBe(false);
    expect(chatAllowList([g('b', 'other.test', 'once', 5000)], [{ ip: '10.213.0.18', chatId: 'b' }], 5000)).not.toContain('other');
  });

  it("gives squid the profile's list and every allowance in force, once each", () => {
    expect(squidEntries(['a.test'], [g('x', 'b.test:443', 'chat'), g('y', 'a.test', 'chat'), g('z', 'c.test', 'once', 10)], 20)).toEqual(['a.test', 'b.test:443']);
  });

  it('keeps one allowance per chat and entry: for the chat outlasts once, a new once restarts its time', () => {
    let grants = withGrant([], g('a', 'x.test:443', 'once', 100));
    grants = withGrant(grants, g('a', 'x.test:443', 'once', 200));
    expect(grants).toEqual([g('a', 'x.test:443', 'once', 200)]);
    grants = withGrant(grants, g('a', 'x.test:443', 'chat'));
    expect(grants).toEqual([g('a', 'x.test:443', 'chat')]);
    expect(withGrant(grants, g('a', 'x.test:443', 'once', 300))).toEqual([g('a', 'x.test:443', 'chat')]);
    expect(grantsOf([...grants, g('b', 'y.test', 'chat')], 'a', 0)).toEqual([{ entry: 'x.test:443', scope: 'chat', expiresAt: null }]);
  });
});
