#!/bin/sh
# bench/base-bundle.sh - on the build machine: the base side of an A/B (bench/ab.sh BASE NEW) from another
# revision: builds REV in a git worktree and writes into DIR (default .bundle/base, so that the device
# tool carries it inside .bundle) the programs bench/ab.sh times by default, compiled by that revision's
# latch-opt with its own train pipeline: programs/tinymoe-2x1024, programs/tinymoe-32x1024 (prog.ptx and
# its manifest, plus the host manifest latch-run reads beside it), bench/kernels/*.ptx, and its runtime
# sources and build script (bench/ab.sh builds each bundle's latch-run with the new bundle's script).
# PROGRAMS (a comma-separated list of test/gpu/programs.txt names, default the two above) compiles others as
# well, with the revision's checks/ and programs.txt, so that `checks/run_checks.py --only ...` runs in DIR.
# PATCHES (patch files, in order) are applied to REV's tree first, with git apply: a side kept as patch
# files (bench/results/*.patch), which outlive the session's branches.
#   [PROGRAMS=a,b,...] [PATCHES='p1 p2 ...'] bench/base-bundle.sh REV [DIR]
# About 5-10 minutes on the 2-core machine (a full build of REV). Run it after bench/prepare.sh, which
# empties .bundle.
set -eu
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/base-bundle.sh REV [DIR]}
out=${2:-.bundle/base}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach "$work/tree" "$rev" >/dev/null
# shellcheck disable=SC2046 # PATCHES is a list of paths
[ -z "${PATCHES:-}" ] || git -C "$work/tree" apply $(for p in $PATCHES; do realpath "$p"; done)
(cd "$work/tree" && make build >/dev/null)
base=$work/tree
rm -rf "$out"
mkdir -p "$out/programs" "$out/bench/kernels"
# The revision's own bundle of the programs (its pipeline, its host manifests).
python3 "$base/test/gpu/make_bundle.py" --build "$base/build" --out "$work/bundle" \
  --only "${PROGRAMS:-tinymoe-2x1024,tinymoe-32x1024}" >/dev/null
cp -r "$work/bundle/programs/." "$out/programs/"
cp -r "$work/bundle/src" "$work/bundle/build-latch-run.sh" "$out/"
if [ -n "${PROGRAMS:-}" ]; then
  cp -r "$work/bundle/checks" "$work/bundle/fixtures" "$work/bundle/programs.txt" "$work/bundle/skipped.txt" "$out/"
fi
for src in "$base"/bench/kernels/*.mlir; do
  name=$(basename "$src" .mlir)
  "$base/build/latch-opt" "$src" -o "$out/bench/kernels/$name.ptx" --emit=ptx --pass-pipeline='builtin.module(latch-split-attention-grad,latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,latch-lower-tasks,latch-lower-intervals)'
done
echo "bench/base-bundle.sh: $(git rev-parse --short "$rev")${PATCHES:+ with $PATCHES} in $out ($(du -sh "$out" | cut -f1))"
# A device call carries the tracked tree and .bundle, 64 MiB in all: say when the variants outgrow it.
sh bench/carry.sh bench/base-bundle.sh 'remove the programs of .bundle/programs that the call does not run'
