import { describe, expect, it } from 'vitest';
import { chooseRelayTool, helperArchive, parseListeningPorts, relayCommand } from './listeningPorts.js';

// Lines as a Debian container's kernel writes them (python3 -m http.server 8000 on 0.0.0.0,
// a node server on :: port 5173, one on 127.0.0.1:3000, an established connection, and sshd on ::1 only).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0000000000000000 20 4 30 10 -1
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1435 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5 1 0000000000000000 100 0 0 10 0
   2: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 6 1 0000000000000000 100 0 0 10 0
`;

describe('parseListeningPorts', () => {
  it('lists each listening port once, lowest first, with the address a relay in the container reaches it at', () => {
    expect(parseListeningPorts(TCP + TCP6)).toEqual([
      { port: 22, connectTo: '::1' },
      { port: 3000, connectTo: '127.0.0.1' },
      { port: 5173, connectTo: '127.0.0.1' },
      { port: 8000, connectTo: '127.0.0.1' },
    ]);
  });

  it('reads nothing from an empty, headed-only or garbled listing', () => {
    expect(parseListeningPorts('')).toEqual([]);
    expect(parseListeningPorts(TCP.split('\n')[0] as string)).toEqual([]);
    expect(parseListeningPorts('0: zz:1F40 00000000:0000 0A\nnonsense')).toEqual([]);
  });
});

describe('relay tools', () => {
  it('prefers busybox nc, then python3, then bash, then Berth’s helper', () => {
    expect(chooseRelayTool('python3\nbash\nbusybox\n')).toBe('busybox');
    expect(chooseRelayTool('bash\npython3\n')).toBe('python3');
    expect(chooseRelayTool('bash\n')).toBe('bash');
    expect(chooseRelayTool('helper\n')).toBe('helper');
    expect(chooseRelayTool('')).toBeNull();
  });

  it('passes the address and port as arguments, never inside a script', () => {
    for (const tool of ['busybox', 'python3', 'bash', 'helper'] as const) {
      const cmd = relayCommand(tool, '::1', 8000);
      expect(cmd.slice(-2)).toEqual(['::1', '8000']);
    }
  });

  it('packs the helper as a root-owned read-only file in a root-owned folder', () => {
    const tar = helperArchive(Buffer.from('binary'), 0);
    expect(tar.length % 512).toBe(0);
    expect(tar.subarray(0, 100).toString('ascii').replace(/\0+$/, '')).toBe('.berth-relay/');
    expect(tar.subarray(512, 612).toString('ascii').replace(/\0+$/, '')).toBe('.berth-relay/busybox');
    expect(tar.subarray(512 + 100, 512 + 107).toString('ascii')).toBe('0000555');
    expect(tar.subarray(512 + 108, 512 + 115).toString('ascii')).toBe('0000000');
    expect(tar.subarray(1024, 1030).toString('ascii')).toBe('binary');
  });
});
