#!/usr/bin/env bash
# Session thirty-nine's call: two branches against main at 2x1024 (bits after 3 updates, A/B 5 rounds),
# each with its GPU checks: rn2, the rmsnorm_grad rows (bench/results/2026-12-07-rmsnorm-grad-rows.patch),
# and gks, task.grouped_matmul split in k (bench/results/2026-12-07-grouped-k-slices.patch: TinyMoE 2x1024's
# down-projections 320 tiles of k 512 in place of 160 of k 1024; 32x1024 unchanged); then bench/run.sh at
# 2x1024 on main with what is left (its trace is the per-interval picture for the next change), and rn2 at
# 32x1024 if time remains. From the bundle's root:
#   LIMIT_S=... timeout ... bash .bundle/gpu-s39.sh > $OUT/log 2>&1, carrying .bundle, made on main by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   git checkout -b rn2 && git am bench/results/2026-12-07-rmsnorm-grad-rows.patch && git checkout -
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,tinymoe-small,rmsnorm-grad,rmsnorm-grad-odd,rmsnorm-grad-wide,norm-prologues \
#     sh bench/base-bundle.sh rn2 .bundle/rn2
#   git checkout -b gks && git am bench/results/2026-12-07-grouped-k-slices.patch && git checkout -
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,tinymoe-small,tinymoe-2x512,grouped-matmul-split-bf16,grouped-matmul-bf16,grouped-matmul-transposed-bf16 \
#     sh bench/base-bundle.sh gks .bundle/gks
#   sh bench/variant.sh tt 'latch-lower-intervals{trace-tiles=true}'
#   sh bench/variant.sh mc1 'latch-lower-intervals{min-ctas-per-sm=1}'   (one CTA per SM, no 128-register cap)
#   rm -rf .bundle/programs/tinymoe-32x1024-base .bundle/programs/tinymoe-32x1024-mc1
#   git checkout -b sd256 (main with LATCH_SPLIT_MIN_DEPTH 256 in dialects/schedule.h) && git checkout -
#   PROGRAMS=tinymoe-2x1024 sh bench/base-bundle.sh sd256 .bundle/sd256
#   cp bench/results/2026-12-07-gpu-s39.sh .bundle/gpu-s39.sh
# First the tile records of main at 2x1024 (trace-tiles build: not for timing): which tasks' tiles take the
# most time, and how long each kind's tiles run.
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
left() { echo $((${LIMIT_S:-550} - ($(date +%s) - start))); }
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for b in . rn2 gks sd256; do (cd $b && sh build-latch-run.sh . >/dev/null) & done; wait
echo "== tile records of main, 2x1024"
bin/latch-run programs/tinymoe-2x1024-tt/prog.ptx --steps 3 --init 1 --random-inputs 2 --trace "$OUT/tt-2x1024.json" \
  --trace-slowest 60 2>&1 | tail -64
python3 bench/compare_traces.py "$OUT/tt-2x1024.json" "$OUT/tt-2x1024.json" --kinds 16 2>&1 | tail -22
echo "== main at 2x1024, persistent against staged, interval by interval"
for mode in persistent staged; do
  bin/latch-run programs/tinymoe-2x1024/prog.ptx --mode=$mode --steps 5 --init 1 --random-inputs 2 --trace "$OUT/$mode-2x1024.json" \
    2>&1 | grep -E "median|error" | head -2
done
python3 bench/compare_traces.py "$OUT/staged-2x1024.json" "$OUT/persistent-2x1024.json" --top 25 2>&1 | tail -40
echo "== rn2 against main"
bash bench/chain.sh -s 2x1024:5 . rn2 | tee "$OUT/rn2.txt"
echo "== gks against main"
bash bench/chain.sh -s 2x1024:5 . gks | tee "$OUT/gks.txt"
echo "== one CTA per SM against two, 2x1024 (last measured in round nine: 1.097)"
bash bench/chain.sh -s 2x1024:3 .:base .:mc1
echo "== products split down to 256-deep slices (the 64-tile products in 2 slices) against main, 2x1024"
bash bench/chain.sh -s 2x1024:3 . sd256
date -u
echo "== checks (rn2)"
(cd rn2 && python3 checks/run_checks.py --only \
  rmsnorm-grad,rmsnorm-grad-odd,rmsnorm-grad-wide,norm-prologues,tinymoe-small --checks compare,grad,loss100,determinism \
  2>&1 | tee "$OUT/rn2-checks.txt" | grep -v "^PASS" | tail -8)
echo "== checks (gks)"
(cd gks && python3 checks/run_checks.py --only \
  grouped-matmul-split-bf16,grouped-matmul-bf16,grouped-matmul-transposed-bf16,tinymoe-small,tinymoe-2x512 \
  --checks compare,grad,loss100,determinism 2>&1 | tee "$OUT/gks-checks.txt" | grep -v "^PASS" | tail -12)
date -u
echo "== tile records of main, 32x1024"
timeout 120 bin/latch-run programs/tinymoe-32x1024-tt/prog.ptx --steps 2 --init 1 --random-inputs 2 --trace /tmp/tt-32x1024.json \
  --trace-slowest 60 2>&1 | tail -64
echo "== the benchmark at 2x1024 on main, $(left) s left"
[ "$(left)" -gt 150 ] && timeout $(($(left) - 10)) bench/run.sh --shapes 2x1024 --budget-s $(($(left) - 40))
date -u
echo "== rn2 at 32x1024, $(left) s left"
[ "$(left)" -gt 100 ] && timeout $(($(left) - 5)) bash bench/chain.sh -s 32x1024:2 . rn2
date -u
