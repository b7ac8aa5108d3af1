/**
 * Browser benchmarks: Berth's web UI in real Chromium against the real browser host and engine,
 * driven as a person would (roles and names), with timings taken inside the page.
 *
 *   terminal throughput: `cat` of an N MiB text file in a chat's terminal, from the Enter key to
 *     the `END-42` line after it on screen, against `docker exec C cat FILE > /dev/null`.
 *   chat switch: clicking a chat in the sidebar until its terminal, drawn on screen, shows its
 *     marker, taken after that frame's paint (and counted in frames).
 *
 * Everything it starts (host, browser, containers, network, temp folders) it removes.
 */
import { activeTerminal, createProfile, typeInTerminal, waitForTerminal as waitForTerminalEvery } from '../e2e/support/ui.js';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { networkNameFor } from '../electron/main/policy/names.js';
import { CHROMIUM, openApp, tempRoot, terminalText, type RunningHost } from '../e2e/support/browserHost.js';
import { containersWithLabel, docker, dockerOk } from '../test/support/docker.js';
import { summarize, type Summary } from './stats.js';
import { TERMINAL_FONT } from '../shared/terminalFont.js';
import { startWetty, waitFor as waitForWetty, type WettyPeer } from './wetty.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RENDERER_INDEX = path.join(REPO, 'dist', 'renderer', 'index.html');
/** A shell prompt at the end of the terminal's text (busybox sh: `/home/berth $`; bash: `…$`). */
const PROMPT_AT_END = /[$#]\s*$/;

export interface BrowserBenchOptions {
  image: string;
  /** Size of the text file `cat` prints, in MiB. */
  blobMib: number;
  /** Timed runs per side for throughput (plus one untimed warm-up each). */
  throughputRuns: number;
  /** Chats to switch between, and timed switches (round-robin, after one untimed round). */
  chats: number;
  switches: number;
  /** Measure terminal throughput (false: only the switch). */
  throughput: boolean;
  /** A folder for Chromium performance traces (JS samples, layout, paint) of the switches and of one Berth run; null: none. */
  traceDir: string | null;
  /** Measure wetty through its WebGL addon (software here) instead of its DOM renderer. */
  wettyWebgl: boolean;
  log(line: string): void;
  /** True once the user pressed Ctrl-C: stop measuring, clean up. */
  interrupted(): boolean;
}

export interface ThroughputSplit {
  /** Enter to the first `terminal.data` frame reaching the page. */
  firstDataMs: number;
  /** Enter to the last `terminal.data` frame before END-42 was seen. */
  lastDataMs: number;
  /** Enter to END-42 on screen. */
  shownMs: number;
  /** `terminal.data` frames and their characters per run. */
  frames: number;
  frameChars: number;
  /** `terminal.ack` calls the page sent per run. */
  acks: number;
}

export interface ThroughputResult {
  blobBytes: number;
  /** The terminal's size in the page, as `stty size` reports it ("rows cols"). */
  ttySize: string;
  berthMs: number[];
  /** The peer: wetty on the same container, size, font and Chromium. */
  wettyMs: number[];
  wetty: { version: string; renderer: string };
  cliMs: number[];
  /** Reference only: the same `cat` through a TTY (`docker exec -t`), as any terminal gets it. */
  cliTtyMs: number[];
  berthMiBps: number;
  wettyMiBps: number;
  cliMiBps: number;
  cliTtyMiBps: number;
  /** Berth / `docker exec -t … cat > /dev/null`. */
  ratio: number;
  /** Berth / wetty. */
  wettyRatio: number;
  split: ThroughputSplit;
  /**
   * Chromium's CPU per run (ms, from `SystemInfo.getProcessInfo`): its renderer processes (the
   * page: script, style, layout, paint) and its GPU process (compositing and raster, in software
   * here), per side. CPU, unlike wall time, hardly moves with other engineers' load, so changes
   * to the output path are judged by it (ms per MiB).
   */
  cpu: { berth: RunCpu[]; wetty: RunCpu[] };
}

export interface RunCpu {
  renderer: number;
  gpu: number;
}

export interface SwitchResult {
  chats: number;
  samples: number[];
  summary: Summary;
  /** Animation frames from the click to the first that showed the chat (1: the next frame). */
  frames: Summary;
  /** The page's JS heap (used) after the switches, in MB, with every chat's screen kept or not. */
  pageHeapMb: number | null;
  /**
   * The floor, interleaved with the switches: a click on the chat already open (nothing to
   * change) to the end of the next frame, on the same clock. What the machine's load and the
   * frame itself cost, whatever the app does.
   */
  floor: Summary;
}

export interface BrowserBenchResult {
  chromium: string;
  profile: string;
  throughput: ThroughputResult | null;
  switching: SwitchResult | null;
  /** What cleanup found or had to do (empty when all went as planned). */
  cleanupNotes: string[];
}

// ---------- the renderer build ----------

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (/\.(tsx?|css|html)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist/renderer when it is missing. A build older than the renderer's sources is used
 * as it is (another process may be serving it), with a note saying so.
 */
export async function ensureRendererBuilt(log: (line: string) => void): Promise<void> {
  if (fs.existsSync(RENDERER_INDEX)) {
    const built = fs.statSync(RENDERER_INDEX).mtimeMs;
    const sources = Math.max(newestMtime(path.join(REPO, 'renderer')), newestMtime(path.join(REPO, 'shared')));
    if (sources > built) log('note:    dist/renderer is older than renderer/ or shared/: this measures the built UI; `npm run build:renderer` to measure the current sources');
    return;
  }
  log('browser: dist/renderer is missing: running `npm run build:renderer`…');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'build:renderer'], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build:renderer exited ${code}:\n${stderr.slice(-2000)}`))));
  });
}

// ---------- the page ----------

/** What the evaluated functions see of the page (this project's Node types have no DOM). */
interface PageGlobals {
  __berthTest: { terminalText(terminalId?: string): string; screenText(terminalId?: string): string; activeTerminalId(): string | null };
  __berthBench?: Probe;
  __berthWire?: Wire;
  wetty_term?: { rows: number; buffer: { active: { viewportY: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined } } };
  MessageChannel: new () => { port1: { onmessage: (() => void) | null }; port2: { postMessage(m: unknown): void } };
  document: {
    addEventListener(type: string, fn: (ev: { key?: string }) => void, capture: boolean): void;
    removeEventListener(type: string, fn: (ev: { key?: string }) => void, capture: boolean): void;
    querySelector(selector: string): { textContent: string | null } | null;
  };
  requestAnimationFrame(fn: () => void): number;
  performance: { now(): number; mark(name: string): void };
  WebSocket: unknown;
}

/** One armed measurement: start at a click or at Enter, end when the text shows. */
interface Probe {
  startAt: number | null;
  seenAt: number | null;
  /** The wire counters (reset at the start) when the text showed. */
  wireAtSeen: WireCounts | null;
  /** Animation frames from the start to the one that showed the text (1: the first frame after the click). */
  frames: number;
}

interface WireCounts {
  frames: number;
  frameChars: number;
  acks: number;
  firstDataAt: number | null;
  lastDataAt: number | null;
}

interface Wire extends WireCounts {
  reset(): void;
}

/**
 * Counts `terminal.data` frames the page receives and `terminal.ack` calls it sends, by
 * wrapping the page's WebSocket before the app starts. Costs a prefix check per frame.
 */
function installWireCounter(): void {
  const g = globalThis as unknown as PageGlobals;
  type Ws = new (...args: unknown[]) => { addEventListener(t: string, fn: (ev: { data: unknown }) => void): void; send(d: unknown): void };
  const Original = g.WebSocket as Ws;
  const wire: Wire = {
    frames: 0,
    frameChars: 0,
    acks: 0,
    firstDataAt: null,
    lastDataAt: null,
    reset() {
      this.frames = 0;
      this.frameChars = 0;
      this.acks = 0;
      this.firstDataAt = null;
      this.lastDataAt = null;
    },
  };
  g.__berthWire = wire;
  class Counting extends Original {
    constructor(...args: unknown[]) {
      super(...args);
      this.addEventListener('message', (ev) => {
        const data = ev.data;
        // Terminal output arrives as binary frames (shared/terminalFrame.ts: kind 1; bytes, which
        // are characters for this ASCII file), or as JSON text to a client that did not ask for them.
        let size: number;
        if (data instanceof ArrayBuffer && data.byteLength > 0 && new Uint8Array(data, 0, 1)[0] === 1) size = data.byteLength;
        else if (typeof data === 'string' && data.slice(0, 64).includes('"method":"terminal.data"')) size = data.length;
        else return;
        const t = g.performance.now();
        wire.frames++;
        wire.frameChars += size;
        wire.firstDataAt ??= t;
        wire.lastDataAt = t;
      });
    }
    override send(d: unknown): void {
      if (typeof d === 'string' && d.includes('"method":"terminal.ack"')) wire.acks++;
      super.send(d);
    }
  }
  g.WebSocket = Counting;
}

type StartOn = 'click' | 'enter';
/**
 * 'buffer': the active terminal's buffer through the test hook; 'screen': the rows in view;
 * 'painted': the shown terminal's drawn rows (the DOM renderer's text), timed after that frame's
 * paint; 'wetty': the rows on wetty's screen.
 */
type WatchIn = 'buffer' | 'screen' | 'painted' | 'wetty';

/**
 * Arms a probe in the page: the clock starts at the next click (or Enter keydown), captured
 * before the app sees it; from then on, every animation frame checks for `text` until seen.
 */
function armProbe(args: { startOn: StartOn; watchIn: WatchIn; text: string }): void {
  const g = globalThis as unknown as PageGlobals;
  const snapshot = (): WireCounts | null => {
    const w = g.__berthWire;
    return w ? { frames: w.frames, frameChars: w.frameChars, acks: w.acks, firstDataAt: w.firstDataAt, lastDataAt: w.lastDataAt } : null;
  };
  const probe: Probe = { startAt: null, seenAt: null, wireAtSeen: null, frames: 0 };
  g.__berthBench = probe;
  const shows = (): boolean => {
    if (args.watchIn === 'buffer') return g.__berthTest.terminalText().includes(args.text);
    if (args.watchIn === 'wetty') {
      const t = g.wetty_term;
      if (!t) return false;
      const b = t.buffer.active;
      for (let y = b.viewportY; y < b.viewportY + t.rows; y++) if (b.getLine(y)?.translateToString(true).includes(args.text)) return true;
      return false;
    }
    if (args.watchIn === 'painted') {
      // What the user sees: the drawn rows of the terminal tab on screen, not xterm's buffer.
      const rows = g.document.querySelector('.terminal-panel:not([hidden]) .xterm-rows');
      return rows?.textContent?.includes(args.text) === true;
    }
    // The rows in view: a few dozen, cheap to read each frame, whichever renderer draws them.
    return g.__berthTest.screenText().includes(args.text);
  };
  const poll = () => {
    if (g.__berthBench !== probe) return;
    probe.frames++;
    if (!shows()) {
      g.requestAnimationFrame(poll);
      return;
    }
    probe.wireAtSeen = snapshot();
    if (args.watchIn !== 'painted') {
      probe.seenAt = g.performance.now();
      return;
    }
    // A task posted from an animation frame runs after that frame's style, layout and paint.
    const channel = new g.MessageChannel();
    channel.port1.onmessage = () => {
      probe.seenAt = g.performance.now();
      // In a --trace recording: where this measurement ended (its start is the click's EventDispatch).
      g.performance.mark('berth-switch-seen');
    };
    channel.port2.postMessage(0);
  };
  const type = args.startOn === 'click' ? 'click' : 'keydown';
  const onEvent = (ev: { key?: string }) => {
    if (args.startOn === 'enter' && ev.key !== 'Enter') return;
    g.document.removeEventListener(type, onEvent, true);
    g.__berthWire?.reset();
    probe.startAt = g.performance.now();
    g.requestAnimationFrame(poll);
  };
  g.document.addEventListener(type, onEvent, true);
}

interface ProbeResult {
  ms: number;
  wire: WireCounts | null;
  startAt: number;
  frames: number;
}

async function probeResult(page: Page, timeoutMs: number, what: string): Promise<ProbeResult> {
  try {
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).__berthBench?.seenAt != null, undefined, { polling: 100, timeout: timeoutMs });
  } catch {
    throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}. The terminal shows (tail):\n${(await terminalText(page).catch(() => '')).slice(-1500)}`);
  }
  const p = await page.evaluate(() => (globalThis as unknown as PageGlobals).__berthBench as Probe);
  return { ms: (p.seenAt as number) - (p.startAt as number), wire: p.wireAtSeen, startAt: p.startAt as number, frames: p.frames };
}

