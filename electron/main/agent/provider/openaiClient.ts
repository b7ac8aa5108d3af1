/**
 * One chat completion from an OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio, vLLM,
 * llama.cpp...), streamed, through the official `openai` SDK. Every failure becomes a BerthError
 * the user can act on; the API key is scrubbed from anything a server says back, since some
 * servers echo the request.
 *
 * The SDK makes the request and decodes the stream's chunks; boundFetch (the fetch it is given)
 * keeps the key, the origin and the limits; Berth's own retry policy runs around it. Tool-call
 * fragments are joined here, not by the SDK's ChatCompletionStream, which rejects what
 * OpenAI-compatible servers commonly send: no role, no tool-call type or id, no finish_reason
 * before [DONE], arguments as an object (Ollama), no fragment index.
 */
import { randomUUID } from 'node:crypto';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { BerthError, type ErrorCode } from '../../../../shared/errors.js';
import { boundFetch, isJsonAnswer, type BoundFetch } from './boundFetch.js';
import { detailOf, errorDetail, record, scrubber, truncate, type ErrorDetail } from './providerErrors.js';
import { retryDelayMs, type RetryOptions } from './retryPolicy.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

export interface CompletionRequest {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  /** Before each wait; `attempt` is the attempt that just failed, counting from 1. */
  onRetry?: (info: { attempt: number; delayMs: number; status: number | null }) => void;
  retry?: { maxAttempts?: number; random?: () => number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> };
}

export interface Completion {
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
  /** The provider's token counts for this request, when it reported them. */
  usage?: { input: number; output: number } | null;
}

export class ProviderCancelled extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The request to the provider was cancelled.', options);
    this.name = 'ProviderCancelled';
  }
}

const SETTINGS_HINT = "Check the provider URL and model in the profile's settings.";
// The SDK insists on a key; the real one (if any) is added by boundFetch, for the provider's origin only.
const KEY_HELD_BY_FETCH = 'berth-key-is-added-by-boundFetch';

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

export async function streamChatCompletion(req: CompletionRequest): Promise<Completion> {
  try {
    return await complete(req);
  } catch (err) {
    // Whatever broke after the user pressed stop (a torn socket, a half-read body) is the stop.
    if (req.signal?.aborted) throw err instanceof ProviderCancelled ? err : new ProviderCancelled({ cause: err });
    throw err;
  }
}

/** Builds errors whose every word has the key scrubbed out. */
interface Ctx {
  req: CompletionRequest;
  origin: string;
  fail(code: ErrorCode, message: string, hint: string, cause?: unknown): BerthError;
  scrub(text: string): string;
}

/** The one request through the OpenAI SDK, retried here (not by the SDK: see retryPolicy). */
async function complete(req: CompletionRequest): Promise<Completion> {
  const scrub = scrubber(req.apiKey);
  const fail = (code: ErrorCode, message: string, hint: string, cause?: unknown) =>
    new BerthError(code, scrub(message), { hint: scrub(hint), cause });
  const { base, origin } = providerUrl(req.baseUrl, fail);
  const ctx: Ctx = { req, origin, fail, scrub };
  const door = boundFetch({
    origin,
    apiKey: req.apiKey,
    scrub,
    maxAnswerBytes: MAX_ANSWER_CHARS,
    tooLong: () => tooLong(ctx),
    refused: (other) => fail('provider_failed', `Berth refused to send the request for ${origin} to ${other}.`, SETTINGS_HINT),
  });
  const client = new OpenAI({
    baseURL: base,
    apiKey: KEY_HELD_BY_FETCH,
    // Explicit, so nothing comes from OPENAI_* environment variables meant for other programs.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: 'off',
    // The SDK's retries cannot be stopped while they wait, obey any Retry-After however long,
    // retry refused connections, and say nothing to the user: Berth's own policy runs instead.
    maxRetries: 0,
    fetch: door.fetch,
  });
  const params = {
    model: req.model,
    // Berth's own shapes are a subset of the SDK's; they go on the wire as they are.
    messages: req.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
    // OpenAI rejects an empty tools array.
    ...(req.tools && req.tools.length > 0 ? { tools: req.tools as OpenAI.Chat.Completions.ChatCompletionTool[] } : {}),
    stream: true as const,
    // Usage figures arrive in a last chunk only when asked for (OpenAI's rule; vLLM, Ollama and
    // llama.cpp's server follow it).
    stream_options: { include_usage: true },
  };
  const policy: RetryOptions = { maxAttempts: req.retry?.maxAttempts, random: req.retry?.random };
  const sleep = req.retry?.sleep ?? abortableSleep;

  for (let attempt = 1; ; attempt++) {
    if (req.signal?.aborted) throw new ProviderCancelled();
    let opened: { data: AsyncIterable<ChatCompletionChunk>; response: Response };
    try {
      opened = await client.chat.completions.create(params, { signal: req.signal }).withResponse();
    } catch (err) {
      if (req.signal?.aborted) throw new ProviderCancelled({ cause: err });
      const failure = requestFailure(err);
      if (failure instanceof BerthError) throw failure;
      if (failure.status === null) {
        const delayMs = retryDelayMs(attempt, null, null, { ...policy, retryable: isTransient(failure.cause) });
        if (delayMs === null) throw unreachable(ctx, failure.cause);
        req.onRetry?.({ attempt, delayMs, status: null });
        await sleep(delayMs, req.signal);
        continue;
      }
      const delayMs = retryDelayMs(attempt, failure.status, failure.retryAfter, policy);
      if (delayMs === null) throw httpError(failure.status, detailOf(record(failure.error), scrub), attempt, ctx);
      req.onRetry?.({ attempt, delayMs, status: failure.status });
      await sleep(delayMs, req.signal);
      continue;
    }
    return readCompletion(opened.data, opened.response, door, ctx);
  }
}

