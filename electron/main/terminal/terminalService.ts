/**
 * Interactive terminals: shells with a TTY in a chat's own container. Output goes to
 * listeners as events (never through a store), with a replay buffer for coming back to a
 * chat and flow control so a flood cannot swamp the screen.
 */
import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { TerminalView } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { terminalNote } from '../../../shared/terminalNote.js';
import type { TtyProcess } from '../engine/dockerEngine.js';
import type { EventHub, MainEvents } from '../events.js';
import { TERMINAL_ENV } from './common/terminalProcesses.js';
import { processesIn } from './processList.js';
import type { SandboxService } from '../sandbox/sandboxService.js';
import type { SandboxContainers } from '../sandbox/sandboxContainers.js';
import { systemClock, type Clock } from '../base/clock.js';
import { TERMINAL_OUTPUT } from '../../../shared/flowControl.js';
import { FlowControl } from './flowControl.js';
import { OutputJoiner } from '../../../shared/outputJoiner.js';
import { newTerminal, type Terminal } from './terminalRecord.js';
import { afterTyping } from './common/typedLine.js';
import type { TerminalSize } from './common/viewSizes.js';
import { ENVIRONMENT_CHANGED_NOTE, FOLDERS_CHANGED_NOTE, RECREATED_NOTE } from './restartNotes.js';
import type { BerthRestartMarks } from './berthRestart.js';

const REPLAY_CHARS = 256 * 1024;
/** What a restarting terminal keeps of what is typed meanwhile. */
const TYPE_AHEAD_CHARS = 64 * 1024;
/** Terminals outlive a reload, not an absence: with no screen connected this long, they close. */
export const UNWATCHED_TTL_MS = 15 * 60_000;
/** How long an ended terminal's last screen stays available before it is let go. */
const EXITED_TTL_MS = 10 * 60_000;
const SHELL = ['/bin/sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi'];


export class TerminalService {
  private readonly terminals = new Map<string, Terminal>();
  /** Connected screens (a window, a browser tab). With none, output only fills the replay buffer. */
  private readonly clients = new Set<string>();
  private unwatchedTimer: unknown = null;
  private readonly counters = new Map<string, number>();
  /**
   * Per chat: a sequence bumped whenever its terminals are ended or restarted, with the last of
   * each, so a terminal still opening then follows the others.
   */
  private readonly changes = new Map<string, { seq: number; ended: { seq: number; reason: string } | null; restarted: { seq: number; note: string } | null }>();
  /** Per chat: the terminals waiting to start again in its recreated sandbox, one at a time. */
  private readonly restartQueues = new Map<string, { pending: Set<Terminal>; note: string; done: Promise<void> }>();

  constructor(
    private readonly sandbox: SandboxService,
    private readonly manager: SandboxContainers,
    private readonly events: EventHub,
    private readonly clock: Clock,
    mainEvents?: MainEvents,
    private readonly marks: BerthRestartMarks | null = null,
  ) {
    manager.onGone((key, reason, replaced) => this.containerGone(key, reason, replaced === true));
    // A chat's open terminals run in a container without its new folders: they start again in the new one, saying why.
    mainEvents?.on('folders.remounted', ({ chatId }) => void this.restartForChat(chatId, FOLDERS_CHANGED_NOTE));
    mainEvents?.on('environment.switched', ({ chatId }) => void this.restartForChat(chatId, ENVIRONMENT_CHANGED_NOTE));
    // A pooled chat's folders moving in the container it keeps: its shells are told, not restarted;
    // its first folder arriving there: idle terminals start again in it, busy ones are told.
    mainEvents?.on('folders.moved', ({ chatId, note, restartIdle }) => {
      if (restartIdle) void this.restartIdleForChat(chatId, restartIdle, note);
      else this.noteForChat(chatId, note);
    });
  }

  /**
   * The container of these terminals goes. Stopped or removed: each ends saying why, rather than
   * guess from the container's state after. Replaced by a new one (its image, folders or settings
   * changed, and no part of main restarted them first): each starts again in place there, as
   * after an attach, never left waiting for Restart.
   */
  private containerGone(key: string, reason: string, replaced: boolean): void {
    for (const t of [...this.terminals.values()]) {
      if (t.key !== key || t.restarting) continue;
      if (replaced) void this.restart(t.view.chatId, RECREATED_NOTE, [t]);
      else this.finish(t, reason);
    }
  }

