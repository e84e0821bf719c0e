#!/usr/bin/env bash
# bench/run.sh - the TinyMoE benchmark, run ON the GPU machine from the root of a GPU bundle that carries
# bench/ (bench/prepare.sh makes it: docs/benchmarks.md "How to run"). Builds bin/latch-run from the
# bundle's C sources if it is not there, then runs bench/bench.py: Latch (persistent, staged) and the
# PyTorch controls (eager, whole-step CUDA graph, torch.compile) at 2x1024 and 32x1024, the loss of Latch
# against PyTorch eager from the same start, within a time budget (default 520 s). Results go under
# $OUT (else bench-out/) with the repository's paths: bench/results/<date>-h200.{json,txt} and
# docs/img/bench-<date>-{loss,timeline}.png. Exit status: 0, 1 when the loss comparison fails, 2 when the
# build fails.
#   bench/run.sh [--budget-s S] [--shapes 2x1024,32x1024] [--updates 20] [--loss-updates 200] ...
set -u
cd "$(dirname "$0")/.."
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-gcc}
if [ ! -x bin/latch-run ] || [ -n "$(find src -newer bin/latch-run -name '*.[ch]' 2>/dev/null | head -1)" ]; then
  if [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
    echo "bench/run.sh: $CUDA_HOME/include/cuda.h not found (set CUDA_HOME to the CUDA toolkit)" >&2
    exit 2
  fi
  mkdir -p bin
  echo "building bin/latch-run with $CC (CUDA headers from $CUDA_HOME/include)"
  "$CC" -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I"$CUDA_HOME/include" \
    src/runtime/*.c src/support/cli.c src/support/init.c src/support/npy.c src/tools/latch-run.c \
    -ldl -lm -o bin/latch-run || { echo "bench/run.sh: building latch-run failed" >&2; exit 2; }
fi
exec python3 bench/bench.py --budget-s 520 "$@"
