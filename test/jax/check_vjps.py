#!/usr/bin/env python3
"""Check the gradients that latch-autodiff writes, op by op, against `jax.grad` of the same composition of
the JAX ops of test/jax/ops.py (written from docs/task-dialect.md), in fp64.

Each case is a small task program f(params, data) -> (loss) whose parameters (arguments with task.param)
feed one differentiable core op (a few cases chain several); the loss is the sum over the op's float
results of sum(result * W), W a fixed random weighting passed as a non-parameter argument (so every
element of every result gets its own cotangent, and dloss is not 1 where the op itself is rank 0). The
program goes through

    latch-opt --pass-pipeline='builtin.module(latch-autodiff)'   ->  @test_grad (loss, then one gradient
    latch-interp --entry test_grad (fp64, no --emulate)              per task.param argument, in order)

with every argument given by --input, and each gradient is compared with jax.grad of the JAX composition
(jax_enable_x64, fp64) w.r.t. the same parameter:

    max|latch - jax| / max|jax| <= 1e-10      per gradient tensor (and per loss)
    ||latch - jax||_2 / ||jax||_2 <= 1e-10    the same tensor, relative L2

A parameter on which the loss does not depend must get an exact zero gradient from both sides (JAX's
max|ref| is then 0 and the metric is the plain max |latch|). Inputs are f32-exact random values, drawn so
that no case sits on a point where the op is not differentiable (no ties for reduce max / top-k, no
exact zeros for relu), where the two sides' conventions could legitimately differ (jax.grad of max
splits a tie evenly; task.reduce_grad gives it to the first index).

Usage: check_vjps.py [--opt PATH] [--interp PATH] [--work DIR] [--only SUBSTRING] [--seed N] [--list]
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import ops  # noqa: E402
from harness import battr, fattr, iattr  # noqa: E402

jax = ops.jax
jnp = ops.jnp
GATE = harness.FP64_GATE  # 1e-10


# ----------------------------------------------------------------------------------------------------
# Programs with parameters, and their JAX loss as a differentiable function of the parameters.
# ----------------------------------------------------------------------------------------------------
class GradProg(harness.Prog):
    """harness.Prog whose arguments may be task.param; `param()` adds one."""

    def __init__(self):
        super().__init__("test")
        self.params = []  # V of the task.param arguments, in argument order

    def param(self, data, dtype="f32"):
        v = self.arg(data, dtype)
        w, d, _ = self.args[-1]
        self.args[-1] = (w, d, f' {{task.name = "p{len(self.params)}", task.param}}')
        self.params.append(v)
        return v

    def jax_loss(self, values):
        """The program's first result as a JAX function of {param name: array}; the other arguments are
        the fixed data written for latch-interp."""
        env = {}
        for v, data, _ in self.args:
            env[v.name] = values[v.name] if v.name in values else jnp.asarray(data)
        for v, t in self.pre:
            env[v.name] = jnp.asarray(float(t.split("= arith.constant ")[1].split(" :")[0]))
        for ins, outs, fn, _ in self.ops:
            vals = fn(*[env[i.name] for i in ins])
            if len(outs) == 1 and not isinstance(vals, (list, tuple)):
                vals = [vals]
            assert len(vals) == len(outs)
            for v, x in zip(outs, vals):
                env[v.name] = x
        return jnp.asarray(env[self.results[0].name], jnp.float64)


def fdata(rng, shape, dt="f32", scale=1.0):
    return ops.round_to(rng.standard_normal(shape) * scale, dt)


def map_op(P, ins, outs, body, fn):
    """task.map over `ins` (block argument types: their element types); outs: output dtypes."""
    shape = next((v.shape for v in ins if v.shape), ())
    args = ", ".join(f"%a{i}: {v.dtype}" for i, v in enumerate(ins))
    region = f"  ^bb0({args}):\n" + "\n".join("    " + line for line in body.strip().split("\n"))
    return P.op("map", ins, [(shape, d) for d in outs], lambda *xs: ops.map_(fn, *xs),
                harness.map_segments(len(ins), len(outs)), region=region)


def weighted_loss(P, rng, outs):
    """loss = sum over the float outputs o of sum(o * W_o) (W_o random data), as a rank-0 f32."""
    parts = []
    for o in outs:
        if o.dtype not in ops.FLOAT_TYPES:
            continue
        w = P.arg(fdata(rng, o.shape, o.dtype), o.dtype)
        t = o.dtype
        y = map_op(P, [o, w], [t], f"%r = arith.mulf %a0, %a1 : {t}\ngpu.yield %r : {t}", lambda a, b: [a * b])
        while y.shape:
            y = P.op("reduce", [y], [(y.shape[1:], t)], lambda x: ops.reduce(x, 0, "sum"),
                     {"axis": iattr(0), "kind": '"sum"'})
        if t != "f32":
            y = P.op("convert", [y], [((), "f32")], lambda x: x)
        parts.append(y)
    loss = parts[0]
    for p in parts[1:]:
        loss = map_op(P, [loss, p], ["f32"], "%r = arith.addf %a0, %a1 : f32\ngpu.yield %r : f32",
                      lambda a, b: [a + b])
    P.ret(loss)
    return P


# ----------------------------------------------------------------------------------------------------
# The cases: name -> builder(rng) -> GradProg.
# ----------------------------------------------------------------------------------------------------
CASES = {}


def case(name):
    def deco(fn):
        CASES[name] = fn
        return fn

    return deco


def matmul_case(name, shape_a, shape_b, ta, tb, out="f32", a_param=True, b_param=True):
    @case(name)
    def build(rng):
        P = GradProg()
        mk = lambda s, p: P.param(fdata(rng, s)) if p else P.arg(fdata(rng, s), "f32")  # noqa: E731
        a, b = mk(shape_a, a_param), mk(shape_b, b_param)
        A = shape_a[:-2] + ((shape_a[-1], shape_a[-2]) if ta else shape_a[-2:])
        B = shape_b[:-2] + ((shape_b[-1], shape_b[-2]) if tb else shape_b[-2:])
        c = P.op("matmul", [a, b], [(A[:-1] + B[-1:], out)], lambda x, y: ops.matmul(x, y, ta, tb),
                 {"transpose_a": battr(ta), "transpose_b": battr(tb)})
        return weighted_loss(P, rng, [c])


matmul_case("matmul", (6, 8), (8, 5), False, False)
matmul_case("matmul_ta", (8, 6), (8, 5), True, False)
matmul_case("matmul_tb", (6, 8), (5, 8), False, True)
matmul_case("matmul_ta_tb", (8, 6), (5, 8), True, True)
matmul_case("matmul_batch", (3, 6, 8), (3, 8, 5), False, False)
matmul_case("matmul_batch_ta", (3, 8, 6), (3, 8, 5), True, False)
matmul_case("matmul_batch_tb", (3, 6, 8), (3, 5, 8), False, True)
matmul_case("matmul_batch_ta_tb", (3, 8, 6), (3, 5, 8), True, True)
matmul_case("matmul_only_a_param", (6, 8), (5, 8), False, True, b_param=False)
matmul_case("matmul_only_b_param_ta", (8, 6), (8, 5), True, False, a_param=False)


@case("matmul_bf16_types")
def _(rng):
    """bf16 operands (fp32 accumulation, f32 result): latch-autodiff casts the f32 adjoint to bf16 with
    task.convert, which rounds nothing without --emulate."""
    P = GradProg()
    a, b = P.param(fdata(rng, (5, 7), "bf16"), "bf16"), P.param(fdata(rng, (7, 4), "bf16"), "bf16")
    c = P.op("matmul", [a, b], [((5, 4), "f32")], ops.matmul, {"transpose_a": "false", "transpose_b": "false"})
    return weighted_loss(P, rng, [c])


def grouped_case(name, ends, R=12, K=8, N=6):
    @case(name)
    def build(rng):
        P = GradProg()
        x = P.param(fdata(rng, (R, K)))
        w = P.param(fdata(rng, (len(ends), K, N)))
        e = P.arg(np.array(ends, np.int32), "i32")
        y = P.op("grouped_matmul", [x, w, e], [((R, N), "f32")], ops.grouped_matmul)
        return weighted_loss(P, rng, [y])


# Groups 0 and 2 empty, rows 10 and 11 after the last end (zero rows, zero dx); then every row used with
# the last groups empty; then every group empty (ends all 0: y = 0, both gradients 0).
grouped_case("grouped_matmul_empty_groups", [0, 3, 3, 9, 10])
grouped_case("grouped_matmul_full_last_empty", [2, 2, 7, 12, 12])
grouped_case("grouped_matmul_all_empty", [0, 0, 0])


# Map bodies: (input dtypes, output dtypes, body, fn). Scalars are f32 unless said.
MAP_BODIES = {
    "relu": (1, 1, """
