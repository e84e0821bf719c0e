# same.py REF DIR... - translation validation: every result*.npy of each DIR must be byte-identical to the
# one of REF (and there must be as many). Prints one line per DIR, "identical: DIR (N results)" or
# "DIFFERENT: DIR: resultK.npy (E of N elements differ, max |diff| D) ...", and exits 1 when any differs.
import os
import struct
import sys


def results(directory):
    names = sorted((n for n in os.listdir(directory) if n.startswith("result") and n.endswith(".npy")),
                   key=lambda n: int(n[len("result"):-len(".npy")]))
    return names


def values(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))
    fmt = {"<f4": "f", "<f8": "d", "<i4": "i"}[header["descr"]]
    body = data[10 + length:]
    return list(struct.unpack("<%d%s" % (len(body) // struct.calcsize(fmt), fmt), body))


def main(reference, others):
    wanted = results(reference)
    failed = False
    for other in others:
        have = results(other)
        problems = []
        if have != wanted:
            problems.append("results %s instead of %s" % (len(have), len(wanted)))
        for name in wanted:
            if name not in have:
                continue
            with open(os.path.join(reference, name), "rb") as a, open(os.path.join(other, name), "rb") as b:
                if a.read() == b.read():
                    continue
            x, y = values(os.path.join(reference, name)), values(os.path.join(other, name))
            if len(x) != len(y):
                problems.append("%s (shape differs)" % name)
                continue
            diffs = [abs(p - q) for p, q in zip(x, y) if struct.pack("<d", p) != struct.pack("<d", q)]
            problems.append("%s (%d of %d elements differ, max |diff| %.3g)" % (name, len(diffs), len(x), max(diffs)))
        if problems:
            failed = True
            print("DIFFERENT: %s: %s" % (other, "; ".join(problems)))
        else:
            print("identical: %s (%d results)" % (os.path.basename(other), len(wanted)))
    sys.exit(1 if failed else 0)


main(sys.argv[1], sys.argv[2:])
