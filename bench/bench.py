#!/usr/bin/env python3
"""bench.py - the TinyMoE benchmark of docs/benchmarks.md, run ON the GPU machine from a GPU bundle that
carries bench/ (bench/run.sh calls it; see docs/benchmarks.md "How to run"). In one run, within a time
budget (default 540 s of wall time):

  1. a token stream (bench-work/stream.npy: a Markov chain over the 8192-token vocabulary, 4 successors
     per token, so the loss can fall) and the initial parameters as latch-run fills them
     (`latch-run --dry-run --init SEED --data ... --dump-dir`), checked against bench/latch_init.py;
  2. the PyTorch controls (bench/tinymoe_torch.py: eager, whole-step CUDA graph, torch.compile) at every
     shape, median of --updates after --warmup, and the eager loss curve of --loss-updates updates;
  3. Latch: `latch-run --mode=persistent` and `--mode=staged` (a missing row with the reason when this
     latch-run or this manifest has no staged mode) at every shape. latch-run's median covers all the
     updates of a run, its first included (latch-run reports no per-update times). The number of updates
     per row is planned from a 2-update probe so that the run fits the budget; a row with fewer updates
     than asked says so in the table and the JSON. The faster Latch variant's 2x1024 run is also the loss
     run (target --loss-updates) and the persistent 2x1024 run writes the trace of its last update;
  4. the report: a table (median, every ratio to the controls and to the physical floors of
     ../shared/notes/models.md, peak memory, build / compile time), PASS/FAIL of the final loss of Latch
     against PyTorch eager after the same updates (within 2%), JSON to bench/results/<date>-<h100|h200>.json,
     pictures to docs/img/bench-<date>-loss.png and docs/img/bench-<date>-timeline.png. Everything is
     written under --out (default $OUT, else bench-out/) with the repository's paths, and the JSON and
     table also under the bundle's own bench/results/.

  bench.py [--out DIR] [--budget-s 540] [--shapes 2x1024,32x1024] [--updates 20] [--warmup 5]
           [--loss-updates 200] [--seed 1] [--skip-torch] [--skip-latch]
  bench.py --fake --out DIR      the report path on made-up numbers (no GPU, no torch): for testing
"""
import argparse
import datetime
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# ../shared/notes/models.md, "Rough physical floor on an H200": (overlapped, serial) in ms.
FLOORS_MS = {"2x1024": (0.4, 0.8), "32x1024": (6.0, 6.0)}
CONTROLS = ("eager", "graph", "compile")
LATCH_VARIANTS = ("persistent", "staged")
LOSS_TOLERANCE = 0.02
SETUP_S = 20.0  # assumed latch-run start-up (init of 63M parameters, upload, JIT) before it is measured
# Once the probes measured it: their slowest start-up times this, plus SETUP_MARGIN_S (a larger shape
# starts a little slower: a larger arena, the same JIT).
SETUP_FACTOR = 1.5
SETUP_MARGIN_S = 2.0
SAFETY_S = 20.0


def log(msg):
    print(msg, flush=True)


def first_line(text, n=240):
    lines = [l.strip() for l in (text or "").strip().splitlines() if l.strip()]
    return lines[-1][:n] if lines else "(no message)"


# ---------------------------------------------------------------------------------------------------------
# Inputs

def markov_stream(length, vocab=8192, successors=4, seed=1):
    """An int32 token stream: token t is followed by one of `successors` fixed tokens (uniformly)."""
    rng = np.random.default_rng(seed)
    succ = rng.integers(0, vocab, size=(vocab, successors), dtype=np.int64)
    pick = rng.integers(0, successors, size=length, dtype=np.int64)
    out = np.empty(length, np.int32)
    t = int(rng.integers(0, vocab))
    succ_l, pick_l = succ.tolist(), pick.tolist()
    for i in range(length):
        out[i] = t
        t = succ_l[t][pick_l[i]]
    return out


def program_dir(root, shape):
    return os.path.join(root, "programs", f"tinymoe-{shape}")


def program_paths(root, shape):
    """(program file, manifest) of the bundle's TinyMoE at `shape`, or (None, reason)."""
    pdir = program_dir(root, shape)
    ptx = os.path.join(pdir, "prog.ptx")
    if os.path.exists(ptx) and os.path.exists(ptx + ".manifest.json"):
        return ptx, ptx + ".manifest.json"
    meta = os.path.join(pdir, "program.json")
    if os.path.exists(meta):
        return None, "does not compile: " + (json.load(open(meta)).get("skip_reason") or "?")
    return None, f"{pdir} is not in the bundle"


def device_buffers_bytes(manifest):
    """What latch-run allocates for the program, less the CUDA context: arena + every argument."""
    return int(manifest["arena_bytes"]) + sum(int(a["bytes"]) for a in manifest["args"])


# ---------------------------------------------------------------------------------------------------------
# latch-run

