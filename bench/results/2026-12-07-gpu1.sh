#!/usr/bin/env bash
# session thirty, call 1: base/ = 32b4bee; . = 81ab8ac (bf16 pairs by one cvt.rn.bf16x2.f32; the causal mask only
# on blocks crossing the diagonal: bitwise expected); fexp/ = d1f2aa8, 81ab8ac + the tensor-core attention's exp
# as fma + ex2.approx.ftz (not bitwise); st3/ = 31fb545, fexp + the attention blocks staged three buffers deep
# (bitwise against fexp expected). Most decisive steps first (the call may be cut short).
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv; date -u
for d in . base fexp st3; do sh build-latch-run.sh $d >/dev/null || { echo "$d build failed"; exit 2; }; done
cmpdirs() { same=0 diff=0; for f in $1/*.npy; do cmp -s "$f" "$2/$(basename "$f")" && same=$((same+1)) || diff=$((diff+1)); done; echo "$3: $same identical, $diff differ"; }
echo "== bits"
for d in base . fexp st3; do echo "$d: $($d/bin/latch-run $d/programs/tinymoe-2x1024/prog.ptx --steps 3 --init 1 --random-inputs 2 --dump-dir /tmp/d-$d 2>&1 | grep -i loss | tail -2 | tr '\n' ' ')"; done
cmpdirs /tmp/d-base /tmp/d-. "32b4bee vs 81ab8ac (2x1024, 3 updates)"
cmpdirs /tmp/d-. /tmp/d-fexp "81ab8ac vs fexp (2x1024, 3 updates)"
cmpdirs /tmp/d-fexp /tmp/d-st3 "fexp vs st3 (2x1024, 3 updates)"
date -u
echo "== checks (fexp)"
(cd fexp && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16,attention-bthd-bf16 --checks compare,determinism,memcheck 2>&1 | grep -v "^PASS" | tail -8)
date -u
echo "== A/B persistent: 81ab8ac -> fexp, 3 rounds"
bash bench/ab.sh . fexp 3 programs/tinymoe-2x1024/prog.ptx programs/tinymoe-32x1024/prog.ptx
date -u
echo "== A/B persistent: fexp -> st3, 3 rounds"
bash bench/ab.sh fexp st3 3 programs/tinymoe-2x1024/prog.ptx programs/tinymoe-32x1024/prog.ptx
date -u
echo "== racecheck (st3)"
for p in attention-bf16 attention-grad-bf16; do echo "$p: $(compute-sanitizer --tool racecheck st3/bin/latch-run st3/programs/$p/prog.ptx --steps 1 --random-inputs 2 2>&1 | tail -1)"; done
echo "== checks (st3)"
(cd st3 && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -4)
date -u
echo "== A/B persistent: 32b4bee -> 81ab8ac (pack, mask), 3 rounds"
bash bench/ab.sh base . 3 programs/tinymoe-2x1024/prog.ptx programs/tinymoe-32x1024/prog.ptx
date -u
echo "== checks (81ab8ac)"
python3 checks/run_checks.py --only attention-grad-bf16,attention-bthd-bf16 --checks compare 2>&1 | grep -v "^PASS" | tail -4
echo "== TinyMoE 2x512 grad, loss100 (fexp)"
(cd fexp && python3 checks/run_checks.py --only tinymoe-2x512 --checks grad,loss100 2>&1 | tail -30)
date -u
