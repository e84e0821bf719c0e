#!/usr/bin/env bash
# session thirty, the lean form of call 1 for a short device budget: . = 81ab8ac (pack, mask); fexp/ = d1f2aa8
# (+ exp as fma + ex2.approx.ftz); st3/ = 31fb545 (+ three-deep staging). Most decisive steps first.
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv; date -u
for d in . fexp st3; do sh build-latch-run.sh $d >/dev/null || { echo "$d build failed"; exit 2; }; done
cmpdirs() { same=0 diff=0; for f in $1/*.npy; do cmp -s "$f" "$2/$(basename "$f")" && same=$((same+1)) || diff=$((diff+1)); done; echo "$3: $same identical, $diff differ"; }
echo "== bits"
for d in . fexp st3; do echo "$d: $($d/bin/latch-run $d/programs/tinymoe-2x1024/prog.ptx --steps 3 --init 1 --random-inputs 2 --dump-dir /tmp/d-$d 2>&1 | grep -i loss | tail -2 | tr '\n' ' ')"; done
cmpdirs /tmp/d-. /tmp/d-fexp "81ab8ac vs fexp (2x1024, 3 updates)"
cmpdirs /tmp/d-fexp /tmp/d-st3 "fexp vs st3 (2x1024, 3 updates)"
date -u
echo "== checks (fexp)"
(cd fexp && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16,attention-bthd-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -8)
date -u
echo "== A/B persistent 2x1024: 81ab8ac -> fexp, fexp -> st3, 3 rounds"
bash bench/ab.sh . fexp 3 programs/tinymoe-2x1024/prog.ptx
bash bench/ab.sh fexp st3 3 programs/tinymoe-2x1024/prog.ptx
date -u
echo "== racecheck (st3)"
for p in attention-grad-bf16; do echo "$p: $(compute-sanitizer --tool racecheck st3/bin/latch-run st3/programs/$p/prog.ptx --steps 1 --random-inputs 2 2>&1 | tail -1)"; done
echo "== A/B persistent 32x1024: 81ab8ac -> fexp, fexp -> st3, 2 rounds"
bash bench/ab.sh . fexp 2 programs/tinymoe-32x1024/prog.ptx
bash bench/ab.sh fexp st3 2 programs/tinymoe-32x1024/prog.ptx
date -u
