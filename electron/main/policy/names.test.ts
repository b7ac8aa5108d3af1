import { describe, expect, it } from 'vitest';
import { BerthError } from '../../../shared/errors.js';
import { containerNameFor, folderNameFor, networkNameFor } from './names.js';

const DOCKER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('networkNameFor', () => {
  it('turns a profile name into berth-<slug>', () => {
    expect(networkNameFor('a b/c')).toBe('berth-a-b-c');
    expect(networkNameFor('Work')).toBe('berth-work');
  });

  it.each(['///', '!!!', '   ', 'ßçø'])('refuses the profile name %j, which has nothing usable, with invalid_request', (name) => {
    const error = thrown(() => networkNameFor(name));
    expect(error).toBeInstanceOf(BerthError);
    expect((error as BerthError).code).toBe('invalid_request');
    expect((error as BerthError).message).toContain(name);
  });

  it('produces a valid Docker name for long and odd profile names', () => {
    for (const name of ['x'.repeat(200), '--a--', '.hidden', 'a_b.c-d', 'Ünïcode 1']) {
      expect(networkNameFor(name)).toMatch(DOCKER_NAME);
    }
  });
});

describe('containerNameFor', () => {
  const instance = '0123456789abcdef';

  it.each(['default:c1', 'profile:a b:1', 'profile:%2F%2F:x', 'default:' + 'z'.repeat(300), 'default:!!!', '::::', 'profile:Ünï:é'])(
    'gives %j a valid Docker container name',
    (key) => {
      expect(containerNameFor(instance, key)).toMatch(DOCKER_NAME);
    },
  );

  it('differs for keys that slug alike', () => {
    expect(containerNameFor(instance, 'profile:a b:1')).not.toBe(containerNameFor(instance, 'profile:a-b:1'));
    expect(containerNameFor(instance, 'default:X')).not.toBe(containerNameFor(instance, 'default:x'));
  });

  it('differs between instances for the same key', () => {
    expect(containerNameFor('aaaaaaaa-1', 'default:c1')).not.toBe(containerNameFor('bbbbbbbb-1', 'default:c1'));
  });

  it('is stable for the same instance and key', () => {
    expect(containerNameFor(instance, 'default:c1')).toBe(containerNameFor(instance, 'default:c1'));
  });
});

describe('folderNameFor', () => {
  it('gives keys that slug alike different folders, each a single path segment', () => {
    const a = folderNameFor('profile:a b:1');
    const b = folderNameFor('profile:a-b:1');
    expect(a).not.toBe(b);
    for (const name of [a, b, folderNameFor('../../etc'), folderNameFor('///')]) {
      expect(name).not.toContain('/');
      expect(name).not.toMatch(/^\.\.?$/);
    }
  });
});
