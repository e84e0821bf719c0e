#!/bin/sh
# bench/carry.sh - on the build machine, from the repository root: how much of a device call's 64 MiB the
# tracked tree and .bundle take (the device tool carries both), and WHAT TO DO when it is too much.
#   bench/carry.sh WHO 'WHAT TO DO'
carried=$(( $(git ls-files -z | xargs -0 du -cb --apparent-size | tail -1 | cut -f1) + $(du -sb --apparent-size .bundle | cut -f1) ))
echo "$1: a call carrying .bundle sends $((carried / 1048576)) MiB of its 64$([ $carried -gt 67108864 ] && echo ": too much, $2")"