type RequestFailure = { status: number; retryAfter: string | null; error: unknown } | { status: null; cause: unknown };

/** What went wrong before any answer arrived, out of the SDK's error classes. */
function requestFailure(err: unknown): RequestFailure | BerthError {
  // Before APIError: the connection errors are APIErrors without a status.
  if (err instanceof APIConnectionTimeoutError) return { status: null, cause: Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }) };
  if (err instanceof APIConnectionError) {
    // What our fetch threw, as it threw it: the origin refusal, or fetch's own error.
    return err.cause instanceof BerthError ? err.cause : { status: null, cause: err.cause };
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    return { status: err.status, retryAfter: err.headers?.get('retry-after') ?? null, error: err.error };
  }
  throw err;
}

export function providerUrl(baseUrl: string, fail: Ctx['fail']): { base: string; origin: string } {
  const invalid = () =>
    fail(
      'provider_unreachable',
      `The provider URL "${truncate(baseUrl.trim(), 100)}" is not a usable http:// or https:// URL.`,
      "Fix the provider URL in the profile's settings, for example https://api.openai.com/v1 or http://127.0.0.1:11434/v1.",
    );
  const base = baseUrl.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    // The SDK asks for the base URL and this path, as Berth did.
    url = new URL(`${base}/chat/completions`);
  } catch {
    // Not chained as a cause: the URL's error repeats the text, which may hold anything pasted.
    throw invalid();
  }
  // fetch refuses URLs with credentials; other schemes it does not speak.
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) throw invalid();
  return { base, origin: url.origin };
}

async function readCompletion(stream: AsyncIterable<ChatCompletionChunk>, res: Response, door: BoundFetch, ctx: Ctx): Promise<Completion> {
  const acc = new Accumulator(ctx);
  if (isJsonAnswer(res)) {
    // Some servers ignore stream:true and answer with one JSON body (capped by boundFetch).
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw answerFailure(err, ctx);
    }
    acc.applyMessage(parseJson(text, ctx));
    return acc.result();
  }
  try {
    for await (const chunk of stream) {
      // No more text to a caller that has already stopped, even from a chunk already received.
      if (ctx.req.signal?.aborted) throw new ProviderCancelled();
      const obj = record(chunk);
      if (!obj) throw notOpenAi(ctx);
      acc.applyChunk(obj);
    }
  } catch (err) {
    throw answerFailure(err, ctx);
  }
  // The SDK ends the stream quietly when it is aborted.
  if (ctx.req.signal?.aborted) throw new ProviderCancelled();
  // Some servers close without [DONE]; a finish_reason shows the answer was whole.
  if (door.sawDone(res) || acc.finishReason !== null) return acc.result();
  throw streamBroken(ctx, 'stopped before the answer was finished');
}

