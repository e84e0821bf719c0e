"""JAX versions of the core `task` ops, written from docs/task-dialect.md (the semantic contract) alone.

Everything here computes in fp64 on the CPU; index results are int32. Rounding to a storage dtype is not
part of an op (except `convert`, whose definition is a rounding): the checks apply it at op boundaries
with `round_to`, the way `latch-interp --emulate=...` does. A task.map body is the exception: under
emulation it is evaluated in its own scalar types, each op's result rounded (`map_body`, at the end).
"""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_default_matmul_precision", "highest")

import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

FLOAT_TYPES = ("f64", "f32", "bf16")


# ----------------------------------------------------------------------------------------------------
# Rounding to a storage dtype.
#
# ml_dtypes (and JAX, which uses it) convert float64 -> bfloat16 through float32, which double-rounds:
# 1 + 2^-8 + 2^-30 becomes 1 (the float32 step lands exactly on the bf16 midpoint, then ties-to-even)
# where round-to-nearest-even of the fp64 value is 1 + 2^-7. The interpreter's contract is one rounding
# of the fp64 value to the declared dtype, so the bf16 rounding here scales by a power of two and
# rounds once with rint (exact in fp64); the result is then an exact ml_dtypes bfloat16 value.
# ----------------------------------------------------------------------------------------------------
def round_bf16(x):
    """Round-to-nearest-even of fp64 values to bfloat16 (8 significant bits), returned as float64."""
    x = np.asarray(x, dtype=np.float64)
    _, e = np.frexp(x)  # x = m 2^e, 0.5 <= |m| < 1
    # A bf16 ulp is 2^(e-8) for normals; subnormals of bf16 share the ulp 2^-133.
    shift = np.maximum(e - 8, -133)
    with np.errstate(invalid="ignore"):
        r = np.ldexp(np.rint(np.ldexp(x, -shift)), shift)
        r = np.where(np.isfinite(x), r, x)
        big = np.abs(r) > float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
        r = np.where(big & np.isfinite(x), np.copysign(np.inf, x), r)
    # Exactly representable: ml_dtypes' bfloat16 holds it without a further rounding.
    out = r.astype(ml_dtypes.bfloat16).astype(np.float64)
    assert np.array_equal(out, r, equal_nan=True)
    return out