%zero = arith.constant 0.0 : f32
%r = arith.maximumf %a0, %zero : f32
gpu.yield %r : f32""", lambda a: [jnp.maximum(a, 0.0)]),
    "silu": (1, 1, """
%one = arith.constant 1.0 : f32
%n = arith.negf %a0 : f32
%e = math.exp %n : f32
%d = arith.addf %e, %one : f32
%r = arith.divf %a0, %d : f32
gpu.yield %r : f32""", lambda a: [a / (1.0 + jnp.exp(-a))]),
    "gelu_tanh": (1, 1, """
%half = arith.constant 0.5 : f32
%one = arith.constant 1.0 : f32
%k0 = arith.constant 0.796875 : f32
%k1 = arith.constant 0.046875 : f32
%x2 = arith.mulf %a0, %a0 : f32
%x3 = arith.mulf %x2, %a0 : f32
%c = arith.mulf %x3, %k1 : f32
%s = arith.addf %a0, %c : f32
%u = arith.mulf %s, %k0 : f32
%th = math.tanh %u : f32
%p = arith.addf %th, %one : f32
%h = arith.mulf %a0, %half : f32
%r = arith.mulf %h, %p : f32
gpu.yield %r : f32""", lambda a: [0.5 * a * (1.0 + jnp.tanh(0.796875 * (a + 0.046875 * a**3)))]),
    "swiglu_two_inputs": (2, 1, """
