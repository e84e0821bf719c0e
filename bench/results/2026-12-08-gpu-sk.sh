#!/usr/bin/env bash
# Session thirty-nine's call left for the next session (the device time ran out), against main:
# - latch-lower-intervals{apart-kinds=...}: round-robin intervals holding tasks of the named kinds run as their
#   staged kernels (round thirty-nine's traces: scatter_add_rows, attention_lse, rmsnorm, softmax and topk tiles
#   about twice as long in @latch_main as staged). Variants sk (scatter_add_rows), fa (attention_lse) and rows
#   (all five kinds), bits and A/B at 2x1024;
# - bu: task.bucket issuing 8 steps' loads together (bench/results/2026-12-08-bucket-steps-ahead.patch; its
#   tiles were 10.6 us at 2x1024 and about 166 us at 32x1024, one dependent load per step), same bits
#   expected, with its GPU checks;
# then the faster ones at 32x1024 with the time left.
# From the bundle's root: LIMIT_S=... timeout ... bash .bundle/gpu-sk.sh > $OUT/log 2>&1, carrying .bundle,
# made on main by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh sk 'latch-lower-intervals{apart-kinds=scatter_add_rows}'
#   sh bench/variant.sh fa 'latch-lower-intervals{apart-kinds=attention_lse}'
#   sh bench/variant.sh rows 'latch-lower-intervals{apart-kinds=scatter_add_rows,attention_lse,rmsnorm,softmax,topk}'
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,bucket,bucket-wide,bucket-many,tinymoe-small \
#     PATCHES=bench/results/2026-12-08-bucket-steps-ahead.patch sh bench/base-bundle.sh HEAD .bundle/bu
#   cp bench/results/2026-12-08-gpu-sk.sh .bundle/gpu-sk.sh
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
left() { echo $((${LIMIT_S:-550} - ($(date +%s) - start))); }
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in sk fa rows; do
  echo "== apart-kinds variant $v against main"
  bash bench/chain.sh -s 2x1024:3 .:base .:$v | tee -a "$OUT/apart.txt"
done
date -u
echo "== bucket steps ahead against main"
bash bench/chain.sh -s 2x1024:5 . bu | tee "$OUT/bu.txt"
date -u
echo "== checks (bu)"
(cd bu && sh build-latch-run.sh . >/dev/null && python3 checks/run_checks.py --only \
  bucket,bucket-wide,bucket-many,tinymoe-small --checks compare,grad,loss100,determinism 2>&1 | grep -v "^PASS" | tail -8)
date -u
echo "== at 32x1024, $(left) s left"
[ "$(left)" -gt 150 ] && timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 . bu
[ "$(left)" -gt 150 ] && timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 .:base .:rows
date -u
