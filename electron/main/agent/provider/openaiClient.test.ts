import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BerthError, toErrorPayload } from '../../../../shared/errors.js';
import { byTurn, queue, startOpenAiTestServer, type OpenAiTestServerOptions } from '../../../../test/support/openaiTestServer.js';
import { MAX_ANSWER_CHARS, ProviderCancelled, streamChatCompletion, type ChatMessage, type CompletionRequest, type ToolSpec } from './openaiClient.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { waitFor } from '../../../../test/support/waitFor.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function serve(opts: OpenAiTestServerOptions) {
  const server = await startOpenAiTestServer(opts);
  cleanups.push(() => server.close());
  return server;
}

/** For what the scripted server will not do on purpose: broken streams, missing ids. */
async function rawServer(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const TOOL: ToolSpec = { type: 'function', function: { name: 'terminal', description: 'Run a command', parameters: { type: 'object' } } };

function request(baseUrl: string, extra: Partial<CompletionRequest> = {}): CompletionRequest {
  return { baseUrl, apiKey: null, model: 'test-model', messages: [user('hi')], ...extra };
}

/** A sleep that returns at once and remembers what it was asked to wait. */
function recordingSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

async function failure(promise: Promise<unknown>): Promise<BerthError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BerthError);
  return err as BerthError;
}

