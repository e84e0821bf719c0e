#!/usr/bin/env bash
# bench/ab.sh - on the GPU machine: the same programs timed from two bundles in one run, alternating
# base and new ROUNDS times, so that their ratio is measured under the same clocks and neighbours
# (the brief: ratios from one run, medians of many). Prints one line per program and bundle: the
# median over rounds of latch-run's median update time, and the ratio new / base.
#   bench/ab.sh BASE_BUNDLE NEW_BUNDLE [ROUNDS] [PROGRAM ...]
# A program is a path under the bundle: programs/NAME/prog.ptx or bench/kernels/NAME.ptx; BASE_PATH=NEW_PATH
# times BASE_PATH from the base bundle against NEW_PATH from the new one (a variant of one bundle:
#   bench/ab.sh .bundle .bundle 3 programs/tinymoe-2x1024/prog.ptx=programs/tinymoe-2x1024-bthd/prog.ptx).
set -u
base=$1 new=$2 rounds=${3:-3}
shift 3 2>/dev/null || shift $#
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(bench/kernels/matmul-4096x4096x4096.ptx bench/kernels/matmul-2048x512x8192.ptx
                                       programs/tinymoe-2x1024/prog.ptx programs/tinymoe-32x1024/prog.ptx)
for b in "$base" "$new"; do
  sh "$new/build-latch-run.sh" "$b" || exit 2 # the new bundle's script: a trimmed base may lack its own
done
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
for p in "${programs[@]}"; do
  steps=10
  case $p in *32x1024*) steps=5 ;; esac
  : >/tmp/ab-base.txt; : >/tmp/ab-new.txt
  for _ in $(seq "$rounds"); do
    for side in base new; do
      dir=$base path=${p%%=*}
      [ $side = new ] && dir=$new path=${p#*=}
      "$dir/bin/latch-run" "$dir/$path" --steps $steps --init 1 --random-inputs 2 2>&1 |
        sed -n 's/.*median update time \([0-9.]*\) ms.*/\1/p' >>/tmp/ab-$side.txt
    done
  done
  b=$(median </tmp/ab-base.txt) n=$(median </tmp/ab-new.txt)
  printf '%-48s base %9s ms  new %9s ms  new/base %s  (rounds: base %s, new %s)\n' "$p" "$b" "$n" \
    "$(awk -v b="$b" -v n="$n" 'BEGIN {if (b > 0) printf "%.3f", n / b; else print "-"}')" \
    "$(paste -sd, /tmp/ab-base.txt)" "$(paste -sd, /tmp/ab-new.txt)"
done
