#!/usr/bin/env bash
# Session thirty-four's last try, with 389 s of device time left after thirteen starts found no machine: main
# against ms-bc (the two branches of gpu-next6.sh together), ms-bc's checks, then ms-only against ms-bc at
# 2x1024 with what is left. Same bundles as bench/results/2026-12-07-gpu-next6.sh; from the bundle's root:
#   timeout 270 bash .bundle/gpu-next7.sh > $OUT/log 2>&1, carrying .bundle
cd "$(dirname "$0")"
start=$(date +%s)
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:3,32x1024:2 . bc
echo "== checks (ms: the same check programs as ms-bc's, whose balance moves no task in them)"
(cd ms && python3 checks/run_checks.py --only grouped-epilogues,tinymoe-small --checks compare,grad 2>&1 | grep -v "^PASS" | tail -8)
(cd ms/programs/grouped-epilogues && compute-sanitizer --tool racecheck ../../bin/latch-run prog.ptx --steps 1 --random-inputs 2 \
   --input ends=inputs/ends.npy 2>&1 | tail -1)
date -u
left=$((250 - ($(date +%s) - start)))
echo "== $left s left"
[ $left -gt 60 ] && timeout $((left - 5)) bash bench/chain.sh -s 2x1024:3 ms bc
date -u
