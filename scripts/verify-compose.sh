#!/usr/bin/env bash
# Verifies docker-compose.yml end to end on this machine, offline: in a fresh temp folder with the
# project's build files, a minimal config.yaml and .env, and data/ memory/ skills/ owned by uid 1000,
# `docker compose up -d --build` (or docker-compose v1), wait until the file's healthcheck says healthy,
# run `familiar status` and `familiar doctor` through `compose exec`, check uid 1000, restart policy,
# init, that the Docker socket is NOT mounted (only docker-compose.sandbox.yml mounts it; its merged config is
# checked too), then `compose stop` and expect exit code 0, then `compose down`.
# No LLM is reachable or needed: doctor's LLM line fails ("no API key"), every other line must pass.
# Not part of `npm test` (minutes: the image build).
#
# Usage: scripts/verify-compose.sh [--ref GIT_REF]
#   --ref REF   the application sources (the .dockerignore allowlist) from `git archive REF` instead of the
#               working tree; docker-compose.yml, Dockerfile and .dockerignore always come from the working
#               tree (they are what this verifies). Useful while others' work is uncommitted.
# Base images: FAMILIAR_BUILD_IMAGE / FAMILIAR_NODE_IMAGE when set; else the official node:<major>-bookworm(-slim)
# when present locally; else (no registry here) the offline ones from scripts/build-node-base-image.sh.
# Environment: TAG (image tag, default familiar:compose-verify), HEALTH_DEADLINE (seconds, default 180),
# KEEP=1 leaves the project up and the temp folder in place for a look.
# Writes nothing into the repository: config.yaml, .env and data/ live in the temp folder only.
set -euo pipefail

TAG=${TAG:-familiar:compose-verify}
HEALTH_DEADLINE=${HEALTH_DEADLINE:-180}
REF=
while [ $# -gt 0 ]; do
  case "$1" in
    --ref) REF=${2:?--ref needs a git ref}; shift 2 ;;
    *) echo "usage: $0 [--ref GIT_REF]" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
