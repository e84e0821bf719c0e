#!/usr/bin/env bash
# Session thirty-eight's call: latch-lower-intervals{attention-kernels} against main at 2x1024 (bits after 3
# updates, A/B 5 rounds; at 32x1024 the attention gradient's waves are counted and the program is
# unchanged); the GPU checks of akon (main with the option on by default) on the programs with attention
# gradients; then bench/run.sh at 2x1024 with the time left, with main's program, or attention-kernels'
# (compiled with staged=true as well, so the same file serves the staged row) when it was faster with
# identical bits and clean checks (the check counted tinymoe-2x512's 5 known grad rows as failures, so the
# call's table ran on main's program). From the bundle's root:
#   LIMIT_S=... timeout ... bash .bundle/gpu-ak2.sh > $OUT/log 2>&1, carrying .bundle, made on main 9519ec5 by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh ak 'latch-lower-intervals{attention-kernels=true}'
#   git branch akon (main with attention-kernels on by default)
#   PROGRAMS=tinymoe-small,tinymoe-bthd,tinymoe-2x512,attention-grad,attention-grad-bf16,attention-grad-long \
#     sh bench/base-bundle.sh akon .bundle/akon
#   mkdir .bundle/programs/tinymoe-2x1024-akstaged and, into it, latch-opt programs/tinymoe-2x1024/source.mlir
#     --emit=ptx -o prog.ptx with latch-compile's passes and latch-lower-intervals{staged=true attention-kernels=true}
#   cp bench/results/2026-12-07-gpu-ak2.sh .bundle/gpu-ak2.sh
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
sh build-latch-run.sh . >/dev/null
echo "== attention-kernels against main at 2x1024"
bin/latch-run programs/tinymoe-2x1024-ak/prog.ptx --steps 2 --init 1 --random-inputs 2 2>&1 | grep -E "mode|error|median" | head -5
bash bench/chain.sh -s 2x1024:5 .:base .:ak | tee "$OUT/ak.txt"
date -u
echo "== checks (akon: attention-kernels on by default)"
(cd akon && sh build-latch-run.sh . >/dev/null && python3 checks/run_checks.py --only \
  tinymoe-small,tinymoe-bthd,tinymoe-2x512,attention-grad,attention-grad-bf16,attention-grad-long \
  --checks compare,grad,loss100,determinism 2>&1 | tee "$OUT/akon-checks.txt" | grep -v "^PASS" | tail -8)
date -u
if grep -q "new/base 0\." "$OUT/ak.txt" && grep -q " 0 differ" "$OUT/ak.txt" && ! grep -q "^FAIL" "$OUT/akon-checks.txt"; then
  echo "== attention-kernels faster, same bits, checks clean: the table with its program"
  cp programs/tinymoe-2x1024-akstaged/prog.ptx programs/tinymoe-2x1024-akstaged/prog.ptx.manifest.json programs/tinymoe-2x1024/
else
  echo "== the table with main's program"
fi
left=$((${LIMIT_S:-550} - ($(date +%s) - start)))
echo "== the benchmark at 2x1024, $left s left"
[ $left -gt 150 ] && timeout $((left - 10)) bench/run.sh --shapes 2x1024 --budget-s $((left - 30))
date -u
