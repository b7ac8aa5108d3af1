/**
 * Plain-HTTP method rules on the real proxy, against the tests' pretend internet: an allowlist
 * entry `host METHOD,…` lets only those methods through to that host over plain HTTP; another
 * method is refused with its reason (X-Berth-Refused: method, the sentence, the Network view),
 * and HTTPS to it is refused too (a method cannot be seen inside a tunnel without decrypting it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowlistChat, type AllowlistChat } from '../support/allowlistChat.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let chat: AllowlistChat;
const run = (command: string) => chat.run(command);

beforeAll(async () => {
  chat = await allowlistChat(h, ['allowed.test', 'other.test GET,HEAD']);
}, 180_000);

afterAll(async () => {
  await h.cleanup();
  await chat?.inet.stop();
}, 120_000);

describe('an HTTP-only rule with methods (other.test GET,HEAD)', () => {
  it('lets GET and HEAD through over plain HTTP', async () => {
    expect(await run('curl -sS --max-time 10 http://other.test/')).toContain('hello from other.test on 80');
    // The pretend server has no HEAD of its own: its 501 says the request reached it.
    const head = await run('curl -sS -I --max-time 10 http://other.test/');
    expect(head).toMatch(/^HTTP\/1\.[01] 501 Unsupported method \('HEAD'\)/);
    expect(head).not.toMatch(/x-berth-refused/i);
  });

  it('refuses a POST with its reason, in the answer and the Network view', async () => {
    const post = await run('curl -sS -i --max-time 10 -X POST -d x=1 http://other.test/');
    expect(post).toMatch(/^HTTP\/1\.1 403/);
    expect(post).toMatch(/^x-berth-refused: method\r?$/im);
    expect(post).toContain(`Berth's egress proxy refused POST to other.test:80: the allowlist of profile "${chat.profile}" lets only some methods through to it, over plain HTTP`);
    expect(post).not.toContain('hello from');
    await waitFor(async () => {
      const { requests, httpOnly } = await chat.core.network.log({ chatId: chat.chatId });
      return httpOnly.includes('other.test GET,HEAD')
        && requests.some((r) => r.host === 'other.test' && r.method === 'POST' && !r.allowed && r.reason === 'method');
    }, "the POST's refusal in the Network view");
  });

  it('refuses HTTPS to it (methods cannot be seen inside a tunnel), and a host without methods keeps every method', async () => {
    const tls = await run('curl -sS -k -v --max-time 10 https://other.test/ 2>&1');
    expect(tls).toMatch(/< x-berth-refused: method/i);
    expect(tls).not.toContain('hello from');
    // allowed.test has no methods: a POST reaches the server (which answers 501, having no POST).
    const post = await run('curl -sS -i --max-time 10 -X POST -d x=1 http://allowed.test/');
    expect(post).toMatch(/^HTTP\/1\.[01] 501/);
    expect(post).not.toMatch(/x-berth-refused/i);
    expect(await run('curl -sS -k --max-time 10 https://allowed.test/')).toContain('hello from allowed.test on 443');
  });

  it('"Allow for this chat" on the host opens every method for that chat', async () => {
    await chat.core.network.allow({ chatId: chat.chatId, host: 'other.test', port: 80, scope: 'chat' });
    const post = await run('curl -sS -i --max-time 10 -X POST -d x=1 http://other.test/');
    expect(post).toMatch(/^HTTP\/1\.[01] 501/);
  });
});
