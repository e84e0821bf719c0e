# tokens.py OUT.npy T0 T1 ... - writes the given tokens as an int32 [S] .npy (standard library only).
import struct
import sys

tokens = [int(t) for t in sys.argv[2:]]
header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(tokens)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
    f.write(struct.pack("<%di" % len(tokens), *tokens))
