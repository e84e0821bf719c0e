#!/usr/bin/env python3
"""Check latch-interp's TinyMoE loss (the program that `latch-gen tinymoe` writes) against the JAX TinyMoE
of test/jax/tinymoe.py, with identical parameters and tokens.

Every argument is written here with numpy and passed with --input (no --init), so both sides see the same
values; parameters are f32-exact (their declared dtype), drawn at scales that keep activations O(1) (so the
loss depends on every layer), norm scales 1 + 0.1 N(0,1). Tokens are a random stream s[B, T+1]: tokens =
s[:, :T], targets = s[:, 1:] (next-token). The program's arguments are mapped onto the JAX model's
parameters by their task.name attributes, read from the generated function signature; a name that does
not map, or a shape that differs from the JAX model's, fails the check.

Gates (fixed):
  fp64   latch-interp (no --emulate) vs JAX in fp64: |loss - ref| / |ref| <= 1e-10.
  ties   routing must not sit on a tie, or the two sides could pick different experts: the smallest gap
         between the k-th and (k+1)-th router probability over all tokens and layers (JAX, fp64) must be
         >= 1e-6. Random fp64 parameters make exact ties vanishingly unlikely; the gate makes sure that a
         change of seed or config cannot silently turn the comparison into a coin toss.
  bf16   latch-interp --emulate=bf16 vs the JAX model rounding where models.md says the model stores
         (bf16 matmul inputs, attention's q/k/v included, with fp32 accumulation; fp32 everywhere else).
         The two programs need not round at exactly the same op boundaries (e.g. latch-gen renormalises
         the top-k weights as softmax(log w) and stores the attention output as bf16), so the losses
         differ at the fp32 level plus rare one-ulp bf16 flips; the gate asks that this emulation
         difference be at most 2% of the bf16 effect itself, |loss_bf16 - ref_bf16| <= 0.02 |ref_bf16 -
         ref_fp64|, and also at most 1e-4 relative. A program that ignored the bf16 types (or rounded
         to bf16 where models.md says fp32) misses it by far.

Usage: check_tinymoe.py [--gen PATH] [--interp PATH] [--work DIR] [--seed N] [config flags of latch-gen]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from mlirtext import split_top  # noqa: E402
import ops  # noqa: E402
import tinymoe  # noqa: E402

FP64_GATE = harness.FP64_GATE
TIE_GATE = 1e-6
BF16_SHARE_GATE = 0.02
BF16_REL_GATE = 1e-4

# latch-gen's task.name -> the JAX model's parameter name.
NAME_MAP = [
    (r"embed\.table", "embed"),
    (r"layer(\d+)\.attn\.norm\.scale", r"layers.\1.attn_norm"),
    (r"layer(\d+)\.attn\.w([qkvo])", r"layers.\1.w\2"),
    (r"layer(\d+)\.moe\.norm\.scale", r"layers.\1.ffn_norm"),
    (r"layer(\d+)\.moe\.router", r"layers.\1.router"),
    (r"layer(\d+)\.moe\.w13", r"layers.\1.w13"),
    (r"layer(\d+)\.moe\.w2", r"layers.\1.w2"),
    (r"final\.norm\.scale", "final_norm"),
    (r"head\.w", "head"),
]


def map_name(name):
    for pat, rep in NAME_MAP:
        if re.fullmatch(pat, name):
            return re.sub(pat, rep, name)
    return None


def signature(mlir):
    """(entry name, [(arg name, shape, dtype, task.name, is_param)]) of the first func.func."""
    m = re.search(r"func\.func @([\w$.]+)\(", mlir)
    if not m:
        raise ValueError("no func.func in the generated program")
    i, depth = m.end(), 1
    j = i
    while depth:
        depth += {"(": 1, ")": -1}.get(mlir[j], 0)
        j += 1
    args = []
    for a in split_top(mlir[i:j - 1]):
        am = re.match(r"\s*(%\w+)\s*:\s*tensor<([^>]*)>\s*(\{.*\})?\s*$", a, re.S)
        if not am:
            raise ValueError(f"cannot read argument '{a.strip()}'")
        dims = am.group(2).split("x")
        shape, dtype = tuple(int(d) for d in dims[:-1]), dims[-1]
        attrs = am.group(3) or ""
        nm = re.search(r'task\.name\s*=\s*"([^"]*)"', attrs)
        args.append((am.group(1), shape, dtype, nm.group(1) if nm else None,
                     re.search(r"\btask\.param\b", attrs) is not None))
    return m.group(1), args


def make_params(cfg, rng):
    D, F = cfg["d_model"], cfg["ffn"]
    params = {}
    for name, shape in tinymoe.param_shapes(cfg).items():
        short = name.rsplit(".", 1)[-1]
        if short.endswith("norm"):
            x = 1.0 + 0.1 * rng.standard_normal(shape)
        elif short == "embed":
            x = rng.standard_normal(shape)
        elif short == "w2":
            x = rng.standard_normal(shape) / np.sqrt(F)
        elif short == "router":
            x = 2.0 * rng.standard_normal(shape) / np.sqrt(D)
        else:
            x = rng.standard_normal(shape) / np.sqrt(D)
        params[name] = ops.round_to(x, "f32")
    return params


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", help="latch-gen binary (default: next to latch-interp, then PATH)")
    ap.add_argument("--interp", help="latch-interp binary (default: PATH, then build/)")
    ap.add_argument("--work", help="directory for the program, inputs and outputs (default: temporary)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--no-bf16", action="store_true", help="skip the --emulate=bf16 run")
    cfg_defaults = dict(batch=2, seq=16, layers=2, d_model=64, heads=4, experts=4, top_k=2, ffn=128, vocab=256)
    for k, v in cfg_defaults.items():
        ap.add_argument("--" + k.replace("_", "-"), type=int, default=v)
    args = ap.parse_args()
    cfg = {k: getattr(args, k) for k in cfg_defaults}

    t0 = time.time()
    interp = harness.find_interp(args.interp)
    gen = args.gen or os.path.join(os.path.dirname(os.path.abspath(interp)), "latch-gen")
    if not os.path.exists(gen):
        gen = shutil.which("latch-gen") or sys.exit("latch-gen not found")
    work = args.work or tempfile.mkdtemp(prefix="latch-jax-tinymoe-")
    os.makedirs(work, exist_ok=True)
    table = harness.Table()
    label = "tinymoe " + " ".join(f"{k}={v}" for k, v in cfg.items())
    print(label)

    prog = os.path.join(work, "tinymoe.mlir")
    cmd = [gen, "tinymoe"] + sum([["--" + k.replace("_", "-"), str(v)] for k, v in cfg.items()], []) + ["-o", prog]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        table.add("tinymoe", "gen", "-", "latch-gen", (p.stderr.strip() or f"exit {p.returncode}")[:100], "runs", False)
        table.print()
        return 1
    mlir = open(prog).read()

    # Inputs, by the program's own argument names.
    rng = np.random.default_rng(args.seed)
    params = make_params(cfg, rng)
    B, T = cfg["batch"], cfg["seq"]
    stream = rng.integers(0, cfg["vocab"], (B, T + 1)).astype(np.int32)
    tokens, targets = stream[:, :T], stream[:, 1:]
    try:
        entry, sig = signature(mlir)
    except ValueError as e:
        table.add("tinymoe", "signature", "-", "parse", str(e)[:100], "readable", False)
        table.print()
        return 1
    inputs, problems, used = {}, [], set()
    for arg, shape, dtype, name, is_param in sig:
        key = name or arg.lstrip("%")
        if name == "tokens":
            value = tokens
        elif name == "targets":
            value = targets.reshape(shape) if int(np.prod(shape)) == targets.size else None
        elif is_param and map_name(name or "") in params:
            value = params[map_name(name)]
            used.add(map_name(name))
        else:
            problems.append(f"argument {arg} ({name}) maps to nothing")
            continue
        if value is None or tuple(value.shape) != shape:
            problems.append(f"{name}: program shape {shape}, JAX {None if value is None else value.shape}")
            continue
        inputs[key] = value.astype(np.int32) if dtype == "i32" else value.astype(np.float64)
    problems += [f"JAX parameter {n} is no argument of the program" for n in params if n not in used]
    table.add("tinymoe", "-", "arguments", "unmapped/mismatched", str(len(problems)), "== 0", not problems)
    for pr in problems:
        print("  " + pr)
    if problems:
        table.print()
        return 1

    # JAX, fp64.
    tj = time.time()
    ref64, aux = tinymoe.forward(params, tokens, targets, cfg, with_aux=True)
    ref64 = float(ref64)
    gap = min(aux["route_gap"])
    table.add("tinymoe", "fp64", "routing", "min top-k prob gap", f"{gap:.3e}", f">= {TIE_GATE:.0e}", gap >= TIE_GATE)

    def mm_round(x):
        return ops.jnp.asarray(ops.round_to(np.asarray(x), "bf16"))

    def f32_round(x):
        return ops.jnp.asarray(ops.round_to(np.asarray(x), "f32"))

    ref16 = None
    if not args.no_bf16:
        # The loss is itself a stored f32 tensor under --emulate=bf16.
        ref16 = float(f32_round(tinymoe.forward(params, tokens, targets, cfg, round_f32=f32_round, round_mm=mm_round)))
    jax_time = time.time() - tj

    # latch-interp.
    modes = [("fp64", [])] + ([] if args.no_bf16 else [("bf16", ["--emulate=bf16"])])
    interp_time = 0.0
    losses = {}
    for mode, flags in modes:
        try:
            (got,), dt = harness.run_interp(interp, mlir, entry, inputs, 1, os.path.join(work, mode), flags)
            interp_time += dt
        except harness.InterpError as e:
            table.add("tinymoe", mode, "loss", "latch-interp", str(e)[:100], "runs", False)
            continue
        bad = harness.check_shape(got, harness.V("loss", (), "f32"))
        if bad:
            table.add("tinymoe", mode, "loss", *bad)
            continue
        losses[mode] = float(got)
        if mode == "fp64":
            e = abs(losses[mode] - ref64) / abs(ref64)
            table.add("tinymoe", mode, "loss", "|d|/|ref|", f"{e:.3e}", f"<= {FP64_GATE:.0e}", e <= FP64_GATE)
        else:
            d, eff = abs(losses[mode] - ref16), abs(ref16 - ref64)
            share = d / eff if eff > 0 else float("inf")
            table.add("tinymoe", mode, "loss", "|d| / |ref_bf16-ref_fp64|", f"{share:.3e}",
                      f"<= {BF16_SHARE_GATE}", share <= BF16_SHARE_GATE)
            rel = d / abs(ref16)
            table.add("tinymoe", mode, "loss", "|d|/|ref_bf16|", f"{rel:.3e}", f"<= {BF16_REL_GATE:.0e}",
                      rel <= BF16_REL_GATE)

    table.print()
    print(f"losses: jax fp64 {ref64!r}, interp fp64 {losses.get('fp64')!r}; "
          f"jax bf16 {ref16!r}, interp bf16 {losses.get('bf16')!r}")
    print(f"time: {time.time() - t0:.1f} s ({interp_time:.1f} s in latch-interp, {jax_time:.1f} s in JAX); work dir {work}")
    return 1 if table.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
