/**
 * The key goes to the profile's provider origin only, with only the headers Berth means to
 * send: the OpenAI SDK underneath would otherwise add its own and some from OPENAI_*
 * environment variables meant for other programs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BerthError } from '../../../../shared/errors.js';
import { queue, startOpenAiTestServer } from '../../../../test/support/openaiTestServer.js';
import { boundFetch } from './boundFetch.js';
import { streamChatCompletion } from './openaiClient.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A plain server that records every request it gets. */
async function recorder(handler: http.RequestListener = (_req, res) => res.end()) {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return { seen, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('boundFetch', () => {
  it('refuses a request for any other origin before it is made', async () => {
    const other = await recorder();
    const door = boundFetch({
      origin: 'http://127.0.0.1:1',
      apiKey: 'sk-bound',
      scrub: (t) => t,
      maxAnswerBytes: 1024,
      tooLong: () => new Error('too long'),
      refused: (url) => new Error(`refused ${url}`),
    });
    await expect(door.fetch(`${other.origin}/v1/chat/completions`, { method: 'POST', body: '{}' })).rejects.toThrow(`refused ${other.origin}`);
    expect(other.seen).toEqual([]);
  });

  it('does not follow a redirect, so the key never reaches the place it points to', async () => {
    const elsewhere = await recorder();
    const provider = await recorder((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.origin}/v1/chat/completions` });
      res.end();
    });
    const err = await streamChatCompletion({ baseUrl: `${provider.origin}/v1`, apiKey: 'sk-redirected', model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BerthError);
    expect((err as BerthError).message).toContain('redirects elsewhere (HTTP 307)');
    expect(provider.seen.map((h) => h.authorization)).toEqual(['Bearer sk-redirected']);
    expect(elsewhere.seen).toEqual([]);
  });

  it('sends the profile’s key and nothing from OPENAI_* variables, nor the SDK’s platform headers', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-the-environment');
    vi.stubEnv('OPENAI_ORG_ID', 'org-from-the-environment');
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-from-the-environment');
    vi.stubEnv('OPENAI_CUSTOM_HEADERS', 'X-Internal-Token: from-the-environment');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:1/v1');
    const server = await startOpenAiTestServer({ responder: queue({ text: 'one' }, { text: 'two' }) });
    cleanups.push(() => server.close());
    const ask = (apiKey: string | null) => streamChatCompletion({ baseUrl: server.baseUrl, apiKey, model: 'm', messages: [{ role: 'user', content: 'hi' }] });

    expect((await ask(null)).content).toBe('one');
    expect((await ask('sk-profile')).content).toBe('two');
    const [keyless, keyed] = server.requests.map((r) => r.headers);
    expect(keyless?.authorization).toBeUndefined();
    expect(keyed?.authorization).toBe('Bearer sk-profile');
    for (const headers of [keyless, keyed]) {
      expect(JSON.stringify(headers)).not.toContain('from-the-environment');
      expect(Object.keys(headers ?? {}).filter((h) => h.startsWith('x-stainless') || h.startsWith('openai-'))).toEqual([]);
    }
  });
});
