/**
 * CPU time a port path spends, read from /proc on this computer (Docker local): Berth's own main
 * thread (the forward: HTTP server, HTTP client, the exec stream), the engine (dockerd,
 * containerd; the containers' shims and docker-proxy by their command lines) and the
 * containers' own processes (the server, the relay), found by their cgroup. dockerd and
 * containerd serve the whole machine: with other work on it their share is an upper bound.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface CpuSample {
  berth: number;
  engine: number;
  containers: number;
}

function ticks(statPath: string): number {
  try {
    const stat = fs.readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after "pid (comm) ".
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** `ids`: the containers' full ids; `hostPorts`: the published ports whose docker-proxy counts. */
export function sampleCpu(ids: string[], hostPorts: string[]): CpuSample {
  const sample: CpuSample = { berth: ticks(`/proc/self/task/${process.pid}/stat`) * TICK_MS, engine: 0, containers: 0 };
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const comm = read(`/proc/${pid}/comm`).trim();
    const cmdline = comm === 'dockerd' || comm === 'containerd' ? '' : read(`/proc/${pid}/cmdline`).replaceAll('\0', ' ');
    const engine =
      comm === 'dockerd' ||
      comm === 'containerd' ||
      (comm.startsWith('containerd-shim') && ids.some((id) => cmdline.includes(id))) ||
      (comm === 'docker-proxy' && hostPorts.some((p) => cmdline.includes(`-host-port ${p} `)));
    if (engine) sample.engine += ticks(`/proc/${pid}/stat`) * TICK_MS;
    else if (ids.some((id) => read(`/proc/${pid}/cgroup`).includes(id))) sample.containers += ticks(`/proc/${pid}/stat`) * TICK_MS;
  }
  return sample;
}

export function cpuSince(before: CpuSample, after: CpuSample): CpuSample {
  return { berth: after.berth - before.berth, engine: after.engine - before.engine, containers: after.containers - before.containers };
}
