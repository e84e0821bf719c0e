"""tile_ranges.py KERNEL.mlir GRIDS: evaluates the top-level integer arithmetic of @latch_main's tile loops
(latch-lower-intervals{balance-cost=true}) for every CTA of each grid size in GRIDS (e.g. 1-300 or
264) and checks that each loop's ranges [lo, hi) of the CTAs, in CTA order, cover its tiles
0 .. total - 1 exactly once, with the same totals for every grid. Prints the loops' totals."""
import re
import sys

OPS = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
       "divui": lambda a, b: a // b, "maxsi": max, "minsi": min}


def loops_of(lines, cta, grid):
    env, loops = {}, []
    for line in lines:
        if m := re.match(r"\s*(%\S+) = arith\.constant (-?\d+) : i(32|64)$", line):
            env[m.group(1)] = int(m.group(2))
        elif m := re.match(r"\s*(%\S+) = nvvm\.read\.ptx\.sreg\.ctaid\.x : i32$", line):
            env[m.group(1)] = cta
        elif m := re.match(r"\s*(%\S+) = nvvm\.read\.ptx\.sreg\.nctaid\.x : i32$", line):
            env[m.group(1)] = grid
        elif m := re.match(r"\s*(%\S+) = arith\.(extui|trunci) (%\S+) : i\d+ to i\d+$", line):
            if m.group(3) in env:
                env[m.group(1)] = env[m.group(3)]
        elif m := re.match(r"\s*(%\S+) = arith\.(\w+) (%\S+), (%\S+) : i(32|64)$", line):
            a, b = env.get(m.group(3)), env.get(m.group(4))
            if m.group(2) in OPS and a is not None and b is not None:
                env[m.group(1)] = OPS[m.group(2)](a, b)
        elif m := re.match(r"\s*scf\.for %\S+ = (%\S+) to (%\S+) step (%\S+)\s*: i32 \{$", line):
            loops.append((env[m.group(1)], env[m.group(2)], env[m.group(3)]))
    return loops


def main():
    text = open(sys.argv[1]).read()
    body = text[text.index("gpu.func @latch_main"):]
    body = body[:body.index("gpu.return")]
    indent = re.search(r"\n(\s+)%\S+ = nvvm\.read\.ptx\.sreg\.ctaid", body).group(1)
    lines = [l for l in body.splitlines() if l.startswith(indent) and not l.startswith(indent + " ")]
    first, _, last = sys.argv[2].partition("-")
    totals = None
    for grid in range(int(first), int(last or first) + 1):
        per_cta = [loops_of(lines, cta, grid) for cta in range(grid)]
        count = len(per_cta[0])
        ends = [per_cta[-1][k][1] for k in range(count)]
        for k in range(count):
            covered = []
            for cta in range(grid):
                lo, hi, step = per_cta[cta][k]
                assert step == 1, f"grid {grid} loop {k}: step {step}"
                covered.extend(range(lo, hi))
            assert covered == list(range(ends[k])), f"grid {grid} loop {k}: tiles {covered}"
        assert totals in (None, ends), f"grid {grid}: totals {ends}, not {totals}"
        totals = ends
    print(f"loops {len(totals)}, tiles {' '.join(map(str, totals))}: each tile on one CTA for grids {sys.argv[2]}")


main()