say() { echo "verify-compose: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }
phase_start=$SECONDS
phase() { say "$1 ($((SECONDS - phase_start))s since start)"; }
# Root for chown/rm of the uid-1000 folders; sudo without a password otherwise.
priv() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

bash "$here/setup-docker.sh"

if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  COMPOSE=(docker-compose)
else
  die "neither \`docker compose\` (v2) nor \`docker-compose\` (v1) is installed"
fi
compose_version=$("${COMPOSE[@]}" version --short 2>/dev/null || "${COMPOSE[@]}" version | head -n1)

# shellcheck source=base-images.sh
. "$here/base-images.sh"
images=$(base_images "${FAMILIAR_BUILD_IMAGE:-}" "${FAMILIAR_NODE_IMAGE:-}")
read -r FAMILIAR_BUILD_IMAGE FAMILIAR_NODE_IMAGE <<<"$images"
for image in "$FAMILIAR_BUILD_IMAGE" "$FAMILIAR_NODE_IMAGE"; do
  docker image inspect "$image" >/dev/null 2>&1 || die "base image $image is not in the engine (offline: bash scripts/build-node-base-image.sh)"
done

docker_gid=$(stat -c %g /var/run/docker.sock 2>/dev/null) || die "no /var/run/docker.sock to take the docker group id from"
project=familiar-verify-compose-$$-$RANDOM
work=$(mktemp -d /tmp/familiar-compose.XXXXXX)

# Every compose call: this project, the real docker-compose.yml plus a one-key override (below), the base
# images from the environment, DOCKER_GID from .env only.
compose() {
  (cd "$work" && env -u DOCKER_GID FAMILIAR_BUILD_IMAGE="$FAMILIAR_BUILD_IMAGE" FAMILIAR_NODE_IMAGE="$FAMILIAR_NODE_IMAGE" \
    "${COMPOSE[@]}" -p "$project" -f docker-compose.yml -f verify.override.yml "$@")
}
started=0
cleanup() {
  local code=$?
  if [ "${KEEP:-0}" = 1 ]; then
    say "KEEP=1: left project $project up and $work (down: cd $work && ${COMPOSE[*]} -p $project -f docker-compose.yml -f verify.override.yml down -v)"
    return
  fi
  if [ "$started" = 1 ]; then
    compose down -v --remove-orphans --timeout 30 >/dev/null 2>&1 || say "warning: \`compose down\` failed for project $project"
  fi
  priv rm -rf "$work" || say "warning: could not remove $work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

phase "project files into $work ($([ -n "$REF" ] && echo "sources from git $REF" || echo "working tree"))"
# What the build reads: the .dockerignore allowlist (!path lines), plus the deployment files themselves.
mapfile -t allowed < <(sed -n 's:^!\(.*[^/]\)/*$:\1:p' "$repo/.dockerignore")
[ "${#allowed[@]}" -gt 0 ] || die ".dockerignore has no !allowlist lines"
if [ -n "$REF" ]; then
  present=()
  for path in "${allowed[@]}"; do
    git -C "$repo" cat-file -e "$REF:$path" 2>/dev/null && present+=("$path")
  done
  git -C "$repo" archive "$REF" -- "${present[@]}" | tar -x -C "$work" || die "git archive $REF failed"
else
  for path in "${allowed[@]}"; do
    [ -e "$repo/$path" ] && (cd "$repo" && cp -R --parents "$path" "$work/")
  done
fi
for file in docker-compose.yml docker-compose.sandbox.yml Dockerfile .dockerignore; do
  cp "$repo/$file" "$work/$file"
done
# The sandbox image's build context (docker-compose.sandbox.yml builds it; the main image does not need it).
(cd "$repo" && cp -R --parents docker/sandbox "$work/")
[ -f "$work/package.json" ] && [ -d "$work/src" ] || die "the copied project has no package.json or src/"

# The one change to the file under test: the image tag, so the run never replaces a real familiar:latest.
cat >"$work/verify.override.yml" <<EOF
services:
  familiar:
    image: $TAG
EOF

# config.example.yaml's defaults, no channels; the LLM has no key (doctor says so; the daemon runs without).
cat >"$work/config.yaml" <<'EOF'
# Minimal config for scripts/verify-compose.sh: config.example.yaml's defaults, no channels.
data_dir: ./data
log:
  level: info
  format: json
llm:
  base_url: https://api.openai.com/v1
  api_key: ${OPENAI_API_KEY}
  model: gpt-4o-mini
http:
  listen: ${FAMILIAR_HTTP_LISTEN}
  token: ${FAMILIAR_HTTP_TOKEN:-}
EOF
cat >"$work/.env" <<EOF
# Written by scripts/verify-compose.sh: no secrets; what familiar init writes for Compose (run as root here).
OPENAI_API_KEY=
FAMILIAR_HTTP_TOKEN=
FAMILIAR_UID=1000
FAMILIAR_GID=1000
EOF
mkdir -p "$work/data"
priv chown -R 1000:1000 "$work/data" || die "cannot chown data/ to 1000:1000 (run as root or with sudo)"
priv chmod 700 "$work/data"

phase "${COMPOSE[*]} ($compose_version) -p $project up -d --build (FAMILIAR_BUILD_IMAGE=$FAMILIAR_BUILD_IMAGE FAMILIAR_NODE_IMAGE=$FAMILIAR_NODE_IMAGE)"
compose config -q 2>"$work/config.log" || { cat "$work/config.log" >&2; die "${COMPOSE[*]} rejects docker-compose.yml"; }
started=1
up_started=$SECONDS
compose up -d --build >"$work/up.log" 2>&1 || { tail -n 40 "$work/up.log" >&2; die "compose up failed (log above)"; }
# Classic builder (docker-compose v1): "Step n/m" and "Using cache"; BuildKit (v2): "#n" steps and "CACHED".
steps=$(grep -cE '^Step [0-9]+/[0-9]+ : (RUN|COPY)' "$work/up.log" || true)
cached=$(grep -cE 'Using cache|CACHED' "$work/up.log" || true)
say "up (build included) in $((SECONDS - up_started))s; build log: $steps RUN/COPY step(s), $cached from cache"
up_done=$SECONDS
container=$(compose ps -q familiar)
[ -n "$container" ] || die "compose ps shows no familiar container"

phase "waiting for the healthcheck (the file's: interval 30s, start_period 30s; deadline ${HEALTH_DEADLINE}s)"
deadline=$((SECONDS + HEALTH_DEADLINE))
health=starting
while [ "$SECONDS" -lt "$deadline" ]; do
  health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$container")
  [ "$health" = healthy ] && break
  [ "$(docker inspect -f '{{.State.Running}}' "$container")" = true ] || break
  sleep 1
done
if [ "$health" != healthy ]; then
  compose logs --no-color --tail 30 familiar >&2 || true
  docker inspect -f '{{json .State.Health}}' "$container" >&2 || true
  die "the container did not become healthy within ${HEALTH_DEADLINE}s (state: ${health:-no healthcheck})"
fi
say "health: healthy, $((SECONDS - up_done))s after compose up returned"

phase "compose exec familiar node dist/main.js status"
compose exec -T familiar node dist/main.js status | sed 's/^/  | /' >&2 || die "familiar status failed"
compose exec -T familiar node dist/main.js status --json | grep -q '"ready": true' || die "status does not say ready"

phase "compose exec familiar node dist/main.js doctor"
set +e
doctor_out=$(compose exec -T familiar node dist/main.js doctor 2>&1)
doctor_code=$?
set -e
echo "$doctor_out" | sed 's/^/  | /' >&2
say "doctor exited $doctor_code (1 expected: no LLM key)"
for line in '✓ config: /app/config.yaml' '✓ data_dir: /app/data writable' '✓ memory_dir: /app/data/memory writable' \
  '✓ skills_dir: /app/data/skills writable' '✓ database: integrity ok' '✓ skills: 2 skill(s) in /app/data/skills'; do
  echo "$doctor_out" | grep -qF -- "$line" || die "doctor has no line \"$line\""
done
other_failures=$(echo "$doctor_out" | grep '^✗' | grep -v '^✗ llm: ' || true)
[ -z "$other_failures" ] || die "doctor failed on more than the LLM: $other_failures"

phase "user, restart policy, init, no Docker socket"
user=$(compose exec -T familiar id -u | tr -d '\r')
[ "$user" = 1000 ] || die "the daemon runs as uid $user, not 1000"
restart=$(docker inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$container")
[ "$restart" = unless-stopped ] || die "restart policy is '$restart', not unless-stopped"
[ "$(docker inspect -f '{{.HostConfig.Init}}' "$container")" = true ] || die "init: true did not reach the container"
pid1=$(compose exec -T familiar cat /proc/1/comm | tr -d '\r')
[ "$pid1" != node ] || die "node is PID 1: no init in front of it"
if compose exec -T familiar test -e /var/run/docker.sock; then die "the Docker socket is mounted without docker-compose.sandbox.yml"; fi
say "uid $user, restart $restart, init true (PID 1: $pid1), no Docker socket"

phase "docker-compose.sandbox.yml: merged config (socket, same-path data, group, sandbox image build)"
sandbox_config=$(cd "$work" && env FAMILIAR_HOST_DIR="$work" DOCKER_GID="$docker_gid" FAMILIAR_BUILD_IMAGE="$FAMILIAR_BUILD_IMAGE" FAMILIAR_NODE_IMAGE="$FAMILIAR_NODE_IMAGE" \
  "${COMPOSE[@]}" -p "$project-sandbox" -f docker-compose.yml -f docker-compose.sandbox.yml config) || die "compose rejects docker-compose.sandbox.yml"
for expected in '/var/run/docker.sock' "$work/data" 'FAMILIAR_DATA_DIR' 'familiar-sandbox:latest' 'service_completed_successfully' "$docker_gid"; do
  echo "$sandbox_config" | grep -qF -- "$expected" || die "the merged sandbox config lacks $expected"
done
say "the sandbox override mounts the socket, gives data its host path ($work/data) and builds familiar-sandbox:latest"

phase "compose stop (SIGTERM through init) and the exit code"
compose stop -t 30 familiar >/dev/null 2>&1 || die "compose stop failed"
code=$(docker inspect -f '{{.State.ExitCode}}' "$container")
docker logs "$container" 2>&1 | grep -q '"msg":"stopped"' || { docker logs "$container" 2>&1 | tail -n 20 >&2; die "no clean shutdown in the log"; }
[ "$code" = 0 ] || die "the daemon exited $code on SIGTERM"
say "stopped, exit code $code"

phase "compose down -v"
compose down -v --remove-orphans --timeout 30 >/dev/null 2>&1 || die "compose down failed"
started=0
! docker inspect "$container" >/dev/null 2>&1 || die "the container is still there after down"

say "OK: ${COMPOSE[*]} builds $TAG, becomes healthy, answers status and doctor, runs as uid 1000 with unless-stopped, stops with 0 (total $((SECONDS - phase_start))s)"
