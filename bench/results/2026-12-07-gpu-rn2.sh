#!/usr/bin/env bash
# Session thirty-seven's call left for the next session (the device time ran out): the rmsnorm_grad rows
# branch (bench/results/2026-12-07-rmsnorm-grad-rows.patch, three commits on 7705af3: the dw tile's inverse
# RMS a warp per two rows, its sums and parts 16 at a time, dx tiles of 16 rows only where the task then
# fits the grid) against main: bits after 3 updates and A/B at both sizes (round thirty-seven measured
# its first form, 16-row dx tiles everywhere, at 0.993 at 2x1024 and 1.004 at 32x1024), its checks
# (rmsnorm-grad, rmsnorm-grad-odd, rmsnorm-grad-wide, norm-prologues, tinymoe-small); then bench/run.sh on
# main with what is left of the call (no table since round thirty-five), with rn2's programs in place of
# main's where rn2 was faster at both sizes.
# From the bundle's root: LIMIT_S=550 timeout 560 bash .bundle/gpu-rn2.sh > $OUT/log 2>&1, carrying .bundle,
# made on main (7705af3 or later) by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   git checkout -b rn2 && git am bench/results/2026-12-07-rmsnorm-grad-rows.patch && git checkout -
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,tinymoe-small,rmsnorm-grad,rmsnorm-grad-odd,rmsnorm-grad-wide,norm-prologues \
#     sh bench/base-bundle.sh rn2 .bundle/rn2
#   sh bench/variant.sh solo 'latch-lower-intervals{solo-attention=true}'   (main af3c6cf or later)
#   cp bench/results/2026-12-07-gpu-rn2.sh .bundle/gpu-rn2.sh
# After rn2's checks, where the bundle has the solo variant: solo-attention against main at 2x1024 (bits and
# A/B; at 32x1024 the attention gradient's waves are counted, so it runs none solo).
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
sh build-latch-run.sh . >/dev/null
bash bench/chain.sh -s "${SHAPES:-2x1024:5,32x1024:3}" . rn2 | tee "$OUT/chain.txt"
echo "== checks (rn2)"
(cd rn2 && sh build-latch-run.sh . >/dev/null && python3 checks/run_checks.py --only \
  rmsnorm-grad,rmsnorm-grad-odd,rmsnorm-grad-wide,norm-prologues,tinymoe-small --checks compare,grad,loss100,determinism \
  2>&1 | grep -v "^PASS" | tail -8)
date -u
if [ -d programs/tinymoe-2x1024-solo ]; then
  bash bench/chain.sh -s 2x1024:5 .:base .:solo
  date -u
fi
faster=$(grep -c "new/base 0\." "$OUT/chain.txt")
if [ "$faster" -ge 2 ]; then
  echo "== rn2 faster at both sizes: the table with rn2's programs"
  for shape in 2x1024 32x1024; do rm -rf programs/tinymoe-$shape && cp -r rn2/programs/tinymoe-$shape programs/; done
else
  echo "== rn2 not faster at both sizes ($faster of 2): the table on main"
fi
left=$((${LIMIT_S:-550} - ($(date +%s) - start)))
echo "== the benchmark, $left s left"
[ $left -gt 150 ] && timeout $((left - 10)) bench/run.sh --budget-s $((left - 30))
date -u
