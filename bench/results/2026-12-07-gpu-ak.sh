#!/usr/bin/env bash
# Session thirty-eight's first call: latch-lower-intervals{attention-kernels} (the four attention-gradient
# intervals of TinyMoE 2x1024 as kernels of their own between five cooperative parts of @latch_main, one CUDA
# graph per update) against main at 2x1024 (bits and A/B; at 32x1024 the waves are counted and the program
# is unchanged), then session thirty-seven's call (bench/results/2026-12-07-gpu-rn2.sh): the rmsnorm_grad
# rows branch rn2 against main, solo-attention against main, rn2's checks, and bench/run.sh with the time
# left. From the bundle's root: LIMIT_S=550 timeout 560 bash .bundle/gpu-ak.sh > $OUT/log 2>&1, carrying
# .bundle, made as gpu-rn2.sh says and then
#   sh bench/variant.sh ak 'latch-lower-intervals{attention-kernels=true}'
#   cp runtime/*.[ch] runtime/*.def .bundle/src/runtime/ && cp tools/latch-run.c .bundle/src/tools/
#   git branch akon (main with attention-kernels on by default)
#   PROGRAMS=tinymoe-small,tinymoe-bthd,tinymoe-2x512,attention-grad,attention-grad-bf16,attention-grad-long \
#     sh bench/base-bundle.sh akon .bundle/akon
#   cp bench/results/2026-12-07-gpu-ak.sh .bundle/gpu-ak.sh
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
sh build-latch-run.sh . >/dev/null
echo "== attention-kernels against main at 2x1024"
bin/latch-run programs/tinymoe-2x1024-ak/prog.ptx --steps 2 --init 1 --random-inputs 2 2>&1 | grep -E "mode|error|median" | head -5
bash bench/chain.sh -s 2x1024:5 .:base .:ak
date -u
if [ -d akon ]; then
  echo "== checks (akon: attention-kernels on by default)"
  (cd akon && sh build-latch-run.sh . >/dev/null && python3 checks/run_checks.py --only \
    tinymoe-small,tinymoe-bthd,tinymoe-2x512,attention-grad,attention-grad-bf16,attention-grad-long \
    --checks compare,grad,loss100,determinism 2>&1 | grep -v "^PASS" | tail -8)
  date -u
fi
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
