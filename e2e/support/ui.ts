/**
 * Driving Berth's UI as a person would (roles and names), shared by the end-to-end tests and
 * the browser benchmark.
 */
import type { Page } from 'playwright-core';
import { terminalText } from './browserHost.js';

/** Polls the active terminal's text until `pred` holds; the error shows what it did show. */
export async function waitForTerminal(page: Page, pred: (text: string) => boolean, what: string, timeout = 30_000, pollMs = 100): Promise<string> {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = await terminalText(page).catch(() => '');
    if (pred(text)) return text;
    await page.waitForTimeout(pollMs);
  }
  throw new Error(`Timed out waiting for ${what}. The terminal shows:\n${text.slice(-1500)}`);
}

export async function activeTerminal(page: Page): Promise<string | null> {
  return page.evaluate(() => (globalThis as unknown as { __berthTest: { activeTerminalId(): string | null } }).__berthTest.activeTerminalId());
}

/**
 * New chat, then waits for its own terminal (not the previous chat's, still on screen while the
 * new one opens) to show a prompt.
 */
export async function newChatAtPrompt(page: Page, timeout = 60_000): Promise<void> {
  const previous = await activeTerminal(page);
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  const deadline = Date.now() + timeout;
  while ((await activeTerminal(page)) === previous) {
    if (Date.now() > deadline) throw new Error('New chat opened no terminal of its own.');
    await page.waitForTimeout(100);
  }
  await waitForTerminal(page, (t) => /[$#]\s*$/.test(t), 'the prompt of a new chat', Math.max(1, deadline - Date.now()));
}

/** What these helpers read of the page's document (this project is compiled without the DOM's types). */
interface PageDocument {
  document: { activeElement: { closest(selector: string): unknown; outerHTML: string } | null };
}

/**
 * Focuses the terminal (Ctrl+`) and types a line. While the chat's terminal is still opening
 * there is none to take the keys (they would go to the message box): press Ctrl+` again until
 * the terminal has the focus, as a person would, and say so if it never does.
 */
export async function typeInTerminal(page: Page, line: string, enter = true, timeout = 60_000): Promise<void> {
  const deadline = Date.now() + timeout;
  const focused = () =>
    page.evaluate(() => {
      const el = (globalThis as unknown as PageDocument).document.activeElement;
      return { inTerminal: el?.closest('.xterm') != null, html: el?.outerHTML.slice(0, 200) ?? 'nothing' };
    });
  for (;;) {
    await page.keyboard.press('Control+Backquote');
    const now = await focused();
    if (now.inTerminal) break;
    if (Date.now() > deadline) throw new Error(`The terminal never took the keyboard focus, so "${line}" was not typed. The focus is on: ${now.html}`);
    await page.waitForTimeout(100);
  }
  await page.keyboard.type(line);
  if (enter) await page.keyboard.press('Enter');
}

/**
 * After a folder change the chat's terminal starts again by itself, in the new sandbox: waits for
 * its note and the new shell's prompt in the attached folder (what is typed before that may be lost).
 */
export async function waitForShellInWorkspace(page: Page, timeout = 30_000): Promise<string> {
  return waitForTerminal(page, (t) => /started again[\s\S]*\/workspace \$/.test(t), 'the terminal back in the attached folder', timeout);
}

/** Creates a profile in the Profiles dialog and closes it. */
export async function createProfile(page: Page, name: string, image: string, network: 'open' | 'none' = 'open'): Promise<void> {
  await page.getByRole('button', { name: 'Profiles' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create profile' }).click();
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Image').fill(image);
  // These tests are about folders and terminals: the profile network they had before egress
  // ('open'); e2e/network.e2e.test.ts covers 'allowlist' and its proxy, ports 'none'.
  await dialog.getByRole('combobox', { name: 'Network' }).selectOption(network);
  await dialog.getByRole('button', { name: 'Save profile' }).click();
  await dialog.getByText('Saved.').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Creates a profile with an agent (provider, model, approval) and its key in one Save, as a
 * person would, and waits until both are stored. The dialog stays open for the caller's checks.
 */
export async function fillAgentProfile(
  page: Page,
  p: { name: string; image: string; baseUrl: string; approval: 'Ask before each command' | 'Run automatically'; key: string },
) {
  await page.getByRole('button', { name: 'Profiles' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create profile' }).click();
  await dialog.getByLabel('Name').fill(p.name);
  await dialog.getByLabel('Image').fill(p.image);
  await dialog.getByLabel('Provider URL').fill(p.baseUrl);
  await dialog.getByLabel('Model').fill('test-model');
  await dialog.getByLabel('Approval').selectOption({ label: p.approval });
  await dialog.getByLabel('API key').fill(p.key);
  await dialog.getByRole('button', { name: 'Save profile' }).click();
  await dialog.getByText('Saved.').waitFor();
  await dialog.getByText(/A key is stored for/).waitFor();
  return dialog;
}

/** The attach modes as the picker names them. */
export type AttachModeName = 'Review' | 'Read-write' | 'Read-only';

/**
 * Opens "Attach folder…", picks the mode, goes on to the folder browser, waits for it to show
 * where it starts (as a person would), and chooses `folder`.
 */
export async function attach(page: Page, folder: string, mode: AttachModeName): Promise<void> {
  await page.getByRole('button', { name: 'Attach folder…' }).click();
  await chooseFolderIn(page, mode);
  const dialog = page.getByRole('dialog', { name: 'Choose a folder to attach' });
  const path = dialog.getByLabel('Folder path');
  const deadline = Date.now() + 10_000;
  while ((await path.inputValue()) === '') {
    if (Date.now() > deadline) throw new Error('The folder picker never showed where it starts.');
    await page.waitForTimeout(50);
  }
  await path.fill(folder);
  await dialog.getByRole('button', { name: 'Choose this folder' }).click();
}

/** In the "Attach a folder" dialog: picks the mode and goes on to choose the folder. */
export async function chooseFolderIn(page: Page, mode: AttachModeName): Promise<void> {
  const how = page.getByRole('dialog', { name: 'Attach a folder' });
  await how.getByRole('radio', { name: new RegExp(`^${mode} `) }).check();
  await how.getByRole('button', { name: 'Choose folder…' }).click();
  await how.waitFor({ state: 'hidden' });
}

/**
 * Waits for the chat header to say "Sandbox: running"; if it never does, the error says what the
 * header and the terminal showed instead (a stuck phase, an error), not only that time ran out.
 */
export async function waitForSandboxRunning(page: Page, timeout: number): Promise<void> {
  try {
    await page.getByText(/Sandbox: running/).waitFor({ timeout });
  } catch (error) {
    const header = await page.getByText(/Sandbox:/).first().innerText().catch(() => '(no sandbox line)');
    const terminal = await terminalText(page).catch(() => '');
    throw new Error(`The sandbox did not show as running within ${timeout} ms. The header shows "${header}"; the terminal shows:\n${terminal.slice(-800)}`, { cause: error });
  }
}