// ---------- driving the UI (e2e/support/ui.ts) ----------

const waitForTerminal = (page: Page, pred: (text: string) => boolean, what: string, timeout = 30_000) =>
  waitForTerminalEvery(page, pred, what, timeout, 50);

/** The rows in view of the shown terminal tab, trimmed. */
async function screenText(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as PageGlobals).__berthTest.screenText().trim());
}

async function newChatIn(page: Page, profile: string): Promise<void> {
  const previous = await activeTerminal(page);
  await page.getByLabel('Profile for new chats').selectOption(profile);
  await page.getByRole('button', { name: 'New chat' }).click();
  const deadline = Date.now() + 60_000;
  while ((await activeTerminal(page)) === previous && Date.now() < deadline) await page.waitForTimeout(50);
  await waitForTerminal(page, (t) => PROMPT_AT_END.test(t), "the new chat's first prompt", 60_000);
}

/** The host's running containers. */
async function containersOf(instanceId: string): Promise<string[]> {
  return containersWithLabel(`berth.instance=${instanceId}`, { running: true });
}

/** `docker exec [-t] C cat FILE` with stdout to /dev/null: from spawn to exit, in ms. */
function timeCliCat(containerId: string, file: string, tty: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('docker', ['exec', ...(tty ? ['-t'] : []), containerId, 'cat', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const t1 = performance.now();
      if (code === 0) resolve(t1 - t0);
      else reject(new Error(`docker exec cat exited ${code}: ${stderr.trim()}`));
    });
  });
}

