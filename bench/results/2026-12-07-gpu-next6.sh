#!/usr/bin/env bash
# Session thirty-four's call: the branches ms-only (merge-users and epilogues on grouped products and
# rmsnorm_grad, on main) and ms-bc (balance by tile cost, on ms-only) against main in one chain, their
# checks, then the benchmark table (main) with the time left (it found no machine in session thirty-four,
# which shortened it as its device time ran out; a next session runs it whole). From the bundle's root:
#   timeout 590 bash .bundle/gpu-next6.sh > $OUT/log 2>&1, carrying .bundle, made on the build machine by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh           (main: the benchmark's bundle)
#   b=bench/branches/ms-bc
#   PATCHES="$b/0001-*.patch" PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,grouped-epilogues,matmul-epilogues,tinymoe-small \
#     sh bench/base-bundle.sh main .bundle/ms
#   PATCHES="$b/*.patch" PROGRAMS=tinymoe-2x1024,tinymoe-32x1024 sh bench/base-bundle.sh main .bundle/bc
#   (ms-only is the first patch, ms-bc all of them; the session made the bundles from its branches, of the same PTX)
#   cp bench/results/2026-12-07-gpu-next6.sh .bundle/gpu-next6.sh
cd "$(dirname "$0")"
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:3,32x1024:2 . ms bc
echo "== checks (ms)"
(cd ms && python3 checks/run_checks.py --only grouped-epilogues,matmul-epilogues,tinymoe-small --checks compare,grad,determinism 2>&1 | grep -v "^PASS" | tail -8)
echo "== sanitizers"
(cd ms/programs/grouped-epilogues && compute-sanitizer --tool racecheck ../../bin/latch-run prog.ptx --steps 1 --random-inputs 2 \
   --input ends=inputs/ends.npy 2>&1 | tail -1)
(cd bc/programs/tinymoe-2x1024 && timeout 60 compute-sanitizer --tool memcheck ../../bin/latch-run prog.ptx --steps 1 --init 1 \
   --random-inputs 2 2>&1 | tail -1)
date -u
left=$((570 - ($(date +%s) - start)))
echo "== the benchmark (main), $left s left"
[ $left -gt 120 ] && timeout $((left - 10)) bench/run.sh --budget-s $((left - 30))
date -u
