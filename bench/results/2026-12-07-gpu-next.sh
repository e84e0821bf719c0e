#!/usr/bin/env bash
# Session thirty's A/B chain, not run (no machine could be started that session): for the next call, from the
# root of .bundle (bash .bundle/gpu-next.sh > $OUT/log 2>&1), each side a cumulative step on the last:
#   base/ = 32b4bee (session twenty-nine); . = main (1ac1be3's code: bf16 pairs by one cvt.rn.bf16x2.f32,
#   bitwise expected); mask/ = branch attention-mask, 81ab8ac (the causal mask only on blocks crossing the
#   diagonal, bitwise expected); fexp/ = branch attention-ex2 (the tensor-core attention's exp as fma +
#   ex2.approx.ftz: not bitwise, so its checks); st3/ = branch stage3 (the attention blocks staged three
#   buffers deep, bitwise against fexp expected).
# Bundles: sh bench/prepare.sh; sh bench/base-bundle.sh 32b4bee; then
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,attention-grad-bf16 sh bench/base-bundle.sh attention-mask .bundle/mask
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,tinymoe-2x512,attention-bf16,attention-grad-bf16,attention-bthd-bf16 \
#     sh bench/base-bundle.sh attention-ex2 .bundle/fexp
#   PROGRAMS=tinymoe-2x1024,tinymoe-32x1024,attention-bf16,attention-grad-bf16 sh bench/base-bundle.sh stage3 .bundle/st3
# and copy this script to .bundle/gpu-next.sh (prepare.sh empties .bundle); delete the programs/ of .bundle that
# this script does not use if the whole is over the 64 MiB that a call carries. Most decisive steps first.
cd "$(dirname "$0")"
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv; date -u
for d in . base mask fexp st3; do sh build-latch-run.sh $d >/dev/null || { echo "$d build failed"; exit 2; }; done
cmpdirs() { same=0 diff=0; for f in $1/*.npy; do cmp -s "$f" "$2/$(basename "$f")" && same=$((same+1)) || diff=$((diff+1)); done; echo "$3: $same identical, $diff differ"; }
echo "== bits (2x1024, 3 updates)"
for d in base . mask fexp st3; do echo "$d: $($d/bin/latch-run $d/programs/tinymoe-2x1024/prog.ptx --steps 3 --init 1 --random-inputs 2 --dump-dir /tmp/d-$d 2>&1 | grep -i loss | tail -2 | tr '\n' ' ')"; done
cmpdirs /tmp/d-base /tmp/d-. "base vs main"
cmpdirs /tmp/d-. /tmp/d-mask "main vs mask"
cmpdirs /tmp/d-mask /tmp/d-fexp "mask vs fexp"
cmpdirs /tmp/d-fexp /tmp/d-st3 "fexp vs st3"
date -u
echo "== checks (fexp: compare, determinism, memcheck; main and st3: compare)"
(cd fexp && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16,attention-bthd-bf16 --checks compare,determinism,memcheck 2>&1 | grep -v "^PASS" | tail -8)
python3 checks/run_checks.py --only attention-grad-bf16,attention-bthd-bf16 --checks compare 2>&1 | grep -v "^PASS" | tail -4
(cd st3 && python3 checks/run_checks.py --only attention-bf16,attention-grad-bf16 --checks compare,determinism 2>&1 | grep -v "^PASS" | tail -4)
echo "== racecheck (st3)"
for p in attention-bf16 attention-grad-bf16; do echo "$p: $(compute-sanitizer --tool racecheck st3/bin/latch-run st3/programs/$p/prog.ptx --steps 1 --random-inputs 2 2>&1 | tail -1)"; done
date -u
for shape_rounds in 2x1024:3 32x1024:2; do
  shape=${shape_rounds%:*} rounds=${shape_rounds#*:}
  echo "== A/B persistent $shape, $rounds rounds: base -> main -> mask -> fexp -> st3"
  for step in "base ." ". mask" "mask fexp" "fexp st3"; do
    bash bench/ab.sh $step "$rounds" "programs/tinymoe-$shape/prog.ptx"
  done
  date -u
done
echo "== TinyMoE 2x512 grad, loss100 (fexp)"
(cd fexp && python3 checks/run_checks.py --only tinymoe-2x512 --checks grad,loss100 2>&1 | tail -30)
date -u
