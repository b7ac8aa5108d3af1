/**
 * ssh through the allowlist proxy: an entry `host:22` lets the sandbox's ssh (git over ssh)
 * reach that host. HAProxy decides the CONNECT like any other (the name on the list, resolved
 * once, never a local or private address) and passes it, with the address it resolved, to
 * SSH_CHECK_HELPER on the proxy's loopback, which connects to that address and passes bytes only
 * once the server's first line is an SSH version line. In the sandbox, Berth's ssh config sends
 * every ssh connection through the proxy with a small CONNECT client (SSH_CONNECT_SCRIPT).
 */
import { configSafeName, refusalMessage } from './egressRefusal.js';

/** The port an allowlist entry names for ssh: a CONNECT to it goes through the SSH banner check. */
export const SSH_PORT = 22;
/** The banner check's port, on the proxy's own loopback only. */
export const SSH_CHECK_PORT = 3131;
/** The header HAProxy adds for the banner check: the address it resolved and allowed, and the port. */
export const SSH_DESTINATION_HEADER = 'X-Berth-Destination';

/** Where the proxy keeps SSH_CHECK_HELPER. */
export function sshHelperPath(confDir: string): string {
  return `${confDir}/ssh-check.pl`;
}

/**
 * The banner check: per connection from HAProxy, the CONNECT's head (with the resolved address
 * in SSH_DESTINATION_HEADER), a connection to that address, the server's first line read (10 s
 * at most); an `SSH-2.0-` (or `SSH-1.99-`) line gets `200` and the bytes pass both ways,
 * anything else a `403` with `X-Berth-Refused: not-ssh` and the sentence. perl-base (sockets,
 * select) is in every Debian image, so the proxy image does not change.
 */
export function sshCheckHelper(profile: string): string {
  // In perl's q{}: nothing interpolates, and the sentence has no braces (configSafeName keeps none in a name either).
  const refusal = refusalMessage('not-ssh', 'TARGET', configSafeName(profile)).replace(/[{}]/g, '');
  return String.raw`use strict; use IO::Socket::INET; use IO::Select;
$SIG{CHLD} = 'IGNORE'; $| = 1;
my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => ${SSH_CHECK_PORT}, Listen => 128, ReuseAddr => 1) or die "ssh check: $!\n";
while (1) {
  my $c = $l->accept or next;
  my $pid = fork;
  if (!defined $pid || $pid) { close $c; next; }
  close $l; serve($c); exit 0;
}
sub answer { my ($c, $status, $why, $text) = @_;
  print $c "HTTP/1.1 $status\r\nX-Berth-Refused: $why\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " . (length($text) + 1) . "\r\nConnection: close\r\n\r\n$text\n"; exit 0 }
sub serve { my $c = shift;
  local $SIG{ALRM} = sub { exit 0 }; alarm 10;
  my $head = '';
  while ($head !~ /\r\n\r\n/) { sysread($c, my $b, 1) or exit 0; $head .= $b; exit 0 if length($head) > 8192 }
  my ($ip, $port) = $head =~ /^${SSH_DESTINATION_HEADER}: *([0-9.]+):([0-9]+)\r$/mi or answer($c, '400 Bad Request', 'bad-request', 'No destination.');
  my ($target) = $head =~ /^CONNECT (\S+)/;
  my $s = IO::Socket::INET->new(PeerAddr => $ip, PeerPort => $port, Timeout => 10) or answer($c, '502 Bad Gateway', 'unreachable', "$target did not answer.");
  my $line = '';
  while ($line !~ /\n/ && length($line) < 256) { sysread($s, my $b, 1) or last; $line .= $b }
  alarm 0;
  if ($line !~ /^SSH-(2\.0|1\.99)-/) { my $t = q{${refusal}}; $t =~ s/TARGET/$target/; answer($c, '403 Forbidden', 'not-ssh', $t) }
  syswrite($c, "HTTP/1.1 200 Connection established\r\n\r\n$line");
  my $sel = IO::Select->new($c, $s); my %open = ($c => 1, $s => 1);
  while (%open) {
    for my $from ($sel->can_read) {
      my $to = $from == $c ? $s : $c;
      my $n = sysread($from, my $buf, 65536);
      if (!$n) { $sel->remove($from); delete $open{$from}; shutdown($to, 1); next }
      for (my $off = 0; $off < $n;) { my $w = syswrite($to, $buf, $n - $off, $off); exit 0 unless $w; $off += $w }
    }
  }
}
`;
}

