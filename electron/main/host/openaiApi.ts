/**
 * The OpenAI-compatible API of the browser host (`POST /v1/chat/completions`, `GET /v1/models`),
 * so an existing chat front end can talk to a Berth agent. Each conversation maps to one
 * Berth chat (policy/apiChatId): the session header names it, or the conversation's opening
 * does. The profile comes from the `X-Berth-Profile` header or a model named `berth/<profile>`.
 * Only the newest user message is sent: Berth keeps the chat's own history.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { z } from 'zod';
import { DEFAULT_PROFILE, type EventName, type EventPayload } from '../../../shared/contract.js';
import { BerthError, toErrorPayload, type ErrorCode } from '../../../shared/errors.js';
import type { ApiChats } from '../agent/apiChats.js';
import type { Disposable, EventListener } from '../events.js';
import { contentText } from '../policy/apiChatId.js';

export interface OpenAiApiCore {
  apiChats: ApiChats;
  onEvent(listener: EventListener): Disposable;
  profileNames(): string[];
}

/** Headers that name a conversation, in the order they are looked for. */
export const SESSION_HEADERS = ['x-berth-session', 'x-session-id', 'x-openwebui-chat-id'] as const;
export const PROFILE_HEADER = 'x-berth-profile';
const MODEL_PREFIX = 'berth/';
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const CompletionBody = z.object({
  model: z.string().max(300).optional(),
  messages: z.array(z.object({ role: z.string(), content: z.unknown() }).passthrough()).min(1, 'messages is empty.'),
  stream: z.boolean().optional(),
});

const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_request: 400, provider_not_configured: 400, not_found: 404, already_exists: 409, agent_busy: 409,
  provider_auth: 502, provider_model: 502, provider_unreachable: 502, provider_failed: 502, secret_unavailable: 500,
};

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(data.length), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(data);
}

/**
 * A request the host refused before it reached the API (a missing or wrong token: 401
 * `unauthorized`; another host or origin: 403 `forbidden`), in OpenAI's error shape, so an API
 * client shows the message instead of a parse error.
 */
export function sendAccessRefusal(res: http.ServerResponse, status: 401 | 403, message: string): void {
  const code = status === 401 ? 'unauthorized' : 'forbidden';
  sendJson(res, status, { error: { message: message.trim(), type: code, code } });
}

function apiError(error: unknown): { status: number; body: unknown } {
  const p = toErrorPayload(error);
  return { status: STATUS[p.code] ?? 500, body: { error: { message: p.hint ? `${p.message} ${p.hint}` : p.message, type: p.code, code: p.code } } };
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BerthError('invalid_request', `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB.`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BerthError('invalid_request', 'The request body is not valid JSON.');
  }
}

function header(req: http.IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : null;
}

export function profileOf(req: http.IncomingMessage, model: string | undefined): string {
  const fromHeader = header(req, PROFILE_HEADER)?.trim();
  if (fromHeader) return fromHeader;
  if (model?.startsWith(MODEL_PREFIX) && model.length > MODEL_PREFIX.length) return model.slice(MODEL_PREFIX.length);
  return DEFAULT_PROFILE;
}

export async function handleApiRequest(core: OpenAiApiCore, req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
  if (path === '/v1/models' && req.method === 'GET') {
    const data = core.profileNames().map((name) => ({ id: name === DEFAULT_PROFILE ? 'berth' : `${MODEL_PREFIX}${name}`, object: 'model', created: 0, owned_by: 'berth' }));
    return sendJson(res, 200, { object: 'list', data });
  }
  if (path !== '/v1/chat/completions') return sendJson(res, 404, apiError(new BerthError('not_found', `Berth serves /v1/chat/completions and /v1/models, not ${path}.`)).body);
  if (req.method !== 'POST') return sendJson(res, 405, apiError(new BerthError('invalid_request', 'Use POST.')).body);
  try {
    await completion(core, req, res);
  } catch (error) {
    if (res.headersSent) return void res.end();
    const e = apiError(error);
    sendJson(res, e.status, e.body);
  }
}

async function completion(core: OpenAiApiCore, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const parsed = CompletionBody.safeParse(await readBody(req));
  if (!parsed.success) throw new BerthError('invalid_request', `The request is not a chat completion: ${parsed.error.issues[0]?.message ?? 'bad shape'}`);
  const body = parsed.data;
  const last = body.messages[body.messages.length - 1];
  const text = last && last.role === 'user' ? contentText(last.content).trim() : '';
  if (text === '') throw new BerthError('invalid_request', 'The last message must be a user message with text.');
  const profile = profileOf(req, body.model);
  const sessionId = SESSION_HEADERS.map((h) => header(req, h)).find((v) => v !== null) ?? null;
  const { chatId } = core.apiChats.open({ profile, sessionId, messages: body.messages });

  // The chat agent's own answers (not its subagents'), in order, as they stream.
  const mine = new Set<string>();
  let answered = '';
  let onText: (t: string) => void = () => undefined;
  const sub = core.onEvent(<E extends EventName>(event: E, payload: EventPayload<E>) => {
    if (event === 'agent.message') {
      const m = (payload as EventPayload<'agent.message'>).message;
      if (m.chatId === chatId && m.taskId === null && m.role === 'assistant' && !mine.has(m.id)) {
        mine.add(m.id);
        if (answered !== '' && !answered.endsWith('\n\n')) emit('\n\n');
      }
    } else if (event === 'agent.delta') {
      const d = payload as EventPayload<'agent.delta'>;
      if (d.chatId === chatId && mine.has(d.messageId)) emit(d.text);
    }
  });
  const emit = (t: string) => {
    answered += t;
    onText(t);
  };
  try {
    const { finished } = core.apiChats.send(chatId, text);
    // A client that hangs up stops the turn, and what it started in the sandbox.
    const hungUp = () => {
      if (!res.writableFinished) void core.apiChats.stop(chatId);
    };
    if (res.destroyed || req.socket.destroyed) hungUp();
    else res.once('close', hungUp);
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? 'berth';
    const headers = { 'X-Berth-Chat-Id': encodeURIComponent(chatId) };
    if (!body.stream) {
      const result = await finished;
      if (result.error) throw result.error;
      res.setHeader('X-Berth-Chat-Id', headers['X-Berth-Chat-Id']);
      return sendJson(res, 200, {
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message: { role: 'assistant', content: answered }, finish_reason: 'stop' }],
      });
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', ...headers });
    const chunk = (delta: object, finish: string | null) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    chunk({ role: 'assistant', content: '' }, null);
    onText = (t) => chunk({ content: t }, null);
    const result = await finished;
    if (result.error) res.write(`data: ${JSON.stringify(apiError(result.error).body)}\n\n`);
    else chunk({}, 'stop');
    res.end('data: [DONE]\n\n');
  } finally {
    sub.dispose();
  }
}
