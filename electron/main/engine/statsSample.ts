/**
 * One reading of a container's use, from the engine's stats stream (`GET /containers/{id}/stats`):
 * CPU as cores in use (the docker CLI's percentage / 100), memory as the CLI counts it (without
 * the reclaimable page cache), and processes, each beside its limit.
 */
export interface StatsSample {
  /** When the engine read it (ms since the epoch). */
  at: number;
  /** Cores in use since the previous reading (0.5: half a core); null on the first reading. */
  cpus: number | null;
  memoryBytes: number;
  /** The container's memory limit (or the machine's memory when it has none). */
  memoryLimitBytes: number | null;
  pids: number;
  pidsLimit: number | null;
}

interface CpuStats {
  cpu_usage?: { total_usage?: number; percpu_usage?: number[] };
  system_cpu_usage?: number;
  online_cpus?: number;
}

/** The fields Berth reads of one stats JSON object (Docker API ≥ 1.41). */
export interface RawStats {
  read?: string;
  cpu_stats?: CpuStats;
  precpu_stats?: CpuStats;
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  pids_stats?: { current?: number; limit?: number };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function statsSample(raw: RawStats, now: number): StatsSample {
  const cpu = raw.cpu_stats ?? {};
  const pre = raw.precpu_stats ?? {};
  const cpuDelta = (num(cpu.cpu_usage?.total_usage) ?? 0) - (num(pre.cpu_usage?.total_usage) ?? 0);
  const systemDelta = (num(cpu.system_cpu_usage) ?? 0) - (num(pre.system_cpu_usage) ?? 0);
  const online = num(cpu.online_cpus) ?? cpu.cpu_usage?.percpu_usage?.length ?? 1;
  // The first reading has no previous one (precpu is empty): no rate yet.
  const cpus = num(pre.system_cpu_usage) !== null && systemDelta > 0 && cpuDelta >= 0 ? (cpuDelta / systemDelta) * online : null;
  const mem = raw.memory_stats ?? {};
  const cache = num(mem.stats?.inactive_file) ?? num(mem.stats?.total_inactive_file) ?? 0;
  const usage = num(mem.usage) ?? 0;
  const limit = num(raw.pids_stats?.limit);
  const read = raw.read ? Date.parse(raw.read) : NaN;
  return {
    at: Number.isFinite(read) && read > 0 ? read : now,
    cpus,
    memoryBytes: Math.max(0, usage - cache),
    memoryLimitBytes: num(mem.limit),
    pids: num(raw.pids_stats?.current) ?? 0,
    // The engine reports "no limit" as 0 or a huge number.
    pidsLimit: limit !== null && limit > 0 && limit < 2 ** 53 ? limit : null,
  };
}
