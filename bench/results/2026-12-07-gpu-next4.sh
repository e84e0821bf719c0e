#!/usr/bin/env bash
# The next call (made in session thirty-two, not yet run): the branch adamw-epilogue against main, then the
# benchmark table. From the bundle's root: timeout 590 bash .bundle/gpu-next4.sh > $OUT/log 2>&1, carrying
# .bundle, made on the build machine by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh           (main: the benchmark's bundle, 5 MiB)
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,adamw-epilogues,matmul-epilogues,grouped-columns-bf16 \
#     sh bench/base-bundle.sh adamw-epilogue .bundle/aw
#   cp bench/results/2026-12-07-gpu-next4.sh .bundle/gpu-next4.sh
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:3,32x1024:2 . aw
echo "== checks (aw)"
(cd aw && python3 checks/run_checks.py --only adamw-epilogues,matmul-epilogues,grouped-columns-bf16 --checks compare 2>&1 | grep -v "^PASS" | tail -6)
(cd aw/programs/adamw-epilogues && compute-sanitizer --tool racecheck ../../bin/latch-run prog.ptx --steps 1 --random-inputs 2 \
   --input ends=inputs/ends.npy --input t=inputs/t.npy 2>&1 | tail -1)
(cd aw/programs/tinymoe-2x1024 && timeout 60 compute-sanitizer --tool memcheck ../../bin/latch-run prog.ptx --steps 1 --init 1 \
   --random-inputs 2 2>&1 | tail -1)
date -u
echo "== the benchmark (main), what is left of the call"
timeout 300 bench/run.sh --budget-s 280
date -u
