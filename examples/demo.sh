#!/bin/sh
# demo.sh BUILD_DIR - Latch's main job on TinyMoE (../shared/notes/models.md, 2 x 1024 tokens): the forward
# program, then each stage of the compile pipeline with what it did (tasks, intervals, arena bytes against
# their lower bound, time), then a short training run of a small TinyMoE in the fp64 interpreter.
set -eu
build=${1:-build}
out="$build/demo"
mkdir -p "$out"

field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2"; }

echo "== latch-gen tinymoe (vocab 8192, d_model 512, 4 layers, 8 experts top-2, 2 x 1024 tokens)"
"$build/latch-gen" tinymoe -o "$out/tinymoe.mlir"
echo "   parameters: $("$build/latch-gen" tinymoe --print-param-count)"

echo "== the compile pipeline, stage by stage (latch-opt --stats)"
printf '   %-60s %8s %10s %14s %14s %8s\n' "after" tasks intervals arena_bytes lower_bound ms
stages="latch-train latch-memory-rules{recompute=norm,swiglu} latch-form-intervals latch-fuse-phases latch-plan-arena latch-verify-arena"
pipeline=""
for stage in $stages; do
  pipeline="${pipeline:+$pipeline,}$stage"
  "$build/latch-opt" "$out/tinymoe.mlir" --pass-pipeline="builtin.module($pipeline)" \
    --stats="$out/stats.json" -o "$out/stage.mlir"
  ms=$(sed 's/}, {/\n/g' "$out/stats.json" | sed -n 's/.*"ms": \([0-9.]*\).*/\1/p' | tail -1)
  printf '   %-60s %8s %10s %14s %14s %8s\n' "$stage" "$(field tasks "$out/stats.json")" \
    "$(field intervals "$out/stats.json")" "$(field arena_bytes "$out/stats.json")" \
    "$(field arena_lower_bound_bytes "$out/stats.json")" "$ms"
done
cp "$out/stage.mlir" "$out/tinymoe-planned.mlir"
echo "   (the planned update program: $out/tinymoe-planned.mlir)"

echo "== the whole update as one persistent kernel: latch-compile, then --emit=ptx (LLVM's NVPTX backend)"
start=$(date +%s.%N)
"$build/latch-opt" "$out/tinymoe.mlir" --pass-pipeline='builtin.module(latch-compile)' --emit=ptx -o "$out/tinymoe.ptx"
end=$(date +%s.%N)
echo "   $out/tinymoe.ptx: $(wc -c < "$out/tinymoe.ptx") bytes of PTX, $(grep -c '^.func\|^.visible .entry\|^.entry' "$out/tinymoe.ptx" || true) functions, compiled in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
echo "   manifest: $(sed -n 's/.*"arena_bytes": \([0-9]*\).*/\1/p' "$out/tinymoe.ptx.manifest.json") arena bytes, $(grep -o '"name": "i[0-9]*\.' "$out/tinymoe.ptx.manifest.json" | wc -l) intervals"
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$ptxas" ]; then
  "$ptxas" -arch=sm_90a -v "$out/tinymoe.ptx" -o "$out/tinymoe.cubin" 2>&1 | grep -m1 'Used' | sed 's/^ptxas info *: /   ptxas sm_90a: /'
fi
echo "   (run it on a GPU: docs/gpu.md)"

echo "== 30 training updates of a small TinyMoE (1 layer, d_model 64) in the fp64 interpreter,"
echo "   on a repeating 8-token stream"
"$build/latch-gen" tinymoe --layers 1 --d-model 64 --heads 4 --experts 4 --ffn 128 --vocab 32 \
  --batch 2 --seq 16 -o "$out/small.mlir"
"$build/latch-opt" "$out/small.mlir" --pass-pipeline='builtin.module(latch-train)' -o "$out/small-train.mlir"
python3 -c "
import struct
n = 4096
data = bytes(b'\x93NUMPY\x01\x00')
header = \"{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }\" % n
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
open('$out/tokens.npy', 'wb').write(data + struct.pack('<H', len(header)) + header.encode() + b''.join(struct.pack('<i', (i % 8) * 3 + 1) for i in range(n)))
"
"$build/latch-interp" "$out/small-train.mlir" --entry tinymoe_update --init 1 --train-steps 30 \
  --data "$out/tokens.npy" | awk 'NR <= 3 || /step (10|20|30) / || /final/'
