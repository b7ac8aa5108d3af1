/** Docker object names derived from user-chosen names. Pure. */
import { createHash } from 'node:crypto';
import { BerthError } from '../../../shared/errors.js';

function slug(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_.]+|[-_.]+$/g, '');
}

export function shortHash(value: string, length = 10): string {
  return createHash('sha256').update(value).digest('hex').slice(0, length);
}

/** `berth-<profile>`: "a b/c" becomes "berth-a-b-c". */
export function networkNameFor(profile: string): string {
  const s = slug(profile).slice(0, 48);
  if (!s) {
    throw new BerthError(
      'invalid_request',
      `The profile name "${profile}" has no letters or digits to name its Docker network with.`,
      { hint: 'Use a name with at least one letter or digit.' },
    );
  }
  return `berth-${s}`;
}

/**
 * A container name that is valid for Docker, readable, and unique per instance and key even
 * when two keys slug to the same text.
 */
export function containerNameFor(instanceId: string, key: string): string {
  const readable = slug(key.replace(/^profile:/, '')).slice(0, 40) || 'sandbox';
  return `berth-${instanceId.slice(0, 8)}-${readable}-${shortHash(key, 8)}`;
}

/** A folder name for a key under the data directory. */
export function folderNameFor(key: string): string {
  return `${slug(key).slice(0, 40) || 'key'}-${shortHash(key, 12)}`;
}
