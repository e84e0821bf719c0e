# badnpy.py DIR - writes the .npy files of errors.mlir: valid ones holding bad indices, and malformed ones.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyio  # noqa: E402

d = sys.argv[1]
os.makedirs(d, exist_ok=True)


def path(name):
    return os.path.join(d, name)


def raw(name, header, body, version=b"\x01\x00"):
    header = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path(name), "wb") as f:
        f.write(b"\x93NUMPY" + version + struct.pack("<H", len(header)) + header.encode() + body)


npyio.write(path("ids_bad.npy"), "i32", (4,), [0, 9, 1, 2])      # 9 is outside [0, 4)
npyio.write(path("ids_ok.npy"), "i32", (4,), [0, 3, 1, 2])
npyio.write(path("ids_shape.npy"), "i32", (2, 2), [0, 1, 2, 3])
npyio.write(path("ids_f4.npy"), "f32", (4,), [0.0, 1.0, 2.0, 3.0])
npyio.write(path("table_nonfinite.npy"), "f64", (4, 3),
            [float("nan"), 1.0, float("inf"), 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, float("-inf")])
npyio.write(path("x43.npy"), "f32", (4, 3), [0.0] * 12)
npyio.write(path("idx_bad.npy"), "i32", (2,), [1, 4])
npyio.write(path("targets_bad.npy"), "i32", (2,), [0, -1])
npyio.write(path("logits.npy"), "f32", (2, 3), [0.0] * 6)
npyio.write(path("bucket_ids.npy"), "i32", (2, 2), [0, 2, 3, 1])  # 3 is outside [0, 3)
npyio.write(path("ends_bad.npy"), "i32", (2,), [3, 2])            # decreasing
npyio.write(path("step0.npy"), "i32", (), [0])
ids = struct.pack("<4i", 0, 1, 2, 3)
raw("truncated.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", ids[:12])
raw("fortran.npy", "{'descr': '<i4', 'fortran_order': True, 'shape': (4,), }", ids)
raw("bigendian.npy", "{'descr': '>i4', 'fortran_order': False, 'shape': (4,), }", ids)
raw("version2.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", ids, version=b"\x02\x00")
raw("no_order.npy", "{'descr': '<i4', 'shape': (4,), }", ids)
raw("bad_shape.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (4 ,x), }", ids)
with open(path("not_npy.npy"), "wb") as f:
    f.write(b"this is not a numpy file at all")
