// Property-based tests (fast-check): qualification keeps every (profile, id) pair apart, and
// any task graph, cycles included, resolves to a key of the task's own profile.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE } from '../../../shared/contract.js';
import { profileDefaultKey, qualifyTaskId, resolveContainerKey, type KeyProfile, type TaskRegistration } from './containerKey.js';

/** Profile names and raw ids with the characters that could make two keys meet: ':', '%', 'default'. */
const tricky = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.array(fc.constantFrom('a', ':', '%', '3A', 'default', 'profile', ''), { minLength: 1, maxLength: 5 }).map((p) => p.join('') || 'a'),
);
const profileName = fc.oneof(fc.constant(DEFAULT_PROFILE), tricky);

describe('qualifyTaskId and profileDefaultKey (properties)', () => {
  it('never gives two different (profile, id) pairs the same key', () => {
    fc.assert(
      fc.property(profileName, tricky, profileName, tricky, (p1, id1, p2, id2) => {
        fc.pre(p1 !== p2 || id1 !== id2);
        expect(qualifyTaskId(p1, id1)).not.toBe(qualifyTaskId(p2, id2));
      }),
    );
  });

  it("never makes a task's key equal to any profile's shared key", () => {
    fc.assert(
      fc.property(profileName, tricky, profileName, (p, id, q) => {
        expect(qualifyTaskId(p, id)).not.toBe(profileDefaultKey(q));
      }),
    );
  });
});

describe('resolveContainerKey (properties)', () => {
  /** A random registry: each task may name a parent among the others (cycles allowed) and an own image. */
  const graph = fc.array(
    fc.record({ parent: fc.option(fc.nat(7), { nil: null }), ownImage: fc.boolean() }),
    { minLength: 1, maxLength: 8 },
  );

  function lookupFor(profile: string, tasks: { parent: number | null; ownImage: boolean }[]) {
    const rows = new Map<string, TaskRegistration>();
    tasks.forEach((t, i) =>
      rows.set(qualifyTaskId(profile, `t${i}`), {
        parentId: t.parent === null ? null : `t${t.parent}`,
        override: t.ownImage ? { image: 'img' } : null,
      }),
    );
    return (q: string) => rows.get(q);
  }

  it('ends for any graph and resolves to a key qualified by the profile itself', () => {
    fc.assert(
      fc.property(profileName, graph, fc.constantFrom<'chat' | 'shared'>('chat', 'shared'), fc.nat(9), (name, tasks, scope, start) => {
        const profile: KeyProfile = { name, backend: 'docker', containerScope: scope };
        const target = resolveContainerKey(profile, `t${start}`, lookupFor(name, tasks));
        expect(target.kind).toBe('container');
        if (target.kind !== 'container') return;
        const own = target.key === profileDefaultKey(name) || [...Array(10).keys()].some((i) => target.key === qualifyTaskId(name, `t${i}`));
        expect(own, target.key).toBe(true);
      }),
    );
  });

  it('sends the same task graph in two profiles to two disjoint sets of keys', () => {
    fc.assert(
      fc.property(profileName, profileName, graph, (a, b, tasks) => {
        fc.pre(a !== b);
        const keys = (name: string) =>
          new Set(tasks.map((_, i) => {
            const t = resolveContainerKey({ name, backend: 'docker', containerScope: 'chat' }, `t${i}`, lookupFor(name, tasks));
            return t.kind === 'container' ? t.key : 'local';
          }));
        const inB = keys(b);
        for (const k of keys(a)) expect(inB.has(k)).toBe(false);
      }),
    );
  });

  it('gives an alias without its own runtime the key of the task it is an alias of', () => {
    fc.assert(
      fc.property(profileName, graph, fc.nat(7), (name, tasks, i) => {
        fc.pre(i < tasks.length);
        const parent = tasks[i]!.parent;
        fc.pre(parent !== null && parent < tasks.length && parent !== i && !tasks[i]!.ownImage);
        const profile: KeyProfile = { name, backend: 'docker', containerScope: 'chat' };
        const lookup = lookupFor(name, tasks);
        // Only when the parent's own walk does not come back through this task (a cycle ends at its entry).
        const visitsChild = (() => {
          const seen = new Set<number>();
          for (let at: number | null = parent; at !== null && at < tasks.length && !seen.has(at); at = tasks[at]!.parent) {
            if (tasks[at]!.ownImage) return false;
            if (at === i) return true;
            seen.add(at);
          }
          return false;
        })();
        fc.pre(!visitsChild);
        expect(resolveContainerKey(profile, `t${i}`, lookup)).toEqual(resolveContainerKey(profile, `t${parent}`, lookup));
      }),
    );
  });
});
