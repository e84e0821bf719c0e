# cases.py - per-op test cases of latch-interp: inputs and the results expected from the definitions
# (reference.py), never from the interpreter's own output.
#
#   cases.py gen GROUP DIR     writes DIR/CASE/NAME.npy for every case of GROUP
#   cases.py check GROUP DIR   compares DIR/CASE/resultK.npy with the expected values; prints "ok CASE"
import math
import os
import random
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyio  # noqa: E402
import reference as ref  # noqa: E402

CASES = {}


def case(group, tol=1e-12):
    """Registers fn(rnd) -> (inputs {name: (dtype, shape, values)}, expected [(kind, shape, values)])."""
    def register(fn):
        CASES.setdefault(group, {})[fn.__name__] = (fn, tol)
        return fn
    return register


def floats(rnd, shape, lo=-2.0, hi=2.0):
    return shape, [rnd.uniform(lo, hi) for _ in range(ref.count(shape))]


def ints(rnd, shape, lo, hi):
    return shape, [rnd.randint(lo, hi) for _ in range(ref.count(shape))]


def F(t):
    return ("f",) + tuple(t)


def I(t):
    return ("i",) + tuple(t)


# ---- matmul, grouped_matmul ----

@case("matmul")
def nn(rnd):
    a, b = floats(rnd, (3, 4)), floats(rnd, (4, 5))
    return {"arg0": ("f64", *a), "arg1": ("f64", *b)}, [F(ref.matmul(a, b, False, False))]


@case("matmul")
def tn(rnd):
    a, b = floats(rnd, (4, 3)), floats(rnd, (4, 5))
    return {"arg0": ("f64", *a), "arg1": ("f64", *b)}, [F(ref.matmul(a, b, True, False))]


@case("matmul")
def nt(rnd):
    a, b = floats(rnd, (3, 4)), floats(rnd, (5, 4))
    return {"arg0": ("f64", *a), "arg1": ("f64", *b)}, [F(ref.matmul(a, b, False, True))]


@case("matmul")
def tt(rnd):
    a, b = floats(rnd, (4, 3)), floats(rnd, (5, 4))
    return {"arg0": ("f64", *a), "arg1": ("f64", *b)}, [F(ref.matmul(a, b, True, True))]


@case("matmul")
def batched(rnd):
    # bf16 arguments read from '<f4' files: f32 values are kept exactly without --emulate.
    a = (2, 3, 4), [npyio.f32(v) for v in floats(rnd, (2, 3, 4))[1]]
    b = (2, 5, 4), [npyio.f32(v) for v in floats(rnd, (2, 5, 4))[1]]
    return {"arg0": ("f32", *a), "arg1": ("f32", *b)}, [F(ref.matmul(a, b, False, True))]


@case("matmul")
def wide(rnd):
    a, b = floats(rnd, (2, 3)), floats(rnd, (3, 2))
    return {"arg0": ("f64", *a), "arg1": ("f64", *b)}, [F(ref.matmul(a, b, False, False))]


@case("grouped-matmul")
def gmm(rnd):
    x, w = floats(rnd, (7, 3)), floats(rnd, (3, 3, 2))
    ends = (3,), [2, 2, 5]  # group 1 is empty, rows 5 and 6 are zero
    return ({"x": ("f64", *x), "w": ("f64", *w), "ends": ("i32", *ends)},
            [F(ref.grouped_matmul(x, w, ends))])


@case("grouped-matmul")
def gmm_full(rnd):
    x, w = floats(rnd, (4, 2)), floats(rnd, (2, 2, 3))
    ends = (2,), [1, 4]
    return ({"x": ("f64", *x), "w": ("f64", *w), "ends": ("i32", *ends)},
            [F(ref.grouped_matmul(x, w, ends))])


# ---- map ----

@case("map")
def silu_mul(rnd):
    a, b = floats(rnd, (2, 3)), floats(rnd, (2, 3))
    y = [ai / (1.0 + math.exp(-ai)) * bi for ai, bi in zip(a[1], b[1])]
    return {"a": ("f64", *a), "b": ("f64", *b)}, [F(((2, 3), y))]


@case("map")
def broadcast(rnd):
    s, x = ((), [1.5]), floats(rnd, (4,))
    x = ((4,), [x[1][0], -abs(x[1][1]), abs(x[1][2]), 0.0])
    scaled = [1.5 * v for v in x[1]]
    relu = [v if v > 0 else 0.0 for v in x[1]]
    return {"s": ("f64", *s), "x": ("f64", *x)}, [F(((4,), scaled)), F(((4,), relu))]


