#!/usr/bin/env python3
"""Check latch-interp against JAX (test/jax/ops.py) on every core task op.

Each case is a small task program (generic MLIR text) with random inputs written as .npy files; it runs
in up to three modes and each result of each run is one row of the table:

  mode  program's float types   latch-interp flags   JAX side                    gate
  fp64  f32                     (none)               fp64                        max|interp-jax|/max|jax| <= 1e-10
  fp32  f32                     --emulate=fp32       fp64, each op's results     every element == the JAX value rounded
                                                     rounded to fp32; task.map   to fp32 (see below)
                                                     bodies per scalar op
  bf16  bf16 (f32 where the op  --emulate=bf16       fp64, each op's results     every element == the JAX value rounded
        says f32)                                    rounded to their declared   to its declared dtype (see below)
                                                     dtype (bf16 through fp32);
                                                     task.map bodies per scalar op

Why exact equality for the emulated modes: the contract (docs/task-dialect.md, "Precision") is that the
interpreter computes each op in fp64 and rounds what it stores to nearest-even (bf16 through fp32, as
the GPU rounds its fp32 results), and that a task.map body is evaluated in the scalar types it is written
in: every float result of every body op is rounded to its type (as that type is stored under the mode).
JAX computes the same op in fp64 from the same (already rounded) inputs; for a task.map the reference
evaluates the body's MLIR text op by op with the same rounding (ops.map_body; its unrounded evaluation
must agree with the case's Python function, which the fp64 mode uses). So the two fp64 values differ by
a few fp64 ulps and round to the same bf16/fp32 value unless the fp64 value lies within that distance of
a rounding midpoint. So the gate is: equal, except a one-ulp difference where JAX's unrounded value (for
a map: the yielded op's value before its own rounding) is within 1e-10 (relative) of the midpoint between
the two candidates (reported as "at ties"). Case reduce_tie_bf16 is built so that one direct rounding
and the two-step rounding differ: it pins the two-step rule; map_tie_bf16 pins the rounding of a map
body's intermediate results. Index results (topk indices, bucket, int converts) must match exactly in
every mode.
Inputs are drawn so that every value is exact in its declared dtype; topk ties are made on purpose (small
integers) to test "ties go to the lower index".

Usage: check_ops.py [--interp PATH] [--work DIR] [--only SUBSTRING] [--seed N]
"""
import argparse
import math
import os
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import ops  # noqa: E402
from harness import Prog, battr, fattr, iattr  # noqa: E402

jnp = ops.jnp
ALL = ("fp64", "fp32", "bf16")
EMULATED = ("fp32", "bf16")


def fdata(rng, shape, dt, scale=1.0):
    return ops.round_to(rng.standard_normal(shape) * scale, dt)


def cvt(a, to):
    """task.convert's JAX side here: float -> int truncates; float -> float is the identity, because the
    rounding to the target dtype is the storage rounding that the emulated modes apply to every op's
    results (a plain fp64 run stores fp64, see convert_f32_bf16)."""
    return ops.convert(a, "i32") if to == "i32" else np.asarray(a, np.float64)


def map_op(P, ins, block_types, outs, body, fn):
    """task.map over `ins`; `body` uses %a0.. for the block arguments; fn(*arrays) -> list of outputs."""
    shape = next((v.shape for v in ins if v.shape), ())
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(block_types))
    region = f"  ^bb0({args}):\n" + "\n".join("    " + line for line in body.strip().split("\n"))
    return P.op("map", ins, [(shape, d) for d in outs], lambda *xs: ops.map_(fn, *xs),
                harness.map_segments(len(ins), len(outs)), region=region)


# ----------------------------------------------------------------------------------------------------
# The cases: name -> (builder(rng, fdt) -> Prog, modes). fdt is f32 in the fp64/fp32 modes, bf16 in bf16.
# ----------------------------------------------------------------------------------------------------
CASES = {}


def case(name, modes=ALL):
    def deco(fn):
        CASES[name] = (fn, modes)
        return fn

    return deco


