/**
 * The long-lived relay a sandbox runs for all its forwards (muxFrames.ts speaks its protocol):
 * one program, started by one `docker exec` as the sandbox's own user, that opens a TCP
 * connection inside the container for each OPEN frame and carries every connection over its
 * stdin and stdout. It listens on nothing and needs no capability: what it can reach is what
 * any process of the sandbox user can. One thread, select() over stdin and the sockets, non-
 * blocking sockets so a slow server never stalls the others. Written for the interpreters
 * images carry: python3 (even Debian's python3-minimal), else perl (Debian's perl-base is
 * essential). An image with neither keeps one relay exec per connection (listeningPorts.ts).
 * No I/O.
 */
import { FRAME, GRANT_AT, INITIAL_WINDOW, MAX_DATA } from './muxFrames.js';

export type MuxTool = 'python3' | 'perl';

/** Lines the relay probe prints (listeningPorts.ts: PROBE_RELAY_COMMAND) for the interpreters found. */
export function chooseMuxTool(probeOutput: string): MuxTool | null {
  const words = new Set(probeOutput.split('\n').map((w) => w.trim()));
  if (words.has('python3')) return 'python3';
  if (words.has('perl')) return 'perl';
  return null;
}

const F = FRAME;
/** The relay's first line, so a look at the sandbox's processes tells it from the user's own. */
export const MUX_MARKER = 'berth port relay';

const PYTHON_MUX = `# ${MUX_MARKER}
import errno, os, select, socket, struct, sys
H = struct.Struct('>BII')
U = struct.Struct('>I')
conns = {}
byfd = {}
class C:
    pass
def put(*parts):
    n = os.writev(1, parts)
    if n < sum(len(p) for p in parts):
        v = memoryview(b''.join(parts))[n:]
        while v:
            v = v[os.write(1, v):]
def drop(i, why=None):
    c = conns.pop(i, None)
    if c is None:
        return
    del byfd[c.s.fileno()]
    c.s.close()
    if why is not None:
        put(H.pack(${F.close}, i, len(why)), why)
def opened(i, p):
    a, port = p.decode().split(' ')
    s = socket.socket(socket.AF_INET6 if ':' in a else socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c = C()
    c.s, c.out, c.credit, c.shut, c.up, c.sent = s, bytearray(), ${INITIAL_WINDOW}, False, False, 0
    conns[i] = c
    byfd[s.fileno()] = i
    e = s.connect_ex((a, int(port)))
    if e == 0:
        c.up = True
    elif e != errno.EINPROGRESS:
        drop(i, os.strerror(e).encode())
def flush(i, c):
    try:
        n = c.s.send(c.out)
    except BlockingIOError:
        return
    except OSError as e:
        return drop(i, (e.strerror or 'send failed').encode())
    del c.out[:n]
    c.sent += n
    if c.sent >= ${GRANT_AT}:
        put(H.pack(${F.window}, i, 4), U.pack(c.sent))
        c.sent = 0
    if c.shut and not c.out:
        half(i, c)
def half(i, c):
    try:
        c.s.shutdown(socket.SHUT_WR)
    except OSError as e:
        drop(i, (e.strerror or 'shutdown failed').encode())
def frame(t, i, p):
    c = conns.get(i)
    if t == ${F.open}:
        opened(i, p)
    elif c is None:
        return
    elif t == ${F.data}:
        c.out += p
        if c.up:
            flush(i, c)
    elif t == ${F.end}:
        c.shut = True
        if c.up and not c.out:
            half(i, c)
    elif t == ${F.close}:
        drop(i)
    elif t == ${F.window}:
        c.credit += U.unpack(p)[0]
buf = bytearray()
while True:
    r = [0]
    w = []
    for i, c in conns.items():
        if not c.up or c.out:
            w.append(c.s)
        elif c.credit > 0:
            r.append(c.s)
    r, w, _ = select.select(r, w, [])
    for s in w:
        i = byfd.get(s.fileno())
        c = conns.get(i)
        if c is None:
            continue
        if not c.up:
            e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if e:
                drop(i, os.strerror(e).encode())
                continue
            c.up = True
        if c.out or c.shut:
            flush(i, c)
    for s in r:
        if s == 0:
            b = os.read(0, ${MAX_DATA})
            if not b:
                sys.exit(0)
            buf += b
            while len(buf) >= 9:
                t, i, n = H.unpack_from(buf)
                if len(buf) < 9 + n:
                    break
                p = bytes(buf[9:9 + n])
                del buf[:9 + n]
                frame(t, i, p)
            continue
        i = byfd.get(s.fileno())
        c = conns.get(i)
        if c is None:
            continue
        try:
            b = s.recv(min(c.credit, ${MAX_DATA}))
        except BlockingIOError:
            continue
        except OSError as e:
            drop(i, (e.strerror or 'receive failed').encode())
            continue
        if not b:
            drop(i, b'')
            continue
        c.credit -= len(b)
        put(H.pack(${F.data}, i, len(b)), b)
`;

/** The command that starts a sandbox's one relay. */
export function muxCommand(tool: MuxTool): string[] {
  switch (tool) {
    case 'python3':
      // Isolated (-I: no PYTHON* variables, no user site folder) and without site (-S): nothing
      // in the sandbox's folders runs in the relay, and it starts sooner (71 against 104 ms for
      // `python3 -c pass` on this loaded machine).
      return ['python3', '-I', '-S', '-c', PYTHON_MUX];
    case 'perl':
      return ['perl', '-e', PERL_MUX];
  }
}

