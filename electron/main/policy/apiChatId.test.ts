import { describe, expect, it } from 'vitest';
import { apiChatId, contentText, rawApiChatId } from './apiChatId.js';

const conversation = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'List my files' },
];

describe('api chat ids', () => {
  it('takes a session header as it is', () => {
    expect(rawApiChatId('  abc-123 ', conversation)).toBe('abc-123');
    expect(rawApiChatId('bad\nid', conversation)).toBeNull();
    expect(rawApiChatId('x'.repeat(201), conversation)).toBeNull();
  });

  it('fingerprints the opening, so later turns of the same conversation keep their id', () => {
    const first = rawApiChatId(null, conversation);
    const later = rawApiChatId(null, [...conversation, { role: 'assistant', content: 'a.txt' }, { role: 'user', content: 'Now edit it' }]);
    expect(first).toMatch(/^conv-[0-9a-f]{32}$/);
    expect(later).toBe(first);
    expect(rawApiChatId(null, [{ role: 'user', content: 'Something else' }])).not.toBe(first);
    expect(rawApiChatId(null, [{ role: 'system', content: 'only a system prompt' }])).toBeNull();
  });

  it('reads array content parts as their text', () => {
    expect(contentText([{ type: 'text', text: 'List ' }, { type: 'image_url' }, { type: 'text', text: 'my files' }])).toBe('List my files');
    expect(rawApiChatId(null, [conversation[0]!, { role: 'user', content: [{ type: 'text', text: 'List my files' }] }])).toBe(rawApiChatId(null, conversation));
  });

  it('leaves the default profile’s ids byte-identical and namespaces named profiles apart', () => {
    const raw = rawApiChatId(null, conversation) as string;
    expect(apiChatId('default', raw)).toBe(raw);
    expect(apiChatId('work', raw)).not.toBe(raw);
    expect(apiChatId('work', raw)).not.toBe(apiChatId('home', raw));
    expect(apiChatId('a:b', 'c')).not.toBe(apiChatId('a', 'b:c'));
  });

  it('refuses a default-profile id shaped like a named profile’s, and keeps long ones within 256 characters', () => {
    expect(apiChatId('default', 'profile:work:abc')).toBeNull();
    const long = apiChatId('é'.repeat(64), 's'.repeat(200)) as string;
    expect(long.length).toBeLessThanOrEqual(256);
    expect(long).not.toBe(apiChatId('é'.repeat(64), `${'s'.repeat(199)}t`));
    expect(long).not.toBe(apiChatId('è'.repeat(64), 's'.repeat(200)));
  });
});
