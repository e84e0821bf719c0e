# rules.py - checks of latch-interp's --init / --random-inputs rule and of --emulate, recomputed here
# from the rule as docs/task-dialect.md writes it ("Initialisation", "Precision").
#
#   rules.py init-check RUN1 RUN1_AGAIN RUN_SEED43 RUN_W_GIVEN   (result directories of init.mlir)
#   rules.py emulate-gen DIR / rules.py emulate-check MODE DIR   (emulate.mlir)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyio  # noqa: E402

M = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def key(seed, p):
    return splitmix64(splitmix64(seed) ^ p)


def normal(k, i):
    return sum((splitmix64((k + 12 * i + j) & M) >> 40) * 2.0 ** -24 for j in range(12)) - 6.0


def floats(seed, p, n, std, dtype):
    round_to = {"f32": npyio.f32, "bf16": npyio.bf16, "f64": lambda v: v}[dtype]
    return [round_to(normal(key(seed, p), i) * std) for i in range(n)]


def index_values(seed, p, n, r):
    return [(splitmix64((key(seed, p) + i) & M) >> 32) % r for i in range(n)]


def results(directory):
    out = []
    while os.path.exists(os.path.join(directory, "result%d.npy" % len(out))):
        out.append(npyio.read(os.path.join(directory, "result%d.npy" % len(out))))
    return out


def expect(what, got, want):
    if got != want:
        print("FAIL %s:\n  got  %r\n  want %r" % (what, got, want))
        sys.exit(1)
    print("ok %s" % what)


def init_check(run1, again, seed43, w_given):
    # The generator itself: splitmix64's well-known first output from state 0.
    expect("splitmix64(0)", hex(splitmix64(0)), "0xe220a8397b1dcdaf")
    r = results(run1)
    # @params: w f32 3x4 (param 0), b bf16 5 std 1 (param 1), g ones (param 2), z zeros f64 (param 3),
    # x f64 2x3 std 0.5 (input, position 4), ids i32 6 range 7 (input, position 5), h f64 std 1 (param 4),
    # y f32 4 (input, position 7).
    expect("w", r[0][2], floats(42, 0, 12, 0.02, "f32"))
    expect("b", r[1][2], floats(42, 1, 5, 1.0, "bf16"))
    expect("g", r[2][2], [1.0] * 4)
    expect("z", r[3][2], [0.0] * 2)
    expect("x", r[4][2], floats(7, 1000004, 6, 0.5, "f64"))
    expect("ids", (r[5][0], r[5][2]), ("<i4", index_values(7, 1000005, 6, 7)))
    expect("h", r[6][2], floats(42, 4, 3, 1.0, "f64"))
    expect("y", r[7][2], floats(7, 1000007, 4, 0.02, "f32"))
    expect("bf16 values have 8 significant bits", all(v == npyio.bf16(v) for v in r[1][2]), True)
    expect("deterministic", results(again), r)
    other = results(seed43)
    expect("another seed changes params", other[0][2] != r[0][2] and other[6][2] != r[6][2], True)
    expect("another seed keeps inputs", other[4][2] == r[4][2], True)
    # w given by --input (all 0.5): the other params keep their index among the params.
    given = results(w_given)
    expect("w from --input", given[0][2], [0.5] * 12)
    expect("b unchanged when w is given", given[1][2], r[1][2])
    expect("h unchanged when w is given", given[6][2], r[6][2])


X = [1.0 + 2.0 ** -20, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -9, 3.141592653589793]
D = [1.0 + 2.0 ** -40, 0.1]


def emulate_gen(directory):
    os.makedirs(directory, exist_ok=True)
    npyio.write(os.path.join(directory, "x.npy"), "f64", (4,), X)
    npyio.write(os.path.join(directory, "d.npy"), "f64", (2,), D)


def emulate_check(mode, directory):
    f32, bf16 = npyio.f32, npyio.bf16
    ident = lambda v: v  # noqa: E731
    # @em returns: reshape(x) : f32, convert(x) : bf16, reshape(d) : f64, convert(convert(x) : bf16) : f32,
    # and matmul(x as 1x4, x as 4x1) : bf16 x bf16 -> f32.
    if mode == "none":
        xs, r0, r1, r2, r3 = X, ident, ident, ident, ident
    elif mode == "fp32":
        xs, r0, r1, r2, r3 = [f32(v) for v in X], ident, ident, f32, ident
    else:  # bf16: f32 tensors round to f32, bf16 tensors to bf16, f64 stays
        xs, r0, r1, r2, r3 = [f32(v) for v in X], ident, bf16, ident, bf16
    want = [[r0(v) for v in xs], [r1(v) for v in xs], [r2(v) for v in D], [r3(v) for v in xs]]
    xb = [bf16(v) for v in xs] if mode == "bf16" else xs
    dot = sum(v * v for v in xb)
    want.append([f32(dot) if mode != "none" else dot])
    got = [values for _, _, values in results(directory)]
    expect("emulate=%s" % mode, got, want)


if __name__ == "__main__":
    if sys.argv[1] == "init-check":
        init_check(*sys.argv[2:6])
    elif sys.argv[1] == "emulate-gen":
        emulate_gen(sys.argv[2])
    else:
        emulate_check(sys.argv[2], sys.argv[3])
