/** A python script for the sandbox, proving an applied change keeps established connections. */
/** An HTTPS tunnel through the proxy to allowed.test: one request now, one more once /tmp/go exists. */
export const TUNNEL = String.raw`
import os, socket, ssl, time
s = socket.create_connection(('berth-egress-proxy', 3128))
s.sendall(b'CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n')
head = b''
while b'\r\n\r\n' not in head:
    head += s.recv(1)
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
t = ctx.wrap_socket(s, server_hostname='allowed.test')
def get():
    t.sendall(b'GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n')
    data = b''
    while b'hello from' not in data:
        chunk = t.recv(4096)
        if not chunk: break
        data += chunk
    return b'hello from' in data
print('first', get(), flush=True)
while not os.path.exists('/tmp/go'):
    time.sleep(0.1)
try:
    print('second', get(), flush=True)
except OSError as e:
    print('second failed', e, flush=True)
`;

