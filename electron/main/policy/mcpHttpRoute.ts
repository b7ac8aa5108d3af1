/**
 * How a request to an HTTP MCP server leaves the chat's sandbox, decided from the profile's
 * network alone (no I/O). The connection itself is always opened from inside the sandbox (a
 * relay process of the sandbox user, agent/mcp/sandboxFetch), so the sandbox's own rules apply
 * to it exactly as to any program the agent runs there:
 * - 'open': straight to the server's host and port, as the sandbox sees them (its 127.0.0.1 is
 *   the sandbox itself, never this computer's);
 * - 'allowlist': through the sandbox's egress proxy, the only address its sealed network
 *   reaches, which applies the profile's allowlist and the chat's own allowances: plain HTTP as
 *   an absolute-URI request on the proxy's HTTP port, HTTPS as a CONNECT tunnel on its CONNECT port
 *   (the proxy checks the TLS client hello's name against the same list);
 * - 'none': refused here, in words (nothing leaves a 'none' sandbox).
 */
import type { EgressMode } from '../../../shared/contract.js';
import { HTTP_PORT, PROXY_ALIAS, PROXY_PORT } from './egress.js';

export interface McpHttpRoute {
  ok: true;
  /** Where the relay in the sandbox connects. */
  connect: { host: string; port: number };
  /** Open a CONNECT tunnel to this host:port on that connection first (allowlist, HTTPS). */
  tunnel: string | null;
  /** Send the request line with the whole URL (a plain-HTTP proxy's form). */
  absoluteUri: boolean;
  /** Speak TLS to the server (over the connection or tunnel), checking this name. */
  tls: string | null;
}

/** A host name, an IPv4 address or a bracketed IPv6 one: what a relay's command line may carry (never an option). */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])$/;

export function mcpHttpRoute(egress: EgressMode, url: URL): McpHttpRoute | { ok: false; message: string } {
  const tls = url.protocol === 'https:';
  if (!tls && url.protocol !== 'http:') return { ok: false, message: 'its URL must start with http:// or https://.' };
  if (egress === 'none') {
    return {
      ok: false,
      message: `it is reached over HTTP, but this profile's network is "none": nothing leaves its sandboxes, so Berth cannot reach ${url.host}. Set the profile's Network to "allowlist" with ${url.hostname} on the list (or "open"), or run the server in the sandbox with a command.`,
    };
  }
  if (!HOST.test(url.hostname)) return { ok: false, message: `its URL's host is not one Berth can connect to: ${url.hostname}.` };
  const port = url.port === '' ? (tls ? 443 : 80) : Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const servername = tls ? host : null;
  if (egress === 'open') return { ok: true, connect: { host, port }, tunnel: null, absoluteUri: false, tls: servername };
  return tls
    ? { ok: true, connect: { host: PROXY_ALIAS, port: PROXY_PORT }, tunnel: `${url.hostname}:${port}`, absoluteUri: false, tls: servername }
    : { ok: true, connect: { host: PROXY_ALIAS, port: HTTP_PORT }, tunnel: null, absoluteUri: true, tls: null };
}
