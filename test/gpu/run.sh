#!/usr/bin/env bash
# run.sh - the GPU checks of a Latch bundle (`make gpu-bundle`, docs/gpu.md): builds latch-run from the
# bundled C sources with gcc against the CUDA driver API (no LLVM, no MLIR; libcuda is loaded at run time),
# then runs every check of programs.txt and prints one table (checks/run_checks.py). Exit status: 0 when
# every gate passes, 1 when one fails, 2 when the build fails.
#   ./run.sh [--only NAME,...] [--checks compare,grad,loss100,determinism,memcheck,timing]
set -u
cd "$(dirname "$0")"
sh ./build-latch-run.sh . || exit 2
if [ -s skipped.txt ]; then
  echo "programs that could not be bundled (make gpu-bundle):"
  sed 's/^/  /' skipped.txt
fi
exec python3 checks/run_checks.py "$@"
