/** What a provider's error says, read so that nothing but an OpenAI-style message is ever shown. */

export interface ErrorDetail {
  message: string | null;
  code: string | null;
  type: string | null;
}

const DETAIL_MAX = 300;
export const NO_DETAIL: ErrorDetail = { message: null, code: null, type: null };

/**
 * The server's own words, only when its answer is an OpenAI-style error: {error:{message,code,
 * type}} (OpenAI, Ollama's /v1, llama.cpp, LM Studio) or vLLM's {object:"error",message}.
 * Anything else is not shown: a provider URL may point at any service on this computer, and
 * its answers must not become readable through Berth's error messages.
 */
export function errorDetail(text: string, scrub: (s: string) => string): ErrorDetail {
  let body: Record<string, unknown> | null;
  try {
    body = record(JSON.parse(text));
  } catch {
    body = null;
  }
  return detailOf(record(body?.error) ?? (body?.object === 'error' ? body : null), scrub);
}

/** The same, for an error object already parsed (what the SDK hands back). */
export function detailOf(err: Record<string, unknown> | null, scrub: (s: string) => string): ErrorDetail {
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
  const raw = typeof err?.message === 'string' ? err.message : null;
  if (raw === null) return NO_DETAIL;
  return {
    message: truncate(scrub(oneLine(raw)), DETAIL_MAX),
    code: str(err?.code),
    type: str(err?.type),
  };
}

export function scrubber(apiKey: string | null): (text: string) => string {
  if (!apiKey) return (text) => text;
  // Also the JSON-escaped form, in case a raw body is shown.
  const forms = [...new Set([apiKey, JSON.stringify(apiKey).slice(1, -1)])];
  return (text) => forms.reduce((t, form) => t.split(form).join('[redacted]'), text);
}

export function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
