#!/usr/bin/env bash
# bench/chain.sh - on the GPU machine, from the bundle's root: a chain of builds, each a step on the one
# before it (bundles made by bench/prepare.sh and bench/base-bundle.sh, e.g. base/ . mask/ fexp/), judged
# in one call: for each consecutive pair, whether TinyMoE 2x1024 gives the same bits after 3 updates (every
# tensor latch-run dumps), then bench/ab.sh on each pair at each shape. The bits come first and every
# line is printed as soon as it is known, so a call cut short still says what it measured.
#   bench/chain.sh [-s SHAPE:ROUNDS,...] BUNDLE[:VARIANT] BUNDLE[:VARIANT] [...]
# Default: -s 2x1024:3,32x1024:2. A bundle must hold programs/tinymoe-SHAPE/prog.ptx for each shape, or with
# :VARIANT programs/tinymoe-SHAPE-VARIANT/prog.ptx (bench/variant.sh's layout: .:base .:red times two
# variants of one bundle); a prog.fatbin beside it (bench/fatbin.sh) is run instead.
set -u
shapes=2x1024:3,32x1024:2
while getopts s: flag; do
  case $flag in
    s) shapes=$OPTARG ;;
    *) echo "usage: bench/chain.sh [-s SHAPE:ROUNDS,...] BUNDLE[:VARIANT] BUNDLE[:VARIANT] [...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "bench/chain.sh: at least two bundles" >&2; exit 2; }
here=$(dirname "$0")
bundle() { echo "${1%%:*}"; }                    # BUNDLE[:VARIANT] -> BUNDLE
program() { # BUNDLE[:VARIANT] SHAPE -> the program's path inside its bundle: its fatbin if there is one
  local dir
  case $1 in
    *:*) dir="programs/tinymoe-$2-${1#*:}" ;;
    *) dir="programs/tinymoe-$2" ;;
  esac
  if [ -f "$(bundle "$1")/$dir/prog.fatbin" ]; then echo "$dir/prog.fatbin"; else echo "$dir/prog.ptx"; fi
}
dirs=$(for a in "$@"; do bundle "$a"; done | sort -u)
for b in $dirs; do sh "$b/build-latch-run.sh" "$b" >/dev/null & done
wait
for b in $dirs; do [ -x "$b/bin/latch-run" ] || { echo "bench/chain.sh: $b: no latch-run built" >&2; exit 2; }; done
echo "== bits: TinyMoE 2x1024 after 3 updates"
dumps=$(mktemp -d)
for i in $(seq $#); do
  b=$(bundle "${!i}")
  echo "${!i}: $("$b/bin/latch-run" "$b/$(program "${!i}" 2x1024)" --steps 3 --init 1 --random-inputs 2 \
                --dump-dir "$dumps/$i" 2>&1 | tail -1)"
done
for i in $(seq 2 $#); do
  prev=$((i - 1)) same=0 differ=0
  for f in "$dumps/$prev"/*.npy; do
    if cmp -s "$f" "$dumps/$i/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
  done
  echo "${!prev} -> ${!i}: $same identical, $differ differ"
done
rm -rf "$dumps"
date -u
for shape_rounds in ${shapes//,/ }; do
  shape=${shape_rounds%:*} rounds=${shape_rounds#*:}
  echo "== A/B persistent $shape, $rounds rounds, each bundle against the one before"
  for i in $(seq 2 $#); do
    prev=$((i - 1))
    base=$(program "${!prev}" "$shape") new=$(program "${!i}" "$shape")
    [ "$base" = "$new" ] || new="$base=$new"
    printf '%s -> %s: ' "${!prev}" "${!i}"
    bash "$here/ab.sh" "$(bundle "${!prev}")" "$(bundle "${!i}")" "$rounds" "$new" || echo "bench/ab.sh failed"
  done
  date -u
done