// ---------- the measurements ----------

/** Records a Chromium trace (open it in DevTools' Performance panel) until stop(); null without --trace. */
async function startTrace(page: Page, opts: BrowserBenchOptions, name: string): Promise<{ stop(): Promise<void> } | null> {
  if (opts.traceDir === null) return null;
  const browser = page.context().browser();
  if (!browser) return null;
  fs.mkdirSync(opts.traceDir, { recursive: true });
  const file = path.join(opts.traceDir, `${name}.json`);
  await browser.startTracing(page, {
    path: file,
    screenshots: false,
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler', 'v8.execute', 'blink.user_timing'],
  });
  return {
    async stop() {
      await browser.stopTracing();
      opts.log(`browser: trace written to ${file}`);
    },
  };
}

async function measureSwitching(page: Page, opts: BrowserBenchOptions, profile: string): Promise<SwitchResult | null> {
  opts.log(`browser: chat switch: opening ${opts.chats} chats in ${profile}…`);
  for (let i = 1; i <= opts.chats; i++) {
    await newChatIn(page, profile);
    // Some output to repaint (a screenful and more of scrollback), then the marker.
    await typeInTerminal(page, `ls -l /bin | head -n 200; echo chat-${i}-marker`);
    await waitForTerminal(page, (t) => t.split('\n').some((l) => l.trim() === `chat-${i}-marker`), `chat ${i}'s marker`);
  }
  const nav = page.getByRole('navigation', { name: 'Chats' });
  const buttons = Array.from({ length: opts.chats }, (_, i) => nav.getByRole('button', { name: `Chat ${i + 1}`, exact: true }));
  const samples: number[] = [];
  const frames: number[] = [];
  const floor: number[] = [];
  const total = opts.chats + opts.switches; // the first round is a warm-up
  const trace = await startTrace(page, opts, 'switch');
  for (let n = 0; n < total; n++) {
    if (opts.interrupted()) return null;
    const i = n % opts.chats; // the newest chat (the last) is selected now: start at the first
    const marker = `chat-${i + 1}-marker`;
    await page.evaluate(armProbe, { startOn: 'click' as StartOn, watchIn: 'painted' as WatchIn, text: marker });
    await (buttons[i] as ReturnType<typeof nav.getByRole>).click();
    const r = await probeResult(page, 15_000, `${marker} after clicking Chat ${i + 1}`);
    if (n >= opts.chats) {
      samples.push(r.ms);
      frames.push(r.frames);
      await page.evaluate(armProbe, { startOn: 'click' as StartOn, watchIn: 'painted' as WatchIn, text: marker });
      await (buttons[i] as ReturnType<typeof nav.getByRole>).click();
      floor.push((await probeResult(page, 15_000, `${marker} after clicking the open Chat ${i + 1} again`)).ms);
    }
  }
  await trace?.stop();
  const pageHeapMb = await page
    .evaluate(() => {
      const m = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return m ? m.usedJSHeapSize / 1e6 : null;
    })
    .catch(() => null);
  return { chats: opts.chats, samples, summary: summarize(samples), frames: summarize(frames), pageHeapMb, floor: summarize(floor) };
}

