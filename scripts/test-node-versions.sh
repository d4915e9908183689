#!/usr/bin/env bash
# Runs the tests that depend on the Node release under each current LTS release besides the machine's own (CI runs the
# whole suite on that one): the official Node binaries, from the npm registry (`npx -y node@22`), each run with its
# own node first on PATH, so the daemons and commands the tests spawn run on it too.
#
# better-sqlite3 needs no rebuild: version 13 (Node 22 and 24) ships Node-API binaries that every release from 22.14
# loads; the machine's Node 20 uses better-sqlite3 12 (`better-sqlite3-node20`), built at install (src/db/sqlite.ts).
#
# The subset, and why (the whole suite takes ~8 minutes per release; CI has ~10 in all): what changes between Node
# releases is the native module (SQLite: database, migrations, crash and kill -9 recovery, backup),
# the runtime's APIs the daemon leans on (fs.watch for the memory folder, the time zone database and ICU, child
# processes, the V8 heap flags, module loading of the bundled command line: start, ask, status, tools list) and
# the agent loop over HTTP (fetch/undici in the LLM client). The channels, mail, Docker and browser suites exercise
# the same runtime through the same paths and stay on the machine's release; so does the daemon lock's test (a minute
# of waiting on its own, and the lock is SQLite's, which the crash tests hold and break too).
#
# Usage: bash scripts/test-node-versions.sh [22 24]   (after `npm install` and `npm run build`)
set -euo pipefail
cd "$(dirname "$0")/.."

SUBSET=(
  test/db test/ops/crash.test.ts test/ops/backup.test.ts test/ops/heap.test.ts
  test/scheduler/kill.test.ts test/memory test/lib test/agent/agent.test.ts
  test/cli/cli.test.ts test/cli/status.test.ts
)
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(22 24)

for version in "${VERSIONS[@]}"; do
  node_bin="$(npx -y "node@${version}" -p process.execPath)"
  [ -x "$node_bin" ] || { echo "node ${version}: no binary from the npm registry (got '${node_bin}')" >&2; exit 1; }
  echo "== Node $("$node_bin" --version): ${SUBSET[*]}"
  PATH="$(dirname "$node_bin"):$PATH" "$node_bin" node_modules/vitest/vitest.mjs run "${SUBSET[@]}"
done
