#!/usr/bin/env python3
"""run_checks.py - the GPU checks of a Latch bundle (make gpu-bundle; run through ./run.sh on the GPU
machine). Every program of programs/ runs the checks its program.json lists (see programs.txt), with the
gates of gates.py; the ABI fixture (fixtures/abi-smoke.ptx) checks the runtime itself first. Prints one
row per measurement as it goes and the whole table at the end (failing rows marked and repeated), writes
out/results.txt and out/results.json, and exits 1 if any row failed. TinyMoE's grad check against PyTorch
fp64 adds the rows "grad-routed": the gradients against fp64 conditioned on the program's own routing
(read with latch-run --probe-dir), and how many tokens the GPU routed differently from fp64.

Usage: run_checks.py [--only NAME,...] [--checks CHECK,...]   (from the bundle's root; builds bin/latch-run
with the bundle's build-latch-run.sh when it is missing, as run.sh does)
Needs python3 with numpy; the TinyMoE gradient check at 2x512 also needs torch (skipped without it).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit("run_checks.py: python3 has no numpy; the GPU checks need it (torch too for TinyMoE 2x512)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gates  # noqa: E402

ROOT = os.getcwd()
BIN = os.path.join(ROOT, "bin", "latch-run")
OUT = os.path.join(ROOT, "out")
HOST_PTX = os.path.join(ROOT, "fixtures", "host-only.ptx")


class Table:
    def __init__(self):
        self.rows = []

    def add(self, program, check, item, value, gate, status, note=""):
        row = dict(program=program, check=check, item=item, value=value, gate=gate, status=status, note=note)
        self.rows.append(row)
        print(self.format(row), flush=True)

    @staticmethod
    def format(r):
        text = f"{r['status']:<5} {r['program']:<17} {r['check']:<12} {r['item']:<34} {r['value']:>14} {r['gate']:>12}"
        return text + (f"  {r['note']}" if r["note"] else "")

    def print(self):
        print("\n" + "=" * 40 + " GPU check results " + "=" * 40)
        print(f"{'state':<5} {'program':<17} {'check':<12} {'item':<34} {'value':>14} {'gate':>12}")
        for r in self.rows:
            print(self.format(r))
        failed = [r for r in self.rows if r["status"] == "FAIL"]
        counts = {s: sum(r["status"] == s for r in self.rows) for s in ("PASS", "FAIL", "SKIP", "INFO")}
        print(f"\n{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped, {counts['INFO']} info")
        if failed:
            print("failing rows:")
            for r in failed:
                print("  " + self.format(r))

    def save(self):
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "results.json"), "w") as f:
            json.dump(self.rows, f, indent=1)
        with open(os.path.join(OUT, "results.txt"), "w") as f:
            for r in self.rows:
                f.write(self.format(r) + "\n")


def fmt(x):
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    return f"{x:.3e}" if abs(x) < 1e-2 or abs(x) >= 1e5 else f"{x:.4f}"


def latch_run(pdir, program, args, timeout=1800, prefix=()):
    # A version-1 kernel may take tens of seconds per update at 32x1024: latch-run's own limit per update
    # (default 60 s) is raised; `timeout` bounds the whole command.
    if "--timeout" not in args and "--dry-run" not in args:
        args = ["--timeout", "900"] + list(args)
    cmd = list(prefix) + [BIN, program] + list(args)
    try:
        r = subprocess.run(cmd, cwd=pdir, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s: {' '.join(cmd)}"
    return r.returncode, r.stdout, r.stderr


def last_error(stderr):
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    return (lines[-1] if lines else "no message")[:300]


def parse_losses(text):
    return {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^step (\d+) loss (\S+)$", text, re.M)}


def rel_l2(gpu, ref):
    gpu, ref = np.asarray(gpu, np.float64).ravel(), np.asarray(ref, np.float64).ravel()
    if gpu.shape != ref.shape:
        return math.inf
    den = max(float(np.linalg.norm(ref)), 1e-30)
    return float(np.linalg.norm(gpu - ref)) / den


def fresh(*parts):
    path = os.path.join(OUT, *parts)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


# ---- The ABI fixture: the runtime against a hand-written kernel whose result numpy emulates bit for bit ----

def check_fixture(table):
    name, pdir = "abi-fixture", os.path.join(ROOT, "fixtures")
    out = fresh("abi-fixture")
    seeds = ["--init", "1", "--random-inputs", "2"]
    rc, _, err = latch_run(pdir, "abi-smoke.ptx", ["--dry-run"] + seeds + ["--dump-dir", os.path.join(out, "init")])
    if rc:
        table.add(name, "smoke", "dry run", "error", "", "FAIL", last_error(err))
        return
    w, x, ids = (np.load(os.path.join(out, "init", f + ".npy")) for f in ("w", "x", "ids"))
    m, expected_losses = np.zeros_like(w), []
    for k in (1, 2, 3):
        y = (w * x).astype(np.float32) + np.float32(k)
        y = (y + ids.astype(np.float32)).astype(np.float32)
        z = (y + y).astype(np.float32)
        expected_losses.append(np.add.accumulate(z, dtype=np.float32)[-1])
        m = (m + z).astype(np.float32)
    for label, extra in (("full grid", []), ("1 CTA per SM", ["--grid", "132"])):
        run_dir = os.path.join(out, label.replace(" ", "-"))
        rc, so, err = latch_run(pdir, "abi-smoke.ptx", ["--steps", "3"] + seeds + extra +
                                ["--dump-dir", run_dir, "--trace", run_dir + ".trace.json"])
        if rc:
            table.add(name, "smoke", label, "error", "", "FAIL", last_error(err))
            continue
        losses = parse_losses(so)
        got = [np.float32(losses.get(k, math.nan)) for k in (1, 2, 3)]
        same_loss = all(a == b for a, b in zip(got, expected_losses))
        gm = np.load(os.path.join(run_dir, "m.w.npy"))
        same_m = np.array_equal(gm.view(np.uint32), m.view(np.uint32))
        device = next((l for l in so.splitlines() if l.startswith("device:")), "")
        table.add(name, "smoke", f"{label}: losses of 3 updates", "identical" if same_loss else "differ",
                  "bitwise", "PASS" if same_loss else "FAIL", "" if same_loss else f"gpu {got} numpy {expected_losses}")
        table.add(name, "smoke", f"{label}: m after 3 updates", "identical" if same_m else "differ", "bitwise",
                  "PASS" if same_m else "FAIL", device if label == "full grid" else "")
        with open(run_dir + ".trace.json") as f:
            events = json.load(f)["traceEvents"]
        tracks = next((e["args"]["name"] for e in events if e.get("name") == "process_name"), "").rpartition("; ")[2]
        table.add(name, "smoke", f"{label}: trace events", str(len(events)), "readable", "PASS", tracks)


# ---- Per-program checks ----

def meta_of(pdir):
    with open(os.path.join(pdir, "program.json")) as f:
        return json.load(f)


def check_compare(table, meta, pdir):
    name = meta["name"]
    out = fresh(name, "compare")
    rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", "1"] + meta["run_args"] + ["--dump-dir", out])
    if rc:
        table.add(name, "compare", "latch-run", "error", "", "FAIL", last_error(err))
        return
    gate = gates.compare_gate(meta["precision"])
    exp = os.path.join(pdir, "expected", "fp64")
    r = 0
    while os.path.exists(os.path.join(exp, f"result{r}.npy")):
        ref = np.load(os.path.join(exp, f"result{r}.npy"))
        path = os.path.join(out, f"result{r}.npy")
        if not os.path.exists(path):
            table.add(name, "compare", f"result{r}", "missing", "", "FAIL", "latch-run wrote no such result")
        elif ref.dtype.kind == "i":
            gpu = np.load(path)
            same = gpu.shape == ref.shape and np.array_equal(gpu, ref)
            bad = int(np.sum(gpu != ref)) if gpu.shape == ref.shape else -1
            table.add(name, "compare", f"result{r} {list(ref.shape)} i32", "identical" if same else f"{bad} differ",
                      "exact", "PASS" if same else "FAIL")
        else:
            gpu = np.load(path)
            err_l2 = rel_l2(gpu, ref)
            worst = float(np.max(np.abs(gpu.astype(np.float64) - ref))) if gpu.shape == ref.shape else math.inf
            table.add(name, "compare", f"result{r} {list(ref.shape)} rel L2", fmt(err_l2), fmt(gate),
                      "PASS" if err_l2 <= gate else "FAIL", f"max abs diff {fmt(worst)}")
        r += 1
    if r == 0:
        table.add(name, "compare", "references", "none", "", "FAIL", "no expected/fp64/result*.npy in the bundle")


def torch_grads(meta, pdir, dump, bf16=False, aux=None, routing=None, routes=None):
    import tinymoe_torch
    params = {n: np.load(os.path.join(dump, n + ".npy")) for n in meta["params"]}
    tokens = np.load(os.path.join(dump, "tokens.npy"))
    targets = np.load(os.path.join(dump, "targets.npy"))
    opts = meta["model_options"]
    return tinymoe_torch.loss_and_grads(params, tokens, targets, opts.get("heads", 8), opts.get("top_k", 2),
                                        bf16=bf16, aux=aux, routing=routing, routes=routes)


def interp_grads(meta, pdir):
    """(loss, name -> gradient) of latch-interp's fp64 first update: g = m' / (1 - beta1)."""
    exp = os.path.join(pdir, "expected", "fp64")
    P = len(meta["params"])
    loss = float(np.load(os.path.join(exp, "result0.npy")))
    grads = {n: np.load(os.path.join(exp, f"result{1 + P + i}.npy")) / (1.0 - meta["beta1"])
             for i, n in enumerate(meta["params"])}
    return loss, grads


def check_torch_reference(table, meta, pdir, ctx):
    """Validates tinymoe_torch.py against latch-interp fp64 at a size the interpreter handles."""
    name = meta["name"]
    try:
        import torch  # noqa: F401
    except ImportError:
        table.add(name, "torch-ref", "torch", "missing", "", "SKIP", "python3 has no torch")
        return
    dump = fresh(name, "torch-ref-inputs")
    rc, _, err = latch_run(pdir, HOST_PTX, ["--manifest", "host.manifest.json", "--dry-run"] + meta["run_args"] +
                           ["--dump-dir", dump])
    if rc:
        table.add(name, "torch-ref", "inputs (dry run)", "error", "", "FAIL", last_error(err))
        ctx["torch_ok"] = False
        return
    ref_loss, ref = interp_grads(meta, pdir)
    loss, grads = torch_grads(meta, pdir, dump)
    worst, ok = abs(loss - ref_loss) / abs(ref_loss), True
    ok &= worst <= gates.TORCH_REFERENCE_REL_L2
    for n in meta["params"]:
        e = rel_l2(grads[n], ref[n])
        ok &= e <= gates.TORCH_REFERENCE_REL_L2
        worst = max(worst, e)
    table.add(name, "torch-ref", "PyTorch fp64 vs latch-interp fp64", fmt(worst), fmt(gates.TORCH_REFERENCE_REL_L2),
              "PASS" if ok else "FAIL", f"worst of the loss and {len(meta['params'])} gradients")
    ctx["torch_ok"] = ok and ctx.get("torch_ok", True)


def check_grad(table, meta, pdir, ctx):
    name = meta["name"]
    if meta.get("beta1") is None:
        table.add(name, "grad", "beta1", "unknown", "", "FAIL", "no task.adamw beta1 in program.mlir")
        return
    use_interp = meta["interp_references"]
    if not use_interp:
        try:
            import torch  # noqa: F401
        except ImportError:
            table.add(name, "grad", "reference", "no torch", "", "SKIP", "python3 has no torch")
            return
        if not ctx.get("torch_ok"):
            table.add(name, "grad", "reference", "not validated", "", "FAIL",
                      "the PyTorch reference did not pass its check against latch-interp (torch-ref)")
    out = fresh(name, "grad")
    rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", "1"] + meta["run_args"] + ["--dump-dir", os.path.join(out, "gpu")])
    if rc:
        table.add(name, "grad", "latch-run", "error", "", "FAIL", last_error(err))
        return
    if use_interp:
        ref_loss, ref = interp_grads(meta, pdir)
        source = "latch-interp fp64"
        emulated = None
    else:
        dump = os.path.join(out, "init")
        rc, _, err = latch_run(pdir, "prog.ptx", ["--dry-run"] + meta["run_args"] + ["--dump-dir", dump])
        if rc:
            table.add(name, "grad", "inputs (dry run)", "error", "", "FAIL", last_error(err))
            return
        t0 = time.time()
        gaps, routes = [], []
        ref_loss, ref = torch_grads(meta, pdir, dump, aux=gaps, routes=routes)
        source = f"PyTorch fp64 ({time.time() - t0:.0f} s)"
        # Diagnostics (not gates): what a model that rounds its matmul inputs to bf16 scores against the
        # same fp64 reference, and how close the routing sits to ties (a near-tie that bf16 noise flips
        # sends a token to another expert).
        _, emulated = torch_grads(meta, pdir, dump, bf16=True)
        for layer, g in enumerate(gaps):
            table.add(name, "grad", f"router gap < 1e-3, layer {layer}", f"{100.0 * float(np.mean(g < 1e-3)):.1f}%",
                      "", "INFO", f"tokens whose top-k and next router probability differ by < 1e-3 (min {fmt(float(np.min(g)))})")
    P = len(meta["params"])
    gpu_loss = float(np.load(os.path.join(out, "gpu", "result0.npy")))
    e = abs(gpu_loss - ref_loss) / abs(ref_loss)
    table.add(name, "grad", "loss of update 1 (rel diff)", fmt(e), fmt(gates.GRAD_LOSS_REL),
              "PASS" if e <= gates.GRAD_LOSS_REL else "FAIL", f"gpu {gpu_loss:.6f}, {source} {ref_loss:.6f}")
    for i, n in enumerate(meta["params"]):
        m_name = meta["carried"][P + i]
        g = np.load(os.path.join(out, "gpu", re.sub(r"[^A-Za-z0-9._-]", "_", m_name) + ".npy")).astype(np.float64)
        g /= 1.0 - meta["beta1"]
        e = rel_l2(g, ref[n])
        note = f"|g| {fmt(float(np.linalg.norm(ref[n])))}"
        if emulated is not None:
            note += f"; bf16-emulated PyTorch vs fp64 {fmt(rel_l2(emulated[n], ref[n]))}, gpu vs it {fmt(rel_l2(g, emulated[n]))}"
        table.add(name, "grad", f"{n} {list(ref[n].shape)}", fmt(e), fmt(gates.GRAD_REL_L2),
                  "PASS" if e <= gates.GRAD_REL_L2 else "FAIL", note)
    if not use_interp:
        try:
            check_grad_routed(table, meta, pdir, out, dump, ref_loss, ref, routes, gaps)
        except Exception as e:  # the rows above stay; a broken routed check is one failing row
            table.add(name, "grad-routed", "check script", "exception", "", "FAIL", f"{type(e).__name__}: {e}"[:200])


def gradient_of(meta, run_dir, i):
    """The gradient of parameter i from a latch-run dump of one update: m / (1 - beta1)."""
    P = len(meta["params"])
    m_name = meta["carried"][P + i]
    g = np.load(os.path.join(run_dir, re.sub(r"[^A-Za-z0-9._-]", "_", m_name) + ".npy")).astype(np.float64)
    return g / (1.0 - meta["beta1"])


def check_grad_routed(table, meta, pdir, out, dump, ref_loss, ref, ref_routes, gaps):
    """The gradients of one update against the fp64 reference conditioned on the program's own routing:
    the GPU's top-k experts of every layer (latch-run --probe-dir: topk<layer>.indices) are forced on
    tinymoe_torch, whose router and gates stay fp64. A gradient that fails the gate here is wrong for the
    routing the program chose; one that fails only the plain rows above differs because near-tie tokens
    went to other experts. Same gate as the plain rows (gates.GRAD_REL_L2)."""
    import tinymoe_torch
    name, check = meta["name"], "grad-routed"
    with open(os.path.join(pdir, "prog.ptx.manifest.json")) as f:
        manifest = json.load(f)
    layers = len(ref_routes)
    probes = {p["name"]: p for p in manifest.get("probes", [])}
    wanted = [f"topk{j}.indices" for j in range(layers)]
    missing = [w for w in wanted if w not in probes]
    extra = sorted(n for n in probes if n.endswith(".indices") and n not in wanted)
    if missing or extra:
        table.add(name, check, "routing probes", "missing" if missing else "unexpected", "", "FAIL",
                  f"{layers} layers need probes {', '.join(wanted)} in prog.ptx.manifest.json; "
                  f"missing {missing or 'none'}, unexpected {extra or 'none'}"[:200])
        return
    # The update whose routing is read: persistent like the graded run when the routing survives to the end
    # of the update, else the staged control, which reads each probe right after its kernel.
    persistent = all(probes[w]["intact_at_end"] for w in wanted)
    if not persistent and not manifest.get("staged_kernels"):
        table.add(name, check, "routing probes", "unreadable", "", "FAIL",
                  "a probe is overwritten before the update ends and the program has no staged kernels")
        return
    mode = "persistent" if persistent else "staged"
    run_dir, probe_dir = os.path.join(out, "routed", "gpu"), os.path.join(out, "routed", "probes")
    rc, _, err = latch_run(pdir, "prog.ptx", ["--steps", "1", f"--mode={mode}"] + meta["run_args"] +
                           ["--dump-dir", run_dir, "--probe-dir", probe_dir])
    if rc:
        table.add(name, check, f"latch-run --mode={mode} --probe-dir", "error", "", "FAIL", last_error(err))
        return
    graded = os.path.join(out, "gpu")
    files = sorted(os.listdir(graded))
    differ = [f for f in files if not os.path.exists(os.path.join(run_dir, f)) or
              open(os.path.join(graded, f), "rb").read() != open(os.path.join(run_dir, f), "rb").read()]
    table.add(name, check, f"routing run ({mode}) vs graded run", "identical" if not differ else f"{len(differ)} differ",
              "", "INFO", "the rows below grade the routing run's own gradients" +
              (f"; differ: {', '.join(differ[:4])}" if differ else ""))
    gpu_routes = [np.load(os.path.join(probe_dir, w + ".npy")) for w in wanted]
    k = gpu_routes[0].shape[-1]
    tokens_total = differ_total = 0
    for layer, (gr, fr) in enumerate(zip(gpu_routes, ref_routes)):
        moved = tinymoe_torch.routing_differs(gr, fr)
        near = moved & (gaps[layer] < 1e-3) if layer < len(gaps) else moved
        tokens_total += moved.size
        differ_total += int(moved.sum())
        table.add(name, check, f"top-{k} set differs from fp64, layer {layer}", f"{100.0 * float(moved.mean()):.2f}%", "",
                  "INFO", f"{int(moved.sum())} of {moved.size} tokens; {int(near.sum())} of them within 1e-3 of an fp64 tie")
    table.add(name, check, f"top-{k} set differs from fp64, all layers", f"{100.0 * differ_total / max(tokens_total, 1):.2f}%",
              "", "INFO", f"{differ_total} of {tokens_total} token-layers")
    # The forcing itself: forcing the reference's own routing must reproduce it exactly.
    own_loss, own = torch_grads(meta, pdir, dump, routing=ref_routes)
    same = own_loss == ref_loss and all(np.array_equal(own[n], ref[n]) for n in meta["params"])
    table.add(name, check, "forced fp64 routing reproduces fp64", "identical" if same else "differ", "bitwise",
              "PASS" if same else "FAIL", "tinymoe_torch with routing= its own top-k")
    t0 = time.time()
    routed_loss, routed = torch_grads(meta, pdir, dump, routing=gpu_routes)
    gpu_loss = float(np.load(os.path.join(run_dir, "result0.npy")))
    e = abs(gpu_loss - routed_loss) / abs(routed_loss)
    table.add(name, check, "loss of update 1 (rel diff)", fmt(e), fmt(gates.GRAD_LOSS_REL),
              "PASS" if e <= gates.GRAD_LOSS_REL else "FAIL",
              f"gpu {gpu_loss:.6f}, fp64 with the program's routing {routed_loss:.6f} ({time.time() - t0:.0f} s)")
    passed = plain_passed = 0
    for i, n in enumerate(meta["params"]):
        g = gradient_of(meta, run_dir, i)
        e, plain = rel_l2(g, routed[n]), rel_l2(g, ref[n])
        passed += e <= gates.GRAD_REL_L2
        plain_passed += plain <= gates.GRAD_REL_L2
        table.add(name, check, f"{n} {list(routed[n].shape)}", fmt(e), fmt(gates.GRAD_REL_L2),
                  "PASS" if e <= gates.GRAD_REL_L2 else "FAIL",
                  f"vs fp64 with the program's routing; vs plain fp64 {fmt(plain)}")
    table.add(name, check, "tensors within the gate", f"{passed}/{len(meta['params'])}", "", "INFO",
              f"vs fp64 with the program's routing; vs plain fp64 {plain_passed}/{len(meta['params'])}")


def max_rel_diff(a, b, updates):
    """The largest |a - b| / |b| over `updates` (NaN first) and where it is."""
    diffs = {k: abs(a.get(k, math.nan) - b[k]) / abs(b[k]) for k in updates}
    worst = max(diffs, key=lambda k: (math.isnan(diffs[k]), diffs[k]))
    return diffs[worst], worst, diffs


def window_means(losses, n, width):
    """{first update of the window: the mean loss of the `width` updates from it}."""
    return {w: sum(losses.get(k, math.nan) for k in range(w, w + width)) / width for w in range(1, n + 1, width)}


def check_loss100(table, meta, pdir):
    name = meta["name"]
    ref_path = os.path.join(pdir, "expected", "losses-fp32.txt")
    if not os.path.exists(ref_path):
        table.add(name, "loss100", "reference", "missing", "", "FAIL", "no expected/losses-fp32.txt in the bundle")
        return
    # fp32 is the gate; bf16 and fp64 (information) exist for the programs the bundle ran latch-interp on
    refs = {e: parse_losses(open(os.path.join(pdir, "expected", f"losses-{e}.txt")).read())
            for e in ("fp32", "bf16", "fp64") if os.path.exists(os.path.join(pdir, "expected", f"losses-{e}.txt"))}
    ref = refs["fp32"]
    n = max(ref)
    rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", str(n)] + meta["run_args"])
    if rc:
        table.add(name, "loss100", "latch-run", "error", "", "FAIL", last_error(err))
        return
    gpu = parse_losses(so)
    gate = gates.loss100_gate(meta["precision"])
    updates = range(1, n + 1)
    worst, worst_k, diffs = max_rel_diff(gpu, ref, updates)
    out = fresh(name, "loss100")
    twin, twin_worst = loss100_twin(table, meta, pdir, gpu, n, out)
    # gates.py LOSS100_WINDOW: where the program's own one-ulp twin parts by more than the gate, per-update
    # differences measure the run's chaos; the gate then applies to 10-update means.
    chaotic = twin_worst is not None and not math.isnan(twin_worst) and twin_worst > gate
    ok = not any(math.isnan(d) for d in diffs.values()) and worst <= gate
    table.add(name, "loss100", f"max rel diff vs interp fp32 ({n} upd)", fmt(worst), fmt(gate),
              "INFO" if chaotic else "PASS" if ok else "FAIL",
              f"worst at update {worst_k}: gpu {gpu.get(worst_k, math.nan):.6f} ref {ref[worst_k]:.6f}" +
              (f"; not gated: the one-ulp twin parts by {fmt(twin_worst)} (gates.py LOSS100_WINDOW)" if chaotic else ""))
    if chaotic:
        g, r = window_means(gpu, n, gates.LOSS100_WINDOW), window_means(ref, n, gates.LOSS100_WINDOW)
        window_worst, first, wd = max_rel_diff(g, r, sorted(r))
        ok = not any(math.isnan(d) for d in wd.values()) and window_worst <= gate
        table.add(name, "loss100", f"max rel diff of {gates.LOSS100_WINDOW}-update means vs interp fp32", fmt(window_worst),
                  fmt(gate), "PASS" if ok else "FAIL",
                  f"worst: updates {first}-{first + gates.LOSS100_WINDOW - 1}, gpu {g[first]:.6f} ref {r[first]:.6f}; "
                  "every window: " + " ".join(fmt(wd[w]) for w in sorted(wd)))
    table.add(name, "loss100", "loss first -> last (gpu)", f"{gpu.get(1, math.nan):.4f}->{gpu.get(n, math.nan):.4f}",
              "", "INFO", f"interp fp32 {ref[1]:.4f}->{ref[n]:.4f}")
    # The curves themselves: a few points in the table, every update in out/<name>/loss100/curves.txt.
    points = sorted({k for k in (n // 10, n // 4, n // 2, 3 * n // 4, worst_k, n) if 1 <= k <= n})
    table.add(name, "loss100", "gpu / interp fp32 at updates " + ",".join(map(str, points)),
              " ".join(f"{gpu.get(k, math.nan):.3f}/{ref[k]:.3f}" for k in points), "", "INFO",
              "every update: out/" + name + "/loss100/curves.txt")
    columns = [("gpu", gpu), ("interp_fp32", ref)] + [(f"interp_{e}", refs[e]) for e in ("bf16", "fp64") if e in refs] + \
              ([("gpu_one_ulp", twin)] if twin else [])
    with open(os.path.join(out, "curves.txt"), "w") as f:
        f.write("update " + " ".join(c for c, _ in columns) + "\n")
        for k in updates:
            f.write(f"{k} " + " ".join(f"{losses.get(k, math.nan):.7g}" for _, losses in columns) + "\n")
    for e in [e for e in ("bf16", "fp64") if e in refs]:
        d, k, _ = max_rel_diff(gpu, refs[e], updates)
        dr = max_rel_diff(refs[e], ref, updates)[0]
        table.add(name, "loss100", f"max rel diff vs interp {e} (info)", fmt(d), "", "INFO",
                  f"worst at update {k}; interp {e} vs interp fp32: {fmt(dr)}")


def loss100_twin(table, meta, pdir, gpu, n, out):
    """The same GPU program from the same start but one parameter element one f32 ulp up: how far the two
    curves part is what rounding differences alone do to this training run (a reference computed in
    another arithmetic cannot be tracked more closely). Returns its losses and their largest relative
    distance from the program's, or (None, None) after an error."""
    name = meta["name"]
    start = os.path.join(out, "start")
    rc, _, err = latch_run(pdir, "prog.ptx", ["--dry-run", "--steps", "1", "--dump-dir", start] + meta["run_args"])
    # an element every token uses (a norm scale), so that the perturbation cannot stay unused
    norms = [q for q in meta["params"] if "norm" in q]
    param = norms[-1] if norms else meta["params"][-1]
    path = os.path.join(start, param + ".npy")
    if rc or not os.path.exists(path):
        table.add(name, "loss100", "one-ulp twin", "error", "", "INFO", last_error(err) if rc else f"no {param}.npy")
        return None, None
    p = np.load(path)
    p.flat[0] = np.nextafter(p.flat[0], np.float32(np.inf), dtype=np.float32)
    moved = os.path.join(out, "moved.npy")
    np.save(moved, p)
    shutil.rmtree(start, ignore_errors=True)
    rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", str(n), "--input", f"{param}={moved}"] + meta["run_args"])
    if rc:
        table.add(name, "loss100", "one-ulp twin", "error", "", "INFO", last_error(err))
        return None, None
    twin = parse_losses(so)
    gate = gates.loss100_gate(meta["precision"])
    d, k, diffs = max_rel_diff(twin, gpu, range(1, n + 1))
    first = next((j for j in sorted(diffs) if diffs[j] > gate), None)
    table.add(name, "loss100", f"gpu vs gpu with {param}[0] one ulp up (info)", fmt(d), "", "INFO",
              f"worst at update {k}: {twin.get(k, math.nan):.6f} vs {gpu[k]:.6f}; " +
              (f"first over the gate at update {first}" if first else "never over the gate"))
    return twin, d