@case("map")
def integers(rnd):
    i = (5,), [7, -7, 0, 2147483647, -3]
    x = (5,), [npyio.f32(v) for v in (2.9, -2.9, 0.4, -0.6, 100.5)]
    # out0 = fptosi(x) * 3 + i * 2 + divsi(i, 2) (wrapping at 32 bits); out1 = sitofp(i) * x
    def wrap32(v):
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v
    out0 = [wrap32(int(xv) * 3 + iv * 2 + ref.trunc_div(iv, 2)) for iv, xv in zip(i[1], x[1])]
    out1 = [float(iv) * xv for iv, xv in zip(i[1], x[1])]
    return {"arg0": ("i32", *i), "arg1": ("f32", *x)}, [I(((5,), out0)), F(((5,), out1))]


@case("map")
def mathops(rnd):
    x = (6,), [-1.7, -0.3, 0.0, 0.2, 0.9, 2.5]
    o0 = [math.tanh(v) + math.erf(v) for v in x[1]]
    o1 = [math.sqrt(abs(v)) * (1.0 / math.sqrt(abs(v) + 1.0)) for v in x[1]]
    o2 = [math.log(abs(v) + 1.0) - math.sin(v) * math.cos(v) for v in x[1]]
    o3 = [abs(v) ** 1.5 for v in x[1]]
    o4 = [min(v, 0.5) + max(v, -0.5) for v in x[1]]
    return {"x": ("f64", *x)}, [F(((6,), o)) for o in (o0, o1, o2, o3, o4)]


@case("map")
def no_inputs(rnd):
    return {}, [I(((3,), [7, 7, 7]))]


@case("map")
def compare_select(rnd):
    a = (6,), [1.0, 2.0, math.nan, -1.0, 3.0, 0.0]
    b = (6,), [2.0, 2.0, 1.0, -2.0, math.nan, -0.0]
    # out = (a olt b) ? a : ((a uge b) ? b : 42)   -- ordered vs unordered compares
    out = []
    for x, y in zip(a[1], b[1]):
        unordered = math.isnan(x) or math.isnan(y)
        if not unordered and x < y:
            out.append(x)
        elif unordered or x >= y:
            out.append(y)
        else:
            out.append(42.0)
    return {"a": ("f64", *a), "b": ("f64", *b)}, [F(((6,), out))]


# ---- reduce, rmsnorm, softmax, cross_entropy ----

@case("reduce")
def sum0(rnd):
    x = floats(rnd, (2, 3, 4))
    return {"arg0": ("f64", *x)}, [F(ref.reduce(x, 0, "sum"))]


@case("reduce")
def max2(rnd):
    x = floats(rnd, (2, 3, 4))
    return {"arg0": ("f64", *x)}, [F(ref.reduce(x, 2, "max"))]


@case("reduce")
def mean1(rnd):
    x = floats(rnd, (2, 3, 4))
    return {"arg0": ("f64", *x)}, [F(ref.reduce(x, 1, "mean"))]


@case("reduce")
def isum(rnd):
    x = ints(rnd, (3, 4), -100, 100)
    return {"arg0": ("i32", *x)}, [I(ref.reduce(x, 1, "sum"))]


@case("reduce")
def to_scalar(rnd):
    x = floats(rnd, (5,))
    return {"arg0": ("f64", *x)}, [F(ref.reduce(x, 0, "sum"))]


@case("rmsnorm")
def rms3(rnd):
    x, w = floats(rnd, (2, 3, 4)), floats(rnd, (4,))
    return {"x": ("f64", *x), "w": ("f64", *w)}, [F(ref.rmsnorm(x, w, 1e-5))]


@case("rmsnorm")
def rms_small(rnd):
    # Tiny inputs: eps matters.
    x, w = floats(rnd, (2, 3), -1e-3, 1e-3), floats(rnd, (3,))
    return {"x": ("f64", *x), "w": ("f64", *w)}, [F(ref.rmsnorm(x, w, 1e-5))]


@case("softmax")
def sm(rnd):
    x = (3, 5), [1000.0, 1001.0, 999.0, 998.5, 1000.0] + floats(rnd, (10,))[1]
    return {"x": ("f64", *x)}, [F(ref.softmax(x))]


@case("softmax")
def sm3(rnd):
    x = floats(rnd, (2, 2, 3), -30, 30)
    return {"x": ("f64", *x)}, [F(ref.softmax(x))]


