import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BerthError, type ErrorCode } from '../../../shared/errors.js';
import type { HostFacts } from '../policy/sensitivePaths.js';
import { TempDirs, berthErrorOf } from '../../../test/support/tempDirs.js';
import { gatherHostFacts, recheckAttachedFolder, resolveAttachableFolder } from './folderValidation.js';

const temp = new TempDirs();
let root: string;
let dataDir: string;
let facts: HostFacts[];

beforeEach(() => {
  root = temp.make();
  dataDir = path.join(root, 'berth-data');
  fs.mkdirSync(path.join(dataDir, 'homes'), { recursive: true });
  facts = gatherHostFacts(dataDir, {});
});

afterEach(() => temp.removeAll());

const errorOf = berthErrorOf;

function expectRefused(input: string, code: ErrorCode = 'workspace_refused'): BerthError {
  const error = errorOf(() => resolveAttachableFolder(input, facts));
  expect(error.code).toBe(code);
  expect(error.message).toContain(`"${input}"`);
  return error;
}

describe('resolveAttachableFolder', () => {
  it('accepts a project folder and returns its real path', () => {
    const app = path.join(root, 'projects', 'app');
    fs.mkdirSync(app, { recursive: true });
    expect(resolveAttachableFolder(app, facts)).toBe(app);
  });

  it('refuses a path that does not exist', () => {
    expect(expectRefused(path.join(root, 'nope')).message).toMatch(/does not exist/);
  });

  it('refuses a file', () => {
    const file = path.join(root, 'notes.txt');
    fs.writeFileSync(file, 'x');
    expect(expectRefused(file).message).toMatch(/file, not a folder/);
  });

  it('refuses a relative path', () => {
    fs.mkdirSync(path.join(root, 'rel'));
    expect(expectRefused('rel').message).toMatch(/not a full path/);
    expectRefused('./projects/app');
  });

  it('refuses /workspace and paths under it, which are inside the sandbox', () => {
    expectRefused('/workspace');
    expectRefused('/workspace/src');
  });

  it.each(['/', '/etc', '/proc', '/usr'])('refuses the system path %s', (p) => {
    expectRefused(p);
  });

  it('resolves a symlink to a folder to the real folder', () => {
    const real = path.join(root, 'real-project');
    fs.mkdirSync(real);
    const link = path.join(root, 'link-to-project');
    fs.symlinkSync(real, link);
    expect(resolveAttachableFolder(link, facts)).toBe(real);
  });

  it("refuses a symlink that points into Berth's data folder", () => {
    const link = path.join(root, 'innocent-looking');
    fs.symlinkSync(path.join(dataDir, 'homes'), link);
    expect(expectRefused(link).message).toMatch(/Berth's own data/);
  });

  it("refuses the data folder itself and a folder containing it", () => {
    expectRefused(dataDir);
    expectRefused(root);
  });

  it('refuses a symlink to a system folder', () => {
    const link = path.join(root, 'etc-link');
    fs.symlinkSync('/etc', link);
    expectRefused(link);
  });

  it('refuses a folder containing a Docker socket named by DOCKER_HOST', () => {
    const sockDir = path.join(root, 'sock');
    fs.mkdirSync(sockDir);
    const withSocket = gatherHostFacts(dataDir, { DOCKER_HOST: `unix://${path.join(sockDir, 'docker.sock')}` });
    const error = errorOf(() => resolveAttachableFolder(sockDir, withSocket));
    expect(error.code).toBe('workspace_refused');
    expect(error.message).toMatch(/Docker socket/);
  });

  it("refuses a folder holding the SSH agent's socket named by SSH_AUTH_SOCK, also through a link", () => {
    const agentDir = path.join(root, 'ssh-agent');
    fs.mkdirSync(agentDir);
    fs.writeFileSync(path.join(agentDir, 'agent.1'), ''); // stands in for the socket
    const linkDir = path.join(root, 'agent-link');
    fs.symlinkSync(agentDir, linkDir);
    const withAgent = gatherHostFacts(dataDir, { SSH_AUTH_SOCK: path.join(linkDir, 'agent.1') });
    expect(withAgent.map((f) => f.extraSockets)).toEqual([[path.join(linkDir, 'agent.1')], [path.join(agentDir, 'agent.1')]]);
    expect(errorOf(() => resolveAttachableFolder(agentDir, withAgent)).message).toMatch(/SSH agent/);
    expect(errorOf(() => resolveAttachableFolder(linkDir, withAgent)).message).toMatch(/SSH agent/);
    const neighbour = path.join(root, 'project');
    fs.mkdirSync(neighbour);
    expect(resolveAttachableFolder(neighbour, withAgent)).toBe(neighbour);
  });

  it('refuses a folder holding a hard link to the Docker socket, checked by device and inode, before every start too', async () => {
    // A real socket of the test's own, standing in for the engine's, on the same filesystem as the folder.
    const sockDir = path.join(root, 'engine');
    fs.mkdirSync(sockDir);
    const socket = path.join(sockDir, 'docker.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const withSocket = gatherHostFacts(dataDir, { DOCKER_HOST: `unix://${socket}` });
      const project = path.join(root, 'project');
      fs.mkdirSync(project);
      expect(resolveAttachableFolder(project, withSocket)).toBe(project);
      fs.linkSync(socket, path.join(project, 'innocent.sock'));
      expect(fs.lstatSync(path.join(project, 'innocent.sock')).isSocket()).toBe(true);
      const error = errorOf(() => resolveAttachableFolder(project, withSocket));
      expect(error.code).toBe('workspace_refused');
      expect(error.message).toMatch(/innocent\.sock.*Docker socket/);
      expect(errorOf(() => recheckAttachedFolder(project, withSocket)).code).toBe('workspace_changed');
      // Another socket of its own is fine.
      fs.rmSync(path.join(project, 'innocent.sock'));
      const own = net.createServer();
      await new Promise<void>((resolve) => own.listen(path.join(project, 'dev.sock'), resolve));
      expect(resolveAttachableFolder(project, withSocket)).toBe(project);
      await new Promise((resolve) => own.close(resolve));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a folder that directly holds credential files, but not for a home template', () => {
    const project = path.join(root, 'dotfiles');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, '.env'), 'SECRET=project-own\n');
    fs.writeFileSync(path.join(project, '.npmrc'), '//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n');
    expect(resolveAttachableFolder(project, facts)).toBe(project);
    fs.writeFileSync(path.join(project, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_realtoken\n');
    expect(errorOf(() => resolveAttachableFolder(project, facts)).message).toMatch(/\.npmrc with a login token/);
    fs.rmSync(path.join(project, '.npmrc'));
    fs.writeFileSync(path.join(project, '.netrc'), 'machine example.com login me password x\n');
    const error = errorOf(() => resolveAttachableFolder(project, facts));
    expect(error.code).toBe('workspace_refused');
    expect(error.message).toMatch(/directly holds \.netrc/);
    // A template is only read by Berth, which never seeds such files.
    expect(resolveAttachableFolder(project, facts, { template: true })).toBe(project);
  });

  it('ignores an SSH_AUTH_SOCK that is empty or not a full path', () => {
    expect(gatherHostFacts(dataDir, { SSH_AUTH_SOCK: '' }).map((f) => f.extraSockets)).toEqual([[], []]);
    expect(gatherHostFacts(dataDir, { SSH_AUTH_SOCK: 'agent.sock' }).map((f) => f.extraSockets)).toEqual([[], []]);
  });

  it('accepts a folder inside the temp folder but not the temp folder itself', () => {
    const ws = path.join(root, 'ws');
    fs.mkdirSync(ws);
    expect(resolveAttachableFolder(ws, facts)).toBe(ws);
    if (process.platform !== 'win32') expectRefused('/tmp');
  });

  it('applies every set of facts it is given', () => {
    const app = path.join(root, 'app');
    fs.mkdirSync(app);
    const handBuilt: HostFacts[] = [
      { homeDir: '/home/nobody', dataDir: '/nonexistent/data', dockerSockets: [], platform: 'linux' },
      { homeDir: '/home/nobody', dataDir: app, dockerSockets: [], platform: 'linux' },
    ];
    expect(errorOf(() => resolveAttachableFolder(app, handBuilt)).code).toBe('workspace_refused');
    expect(resolveAttachableFolder(app, handBuilt.slice(0, 1))).toBe(app);
  });
});

describe('recheckAttachedFolder', () => {
  let app: string;
  beforeEach(() => {
    app = path.join(root, 'app');
    fs.mkdirSync(app);
  });

  it('passes a folder that is still what was attached', () => {
    expect(() => recheckAttachedFolder(app, facts)).not.toThrow();
  });

  it('refuses a folder replaced by a symlink to another folder', () => {
    const other = path.join(root, 'other');
    fs.mkdirSync(other);
    fs.rmSync(app, { recursive: true });
    fs.symlinkSync(other, app);
    const error = errorOf(() => recheckAttachedFolder(app, facts));
    expect(error.code).toBe('workspace_changed');
    expect(error.message).toContain(app);
  });

  it("refuses a folder replaced by a symlink into Berth's data", () => {
    fs.rmSync(app, { recursive: true });
    fs.symlinkSync(path.join(dataDir, 'homes'), app);
    expect(errorOf(() => recheckAttachedFolder(app, facts)).code).toBe('workspace_changed');
  });

  it('refuses a folder that was deleted', () => {
    fs.rmSync(app, { recursive: true });
    const error = errorOf(() => recheckAttachedFolder(app, facts));
    expect(error.code).toBe('workspace_changed');
    expect(error.message).toMatch(/no longer exists/);
  });

  it('refuses a folder replaced by a file', () => {
    fs.rmSync(app, { recursive: true });
    fs.writeFileSync(app, 'x');
    expect(errorOf(() => recheckAttachedFolder(app, facts)).code).toBe('workspace_changed');
  });

  it('refuses a folder whose parent was swapped for a symlink', () => {
    const parent = path.join(root, 'parent');
    const child = path.join(parent, 'child');
    fs.mkdirSync(child, { recursive: true });
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(path.join(elsewhere, 'child'), { recursive: true });
    fs.rmSync(parent, { recursive: true });
    fs.symlinkSync(elsewhere, parent);
    expect(errorOf(() => recheckAttachedFolder(child, facts)).code).toBe('workspace_changed');
  });

  it('a folder that disappears between two of its checks is workspace_changed, not an internal error', () => {
    // The race made certain: the folder goes right after its path was resolved.
    const real = fs.realpathSync.native;
    const spy = vi.spyOn(fs.realpathSync, 'native').mockImplementation(((p: fs.PathLike) => {
      const resolved = real(p);
      if (resolved === app) fs.rmSync(app, { recursive: true });
      return resolved;
    }) as typeof fs.realpathSync.native);
    try {
      const error = errorOf(() => recheckAttachedFolder(app, facts));
      expect(error.code).toBe('workspace_changed');
      expect(error.message).toMatch(/no longer exists/);
    } finally {
      spy.mockRestore();
    }
  });

  it("returns the folder's device and inode, the ones the container must show", () => {
    const st = fs.statSync(app, { bigint: true });
    expect(recheckAttachedFolder(app, facts)).toEqual({ dev: String(st.dev), ino: String(st.ino) });
  });
});

