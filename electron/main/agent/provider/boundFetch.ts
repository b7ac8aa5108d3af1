/**
 * The fetch the OpenAI SDK is given: the only door from the SDK to the network. It holds the
 * key (the SDK is given a placeholder), sends it to the profile's provider origin only, follows
 * no redirect, sends only the headers named here (not the SDK's platform headers, nor headers
 * the SDK takes from OPENAI_* environment variables), and hands the SDK the provider's answer
 * already bounded: the body capped, an error body reduced to its OpenAI-style message (or
 * nothing), the event stream cut at [DONE].
 */
import { cappedBody, eventStreamGuard, type AnswerGuard } from './answerStream.js';
import { errorDetail } from './providerErrors.js';

export interface BoundFetchOptions {
  /** The profile's provider origin; a request anywhere else is refused before it is made. */
  origin: string;
  apiKey: string | null;
  scrub: (text: string) => string;
  /** The most bytes of one answer read. */
  maxAnswerBytes: number;
  tooLong: () => Error;
  /** Thrown (the SDK passes it on as a connection error's cause) for a request to another origin. */
  refused: (url: string) => Error;
}

export interface BoundFetch {
  fetch: typeof fetch;
  /** Whether the event stream of this answer (one the fetch returned) ended with [DONE]. */
  sawDone(res: Response): boolean;
}

const ERROR_BODY_MAX = 64 * 1024;
// Statuses whose Response may not have a body.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A provider that ignores stream:true answers with one JSON body; anything else is read as SSE. */
export function isJsonAnswer(res: Response): boolean {
  const type = res.headers.get('content-type') ?? '';
  return /json/i.test(type) && !/event-stream/i.test(type);
}

export function boundFetch(opts: BoundFetchOptions): BoundFetch {
  const guards = new WeakMap<Response, AnswerGuard>();
  const boundFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.origin !== opts.origin) throw opts.refused(url.origin);
    const sdkHeaders = new Headers(init?.headers);
    const headers = new Headers({ 'content-type': 'application/json', accept: 'text/event-stream, application/json' });
    const agent = sdkHeaders.get('user-agent');
    if (agent) headers.set('user-agent', agent);
    if (opts.apiKey) headers.set('authorization', `Bearer ${opts.apiKey}`);
    // Redirects are not followed: a POST would turn into a GET, and the key must go to this origin only.
    const res = await fetch(url, { method: init?.method ?? 'POST', headers, body: init?.body, signal: init?.signal, redirect: 'manual' });

    const outHeaders = new Headers(res.headers);
    // The body handed on is not the one these described.
    outHeaders.delete('content-length');
    outHeaders.delete('content-encoding');
    const reply = (body: ConstructorParameters<typeof Response>[0]) => new Response(NULL_BODY.has(res.status) ? null : body, { status: res.status, statusText: res.statusText, headers: outHeaders });

    if (!res.ok) {
      // Only an OpenAI-style error's message, scrubbed, goes on: a provider URL may point at any
      // service on this computer, and its answers must not become readable through Berth.
      const detail = errorDetail(await readLimited(res, ERROR_BODY_MAX, init?.signal), opts.scrub);
      return reply(detail.message === null ? null : JSON.stringify({ error: detail }));
    }
    if (!res.body) return reply(null);
    if (isJsonAnswer(res)) return reply(res.body.pipeThrough(cappedBody({ maxBytes: opts.maxAnswerBytes, tooLong: opts.tooLong })));
    const guard = eventStreamGuard({ maxBytes: opts.maxAnswerBytes, tooLong: opts.tooLong });
    const out = reply(res.body.pipeThrough(guard.stream));
    guards.set(out, guard);
    return out;
  };
  return { fetch: boundFetch as typeof fetch, sawDone: (res) => guards.get(res)?.sawDone ?? false };
}

async function readLimited(res: Response, limit: number, signal: AbortSignal | null | undefined): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < limit) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    // A body cut short still says something; keep what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  return text;
}
