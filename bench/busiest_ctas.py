#!/usr/bin/env python3
"""bench/busiest_ctas.py - what the busiest CTA of an interval ran, from a latch-run --trace file of a
program compiled with latch-lower-intervals{trace-tiles=true} (its tiles are events of cat "tile" on the
track of the CTA that ran them, docs/device-abi.md "Trace").

An interval whose busiest CTA works much longer than the mean CTA (trace report: "max us" >> "mean us")
is held up by that CTA: a long tile started late, or more tiles than its share. For each interval asked
for (a name or its "iN" prefix; by default the TOP intervals of the largest busiest-minus-mean CTA work)
this prints the interval's mean and busiest CTA work and the busiest CTA's tiles in order: start (from
the CTA's entry into the interval), duration, task kind, the task's index in the interval and the tile's
index in the task.

  python3 bench/busiest_ctas.py TRACE.json [INTERVAL ...] [--top N]
"""
import argparse
import json
import sys
from collections import defaultdict


def read(path):
    """(works, tiles): works[interval name][cta] = (ts, dur); tiles[(interval name, cta)] = tile events."""
    events = json.load(open(path))["traceEvents"]
    works, tiles = defaultdict(dict), defaultdict(list)
    for e in events:
        if e.get("ph") != "X":
            continue
        if e.get("cat") == "work":
            works[e["name"]][e["args"]["cta"]] = (e["ts"], e["dur"])
        elif e.get("cat") == "tile":
            tiles[(e["args"]["interval"], e["args"]["cta"])].append(e)
    if not works:
        sys.exit(f"busiest_ctas.py: {path} has no work events (a trace of latch-run --trace?)")
    return works, tiles


def pick(works, asked, top):
    """The interval names asked for (exact, or the 'iN' before the first dot), else the `top` of the largest
    busiest-minus-mean CTA work, in that order."""
    if asked:
        names = []
        for a in asked:
            found = [n for n in works if n == a or n.split(".")[0] == a]
            if not found:
                sys.exit(f"busiest_ctas.py: no interval '{a}' in the trace")
            names += found
        return names
    def excess(name):
        durations = [d for _, d in works[name].values()]
        return max(durations) - sum(durations) / len(durations)
    return sorted(works, key=excess, reverse=True)[:top]


def report(works, tiles, names, out=sys.stdout):
    for name in names:
        per_cta = works[name]
        durations = [d for _, d in per_cta.values()]
        cta, (start, busiest) = max(per_cta.items(), key=lambda kv: kv[1][1])
        print(f"{name}: mean CTA work {sum(durations) / len(durations):.1f} us, busiest CTA {cta} {busiest:.1f} us",
              file=out)
        ran = sorted(tiles.get((name, cta), []), key=lambda e: e["ts"])
        if not ran:
            print("  (no tile records: compile with latch-lower-intervals{trace-tiles=true})", file=out)
        for e in ran:
            print(f"  {e['ts'] - start:+9.1f} {e['dur']:8.1f} us  {e['name']:<28} task {e['args']['task']} "
                  f"tile {e['args']['tile']}", file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("intervals", nargs="*", help="interval names or their iN prefixes")
    ap.add_argument("--top", type=int, default=5, help="without INTERVAL: how many intervals (default 5)")
    args = ap.parse_args()
    works, tiles = read(args.trace)
    report(works, tiles, pick(works, args.intervals, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