describe('streamChatCompletion', () => {
  it('streams text in order and returns it whole, sending the request OpenAI expects', async () => {
    const server = await serve({ apiKey: 'sk-good', responder: queue({ text: ['Hel', 'lo ', 'wor', 'ld'] }) });
    const pieces: string[] = [];
    const result = await streamChatCompletion(
      request(`${server.baseUrl}/`, { apiKey: 'sk-good', tools: [TOOL], onText: (t) => pieces.push(t) }),
    );
    expect(pieces).toEqual(['Hel', 'lo ', 'wor', 'ld']);
    // The provider's token counts, asked for with stream_options, come back with the answer.
    expect(result).toEqual({ content: 'Hello world', toolCalls: [], finishReason: 'stop', usage: { input: 8, output: 3 } });
    const [sent] = server.requests;
    expect(sent?.headers.authorization).toBe('Bearer sk-good');
    expect(sent?.body).toEqual({ model: 'test-model', messages: [user('hi')], tools: [TOOL], stream: true, stream_options: { include_usage: true } });
  });

  it('sends no Authorization header without a key, and no empty tools list', async () => {
    const server = await serve({ responder: queue({ text: 'fine' }) });
    await streamChatCompletion(request(server.baseUrl, { tools: [] }));
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body).not.toHaveProperty('tools');
  });

  it('assembles two tool calls from their fragments', async () => {
    const server = await serve({
      responder: queue({
        text: 'Let me look.',
        toolCalls: [
          { id: 'call_a', name: 'terminal', arguments: { command: 'ls -la /workspace', cwd: '/workspace' } },
          { name: 'read_file', arguments: '{"path":"/workspace/README.md"}' },
        ],
      }),
    });
    const result = await streamChatCompletion(request(server.baseUrl));
    expect(result).toMatchObject({
      content: 'Let me look.',
      finishReason: 'tool_calls',
      toolCalls: [
        { id: 'call_a', name: 'terminal', arguments: '{"command":"ls -la /workspace","cwd":"/workspace"}' },
        { id: 'call_0_1', name: 'read_file', arguments: '{"path":"/workspace/README.md"}' },
      ],
    });
  });

  it('retries a 429, waiting what Retry-After asks, then succeeds', async () => {
    const server = await serve({ responder: queue({ status: 429, retryAfter: '2', error: { message: 'Rate limit reached' } }, { text: 'ok' }) });
    const { delays, sleep } = recordingSleep();
    const retries: unknown[] = [];
    const result = await streamChatCompletion(
      request(server.baseUrl, { retry: { sleep, random: () => 0 }, onRetry: (info) => retries.push(info) }),
    );
    expect(result.content).toBe('ok');
    expect(delays).toEqual([2000]);
    expect(retries).toEqual([{ attempt: 1, delayMs: 2000, status: 429 }]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxAttempts 503s with the server’s own message', async () => {
    const overloaded = { status: 503, error: { message: 'The engine is currently overloaded, please try again later' } };
    const server = await serve({ responder: queue(overloaded, overloaded, overloaded, { text: 'too late' }) });
    const { delays, sleep } = recordingSleep();
    const err = await failure(streamChatCompletion(request(server.baseUrl, { retry: { sleep, maxAttempts: 3, random: () => 0.5 } })));
    expect(err.code).toBe('provider_failed');
    expect(err.message).toContain('The engine is currently overloaded');
    expect(err.message).toContain('HTTP 503');
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([250, 500]);
  });

  it('reports a refused key as provider_auth without ever showing the key', async () => {
    const key = 'sk-proj-WRONG-9f8e7d6c5b4a';
    const server = await serve({ apiKey: 'sk-right', responder: queue({ text: 'unreachable' }) });
    // The server really does echo the key, so the assertions below are not vacuous.
    const echoed = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'm', messages: [] }),
    }).then((r) => r.text());
    expect(echoed).toContain(key);

    const err = await failure(streamChatCompletion(request(server.baseUrl, { apiKey: key })));
    expect(err.code).toBe('provider_auth');
    expect(err.message).toContain(`refused the API key for ${new URL(server.baseUrl).origin}`);
    expect(err.message).toContain('Incorrect API key provided: [redacted]');
    expect(err.hint).toMatch(/key/i);
    expect(JSON.stringify(toErrorPayload(err))).not.toContain(key);
    expect(server.requests).toHaveLength(2);
  });

  it('reports an unknown model as provider_model, naming it', async () => {
    const server = await serve({ models: ['test-model'], responder: queue({ text: 'x' }) });
    const err = await failure(streamChatCompletion(request(server.baseUrl, { model: 'gpt-nonexistent' })));
    expect(err.code).toBe('provider_model');
    expect(err.message).toContain('"gpt-nonexistent"');
    expect(err.message).toContain('does not exist');
  });

  it('reads a 400 that says the model is missing, or a bare 404, as provider_model', async () => {
    const server = await serve({
      responder: queue({ status: 400, error: { message: 'model "llama9" not found, try pulling it first' } }, { status: 404, error: { message: 'Not Found' } }),
    });
    const missing = await failure(streamChatCompletion(request(server.baseUrl, { model: 'llama9' })));
    expect([missing.code, missing.hint]).toEqual(['provider_model', expect.stringContaining('ollama pull llama9')]);
    const bare = await failure(streamChatCompletion(request(server.baseUrl, { model: 'llama9' })));
    expect([bare.code, bare.hint]).toEqual(['provider_model', expect.stringContaining('/v1')]);
  });

  it('never shows what a service that is not an OpenAI-style provider answers (a provider URL pointed at a loopback service)', async () => {
    const secret = 'admin_token=LOOPBACK-SECRET-4711';
    const answers: [number, string, string][] = [
      [500, 'text/plain', `internal status: ${secret}`],
      [400, 'application/json', JSON.stringify({ status: 'bad', detail: secret, message: secret })],
      [403, 'text/html', `<html><title>${secret}</title></html>`],
      [400, 'application/json', JSON.stringify({ error: secret })],
      [200, 'text/html', `<html>${secret}</html>`],
      [200, 'application/json', JSON.stringify({ error: { code: secret } })],
    ];
    for (const [status, type, body] of answers) {
      const service = await rawServer((_req, res) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      });
      const err = await failure(streamChatCompletion(request(service, { retry: { maxAttempts: 1 } })));
      expect(err.message, body).not.toContain('LOOPBACK-SECRET');
      expect(JSON.stringify(toErrorPayload(err)), body).not.toContain('LOOPBACK-SECRET');
      expect(err.message, body).toMatch(status === 200 ? /not an OpenAI-compatible answer|reported an error|before the answer was finished/ : new RegExp(`HTTP ${status}|API key`));
    }
  });

  it('shows an OpenAI-style error body, and vLLM’s object:"error" form', async () => {
    const errors: unknown[] = [
      { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
      { object: 'error', message: 'This model’s maximum context length is 4096 tokens', type: 'BadRequestError', code: 400 },
    ];
    for (const body of errors) {
      const provider = await rawServer((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
      const err = await failure(streamChatCompletion(request(provider, { retry: { maxAttempts: 1 } })));
      expect(err.message).toMatch(/Rate limit reached for requests|maximum context length is 4096 tokens/);
    }
  });

  it('reports nothing listening as provider_unreachable at once, naming the origin', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const retries: unknown[] = [];
    const err = await failure(streamChatCompletion(request(`http://127.0.0.1:${port}/v1`, { onRetry: (i) => retries.push(i) })));
    expect(err.code).toBe('provider_unreachable');
    expect(err.message).toContain(`http://127.0.0.1:${port}`);
    expect(err.message).toContain('nothing is listening');
    expect(err.hint).toMatch(/ollama/i);
    expect(retries).toEqual([]);
  });

  it('retries a connection dropped before any response, and reports provider_unreachable when it keeps dropping', async () => {
    let calls = 0;
    let dropUntil = 2;
    const baseUrl = await rawServer((req, res) => {
      if (++calls <= dropUntil) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'third time' }, finish_reason: 'stop' }] }));
    });
    const retries: { status: number | null }[] = [];
    const { sleep } = recordingSleep();
    const ok = await streamChatCompletion(request(baseUrl, { retry: { sleep }, onRetry: (i) => retries.push(i) }));
    expect(ok.content).toBe('third time');
    expect(retries.map((r) => r.status)).toEqual([null, null]);

    [calls, dropUntil] = [0, 99];
    const err = await failure(streamChatCompletion(request(baseUrl, { retry: { sleep } })));
    expect([err.code, err.message]).toEqual(['provider_unreachable', expect.stringContaining('connection was reset')]);
    expect(calls).toBe(4);
  });

  it('reports an unusable URL as provider_unreachable', async () => {
    for (const baseUrl of ['not a url', 'ftp://example.com/v1', 'https://user:pw@example.com/v1']) {
      const err = await failure(streamChatCompletion(request(baseUrl)));
      expect(err.code).toBe('provider_unreachable');
    }
  });

  it('stops promptly with ProviderCancelled when aborted mid-stream', async () => {
    const server = await serve({ responder: queue({ text: Array.from({ length: 40 }, (_, i) => `t${i} `), chunkDelayMs: 150 }) });
    const controller = new AbortController();
    const pieces: string[] = [];
    let abortedAt = 0;
    const pending = streamChatCompletion(
      request(server.baseUrl, {
        signal: controller.signal,
        onText: (t) => {
          pieces.push(t);
          if (pieces.length === 2) {
            abortedAt = Date.now();
            controller.abort();
          }
        },
      }),
    );
    await expect(pending).rejects.toBeInstanceOf(ProviderCancelled);
    // Not a speed test: the rest of the stream would take 38 × 150 ms; the stop must not wait for it.
    expect(Date.now() - abortedAt).toBeLessThan(38 * 150);
    expect(pieces).toEqual(['t0 ', 't1 ']);
  });

  it('stops with ProviderCancelled when aborted while the server hangs or during a retry wait', async () => {
    const server = await serve({ responder: queue({ hang: true }, { status: 429, retryAfter: '20' }) });
    const hanging = new AbortController();
    setTimeout(() => hanging.abort(), 100);
    await expect(streamChatCompletion(request(server.baseUrl, { signal: hanging.signal }))).rejects.toBeInstanceOf(ProviderCancelled);

    const waiting = new AbortController();
    const started = Date.now();
    const pending = streamChatCompletion(request(server.baseUrl, { signal: waiting.signal, onRetry: () => waiting.abort() }));
    await expect(pending).rejects.toBeInstanceOf(ProviderCancelled);
    // The stop does not wait out the 20 s the server asked for.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('accepts a non-streamed JSON reply', async () => {
    const server = await serve({ responder: queue({ text: 'Plain answer.', toolCalls: [{ id: 'c1', name: 'list_dir', arguments: { path: '/' } }], json: true }) });
    const pieces: string[] = [];
    const result = await streamChatCompletion(request(server.baseUrl, { onText: (t) => pieces.push(t) }));
    expect(result).toMatchObject({
      content: 'Plain answer.',
      toolCalls: [{ id: 'c1', name: 'list_dir', arguments: '{"path":"/"}' }],
      finishReason: 'tool_calls',
    });
    expect(pieces).toEqual(['Plain answer.']);
  });

  it('generates an id for a call the server sent without one', async () => {
    const baseUrl = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"terminal","arguments":"{\\"command\\":"}}]}}]}\n\n' +
          'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"pwd\\"}"}}]},"finish_reason":"tool_calls"}]}\n\n' +
          'data: [DONE]\n\n',
      );
    });
    const { toolCalls } = await streamChatCompletion(request(baseUrl));
    expect(toolCalls).toEqual([{ id: expect.stringMatching(/^call_\w{8,}$/), name: 'terminal', arguments: '{"command":"pwd"}' }]);
  });

  it('finishes at [DONE] even when the server keeps the connection open', async () => {
    const baseUrl = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"delta":{"content":"done"}}]}\n\ndata: [DONE]\n\n');
    });
    const result = await streamChatCompletion(request(baseUrl));
    expect(result).toEqual({ content: 'done', toolCalls: [], finishReason: null });
  });

  it('reports a malformed stream and a stream cut before it finished as provider_failed', async () => {
    const malformed = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: <html>oops</html>\n\n');
    });
    const bad = await failure(streamChatCompletion(request(malformed)));
    expect([bad.code, bad.message]).toEqual(['provider_failed', expect.stringContaining('not an OpenAI-compatible answer')]);
    expect(bad.message).not.toContain('oops');

    const cut = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"delta":{"content":"half an ans"}}]}\n\n');
    });
    const pieces: string[] = [];
    const short = await failure(streamChatCompletion(request(cut, { onText: (t) => pieces.push(t) })));
    expect([short.code, short.message]).toEqual(['provider_failed', expect.stringContaining('before the answer was finished')]);
    expect(pieces).toEqual(['half an ans']);
  });

  it('stops reading an answer that grows past the cap, streamed or whole', async () => {
    const piece = 'y'.repeat(1024 * 1024);
    const pieces = Array.from({ length: Math.ceil(MAX_ANSWER_CHARS / piece.length) + 1 }, () => piece);
    const streamed = await serve({ responder: queue({ text: pieces }) });
    let received = 0;
    const err = await failure(streamChatCompletion(request(streamed.baseUrl, { onText: (t) => void (received += t.length) })));
    expect(err.code).toBe('provider_failed');
    expect(err.message).toMatch(/grew past 8 MiB/);
    expect(received).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    const whole = await serve({ responder: queue({ text: pieces.join(''), json: true }) });
    expect((await failure(streamChatCompletion(request(whole.baseUrl)))).message).toMatch(/grew past 8 MiB/);
    // 18 MiB through a local socket: seconds on a busy shared machine, not the default 5.
  }, 60_000);

  it('never retries once the answer has started, even if the connection then drops', async () => {
    let calls = 0;
    const baseUrl = await rawServer((_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"delta":{"content":"partial"}}]}\n\n', () => setTimeout(() => res.destroy(), 20));
    });
    const err = await failure(streamChatCompletion(request(baseUrl, { retry: { sleep: async () => {} } })));
    expect(err.code).toBe('provider_failed');
    expect(calls).toBe(1);
  });
});

