/**
 * Summarizes a Chromium trace written by `npm run bench:app -- --trace DIR` (e.g.
 * throughput-berth.json): where the busiest renderer main thread spent its CPU time.
 *
 *   node --import tsx bench/traceSummary.ts DIR/throughput-berth.json [--top N]
 *
 * - by category: self thread time (`tdur`, CPU, not wall) of the main thread's timeline events,
 *   nested events subtracted from their parents, grouped as script, style, layout, paint and
 *   compositing, GC, other; plus the thread's busy share of the traced span;
 * - by function: self time of the V8 CPU profile's samples (ProfileChunk events), top N.
 * Pure reading of the file: nothing is sent anywhere.
 */
import fs from 'node:fs';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  tts?: number;
  args?: Record<string, unknown>;
  id?: string;
}

const CATEGORY: Record<string, string> = {
  FunctionCall: 'script', EvaluateScript: 'script', 'v8.compile': 'script', 'V8.ParseFunction': 'script', TimerFire: 'script',
  FireAnimationFrame: 'script', EventDispatch: 'script', 'v8.callFunction': 'script', 'v8.run': 'script', RunMicrotasks: 'script',
  'V8.Execute': 'script', XHRReadyStateChange: 'script', 'WebSocketReceive': 'script', ResizeObserver: 'script',
  IntersectionObserverController: 'script',
  UpdateLayoutTree: 'style', RecalculateStyles: 'style', ParseAuthorStyleSheet: 'style', ScheduleStyleRecalculation: 'style',
  Layout: 'layout', UpdateLayout: 'layout',
  Paint: 'paint+composite', PrePaint: 'paint+composite', Layerize: 'paint+composite', UpdateLayer: 'paint+composite',
  CompositeLayers: 'paint+composite', UpdateLayerTree: 'paint+composite', 'Commit': 'paint+composite', RasterTask: 'paint+composite',
  MinorGC: 'gc', MajorGC: 'gc', 'V8.GC_SCAVENGER': 'gc', BlinkGC: 'gc', 'V8.GCScavenger': 'gc', 'V8.GCFinalizeMC': 'gc',
  'V8.GC_MC_BACKGROUND_MARKING': 'gc', 'ThreadState::performIdleLazySweep': 'gc', GCEvent: 'gc',
};
const TOP_LEVEL = new Set(['RunTask', 'ThreadControllerImpl::RunTask', 'ThreadControllerImpl::DoWork']);

function load(file: string): TraceEvent[] {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  return Array.isArray(raw) ? raw : (raw.traceEvents ?? []);
}

/** The renderer main thread with the most timeline work (the traced page's). */
function mainThread(events: TraceEvent[]): { pid: number; tid: number } {
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, String(e.args?.name));
  const busy = new Map<string, number>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (names.get(key) !== 'CrRendererMain' || e.ph !== 'X' || !TOP_LEVEL.has(e.name)) continue;
    busy.set(key, (busy.get(key) ?? 0) + (e.dur ?? 0));
  }
  const best = [...busy.entries()].sort((a, b) => b[1] - a[1])[0];
  if (!best) throw new Error('no CrRendererMain thread with tasks in this trace');
  const [pid, tid] = best[0].split(':').map(Number) as [number, number];
  return { pid, tid };
}

export interface TraceSummary {
  spanMs: number;
  taskWallMs: number;
  taskCpuMs: number;
  /** Self CPU ms per timeline event name, and per category. */
  byEvent: Map<string, number>;
  byCategory: Map<string, number>;
  /** Self ms per function (url:line name) from the CPU profile's samples. */
  byFunction: Map<string, number>;
  sampledMs: number;
}

export function summarize(events: TraceEvent[]): TraceSummary {
  const { pid, tid } = mainThread(events);
  const mine = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const cpu = (e: TraceEvent) => e.tdur ?? e.dur ?? 0;
  const byEvent = new Map<string, number>();
  const stack: Array<{ e: TraceEvent; end: number; child: number }> = [];
  const close = (upTo: number) => {
    while (stack.length && (stack[stack.length - 1] as { end: number }).end <= upTo) {
      const top = stack.pop() as { e: TraceEvent; child: number };
      byEvent.set(top.e.name, (byEvent.get(top.e.name) ?? 0) + Math.max(0, cpu(top.e) - top.child) / 1000);
      const parent = stack[stack.length - 1];
      if (parent) parent.child += cpu(top.e);
    }
  };
  let first = Infinity;
  let last = 0;
  let taskWall = 0;
  let taskCpu = 0;
  for (const e of mine) {
    close(e.ts);
    stack.push({ e, end: e.ts + (e.dur ?? 0), child: 0 });
    if (TOP_LEVEL.has(e.name) && stack.length === 1) {
      taskWall += e.dur ?? 0;
      taskCpu += cpu(e);
      first = Math.min(first, e.ts);
      last = Math.max(last, e.ts + (e.dur ?? 0));
    }
  }
  close(Infinity);
  const byCategory = new Map<string, number>();
  for (const [name, ms] of byEvent) {
    const cat = TOP_LEVEL.has(name) ? 'task (unattributed)' : (CATEGORY[name] ?? 'other');
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + ms);
  }

  // CPU profile: ProfileChunk events of this pid carry nodes, samples and timeDeltas.
  const nodes = new Map<number, { name: string; parent?: number }>();
  const byFunction = new Map<string, number>();
  let sampledMs = 0;
  for (const e of events) {
    if (e.pid !== pid || e.name !== 'ProfileChunk') continue;
    const data = (e.args?.data ?? {}) as { cpuProfile?: { nodes?: Array<{ id: number; parent?: number; callFrame: { functionName: string; url?: string; lineNumber?: number } }>; samples?: number[] }; timeDeltas?: number[] };
    for (const n of data.cpuProfile?.nodes ?? []) {
      const f = n.callFrame;
      const where = f.url ? `${f.url.replace(/^.*\//, '')}:${(f.lineNumber ?? 0) + 1}` : '';
      nodes.set(n.id, { name: `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}` });
    }
    const samples = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      const ms = Math.max(0, deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
      const name = nodes.get(samples[i] as number)?.name ?? '?';
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
      if (name !== '(idle)') sampledMs += ms;
    }
  }
  return { spanMs: (last - first) / 1000, taskWallMs: taskWall / 1000, taskCpuMs: taskCpu / 1000, byEvent, byCategory, byFunction, sampledMs };
}

function table(map: Map<string, number>, total: number, top: number): string {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `  ${v.toFixed(1).padStart(9)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  if (!file) {
    console.error('usage: node --import tsx bench/traceSummary.ts TRACE.json [--top N]');
    process.exit(2);
  }
  const s = summarize(load(file));
  console.log(`${file}: main thread tasks ${s.taskCpuMs.toFixed(0)} ms CPU (${s.taskWallMs.toFixed(0)} ms wall) over ${s.spanMs.toFixed(0)} ms: busy ${((100 * s.taskWallMs) / s.spanMs).toFixed(0)}%`);
  console.log('by category (self CPU):');
  console.log(table(s.byCategory, s.taskCpuMs, 20));
  console.log(`by event (self CPU, top ${top}):`);
  console.log(table(s.byEvent, s.taskCpuMs, top));
  console.log(`by function (self, CPU profile samples; ${s.sampledMs.toFixed(0)} ms sampled, idle excluded from the share):`);
  const noIdle = new Map([...s.byFunction].filter(([k]) => k !== '(idle)'));
  console.log(table(noIdle, s.sampledMs, top));
}
