/**
 * A terminal's screen coming back, in Chromium against the browser host and the real engine:
 * after a reload (the same running Berth repaints it from its copy), a line longer than the
 * terminal is wide comes back whole, at the same and at another window width, and in a narrow
 * and a wide window showing it at once; after Berth itself restarted (its shells end with it),
 * the chat's terminal says once that its earlier terminals ended with it, and a reload does not
 * say it again.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TERMINAL_MESSAGES } from '../electron/main/messages.js';
import { appWithProfile } from './support/appSession.js';
import { shot, startHost, terminalText } from './support/browserHost.js';
import * as ui from './support/ui.js';

const app = appWithProfile('replay');

/** With 'x': x100x101…x199, 400 characters on one line, none of it in the command that prints it. */
const longLine = (letter: string) => Array.from({ length: 100 }, (_, i) => `${letter}${100 + i}`).join('');
const printLongLine = (letter: string) => `for i in $(seq 100 199); do printf '${letter}%s' $i; done; echo`;
const LONG_LINE = longLine('x');
/** Its end, then the prompt: a repaint has come to its end (it is written at once). */
const atPromptAfter = (letter: string) => (t: string) => new RegExp(`${letter}199\\s*\\n[^\\n]*[$#]\\s*$`).test(t);
/** The line as the terminal shows it (shared/terminalNote: in brackets). */
const RESTART_LINE = `[${TERMINAL_MESSAGES.berthRestarted}]`;

/** The lines of the terminal's text (wrapped rows joined to the line they continue). */
async function lines(): Promise<string[]> {
  return (await terminalText(app.page)).split('\n');
}

/** The terminal's width in columns: its widest row in view (the long line's wrapped rows fill theirs). */
async function columns(page: Page = app.page): Promise<number> {
  const rows = await page.evaluate(() => (globalThis as unknown as { __berthTest: { screenText(): string } }).__berthTest.screenText());
  return Math.max(...rows.split('\n').map((row) => row.length));
}

/**
 * Reloads, and waits for the repaint to have reached the prompt after the long line's end (a
 * replay is written at once). Not for the command: busybox's line editor breaks a typed line at
 * the shell's width itself, with a newline of its own.
 */
async function reloadAtPrompt(): Promise<void> {
  await app.page.reload();
  await ui.waitForTerminal(app.page, atPromptAfter('x'), 'the terminal repainted after the reload', 60_000);
}

describe('a terminal’s screen coming back', () => {
  it('brings a line longer than the terminal back whole after a reload, at the same and at another width', async () => {
    await ui.newChatAtPrompt(app.page);
    const terminalId = await ui.activeTerminal(app.page);
    await ui.typeInTerminal(app.page, printLongLine('x'));
    await ui.waitForTerminal(app.page, (t) => t.split('\n').includes(LONG_LINE), 'the long line, whole');

    await reloadAtPrompt();
    expect(await ui.activeTerminal(app.page), 'the same terminal, repainted').toBe(terminalId);
    expect(await lines()).toContain(LONG_LINE);
    const wide = await columns();
    expect(wide, 'the line is longer than the terminal is wide').toBeLessThan(LONG_LINE.length);

    // A narrower window, fewer columns: the repaint wraps the line at the new width, and it still reads whole.
    await app.page.setViewportSize({ width: 900, height: 800 });
    await reloadAtPrompt();
    expect(await columns()).toBeLessThan(wide);
    expect(await lines()).toContain(LONG_LINE);
    await app.page.setViewportSize({ width: 1280, height: 800 });
    await reloadAtPrompt();
    expect(await lines()).toContain(LONG_LINE);
    await shot(app.page, 'terminal-long-line-after-reload');
  });

  it('shown in a narrow and a wide window: after a reload of each, the long line printed meanwhile reads whole in both', async () => {
    const terminalId = await ui.activeTerminal(app.page);
    const chatTitle = (await app.page.locator('h1.chat-title').textContent()) ?? '';
    const narrowContext = await app.browser.newContext({ viewport: { width: 900, height: 800 } });
    try {
      const narrow = await narrowContext.newPage();
      await narrow.goto(app.host.url);
      await narrow.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: chatTitle, exact: true }).click();
      await expect.poll(() => ui.activeTerminal(narrow), { timeout: 30_000 }).toBe(terminalId);
      await ui.waitForTerminal(narrow, atPromptAfter('x'), 'the narrow window showing the terminal', 60_000);
      // Printed while both show it (the shell is as wide as the narrower: as tmux does).
      await ui.typeInTerminal(app.page, printLongLine('y'));
      for (const page of [app.page, narrow]) {
        await ui.waitForTerminal(page, (t) => t.split('\n').includes(longLine('y')), 'the long line, whole, live');
        await page.reload();
        await ui.waitForTerminal(page, atPromptAfter('y'), 'the terminal repainted after the reload', 60_000);
        expect((await terminalText(page)).split('\n')).toContain(longLine('y'));
      }
      expect(await columns(narrow)).toBeLessThan(await columns(app.page));
    } finally {
      await narrowContext.close();
    }
  });

  it('says once, after Berth restarted, that the chat’s earlier terminals ended with it', async () => {
    const chatTitle = await app.page.locator('h1.chat-title').textContent();
    const port = Number(new URL(app.host.url).port);
    await app.host.stop();
    // Back on the same port and data (as `npm run web` again would); its address has a new token.
    app.host = await startHost(app.root, {}, { port, dataDir: app.host.dataDir });
    await app.page.goto(app.host.url);
    await expect.poll(() => app.page.locator('h1.chat-title').textContent(), { timeout: 30_000 }).toBe(chatTitle);
    const said = await ui.waitForTerminal(app.page, (t) => t.includes(RESTART_LINE) && /[$#]\s*$/.test(t), 'the line about the restart, then a prompt', 60_000);
    expect(said.split(RESTART_LINE).length - 1, 'said once').toBe(1);
    await shot(app.page, 'terminal-after-berth-restart');

    // The same running Berth: a reload repaints the terminal with the line once, not once more.
    const terminalId = await ui.activeTerminal(app.page);
    await ui.typeInTerminal(app.page, 'echo still-$((6*7))');
    await ui.waitForTerminal(app.page, (t) => t.includes('still-42'), 'the new shell answering');
    await app.page.reload();
    const again = await ui.waitForTerminal(app.page, (t) => t.includes('still-42'), 'the terminal repainted after the reload', 60_000);
    expect(await ui.activeTerminal(app.page)).toBe(terminalId);
    expect(again.split(RESTART_LINE).length - 1, 'still said once').toBe(1);
  });
});
