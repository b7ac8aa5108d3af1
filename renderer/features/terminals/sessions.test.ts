import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { TerminalView } from '../../../shared/contract';
import type { TerminalsState, TerminalsStore } from '../../stores/terminals';
import { getTerminal } from './registry';
import { chatsToEvict, TerminalSessions, type KeptScreen, type KeepPolicy } from './sessions';

describe('chatsToEvict', () => {
  const policy: KeepPolicy = { maxChats: 2, maxLines: 100 };

  it('lets go of the least recently shown chats past the count, never the one on screen', () => {
    const chats = [
      { chatId: 'a', lastShown: 1, lines: 10, shown: true },
      { chatId: 'b', lastShown: 2, lines: 10, shown: false },
      { chatId: 'c', lastShown: 3, lines: 10, shown: false },
      { chatId: 'd', lastShown: 4, lines: 10, shown: false },
    ];
    expect(chatsToEvict(chats, policy)).toEqual(['b', 'c']);
  });

  it('lets go of old chats until the kept lines fit', () => {
    const chats = [
      { chatId: 'old', lastShown: 1, lines: 80, shown: false },
      { chatId: 'new', lastShown: 2, lines: 50, shown: false },
    ];
    expect(chatsToEvict(chats, policy)).toEqual(['old']);
    expect(chatsToEvict(chats.slice(1), policy)).toEqual([]);
  });
});

class FakeScreen implements KeptScreen {
  disposed = false;
  replays = 0;
  readonly term = {} as KeptScreen['term'];
  constructor(
    readonly element: HTMLElement,
    readonly terminalId: string,
    private readonly lineCount: number,
    readonly sharedSheets = false,
  ) {
    // As xterm 6 does: the screen's own sheet inside its element (shared: the same text for all).
    const style = element.ownerDocument.createElement('style');
    style.textContent = sharedSheets ? `.shared-owner { color: red; } /* ${terminalId} */` : `.screen-${terminalId} { color: red; }`;
    element.appendChild(style);
  }
  lines(): number {
    return this.lineCount;
  }
  replay(): void {
    this.replays++;
  }
  dispose(): void {
    this.disposed = true;
    this.element.querySelector('style')?.remove();
  }
}

function view(chatId: string, terminalId: string, state: TerminalView['state'] = 'running'): TerminalView {
  return { terminalId, chatId, title: terminalId, state, exitReason: state === 'exited' ? 'The shell exited' : null, cols: 80, rows: 24 };
}

function setup(policy: KeepPolicy = { maxChats: 2, maxLines: 1000 }, later?: (run: () => void) => void, shared = false) {
  const terminals = createStore<Pick<TerminalsState, 'byChat'>>()(() => ({ byChat: {} })) as unknown as TerminalsStore;
  const connection = createStore<{ epoch: number }>()(() => ({ epoch: 1 }));
  const made: FakeScreen[] = [];
  const sessions = new TerminalSessions<FakeScreen>({
    terminals,
    epoch: { get: () => connection.getState().epoch, subscribe: (fn) => connection.subscribe(fn) },
    document,
    policy,
    ...(later ? { later } : {}),
    create: (element, terminalId) => {
      const s = new FakeScreen(element, terminalId, 10, shared);
      made.push(s);
      return s;
    },
  });
  const list = (byChat: Record<string, TerminalView[]>) => terminals.setState({ byChat });
  const slot = () => document.body.appendChild(document.createElement('div'));
  return { sessions, made, list, slot, connection };
}

