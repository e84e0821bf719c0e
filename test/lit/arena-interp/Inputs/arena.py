# arena.py - helpers of the byte-arena interpreter tests (standard library only; numpy is not needed).
#   arena.py inputs DIR                 writes DIR/x.npy and DIR/y.npy: two f32 [16] inputs of the planted
#                                       defect programs (exact binary fractions, none equal to another's)
#   arena.py expect KIND RESULT.npy DIR prints, for each formula of program KIND (accumulated-gradient or
#                                       packed-buffer), whether RESULT (fp64) equals it bit for bit on the
#                                       inputs of DIR: "correct: yes|no", "defect: yes|no"
#   arena.py same A.npy B.npy           "same" when the two files are byte-identical, else "differ: ..."
#   arena.py nan RESULT.npy             prints the indices of the NaN elements: "nan: 0 1"
#   arena.py f32-bits RESULT.npy X.npy  "f32-bits: yes" when the i32 RESULT holds the bit patterns of the f32
#                                       elements of X (what memory holding X reads as i32), else "no"
import math
import struct
import sys


def write(path, fmt, shape, values):
    descr = {"f": "<f4", "d": "<f8", "i": "<i4"}[fmt]
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x93NUMPY\x01\x00", path
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))
    fmt = {"<f4": "f", "<f8": "d", "<i4": "i"}[header["descr"]]
    count = 1
    for d in header["shape"]:
        count *= d
    return list(struct.unpack("<%d%s" % (count, fmt), data[10 + length:]))


def bits(x):
    return struct.pack("<d", x)


FORMULAS = {
    # docs in the headers of test/lit/passes/Inputs/defect-*.mlir, in the programs' operation order
    "accumulated-gradient": {
        "correct": lambda x, y: ((x + x) + x * y) * 0.5,
        "defect": lambda x, y: ((y + 1.0) + x * y) * 0.5,
    },
    "packed-buffer": {
        "correct": lambda x, y: (x + x) + y * 3.0,
        "defect": lambda x, y: (x + y) + y * 3.0,
    },
}


def main(argv):
    if argv[1] == "inputs":
        xs = [(i - 7) / 8.0 for i in range(16)]
        ys = [(3 * i + 1) / 16.0 for i in range(16)]
        write(argv[2] + "/x.npy", "f", (16,), xs)
        write(argv[2] + "/y.npy", "f", (16,), ys)
    elif argv[1] == "expect":
        result = read(argv[3])
        xs, ys = read(argv[4] + "/x.npy"), read(argv[4] + "/y.npy")
        for name, formula in FORMULAS[argv[2]].items():
            ok = len(result) == 16 and all(bits(r) == bits(formula(x, y)) for r, x, y in zip(result, xs, ys))
            print("%s: %s" % (name, "yes" if ok else "no"))
    elif argv[1] == "same":
        with open(argv[2], "rb") as a, open(argv[3], "rb") as b:
            first, second = a.read(), b.read()
        if first == second:
            print("same")
        else:
            print("differ: %s %s" % (read(argv[2])[:4], read(argv[3])[:4]))
    elif argv[1] == "nan":
        print(("nan: " + " ".join(str(i) for i, v in enumerate(read(argv[2])) if math.isnan(v))).rstrip())
    elif argv[1] == "f32-bits":
        result, xs = read(argv[2]), read(argv[3])
        wanted = [struct.unpack("<i", struct.pack("<f", x))[0] for x in xs]
        print("f32-bits:", "yes" if result == wanted else "no %s %s" % (result[:4], wanted[:4]))
    else:
        sys.exit("unknown command " + argv[1])


main(sys.argv)
