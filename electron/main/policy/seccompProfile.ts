/**
 * The sandbox's seccomp profile. Docker takes one profile per container, and a custom one
 * replaces its default entirely, so this is a whole profile: the same kind of allow-list as
 * Docker's default (everything ordinary programs need; no namespaces, mounts, kernel modules,
 * keyrings, BPF, perf, clock or reboot calls), written for a container that holds no
 * capabilities, which is what every sandbox is (so none of the default's capability-gated
 * rules apply). It is stricter in a few places (no io_uring, no openat2, whose mode seccomp
 * cannot see) and adds one rule of Berth's own: no file gets a set-uid or set-gid bit, neither
 * by chmod (chmod, fchmod, fchmodat, fchmodat2) nor at creation (open, openat, creat, mknod,
 * mknodat), because such a file planted in an attached folder would run on the host as the
 * sandbox's user for anyone who starts it. Pure data.
 */

/** Set-uid and set-gid: the bits no sandbox may set. */
export const SETID_BITS = 0o6000;

const ERRNO_EPERM = 1;
const ERRNO_ENOSYS = 38;

interface Arg {
  index: number;
  value: number;
  valueTwo: number;
  op: 'SCMP_CMP_EQ' | 'SCMP_CMP_MASKED_EQ';
}

interface SyscallRule {
  names: string[];
  action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_ERRNO';
  args?: Arg[];
  errnoRet?: number;
}

export interface SeccompProfile {
  defaultAction: 'SCMP_ACT_ERRNO';
  defaultErrnoRet: number;
  archMap: { architecture: string; subArchitectures: string[] }[];
  syscalls: SyscallRule[];
}

/** Allowed whatever their arguments. Names a kernel or architecture lacks are skipped by the runtime. */
const ALLOWED = [
  // Files and folders.
  'access', 'faccessat', 'faccessat2', 'chdir', 'fchdir', 'getcwd', 'chown', 'chown32', 'fchown', 'fchown32', 'fchownat', 'lchown',
  'lchown32', 'close', 'close_range', 'dup', 'dup2', 'dup3', 'fcntl', 'fcntl64', 'flock', 'fsync', 'fdatasync', 'syncfs', 'sync',
  'sync_file_range', 'ftruncate', 'ftruncate64', 'truncate', 'truncate64', 'fallocate', 'fadvise64', 'fadvise64_64', 'readahead',
  'getdents', 'getdents64', 'link', 'linkat', 'symlink', 'symlinkat', 'unlink', 'unlinkat', 'rename', 'renameat', 'renameat2',
  'mkdir', 'mkdirat', 'rmdir', 'readlink', 'readlinkat', 'stat', 'stat64', 'lstat', 'lstat64', 'fstat', 'fstat64', 'newfstatat',
  'fstatat64', 'statx', 'statfs', 'statfs64', 'fstatfs', 'fstatfs64', 'umask', 'utime', 'utimes', 'utimensat', 'utimensat_time64',
  'futimesat', 'getxattr', 'lgetxattr', 'fgetxattr', 'setxattr', 'lsetxattr', 'fsetxattr', 'listxattr', 'llistxattr', 'flistxattr',
  'removexattr', 'lremovexattr', 'fremovexattr', 'inotify_init', 'inotify_init1', 'inotify_add_watch', 'inotify_rm_watch',
  'fanotify_mark', 'copy_file_range', 'sendfile', 'sendfile64', 'splice', 'tee', 'vmsplice', 'cachestat',
  // Reading and writing.
  'read', 'readv', 'pread64', 'preadv', 'preadv2', 'write', 'writev', 'pwrite64', 'pwritev', 'pwritev2', 'lseek', '_llseek', 'ioctl',
  'select', '_newselect', 'pselect6', 'pselect6_time64', 'poll', 'ppoll', 'ppoll_time64', 'epoll_create', 'epoll_create1',
  'epoll_ctl', 'epoll_ctl_old', 'epoll_wait', 'epoll_wait_old', 'epoll_pwait', 'epoll_pwait2', 'eventfd', 'eventfd2', 'pipe', 'pipe2',
  'signalfd', 'signalfd4', 'timerfd_create', 'timerfd_settime', 'timerfd_settime64', 'timerfd_gettime', 'timerfd_gettime64',
  'io_setup', 'io_destroy', 'io_submit', 'io_cancel', 'io_getevents', 'io_pgetevents', 'io_pgetevents_time64',
  // Memory.
  'brk', 'mmap', 'mmap2', 'munmap', 'mremap', 'mprotect', 'madvise', 'mincore', 'msync', 'mlock', 'mlock2', 'mlockall', 'munlock',
  'munlockall', 'memfd_create', 'memfd_secret', 'membarrier', 'remap_file_pages', 'pkey_alloc', 'pkey_free', 'pkey_mprotect',
  'map_shadow_stack', 'mseal',
  // Processes, threads and signals.
  'execve', 'execveat', 'fork', 'vfork', 'exit', 'exit_group', 'wait4', 'waitid', 'waitpid', 'kill', 'tkill', 'tgkill', 'pause',
  'rt_sigaction', 'rt_sigprocmask', 'rt_sigpending', 'rt_sigqueueinfo', 'rt_tgsigqueueinfo', 'rt_sigreturn', 'rt_sigsuspend',
  'rt_sigtimedwait', 'rt_sigtimedwait_time64', 'sigaltstack', 'sigreturn', 'sigprocmask', 'restart_syscall', 'set_tid_address',
  'set_robust_list', 'get_robust_list', 'futex', 'futex_time64', 'futex_waitv', 'futex_wait', 'futex_wake', 'futex_requeue', 'rseq',
  'gettid', 'getpid', 'getppid', 'getpgid', 'getpgrp', 'setpgid', 'getsid', 'setsid', 'getuid', 'getuid32', 'geteuid',
  'geteuid32', 'getgid', 'getgid32', 'getegid', 'getegid32', 'getresuid', 'getresuid32', 'getresgid', 'getresgid32', 'getgroups',
  'getgroups32', 'setuid', 'setuid32', 'setgid', 'setgid32', 'setreuid', 'setreuid32', 'setregid', 'setregid32', 'setresuid',
  'setresuid32', 'setresgid', 'setresgid32', 'setfsuid', 'setfsuid32', 'setfsgid', 'setfsgid32', 'setgroups', 'setgroups32',
  'capget', 'capset', 'prctl', 'seccomp', 'getpriority', 'setpriority', 'ioprio_get', 'ioprio_set', 'getrlimit', 'ugetrlimit',
  'setrlimit', 'prlimit64', 'getrusage', 'times', 'sched_yield', 'sched_getaffinity', 'sched_setaffinity', 'sched_getattr',
  'sched_setattr', 'sched_getparam', 'sched_setparam', 'sched_getscheduler', 'sched_setscheduler', 'sched_get_priority_max',
  'sched_get_priority_min', 'sched_rr_get_interval', 'sched_rr_get_interval_time64', 'getcpu', 'pidfd_open', 'pidfd_send_signal',
  'process_mrelease', 'ptrace', 'get_thread_area', 'set_thread_area', 'arch_prctl', 'modify_ldt', 'landlock_create_ruleset',
  'landlock_add_rule', 'landlock_restrict_self',
  // Time.
  'time', 'gettimeofday', 'clock_gettime', 'clock_gettime64', 'clock_getres', 'clock_getres_time64', 'clock_nanosleep',
  'clock_nanosleep_time64', 'nanosleep', 'alarm', 'getitimer', 'setitimer', 'timer_create', 'timer_delete', 'timer_getoverrun',
  'timer_gettime', 'timer_gettime64', 'timer_settime', 'timer_settime64', 'adjtimex', 'clock_adjtime', 'clock_adjtime64',
  // The system, read-only.
  'uname', 'sysinfo', 'getrandom',
  // Sockets.
  'socket', 'socketpair', 'socketcall', 'bind', 'listen', 'accept', 'accept4', 'connect', 'getsockname', 'getpeername',
  'getsockopt', 'setsockopt', 'shutdown', 'send', 'sendto', 'sendmsg', 'sendmmsg', 'recv', 'recvfrom', 'recvmsg', 'recvmmsg',
  'recvmmsg_time64',
  // System V and POSIX IPC (the container has its own IPC namespace).
  'ipc', 'shmget', 'shmat', 'shmdt', 'shmctl', 'semget', 'semop', 'semtimedop', 'semtimedop_time64', 'semctl', 'msgget', 'msgsnd',
  'msgrcv', 'msgctl', 'mq_open', 'mq_unlink', 'mq_timedsend', 'mq_timedsend_time64', 'mq_timedreceive', 'mq_timedreceive_time64',
  'mq_notify', 'mq_getsetattr',
];

