#!/usr/bin/env bash
# Session thirty-six's second call: latch-fuse-phases{place-optimizer} (each task.adamw in the interval that its
# tiles lengthen least by the balance step's span model, the earliest on ties) against main: bits after 3
# updates and A/B at both sizes, a trace at 2x1024, tinymoe-small's checks with it on by default (pl/), the
# tile records of main at 2x1024 where the bundle has the tt variant (per-tile times of the products); then,
# only where it was faster at both sizes, the benchmark table with it on by default (pl's programs in
# place of main's); else it ends there. Where the bundle has the so variant (latch-split-optimizer after
# latch-fuse-phases: AdamW steps cut into tile ranges that fill idle CTAs), its bits and A/B against main come
# right after pl's.
# From the bundle's root: timeout 560 bash .bundle/gpu-pl.sh (SHAPES=2x1024:5,32x1024:2 and LIMIT_S=S for a short call), carrying .bundle, made by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh pl 'latch-fuse-phases{place-optimizer=true}'
#   PATCHES=bench/results/2026-12-07-place-optimizer-on.patch PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,tinymoe-small \
#     sh bench/base-bundle.sh HEAD .bundle/pl
#   sh bench/variant.sh tt 'latch-lower-intervals{trace-tiles=true}'   (optional: the tile records of main)
#   sh bench/variant.sh so 'latch-fuse-phases,latch-split-optimizer'   (optional: AdamW steps in tile ranges)
#   cp bench/results/2026-12-07-gpu-pl.sh .bundle/gpu-pl.sh
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
sh build-latch-run.sh . >/dev/null
bash bench/chain.sh -s "${SHAPES:-2x1024:5,32x1024:3}" .:base .:pl | tee "$OUT/chain.txt"
if [ -d programs/tinymoe-2x1024-so ]; then
  bash bench/chain.sh -s "${SHAPES:-2x1024:5,32x1024:3}" .:base .:so
  bin/latch-run programs/tinymoe-2x1024-so/prog.ptx --steps 5 --init 1 --random-inputs 2 \
    --trace "$OUT/trace-so.json" 2>&1 | grep -iE "median|wait" | head -3
fi
echo "== trace 2x1024 (pl)"
bin/latch-run programs/tinymoe-2x1024-pl/prog.ptx --steps 5 --init 1 --random-inputs 2 \
  --trace "$OUT/trace-pl.json" 2>&1 | grep -iE "median|wait" | head -3
echo "== checks (pl: place-optimizer on by default)"
(cd pl && python3 checks/run_checks.py --only tinymoe-small --checks compare,grad,loss100,determinism 2>&1 | grep -v "^PASS" | tail -6)
date -u
if [ -d programs/tinymoe-2x1024-tt ]; then
  echo "== tile records of main, 2x1024 (trace-tiles build: not for timing)"
  bin/latch-run programs/tinymoe-2x1024-tt/prog.ptx --steps 5 --init 1 --random-inputs 2 --trace "$OUT/tt-2x1024.json" \
    --trace-slowest 30 2>&1 | tail -45
  python3 bench/busiest_ctas.py "$OUT/tt-2x1024.json" --top 12 2>&1 | head -150
  date -u
fi
faster=$(grep -c "new/base 0\." "$OUT/chain.txt")
if [ "$faster" -ge 2 ]; then
  echo "== faster at both sizes: the table with place-optimizer on (pl's programs)"
  for shape in 2x1024 32x1024; do rm -rf programs/tinymoe-$shape && cp -r pl/programs/tinymoe-$shape programs/; done
else
  echo "== not faster at both sizes ($faster of 2): no table (the device time is kept for a later call)"
  exit 0
fi
left=$((${LIMIT_S:-550} - ($(date +%s) - start)))
echo "== the benchmark, $left s left"
[ $left -gt 150 ] && timeout $((left - 10)) bench/run.sh --budget-s $((left - 30))
date -u