class GpuMemorySampler:
    """Samples the largest used_memory nvidia-smi reports for one process id (every 0.25 s)."""

    def __init__(self, pid):
        self.pid, self.peak, self.stop = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop.is_set():
            try:
                r = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                                   capture_output=True, text=True, timeout=5)
                for line in r.stdout.splitlines():
                    f = [x.strip() for x in line.split(",")]
                    if len(f) == 2 and f[0] == str(self.pid) and f[1].isdigit():
                        self.peak = max(self.peak, int(f[1]) * 2**20)
            except (OSError, subprocess.SubprocessError):
                return
            self.stop.wait(0.25)

    def finish(self):
        self.stop.set()
        self.thread.join(timeout=6)
        return self.peak


def latch_run(binary, program, manifest, mode, steps, seed, data, timeout_s, trace=None, log_path=None):
    """Runs latch-run; returns a dict: ok, median_ms, min_ms, max_ms, losses, setup_s, wall_s,
    process_peak_bytes, barrier_wait, error."""
    cmd = [binary, program, "--manifest", manifest, f"--mode={mode}", "--steps", str(steps), "--init", str(seed),
           "--data", data, "--timeout", "600"]
    if trace:
        cmd += ["--trace", trace]
    log("  $ " + " ".join(os.path.relpath(c) if os.path.exists(c) else c for c in cmd))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    sampler = GpuMemorySampler(proc.pid)
    killer = threading.Timer(timeout_s, proc.kill)
    killer.start()
    out, losses, first_step_s = [], [], None
    for line in proc.stdout:
        out.append(line)
        m = re.match(r"step (\d+) loss (\S+)", line)
        if m:
            losses.append(float(m.group(2)))
            if first_step_s is None:
                first_step_s = time.perf_counter() - t0
    err = proc.stderr.read()
    rc = proc.wait()
    killer.cancel()
    wall = time.perf_counter() - t0
    peak = sampler.finish()
    so = "".join(out)
    if log_path:
        with open(log_path, "w") as f:
            f.write(" ".join(cmd) + "\n" + so + err)
    res = dict(ok=False, losses=losses, wall_s=wall, process_peak_bytes=peak or None, steps=steps)
    if rc:
        res["error"] = (f"killed after {timeout_s:.0f} s (the run's budget)" if rc < 0 else
                        f"latch-run exit {rc}: {first_line(err or so)}")
        return res
    med = re.search(r"median update time (\S+) ms over (\d+) updates \(min (\S+) ms, max (\S+) ms\)", so)
    if not med:
        res["error"] = "latch-run printed no median update time"
        return res
    res.update(ok=True, median_ms=float(med.group(1)), min_ms=float(med.group(3)), max_ms=float(med.group(4)))
    if first_step_s is not None:  # start-up: parameter init, upload, module load (JIT), less update 1
        res["setup_s"] = max(0.0, first_step_s - res["median_ms"] * 1e-3)
    wait = re.search(r"barrier wait: (\S+)% of CTA time", so)
    if wait:
        res["barrier_wait"] = float(wait.group(1)) / 100
    dev = next((l.strip() for l in so.splitlines() if l.startswith("device:")), None)
    if dev:
        res["device_line"] = dev
    return res


def staged_support(binary):
    """None when this latch-run has --mode=staged, else the reason."""
    r = subprocess.run([binary, "--help"], capture_output=True, text=True)
    text = r.stdout + r.stderr
    return None if "staged" in text else "this latch-run has no --mode=staged (its --help does not name it)"


