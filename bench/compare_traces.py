#!/usr/bin/env python3
"""bench/compare_traces.py - two latch-run --trace files of one program (e.g. --mode=persistent against
--mode=staged, or a change against its base), interval by interval: where does the difference in update
time come from, the intervals' work or the hand-over between them?

For each interval of a trace: span (the first CTA's entry to the last CTA's end of work), mean and
busiest CTA work, and gap (from the interval's last end of work to the next interval's first entry: the
grid barrier's release in a persistent run, the kernel boundary in a staged one).

With --shared-sms N, also for each trace whose tracks name their SM (a persistent run): the N intervals
where the CTAs that work share an SM most, with how many SMs they used, how many of those ran two or more
working CTAs, and the median work of a CTA alone on its SM against one that shares it (docs/device-abi.md
"Spread CTAs": a wave of fewer tiles than CTAs may still put two on one SM).

With --first-tiles N, for two traces of trace-tiles builds (e.g. persistent against staged): the N tasks
whose CTAs' first tiles of an interval take longest in A against B, beside their later tiles (round
thirty-seven: the persistent kernel's first tiles run on code fetched from memory, and its attention
tiles share their SM with a second CTA).

With --kinds N: the intervals summed by kind (the name after "iK."): how many, their spans, and their wait,
span minus mean CTA work (the time a CTA of the interval waits at its end on average), in A and B; the N
kinds whose wait is largest in B (round thirty-eight: where the 2x1024 update waits after attention-kernels);
with --kinds-by span, the N whose spans grow most from A to B (round thirty-nine: staged against persistent,
where the persistent kernel loses).

  python3 bench/compare_traces.py A.json B.json [--top N] [--shared-sms N] [--first-tiles N] [--kinds N [--kinds-by span]]
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


def sm_sharing(path, top, busy=0.25):
    """Prints the `top` intervals of `path` whose busiest CTA on a shared SM outlasts the median CTA alone on
    its SM the most (a CTA counts as working when it works at least `busy` of the interval's busiest CTA:
    one without tiles still spends a few hundred nanoseconds)."""
    events = json.load(open(path))["traceEvents"]
    sm_of = {}
    for e in events:
        if e.get("name") == "thread_name" and " / CTA " in e["args"]["name"]:
            sm_of[e["tid"]] = e["args"]["name"].split(" / ")[0]
    if not sm_of:
        print(f"\n{path}: its tracks do not name their SM (not a persistent run?)")
        return
    works = defaultdict(list)
    for e in events:
        if e.get("cat") == "work" and e["tid"] in sm_of:
            works[(e["args"]["interval"], e["name"])].append((e["dur"], sm_of[e["tid"]]))
    median = lambda xs: sorted(xs)[len(xs) // 2] if xs else 0.0
    rows = []
    for (index, name), w in works.items():
        most = max(d for d, _ in w)
        w = [(d, sm) for d, sm in w if d >= busy * most]
        per_sm = defaultdict(int)
        for _, sm in w:
            per_sm[sm] += 1
        alone = [d for d, sm in w if per_sm[sm] == 1]
        shared = [d for d, sm in w if per_sm[sm] > 1]
        if alone and shared:
            rows.append((max(shared) - median(alone), index, name, len(w), len(per_sm),
                         sum(n > 1 for n in per_sm.values()), median(alone), median(shared)))
    rows.sort(reverse=True)
    print(f"\n{path}: intervals whose working CTAs share SMs (us: busiest shared - median alone; CTAs, SMs, "
          f"SMs shared; median work alone / shared)")
    for cost, index, name, ctas, sms, doubled, alone, shared in rows[:top]:
        print(f"  i{index} {name:28} {cost:+7.1f}   {ctas:4} CTAs on {sms:3} SMs, {doubled:3} shared   "
              f"{alone:6.1f} / {shared:6.1f}")


def first_tiles(path):
    """{(interval name, task, kind): ([first tile of each CTA], [its later tiles])} from the tile records
    (cat "tile": a trace-tiles build): a CTA's first tile of an interval runs the body's code first."""
    tiles = defaultdict(list)
    for e in json.load(open(path))["traceEvents"]:
        if e.get("cat") == "tile":
            tiles[(e["args"]["interval"], e["args"]["cta"])].append(e)
    out = defaultdict(lambda: ([], []))
    for run in tiles.values():
        run.sort(key=lambda e: e["ts"])
        for k, e in enumerate(run):
            out[(e["args"]["interval"], e["args"]["task"], e["name"])][k > 0].append(e["dur"])
    return out


def compare_first_tiles(path_a, path_b, top):
    """Prints the `top` tasks whose CTAs' first tiles take longest in A against B (median first tile
    difference times the first tiles, over the CTAs that ran them), with the later tiles' medians."""
    fa, fb = first_tiles(path_a), first_tiles(path_b)
    if not fa or not fb:
        print("\n--first-tiles: a trace has no tile records (compile with latch-lower-intervals{trace-tiles=true})")
        return
    median = lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan")
    rows = []
    for key in fa.keys() & fb.keys():
        (a_first, a_later), (b_first, b_later) = fa[key], fb[key]
        if a_first and b_first:
            rows.append(((median(a_first) - median(b_first)) * len(a_first), key, a_first, a_later, b_first, b_later))
    rows.sort(key=lambda r: -r[0])
    print(f"\ntasks by (A's median first tile - B's) x A's first tiles (CTA-us; first tiles: count, median us; later "
          f"tiles likewise):")
    for extra, (interval, task, kind), a_first, a_later, b_first, b_later in rows[:top]:
        print(f"  {interval:32} t{task} {kind[:28]:28} {extra:+9.1f}   A first {len(a_first):4} {median(a_first):6.2f}"
              f"  later {len(a_later):4} {median(a_later):6.2f} | B first {len(b_first):4} {median(b_first):6.2f}"
              f"  later {len(b_later):4} {median(b_later):6.2f}")