  /** The chat a terminal belongs to, or null when it is gone. */
  chatOf(terminalId: string): string | null {
    return this.terminals.get(terminalId)?.view.chatId ?? null;
  }

  list(chatId: string): TerminalView[] {
    return [...this.terminals.values()].filter((t) => t.view.chatId === chatId).map((t) => ({ ...t.view }));
  }

  /** `replaces`: a terminal of this chat the new one takes the place of (Restart): it keeps that one's name. */
  async open(chatId: string, cols: number, rows: number, replaces?: string, client: string | null = null): Promise<TerminalView> {
    const seqBefore = this.changes.get(chatId)?.seq ?? 0;
    const terminal = newTerminal({ terminalId: randomUUID(), chatId, title: '', state: 'starting', exitReason: null, cols, rows }, REPLAY_CHARS);
    terminal.sizes.set(client, { cols, rows });
    const started = await this.sandbox.startForTerminal(chatId, (where) => this.startShell(terminal, where.key, where.containerId, where.user, where.workingDir));
    const proc = started.started;
    const replaced = replaces === undefined ? undefined : this.terminals.get(replaces);
    if (replaced && replaced.view.chatId === chatId) terminal.view.title = replaced.view.title;
    else {
      const number = (this.counters.get(chatId) ?? 0) + 1;
      this.counters.set(chatId, number);
      terminal.view.title = `Terminal ${number}`;
    }
    // Ended tabs do not pile up: a new terminal replaces the chat's ended ones.
    for (const t of [...this.terminals.values()]) if (t.view.chatId === chatId && t.view.state === 'exited') this.terminals.delete(t.view.terminalId);
    Object.assign(terminal, { key: started.key, containerId: started.containerId, user: started.user, hold: started.hold, process: proc });
    this.terminals.set(terminal.view.terminalId, terminal);
    terminal.view.state = 'running';
    this.pipe(terminal, proc);
    const earlier = this.marks?.opened(chatId);
    if (earlier) terminal.output?.push(terminalNote(earlier)); // first: the shell's output comes later, as data events
    const change = this.changes.get(chatId);
    if (change?.ended && change.ended.seq > seqBefore) {
      // The chat's terminals were closed (closeForChat) while this one was starting: it ends too.
      this.finish(terminal, change.ended.reason);
      proc.stream.destroy();
    } else if (change?.restarted && change.restarted.seq > seqBefore) {
      // The chat's folders changed while it was starting, maybe in the sandbox being replaced:
      // it starts again in the new one, in place, like the chat's other terminals.
      void this.restart(chatId, change.restarted.note, [terminal]);
    }
    return { ...terminal.view };
  }

  private startShell(terminal: Terminal, key: string, containerId: string, user: string, workingDir: string): Promise<TtyProcess> {
    // The key names the chat's engine (a new terminal has none of its own yet).
    return this.manager.engineOf(key).execTty(containerId, {
      cmd: SHELL,
      user,
      // The marker lets `busy` tell this terminal's processes from the rest (policy/terminalProcesses).
      env: ['TERM=xterm-256color', 'COLORTERM=truecolor', `${TERMINAL_ENV}=${terminal.view.terminalId}`],
      workingDir,
      cols: terminal.view.cols,
      rows: terminal.view.rows,
    });
  }

  /**
   * What the user runs in the chat's terminals (their shells left out), per terminal: what
   * recreating its sandbox would stop. Terminals with nothing running are left out.
   */
  async busy(chatId: string): Promise<Array<{ terminalId: string; title: string; processes: string[] }>> {
    const running = [...this.terminals.values()].filter((t) => t.view.chatId === chatId && t.view.state === 'running' && t.process);
    const found = (await this.processes(running)) ?? new Map<string, string[]>();
    return running
      .filter((t) => (found.get(t.view.terminalId) ?? []).length > 0)
      .map((t) => ({ terminalId: t.view.terminalId, title: t.view.title, processes: found.get(t.view.terminalId) ?? [] }));
  }

  private processes = (running: readonly Terminal[]): Promise<Map<string, string[]> | null> =>
    processesIn(this.manager, running.map((t) => ({ terminalId: t.view.terminalId, key: t.key, containerId: t.containerId, user: t.user })));

  private change(chatId: string) {
    let c = this.changes.get(chatId);
    if (!c) this.changes.set(chatId, (c = { seq: 0, ended: null, restarted: null }));
    c.seq++;
    return c;
  }

