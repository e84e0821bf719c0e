# mingap.py GAPS.npy THRESHOLD - prints the smallest value of GAPS.npy (distances of elements to a kink of
# the loss, written by latch-interp) and whether it is above THRESHOLD; exits 1 when it is not.
# Standard library only.
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x93NUMPY\x01\x00", path
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))  # a dict literal
    fmt = {"<f4": "f", "<f8": "d"}[header["descr"]]
    body = data[10 + length:]
    return struct.unpack("<%d%s" % (len(body) // struct.calcsize(fmt), fmt), body)


def main(path, threshold):
    smallest, threshold = min(read(path)), float(threshold)
    ok = smallest > threshold
    print("smallest distance to a kink: %.3e (%s: %s %.0e)" % (smallest, "ok" if ok else "FAIL",
                                                                "above" if ok else "not above", threshold))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main(*sys.argv[1:])
