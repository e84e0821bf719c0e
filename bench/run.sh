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
sh ./build-latch-run.sh . || exit 2
exec python3 bench/bench.py --budget-s 520 "$@"
