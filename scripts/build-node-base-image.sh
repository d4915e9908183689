#!/usr/bin/env bash
# Builds, without any container registry, the two Node base images the Dockerfile takes as build
# arguments, equivalent to the official node:<major>-bookworm (build stage) and node:<major>-bookworm-slim
# (run stage), for the Node major version NODE_MAJOR (default: the Dockerfile's `ARG NODE_MAJOR`):
#   familiar-node-base:<major>   debootstrap bookworm minbase + ca-certificates + Node (node in
#                                /usr/local/bin, npm in /usr/local/lib/node_modules, as in the official
#                                image) + user `node` (1000:1000)
#   familiar-node-build:<major>  the same plus python3, make and g++ for native modules (better-sqlite3),
#                                Node's C headers in /usr/local/include/node and npm_config_nodedir
#                                pointing at them, so node-gyp does not try to download headers
# Node comes from this machine when its major version is NODE_MAJOR, else from the npm registry's official
# binaries (the `node-linux-<arch>` package of that major, which carries bin/node and the C headers); npm is
# this machine's. The machine's extra CA certificates (/usr/local/share/ca-certificates) are added to both, so
# npm inside the build trusts whatever this machine trusts (an egress proxy's CA, for instance).
#
# Usage: scripts/build-node-base-image.sh      then, for example:
#   docker build --build-arg NODE_IMAGE=familiar-node-base:22 --build-arg BUILD_IMAGE=familiar-node-build:22 -t familiar .
# Idempotent: when both images carry this script's version (a hash of the script, node and npm) it
# returns at once. Needs root (debootstrap) and a running engine (scripts/setup-docker.sh).
# Environment: NODE_MAJOR, DEBIAN_MIRROR (default: the one in /etc/apt/sources.list*), NODE_BIN (a node
# binary of that major to use instead), RUN_TAG, BUILD_TAG.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NODE_MAJOR=${NODE_MAJOR:-$(sed -n 's/^ARG NODE_MAJOR=\([0-9][0-9]*\).*/\1/p' "$here/../Dockerfile")}
RUN_TAG=${RUN_TAG:-familiar-node-base:$NODE_MAJOR}
BUILD_TAG=${BUILD_TAG:-familiar-node-build:$NODE_MAJOR}
SUITE=bookworm
# Debootstrap and the copied files must stay readable by the image's uid 1000, whatever the caller's umask.
umask 022
LABEL_KEY=familiar.node-base.version

die() { echo "build-node-base-image: ERROR: $*" >&2; exit 1; }

command -v docker >/dev/null 2>&1 || die "docker client not found"
docker version >/dev/null 2>&1 || die "no Docker engine answers; run: bash scripts/setup-docker.sh"

say() { echo "build-node-base-image: $*" >&2; }
case "$NODE_MAJOR" in ''|*[!0-9]*) die "NODE_MAJOR \"$NODE_MAJOR\" is not a major version number (20, 22, 24)" ;; esac

# npm lives beside this machine's node: <prefix>/bin/node and <prefix>/lib/node_modules/npm.
HOST_NODE=$(readlink -f "$(command -v node)")
HOST_PREFIX=$(cd "$(dirname "$HOST_NODE")/.." && pwd)
NPM_DIR=$HOST_PREFIX/lib/node_modules/npm
[ -f "$NPM_DIR/bin/npm-cli.js" ] || die "npm not found at $NPM_DIR"
NPM_VERSION=$("$HOST_NODE" "$NPM_DIR/bin/npm-cli.js" --version 2>/dev/null)

fetched=
NODE_BIN=${NODE_BIN:-}
if [ -z "$NODE_BIN" ] && [ "$("$HOST_NODE" -p 'process.versions.node.split(".")[0]')" = "$NODE_MAJOR" ]; then NODE_BIN=$HOST_NODE; fi
if [ -n "$NODE_BIN" ]; then
  NODE_BIN=$(readlink -f "$NODE_BIN")
  HEADERS=$(cd "$(dirname "$NODE_BIN")/.." && pwd)/include/node
else
  # The official binaries of that major, as npm publishes them (no container registry needed).
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) die "no official Node package for $(uname -m)" ;; esac
  fetched=$(mktemp -d /var/tmp/familiar-node-bin.XXXXXX)
  trap 'rm -rf "$fetched"' EXIT
  say "fetching node-linux-$arch@$NODE_MAJOR from the npm registry"
  (cd "$fetched" && "$HOST_NODE" "$NPM_DIR/bin/npm-cli.js" pack --silent "node-linux-$arch@$NODE_MAJOR" >/dev/null) || die "npm pack node-linux-$arch@$NODE_MAJOR failed"
  tar -xzf "$fetched"/node-linux-*.tgz -C "$fetched"
  NODE_BIN=$fetched/package/bin/node
  HEADERS=$fetched/package/include/node
fi
[ -x "$NODE_BIN" ] || die "node not found at $NODE_BIN"
NODE_VERSION=$("$NODE_BIN" --version)
case "$NODE_VERSION" in "v$NODE_MAJOR".*) ;; *) die "node $NODE_VERSION at $NODE_BIN is not Node $NODE_MAJOR" ;; esac
[ -f "$HEADERS/node.h" ] || die "Node's C headers not found at $HEADERS (needed to build better-sqlite3 offline)"

