/**
 * Set-uid and set-gid files: a sandbox must not be able to make one, since one planted in an
 * attached folder runs on the host as the sandbox's user for anyone who starts it. Berth's
 * seccomp profile replaces Docker's default, so it must also keep everything the default denies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BOOKWORM, docker } from '../support/docker.js';
import { Harness } from '../support/harness.js';

const h = new Harness();
let core: BerthCore;
let profile: string;

beforeAll(async () => {
  ({ core } = await h.coreWithProfile());
  profile = (await h.profile(core, { image: BOOKWORM })).name;
});
afterAll(() => h.cleanup());

/**
 * Calls each syscall (x86-64 numbers) with harmless arguments and prints `name errno` (0: it
 * ran). Perl, because perl-base is in every Debian image and its syscall() takes raw numbers.
 */
const PROBE = `
my %calls = (
  unshare_user => [272, 0x10000000], unshare_mount => [272, 0x20000], setns => [308, -1, 0], mount => [165, 0, 0, 0, 0, 0],
  umount2 => [166, 0, 0], pivot_root => [155, 0, 0], chroot => [161, 0], keyctl => [250, 0, 0, 0, 0, 0], add_key => [248, 0, 0, 0, 0, 0],
  request_key => [249, 0, 0, 0, 0], bpf => [321, 0, 0, 0], perf_event_open => [298, 0, 0, 0, 0, 0], init_module => [175, 0, 0, 0],
  finit_module => [313, -1, 0, 0], delete_module => [176, 0, 0], kexec_load => [246, 0, 0, 0, 0], reboot => [169, 0, 0, 0, 0],
  swapon => [167, 0, 0], swapoff => [168, 0], settimeofday => [164, 0, 0], clock_settime => [227, 0, 0], acct => [163, 0],
  syslog => [103, 0, 0, 0], quotactl => [179, 0, 0, 0, 0], open_by_handle_at => [304, -1, 0, 0], name_to_handle_at => [303, -1, 0, 0, 0, 0],
  iopl => [172, 0], ioperm => [173, 0, 0, 0], vhangup => [153], userfaultfd => [323, 0], lookup_dcookie => [212, 0, 0, 0],
  fsopen => [430, 0, 0], fsmount => [432, -1, 0, 0], move_mount => [429, -1, 0, -1, 0, 0], open_tree => [428, -1, 0, 0],
  process_vm_readv => [310, 1, 0, 0, 0, 0, 0], kcmp => [312, 1, 1, 0, 0, 0], personality_bad => [135, 0x0400000],
  getpid => [39],
);
for my $name (sort keys %calls) {
  my ($nr, @args) = @{$calls{$name}};
  $! = 0;
  my $r = syscall($nr, @args);
  print "$name ", ($r >= 0 ? 0 : $! + 0), "\n";
}
`;

function parse(output: string): Map<string, number> {
  return new Map(output.trim().split('\n').filter((l) => /^\w+ \d+$/.test(l)).map((l) => {
    const [name, errno] = l.split(' ');
    return [name as string, Number(errno)];
  }));
}

describe('set-uid and set-gid files', () => {
  it('cannot be made in the sandbox, by chmod, install -m, python or at creation; ordinary modes still work', async () => {
    const chat = await core.chats.create({ profile });
    const ws = h.workspace('suid');
    await core.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    const out = await core.sandbox.exec({
      chatId: chat.id,
      command: [
        'cd /workspace && cp /bin/true prog && cp /bin/true other',
        'for m in u+s g+s 4755 2755 6755 +s; do chmod $m prog 2>/dev/null && echo "chmod $m made it"; done',
        'install -m 4755 /bin/true installed 2>/dev/null && echo "install made it"',
        "python3 -c 'import os; os.chmod(\"prog\", 0o4755)' 2>/dev/null && echo 'os.chmod made it'",
        "python3 -c 'import os; os.close(os.open(\"created\", os.O_CREAT | os.O_WRONLY, 0o4755))' 2>/dev/null && echo 'open made it'",
        "python3 -c 'import os; os.mknod(\"node\", 0o102755)' 2>/dev/null && echo 'mknod made it'",
        'chmod 700 other && chmod 0644 other && chmod a+x other && chmod +t . && chmod -t . && echo ordinary ok',
        'ls -l',
      ].join('\n'),
    });
    expect(out.output).not.toMatch(/made it/);
    expect(out.output).toContain('ordinary ok');
    for (const name of fs.readdirSync(ws)) {
      expect(fs.statSync(path.join(ws, name)).mode & 0o6000, name).toBe(0);
    }
    expect(fs.statSync(path.join(ws, 'other')).mode & 0o777).toBe(0o755);
  });

  it("keeps everything Docker's default profile denies denied (the profile replaces the default)", async () => {
    const chat = await core.chats.create({ profile });
    const berth = parse((await core.sandbox.exec({ chatId: chat.id, command: `perl -e '${PROBE}'` })).output);
    // The same probe, as the same non-root user without capabilities, under Docker's own default profile.
    const stock = parse(
      await docker('run', '--rm', '--network', 'none', '--user', '1000:1000', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', BOOKWORM, 'perl', '-e', PROBE),
    );
    expect(stock.size).toBeGreaterThan(30);
    // The probe works: an ordinary call runs under both.
    expect([stock.get('getpid'), berth.get('getpid')]).toEqual([0, 0]);
    expect([...berth.keys()].sort()).toEqual([...stock.keys()].sort());
    const weaker = [...stock].filter(([name, errno]) => errno !== 0 && berth.get(name) === 0).map(([name]) => name);
    expect(weaker).toEqual([]);
  });
});
