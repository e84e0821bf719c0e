#!/bin/sh
# memory-report.sh BUILD_DIR - the figures of docs/memory.md: for TinyMoE at 2 x 1024 and 32 x 1024, the
# intervals before and after phase fusion, arena bytes against the lower bound with each memory rule,
# and the time of the whole pipeline from the forward program (latch-opt --stats).
set -eu
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %-34s %9s %9s %14s %14s %7s %9s\n' tokens rules before after arena_bytes lower_bound ratio total_ms
for shape in "2 1024" "32 1024"; do
  set -- $shape
  "$build/latch-gen" tinymoe --batch "$1" --seq "$2" -o "$work/fwd.mlir"
  for rules in none "recompute=norm" "recompute=swiglu" "recompute=cheap" "recompute=norm,swiglu" \
               "recompute=norm,swiglu absorbed=true"; do
    memory=""
    [ "$rules" = none ] || memory="latch-memory-rules{$rules},"
    pipeline="builtin.module(latch-train,${memory}latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena)"
    "$build/latch-opt" "$work/fwd.mlir" --pass-pipeline="$pipeline" --stats="$work/stats.json" -o "$work/out.mlir"
    before=$(grep -o 'interval.intervals_before = [0-9]*' "$work/out.mlir" | head -1 | grep -o '[0-9]*$')
    after=$(grep -o 'interval.intervals_after = [0-9]*' "$work/out.mlir" | head -1 | grep -o '[0-9]*$')
    python3 - "$work/stats.json" "$1x$2" "$rules" "$before" "$after" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
total = sum(p["ms"] for p in s["passes"])
a, lb = s["arena_bytes"], s["arena_lower_bound_bytes"]
print(f"{sys.argv[2]:<10} {sys.argv[3]:<34} {sys.argv[4]:>9} {sys.argv[5]:>9} {a:>14,} {lb:>14,} {a/lb:7.3f} {total:9.0f}")
PY
  done
done
