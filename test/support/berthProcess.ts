/**
 * Berth as its own process (the browser host, web.ts), driven over its JSON-RPC WebSocket as a
 * browser would, so a test can kill it as the system would (SIGKILL) and start it again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RpcClient, connect } from '../../electron/main/host/testClient.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BerthProcess {
  rpc: RpcClient;
  /** A call that must succeed: its result, or an error with the host's message. */
  call<T = unknown>(method: string, params?: unknown): Promise<T>;
  /** SIGKILL, and waits until the process is gone. */
  kill(): Promise<void>;
  stderr(): string;
}

export async function startBerthProcess(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<BerthProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'electron/main/host/web.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: REPO_ROOT,
    // No image preparation at start (a full default image, minutes of debootstrap) unless asked for.
    env: { BERTH_PREPARE_IMAGES: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', resolve);
      void exited.then(() => reject(new Error(`Berth exited before printing its URL:\n${stderr}`)));
    });
    const m = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)$/.exec(line);
    if (!m) throw new Error(`unexpected first line: ${line}`);
    const socket = await connect(`ws://127.0.0.1:${m[1]}/rpc?token=${m[2]}`, { Origin: `http://127.0.0.1:${m[1]}` });
    if (!socket.ok) throw new Error(`the host refused the WebSocket: ${socket.status}`);
    const rpc = new RpcClient(socket.ws);
    let next = 0;
    return {
      rpc,
      async call<T>(method: string, params?: unknown): Promise<T> {
        // The client's own wait is 5 s; on a loaded machine a call may take longer.
        const id = `bp-${next++}`;
        socket.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} }));
        const r = await rpc.waitFor(({ responses }) => responses.find((x) => x.id === id), 60_000);
        if (r.error) throw new Error(`${method}: ${r.error.message}`);
        return r.result as T;
      },
      async kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      },
      stderr: () => stderr,
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
