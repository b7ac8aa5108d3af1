/**
 * The sandbox hardening Berth asks of Podman, checked against what Podman made. Podman's
 * Docker-compatible API accepts a create body and may drop what it cannot do with only a
 * warning (rootless Podman on cgroup v1 drops every limit), so Berth reads the container back
 * and refuses one that is not what it asked for. Pure.
 */
import { BerthError } from '../../../shared/errors.js';
import type { ContainerCreateBody } from '../policy/containerSpec.js';
import { describeKind, missingLimitControllers, type EngineKind } from './engineKind.js';

/** Why this Podman cannot run a sandbox with its limits, or null when it can. */
export function podmanCannotLimit(kind: EngineKind): BerthError | null {
  const missing = missingLimitControllers(kind);
  if (kind.name !== 'podman' || missing.length === 0) return null;
  return new BerthError(
    'container_failed',
    `${describeKind(kind)} cannot limit a sandbox's ${missing.join(', ')} (cgroup ${kind.cgroupVersion || 'unknown'}${kind.rootless ? ', rootless' : ''}: no ${missing.join('/')} controller delegated to it), so Berth will not start a sandbox there without its limits.`,
    {
      hint: kind.rootless
        ? 'Rootless Podman needs cgroup v2 with the memory, pids and cpu controllers delegated to the user (systemd does this by default on cgroup v2). Use rootful Podman or Docker on this machine.'
        : 'Enable the memory, pids and cpu cgroup controllers for Podman, or use Docker.',
    },
  );
}

/** The limits and privileges of the sandbox spec, as Podman's inspect reports them; null when all hold. */
export function checkPodmanContainer(body: ContainerCreateBody, made: Record<string, unknown>): BerthError | null {
  const asked = body.HostConfig;
  const dropped: string[] = [];
  if (made.PidsLimit !== asked.PidsLimit) dropped.push(`process limit (${asked.PidsLimit}, made ${String(made.PidsLimit)})`);
  if (made.Memory !== asked.Memory) dropped.push(`memory limit (${asked.Memory} bytes, made ${String(made.Memory)})`);
  if (made.NanoCpus !== asked.NanoCpus) dropped.push(`CPU limit (${asked.NanoCpus} nano-CPUs, made ${String(made.NanoCpus)})`);
  const securityOpt = Array.isArray(made.SecurityOpt) ? (made.SecurityOpt as unknown[]).map(String) : [];
  if (!securityOpt.some((o) => /^no-new-privileges(:true|=true)?$/.test(o))) dropped.push('no-new-privileges');
  if (Array.isArray(made.CapAdd) && made.CapAdd.length > 0) dropped.push(`no added capabilities (made ${(made.CapAdd as unknown[]).join(', ')})`);
  if (made.Privileged === true) dropped.push('not privileged');
  if (dropped.length === 0) return null;
  return new BerthError(
    'container_failed',
    `Podman created the sandbox without its ${dropped.join(', ')}, so Berth removed it before anything ran.`,
    { hint: 'This Podman cannot apply the sandbox\'s hardening (often rootless Podman on cgroup v1). Use rootful Podman, Podman on cgroup v2, or Docker.' },
  );
}

/**
 * Podman's compatible API reads `seccomp=` as a path on the engine's machine, not the profile
 * itself as Docker does: the profile is written to a file Podman can read (not secret, and
 * in a folder only Berth can write) and the option names that file.
 */
export function withSeccompFile(body: ContainerCreateBody, fileFor: (profile: string) => string): ContainerCreateBody {
  const SECCOMP = 'seccomp=';
  const SecurityOpt = body.HostConfig.SecurityOpt.map((o) => (o.startsWith(SECCOMP) && o.slice(SECCOMP.length).trimStart().startsWith('{') ? `${SECCOMP}${fileFor(o.slice(SECCOMP.length))}` : o));
  return { ...body, HostConfig: { ...body.HostConfig, SecurityOpt } };
}

/**
 * Podman closes a container's stdin for good when the client attached to it disconnects
 * (conmon, whatever StdinOnce says; Docker keeps it open), so the sandbox's shell, which reads
 * its commands from stdin, would exit with the first disconnect: every Berth quit with
 * retention "keep", every shell session closed. On Podman the shell reads a FIFO on the
 * container's private /tmp instead, which it holds open for reading and writing itself (it never
 * sees end-of-file), and each attach writes into it through an exec (`STDIN_WRITER`), whose end
 * ends only that writer. The label tells attach() which way a container was made.
 */
export const STDIN_FIFO = '/tmp/.berth-stdin';
export const STDIN_LABEL = 'berth.stdin';

/** Made by whichever of shell and writer comes first (mkfifo is atomic; the other finds it). */
const MAKE_FIFO = `[ -p ${STDIN_FIFO} ] || mkfifo -m 600 ${STDIN_FIFO} 2>/dev/null`;

/** The sandbox's create body for Podman: its shell's stdin is the FIFO (Entrypoint is `/bin/sh -c`). */
export function withStdinFifo(body: ContainerCreateBody): ContainerCreateBody {
  if (body.Entrypoint.join(' ') !== '/bin/sh -c' || body.Cmd.length !== 1) return body;
  const setup = `${MAKE_FIFO}; [ -p ${STDIN_FIFO} ] && exec <>${STDIN_FIFO}; `;
  return { ...body, Cmd: [`${setup}${body.Cmd[0]}`], Labels: { ...body.Labels, [STDIN_LABEL]: 'fifo' } };
}

/** The exec that carries one attach's input into the FIFO (as the container's user). */
export const STDIN_WRITER = [
  '/bin/sh',
  '-c',
  `${MAKE_FIFO}; [ -p ${STDIN_FIFO} ] || { echo "Berth: the sandbox image has no mkfifo, which Berth needs on Podman (coreutils or busybox)." >&2; exit 127; }; exec cat > ${STDIN_FIFO}`,
];