/** Chromium's CPU time so far (ms), by process type: renderers and the GPU process. */
async function chromiumCpu(browser: Browser): Promise<() => Promise<RunCpu>> {
  const cdp = await browser.newBrowserCDPSession();
  const read = async (): Promise<RunCpu> => {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ type: string; cpuTime: number }> };
    const sum = (type: string) => processInfo.filter((p) => p.type === type).reduce((a, p) => a + p.cpuTime * 1000, 0);
    return { renderer: sum('renderer'), gpu: sum('GPU') };
  };
  return read;
}

function cpuSince(a: RunCpu, b: RunCpu): RunCpu {
  return { renderer: b.renderer - a.renderer, gpu: b.gpu - a.gpu };
}

/** `clear`, then wait until wetty's screen shows only a prompt. */
async function clearWetty(w: WettyPeer): Promise<void> {
  await w.type('clear');
  await waitForWetty(w, (s) => !s.includes('END-') && PROMPT_AT_END.test(s.trim()), 'a cleared screen');
}

async function measureThroughput(page: Page, browser: Browser, host: RunningHost, opts: BrowserBenchOptions, profile: string): Promise<ThroughputResult | null> {
  opts.log(`browser: throughput: a new chat with a ${opts.blobMib} MiB text file…`);
  await newChatIn(page, profile);
  // The chat's container is the one its terminal writes in: a warm pool may hand over an existing
  // container and start another meanwhile, so "the new container" names none reliably.
  const mark = `/tmp/berth-bench-${randomBytes(8).toString('hex')}`;
  // The shell prints MARKED42 only after the touch; the typed line itself reads MARKED$((6*7)).
  await typeInTerminal(page, `touch ${mark} && echo MARKED$((6*7))`);
  await waitForTerminal(page, (t) => t.includes('MARKED42'), 'the mark file');
  const owners: string[] = [];
  for (const id of await containersOf(host.instanceId)) {
    if (await dockerOk('exec', id, 'test', '-e', mark)) owners.push(id);
  }
  if (owners.length !== 1) throw new Error(`Expected one container with the throughput chat's mark, found ${owners.length}.`);
  const container = owners[0] as string;
  const rawBytes = Math.floor((opts.blobMib * 1024 * 1024 * 3) / 4);
  const blobBytes = Number(await docker('exec', container, 'sh', '-c', `head -c ${rawBytes} /dev/urandom | base64 -w 100 > /tmp/blob && wc -c < /tmp/blob`));
  const lastLine = await docker('exec', container, 'tail', '-n', '1', '/tmp/blob');
  if (!Number.isFinite(blobBytes) || blobBytes <= 0 || lastLine.length === 0) throw new Error('Could not create /tmp/blob in the container.');
  await typeInTerminal(page, 'echo SIZE $(stty size)-END');
  const sized = /SIZE (\d+ \d+)-END/.exec(await waitForTerminal(page, (t) => /SIZE \d+ \d+-END/.test(t), 'stty size'));
  const ttySize = sized?.[1] ?? '?';
  const [rows, cols] = ttySize.split(' ').map(Number);
  if (!rows || !cols) throw new Error(`Could not read the terminal's size (stty size said ${ttySize}).`);

  opts.log(`browser: throughput: starting wetty (docker exec -it ${container.slice(0, 12)} sh) at ${rows}×${cols}…`);
  const wetty = await startWetty({
    browser,
    container,
    size: { rows, cols },
    font: TERMINAL_FONT,
    webgl: opts.wettyWebgl,
    initScripts: [{ content: 'globalThis.__name ??= (fn) => fn;' }],
  });
  try {

    // What wetty's page received while Berth's ran: the two pages share one browser, so a busy peer would slow Berth.
    const wettyDuringBerth: number[] = [];
    // Chromium's CPU during the last Berth or wetty run (from the Enter key to END-42 seen).
    const readCpu = await chromiumCpu(browser);
    let lastCpu: RunCpu = { renderer: Number.NaN, gpu: Number.NaN };
    const cpuBerth: RunCpu[] = [];
    const cpuWetty: RunCpu[] = [];
    const berthRun = async (): Promise<ProbeResult> => {
      // Start from a clear screen and scrollback, so each run writes into the same state.
      await typeInTerminal(page, 'clear');
      const deadline = Date.now() + 30_000;
      for (let s = await screenText(page); s.includes('END-') || !PROMPT_AT_END.test(s); s = await screenText(page)) {
        if (Date.now() > deadline) throw new Error(`The screen did not clear. It shows:\n${await screenText(page)}`);
        await page.waitForTimeout(50);
      }
      await typeInTerminal(page, 'cat /tmp/blob; echo END-$((6*7))', false);
      await page.evaluate(armProbe, { startOn: 'enter' as StartOn, watchIn: 'screen' as WatchIn, text: 'END-42' });
      const wettyBefore = await wetty.received();
      const cpu0 = await readCpu();
      await page.keyboard.press('Enter');
      const r = await probeResult(page, 300_000, 'END-42 after cat /tmp/blob');
      lastCpu = cpuSince(cpu0, await readCpu());
      wettyDuringBerth.push((await wetty.received()) - wettyBefore);
      // Untimed check: the file's last line reached xterm's buffer, so nothing was dropped on the way.
      const text = await terminalText(page);
      if (!text.includes(lastLine) || !text.includes('END-42')) throw new Error("The terminal shows END-42 but not the file's last line: output was lost.");
      return r;
    };
    const wettyRun = async (): Promise<number> => {
      await clearWetty(wetty);
      await wetty.type('cat /tmp/blob; echo END-$((6*7))', false);
      await wetty.page.evaluate(armProbe, { startOn: 'enter' as StartOn, watchIn: 'wetty' as WatchIn, text: 'END-42' });
      const cpu0 = await readCpu();
      await wetty.page.keyboard.press('Enter');
      try {
        await wetty.page.waitForFunction(() => (globalThis as unknown as PageGlobals).__berthBench?.seenAt != null, undefined, { polling: 100, timeout: 600_000 });
      } catch {
        throw new Error(`Timed out waiting for END-42 in wetty. It shows:\n${await wetty.screenText()}`);
      }
      lastCpu = cpuSince(cpu0, await readCpu());
      const p = await wetty.page.evaluate(() => (globalThis as unknown as PageGlobals).__berthBench as Probe);
      // The same untimed check as Berth's: the file's last line is in wetty's buffer too.
      if (!(await wetty.tailText(rows + 5)).includes(lastLine)) throw new Error("wetty shows END-42 but not the file's last line.");
      return (p.seenAt as number) - (p.startAt as number);
    };
    const cliRun = () => timeCliCat(container, '/tmp/blob', false);
    const ttyRun = () => timeCliCat(container, '/tmp/blob', true);

    opts.log(`browser: throughput: ${blobBytes} bytes; 1 warm-up + ${opts.throughputRuns} timed runs per side, alternating…`);
    const trace = await startTrace(page, opts, 'throughput-berth');
    await berthRun();
    await trace?.stop();
    const wettyTrace = await startTrace(wetty.page, opts, 'throughput-wetty');
    await wettyRun();
    await wettyTrace?.stop();
    await cliRun();
    await ttyRun();
    const berth: ProbeResult[] = [];
    const wet: number[] = [];
    const cli: number[] = [];
    const tty: number[] = [];
    const steps: Array<() => Promise<void>> = [
      async () => {
        berth.push(await berthRun());
        cpuBerth.push(lastCpu);
      },
      async () => {
        wet.push(await wettyRun());
        cpuWetty.push(lastCpu);
      },
      async () => void cli.push(await cliRun()),
      async () => void tty.push(await ttyRun()),
    ];
    for (let i = 0; i < opts.throughputRuns; i++) {
      if (opts.interrupted()) return null;
      // Rotate which side goes first, so drift hits all alike.
      for (let k = 0; k < steps.length; k++) await (steps[(i + k) % steps.length] as () => Promise<void>)();
      opts.log(`  run ${i + 1}: (wetty's socket received ${wettyDuringBerth.at(-1) ?? '?'} characters during Berth's run) Berth ${(berth[i] as ProbeResult).ms.toFixed(0)} ms, wetty ${(wet[i] as number).toFixed(0)} ms, CLI ${(cli[i] as number).toFixed(0)} ms, CLI -t ${(tty[i] as number).toFixed(0)} ms`);
    }
    const berthMs = berth.map((r) => r.ms);
    const mib = blobBytes / 2 ** 20;
    const berthMiBps = mib / (summarize(berthMs).median / 1000);
    const wettyMiBps = mib / (summarize(wet).median / 1000);
    const cliMiBps = mib / (summarize(cli).median / 1000);
    const cliTtyMiBps = mib / (summarize(tty).median / 1000);
    const med = (f: (r: ProbeResult) => number) => summarize(berth.map(f)).median;
    const rel = (at: number | null | undefined, r: ProbeResult) => (at == null ? Number.NaN : at - r.startAt);
    return {
      blobBytes,
      ttySize,
      berthMs,
      wettyMs: wet,
      wetty: { version: wetty.version, renderer: wetty.renderer },
      cliMs: cli,
      cliTtyMs: tty,
      berthMiBps,
      wettyMiBps,
      cliMiBps,
      cliTtyMiBps,
      ratio: berthMiBps / cliTtyMiBps,
      wettyRatio: berthMiBps / wettyMiBps,
      cpu: { berth: cpuBerth, wetty: cpuWetty },
      split: {
        firstDataMs: med((r) => rel(r.wire?.firstDataAt, r)),
        lastDataMs: med((r) => rel(r.wire?.lastDataAt, r)),
        shownMs: med((r) => r.ms),
        frames: med((r) => r.wire?.frames ?? Number.NaN),
        frameChars: med((r) => r.wire?.frameChars ?? Number.NaN),
        acks: med((r) => r.wire?.acks ?? Number.NaN),
      },
    };
  } finally {
    await wetty.stop();
  }
}

