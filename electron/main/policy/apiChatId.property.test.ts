// Property-based tests (fast-check): API conversation ids always make valid chat ids, never
// cross profiles, and are stable for the same conversation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatId, DEFAULT_PROFILE, ProfileName } from '../../../shared/contract.js';
import { apiChatId, rawApiChatId, type ApiMessage } from './apiChatId.js';

const profile = fc.oneof(fc.constant(DEFAULT_PROFILE), fc.string({ minLength: 1, maxLength: 64 }).filter((n) => ProfileName.safeParse(n).success));
const header = fc.oneof(fc.string({ maxLength: 260 }), fc.constantFrom('profile:x:y', 'profile::sha256:ab', ' a ', '\u0000', 'a\nb'));
const message: fc.Arbitrary<ApiMessage> = fc.record({
  role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'),
  content: fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constantFrom('text', 'image_url'), text: fc.string() }), { maxLength: 3 })),
});
const conversation = fc.array(message, { maxLength: 6 });

describe('rawApiChatId and apiChatId (properties)', () => {
  it('every id it gives is a valid chat id, whatever the header or conversation', () => {
    fc.assert(
      fc.property(profile, fc.option(header, { nil: null }), conversation, (p, h, msgs) => {
        const raw = rawApiChatId(h, msgs);
        if (raw === null) return;
        const id = apiChatId(p, raw);
        if (id !== null) expect(ChatId.safeParse(id).success, id).toBe(true);
      }),
    );
  });

  it('never gives two different (profile, raw id) pairs the same chat id', () => {
    fc.assert(
      fc.property(profile, header, profile, header, (p1, h1, p2, h2) => {
        const r1 = rawApiChatId(h1, []);
        const r2 = rawApiChatId(h2, []);
        fc.pre(r1 !== null && r2 !== null && (p1 !== p2 || r1 !== r2));
        const a = apiChatId(p1, r1!);
        const b = apiChatId(p2, r2!);
        if (a !== null && b !== null) expect(a).not.toBe(b);
      }),
    );
  });

  it('a named profile’s id never names a default-profile chat, nor the reverse', () => {
    fc.assert(
      fc.property(profile.filter((p) => p !== DEFAULT_PROFILE), fc.string({ minLength: 1, maxLength: 200 }), (p, raw) => {
        const named = apiChatId(p, raw);
        expect(named).not.toBeNull();
        expect(apiChatId(DEFAULT_PROFILE, named!)).toBeNull();
      }),
    );
  });

  it('keeps a conversation in one chat as it grows, and refuses control characters in a header', () => {
    fc.assert(
      fc.property(conversation, fc.array(message, { maxLength: 4 }), fc.string(), (opening, later, h) => {
        const firstUser = opening.findIndex((m) => m.role === 'user');
        fc.pre(firstUser >= 0);
        const head = opening.slice(0, firstUser + 1);
        expect(rawApiChatId(null, [...head, ...later])).toBe(rawApiChatId(null, head));
        // eslint-disable-next-line no-control-regex
        if (/[\u0000-\u001f\u007f]/.test(h.trim())) expect(rawApiChatId(h, [])).toBeNull();
      }),
    );
  });
});
