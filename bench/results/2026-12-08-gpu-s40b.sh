#!/usr/bin/env bash
# Session forty's second call, on the machine the first left warm (same bundle, see gpu-s40.sh): the variants
# at 32x1024 against main, 2 rounds each, as many as the time allows, in the order given (the faster ones at
# 2x1024 first): LIMIT_S=... bash .bundle/gpu-s40b.sh VARIANT... > $OUT/log 2>&1, where VARIANT is a bundle
# (sa, ce, bu) or an apart-kinds variant of the main bundle (sk, rows).
cd "$(dirname "$0")" || exit 2
start=$(date +%s)
left() { echo $((${LIMIT_S:-550} - ($(date +%s) - start))); }
echo "== device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in "$@"; do
  echo "== $v against main at 32x1024, $(left) s left"
  [ "$(left)" -gt 100 ] || break
  case $v in
    sk|rows) timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 .:base .:"$v" | tee "$OUT/$v-32.txt" ;;
    *) timeout $(($(left) - 10)) bash bench/chain.sh -s 32x1024:2 . "$v" | tee "$OUT/$v-32.txt" ;;
  esac
done
date -u
