/** Asks each container once what runs in the given terminals (terminal/common/terminalProcesses decides what the answer means). */
import type { SandboxContainers } from '../sandbox/sandboxContainers.js';
import { PROCESS_LIST_SCRIPT, parseProcessList } from './common/terminalProcesses.js';

export interface RunningShell {
  terminalId: string;
  key: string;
  containerId: string;
  user: string;
}

/** What runs in each of these terminals (by terminal id); null when a container could not be asked. */
export async function processesIn(manager: SandboxContainers, running: readonly RunningShell[]): Promise<Map<string, string[]> | null> {
  const found = new Map<string, string[]>();
  let unknown = false;
  for (const containerId of new Set(running.map((t) => t.containerId))) {
    const holder = running.find((t) => t.containerId === containerId);
    const answer = await Promise.resolve()
      .then(() => manager.engineOf(holder?.key ?? '').execOnce(containerId, ['/bin/sh', '-c', PROCESS_LIST_SCRIPT], holder?.user ?? ''))
      .catch(() => null);
    if (!answer) unknown = true;
    for (const p of parseProcessList(answer?.output ?? '')) found.set(p.terminalId, [...(found.get(p.terminalId) ?? []), p.command]);
  }
  return unknown ? null : found;
}
