#!/usr/bin/env bash
# Verifies the Dockerfile end to end on this machine: build the image, run `familiar doctor` in it,
# start the daemon and wait until Docker's HEALTHCHECK (familiar status --ready -> /readyz) says
# healthy, read `familiar status`, check it runs as uid 1000 without dev dependencies, then stop it
# with SIGTERM and expect exit code 0. The LLM is a tiny fake in a second container on a private
# network, so doctor's LLM check really talks HTTP with a key. Not part of `npm test` (minutes).
#
# Usage: scripts/verify-docker-image.sh [--ref GIT_REF]
#   --ref REF   build from `git archive REF` instead of the working tree (the working tree's Dockerfile
#               and .dockerignore are used when REF has none); useful while others' work is uncommitted.
# Base images: NODE_IMAGE / BUILD_IMAGE when set; else the official node:<major>-bookworm(-slim) when
# present locally; else (no registry here) the offline ones from scripts/build-node-base-image.sh.
# Environment: TAG (default familiar:verify), KEEP=1 keeps the containers and network for a look.
set -euo pipefail

TAG=${TAG:-familiar:verify}
NAME=familiar-verify
LLM_NAME=familiar-verify-llm
NETWORK=familiar-verify
REF=
while [ $# -gt 0 ]; do
  case "$1" in
    --ref) REF=${2:?--ref needs a git ref}; shift 2 ;;
    *) echo "usage: $0 [--ref GIT_REF]" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
say() { echo "verify-docker-image: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }
phase_start=$SECONDS
phase() { say "$1 ($((SECONDS - phase_start))s since start)"; }

bash "$here/setup-docker.sh"

# shellcheck source=base-images.sh
. "$here/base-images.sh"
images=$(base_images "${BUILD_IMAGE:-}" "${NODE_IMAGE:-}")
read -r BUILD_IMAGE NODE_IMAGE <<<"$images"

work=$(mktemp -d /tmp/familiar-verify.XXXXXX)
cleanup() {
  if [ "${KEEP:-0}" != 1 ]; then
    docker rm -f "$NAME" "$LLM_NAME" >/dev/null 2>&1 || true
    docker network rm "$NETWORK" >/dev/null 2>&1 || true
    rm -rf "$work"
  else
    say "KEEP=1: left $NAME, $LLM_NAME, network $NETWORK and $work"
  fi
}
trap cleanup EXIT

context=$repo
if [ -n "$REF" ]; then
  context=$work/context
  mkdir -p "$context"
  git -C "$repo" archive "$REF" | tar -x -C "$context"
  for file in Dockerfile .dockerignore; do
    [ -f "$context/$file" ] || cp "$repo/$file" "$context/$file"
  done
  say "building from git $REF ($(git -C "$repo" rev-parse --short "$REF"))"
fi

phase "docker build -t $TAG (BUILD_IMAGE=$BUILD_IMAGE NODE_IMAGE=$NODE_IMAGE)"
build_started=$SECONDS
# The lock's hash on the image: .ci/run reads it to know whether the dependency layer is cached (a minute) or not.
docker build --build-arg "BUILD_IMAGE=$BUILD_IMAGE" --build-arg "NODE_IMAGE=$NODE_IMAGE" \
  --label "familiar.lock=$(sha256sum "$context/package-lock.json" | cut -c1-16)" -t "$TAG" "$context" >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; die "docker build failed (log above)"; }
say "built $TAG in $((SECONDS - build_started))s, $(docker image inspect -f '{{.Size}}' "$TAG" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

phase "checking the image: user, entrypoint, no dev dependencies"
[ "$(docker image inspect -f '{{.Config.User}}' "$TAG")" = "1000:1000" ] || die "the image does not run as 1000:1000"
[ "$(docker image inspect -f '{{json .Config.Entrypoint}}' "$TAG")" = '["node","dist/main.js"]' ] || die "unexpected ENTRYPOINT"
docker run --rm --entrypoint sh "$TAG" -c 'test "$(id -u)" = 1000 && node -e "new (require(+process.versions.napi >= 10 ? \"better-sqlite3\" : \"better-sqlite3-node20\"))(\":memory:\")" && ! test -e node_modules/typescript && ! test -e node_modules/vitest && ! test -e src && test -f config.example.yaml && test -d skills && test -f memory/profile.md && test -w data && test "$(stat -c %a data)" = 700' \
  || die "image layout: expected uid 1000, SQLite loading (better-sqlite3 13, or 12 on Node 20), no typescript/vitest/src, config.example.yaml, skills/, memory/, writable private data/ (0700)"

