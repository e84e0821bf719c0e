#!/usr/bin/env python3
"""tinymoe_torch.py - the PyTorch controls of the benchmark: TinyMoE (../shared/notes/models.md) trained
from the SAME initial parameters and the SAME token windows as `latch-run --init SEED --data STREAM.npy`,
in three controls, each timed as the median of N updates after W warm-up updates (CUDA events):

  eager    forward, backward and fused AdamW as plain PyTorch calls;
  graph    the whole update (forward, backward and AdamW, with capturable fused AdamW) captured once in
           one CUDA graph (torch.cuda.graph, static token/target buffers) and replayed;
  compile  torch.compile (default mode) of the loss function (forward, and backward through AOTAutograd);
           the fused AdamW step stays as in eager. Compile time = wall time of the first update.

The model follows models.md exactly: fp32 master parameters and AdamW state (lr 3e-4, betas 0.9/0.999,
eps 1e-8, decoupled weight decay 0.1 on every parameter, step counter from 1), bf16 autocast for the
matmuls (bf16 inputs, fp32 accumulation), RMSNorm / router / softmax / loss in fp32, attention through
scaled_dot_product_attention (causal), rotary embedding rotate-half theta 10000, router top-2 renormalised,
experts as a grouped matmul over the tokens sorted by expert: torch._grouped_mm when it exists and works
on this device (checked against a loop on a small case), else a loop over experts (reported; the loop
needs host-side group sizes, so the graph control is then missing, with that reason).

Parameters use latch-gen's names and layouts (y = x @ W, W [in, out]; w13 [E, D, 2F]: first half gate).
They come from a `latch-run --dry-run --init SEED --dump-dir DIR` dump (--params DIR, bit-identical to
what latch-run uploads), or from the init rule reimplemented in bench/latch_init.py (--init SEED with
--manifest). The token windows follow latch-run --data: update K takes tokens = S[o .. o+B*T) as [B, T]
and targets = S[o+1 .. o+B*T+1), o = (K-1)*B*T, indices modulo len(S).

Usage (on the GPU machine; bench/bench.py runs it):
  tinymoe_torch.py --params DIR | --init SEED --manifest M.json   --data STREAM.npy
                   [--shapes 2x1024,32x1024] [--variants eager,graph,compile] [--updates 20] [--warmup 5]
                   [--loss-updates 200] [--loss-shape 2x1024] --json OUT.json
Writes OUT.json: {"torch", "device", "grouped_mm", "rows": [{model, tokens, variant, median_ms,
peak_bytes, ...} or {..., "missing": reason}], "loss": {"shape", "updates", "losses": [...]}}.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# models.md, TinyMoE
VOCAB, D_MODEL, LAYERS, HEADS, EXPERTS, FFN, TOP_K = 8192, 512, 4, 8, 8, 1024, 2
EPS, THETA = 1e-5, 10000.0
LR, BETAS, ADAM_EPS, WD = 3e-4, (0.9, 0.999), 1e-8, 0.1
PARAM_COUNT = 62_935_552


def param_specs():
    """(name, shape, init) of latch-gen tinymoe's parameters, in argument order."""
    D, E, F, V = D_MODEL, EXPERTS, FFN, VOCAB
    specs = [("embed.table", [V, D], "normal")]
    for l in range(LAYERS):
        p = f"layer{l}."
        specs += [(p + "attn.norm.scale", [D], "ones"), (p + "attn.wq", [D, D], "normal"),
                  (p + "attn.wk", [D, D], "normal"), (p + "attn.wv", [D, D], "normal"),
                  (p + "attn.wo", [D, D], "normal"), (p + "moe.norm.scale", [D], "ones"),
                  (p + "moe.router", [D, E], "normal"), (p + "moe.w13", [E, D, 2 * F], "normal"),
                  (p + "moe.w2", [E, F, D], "normal")]
    specs += [("final.norm.scale", [D], "ones"), ("head.w", [D, V], "normal")]
    return specs