describe('openaiTestServer', () => {
  it('byTurn picks the step by how far each conversation has got, concurrently', async () => {
    const server = await serve({ responder: byTurn({ text: 'turn one', chunkDelayMs: 30 }, { text: 'turn two' }) });
    const later: ChatMessage[] = [
      user('hi'),
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'terminal', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'ok' },
    ];
    const [first, second] = await Promise.all([
      streamChatCompletion(request(server.baseUrl, { messages: [user('hi')] })),
      streamChatCompletion(request(server.baseUrl, { messages: later })),
    ]);
    expect([first.content, second.content]).toEqual(['turn one', 'turn two']);

    const beyond = [...later, { role: 'assistant' as const, content: 'x' }, user('more')];
    const err = await failure(streamChatCompletion(request(server.baseUrl, { messages: beyond, retry: { maxAttempts: 1 } })));
    expect(err.message).toContain('script exhausted');
  });

  it('streams in OpenAI’s chunk format, with tool arguments in several fragments', async () => {
    const server = await serve({ responder: queue({ text: 'Hi', toolCalls: [{ id: 'call_x', name: 'terminal', arguments: '{"command":"ls"}' }] }) });
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [user('hi')], stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: EventSourceMessage[] = [];
    createParser({ onEvent: (e) => events.push(e) }).feed(await res.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    for (const c of chunks) {
      expect(c).toMatchObject({ id: expect.stringMatching(/^chatcmpl-/), object: 'chat.completion.chunk', created: expect.any(Number), model: 'm' });
    }
    const deltas = chunks.map((c) => c.choices[0].delta);
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'call_x', type: 'function', function: { name: 'terminal', arguments: '' } });
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.slice(1).every((c) => Object.keys(c).join() === 'index,function')).toBe(true);
    expect(chunks.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
  });

  it('serves /v1/models and ends hanging streams on close()', async () => {
    const server = await startOpenAiTestServer({ models: ['a', 'b'], responder: queue({ hang: true }) });
    cleanups.push(() => server.close()); // in case an assertion fails first; close() may run twice
    const models = (await fetch(`${server.baseUrl}/models`).then((r) => r.json())) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['a', 'b']);

    const pending = streamChatCompletion(request(server.baseUrl, { model: 'a' }));
    // The request must be hanging in the server, however slow the machine is, before it closes.
    await waitFor(async () => server.requests.length > 0, 'the request to reach the server');
    await server.close();
    const err = await failure(pending);
    expect(err.code).toBe('provider_failed');
  });
});
