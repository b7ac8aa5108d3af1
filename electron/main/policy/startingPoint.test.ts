import { describe, expect, it } from 'vitest';
import { DEFAULT_EGRESS_ALLOW, StartingPointId } from '../../../shared/egress.js';
import { STARTING_POINTS } from '../../../shared/egressPresets.js';
import { shouldAskStartingPoint, startingPointSettings, type StartingPointFacts } from './startingPoint.js';

const fresh: StartingPointFacts = {
  profile: 'default',
  answer: undefined,
  chatsMade: false,
  network: { egress: 'allowlist', egressAllow: [...DEFAULT_EGRESS_ALLOW] },
};

describe('shouldAskStartingPoint', () => {
  it('asks at the first New chat of a fresh data folder, in the default profile', () => {
    expect(shouldAskStartingPoint(fresh)).toBe(true);
  });

  it('never asks again once answered, whatever the answer', () => {
    for (const answer of StartingPointId.options) expect(shouldAskStartingPoint({ ...fresh, answer })).toBe(false);
  });

  it('does not ask when a chat was made before (an upgrade, or chats made through the API)', () => {
    expect(shouldAskStartingPoint({ ...fresh, chatsMade: true })).toBe(false);
  });

  it("does not ask for another profile's chat: the answer sets the default profile", () => {
    expect(shouldAskStartingPoint({ ...fresh, profile: 'work' })).toBe(false);
  });

  it('does not ask when the user already set the default profile network in the profile form', () => {
    expect(shouldAskStartingPoint({ ...fresh, network: { egress: 'none', egressAllow: [...DEFAULT_EGRESS_ALLOW] } })).toBe(false);
    expect(shouldAskStartingPoint({ ...fresh, network: { egress: 'allowlist', egressAllow: ['example.com'] } })).toBe(false);
    expect(shouldAskStartingPoint({ ...fresh, network: { egress: 'allowlist', egressAllow: [...DEFAULT_EGRESS_ALLOW, 'example.com'] } })).toBe(false);
  });
});

describe('startingPointSettings', () => {
  it("sets each starting point's mode as the presets module defines it, and the list only where the mode uses one", () => {
    expect(startingPointSettings('locked')).toEqual({ egress: 'none' });
    expect(startingPointSettings('balanced')).toEqual({ egress: 'allowlist', egressAllow: [...DEFAULT_EGRESS_ALLOW] });
    expect(startingPointSettings('open')).toEqual({ egress: 'open' });
    expect(STARTING_POINTS.map((p) => p.id)).toEqual(StartingPointId.options);
  });
});