def check_determinism(table, meta, pdir):
    name = meta["name"]
    runs = []
    for label in ("a", "b"):
        out = fresh(name, "determinism", label)
        rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", str(gates.DETERMINISM_UPDATES)] + meta["run_args"] +
                                ["--dump-dir", out])
        if rc:
            table.add(name, "determinism", f"run {label}", "error", "", "FAIL", last_error(err))
            return
        runs.append((out, parse_losses(so)))
    (a, la), (b, lb) = runs
    files = sorted(os.listdir(a))
    differ = [f for f in files if open(os.path.join(a, f), "rb").read() != open(os.path.join(b, f), "rb").read()]
    table.add(name, "determinism", f"files after {gates.DETERMINISM_UPDATES} updates", f"{len(files) - len(differ)}/{len(files)} same",
              "bitwise", "PASS" if not differ else "FAIL", ("differ: " + ", ".join(differ[:6])) if differ else "")
    table.add(name, "determinism", "printed losses", "identical" if la == lb else "differ", "bitwise",
              "PASS" if la == lb and la else "FAIL")


def find_sanitizer():
    for path in (shutil.which("compute-sanitizer"),
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "compute-sanitizer")):
        if path and os.path.exists(path):
            return path
    return None


def check_memcheck(table, meta, pdir):
    name = meta["name"]
    sanitizer = find_sanitizer()
    if not sanitizer:
        table.add(name, "memcheck", "compute-sanitizer", "missing", "", "SKIP", "not on PATH nor in $CUDA_HOME/bin")
        return
    rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", "1", "--timeout", "0"] + meta["run_args"], timeout=1800,
                            prefix=(sanitizer, "--tool", "memcheck", "--print-limit", "20"))
    text = so + err
    with open(os.path.join(fresh(name, "memcheck"), "memcheck.txt"), "w") as f:
        f.write(text)
    m = re.search(r"ERROR SUMMARY: (\d+) error", text)
    errors = int(m.group(1)) if m else -1
    ok = rc == 0 and m is not None and errors <= gates.MEMCHECK_MAX_ERRORS
    note = f"out/{name}/memcheck/memcheck.txt" if not ok else ""
    if rc and errors == -1:
        note = last_error(err)
    table.add(name, "memcheck", "errors on one update", str(errors), str(gates.MEMCHECK_MAX_ERRORS),
              "PASS" if ok else "FAIL", note)


