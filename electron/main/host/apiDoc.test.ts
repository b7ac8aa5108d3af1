import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { events, methods } from '../../../shared/contract.js';
import { ERROR_CODES } from '../../../shared/errors.js';
import { API_DOC_PATH, ERROR_DESCRIPTIONS, EVENT_DESCRIPTIONS, METHOD_DESCRIPTIONS, renderApiDoc } from '../../../scripts/gen-api-doc.js';

describe('docs/api.md', () => {
  it('is what scripts/gen-api-doc.ts renders from the contract (run `npm run docs:api` to update it)', () => {
    const committed = fs.existsSync(API_DOC_PATH) ? fs.readFileSync(API_DOC_PATH, 'utf8') : '';
    // A boolean keeps the failure short (no 3000-line diff); the message says the fix.
    expect(committed === renderApiDoc(), 'docs/api.md is out of date: run `npm run docs:api`').toBe(true);
  });

  it('describes every method, event and error code (add missing ones to scripts/gen-api-doc.ts)', () => {
    expect(Object.keys(methods).filter((m) => !(m in METHOD_DESCRIPTIONS))).toEqual([]);
    expect(Object.keys(events).filter((e) => !(e in EVENT_DESCRIPTIONS))).toEqual([]);
    expect(ERROR_CODES.filter((c) => !(c in ERROR_DESCRIPTIONS))).toEqual([]);
  });

  it('renders every method and event with its schemas, and the error mapping', () => {
    const doc = renderApiDoc();
    for (const name of Object.keys(methods)) expect(doc).toContain(`### ${name}\n`);
    for (const name of Object.keys(events)) expect(doc).toContain(`### Event ${name}\n`);
    for (const code of ERROR_CODES) expect(doc).toContain(`| \`${code}\` |`);
    for (const rpc of ['-32700', '-32600', '-32601', '-32602', '-32603', '-32000']) expect(doc).toContain(`| ${rpc} |`);
    expect(renderApiDoc()).toBe(doc);
  });
});
