"""JAX versions of the core `task` ops, written from docs/task-dialect.md (the semantic contract) alone.

Everything here computes in fp64 on the CPU; index results are int32. Rounding to a storage dtype is not
part of an op (except `convert`, whose definition is a rounding): the checks apply it at op boundaries
with `round_to`, the way `latch-interp --emulate=...` does.
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
