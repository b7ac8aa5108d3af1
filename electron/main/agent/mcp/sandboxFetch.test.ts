import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxFetch } from './sandboxFetch.js';

/** A stand-in for the sandbox's egress proxy on 127.0.0.1: answers each connection's first head with `answer`. */
async function fakeProxy(answer: (head: string) => string): Promise<{ port: number; heads: string[]; close(): void }> {
  const heads: string[] = [];
  const server = net.createServer((socket) => {
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      heads.push(buf.slice(0, end));
      socket.end(answer(buf.slice(0, end)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, heads, close: () => server.close() };
}

let closeAll: (() => void)[] = [];
afterEach(() => {
  for (const c of closeAll) c();
  closeAll = [];
});

describe('the HTTP MCP client’s fetch, through connections the sandbox opens', () => {
  it('under an allowlist sends plain HTTP to the proxy as an absolute URI, and reads the answer', async () => {
    const proxy = await fakeProxy(() => 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"ok":true}');
    closeAll.push(proxy.close);
    const asked: string[] = [];
    const f = sandboxFetch('allowlist', async (host, port) => {
      asked.push(`${host}:${port}`);
      return net.connect(proxy.port, '127.0.0.1');
    });
    closeAll.push(f.close);
    const res = await f.fetch('http://mcp.test/mcp', { method: 'POST', body: '{"x":1}', headers: { 'content-type': 'application/json' } });
    expect(await res.json()).toEqual({ ok: true });
    expect(asked).toEqual(['berth-egress-proxy:3130']);
    expect(proxy.heads[0]).toMatch(/^POST http:\/\/mcp\.test\/mcp HTTP\/1\.1\r\n/);
    expect(proxy.heads[0]).toMatch(/\r\nhost: mcp\.test\r\n/i);
    expect(proxy.heads[0]).toMatch(/\r\ncontent-length: 7(\r\n|$)/i);
  });

  it("fails with the proxy's own sentence when it refuses, over plain HTTP and for an HTTPS tunnel", async () => {
    const sentence = "Berth's egress proxy refused mcp.test:443: it is not on the allowlist of profile \"p\".";
    const proxy = await fakeProxy((head) =>
      head.startsWith('CONNECT ')
        ? `HTTP/1.1 403 Forbidden\r\nX-Berth-Refused: not-listed\r\nContent-Length: ${sentence.length + 1}\r\n\r\n${sentence}\n`
        : `HTTP/1.1 403 Forbidden\r\nX-Berth-Refused: not-listed\r\nContent-Length: ${sentence.length + 1}\r\nConnection: close\r\n\r\n${sentence}\n`,
    );
    closeAll.push(proxy.close);
    const asked: string[] = [];
    const f = sandboxFetch('allowlist', async (host, port) => {
      asked.push(`${host}:${port}`);
      return net.connect(proxy.port, '127.0.0.1');
    });
    closeAll.push(f.close);
    await expect(f.fetch('http://mcp.test/mcp', { method: 'POST', body: '{}' })).rejects.toThrow(sentence);
    await expect(f.fetch('https://mcp.test/mcp', { method: 'POST', body: '{}' })).rejects.toThrow(sentence);
    expect(asked).toEqual(['berth-egress-proxy:3130', 'berth-egress-proxy:3128']);
    expect(proxy.heads[1]).toBe('CONNECT mcp.test:443 HTTP/1.1\r\nHost: mcp.test:443');
  });

  it("opens nothing under 'none'", async () => {
    let opened = 0;
    const f = sandboxFetch('none', async () => {
      opened++;
      throw new Error('never');
    });
    await expect(f.fetch('http://mcp.test/mcp')).rejects.toThrow(/network is "none"/);
    expect(opened).toBe(0);
  });
});
