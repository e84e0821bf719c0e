#!/bin/sh
# demo.sh BUILD_DIR - runs Latch's default pipeline over the example programs and shows each pass's IR.
set -eu
build=${1:-build}
here=$(dirname "$0")
pipeline='builtin.module(latch-verify,canonicalize,cse)'
for program in "$here"/mlp.mlir; do
  echo "== $program"
  echo "== pipeline: $pipeline"
  "$build/latch-opt" --pass-pipeline="$pipeline" --print-ir-after-all "$program" -o /dev/null 2>&1
done