def round_to(x, dtype):
    """x (fp64 values) as stored in a tensor of element type `dtype` ('f64', 'f32', 'bf16')."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "f64":
        return x
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)  # one IEEE rounding, nearest-even
    if dtype == "bf16":
        # The GPU computes in fp32 and rounds that fp32 value to bf16 when it stores (docs/task-dialect.md,
        # "Precision"): two roundings, each to nearest-even.
        return round_bf16(x.astype(np.float32).astype(np.float64))
    raise ValueError(dtype)


def ulp(x, dtype):
    """The spacing of `dtype` at |x| (for reporting differences in ulps)."""
    bits = {"f32": 24, "bf16": 8, "f64": 53}[dtype]
    _, e = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(1.0, np.maximum(e - bits, {"f32": -149, "bf16": -133, "f64": -1074}[dtype]))


# ----------------------------------------------------------------------------------------------------
# The ops. Arguments are arrays (fp64 floats, int32 indices) and the op's attributes.
# ----------------------------------------------------------------------------------------------------
def _op(x, transposed):
    return jnp.swapaxes(x, -1, -2) if transposed else x


def matmul(a, b, transpose_a=False, transpose_b=False):
    """c = op(a) x op(b); rank 2, or rank 3 with a shared leading batch dim."""
    return jnp.matmul(_op(jnp.asarray(a), transpose_a), _op(jnp.asarray(b), transpose_b))


def grouped_matmul(x, w, ends):
    """Rows ends[g-1] <= r < ends[g] (ends[-1] = 0) use w[g]; rows at or after ends[G-1] are zero."""
    x, w, ends = jnp.asarray(x), jnp.asarray(w), jnp.asarray(ends)
    groups = w.shape[0]
    rows = jnp.arange(x.shape[0])
    # The group of row r is the number of ends <= r (ends is non-decreasing); G means "no group".
    g = jnp.searchsorted(ends, rows, side="right")
    wr = w[jnp.minimum(g, groups - 1)]  # [R, K, N]
    y = jnp.einsum("rk,rkn->rn", x, wr)
    return jnp.where((g < groups)[:, None], y, 0.0)


def map_(body, *ins):
    """Elementwise: `body` gets one array per input (rank-0 inputs broadcast) and returns the outputs."""
    ins = [jnp.asarray(v) for v in ins]
    shape = next((v.shape for v in ins if v.ndim > 0), ())
    ins = [jnp.broadcast_to(v, shape) for v in ins]
    return [jnp.broadcast_to(jnp.asarray(o), shape) for o in body(*ins)]


def reduce(x, axis, kind):
    x = jnp.asarray(x)
    if kind == "sum":
        return jnp.sum(x, axis=axis)
    if kind == "max":
        return jnp.max(x, axis=axis)
    if kind == "mean":
        return jnp.mean(x, axis=axis)
    raise ValueError(kind)


def rmsnorm(x, w, eps):
    """y = x / sqrt(mean(x^2 over the last axis) + eps) * w."""
    x = jnp.asarray(x)
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * jnp.asarray(w)


def softmax(x):
    """Softmax over the last axis (max-subtracted)."""
    x = jnp.asarray(x)
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / jnp.sum(e, axis=-1, keepdims=True)


def cross_entropy(logits, targets):
    """Mean over n of -log softmax(logits[n])[targets[n]] (rank 0)."""
    logits, targets = jnp.asarray(logits), jnp.asarray(targets)
    m = jnp.max(logits, axis=-1, keepdims=True)
    lse = (m + jnp.log(jnp.sum(jnp.exp(logits - m), axis=-1, keepdims=True)))[:, 0]
    picked = jnp.take_along_axis(logits, targets[:, None].astype(jnp.int64), axis=-1)[:, 0]
    return jnp.mean(lse - picked)


def embedding(table, ids):
    """y[i..., :] = table[ids[i...], :]."""
    return jnp.asarray(table)[jnp.asarray(ids)]


def rope(x, theta):
    """Rotary embedding, rotate-half, position t = index along T of x[B,T,H,hd]."""
    x = jnp.asarray(x)
    _, t_len, _, hd = x.shape
    h = hd // 2
    f = jnp.power(float(theta), -2.0 * jnp.arange(h, dtype=jnp.float64) / hd)  # f_i = theta^(-2i/hd)
    a = jnp.arange(t_len, dtype=jnp.float64)[:, None] * f[None, :]  # [T, h]
    cos, sin = jnp.cos(a)[None, :, None, :], jnp.sin(a)[None, :, None, :]
    x1, x2 = x[..., :h], x[..., h:]
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def attention(q, k, v, causal, scale):
    """o = softmax(q k^T * scale) v per (b, h); with causal, key j > query i is masked out."""
    q, k, v = jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if causal:
        tq, tk = s.shape[-2], s.shape[-1]
        keep = jnp.arange(tk)[None, :] <= jnp.arange(tq)[:, None]
        s = jnp.where(keep, s, -jnp.inf)
    return jnp.einsum("bhqk,bhkd->bhqd", softmax(s), v)


def topk(x, k):
    """The k largest of each row in descending order, ties to the lower index: (values, int32 indices)."""
    x = jnp.asarray(x)
    idx = jnp.argsort(-x, axis=-1, stable=True)[:, :k]
    return jnp.take_along_axis(x, idx, axis=-1), idx.astype(jnp.int32)


def bucket(ids, buckets):
    """Stable sort of the flattened ids by value: (order int32[N*k], ends int32[G], ends[g] = #ids <= g)."""
    flat = jnp.asarray(ids).reshape(-1)
    order = jnp.argsort(flat, stable=True).astype(jnp.int32)
    ends = jnp.sum(flat[None, :] <= jnp.arange(buckets)[:, None], axis=1).astype(jnp.int32)
    return order, ends


def gather_rows(x, idx):
    return jnp.asarray(x)[jnp.asarray(idx)]


def scatter_add_rows(x, idx, rows):
    """y[r] = sum of x[s] with idx[s] = r; rows with no contribution are 0."""
    x = jnp.asarray(x)
    return jnp.zeros((rows,) + x.shape[1:], x.dtype).at[jnp.asarray(idx)].add(x)


def reshape(x, shape):
    return jnp.reshape(jnp.asarray(x), shape)


def transpose(x, perm):
    return jnp.transpose(jnp.asarray(x), perm)


def convert(x, to):
    """dtype cast: float -> int truncates toward zero; float -> bf16/f32 rounds to nearest even."""
    x = np.asarray(x)
    if to == "i32":
        return np.trunc(x).astype(np.int32) if x.dtype.kind == "f" else x.astype(np.int32)
    return round_to(x.astype(np.float64), to)


def adamw(p, g, m, v, step, lr, beta1, beta2, eps, weight_decay):
    """Decoupled AdamW with the step counter t = step (>= 1): (p', m', v')."""
    p, g, m, v = (jnp.asarray(a) for a in (p, g, m, v))
    t = jnp.asarray(step, dtype=jnp.float64)
    m2 = beta1 * m + (1 - beta1) * g
    v2 = beta2 * v + (1 - beta2) * g * g
    mhat = m2 / (1 - beta1**t)
    vhat = v2 / (1 - beta2**t)
    p2 = p - lr * (weight_decay * p + mhat / (jnp.sqrt(vhat) + eps))
    return p2, m2, v2


# ----------------------------------------------------------------------------------------------------
# task.map bodies, evaluated from their MLIR text one scalar op at a time.
#
# Written from the upstream arith / math op definitions (IEEE results, computed here in fp64 on numpy
# arrays) and the "Precision" rule of docs/task-dialect.md: under --emulate the body is evaluated in the
# scalar types it is written in, so every float result of every body op is rounded to its result type as
# that type is stored under the mode (`rounding(type)` gives the storage dtype; in fp64 mode "f64", i.e.
# nothing is rounded). The checks' Python lambdas give the same functions in fp64 and are compared with
# this evaluator (unrounded) on every run, so a body and its lambda cannot drift apart.
# ----------------------------------------------------------------------------------------------------
_INT_TYPES = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}


