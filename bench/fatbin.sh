#!/bin/sh
# bench/fatbin.sh - on the build machine: assembles each programs/tinymoe-*/prog.ptx under the given bundle
# directories for sm_90a (this machine's ptxas, CUDA 13.0 like the GPU machine's driver) into a compressed
# fatbin, programs/tinymoe-*/prog.fatbin, with a copy of its manifest as prog.fatbin.manifest.json.
# bench/chain.sh runs a program's prog.fatbin where there is one, so that the GPU machine loads SASS
# instead of running the driver's JIT on the PTX (about 20 s for each TinyMoE program, once per call: a
# third of a call that times eight programs). The fatbin is about a quarter of the PTX's size.
#   sh bench/fatbin.sh DIR...        (e.g. .bundle .bundle/sa; PTXAS=... for another ptxas)
set -eu
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
fatbinary=${FATBINARY:-$(dirname "$ptxas")/fatbinary}
[ $# -gt 0 ] || { echo "usage: bench/fatbin.sh DIR..." >&2; exit 2; }
assemble() { # DIR holding prog.ptx
  "$ptxas" -arch=sm_90a "$1/prog.ptx" -o "$1/prog.cubin" 2>"$1/ptxas.log" || { cat "$1/ptxas.log" >&2; return 1; }
  rm -f "$1/ptxas.log" # its notes (wgmma serialized across calls) are the driver's JIT's as well
  "$fatbinary" --create="$1/prog.fatbin" --compress-all --image3=kind=elf,sm=90a,file="$1/prog.cubin"
  cp "$1/prog.ptx.manifest.json" "$1/prog.fatbin.manifest.json"
  rm -f "$1/prog.cubin"
  echo "bench/fatbin.sh: $1/prog.fatbin ($(du -h "$1/prog.fatbin" | cut -f1))"
}
pids="" failed=0
for dir in "$@"; do
  for ptx in "$dir"/programs/tinymoe-*/prog.ptx; do
    [ -f "$ptx" ] || continue
    assemble "$(dirname "$ptx")" &
    pids="$pids $!"
    if [ "$(echo "$pids" | wc -w)" -ge 2 ]; then # two at a time: the build machine's cores
      for pid in $pids; do wait "$pid" || failed=1; done
      pids=""
    fi
  done
done
for pid in $pids; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || { echo "bench/fatbin.sh: a program did not assemble" >&2; exit 1; }
