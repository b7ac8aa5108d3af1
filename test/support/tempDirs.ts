/** Test support: temp folders that are removed after each test. Not used by the app. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthError } from '../../shared/errors.js';

export class TempDirs {
  private readonly dirs: string[] = [];

  /** A new empty folder under the OS temp dir, with its real path (no symlinks in it). */
  make(prefix = 'berth-test-'): string {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    this.dirs.push(dir);
    return dir;
  }

  removeAll(): void {
    for (const dir of this.dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs fn and returns the BerthError it throws; fails when it throws nothing or something else. */
export function berthErrorOf(fn: () => unknown): BerthError {
  try {
    fn();
  } catch (error) {
    if (error instanceof BerthError) return error;
    throw error;
  }
  throw new Error('expected a BerthError');
}

/**
 * How a promise settles, as a BerthError's code: 'resolved' when it does not reject, and
 * 'not a BerthError: …' when a raw error escaped (what the engine module must never let out).
 */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof BerthError ? error.code : `not a BerthError: ${String(error)}`;
  }
  return 'resolved';
}
