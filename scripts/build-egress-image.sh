#!/usr/bin/env bash
# Builds Berth's egress proxy image (Debian's squid-openssl and HAProxy) without a registry: debootstrap a minimal
# bookworm rootfs with squid and `docker import` it. Where a registry is reachable,
# `docker build -t berth-egress:3 build/egress` gives the same image from the Dockerfile there.
#   bash scripts/build-egress-image.sh [TAG]     (default TAG: berth-egress:3)
# Idempotent: does nothing when TAG already exists. Needs root and a running engine (~1 min).
set -euo pipefail
tag=${1:-berth-egress:3}

log() { printf 'build-egress-image: %s\n' "$*" >&2; }
if docker image inspect "$tag" >/dev/null 2>&1; then log "$tag already present"; exit 0; fi
command -v debootstrap >/dev/null 2>&1 || { DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
log "debootstrap bookworm (minbase + squid-openssl + haproxy)"
debootstrap --variant=minbase --include=squid-openssl,haproxy,openssl,ca-certificates \
  bookworm "$root" "${mirror:-http://deb.debian.org/debian}" >/dev/null
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
log "importing as $tag"
tar -C "$root" -c . | docker import -c 'USER proxy' - "$tag" >/dev/null
log "done: $(docker image inspect -f '{{.Size}}' "$tag") bytes"