describe('TerminalSessions', () => {
  it('keeps a screen across a switch: coming back shows the same screen, back in the page', () => {
    const { sessions, made, list, slot } = setup();
    list({ a: [view('a', 't1')], b: [view('b', 't2')] });
    const first = sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 });
    expect(first.fresh).toBe(true);
    expect(getTerminal('t1')).toBe(first.screen.term);
    sessions.hide('t1', first.screen);
    expect(first.screen.element.isConnected).toBe(false);
    sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 });

    const back = slot();
    const again = sessions.show('t1', 'a', back, { cols: 80, rows: 24 });
    expect(again).toEqual({ screen: first.screen, fresh: false });
    expect(back.contains(first.screen.element)).toBe(true);
    expect(made).toHaveLength(2);
    expect(made.some((s) => s.disposed)).toBe(false);
  });

  it('disposes the least recently shown chat past the bound, never the one on screen', () => {
    const { sessions, made, list, slot } = setup({ maxChats: 2, maxLines: 1000 });
    list({ a: [view('a', 't1')], b: [view('b', 't2')], c: [view('c', 't3')] });
    for (const [t, c] of [['t1', 'a'], ['t2', 'b'], ['t3', 'c']] as const) {
      const { screen } = sessions.show(t, c, slot(), { cols: 80, rows: 24 });
      if (t !== 't3') sessions.hide(t, screen);
    }
    // Three chats alive until the next give-back; then the oldest (a) goes.
    const c = made[2] as FakeScreen;
    sessions.hide('t3', c);
    expect(made.map((s) => s.disposed)).toEqual([true, false, false]);
    expect(getTerminal('t1')).toBeUndefined();
    expect(sessions.has('t1')).toBe(false);
  });

  it('checks the bounds after a switch when told to (after its frame), once for several give-backs', () => {
    const pending: Array<() => void> = [];
    const { sessions, made, list, slot } = setup({ maxChats: 2, maxLines: 1000 }, (run) => pending.push(run));
    list({ a: [view('a', 't1')], b: [view('b', 't2')], c: [view('c', 't3')] });
    for (const [t, c] of [['t1', 'a'], ['t2', 'b'], ['t3', 'c']] as const) {
      const { screen } = sessions.show(t, c, slot(), { cols: 80, rows: 24 });
      if (t !== 't3') sessions.hide(t, screen);
    }
    sessions.hide('t3', made[2] as FakeScreen);
    // Out of the page at once, but nothing disposed within the switch.
    expect(made.some((s) => s.element.isConnected)).toBe(false);
    expect(made.some((s) => s.disposed)).toBe(false);
    expect(pending).toHaveLength(1);
    pending.splice(0).forEach((run) => run());
    expect(made.map((s) => s.disposed)).toEqual([true, false, false]);
    // Disposed meanwhile: a check still pending does nothing.
    sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 });
    sessions.hide('t2', made[1] as FakeScreen);
    sessions.dispose();
    pending.splice(0).forEach((run) => run());
  });

  it('bounds the kept lines too', () => {
    const { sessions, made, list, slot } = setup({ maxChats: 10, maxLines: 15 });
    list({ a: [view('a', 't1')], b: [view('b', 't2')] });
    sessions.hide('t1', sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 }).screen);
    sessions.hide('t2', sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 }).screen);
    expect(made.map((s) => s.disposed)).toEqual([true, false]);
  });

  it('disposes a screen whose terminal was closed or whose chat was deleted, and a kept one that ended', () => {
    const { sessions, made, list, slot } = setup({ maxChats: 10, maxLines: 1000 });
    list({ a: [view('a', 't1'), view('a', 't2')], b: [view('b', 't3')] });
    for (const [t, c] of [['t1', 'a'], ['t2', 'a'], ['t3', 'b']] as const) sessions.hide(t, sessions.show(t, c, slot(), { cols: 80, rows: 24 }).screen);
    const shown = sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 }).screen;

    list({ a: [view('a', 't1', 'exited')], b: [view('b', 't3')] }); // t2 closed; t1 ended but on screen
    expect(made.map((s) => s.disposed)).toEqual([false, true, false]);
    list({ a: [view('a', 't1', 'exited')] }); // chat b deleted
    expect(made.map((s) => s.disposed)).toEqual([false, true, true]);
    sessions.hide('t1', shown); // the ended terminal leaves the screen: nothing more will flow into it
    expect(made.map((s) => s.disposed)).toEqual([true, true, true]);
    expect(sessions.size).toBe(0);
  });

  it('repaints every screen, kept or shown, after a reconnect', () => {
    const { sessions, made, list, slot, connection } = setup();
    list({ a: [view('a', 't1')], b: [view('b', 't2')] });
    sessions.hide('t1', sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 }).screen);
    sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 });
    connection.setState({ epoch: 1 });
    expect(made.map((s) => s.replays)).toEqual([0, 0]);
    connection.setState({ epoch: 2 });
    expect(made.map((s) => s.replays)).toEqual([1, 1]);
  });
  it("keeps a kept screen's sheets parsed in the head but matching nothing, and live again when shown", () => {
    const { sessions, list, slot } = setup({ maxChats: 1, maxLines: 1000 });
    list({ a: [view('a', 't1')], b: [view('b', 't2')] });
    const a = sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 });
    const style = [...document.head.querySelectorAll('style')].findLast((s) => s.textContent?.includes('screen-t1'));
    expect(style).toBeDefined();
    expect(style?.hasAttribute('media')).toBe(false);
    sessions.hide('t1', a.screen);
    expect(style?.isConnected).toBe(true);
    expect(style?.getAttribute('media')).toBe('not all');
    const again = sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 });
    expect(again.fresh).toBe(false);
    expect(style?.hasAttribute('media')).toBe(false);
    sessions.hide('t1', a.screen);
    // Past the bound (one chat), keeping b's screen too lets a's go, and its sheet with it.
    const b = sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 });
    sessions.hide('t2', b.screen);
    expect(sessions.has('t1')).toBe(false);
    expect(style?.isConnected).toBe(false);
    sessions.dispose();
  });
  it('keeps one live copy of shared sheets and changes no sheet on a switch; the copy moves on when its screen goes', () => {
    const { sessions, list, slot } = setup({ maxChats: 2, maxLines: 1000 }, undefined, true);
    list({ a: [view('a', 't1')], b: [view('b', 't2')], c: [view('c', 't3')] });
    const sheetOf = (t: string) => [...document.head.querySelectorAll('style')].findLast((s) => s.textContent?.includes(t)) as HTMLStyleElement;
    const a = sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 });
    sessions.hide('t1', a.screen);
    const b = sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 });
    // a's sheets serve every shared screen; b's are parsed but off from the start.
    expect(sheetOf('t1').hasAttribute('media')).toBe(false);
    expect(sheetOf('t2').getAttribute('media')).toBe('not all');
    const changes: MutationRecord[] = [];
    const observer = new MutationObserver((records) => changes.push(...records));
    observer.observe(document.head, { attributes: true, subtree: true });
    sessions.hide('t2', b.screen);
    sessions.show('t1', 'a', slot(), { cols: 80, rows: 24 });
    sessions.hide('t1', a.screen);
    sessions.show('t2', 'b', slot(), { cols: 80, rows: 24 });
    changes.push(...observer.takeRecords());
    observer.disconnect();
    expect(changes).toEqual([]);
    // Past the bound (two chats), a (the holder) goes: b's copy goes live, the same rules.
    const held = sheetOf('t1');
    sessions.hide('t2', b.screen);
    const c = sessions.show('t3', 'c', slot(), { cols: 80, rows: 24 });
    sessions.hide('t3', c.screen);
    expect(sessions.has('t1')).toBe(false);
    expect(held.isConnected).toBe(false);
    expect(sheetOf('t2').hasAttribute('media')).toBe(false);
    expect(sheetOf('t3').getAttribute('media')).toBe('not all');
    sessions.dispose();
  });
});