def matmul_case(name, shape_a, shape_b, ta, tb, out="f32"):
    @case(name)
    def build(rng, fdt):
        P = Prog()
        a, b = P.arg(fdata(rng, shape_a, fdt), fdt), P.arg(fdata(rng, shape_b, fdt), fdt)
        A = shape_a[:-2] + ((shape_a[-1], shape_a[-2]) if ta else shape_a[-2:])
        B = shape_b[:-2] + ((shape_b[-1], shape_b[-2]) if tb else shape_b[-2:])
        odt = fdt if out == "same" else out
        c = P.op("matmul", [a, b], [(A[:-1] + B[-1:], odt)], lambda x, y: ops.matmul(x, y, ta, tb),
                 {"transpose_a": battr(ta), "transpose_b": battr(tb)})
        P.ret(c)
        return P


matmul_case("matmul", (6, 8), (8, 5), False, False)
matmul_case("matmul_ta", (8, 6), (8, 5), True, False)
matmul_case("matmul_tb", (6, 8), (5, 8), False, True)
matmul_case("matmul_ta_tb", (8, 6), (5, 8), True, True)
matmul_case("matmul_batch", (3, 6, 8), (3, 8, 5), False, False)
matmul_case("matmul_batch_ta_tb", (3, 8, 6), (3, 5, 8), True, True, out="same")
matmul_case("matmul_out_same_dtype", (7, 33), (33, 9), False, False, out="same")


def grouped_case(name, ends, R=12, K=8, N=6):
    @case(name)
    def build(rng, fdt):
        P = Prog()
        x = P.arg(fdata(rng, (R, K), fdt), fdt)
        w = P.arg(fdata(rng, (len(ends), K, N), fdt), fdt)
        e = P.arg(np.array(ends, np.int32), "i32")
        P.ret(P.op("grouped_matmul", [x, w, e], [((R, N), fdt)], ops.grouped_matmul))
        return P


# Groups 0 and 2 empty, rows 10 and 11 after the last end (zero); then: every row used, last groups empty.
grouped_case("grouped_matmul_empty_groups", [0, 3, 3, 9, 10])
grouped_case("grouped_matmul_full", [2, 2, 7, 12, 12])


MAP_BODIES = {
    # name: (number of float inputs, body with {t} for the scalar type, fn)
    "relu": (1, """
%zero = arith.constant 0.0 : {t}
%r = arith.maximumf %a0, %zero : {t}
gpu.yield %r : {t}""", lambda a: [jnp.maximum(a, 0.0)]),
    "silu": (1, """
%one = arith.constant 1.0 : {t}
%n = arith.negf %a0 : {t}
%e = math.exp %n : {t}
%d = arith.addf %e, %one : {t}
%r = arith.divf %a0, %d : {t}
gpu.yield %r : {t}""", lambda a: [a / (1.0 + jnp.exp(-a))]),
    # Constants chosen exact in bf16 (0.796875 ~ sqrt(2/pi), 0.046875 ~ 0.044715).
    "gelu_tanh": (1, """
%half = arith.constant 0.5 : {t}
%one = arith.constant 1.0 : {t}
%k0 = arith.constant 0.796875 : {t}
%k1 = arith.constant 0.046875 : {t}
%x2 = arith.mulf %a0, %a0 : {t}
%x3 = arith.mulf %x2, %a0 : {t}
%c = arith.mulf %x3, %k1 : {t}
%s = arith.addf %a0, %c : {t}
%u = arith.mulf %s, %k0 : {t}
%th = math.tanh %u : {t}
%p = arith.addf %th, %one : {t}
%h = arith.mulf %a0, %half : {t}
%r = arith.mulf %h, %p : {t}
gpu.yield %r : {t}""", lambda a: [0.5 * a * (1.0 + jnp.tanh(0.796875 * (a + 0.046875 * a**3)))]),
    "sub_mul_two_outputs": (2, """
%d = arith.subf %a0, %a1 : {t}
%p = arith.mulf %a0, %a1 : {t}
gpu.yield %d, %p : {t}, {t}""", lambda a, b: [a - b, a * b]),
    "select_sqrt_exp_log": (1, """
%zero = arith.constant 0.0 : {t}
%one = arith.constant 1.0 : {t}
%pos = arith.cmpf ogt, %a0, %zero : {t}
%s = math.sqrt %a0 : {t}
%e = math.exp %a0 : {t}
%r = arith.select %pos, %s, %e : {t}
%sq = arith.mulf %a0, %a0 : {t}
%q = arith.addf %sq, %one : {t}
%l = math.log %q : {t}
%rs = math.rsqrt %q : {t}
%m = arith.mulf %l, %rs : {t}
gpu.yield %r, %m : {t}, {t}""", lambda a: [jnp.where(a > 0, jnp.sqrt(jnp.abs(a)), jnp.exp(a)),
                                          jnp.log(a * a + 1.0) / jnp.sqrt(a * a + 1.0)]),
    # f64 scalars inside the body, constants included: rounded to fp32 under --emulate=fp32, left f64
    # under --emulate=bf16 (0.3 is not exact in fp32, so the constant's rounding shows).
    "extf_f64_truncf": (1, """
%e = arith.extf %a0 : {t} to f64
%k = arith.constant 0.3 : f64
%m = arith.mulf %e, %k : f64
%th = math.tanh %m : f64
%r = arith.truncf %th : f64 to {t}
gpu.yield %r : {t}""", lambda a: [jnp.tanh(a * 0.3)]),
}


