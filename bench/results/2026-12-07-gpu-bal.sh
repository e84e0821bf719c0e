#!/usr/bin/env bash
# Session thirty-five's second call: balance by tile cost alone on main (bench/branches/ms-bc 0002-0004
# rebased onto main without merge-users, commit 086c6f9 of that session) against main, bits and A/B; then
# dataflow waits (latch-lower-intervals{dataflow=true}) against the default at both sizes; then each
# side's 2x1024 trace (barrier wait). From the bundle's root: timeout 560 bash .bundle/gpu-bal.sh, carrying
# .bundle, made on the build machine by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,tinymoe-small sh bench/base-bundle.sh 086c6f9 .bundle/bal
#   sh bench/variant.sh dataflow 'latch-lower-intervals{dataflow=true}'
#   cp bench/results/2026-12-07-gpu-bal.sh .bundle/gpu-bal.sh
cd "$(dirname "$0")" || exit 2
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:5,32x1024:3 . bal
echo "== checks (bal)"
(cd bal && python3 checks/run_checks.py --only tinymoe-small --checks compare,grad,loss100,determinism 2>&1 | grep -v "^PASS" | tail -6)
date -u
echo "== A/B dataflow"
bash bench/ab.sh . . 3 programs/tinymoe-2x1024-base/prog.ptx=programs/tinymoe-2x1024-dataflow/prog.ptx \
  programs/tinymoe-32x1024-base/prog.ptx=programs/tinymoe-32x1024-dataflow/prog.ptx
date -u
echo "== traces 2x1024 (main, bal)"
for side in main:. bal:bal; do
  b=${side#*:}
  "$b/bin/latch-run" "$b/programs/tinymoe-2x1024/prog.ptx" --steps 5 --init 1 --random-inputs 2 \
    --trace "$OUT/trace-${side%%:*}.json" 2>&1 | grep -iE "median|wait" | head -4
done
date -u
