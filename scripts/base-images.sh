# Sourced by scripts/verify-docker-image.sh and scripts/verify-compose.sh: which base images to build from.
# base_images BUILD NODE prints "BUILD_IMAGE NODE_IMAGE": the given ones when set (a given BUILD is kept);
# else the official node:<major>-bookworm(-slim) when both are in the engine; else (no registry) the offline
# ones, made by scripts/build-node-base-image.sh if missing (its output goes to stderr). The major version is
# NODE_MAJOR, default the Dockerfile's `ARG NODE_MAJOR`.
base_images() {
  local build=${1:-} node=${2:-} scripts major
  scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  major=${NODE_MAJOR:-$(sed -n 's/^ARG NODE_MAJOR=\([0-9][0-9]*\).*/\1/p' "$scripts/../Dockerfile")}
  if [ -z "$node" ] && docker image inspect "node:$major-bookworm-slim" >/dev/null 2>&1 && docker image inspect "node:$major-bookworm" >/dev/null 2>&1; then
    node=node:$major-bookworm-slim
    build=${build:-node:$major-bookworm}
  fi
  if [ -z "$node" ]; then
    NODE_MAJOR=$major bash "$scripts/build-node-base-image.sh" >&2
    node=familiar-node-base:$major
    build=${build:-familiar-node-build:$major}
  fi
  echo "${build:-node:$major-bookworm} $node"
}