def compare_kinds(ra, rb, top, by="wait"):
    """Prints the `top` interval kinds by their summed wait (span - mean CTA work) in B, with A's; with
    by="span", by how much longer their spans are in B than in A."""
    sums = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])  # count, span A, wait A, span B, wait B
    for a, b in zip(ra, rb):
        row = sums[a["name"].split(".", 1)[-1]]
        row[0] += 1
        row[1] += a["span"]
        row[2] += a["span"] - a["mean"]
        row[3] += b["span"]
        row[4] += b["span"] - b["mean"]
    if by == "span":
        print(f"\ninterval kinds by span B - A (us; spans and waits, span - mean CTA work, summed; A / B):")
        order = lambda kv: kv[1][1] - kv[1][3]
    else:
        print(f"\ninterval kinds by wait in B (us; span - mean CTA work, summed; A / B):")
        order = lambda kv: -kv[1][4]
    for kind, (count, span_a, wait_a, span_b, wait_b) in sorted(sums.items(), key=order)[:top]:
        print(f"  {kind:32} {count:4} intervals   span {span_a:8.1f} / {span_b:8.1f}   wait {wait_a:7.1f} / {wait_b:7.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--top", type=int, default=25, help="intervals listed by the difference of their spans")
    ap.add_argument("--shared-sms", type=int, default=0, metavar="N",
                    help="also list each persistent trace's N intervals whose working CTAs share SMs most")
    ap.add_argument("--first-tiles", type=int, default=0, metavar="N",
                    help="with tile records in both traces: the N tasks whose CTAs' first tiles lose most in A")
    ap.add_argument("--kinds", type=int, default=0, metavar="N",
                    help="also the N interval kinds with the most wait (span - mean CTA work) in B, beside A's")
    ap.add_argument("--kinds-by", choices=("wait", "span"), default="wait",
                    help="with --kinds: order the kinds by their wait in B (default) or by their span in B minus A's")
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
    if args.kinds > 0:
        compare_kinds(ra, rb, args.kinds, args.kinds_by)
    for path in (args.a, args.b) if args.shared_sms > 0 else ():
        sm_sharing(path, args.shared_sms)
    if args.first_tiles > 0:
        compare_first_tiles(args.a, args.b, args.first_tiles)


if __name__ == "__main__":
    main()
