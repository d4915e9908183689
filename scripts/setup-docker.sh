#!/usr/bin/env bash
# Makes a Docker engine answer on this machine, for the sandbox tests (see test/helpers/docker.ts).
# - If an engine already answers (the default socket, or DOCKER_HOST when set) it does nothing.
# - Otherwise it installs Debian's docker.io package when dockerd is missing (without letting the
#   package start services) and starts dockerd without systemd; dockerd starts its own containerd.
# Idempotent: with a running engine it returns at once.
# Environment: DOCKERD_LOG (default /var/log/familiar-dockerd.log), DOCKER_WAIT_SECONDS (default 60).
set -euo pipefail

SOCKET=/var/run/docker.sock
LOG=${DOCKERD_LOG:-/var/log/familiar-dockerd.log}
WAIT_SECONDS=${DOCKER_WAIT_SECONDS:-60}

say() { echo "setup-docker: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

engine_answers() {
  if [ -n "${DOCKER_HOST:-}" ]; then
    command -v docker >/dev/null 2>&1 && docker version >/dev/null 2>&1
  else
    [ -S "$SOCKET" ] && curl -sf --max-time 3 --unix-socket "$SOCKET" http://localhost/_ping >/dev/null 2>&1
  fi
}

if engine_answers; then
  say "engine already answers${DOCKER_HOST:+ at $DOCKER_HOST}; nothing to do"
  exit 0
fi

if [ -n "${DOCKER_HOST:-}" ]; then
  say "DOCKER_HOST=$DOCKER_HOST is set but no engine answers there; unset it to start a local engine"
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  say "dockerd not found; installing Debian's docker.io"
  created_policy=0
  cleanup() {
    if [ "$created_policy" -eq 1 ]; then
      $SUDO rm -f /usr/sbin/policy-rc.d
    fi
  }
  trap cleanup EXIT
  # Keep the package's maintainer scripts from starting system services.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    created_policy=1
  fi
  say "apt-get update"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  say "apt-get install docker.io"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  cleanup
  created_policy=0
  say "installed $(dockerd --version)"
else
  say "dockerd present: $(dockerd --version)"
fi

# A socket left behind by a dead engine makes dockerd refuse to start on some versions.
if [ -S "$SOCKET" ] && ! engine_answers; then
  say "removing stale socket $SOCKET"
  $SUDO rm -f "$SOCKET"
fi

say "starting dockerd (log: $LOG)"
$SUDO mkdir -p "$(dirname "$LOG")"
# setsid detaches the engine from this shell's session so it outlives the script.
# The redirections run inside the (possibly sudo'ed) shell so the log can live under /var/log.
$SUDO setsid sh -c 'exec dockerd --host "unix://$1" </dev/null >"$2" 2>&1' sh "$SOCKET" "$LOG" &

started=$SECONDS
deadline=$((SECONDS + WAIT_SECONDS))
while ! engine_answers; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    say "ERROR: dockerd did not answer on $SOCKET within ${WAIT_SECONDS}s; last lines of $LOG:"
    tail -n 40 "$LOG" >&2 || true
    exit 1
  fi
  sleep 0.2
done

version=$(curl -sf --unix-socket "$SOCKET" http://localhost/version | grep -o '"ApiVersion":"[^"]*"' | head -n1 || true)
say "engine answers on $SOCKET after $((SECONDS - started))s ${version:+($version)}"
