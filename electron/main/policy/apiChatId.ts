/**
 * Which chat an OpenAI-compatible API request continues. A client's session header names it;
 * without one, a fingerprint of the conversation's opening (system messages and the first user
 * message) does, so each later request of the same conversation lands in the same chat.
 * Ids are namespaced by profile only for named profiles: the default profile's ids stay
 * exactly what they were, so conversations clients already have keep their chat and container.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_PROFILE } from '../../../shared/contract.js';

export interface ApiMessage {
  role: string;
  content: unknown;
}

const MAX_SESSION_ID = 200;

/** Text of a message's content, whether a string or OpenAI's array of parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text ?? '') : ''))
      .join('');
  }
  return '';
}

/** The raw id, before any profile namespace; null when the header is unusable. */
export function rawApiChatId(sessionHeader: string | null, messages: readonly ApiMessage[]): string | null {
  if (sessionHeader !== null) {
    const id = sessionHeader.trim();
    // eslint-disable-next-line no-control-regex
    if (id.length === 0 || id.length > MAX_SESSION_ID || /[\u0000-\u001f\u007f]/.test(id)) return null;
    return id;
  }
  const firstUser = messages.findIndex((m) => m.role === 'user');
  if (firstUser < 0) return null;
  const opening = messages.slice(0, firstUser + 1).filter((m) => m.role === 'system' || m.role === 'developer' || m.role === 'user');
  const hash = createHash('sha256');
  for (const m of opening) hash.update(`${m.role}\u0000${contentText(m.content)}\u0000`);
  return `conv-${hash.digest('hex').slice(0, 32)}`;
}

const NAMESPACE = 'profile:';
/** Chat ids are at most this long (the contract's ChatId). */
export const MAX_CHAT_ID = 256;

/** The chat id, or null when the raw id may not be used in this profile. */
export function apiChatId(profile: string, rawId: string): string | null {
  // A default-profile id shaped like a named profile's would take that chat's place.
  if (profile === DEFAULT_PROFILE) return rawId.startsWith(NAMESPACE) ? null : rawId;
  const prefix = `${NAMESPACE}${encodeURIComponent(profile)}:`;
  const id = `${prefix}${rawId}`;
  if (id.length <= MAX_CHAT_ID) return id;
  // Too long for a chat id: a digest of both keeps it within bounds, one per profile and raw id.
  // `profile::` cannot come from a name (never empty), nor from the default profile (refused above).
  return `${NAMESPACE}:sha256:${createHash('sha256').update(`${profile}\u0000${rawId}`, 'utf8').digest('hex')}`;
}