@case("cross-entropy", tol=1e-11)
def ce(rnd):
    logits, targets = floats(rnd, (4, 6), -5, 5), ((4,), [0, 5, 2, 2])
    return {"logits": ("f64", *logits), "targets": ("i32", *targets)}, [F(ref.cross_entropy(logits, targets))]


@case("cross-entropy", tol=1e-11)
def ce_large(rnd):
    logits, targets = floats(rnd, (3, 4), 500, 900), ((3,), [3, 1, 0])
    return {"logits": ("f64", *logits), "targets": ("i32", *targets)}, [F(ref.cross_entropy(logits, targets))]


# ---- embedding, rope, attention ----

@case("embedding")
def emb(rnd):
    table, ids = floats(rnd, (5, 3)), ((2, 3), [4, 0, 2, 2, 1, 4])
    return {"table": ("f32", table[0], [npyio.f32(v) for v in table[1]]), "ids": ("i32", *ids)}, \
        [F(ref.embedding(((5, 3), [npyio.f32(v) for v in table[1]]), ids))]


@case("embedding")
def emb1(rnd):
    table, ids = floats(rnd, (4, 2)), ((3,), [3, 3, 0])
    return {"table": ("f64", *table), "ids": ("i32", *ids)}, [F(ref.embedding(table, ids))]


@case("rope")
def rope_big_theta(rnd):
    x = floats(rnd, (2, 4, 2, 6))
    return {"x": ("f64", *x)}, [F(ref.rope(x, 10000.0))]


@case("rope")
def rope_small_theta(rnd):
    x = floats(rnd, (1, 5, 1, 4))
    return {"x": ("f64", *x)}, [F(ref.rope(x, 3.0))]


@case("attention")
def causal(rnd):
    q, k, v = floats(rnd, (1, 2, 4, 3)), floats(rnd, (1, 2, 4, 3)), floats(rnd, (1, 2, 4, 3))
    return {"q": ("f64", *q), "k": ("f64", *k), "v": ("f64", *v)}, [F(ref.attention(q, k, v, True, 0.5))]


@case("attention")
def cross(rnd):
    q, k, v = floats(rnd, (2, 1, 3, 4)), floats(rnd, (2, 1, 5, 4)), floats(rnd, (2, 1, 5, 4))
    return {"q": ("f64", *q), "k": ("f64", *k), "v": ("f64", *v)}, [F(ref.attention(q, k, v, False, 0.7))]


# ---- topk, bucket, gather_rows, scatter_add_rows ----

