import { describe, expect, it } from 'vitest';
import { DEFAULT_EGRESS_ALLOW, egressEntryProblem } from './egress.js';
import { EGRESS_PRESETS, STARTING_POINTS, entryCovers, hasPreset, suggestPreset, withPreset } from './egressPresets.js';

const preset = (id: string) => EGRESS_PRESETS.find((p) => p.id === id)!;

describe('allowlist presets', () => {
  it('covers each language and code host the team named, with hosts the allowlist takes', () => {
    expect(EGRESS_PRESETS.map((p) => p.id)).toEqual(['npm', 'python', 'rust', 'go', 'java', 'ruby', 'debian', 'alpine', 'github', 'gitlab']);
    for (const p of EGRESS_PRESETS) for (const h of p.hosts) expect(egressEntryProblem(h), h).toBeNull();
    // Balanced is the default list, and every preset is in it.
    for (const p of EGRESS_PRESETS) expect(hasPreset(DEFAULT_EGRESS_ALLOW, p), p.id).toBe(true);
  });

  it('offers three starting points, one line each: none, the default list, open', () => {
    expect(STARTING_POINTS.map((s) => [s.label, s.egress])).toEqual([['Locked down', 'none'], ['Balanced', 'allowlist'], ['Open', 'open']]);
    expect(STARTING_POINTS[1]?.egressAllow).toEqual(DEFAULT_EGRESS_ALLOW);
    for (const s of STARTING_POINTS) expect(s.line).not.toContain('\n');
  });

  it('adds a preset once, keeping the list', () => {
    expect(withPreset(['a.test', 'pypi.org'], preset('python'))).toEqual(['a.test', 'pypi.org', 'files.pythonhosted.org']);
    expect(hasPreset(withPreset([], preset('go')), preset('go'))).toBe(true);
  });

  it('reads an entry as the proxy does: names, *.domain, ports', () => {
    expect(entryCovers('github.com', 'GitHub.com', 443)).toBe(true);
    expect(entryCovers('github.com', 'github.com', 22)).toBe(false);
    expect(entryCovers('github.com:22', 'github.com', 22)).toBe(true);
    expect(entryCovers('*.example.com', 'a.b.example.com', null)).toBe(true);
    expect(entryCovers('*.example.com', 'badexample.com', 443)).toBe(false);
  });

  it('suggests the preset that covers the most refusals, not one already on the list', () => {
    const refused = [
      { host: 'registry.npmjs.org', port: 443 }, { host: 'registry.npmjs.org', port: 443 },
      { host: 'pypi.org', port: 443 }, { host: 'elsewhere.test', port: 443 },
    ];
    expect(suggestPreset(refused, [])).toEqual({ preset: preset('npm'), covered: 2 });
    expect(suggestPreset(refused, preset('npm').hosts)).toEqual({ preset: preset('python'), covered: 1 });
    expect(suggestPreset([{ host: 'elsewhere.test', port: 443 }], [])).toBeNull();
  });
});
