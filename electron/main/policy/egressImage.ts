/**
 * Berth's egress proxy image: its recipes and how to read the offline build's progress. Pure:
 * egress/egressImage.ts acts on these through the engine.
 *
 * Two recipes, tried in order, both built through the Engine API:
 * 1. `build/egress/Dockerfile` (Debian's squid-openssl): needs a registry for its base.
 * 2. Where no registry answers and the engine runs on this Linux computer: a Debian root file
 *    system made here with debootstrap (from the Debian mirror apt uses, which answers where
 *    a registry may not), packed as a tar and added `FROM scratch` (ADD keeps the files'
 *    owners). debootstrap needs root; without it the error says what to run once.
 * squid-openssl rather than squid: only it can read the TLS client hello's SNI (ssl_bump peek
 * and splice, no interception); openssl makes the throwaway certificate such a port needs.
 */

export const EGRESS_IMAGE = 'berth-egress:3';

export const EGRESS_PACKAGES = ['squid-openssl', 'haproxy', 'openssl', 'ca-certificates'] as const;

/** Kept identical to build/egress/Dockerfile (a unit test compares them). */
export const EGRESS_DEBIAN_RECIPE = `# Berth's egress proxy: Debian's HAProxy (the sandboxes' ports: every request's host and port)
# and squid with OpenSSL (the HTTPS SNI check). Berth builds it by itself (as berth-egress:3) the first time an allowlist profile
# needs it; by hand:
#   docker build -t berth-egress:3 build/egress
# Berth supplies both configurations and the command when it creates the container.
FROM debian:bookworm-slim
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${EGRESS_PACKAGES.join(' ')} \\
 && rm -rf /var/lib/apt/lists/*
LABEL berth.egress=debian
USER proxy
`;

/** The offline recipe: its build context is this Dockerfile and rootfs.tar (debootstrap's output). */
export const EGRESS_ROOTFS_RECIPE = `FROM scratch
ADD rootfs.tar /
LABEL berth.egress=debootstrap
USER proxy
`;

/** debootstrap's arguments for the root file system (minbase: no more than squid needs). */
export function debootstrapArgs(target: string, mirror: string): string[] {
  return ['--variant=minbase', `--include=${EGRESS_PACKAGES.join(',')}`, 'bookworm', target, mirror];
}

/** The mirror apt on this computer uses (deb822 or one-line sources), else Debian's own. */
export function debianMirror(sources: string): string {
  const deb822 = /^URIs:\s*(\S+)/m.exec(sources);
  if (deb822?.[1] && !/security/.test(deb822[1])) return deb822[1];
  const line = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\b/m.exec(sources);
  return line?.[1] ?? 'http://deb.debian.org/debian';
}

/**
 * debootstrap's "I: …" lines as progress: retrieving packages is about half of the time,
 * unpacking and configuring the rest (the fraction is coarse, the message exact).
 */
export function debootstrapProgress(line: string): { message: string; fraction: number | null } | null {
  const m = /^I: (.+)$/.exec(line.trim());
  if (!m) return null;
  const text = m[1] as string;
  const phase: [RegExp, number][] = [
    [/^Retrieving (In)?Release|^Checking Release|^Retrieving Packages|^Validating Packages|^Resolving/, 0.02],
    [/^Found /, 0.05],
    [/^Retrieving |^Validating /, 0.3],
    [/^Chosen extractor|^Extracting /, 0.5],
    [/^Installing core|^Unpacking required|^Configuring required|^Unpacking |^Configuring /, 0.7],
    [/^Base system installed successfully/, 0.85],
  ];
  const hit = phase.find(([re]) => re.test(text));
  return { message: `Proxy image: ${text.slice(0, 140)}`, fraction: hit ? hit[1] : null };
}
