/** The live count of a chat's changed files, per copy, and the `review.changed` event when it or its version moves. */
import { createHash } from 'node:crypto';
import type { EventHub } from '../events.js';

export class ChangeCounts {
  private readonly counts = new Map<string, number>();
  private readonly versions = new Map<string, string>();

  constructor(private readonly events: EventHub) {}

  set(chatId: string, hostPath: string, n: number, version: string): void {
    const key = `${chatId}\0${hostPath}`;
    const before = this.summary(chatId);
    this.counts.set(key, n);
    this.versions.set(key, version);
    const after = this.summary(chatId);
    // The version too: a file changed again leaves the count as it was, and the panel must still follow.
    if (before.count !== after.count || before.version !== after.version) this.events.emit('review.changed', { chatId, ...after });
  }

  forget(chatId: string, hostPath: string): void {
    this.counts.delete(`${chatId}\0${hostPath}`);
    this.versions.delete(`${chatId}\0${hostPath}`);
  }

  total(chatId: string): number {
    return this.summary(chatId).count;
  }

  /** The chat's count of changed files and a version that changes whenever any of its copies' changes do. */
  private summary(chatId: string): { count: number; version: string } {
    let count = 0;
    const parts: string[] = [];
    for (const [k, v] of this.counts) {
      if (!k.startsWith(`${chatId}\0`)) continue;
      count += v;
      parts.push(`${k}\0${this.versions.get(k) ?? ''}`);
    }
    return { count, version: createHash('sha256').update(parts.sort().join('\n')).digest('hex').slice(0, 16) };
  }

  /** The last known count of changed files of one copy (undefined before the first look). */
  known(chatId: string, hostPath: string): number | undefined {
    return this.counts.get(`${chatId}\0${hostPath}`);
  }
}
