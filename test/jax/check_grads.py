#!/usr/bin/env python3
"""Check the TinyMoE gradients that latch-autodiff writes against `jax.grad` of the JAX TinyMoE loss of
test/jax/tinymoe.py (written from models.md, not from latch-gen's output), in fp64.

For each config: `latch-gen tinymoe` writes the program, `latch-opt --pass-pipeline=
'builtin.module(latch-autodiff)'` adds @tinymoe_grad (the loss, then one gradient per task.param argument
in argument order), and `latch-interp --entry tinymoe_grad` (fp64, no --emulate) runs it with every
argument given by --input. The parameters and tokens are those of check_tinymoe.py (same generator, same
mapping of the program's task.name attributes onto the JAX model's parameter names), and the JAX side is
jax.value_and_grad of tinymoe.forward w.r.t. the parameter dict (jax_enable_x64, fp64).

Routing: the JAX model evaluates every expert densely and then picks the top-k outputs and weights with
integer indices (argsort), so jax.grad reaches an expert's weights only through the tokens routed to it,
and reaches the router only through the selected (renormalised) probabilities: the same semantics as
latch-autodiff's (topk differentiated through its values, indices carry no gradient). Both are the
gradient of the piecewise-smooth loss at a point away from routing ties, which the tie gate checks.

Gates (fixed):
  ties     smallest gap between the k-th and (k+1)-th router probability over all tokens and layers (JAX,
           fp64) >= 1e-6, so both sides route alike and the loss is differentiable there.
  loss     |latch - jax| / |jax| <= 1e-10.
  d<name>  per parameter gradient: max|latch - jax| / max|jax| <= 1e-10 and
           ||latch - jax||_2 / ||jax||_2 <= 1e-10.
  unrouted an expert that no token picks (the 1-layer config has two): its dw13 and dw2 are exactly 0 on
           both sides (gradient only through the selected experts).

Usage: check_grads.py [--gen PATH] [--opt PATH] [--interp PATH] [--work DIR] [--seed N] [--only CONFIG]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_tinymoe  # noqa: E402
import check_vjps  # noqa: E402
import harness  # noqa: E402
import ops  # noqa: E402
import tinymoe  # noqa: E402

jax = ops.jax
jnp = ops.jnp
GATE = harness.FP64_GATE
TIE_GATE = check_tinymoe.TIE_GATE

# check_tinymoe.py's config first (2 layers); then one layer with 8 experts top-3 over only 6 tokens, so
# that some expert groups are empty (grouped_matmul and its weight gradient over empty groups); then one
# with many expert rows for small weights, where latch-gen splits SwiGLU's weight w13 rather than its
# product (models/tinymoe.c, swiglu_halves; the other two split the product).
BASE = dict(batch=2, seq=16, layers=2, d_model=64, heads=4, experts=4, top_k=2, ffn=128, vocab=256)
CONFIGS = {
    "tinymoe-L2": BASE,
    "tinymoe-L1-e8k3": dict(batch=1, seq=6, layers=1, d_model=32, heads=2, experts=8, top_k=3, ffn=48, vocab=64),
    "tinymoe-L1-wsplit": dict(batch=4, seq=32, layers=1, d_model=16, heads=2, experts=2, top_k=2, ffn=8, vocab=32),
}


def routed_forward(params, tokens, targets, cfg):
    """tinymoe.forward with aux, also recording each layer's top-k indices (for information: how many
    expert groups get no token). ops.topk is wrapped for the duration of the call."""
    recorded, topk = [], ops.topk

    def recording_topk(x, k):
        v, i = topk(x, k)
        recorded.append(np.asarray(i))
        return v, i

    ops.topk = recording_topk
    try:
        loss, aux = tinymoe.forward(params, tokens, targets, cfg, with_aux=True)
    finally:
        ops.topk = topk
    unrouted = [sorted(set(range(cfg["experts"])) - set(np.unique(i).tolist())) for i in recorded]
    return loss, aux, unrouted


def run_config(label, cfg, args, tools, work, table):
    gen, opt, interp = tools
    wd = os.path.join(work, label)
    os.makedirs(wd, exist_ok=True)
    print(label + ": " + " ".join(f"{k}={v}" for k, v in cfg.items()))

    prog = os.path.join(wd, "tinymoe.mlir")
    cmd = [gen, "tinymoe"] + sum([["--" + k.replace("_", "-"), str(v)] for k, v in cfg.items()], []) + ["-o", prog]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        table.add(label, "gen", "-", "latch-gen", (p.stderr.strip() or f"exit {p.returncode}")[:100], "runs", False)
        return 0.0, 0.0
    mlir = open(prog).read()
    entry, sig = check_tinymoe.signature(mlir)
    grad_text = check_vjps.autodiff(opt, mlir, wd)

    # Parameters and tokens exactly as check_tinymoe.py draws them.
    rng = np.random.default_rng(args.seed)
    params = check_tinymoe.make_params(cfg, rng)
    B, T = cfg["batch"], cfg["seq"]
    stream = rng.integers(0, cfg["vocab"], (B, T + 1)).astype(np.int32)
    tokens, targets = stream[:, :T], stream[:, 1:]

    inputs, problems, used, order = {}, [], set(), []
    for arg, shape, dtype, name, is_param in sig:
        key = name or arg.lstrip("%")
        jname = check_tinymoe.map_name(name or "")
        if name == "tokens":
            value = tokens
        elif name == "targets":
            value = targets.reshape(shape) if int(np.prod(shape)) == targets.size else None
        elif is_param and jname in params:
            value = params[jname]
            used.add(jname)
        else:
            problems.append(f"argument {arg} ({name}) maps to nothing")
            continue
        if is_param:
            order.append((name, jname))
        if value is None or tuple(value.shape) != shape:
            problems.append(f"{name}: program shape {shape}, JAX {None if value is None else value.shape}")
            continue
        inputs[key] = value.astype(np.int32) if dtype == "i32" else value.astype(np.float64)
    problems += [f"JAX parameter {n} is no argument of the program" for n in params if n not in used]
    table.add(label, "-", "arguments", "unmapped/mismatched", str(len(problems)), "== 0", not problems)
    for pr in problems:
        print("  " + pr)
    if problems:
        return 0.0, 0.0

    # latch: loss and one gradient per task.param argument, in argument order.
    try:
        outs, t_interp = harness.run_interp(interp, grad_text, entry + "_grad", inputs, 1 + len(order), wd)
    except harness.InterpError as e:
        table.add(label, "fp64", "-", "latch-interp", str(e)[:100], "runs", False)
        return 0.0, 0.0

    # JAX: the routing statistics (a concrete forward pass), then the loss and its gradient w.r.t. every
    # parameter (jitted; fp64 on the CPU).
    tj = time.time()
    _, aux, unrouted = routed_forward(params, tokens, targets, cfg)
    gap = min(aux["route_gap"])
    table.add(label, "fp64", "routing", "min top-k prob gap", f"{gap:.3e}", f">= {TIE_GATE:.0e}", gap >= TIE_GATE)
    pj = {k: jnp.asarray(v) for k, v in params.items()}
    loss, grads = jax.jit(jax.value_and_grad(lambda q: tinymoe.forward(q, tokens, targets, cfg)))(pj)
    t_jax = time.time() - tj

    print(f"  experts without a token, per layer (JAX routing): {unrouted}")
    check_vjps.compare(table, label, "loss", outs[0], np.asarray(loss), ())
    for i, (name, jname) in enumerate(order):
        check_vjps.compare(table, label, f"d {name} {list(params[jname].shape)}", outs[1 + i],
                           np.asarray(grads[jname]), params[jname].shape)
    # Gradient only through the selected experts: an expert that no token picks gets exactly zero dw13
    # and dw2 on both sides (the dense JAX model computes its outputs, but none is selected).
    results = {jname: outs[1 + i] for i, (_, jname) in enumerate(order)}
    for layer, experts in enumerate(unrouted):
        if not experts:
            continue
        for w in ("w13", "w2"):
            jname = f"layers.{layer}.{w}"
            got = float(np.max(np.abs(results[jname][experts])))
            ref = float(np.max(np.abs(np.asarray(grads[jname])[experts])))
            table.add(label, "fp64", f"d {jname} of unrouted experts {experts}", "max|latch|, max|jax|",
                      f"{got:.3g}, {ref:.3g}", "== 0 (exact)", got == 0.0 and ref == 0.0)
    print(f"  loss: latch {float(outs[0])!r}, jax {float(loss)!r}; "
          f"latch-interp {t_interp:.2f} s, JAX value_and_grad {t_jax:.2f} s")
    return t_interp, t_jax


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", help="latch-gen binary (default: next to latch-interp, then PATH)")
    ap.add_argument("--opt", help="latch-opt binary (default: next to latch-interp, then PATH)")
    ap.add_argument("--interp", help="latch-interp binary (default: PATH, then build/)")
    ap.add_argument("--work", help="directory for programs, inputs and outputs (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--only", help="run only the configs whose name contains this")
    args = ap.parse_args()

    t0 = time.time()
    interp = harness.find_interp(args.interp)
    opt = check_vjps.find_opt(args.opt, interp)
    gen = args.gen or os.path.join(os.path.dirname(os.path.abspath(interp)), "latch-gen")
    if not os.path.exists(gen):
        gen = shutil.which("latch-gen") or sys.exit("latch-gen not found")
    work = args.work or tempfile.mkdtemp(prefix="latch-jax-grads-")
    table = harness.Table()
    ti = tj = 0.0
    for label, cfg in CONFIGS.items():
        if args.only and args.only not in label:
            continue
        try:
            a, b = run_config(label, cfg, args, (gen, opt, interp), work, table)
            ti, tj = ti + a, tj + b
        except harness.InterpError as e:
            table.add(label, "fp64", "-", "latch-opt", str(e)[:160], "runs", False)
        except Exception as e:  # a bug on this side: visible, not fatal to the other configs
            traceback.print_exc()
            table.add(label, "fp64", "-", "python", f"{type(e).__name__}: {e}"[:160], "runs", False)
    table.print()
    print(f"time: {time.time() - t0:.1f} s ({ti:.1f} s in latch-interp, {tj:.1f} s in JAX); work dir {work}")
    return 1 if table.failed() or not table.rows else 0


if __name__ == "__main__":
    sys.exit(main())
