/**
 * A DNS server of the tests' own on the pretend internet: it answers the names it is given with
 * the IPv4 addresses it is given (whatever they are: this computer's own, say) and every other
 * name with NXDOMAIN. A proxy started with `dns: [server.ip]` asks it (through Docker's embedded
 * DNS, which still answers the network's container names itself) for every name it resolves.
 */
import { randomBytes } from 'node:crypto';
import { docker, dockerOk } from './docker.js';
import { NET_IMAGE } from './pretendInternet.js';

/** A few lines of python: one UDP query in, one answer out (an A record, or none). */
const SERVER = String.raw`
import json, socket, struct, sys
answers = json.loads(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', 53))
print('serving', flush=True)
while True:
    data, peer = s.recvfrom(4096)
    try:
        tid = struct.unpack('>H', data[:2])[0]
        i, labels = 12, []
        while data[i]:
            labels.append(data[i + 1:i + 1 + data[i]].decode().lower()); i += 1 + data[i]
        qtype = struct.unpack('>H', data[i + 1:i + 3])[0]
        question = data[12:i + 5]
        ip = answers.get('.'.join(labels))
        rcode = 3 if ip is None else 0
        answer = b'\xc0\x0c' + struct.pack('>HHIH', 1, 1, 5, 4) + socket.inet_aton(ip) if ip and qtype == 1 else b''
        s.sendto(struct.pack('>HHHHHH', tid, 0x8180 | rcode, 1, 1 if answer else 0, 0, 0) + question + answer, peer)
    except Exception as e:
        print('bad query', e, flush=True)
`;

export interface PretendDns {
  ip: string;
  /** The container's name (a test can run a control request from it). */
  name: string;
  stop(): Promise<void>;
}

/** Starts the server on `network` with these answers (name → IPv4 address). */
export async function startPretendDns(network: string, answers: Record<string, string>): Promise<PretendDns> {
  const name = `berth-test-dns-${randomBytes(3).toString('hex')}`;
  await docker('run', '-d', '--name', name, '--network', network, '--label', 'berth.test=inet', NET_IMAGE, 'python3', '-c', SERVER, JSON.stringify(answers));
  for (let i = 0; ; i++) {
    if ((await docker('logs', name).catch(() => '')).includes('serving')) break;
    if (i > 200) throw new Error('The pretend DNS server did not start.');
    await new Promise((r) => setTimeout(r, 50));
  }
  const ip = (await docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`, name)).trim();
  return { ip, name, stop: async () => void (await dockerOk('rm', '-f', name)) };
}
