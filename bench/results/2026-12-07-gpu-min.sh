#!/usr/bin/env bash
# Session thirty-one's last device minutes: the smallest decisive subset of gpu-lean.sh.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for d in . mask fexp st3; do sh build-latch-run.sh $d >/dev/null & done; wait
cmpdirs() { same=0 diff=0; for f in $1/*.npy; do cmp -s "$f" "$2/$(basename "$f")" && same=$((same+1)) || diff=$((diff+1)); done; echo "$3: $same identical, $diff differ"; }
for d in . mask fexp st3; do $d/bin/latch-run $d/programs/tinymoe-2x1024/prog.ptx --steps 3 --init 1 --random-inputs 2 --dump-dir /tmp/d-$d >/dev/null 2>&1; done
cmpdirs /tmp/d-. /tmp/d-mask "main vs mask"; cmpdirs /tmp/d-mask /tmp/d-fexp "mask vs fexp"; cmpdirs /tmp/d-fexp /tmp/d-st3 "fexp vs st3"
date -u
for step in ". st3" ". mask" "mask fexp" "fexp st3"; do bash bench/ab.sh $step 3 programs/tinymoe-2x1024/prog.ptx; done
date -u
(cd fexp && python3 checks/run_checks.py --only attention-grad-bf16,attention-bf16 --checks compare 2>&1 | grep -v "^PASS" | tail -6)
date -u