const PERL_MUX = `# ${MUX_MARKER}
use strict;
use Socket qw(:all);
use Fcntl;
use Errno qw(EINPROGRESS EAGAIN EWOULDBLOCK EINTR);
$SIG{PIPE} = 'IGNORE';
binmode STDIN;
binmode STDOUT;
my (%c, %fd);
sub put {
    my $d = join('', @_);
    while (length $d) {
        my $n = syswrite(STDOUT, $d);
        die "stdout: $!" unless defined $n;
        substr($d, 0, $n) = '';
    }
}
sub drop {
    my ($i, $why) = @_;
    my $c = delete $c{$i} or return;
    delete $fd{fileno $c->{s}};
    close $c->{s};
    put(pack('CNN', ${F.close}, $i, length $why), $why) if defined $why;
}
sub opened {
    my ($i, $p) = @_;
    my ($a, $port) = split / /, $p;
    my $v6 = $a =~ /:/;
    my $s;
    socket($s, $v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0) or return put(pack('CNN', ${F.close}, $i, length "$!"), "$!");
    fcntl($s, F_SETFL, fcntl($s, F_GETFL, 0) | O_NONBLOCK);
    setsockopt($s, IPPROTO_TCP, TCP_NODELAY, 1);
    my $c = $c{$i} = { s => $s, out => '', credit => ${INITIAL_WINDOW}, shut => 0, up => 0, sent => 0 };
    $fd{fileno $s} = $i;
    my $to = $v6 ? pack_sockaddr_in6($port, inet_pton(AF_INET6, $a)) : pack_sockaddr_in($port, inet_aton($a));
    if (connect($s, $to)) { $c->{up} = 1 }
    elsif ($! != EINPROGRESS) { my $e = "$!"; drop($i, $e) }
}
sub flush {
    my ($i, $c) = @_;
    if (length $c->{out}) {
        my $n = syswrite($c->{s}, $c->{out});
        if (!defined $n) {
            return if $! == EAGAIN || $! == EWOULDBLOCK;
            my $e = "$!";
            return drop($i, $e);
        }
        substr($c->{out}, 0, $n) = '';
        $c->{sent} += $n;
        if ($c->{sent} >= ${GRANT_AT}) {
            put(pack('CNN', ${F.window}, $i, 4), pack('N', $c->{sent}));
            $c->{sent} = 0;
        }
    }
    shutdown($c->{s}, 1) if $c->{shut} && !length $c->{out};
}
sub frame {
    my ($t, $i, $p) = @_;
    my $c = $c{$i};
    if ($t == ${F.open}) { opened($i, $p) }
    elsif (!$c) { }
    elsif ($t == ${F.data}) { $c->{out} .= $p; flush($i, $c) if $c->{up} }
    elsif ($t == ${F.end}) { $c->{shut} = 1; flush($i, $c) if $c->{up} }
    elsif ($t == ${F.close}) { drop($i) }
    elsif ($t == ${F.window}) { $c->{credit} += unpack('N', $p) }
}
my $buf = '';
while (1) {
    my ($r, $w) = ('', '');
    vec($r, 0, 1) = 1;
    for my $c (values %c) {
        my $f = fileno $c->{s};
        if (!$c->{up} || length $c->{out}) { vec($w, $f, 1) = 1 }
        elsif ($c->{credit} > 0) { vec($r, $f, 1) = 1 }
    }
    my ($ro, $wo) = ($r, $w);
    if (select($ro, $wo, undef, undef) < 0) {
        next if $! == EINTR;
        die "select: $!";
    }
    for my $f (keys %fd) {
        next unless vec($wo, $f, 1);
        my $i = $fd{$f};
        my $c = $c{$i} or next;
        if (!$c->{up}) {
            my $e = unpack('i', getsockopt($c->{s}, SOL_SOCKET, SO_ERROR));
            if ($e) { local $! = $e; my $m = "$!"; drop($i, $m); next }
            $c->{up} = 1;
        }
        flush($i, $c);
    }
    if (vec($ro, 0, 1)) {
        my $got = sysread(STDIN, $buf, ${MAX_DATA}, length $buf);
        exit 0 unless $got;
        while (length $buf >= 9) {
            my ($t, $i, $l) = unpack('CNN', $buf);
            last if length $buf < 9 + $l;
            my $p = substr($buf, 9, $l);
            substr($buf, 0, 9 + $l) = '';
            frame($t, $i, $p);
        }
    }
    for my $f (keys %fd) {
        next unless vec($ro, $f, 1);
        my $i = $fd{$f};
        my $c = $c{$i} or next;
        next unless $c->{up} && $c->{credit} > 0;
        my $d;
        my $got = sysread($c->{s}, $d, $c->{credit} < ${MAX_DATA} ? $c->{credit} : ${MAX_DATA});
        if (!defined $got) {
            next if $! == EAGAIN || $! == EWOULDBLOCK;
            my $e = "$!";
            drop($i, $e);
            next;
        }
        if ($got == 0) { drop($i, ''); next }
        $c->{credit} -= $got;
        put(pack('CNN', ${F.data}, $i, $got), $d);
    }
}
`;
