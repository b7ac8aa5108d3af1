import { describe, expect, it } from 'vitest';
import { COMPACT_AT, cutResult, estimateTokens, planCompaction, resultLimitChars, type PlanUnit } from './compaction.js';

const unit = (tokens: number, turnStart = false, unfinished = false): PlanUnit => ({ tokens, turnStart, unfinished });
/** Turns of a user message and one assistant message with its results. */
const turns = (n: number, userTokens: number, answerTokens: number) => Array.from({ length: n }, () => [unit(userTokens, true), unit(answerTokens)]).flat();

describe('estimateTokens', () => {
  it('counts four characters a token, tool calls included, and a few tokens per message', () => {
    expect(estimateTokens([{ content: 'x'.repeat(400) }])).toBe(104);
    expect(estimateTokens([{ content: null, tool_calls: [{ function: { name: 'ab', arguments: 'cd' } }] }])).toBe(5);
    expect(estimateTokens([])).toBe(0);
  });
});

describe('planCompaction', () => {
  it('summarises nothing while the conversation fits below the threshold', () => {
    expect(planCompaction(turns(3, 100, 500), 10_000, 1_000)).toBeNull();
    expect(planCompaction([unit(COMPACT_AT * 1000 - 100)], 1000, 100)).toBeNull();
  });

  it('keeps the latest whole turns that fit and summarises the rest', () => {
    // 10 turns of 600 tokens in a 4,000 window: 1,600 (40%) keeps the last 2 turns.
    const start = planCompaction(turns(10, 100, 500), 4_000, 200);
    expect(start).toBe(16);
  });

  it('cuts inside a turn too long to keep whole, at a message, never before an unfinished call', () => {
    const units = [unit(100, true), unit(500), unit(100, true), unit(900), unit(900), unit(900)];
    expect(planCompaction(units, 4_000, 0)).toBe(5);
    const unfinished = [unit(100, true), unit(3000), unit(100, true), unit(2000, false, true), unit(10)];
    expect(planCompaction(unfinished, 4_000, 0)).toBe(3);
  });

  it('summarises all but the last message when even that one is over the share, and nothing when there is one', () => {
    expect(planCompaction([unit(10, true), unit(10), unit(5_000)], 4_000, 0)).toBe(2);
    expect(planCompaction([unit(5_000, true)], 4_000, 0)).toBeNull();
  });
});

describe('cutResult', () => {
  it('keeps a short result, and the head and tail of a long one with how to read the rest', () => {
    expect(cutResult('short', 100)).toBe('short');
    const long = `${'a'.repeat(500)}${'b'.repeat(500)}`;
    const cut = cutResult(long, 100);
    expect(cut.startsWith('a'.repeat(70))).toBe(true);
    expect(cut.endsWith('b'.repeat(30))).toBe(true);
    expect(cut).toContain('[… 900 characters cut here');
    expect(cut).toContain("read_file's offset and limit");
  });

  it('gives one result a fifth of the window, in characters', () => {
    expect(resultLimitChars(32_768)).toBe(26_214);
  });
});
