import { describe, expect, it } from 'vitest';
import {
  profileDefaultKey,
  qualifyTaskId,
  resolveContainerKey,
  type KeyProfile,
  type TaskLookup,
  type TaskOverride,
  type TaskRegistration,
} from './containerKey.js';

/** A registry of chats and tasks, keyed the way the store keys them: by profile-qualified id. */
class Registry {
  private readonly rows = new Map<string, TaskRegistration>();

  add(profile: string, rawId: string, parentId: string | null = null, override: TaskOverride | null = null): this {
    this.rows.set(qualifyTaskId(profile, rawId), { parentId, override });
    return this;
  }

  readonly lookup: TaskLookup = (qualifiedId) => this.rows.get(qualifiedId);
}

const docker = (name: string, containerScope: 'chat' | 'shared' = 'chat'): KeyProfile => ({ name, backend: 'docker', containerScope });
const local = (name: string, containerScope: 'chat' | 'shared' = 'chat'): KeyProfile => ({ name, backend: 'local', containerScope });

function keyOf(profile: KeyProfile, rawId: string | null, reg: Registry): string {
  const target = resolveContainerKey(profile, rawId, reg.lookup);
  if (target.kind !== 'container') throw new Error(`expected a container, got ${JSON.stringify(target)}`);
  return target.key;
}

describe('qualifyTaskId and profileDefaultKey', () => {
  it('writes default-profile ids as default:<id> and named-profile ids as profile:<name>:<id>', () => {
    expect(qualifyTaskId('default', 'c1')).toBe('default:c1');
    expect(qualifyTaskId('work', 'c1')).toBe('profile:work:c1');
  });

  it('never lets a profile name containing ":" collide with another profile and id', () => {
    expect(qualifyTaskId('a:b', 'c')).not.toBe(qualifyTaskId('a', 'b:c'));
    expect(profileDefaultKey('a:b')).not.toBe(qualifyTaskId('a', 'b'));
  });

  it('gives the profile default key a value no qualified task id can take', () => {
    expect(profileDefaultKey('default')).toBe('default');
    expect(profileDefaultKey('default')).not.toBe(qualifyTaskId('default', ''));
    expect(profileDefaultKey('work')).not.toBe(qualifyTaskId('work', ''));
    expect(profileDefaultKey('work')).not.toBe(profileDefaultKey('default'));
  });
});

describe('resolveContainerKey: container scope', () => {
  it("gives each chat its own container in 'chat' scope", () => {
    const reg = new Registry().add('default', 'c1').add('default', 'c2');
    const profile = docker('default', 'chat');
    expect(resolveContainerKey(profile, 'c1', reg.lookup)).toEqual({ kind: 'container', key: 'default:c1', ownerTaskId: 'c1' });
    expect(keyOf(profile, 'c2', reg)).toBe('default:c2');
  });

  it("gives the whole profile one container in 'shared' scope", () => {
    const reg = new Registry().add('work', 'c1').add('work', 'c2');
    const profile = docker('work', 'shared');
    expect(resolveContainerKey(profile, 'c1', reg.lookup)).toEqual({ kind: 'container', key: profileDefaultKey('work'), ownerTaskId: null });
    expect(keyOf(profile, 'c2', reg)).toBe(profileDefaultKey('work'));
  });

  it.each(['chat', 'shared'] as const)('gives a task with its own image its own container (%s scope)', (scope) => {
    const reg = new Registry().add('work', 'c1').add('work', 't1', 'c1', { image: 'node:22' });
    const target = resolveContainerKey(docker('work', scope), 't1', reg.lookup);
    expect(target).toEqual({ kind: 'container', key: qualifyTaskId('work', 't1'), ownerTaskId: 't1' });
  });

  it.each(['chat', 'shared'] as const)('gives a task with its own backend its own container (%s scope)', (scope) => {
    const reg = new Registry().add('work', 'c1').add('work', 't1', 'c1', { backend: 'docker' });
    expect(keyOf(docker('work', scope), 't1', reg)).toBe(qualifyTaskId('work', 't1'));
  });

  it.each(['chat', 'shared'] as const)('does not give a task whose override only sets a cwd its own container (%s scope)', (scope) => {
    const reg = new Registry().add('work', 'c1').add('work', 't1', 'c1', { cwd: '/workspace/sub', image: null, backend: null });
    const expected = scope === 'chat' ? qualifyTaskId('work', 'c1') : profileDefaultKey('work');
    expect(keyOf(docker('work', scope), 't1', reg)).toBe(expected);
  });
});

