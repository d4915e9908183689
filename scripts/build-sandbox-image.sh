#!/usr/bin/env bash
# Builds the sandbox image Familiar's tools run code in, without any container registry:
# debootstrap a minimal Debian bookworm root filesystem from the machine's Debian mirror, add the
# non-root user `familiar` (uid/gid 1000) and /workspace, add the test stand-in coding agent
# (docker/sandbox/fake-code-agent -> /usr/local/bin/fake-code-agent), then `docker import` it.
# Where a registry is reachable, docker/sandbox/Dockerfile builds the equivalent image normally.
#
# Usage: scripts/build-sandbox-image.sh [TAG]    (default familiar-sandbox:latest; also tagged
#        familiar-sandbox:test, the image the test suite uses)
# Idempotent: when the image exists and carries this script's version it returns at once; editing
# this script or the fake agent changes the version and forces a rebuild.
# Environment: DEBIAN_MIRROR overrides the mirror read from /etc/apt/sources.list*.
# Needs root (debootstrap) and a running engine (scripts/setup-docker.sh).
set -euo pipefail

TAG=${1:-familiar-sandbox:latest}
TEST_TAG=familiar-sandbox:test
SUITE=bookworm
PACKAGES=bash,coreutils,python3,nodejs,git,curl,jq,ripgrep,ca-certificates,procps
LABEL_KEY=familiar.sandbox.version

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
AGENT_SRC="$repo/docker/sandbox/fake-code-agent"

say() { echo "build-sandbox-image: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

[ -f "$AGENT_SRC" ] || die "missing $AGENT_SRC"
command -v docker >/dev/null 2>&1 || die "docker client not found"
docker version >/dev/null 2>&1 || die "no Docker engine answers; run: bash scripts/setup-docker.sh"

# The version marker: a hash of everything that determines the image's content.
VERSION=$(cat "${BASH_SOURCE[0]}" "$AGENT_SRC" | sha256sum | cut -c1-16)

image_version() {
  docker image inspect -f "{{index .Config.Labels \"$LABEL_KEY\"}}" "$1" 2>/dev/null || true
}

if [ "$(image_version "$TAG")" = "$VERSION" ]; then
  if [ "$TAG" != "$TEST_TAG" ] && [ "$(image_version "$TEST_TAG")" != "$VERSION" ]; then
    docker tag "$TAG" "$TEST_TAG"
    say "$TAG is up to date (version $VERSION); tagged $TEST_TAG"
  else
    say "$TAG is up to date (version $VERSION); nothing to do"
  fi
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "debootstrap needs root; run as root (e.g. sudo bash $0 $*)"

started=$SECONDS
old_id=$(docker image inspect -f '{{.Id}}' "$TAG" 2>/dev/null || true)

if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# The Debian mirror this machine's apt uses (deb822 `URIs:` or one-line `deb URI SUITE ...`),
# skipping the security archive and third-party repositories.
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

rootfs=$(mktemp -d /var/tmp/familiar-sandbox-rootfs.XXXXXX)
cleanup() {
  # debootstrap can leave proc/sys mounted in the target when it fails; never delete through them.
  local m
  for m in $(awk -v r="$rootfs" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$rootfs"
  rm -f "$rootfs.log"
}
trap cleanup EXIT

say "debootstrap $SUITE from $MIRROR into $rootfs (about 60-90 s)"
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1; then
  tail -n 30 "$rootfs.log" >&2 || true
  [ -f "$rootfs/debootstrap/debootstrap.log" ] && tail -n 30 "$rootfs/debootstrap/debootstrap.log" >&2
  rm -f "$rootfs.log"
  die "debootstrap failed"
fi
rm -f "$rootfs.log"
say "debootstrap done after $((SECONDS - started))s"

say "adding user familiar (1000:1000), /workspace and /usr/local/bin/fake-code-agent"
grep -q '^familiar:' "$rootfs/etc/group" || echo 'familiar:x:1000:' >>"$rootfs/etc/group"
grep -q '^familiar:' "$rootfs/etc/passwd" || echo 'familiar:x:1000:1000:Familiar sandbox:/home/familiar:/bin/bash' >>"$rootfs/etc/passwd"
if [ -f "$rootfs/etc/shadow" ] && ! grep -q '^familiar:' "$rootfs/etc/shadow"; then
  echo "familiar:*:$(( $(date +%s) / 86400 )):0:99999:7:::" >>"$rootfs/etc/shadow"
fi
if [ -f "$rootfs/etc/gshadow" ] && ! grep -q '^familiar:' "$rootfs/etc/gshadow"; then
  echo 'familiar:!::' >>"$rootfs/etc/gshadow"
fi
mkdir -p "$rootfs/home/familiar" "$rootfs/workspace"
cp -a "$rootfs/etc/skel/." "$rootfs/home/familiar/" 2>/dev/null || true
chown -R 1000:1000 "$rootfs/home/familiar" "$rootfs/workspace"
chmod 755 "$rootfs/home/familiar" "$rootfs/workspace"
install -m 0755 -o 0 -g 0 "$AGENT_SRC" "$rootfs/usr/local/bin/fake-code-agent"

# Slim the image: package caches and lists (no apt use inside the sandbox), docs, man pages.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old

say "importing as $TAG ($(du -sm "$rootfs" | cut -f1) MiB)"
tar --numeric-owner -C "$rootfs" -c . | docker import \
  -c "LABEL $LABEL_KEY=$VERSION" \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'ENV LANG=C.UTF-8' \
  -c 'ENV HOME=/home/familiar' \
  -c 'WORKDIR /workspace' \
  -c 'USER 1000' \
  -c 'CMD ["/bin/bash"]' \
  -m "familiar sandbox $VERSION (debootstrap $SUITE minbase)" \
  - "$TAG" >/dev/null
[ "$TAG" = "$TEST_TAG" ] || docker tag "$TAG" "$TEST_TAG"

[ "$(image_version "$TAG")" = "$VERSION" ] || die "imported image does not carry label $LABEL_KEY=$VERSION"

new_id=$(docker image inspect -f '{{.Id}}' "$TAG")
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ] \
  && [ "$(docker image inspect -f '{{len .RepoTags}}' "$old_id" 2>/dev/null)" = 0 ]; then
  # The superseded build, now untagged; kept if a container still uses it.
  docker image rm "$old_id" >/dev/null 2>&1 || true
fi

say "built $TAG and $TEST_TAG (version $VERSION, $new_id) in $((SECONDS - started))s"
