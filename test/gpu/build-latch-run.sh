#!/bin/sh
# build-latch-run.sh [BUNDLE] - builds BUNDLE/bin/latch-run (default: the bundle this script sits in, at its
# root) from the bundle's C sources with gcc against the CUDA driver API headers (no LLVM, no MLIR; libcuda
# is loaded at run time), unless it is there and newer than every source. Used on the GPU machine by the
# bundle's run.sh and by bench/run.sh and bench/ab.sh. Exit status 2 when the build fails.
set -eu
cd "${1:-$(dirname "$0")}"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-gcc}
if [ -x bin/latch-run ] && [ -z "$(find src -newer bin/latch-run -name '*.[ch]' 2>/dev/null | head -1)" ]; then
  exit 0
fi
if [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
  echo "build-latch-run.sh: $CUDA_HOME/include/cuda.h not found (set CUDA_HOME to the CUDA toolkit)" >&2
  exit 2
fi
mkdir -p bin
echo "building $(pwd)/bin/latch-run with $CC (CUDA headers from $CUDA_HOME/include)"
"$CC" -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I"$CUDA_HOME/include" \
  src/runtime/*.c src/support/cli.c src/support/init.c src/support/npy.c src/tools/latch-run.c \
  -ldl -lm -o bin/latch-run || { echo "build-latch-run.sh: building latch-run failed" >&2; exit 2; }