def plan_counts(budget_s, est, targets, minimums, order, setup_s=SETUP_S):
    """Greedy plan: est[run] seconds per update, targets[run]/minimums[run] update counts, setup_s the
    start-up of one run; runs in `order` get their minimum first (a run whose minimum does not fit is
    dropped), then, in order, as many more updates up to the target as the remaining budget allows.
    Returns {run: count or 0}."""
    left = budget_s
    plan = {}
    for r in order:
        cost = setup_s + minimums[r] * est[r]
        if cost <= left:
            plan[r] = minimums[r]
            left -= cost
        else:
            plan[r] = 0
    for r in order:
        if plan[r] and est[r] > 0:
            extra = min(targets[r] - plan[r], int(left // est[r]))
            if extra > 0:
                plan[r] += extra
                left -= extra * est[r]
    return plan


def ptxas_times(root, shapes):
    """{shape: seconds} that ptxas takes to assemble the shape's TinyMoE PTX for sm_90a on this machine: the
    driver's JIT of a PTX it has not cached. latch-run's start-up includes that JIT only for the first run
    of a PTX (the driver caches the result), so the table's "start" is mostly the cached case."""
    exe = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    out = {}
    if not os.path.exists(exe):
        return out
    for shape in shapes:
        ptx = os.path.join(root, "programs", f"tinymoe-{shape}", "prog.ptx")
        if not os.path.exists(ptx):
            continue
        t0 = time.perf_counter()
        r = subprocess.run([exe, "-arch=sm_90a", ptx, "-o", os.devnull], capture_output=True, text=True)
        if r.returncode == 0:
            out[shape] = round(time.perf_counter() - t0, 2)
    return out


def probe_setup_s(setups):
    """The start-up to plan each run with: from the probes' measured start-ups (process wall time less
    their updates), else SETUP_S; never above SETUP_S."""
    if not setups:
        return SETUP_S
    return min(SETUP_S, SETUP_FACTOR * max(setups) + SETUP_MARGIN_S)


# ---------------------------------------------------------------------------------------------------------
# Collecting (GPU machine)

def gpu_info():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20)
        name, driver = [x.strip() for x in r.stdout.splitlines()[0].split(",")[:2]]
        return name, driver
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return "unknown", "unknown"


def collect(args, root, work):
    t_start = time.perf_counter()
    deadline = t_start + args.budget_s

    def left():
        return deadline - time.perf_counter()

    device, driver = gpu_info()
    log(f"bench: {device}, driver {driver}; budget {args.budget_s:.0f} s")
    shapes = [s for s in args.shapes.split(",") if s]
    res = dict(device=device, driver=driver, shapes=shapes, latch={}, torch=None, notes=[], init_check=None)
    binary = os.path.join(root, "bin", "latch-run")

    # 1. Inputs.
    longest = max(int(s.split("x")[0]) * int(s.split("x")[1]) for s in shapes)
    stream_len = max(1 << 20, (args.loss_updates + 1) * 2048 + 1, (args.updates + args.warmup + 1) * longest + 1)
    data = os.path.join(work, "stream.npy")
    np.save(data, markov_stream(stream_len, seed=args.seed))
    res["data"] = dict(kind="markov", successors=4, length=stream_len, seed=args.seed)
    log(f"bench: token stream of {stream_len} tokens ({time.perf_counter() - t_start:.1f} s)")
    ref_shape = "2x1024" if "2x1024" in shapes else shapes[0]
    prog, manifest_path = program_paths(root, ref_shape)
    if prog is None:
        manifest_path = os.path.join(program_dir(root, ref_shape), "host.manifest.json")
        prog = os.path.join(root, "fixtures", "host-only.ptx")
    init_dir = os.path.join(work, "init")
    r = subprocess.run([binary, prog, "--manifest", manifest_path, "--dry-run", "--steps", "1", "--init",
                        str(args.seed), "--data", data, "--dump-dir", init_dir], capture_output=True, text=True)
    params_arg = None
    if r.returncode == 0:
        for name in os.listdir(init_dir):  # keep the parameters only
            if name.startswith(("m.", "v.")):
                os.remove(os.path.join(init_dir, name))
        params_arg = ["--params", init_dir]
        import latch_init
        manifest = json.load(open(manifest_path))
        checked, bad, p = 0, [], 0
        for a in manifest["args"]:
            if a["role"] != "param":
                continue
            mine = latch_init.fill(a, args.seed, p, limit=4096)
            p += 1
            dumped = np.load(os.path.join(init_dir, a["name"] + ".npy")).reshape(-1)[:4096]
            checked += 1
            if not np.array_equal(mine.view(np.uint32), dumped.astype(np.float32).view(np.uint32)):
                bad.append(a["name"])
        res["init_check"] = dict(tensors=checked, elements_each=4096, mismatched=bad)
        log(f"bench: initial parameters from latch-run --dry-run; init rule (bench/latch_init.py) against it: "
            f"{checked - len(bad)} of {checked} tensors bit-identical on their first 4096 elements")
    else:
        res["notes"].append(f"latch-run --dry-run failed ({first_line(r.stderr)}); PyTorch used the init rule")
        params_arg = ["--init", str(args.seed), "--manifest", manifest_path]

    # 2. PyTorch controls.
    if not args.skip_torch:
        torch_json = os.path.join(work, "torch.json")
        torch_budget = min(args.torch_budget_s, max(60.0, left() * 0.45))
        cmd = [sys.executable, os.path.join(HERE, "tinymoe_torch.py")] + params_arg + [
            "--data", data, "--shapes", ",".join(shapes), "--updates", str(args.updates), "--warmup", str(args.warmup),
            "--loss-updates", str(args.loss_updates), "--loss-shape", ref_shape, "--json", torch_json]
        log(f"bench: PyTorch controls (at most {torch_budget:.0f} s)")
        try:
            r = subprocess.run(cmd, timeout=torch_budget)
            if r.returncode:
                res["notes"].append(f"tinymoe_torch.py exit {r.returncode}")
        except subprocess.TimeoutExpired:
            res["notes"].append(f"tinymoe_torch.py stopped after {torch_budget:.0f} s (budget); rows it had not "
                                "finished are missing")
        res["torch"] = json.load(open(torch_json)) if os.path.exists(torch_json) else None

    # 3. Latch.
    if not args.skip_latch:
        res["latch"] = collect_latch(args, root, work, data, shapes, ref_shape, binary, left)
    res["elapsed_s"] = time.perf_counter() - t_start
    return res


def collect_latch(args, root, work, data, shapes, ref_shape, binary, left):
    out = {"runs": {}, "missing": {}, "loss_run": None, "trace": None}
    staged_reason = staged_support(binary)
    variants = [v for v in LATCH_VARIANTS]
    for shape in shapes:
        prog, man = program_paths(root, shape)
        for v in variants:
            if prog is None:
                out["missing"][f"{v}/{shape}"] = man
            elif v == "staged" and staged_reason:
                out["missing"][f"{v}/{shape}"] = staged_reason
    est, setups = {}, []
    # Probe: 2 updates of each variant at the reference shape.
    for v in variants:
        key = f"{v}/{ref_shape}"
        if key in out["missing"]:
            continue
        prog, man = program_paths(root, ref_shape)
        log(f"bench: Latch {v} {ref_shape}: probe of 2 updates")
        r = latch_run(binary, prog, man, v, 2, args.seed, data, max(60.0, left() - SAFETY_S),
                      log_path=os.path.join(work, f"probe-{v}-{ref_shape}.txt"))
        if not r["ok"]:
            out["missing"][key] = r["error"]
            for shape in shapes:
                out["missing"].setdefault(f"{v}/{shape}", f"the {ref_shape} probe failed: {r['error']}")
            continue
        est[v] = r["median_ms"] * 1e-3
        setups.append(max(0.0, r["wall_s"] - r["steps"] * est[v]))
        out["runs"][f"probe-{v}"] = r
    if not est:
        return out
    fastest = min(est, key=est.get)
    # Runs: the loss run (fastest variant at ref_shape), the other variant at ref_shape, each at the others.
    runs, targets, minimums, estimates = [], {}, {}, {}
    timed = args.updates + 1  # latch-run's median includes its first update
    for v in variants:
        if v not in est:
            continue
        for shape in shapes:
            key = f"{v}/{shape}"
            if key in out["missing"]:
                continue
            b, t = (int(x) for x in shape.split("x"))
            rb, rt = (int(x) for x in ref_shape.split("x"))
            scale = (b * t) / (rb * rt) * (t / rt) ** 2 * 1.5 if shape != ref_shape else 1.0
            estimates[key] = est[v] * max(scale, 1.0)
            loss = v == fastest and shape == ref_shape
            targets[key] = max(args.loss_updates, timed) if loss else timed
            minimums[key] = timed if shape == ref_shape else 2
            runs.append(key)
    # Order: the reference-shape rows (the loss run first), then the larger shapes.
    order = sorted(runs, key=lambda k: (k.split("/")[1] != ref_shape, k.split("/")[0] != fastest))
    budget = left() - SAFETY_S
    setup = probe_setup_s(setups)
    plan = plan_counts(budget, estimates, targets, minimums, order, setup)
    if any(plan[k] == 0 for k in order):  # a row that cannot have 2 updates gets 1 if that fits
        plan = plan_counts(budget, estimates, targets, {k: 1 if k.split("/")[1] != ref_shape else minimums[k]
                                                        for k in order}, order, setup)
    out["plan"] = {k: dict(updates=plan[k], target=targets[k], est_s=estimates[k]) for k in order}
    log(f"bench: plan (start-up {setup:.1f} s per run; updates per run, est. s per update): " +
        ", ".join(f"{k} {plan[k]}/{targets[k]} ({estimates[k]:.3g} s)" for k in order))
    for key in order:
        v, shape = key.split("/")
        if plan[key] == 0:
            out["missing"][key] = f"no time left in the budget (est. {estimates[key]:.1f} s per update)"
            continue
        if left() < SAFETY_S:
            out["missing"][key] = "no time left in the budget"
            continue
        prog, man = program_paths(root, shape)
        trace = os.path.join(work, f"trace-{shape}.json") if v == "persistent" and shape == ref_shape else None
        steps = plan[key]
        log(f"bench: Latch {v} {shape}: {steps} updates (target {targets[key]})")
        r = latch_run(binary, prog, man, v, steps, args.seed, data, max(30.0, left() - SAFETY_S / 2), trace=trace,
                      log_path=os.path.join(work, f"latch-{v}-{shape}.txt"))
        r["target"] = targets[key]
        r["buffers_bytes"] = device_buffers_bytes(json.load(open(man)))
        out["runs"][key] = r
        if not r["ok"]:
            out["missing"][key] = r["error"]
            continue
        log(f"  median {r['median_ms']:.3f} ms over {steps} updates")
        if trace and os.path.exists(trace):
            out["trace"] = trace
        if v == fastest and shape == ref_shape:
            out["loss_run"] = key
    return out


# ---------------------------------------------------------------------------------------------------------
# Report (pure: no GPU)

def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x / 1000:.2f} s" if x >= 10_000 else f"{x:.3g} ms" if x < 100 else f"{x:.0f} ms"


