#!/usr/bin/env bash
# Session forty's call, against main (d40cc03), all at 2x1024 first (bits after 3 updates, then A/B):
# - latch-lower-intervals{apart-kinds=...}: round-robin intervals holding tasks of the named kinds run as their
#   staged kernels (round thirty-nine's untraced traces: scatter_add_rows intervals 11.5 us in @latch_main
#   against 5.5 us staged). Variants sk (scatter_add_rows) and rows (scatter_add_rows, attention_lse, rmsnorm,
#   softmax, topk), chained base -> sk -> rows;
# - sa: the scatter's flush loads the rows of 4 matches together before adding them in order
#   (bench/results/2026-12-08-scatter-matches-ahead.patch; today each match waits one round trip), same bits
#   expected, with the scatter GPU checks;
# - bu: task.bucket issuing 8 steps' loads together (bench/results/2026-12-08-bucket-steps-ahead.patch), same
#   bits expected, with its GPU checks;
# then the faster ones at 32x1024 with the time left.
# From the bundle's root: LIMIT_S=... timeout ... bash .bundle/gpu-s40.sh > $OUT/log 2>&1, carrying .bundle,
# made on main by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh sk 'latch-lower-intervals{apart-kinds=scatter_add_rows}'
#   sh bench/variant.sh rows 'latch-lower-intervals{apart-kinds=scatter_add_rows,attention_lse,rmsnorm,softmax,topk}'
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,bucket,bucket-wide,bucket-many,tinymoe-small \
#     PATCHES=bench/results/2026-12-08-bucket-steps-ahead.patch sh bench/base-bundle.sh HEAD .bundle/bu
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,scatter-add-rows,scatter-add-rows-wide,scatter-add-rows-passes,scatter-add-rows-flushes,tinymoe-small \
#     PATCHES=bench/results/2026-12-08-scatter-matches-ahead.patch sh bench/base-bundle.sh HEAD .bundle/sa
#   cp bench/results/2026-12-08-gpu-s40.sh .bundle/gpu-s40.sh; rm -rf .bundle/bin .bundle/*/bin
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
left() { echo $((${LIMIT_S:-550} - ($(date +%s) - start))); }
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
echo "== apart-kinds: main -> sk -> rows"
bash bench/chain.sh -s 2x1024:3 .:base .:sk .:rows | tee "$OUT/apart.txt"
echo "== scatter matches ahead against main"
bash bench/chain.sh -s 2x1024:5 . sa | tee "$OUT/sa.txt"
echo "== bucket steps ahead against main"
bash bench/chain.sh -s 2x1024:5 . bu | tee "$OUT/bu.txt"
echo "== checks (sa), $(left) s left"
(cd sa && python3 checks/run_checks.py --only \
  scatter-add-rows,scatter-add-rows-wide,scatter-add-rows-passes,scatter-add-rows-flushes,tinymoe-small \
  --checks compare,grad,loss100,determinism 2>&1 | tee "$OUT/sa-checks.txt" | grep -v "^PASS" | tail -8)
echo "== checks (bu), $(left) s left"
(cd bu && python3 checks/run_checks.py --only bucket,bucket-wide,bucket-many,tinymoe-small \
  --checks compare,grad,loss100,determinism 2>&1 | tee "$OUT/bu-checks.txt" | grep -v "^PASS" | tail -8)
date -u
echo "== at 32x1024, $(left) s left"
[ "$(left)" -gt 120 ] && timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 . sa
[ "$(left)" -gt 120 ] && timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 .:base .:rows
date -u
