#!/usr/bin/env python3
"""test_bench.py - the parts of the benchmark that need no GPU and no torch, on the build machine:

  - bench/latch_init.py against `latch-interp --init` (f32 and bf16 parameters, several stds, "ones"),
    bit for bit, and against `latch-run --dry-run --init --dump-dir` on the bundle's small TinyMoE;
  - tinymoe_torch.data_window against the tokens/targets `latch-run --dry-run --data` gives update 3;
  - tinymoe_torch.param_specs against the bundle's TinyMoE 2x1024 manifest (names, shapes, count);
  - bench.plan_counts, and bench.py --fake (the table, JSON and pictures from made-up numbers);
  - bench.timeline_tracks (the timeline's rows) on the synthetic traces of latch-runtime-test;
  - bench/compare_traces.py on two made-up traces (spans, SM sharing, first tiles);
  - tinymoe_torch.py's argument errors (they come before torch is imported);
  - bench/chain.sh on two bundles, with the runtime tests' fake CUDA driver (and a fatbin in place of PTX);
  - bench/code_sizes.py on a program compiled here (latch-opt, ptxas).

    python3 bench/test_bench.py [BUILD_DIR]     (default build; needs numpy, and matplotlib for pictures)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402
import latch_init  # noqa: E402
import tinymoe_torch  # noqa: E402

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build"))
failures = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  ({detail})" if detail else ""), flush=True)
    if not ok:
        failures.append(name)


INIT_MLIR = """func.func @f(
    %a: tensor<64x48xf32> {task.param, task.name = "a", task.init_std = 0.02 : f64},
    %b: tensor<300xbf16> {task.param, task.name = "b", task.init_std = 1.0 : f64},
    %c: tensor<8xf32> {task.param, task.name = "c", task.init = "ones"},
    %d: tensor<4x16x8xf32> {task.param, task.name = "d", task.init_std = 0.7 : f64})
    -> (tensor<3072xf32>, tensor<300xbf16>, tensor<8xf32>, tensor<512xf32>) {
  %ra = "task.reshape"(%a) : (tensor<64x48xf32>) -> tensor<3072xf32>
  %rb = "task.reshape"(%b) : (tensor<300xbf16>) -> tensor<300xbf16>
  %rc = "task.reshape"(%c) : (tensor<8xf32>) -> tensor<8xf32>
  %rd = "task.reshape"(%d) : (tensor<4x16x8xf32>) -> tensor<512xf32>
  return %ra, %rb, %rc, %rd : tensor<3072xf32>, tensor<300xbf16>, tensor<8xf32>, tensor<512xf32>
}
"""
INIT_ARGS = [dict(name="a", role="param", shape=[64, 48], dtype="f32", init="normal", init_std=0.02),
             dict(name="b", role="param", shape=[300], dtype="bf16", init="normal", init_std=1.0),
             dict(name="c", role="param", shape=[8], dtype="f32", init="ones"),
             dict(name="d", role="param", shape=[4, 16, 8], dtype="f32", init="normal", init_std=0.7)]


def test_init_vs_interp(tmp):
    interp = os.path.join(BUILD, "latch-interp")
    if not os.path.exists(interp):
        check("init rule vs latch-interp --init", False, f"{interp} not built")
        return
    src = os.path.join(tmp, "init.mlir")
    open(src, "w").write(INIT_MLIR)
    for seed in (1, 7, 2**63 + 5):
        out = os.path.join(tmp, f"interp-{seed}")
        r = subprocess.run([interp, src, "--entry", "f", "--init", str(seed), "--output-dir", out],
                           capture_output=True, text=True)
        if r.returncode:
            check(f"init rule vs latch-interp --init {seed}", False, r.stderr.strip()[:200])
            continue
        mine = latch_init.params({"args": INIT_ARGS}, seed)
        same = all(np.array_equal(np.load(os.path.join(out, f"result{k}.npy")).ravel(),
                                  mine[a["name"]].astype(np.float64).ravel()) for k, a in enumerate(INIT_ARGS))
        check(f"init rule vs latch-interp --init {seed} (f32 std 0.02/0.7, bf16 std 1, ones)", same)


def test_init_and_data_vs_latch_run(tmp):
    run = os.path.join(BUILD, "latch-run")
    pdir = os.path.join(BUILD, "gpu-bundle", "programs", "tinymoe-small")
    man = os.path.join(pdir, "host.manifest.json")
    host_ptx = os.path.join(BUILD, "gpu-bundle", "fixtures", "host-only.ptx")
    if not (os.path.exists(run) and os.path.exists(man) and os.path.exists(host_ptx)):
        check("init rule and data windows vs latch-run --dry-run", False, "latch-run or the bundle is not built")
        return
    stream = np.arange(1000, dtype=np.int32) * 7 % 32
    data = os.path.join(tmp, "stream.npy")
    np.save(data, stream)
    out = os.path.join(tmp, "dry")
    r = subprocess.run([run, host_ptx, "--manifest", man, "--dry-run", "--steps", "3", "--init", "3", "--data", data,
                        "--dump-dir", out], capture_output=True, text=True)
    if r.returncode:
        check("latch-run --dry-run", False, r.stderr.strip()[:200])
        return
    manifest = json.load(open(man))
    mine = latch_init.params(manifest, 3)
    same = all(np.array_equal(np.load(os.path.join(out, n + ".npy")).view(np.uint32), v.view(np.uint32))
               for n, v in mine.items())
    check(f"init rule vs latch-run --dry-run --init 3 (tinymoe-small, {len(mine)} tensors)", same)
    tok = np.load(os.path.join(out, "tokens.npy"))
    tgt = np.load(os.path.join(out, "targets.npy"))
    n = tok.size
    ok = (np.array_equal(tok.ravel(), tinymoe_torch.data_window(stream, 3, n, 0)) and
          np.array_equal(tgt.ravel(), tinymoe_torch.data_window(stream, 3, n, 1)))
    check("data_window(update 3) vs latch-run --dry-run --steps 3 --data", ok, f"{tok.shape} tokens")
    small = tinymoe_torch.data_window(np.arange(10), 4, 4, 1)  # o = 12 % 10 = 2 -> 3, 4, 5, 6
    check("data_window wraps like latch_host_data_window", list(small) == [3, 4, 5, 6], str(list(small)))


def test_specs():
    specs = tinymoe_torch.param_specs()
    count = sum(int(np.prod(s)) for _, s, _ in specs)
    check("param_specs count is models.md's 62,935,552", count == tinymoe_torch.PARAM_COUNT, f"{count:,}")
    man = os.path.join(BUILD, "gpu-bundle", "programs", "tinymoe-2x1024", "host.manifest.json")
    if os.path.exists(man):
        params = [(a["name"], a["shape"], a.get("init", "normal")) for a in json.load(open(man))["args"] if a["role"] == "param"]
        check("param_specs match the bundle's TinyMoE 2x1024 manifest", params == [tuple(s) for s in specs])


def test_plan():
    est = {"a": 2.0, "b": 40.0}
    plan = bench.plan_counts(300, est, {"a": 200, "b": 21}, {"a": 21, "b": 2}, ["a", "b"])
    # a: 20 + 42 = 62, b: 20 + 80 = 100 -> 138 left -> a gets 69 more (138 / 2)
    check("plan_counts: minimums first, then the first run up to its target", plan == {"a": 90, "b": 2}, str(plan))
    plan = bench.plan_counts(70, est, {"a": 200, "b": 21}, {"a": 21, "b": 2}, ["a", "b"])
    # a: 62 fits (8 left), b: 100 does not -> dropped; a gets 4 more
    check("plan_counts: a run whose minimum does not fit is dropped", plan == {"a": 25, "b": 0}, str(plan))
    # with the probes' start-up of 4 s instead of 20: a: 4 + 42 = 46 fits, b: 4 + 80 = 84 does not (24 left)
    plan = bench.plan_counts(70, est, {"a": 200, "b": 21}, {"a": 21, "b": 2}, ["a", "b"], setup_s=4.0)
    check("plan_counts: the measured start-up is what a run costs", plan == {"a": 33, "b": 0}, str(plan))
    plan = bench.plan_counts(140, est, {"a": 200, "b": 21}, {"a": 21, "b": 2}, ["a", "b"], setup_s=4.0)
    check("plan_counts: a shorter start-up lets the second run in", plan == {"a": 26, "b": 2}, str(plan))
    check("probe_setup_s: 1.5 x the slowest probe's start-up + 2 s", bench.probe_setup_s([2.0, 3.0]) == 6.5)
    check("probe_setup_s: no probe, the assumed start-up", bench.probe_setup_s([]) == bench.SETUP_S)
    check("probe_setup_s: never above the assumed start-up", bench.probe_setup_s([30.0]) == bench.SETUP_S)


def test_fake_report(tmp):
    out = os.path.join(tmp, "fake")
    r = subprocess.run([sys.executable, os.path.join(HERE, "bench.py"), "--fake", "--out", out],
                       capture_output=True, text=True)
    check("bench.py --fake exits 0", r.returncode == 0, r.stderr.strip()[-300:])
    path = os.path.join(out, "bench", "results", "2000-01-01-h200.json")
    if not os.path.exists(path):
        check("bench.py --fake writes the JSON", False)
        return
    doc = json.load(open(path))
    keys = {"date", "device", "driver", "rows", "loss_final"}
    check("JSON has date, device, driver, rows, loss_final", keys <= set(doc))
    row_keys = {"model", "tokens", "variant", "median_ms", "peak_bytes"}
    check("every row has model, tokens, variant, median_ms, peak_bytes", all(row_keys <= set(x) for x in doc["rows"]))
    variants = {x["variant"] for x in doc["rows"]}
    check("rows of every variant", variants == {"latch-persistent", "latch-staged", "torch-eager", "torch-graph",
                                               "torch-compile"}, str(sorted(variants)))
    staged = [x for x in doc["rows"] if x["variant"] == "latch-staged"]
    check("a missing row keeps its reason", all(x.get("missing") for x in staged))
    lp = next(x for x in doc["rows"] if x["variant"] == "latch-persistent" and x["tokens"] == "2x1024")
    check("ratios: latch 2256 ms / eager 14.2 ms", abs(lp["x_eager"] - 2256 / 14.2) < 1e-9 and
          abs(lp["x_floor"] - 2256 / 0.4) < 1e-9)
    big = next(x for x in doc["rows"] if x["variant"] == "latch-persistent" and x["tokens"] == "32x1024")
    check("fewer updates are said in the row", big.get("fewer_updates") and "2 of the 21" in big["updates_note"])
    lf = doc["loss_final"]
    check("loss_final PASS within 2% (0.5% apart)", lf["status"] == "PASS" and abs(lf["rel_diff"] - 0.005) < 1e-9)
    check("table says PASS and FEWER UPDATES", "PASS" in r.stdout and "FEWER UPDATES" in r.stdout)
    check("the build column gives ptxas beside latch-opt and the start-up",
          "7.7 s latch-opt, 21.5 s ptxas, 6.5 s start" in r.stdout and doc.get("ptxas_s") == {"2x1024": 21.5})
    try:
        import matplotlib  # noqa: F401
        pngs = [os.path.join(out, "docs", "img", f"bench-2000-01-01-{k}.png") for k in ("loss", "timeline")]
        check("pictures written", all(os.path.getsize(p) > 1000 for p in pngs if os.path.exists(p))
              and all(os.path.exists(p) for p in pngs))
    except ImportError:
        print("SKIP  pictures (no matplotlib)")


def test_timeline_tracks(tmp):
    tool = os.path.join(BUILD, "latch-runtime-test")
    if not os.path.exists(tool):
        print("SKIP  timeline_tracks (no latch-runtime-test: the build found no cuda.h)")
        return
    # latch-runtime-test's synthetic traces (test/lit/runtime/trace.test): "sm" puts CTA 0 on SM 5 and
    # CTA 1 on SM 2, "partial" CTA 1 on SM 7 and CTA 0 nowhere, "good" records no SM.
    want = {"sm": ({2: 0, 5: 1}, "SM"), "partial": ({1: 0, 0: 1}, "CTA"), "good": ({0: 0, 1: 1}, "CTA")}
    for kind, expected in want.items():
        path = os.path.join(tmp, f"trace-{kind}.json")
        r = subprocess.run([tool, "trace", kind, path], capture_output=True, text=True)
        got = bench.timeline_tracks(json.load(open(path))["traceEvents"]) if r.returncode == 0 else None
        check(f"timeline_tracks: trace {kind}", got == expected, f"{got} (rc {r.returncode})")
    events = [dict(name="i0.x", cat="work", ph="X", pid=0, tid=t, ts=0.0, dur=1.0) for t in (3, 0, 1)]
    got = bench.timeline_tracks(events)
    check("timeline_tracks: no metadata, rows by tid", got == ({0: 0, 1: 1, 3: 2}, "CTA"), str(got))


def test_compare_traces(tmp):
    """bench/compare_traces.py on two made-up traces of 2 CTAs x 2 intervals."""
    def trace(path, works):  # works[interval] = [(ts, dur) per CTA]
        events = [{"name": f"i{i}.map", "cat": "work", "ph": "X", "pid": 0, "tid": c, "ts": ts, "dur": dur,
                   "args": {"interval": i, "tiles": 4, "cta": c}}
                  for i, per_cta in enumerate(works) for c, (ts, dur) in enumerate(per_cta)]
        json.dump({"traceEvents": events}, open(path, "w"))
    a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    trace(a, [[(0, 10), (0, 6)], [(12, 4), (12, 8)]])  # spans 10 and 8, gap 2, mean work 8 and 6
    trace(b, [[(0, 5), (0, 5)], [(6, 4), (6, 4)]])  # spans 5 and 4, gap 1
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare_traces.py"), a, b], capture_output=True, text=True)
    rows = {line[:24].strip(): line[24:].split() for line in r.stdout.splitlines()[1:6]}
    ok = (r.returncode == 0 and rows.get("sum of spans", [""])[0] == "18.0us" and rows["sum of spans"][1] == "9.0us"
          and rows.get("sum of gaps", [""])[0] == "2.0us" and rows.get("sum of mean CTA work", [""])[0] == "14.0us")
    check("compare_traces.py: sums of spans, gaps and mean work", ok, "" if ok else r.stdout[:300] + r.stderr[:200])
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare_traces.py"), a, b, "--top", "0", "--kinds", "3"],
                       capture_output=True, text=True)
    kinds = [line.split() for line in r.stdout.splitlines() if line.startswith("  map ")]
    ok = r.returncode == 0 and kinds == [["map", "2", "intervals", "span", "18.0", "/", "9.0", "wait", "4.0", "/", "0.0"]]
    check("compare_traces.py --kinds: spans and waits summed by kind", ok, "" if ok else r.stdout[-300:] + r.stderr[:200])
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare_traces.py"), b, a, "--top", "0", "--kinds", "3",
                        "--kinds-by", "span"], capture_output=True, text=True)
    kinds = [line.split() for line in r.stdout.splitlines() if line.startswith("  map ")]
    ok = (r.returncode == 0 and "interval kinds by span B - A" in r.stdout
          and kinds == [["map", "2", "intervals", "span", "9.0", "/", "18.0", "wait", "0.0", "/", "4.0"]])
    check("compare_traces.py --kinds-by span: the kinds whose spans grow most", ok, "" if ok else r.stdout[-300:] + r.stderr[:200])
    trace(b, [[(0, 5), (0, 5)]])
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare_traces.py"), a, b], capture_output=True, text=True)
    check("compare_traces.py: traces of different schedules are refused", r.returncode != 0 and "intervals" in r.stderr)
    # --shared-sms: CTAs 0 and 1 share SM 7 (10 us each), CTA 2 is alone on SM 3 (5 us), CTA 3 has no tile.
    events = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": c, "args": {"name": f"SM {sm} / CTA {c}"}}
              for c, sm in enumerate((7, 7, 3, 4))]
    events += [{"name": "i0.matmul", "cat": "work", "ph": "X", "pid": 0, "tid": c, "ts": 0, "dur": dur,
                "args": {"interval": 0, "tiles": 3, "cta": c}} for c, dur in enumerate((10, 10, 5, 0.3))]
    json.dump({"traceEvents": events}, open(a, "w"))
    json.dump({"traceEvents": events}, open(b, "w"))
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare_traces.py"), a, b, "--shared-sms", "3"],
                       capture_output=True, text=True)
    rows = [line.split() for line in r.stdout.splitlines() if line.startswith("  i0 ")]
    ok = (r.returncode == 0 and len(rows) == 2 and rows[0][2] == "+5.0" and rows[0][3:9] == ["3", "CTAs", "on", "2",
          "SMs,", "1"] and rows[0][-3:] == ["5.0", "/", "10.0"])
    check("compare_traces.py --shared-sms: CTAs sharing an SM against one alone", ok,
          "" if ok else r.stdout[-400:] + r.stderr[:200])
    # --first-tiles: in A each CTA's first matmul tile takes 9 us and its later one 4; in B 5 and 4. The
    # convert's first tiles (2 us) are equal.
    def tile(c, ts, dur, kind, task):
        return {"name": kind, "cat": "tile", "ph": "X", "pid": 0, "tid": c, "ts": ts, "dur": dur,
                "args": {"interval": "i0.matmul", "task": task, "tile": c, "cta": c}}
    def tiles(first):
        return {"traceEvents": [work for c in (0, 1) for work in (
            {"name": "i0.matmul", "cat": "work", "ph": "X", "pid": 0, "tid": c, "ts": 0, "dur": first + 6,
             "args": {"interval": 0, "tiles": 3, "cta": c}},
            tile(c, 0, first, "matmul", 0), tile(c, first, 4, "matmul", 0), tile(c + 2, 0, 2, "convert", 1))]}
    json.dump(tiles(9), open(a, "w"))
    json.dump(tiles(5), open(b, "w"))
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare_traces.py"), a, b, "--top", "0", "--first-tiles", "5"],
                       capture_output=True, text=True)
    rows = [line.split() for line in r.stdout.splitlines() if line.startswith("  i0.matmul ")]
    ok = (r.returncode == 0 and len(rows) == 2 and rows[0][1:4] == ["t0", "matmul", "+8.0"]
          and rows[0][4:10] == ["A", "first", "2", "9.00", "later", "2"] and rows[0][-1] == "4.00"
          and rows[1][1:4] == ["t1", "convert", "+0.0"])
    check("compare_traces.py --first-tiles: first tiles against later ones, A against B", ok,
          "" if ok else r.stdout[-400:] + r.stderr[:200])


def test_busiest_ctas(tmp):
    """bench/busiest_ctas.py on a made-up trace: 2 CTAs x 2 intervals, tile events on interval 0."""
    def work(i, c, ts, dur):
        return {"name": f"i{i}.matmul+1", "cat": "work", "ph": "X", "pid": 0, "tid": c, "ts": ts, "dur": dur,
                "args": {"interval": i, "tiles": 3, "cta": c}}
    def tile(c, ts, dur, kind, task, k):
        return {"name": kind, "cat": "tile", "ph": "X", "pid": 0, "tid": c, "ts": ts, "dur": dur,
                "args": {"interval": "i0.matmul+1", "task": task, "tile": k, "cta": c}}
    events = [work(0, 0, 0, 10), work(0, 1, 0, 30), work(1, 0, 31, 5), work(1, 1, 31, 6),
              tile(0, 0, 10, "matmul", 0, 0), tile(1, 0, 8, "matmul", 0, 1), tile(1, 8, 22, "convert", 1, 0)]
    path = os.path.join(tmp, "tiles.json")
    json.dump({"traceEvents": events}, open(path, "w"))
    script = os.path.join(HERE, "busiest_ctas.py")
    r = subprocess.run([sys.executable, script, path, "--top", "1"], capture_output=True, text=True)
    lines = r.stdout.splitlines()
    ok = (r.returncode == 0 and len(lines) == 3 and "i0.matmul+1: mean CTA work 20.0 us, busiest CTA 1 30.0 us" in lines[0]
          and lines[1].split()[:4] == ["+0.0", "8.0", "us", "matmul"] and lines[2].split()[:4] == ["+8.0", "22.0", "us", "convert"])
    check("busiest_ctas.py: the busiest CTA's tiles of the most uneven interval", ok, r.stdout[:300] + r.stderr[:200])
    r = subprocess.run([sys.executable, script, path, "i1"], capture_output=True, text=True)
    check("busiest_ctas.py: an interval without tile records says so", r.returncode == 0 and "no tile records" in r.stdout)
    r = subprocess.run([sys.executable, script, path, "i7"], capture_output=True, text=True)
    check("busiest_ctas.py: an unknown interval is refused", r.returncode != 0 and "i7" in r.stderr)


def test_chain(tmp):
    """bench/chain.sh on two bundles of the same TinyMoE 2x1024 program, with the fake CUDA driver of the
    runtime tests: the pair's bits compared (every dump identical) and one A/B line named by the pair."""
    bundle = os.path.join(BUILD, "gpu-bundle")
    for name in ("one", "two"):
        os.makedirs(os.path.join(tmp, "chain", name, "bin"))
        os.symlink(os.path.join(bundle, "programs"), os.path.join(tmp, "chain", name, "programs"))
        os.symlink(os.path.join(BUILD, "latch-run"), os.path.join(tmp, "chain", name, "bin", "latch-run"))
        os.symlink(os.path.join(bundle, "build-latch-run.sh"), os.path.join(tmp, "chain", name, "build-latch-run.sh"))
    os.makedirs(os.path.join(tmp, "chain", "bench"))
    for script in ("chain.sh", "ab.sh"):
        os.symlink(os.path.join(HERE, script), os.path.join(tmp, "chain", "bench", script))
    env = dict(os.environ, LATCH_CUDA_DRIVER=os.path.join(BUILD, "libfakecuda.so"))
    r = subprocess.run(["bash", "bench/chain.sh", "-s", "2x1024:1", "one", "two"], cwd=os.path.join(tmp, "chain"),
                       env=env, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    bits = [line for line in lines if line.startswith("one -> two: ") and line.endswith(" identical, 0 differ")]
    ok = r.returncode == 0 and len(bits) == 1 and int(bits[0].split()[3]) > 0
    check("chain.sh: the pair's bits compared", ok, "" if ok else r.stdout + r.stderr)
    ok = sum(line.startswith("one -> two: programs/tinymoe-2x1024/prog.ptx") and "new/base 1.000" in line
             for line in lines) == 1
    check("chain.sh: one A/B line per pair", ok, "" if ok else r.stdout + r.stderr)
    # BUNDLE:VARIANT names programs/tinymoe-SHAPE-VARIANT, bench/variant.sh's layout: two variants of one bundle.
    variants = os.path.join(tmp, "chain", "three")
    os.makedirs(os.path.join(variants, "programs"))
    os.symlink(os.path.join(tmp, "chain", "one", "bin"), os.path.join(variants, "bin"))
    os.symlink(os.path.join(bundle, "build-latch-run.sh"), os.path.join(variants, "build-latch-run.sh"))
    for name in ("base", "red"):
        os.symlink(os.path.join(bundle, "programs", "tinymoe-2x1024"),
                   os.path.join(variants, "programs", "tinymoe-2x1024-" + name))
    r = subprocess.run(["bash", "bench/chain.sh", "-s", "2x1024:1", "three:base", "three:red"],
                       cwd=os.path.join(tmp, "chain"), env=env, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    ok = r.returncode == 0 and any(line.startswith("three:base -> three:red: ") and line.endswith(" identical, 0 differ")
                                   for line in lines)
    check("chain.sh: two variants of one bundle, bits compared", ok, "" if ok else r.stdout + r.stderr)
    ab = "three:base -> three:red: programs/tinymoe-2x1024-base/prog.ptx=programs/tinymoe-2x1024-red/prog.ptx"
    ok = sum(line.startswith(ab) and "new/base 1.000" in line for line in lines) == 1
    check("chain.sh: two variants of one bundle, one A/B line", ok, "" if ok else r.stdout + r.stderr)
    # A prog.fatbin beside a program (bench/fatbin.sh) is run instead of its PTX, with its own manifest (here
    # the PTX text under the fatbin's name: the fake driver loads only text, latch-run takes either).
    fat = os.path.join(tmp, "chain", "four")
    os.makedirs(os.path.join(fat, "programs", "tinymoe-2x1024"))
    os.symlink(os.path.join(tmp, "chain", "one", "bin"), os.path.join(fat, "bin"))
    os.symlink(os.path.join(bundle, "build-latch-run.sh"), os.path.join(fat, "build-latch-run.sh"))
    source = os.path.join(bundle, "programs", "tinymoe-2x1024", "prog.ptx")
    for suffix in ("", ".manifest.json"):
        shutil.copy(source + suffix, os.path.join(fat, "programs", "tinymoe-2x1024", "prog.fatbin" + suffix))
    r = subprocess.run(["bash", "bench/chain.sh", "-s", "2x1024:1", "one", "four"], cwd=os.path.join(tmp, "chain"),
                       env=env, capture_output=True, text=True)
    ab = "one -> four: programs/tinymoe-2x1024/prog.ptx=programs/tinymoe-2x1024/prog.fatbin"
    ok = r.returncode == 0 and sum(line.startswith(ab) and "new/base 1.000" in line for line in r.stdout.splitlines()) == 1
    check("chain.sh: a bundle's prog.fatbin runs in place of its PTX", ok, "" if ok else r.stdout + r.stderr)
    r = subprocess.run(["bash", "bench/chain.sh", "one"], cwd=os.path.join(tmp, "chain"), env=env,
                       capture_output=True, text=True)
    check("chain.sh: a single bundle is refused", r.returncode == 2 and "two bundles" in r.stderr)


def test_code_sizes(tmp):
    """bench/code_sizes.py on a program of two intervals compiled here (latch-opt, then ptxas for sm_90a): each
    interval's task body found in the cubin's symbol table, with its bytes."""
    source = os.path.join(HERE, "..", "test", "gpu", "programs", "scatter-add-rows-wide.mlir")
    ptx = os.path.join(tmp, "code.ptx")
    r = subprocess.run([os.path.join(BUILD, "latch-opt"), source, "--emit=ptx", "-o", ptx, "--pass-pipeline=builtin.module("
                        "latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-lower-tasks,latch-lower-intervals)"],
                       capture_output=True, text=True)
    check("code_sizes.py: the program compiles", r.returncode == 0, r.stderr)
    script = os.path.join(HERE, "code_sizes.py")
    r = subprocess.run([sys.executable, script, ptx], capture_output=True, text=True)
    row = [line.split() for line in r.stdout.splitlines() if line.strip().startswith("i0.scatter_add_rows")]
    ok = r.returncode == 0 and len(row) == 1 and row[0][1:3] == ["38", "1"] and float(row[0][3]) > 0 and \
        row[0][4].startswith("task_body_")  # 300 rows in tiles of 8
    check("code_sizes.py: the scatter's interval, its one body and its SASS bytes", ok, "" if ok else r.stdout + r.stderr)
    r = subprocess.run([sys.executable, script, ptx, "--apart-over", "1"], capture_output=True, text=True)
    ok = r.returncode == 0 and r.stdout.splitlines()[-1] == "latch-lower-intervals{apart-intervals=0}"
    check("code_sizes.py --apart-over: the interval with that much code, as the option", ok,
          "" if ok else r.stdout + r.stderr)
    r = subprocess.run([sys.executable, script, ptx, "--apart-over", "1", "--round-robin-below", "38"],
                       capture_output=True, text=True)
    ok = r.returncode == 0 and r.stdout.splitlines()[-1].startswith("0 round-robin intervals")
    check("code_sizes.py --apart-over: none of a counted interval (38 tiles, counted from 38)", ok,
          "" if ok else r.stdout + r.stderr)
    r = subprocess.run([sys.executable, script, ptx, "--kernel", "no_such_kernel"], capture_output=True, text=True)
    check("code_sizes.py: an unknown kernel is refused", r.returncode != 0 and "no_such_kernel" in r.stderr)


def test_torch_args():
    script = os.path.join(HERE, "tinymoe_torch.py")
    r = subprocess.run([sys.executable, script, "--init", "1", "--data", "x.npy", "--json", "o.json"],
                       capture_output=True, text=True)
    check("tinymoe_torch.py: --init without --manifest is refused", r.returncode == 2 and "--manifest" in r.stderr)
    r = subprocess.run([sys.executable, script, "--params", "d", "--data", "x.npy", "--json", "o.json",
                        "--variants", "eager,fast"], capture_output=True, text=True)
    check("tinymoe_torch.py: an unknown variant is refused", r.returncode == 2 and "fast" in r.stderr)
    r = subprocess.run([sys.executable, os.path.join(HERE, "bench.py"), "--updates", "5"], capture_output=True, text=True)
    check("bench.py: fewer than 20 timed updates is refused", r.returncode == 2)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_init_vs_interp(tmp)
        test_init_and_data_vs_latch_run(tmp)
        test_specs()
        test_plan()
        test_fake_report(tmp)
        test_timeline_tracks(tmp)
        test_compare_traces(tmp)
        test_busiest_ctas(tmp)
        test_torch_args()
        test_chain(tmp)
        test_code_sizes(tmp)
    print(f"\n{len(failures)} failed" + (": " + ", ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
