/**
 * A scripted OpenAI-compatible server: real HTTP on 127.0.0.1, Chat Completions with SSE
 * streaming in OpenAI's own chunk format, so the app can be driven end to end without a model.
 *
 *   const server = await startOpenAiTestServer({ responder: byTurn(
 *     { toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }] },   // turn 1: run a tool
 *     { text: 'Done: the folder is empty.' },                                  // turn 2: answer
 *   ) });
 *   // point a profile at server.baseUrl (ends in /v1), model anything (or one of opts.models)
 *   server.requests[0].body.messages   // what the app sent, in arrival order
 *   await server.close();              // also ends streams still open, hanging ones included
 *
 * Routes: POST /v1/chat/completions, GET /v1/models (opts.models, or ["test-model"], with
 * opts.contextLength's figures as context_length); anything
 * else is a 404 in OpenAI's error shape. Every well-formed chat request is recorded in
 * `requests` before the checks below, so rejected ones can be counted too.
 *
 * Checks, in order, before the script is consulted (a rejected request does not use a step):
 * - opts.apiKey set and the request's Bearer token differs: 401 `invalid_api_key`. Unlike
 *   OpenAI, which masks it, the error message echoes the token whole, so tests can prove the
 *   client never shows it.
 * - opts.models set and the model is not listed: 404 `model_not_found`, OpenAI's wording.
 *
 * Steps (what one request gets):
 * - `{ text, toolCalls }`: a reply. A text string streams as words ("a b" -> "a ", "b"); an array
 *   streams as exactly those chunks. Tool call arguments (an object is JSON-encoded) stream in
 *   2-3 fragments after a first fragment with index, id, type and name; ids default to
 *   `call_<request index>_<call index>`. finish_reason is "tool_calls" when there are calls,
 *   else "stop", then (when stream_options.include_usage) a usage chunk, then `data: [DONE]`. `chunkDelayMs` paces the chunks; `delayMs` waits before
 *   the response starts; `json: true` answers with one application/json body instead of a
 *   stream (as servers that ignore stream:true do). A request with stream not true gets JSON too.
 * - `{ status, error, retryAfter }`: an HTTP error with OpenAI's `{ error: { message, type,
 *   param, code } }` body and, when given, a Retry-After header.
 * - `{ hang: true }`: headers and one empty delta, then nothing until the client goes away.
 *
 * Responders: `queue(...)` hands steps out in arrival order across all requests (use it for
 * retry scripts); `byTurn(...)` picks by the number of assistant messages already in the
 * request's conversation, so concurrent chats can share one script, and a retried request gets
 * the same step again (an error step there repeats until the client gives up). A subagent's
 * fresh conversation starts at turn 1 too. A script that runs out answers 500 "script
 * exhausted", which the client retries and then reports with that message.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage } from '../../electron/main/agent/provider/openaiClient.js';

export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: string | object;
}

export type Step =
  | { text?: string | string[]; toolCalls?: ScriptedToolCall[]; chunkDelayMs?: number; delayMs?: number; json?: boolean }
  | { status: number; error?: { message: string; type?: string; code?: string }; retryAfter?: string; delayMs?: number }
  | { hang: true };

export interface RecordedRequest {
  headers: Record<string, string | string[] | undefined>;
  body: { model: string; messages: ChatMessage[]; tools?: unknown[]; stream?: boolean; stream_options?: { include_usage?: boolean } };
  at: number;
}

export type Responder = (req: RecordedRequest, index: number) => Step | Promise<Step>;

export interface OpenAiTestServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** Chat completion requests in arrival order (not GET /v1/models). */
  requests: RecordedRequest[];
  close(): Promise<void>;
  setResponder(r: Responder): void;
}

export interface OpenAiTestServerOptions {
  apiKey?: string;
  models?: string[];
  /** Context windows GET /v1/models states, per model id (as OpenRouter's context_length). */
  contextLength?: Record<string, number>;
  responder?: Responder;
  /**
   * Timing marks for a bench (bench/agent.ts): a request's body has all arrived, before the
   * server parses it; an answer's first byte is about to be written, after the server built it.
   * What the server itself spends between them is not the client's time.
   */
  marks?: { received?: () => void; answering?: () => void };
}

