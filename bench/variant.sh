#!/bin/sh
# bench/variant.sh - on the build machine, after bench/prepare.sh: TinyMoE 2x1024 and 32x1024 compiled with
# latch-compile's passes but one (or more) given options, into .bundle/programs/tinymoe-SHAPE-NAME/ beside
# the default (tinymoe-SHAPE-base, compiled the same way without the options, so both sides lack the staged
# kernels), for one device call of
#   bash bench/ab.sh .bundle .bundle 3 programs/tinymoe-2x1024-base/prog.ptx=programs/tinymoe-2x1024-NAME/prog.ptx ...
#   bench/variant.sh NAME 'latch-lower-intervals{counter-min-tiles=1024}' ['latch-fuse-phases{order=false}' ...]
# An argument that lists passes ('latch-fuse-phases,latch-split-optimizer{min-part-tiles=64}') replaces the
# first one named there by the list: a pass that latch-compile does not run goes in after it.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/variant.sh NAME 'PASS{options}' ..." >&2; exit 2; }
name=$1
shift
build=${BUILD:-build}
# latch-compile's elements as latch-opt lists them ("... (= a,b,c)"), so that this stays in step with it
passes=$("$build/latch-opt" --list-passes | sed -n 's/^ *latch-compile .*(= \(.*\))$/\1/p' | tr ',' ' ')
[ -n "$passes" ] || { echo "bench/variant.sh: latch-opt --list-passes does not list latch-compile" >&2; exit 2; }
first_pass() { # 'a{x=1},b' -> a
  echo "$1" | sed 's/[{,].*//'
}
pipeline() { # the passes, each replaced by an argument that names it with options
  out=""
  for p in $passes; do
    use=$p
    for given in "$@"; do
      [ "$(first_pass "$given")" = "$p" ] && use=$given
    done
    out="$out${out:+,}$use"
  done
  echo "builtin.module($out)"
}
for given in "$@"; do
  first=$(first_pass "$given")
  case " $(echo $passes) " in *" $first "*) ;; *) echo "bench/variant.sh: '$first' is not a pass of latch-compile" >&2; exit 2 ;; esac
done
for shape in 2x1024 32x1024; do
  src=.bundle/programs/tinymoe-$shape/source.mlir
  [ -f "$src" ] || { echo "bench/variant.sh: $src is missing (run bench/prepare.sh first)" >&2; exit 2; }
  for side in base "$name"; do
    dir=.bundle/programs/tinymoe-$shape-$side
    mkdir -p "$dir"
    if [ "$side" = base ]; then p=$(pipeline); else p=$(pipeline "$@"); fi
    "$build/latch-opt" "$src" --pass-pipeline="$p" --emit=ptx -o "$dir/prog.ptx"
  done
  echo "bench/variant.sh: programs/tinymoe-$shape-base and programs/tinymoe-$shape-$name"
done