def map_case(name, nin, body, fn):
    @case("map_" + name)
    def build(rng, fdt):
        P = Prog()
        ins = [P.arg(fdata(rng, (5, 7), fdt), fdt) for _ in range(nin)]
        nout = body.strip().split("\n")[-1].split(":")[0].count("%")  # values in the gpu.yield
        outs = map_op(P, ins, [fdt] * nin, [fdt] * nout, body.format(t=fdt), fn)
        P.ret(*(outs if isinstance(outs, list) else [outs]))
        return P


for _name, (_nin, _body, _fn) in MAP_BODIES.items():
    map_case(_name, _nin, _body, _fn)


@case("map_fma_rank0_broadcast")
def _(rng, fdt):
    P = Prog()
    a, b = P.arg(fdata(rng, (4, 6), fdt), fdt), P.arg(fdata(rng, (4, 6), fdt), fdt)
    c = P.arg(fdata(rng, (), fdt), fdt)
    body = f"""
%p = arith.mulf %a0, %a1 : {fdt}
%r = arith.addf %p, %a2 : {fdt}
gpu.yield %r : {fdt}"""
    P.ret(map_op(P, [a, b, c], [fdt] * 3, [fdt], body, lambda x, y, z: [x * y + z]))
    return P


@case("map_int_input")
def _(rng, fdt):
    P = Prog()
    i = P.arg(rng.integers(-5, 6, (3, 8)), "i32")
    x = P.arg(fdata(rng, (3, 8), fdt), fdt)
    body = f"""
%f = arith.sitofp %a0 : i32 to {fdt}
%r = arith.mulf %f, %a1 : {fdt}
gpu.yield %r : {fdt}"""
    P.ret(map_op(P, [i, x], ["i32", fdt], [fdt], body, lambda a, b: [a.astype(jnp.float64) * b]))
    return P


@case("map_const_above")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (3, 8), fdt), fdt)
    c = P.const(0.375, fdt)  # defined above the op and used inside it, as upstream canonicalize leaves it
    body = f"""
%p = arith.mulf %a0, %a0 : {fdt}
%r = arith.addf %p, {c.name} : {fdt}
gpu.yield %r : {fdt}"""
    P.ret(map_op(P, [x], [fdt], [fdt], body, lambda a: [a * a + 0.375]))
    return P


@case("map_tie_bf16", modes=("bf16",))
def _(rng, fdt):
    """(a + b) + c in a bf16 body, a = 1, b = 2^-8 (exactly half a bf16 ulp of 1), c small of either
    sign (|c| = 2^-30 .. 2^-12, or 0), in several binades. Under the per-op rule the first addf rounds
    a + b, exactly the bf16 midpoint between 1 and 1 + 2^-7 (and exact in fp32), to even: 1; the second
    adds c, less than half a bf16 ulp of 1, and gives 1 again, for every c. Rounding only the map's
    result (the fp64 value 1 + 2^-8 + c, through fp32) would give 1 + 2^-7 where c = 2^-20 or 2^-12, so
    the case pins that a body's intermediate results are rounded and that their ties go to even. It does
    not tell the two-step bf16 rounding from a direct one (each value rounded here is exact in fp32);
    reduce_tie_bf16 does."""
    P = Prog()
    cs = np.array([2.0**-30, -(2.0**-30), 2.0**-26, -(2.0**-26), 2.0**-20, -(2.0**-20), 2.0**-12, 0.0])
    scale = 2.0 ** rng.integers(-4, 5, (8, 4)).astype(np.float64)  # same story in other binades
    a = P.arg(np.ones((8, 4)) * scale, fdt)
    b = P.arg(np.full((8, 4), 2.0**-8) * scale, fdt)
    c = P.arg(np.repeat(cs[:, None], 4, axis=1) * scale, fdt)
    body = f"""
%s = arith.addf %a0, %a1 : {fdt}
%r = arith.addf %s, %a2 : {fdt}
gpu.yield %r : {fdt}"""
    P.ret(map_op(P, [a, b, c], [fdt] * 3, [fdt], body, lambda x, y, z: [(x + y) + z]))
    return P