def check_timing(table, meta, pdir):
    name = meta["name"]
    out = fresh(name, "timing")
    trace = os.path.join(out, "trace.json")
    rc, so, err = latch_run(pdir, "prog.ptx", ["--steps", str(gates.TIMING_UPDATES), "--trace", trace] + meta["run_args"])
    with open(os.path.join(out, "latch-run.txt"), "w") as f:
        f.write(so + err)
    if rc:
        table.add(name, "timing", "latch-run", "error", "", "FAIL", last_error(err))
        return
    med = re.search(r"median update time (\S+) ms over (\d+) updates \(min (\S+) ms, max (\S+) ms\)", so)
    wait = re.search(r"barrier wait: (\S+)% of CTA time", so)
    device = next((l for l in so.splitlines() if l.startswith("device:")), "")
    table.add(name, "timing", "median update time (ms)", med.group(1) if med else "?", "", "INFO",
              gates.PYTORCH_CONTROLS_MS.get(name, ""))
    table.add(name, "timing", "min / max update (ms)", f"{med.group(3)}/{med.group(4)}" if med else "?", "", "INFO", device)
    table.add(name, "timing", "barrier wait share (last update)", (wait.group(1) + "%") if wait else "?", "", "INFO",
              f"trace: out/{name}/timing/trace.json")
    for line in so.splitlines():
        km = re.match(r"\s+(\S+)\s+(\d+)\s+(\S+)%\s+(\S+)%$", line)
        if km and km.group(1) != "kind":
            table.add(name, "timing", f"  {km.group(1)} x{km.group(2)}: wait share", km.group(4) + "%", "", "INFO",
                      f"{km.group(3)}% of CTA time")