  /**
   * The chat's sandbox is being recreated (its folders changed): each running terminal starts a
   * new shell in the new container, in the same tab with the same name, after a line saying why.
   * One that cannot start again ends, saying why. Restarts of a chat run one after another and
   * join: folders changed again while terminals restart start them (once more) in the newest
   * sandbox, never in one being removed.
   */
  restartForChat(chatId: string, note: string): Promise<void> {
    const c = this.change(chatId);
    c.restarted = { seq: c.seq, note };
    const running = [...this.terminals.values()].filter((t) => t.view.chatId === chatId && t.view.state === 'running');
    return this.restart(chatId, note, running);
  }

  /**
   * The chat's sandbox is about to be replaced (a remote one whose copies Berth rewrites:
   * terminal/copyRewrite): its running terminals let go of it first, so its going ends none of
   * them; the function returned starts them again in place in the new one after `note`, what is
   * typed meanwhile kept for them.
   */
  letGo(chatId: string): (note: string) => void {
    const running = [...this.terminals.values()].filter((t) => t.view.chatId === chatId && t.view.state === 'running');
    for (const t of running) this.detach(t);
    return (note) => {
      const c = this.change(chatId);
      c.restarted = { seq: c.seq, note };
      void this.restart(chatId, note, running);
    };
  }

  /**
   * Something the chat's running shells must know although they are kept (workspace/folderMoves:
   * their folder moved in the container they run in): said once in each, after what it printed.
   * A terminal starting again (it has no shell yet) starts in the new layout and is not told.
   */
  noteForChat(chatId: string, note: string): void {
    for (const t of this.terminals.values()) {
      if (t.view.chatId !== chatId || t.view.state !== 'running' || !t.process || !t.output) continue;
      t.output.push(terminalNote(note));
      t.output.flush();
    }
  }

  /**
   * The chat's folders changed in the container it keeps, so that its shells should be elsewhere
   * (workspace/folderMoves firstFolderNotes): a terminal with nothing running in it starts again
   * in place, in the folders, after `restartNote`; one running something is kept and told `keptNote`.
   */
  async restartIdleForChat(chatId: string, restartNote: string, keptNote: string): Promise<void> {
    const running = [...this.terminals.values()].filter((t) => t.view.chatId === chatId && t.view.state === 'running' && t.process);
    const inputs = new Map(running.map((t) => [t, t.inputs]));
    // Not known what runs (the engine did not answer): every shell is kept, none stopped unasked.
    const found = await this.processes(running);
    const c = this.change(chatId);
    c.restarted = { seq: c.seq, note: restartNote };
    const idle: Terminal[] = [];
    for (const t of running) {
      if (t.view.state !== 'running' || !t.process) continue;
      // Idle: nothing runs, no line is half typed, and nothing was typed while that was looked up.
      if (found && (found.get(t.view.terminalId) ?? []).length === 0 && t.typedLine === '' && t.inputs === inputs.get(t)) idle.push(t);
      else if (t.output) {
        t.output.push(terminalNote(keptNote));
        t.output.flush();
      }
    }
    await this.restart(chatId, restartNote, idle);
  }

  private restart(chatId: string, note: string, terminals: Terminal[]): Promise<void> {
    // Let go of the old container at once: its going is expected now, and typing waits for the new shell.
    for (const t of terminals) this.detach(t);
    const queued = this.restartQueues.get(chatId);
    if (queued) {
      for (const t of terminals) queued.pending.add(t);
      queued.note = note;
      return queued.done;
    }
    const q = { pending: new Set(terminals), note, done: Promise.resolve() };
    this.restartQueues.set(chatId, q);
    q.done = (async () => {
      try {
        for (let next = q.pending.values().next().value; next; next = q.pending.values().next().value) {
          q.pending.delete(next);
          await this.restartOne(chatId, next, q);
        }
      } finally {
        this.restartQueues.delete(chatId);
      }
    })();
    return q.done;
  }

  /** Still open and not ended (it may have been closed while something awaited). */
  private alive(t: Terminal): boolean {
    return this.terminals.get(t.view.terminalId) === t && t.view.state !== 'exited';
  }

