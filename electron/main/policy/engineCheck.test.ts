import { describe, expect, it } from 'vitest';
import type { EngineSetting } from '../../../shared/engines.js';
import { CHECK_WINDOW_MS, ENGINE_CHECKS_PER_WINDOW, addressOf, countCheck, couldNotConnect, filesAreSaved, isSavedSetting } from './engineCheck.js';

const tcp = (ca: string, cert: string, key: string): EngineSetting => ({ kind: 'tcp', url: 'tcp://h:2376/', tls: { ca, cert, key } });

describe('engine check policy', () => {
  it('allows a few checks in any minute, then one more as the oldest leaves the window', () => {
    let recent: number[] = [];
    for (let i = 0; i < ENGINE_CHECKS_PER_WINDOW; i++) recent = countCheck(recent, 1000 + i) as number[];
    expect(countCheck(recent, 2000)).toBeNull();
    expect(countCheck(recent, 1000 + CHECK_WINDOW_MS - 1)).toBeNull();
    expect(countCheck(recent, 1000 + CHECK_WINDOW_MS)).toHaveLength(ENGINE_CHECKS_PER_WINDOW);
  });

  it('reads key files only when each is the one saved in the same field of the profile', () => {
    const saved = tcp('/k/ca.pem', '/k/cert.pem', '/k/key.pem');
    expect(filesAreSaved(saved, saved)).toBe(true);
    expect(filesAreSaved(tcp('/k/ca.pem', '/k/cert.pem', '/etc/shadow'), saved)).toBe(false);
    // A saved certificate named as the key is not what the user saved there.
    expect(filesAreSaved(tcp('/k/ca.pem', '/k/cert.pem', '/k/cert.pem'), saved)).toBe(false);
    expect(filesAreSaved(saved, null)).toBe(false);
    expect(filesAreSaved({ kind: 'ssh', url: 'ssh://me@h', identityFile: '/k/key.pem' }, saved)).toBe(false);
    // Settings without files need no saving first.
    expect(filesAreSaved({ kind: 'ssh', url: 'ssh://me@h', identityFile: null }, null)).toBe(true);
    expect(filesAreSaved({ kind: 'podman', socketPath: '/run/podman/podman.sock' }, null)).toBe(true);
  });

  it('names the engine as the user wrote it, in one sentence whatever went wrong', () => {
    expect(addressOf(tcp('/a', '/b', '/c'), 'tcp://h:2376 (TLS)')).toBe('tcp://h:2376');
    expect(addressOf({ kind: 'default' }, '/var/run/docker.sock')).toBe('/var/run/docker.sock');
    expect(couldNotConnect('tcp://h:2376')).toMatchObject({ state: 'unreachable', message: 'Berth could not connect to the engine at tcp://h:2376.' });
  });
});

describe('isSavedSetting', () => {
  it('is the saved setting, key order aside; another port or file is not', () => {
    const saved = tcp('/k/ca.pem', '/k/cert.pem', '/k/key.pem');
    expect(isSavedSetting({ tls: { key: '/k/key.pem', cert: '/k/cert.pem', ca: '/k/ca.pem' }, url: 'tcp://h:2376/', kind: 'tcp' } as EngineSetting, saved)).toBe(true);
    expect(isSavedSetting({ ...saved, url: 'tcp://h:22' } as EngineSetting, saved)).toBe(false);
    expect(isSavedSetting(saved, null)).toBe(false);
  });
});
