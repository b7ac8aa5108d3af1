#!/usr/bin/env bash
# Podman for Berth and its tests (README "Podman"): Debian's packages, a rootful API socket and
# a rootless one for uid 1000 with subordinate ids, and the test images on both.
# Idempotent: what is installed, created or running already is left as it is. Needs root.
#
#   bash scripts/podman-setup.sh            # install, start both sockets, load the test images
#   bash scripts/podman-setup.sh stop       # stop the two API services this script started
#
# Sockets (DOCKER_HOST for Berth or the tests):
#   rootful   unix:///run/podman/podman.sock
#   rootless  unix:///run/berthpod/podman/podman.sock   (user berthpod, uid 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'podman-setup: %s\n' "$*" >&2; }

ROOTFUL_SOCK=/run/podman/podman.sock
USER_NAME=${BERTH_PODMAN_USER:-berthpod}
USER_UID=${BERTH_PODMAN_UID:-1000}
RUNTIME_DIR=/run/$USER_NAME
ROOTLESS_SOCK=$RUNTIME_DIR/podman/podman.sock
USER_HOME=/var/lib/$USER_NAME

answers() { curl -fsS --max-time 5 --unix-socket "$1" http://d/_ping >/dev/null 2>&1; }

if [ "${1:-}" = stop ]; then
  for pidfile in /run/podman/berth-service.pid "$RUNTIME_DIR/berth-service.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    # Its process group (setsid): runuser and the podman it started.
    kill -- "-$pid" 2>/dev/null && log "stopped the API service (process group $pid)"
    rm -f "$pidfile"
  done
  exit 0
fi

# catatonit is the init Podman starts as pid 1 when a container asks for one (HostConfig.Init):
# without it every sandbox create fails with "container-init binary not found".
# uidmap (newuidmap) and slirp4netns are what rootless Podman needs; fuse-overlayfs its storage.
need=()
for pkg in podman catatonit uidmap slirp4netns fuse-overlayfs netavark aardvark-dns curl; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

# Podman raises a container's open-file and process limits (to 1048576 and 4194304), which needs
# CAP_SYS_RESOURCE; where root lacks it (a sandboxed CI machine), every start fails with "error
# setting rlimit type 7". There, containers keep the limits conmon has instead.
DROPIN=/etc/containers/containers.conf.d/berth-ulimits.conf
# CAP_SYS_RESOURCE is bit 24 of the bounding set.
if (( ((0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> 24) & 1) == 0 )); then
  if [ ! -f "$DROPIN" ]; then
    log "root lacks CAP_SYS_RESOURCE here: writing $DROPIN"
    mkdir -p "$(dirname "$DROPIN")"
    printf '# Written by Berth'"'"'s scripts/podman-setup.sh: root lacks CAP_SYS_RESOURCE on this machine,\n# so Podman'"'"'s raised defaults fail every start; keep what conmon has.\n[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=32768:32768"]\n' "$(ulimit -Hn)" "$(ulimit -Hn)" > "$DROPIN"
  fi
fi

# Rootful: root's API service on the standard socket.
if ! answers "$ROOTFUL_SOCK"; then
  log "starting the rootful API service on $ROOTFUL_SOCK"
  mkdir -p /run/podman
  rm -f "$ROOTFUL_SOCK"
  setsid nohup podman system service --time=0 "unix://$ROOTFUL_SOCK" >/var/log/podman-rootful.log 2>&1 < /dev/null &
  echo $! > /run/podman/berth-service.pid
fi

# Rootless: a user of uid 1000 (the uid Berth's sandbox runs as when Berth runs as root, so
# keep-id maps host files and the sandbox user onto each other) with 65536 subordinate ids.
if ! getent passwd "$USER_NAME" >/dev/null; then
  # On a machine where uid 1000 is already someone's, berthpod shares it (-o) with its own home.
  # It then takes that account's group too: newuidmap checks the caller's ids against the
  # account its uid resolves to.
  other=$(getent passwd "$USER_UID" || true)
  if [ -n "$other" ]; then
    log "creating user $USER_NAME (uid $USER_UID, shared with ${other%%:*})"
    useradd -o -u "$USER_UID" -g "$(echo "$other" | cut -d: -f4)" -N -d "$USER_HOME" -m -s /usr/sbin/nologin "$USER_NAME"
  else
    log "creating user $USER_NAME (uid $USER_UID)"
    useradd -u "$USER_UID" -d "$USER_HOME" -m -s /usr/sbin/nologin "$USER_NAME"
  fi
fi
USER_UID=$(id -u "$USER_NAME")
USER_GID=$(id -g "$USER_NAME")
for f in /etc/subuid /etc/subgid; do
  touch "$f"
  # By number: newuidmap looks the user up by the name its uid resolves to, which with a
  # shared uid is the other account's; the number matches either way. 200000 keeps clear of
  # the 100000 range useradd hands out.
  grep -q "^$USER_NAME:" "$f" && sed -i "/^$USER_NAME:/d" "$f"
  grep -q "^$USER_UID:" "$f" || echo "$USER_UID:200000:65536" >> "$f"
done
mkdir -p "$RUNTIME_DIR" "$USER_HOME"
chown "$USER_UID:$USER_GID" "$RUNTIME_DIR" "$USER_HOME"
chmod 700 "$RUNTIME_DIR"
# Always from the user's own home: this script runs in the clone, whose folder (or a parent,
# such as a 0700 home) the user may not enter, and rootless Podman then stops at once with
# "cannot chdir to <clone>: Permission denied". Never loosen the clone's permissions instead.
as_user() { (cd "$USER_HOME" && runuser -u "$USER_NAME" -- env HOME="$USER_HOME" XDG_RUNTIME_DIR="$RUNTIME_DIR" XDG_CONFIG_HOME="$USER_HOME/.config" XDG_DATA_HOME="$USER_HOME/.local/share" "$@"); }
if ! answers "$ROOTLESS_SOCK"; then
  log "starting the rootless API service on $ROOTLESS_SOCK (user $USER_NAME, uid $USER_UID)"
  mkdir -p "$RUNTIME_DIR/podman"
  chown "$USER_UID:$USER_GID" "$RUNTIME_DIR/podman"
  rm -f "$ROOTLESS_SOCK"
  # Braced, so that $! is setsid's own pid, which is its process group ('stop' ends that group);
  # without the braces the whole `cd && setsid` went to the background as a subshell, whose pid
  # was recorded, and 'stop' left the rootless service running.
  (cd "$USER_HOME" && {
    setsid nohup runuser -u "$USER_NAME" -- env HOME="$USER_HOME" XDG_RUNTIME_DIR="$RUNTIME_DIR" XDG_CONFIG_HOME="$USER_HOME/.config" XDG_DATA_HOME="$USER_HOME/.local/share" \
      podman system service --time=0 "unix://$ROOTLESS_SOCK" >"/var/log/podman-$USER_NAME.log" 2>&1 < /dev/null &
    echo $! > "$RUNTIME_DIR/berth-service.pid"
  })
fi

for sock in "$ROOTFUL_SOCK" "$ROOTLESS_SOCK"; do
  for _ in $(seq 1 60); do answers "$sock" && break; sleep 0.5; done
  answers "$sock" || { log "the API service on $sock did not answer; its log:"; tail -n 20 /var/log/podman-rootful.log "/var/log/podman-$USER_NAME.log" >&2; exit 1; }
done
log "rootful API:  unix://$ROOTFUL_SOCK"
log "rootless API: unix://$ROOTLESS_SOCK"

# The test images (built on Docker by scripts/build-test-images.sh; no registry to pull from).
if command -v docker >/dev/null && docker version >/dev/null 2>&1; then
  images=()
  for image in berth-test:busybox berth-test:bookworm; do
    docker image inspect "$image" >/dev/null 2>&1 && images+=("$image")
  done
  if [ ${#images[@]} -gt 0 ]; then
    if ! podman image exists "${images[0]}" || ! podman image exists "${images[-1]}"; then
      log "loading ${images[*]} into rootful Podman"
      docker save "${images[@]}" | podman load -q >/dev/null
    fi
    if ! as_user podman image exists "${images[0]}" || ! as_user podman image exists "${images[-1]}"; then
      log "loading ${images[*]} into rootless Podman"
      docker save "${images[@]}" | as_user podman load -q >/dev/null
    fi
  fi
fi
