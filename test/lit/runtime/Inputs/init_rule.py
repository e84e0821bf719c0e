"""init_rule.py SEED P N STD DTYPE - the first N values of tensor P under the initialisation rule of
docs/task-dialect.md, worked out here from the text of the rule (not from support/init.c), printed %.9g.
DTYPE f32 or bf16 (values rounded to it); for i32, STD is the range R."""
import struct
import sys

M = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", f32(x)))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000) & M
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


seed, p, n = (int(a, 0) for a in sys.argv[1:4])
std, dtype = sys.argv[4], sys.argv[5]
key = splitmix64(splitmix64(seed) ^ p)
for i in range(n):
    if dtype == "i32":
        print(int((splitmix64((key + i) & M) >> 32) % int(float(std))))
        continue
    z = sum(float(splitmix64((key + 12 * i + j) & M) >> 40) * 2.0 ** -24 for j in range(12)) - 6.0
    v = z * float(std)
    print("%.9g" % (f32(v) if dtype == "f32" else bf16(v)))
