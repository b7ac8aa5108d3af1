/**
 * A pretend internet for the egress tests: a network of our own (a documentation-only range,
 * never a real destination) with one web server container answering as allowed.test,
 * blocked.test and other.test over HTTP (80, 8080) and HTTPS (443, a test CA made here with
 * openssl), and streaming /bytes/N for the bench.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { docker, dockerOk } from './docker.js';

export const NET_IMAGE = 'berth-test:net';
export const TEST_HOSTS = ['allowed.test', 'blocked.test', 'other.test'];

const SERVER = String.raw`
import http.server, ssl, sys, threading
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_GET(self):
        if self.path.startswith('/bytes/'):
            n = int(self.path.split('/')[2]); self.send_response(200)
            self.send_header('Content-Length', str(n)); self.end_headers()
            chunk = b'x' * 65536
            while n > 0:
                k = min(n, len(chunk)); self.wfile.write(chunk[:k]); n -= k
            return
        body = ('hello from %s on %d\n' % (self.headers.get('Host', '?').split(':')[0], self.server.server_port)).encode()
        self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
def serve(port, tls):
    s = http.server.ThreadingHTTPServer(('0.0.0.0', port), H)
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain('/certs/server.pem', '/certs/server.key')
        s.socket = ctx.wrap_socket(s.socket, server_side=True)
    s.serve_forever()
for port, tls in ((80, False), (8080, False), (443, True)):
    threading.Thread(target=serve, args=(port, tls), daemon=True).start()
print('serving', flush=True)
threading.Event().wait()
`;

export interface PretendInternet {
  network: string;
  webIp: string;
  /** The web server container's full id (the bench reads its CPU time). */
  webId: string;
  /** The test CA's certificate (PEM), for curl --cacert in the sandbox. */
  caPem: string;
  stop(): Promise<void>;
}

function makeCerts(dir: string, hosts: readonly string[]): void {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Berth test CA', '-keyout', 'ca.key', '-out', 'ca.pem');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=allowed.test', '-keyout', 'server.key', '-out', 'server.csr');
  fs.writeFileSync(path.join(dir, 'san.ext'), `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}\n`);
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', 'server.pem');
  fs.chmodSync(path.join(dir, 'server.key'), 0o644);
}

/** `moreHosts`: names the web server answers as too (a preset's real hosts, say: never reached, this network answers them). */
export async function startPretendInternet(moreHosts: readonly string[] = []): Promise<PretendInternet> {
  const id = randomBytes(3).toString('hex');
  const network = `berth-test-inet-${id}`;
  const hosts = [...TEST_HOSTS, ...moreHosts];
  const certs = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-inet-'));
  makeCerts(certs, hosts);
  // 198.18.0.0/15 is for network tests (RFC 2544): no real host, and not one of the LAN
  // ranges the proxy refuses. Another run may hold a block: try a few.
  let created = false;
  for (let i = 0; i < 8 && !created; i++) {
    const third = (parseInt(id, 16) + i * 37) % 250;
    created = await dockerOk('network', 'create', '--subnet', `198.18.${third}.0/24`, '--label', 'berth.test=inet', network);
  }
  if (!created) throw new Error('Could not create the pretend internet network.');
  const web = `berth-test-web-${id}`;
  await docker('run', '-d', '--name', web, '--network', network, ...hosts.flatMap((h) => ['--network-alias', h]),
    '--label', 'berth.test=inet', '--mount', `type=bind,source=${certs},target=/certs,readonly`, NET_IMAGE, 'python3', '-c', SERVER);
  // Wait for the servers, not for time.
  for (let i = 0; ; i++) {
    if ((await docker('logs', web).catch(() => '')).includes('serving')) break;
    if (i > 200) throw new Error('The pretend internet did not start.');
    await new Promise((r) => setTimeout(r, 50));
  }
  const webIp = (await docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`, web)).trim();
  const webId = (await docker('inspect', '-f', '{{.Id}}', web)).trim();
  return {
    network,
    webIp,
    webId,
    caPem: fs.readFileSync(path.join(certs, 'ca.pem'), 'utf8'),
    async stop() {
      await dockerOk('rm', '-f', web);
      await dockerOk('network', 'rm', network);
      fs.rmSync(certs, { recursive: true, force: true });
    },
  };
}
