/**
 * What Review-mode integration tests share: a user's git repository, a chat with it attached in
 * Review mode, commands in the chat's sandbox, and where Berth keeps the chat's copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BerthCore } from '../../electron/main/core.js';
import { userGit } from './userGit.js';
import { type Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from './harness.js';

export class ReviewScenario {
  constructor(private readonly h: Harness, private readonly core: () => BerthCore, private readonly dataDir: () => string, private readonly profile: () => string) {}

  /** The user's own git, as they would run it. */
  userGit(repo: string, ...args: string[]): string {
    return userGit(repo, this.h.root, ...args);
  }

  /** A git repository as a user has it: one commit of `files`, owned by the sandbox user. */
  userRepo(name: string, files: Record<string, string> = { 'a.txt': 'a1\n', 'c.txt': 'c1\n', 'src/main.js': 'console.log(1);\n' }): string {
    const repo = this.h.workspace(name, files);
    this.userGit(repo, 'init', '-q', '-b', 'main');
    this.userGit(repo, 'add', '-A');
    this.userGit(repo, 'commit', '-q', '-m', 'first');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);
    return repo;
  }

  /** A command in the chat's sandbox that must succeed; its output. */
  async sh(chatId: string, command: string): Promise<string> {
    const r = await this.core().sandbox.exec({ chatId, command });
    if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.output}`);
    return r.output;
  }

  async reviewChat(folder: string, title = 'review') {
    const chat = await this.core().chats.create({ profile: this.profile(), title });
    const attached = await this.core().workspace.attach({ chatId: chat.id, path: folder });
    return { chatId: chat.id, hostPath: attached.attachment.hostPath, attached };
  }

  /** Where Berth keeps a chat's copy on this computer (the test looks; the product never tells the container). */
  copyWorkDir(chatId: string): string {
    const root = path.join(this.dataDir(), 'review');
    for (const id of fs.readdirSync(root)) {
      try {
        const meta = JSON.parse(fs.readFileSync(path.join(root, id, 'meta.json'), 'utf8')) as { chatId: string; workDir?: string | null };
        if (meta.chatId === chatId) return meta.workDir ?? path.join(root, id, 'work');
      } catch {
        /* not a copy */
      }
    }
    throw new Error(`chat ${chatId} has no Review-mode copy`);
  }
}
