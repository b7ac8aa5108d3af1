/**
 * The project environments' images a test makes (labelled berth.env.key: built bases and
 * prepared images): noted before it runs, and every newer one removed after it.
 */
import Docker from 'dockerode';
import { afterAll, beforeAll } from 'vitest';
import { engineSocket } from './docker.js';

export const engineApi = new Docker({ socketPath: engineSocket() });

export async function environmentImageIds(): Promise<Set<string>> {
  return new Set((await engineApi.listImages({ filters: JSON.stringify({ label: ['berth.env.key'] }) })).map((i) => i.Id));
}

/** Removes every environment image that was not there in `before`. */
export async function removeNewEnvironmentImages(before: ReadonlySet<string>): Promise<void> {
  for (const id of await environmentImageIds()) if (!before.has(id)) await engineApi.getImage(id).remove({ force: true }).catch(() => undefined);
}

/**
 * Registers, in the test file that calls it (before its own hooks, so its clean-up of chats runs
 * first), the note of the environment images there before it and the removal of every newer one after.
 */
export function removesItsEnvironmentImages(): void {
  let before: ReadonlySet<string> = new Set();
  beforeAll(async () => {
    before = await environmentImageIds();
  });
  afterAll(() => removeNewEnvironmentImages(before), 120_000);
}
