import { describe, expect, it } from 'vitest';
import { decideAttachConfirmation } from './attachConfirmation.js';

const sleep = { terminalId: 't1', title: 'Terminal 1', processes: ['sleep 300'] };

describe('decideAttachConfirmation', () => {
  it('asks nothing when the running container is kept', () => {
    expect(decideAttachConfirmation({ recreates: false, reason: null, running: [sleep] })).toEqual({ needsConfirmation: false, summary: null });
  });
  it('says the sandbox restarts but asks nothing when no terminal runs anything', () => {
    expect(decideAttachConfirmation({ recreates: true, reason: 'Docker cannot add a folder', running: [] })).toEqual({
      needsConfirmation: false,
      summary: 'Restarts the chat’s sandbox; nothing runs in its terminals.',
    });
  });
  it('asks first, naming how many terminals and what runs in them, when a restart stops commands', () => {
    const vim = { terminalId: 't2', title: 'Terminal 2', processes: ['vim a.txt', 'npm test'] };
    expect(decideAttachConfirmation({ recreates: true, reason: null, running: [sleep, vim] })).toEqual({
      needsConfirmation: true,
      summary: 'Restarts the chat’s sandbox, stopping what runs in 2 terminals (sleep 300, vim a.txt, npm test).',
    });
    expect(decideAttachConfirmation({ recreates: true, reason: null, running: [sleep] }).summary).toMatch(/in 1 terminal \(sleep 300\)/);
  });
});