  private detach(t: Terminal): void {
    // The line being typed in the old shell is typed again in the new one.
    if (t.process) t.typedAhead = t.typedLine;
    t.restarting = true;
    const old = t.process;
    t.process = null;
    t.output?.flush();
    old?.stream.destroy();
    t.hold.dispose();
  }

  private async restartOne(chatId: string, t: Terminal, q: { pending: Set<Terminal>; note: string }): Promise<void> {
    if (!this.alive(t)) return;
    const note = q.note;
    try {
      const started = await this.sandbox.startForTerminal(chatId, (where) => this.startShell(t, where.key, where.containerId, where.user, where.workingDir));
      const proc = started.started;
      // Closed or ended meanwhile; or queued again (the folders changed again): the next turn starts it in the newest sandbox.
      if (!this.alive(t) || q.pending.has(t)) {
        started.hold.dispose();
        proc.stream.destroy();
        return;
      }
      Object.assign(t, { key: started.key, containerId: started.containerId, user: started.user, hold: started.hold });
      // Said before anything the new shell prints (its output is joined and sent after this).
      t.output?.push(terminalNote(note));
      t.output?.flush();
      t.process = proc;
      t.restarting = false;
      this.pipe(t, proc);
      if (t.typedAhead !== '') proc.stream.write(t.typedAhead);
      t.typedAhead = '';
    } catch (error) {
      if (q.pending.has(t)) return;
      const why = error instanceof Error ? error.message : String(error);
      t.restarting = false;
      t.typedAhead = '';
      this.finish(t, `${note} It could not start again: ${why}`);
    }
  }

  private pipe(terminal: Terminal, proc: TtyProcess): void {
    const decoder = new StringDecoder('utf8');
    const id = terminal.view.terminalId;
    // Real time, not the injected clock: a few milliseconds of pacing is nothing a test that
    // moves the idle clock by hand should have to drive.
    const output = new OutputJoiner((data) => this.send(terminal, id, data), {
      intervalMs: TERMINAL_OUTPUT.coalesceMs,
      maxChars: TERMINAL_OUTPUT.coalesceMaxChars,
    }, { now: systemClock.now, set: systemClock.setTimeout, clear: systemClock.clearTimeout });
    terminal.output = output;
    proc.stream.on('data', (chunk: Buffer) => output.push(decoder.write(chunk)));
    void proc.ended.then(async () => {
      output.flush();
      // A shell replaced by a restart (restartForChat) ends quietly.
      if (terminal.view.state === 'exited' || terminal.process !== proc) return;
      const details = await Promise.resolve()
        .then(() => this.manager.engineOf(terminal.key).inspectContainer(terminal.containerId))
        .catch(() => null);
      this.finish(terminal, details?.running ? 'The shell exited.' : 'The sandbox stopped.');
    });
  }

  /** One joined piece of output: into the replay, to every screen, and counted against each. */
  private send(terminal: Terminal, terminalId: string, data: string): void {
    terminal.replay.push(data);
    this.events.emit('terminal.data', { terminalId, data });
    // Only output can push a screen over its limit: the stream pauses when one just went over.
    let overLimit = false;
    for (const client of this.clients) {
      let flow = terminal.flows.get(client);
      if (!flow) terminal.flows.set(client, (flow = new FlowControl()));
      if (flow.sent(data.length)) overLimit = true;
    }
    if (overLimit) this.updatePause(terminal);
  }

  private finish(terminal: Terminal, reason: string): void {
    if (terminal.view.state === 'exited') return;
    // Output that arrived before the end is shown before the end is announced.
    terminal.output?.flush();
    terminal.view.state = 'exited';
    terminal.view.exitReason = reason;
    terminal.hold.dispose();
    this.events.emit('terminal.exit', { terminalId: terminal.view.terminalId, chatId: terminal.view.chatId, reason });
    if (!this.list(terminal.view.chatId).some((t) => t.state !== 'exited')) this.marks?.ended(terminal.view.chatId);
    setTimeout(() => {
      if (this.terminals.get(terminal.view.terminalId) === terminal) this.terminals.delete(terminal.view.terminalId);
    }, EXITED_TTL_MS).unref();
  }

  private require(terminalId: string): Terminal {
    const t = this.terminals.get(terminalId);
    if (!t) throw new BerthError('not_found', 'That terminal is closed.', { hint: 'Open a new terminal.' });
    return t;
  }

