/** Servers a port-forward test starts in a sandbox, and an HTTP client that names its own Host. */
import http from 'node:http';

/** python3's http.server on 0.0.0.0:<port>, serving a folder with `marker`; backgrounded, its output nowhere. */
export function httpServerCommand(port: number, marker: string): string {
  return `mkdir -p /tmp/site-${port} && cd /tmp/site-${port} && : > ${marker} && (nohup python3 -m http.server ${port} >/dev/null 2>&1 &)`;
}

/**
 * A WebSocket echo server in plain python3 (the image has no websocket package): each text
 * message comes back as "echo:<message>"; the message "cookie?" gets the Cookie header the
 * server saw ("none" without one).
 */
const WS_ECHO = String.raw`
import base64, hashlib, socket, sys, threading
GUID = b'258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', int(sys.argv[1])))
srv.listen(16)
def serve(c):
    data = b''
    while b'\r\n\r\n' not in data:
        d = c.recv(4096)
        if not d: return
        data += d
    head, buf = data.split(b'\r\n\r\n', 1)
    lines = head.split(b'\r\n')
    def header(name):
        for l in lines:
            if l.lower().startswith(name + b':'): return l.split(b':', 1)[1].strip()
        return None
    acc = base64.b64encode(hashlib.sha1(header(b'sec-websocket-key') + GUID).digest())
    c.sendall(b'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + acc + b'\r\n\r\n')
    def need(n):
        nonlocal buf
        while len(buf) < n:
            d = c.recv(4096)
            if not d: raise EOFError
            buf += d
        r, buf = buf[:n], buf[n:]
        return r
    try:
        while True:
            h = need(2)
            op, ln = h[0] & 15, h[1] & 127
            if ln == 126: ln = int.from_bytes(need(2), 'big')
            elif ln == 127: ln = int.from_bytes(need(8), 'big')
            mask = need(4)
            p = bytes(b ^ mask[i % 4] for i, b in enumerate(need(ln)))
            if op == 8: break
            out = (header(b'cookie') or b'none') if p == b'cookie?' else b'echo:' + p
            c.sendall((bytes([0x81, len(out)]) if len(out) < 126 else bytes([0x81, 126]) + len(out).to_bytes(2, 'big')) + out)
    except EOFError:
        pass
    c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
`;

export function wsEchoCommand(port: number): string {
  return `cat > /tmp/ws-echo.py <<'PYEOF'\n${WS_ECHO}\nPYEOF\n(nohup python3 /tmp/ws-echo.py ${port} >/tmp/ws-echo.log 2>&1 &)`;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One GET through a real HTTP client, with the Host and Cookie headers the test chooses. */
export function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Follows Berth's first URL: the secret comes back as a cookie; returns the Cookie header to send after. */
export async function enter(url: string): Promise<{ cookie: string; location: string }> {
  const first = await get(url);
  if (first.status !== 302) throw new Error(`The forward's first URL answered ${first.status}: ${first.body}`);
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  return { cookie: setCookie.split(';')[0] as string, location: first.headers.location ?? '' };
}
