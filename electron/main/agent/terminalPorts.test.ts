import { describe, expect, it } from 'vitest';
import type { ExecResult } from '../../../shared/contract.js';
import { SandboxTools, type AgentSandbox } from './sandboxTools.js';

const result: ExecResult = { exitCode: 0, output: 'Serving HTTP on 0.0.0.0 port 8000', outputBytes: 34, truncated: false, timedOut: false, cwd: '/workspace', durationMs: 5, notices: [] };

describe('the terminal tool and new ports', () => {
  it('tells the model (and the card) about a port the command opened, and how the user opens it', async () => {
    const sandbox: AgentSandbox = {
      exec: async () => result,
      interrupt: async () => ({}),
      folders: () => [],
      newPorts: async () => '[The sandbox now listens on port 8000. The user can open it in their browser from the chat’s Ports section (Open in browser).]',
    };
    const out = await new SandboxTools(sandbox).terminal({ chatId: 'c', taskId: undefined }, { command: 'python3 -m http.server &' } as never);
    expect(out.resultForModel).toContain('Serving HTTP on 0.0.0.0 port 8000\n[The sandbox now listens on port 8000.');
    expect(out.output).toContain('Ports section');
  });

  it('says nothing more when no port opened, or the check failed', async () => {
    for (const newPorts of [async () => null, async () => Promise.reject(new Error('engine gone'))]) {
      const out = await new SandboxTools({ exec: async () => result, interrupt: async () => ({}), folders: () => [], newPorts }).terminal({ chatId: 'c', taskId: undefined }, { command: 'true' } as never);
      expect(out.output).toBe(result.output);
    }
  });
});
