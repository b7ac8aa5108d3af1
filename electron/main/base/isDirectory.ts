import fs from 'node:fs';

/** Whether a host path is a folder now (following links); false for anything missing or unreadable. */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
