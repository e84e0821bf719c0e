# losses.py LOG STEPS RATIO - reads the output of latch-interp --train-steps STEPS ('step K loss L' lines,
# then 'final loss L after STEPS updates'), checks that every step is there in order and that the final
# loss is at most RATIO times the first; prints the figures. Exits 1 when a check fails.
import re
import sys


def main(log, steps, ratio):
    steps, ratio = int(steps), float(ratio)
    losses, final = [], None
    for line in open(log):
        m = re.match(r"step (\d+) loss (\S+)$", line.strip())
        if m:
            assert int(m.group(1)) == len(losses) + 1, "steps out of order: " + line
            losses.append(float(m.group(2)))
            continue
        m = re.match(r"final loss (\S+) after (\d+) updates$", line.strip())
        if m:
            assert int(m.group(2)) == steps, line
            final = float(m.group(1))
    assert len(losses) == steps, "expected %d steps, got %d" % (steps, len(losses))
    assert final is not None, "no final loss line"
    marks = [1] + [k for k in (10, 25, 50, 75) if k < steps] + [steps]
    print("losses: " + ", ".join("step %d %.4f" % (k, losses[k - 1]) for k in marks) + ", final %.4f" % final)
    ok = final <= ratio * losses[0]
    print("%s: final loss %.4f %s %g x first loss %.4f (ratio %.3f)" % (
        "ok" if ok else "FAIL", final, "<=" if ok else ">", ratio, losses[0], final / losses[0]))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main(*sys.argv[1:])