def fmt_bytes(b):
    return "-" if not b else f"{b / 2**30:.2f} GiB"


def fmt_x(r):
    if r is None:
        return "-"
    return f"{r:.3g}x" if r < 1000 else f"{r:.0f}x"


def build_rows(res):
    """The rows of the table and of the JSON, from collect()'s (or fake()'s) result."""
    rows = []
    latch = res.get("latch") or {}
    for shape in res["shapes"]:
        for v in LATCH_VARIANTS:
            key = f"{v}/{shape}"
            base = dict(model="TinyMoE", tokens=shape, variant=f"latch-{v}")
            r = (latch.get("runs") or {}).get(key)
            if r and r.get("ok"):
                row = dict(base, median_ms=r["median_ms"], peak_bytes=r.get("buffers_bytes"),
                           process_peak_bytes=r.get("process_peak_bytes"), updates=r["steps"],
                           updates_note=("latch-run's median of all updates, the first included" +
                                         (f"; {r['steps']} of the {r['target']} asked, to fit the run's time budget"
                                          if r["steps"] < r["target"] else "")),
                           setup_s=r.get("setup_s"), barrier_wait=r.get("barrier_wait"))
                if r["steps"] < 20:
                    row["fewer_updates"] = True
                rows.append(row)
            else:
                reason = (latch.get("missing") or {}).get(key) or (r or {}).get("error") or "not run"
                rows.append(dict(base, median_ms=None, peak_bytes=None, missing=reason))
        torch_rows = {r["variant"]: r for r in ((res.get("torch") or {}).get("rows") or []) if r["tokens"] == shape}
        for v in CONTROLS:
            base = dict(model="TinyMoE", tokens=shape, variant=f"torch-{v}")
            r = torch_rows.get(v)
            if r and "missing" not in r:
                rows.append(dict(base, median_ms=r["median_ms"], peak_bytes=r["peak_bytes"], updates=r["updates"],
                                 updates_note=f"median of {r['updates']} after {r['warmup']} warm-up",
                                 compile_s=r.get("compile_s"), setup_s=r.get("setup_s"), grouped=r.get("grouped")))
            else:
                reason = (r or {}).get("missing") or ("PyTorch was not run" if res.get("torch") is None else "not run")
                rows.append(dict(base, median_ms=None, peak_bytes=None, missing=reason))
    for row in rows:
        floors = FLOORS_MS.get(row["tokens"])
        if floors and row["median_ms"]:
            row["x_floor"] = row["median_ms"] / floors[0]
            row["x_floor_serial"] = row["median_ms"] / floors[1]
        for c in CONTROLS:
            ctl = next((r for r in rows if r["tokens"] == row["tokens"] and r["variant"] == f"torch-{c}"), None)
            if ctl and ctl["median_ms"] and row["median_ms"]:
                row[f"x_{c}"] = row["median_ms"] / ctl["median_ms"]
    return rows