%one = arith.constant 1.0 : f32
%n = arith.negf %a0 : f32
%e = math.exp %n : f32
%d = arith.addf %one, %e : f32
%s = arith.divf %a0, %d : f32
%r = arith.mulf %s, %a1 : f32
gpu.yield %r : f32""", lambda a, b: [a / (1.0 + jnp.exp(-a)) * b]),
    "sub_mul_two_outputs": (2, 2, """
%d = arith.subf %a0, %a1 : f32
%p = arith.mulf %a0, %a1 : f32
gpu.yield %d, %p : f32, f32""", lambda a, b: [a - b, a * b]),
    # A value used twice (x2 in both outputs) and an input used by several ops.
    "select_sqrt_abs_exp_log_rsqrt": (1, 2, """
%zero = arith.constant 0.0 : f32
%one = arith.constant 1.0 : f32
%pos = arith.cmpf ogt, %a0, %zero : f32
%ab = math.absf %a0 : f32
%s = math.sqrt %ab : f32
%e = math.exp %a0 : f32
%r = arith.select %pos, %s, %e : f32
%sq = arith.mulf %a0, %a0 : f32
%q = arith.addf %sq, %one : f32
%l = math.log %q : f32
%rs = math.rsqrt %q : f32
%m = arith.mulf %l, %rs : f32
gpu.yield %r, %m : f32, f32""", lambda a: [jnp.where(a > 0, jnp.sqrt(jnp.abs(a)), jnp.exp(a)),
                                          jnp.log(a * a + 1.0) / jnp.sqrt(a * a + 1.0)]),
    "sin_cos_min_neg": (2, 1, """
%s = math.sin %a0 : f32
%c = math.cos %a1 : f32
%m = arith.minimumf %s, %c : f32
%n = arith.negf %a1 : f32
%p = arith.mulf %m, %n : f32
%r = arith.addf %p, %s : f32
gpu.yield %r : f32""", lambda a, b: [jnp.minimum(jnp.sin(a), jnp.cos(b)) * -b + jnp.sin(a)]),
    # d erf(x)/dx = 2/sqrt(pi) exp(-x^2): a constant that no f32 holds exactly.
    "erf": (1, 1, """
%e = math.erf %a0 : f32
gpu.yield %e : f32""", lambda a: [jax.scipy.special.erf(a)]),
    # powf with a positive base (|a0| + 0.5) and an exponent that is a parameter too.
    "powf_max": (2, 1, """
%half = arith.constant 0.5 : f32
%ab = math.absf %a0 : f32
%b = arith.addf %ab, %half : f32
%p = math.powf %b, %a1 : f32
%r = arith.maximumf %p, %a1 : f32
gpu.yield %r : f32""", lambda a, b: [jnp.maximum(jnp.power(jnp.abs(a) + 0.5, b), b)]),
    "extf_f64_truncf": (1, 1, """
