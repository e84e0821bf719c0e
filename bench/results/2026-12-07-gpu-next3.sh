#!/usr/bin/env bash
# Session thirty-two's call: gpu-next2.sh with the branch weight-split first (ws/ = PROGRAMS=tinymoe-2x1024,
# tinymoe-32x1024,grouped-columns-bf16,grouped-matmul-transposed-bf16,grouped-matmul-weight-grad-bf16
# sh bench/base-bundle.sh weight-split .bundle/ws; its step is on main, .), then the
# scatter epilogue and the attention chain without base/ (32b4bee -> main is landed). From the bundle's
# root: bash .bundle/gpu-next3.sh > $OUT/log 2>&1.
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:3,32x1024:2 . ws
echo "== checks (ws: the new forms and the grouped products beside them)"
(cd ws && python3 checks/run_checks.py --only grouped-columns-bf16,grouped-matmul-transposed-bf16,grouped-matmul-weight-grad-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -6)
date -u
bash bench/chain.sh -s 2x1024:3 . sce
date -u
bash bench/chain.sh -s 2x1024:3 . mask fexp st3
date -u
echo "== checks (sce: the scatters' epilogues and the scatter programs)"
(cd sce && python3 checks/run_checks.py --only scatter-epilogues,scatter-add-rows-flushes,scatter-add-rows --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -4)
echo "== checks (fexp: compare, determinism)"
(cd fexp && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16,attention-bthd-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -8)
echo "== racecheck (st3, attention-grad-bf16)"
compute-sanitizer --tool racecheck st3/bin/latch-run st3/programs/attention-grad-bf16/prog.ptx --steps 1 --random-inputs 2 2>&1 | tail -1
date -u
echo "== TinyMoE 2x512 grad, loss100 (fexp)"
(cd fexp && python3 checks/run_checks.py --only tinymoe-2x512 --checks grad,loss100 2>&1 | tail -12)
date -u
echo "== A/B persistent 32x1024, 2 rounds"
for step in ". mask" "mask fexp" "fexp st3" ". sce"; do printf '%s: ' "$step"; bash bench/ab.sh $step 2 programs/tinymoe-32x1024/prog.ptx; done
date -u
