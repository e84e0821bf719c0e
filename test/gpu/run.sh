#!/usr/bin/env bash
# run.sh - the GPU checks of a Latch bundle (`make gpu-bundle`, docs/gpu.md): builds latch-run from the
# bundled C sources with gcc against the CUDA driver API (no LLVM, no MLIR; libcuda is loaded at run time),
# then runs every check of programs.txt and prints one table (checks/run_checks.py). Exit status: 0 when
# every gate passes, 1 when one fails, 2 when the build fails.
#   ./run.sh [--only NAME,...] [--checks compare,grad,loss100,determinism,memcheck,timing]
set -u
cd "$(dirname "$0")"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-gcc}
if [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
  echo "run.sh: $CUDA_HOME/include/cuda.h not found (set CUDA_HOME to the CUDA toolkit)" >&2
  exit 2
fi
mkdir -p bin
echo "building bin/latch-run with $CC (CUDA headers from $CUDA_HOME/include)"
"$CC" -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I"$CUDA_HOME/include" \
  src/runtime/*.c src/support/cli.c src/support/init.c src/support/npy.c src/tools/latch-run.c \
  -ldl -lm -o bin/latch-run || {
  echo "run.sh: building latch-run failed" >&2
  exit 2
}
if [ -s skipped.txt ]; then
  echo "programs that could not be bundled (make gpu-bundle):"
  sed 's/^/  /' skipped.txt
fi
exec python3 checks/run_checks.py "$@"
