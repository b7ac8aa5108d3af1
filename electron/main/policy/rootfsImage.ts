/**
 * Images made without a registry from a debootstrap root file system (engine/rootfsImage.ts):
 * debootstrap's arguments, the mirror to use, its progress, and what is trimmed before packing.
 * Pure.
 */

/** debootstrap's arguments for a root file system (minbase: only what `packages` need). */
export function debootstrapArgs(target: string, mirror: string, packages: readonly string[]): string[] {
  return ['--variant=minbase', `--include=${packages.join(',')}`, 'bookworm', target, mirror];
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
  return { message: text.slice(0, 140), fraction: hit ? hit[1] : null };
}

/**
 * Emptied before packing: Docker gives a container its own /dev and /proc, and nothing in a
 * sandbox or proxy reads apt's caches, manuals, documentation or translations. On the egress
 * image this took 182 MB to 148 MB (docker image ls; berth-egress:3 as scripts/build-egress-image.sh makes it, and as Berth makes it now).
 */
export const ROOTFS_TRIM = [
  'dev', 'proc', 'sys', 'var/cache/apt', 'var/lib/apt/lists', 'var/cache/debconf',
  'usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/locale', 'usr/share/lintian',
] as const;
