#!/usr/bin/env bash
# The next call's script (session thirty-one could start no machine): gpu-lean.sh in terms of bench/chain.sh.
# From the bundle's root (bash .bundle/gpu-next2.sh > $OUT/log 2>&1). Bundles: . = main, base/ = 32b4bee,
# mask/ = attention-mask, fexp/ = attention-ex2, st3/ = stage3, made as in gpu-next.sh's header, and sce/ =
# branch scatter-epilogue (PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,scatter-epilogues,scatter-add-rows-flushes,
# scatter-add-rows sh bench/base-bundle.sh scatter-epilogue .bundle/sce; its 32x1024 PTX is main's); trim
# .bundle/programs to tinymoe-2x1024, tinymoe-32x1024, attention-grad-bf16 and attention-bthd-bf16 so that
# the call carries less than 64 MiB (base-bundle.sh prints the total).
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:3 base . mask fexp st3
bash bench/chain.sh -s 2x1024:3 . sce
echo "== checks (sce: the scatters' epilogues and the scatter programs)"
(cd sce && python3 checks/run_checks.py --only scatter-epilogues,scatter-add-rows-flushes,scatter-add-rows --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -4)
echo "== checks (fexp: compare, determinism; main: compare of the statistics programs)"
(cd fexp && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16,attention-bthd-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -8)
python3 checks/run_checks.py --only attention-grad-bf16,attention-bthd-bf16 --checks compare 2>&1 | grep -v "^PASS" | tail -4
echo "== racecheck (st3, attention-grad-bf16)"
compute-sanitizer --tool racecheck st3/bin/latch-run st3/programs/attention-grad-bf16/prog.ptx --steps 1 --random-inputs 2 2>&1 | tail -1
date -u
echo "== TinyMoE 2x512 grad, loss100 (fexp)"
(cd fexp && python3 checks/run_checks.py --only tinymoe-2x512 --checks grad,loss100 2>&1 | tail -12)
date -u
echo "== A/B persistent 32x1024, 2 rounds"
for step in "base ." ". mask" "mask fexp" "fexp st3"; do printf '%s: ' "$step"; bash bench/ab.sh $step 2 programs/tinymoe-32x1024/prog.ptx; done
date -u
echo "== memcheck (fexp) and st3's compare"
(cd fexp && python3 checks/run_checks.py --only attention-grad-bf16,attention-bthd-bf16 --checks memcheck 2>&1 | grep -v "^PASS" | tail -4)
(cd st3 && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -4)
date -u
