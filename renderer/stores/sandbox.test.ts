import { describe, expect, it } from 'vitest';
import type { SandboxProgressEvent, SandboxStatus } from '../../shared/contract';
import { createFakeApi } from '../test/fakeApi';
import { createSandboxStore, displaySandbox, reduceSandbox, type SandboxViews } from './sandbox';

function status(state: SandboxStatus['state'], extra: Partial<SandboxStatus> = {}): SandboxStatus {
  return { chatId: 'c1', state, key: 'default:c1', containerId: null, containerName: null, image: 'debian:bookworm-slim', networkName: 'berth-default', error: null, ...extra };
}

function progress(phase: SandboxProgressEvent['phase'], fraction: number | null = null): SandboxProgressEvent {
  return { chatId: 'c1', key: 'default:c1', phase, message: `${phase}…`, fraction };
}

describe('reduceSandbox', () => {
  it('shows nothing started for a chat it has not heard of', () => {
    expect(displaySandbox(undefined)).toEqual({ state: 'none', fraction: null, message: null, error: null });
  });

  it('follows a bring-up from progress events to running', () => {
    let s: SandboxViews = {};
    s = reduceSandbox(s, { type: 'status', status: status('none') });
    s = reduceSandbox(s, { type: 'progress', progress: progress('pulling', 0.25) });
    expect(displaySandbox(s['c1'])).toMatchObject({ state: 'pulling', fraction: 0.25, message: 'pulling…' });
    s = reduceSandbox(s, { type: 'progress', progress: progress('creating') });
    expect(displaySandbox(s['c1'])).toMatchObject({ state: 'creating', fraction: null });
    s = reduceSandbox(s, { type: 'progress', progress: progress('ready') });
    expect(displaySandbox(s['c1'])).toMatchObject({ state: 'running', message: null });
    expect(s['c1']?.progress).toBeNull();
  });

  it('a final status ends the progress; a status of the same phase keeps its fraction', () => {
    let s: SandboxViews = reduceSandbox({}, { type: 'progress', progress: progress('pulling', 0.5) });
    s = reduceSandbox(s, { type: 'status', status: status('pulling') });
    expect(displaySandbox(s['c1'])).toMatchObject({ state: 'pulling', fraction: 0.5 });
    s = reduceSandbox(s, { type: 'status', status: status('running', { containerName: 'berth-c1' }) });
    expect(displaySandbox(s['c1'])).toMatchObject({ state: 'running', fraction: null });
    expect(s['c1']?.status?.containerName).toBe('berth-c1');
  });

  it('a status main read before the sandbox came up, answered after the events, does not take "running" back', () => {
    // The page asked for the status as the chat opened; the engine was slow, and meanwhile the
    // warm sandbox came up and said so. Before: the late answer showed "none" from then on.
    let s: SandboxViews = {};
    s = reduceSandbox(s, { type: 'progress', progress: { ...progress('starting'), revision: 4 } });
    s = reduceSandbox(s, { type: 'progress', progress: { ...progress('ready'), revision: 5 } });
    s = reduceSandbox(s, { type: 'status', status: status('none', { revision: 3 }) });
    expect(displaySandbox(s['c1']).state).toBe('running');
    // Anything read later wins, as before.
    s = reduceSandbox(s, { type: 'status', status: status('stopped', { revision: 6 }) });
    expect(displaySandbox(s['c1']).state).toBe('stopped');
    s = reduceSandbox(s, { type: 'progress', progress: { ...progress('creating'), revision: 2 } });
    expect(displaySandbox(s['c1']).state).toBe('stopped');
  });

  it('shows an error status with its message', () => {
    const s = reduceSandbox({}, { type: 'status', status: status('error', { error: { code: 'image_unavailable', message: 'The image could not be pulled.' } }) });
    expect(displaySandbox(s['c1'])).toMatchObject({ state: 'error', error: { code: 'image_unavailable', message: 'The image could not be pulled.' } });
  });

  it('keeps chats apart and forgets a deleted one', () => {
    let s = reduceSandbox({}, { type: 'status', status: status('running') });
    s = reduceSandbox(s, { type: 'status', status: { ...status('stopped'), chatId: 'c2' } });
    expect(displaySandbox(s['c1']).state).toBe('running');
    expect(displaySandbox(s['c2']).state).toBe('stopped');
    s = reduceSandbox(s, { type: 'forget', chatId: 'c1' });
    expect(Object.keys(s)).toEqual(['c2']);
  });
});

describe('sandbox store', () => {
  it('loads a status and keeps a failed load to show', async () => {
    const api = createFakeApi();
    api.sandbox.set('c1', status('running'));
    const store = createSandboxStore(api);
    await store.getState().load('c1');
    expect(displaySandbox(store.getState().views['c1']).state).toBe('running');
    api.fail('sandbox.status', 'engine_unreachable', 'Docker is not answering.', 'Start Docker.');
    await store.getState().load('c1');
    expect(store.getState().loadErrors['c1']).toEqual({ code: 'engine_unreachable', message: 'Docker is not answering.', hint: 'Start Docker.' });
  });
});
