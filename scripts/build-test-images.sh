#!/usr/bin/env bash
# Builds the local images the tests use; no registry is reachable here, so nothing is pulled.
#   berth-test:busybox   a tiny rootfs made from the host's static busybox (seconds)
#   berth-test:bookworm  a realistic Debian image with bash, git and python3 (about a minute)
# Idempotent: an image that already exists is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
engine_scripts=${BERTH_ENGINE_SCRIPTS:-$here/../../shared/engine}
log() { printf 'build-test-images: %s\n' "$*" >&2; }

if ! docker image inspect berth-test:busybox >/dev/null 2>&1; then
  [ -x /bin/busybox ] || { log "/bin/busybox is missing: run ensure-docker.sh first"; exit 1; }
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,home,workspace,root}
  cp /bin/busybox "$root/bin/busybox"
  chroot "$root" /bin/busybox --install -s
  printf 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
  chmod 1777 "$root/tmp"
  # A setuid-root program: the no-new-privileges test checks it gains nothing.
  gcc -static -O2 -o "$root/bin/suid-probe" "$here/test-image/suid-probe.c"
  chmod 4755 "$root/bin/suid-probe"
  # The root folder as in any image: 0755 (a storage driver that applies it, vfs, would lock the sandbox user out).
  chmod 755 "$root"
  tar -C "$root" -c . | docker import -c 'CMD ["/bin/sh"]' - berth-test:busybox >/dev/null
  log "built berth-test:busybox"
else
  log "berth-test:busybox already present"
fi

bash "$engine_scripts/build-debian-image.sh" berth-test:bookworm

# A minimal Debian bookworm image with the sandbox user (uid 1000) and /workspace, made with
# debootstrap: debian_test_image TAG PACKAGES [MORE_SETUP], MORE_SETUP run with $root set.
debian_test_image() {
  local tag=$1 packages=$2 more=${3:-}
  if docker image inspect "$tag" >/dev/null 2>&1; then log "$tag already present"; return; fi
  command -v debootstrap >/dev/null 2>&1 || { DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
  local mirror root
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  root=$(mktemp -d)
  debootstrap --variant=minbase --include="$packages" bookworm "$root" "${mirror:-http://deb.debian.org/debian}" >/dev/null
  chroot "$root" groupadd -g 1000 sandbox
  chroot "$root" useradd -m -u 1000 -g 1000 -s /bin/bash sandbox
  mkdir -p "$root/workspace" && chown 1000:1000 "$root/workspace"
  [ -z "$more" ] || root=$root bash -c "$more"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
  chmod 755 "$root"
  tar -C "$root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$tag" >/dev/null
  rm -rf "$root"
  log "built $tag"
}

# berth-test:net  the egress tests' pretend internet and sandbox: curl, openssl, python3 (HTTP and
# HTTPS test servers), netcat and dig (about a minute).
debian_test_image berth-test:net curl,openssl,python3,netcat-openbsd,dnsutils,ca-certificates

# berth-test:ssh  the egress ssh tests' sandbox and git server: the ssh client and server, git,
# netcat and python3 (about a minute); no host keys (each test makes its own).
debian_test_image berth-test:ssh openssh-client,openssh-server,git,netcat-openbsd,python3,curl,ca-certificates \
  'mkdir -p "$root/run/sshd" && rm -f "$root"/etc/ssh/ssh_host_*'

# berth-egress:3  Berth's own egress proxy (squid), which allowlist profiles need.
bash "$here/build-egress-image.sh" berth-egress:3