/** An error while the answer was being read, as the user should hear it. */
function answerFailure(err: unknown, ctx: Ctx): Error {
  if (err instanceof ProviderCancelled || err instanceof BerthError) return err;
  if (ctx.req.signal?.aborted) return new ProviderCancelled({ cause: err });
  // The SDK could not decode an event's data.
  if (err instanceof SyntaxError) return notOpenAi(ctx);
  // The SDK found an `error` in an event (connection errors cannot happen once the answer is open).
  if (err instanceof APIError && err.status === undefined && !(err instanceof APIConnectionError) && !(err instanceof APIUserAbortError)) {
    return reportedError(detailOf(record(err.error), ctx.scrub), ctx);
  }
  return ctx.fail('provider_failed', `The connection to ${ctx.origin} dropped in the middle of the answer.`, 'Try again.', err);
}

class Accumulator {
  finishReason: string | null = null;
  private usage: { input: number; output: number } | null = null;
  private content = '';
  private calls = new Map<number, { id: string | null; name: string; arguments: string }>();

  constructor(private readonly ctx: Ctx) {}

  applyChunk(chunk: Record<string, unknown>): void {
    throwIfErrorPayload(chunk, this.ctx);
    this.readUsage(chunk);
    const choice = firstChoice(chunk);
    if (!choice) return; // usage-only and keep-alive chunks carry no choice
    const delta = record(choice.delta);
    if (delta) {
      if (typeof delta.content === 'string' && delta.content !== '') {
        this.content += delta.content;
        this.ctx.req.onText?.(delta.content);
      }
      if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((frag, pos) => this.applyToolFragment(frag, pos));
    }
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
  }

  applyMessage(body: Record<string, unknown>): void {
    throwIfErrorPayload(body, this.ctx);
    this.readUsage(body);
    const choice = firstChoice(body);
    const message = record(choice?.message);
    if (!choice || !message) throw streamBroken(this.ctx, 'answered without a message');
    if (typeof message.content === 'string' && message.content !== '') {
      this.content = message.content;
      this.ctx.req.onText?.(message.content);
    }
    if (Array.isArray(message.tool_calls)) message.tool_calls.forEach((call, pos) => this.applyToolFragment(call, pos));
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
  }

  result(): Completion {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id ?? `call_${randomUUID().replace(/-/g, '')}`, name: c.name, arguments: c.arguments }));
    return { content: this.content, toolCalls, finishReason: this.finishReason, ...(this.usage ? { usage: this.usage } : {}) };
  }

  private readUsage(body: Record<string, unknown>): void {
    const u = record(body.usage);
    const input = u?.prompt_tokens;
    const output = u?.completion_tokens;
    if (typeof input === 'number' && typeof output === 'number' && input >= 0 && output >= 0) this.usage = { input: Math.round(input), output: Math.round(output) };
  }

  private applyToolFragment(value: unknown, pos: number): void {
    const frag = record(value);
    if (!frag) return;
    const index = typeof frag.index === 'number' ? frag.index : pos;
    const slot = this.calls.get(index) ?? { id: null, name: '', arguments: '' };
    this.calls.set(index, slot);
    if (typeof frag.id === 'string' && frag.id !== '' && slot.id === null) slot.id = frag.id;
    const fn = record(frag.function);
    // Some servers repeat the name in every fragment: keep the first rather than concatenating.
    if (fn && typeof fn.name === 'string' && fn.name !== '' && slot.name === '') slot.name = fn.name;
    if (fn && typeof fn.arguments === 'string') slot.arguments += fn.arguments;
    // Ollama's native shape: the arguments as an object, whole.
    else if (fn && record(fn.arguments)) slot.arguments += JSON.stringify(fn.arguments);
  }
}

