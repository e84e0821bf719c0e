#!/usr/bin/env bash
# Session forty's second call, on the machine the first left warm (same bundle, see gpu-s40.sh): for each
# argument in order, as long as the time allows: a variant at 32x1024 against main (2 rounds), where VARIANT
# is a bundle (sa, ce, bu) or the apart-kinds variant rows of the main bundle; or check-BUNDLE,
# that bundle's GPU checks (those the first call had no time for).
#   LIMIT_S=... bash .bundle/gpu-s40b.sh ITEM... > $OUT/log 2>&1
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
left() { echo $((${LIMIT_S:-550} - ($(date +%s) - start))); }
checks_of() {
  case $1 in
    sa) echo scatter-add-rows,scatter-add-rows-wide,scatter-add-rows-passes,scatter-add-rows-flushes,tinymoe-small ;;
    ce) echo cross-entropy,cross-entropy-wide,cross-entropy-stats,tinymoe-small ;;
    bu) echo bucket,bucket-wide,bucket-many,tinymoe-small ;;
  esac
}
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for item in "$@"; do
  echo "== $item, $(left) s left"
  [ "$(left)" -gt 60 ] || break
  case $item in
    check-*)
      b=${item#check-}
      [ -x "$b/bin/latch-run" ] || (cd "$b" && sh build-latch-run.sh . >/dev/null)
      (cd "$b" && timeout $(($(left) - 20)) python3 checks/run_checks.py --only "$(checks_of "$b")" \
        --checks compare,grad,loss100,determinism 2>&1 | tee "$OUT/$b-checks.txt" | grep -v "^PASS" | tail -8) ;;
    rows) timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 .:base .:"$item" | tee "$OUT/$item-32.txt" ;;
    *) timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 . "$item" | tee "$OUT/$item-32.txt" ;;
  esac
done
date -u
