import { describe, expect, it } from 'vitest';
import { mcpHttpRoute } from './mcpHttpRoute.js';

describe('how an HTTP MCP server is reached from the sandbox', () => {
  it("goes straight from the sandbox under 'open', TLS checking the server's name", () => {
    expect(mcpHttpRoute('open', new URL('http://127.0.0.1:8765/mcp'))).toEqual({ ok: true, connect: { host: '127.0.0.1', port: 8765 }, tunnel: null, absoluteUri: false, tls: null });
    expect(mcpHttpRoute('open', new URL('https://mcp.example.com/mcp'))).toEqual({ ok: true, connect: { host: 'mcp.example.com', port: 443 }, tunnel: null, absoluteUri: false, tls: 'mcp.example.com' });
    expect(mcpHttpRoute('open', new URL('http://[::1]:9/mcp'))).toMatchObject({ connect: { host: '::1', port: 9 } });
  });

  it('goes through the egress proxy under an allowlist: plain HTTP as an absolute URI, HTTPS as a CONNECT tunnel', () => {
    expect(mcpHttpRoute('allowlist', new URL('http://mcp.test/mcp'))).toEqual({ ok: true, connect: { host: 'berth-egress-proxy', port: 3130 }, tunnel: null, absoluteUri: true, tls: null });
    expect(mcpHttpRoute('allowlist', new URL('https://mcp.test:8443/mcp'))).toEqual({ ok: true, connect: { host: 'berth-egress-proxy', port: 3128 }, tunnel: 'mcp.test:8443', absoluteUri: false, tls: 'mcp.test' });
  });

  it("refuses under 'none' in words, and a host a relay's command line must never carry", () => {
    const none = mcpHttpRoute('none', new URL('https://mcp.example.com/mcp'));
    expect(none).toEqual({ ok: false, message: expect.stringContaining('this profile\'s network is "none"') });
    expect(none.ok === false && none.message).toContain('"allowlist" with mcp.example.com on the list');
    expect(mcpHttpRoute('open', new URL('http://-e/mcp'))).toEqual({ ok: false, message: "its URL's host is not one Berth can connect to: -e." });
    expect(mcpHttpRoute('open', new URL('ftp://x/'))).toEqual({ ok: false, message: 'its URL must start with http:// or https://.' });
  });
});
