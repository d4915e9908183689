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
  test/db test/ops/backup.test.ts test/ops/heap.test.ts test/ops/code-cache.test.ts
  test/memory test/lib test/agent/agent.test.ts
  test/cli/cli.test.ts test/cli/status.test.ts
)
# kill -9 and crash recovery exercise SQLite's journal through better-sqlite3 13's one Node-API binary, which Node
# 22 and 24 load alike: they run on the newest release asked for (the Dockerfile's), not on each (a minute each).
CRASH=(test/ops/crash.test.ts test/scheduler/kill.test.ts)
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(22 24)
newest=${VERSIONS[$((${#VERSIONS[@]} - 1))]}

# The releases run side by side, each vitest with its two workers: 52 s here against 64 s one after the other (of CI's
# ten minutes). Each one's output is printed whole when it ends, in order.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for version in "${VERSIONS[@]}"; do
  node_bin="$(npx -y "node@${version}" -p process.execPath)"
  [ -x "$node_bin" ] || { echo "node ${version}: no binary from the npm registry (got '${node_bin}')" >&2; exit 1; }
  files=("${SUBSET[@]}")
  [ "$version" != "$newest" ] || files+=("${CRASH[@]}")
  { echo "== Node $("$node_bin" --version): ${files[*]}"
    PATH="$(dirname "$node_bin"):$PATH" "$node_bin" node_modules/vitest/vitest.mjs run "${files[@]}"
  } > "$logs/$version.log" 2>&1 &
  pids+=($!)
done
failed=0
for index in "${!VERSIONS[@]}"; do
  wait "${pids[$index]}" || failed=1
  cat "$logs/${VERSIONS[$index]}.log"
done
exit "$failed"
