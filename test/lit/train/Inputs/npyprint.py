# npyprint.py FILE.npy... - prints each file's name, shape and values (%.17g), one line per file, for
# FileCheck. Standard library only.
import os
import struct
import sys

for path in sys.argv[1:]:
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x93NUMPY\x01\x00", path
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))  # a dict literal
    fmt = {"<f4": "f", "<f8": "d", "<i4": "i"}[header["descr"]]
    body = data[10 + length:]
    values = struct.unpack("<%d%s" % (len(body) // struct.calcsize(fmt), fmt), body)
    print("%s %s: %s" % (os.path.basename(path), tuple(header["shape"]), " ".join("%.17g" % v for v in values)))
