#!/usr/bin/env bash
# Session thirty-one: gpu-next.sh reordered for a short call (the session's device time mostly spent on
# refused starts): the same bundles (.bundle = main, base/ = 32b4bee, mask/, fexp/, st3/; see gpu-next.sh's
# header), builds in parallel, then the steps that decide what lands first: bits, the 2x1024 A/B chain,
# attention-ex2's compare and determinism, racecheck of stage3; then the longer rows.
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv; date -u
for d in . base mask fexp st3; do sh build-latch-run.sh $d >/dev/null & done; wait
for d in . base mask fexp st3; do [ -x $d/bin/latch-run ] || { echo "$d build failed"; exit 2; }; done
cmpdirs() { same=0 diff=0; for f in $1/*.npy; do cmp -s "$f" "$2/$(basename "$f")" && same=$((same+1)) || diff=$((diff+1)); done; echo "$3: $same identical, $diff differ"; }
echo "== bits (2x1024, 3 updates)"
for d in base . mask fexp st3; do echo "$d: $($d/bin/latch-run $d/programs/tinymoe-2x1024/prog.ptx --steps 3 --init 1 --random-inputs 2 --dump-dir /tmp/d-$d 2>&1 | grep -i loss | tail -2 | tr '\n' ' ')"; done
cmpdirs /tmp/d-base /tmp/d-. "base vs main"
cmpdirs /tmp/d-. /tmp/d-mask "main vs mask"
cmpdirs /tmp/d-mask /tmp/d-fexp "mask vs fexp"
cmpdirs /tmp/d-fexp /tmp/d-st3 "fexp vs st3"
date -u
echo "== A/B persistent 2x1024, 3 rounds: base -> main -> mask -> fexp -> st3"
for step in "base ." ". mask" "mask fexp" "fexp st3"; do bash bench/ab.sh $step 3 programs/tinymoe-2x1024/prog.ptx; done
date -u
echo "== checks (fexp: compare, determinism; main: compare of the statistics programs)"
(cd fexp && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16,attention-bthd-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -8)
python3 checks/run_checks.py --only attention-grad-bf16,attention-bthd-bf16 --checks compare 2>&1 | grep -v "^PASS" | tail -4
echo "== racecheck (st3, attention-grad-bf16)"
compute-sanitizer --tool racecheck st3/bin/latch-run st3/programs/attention-grad-bf16/prog.ptx --steps 1 --random-inputs 2 2>&1 | tail -1
date -u
echo "== TinyMoE 2x512 grad, loss100 (fexp)"
(cd fexp && python3 checks/run_checks.py --only tinymoe-2x512 --checks grad,loss100 2>&1 | tail -12)
date -u
echo "== A/B persistent 32x1024, 2 rounds: main -> st3, fexp -> st3"
for step in ". st3" "fexp st3"; do bash bench/ab.sh $step 2 programs/tinymoe-32x1024/prog.ptx; done
date -u
echo "== memcheck (fexp) and st3's compare"
(cd fexp && python3 checks/run_checks.py --only attention-grad-bf16,attention-bthd-bf16 --checks memcheck 2>&1 | grep -v "^PASS" | tail -4)
(cd st3 && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -4)
date -u
