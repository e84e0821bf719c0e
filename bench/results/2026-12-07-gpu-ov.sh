#!/usr/bin/env bash
# Session thirty-six's first call: AdamW beside the attention gradients. ov: latch-fuse-phases{overlap-optimizer}
# (each task.adamw in the interval its tiles lengthen least when memory-bound tiles run beside compute-bound
# ones); ovc: ov plus latch-lower-intervals{overlap-classes} (the first half of the CTAs starts with a mixed
# wave's compute-bound tiles, the second half with its memory-bound ones, each class from a counter of its
# own). Bits after 3 updates and A/B base -> ov -> ovc, traces of both; then session thirty-five's parked
# experiments: products split down to 256 deep (sd256) against main, and barrier-red.
# From the bundle's root: timeout 560 bash .bundle/gpu-ov.sh, carrying .bundle, made by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh red 'latch-lower-intervals{barrier-red=true}'
#   sh bench/variant.sh ov 'latch-fuse-phases{overlap-optimizer=true}'
#   sh bench/variant.sh ovc 'latch-fuse-phases{overlap-optimizer=true}' 'latch-lower-intervals{overlap-classes=true}'
#   PATCHES=bench/results/2026-12-07-split256.patch PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,matmul-split-bf16,tinymoe-small \
#     sh bench/base-bundle.sh HEAD .bundle/sd256
#   cp bench/results/2026-12-07-gpu-ov.sh .bundle/gpu-ov.sh
cd "$(dirname "$0")" || exit 2
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
sh build-latch-run.sh . >/dev/null
bash bench/chain.sh -s 2x1024:5,32x1024:2 .:base .:ov .:ovc
echo "== traces 2x1024 (base, ov, ovc)"
for side in base ov ovc; do
  echo "-- $side"
  bin/latch-run programs/tinymoe-2x1024-$side/prog.ptx --steps 5 --init 1 --random-inputs 2 \
    --trace "$OUT/trace-$side.json" 2>&1 | grep -iE "median|wait|attention_grad|i9[0-4]\.|i7[78]\." | head -14
done
date -u
echo "== A/B split 256 deep against main, 2x1024"
bash bench/ab.sh . sd256 5 programs/tinymoe-2x1024/prog.ptx
echo "== checks (sd256)"
(cd sd256 && python3 checks/run_checks.py --only matmul-split-bf16,tinymoe-small --checks compare,grad,determinism 2>&1 | grep -v "^PASS" | tail -6)
date -u
echo "== barrier-red: bits after 3 updates at 2x1024, then A/B"
bash bench/chain.sh -s 2x1024:5 .:base .:red
date -u