describe('resolveContainerKey: subagent aliases', () => {
  it("resolves a subagent to its parent chat's container", () => {
    const reg = new Registry().add('default', 'chat').add('default', 'sub', 'chat');
    expect(resolveContainerKey(docker('default'), 'sub', reg.lookup)).toEqual({
      kind: 'container', key: 'default:chat', ownerTaskId: 'chat',
    });
  });

  it('resolves a chain of aliases to the root chat', () => {
    const reg = new Registry().add('default', 'root').add('default', 'a', 'root').add('default', 'b', 'a').add('default', 'c', 'b');
    expect(keyOf(docker('default'), 'c', reg)).toBe('default:root');
  });

  it('stops at the nearest ancestor that has its own image', () => {
    const reg = new Registry()
      .add('default', 'root')
      .add('default', 'mid', 'root', { image: 'python:3' })
      .add('default', 'leaf', 'mid');
    expect(keyOf(docker('default'), 'leaf', reg)).toBe('default:mid');
  });

  it('ends a two-member cycle (A→B→A) at one of its members', () => {
    const reg = new Registry().add('default', 'A', 'B').add('default', 'B', 'A');
    const members = ['default:A', 'default:B'];
    expect(members).toContain(keyOf(docker('default'), 'A', reg));
    expect(members).toContain(keyOf(docker('default'), 'B', reg));
  });

  it('ends a self-cycle at the task itself', () => {
    const reg = new Registry().add('default', 'A', 'A');
    expect(keyOf(docker('default'), 'A', reg)).toBe('default:A');
  });

  it("ends a cycle that a task leads into at one of the cycle's members", () => {
    const reg = new Registry().add('default', 'A', 'B').add('default', 'B', 'C').add('default', 'C', 'B').add('default', 'x', 'A');
    expect(['default:A', 'default:B', 'default:C']).toContain(keyOf(docker('default'), 'x', reg));
  });

  it("sends an alias whose parent is missing to the profile's default container", () => {
    const reg = new Registry().add('work', 'orphan', 'gone');
    expect(resolveContainerKey(docker('work'), 'orphan', reg.lookup)).toEqual({
      kind: 'container', key: profileDefaultKey('work'), ownerTaskId: null,
    });
  });

  it("sends a null task id to the profile's default container", () => {
    const reg = new Registry().add('work', 'c1');
    expect(resolveContainerKey(docker('work'), null, reg.lookup)).toEqual({
      kind: 'container', key: profileDefaultKey('work'), ownerTaskId: null,
    });
  });
});

describe('resolveContainerKey: profiles never share keys', () => {
  it('keys ids by their profile: default:<id> and profile:<name>:<id>', () => {
    const reg = new Registry().add('default', 'c1').add('work', 'c1');
    expect(keyOf(docker('default'), 'c1', reg)).toBe('default:c1');
    expect(keyOf(docker('work'), 'c1', reg)).toBe('profile:work:c1');
  });

  it('never resolves the same raw id in two profiles to one key', () => {
    const reg = new Registry().add('default', 'x').add('p1', 'x').add('p2', 'x');
    const keys = [keyOf(docker('default'), 'x', reg), keyOf(docker('p1'), 'x', reg), keyOf(docker('p2'), 'x', reg)];
    expect(new Set(keys).size).toBe(3);
  });

  it('keeps profile "a:b" with id "c" apart from profile "a" with id "b:c"', () => {
    const reg = new Registry().add('a:b', 'c').add('a', 'b:c');
    expect(keyOf(docker('a:b'), 'c', reg)).not.toBe(keyOf(docker('a'), 'b:c', reg));
  });

  it('keeps shared-scope containers of "a:b" and "a" apart', () => {
    const reg = new Registry().add('a:b', 'c').add('a', 'c');
    expect(keyOf(docker('a:b', 'shared'), 'c', reg)).not.toBe(keyOf(docker('a', 'shared'), 'c', reg));
  });

  it('A→B→A: raw id "s1" keeps one key per profile, and the same key on returning to A', () => {
    const reg = new Registry().add('A', 's1').add('B', 's1');
    const first = keyOf(docker('A'), 's1', reg);
    const inB = keyOf(docker('B'), 's1', reg);
    const again = keyOf(docker('A'), 's1', reg);
    expect(first).toBe(qualifyTaskId('A', 's1'));
    expect(inB).toBe(qualifyTaskId('B', 's1'));
    expect(again).toBe(first);
    expect(inB).not.toBe(first);
  });

  it("follows an alias in B to B's own parent, never to A's same-named parent", () => {
    const reg = new Registry().add('A', 'p').add('A', 'sub', 'p').add('B', 'p').add('B', 'sub', 'p');
    expect(keyOf(docker('B'), 'sub', reg)).toBe(qualifyTaskId('B', 'p'));
    expect(keyOf(docker('A'), 'sub', reg)).toBe(qualifyTaskId('A', 'p'));
  });

  it("does not borrow A's parent when B's alias has none of its own", () => {
    const reg = new Registry().add('A', 'p', null, { image: 'node:22' }).add('B', 'sub', 'p');
    expect(keyOf(docker('B'), 'sub', reg)).toBe(profileDefaultKey('B'));
  });
});

describe('resolveContainerKey: local backend', () => {
  it.each(['chat', 'shared'] as const)('never gives a local profile a container (%s scope)', (scope) => {
    const reg = new Registry().add('dev', 'c1').add('dev', 'sub', 'c1').add('dev', 'img', 'c1', { image: 'node:22' });
    const profile = local('dev', scope);
    for (const id of ['c1', 'sub', 'img', 'unknown', null]) {
      expect(resolveContainerKey(profile, id, reg.lookup)).toEqual({ kind: 'local', profile: 'dev' });
    }
  });

  it.each(['chat', 'shared'] as const)("gives a task overriding backend 'docker' in a local profile its own container (%s scope)", (scope) => {
    const reg = new Registry().add('dev', 'c1').add('dev', 'boxed', 'c1', { backend: 'docker' }).add('dev', 'child', 'boxed');
    const profile = local('dev', scope);
    expect(resolveContainerKey(profile, 'boxed', reg.lookup)).toEqual({
      kind: 'container', key: qualifyTaskId('dev', 'boxed'), ownerTaskId: 'boxed',
    });
    expect(keyOf(profile, 'child', reg)).toBe(qualifyTaskId('dev', 'boxed'));
  });

  it("runs a task overriding backend 'local' in a docker profile locally", () => {
    const reg = new Registry().add('work', 'c1').add('work', 'host', 'c1', { backend: 'local' });
    expect(resolveContainerKey(docker('work'), 'host', reg.lookup)).toEqual({ kind: 'local', profile: 'work' });
  });
});
