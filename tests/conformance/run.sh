#!/usr/bin/env bash
# The official MCP conformance suite against the fixture server
# (examples/conformance.rs) in each protocol version, and against the
# `toolschema` binary itself (open mode) for the scenarios any server must
# pass. Each run has its baseline of expected failures (baselines/*.yml):
# a new failure, or a baseline entry that starts passing, fails the run.
#
#   FIXTURE=target/debug/examples/conformance TOOLSCHEMA_BIN=target/debug/toolschema tests/conformance/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
: "${FIXTURE:?the fixture server binary (examples/conformance)}"
: "${TOOLSCHEMA_BIN:?the toolschema binary}"

npm ci --no-audit --no-fund --silent
node="$here/node_modules/.bin/node"
suite=("$node" "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js")
"$node" --version

# The servers' process ids, in a file: `start` runs in a command
# substitution's subshell, whose variables the script does not see.
pids="$(mktemp)"
cleanup() {
  while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$pids"
  rm -f "$pids"
}
trap cleanup EXIT

# Starts a server whose first line on stdout or stderr names its address;
# prints the MCP URL.
start() {
  local log
  log="$(mktemp)"
  "$@" >"$log" 2>&1 &
  echo $! >>"$pids"
  for _ in $(seq 1 100); do
    local url
    url="$(grep -o 'http://[0-9.:]*' "$log" | head -n 1 || true)"
    if [ -n "$url" ]; then
      echo "$url/mcp"
      return
    fi
    sleep 0.1
  done
  echo "the server did not start: $(cat "$log")" >&2
  exit 1
}

fixture="$(start "$FIXTURE" 127.0.0.1:0)"
binary="$(start "$TOOLSCHEMA_BIN" serve --open --bind 127.0.0.1:0)"
status=0
run() {
  local name="$1"
  shift
  echo "=== conformance: $name"
  if ! "${suite[@]}" server "$@" --expected-failures "baselines/$name.yml"; then
    status=1
  fi
}

run 2025-06-18 --url "$fixture" --spec-version 2025-06-18
run 2025-11-25 --url "$fixture" --requirements 2025-11-25
run 2026-07-28 --url "$fixture" --requirements 2026-07-28
for scenario in json-schema-2020-12 http-header-validation http-custom-header-server-validation server-sse-polling; do
  run "$scenario" --url "$fixture" --scenario "$scenario" --spec-version 2026-07-28
done
for scenario in tools-list dns-rebinding-protection http-header-validation server-stateless; do
  run "binary-$scenario" --url "$binary" --scenario "$scenario" --spec-version 2026-07-28
done
exit "$status"