%e = arith.extf %a0 : f32 to f64
%m = arith.mulf %e, %e : f64
%t = math.tanh %m : f64
%r = arith.truncf %t : f64 to f32
gpu.yield %r : f32""", lambda a: [jnp.tanh(a * a)]),
}


def map_case(name, nin, nout, body, fn):
    @case("map_" + name)
    def build(rng):
        P = GradProg()
        ins = [P.param(fdata(rng, (5, 7))) for _ in range(nin)]
        outs = map_op(P, ins, ["f32"] * nout, body, fn)
        return weighted_loss(P, rng, outs if isinstance(outs, list) else [outs])


for _name, (_nin, _nout, _body, _fn) in MAP_BODIES.items():
    map_case(_name, _nin, _nout, _body, _fn)


@case("map_fma_rank0_broadcast")
def _(rng):
    """a * b + c with c a rank-0 parameter (broadcast): its gradient is the sum over every element."""
    P = GradProg()
    a, b, c = P.param(fdata(rng, (4, 6))), P.param(fdata(rng, (4, 6))), P.param(fdata(rng, ()))
    y = map_op(P, [a, b, c], ["f32"], "%p = arith.mulf %a0, %a1 : f32\n%r = arith.addf %p, %a2 : f32\n"
               "gpu.yield %r : f32", lambda x, y, z: [x * y + z])
    return weighted_loss(P, rng, [y])


@case("map_rank0_scale_data")
def _(rng):
    """x * s with s a rank-0 data argument (not a parameter) and a rank-0 parameter t added."""
    P = GradProg()
    x, t = P.param(fdata(rng, (3, 5))), P.param(fdata(rng, ()))
    s = P.arg(fdata(rng, ()), "f32")
    y = map_op(P, [x, s, t], ["f32"], "%p = arith.mulf %a0, %a1 : f32\n%r = arith.subf %p, %a2 : f32\n"
               "gpu.yield %r : f32", lambda a, b, c: [a * b - c])
    return weighted_loss(P, rng, [y])


def wide_map_case(name, nin, nparams):
    """A map at task.map's width limits: nin inputs (at most 12), the first nparams of them parameters;
    the body folds them with alternating mulf / addf."""
    @case(name)
    def build(rng):
        P = GradProg()
        ins = [P.param(fdata(rng, (2, 3))) if i < nparams else P.arg(fdata(rng, (2, 3)), "f32") for i in range(nin)]
        lines, prev = [], "%a0"
        for i in range(1, nin):
            lines.append(f"%s{i} = arith.{'mulf' if i % 2 else 'addf'} {prev}, %a{i} : f32")
            prev = f"%s{i}"
        lines.append(f"gpu.yield {prev} : f32")

        def fn(*xs):
            acc = xs[0]
            for i in range(1, nin):
                acc = acc * xs[i] if i % 2 else acc + xs[i]
            return [acc]

        return weighted_loss(P, rng, [map_op(P, ins, ["f32"], "\n".join(lines), fn)])


wide_map_case("map_6_param_inputs", 6, 6)
wide_map_case("map_7_param_inputs", 7, 7)
wide_map_case("map_11_inputs_1_param", 11, 1)
wide_map_case("map_12_inputs_1_param", 12, 1)


@case("map_int_input")
def _(rng):
    P = GradProg()
    i = P.arg(rng.integers(-5, 6, (3, 8)), "i32")
    x = P.param(fdata(rng, (3, 8)))
    y = map_op(P, [i, x], ["f32"], "%f = arith.sitofp %a0 : i32 to f32\n%r = arith.mulf %f, %a1 : f32\n"
               "gpu.yield %r : f32", lambda a, b: [a.astype(jnp.float64) * b])
    return weighted_loss(P, rng, [y])


@case("map_const_above")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (3, 8)))
    c = P.const(0.375, "f32")
    y = map_op(P, [x], ["f32"], f"%p = arith.mulf %a0, %a0 : f32\n%q = arith.mulf %p, {c.name} : f32\n"
               f"%r = arith.addf %q, {c.name} : f32\ngpu.yield %r : f32", lambda a: [a * a * 0.375 + 0.375])
    return weighted_loss(P, rng, [y])


@case("map_two_outputs_one_used")
def _(rng):
    """Only the second output reaches the loss: the first one's adjoint is zero."""
    P = GradProg()
    a, b = P.param(fdata(rng, (4, 5))), P.param(fdata(rng, (4, 5)))
    d, p = map_op(P, [a, b], ["f32", "f32"], "%d = arith.subf %a0, %a1 : f32\n%p = arith.mulf %a0, %a1 : f32\n"
                  "gpu.yield %d, %p : f32, f32", lambda x, y: [x - y, x * y])
    return weighted_loss(P, rng, [p])


@case("map_unused_param")
def _(rng):
    """A parameter the loss does not depend on gets a zero gradient (both sides exactly 0)."""
    P = GradProg()
    a = P.param(fdata(rng, (4, 5)))
    P.param(fdata(rng, (3,)))
    y = map_op(P, [a], ["f32"], "%r = arith.mulf %a0, %a0 : f32\ngpu.yield %r : f32", lambda x: [x * x])
    return weighted_loss(P, rng, [y])


@case("reduce")
def _(rng):
    """sum, max and mean along every axis of a rank-3 tensor, and rank 1 -> rank 0."""
    P = GradProg()
    x = P.param(fdata(rng, (3, 4, 5)))
    outs = []
    for axis in range(3):
        for kind in ("sum", "max", "mean"):
            shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
            outs.append(P.op("reduce", [x], [(shape, "f32")], lambda v, a=axis, k=kind: ops.reduce(v, a, k),
                             {"axis": iattr(axis), "kind": f'"{kind}"'}))
    z = P.param(fdata(rng, (7,)))
    for kind in ("sum", "max", "mean"):
        outs.append(P.op("reduce", [z], [((), "f32")], lambda v, k=kind: ops.reduce(v, 0, k),
                         {"axis": iattr(0), "kind": f'"{kind}"'}))
    return weighted_loss(P, rng, outs)


@case("rmsnorm")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (2, 5, 16), scale=3.0))
    w = P.param(ops.round_to(1.0 + rng.standard_normal(16) * 0.25, "f32"))
    y = P.op("rmsnorm", [x, w], [(x.shape, "f32")], lambda a, b: ops.rmsnorm(a, b, 1e-5), {"eps": fattr(1e-5)})
    return weighted_loss(P, rng, [y])


