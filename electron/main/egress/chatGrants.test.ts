import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALLOW_ONCE_MS } from '../../../shared/egress.js';
import { ChatGrants } from './chatGrants.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ChatGrants', () => {
  it('ends an "Allow once" after 10 minutes, telling its profile\'s proxy, and keeps "for this chat"', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const changed: string[] = [];
    let saved = '';
    const grants = new ChatGrants({ store: { load: () => undefined, save: (v) => void (saved = v) }, changed: (profile, chatId) => void changed.push(`${profile}/${chatId}`) });
    grants.add('a', 'work', 'x.test:443', 'once');
    grants.add('a', 'work', 'y.test', 'chat');
    expect(grants.list('a')).toEqual([
      { entry: 'x.test:443', scope: 'once', expiresAt: 1_000_000 + ALLOW_ONCE_MS },
      { entry: 'y.test', scope: 'chat', expiresAt: null },
    ]);
    vi.advanceTimersByTime(ALLOW_ONCE_MS - 1000);
    expect(changed).toEqual([]);
    vi.advanceTimersByTime(2000);
    expect(changed).toEqual(['work/a']);
    expect(grants.forProfile('work').map((g) => g.entry)).toEqual(['y.test']);
    // Kept across a restart: a new instance reads what was saved.
    const again = new ChatGrants({ store: { load: () => saved, save: () => undefined }, changed: () => undefined });
    expect(again.list('a').map((g) => g.entry)).toEqual(['y.test']);
    expect(again.forgetChat('a')).toBe('work');
    expect(again.list('a')).toEqual([]);
    grants.dispose();
    again.dispose();
  });

  it('a damaged record allows nothing', () => {
    const grants = new ChatGrants({ store: { load: () => '{not json', save: () => undefined }, changed: () => undefined });
    expect(grants.forProfile('work')).toEqual([]);
    expect(grants.revoke('a', 'x.test')).toBe(false);
  });
});
