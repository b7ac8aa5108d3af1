/**
 * Allowlist presets: the hosts each language's package registry or code host needs, added to a
 * profile's list with one click, and the three starting points a first chat offers (Locked down,
 * Balanced, Open). Pure data and decisions; no Node or DOM APIs.
 */
import { DEFAULT_EGRESS_ALLOW, DEFAULT_PORTS, type EgressMode, type StartingPointId } from './egress.js';

export interface EgressPreset {
  id: string;
  label: string;
  hosts: readonly string[];
}

export const EGRESS_PRESETS: readonly EgressPreset[] = [
  { id: 'npm', label: 'npm', hosts: ['registry.npmjs.org', 'registry.yarnpkg.com'] },
  { id: 'python', label: 'Python (PyPI)', hosts: ['pypi.org', 'files.pythonhosted.org'] },
  { id: 'rust', label: 'Rust (crates.io)', hosts: ['crates.io', 'static.crates.io', 'index.crates.io'] },
  { id: 'go', label: 'Go modules', hosts: ['proxy.golang.org', 'sum.golang.org'] },
  { id: 'java', label: 'Java (Maven Central)', hosts: ['repo.maven.apache.org', 'repo1.maven.org'] },
  { id: 'ruby', label: 'Ruby (RubyGems)', hosts: ['rubygems.org'] },
  { id: 'debian', label: 'Debian and Ubuntu mirrors', hosts: ['deb.debian.org', 'security.debian.org', 'archive.ubuntu.com', 'security.ubuntu.com'] },
  { id: 'alpine', label: 'Alpine mirror', hosts: ['dl-cdn.alpinelinux.org'] },
  { id: 'github', label: 'GitHub', hosts: ['github.com', 'codeload.github.com', 'objects.githubusercontent.com', 'raw.githubusercontent.com'] },
  { id: 'gitlab', label: 'GitLab', hosts: ['gitlab.com'] },
];

/** The first chat's one question: each choice in one line, and the profile settings it sets. */
export const STARTING_POINTS: readonly { id: StartingPointId; label: string; line: string; egress: EgressMode; egressAllow: readonly string[] }[] = [
  { id: 'locked', label: 'Locked down', line: 'No network at all: nothing in or out of the sandbox.', egress: 'none', egressAllow: [] },
  {
    id: 'balanced', label: 'Balanced',
    line: 'The package registries and code hosts only (npm, PyPI, crates.io, Go, Maven, RubyGems, Debian, Alpine, GitHub, GitLab, Bitbucket), through Berth\'s proxy.',
    egress: 'allowlist', egressAllow: DEFAULT_EGRESS_ALLOW,
  },
  { id: 'open', label: 'Open', line: 'The whole internet and the services on your computer.', egress: 'open', egressAllow: [] },
];

/** Whether an allowlist entry lets host:port through (null port: 80 or 443, as the proxy reads a request without one). */
export function entryCovers(entry: string, host: string, port: number | null): boolean {
  const m = /^(\*\.)?([^:]+)(?::(\d+))?$/.exec(entry);
  if (!m) return false;
  const domain = m[2] as string;
  const ports: readonly number[] = m[3] ? [Number(m[3])] : DEFAULT_PORTS;
  const name = host.toLowerCase().replace(/\.$/, '');
  const nameOk = m[1] ? name === domain || name.endsWith(`.${domain}`) : name === domain;
  return nameOk && (port === null ? ports.some((p) => p === 80 || p === 443) : ports.includes(port));
}

/** The list with the preset's hosts added (once each, the list's order kept). */
export function withPreset(list: readonly string[], preset: EgressPreset): string[] {
  return [...new Set([...list, ...preset.hosts])];
}

/** Whether the list already has all of the preset's hosts. */
export function hasPreset(list: readonly string[], preset: EgressPreset): boolean {
  return preset.hosts.every((h) => list.includes(h));
}

/**
 * The preset, not yet on the list, that covers the most of these refused requests, with how many
 * it covers; null when none covers any. The Network view suggests it.
 */
export function suggestPreset(refused: readonly { host: string; port: number | null }[], list: readonly string[]): { preset: EgressPreset; covered: number } | null {
  let best: { preset: EgressPreset; covered: number } | null = null;
  for (const preset of EGRESS_PRESETS) {
    if (hasPreset(list, preset)) continue;
    const covered = refused.filter((r) => preset.hosts.some((h) => entryCovers(h, r.host, r.port))).length;
    if (covered > 0 && (!best || covered > best.covered)) best = { preset, covered };
  }
  return best;
}
