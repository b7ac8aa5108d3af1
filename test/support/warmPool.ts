/** A chat that took a warm sandbox of its profile's pool (profile setting warmPool), for integration tests. */
import { expect } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { LABEL } from '../../electron/main/policy/containerSpec.js';
import { docker } from './docker.js';
import { waitFor } from './waitFor.js';

export async function containersOf(core: BerthCore, profile: string): Promise<{ id: string; chat: string }[]> {
  const out = await docker('ps', '-a', '--filter', `label=${LABEL.instance}=${core.instanceId}`, '--filter', `label=${LABEL.profile}=${profile}`,
    '--format', `{{.ID}} {{.Label "${LABEL.chat}"}}`);
  return out.split('\n').filter(Boolean).map((l) => {
    const [id, chat] = l.split(' ');
    return { id: id as string, chat: chat ?? '' };
  });
}

/** Waits for the profile's warm sandbox, then makes a chat that takes it. */
export async function pooledChat(core: BerthCore, profile: string) {
  const chats = new Set((await core.chats.list({})).chats.map((c) => c.id));
  await waitFor(async () => (await containersOf(core, profile)).some((c) => c.chat && !chats.has(c.chat)), 'a warm sandbox', 60_000);
  const warm = new Set((await containersOf(core, profile)).map((c) => c.chat));
  const chat = await core.chats.create({ profile });
  expect(warm.has(chat.id), 'the chat took a warm sandbox').toBe(true);
  // A chat may take a warm sandbox still coming up (its container made, not yet started): its
  // status names the container once that bring-up is done.
  const containerId = await waitFor(async () => (await core.sandbox.status({ chatId: chat.id })).containerId ?? undefined, 'the warm sandbox up', 60_000);
  return { chat, containerId };
}
