/**
 * Berth's own sandbox base image: its recipes, and how to read a failed download. Pure: the
 * sandbox's provisioner (sandbox/baseImage.ts) acts on these through the engine.
 *
 * Two recipes, tried in order, both built through the Engine API (no docker CLI, no npm script):
 * 1. `build/sandbox/Dockerfile` (Debian with bash, git, python3…): needs a registry for its base.
 * 2. Where no registry answers (this workplace, an air-gapped desktop) and the engine runs on this
 *    Linux computer: `FROM scratch` with the host's own static busybox. It needs nothing from the
 *    network and no root (unlike a debootstrap rootfs), builds in seconds, and gives a POSIX
 *    shell and coreutils, enough for Berth's shell, terminals and the agent's tools.
 */

/** Kept identical to build/sandbox/Dockerfile (a unit test compares them). */
export const DEBIAN_RECIPE = `# The default sandbox image recipe: a Debian base with the tools agents reach for.
# Berth builds it by itself (as berth-sandbox:1) the first time a chat needs it; by hand:
#   docker build -t berth-sandbox:1 build/sandbox
FROM debian:bookworm-slim
RUN apt-get update \\
 && apt-get install -y --no-install-recommends bash ca-certificates curl git less procps python3 ripgrep \\
 && rm -rf /var/lib/apt/lists/* \\
 && groupadd -g 1000 sandbox && useradd -m -u 1000 -g 1000 -s /bin/bash sandbox \\
 && mkdir /workspace && chown 1000:1000 /workspace
LABEL berth.base=debian
WORKDIR /workspace
CMD ["/bin/bash"]
`;

/** The registry-free recipe: its build context is this Dockerfile, the host's busybox, passwd and group. */
export const BUSYBOX_RECIPE = `FROM scratch
COPY busybox /bin/busybox
COPY passwd group /etc/
RUN ["/bin/busybox", "sh", "-c", "/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /tmp /root /home/sandbox /workspace && /bin/busybox --install -s && /bin/busybox chmod 1777 /tmp && /bin/busybox chown 1000:1000 /home/sandbox /workspace"]
LABEL berth.base=busybox
WORKDIR /workspace
CMD ["/bin/sh"]
`;

export const BUSYBOX_PASSWD = 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n';
export const BUSYBOX_GROUP = 'root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n';

/** Where the fallback looks for a statically linked busybox (Debian's busybox-static installs /bin/busybox). */
export const BUSYBOX_CANDIDATES = ['/bin/busybox', '/usr/bin/busybox', '/usr/lib/initramfs-tools/bin/busybox'];

/**
 * Whether `elf` is a statically linked ELF executable for `arch` (Node's process.arch): a
 * dynamic one would not run in a `FROM scratch` image (no loader, no libc).
 */
export function isStaticElf(elf: Uint8Array, arch: string): boolean {
  if (elf.length < 64 || elf[0] !== 0x7f || elf[1] !== 0x45 || elf[2] !== 0x4c || elf[3] !== 0x46) return false;
  const is64 = elf[4] === 2;
  if (elf[5] !== 1) return false; // little-endian only (x64, arm64)
  const view = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
  const machine = view.getUint16(18, true);
  const wanted: Record<string, number> = { x64: 62, arm64: 183, ia32: 3, arm: 40 };
  if (wanted[arch] !== machine) return false;
  const phoff = is64 ? Number(view.getBigUint64(32, true)) : view.getUint32(28, true);
  const phentsize = view.getUint16(is64 ? 54 : 42, true);
  const phnum = view.getUint16(is64 ? 56 : 44, true);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > elf.length) return false;
    if (view.getUint32(at, true) === 3) return false; // PT_INTERP: needs a dynamic loader
  }
  return true;
}

/** Node's process.arch as the engine names it (`docker version`'s Arch). */
export function engineArch(nodeArch: string): string {
  return ({ x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' } as Record<string, string>)[nodeArch] ?? nodeArch;
}

export type PullFailure = 'not_found' | 'unreachable' | 'other';

/**
 * Why the engine could not download an image, from its message: the registry said it has no
 * such image (or refuses to show it), or no registry answered at all. Engines word these
 * differently; these are the Docker and Podman wordings.
 */
export function classifyPullFailure(message: string): PullFailure {
  const m = message.toLowerCase();
  if (/manifest unknown|not found|repository does not exist|pull access denied|name unknown|no such image|unauthorized|denied: requested access/.test(m)) {
    return 'not_found';
  }
  if (/dial tcp|no such host|lookup .* on |i\/o timeout|connection refused|network is unreachable|tls handshake timeout|client\.timeout|server misbehaving|temporary failure in name resolution|no route to host|context deadline exceeded|eof$/.test(m)) {
    return 'unreachable';
  }
  return 'other';
}