CHECKS = {"compare": check_compare, "loss100": check_loss100, "determinism": check_determinism,
          "memcheck": check_memcheck, "timing": check_timing}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated program names (the ABI fixture runs always)")
    ap.add_argument("--checks", help="comma-separated checks to run (compare, grad, loss100, determinism, "
                                     "memcheck, timing)")
    args = ap.parse_args()
    build = os.path.join(ROOT, "build-latch-run.sh")
    if not os.path.exists(BIN) and os.path.exists(build):
        # run directly from a bundle that has not built its latch-run yet (round thirty-seven's first call
        # lost its checks so): build it as run.sh does
        if subprocess.run(["sh", build, ROOT]).returncode != 0:
            sys.exit(f"run_checks.py: building {BIN} failed ({build})")
    if not os.path.exists(BIN):
        sys.exit(f"run_checks.py: {BIN} is missing (run ./run.sh, which builds it)")
    table = Table()
    ctx = {}
    check_fixture(table)
    order = [l.split("|")[0].strip() for l in open(os.path.join(ROOT, "programs.txt"))
             if l.strip() and not l.startswith("#")]
    only = set(args.only.split(",")) if args.only else None
    wanted_checks = set(args.checks.split(",")) if args.checks else None
    metas = []
    for name in order:
        pdir = os.path.join(ROOT, "programs", name)
        if only and name not in only:
            continue
        if not os.path.exists(os.path.join(pdir, "program.json")):
            table.add(name, "-", "bundle", "missing", "", "SKIP", "not in the bundle (see skipped.txt)")
            continue
        metas.append((meta_of(pdir), pdir))
    # The PyTorch reference is validated against latch-interp (small TinyMoE) before it judges 2x512.
    if any(m["model"] == "tinymoe" and "grad" in m["checks"] and not m["interp_references"] for m, _ in metas) and \
            (not wanted_checks or "grad" in wanted_checks):
        small = [(m, d) for m, d in metas if m["model"] == "tinymoe" and m["interp_references"]]
        if not small:
            table.add("tinymoe", "torch-ref", "small TinyMoE with references", "missing", "", "FAIL",
                      "no bundled TinyMoE program has latch-interp references")
        for m, d in small:
            check_torch_reference(table, m, d, ctx)
    for meta, pdir in metas:
        name = meta["name"]
        for check in meta["checks"]:
            if wanted_checks and check not in wanted_checks:
                continue
            if not meta["compiled"]:
                table.add(name, check, "compile", "no PTX", "", "SKIP", (meta.get("skip_reason") or "")[:120])
                continue
            try:
                if check == "grad":
                    check_grad(table, meta, pdir, ctx)
                else:
                    CHECKS[check](table, meta, pdir)
            except Exception as e:  # a check that breaks is a failing row, not a lost table
                table.add(name, check, "check script", "exception", "", "FAIL", f"{type(e).__name__}: {e}"[:200])
    table.print()
    table.save()
    return 1 if any(r["status"] == "FAIL" for r in table.rows) else 0


if __name__ == "__main__":
    sys.exit(main())