@case("reduce_tie_bf16", modes=("bf16",))
def _(rng, fdt):
    """sum(a, b, c) by task.reduce into bf16, a = 1, b = 2^-8 (exactly half a bf16 ulp of 1), c small of
    either sign, in several binades: the op computes the fp64 sum 1 + 2^-8 + c exactly and rounds it once
    at its boundary, through fp32 (docs/task-dialect.md, "Precision"). For |c| < 2^-24 the fp32 step lands
    on the bf16 midpoint, which then goes to even (1), where one direct rounding of the fp64 value would
    go towards c's side (1 + 2^-7 for c = 2^-30, 2^-26): the case pins the two-step rule."""
    P = Prog()
    cs = np.array([2.0**-30, -(2.0**-30), 2.0**-26, -(2.0**-26), 2.0**-20, -(2.0**-20), 2.0**-12, 0.0])
    scale = 2.0 ** rng.integers(-4, 5, (8, 4, 1)).astype(np.float64)
    x = np.stack([np.ones((8, 4)), np.full((8, 4), 2.0**-8), np.repeat(cs[:, None], 4, axis=1)], axis=-1)
    v = P.arg(x * scale, fdt)
    P.ret(P.op("reduce", [v], [((8, 4), fdt)], lambda a: ops.reduce(a, 2, "sum"),
               {"axis": iattr(2), "kind": '"sum"'}))
    return P


@case("reduce")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (3, 4, 5), fdt), fdt)
    outs = []
    for axis in range(3):
        for kind in ("sum", "max", "mean"):
            shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
            outs.append(P.op("reduce", [x], [(shape, fdt)], lambda v, a=axis, k=kind: ops.reduce(v, a, k),
                             {"axis": iattr(axis), "kind": f'"{kind}"'}))
    P.ret(*outs)
    return P


@case("rmsnorm")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (2, 5, 16), fdt, 3.0), fdt)
    w = P.arg(fdata(rng, (16,), fdt), fdt)
    P.ret(P.op("rmsnorm", [x, w], [(x.shape, fdt)], lambda a, b: ops.rmsnorm(a, b, 1e-5), {"eps": fattr(1e-5)}))
    return P


@case("softmax")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (2, 3, 7), fdt, 3.0), fdt)
    P.ret(P.op("softmax", [x], [(x.shape, fdt)], ops.softmax))
    return P


@case("cross_entropy")
def _(rng, fdt):
    P = Prog()
    logits = P.arg(fdata(rng, (10, 13), fdt, 2.0), fdt)
    t = P.arg(rng.integers(0, 13, (10,)), "i32")
    P.ret(P.op("cross_entropy", [logits, t], [((), "f32")], ops.cross_entropy))
    return P


@case("embedding")
def _(rng, fdt):
    P = Prog()
    table = P.arg(fdata(rng, (11, 6), fdt), fdt)
    ids = P.arg(rng.integers(0, 11, (2, 5)), "i32")
    P.ret(P.op("embedding", [table, ids], [((2, 5, 6), fdt)], ops.embedding))
    return P


def rope_case(name, shape, theta):
    @case(name)
    def build(rng, fdt):
        P = Prog()
        x = P.arg(fdata(rng, shape, fdt), fdt)
        P.ret(P.op("rope", [x], [(shape, fdt)], lambda a: ops.rope(a, theta), {"theta": fattr(theta)}))
        return P


rope_case("rope", (2, 6, 3, 8), 10000.0)
rope_case("rope_theta_small_hd4", (1, 9, 2, 4), 123.5)


def attention_case(name, causal, tq, tk, scale):
    @case(name)
    def build(rng, fdt):
        P = Prog()
        q = P.arg(fdata(rng, (2, 3, tq, 8), fdt), fdt)
        k = P.arg(fdata(rng, (2, 3, tk, 8), fdt), fdt)
        v = P.arg(fdata(rng, (2, 3, tk, 8), fdt), fdt)
        P.ret(P.op("attention", [q, k, v], [(q.shape, fdt)], lambda a, b, c: ops.attention(a, b, c, causal, scale),
                   {"causal": battr(causal), "scale": fattr(scale)}))
        return P


