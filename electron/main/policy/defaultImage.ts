/**
 * Berth's default environment: the full Debian image a default profile's chats get (bash, git,
 * python3, curl, ripgrep, build tools), and the minimal one they run on while it is being
 * prepared. Pure: sandbox/defaultImage.ts prepares it, SandboxContainers asks `chooseImage`.
 *
 * The profile names one image, Berth's base tag (berth-sandbox:1). The full image carries the same
 * name with `-full` (berth-sandbox:1-full); the base tag itself is the minimal one Berth can make
 * in seconds offline (policy/baseImage.ts). A chat whose sandbox is made while the full image is
 * not ready runs on the minimal one and says so; it moves at its next start (a running sandbox is
 * never swapped under its terminals).
 */

/** The full image's packages: what a repository attached in Review mode needs to be worked on. */
export const FULL_PACKAGES = [
  'bash', 'ca-certificates', 'curl', 'git', 'less', 'procps', 'python3', 'ripgrep', 'build-essential', 'openssh-client', 'xz-utils', 'unzip',
] as const;

/** The full image's tag for a base tag: berth-sandbox:1 → berth-sandbox:1-full. */
export function fullTagOf(baseTag: string): string {
  const colon = baseTag.lastIndexOf(':');
  return colon > baseTag.lastIndexOf('/') ? `${baseTag}-full` : `${baseTag}:full`;
}

/** The recipe where a registry answers (Debian's own image as the base). */
export const FULL_DEBIAN_RECIPE = `# Berth's full default sandbox image: Debian with the tools agents reach for.
# Berth builds it by itself (as berth-sandbox:1-full) when it starts; by hand:
#   docker build -t berth-sandbox:1-full build/sandbox
FROM debian:bookworm-slim
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${FULL_PACKAGES.join(' ')} \\
 && rm -rf /var/lib/apt/lists/* \\
 && groupadd -g 1000 sandbox && useradd -m -u 1000 -g 1000 -s /bin/bash sandbox \\
 && mkdir /workspace && chown 1000:1000 /workspace
LABEL berth.base=debian-full
WORKDIR /workspace
CMD ["/bin/bash"]
`;

/** The offline recipe: its build context is this Dockerfile and rootfs.tar (debootstrap's output). */
export const FULL_ROOTFS_RECIPE = `FROM scratch
ADD rootfs.tar /
LABEL berth.base=debian-full
WORKDIR /workspace
CMD ["/bin/bash"]
`;

/** A build whose source is an image already on the engine (tests: berth-test:bookworm). */
export function fullFromSourceRecipe(source: string): string {
  return `FROM ${source}\nLABEL berth.base=debian-full berth.base.source=${JSON.stringify(source)}\n`;
}

/** The sandbox user the rootfs gets (as the registry recipe's useradd makes it). */
export const SANDBOX_PASSWD_LINE = 'sandbox:x:1000:1000:sandbox:/home/sandbox:/bin/bash\n';
export const SANDBOX_GROUP_LINE = 'sandbox:x:1000:\n';

/** What a chat's header says while its sandbox runs on the minimal image. */
export const MINIMAL_NOTE = 'Minimal sandbox: the full environment is being prepared… (sh and busybox tools only; this chat moves to the full one at its next start)';

/** The same, once the full image is ready while this chat's sandbox still runs. */
export const MINIMAL_READY_NOTE = 'Minimal sandbox: the full environment is ready; this chat moves to it at its next start (Stop in the sandbox details, or when idle).';

export interface ImageChoice {
  image: string;
  /** Set when the chat runs on the minimal image: what its header says. */
  note: string | null;
}

/**
 * Which image a sandbox is made from. `running`: the image of the key's container while it is
 * up (it is kept: a swap would end the chat's terminals); null when it will be (re)made.
 */
export function chooseImage(input: { requested: string; baseTag: string; fullReady: boolean; running: string | null }): ImageChoice {
  const { requested, baseTag, fullReady, running } = input;
  if (requested !== baseTag) return { image: requested, note: null };
  const full = fullTagOf(baseTag);
  if (running === full) return { image: full, note: null };
  if (running === baseTag) return { image: baseTag, note: fullReady ? MINIMAL_READY_NOTE : MINIMAL_NOTE };
  return fullReady ? { image: full, note: null } : { image: baseTag, note: MINIMAL_NOTE };
}
