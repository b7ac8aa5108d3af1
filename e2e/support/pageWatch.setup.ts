/**
 * After every e2e file: none of its app pages had an uncaught exception or anything refused by
 * the Content Security Policy. Errors logged to the console are not checked here, because some
 * files provoke them on purpose (a host that goes away: the page's WebSocket fails); the files
 * that show a normal session check those too (newcomer.e2e).
 */
import { afterAll, expect } from 'vitest';
import { pageProblems, watchedPages } from './browserHost.js';

afterAll(() => {
  const found = watchedPages.flatMap((page) => {
    const { pageErrors, cspViolations } = pageProblems(page);
    return [...pageErrors.map((e) => `uncaught: ${e}`), ...cspViolations.map((v) => `policy: ${v}`)];
  });
  if (process.env.BERTH_E2E_SHOW_CONSOLE) for (const page of watchedPages) for (const e of pageProblems(page).consoleErrors) console.log(`console error: ${e}`);
  expect(found, 'the app page had uncaught exceptions or Content Security Policy violations').toEqual([]);
});