@case("rmsnorm_rank1_large_eps")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (8,), scale=0.5))
    w = P.param(fdata(rng, (8,)))
    y = P.op("rmsnorm", [x, w], [(x.shape, "f32")], lambda a, b: ops.rmsnorm(a, b, 0.25), {"eps": fattr(0.25)})
    return weighted_loss(P, rng, [y])


@case("softmax")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (2, 3, 7), scale=3.0))
    return weighted_loss(P, rng, [P.op("softmax", [x], [(x.shape, "f32")], ops.softmax)])


@case("cross_entropy")
def _(rng):
    """The loss is W * cross_entropy (dloss = W, not 1)."""
    P = GradProg()
    logits = P.param(fdata(rng, (10, 13), scale=2.0))
    t = P.arg(rng.integers(0, 13, (10,)), "i32")
    return weighted_loss(P, rng, [P.op("cross_entropy", [logits, t], [((), "f32")], ops.cross_entropy)])


@case("cross_entropy_as_loss")
def _(rng):
    """cross_entropy's result is the loss itself (dloss = 1), after a matmul that makes the logits."""
    P = GradProg()
    x = P.param(fdata(rng, (6, 8)))
    w = P.param(fdata(rng, (8, 11), scale=0.5))
    t = P.arg(rng.integers(0, 11, (6,)), "i32")
    logits = P.op("matmul", [x, w], [((6, 11), "f32")], ops.matmul, {"transpose_a": "false", "transpose_b": "false"})
    P.ret(P.op("cross_entropy", [logits, t], [((), "f32")], ops.cross_entropy))
    return P


@case("embedding")
def _(rng):
    """ids of rank 2 with repeats; table rows that no id names get zero gradient."""
    P = GradProg()
    table = P.param(fdata(rng, (11, 6)))
    ids = P.arg(np.array([[3, 0, 3, 7, 10], [0, 3, 5, 5, 1]]), "i32")
    return weighted_loss(P, rng, [P.op("embedding", [table, ids], [((2, 5, 6), "f32")], ops.embedding)])


@case("embedding_ids_rank1")
def _(rng):
    P = GradProg()
    table = P.param(fdata(rng, (9, 4)))
    ids = P.arg(rng.integers(0, 9, (12,)), "i32")
    return weighted_loss(P, rng, [P.op("embedding", [table, ids], [((12, 4), "f32")], ops.embedding)])


def rope_case(name, shape, theta):
    @case(name)
    def build(rng):
        P = GradProg()
        x = P.param(fdata(rng, shape))
        y = P.op("rope", [x], [(shape, "f32")], lambda a: ops.rope(a, theta), {"theta": fattr(theta)})
        return weighted_loss(P, rng, [y])


rope_case("rope", (2, 6, 3, 8), 10000.0)
rope_case("rope_theta_small_hd4", (1, 9, 2, 4), 123.5)


def attention_case(name, causal, tq, tk, scale, params="qkv"):
    @case(name)
    def build(rng):
        P = GradProg()
        mk = lambda s, p: P.param(fdata(rng, s)) if p else P.arg(fdata(rng, s), "f32")  # noqa: E731
        q = mk((2, 3, tq, 8), "q" in params)
        k = mk((2, 3, tk, 8), "k" in params)
        v = mk((2, 3, tk, 8), "v" in params)
        o = P.op("attention", [q, k, v], [(q.shape, "f32")], lambda a, b, c: ops.attention(a, b, c, causal, scale),
                 {"causal": battr(causal), "scale": fattr(scale)})
        return weighted_loss(P, rng, [o])


attention_case("attention_causal", True, 7, 7, 1 / math.sqrt(8))
attention_case("attention_noncausal_tk5", False, 7, 5, 0.3)
attention_case("attention_noncausal_tk9_negscale", False, 4, 9, -0.45)
attention_case("attention_causal_only_k_param", True, 6, 6, 0.5, params="k")


def topk_case(name, k, E=6):
    @case(name)
    def build(rng):
        P = GradProg()
        x = P.param(fdata(rng, (9, E)))
        vals, _ = P.op("topk", [x], [((9, k), "f32"), ((9, k), "i32")], lambda a: ops.topk(a, k), {"k": iattr(k)})
        return weighted_loss(P, rng, [vals])


topk_case("topk_values_k2", 2)
topk_case("topk_values_k1", 1)
topk_case("topk_values_k_eq_e", 6)


@case("gather_rows")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (6, 4)))
    idx = P.arg(np.array([4, 0, 4, 2, 4, 0, 5, 2, 0]), "i32")  # row 1 and 3 never gathered
    return weighted_loss(P, rng, [P.op("gather_rows", [x, idx], [((9, 4), "f32")], ops.gather_rows)])


