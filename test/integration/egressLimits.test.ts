/**
 * One chat cannot starve the other chats of its profile: a sandbox that opens far more idle,
 * half-sent requests to the profile's shared proxy than it may hold has the extra ones refused,
 * and another chat's request goes through meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { SANDBOX_CONNECTIONS } from '../../electron/main/policy/egress.js';
import { Harness } from '../support/harness.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { waitFor } from '../support/waitFor.js';

/** More than the proxy's whole connection limit (maxconn 1024 before per-sandbox limits). */
const FLOOD = 1100;

/**
 * The abuser: opens FLOOD connections to the proxy, each with a request's first lines and never
 * its end, holds them, and reports how the proxy ended each one: `refused` with no answer at all
 * (reset as it connected, or closed), `answered` with one (a 408 when its wait for the request ran out).
 */
const ABUSER = String.raw`
import select, socket, sys
addr = socket.getaddrinfo('berth-egress-proxy', 3128, socket.AF_INET, socket.SOCK_STREAM)[0][4]
live, refused, answered, unconnected = {}, 0, 0, 0
for _ in range(${FLOOD}):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect(addr)
    except ConnectionResetError:
        refused += 1; s.close(); continue
    except OSError:
        unconnected += 1; s.close(); continue
    try:
        s.sendall(b'GET / HTTP/1.1\r\nHost: allowed.test\r\n')
        s.setblocking(False); live[s.fileno()] = s
    except OSError:
        refused += 1; s.close()
print('opened', flush=True)
poll = select.poll()
for fd in live: poll.register(fd, select.POLLIN)
while True:
    for fd, _ in poll.poll(500):
        s = live.pop(fd); poll.unregister(fd)
        try:
            data = s.recv(4096)
        except OSError:
            data = b''
        if data: answered += 1
        else: refused += 1
        s.close()
    print('open=%d refused=%d answered=%d unconnected=%d' % (len(live), refused, answered, unconnected), flush=True)
`;

const h = new Harness();
let inet: PretendInternet;
let core: BerthCore;
let abuser: string;
let victim: string;

beforeAll(async () => {
  inet = await startPretendInternet();
  core = h.core({ egress: { outsideNetwork: inet.network } });
  const profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'] })).name;
  abuser = (await core.chats.create({ profile })).id;
  victim = (await core.chats.create({ profile })).id;
  for (const chatId of [abuser, victim]) await core.sandbox.exec({ chatId, command: 'true', timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
}, 120_000);

const run = async (chatId: string, command: string) => (await core.sandbox.exec({ chatId, command, timeoutMs: 60_000 })).output;

describe('connection limits per sandbox at the shared proxy', () => {
  it("one chat's flood of idle half-sent requests is refused past its limit, and another chat's request still goes through", async () => {
    await run(abuser, `cat > /tmp/abuse.py <<'EOF'\n${ABUSER}\nEOF\nnohup python3 /tmp/abuse.py > /tmp/abuse.log 2>&1 & echo $! > /tmp/abuse.pid`);
    await waitFor(async () => (await run(abuser, 'cat /tmp/abuse.log')).includes('opened'), 'the abuser to open its connections', 60_000);
    // The other chat's request, while the flood is held. Before per-sandbox limits it waited
    // behind the flood until the proxy's request timeout (30 s) freed places; a request stuck
    // that long is one a user gives up on, hence curl's own limit here.
    const other = await run(victim, 'curl -sS -f --max-time 15 http://allowed.test/; echo "rc=$?"');
    expect(other).toContain('hello from allowed.test');
    // The abuser's extra connections were refused, no more than its limit kept.
    const last = await waitFor(async () => {
      const lines = (await run(abuser, 'tail -1 /tmp/abuse.log')).trim();
      const m = /open=(\d+) refused=(\d+)/.exec(lines);
      if (!m || Number(m[2]) < FLOOD - SANDBOX_CONNECTIONS) return undefined;
      return { open: Number(m[1]), refused: Number(m[2]) };
    }, "the proxy to refuse the abuser's extra connections", 60_000).catch(async (error: Error) => {
      throw new Error(`${error.message}; the abuser's last report: ${await run(abuser, 'tail -1 /tmp/abuse.log')}`);
    });
    expect(last.open).toBeLessThanOrEqual(SANDBOX_CONNECTIONS);
    await run(abuser, 'kill "$(cat /tmp/abuse.pid)"; true');
  }, 240_000);
});