function httpError(status: number, detail: ErrorDetail, attempts: number, ctx: Ctx): BerthError {
  const { origin, req, fail } = ctx;
  const said = detail.message ? ` It said: ${detail.message}` : '';
  if (status === 401 || status === 403) {
    return req.apiKey
      ? fail('provider_auth', `The provider refused the API key for ${origin}.${said}`, "Check the API key, or replace it, in the profile's settings.")
      : fail('provider_auth', `The provider at ${origin} needs an API key, and none is set.${said}`, "Add the provider's API key in the profile's settings.");
  }
  if (status >= 400 && status < 500 && mentionsMissingModel(detail, req.model)) {
    return fail('provider_model', `The provider at ${origin} does not have the model "${req.model}".${said}`, `Check the model name in the profile's settings (for Ollama, pull it first: ollama pull ${req.model}).`);
  }
  if (status === 404) {
    // No word about the model: it may as well be a base URL missing its /v1.
    return fail('provider_model', `The provider at ${origin} answered "not found" for the model "${req.model}".${said}`, `${SETTINGS_HINT} The URL is the API's base, which usually ends in /v1.`);
  }
  if (status >= 300 && status < 400) {
    return fail('provider_failed', `The provider URL ${origin} redirects elsewhere (HTTP ${status}).`, "Put the final URL of the API in the profile's settings.");
  }
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const message = detail.message
    ? `The provider at ${origin} failed${tries} (HTTP ${status}): ${detail.message}`
    : `The provider at ${origin} failed${tries} with HTTP ${status}.`;
  const hint =
    status === 429
      ? 'The provider is limiting requests or the account is out of quota: wait a little, or check the plan and billing.'
      : status >= 500
        ? 'The provider is having trouble. Try again in a moment.'
        : SETTINGS_HINT;
  return fail('provider_failed', message, hint);
}

function mentionsMissingModel(detail: ErrorDetail, model: string): boolean {
  if (/model_not_found|model.?not.?found/i.test(`${detail.code ?? ''} ${detail.type ?? ''}`)) return true;
  const m = detail.message ?? '';
  const missing = /does not exist|not found|unknown|no such|not available|invalid model/i;
  return missing.test(m) && (/\bmodel\b/i.test(m) || (model !== '' && m.includes(model)));
}

const TRANSIENT = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);

// A dropped or timed-out connection may work a moment later; a refused one or an unknown host
// will not, and the user should hear so at once rather than after several backoffs.
function isTransient(err: unknown): boolean {
  const code = errorCode(err);
  return code !== null && TRANSIENT.has(code);
}

function errorCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return null;
}

function unreachable(ctx: Ctx, err: unknown): BerthError {
  const code = errorCode(err) ?? '';
  const reason =
    code === 'ECONNREFUSED' ? 'nothing is listening there'
    : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'that host name was not found'
    : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? 'the connection was reset'
    : /TIMEOUT|ETIMEDOUT/.test(code) ? 'the connection timed out'
    : /CERT|SSL|TLS/i.test(code) ? 'its TLS certificate was not accepted'
    : null;
  return ctx.fail(
    'provider_unreachable',
    `Berth could not reach the provider at ${ctx.origin}${reason ? ` (${reason})` : ''}.`,
    "Check the provider URL in the profile's settings, and that the server is running (for a local model, start it, e.g. ollama serve).",
    // fetch's own refusals (a bad header value) quote the request, key included: never kept.
    err instanceof TypeError && err.cause === undefined ? undefined : err,
  );
}

function streamBroken(ctx: Ctx, what: string): BerthError {
  return ctx.fail('provider_failed', `The provider at ${ctx.origin} ${what}.`, 'Try again; if it keeps happening, the server may not be fully OpenAI-compatible.');
}

function parseJson(text: string, ctx: Ctx): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const obj = record(value);
  if (!obj) throw notOpenAi(ctx);
  return obj;
}

function notOpenAi(ctx: Ctx): BerthError {
  return streamBroken(ctx, 'sent something that is not an OpenAI-compatible answer');
}

function throwIfErrorPayload(body: Record<string, unknown>, ctx: Ctx): void {
  if (body.error === undefined || body.error === null) return;
  throw reportedError(errorDetail(JSON.stringify(body), ctx.scrub), ctx);
}

function reportedError(detail: ErrorDetail, ctx: Ctx): BerthError {
  return ctx.fail('provider_failed', `The provider at ${ctx.origin} reported an error: ${detail.message ?? 'no details given'}`, 'Try again in a moment.');
}

/** The most of one answer (the raw stream or body) Berth reads. */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

function tooLong(ctx: Ctx): BerthError {
  return ctx.fail('provider_failed', `The answer from ${ctx.origin} grew past ${MAX_ANSWER_CHARS / 1024 / 1024} MiB, so Berth stopped reading it.`, 'Ask for something shorter, or try another model.');
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderCancelled());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ProviderCancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function firstChoice(body: Record<string, unknown>): Record<string, unknown> | null {
  return Array.isArray(body.choices) ? record(body.choices[0]) : null;
}