VERSION=$( { cat "${BASH_SOURCE[0]}"; echo "$NODE_VERSION $NPM_VERSION"; cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true; } | sha256sum | cut -c1-16)
image_version() { docker image inspect -f "{{index .Config.Labels \"$LABEL_KEY\"}}" "$1" 2>/dev/null || true; }

if [ "$(image_version "$RUN_TAG")" = "$VERSION" ] && [ "$(image_version "$BUILD_TAG")" = "$VERSION" ]; then
  say "$RUN_TAG and $BUILD_TAG are up to date (version $VERSION, node $NODE_VERSION); nothing to do"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "debootstrap needs root; run as root (e.g. sudo bash $0)"
if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

find_mirror() {
  local files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ "${#files[@]}" -gt 0 ] || return 0
  {
    sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' "${files[@]}" | tr ' ' '\n'
    sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' "${files[@]}"
  } | grep -E '^(https?|file)://' | grep -E '/debian/?$' | grep -v -- '-security' | head -n1 | sed 's:/*$::'
}
MIRROR=${DEBIAN_MIRROR:-$(find_mirror)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

started=$SECONDS
work=$(mktemp -d /var/tmp/familiar-node-base.XXXXXX)
cleanup() {
  local m
  # debootstrap can leave proc/sys mounted in a target when it fails; never delete through them.
  for m in $(awk -v r="$work" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$work"
  [ -z "$fetched" ] || rm -rf "$fetched"
}
trap cleanup EXIT
mkdir -p "$work/cache"

# make_rootfs DIR PACKAGES: a bookworm minbase with PACKAGES, Node, npm, user node and the CAs.
make_rootfs() {
  local rootfs=$1 packages=$2 t=$SECONDS
  say "debootstrap $SUITE minbase +$packages from $MIRROR (about 60-120 s)"
  if ! debootstrap --variant=minbase --cache-dir="$work/cache" --include="$packages" "$SUITE" "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2 || true
    die "debootstrap failed"
  fi
  install -D -m 0755 "$NODE_BIN" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$NPM_DIR" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    chroot "$rootfs" /usr/sbin/update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed in $rootfs"
  fi
  # npm uses Node's built-in CA list unless told otherwise; the system store has the machine's CAs too.
  mkdir -p "$rootfs/usr/local/etc"
  echo 'cafile=/etc/ssl/certs/ca-certificates.crt' >"$rootfs/usr/local/etc/npmrc"
  grep -q '^node:' "$rootfs/etc/group" || echo 'node:x:1000:' >>"$rootfs/etc/group"
  grep -q '^node:' "$rootfs/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$rootfs/etc/passwd"
  [ ! -f "$rootfs/etc/shadow" ] || grep -q '^node:' "$rootfs/etc/shadow" || echo 'node:*:19000:0:99999:7:::' >>"$rootfs/etc/shadow"
  [ ! -f "$rootfs/etc/gshadow" ] || grep -q '^node:' "$rootfs/etc/gshadow" || echo 'node:!::' >>"$rootfs/etc/gshadow"
  mkdir -p "$rootfs/home/node"
  chown 1000:1000 "$rootfs/home/node"
  chroot "$rootfs" /usr/local/bin/node -e 'process.exit(0)' || die "the copied node does not run in $rootfs"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log
  say "rootfs $(basename "$rootfs") ready in $((SECONDS - t))s ($(du -sm "$rootfs" | cut -f1) MiB)"
}

import_rootfs() {
  local rootfs=$1 tag=$2 extra=("${@:3}")
  tar --numeric-owner -C "$rootfs" -c . | docker import \
    -c "LABEL $LABEL_KEY=$VERSION" \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'ENV LANG=C.UTF-8' \
    -c "ENV NODE_VERSION=${NODE_VERSION#v}" \
    "${extra[@]}" \
    -c 'CMD ["node"]' \
    -m "familiar Node base $VERSION (debootstrap $SUITE minbase, node $NODE_VERSION)" \
    - "$tag" >/dev/null
  [ "$(image_version "$tag")" = "$VERSION" ] || die "imported $tag does not carry label $LABEL_KEY=$VERSION"
  say "imported $tag"
}

make_rootfs "$work/run" ca-certificates
import_rootfs "$work/run" "$RUN_TAG"
rm -rf --one-file-system "$work/run"

make_rootfs "$work/build" ca-certificates,python3,make,g++
mkdir -p "$work/build/usr/local/include"
cp -a "$HEADERS" "$work/build/usr/local/include/node"
# node-gyp otherwise downloads the headers from nodejs.org, which is not reachable from here.
import_rootfs "$work/build" "$BUILD_TAG" -c 'ENV npm_config_nodedir=/usr/local'

docker image prune -f --filter "label=$LABEL_KEY" >/dev/null 2>&1 || true
say "built $RUN_TAG and $BUILD_TAG (node $NODE_VERSION, npm $NPM_VERSION) in $((SECONDS - started))s"
