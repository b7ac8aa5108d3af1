/**
 * The layering table in eslint.config.js, tried for real: every direction it forbids fails
 * lint, every one it allows passes, and the probes that once slipped through lint fail.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let eslint: ESLint;

interface Zone {
  files: string[];
  may: string[];
  packages: string[];
  deny?: string[];
}
// eslint.config.js is plain JavaScript with no types of its own: read its table as data.
const CONFIG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'eslint.config.js');
const zones = ((await import(CONFIG)) as { LAYERS: Record<string, Zone> }).LAYERS;

/** Layering messages for `code` as if it were the file at `file` (repository-relative). */
async function layering(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'local/layering').map((m) => m.message);
}

/** A source file that belongs to the zone (a new file in a folder zone, the file itself otherwise). */
function fileIn(zone: Zone): string {
  const first = zone.files[0]!;
  if (first.endsWith('/')) return `${first}probe.${first.startsWith('renderer/') ? 'tsx' : 'ts'}`;
  return `${first}.${first.startsWith('renderer/') ? 'tsx' : 'ts'}`;
}

/** A relative import from `from` to a module of `to`. */
function importOf(from: Zone, to: Zone): string {
  const target = to.files[0]!.endsWith('/') ? `${to.files[0]}target.js` : `${to.files[0]}.js`;
  const rel = path.posix.relative(path.posix.dirname(fileIn(from)), target);
  return `import '${rel.startsWith('.') ? rel : `./${rel}`}';\n`;
}

beforeAll(async () => {
  eslint = new ESLint({ cwd: ROOT });
  await eslint.lintText('', { filePath: path.join(ROOT, 'shared/probe.ts') }); // loads the parser and config once
}, 60_000);

describe('the layering table', () => {
  const names = Object.keys(zones);

  it('fails lint for every direction it does not allow, and passes every one it does', async () => {
    const wrong: string[] = [];
    // One probe file per zone, importing every other zone on its own line (fast: one lint each).
    for (const from of names) {
      const targets = names.filter((to) => to !== from);
      const code = targets.map((to) => importOf(zones[from]!, zones[to]!)).join('');
      const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, fileIn(zones[from]!)) });
      const failedLines = new Set((result?.messages ?? []).filter((m) => m.ruleId === 'local/layering').map((m) => m.line));
      targets.forEach((to, i) => {
        const allowed = zones[from]!.may.includes(to);
        if (allowed === failedLines.has(i + 1)) wrong.push(`${from} -> ${to}: ${allowed ? 'allowed but failed' : 'forbidden but passed'}`);
      });
    }
    expect(wrong).toEqual([]);
  }, 30_000); // a few seconds here; the machine may be busy

  it('has no cycle between the folders of electron/main', () => {
    const main = names.filter((n) => n.startsWith('main/'));
    const seen = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (n: string, trail: string[]) => {
      if (seen.get(n) === 'done') return;
      if (seen.get(n) === 'open') return void cycles.push([...trail, n].join(' -> '));
      seen.set(n, 'open');
      for (const m of zones[n]!.may.filter((z) => main.includes(z))) visit(m, [...trail, n]);
      seen.set(n, 'done');
    };
    for (const n of main) visit(n, []);
    expect(cycles).toEqual([]);
  });
});

