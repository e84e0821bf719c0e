#!/usr/bin/env python3
"""bench/code_sizes.py - how much SASS each interval of a compiled program runs, from its PTX (assembled here
by ptxas for sm_90a) or a cubin, and the manifest's task bodies ("body", docs/device-abi.md "The manifest").

In @latch_main a CTA runs each interval's tile bodies right after a grid barrier, often on code that the
update's data traffic evicted from L2 (docs/benchmarks.md, round twenty-six: about 0.5 us per KB fetched
from memory), while a staged kernel's launch brings its code in. An interval whose tiles are short beside
the code they need is a candidate to run apart (latch-lower-intervals{apart-kinds}). For each interval
this prints its tiles, the SASS bytes of its distinct tile bodies as compiled into `--kernel` (the cubin's
symbol table: `$KERNEL$task_body_N`, or the body's copy in another kernel when that one has none) and its
largest body, the largest intervals first.

With --apart-over KB it also prints the latch-lower-intervals option that runs apart every interval of
fewer than --round-robin-below tiles (latch-lower-intervals{counter-min-tiles}: only round-robin
intervals can run apart) whose bodies hold at least KB of code.

  python3 bench/code_sizes.py PROG.ptx [--cubin PROG.cubin] [--kernel latch_main] [--top N]
                              [--apart-over KB [--round-robin-below TILES]]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")


def function_sizes(cubin):
    """{symbol: bytes} of the cubin's FUNC symbols (readelf's symbol table)."""
    r = subprocess.run(["readelf", "-sW", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"code_sizes.py: readelf -sW {cubin} failed: {r.stderr.strip()}")
    sizes = {}
    for line in r.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[3] == "FUNC":
            sizes[fields[7]] = int(fields[2], 0)
    return sizes


def body_size(sizes, kernel, body):
    """The bytes of `body` as compiled into `kernel`, else its largest copy in any kernel, else None."""
    own = sizes.get(f"${kernel}${body}")
    if own is not None:
        return own
    copies = [size for name, size in sizes.items() if name.endswith(f"${body}")]
    return max(copies) if copies else None


def report(manifest, sizes, kernel, top, apart_over=None, round_robin_below=600):
    rows = []
    for interval in manifest["intervals"]:
        bodies = {}
        for task in interval.get("tasks", []):
            if task.get("body") and task["tiles"] > 0:
                bodies[task["body"]] = body_size(sizes, kernel, task["body"])
        known = {b: s for b, s in bodies.items() if s is not None}
        largest = max(known, key=known.get) if known else "-"
        rows.append((sum(known.values()), interval["name"], interval["tiles"], len(bodies), largest,
                     known.get(largest, 0), len(bodies) - len(known)))
    if not any(row[3] for row in rows):
        sys.exit("code_sizes.py: the manifest names no task bodies (compiled before \"body\" was recorded?)")
    total = sum(row[0] for row in rows)
    print(f"SASS of the tile bodies each interval runs (kernel {kernel}; {total / 1024:.1f} KB over "
          f"{len(rows)} intervals, distinct bodies counted once per interval):")
    print(f"  {'interval':32s} {'tiles':>6s} {'bodies':>6s} {'KB':>7s}  largest body")
    for code, name, tiles, count, largest, largest_bytes, missing in sorted(rows, reverse=True)[:top]:
        note = f"  ({missing} not in the cubin)" if missing else ""
        print(f"  {name:32s} {tiles:6d} {count:6d} {code / 1024:7.1f}  {largest} {largest_bytes / 1024:.1f} KB{note}")
    if apart_over is not None:
        numbers = [index for index, (code, _, tiles, *_) in enumerate(rows)
                   if tiles < round_robin_below and code >= apart_over * 1024]
        print(f"{len(numbers)} round-robin intervals with at least {apart_over:g} KB of code" + (":" if numbers else "."))
        if numbers:
            print("latch-lower-intervals{apart-intervals=" + ",".join(str(n) for n in numbers) + "}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", help="PROG.ptx, with PROG.ptx.manifest.json beside it")
    parser.add_argument("--cubin", help="the program assembled already (default: ptxas -arch=sm_90a here)")
    parser.add_argument("--kernel", default="latch_main", help="whose copies of the bodies to count")
    parser.add_argument("--top", type=int, default=30, help="intervals shown (default 30)")
    parser.add_argument("--apart-over", type=float, metavar="KB",
                        help="print apart-intervals for the round-robin intervals with at least KB of code")
    parser.add_argument("--round-robin-below", type=int, default=600, metavar="TILES",
                        help="intervals of fewer tiles run round robin (counter-min-tiles, default 600)")
    args = parser.parse_args()
    manifest_path = args.program + ".manifest.json"
    if not os.path.exists(manifest_path):
        sys.exit(f"code_sizes.py: no manifest {manifest_path}")
    manifest = json.load(open(manifest_path))
    with tempfile.TemporaryDirectory() as work:
        cubin = args.cubin
        if not cubin:
            cubin = os.path.join(work, "prog.cubin")
            r = subprocess.run([PTXAS, "-arch=sm_90a", args.program, "-o", cubin], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"code_sizes.py: {PTXAS} failed on {args.program}: {r.stderr.strip()[-2000:]}")
        sizes = function_sizes(cubin)
    if not any(name.startswith(f"${args.kernel}$") for name in sizes):  # the kernel's subroutines
        sys.exit(f"code_sizes.py: the cubin has no kernel {args.kernel}")
    report(manifest, sizes, args.kernel, args.top, args.apart_over, args.round_robin_below)


if __name__ == "__main__":
    main()
