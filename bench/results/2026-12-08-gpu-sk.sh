#!/usr/bin/env bash
# Session thirty-nine's call left for the next session (the device time ran out): latch-lower-intervals{scatter-kernels}
# against main (the scatter_add_rows intervals as their staged kernels: 9 at 2x1024, 5 at 32x1024), bits and A/B.
# From the bundle's root: timeout 300 bash .bundle/gpu-sk.sh > $OUT/log 2>&1, carrying .bundle, made on main by
#   KEEP=tinymoe-2x1024,tinymoe-32x1024 sh bench/prepare.sh
#   sh bench/variant.sh sk 'latch-lower-intervals{scatter-kernels=true}'
#   cp bench/results/2026-12-08-gpu-sk.sh .bundle/gpu-sk.sh
cd "$(dirname "$0")" || exit 2
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash bench/chain.sh -s 2x1024:5 .:base .:sk
date -u
timeout 60 bash bench/chain.sh -s 32x1024:2 .:base .:sk 2>&1 | grep -E "A/B|new/base"
date -u