attention_case("attention_causal", True, 7, 7, 1 / math.sqrt(8))
attention_case("attention_noncausal_tk5", False, 7, 5, 0.3)


def topk_case(name, k, ties):
    @case(name)
    def build(rng, fdt):
        P = Prog()
        data = rng.integers(0, 3, (9, 6)).astype(np.float64) if ties else fdata(rng, (9, 6), fdt)
        x = P.arg(data, fdt)
        P.ret(*P.op("topk", [x], [((9, k), fdt), ((9, k), "i32")], lambda a: ops.topk(a, k), {"k": iattr(k)}))
        return P


topk_case("topk_k2", 2, False)
topk_case("topk_k3_ties", 3, True)
topk_case("topk_k_eq_e_ties", 6, True)


@case("bucket")
def _(rng, fdt):
    P = Prog()
    ids = P.arg(rng.choice([0, 2, 3], (7, 2)), "i32")  # buckets 1 and 4 stay empty
    P.ret(*P.op("bucket", [ids], [((14,), "i32"), ((5,), "i32")], lambda a: ops.bucket(a, 5),
                {"buckets": iattr(5)}))
    return P


@case("gather_rows")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (6, 4), fdt), fdt)
    idx = P.arg(rng.integers(0, 6, (9,)), "i32")
    P.ret(P.op("gather_rows", [x, idx], [((9, 4), fdt)], ops.gather_rows))
    return P


@case("scatter_add_rows")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (9, 4), fdt), fdt)
    idx = P.arg(np.array([3, 0, 3, 5, 0, 3, 1, 5, 0]), "i32")  # rows 2, 4 and 6 get nothing
    P.ret(P.op("scatter_add_rows", [x, idx], [((7, 4), fdt)], lambda a, b: ops.scatter_add_rows(a, b, 7),
               {"rows": iattr(7)}))
    return P


@case("reshape_transpose")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (2, 3, 4), fdt), fdt)
    r1 = P.op("reshape", [x], [((6, 4), fdt)], lambda a: ops.reshape(a, (6, 4)))
    r2 = P.op("reshape", [x], [((24,), fdt)], lambda a: ops.reshape(a, (24,)))
    t = P.op("transpose", [x], [((4, 2, 3), fdt)], lambda a: ops.transpose(a, (2, 0, 1)),
             {"perm": "array<i64: 2, 0, 1>"})
    P.ret(r1, r2, t)
    return P


@case("convert_float_int")
def _(rng, fdt):
    P = Prog()
    x = P.arg(fdata(rng, (4, 5), fdt, 4.0), fdt)  # both signs: truncation toward zero
    i = P.arg(rng.integers(-300, 300, (4, 5)), "i32")
    to_i = P.op("convert", [x], [((4, 5), "i32")], lambda a: cvt(a, "i32"))
    to_f = P.op("convert", [i], [((4, 5), fdt)], lambda a: cvt(a, fdt))
    P.ret(to_i, to_f)
    return P


@case("convert_f32_bf16", modes=("bf16",))
def _(rng, fdt):
    """f32 -> bf16 -> f32. Only under --emulate=bf16: whether convert rounds in a plain fp64 run is not
    pinned down by the docs ("float -> bf16 rounds" vs "latch-interp computes in fp64")."""
    P = Prog()
    x = P.arg(fdata(rng, (6, 7), "f32"), "f32")
    b = P.op("convert", [x], [((6, 7), "bf16")], lambda a: ops.convert(a, "bf16"))
    f = P.op("convert", [b], [((6, 7), "f32")], lambda a: ops.convert(a, "f32"))
    P.ret(b, f)
    return P


def adamw_case(name, step, step_dtype):
    @case(name)
    def build(rng, fdt):
        """AdamW states are f32 whatever the mode (docs: p, g, m, v have dtype f32)."""
        P = Prog()
        p, g, m = (P.arg(fdata(rng, (4, 8), "f32"), "f32") for _ in range(3))
        v = P.arg(np.abs(fdata(rng, (4, 8), "f32", 0.01)), "f32")
        s = P.arg(np.array(step, np.float64 if step_dtype == "f32" else np.int32), step_dtype)
        hp = dict(lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.1)
        outs = P.op("adamw", [p, g, m, v, s], [((4, 8), "f32")] * 3,
                    lambda *a: ops.adamw(*a, **hp), {k: fattr(x) for k, x in hp.items()})
        P.ret(*outs)
        return P