def _wrap(x, t):
    """Two's-complement wrap of integer values to the width of `t` (i1: 0/1)."""
    bits = _INT_TYPES[t]
    x = np.asarray(x).astype(np.int64)
    if bits == 1:
        return (x & 1).astype(np.int64)
    if bits == 64:
        return x
    m = np.int64(1) << bits
    x = x & (m - 1)
    return np.where(x >= (m >> 1), x - m, x)


def _unsigned(x, t):
    bits = _INT_TYPES[t]
    x = np.asarray(x).astype(np.int64)
    return x & ((np.int64(1) << bits) - 1) if bits < 64 else x


def _fptoint(x, t, signed):
    """fptosi / fptoui as docs/task-dialect.md pins them: toward zero, saturating, NaN -> 0."""
    bits = _INT_TYPES[t]
    lo, hi = (-(2.0 ** (bits - 1)), 2.0 ** (bits - 1) - 1) if signed else (0.0, 2.0**bits - 1)
    x = np.asarray(x, np.float64)
    with np.errstate(invalid="ignore"):
        r = np.trunc(np.clip(np.where(np.isnan(x), 0.0, x), lo, hi))
    return _wrap(r, t) if signed else r.astype(np.int64)


def _cmpf(pred, a, b):
    unordered = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b}
    if pred in ("false", "true"):
        return np.full(np.broadcast(a, b).shape, pred == "true")
    if pred == "ord":
        return ~unordered
    if pred == "uno":
        return unordered
    kind, rel = pred[0], pred[1:]
    if kind == "o":
        return ~unordered & base[rel]
    if kind == "u":
        return unordered | base[rel]
    raise ValueError(f"cmpf predicate {pred}")


def _cmpi(pred, a, b, t):
    if pred in ("ult", "ule", "ugt", "uge"):
        a, b, pred = _unsigned(a, t), _unsigned(b, t), "s" + pred[1:]
    return {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b}[pred]


def _maximumf(a, b):
    """arith.maximumf: NaN if either is NaN; +0 > -0."""
    r = np.where(a > b, a, b)
    r = np.where((a == b) & (a == 0), np.where(np.signbit(a), b, a), r)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, r)


def _minimumf(a, b):
    r = np.where(a < b, a, b)
    r = np.where((a == b) & (a == 0), np.where(np.signbit(a), a, b), r)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, r)


def _erf(x):
    return np.asarray(jax.scipy.special.erf(jnp.asarray(x, jnp.float64)), np.float64)


_FLOAT_UNARY = {
    "arith.negf": np.negative, "math.absf": np.abs, "math.sqrt": np.sqrt, "math.rsqrt": lambda x: 1.0 / np.sqrt(x),
    "math.exp": np.exp, "math.exp2": np.exp2, "math.expm1": np.expm1, "math.log": np.log, "math.log2": np.log2,
    "math.log10": np.log10, "math.log1p": np.log1p, "math.tanh": np.tanh, "math.sin": np.sin, "math.cos": np.cos,
    "math.tan": np.tan, "math.atan": np.arctan, "math.erf": _erf, "math.floor": np.floor, "math.ceil": np.ceil,
    "math.trunc": np.trunc, "math.roundeven": np.rint,
}
_FLOAT_BINARY = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide,
    "arith.remf": np.fmod, "arith.maximumf": _maximumf, "arith.minimumf": _minimumf, "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin, "math.powf": np.power, "math.copysign": np.copysign, "math.atan2": np.arctan2,
}
_INT_BINARY = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
               "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
               "arith.maxsi": np.maximum, "arith.minsi": np.minimum}


