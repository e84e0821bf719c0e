"""npytool.py - .npy helpers for the runtime tests, standard library only (no numpy on the build machine).

  npytool.py write OUT.npy DTYPE SHAPE V1 V2 ...   DTYPE f32|f64|i32, SHAPE like 2x3 (or '' for rank 0)
  npytool.py show FILE.npy ...                     'NAME descr (shape): v1 v2 ...' (floats as %.9g)
  npytool.py words FILE.npy ...                    'NAME descr (shape): w1 w2 ...': each 4-byte element's
                                                   bits as an unsigned integer (f32 and i32 files)
  npytool.py same A.npy B.npy [A.npy B.npy ...]    'ok NAME' when shapes and values are identical
                                                   (f32 and f64 files compare by value), else 'FAIL ...'
"""
import os
import struct
import sys

FORMAT = {"<f4": "f", "<f8": "d", "<i4": "i"}
DESCR = {"f32": "<f4", "f64": "<f8", "i32": "<i4"}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x93NUMPY\x01\x00", path
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))
    assert header["fortran_order"] is False, path
    shape = tuple(header["shape"])
    count = 1
    for d in shape:
        count *= d
    fmt = FORMAT[header["descr"]]
    body = data[10 + length:]
    assert len(body) == count * struct.calcsize(fmt), path
    return header["descr"], shape, list(struct.unpack("<%d%s" % (count, fmt), body))


def write(path, dtype, shape, values):
    descr = DESCR[dtype]
    count = 1
    for d in shape:
        count *= d
    assert len(values) == count
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
        f.write(struct.pack("<%d%s" % (count, FORMAT[descr]), *values))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "write":
        path, dtype, shape_text = args[:3]
        shape = tuple(int(d) for d in shape_text.split("x")) if shape_text else ()
        conv = int if dtype == "i32" else float
        write(path, dtype, shape, [conv(v) for v in args[3:]])
    elif cmd == "show":
        for path in args:
            descr, shape, values = read(path)
            text = " ".join(str(v) if descr == "<i4" else "%.9g" % v for v in values)
            print("%s %s %s: %s" % (os.path.basename(path), descr, shape, text))
    elif cmd == "words":
        for path in args:
            descr, shape, values = read(path)
            assert descr in ("<f4", "<i4"), path
            words = struct.unpack("<%dI" % len(values), struct.pack("<%d%s" % (len(values), FORMAT[descr]), *values))
            print("%s %s %s: %s" % (os.path.basename(path), descr, shape, " ".join(str(w) for w in words)))
    elif cmd == "same":
        for a, b in zip(args[0::2], args[1::2]):
            da, sa, va = read(a)
            db, sb, vb = read(b)
            name = os.path.basename(b)
            if sa != sb:
                print("FAIL %s: shape %s vs %s" % (name, sa, sb))
            elif (da == "<i4") != (db == "<i4"):
                print("FAIL %s: %s vs %s" % (name, da, db))
            else:
                bad = [i for i, (x, y) in enumerate(zip(va, vb)) if x != y]
                print("ok %s" % name if not bad else "FAIL %s: %d of %d differ, first at %d: %r vs %r"
                      % (name, len(bad), len(va), bad[0], va[bad[0]], vb[bad[0]]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
