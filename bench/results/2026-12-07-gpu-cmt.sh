#!/usr/bin/env bash
# Session thirty-five's third call, on main with balance by tile cost: the tile counter from waves of 500
# tiles (the head's 512-tile products and rmsnorm_grad's 576 would take tickets) and from 900 (the grouped
# products' 641-833 tiles would run round robin) against the default 600, then the benchmark table with
# the time left; and products split down to 256 deep (LATCH_SPLIT_MIN_DEPTH, bench/results/2026-12-07-split256.patch:
# the attention's 64-tile products of k = 512 in 2 slices) against main; and grid barriers by red.release
# (latch-lower-intervals{barrier-red=true}) against the default, bits and A/B at both sizes.
# From the bundle's root: timeout 470 bash .bundle/gpu-cmt.sh (LIMIT_S=S: S seconds in all, SD_ROUNDS=N), carrying .bundle, made by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh cmt500 'latch-lower-intervals{counter-min-tiles=500}'
#   sh bench/variant.sh cmt900 'latch-lower-intervals{counter-min-tiles=900}'
#   sh bench/variant.sh red 'latch-lower-intervals{barrier-red=true}'
#   sh bench/variant.sh tt 'latch-lower-intervals{trace-tiles=true}'
#   PATCHES=bench/results/2026-12-07-split256.patch PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,matmul-split-bf16,tinymoe-small \
#     sh bench/base-bundle.sh HEAD .bundle/sd256
#   cp bench/results/2026-12-07-gpu-cmt.sh .bundle/gpu-cmt.sh
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
sh build-latch-run.sh . >/dev/null
echo "== A/B split 256 deep against main, 2x1024 (its 32x1024 PTX is main's)"
bash bench/ab.sh . sd256 "${SD_ROUNDS:-5}" programs/tinymoe-2x1024/prog.ptx
echo "== checks (sd256)"
(cd sd256 && python3 checks/run_checks.py --only matmul-split-bf16,tinymoe-small --checks compare,grad,determinism 2>&1 | grep -v "^PASS" | tail -6)
echo "== barrier-red: bits after 3 updates at 2x1024, then A/B at both sizes"
bash bench/chain.sh -s 2x1024:5,32x1024:3 .:base .:red
date -u
echo "== A/B counter-min-tiles 500 and 900 against 600, 2x1024"
bash bench/ab.sh . . 3 programs/tinymoe-2x1024-base/prog.ptx=programs/tinymoe-2x1024-cmt500/prog.ptx \
  programs/tinymoe-2x1024-base/prog.ptx=programs/tinymoe-2x1024-cmt900/prog.ptx
date -u
echo "== tile records of main with balance, 2x1024 (trace-tiles build: not for timing)"
bin/latch-run programs/tinymoe-2x1024-tt/prog.ptx --steps 5 --init 1 --random-inputs 2 --trace "$OUT/tt-2x1024.json" \
  --trace-slowest 30 2>&1 | tail -45
python3 bench/busiest_ctas.py "$OUT/tt-2x1024.json" --top 12 2>&1 | head -150
date -u
left=$((${LIMIT_S:-460} - ($(date +%s) - start)))
echo "== the benchmark (main), $left s left"
[ $left -gt 120 ] && timeout $((left - 10)) bench/run.sh --budget-s $((left - 30))
date -u