adamw_case("adamw_step3_f32", 3.0, "f32")
adamw_case("adamw_step1_i32", 1, "i32")


@case("chain_mlp")
def _(rng, fdt):
    """matmul (f32 out) -> rmsnorm -> convert -> map silu -> matmul -> cross_entropy: rounding at each
    op boundary (and inside the silu body) must compose the same way on both sides."""
    P = Prog()
    x = P.arg(fdata(rng, (8, 16), fdt), fdt)
    w1 = P.arg(fdata(rng, (16, 32), fdt, 0.25), fdt)
    g = P.arg(fdata(rng, (32,), "f32"), "f32")
    w2 = P.arg(fdata(rng, (32, 10), fdt, 0.25), fdt)
    t = P.arg(rng.integers(0, 10, (8,)), "i32")
    h = P.op("matmul", [x, w1], [((8, 32), "f32")], ops.matmul, {"transpose_a": "false", "transpose_b": "false"})
    n = P.op("rmsnorm", [h, g], [((8, 32), "f32")], lambda a, b: ops.rmsnorm(a, b, 1e-5), {"eps": fattr(1e-5)})
    c = P.op("convert", [n], [((8, 32), fdt)], lambda a: cvt(a, fdt))
    a = map_op(P, [c], [fdt], [fdt], MAP_BODIES["silu"][1].format(t=fdt), MAP_BODIES["silu"][2])
    logits = P.op("matmul", [a, w2], [((8, 10), "f32")], ops.matmul, {"transpose_a": "false", "transpose_b": "false"})
    loss = P.op("cross_entropy", [logits, t], [((), "f32")], ops.cross_entropy)
    P.ret(loss, logits)
    return P


FLAGS = {"fp64": [], "fp32": ["--emulate=fp32"], "bf16": ["--emulate=bf16"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interp", help="latch-interp binary (default: from PATH, then build/)")
    ap.add_argument("--work", help="directory for programs, inputs and outputs (default: a temporary one)")
    ap.add_argument("--only", help="run only the cases whose name contains this")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--list", action="store_true", help="list the cases and print their programs, then exit")
    args = ap.parse_args()

    if args.list:
        for name, (build, modes) in CASES.items():
            for fdt in sorted({"bf16" if m == "bf16" else "f32" for m in modes}):
                print(f"// case {name} ({fdt})\n" + build(np.random.default_rng(0), fdt).mlir())
        return 0

    interp = harness.find_interp(args.interp)
    work = args.work or tempfile.mkdtemp(prefix="latch-jax-ops-")
    table = harness.Table()
    t0 = time.time()
    interp_time = 0.0
    for ci, (name, (build, modes)) in enumerate(CASES.items()):
        if args.only and args.only not in name:
            continue
        for mode in modes:
            fdt = "bf16" if mode == "bf16" else "f32"
            try:
                rng = np.random.default_rng([args.seed, ci])
                P = build(rng, fdt)
                ref, raw = P.reference(mode)
                inputs = {f"arg{i}": d for i, (v, d, _) in enumerate(P.args)}
                got, dt = harness.run_interp(interp, P.mlir(), P.entry, inputs, len(P.results),
                                             os.path.join(work, f"{name}.{mode}"), FLAGS[mode])
                interp_time += dt
            except harness.InterpError as e:
                table.add(name, mode, "-", "latch-interp", str(e)[:100], "runs", False)
                continue
            except Exception as e:  # a bug on this side: visible, not fatal to the other cases
                traceback.print_exc()
                table.add(name, mode, "-", "python", f"{type(e).__name__}: {e}"[:100], "runs", False)
                continue
            for i, (v, g, r, w) in enumerate(zip(P.results, got, ref, raw)):
                if mode == "fp64":
                    row = harness.compare_fp64(g, r, v)
                else:
                    row = harness.compare_rounded(g, r, w, v, mode)
                table.add(name, mode, f"result{i} {v.dtype}", *row)
    table.print()
    print(f"time: {time.time() - t0:.1f} s ({interp_time:.1f} s in latch-interp); work dir {work}")
    return 1 if table.failed() or not table.rows else 0


if __name__ == "__main__":
    sys.exit(main())