/** HAProxy's lines for an allowed CONNECT to the ssh port (after every refusal rule, before the SNI check's). */
export function haproxySshRules(): string {
  const ssh = `METH_CONNECT { var(txn.port) -m str ${SSH_PORT} }`;
  return `http-request set-header ${SSH_DESTINATION_HEADER} %[var(txn.dstip)]:%[var(txn.port)] if ${ssh}
  use_backend berth_ssh if ${ssh}`;
}

/** HAProxy's backend for the banner check; the helper's refusal reason goes to the log line. */
export function haproxySshBackend(): string {
  return `backend berth_ssh
  http-response set-var(txn.why) res.hdr(x-berth-refused)
  server ssh 127.0.0.1:${SSH_CHECK_PORT}
`;
}

/** Where Berth's ssh files go in the sandbox's home. */
export const SANDBOX_SSH = { dir: '.ssh', config: 'berth-egress.conf', connect: 'berth-connect' } as const;

/**
 * The CONNECT client ssh runs as its ProxyCommand (bash's /dev/tcp: no other tool needed). A
 * refusal prints the proxy's status and its sentence on stderr, which ssh shows.
 */
export const SSH_CONNECT_SCRIPT = `#!/bin/bash
# Written by Berth: ssh's ProxyCommand through Berth's egress proxy (README: Network egress).
exec 3<>/dev/tcp/berth-egress-proxy/3128 || exit 1
printf 'CONNECT %s:%s HTTP/1.1\\r\\nHost: %s:%s\\r\\n\\r\\n' "$1" "$2" "$1" "$2" >&3
IFS= read -r status <&3
status=\${status%$'\\r'}
len=0
while IFS= read -r line <&3; do
  line=\${line%$'\\r'}
  [ -z "$line" ] && break
  case $line in [Cc]ontent-[Ll]ength:*) len=\${line#*:}; len=\${len// /} ;; esac
done
case $status in
  'HTTP/1.'?' 200'*) ;;
  *) echo "$status" >&2; [ "$len" -gt 0 ] 2>/dev/null && head -c "$len" <&3 >&2; exit 1 ;;
esac
# The reader must not outlive ssh: it would hold ssh's stderr (a caller's pipe) open.
cat <&3 2>/dev/null &
reader=$!
trap 'kill $reader 2>/dev/null' EXIT HUP TERM
cat >&3
`;

/**
 * ssh's config block: only where the proxy variables say the allowlist is in force (a home kept
 * across a change of the profile's network). OpenSSH's `~` is the passwd entry's home, not
 * Berth's $HOME, where a user keeps keys and known_hosts across sandbox restarts: both are read
 * (an IdentityFile line drops OpenSSH's default list, so it is listed whole, $HOME's first).
 */
export const SSH_CONFIG = `# Written by Berth: ssh goes through Berth's egress proxy in an allowlist sandbox (README: Network egress).
Match exec "test x$BERTH_EGRESS = xallowlist"
  ProxyCommand ~/${SANDBOX_SSH.dir}/${SANDBOX_SSH.connect} %h %p
  UserKnownHostsFile \${HOME}/.ssh/known_hosts ~/.ssh/known_hosts
${['id_ed25519', 'id_ecdsa', 'id_rsa'].flatMap((k) => [`  IdentityFile \${HOME}/.ssh/${k}`, `  IdentityFile ~/.ssh/${k}`]).join('\n')}
`;

/**
 * The shell command, run in the sandbox as its own user, that writes those two files and has
 * ~/.ssh/config include the block first (a config of the user's own is kept after it). OpenSSH
 * reads ~/.ssh from the user's passwd entry, not $HOME (Berth's home, /home/berth; an image's
 * uid 1000 has its own, /home/sandbox say), so both get them when they differ and can be written.
 */
export function sandboxSshCommand(): string[] {
  const d = '"$h/.ssh"';
  const include = `Include ~/${SANDBOX_SSH.dir}/${SANDBOX_SSH.config}`;
  const write = `umask 077 && mkdir -p ${d} && printf '%s' "$1" > ${d}/${SANDBOX_SSH.connect} && chmod 700 ${d}/${SANDBOX_SSH.connect}`
    + ` && printf '%s' "$2" > ${d}/${SANDBOX_SSH.config}`
    + ` && { grep -qxF '${include}' ${d}/config 2>/dev/null || { { echo '${include}'; cat ${d}/config 2>/dev/null || true; } > ${d}/config.berth && mv ${d}/config.berth ${d}/config; }; }`;
  return ['/bin/sh', '-c',
    `pw=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6); ok=1; for h in "$HOME" "$pw"; do`
      + ` [ -n "$h" ] && [ -d "$h" ] && [ -w "$h" ] || continue; ( ${write} ) || ok=0; done; [ "$ok" = 1 ]`,
    'sh', SSH_CONNECT_SCRIPT, SSH_CONFIG];
}