def loss_final(res):
    latch = res.get("latch") or {}
    torch_loss = (res.get("torch") or {}).get("loss") or {}
    key = latch.get("loss_run")
    run = (latch.get("runs") or {}).get(key) if key else None
    out = dict(shape=torch_loss.get("shape"), target_updates=torch_loss.get("updates"), tolerance=LOSS_TOLERANCE)
    if not run or not run.get("losses"):
        out.update(status="MISSING", reason="no Latch loss run (the Latch rows say why)")
        return out
    if not torch_loss.get("losses"):
        out.update(status="MISSING", reason=torch_loss.get("missing") or "no PyTorch eager loss curve")
        return out
    n = min(len(run["losses"]), len(torch_loss["losses"]))
    lt, le = run["losses"][n - 1], torch_loss["losses"][n - 1]
    rel = abs(lt - le) / max(abs(le), 1e-30)
    out.update(updates=n, latch_variant=key.split("/")[0], latch=lt, eager=le, rel_diff=rel,
               latch_first=run["losses"][0], eager_first=torch_loss["losses"][0],
               status="PASS" if rel <= LOSS_TOLERANCE and math.isfinite(lt) else "FAIL")
    if n < (torch_loss.get("updates") or n):
        out["note"] = f"compared after {n} of {torch_loss['updates']} updates: the Latch run fitted only {n} in the budget"
    return out


def table_text(res, rows, lf):
    lines = []
    t = res.get("torch") or {}
    lines.append(f"TinyMoE benchmark, {res['date']}, {res['device']}, driver {res['driver']}"
                 + (f", torch {t.get('torch')}, experts via {t.get('grouped_mm')}" if t else ""))
    lines.append("floors (models.md): " + ", ".join(f"{k}: {a} ms overlapped / {b} ms serial" for k, (a, b) in FLOORS_MS.items()))
    head = ["tokens", "variant", "median", "updates", "x eager", "x graph", "x compile", "x floor (ovl/ser)", "peak mem",
            "build/compile", "note"]
    body = []
    for r in rows:
        if r.get("missing"):
            body.append([r["tokens"], r["variant"], "missing", "-", "-", "-", "-", "-", "-", "-", r["missing"]])
            continue
        build = "-"
        if r.get("compile_s") is not None:
            build = f"{r['compile_s']:.1f} s compile"
        elif r["variant"].startswith("latch"):
            parts = []
            bt = (res.get("build_times") or {}).get(r["tokens"])
            if bt is not None:
                parts.append(f"{bt:.1f} s latch-opt")
            pt = (res.get("ptxas_s") or {}).get(r["tokens"])
            if pt is not None:
                parts.append(f"{pt:.1f} s ptxas")
            if r.get("setup_s") is not None:
                parts.append(f"{r['setup_s']:.1f} s start")
            build = ", ".join(parts) or "-"
        note = r.get("updates_note", "")
        if r.get("fewer_updates"):
            note = "FEWER UPDATES: " + note
        if r.get("barrier_wait") is not None:
            note += f"; barrier wait {100 * r['barrier_wait']:.0f}%"
        floor = "-" if r.get("x_floor") is None else f"{fmt_x(r['x_floor'])} / {fmt_x(r['x_floor_serial'])}"
        body.append([r["tokens"], r["variant"], fmt_ms(r["median_ms"]), str(r.get("updates", "-")),
                     fmt_x(r.get("x_eager")), fmt_x(r.get("x_graph")), fmt_x(r.get("x_compile")),
                     floor, fmt_bytes(r.get("peak_bytes")), build, note])
    widths = [max(len(h), *(len(b[i]) for b in body)) if i < len(head) - 1 else 0 for i, h in enumerate(head)]
    lines.append("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    lines.append("|" + "|".join("-" * (w + 2) for w in widths[:-1]) + "|---|")
    for b in body:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(b, widths)) + " |")
    lines.append("peak mem: PyTorch torch.cuda.max_memory_allocated per control; Latch the device buffers it "
                 "allocates (arena + arguments, from the manifest); neither counts the CUDA context.")
    if lf.get("status") == "MISSING":
        lines.append(f"loss: MISSING ({lf.get('reason')})")
    else:
        lines.append(f"loss after {lf['updates']} updates at {lf['shape']} from the same start and data: Latch "
                     f"({lf['latch_variant']}) {lf['latch']:.4f}, PyTorch eager {lf['eager']:.4f}, difference "
                     f"{100 * lf['rel_diff']:.2f}% (gate {100 * LOSS_TOLERANCE:.0f}%): {lf['status']}"
                     + (f" ({lf['note']})" if lf.get("note") else ""))
    ic = res.get("init_check")
    if ic:
        lines.append(f"init rule check: {ic['tensors'] - len(ic['mismatched'])} of {ic['tensors']} parameter tensors "
                     f"bit-identical (first {ic['elements_each']} elements) between bench/latch_init.py and latch-run"
                     + (f"; MISMATCHED: {', '.join(ic['mismatched'])}" if ic["mismatched"] else ""))
    for n in res.get("notes") or []:
        lines.append("note: " + n)
    return "\n".join(lines) + "\n"