def _split_top(s, sep=","):
    """Split at `sep` outside <...> and (...)."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def map_body(body, ins, rounding, above=None):
    """Evaluate the task.map region `body` (its '^bb0(%a0: T, ...):' line, arith/math ops in the custom
    form, 'gpu.yield ...') elementwise on `ins` (fp64 float arrays / integer arrays, one per block argument;
    rank-0 inputs broadcast). `above`: values defined above the op and used in the body, by SSA name.
    `rounding(type)` -> the dtype ('f64', 'f32', 'bf16') that a float result of that scalar type is
    rounded to after its op. Returns one (value, value before its own op's rounding) pair per yielded
    value, broadcast to the map's shape."""
    ins = [np.asarray(v) for v in ins]
    shape = next((v.shape for v in ins if v.ndim > 0), ())
    env, raw, types = {}, {}, {}
    for name, v in (above or {}).items():
        env[name] = raw[name] = np.asarray(v)
    lines = [ln.strip() for ln in body.strip().split("\n") if ln.strip()]
    head = lines[0]
    assert head.startswith("^bb0(") and head.endswith("):"), head
    args = _split_top(head[len("^bb0("):-2])
    assert len(args) == len(ins), (args, len(ins))
    for a, v in zip(args, ins):
        name, t = (s.strip() for s in a.split(":"))
        env[name] = raw[name] = np.broadcast_to(v, shape)
        types[name] = t
    for ln in lines[1:]:
        if ln.startswith("gpu.yield"):
            names = _split_top(ln[len("gpu.yield"):].rsplit(":", 1)[0])
            return [(np.broadcast_to(env[n], shape), np.broadcast_to(raw[n], shape)) for n in names]
        res, rhs = (s.strip() for s in ln.split("=", 1))
        opname, rest = (rhs.split(None, 1) + [""])[:2]
        rest = " ".join(p for p in rest.split() if not p.startswith("fastmath<"))
        operand_text, type_text = (s.strip() for s in rest.rsplit(":", 1))
        ts = [s.strip() for s in type_text.split(" to ")]
        in_t, out_t = ts[0], ts[-1]
        parts = _split_top(operand_text)
        val = lambda n: env[n]  # noqa: E731
        tof = lambda n: np.asarray(val(n), np.float64)  # noqa: E731
        with np.errstate(all="ignore"):
            if opname == "arith.constant":
                lit = operand_text
                if out_t in _INT_TYPES:
                    x = np.asarray(int({"true": 1, "false": 0}.get(lit, lit), 0), np.int64)
                else:
                    x = np.asarray(float(lit), np.float64)
            elif opname in _FLOAT_UNARY:
                x = _FLOAT_UNARY[opname](tof(parts[0]))
            elif opname in _FLOAT_BINARY:
                x = _FLOAT_BINARY[opname](tof(parts[0]), tof(parts[1]))
            elif opname == "math.fma":
                x = tof(parts[0]) * tof(parts[1]) + tof(parts[2])  # in fp64 (the product exact for f32/bf16)
            elif opname == "arith.cmpf":
                x, out_t = _cmpf(parts[0], tof(parts[1]), tof(parts[2])), "i1"
            elif opname == "arith.cmpi":
                x, out_t = _cmpi(parts[0], val(parts[1]), val(parts[2]), in_t), "i1"
            elif opname == "arith.select":
                x = np.where(np.asarray(val(parts[0])).astype(bool), val(parts[1]), val(parts[2]))
            elif opname in ("arith.extf", "arith.truncf"):
                x = tof(parts[0])  # the value; truncf's rounding is the result rounding below
            elif opname == "arith.sitofp":
                x = np.asarray(val(parts[0]), np.float64)
            elif opname == "arith.uitofp":
                x = np.asarray(_unsigned(val(parts[0]), in_t), np.float64)
            elif opname in ("arith.fptosi", "arith.fptoui"):
                x = _fptoint(tof(parts[0]), out_t, opname == "arith.fptosi")
            elif opname in _INT_BINARY:
                x = _INT_BINARY[opname](np.asarray(val(parts[0]), np.int64), np.asarray(val(parts[1]), np.int64))
            elif opname in ("arith.extsi", "arith.trunci"):
                x = np.asarray(val(parts[0]), np.int64)
            elif opname == "arith.extui":
                x = _unsigned(val(parts[0]), in_t)
            else:
                raise ValueError(f"map body op {opname} is not known to the reference evaluator")
        types[res] = out_t
        if out_t in FLOAT_TYPES:
            raw[res] = np.asarray(x, np.float64)
            env[res] = round_to(raw[res], rounding(out_t))
        else:
            env[res] = raw[res] = _wrap(x, out_t)
    raise ValueError("map body without gpu.yield")