phase "fake LLM and a config in $work"
docker network create "$NETWORK" >/dev/null
# The fake answers GET /v1/models for the right key only: doctor's LLM check is real HTTP.
docker run -d --name "$LLM_NAME" --network "$NETWORK" --entrypoint node "$TAG" -e '
  require("node:http").createServer((req, res) => {
    const ok = req.headers.authorization === "Bearer sk-verify-0123456789";
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(JSON.stringify(ok ? { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 0, owned_by: "fake" }] } : { error: { message: "bad key" } }));
  }).listen(8080);' >/dev/null
mkdir -p "$work/data" "$work/memory" "$work/skills"
cp "$repo/memory/profile.md" "$work/memory/"
cat >"$work/config.yaml" <<EOF
llm:
  base_url: http://$LLM_NAME:8080/v1
  api_key: \${OPENAI_API_KEY}
  model: gpt-4o-mini
http:
  listen: \${FAMILIAR_HTTP_LISTEN}
EOF
chown -R 1000:1000 "$work/data" "$work/memory" "$work/skills"
# As familiar init and the daemon make it: the person's alone (doctor warns otherwise, checked below).
chmod 700 "$work/data"
run_args=(--network "$NETWORK" -e OPENAI_API_KEY=sk-verify-0123456789
  -v "$work/config.yaml:/app/config.yaml:ro" -v "$work/data:/app/data" -v "$work/memory:/app/memory" -v "$work/skills:/app/skills")

phase "docker run $TAG doctor"
set +e
doctor_out=$(docker run --rm "${run_args[@]}" "$TAG" doctor 2>&1)
doctor_code=$?
set -e
echo "$doctor_out" | sed 's/^/  | /' >&2
[ "$doctor_code" -eq 0 ] || die "familiar doctor exited $doctor_code"
echo "$doctor_out" | grep -q 'database: integrity ok' || die "doctor did not check the database"
! echo "$doctor_out" | grep -q 'by others' || die "doctor says other accounts can reach the person's data"
echo "$doctor_out" | grep -q '✓ llm: gpt-4o-mini' || die "doctor's LLM check did not pass"

phase "docker run -d $TAG (start) and wait for the HEALTHCHECK"
# Only the timing is overridden (the image's 30 s interval would make this wait 30 s); the check is the image's.
docker run -d --name "$NAME" "${run_args[@]}" --health-interval=1s --health-start-period=30s "$TAG" >/dev/null
health=starting
for _ in $(seq 1 120); do
  health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$NAME")
  [ "$health" = healthy ] && break
  [ "$(docker inspect -f '{{.State.Running}}' "$NAME")" = true ] || break
  sleep 0.5
done
if [ "$health" != healthy ]; then
  docker logs "$NAME" 2>&1 | tail -n 30 >&2
  docker inspect -f '{{json .State.Health}}' "$NAME" >&2 || true
  die "the container did not become healthy (state: $health)"
fi
say "healthy after $(docker inspect -f '{{.State.StartedAt}}' "$NAME") -> $(date -u +%H:%M:%S)"

phase "familiar status inside the running container"
docker exec "$NAME" node dist/main.js status | sed 's/^/  | /' >&2
docker exec "$NAME" node dist/main.js status --json | grep -q '"ready": true' || die "status does not say ready"

phase "docker stop (SIGTERM) and the exit code"
docker stop -t 30 "$NAME" >/dev/null
code=$(docker inspect -f '{{.State.ExitCode}}' "$NAME")
docker logs "$NAME" 2>&1 | grep -q '"msg":"stopped"' || { docker logs "$NAME" 2>&1 | tail -n 20 >&2; die "no clean shutdown in the log"; }
[ "$code" = 0 ] || die "the daemon exited $code on SIGTERM"

say "OK: $TAG builds, answers doctor, becomes healthy, reports status and stops with 0 (total $((SECONDS - phase_start))s)"
