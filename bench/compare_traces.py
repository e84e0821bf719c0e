#!/usr/bin/env python3
"""bench/compare_traces.py - two latch-run --trace files of one program (e.g. --mode=persistent against
--mode=staged, or a change against its base), interval by interval: where does the difference in update
time come from, the intervals' work or the hand-over between them?

For each interval of a trace: span (the first CTA's entry to the last CTA's end of work), mean and
busiest CTA work, and gap (from the interval's last end of work to the next interval's first entry: the
grid barrier's release in a persistent run, the kernel boundary in a staged one).

  python3 bench/compare_traces.py A.json B.json [--top N]
"""
import argparse
import json
import sys
from collections import defaultdict


def intervals_of(path):
    """{interval index: dict(name, enter, done, works)} from the trace's work events."""
    events = json.load(open(path))["traceEvents"]
    out = defaultdict(lambda: dict(name="", enter=float("inf"), done=0.0, works=[]))
    for e in events:
        if e.get("cat") != "work":
            continue
        i = e["args"]["interval"]
        row = out[i]
        row["name"] = e["name"]
        row["enter"] = min(row["enter"], e["ts"])
        row["done"] = max(row["done"], e["ts"] + e["dur"])
        row["works"].append(e["dur"])
    if not out:
        sys.exit(f"compare_traces.py: {path} has no work events (a trace of latch-run --trace?)")
    rows = [dict(index=i, **out[i]) for i in sorted(out)]
    for a, b in zip(rows, rows[1:] + [None]):
        a["span"] = a["done"] - a["enter"]
        a["gap"] = (b["enter"] - a["done"]) if b else 0.0
        a["mean"] = sum(a["works"]) / len(a["works"])
        a["busiest"] = max(a["works"])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--top", type=int, default=25, help="intervals listed by the difference of their spans")
    args = ap.parse_args()
    ra, rb = intervals_of(args.a), intervals_of(args.b)
    if len(ra) != len(rb):
        sys.exit(f"compare_traces.py: the traces have {len(ra)} and {len(rb)} intervals (not one schedule?)")
    renamed = sum(a["name"] != b["name"] for a, b in zip(ra, rb))
    if renamed:
        print(f"note: {renamed} intervals are named differently; they are compared by index, under A's names")
    total = lambda rows, key: sum(r[key] for r in rows)
    whole = lambda rows: rows[-1]["done"] - rows[0]["enter"]
    print(f"{'':24} {'A':>12} {'B':>12} {'B - A':>12}")
    for label, fa in (("first entry to last end", whole), ("sum of spans", lambda r: total(r, "span")),
                      ("sum of gaps", lambda r: total(r, "gap")), ("sum of mean CTA work", lambda r: total(r, "mean")),
                      ("sum of busiest CTA work", lambda r: total(r, "busiest"))):
        va, vb = fa(ra), fa(rb)
        print(f"{label:24} {va:10.1f}us {vb:10.1f}us {vb - va:+10.1f}us")
    print(f"\nintervals by span B - A (us; A / B: span, mean CTA work, busiest CTA work, gap after):")
    order = sorted(range(len(ra)), key=lambda i: -abs(rb[i]["span"] - ra[i]["span"]))
    for i in order[: args.top]:
        a, b = ra[i], rb[i]
        print(f"  {a['name']:32} {b['span'] - a['span']:+8.1f}   span {a['span']:7.1f} / {b['span']:7.1f}   "
              f"mean {a['mean']:7.1f} / {b['mean']:7.1f}   busiest {a['busiest']:7.1f} / {b['busiest']:7.1f}   "
              f"gap {a['gap']:5.1f} / {b['gap']:5.1f}")


if __name__ == "__main__":
    main()
