import { describe, expect, it } from 'vitest';
import type { ExecResult } from '../../../shared/contract.js';
import { NO_OTHER_PROCESS } from './common/portsEpilogue.js';
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

  it('reads the ports in the command’s own run (no second round trip through the shell), and shows none of the reading', async () => {
    const listing = '  sl  local_address rem_address   st\n   0: 00000000:1F40 00000000:0000 0A\n';
    const heard: (string | undefined)[] = [];
    const sandbox = (epilogueRuns: boolean): AgentSandbox => ({
      exec: async (req) => {
        const marker = /'(__berth_ports_[0-9a-f]+)'/.exec(req.command)?.[1] ?? 'none';
        const output = epilogueRuns ? `hi\n\n${marker}\n${listing}${marker}\n` : 'hi\n';
        return { ...result, output, outputBytes: Buffer.byteLength(output) };
      },
      interrupt: async () => ({}),
      folders: () => [],
      newPorts: async (_chatId, read) => {
        heard.push(read);
        return null;
      },
    });
    const out = await new SandboxTools(sandbox(true)).terminal({ chatId: 'c', taskId: undefined }, { command: 'echo hi' } as never);
    expect(heard).toEqual([listing]);
    expect(out.output).toBe('hi\n');
    expect(out.resultForModel).toBe('exit code 0\nhi\n');
    // The command exited by itself before the reading: the ports are read the slower way.
    const exited = await new SandboxTools(sandbox(false)).terminal({ chatId: 'c', taskId: undefined }, { command: 'echo hi; exit 0' } as never);
    expect(heard).toEqual([listing, undefined]);
    expect(exited.output).toBe('hi\n');
  });

  it('asks nothing about ports when no process was left that could listen', async () => {
    let asked = 0;
    const sandbox: AgentSandbox = {
      exec: async (req) => {
        const marker = /'(__berth_ports_[0-9a-f]+)'/.exec(req.command)?.[1] ?? 'none';
        const output = `hi\n\n${marker}\n${NO_OTHER_PROCESS}\n${marker}\n`;
        return { ...result, output, outputBytes: Buffer.byteLength(output) };
      },
      interrupt: async () => ({}),
      folders: () => [],
      newPorts: async () => {
        asked++;
        return '[The sandbox now listens on port 1.]';
      },
    };
    const out = await new SandboxTools(sandbox).terminal({ chatId: 'c', taskId: undefined }, { command: 'echo hi' } as never);
    expect(asked).toBe(0);
    expect(out.resultForModel).toBe('exit code 0\nhi\n');
  });
});

