/** A stdio MCP server for tests, to put in a sandbox's folder and run with python3. */
/**
 * A minimal MCP server: newline-delimited JSON-RPC on stdin/stdout, one tool, read_path. The
 * image's python3 is Debian's python3-minimal, which has no json module: a few lines stand in.
 */
export const SERVER_PY = String.raw`
import ast, os, re, sys
mode = sys.argv[1] if len(sys.argv) > 1 else 'ok'
def dumps(v):
    if v is None: return 'null'
    if v is True: return 'true'
    if v is False: return 'false'
    if isinstance(v, int): return str(v)
    if isinstance(v, str): return '"' + v.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'
    if isinstance(v, list): return '[' + ','.join(dumps(x) for x in v) + ']'
    return '{' + ','.join(dumps(k) + ':' + dumps(x) for k, x in v.items()) + '}'
def loads(line):
    return ast.literal_eval(re.sub(r'\btrue\b', 'True', re.sub(r'\bfalse\b', 'False', re.sub(r'\bnull\b', 'None', line))))
def send(m):
    sys.stdout.write(dumps(m) + '\n')
    sys.stdout.flush()
for line in sys.stdin:
    m = loads(line)
    mid, method = m.get('id'), m.get('method')
    if method == 'initialize':
        send({'jsonrpc': '2.0', 'id': mid, 'result': {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'files', 'version': '1'}}})
    elif method == 'tools/list':
        send({'jsonrpc': '2.0', 'id': mid, 'result': {'tools': [{'name': 'read_path', 'description': 'Reads a file by its path.', 'inputSchema': {'type': 'object', 'properties': {'path': {'type': 'string'}}, 'required': ['path']}}]}})
    elif method == 'tools/call':
        if mode == 'hang':
            continue
        path = m['params']['arguments']['path']
        try:
            text, err = open(path).read(), False
        except Exception as e:
            text, err = 'cannot read %s: %s' % (path, type(e).__name__), True
        send({'jsonrpc': '2.0', 'id': mid, 'result': {'content': [{'type': 'text', 'text': 'uid=%d %s' % (os.getuid(), text)}], 'isError': err}})
    elif mid is not None:
        send({'jsonrpc': '2.0', 'id': mid, 'error': {'code': -32601, 'message': 'no such method'}})
`;
