#!/bin/sh
# bench/prepare.sh - on the build machine: makes the GPU bundle for bench/run.sh in .bundle/ (the ignored
# folder that the device tool carries): `make gpu-bundle`, a copy of it, bench/ added, and
# bench/build-times.json: the wall time of latch-opt (latch-compile to PTX) for TinyMoE at 2x1024 and
# 32x1024, the "build" figure of the benchmark's Latch rows; and bench/kernels/*.mlir compiled for
# bench/kernels.py.
#   [KEEP=name,name,...] bench/prepare.sh [BUILD_DIR]      (default build)
# KEEP: keep only these programs of the GPU checks in .bundle/programs (bench/run.sh needs tinymoe-2x1024 and
# tinymoe-32x1024): the whole set (about 60 MiB) and the tracked tree are more than the 64 MiB a device call
# carries. The script says how much a call carrying .bundle would send.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
make gpu-bundle
rm -rf .bundle
cp -r "$build/gpu-bundle" .bundle
if [ -n "${KEEP:-}" ]; then
  for dir in .bundle/programs/*/; do
    case ",$KEEP," in *",$(basename "$dir"),"*) ;; *) rm -rf "$dir" ;; esac
  done
fi
mkdir -p .bundle/bench
cp bench/ab.sh bench/chain.sh bench/bench.py bench/tinymoe_torch.py bench/latch_init.py bench/run.sh bench/kernels.py bench/compare_traces.py \
   bench/busiest_ctas.py .bundle/bench/
# The standalone kernels of bench/kernels.py, with the GPU checks' forward pipeline.
mkdir -p .bundle/bench/kernels
# The products also as NAME-waitall.ptx (latch-lower-tasks{wgmma-in-flight=false}: each stage waits for its
# wgmma) and NAME-general.ptx (latch-lower-tasks{lean-wgmma-stages=false}), for bench/ab.sh BASE=NEW pairs;
# kernels.py times only NAME.ptx.
front='latch-split-attention-grad,latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena'
for src in bench/kernels/*.mlir; do
  name=$(basename "$src" .mlir)
  "$build/latch-opt" "$src" -o ".bundle/bench/kernels/$name.ptx" --emit=ptx --pass-pipeline="builtin.module($front,latch-lower-tasks,latch-lower-intervals)"
  case $name in matmul-*)
    "$build/latch-opt" "$src" -o ".bundle/bench/kernels/$name-waitall.ptx" --emit=ptx \
      --pass-pipeline="builtin.module($front,latch-lower-tasks{wgmma-in-flight=false},latch-lower-intervals)"
    "$build/latch-opt" "$src" -o ".bundle/bench/kernels/$name-general.ptx" --emit=ptx \
      --pass-pipeline="builtin.module($front,latch-lower-tasks{lean-wgmma-stages=false},latch-lower-intervals)"
  esac
done
python3 - "$build" <<'PY'
import json, subprocess, sys, tempfile, time
build, times = sys.argv[1], {}
pipeline = "builtin.module(latch-compile)"
for shape in ("2x1024", "32x1024"):
    src = f".bundle/programs/tinymoe-{shape}/source.mlir"
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = subprocess.run([f"{build}/latch-opt", src, f"--pass-pipeline={pipeline}", "--emit=ptx", "-o", f"{d}/p.ptx"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            times[shape] = round(time.perf_counter() - t0, 2)
json.dump(times, open(".bundle/bench/build-times.json", "w"))
print("bench/prepare.sh: latch-opt build times", times)
PY
du -sh .bundle
sh bench/carry.sh bench/prepare.sh 'run it with KEEP=tinymoe-2x1024,tinymoe-32x1024 for bench/run.sh'
