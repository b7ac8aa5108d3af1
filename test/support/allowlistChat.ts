/**
 * One chat of an allowlist profile behind the real proxy, on a pretend internet of the test's
 * own (its web server also answering `moreHosts`): a test file's beforeAll. The caller stops
 * `inet` after `h.cleanup()`.
 */
import type { BerthCore } from '../../electron/main/core.js';
import type { Harness } from './harness.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from './pretendInternet.js';

export interface AllowlistChat {
  inet: PretendInternet;
  core: BerthCore;
  profile: string;
  chatId: string;
  /** A command in the chat's sandbox; its output. */
  run(command: string): Promise<string>;
}

export async function allowlistChat(h: Harness, egressAllow: string[], moreHosts: readonly string[] = []): Promise<AllowlistChat> {
  const inet = await startPretendInternet(moreHosts);
  const core = h.core({ egress: { outsideNetwork: inet.network } });
  const profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow })).name;
  const chatId = (await core.chats.create({ profile })).id;
  const run = async (command: string) => (await core.sandbox.exec({ chatId, command, timeoutMs: 60_000 })).output;
  return { inet, core, profile, chatId, run };
}
