/**
 * The ports a sandbox listens on, read from its own /proc/net/tcp and tcp6 (the container's
 * network namespace: what `ss -ltn` would list there), and how a relay in the container reaches
 * each one. Also the relay commands a port forward runs in the container, in the order Berth
 * prefers them. No I/O.
 */

export interface ListeningPort {
  port: number;
  /** Where a relay in the container connects: loopback of the family, or the one address it listens on. */
  connectTo: string;
}

/** TCP_LISTEN in the kernel's tcp_states.h, as /proc/net/tcp writes the state column. */
const LISTEN = '0A';

/** The kernel writes each 32-bit word of the address in host byte order (little-endian on x86 and arm). */
function ipv4(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join('.');
}

function ipv6(hex: string): string {
  const groups: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    // Each word's bytes reversed, as for IPv4.
    const bytes = (word.match(/../g) ?? []).reverse().join('');
    groups.push(bytes.slice(0, 4), bytes.slice(4, 8));
  }
  const full = groups.map((g) => Number.parseInt(g, 16).toString(16)).join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(full);
  if (mapped) {
    const hi = Number.parseInt(mapped[1] as string, 16);
    const lo = Number.parseInt(mapped[2] as string, 16);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return full;
}

/**
 * The listening sockets in the text of /proc/net/tcp followed by /proc/net/tcp6 (either may be
 * missing: no IPv6 in the container), one entry per port, lowest first. An IPv4 listener is
 * preferred where both families listen on a port.
 */
export function parseListeningPorts(text: string): ListeningPort[] {
  const found = new Map<number, ListeningPort>();
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    // "sl local_address rem_address st …": the header line and anything garbled fail here.
    const m = /^([0-9A-Fa-f]{8}|[0-9A-Fa-f]{32}):([0-9A-Fa-f]{4})$/.exec(cols[1] ?? '');
    if (!m || !/^\d+:$/.test(cols[0] ?? '') || cols[3]?.toUpperCase() !== LISTEN) continue;
    const port = Number.parseInt(m[2] as string, 16);
    if (port === 0) continue;
    const v4 = (m[1] as string).length === 8;
    const address = v4 ? ipv4(m[1] as string) : ipv6(m[1] as string);
    // A listener on :: takes IPv4 too (Linux's default), and a container's loopback often has no IPv6 at all.
    const connectTo = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
    const seen = found.get(port);
    if (!seen || (v4 && seen.connectTo.includes(':'))) found.set(port, { port, connectTo });
  }
  return [...found.values()].sort((a, b) => a.port - b.port);
}

/** Prints the two files for parseListeningPorts (a missing tcp6 is no error). */
export const LIST_PORTS_COMMAND = ['/bin/sh', '-c', 'cat /proc/net/tcp; cat /proc/net/tcp6 2>/dev/null; exit 0'];

/** Where Berth's own relay helper goes in a container whose image has none of the tools below. */
export const HELPER_DIR = '/.berth-relay';
export const HELPER_PATH = `${HELPER_DIR}/busybox`;

/**
 * Which relay tools the container has, one word a line: busybox's nc first (the smallest, and
 * Berth's offline base image has it), then python3, then bash's /dev/tcp, then Berth's own
 * helper if an earlier forward brought it.
 */
export const PROBE_RELAY_COMMAND = [
  '/bin/sh',
  '-c',
  [
    // A file on PATH, as docker exec needs: busybox's own sh names its applets (busybox among
    // them) as if they were commands, without a path, when no such file exists.
    'has() { case "$(command -v "$1" 2>/dev/null)" in /*) return 0;; esac; return 1; }',
    'has busybox && busybox --list 2>/dev/null | grep -qx nc && echo busybox',
    'has python3 && echo python3',
    'has bash && has cat && echo bash',
    `[ -x ${HELPER_PATH} ] && echo helper`,
    // For one relay per sandbox (muxPrograms.ts).
    'has perl && echo perl',
    'exit 0',
  ].join('; '),
];

export type RelayTool = 'busybox' | 'python3' | 'bash' | 'helper';

export function chooseRelayTool(probeOutput: string): RelayTool | null {
  const words = new Set(probeOutput.split('\n').map((w) => w.trim()));
  for (const tool of ['busybox', 'python3', 'bash', 'helper'] as const) if (words.has(tool)) return tool;
  return null;
}

/**
 * Copies stdin to the socket and the socket to stdout in one thread (select: no hand-over
 * between threads on each request), and exits when the server closes the connection (an
 * HTTP/1.0 answer's end); stdin's end half-closes the socket.
 */
const PYTHON_RELAY = [
  'import os, select, socket, sys',
  's = socket.create_connection((sys.argv[1], int(sys.argv[2])))',
  's.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)',
  'ins = [0, s]',
  'while True:',
  '    ready = select.select(ins, [], [])[0]',
  '    if s in ready:',
  '        b = s.recv(262144)',
  '        if not b: break',
  '        v = memoryview(b)',
  '        while v: v = v[os.write(1, v):]',
  '    if 0 in ready:',
  '        b = os.read(0, 262144)',
  '        if b: s.sendall(b)',
  '        else:',
  '            ins.remove(0)',
  '            s.shutdown(socket.SHUT_WR)',
].join('\n');

/** The command that relays one connection to `address`:`port` inside the container. */
export function relayCommand(tool: RelayTool, address: string, port: number): string[] {
  const p = String(port);
  switch (tool) {
    case 'busybox':
      return ['busybox', 'nc', address, p];
    case 'helper':
      return [HELPER_PATH, 'nc', address, p];
    case 'python3':
      return ['python3', '-c', PYTHON_RELAY, address, p];
    case 'bash':
      // A background job's stdin is /dev/null unless named, hence fd 4; the relay ends with the
      // server's side of the socket (exec cat), and the writer holds no output of the exec.
      return ['bash', '-c', 'exec 3<>"/dev/tcp/$0/$1" || exit 1; exec 4<&0; cat <&4 >&3 2>/dev/null & exec cat <&3', address, p];
  }
}

/** A one-file tar archive (with its folder) whose entries belong to root and are 0555: what putArchive writes for the helper. */
export function helperArchive(binary: Uint8Array, mtimeSeconds: number): Buffer {
  const dir = HELPER_DIR.slice(1);
  return Buffer.concat([
    tarHeader(`${dir}/`, 0, '5', mtimeSeconds),
    tarHeader(`${dir}/busybox`, binary.length, '0', mtimeSeconds),
    Buffer.from(binary),
    Buffer.alloc((512 - (binary.length % 512)) % 512),
    Buffer.alloc(1024),
  ]);
}

function tarHeader(name: string, size: number, type: '0' | '5', mtime: number): Buffer {
  const h = Buffer.alloc(512);
  const field = (value: string, offset: number, length: number) => h.write(value, offset, length, 'ascii');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0') + '\0';
  field(name, 0, 100);
  field(octal(0o555, 8), 100, 8);
  field(octal(0, 8), 108, 8);
  field(octal(0, 8), 116, 8);
  field(octal(size, 12), 124, 12);
  field(octal(mtime, 12), 136, 12);
  field('        ', 148, 8);
  field(type, 156, 1);
  field('ustar\x0000', 257, 8);
  field('root', 265, 32);
  field('root', 297, 32);
  let sum = 0;
  for (const b of h) sum += b;
  field(octal(sum, 7) + ' ', 148, 8);
  return h;
}