describe('the imports that once passed lint now fail it', () => {
  it.each([
    ['electron/main/policy/probe.ts', "import { AgentService } from '../agent/agentService.js';"],
    ['electron/main/policy/probe.ts', "import { createCore } from '../core.js';"],
    ['electron/main/policy/probe.ts', "import fs from 'node:fs';"],
    ['electron/main/store/probe.ts', "import { SandboxContainers } from '../sandbox/sandboxContainers.js';"],
    ['electron/main/store/probe.ts', "import { createHostServer } from '../host/server.js';"],
    ['electron/main/engine/probe.ts', "import { SessionService } from '../sessions/sessionService.js';"],
    ['electron/main/sandbox/probe.ts', "import '../index.js';"],
    ['electron/main/sandbox/probe.ts', "import Docker from 'dockerode';"],
    ['electron/main/sandbox/probe.ts', "import Docker from 'dockerode/lib/docker';"],
    ['electron/main/workspace/probe.ts', "import type { Clock } from '../sandbox/clock.js';"],
    ['electron/main/sessions/probe.ts', "import { WorkspaceService } from '../workspace/workspaceService.js';"],
    ['shared/probe.ts', "import fs from 'fs';"],
    ['shared/probe.ts', "import fs from 'node:fs';"],
    ['electron/main/core.ts', "import { readFileSync } from 'fs';"],
    ['electron/main/core.ts', "import { ipcMain } from 'electron';"],
    ['electron/preload/bridge.ts', "import { createCore } from '../main/core.js';"],
    ['renderer/features/chat/Probe.tsx', "import { createCore } from '../../../electron/main/core.js';"],
    ['renderer/features/chat/Probe.tsx', "import { ipcRenderer } from 'electron';"],
    ['renderer/stores/probe.ts', "import { useServices } from '../services/context';"],
    // A feature never imports the app that composes it, nor the services context anything above it.
    ['renderer/features/chat/Probe.tsx', "import { App } from '../../app/App';"],
    ['renderer/services/probe.tsx', "import { TerminalArea } from '../features/terminals/TerminalArea';"],
    // From outside a feature, only its index: not a file inside it.
    ['renderer/features/chat/Probe.tsx', "import { FileDiff } from '../changes/FileDiff';"],
    ['renderer/app/probe.tsx', "import { Sidebar } from '../features/sidebar/Sidebar';"],
    ['renderer/api/probe.ts', "import { z } from 'zod/v4/core';"],
  ])('%s: %s', async (file, code) => {
    expect(await layering(file, code)).not.toEqual([]);
  });

  it('refuses I/O in any feature\'s common/ folder (decisions only, keyed on the folder name) and passes its pure imports', async () => {
    for (const file of ['electron/main/ports/common/probe.ts', 'electron/main/sandbox/common/probe.ts', 'electron/main/review/common/probe.ts']) {
      expect(await layering(file, "import fs from 'node:fs';")).not.toEqual([]);
      expect(await layering(file, "import { git } from '../../review/git.js';")).not.toEqual([]);
      expect(await layering(file, "import { Engine } from '../../engine/dockerEngine.js';")).not.toEqual([]);
      expect(await layering(file, "import path from 'node:path';\nimport { LABEL } from '../../policy/containerSpec.js';\nimport { BerthError } from '../../../../shared/errors.js';")).toEqual([]);
    }
    // The same import from the feature's own folder, outside common/, stays allowed.
    expect(await layering('electron/main/sandbox/probe.ts', "import fs from 'node:fs';")).toEqual([]);
  });

  it("refuses the API in a feature's component, and lets its actions module hold it", async () => {
    const rule = async (file: string, code: string) =>
      ((await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0]?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
    const component = "import { useServices } from '../../services/context';\nexport function Probe() {\n  const { api } = useServices();\n  void api.call('chats.list', {});\n  return null;\n}\n";
    expect(await rule('renderer/features/chat/Probe.tsx', component)).toEqual([expect.stringMatching(/feature's actions/)]);
    expect(await rule('renderer/features/chat/probe.ts', "import { useServices } from '../../services/context';\nexport const probe = () => useServices().api;\n")).toEqual([expect.stringMatching(/feature's actions/)]);
    expect(await rule('renderer/features/chat/actions.ts', "import type { BerthApi } from '../../api/types';\nexport const probeActions = (api: BerthApi) => ({ list: () => api.call('chats.list', {}) });\n")).toEqual([]);
  });

  it('passes the same files importing what they may', async () => {
    expect(await layering('electron/main/sandbox/probe.ts', "import type { Clock } from '../base/clock.js';\nimport fs from 'node:fs';")).toEqual([]);
    expect(await layering('electron/main/engine/probe.ts', "import Docker from 'dockerode';")).toEqual([]);
    expect(await layering('renderer/stores/probe.ts', "import { createStore } from 'zustand/vanilla';\nimport type { BerthApi } from '../api/types';")).toEqual([]);
    expect(await layering('renderer/features/chat/Probe.tsx', "import { useServices } from '../../services/context';")).toEqual([]);
    expect(await layering('renderer/features/chat/Probe.tsx', "import { FileDiff } from '../changes';\nimport { SandboxUse } from './SandboxUse';")).toEqual([]);
  });
});
