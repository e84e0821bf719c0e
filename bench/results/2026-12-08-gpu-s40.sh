#!/usr/bin/env bash
# Session forty's call, against main, all at 2x1024 first (bits after 3 updates, then A/B):
# - latch-lower-intervals{apart-kinds=...}: round-robin intervals holding tasks of the named kinds run as their
#   staged kernels (round thirty-nine's untraced traces: scatter_add_rows intervals 11.5 us in @latch_main
#   against 5.5 us staged). Variants sk (scatter_add_rows) and rows (scatter_add_rows, attention_lse, rmsnorm,
#   softmax, topk) and wide (those and gather_rows, bucket, rmsnorm_grad, attention_stats_from_lse, softmax_grad,
#   cross_entropy_with_stats: 107 launches), chained base -> sk -> rows -> wide (round twenty-six: in
#   @latch_main such tiles start on code fetched from memory, which a kernel's launch brings in), and code
#   (by number: the 51 intervals of fewer than 300 tiles whose bodies hold at least 4 KB of SASS,
#   `bench/code_sizes.py PROG.ptx --apart-over 4 --round-robin-below 300`; 101 launches);
# - sa: the scatter's flush loads the rows of 4 matches together before adding them in order, and each chunk
#   of indices loads while the chunk before is placed (bench/results/2026-12-08-scatter-matches-ahead.patch;
#   today each match and each chunk waits one round trip), same bits expected, with the scatter GPU checks;
# - ce: the cross-entropy's row statistics load each group of 8 columns per lane during the group before
#   (bench/results/2026-12-08-cross-entropy-groups-ahead.patch), same bits expected, with its GPU checks;
# - bu: task.bucket issuing 8 steps' loads together (bench/results/2026-12-08-bucket-steps-ahead.patch), same
#   bits expected, with its GPU checks;
# then the faster ones at 32x1024 with the time left.
# From the bundle's root: LIMIT_S=... timeout ... bash .bundle/gpu-s40.sh > $OUT/log 2>&1, carrying .bundle,
# made on main by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh sk 'latch-lower-intervals{apart-kinds=scatter_add_rows}'
#   sh bench/variant.sh rows 'latch-lower-intervals{apart-kinds=scatter_add_rows,attention_lse,rmsnorm,softmax,topk}'
#   sh bench/variant.sh wide 'latch-lower-intervals{apart-kinds=scatter_add_rows,attention_lse,rmsnorm,softmax,topk,gather_rows,bucket,rmsnorm_grad,attention_stats_from_lse,softmax_grad,cross_entropy_with_stats}'
#   sh bench/variant.sh code 'latch-lower-intervals{apart-intervals=1,2,4,6,8,9,15,17,19,20,22,24,26,27,33,35,37,38,40,42,44,45,51,53,55,56,58,60,62,63,71,73,75,79,86,88,89,94,96,104,107,112,114,122,125,130,132,140,143,150,151}'
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,bucket,bucket-wide,bucket-many,tinymoe-small \
#     PATCHES=bench/results/2026-12-08-bucket-steps-ahead.patch sh bench/base-bundle.sh HEAD .bundle/bu
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,scatter-add-rows,scatter-add-rows-wide,scatter-add-rows-passes,scatter-add-rows-flushes,tinymoe-small \
#     PATCHES=bench/results/2026-12-08-scatter-matches-ahead.patch sh bench/base-bundle.sh HEAD .bundle/sa
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,cross-entropy,cross-entropy-wide,cross-entropy-stats,tinymoe-small \
#     PATCHES=bench/results/2026-12-08-cross-entropy-groups-ahead.patch sh bench/base-bundle.sh HEAD .bundle/ce
#   rm -rf .bundle/programs/tinymoe-32x1024-sk .bundle/programs/tinymoe-32x1024-wide .bundle/programs/tinymoe-32x1024-code
#   sh bench/fatbin.sh .bundle .bundle/sa .bundle/ce .bundle/bu   (about 3 minutes: no JIT in the call)
#   cp bench/results/2026-12-08-gpu-s40.sh .bundle/gpu-s40.sh; cp bench/results/2026-12-08-gpu-s40b.sh .bundle/gpu-s40b.sh
#   rm -rf .bundle/bin .bundle/*/bin
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
left() { echo $((${LIMIT_S:-550} - ($(date +%s) - start))); }
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
echo "== apart-kinds: main -> sk -> rows -> wide -> code"
bash bench/chain.sh -s 2x1024:3 .:base .:sk .:rows .:wide .:code | tee "$OUT/apart.txt"
for v in sa ce bu; do
  echo "== $v against main, $(left) s left"
  bash bench/chain.sh -s 2x1024:5 . $v | tee "$OUT/$v.txt"
done
check() { # BUNDLE PROGRAMS
  echo "== checks ($1), $(left) s left"
  [ "$(left)" -gt 40 ] && (cd "$1" && timeout $(($(left) - 20)) python3 checks/run_checks.py --only "$2" \
    --checks compare,grad,loss100,determinism 2>&1 | tee "$OUT/$1-checks.txt" | grep -v "^PASS" | tail -8)
}
check sa scatter-add-rows,scatter-add-rows-wide,scatter-add-rows-passes,scatter-add-rows-flushes,tinymoe-small
check ce cross-entropy,cross-entropy-wide,cross-entropy-stats,tinymoe-small
check bu bucket,bucket-wide,bucket-many,tinymoe-small
date -u
