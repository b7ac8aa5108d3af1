import { describe, expect, it } from 'vitest';
import { SETID_BITS, sandboxSeccompProfile, seccompSecurityOpt } from './seccompProfile.js';

const profile = sandboxSeccompProfile();
const allowedAlways = new Set(profile.syscalls.filter((r) => r.action === 'SCMP_ACT_ALLOW' && !r.args).flatMap((r) => r.names));

describe('the sandbox seccomp profile', () => {
  it('denies by default, as Docker’s default does', () => {
    expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
    expect(profile.defaultErrnoRet).toBe(1);
  });

  it.each(['chmod', 'fchmod', 'fchmodat', 'fchmodat2', 'open', 'openat', 'creat', 'mknod', 'mknodat'])(
    'allows %s only while its mode has no set-uid or set-gid bit',
    (name) => {
      expect(allowedAlways.has(name)).toBe(false);
      const rules = profile.syscalls.filter((r) => r.names.includes(name));
      expect(rules).toHaveLength(1);
      expect(rules[0]?.args).toEqual([expect.objectContaining({ value: SETID_BITS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' })]);
      expect(SETID_BITS).toBe(0o4000 | 0o2000);
    },
  );

  it.each(['mount', 'umount2', 'unshare', 'setns', 'pivot_root', 'chroot', 'keyctl', 'add_key', 'request_key', 'bpf', 'perf_event_open',
    'init_module', 'finit_module', 'delete_module', 'kexec_load', 'reboot', 'swapon', 'settimeofday', 'clock_settime', 'acct', 'syslog',
    'open_by_handle_at', 'name_to_handle_at', 'userfaultfd', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'fsopen', 'open_tree',
    'move_mount', 'iopl', 'ioperm', 'quotactl', 'vhangup', 'personality', 'clone', 'clone3', 'openat2', 'io_uring_setup'])(
    'never allows %s unconditionally',
    (name) => {
      expect(allowedAlways.has(name)).toBe(false);
    },
  );

  it('clone may not make namespaces; clone3 and openat2, whose flags it cannot see, say ENOSYS so C libraries fall back', () => {
    const clone = profile.syscalls.find((r) => r.names.includes('clone'));
    expect(clone?.args).toEqual([{ index: 0, value: 0x7e020000, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }]);
    const enosys = profile.syscalls.find((r) => r.names.includes('clone3'));
    expect(enosys).toMatchObject({ action: 'SCMP_ACT_ERRNO', errnoRet: 38 });
    expect(enosys?.names).toContain('openat2');
  });

  it('goes to the engine as JSON in SecurityOpt', () => {
    const opt = seccompSecurityOpt();
    expect(opt.startsWith('seccomp={')).toBe(true);
    expect(JSON.parse(opt.slice('seccomp='.length))).toEqual(profile);
  });
});
