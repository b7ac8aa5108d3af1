/** The user's own git, as they would run it in `repo`: no system config, a throwaway identity, `home` as HOME. */
import { execFileSync } from 'node:child_process';

export function userGit(repo: string, home: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
  });
}