def parse_shape(text):
    b, t = text.lower().split("x")
    return int(b), int(t)


def data_window(stream, k, count, shift):
    """latch_host_data_window: update k (1-based) reads stream[(o + shift + i) % S], o = (k-1)*count % S."""
    s = len(stream)
    o = ((k - 1) * count) % s
    return stream[(o + shift + np.arange(count, dtype=np.int64)) % s]


def load_params(args):
    """name -> float32 numpy array, in argument order, from a dump directory or the init rule."""
    specs = param_specs()
    if args.params:
        out = {}
        for name, shape, _ in specs:
            a = np.load(os.path.join(args.params, name + ".npy"))
            if list(a.shape) != shape or a.dtype != np.float32:
                raise ValueError(f"{args.params}/{name}.npy: {a.dtype}{list(a.shape)}, expected float32{shape}")
            out[name] = a
        return out, f"latch-run dump {args.params}"
    import latch_init
    manifest = json.load(open(args.manifest))
    out = latch_init.params(manifest, args.init)
    names = [s[0] for s in specs]
    if list(out) != names:
        raise ValueError(f"{args.manifest}: parameters {list(out)[:4]}... are not TinyMoE's {names[:4]}...")
    return out, f"init rule (bench/latch_init.py) seed {args.init}"


# ---------------------------------------------------------------------------------------------------------
# The model (imports torch lazily so that the rest of this file is usable without it).

