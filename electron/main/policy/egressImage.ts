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

/** What the offline recipe installs with debootstrap (policy/rootfsImage.ts). */
export const EGRESS_ROOTFS_PACKAGES = EGRESS_PACKAGES;
