/**
 * The provider's model list (GET /v1/models): the ids a chat can pick from, and each model's
 * context window where the provider states one. Through boundFetch like every request (the key
 * to the provider's origin only, no redirects, the answer capped); only ids and numbers out of
 * an OpenAI-shaped list are kept, since a provider URL may point at any service on this computer.
 */
import { BerthError } from '../../../../shared/errors.js';
import { boundFetch } from './boundFetch.js';
import { providerUrl } from './openaiClient.js';
import { record, scrubber } from './providerErrors.js';

export interface ProviderModel {
  id: string;
  /** Tokens, when the provider says: OpenRouter's context_length, Groq's context_window, vLLM's max_model_len. */
  contextWindow: number | null;
}

const MAX_LIST_BYTES = 2 * 1024 * 1024;
const MAX_MODELS = 1000;
const WINDOW_FIELDS = ['context_length', 'context_window', 'max_model_len', 'max_context_length'] as const;

export async function listModels(req: { baseUrl: string; apiKey: string | null; signal?: AbortSignal }): Promise<ProviderModel[]> {
  const scrub = scrubber(req.apiKey);
  const fail = (message: string, hint: string, cause?: unknown) => new BerthError('provider_failed', scrub(message), { hint: scrub(hint), cause });
  const { base, origin } = providerUrl(req.baseUrl, (code, message, hint, cause) => new BerthError(code, scrub(message), { hint: scrub(hint), cause }));
  const door = boundFetch({
    origin,
    apiKey: req.apiKey,
    scrub,
    maxAnswerBytes: MAX_LIST_BYTES,
    tooLong: () => fail(`${origin} answered with a model list over ${MAX_LIST_BYTES} bytes.`, 'Type the model name instead.'),
    refused: (other) => fail(`Berth refused to send the request for ${origin} to ${other}.`, "Check the provider URL in the profile's settings."),
  });
  let text: string;
  let status: number;
  try {
    const res = await door.fetch(`${base}/models`, { method: 'GET', signal: req.signal ?? AbortSignal.timeout(15_000) });
    status = res.status;
    text = await res.text();
  } catch (error) {
    if (error instanceof BerthError) throw error;
    throw fail(`Berth could not reach ${origin} to list its models.`, 'Check that the provider is running, or type the model name instead.', error);
  }
  if (status < 200 || status >= 300) throw fail(`${origin} answered HTTP ${status} when asked for its models.`, 'Type the model name instead.');
  return parseModelList(text);
}

/** The ids and context windows out of an OpenAI-style list ({data:[{id,…}]}); anything else is an empty list. */
export function parseModelList(text: string): ProviderModel[] {
  let body: Record<string, unknown> | null;
  try {
    body = record(JSON.parse(text));
  } catch {
    return [];
  }
  const data = Array.isArray(body?.data) ? body.data : [];
  const out: ProviderModel[] = [];
  for (const item of data.slice(0, MAX_MODELS)) {
    const m = record(item);
    if (!m || typeof m.id !== 'string' || m.id === '' || m.id.length > 256) continue;
    const stated = WINDOW_FIELDS.map((f) => m[f]).find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1024);
    out.push({ id: m.id, contextWindow: stated ?? null });
  }
  return out;
}