def build(torch):
    import torch.nn.functional as F

    def rmsnorm(x, w):
        x = x.float()
        return x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + EPS) * w

    def rope_tables(T, device):
        hd = D_MODEL // HEADS
        h = hd // 2
        f = THETA ** (-2.0 * torch.arange(h, dtype=torch.float64, device=device) / hd)
        a = torch.arange(T, dtype=torch.float64, device=device)[:, None] * f[None, :]
        return torch.cos(a).float()[None, :, None, :], torch.sin(a).float()[None, :, None, :]

    def rope(x, cos, sin):
        h = x.shape[-1] // 2
        x = x.float()
        x1, x2 = x[..., :h], x[..., h:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    class TinyMoE(torch.nn.Module):
        def __init__(self, init, grouped, seq, device):
            super().__init__()
            self.names = [s[0] for s in param_specs()]
            self.plist = torch.nn.ParameterList(
                [torch.nn.Parameter(torch.tensor(init[n], dtype=torch.float32, device=device)) for n in self.names])
            self.index = {n: i for i, n in enumerate(self.names)}
            self.grouped = grouped  # "grouped_mm" or "loop"
            cos, sin = rope_tables(seq, device)
            self.register_buffer("cos", cos, persistent=False)
            self.register_buffer("sin", sin, persistent=False)
            self.register_buffer("expert_ids", torch.arange(EXPERTS, device=device), persistent=False)

        def p(self, name):
            return self.plist[self.index[name]]

        def experts(self, xs, w, offs):
            """xs [M, K] sorted by expert, w [E, K, N] fp32 master, offs int32 [E] cumulative ends."""
            wb = w.to(torch.bfloat16)
            if self.grouped == "grouped_mm":
                return torch._grouped_mm(xs.to(torch.bfloat16), wb, offs=offs)
            ends = offs.tolist()  # host sync: the loop fallback cannot be captured in a CUDA graph
            out, start = [], 0
            for e, end in enumerate(ends):
                out.append(xs[start:end].to(torch.bfloat16) @ wb[e])
                start = end
            return torch.cat(out, dim=0)

        def moe(self, h, pre):
            N = h.shape[0]
            with torch.autocast("cuda", enabled=False):  # router, softmax and top-k in fp32 (models.md)
                probs = torch.softmax(h.float() @ self.p(pre + "moe.router"), dim=-1)
                vals, idx = torch.topk(probs, TOP_K, dim=-1)
                gates = vals / vals.sum(dim=-1, keepdim=True)
            flat = idx.reshape(-1)  # [N*k]: slot j of token n at n*k + j
            order = torch.argsort(flat, stable=True)
            counts = (flat[:, None] == self.expert_ids[None, :]).sum(dim=0)  # fixed shape: graph-safe
            offs = torch.cumsum(counts, dim=0).to(torch.int32)
            xs = h.to(torch.bfloat16)[order // TOP_K]
            ab = self.experts(xs, self.p(pre + "moe.w13"), offs)
            a, b = ab[:, :FFN], ab[:, FFN:]
            act = F.silu(a.float()) * b.float()
            ys = self.experts(act.to(torch.bfloat16), self.p(pre + "moe.w2"), offs)
            y = torch.empty_like(ys)
            y[order] = ys  # back to slot order
            y = y.float().reshape(N, TOP_K, D_MODEL)
            return (gates[:, :, None] * y).sum(dim=1)

        def forward(self, tokens, targets):
            B, T = tokens.shape
            hd = D_MODEL // HEADS
            with torch.autocast("cuda", dtype=torch.bfloat16):
                x = self.p("embed.table")[tokens]  # fp32 residual stream
                for l in range(LAYERS):
                    pre = f"layer{l}."
                    h = rmsnorm(x, self.p(pre + "attn.norm.scale"))
                    q = rope((h @ self.p(pre + "attn.wq")).reshape(B, T, HEADS, hd), self.cos, self.sin)
                    k = rope((h @ self.p(pre + "attn.wk")).reshape(B, T, HEADS, hd), self.cos, self.sin)
                    v = (h @ self.p(pre + "attn.wv")).reshape(B, T, HEADS, hd)
                    q, k, v = (t.to(torch.bfloat16).transpose(1, 2) for t in (q, k, v))
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    x = x + (o.transpose(1, 2).reshape(B, T, D_MODEL) @ self.p(pre + "attn.wo")).float()
                    h = rmsnorm(x, self.p(pre + "moe.norm.scale")).reshape(B * T, D_MODEL)
                    x = x + self.moe(h, pre).reshape(B, T, D_MODEL)
                h = rmsnorm(x, self.p("final.norm.scale"))
                logits = (h @ self.p("head.w")).float().reshape(B * T, VOCAB)
                with torch.autocast("cuda", enabled=False):
                    return F.cross_entropy(logits, targets.long())

    return TinyMoE


def pick_grouped(torch, device):
    """'grouped_mm' when torch._grouped_mm exists and agrees with a loop (forward and backward) on a small
    case shaped like TinyMoE's, else 'loop'; and the reason."""
    if not hasattr(torch, "_grouped_mm"):
        return "loop", f"torch {torch.__version__} has no torch._grouped_mm"
    try:
        g = torch.Generator(device=device).manual_seed(0)
        x = torch.randn(64, 512, device=device, generator=g).to(torch.bfloat16).requires_grad_()
        w = torch.randn(EXPERTS, 512, 256, device=device, generator=g).to(torch.bfloat16).requires_grad_()
        ends = torch.tensor([0, 16, 16, 32, 40, 48, 48, 64], dtype=torch.int32, device=device)
        y = torch._grouped_mm(x, w, offs=ends)
        y.float().square().sum().backward()
        gx, gw = x.grad.clone(), w.grad.clone()
        x.grad = w.grad = None
        parts, s = [], 0
        for e, end in enumerate(ends.tolist()):
            parts.append(x[s:end] @ w[e])
            s = end
        y2 = torch.cat(parts)
        y2.float().square().sum().backward()
        err = max(float((y.float() - y2.float()).abs().max()), float((gx.float() - x.grad.float()).abs().max()),
                  float((gw.float() - w.grad.float()).abs().max()))
        scale = float(y2.float().abs().max())
        if not err <= 2e-2 * max(scale, 1.0):
            return "loop", f"torch._grouped_mm disagrees with the loop (max error {err:.3g})"
        return "grouped_mm", f"torch._grouped_mm (torch {torch.__version__})"
    except Exception as e:  # noqa: BLE001 - any failure means: use the loop, and say why
        return "loop", f"torch._grouped_mm unusable: {type(e).__name__}: {str(e).splitlines()[0][:160]}"


def make_optimizer(torch, model, capturable):
    return torch.optim.AdamW(model.parameters(), lr=LR, betas=BETAS, eps=ADAM_EPS, weight_decay=WD,
                             fused=True, capturable=capturable)


def windows_on_device(torch, stream, B, T, first, count, device):
    """tokens [count, B, T] and targets [count, B*T] of updates first .. first+count-1, on the device."""
    n = B * T
    tok = np.stack([data_window(stream, k, n, 0) for k in range(first, first + count)]).reshape(count, B, T)
    tgt = np.stack([data_window(stream, k, n, 1) for k in range(first, first + count)])
    return (torch.tensor(tok.astype(np.int64), device=device), torch.tensor(tgt.astype(np.int64), device=device))


def time_variant(torch, TinyMoE, variant, init, grouped, stream, B, T, updates, warmup, device, log):
    """Returns a row dict (median_ms, peak_bytes, setup_s, ...) for one control at one shape."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model = TinyMoE(init, grouped, T, device)
    opt = make_optimizer(torch, model, capturable=(variant == "graph"))
    total = warmup + updates
    tokens, targets = windows_on_device(torch, stream, B, T, 1, total, device)
    row = dict(variant=variant, updates=updates, warmup=warmup)
    t0 = time.perf_counter()
    if variant == "eager":
        def step(k):
            opt.zero_grad(set_to_none=True)
            loss = model(tokens[k], targets[k])
            loss.backward()
            opt.step()
            return loss
    elif variant == "compile":
        compiled = torch.compile(model)

        def step(k):
            opt.zero_grad(set_to_none=True)
            loss = compiled(tokens[k], targets[k])
            loss.backward()
            opt.step()
            return loss
    elif variant == "graph":
        if grouped != "grouped_mm":
            raise RuntimeError("the expert loop reads group sizes on the host and cannot be captured")
        static_tok, static_tgt = tokens[0].clone(), targets[0].clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up before capture (real updates, as the docs' recipe does)
            for _ in range(3):
                opt.zero_grad(set_to_none=True)
                model(static_tok, static_tgt).backward()
                opt.step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=True)
        with torch.cuda.graph(graph):
            static_loss = model(static_tok, static_tgt)
            static_loss.backward()
            opt.step()

        def step(k):
            static_tok.copy_(tokens[k])
            static_tgt.copy_(targets[k])
            graph.replay()
            return static_loss
    else:
        raise ValueError(variant)
    times = []
    first_s = None
    for k in range(total):
        if variant == "graph":  # the input copies stay outside the timed region, as latch-run's do
            static_tok.copy_(tokens[k])
            static_tgt.copy_(targets[k])
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
        else:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step(k)
            end.record()
        if k == 0:
            torch.cuda.synchronize()
            first_s = time.perf_counter() - t0
        if k >= warmup:
            times.append((start, end))
    torch.cuda.synchronize()
    ms = [s.elapsed_time(e) for s, e in times]
    row.update(median_ms=statistics.median(ms), min_ms=min(ms), max_ms=max(ms),
               peak_bytes=int(torch.cuda.max_memory_allocated()), reserved_bytes=int(torch.cuda.max_memory_reserved()),
               setup_s=first_s)
    if variant == "compile":
        row["compile_s"] = first_s  # the first update: tracing, Inductor compilation and autotuning
    log(f"  {variant:<8} {B}x{T}: median {row['median_ms']:.3f} ms over {updates} (min {row['min_ms']:.3f}, "
        f"max {row['max_ms']:.3f}), peak {row['peak_bytes'] / 2**30:.2f} GiB, first update {first_s:.1f} s")
    del model, opt
    return row


def loss_curve(torch, TinyMoE, init, grouped, stream, B, T, updates, device):
    """Eager losses of updates 1..updates (the loss before each update's change, as latch-run prints)."""
    model = TinyMoE(init, grouped, T, device)
    opt = make_optimizer(torch, model, capturable=False)
    tokens, targets = windows_on_device(torch, stream, B, T, 1, updates, device)
    losses = []
    for k in range(updates):
        opt.zero_grad(set_to_none=True)
        loss = model(tokens[k], targets[k])
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    out = [float(v) for v in torch.stack(losses).cpu()]
    del model, opt
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--params", help="directory of <param>.npy from latch-run --dry-run --dump-dir")
    src.add_argument("--init", type=int, help="the init rule's seed (needs --manifest)")
    ap.add_argument("--manifest", help="a TinyMoE manifest (for --init)")
    ap.add_argument("--data", required=True, help="int32 [S] token stream (the one given to latch-run --data)")
    ap.add_argument("--shapes", default="2x1024,32x1024")
    ap.add_argument("--variants", default="eager,graph,compile")
    ap.add_argument("--updates", type=int, default=20, help="timed updates per variant (median)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed updates before them")
    ap.add_argument("--loss-updates", type=int, default=200, help="eager loss curve length (0: none)")
    ap.add_argument("--loss-shape", default="2x1024")
    ap.add_argument("--json", required=True)
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args(argv)
    if args.init is not None and not args.manifest:
        ap.error("--init needs --manifest")
    shapes = [parse_shape(s) for s in args.shapes.split(",") if s]
    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        if v not in ("eager", "graph", "compile"):
            ap.error(f"unknown variant {v}")
    if args.updates < 1 or args.warmup < 0:
        ap.error("--updates must be >= 1 and --warmup >= 0")

    def log(msg):
        print(msg, flush=True)

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device(args.device)
    t0 = time.perf_counter()
    init, source = load_params(args)
    count = sum(a.size for a in init.values())
    if count != PARAM_COUNT:
        raise SystemExit(f"tinymoe_torch.py: {count} parameters, models.md says {PARAM_COUNT}")
    stream = np.load(args.data).astype(np.int64)
    log(f"tinymoe_torch: torch {torch.__version__}, {torch.cuda.get_device_name(device)}; parameters from "
        f"{source} ({time.perf_counter() - t0:.1f} s)")
    grouped, why = pick_grouped(torch, device)
    log(f"tinymoe_torch: experts via {grouped}: {why}")
    TinyMoE = build(torch)
    result = dict(torch=torch.__version__, device=torch.cuda.get_device_name(device), grouped_mm=grouped,
                  grouped_mm_note=why, params_source=source, rows=[], loss=None)

    def save():
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)

    if args.loss_updates > 0:
        B, T = parse_shape(args.loss_shape)
        t1 = time.perf_counter()
        try:
            losses = loss_curve(torch, TinyMoE, init, grouped, stream, B, T, args.loss_updates, device)
            result["loss"] = dict(shape=f"{B}x{T}", updates=args.loss_updates, variant="eager", losses=losses)
            log(f"  eager loss {B}x{T}: {losses[0]:.4f} -> {losses[-1]:.4f} over {args.loss_updates} updates "
                f"({time.perf_counter() - t1:.1f} s)")
        except Exception as e:  # noqa: BLE001
            result["loss"] = dict(shape=f"{B}x{T}", updates=args.loss_updates, variant="eager",
                                  missing=f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
            traceback.print_exc()
        torch.cuda.empty_cache()
        save()
    for B, T in shapes:
        for v in variants:
            base = dict(model="TinyMoE", tokens=f"{B}x{T}", variant=v, grouped=grouped)
            try:
                row = time_variant(torch, TinyMoE, v, init, grouped, stream, B, T, args.updates, args.warmup,
                                   device, log)
                result["rows"].append({**base, **row})
            except Exception as e:  # noqa: BLE001 - a control that fails is a missing row with its reason
                traceback.print_exc()
                reason = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
                result["rows"].append({**base, "missing": reason})
                log(f"  {v:<8} {B}x{T}: missing: {reason}")
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            if v == "compile":
                torch._dynamo.reset()
            save()
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