/** Allowed only while the mode argument (at `index`) carries no set-uid or set-gid bit. */
const MODE_ARG: readonly [string, number][] = [
  ['chmod', 1], ['fchmod', 1], ['fchmodat', 2], ['fchmodat2', 2],
  ['open', 2], ['openat', 3], ['creat', 1], ['mknod', 1], ['mknodat', 2],
];

/** clone may not make namespaces (CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET), as in Docker's default. */
const CLONE_NAMESPACE_FLAGS = 0x7e020000;

/** The execution domains Docker's default allows: Linux, 32-bit Linux, UNAME26, both, and the query. */
const PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

export function sandboxSeccompProfile(): SeccompProfile {
  return {
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: ERRNO_EPERM,
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
    ],
    syscalls: [
      { names: [...ALLOWED], action: 'SCMP_ACT_ALLOW' },
      ...MODE_ARG.map(([name, index]): SyscallRule => ({
        names: [name],
        action: 'SCMP_ACT_ALLOW',
        args: [{ index, value: SETID_BITS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }],
      })),
      { names: ['clone'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: CLONE_NAMESPACE_FLAGS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }] },
      ...PERSONALITIES.map((value): SyscallRule => ({ names: ['personality'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value, valueTwo: 0, op: 'SCMP_CMP_EQ' }] })),
      // Its flags are in memory seccomp cannot read: C libraries fall back to clone on ENOSYS.
      { names: ['clone3', 'openat2', 'io_uring_setup', 'io_uring_enter', 'io_uring_register'], action: 'SCMP_ACT_ERRNO', errnoRet: ERRNO_ENOSYS },
    ],
  };
}

/** The SecurityOpt entry that applies it: the Engine API takes the profile's JSON itself. */
export function seccompSecurityOpt(): string {
  return `seccomp=${JSON.stringify(sandboxSeccompProfile())}`;
}
