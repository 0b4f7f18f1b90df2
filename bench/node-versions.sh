#!/bin/bash
# Runs every benchmark without a Node 20/24 column of its own once on the Node first on PATH; one output file per bench in the directory given (bench/NODE-VERSIONS.md).
OUT=${1:?usage: bash bench/node-versions.sh <output dir> (run from the repo root, on the Node to measure)}; mkdir -p "$OUT"
run() { name=$1; shift; echo "== $name $(date +%T)"; timeout 600 "$@" > $OUT/$name.txt 2>$OUT/$name.err; echo "rc=$?"; }
run bounded npx ts-node --transpile-only bench/bounded.bench.ts 7
run policy-gate node -r ts-node/register/transpile-only bench/policy-gate.bench.ts 100000 3
run progress node -r ts-node/register/transpile-only bench/progress.bench.ts 50000 2000 3
run tracing node -r ts-node/register/transpile-only bench/tracing.bench.ts 100000 5 10000
run ui-stream npx ts-node --transpile-only bench/ui-stream.bench.ts 5 1000
run cancel node -r ts-node/register/transpile-only bench/cancel.bench.ts 3 40 200
run memory-query npx ts-node --transpile-only bench/memory-query.bench.ts
run model-stream npx ts-node --transpile-only -r ./bench/toolwright-alias.js bench/model-stream.bench.ts --rounds=5 --no-write
# mcp/run.ts also rewrites its table in bench/README.md: `git checkout bench/README.md` after.
run mcp npx ts-node --transpile-only bench/mcp/run.ts 3
run scale node bench/run.js --scale --no-write
run coherence npx ts-node --transpile-only bench/coherence.bench.ts
