import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countOccurrences, planEdits } from './fileEdit.js';

describe('planEdits', () => {
  it('replaces a string that occurs once', () => {
    expect(planEdits('a\nb\nc\n', [{ old_string: 'b', new_string: 'B' }])).toEqual({ ok: true, text: 'a\nB\nc\n', replacements: 1 });
  });

  it('refuses an ambiguous edit and says how many times the string occurs', () => {
    const plan = planEdits('x = 1\nx = 1\nx = 1\n', [{ old_string: 'x = 1', new_string: 'x = 2' }]);
    expect(plan.ok).toBe(false);
    expect(!plan.ok && plan.problem).toMatch(/occurs 3 times/);
  });

  it('replaces every occurrence when asked', () => {
    expect(planEdits('a a a', [{ old_string: 'a', new_string: 'b', replace_all: true }])).toEqual({ ok: true, text: 'b b b', replacements: 3 });
  });

  it('applies several edits in order, each to the text the one before left', () => {
    const plan = planEdits('one two', [{ old_string: 'one', new_string: 'three' }, { old_string: 'three two', new_string: 'done' }]);
    expect(plan).toEqual({ ok: true, text: 'done', replacements: 2 });
  });

  it('refuses them all when one edit cannot apply, naming which', () => {
    const plan = planEdits('one two', [{ old_string: 'one', new_string: '1' }, { old_string: 'absent', new_string: 'x' }]);
    expect(plan.ok).toBe(false);
    expect(!plan.ok && plan.problem).toMatch(/^Edit 2 of 2: old_string was not found.*no edit was made/);
  });

  it('refuses an empty or unchanged old_string', () => {
    expect(planEdits('abc', [{ old_string: '', new_string: 'x' }]).ok).toBe(false);
    expect(planEdits('abc', [{ old_string: 'a', new_string: 'a' }]).ok).toBe(false);
    expect(planEdits('abc', []).ok).toBe(false);
  });

  it('keeps $ patterns in the new text as written', () => {
    expect(planEdits('a', [{ old_string: 'a', new_string: "$&$'$1" }])).toMatchObject({ text: "$&$'$1" });
  });

  it('changes only the one occurrence, leaving the rest of the text as it was (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), fc.string(), (before, after, needle, replacement) => {
        fc.pre(countOccurrences(before + needle + after, needle) === 1 && needle !== replacement);
        const plan = planEdits(before + needle + after, [{ old_string: needle, new_string: replacement }]);
        expect(plan).toEqual({ ok: true, text: before + replacement + after, replacements: 1 });
      }),
    );
  });

  it('is all or none: a plan that fails reports no text, whatever edits came before (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.record({ old_string: fc.string({ maxLength: 3 }), new_string: fc.string({ maxLength: 3 }), replace_all: fc.boolean() }), { minLength: 1, maxLength: 5 }), (text, edits) => {
        const plan = planEdits(text, edits);
        if (plan.ok) {
          // Replaying the edits by hand gives the same text.
          let t = text;
          for (const e of edits) t = t.split(e.old_string).join(e.new_string);
          expect(plan.text).toBe(t);
        } else {
          expect(plan).not.toHaveProperty('text');
        }
      }),
    );
  });
});
