/**
 * A sandbox's mounts checked twice: every source again right before create and start (recording
 * each folder's device and inode), then, after the start and before anything runs, that each bind
 * inside the container shows those numbers (policy/mountProof.ts).
 */
import fs from 'node:fs';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/engineInterface.js';
import { SANDBOX_HOME } from '../policy/containerSpec.js';
import type { PlannedMount } from '../policy/mountPlan.js';
import { judgeMountProof, mountProofCommand, type ExpectedMount } from '../policy/mountProof.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import { recheckAttachedFolder } from '../workspace/folderValidation.js';
import { recheckReviewCopy } from '../review/reviewMounts.js';
import { recheckSlotFolder } from '../review/slotFolders.js';

/** Checks every mount source again; returns what each must be once mounted. */
export function recheckMounts(req: { mounts: readonly PlannedMount[] }, facts: readonly HostFacts[], dataDir: string): ExpectedMount[] {
  if (req.mounts.length === 0) return [];
  // A Review-mode copy and a warm sandbox's slot folder are Berth's own folders; they are proven after the start like any other.
  const identity = (m: PlannedMount) =>
    m.origin === 'review'
      ? recheckReviewCopy(m.source, dataDir)
      : m.origin === 'slot'
        ? recheckSlotFolder(m.source, dataDir)
        : recheckAttachedFolder(m.source, facts);
  return req.mounts.map((m) => ({ source: m.source, target: m.target, ...identity(m) }));
}

/** The container being proven: where it runs, its home folder, and how the manager hears it went. */
export interface ProofTarget {
  remote: boolean;
  engine(): Engine;
  home(): string;
  /** Tells the key's listeners why its container went (before the removal). */
  gone(reason: string): void;
  /** The container was removed. */
  removed(): void;
}

/**
 * After a start and before anything runs in the container: each bind must be the folder
 * that was checked (policy/mountProof.ts). Otherwise the container goes, with its mounts.
 */
export async function proveMounts(t: ProofTarget, image: string, id: string, user: string, expected: readonly ExpectedMount[]): Promise<void> {
  // On a remote engine nothing local is bound (volumes filled by copy): there is nothing to prove.
  if (expected.length === 0 || t.remote) return;
  const engine = t.engine();
  const home = t.home();
  const homeStat = fs.statSync(home, { bigint: true });
  const control: ExpectedMount = { source: home, target: SANDBOX_HOME, dev: String(homeStat.dev), ino: String(homeStat.ino) };
  const all = [control, ...expected];
  const answer = await engine.execOnce(id, mountProofCommand(all), user);
  const verdict = judgeMountProof(control, expected, answer.exitCode, answer.output);
  if (verdict.ok) return;
  t.gone(
    verdict.kind === 'swapped'
      ? 'The sandbox was removed: a folder attached to it changed while it started.'
      : 'The sandbox was removed: Berth could not prove its folders are the ones attached.',
  );
  await engine.removeContainer(id);
  t.removed();
  if (verdict.kind === 'swapped') {
    throw new BerthError(
      'workspace_changed',
      `The folder "${verdict.mount.source}" was swapped for another while the sandbox started (Docker mounted something else at ${verdict.mount.target}), so Berth removed the sandbox before anything ran in it.`,
      { hint: 'Something on this computer is renaming or replacing that folder. Make sure nothing else changes it (or attach it read-only in other chats), then run the command again.' },
    );
  }
  throw new BerthError(
    'container_failed',
    `Berth could not prove that the sandbox's folders are the ones attached (the image ${image} answered: ${verdict.detail}), so it removed the sandbox before anything ran in it.`,
    { hint: 'Berth needs the stat command in the image (coreutils or busybox, as most images have). Pick such an image in the profile settings or for this chat.' },
  );
}

