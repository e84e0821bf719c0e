# npyio.py - minimal .npy v1.0 reading and writing with the standard library only (numpy is not needed),
# plus the bf16/f32 roundings of the initialisation rule, for the latch-interp tests.
import struct

DESCR = {"f32": "<f4", "f64": "<f8", "i32": "<i4"}
FORMAT = {"<f4": "f", "<f8": "d", "<i4": "i"}


def write(path, dtype, shape, values):
    """Writes `values` (flat, row-major) as a .npy of `dtype` ('f32', 'f64', 'i32' or a raw descr)."""
    descr = DESCR.get(dtype, dtype)
    shape = tuple(shape)
    count = 1
    for d in shape:
        count *= d
    assert len(values) == count, (path, shape, len(values))
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
        f.write(struct.pack("<%d%s" % (count, FORMAT[descr]), *values))


def read(path):
    """Returns (descr, shape, flat values) of a .npy file written by latch-interp."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x93NUMPY\x01\x00", path
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))  # a dict literal
    assert header["fortran_order"] is False
    shape = tuple(header["shape"])
    count = 1
    for d in shape:
        count *= d
    body = data[10 + length:]
    fmt = FORMAT[header["descr"]]
    assert len(body) == count * struct.calcsize(fmt), path
    return header["descr"], shape, list(struct.unpack("<%d%s" % (count, fmt), body))


def f32(x):
    """x rounded to the nearest f32 (ties to even), as a Python float."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def bf16(x):
    """x rounded to f32, then to bf16 (round to nearest even on the bit pattern)."""
    bits = struct.unpack("<I", struct.pack("<f", f32(x)))[0]
    if (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF):
        bits |= 0x00400000
    else:
        bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