export async function measureBrowser(opts: BrowserBenchOptions): Promise<BrowserBenchResult> {
  const root = tempRoot();
  const profile = `bench-${randomBytes(4).toString('hex')}`;
  let host: RunningHost | null = null;
  let browser: Browser | null = null;
  const cleanupNotes: string[] = [];
  const result: BrowserBenchResult = { chromium: CHROMIUM, profile, throughput: null, switching: null, cleanupNotes };
  try {
    let page: Page;
    ({ host, browser, page } = await openApp(root, {
      // tsx compiles this file with esbuild's keepNames: functions handed to the page call `__name`.
      initScripts: [{ content: 'globalThis.__name ??= (fn) => fn;' }, installWireCounter],
    }));
    result.chromium = `${CHROMIUM} (Chromium ${browser.version()}, headless)`;
    await createProfile(page, profile, opts.image);

    result.switching = opts.chats > 0 ? await measureSwitching(page, opts, profile) : null;
    if (opts.throughput && !opts.interrupted()) result.throughput = await measureThroughput(page, browser, host, opts, profile);
    return result;
  } finally {
    await browser?.close().catch((e: unknown) => cleanupNotes.push(`closing Chromium failed: ${String(e)}`));
    if (host) {
      const instanceId = host.instanceId;
      // Stopping removes the host's containers and its profiles' networks.
      await host.stop().catch((e: unknown) => cleanupNotes.push(`stopping the host failed: ${String(e)}`));
      const left = await containersOf(instanceId).catch(() => []);
      if (left.length) cleanupNotes.push(`${left.length} container(s) of this host are still there`);
    }
    const net = networkNameFor(profile);
    if (await dockerOk('network', 'inspect', net)) cleanupNotes.push(`network ${net} is still there`);
    fs.rmSync(root, { recursive: true, force: true });
  }
}