@case("routing")
def topk3(rnd):
    x = (3, 6), [0.5, 0.9, 0.5, 0.9, 0.1, 0.2,    # ties: lower index first
                 -1.0, -2.0, -3.0, -4.0, -5.0, -6.0,
                 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    values, idx = ref.topk(x, 3)
    return {"x": ("f64", *x)}, [F(values), I(idx)]


@case("routing")
def bucket3(rnd):
    ids = (4, 2), [2, 0, 1, 2, 0, 0, 2, 1]
    order, ends = ref.bucket(ids, 4)
    return {"ids": ("i32", *ids)}, [I(order), I(ends)]


@case("routing")
def gather(rnd):
    x, idx = floats(rnd, (4, 3)), ((5,), [3, 0, 3, 1, 2])
    return {"x": ("f64", *x), "idx": ("i32", *idx)}, [F(ref.gather_rows(x, idx))]


@case("routing")
def scatter(rnd):
    x, idx = floats(rnd, (5, 3)), ((5,), [2, 0, 2, 2, 0])  # rows 1 and 3 get nothing
    return {"x": ("f64", *x), "idx": ("i32", *idx)}, [F(ref.scatter_add_rows(x, idx, 4))]


# ---- reshape, transpose, convert ----

@case("layout")
def reshape(rnd):
    x = floats(rnd, (2, 6))
    return {"arg0": ("f64", *x)}, [F(((3, 4), x[1]))]


@case("layout")
def transpose3(rnd):
    x = floats(rnd, (2, 3, 4))
    return {"arg0": ("f64", *x)}, [F(ref.transpose(x, (2, 0, 1)))]


@case("layout")
def transpose_i32(rnd):
    x = ints(rnd, (2, 3), -9, 9)
    return {"arg0": ("i32", *x)}, [I(ref.transpose(x, (1, 0)))]


@case("layout")
def f2i(rnd):
    x = (7,), [2.9, -2.9, 0.5, -0.5, 3.0e10, -3.0e10, 7.0]
    # toward zero; out-of-range values saturate
    y = [2, -2, 0, 0, 2147483647, -2147483648, 7]
    return {"arg0": ("f64", *x)}, [I(((7,), y))]


@case("layout")
def i2f(rnd):
    x = (4,), [1, -5, 16777217, 0]
    return {"arg0": ("i32", *x)}, [F(((4,), [float(v) for v in x[1]]))]


@case("layout")
def f2bf(rnd):
    # Without --emulate nothing is rounded, so the values come back unchanged.
    x = (3,), [1.0 + 2.0 ** -20, -3.3, 1e-3]
    return {"arg0": ("f64", *x)}, [F(x)]


# ---- adamw ----

def adamw_case(rnd, step_dtype):
    shape = (2, 3)
    p, g, m = floats(rnd, shape), floats(rnd, shape), floats(rnd, shape, -0.1, 0.1)
    v = shape, [rnd.uniform(0, 0.01) for _ in range(6)]
    step = ((), [3] if step_dtype == "i32" else [3.0])
    expected = ref.adamw(p, g, m, v, 3, 1e-2, 0.9, 0.999, 1e-8, 0.1)
    return ({"p": ("f64", *p), "g": ("f64", *g), "m": ("f64", *m), "v": ("f64", *v),
             "step": (step_dtype, *step)}, [F(t) for t in expected])


@case("adamw")
def adamw_i32_step(rnd):
    return adamw_case(rnd, "i32")


@case("adamw")
def adamw_f32_step(rnd):
    return adamw_case(rnd, "f32")


# ---- func.call and tensor constants ----

@case("call")
def main(rnd):
    x = floats(rnd, (2, 3))
    c = (3, 3), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    splat = (3, 3), [2.0] * 9
    return {"x": ("f64", *x)}, [F(ref.matmul(x, c, False, False)), F(ref.matmul(x, splat, False, False)),
                                I(((2,), [3, -1])), F(((2,), [1.5, -2.25])), F(((2,), [0.1, 0.2]))]


# ---- backward ops: expected values from the definitions, which are themselves checked against
# central differences of the forward definitions ----

@case("grad")
def reduce_grads(rnd):
    x = floats(rnd, (2, 3, 4))
    dy_sum, dy_max = floats(rnd, (2, 4)), floats(rnd, (2, 3))
    tied = (2, 3), [1.0, 5.0, 5.0, 2.0, 2.0, 0.0]  # max ties go to the first index
    dy_tied = floats(rnd, (2,))
    out = [ref.reduce_grad(x, dy_sum, 1, "sum"), ref.reduce_grad(x, dy_sum, 1, "mean"),
           ref.reduce_grad(x, dy_max, 2, "max"), ref.reduce_grad(tied, dy_tied, 1, "max")]
    ref.assert_close(out[1][1], ref.numeric_grad(lambda t: ref.reduce(t, 1, "mean"), x, dy_sum), 1e-6, "mean")
    return ({"x": ("f64", *x), "dys": ("f64", *dy_sum), "dym": ("f64", *dy_max), "t": ("f64", *tied),
             "dyt": ("f64", *dy_tied)}, [F(t) for t in out])


@case("grad")
def rmsnorm_grad(rnd):
    x, w, dy = floats(rnd, (3, 4)), floats(rnd, (4,)), floats(rnd, (3, 4))
    dx, dw = ref.rmsnorm_grad(x, w, dy, 1e-5)
    ref.assert_close(dx[1], ref.numeric_grad(lambda t: ref.rmsnorm(t, w, 1e-5), x, dy), 1e-6, "dx")
    ref.assert_close(dw[1], ref.numeric_grad(lambda t: ref.rmsnorm(x, t, 1e-5), w, dy), 1e-6, "dw")
    return {"x": ("f64", *x), "w": ("f64", *w), "dy": ("f64", *dy)}, [F(dx), F(dw)]


@case("grad")
def softmax_grad(rnd):
    x, dy = floats(rnd, (2, 5)), floats(rnd, (2, 5))
    y = ref.softmax(x)
    dx = ref.softmax_grad(y, dy)
    ref.assert_close(dx[1], ref.numeric_grad(ref.softmax, x, dy), 1e-6, "softmax")
    return {"y": ("f64", *y), "dy": ("f64", *dy)}, [F(dx)]


@case("grad")
def cross_entropy_grad(rnd):
    logits, targets = floats(rnd, (3, 4)), ((3,), [1, 3, 0])
    dx = ref.cross_entropy_grad(logits, targets, 0.7)
    ref.assert_close(dx[1], ref.numeric_grad(lambda t: ref.cross_entropy(t, targets), logits, ((), [0.7])),
                     1e-6, "cross_entropy")
    return {"logits": ("f64", *logits), "targets": ("i32", *targets), "dloss": ("f64", (), [0.7])}, [F(dx)]


@case("grad")
def rope_grad(rnd):
    dy, x = floats(rnd, (1, 3, 2, 4)), floats(rnd, (1, 3, 2, 4))
    dx = ref.rope_grad(dy, 5.0)
    ref.assert_close(dx[1], ref.numeric_grad(lambda t: ref.rope(t, 5.0), x, dy), 1e-6, "rope")
    return {"dy": ("f64", *dy)}, [F(dx)]


def attention_grad_case(rnd, causal, tk):
    q, k, v = floats(rnd, (1, 2, 3, 2)), floats(rnd, (1, 2, tk, 2)), floats(rnd, (1, 2, tk, 3))
    do = floats(rnd, (1, 2, 3, 3))
    o = ref.attention(q, k, v, causal, 0.8)
    dq, dk, dv = ref.attention_grad(q, k, v, o, do, causal, 0.8)
    ref.assert_close(dq[1], ref.numeric_grad(lambda t: ref.attention(t, k, v, causal, 0.8), q, do), 1e-6, "dq")
    ref.assert_close(dk[1], ref.numeric_grad(lambda t: ref.attention(q, t, v, causal, 0.8), k, do), 1e-6, "dk")
    ref.assert_close(dv[1], ref.numeric_grad(lambda t: ref.attention(q, k, t, causal, 0.8), v, do), 1e-6, "dv")
    return ({"q": ("f64", *q), "k": ("f64", *k), "v": ("f64", *v), "o": ("f64", *o), "do": ("f64", *do)},
            [F(dq), F(dk), F(dv)])


@case("grad")
def attention_grad_causal(rnd):
    return attention_grad_case(rnd, True, 3)


@case("grad")
def attention_grad_cross(rnd):
    return attention_grad_case(rnd, False, 4)


@case("grad")
def topk_grad(rnd):
    dvalues, idx = floats(rnd, (2, 2)), ((2, 2), [3, 0, 1, 4])
    return {"dv": ("f64", *dvalues), "idx": ("i32", *idx)}, [F(ref.topk_grad(dvalues, idx, 5))]


@case("grad")
def gmm_weight_grad(rnd):
    x, dy, ends = floats(rnd, (6, 2)), floats(rnd, (6, 3)), ((3,), [2, 2, 5])
    dw = ref.grouped_matmul_weight_grad(x, dy, ends)
    w0 = floats(rnd, (3, 2, 3))
    ref.assert_close(dw[1], ref.numeric_grad(lambda t: ref.grouped_matmul(x, t, ends), w0, dy), 1e-6, "dw")
    return {"x": ("f64", *x), "dy": ("f64", *dy), "ends": ("i32", *ends)}, [F(dw)]


# ---- driver ----

def seed_of(group, name):
    return zlib.crc32(("%s/%s" % (group, name)).encode())


def close(got, want, tol):
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


def main_cli(argv):
    mode, group, root = argv[1], argv[2], argv[3]
    failures = 0
    for name, (fn, tol) in CASES[group].items():
        inputs, expected = fn(random.Random(seed_of(group, name)))
        directory = os.path.join(root, name)
        if mode == "gen":
            os.makedirs(directory, exist_ok=True)
            for arg, (dtype, shape, values) in inputs.items():
                npyio.write(os.path.join(directory, arg + ".npy"), dtype, shape, values)
            continue
        bad = []
        for k, (kind, shape, values) in enumerate(expected):
            descr, got_shape, got = npyio.read(os.path.join(directory, "result%d.npy" % k))
            if descr != ("<f8" if kind == "f" else "<i4") or got_shape != tuple(shape):
                bad.append("result%d: %s %s, expected %s %s" % (k, descr, got_shape, kind, tuple(shape)))
                continue
            for j, (g, w) in enumerate(zip(got, values)):
                if (kind == "i" and g != w) or (kind == "f" and not close(g, w, tol)):
                    bad.append("result%d[%d] = %r, expected %r" % (k, j, g, w))
        if os.path.exists(os.path.join(directory, "result%d.npy" % len(expected))):
            bad.append("more results than expected")
        if bad:
            failures += 1
            print("FAIL %s" % name)
            for line in bad[:20]:
                print("  " + line)
        else:
            print("ok %s" % name)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_cli(sys.argv))