def results_json(res, rows, lf):
    return dict(date=res["date"], device=res["device"], driver=res["driver"],
                torch=(res.get("torch") or {}).get("torch"), grouped_mm=(res.get("torch") or {}).get("grouped_mm"),
                floors_ms={k: dict(overlapped=a, serial=b) for k, (a, b) in FLOORS_MS.items()},
                data=res.get("data"), rows=rows, loss_final=lf, init_check=res.get("init_check"),
                plan=(res.get("latch") or {}).get("plan"), notes=res.get("notes") or [], loss_curves=loss_curves(res),
                build_times=res.get("build_times"), ptxas_s=res.get("ptxas_s"), elapsed_s=res.get("elapsed_s"))


def loss_curves(res):
    """{"latch": [...], "latch_variant", "eager": [...]} of the run (empty lists when absent)."""
    latch = res.get("latch") or {}
    key = latch.get("loss_run") or ""
    run = (latch.get("runs") or {}).get(key) or {}
    return dict(latch=run.get("losses") or [], latch_variant=key.split("/")[0] if key else None,
                eager=((res.get("torch") or {}).get("loss") or {}).get("losses") or [])


def plot_losses(curves, lf, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tl, ll = curves.get("eager") or [], curves.get("latch") or []
    if not ll and not tl:
        return False
    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    if tl:
        ax.plot(range(1, len(tl) + 1), tl, label="PyTorch eager", lw=1.5)
    if ll:
        ax.plot(range(1, len(ll) + 1), ll, label=f"Latch ({curves.get('latch_variant')})", lw=1.5, ls="--")
    ax.set_xlabel("update")
    ax.set_ylabel("loss (mean cross-entropy)")
    title = f"TinyMoE {lf.get('shape')}, same start and data"
    if lf.get("status") in ("PASS", "FAIL"):
        title += f": final {100 * lf['rel_diff']:.2f}% apart ({lf['status']})"
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def timeline_tracks(events):
    """The rows of the timeline from latch-run's trace JSON: {tid: row} in the order of the tracks'
    thread_sort_index (else by tid), and what a row is: "SM" when every track is named "SM s" (latch-run
    writes tid = SM when each CTA had an SM of its own), else "CTA" (tid = CTA)."""
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    order = {e["tid"]: e["args"]["sort_index"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_sort_index"}
    tids = sorted({e["tid"] for e in events if e.get("ph") == "X"} | set(names),
                  key=lambda t: (order.get(t, t), t))
    unit = "SM" if tids and all(re.fullmatch(r"SM \d+", names.get(t, "")) for t in tids) else "CTA"
    return {t: row for row, t in enumerate(tids)}, unit


def plot_timeline(trace_path, path, title):
    """One row per SM (latch-run's tracks when every CTA had an SM of its own, as for TinyMoE's one CTA
    per SM), else one per CTA: work intervals coloured by kind, barrier waits grey. The title gets
    ": one row per SM" or ": one row per CTA"."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    events = json.load(open(trace_path))["traceEvents"]
    work = [e for e in events if e.get("ph") == "X" and e.get("cat") == "work"]
    wait = [e for e in events if e.get("ph") == "X" and e.get("cat") == "wait"]
    if not work:
        return False
    row_of, unit = timeline_tracks(events)
    sorted_by_sm = unit == "CTA" and any(
        e["args"]["name"].startswith("SM ") for e in events if e.get("ph") == "M" and e.get("name") == "thread_name")
    kind = lambda name: name.split(".", 1)[1].split("+")[0] if "." in name else name  # noqa: E731
    totals = {}
    for e in work:
        totals[kind(e["name"])] = totals.get(kind(e["name"]), 0.0) + e["dur"]
    top = sorted(totals, key=totals.get, reverse=True)[:11]
    cmap = plt.get_cmap("tab20")
    colours = {k: cmap(i % 20) for i, k in enumerate(top)}
    other = (0.55, 0.35, 0.2, 1.0)
    rows = len(row_of)
    fig, ax = plt.subplots(figsize=(12, max(3.0, min(9.0, rows * 0.05))), dpi=120)
    grey = (0.85, 0.85, 0.85, 1.0)
    spans = {}  # (colour, row) -> [(start ms, duration ms)]: one pass over the events
    for e in work:
        spans.setdefault((colours.get(kind(e["name"]), other), row_of[e["tid"]]), []).append((e["ts"] / 1e3, e["dur"] / 1e3))
    for e in wait:
        spans.setdefault((grey, row_of[e["tid"]]), []).append((e["ts"] / 1e3, e["dur"] / 1e3))
    for (c, row), xs in spans.items():
        ax.broken_barh(xs, (row - 0.4, 0.8), facecolors=c, linewidth=0)
    ax.set_xlabel("ms since the first interval began")
    ax.set_ylabel("SM" if unit == "SM" else "CTA (sorted by SM)" if sorted_by_sm else "CTA")
    ax.set_ylim(-1, rows)
    tid_at = sorted(row_of, key=row_of.get)  # the ticks name the SM (CTA), not the row
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: str(tid_at[int(y)]) if 0 <= y < rows and y == int(y) else ""))
    ax.invert_yaxis()
    ax.set_title(f"{title}: one row per {unit}", fontsize=10)
    handles = [Patch(color=colours[k], label=k) for k in top] + [Patch(color=(0.85, 0.85, 0.85), label="barrier wait")]
    if len(totals) > len(top):
        handles.append(Patch(color=other, label="other kinds"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def device_tag(device):
    """The results files' device part: h100 or h200 from the device's name (the lent H200 machine may
    be an H100), else the name's first word after NVIDIA."""
    for tag in ("H200", "H100"):
        if tag in device:
            return tag.lower()
    words = device.replace("NVIDIA", "").split()
    return words[0].lower() if words else "gpu"


def report(res, out_dir, root=None):
    """Writes the table, the JSON and the pictures under out_dir (repository paths); returns the exit
    status (0, or 1 when the loss comparison failed)."""
    rows = build_rows(res)
    lf = loss_final(res)
    text = table_text(res, rows, lf)
    print("\n" + text, flush=True)
    stem = f"{res['date']}-{device_tag(res['device'])}"
    results = os.path.join(out_dir, "bench", "results")
    img = os.path.join(out_dir, "docs", "img")
    os.makedirs(results, exist_ok=True)
    os.makedirs(img, exist_ok=True)
    doc = results_json(res, rows, lf)
    pictures = {}
    try:
        if plot_losses(doc["loss_curves"], lf, os.path.join(img, f"bench-{res['date']}-loss.png")):
            pictures["loss"] = f"docs/img/bench-{res['date']}-loss.png"
        trace = (res.get("latch") or {}).get("trace")
        if trace and os.path.exists(trace):
            title = f"Latch persistent kernel, last update of the {res['shapes'][0]} run"
            if plot_timeline(trace, os.path.join(img, f"bench-{res['date']}-timeline.png"), title):
                pictures["timeline"] = f"docs/img/bench-{res['date']}-timeline.png"
    except ImportError as e:
        doc["notes"].append(f"no pictures: {e}")
    doc["pictures"] = pictures
    for d in [results] + ([os.path.join(root, "bench", "results")] if root else []):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, stem + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
        with open(os.path.join(d, stem + ".txt"), "w") as f:
            f.write(text)
    log(f"bench: wrote {os.path.join(results, stem + '.json')}" + "".join(f", {p}" for p in pictures.values()))
    return 1 if lf.get("status") == "FAIL" else 0


# ---------------------------------------------------------------------------------------------------------
# Fake numbers (testing the report without a GPU)

def fake(work):
    rng = np.random.default_rng(0)
    losses = list(9.0 * np.exp(-np.arange(200) / 150) + 1.4)
    trace = os.path.join(work, "fake-trace.json")
    ev, names = [], ["i0.embedding", "i1.matmul+2", "i2.attention", "i3.attention_grad", "i4.adamw"]
    for cta in range(8):
        t = 0.0
        for name in names:
            d = float(rng.uniform(50, 200))
            ev.append(dict(name=name, cat="work", ph="X", pid=0, tid=cta, ts=t, dur=d))
            ev.append(dict(name="barrier", cat="wait", ph="X", pid=0, tid=cta, ts=t + d, dur=250 - d))
            t += 250
    json.dump({"traceEvents": ev}, open(trace, "w"))
    run = lambda ms, steps, target, l=None: dict(ok=True, median_ms=ms, min_ms=ms * .98, max_ms=ms * 1.1, steps=steps,  # noqa: E731
                                                 target=target, losses=l or [], setup_s=6.5, buffers_bytes=3 * 2**30,
                                                 barrier_wait=0.42)
    torch_rows = []
    for shape, base in (("2x1024", 14.2), ("32x1024", 33.9)):
        torch_rows.append(dict(tokens=shape, variant="eager", median_ms=base, peak_bytes=int(4.1 * 2**30), updates=20, warmup=5))
        torch_rows.append(dict(tokens=shape, variant="graph", median_ms=base / 3, peak_bytes=int(4.5 * 2**30), updates=20, warmup=5))
    torch_rows.append(dict(tokens="2x1024", variant="compile", median_ms=8.55, peak_bytes=2**32, updates=20, warmup=5, compile_s=61.0))
    torch_rows.append(dict(tokens="32x1024", variant="compile", missing="TimeoutExpired"))
    return dict(date="2000-01-01", device="NVIDIA H200 (fake)", driver="000.00", shapes=["2x1024", "32x1024"],
                build_times={"2x1024": 7.7, "32x1024": 8.1}, ptxas_s={"2x1024": 21.5},
                data=dict(kind="markov", successors=4, length=1 << 20, seed=1),
                init_check=dict(tensors=39, elements_each=4096, mismatched=[]),
                torch=dict(torch="2.11 (fake)", grouped_mm="grouped_mm", rows=torch_rows,
                           loss=dict(shape="2x1024", updates=200, variant="eager", losses=losses)),
                latch=dict(runs={"persistent/2x1024": run(2256.0, 150, 200, [x * 1.005 for x in losses[:150]]),
                                 "persistent/32x1024": run(48100.0, 2, 21)},
                           missing={"staged/2x1024": "this latch-run has no --mode=staged",
                                    "staged/32x1024": "this latch-run has no --mode=staged"},
                           loss_run="persistent/2x1024", trace=trace,
                           plan={"persistent/2x1024": dict(updates=150, target=200, est_s=2.256)}),
                notes=["fake numbers: a test of the report only"], elapsed_s=1.0)


def replot(path, out_dir):
    doc = json.load(open(path))
    img = os.path.join(out_dir, "docs", "img")
    os.makedirs(img, exist_ok=True)
    made = []
    if plot_losses(doc.get("loss_curves") or {}, doc.get("loss_final") or {}, os.path.join(img, f"bench-{doc['date']}-loss.png")):
        made.append(f"docs/img/bench-{doc['date']}-loss.png")
    trace = path[:-len(".json")] + "-trace.json"
    if os.path.exists(trace):
        title = "Latch persistent kernel, last update of the 2x1024 run"
        if plot_timeline(trace, os.path.join(img, f"bench-{doc['date']}-timeline.png"), title):
            made.append(f"docs/img/bench-{doc['date']}-timeline.png")
    log("bench: drew " + (", ".join(made) or "nothing (no loss curves, no trace)"))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT") or "bench-out")
    ap.add_argument("--root", default=os.getcwd(), help="the bundle's root (default: the current directory)")
    ap.add_argument("--budget-s", type=float, default=540.0, help="wall-time budget of the whole run")
    ap.add_argument("--torch-budget-s", type=float, default=240.0, help="at most this for the PyTorch controls")
    ap.add_argument("--shapes", default="2x1024,32x1024")
    ap.add_argument("--updates", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--loss-updates", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--skip-latch", action="store_true")
    ap.add_argument("--fake", action="store_true", help="report made-up numbers (tests the report; no GPU)")
    ap.add_argument("--plot", metavar="RESULTS.json",
                    help="only draw the pictures of a results file (and of RESULTS-trace.json beside it) under --out "
                         "(for when the GPU machine has no matplotlib)")
    args = ap.parse_args(argv)
    if args.plot:
        return replot(args.plot, os.path.abspath(args.out))
    if args.updates < 20:
        ap.error("--updates must be at least 20 (the benchmark's median)")
    for s in args.shapes.split(","):
        if not re.fullmatch(r"\d+x\d+", s):
            ap.error(f"--shapes: '{s}' is not BxT")
    root = os.path.abspath(args.root)
    out = os.path.abspath(args.out)
    work = os.path.join(out, "work") if args.fake else os.path.join(root, "bench-work")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    if args.fake:
        return report(fake(work), out)
    res = collect(args, root, work)
    res["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    bt = os.path.join(HERE, "build-times.json")
    if os.path.exists(bt):
        res["build_times"] = json.load(open(bt))
    res["ptxas_s"] = ptxas_times(root, res.get("shapes") or [])
    status = report(res, out, root)
    trace = (res.get("latch") or {}).get("trace")
    if trace and os.path.exists(trace):  # the raw trace too (for Perfetto), small enough at 2x1024
        os.makedirs(os.path.join(out, "bench", "results"), exist_ok=True)
        shutil.copy(trace, os.path.join(out, "bench", "results", f"{res['date']}-{device_tag(res['device'])}-trace.json"))
    return status


if __name__ == "__main__":
    sys.exit(main())