  input(terminalId: string, data: string): void {
    const t = this.require(terminalId);
    t.inputs++;
    t.typedLine = afterTyping(t.typedLine, data);
    if (t.view.state === 'running' && !t.process && t.restarting) {
      // Typed while its sandbox is recreated: the new shell gets it (within reason).
      if (t.typedAhead.length + data.length > TYPE_AHEAD_CHARS) {
        throw new BerthError('container_vanished', 'This terminal is starting again in the recreated sandbox.', { hint: 'Type again in a moment.' });
      }
      t.typedAhead += data;
      return;
    }
    if (t.view.state !== 'running' || !t.process) {
      throw new BerthError('container_vanished', `This terminal has ended: ${t.view.exitReason ?? 'it is not running'}`, { hint: 'Restart the terminal.' });
    }
    t.process.stream.write(data);
  }

  /** One view's size; the shell takes the smallest of its views' (ViewSizes). */
  async resize(terminalId: string, cols: number, rows: number, client: string | null = null): Promise<void> {
    const t = this.require(terminalId);
    const size = t.sizes.set(client, { cols, rows });
    if (size) await this.applySize(t, size);
  }

  private async applySize(t: Terminal, { cols, rows }: TerminalSize): Promise<void> {
    Object.assign(t.view, { cols, rows });
    await t.process?.resize(cols, rows);
  }

  /**
   * The recent output, for a screen that starts over (a chat shown again, a reconnect). That
   * screen owes no acknowledgements for what it missed, so the flow starts afresh.
   */
  replay(terminalId: string, client: string | null): string {
    const t = this.require(terminalId);
    // Everything received so far is in the replay; what comes after it arrives live.
    t.output?.flush();
    if (client !== null) t.flows.delete(client);
    this.updatePause(t);
    return t.replay.text();
  }

  ack(terminalId: string, chars: number, client: string | null): void {
    const t = this.terminals.get(terminalId);
    if (!t || client === null) return;
    t.flows.get(client)?.acked(chars);
    this.updatePause(t);
  }

  addClient(client: string): void {
    this.clients.add(client);
    if (this.unwatchedTimer !== null) this.clock.clearTimeout(this.unwatchedTimer);
    this.unwatchedTimer = null;
  }

  /** A screen went away: it holds nobody back any more. */
  removeClient(client: string): void {
    this.clients.delete(client);
    for (const t of this.terminals.values()) {
      t.flows.delete(client);
      this.updatePause(t);
      // The views left may be larger: the shell grows back to the smallest of them.
      const size = t.sizes.remove(client);
      if (size) void this.applySize(t, size).catch(() => undefined);
    }
    if (this.clients.size === 0 && this.unwatchedTimer === null) {
      // Nobody is looking: after a while, close the shells so their sandboxes can idle out.
      this.unwatchedTimer = this.clock.setTimeout(() => {
        this.unwatchedTimer = null;
        if (this.clients.size > 0) return;
        for (const t of [...this.terminals.values()]) {
          if (t.view.state === 'exited') continue;
          this.finish(t, 'Closed after a while with no window open.');
          t.process?.stream.destroy();
        }
      }, UNWATCHED_TTL_MS);
    }
  }

  private updatePause(t: Terminal): void {
    const behind = [...t.flows.values()].some((f) => f.paused);
    if (behind && !t.paused) t.process?.stream.pause();
    if (!behind && t.paused) t.process?.stream.resume();
    t.paused = behind;
  }

  close(terminalId: string): void {
    const t = this.terminals.get(terminalId);
    if (!t) return;
    this.terminals.delete(terminalId);
    t.output?.drop();
    t.process?.stream.destroy();
    this.finish(t, 'The terminal was closed.');
  }

  /** Closes a chat's terminals (the chat is being deleted). */
  closeForChat(chatId: string): void {
    // Kept (a few numbers): a terminal still opening for the deleted chat ends when it has started.
    const c = this.change(chatId);
    c.ended = { seq: c.seq, reason: 'The chat was deleted.' };
    this.counters.delete(chatId);
    this.marks?.forget(chatId);
    for (const t of [...this.terminals.values()]) if (t.view.chatId === chatId) this.close(t.view.terminalId);
  }

  dispose(): void {
    this.marks?.freeze(); // its shells end with Berth: the next run's first terminal in their chats says so
    if (this.unwatchedTimer !== null) this.clock.clearTimeout(this.unwatchedTimer);
    for (const id of [...this.terminals.keys()]) this.close(id);
  }
}