@case("scatter_add_rows")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (9, 4)))
    idx = P.arg(np.array([3, 0, 3, 5, 0, 3, 1, 5, 0]), "i32")  # rows 2, 4 and 6 get nothing
    y = P.op("scatter_add_rows", [x, idx], [((7, 4), "f32")], lambda a, b: ops.scatter_add_rows(a, b, 7),
             {"rows": iattr(7)})
    return weighted_loss(P, rng, [y])


@case("reshape")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (2, 3, 4)))
    r1 = P.op("reshape", [x], [((6, 4), "f32")], lambda a: ops.reshape(a, (6, 4)))
    r2 = P.op("reshape", [x], [((24,), "f32")], lambda a: ops.reshape(a, (24,)))
    r3 = P.op("reshape", [x], [((4, 1, 6), "f32")], lambda a: ops.reshape(a, (4, 1, 6)))
    return weighted_loss(P, rng, [r1, r2, r3])


@case("transpose")
def _(rng):
    P = GradProg()
    x = P.param(fdata(rng, (2, 3, 4)))
    y = P.param(fdata(rng, (2, 5, 3, 4)))
    t1 = P.op("transpose", [x], [((4, 2, 3), "f32")], lambda a: ops.transpose(a, (2, 0, 1)),
              {"perm": "array<i64: 2, 0, 1>"})
    t2 = P.op("transpose", [y], [((2, 3, 5, 4), "f32")], lambda a: ops.transpose(a, (0, 2, 1, 3)),
              {"perm": "array<i64: 0, 2, 1, 3>"})
    t3 = P.op("transpose", [y], [((4, 3, 2, 5), "f32")], lambda a: ops.transpose(a, (3, 2, 0, 1)),
              {"perm": "array<i64: 3, 2, 0, 1>"})
    return weighted_loss(P, rng, [t1, t2, t3])


@case("convert_float_chain")
def _(rng):
    """f32 -> bf16 -> (square in bf16) -> f32, and f32 -> f64 -> f32 (no --emulate: nothing rounds, the
    gradient passes through every convert unchanged)."""
    P = GradProg()
    x = P.param(fdata(rng, (4, 5)))
    b = P.op("convert", [x], [((4, 5), "bf16")], lambda a: a)
    s = map_op(P, [b], ["bf16"], "%r = arith.mulf %a0, %a0 : bf16\ngpu.yield %r : bf16", lambda a: [a * a])
    f = P.op("convert", [s], [((4, 5), "f32")], lambda a: a)
    d = P.op("convert", [x], [((4, 5), "f64")], lambda a: a)
    d3 = map_op(P, [d], ["f64"], "%p = arith.mulf %a0, %a0 : f64\n%r = arith.mulf %p, %a0 : f64\n"
                "gpu.yield %r : f64", lambda a: [a * a * a])
    g = P.op("convert", [d3], [((4, 5), "f32")], lambda a: a)
    return weighted_loss(P, rng, [f, g])


@case("convert_int_path")
def _(rng):
    """x -> i32 (truncation) -> f32 -> times y: no gradient flows through the integer value, so dx comes
    only from the direct use of x."""
    P = GradProg()
    x = P.param(fdata(rng, (4, 5), scale=4.0))
    y = P.param(fdata(rng, (4, 5)))
    i = P.op("convert", [x], [((4, 5), "i32")], lambda a: jax.lax.stop_gradient(jnp.trunc(a)).astype(jnp.int32))
    f = P.op("convert", [i], [((4, 5), "f32")], lambda a: a.astype(jnp.float64))
    p = map_op(P, [f, y, x], ["f32"], "%m = arith.mulf %a0, %a1 : f32\n%r = arith.addf %m, %a2 : f32\n"
               "gpu.yield %r : f32", lambda a, b, c: [a * b + c])
    return weighted_loss(P, rng, [p])


@case("chain_mlp_fanout")
def _(rng):
    """matmul -> rmsnorm -> silu -> matmul -> cross_entropy, with the input matrix used twice (a
    residual) so that adjoints accumulate, and one weight used by two matmuls."""
    P = GradProg()
    x = P.param(fdata(rng, (8, 16)))
    w1 = P.param(fdata(rng, (16, 16), scale=0.25))
    g = P.param(ops.round_to(1.0 + rng.standard_normal(16) * 0.1, "f32"))
    w2 = P.param(fdata(rng, (16, 10), scale=0.25))
    t = P.arg(rng.integers(0, 10, (8,)), "i32")
    mm = lambda a, b: P.op("matmul", [a, b], [((a.shape[0], b.shape[1]), "f32")], ops.matmul,  # noqa: E731
                           {"transpose_a": "false", "transpose_b": "false"})
    h = mm(x, w1)
    h2 = mm(h, w1)
    n = P.op("rmsnorm", [h2, g], [((8, 16), "f32")], lambda a, b: ops.rmsnorm(a, b, 1e-5), {"eps": fattr(1e-5)})
    a = map_op(P, [n], ["f32"], MAP_BODIES["silu"][2], MAP_BODIES["silu"][3])
    r = map_op(P, [a, x], ["f32"], "%r = arith.addf %a0, %a1 : f32\ngpu.yield %r : f32", lambda u, v: [u + v])
    logits = mm(r, w2)
    P.ret(P.op("cross_entropy", [logits, t], [((), "f32")], ops.cross_entropy))
    return P


