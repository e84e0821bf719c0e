#!/usr/bin/env python3
"""kernels.py - standalone kernels of Latch against their PyTorch counterparts, run ON the GPU machine from
the root of a GPU bundle that carries bench/ (bench/prepare.sh compiles bench/kernels/*.mlir to
bench/kernels/<name>.ptx with the forward pipeline of the GPU checks; docs/benchmarks.md "Kernels").

Each Latch kernel runs as its own persistent program: `latch-run NAME.ptx --steps N --random-inputs 1`,
whose median covers every launch (the first included, one cooperative launch each). The PyTorch side runs
the same shapes and dtypes: torch.matmul (cuBLAS; its result is bf16 where Latch writes f32),
scaled_dot_product_attention (causal; its backward through autograd), index_add_ for the scatter-add,
timed with CUDA events, median of N after 5 warm-up calls. Writes a table to stdout and
bench/results/<date>-<h100|h200>-kernels.json under --out (default $OUT, else bench-out/).

  kernels.py [--out DIR] [--steps 20]
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

from bench import device_tag

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name -> (what, FLOPs of one call, how PyTorch computes it)
CASES = {
    "matmul-2048x512x512": ("matmul bf16 [2048,512]x[512,512]", 2 * 2048 * 512 * 512, "matmul"),
    "matmul-2048x512x8192": ("matmul bf16 [2048,512]x[512,8192]", 2 * 2048 * 512 * 8192, "matmul"),
    "matmul-4096x4096x4096": ("matmul bf16 4096^3", 2 * 4096 ** 3, "matmul"),
    "attention-t1024": ("causal attention fwd B2 H8 T1024 d64", 2 * 2 * 8 * 1024 * 1024 * 64, "sdpa"),
    "attention-t4096": ("causal attention fwd B1 H8 T4096 d64", 2 * 1 * 8 * 4096 * 4096 * 64, "sdpa"),
    "attention-grad-t1024": ("causal attention bwd B2 H8 T1024 d64", 5 * 2 * 8 * 1024 * 1024 * 64, "sdpa_bwd"),
    "scatter-add-rows": ("scatter-add 4096 rows of 512 into 2048 (index_add_)", 0, "index_add"),
}


def device_name():
    r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"], capture_output=True,
                       text=True)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "unknown GPU"


def latch_time(ptx, steps):
    binary = os.path.join(ROOT, "bin", "latch-run")
    r = subprocess.run([binary, ptx, "--steps", str(steps), "--random-inputs", "1"], capture_output=True, text=True)
    m = re.search(r"median update time (\S+) ms", r.stdout)
    if r.returncode or not m:
        return None, (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no median printed"]
    return float(m.group(1)), None


def torch_time(kind, name, steps):
    import torch
    import torch.nn.functional as F
    dev = "cuda"
    torch.manual_seed(1)
    dims = [int(v) for v in re.findall(r"\d+", name)]
    if kind == "matmul":
        m, k, n = dims
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        call = lambda: torch.matmul(a, b)  # noqa: E731
    elif kind in ("sdpa", "sdpa_bwd"):
        t = dims[0]
        batch = 2 if t == 1024 else 1
        q, k, v = (torch.randn(batch, 8, t, 64, device=dev, dtype=torch.bfloat16, requires_grad=kind == "sdpa_bwd")
                   for _ in range(3))
        if kind == "sdpa":
            call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
        else:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            do = torch.randn_like(o)
            call = lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True)  # noqa: E731
    else:
        x = torch.randn(4096, 512, device=dev)
        idx = torch.randint(0, 2048, (4096,), device=dev)
        call = lambda: torch.zeros(2048, 512, device=dev).index_add_(0, idx, x)  # noqa: E731
    for _ in range(5):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "bench-out"))
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    rows = []
    for name, (what, flops, kind) in CASES.items():
        ptx = os.path.join(HERE, "kernels", name + ".ptx")
        row = {"name": name, "what": what, "flops": flops}
        if os.path.exists(ptx):
            row["latch_ms"], err = latch_time(ptx, args.steps)
            if err:
                row["latch_error"] = err[0]
        else:
            row["latch_ms"], row["latch_error"] = None, "not compiled (bench/prepare.sh)"
        try:
            row["torch_ms"] = torch_time(kind, name, args.steps)
        except Exception as e:  # a missing torch or CUDA error is a row, not a crash
            row["torch_ms"], row["torch_error"] = None, f"{type(e).__name__}: {e}"
        rows.append(row)
    print(f"{'kernel':<22} {'what':<52} {'latch ms':>10} {'torch ms':>10} {'torch/latch':>11} {'latch TFLOP/s':>13}")
    for r in rows:
        lat, tor = r["latch_ms"], r["torch_ms"]
        ratio = f"{tor / lat:.3f}" if lat and tor else "-"
        tflops = f"{r['flops'] / (lat * 1e-3) / 1e12:.1f}" if lat and r["flops"] else "-"
        print(f"{r['name']:<22} {r['what']:<52} {lat if lat else r.get('latch_error', '-')!s:>10} "
              f"{tor if tor else '-'!s:>10} {ratio:>11} {tflops:>13}")
    date = datetime.date.today().isoformat()
    device = device_name()
    print(f"device: {device}")
    out = os.path.join(args.out, "bench", "results")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{date}-{device_tag(device)}-kernels.json")
    with open(path, "w") as f:
        json.dump({"date": date, "device": device, "steps": args.steps, "rows": rows}, f, indent=1)
    print(f"kernels.py: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
