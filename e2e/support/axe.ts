/**
 * The accessibility check of a screen: axe-core (through @axe-core/playwright, which drives
 * playwright-core's Page) against WCAG 2.x A/AA rules. What it returns is printable: a failing
 * expectation shows each serious or critical rule, its help text and the elements it flagged.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** The serious and critical axe violations on what `page` shows now (optionally within `include`). */
export async function seriousViolations(page: Page, include?: string): Promise<AxeFinding[]> {
  let builder = new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    // WCAG 2.5.3 (label in name): a control's accessible name holds the words it shows, so a voice
    // user can say what they see. axe ships the rule as experimental, off unless named.
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } });
  if (include !== undefined) builder = builder.include(include);
  const result = await builder.analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
}
