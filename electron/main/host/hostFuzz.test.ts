// A bounded fuzz of the browser host: random and malformed JSON-RPC frames over a real WebSocket
// to the host running as its own process (`web.ts`), as a hostile page would send them. Each
// frame must get an answer or a closed socket, the process must stay up without logging an
// internal error, and the chats and profiles must be exactly what they were.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods } from '../../../shared/contract.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Methods that only read: any params may go to them. The rest get only params that cannot be valid. */
const READ_ONLY = new Set([
  'profiles.list', 'chats.list', 'sandbox.status', 'engine.status', 'terminal.list', 'terminal.replay',
  'terminal.ack', 'agent.history', 'agent.keyStatus', 'workspace.browse',
]);
const METHODS = Object.keys(methods) as (keyof typeof methods)[];
/** Methods whose request schema refuses unknown keys: an object with `__fuzz` can never be valid for them. */
const STRICT = new Set<string>(METHODS.filter((m) => methods[m].request.safeParse({ __fuzz: 1 }).error?.issues.some((i) => i.code === 'unrecognized_keys')));

let tmp: string;
let child: ChildProcess;
let stderr = '';
let rpcUrl: string;
let origin: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fuzz-'));
  child = spawn(process.execPath, ['--import', 'tsx', 'electron/main/host/web.ts', '--port', '0', '--data-dir', path.join(tmp, 'data')], {
    cwd: REPO_ROOT,
    // No engine: the fuzz is about the host and the contract, and must leave nothing on Docker.
    env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the host exited (${code}) before printing its URL:\n${stderr}`)));
  });
  const m = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)$/.exec(line);
  if (!m) throw new Error(`unexpected first line: ${line}`);
  origin = `http://127.0.0.1:${m[1]}`;
  rpcUrl = `ws://127.0.0.1:${m[1]}/rpc?token=${m[2]}`;
}, 60_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(rpcUrl, { headers: { Origin: origin } });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Sends one frame, then a probe call; resolves 'answered' when the probe is answered, 'closed' if the host closed the socket. */
function sendAndProbe(ws: WebSocket, frame: string | Buffer, binary: boolean, probeId: string): Promise<'answered' | 'closed'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer and no close within 10 s after frame ${JSON.stringify(String(frame).slice(0, 200))}`)), 10_000);
    const done = (how: 'answered' | 'closed') => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', onClose);
      resolve(how);
    };
    const onMessage = (data: Buffer) => {
      let msg: { id?: unknown; error?: { code: number; data?: { code?: string } } };
      try {
        msg = JSON.parse(data.toString('utf8')) as typeof msg;
      } catch {
        clearTimeout(timer);
        reject(new Error(`the host sent something that is not JSON: ${data.toString('utf8').slice(0, 200)}`));
        return;
      }
      if (msg.error?.data?.code === 'internal') {
        clearTimeout(timer);
        reject(new Error(`an internal error for frame ${JSON.stringify(String(frame).slice(0, 200))}`));
        return;
      }
      if (msg.id === probeId) done('answered');
    };
    const onClose = () => done('closed');
    ws.on('message', onMessage);
    ws.once('close', onClose);
    ws.send(frame, { binary }, () => undefined);
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ jsonrpc: '2.0', id: probeId, method: 'profiles.list' }), () => undefined);
  });
}

async function state(): Promise<string> {
  const ws = await open();
  const ask = (method: string) =>
    new Promise<unknown>((resolve) => {
      const id = `${method}-state`;
      const on = (d: Buffer) => {
        const msg = JSON.parse(d.toString('utf8')) as { id?: string; result?: unknown };
        if (msg.id === id) {
          ws.off('message', on);
          resolve(msg.result);
        }
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: {} }));
    });
  const snapshot = JSON.stringify([await ask('profiles.list'), await ask('chats.list')]);
  ws.close();
  return snapshot;
}

const json = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), json);
const method = fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 20 }), json);
const frame: fc.Arbitrary<{ data: string | Buffer; binary: boolean }> = fc.oneof(
  // Not JSON, or not a request: random text and random JSON values.
  fc.string({ maxLength: 200, unit: 'binary' }).map((s) => ({ data: s, binary: false })),
  json.map((v) => ({ data: JSON.stringify(v), binary: false })),
  // Request-shaped: any jsonrpc, id, method and params; a state-changing method never gets valid params.
  fc
    .record({ jsonrpc: fc.oneof(fc.constant('2.0'), json), id, method, params: fc.oneof(json, fc.dictionary(fc.string({ maxLength: 10 }), json)) }, { requiredKeys: ['method'] })
    .map((r) => {
      const m = r.method;
      if (typeof m === 'string' && m in methods && !READ_ONLY.has(m)) {
        const p = r.params;
        r.params = p !== null && typeof p === 'object' && !Array.isArray(p) ? (STRICT.has(m) ? { ...p, __fuzz: true } : [p]) : (p ?? []);
      }
      return { data: JSON.stringify(r), binary: false };
    }),
  // Batches, binary frames, invalid UTF-8, very deep nesting, an empty frame.
  fc.array(json, { maxLength: 3 }).map((a) => ({ data: JSON.stringify(a.map((p) => ({ jsonrpc: '2.0', id: 1, method: 'chats.delete', params: p }))), binary: false })),
  fc.uint8Array({ maxLength: 64 }).map((a) => ({ data: Buffer.from(a), binary: true })),
  fc.constant({ data: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), binary: false }),
  fc.constant({ data: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, binary: false }),
  fc.constant({ data: `{"jsonrpc":"2.0","id":1,"method":"chats.list","params":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, binary: false }),
  fc.constant({ data: '', binary: false }),
);

describe('the browser host under random and malformed JSON-RPC frames', () => {
  it('answers or closes every frame, stays up, logs no internal error, and changes nothing', async () => {
    // Something to lose: a chat made the normal way before the fuzz.
    const ws0 = await open();
    await sendAndProbe(ws0, JSON.stringify({ jsonrpc: '2.0', id: 'mk', method: 'chats.create', params: { title: 'before the fuzz' } }), false, 'p0');
    ws0.close();
    const before = await state();
    expect(before).toContain('before the fuzz');

    let ws = await open();
    let n = 0;
    let closes = 0;
    await fc.assert(
      fc.asyncProperty(frame, async (f) => {
        if (ws.readyState !== WebSocket.OPEN) ws = await open();
        const how = await sendAndProbe(ws, f.data, f.binary, `probe-${n++}`);
        if (how === 'closed') closes++;
      }),
      { numRuns: 300 },
    );
    ws.close();

    expect(child.exitCode, stderr).toBeNull();
    expect(stderr).not.toMatch(/failed:|Error:|Berth failed/);
    expect(await state()).toBe(before);
    // The frames that close a socket are the ones the WebSocket layer itself refuses (invalid UTF-8).
    expect(closes).toBeLessThan(n);
  }, 120_000);
});