export async function startOpenAiTestServer(opts: OpenAiTestServerOptions = {}): Promise<OpenAiTestServer> {
  let responder: Responder = opts.responder ?? (() => exhausted('no script was set: pass `responder` or call setResponder()'));
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();

  const server = http.createServer((req, res) => {
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const signal = AbortSignal.any([gone.signal, closing.signal]);
    route(req, res, signal).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, 500, { message: `OpenAI test server failed: ${String(err)}`, type: 'server_error' });
    });
  });

  async function route(req: http.IncomingMessage, res: http.ServerResponse, signal: AbortSignal): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const raw = await readBody(req);
    if (req.method === 'POST') opts.marks?.received?.();
    if (req.method === 'GET' && path === '/v1/models') {
      if (!authorized(req, res)) return;
      const data = (opts.models ?? ['test-model']).map((id) => ({
        id, object: 'model', created: 0, owned_by: 'berth-test', ...(opts.contextLength?.[id] === undefined ? {} : { context_length: opts.contextLength[id] }),
      }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendError(res, 404, { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error' });
    }
    const body = parseChatBody(raw);
    if (typeof body === 'string') return sendError(res, 400, { message: body, type: 'invalid_request_error' });
    const recorded: RecordedRequest = { headers: { ...req.headers }, body, at: Date.now() };
    requests.push(recorded);
    const index = requests.length - 1;
    if (!authorized(req, res)) return;
    if (opts.models && !opts.models.includes(body.model)) {
      return sendError(res, 404, {
        message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        code: 'model_not_found',
      });
    }
    let step: Step;
    try {
      step = await responder(recorded, index);
    } catch (err) {
      step = { status: 500, error: { message: `OpenAI test server: the responder threw: ${String(err)}`, type: 'server_error' } };
    }
    await play(step, body, index, res, signal, opts.marks?.answering);
  }

  function authorized(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    if (opts.apiKey === undefined) return true;
    const header = req.headers.authorization ?? '';
    if (header === `Bearer ${opts.apiKey}`) return true;
    const token = header.replace(/^Bearer\s+/i, '');
    sendError(res, 401, {
      message: token
        ? `Incorrect API key provided: ${token}. You can find your API key at https://platform.openai.com/account/api-keys.`
        : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      type: 'invalid_request_error',
      code: token ? 'invalid_api_key' : undefined,
    });
    return false;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setResponder(r) {
      responder = r;
    },
    close() {
      closing.abort();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function queue(...steps: Step[]): Responder {
  let next = 0;
  return () => {
    const i = next++;
    return steps[i] ?? exhausted(`queue() had ${steps.length} step(s) and this is request ${i + 1}`);
  };
}

export function byTurn(...steps: Step[]): Responder {
  return (req) => {
    const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
    return steps[turn] ?? exhausted(`byTurn() had ${steps.length} turn(s) and the conversation is at turn ${turn + 1}`);
  };
}

function exhausted(why: string): Step {
  return { status: 500, error: { message: `OpenAI test server: script exhausted (${why}).`, type: 'server_error' } };
}

async function play(step: Step, body: RecordedRequest['body'], index: number, res: http.ServerResponse, signal: AbortSignal, answering?: () => void): Promise<void> {
  const id = `chatcmpl-test${index}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, system_fingerprint: 'fp_berth_test', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

  if ('hang' in step) {
    res.writeHead(200, SSE_HEADERS);
    res.write(chunk({ role: 'assistant', content: '' }));
    return; // closed by the client, or by close()
  }
  if (step.delayMs && !(await sleep(step.delayMs, signal))) return;
  if ('status' in step) {
    const headers: Record<string, string> = step.retryAfter === undefined ? {} : { 'retry-after': step.retryAfter };
    return sendError(res, step.status, step.error ?? { message: `OpenAI test server: scripted HTTP ${step.status}.` }, headers);
  }

  const pieces = typeof step.text === 'string' ? step.text.split(/(?<=\s)(?=\S)/) : (step.text ?? []);
  const calls = (step.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${index}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';

  if (step.json || body.stream !== true) {
    const content = pieces.join('');
    const message = {
      role: 'assistant',
      content: content === '' && calls.length > 0 ? null : content,
      refusal: null,
      ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
    };
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      system_fingerprint: 'fp_berth_test',
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
  }

  const frames = [
    chunk({ role: 'assistant', content: pieces.length === 0 && calls.length > 0 ? null : '' }),
    ...pieces.map((content) => chunk({ content })),
    ...calls.flatMap((c, i) => [
      chunk({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
      ...fragments(c.arguments).map((piece) => chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] })),
    ]),
    chunk({}, finish),
    // Usage as OpenAI sends it when asked: a last chunk with no choices (tokens here: characters / 4).
    ...(body.stream_options?.include_usage ? [`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: usageOf(body, pieces, calls) })}\n\n`] : []),
    'data: [DONE]\n\n',
  ];
  answering?.();
  res.writeHead(200, SSE_HEADERS);
  for (const [i, frame] of frames.entries()) {
    if (i > 0 && step.chunkDelayMs && !(await sleep(step.chunkDelayMs, signal))) return;
    if (signal.aborted) return;
    res.write(frame);
  }
  res.end();
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };

function usageOf(body: RecordedRequest['body'], pieces: string[], calls: { arguments: string }[]) {
  const prompt_tokens = Math.ceil(JSON.stringify(body.messages).length / 4);
  const completion_tokens = Math.ceil((pieces.join('').length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** Two or three pieces, so a client that keeps only the last fragment gets caught. */
function fragments(args: string): string[] {
  if (args.length < 2) return [args];
  const n = Math.min(3, args.length);
  const size = Math.ceil(args.length / n);
  const out: string[] = [];
  for (let at = 0; at < args.length; at += size) out.push(args.slice(at, at + size));
  return out;
}

function parseChatBody(raw: string): RecordedRequest['body'] | string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return 'We could not parse the JSON body of your request.';
  }
  const b = body as Partial<RecordedRequest['body']> | null;
  if (typeof b !== 'object' || b === null || typeof b.model !== 'string') return 'you must provide a model parameter';
  if (!Array.isArray(b.messages)) return "Missing required parameter: 'messages'.";
  return b as RecordedRequest['body'];
}

function sendError(
  res: http.ServerResponse,
  status: number,
  error: { message: string; type?: string; code?: string | undefined },
  headers: Record<string, string> = {},
): void {
  const type = error.type ?? (status >= 500 ? 'server_error' : status === 429 ? 'requests' : 'invalid_request_error');
  const code = error.code ?? (status === 429 ? 'rate_limit_exceeded' : null);
  sendJson(res, status, { error: { message: error.message, type, param: null, code } }, headers);
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** False when the wait was cut short: the client left or the server is closing. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort);
  });
}
