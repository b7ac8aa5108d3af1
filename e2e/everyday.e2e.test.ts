/**
 * Everyday use in Chromium against the browser host and the real engine, as a new user met it
 * (screenshots in e2e/screenshots/everyday-*.png): the chat header at 1440 px, and its notice
 * about a sandbox recreated "the next time" gone once that happened; a new chat's focus; the
 * Changes panel beside the conversation and the terminal at 1024x700.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../test/support/harness.js';
import { appForFile } from './support/appFile.js';
import { shot } from './support/browserHost.js';
import * as ui from './support/ui.js';

const app = appForFile('berth-test:busybox');

describe('everyday use', () => {
  it('the header is one row at 1440 px, and its notice of a recreation to come goes once it came', async () => {
    const { page, root } = app;
    await page.setViewportSize({ width: 1440, height: 900 });
    const dir = path.join(root, 'project');
    writeTree(dir, { 'notes.txt': 'hi\n' }, 1000, 1000);
    await ui.newChatAtPrompt(page);
    await ui.waitForSandboxRunning(page, 60_000);
    await ui.attach(page, dir, 'Read-write');
    const header = page.locator('header.chat-header');
    await header.getByText(dir).waitFor();
    // The terminal starts again by itself in the new sandbox: the recreation happened.
    await ui.waitForShellInWorkspace(page, 60_000);
    await ui.waitForSandboxRunning(page, 60_000);
    const stale = header.getByText(/recreated the next time|waits for a new sandbox at its next command/);
    await expect.poll(() => stale.count(), { timeout: 10_000 }).toBe(0);
    const box = await header.boundingBox();
    console.log(`everyday.e2e: the header at 1440x900 is ${Math.round(box!.height)} px tall`);
    // One row of controls (about 30 px) and the header's padding.
    expect(box!.height).toBeLessThan(64);
    await shot(page, 'everyday-header');
  });

  it('Alt+Shift+N pressed on the profile select: the new chat has the focus, not the select', async () => {
    const { page } = app;
    const select = page.getByLabel('Profile for new chats');
    const profile = await select.inputValue();
    await select.focus();
    const before = await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: /^Chat \d+$/ }).count();
    await page.keyboard.press('Alt+Shift+N');
    await expect.poll(() => page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: /^Chat \d+$/ }).count()).toBe(before + 1);
    // The chat's way to the agent (its set-up button: this profile has no model) has the focus.
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent)).toBe('Open profile settings');
    await page.keyboard.type('d');
    expect(await select.inputValue()).toBe(profile);
  });

  it('at 1024x700 the Changes panel shows beside the conversation and the terminal, its diff usable, the split moved by keyboard', async () => {
    const { page, root } = app;
    await page.setViewportSize({ width: 1024, height: 700 });
    const dir = path.join(root, 'reviewed');
    writeTree(dir, { 'notes.txt': 'one\n' }, 1000, 1000);
    await ui.newChatAtPrompt(page);
    await ui.attach(page, dir, 'Review');
    await ui.waitForShellInWorkspace(page, 60_000);
    await ui.typeInTerminal(page, 'cd /workspace && echo two >> notes.txt && echo "done=$?"');
    await ui.waitForTerminal(page, (t) => t.includes('done=0'), 'the edit', 60_000);
    await page.getByRole('button', { name: /^Changes/ }).click();
    const diff = page.getByRole('region', { name: 'Diff', exact: true });
    await diff.getByText('two').first().waitFor({ timeout: 30_000 });
    // Beside them: the conversation and the terminal stay on screen.
    expect(await page.getByRole('region', { name: 'Conversation' }).isVisible()).toBe(true);
    expect(await page.locator('.terminals').isVisible()).toBe(true);
    await shot(page, 'everyday-changes-1024');
    const box = (await diff.boundingBox())!;
    console.log(`everyday.e2e: the diff at 1024x700 is ${Math.round(box.width)}x${Math.round(box.height)} px`);
    // Usable: 60 columns of 12 px monospace and 15 lines of it.
    expect(box.width).toBeGreaterThanOrEqual(440);
    expect(box.height).toBeGreaterThanOrEqual(280);
    // The split moves by keyboard too, and the panel follows the agent's and the terminal's work.
    const separator = page.getByRole('separator', { name: 'Resize the Changes panel' });
    const before = Number(await separator.getAttribute('aria-valuenow'));
    await separator.focus();
    await page.keyboard.press(await separator.getAttribute('aria-orientation') === 'horizontal' ? 'ArrowDown' : 'ArrowRight');
    expect(Number(await separator.getAttribute('aria-valuenow'))).toBe(before + 5);
    await ui.typeInTerminal(page, 'echo three > added.txt');
    await page.getByRole('region', { name: 'Changes', exact: true }).getByText('added.txt').first().waitFor({ timeout: 30_000 });
  });
});
