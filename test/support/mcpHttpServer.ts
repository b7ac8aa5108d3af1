/**
 * A Streamable HTTP MCP server for tests (JSON answers, no SSE): in a container of its own on a
 * network of the test's, as mcp.test port 80, or run anywhere with python3 (MCP_HTTP_SERVER_PY,
 * its port as the argument). Its one tool, echo, says what it was sent, the Host header and the
 * address the connection came from.
 */
import { randomBytes } from 'node:crypto';
import { docker } from './docker.js';
import { NET_IMAGE } from './pretendInternet.js';

export const MCP_HTTP_SERVER_PY = String.raw`
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def reply(self, code, body=None, headers={}):
        data = b'' if body is None else json.dumps(body).encode()
        self.send_response(code)
        if body is not None: self.send_header('Content-Type', 'application/json')
        for k, v in headers.items(): self.send_header(k, v)
        self.send_header('Content-Length', str(len(data))); self.end_headers(); self.wfile.write(data)
    def do_GET(self): self.reply(405)
    def do_DELETE(self): self.reply(200)
    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers.get('Content-Length') or 0)))
        mid, method = m.get('id'), m.get('method')
        if mid is None: return self.reply(202)
        if method == 'initialize':
            return self.reply(200, {'jsonrpc': '2.0', 'id': mid, 'result': {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'web', 'version': '1'}}}, {'Mcp-Session-Id': 'test-session'})
        if method == 'tools/list':
            return self.reply(200, {'jsonrpc': '2.0', 'id': mid, 'result': {'tools': [{'name': 'echo', 'description': 'Says it back.', 'inputSchema': {'type': 'object', 'properties': {'text': {'type': 'string'}}, 'required': ['text']}}]}})
        if method == 'tools/call':
            text = 'echo:%s host=%s from=%s' % (m['params']['arguments'].get('text'), self.headers.get('Host'), self.client_address[0])
            return self.reply(200, {'jsonrpc': '2.0', 'id': mid, 'result': {'content': [{'type': 'text', 'text': text}]}})
        self.reply(200, {'jsonrpc': '2.0', 'id': mid, 'error': {'code': -32601, 'message': 'no such method'}})
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('0.0.0.0', int(sys.argv[1]) if len(sys.argv) > 1 else 80), H).serve_forever()
`;

export interface McpHttpServer {
  container: string;
  stop(): Promise<void>;
}

export async function startMcpHttpServer(network: string): Promise<McpHttpServer> {
  const container = `berth-test-mcp-${randomBytes(3).toString('hex')}`;
  await docker('run', '-d', '--name', container, '--network', network, '--network-alias', 'mcp.test', '--label', 'berth.test=mcp', NET_IMAGE, 'python3', '-c', MCP_HTTP_SERVER_PY);
  // Wait for it to listen, not for time.
  for (let i = 0; ; i++) {
    const ok = await docker('exec', container, 'python3', '-c', "import socket; socket.create_connection(('127.0.0.1', 80), 1)").then(() => true, () => false);
    if (ok) break;
    if (i > 100) throw new Error('The test MCP server did not start.');
  }
  return {
    container,
    stop: async () => void (await docker('rm', '-f', container).catch(() => '')),
  };
}
