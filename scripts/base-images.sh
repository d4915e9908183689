# Sourced by scripts/verify-docker-image.sh and scripts/verify-compose.sh: which base images to build from.
# base_images BUILD NODE prints "BUILD_IMAGE NODE_IMAGE": the given ones when set (a given BUILD is kept);
# else the official node:20-bookworm(-slim) when both are in the engine; else (no registry) the offline
# ones, made by scripts/build-node-base-image.sh if missing (its output goes to stderr).
base_images() {
  local build=${1:-} node=${2:-} scripts
  scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  if [ -z "$node" ] && docker image inspect node:20-bookworm-slim >/dev/null 2>&1 && docker image inspect node:20-bookworm >/dev/null 2>&1; then
    node=node:20-bookworm-slim
    build=${build:-node:20-bookworm}
  fi
  if [ -z "$node" ]; then
    bash "$scripts/build-node-base-image.sh" >&2
    node=familiar-node-base:20
    build=${build:-familiar-node-build:20}
  fi
  echo "${build:-node:20-bookworm} $node"
}
