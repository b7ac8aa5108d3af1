import http from 'node:http';
import { createEngine } from '/work/wt/h-ports/electron/main/engine/dockerEngine.js';
import { relayCommand } from '/work/wt/h-ports/electron/main/policy/listeningPorts.js';
import { ForwardServer } from '/work/wt/h-ports/electron/main/ports/forwardServer.js';
const e = createEngine({ kind: 'socket', socketPath: '/var/run/docker.sock' });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = await ForwardServer.start({ port: 8000, target: () => ({ engine: e, containerId: 'fb3894b321c6f4e48bd549a22c681fe4c41b7651f26b990a6fba5444ddaf75c3', user: '0', cmd: relayCommand('python3', '127.0.0.1', 8000) }) });
const cookie = `berth_forward_${f.hostPort}=${f.secret}`;
async function run(origin: string, headers: Record<string, string>, n: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await new Promise<void>((resolve, reject) => http.get(origin + '/small.txt', { agent, headers }, (res) => { res.resume(); res.on('end', () => resolve()); }).on('error', reject));
    times.push(performance.now() - t);
  }
  agent.destroy();
  return median(times).toFixed(2);
}
for (const round of [1, 2]) {
  console.log('published', await run('http://127.0.0.1:32775', {}, 300));
  console.log('forward', await run('http://127.0.0.1:' + f.hostPort, { cookie }, 300));
}
await f.close();
e.close();