@case("moe_routing_chain")
def _(rng):
    """softmax -> topk -> renormalised weights -> gather_rows / grouped_matmul / scatter_add_rows, as an
    MoE layer routes (bucket's order and ends are integer data here, computed by JAX and passed in)."""
    N, D, E, K, F = 6, 5, 4, 2, 3
    P = GradProg()
    h = P.param(fdata(rng, (N, D)))
    router = P.param(fdata(rng, (D, E)))
    w = P.param(fdata(rng, (E, D, F), scale=0.5))
    logits = P.op("matmul", [h, router], [((N, E), "f32")], ops.matmul, {"transpose_a": "false", "transpose_b": "false"})
    probs = P.op("softmax", [logits], [((N, E), "f32")], ops.softmax)
    # The routing is integer data: compute it here from the same inputs and pass it in.
    pr = np.asarray(ops.softmax(ops.matmul(P.args[0][1], P.args[1][1])))
    _, idx = ops.topk(pr, K)
    order, ends = (np.asarray(a) for a in ops.bucket(np.asarray(idx), E))
    vals, _ = P.op("topk", [probs], [((N, K), "f32"), ((N, K), "i32")], lambda a: ops.topk(a, K), {"k": iattr(K)})
    tot = P.op("reduce", [vals], [((N,), "f32")], lambda a: ops.reduce(a, 1, "sum"), {"axis": iattr(1), "kind": '"sum"'})
    tot2 = P.op("reshape", [tot], [((N, 1), "f32")], lambda a: ops.reshape(a, (N, 1)))
    tot_b = P.op("gather_rows", [tot2, P.arg(np.arange(N).repeat(K), "i32")], [((N * K, 1), "f32")], ops.gather_rows)
    vflat = P.op("reshape", [vals], [((N * K, 1), "f32")], lambda a: ops.reshape(a, (N * K, 1)))
    gate = map_op(P, [vflat, tot_b], ["f32"], "%r = arith.divf %a0, %a1 : f32\ngpu.yield %r : f32",
                  lambda a, b: [a / b])
    ord_v = P.arg(order, "i32")
    tok = P.arg(order // K, "i32")
    xs = P.op("gather_rows", [h, tok], [((N * K, D), "f32")], ops.gather_rows)
    ends_v = P.arg(ends, "i32")
    ys = P.op("grouped_matmul", [xs, w, ends_v], [((N * K, F), "f32")], ops.grouped_matmul)
    gs = P.op("gather_rows", [gate, ord_v], [((N * K, 1), "f32")], ops.gather_rows)
    gsb = P.op("reshape", [gs], [((N * K,), "f32")], lambda a: ops.reshape(a, (N * K,)))
    # scale each row by its gate: a batched 1x1 by 1xF matmul, as latch-gen does
    g3 = P.op("reshape", [gsb], [((N * K, 1, 1), "f32")], lambda a: ops.reshape(a, (N * K, 1, 1)))
    y3 = P.op("reshape", [ys], [((N * K, 1, F), "f32")], lambda a: ops.reshape(a, (N * K, 1, F)))
    sc = P.op("matmul", [g3, y3], [((N * K, 1, F), "f32")], ops.matmul, {"transpose_a": "false", "transpose_b": "false"})
    sc2 = P.op("reshape", [sc], [((N * K, F), "f32")], lambda a: ops.reshape(a, (N * K, F)))
    out = P.op("scatter_add_rows", [sc2, tok], [((N, F), "f32")], lambda a, b: ops.scatter_add_rows(a, b, N),
               {"rows": iattr(N)})
    return weighted_loss(P, rng, [out])


# ----------------------------------------------------------------------------------------------------
# Running and comparing.
# ----------------------------------------------------------------------------------------------------
def find_opt(given, interp):
    path = given or os.path.join(os.path.dirname(os.path.abspath(interp)), "latch-opt")
    if not os.path.exists(path):
        path = shutil.which("latch-opt")
    if not path:
        sys.exit("latch-opt not found (--opt, next to latch-interp, or PATH)")
    return path


def autodiff(opt, mlir_text, workdir):
    """latch-autodiff over the program; returns the transformed module's text."""
    os.makedirs(workdir, exist_ok=True)
    src, dst = os.path.join(workdir, "forward.mlir"), os.path.join(workdir, "grad.mlir")
    with open(src, "w") as f:
        f.write(mlir_text)
    p = subprocess.run([opt, "--pass-pipeline=builtin.module(latch-autodiff)", src, "-o", dst],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip() or "(no message)").splitlines()
        # The diagnostic without the file name (the full text is in the work directory's stderr).
        msg = [m.split("error: ", 1)[1] if "error: " in m else m for m in msg]
        with open(os.path.join(workdir, "latch-opt.stderr"), "w") as f:
            f.write(p.stderr)
        raise harness.InterpError(f"latch-opt exit {p.returncode}: " + " | ".join(msg[:3]))
    return open(dst).read()


def rel_l2(got, ref):
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if not np.all(np.isfinite(got)):
        return float("inf")
    n = float(np.linalg.norm(ref.ravel()))
    e = float(np.linalg.norm((got - ref).ravel()))
    return e / n if n > 0 else e


def compare(table, case, tensor, got, ref, shape):
    """Two rows (max-relative and relative L2), both gated at 1e-10; failures say where."""
    got = np.asarray(got)
    ref = np.asarray(ref, np.float64)
    if tuple(got.shape) != tuple(shape) or got.dtype != np.float64:
        table.add(case, "fp64", tensor, "shape/dtype", f"{tuple(got.shape)} {got.dtype}",
                  f"== {tuple(shape)} float64", False)
        return
    if not np.all(np.isfinite(ref)):
        table.add(case, "fp64", tensor, "JAX reference", "not finite", "finite", False)
        return
    e, l2 = harness.rel_err(got, ref), rel_l2(got, ref)
    detail = None
    if not (e <= GATE and l2 <= GATE) and got.size:
        d = np.abs(got - ref)
        worst = np.unravel_index(int(np.nanargmax(np.where(np.isfinite(d), d, np.inf))), got.shape)
        detail = (f"worst at {[int(i) for i in worst]}: latch {float(got[worst])!r}, JAX {float(ref[worst])!r}; "
                  f"max|jax| {float(np.max(np.abs(ref))):.6g}, max|latch-jax| {float(np.nanmax(d)):.6g}, "
                  f"{int(np.sum(d > GATE * max(float(np.max(np.abs(ref))), 1e-300)))} of {got.size} elements off")
    table.add(case, "fp64", tensor, "max|d|/max|ref|", f"{e:.3e}", f"<= {GATE:.0e}", e <= GATE, detail)
    table.add(case, "fp64", tensor, "||d||/||ref||", f"{l2:.3e}", f"<= {GATE:.0e}", l2 <= GATE,
              detail if e <= GATE else None)


def run_case(name, build, args, opt, interp, work, table):
    rng = np.random.default_rng([args.seed, list(CASES).index(name)])
    P = build(rng)
    wd = os.path.join(work, name)
    grad_text = autodiff(opt, P.mlir(), wd)
    inputs = {f"arg{i}": d for i, (v, d, _) in enumerate(P.args)}
    outs, dt = harness.run_interp(interp, grad_text, P.entry + "_grad", inputs, 1 + len(P.params), wd)

    values = {v.name: jnp.asarray(d) for v, d, _ in P.args if v in P.params}
    loss, grads = jax.jit(jax.value_and_grad(P.jax_loss))(values)
    compare(table, name, "loss", outs[0], np.asarray(loss), ())
    for i, v in enumerate(P.params):
        compare(table, name, f"d p{i} {list(v.shape)}", outs[1 + i], np.asarray(grads[v.name]), v.shape)
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opt", help="latch-opt binary (default: next to latch-interp, then PATH)")
    ap.add_argument("--interp", help="latch-interp binary (default: PATH, then build/)")
    ap.add_argument("--work", help="directory for programs, inputs and outputs (default: a temporary one)")
    ap.add_argument("--only", help="run only the cases whose name contains this")
    ap.add_argument("--seed", type=int, default=4321)
    ap.add_argument("--list", action="store_true", help="print every case's forward program, then exit")
    args = ap.parse_args()

    if args.list:
        for name, build in CASES.items():
            print(f"// case {name}\n" + build(np.random.default_rng(0)).mlir())
        return 0

    interp = harness.find_interp(args.interp)
    opt = find_opt(args.opt, interp)
    work = args.work or tempfile.mkdtemp(prefix="latch-jax-vjps-")
    table = harness.Table()
    t0 = time.time()
    interp_time = 0.0
    ncases = 0
    for name, build in CASES.items():
        if args.only and args.only not in name:
            continue
        ncases += 1
        try:
            interp_time += run_case(name, build, args, opt, interp, work, table)
        except harness.InterpError as e:
            table.add(name, "fp64", "-", "latch-opt/interp", str(e)[:160], "runs", False)
        except Exception as e:  # a bug on this side: visible, not fatal to the other cases
            traceback.print_exc()
            table.add(name, "fp64", "-", "python", f"{type(e).__name__}: {e}"[:120], "runs", False)
    table.print()
    print(f"{ncases} cases; time: {time.time() - t0:.1f} s ({interp_time:.1f} s in latch-interp); work dir {work}")
    return 1 if table.failed() or not table.rows else 0


if __name__ == "__main__":
    sys.exit(main())
