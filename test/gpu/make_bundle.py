#!/usr/bin/env python3
"""make_bundle.py - builds build/gpu-bundle/ (`make gpu-bundle`): everything the GPU checks need on a
machine that has gcc, the CUDA driver and python3 (numpy; torch for the TinyMoE gradient reference) but
no LLVM or MLIR. Runs on the build machine with the standard library only.

For every program of test/gpu/programs.txt it writes programs/<name>/:
  source.mlir            the program as written (or from latch-gen): what latch-opt compiles
  program.json           what the checks need: entry, run arguments, checks, gates' precision, the names
                         of the carried arguments (results 1.. of an update), beta1, model options
  program.mlir           the task program that latch-interp ran (after latch-train for `train`)
  host.manifest.json     a manifest made from the entry's signature (arguments only), so that
                         `latch-run --dry-run` can write the exact inputs of a program that does not
                         compile yet (the torch reference check uses it)
  prog.ptx, prog.ptx.manifest.json   from `latch-opt --emit=ptx` (absent when it does not compile yet)
  inputs/                the .npy files of the run arguments
  expected/              latch-interp references: fp64/result<R>.npy of one update (compare, grad),
                         losses-{fp32,bf16,fp64}.txt of 100 updates (loss100)
A program that does not compile is listed in skipped.txt with the first lines of latch-opt's message.

Programs too large for latch-interp at bundle time (above INTERP_MAX_PARAMS) can still have a loss100
reference: test/gpu/references/<name>/losses-fp32.txt, written by `make_bundle.py --build BUILD
--write-reference NAME` (latch-interp --emulate=fp32 --train-steps 100, about an hour for TinyMoE 2x512
on 2 cores) together with program.sha256: the hash of the program.mlir it ran and the run arguments. The
bundle copies it into expected/ only while both are unchanged; otherwise the loss100 check reports the
reference missing.

Usage: make_bundle.py --build BUILD --out OUT [--only NAME,...]
       make_bundle.py --build BUILD --write-reference NAME
"""
import hashlib
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "test", "jax"))
from mlirtext import split_top  # noqa: E402

# The pipelines of programs.txt (docs/device-abi.md, "Pipeline"). Every program also gets the staged
# kernels (latch-lower-intervals{staged=true} adds them beside @latch_main), so one bundle serves both
# `latch-run --mode=persistent` and the same-tiles control `--mode=staged`.
PIPELINES = {
    "forward": "builtin.module(latch-split-attention-grad,latch-cross-entropy-stats,latch-form-intervals,latch-fuse-phases,latch-plan-arena,"
               "latch-verify-arena,latch-lower-tasks,latch-lower-intervals{staged=true})",
    # The same without latch-split-attention-grad: keeps the whole task.attention_grad template tested.
    "forward-unsplit": "builtin.module(latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,"
                       "latch-lower-tasks,latch-lower-intervals{staged=true})",
    # latch-compile's passes as docs/device-abi.md lists them (written out so the bundle states what it ran).
    "train": "builtin.module(latch-train,latch-split-attention-grad,latch-cross-entropy-stats,latch-fold-converts,latch-fold-transposes,latch-fold-weight-split,"
             "latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,latch-lower-tasks,"
             "latch-lower-intervals{staged=true})",
    # forward with latch-fold-transposes: attention between [B, T, H, d] projections, as latch-compile has it.
    "forward-bthd": "builtin.module(latch-split-attention-grad,latch-cross-entropy-stats,latch-fold-transposes,latch-form-intervals,latch-fuse-phases,"
                    "latch-plan-arena,latch-verify-arena,latch-lower-tasks,latch-lower-intervals{staged=true})",
    # forward and train with latch-lower-intervals{table-dispatch=true} (docs/device-abi.md "Table dispatch").
    "forward-table": "builtin.module(latch-split-attention-grad,latch-cross-entropy-stats,latch-form-intervals,latch-fuse-phases,latch-plan-arena,"
                     "latch-verify-arena,latch-lower-tasks,latch-lower-intervals{staged=true table-dispatch=true})",
    "train-table": "builtin.module(latch-train,latch-split-attention-grad,latch-cross-entropy-stats,latch-fold-converts,latch-fold-transposes,latch-fold-weight-split,"
                   "latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,latch-lower-tasks,"
                   "latch-lower-intervals{staged=true table-dispatch=true})",
    # forward with latch-lower-tasks{wgmma-in-flight=false}: each k stage waits for its own wgmma group (the
    # default keeps it in flight into the next stage).
    "forward-waitall": "builtin.module(latch-split-attention-grad,latch-cross-entropy-stats,latch-form-intervals,latch-fuse-phases,latch-plan-arena,"
                       "latch-verify-arena,latch-lower-tasks{wgmma-in-flight=false},latch-lower-intervals{staged=true})",
    # forward with latch-lower-tasks{lean-wgmma-stages=false}: every wgmma stage copied chunk by chunk with its
    # bounds and alignment tests (the default copies a stage inside its operands without them).
    "forward-general": "builtin.module(latch-split-attention-grad,latch-cross-entropy-stats,latch-form-intervals,latch-fuse-phases,latch-plan-arena,"
                       "latch-verify-arena,latch-lower-tasks{lean-wgmma-stages=false},latch-lower-intervals{staged=true})",
    # forward with latch-lower-tasks{vector-maps=false}: the scalar element-wise path that vector-maps replaces
    # where tensors are aligned.
    "forward-scalar": "builtin.module(latch-split-attention-grad,latch-cross-entropy-stats,latch-form-intervals,latch-fuse-phases,latch-plan-arena,"
                      "latch-verify-arena,latch-lower-tasks{vector-maps=false},latch-lower-intervals{staged=true})",
}
TRAIN_PIPELINES = ("train", "train-table")  # latch-train first: the entry is its @f_update
# latch-interp references are computed only for programs up to this many parameter elements (TinyMoE at
# full size would take hours in fp64 and its references would not fit the bundle; its gradients are
# checked against PyTorch fp64 on the GPU machine instead).
INTERP_MAX_PARAMS = 2_000_000
LOSS_UPDATES = 100
DTYPES = {"f32", "bf16", "i32"}


def log(msg):
    print(msg, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def write_npy(path, dtype, shape, values):
    descr, fmt = {"f32": ("<f4", "f"), "f64": ("<f8", "d"), "i32": ("<i4", "i")}[dtype]
    count = 1
    for d in shape:
        count *= d
    if len(values) != count:
        raise ValueError(f"{path}: {len(values)} values for shape {shape}")
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
        f.write(struct.pack("<%d%s" % (count, fmt), *values))


def pattern_stream(length, period, vocab, seed):
    """A token stream that repeats `period` distinct tokens below `vocab` (every token determines the
    next), chosen by a small LCG from `seed`."""
    state, tokens = seed & 0xFFFFFFFF, []
    while len(tokens) < period:
        state = (1664525 * state + 1013904223) & 0xFFFFFFFF
        t = (state >> 8) % vocab
        if t not in tokens:
            tokens.append(t)
    return [tokens[i % period] for i in range(length)]


# ---- Programs ----

def parse_programs(path):
    programs = []
    for lineno, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 7:
            sys.exit(f"{path}:{lineno}: expected 7 fields separated by '|', found {len(fields)}")
        name, precision, source, entry, pipeline, args, checks = fields
        if precision not in ("fp32", "bf16") or pipeline not in PIPELINES:
            sys.exit(f"{path}:{lineno}: bad precision '{precision}' or pipeline '{pipeline}'")
        programs.append(dict(name=name, precision=precision, source=source, entry=entry, pipeline=pipeline,
                             args=args.split(), checks=[c for c in checks.split(",") if c]))
    return programs




def signature(mlir, entry):
    """[(name, shape, dtype, attrs)] of func @entry's arguments, and its result types."""
    m = re.search(r"func\.func @%s\(" % re.escape(entry), mlir)
    if not m:
        raise ValueError(f"no func.func @{entry}")
    i, depth, j = m.end(), 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(mlir[j], 0)
        j += 1
    args = []
    for k, a in enumerate(split_top(mlir[i:j - 1])):
        am = re.match(r"\s*%[\w$.]+\s*:\s*tensor<([^>]*)>\s*(\{.*\})?\s*$", a, re.S)
        if not am:
            raise ValueError(f"cannot read argument '{a.strip()}'")
        dims = am.group(1).split("x")
        shape, dtype = [int(d) for d in dims[:-1]], dims[-1]
        attrs = am.group(2) or ""
        nm = re.search(r'task\.name\s*=\s*"([^"]*)"', attrs)
        args.append(dict(name=nm.group(1) if nm else f"arg{k}", shape=shape, dtype=dtype, attrs=attrs))
    return args


def host_manifest(args):
    """A manifest with the entry's arguments (roles and init attributes as the compiler's manifest would
    carry them) and no results, for `latch-run --dry-run`."""
    out = []
    for k, a in enumerate(args):
        if a["dtype"] not in DTYPES:
            raise ValueError(f"argument {a['name']} has dtype {a['dtype']}, which the ABI does not carry")
        attrs = a["attrs"]
        role = ("param" if re.search(r"\btask\.param\b", attrs) else
                "state" if re.search(r"\btask\.state\b", attrs) else
                "step" if a["name"] == "step" and not a["shape"] else "input")
        count = 1
        for d in a["shape"]:
            count *= d
        entry = dict(index=k, name=a["name"], role=role, shape=a["shape"], dtype=a["dtype"],
                     bytes=count * (2 if a["dtype"] == "bf16" else 4))
        init = re.search(r'task\.init\s*=\s*"(\w+)"', attrs)
        if init:
            entry["init"] = init.group(1)
        std = re.search(r"task\.init_std\s*=\s*([-+0-9.eE]+)", attrs)
        if std:
            entry["init_std"] = float(std.group(1))
        rng = re.search(r"task\.range\s*=\s*(\d+)", attrs)
        if rng:
            entry["range"] = int(rng.group(1))
        out.append(entry)
    return {"version": 1, "kernel": "latch_main", "block": [256, 1, 1], "dynamic_shared_bytes": 0,
            "arena_bytes": 0, "intervals": [{"name": "i0.host", "tiles": 1}], "args": out, "results": []}


def materialise_args(args, pdir):
    """Turns inline files of the run arguments into .npy files under pdir/inputs; returns the argument
    list with paths relative to pdir."""
    out, i = [], 0
    os.makedirs(os.path.join(pdir, "inputs"), exist_ok=True)
    while i < len(args):
        a = args[i]
        if a == "--input" and i + 1 < len(args) and ":" in args[i + 1]:
            name, spec = args[i + 1].split("=", 1)
            dtype, shape_text, values = spec.split(":")
            shape = [int(d) for d in shape_text.split("x")] if shape_text else []
            conv = int if dtype == "i32" else float
            rel = f"inputs/{name}.npy"
            write_npy(os.path.join(pdir, rel), dtype, shape, [conv(v) for v in values.split(",")])
            out += ["--input", f"{name}={rel}"]
            i += 2
            continue
        if a.startswith("--data=pattern:"):
            length, period, vocab, seed = (int(v) for v in a.split(":", 1)[1].split(","))
            rel = "inputs/stream.npy"
            write_npy(os.path.join(pdir, rel), "i32", [length], pattern_stream(length, period, vocab, seed))
            out += ["--data", rel]
            i += 1
            continue
        out.append(a)
        i += 1
    return out


def gen_options(source):
    words = source.split()
    model, opts, k = words[1], {}, 2
    while k < len(words):
        opts[words[k].lstrip("-").replace("-", "_")] = int(words[k + 1])
        k += 2
    return model, opts


def first_lines(text, n=4):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return " | ".join(lines[:n]) if lines else "(no message)"


def bundle_program(p, build, out, skipped, compile_program=True):
    tools = {t: os.path.join(build, t) for t in ("latch-gen", "latch-opt", "latch-interp")}
    pdir = os.path.join(out, "programs", p["name"])
    os.makedirs(pdir)
    t0 = time.time()
    meta = dict(name=p["name"], precision=p["precision"], entry=p["entry"], pipeline=p["pipeline"],
                checks=p["checks"], source=p["source"], compiled=False, skip_reason=None, model=None,
                model_options={}, interp_references=False)
    src = os.path.join(pdir, "source.mlir")
    if p["source"].startswith("gen "):
        model, opts = gen_options(p["source"])
        meta["model"], meta["model_options"] = model, opts
        r = run([tools["latch-gen"]] + p["source"].split()[1:] + ["-o", src])
        if r.returncode:
            raise RuntimeError(f"latch-gen failed: {first_lines(r.stderr)}")
        count = run([tools["latch-gen"]] + p["source"].split()[1:] + ["--print-param-count"])
        params = int(count.stdout.strip() or 0)
    else:
        shutil.copy(os.path.join(REPO, p["source"]), src)
        params = 0
    program = os.path.join(pdir, "program.mlir")
    if p["pipeline"] in TRAIN_PIPELINES:
        r = run([tools["latch-opt"], src, "--pass-pipeline=builtin.module(latch-train)", "-o", program])
        if r.returncode:
            raise RuntimeError(f"latch-train failed: {first_lines(r.stderr)}")
    else:
        shutil.copy(src, program)
    text = open(program).read()
    args = signature(text, p["entry"])
    meta["args"] = [a["name"] for a in args]
    with open(os.path.join(pdir, "host.manifest.json"), "w") as f:
        json.dump(host_manifest(args), f, indent=1)
    beta1 = re.search(r"beta1\s*=\s*([-+0-9.eE]+)", text)
    meta["beta1"] = float(beta1.group(1)) if beta1 else None
    # The carried arguments of an update (latch-interp --train-steps): parameters, then task.state
    # arguments, in argument order; result 1 + j is the new value of carried[j].
    params_args = [a["name"] for a in args if re.search(r"\btask\.param\b", a["attrs"])]
    state_args = [a["name"] for a in args if re.search(r"\btask\.state\b", a["attrs"])
                  and not re.search(r"\btask\.param\b", a["attrs"])]
    meta["params"], meta["carried"] = params_args, params_args + state_args
    run_args = materialise_args(p["args"], pdir)
    meta["run_args"] = run_args
    if not compile_program:  # --write-reference: program.mlir and the inputs are all it needs
        with open(os.path.join(pdir, "program.json"), "w") as f:
            json.dump(meta, f, indent=1)
        return

    # Compile.
    ptx = os.path.join(pdir, "prog.ptx")
    r = run([tools["latch-opt"], src, f"--pass-pipeline={PIPELINES[p['pipeline']]}", "--emit=ptx", "-o", ptx])
    if r.returncode == 0 and os.path.exists(ptx) and os.path.exists(ptx + ".manifest.json"):
        meta["compiled"] = True
    else:
        reason = first_lines(r.stderr or r.stdout) if r.returncode else "latch-opt wrote no PTX or no manifest"
        meta["skip_reason"] = reason
        skipped.append((p["name"], reason))
        for f in (ptx, ptx + ".manifest.json"):
            if os.path.exists(f):
                os.remove(f)

    # References.
    if params > INTERP_MAX_PARAMS and "loss100" in p["checks"]:
        copy_cached_reference(p, pdir)
    if params <= INTERP_MAX_PARAMS:
        meta["interp_references"] = True
        exp = os.path.join(pdir, "expected")
        os.makedirs(exp)
        interp = [tools["latch-interp"], "program.mlir", "--entry", p["entry"]] + run_args
        if p["pipeline"] in TRAIN_PIPELINES:
            one = interp + ["--train-steps", "1", "--output-dir", "expected/fp64"]
        else:
            one = interp + ["--output-dir", "expected/fp64"]
        r = run(one, cwd=pdir)
        if r.returncode:
            raise RuntimeError(f"latch-interp failed: {first_lines(r.stderr)}")
        if "loss100" in p["checks"]:
            for emulate in ("fp32", "bf16", "fp64"):
                cmd = interp + ["--train-steps", str(LOSS_UPDATES)]
                if emulate != "fp64":
                    cmd.append(f"--emulate={emulate}")
                r = run(cmd, cwd=pdir)
                if r.returncode:
                    raise RuntimeError(f"latch-interp --train-steps failed: {first_lines(r.stderr)}")
                with open(os.path.join(exp, f"losses-{emulate}.txt"), "w") as f:
                    f.write(r.stdout)
    with open(os.path.join(pdir, "program.json"), "w") as f:
        json.dump(meta, f, indent=1)
    state = "compiled" if meta["compiled"] else "NOT COMPILED"
    refs = "interp references" if meta["interp_references"] else "no interp references"
    log(f"  {p['name']:<18} {state:<13} {refs:<22} {time.time() - t0:6.1f} s")


REFERENCES = os.path.join(REPO, "test", "gpu", "references")


def sha256_of(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def reference_stamp(p, pdir):
    """What a cached reference depends on: program.mlir's hash and the run arguments of programs.txt."""
    return f"{sha256_of(os.path.join(pdir, 'program.mlir'))}  program.mlir\nargs: {' '.join(p['args'])}\n"


def copy_cached_reference(p, pdir):
    """expected/losses-fp32.txt (and losses-bf16.txt) from test/gpu/references/<name>/ when they were made
    from this program.mlir with these run arguments."""
    name = p["name"]
    ref = os.path.join(REFERENCES, name)
    losses, stamp = os.path.join(ref, "losses-fp32.txt"), os.path.join(ref, "program.sha256")
    if not (os.path.exists(losses) and os.path.exists(stamp)):
        log(f"  {name}: no cached loss100 reference (make_bundle.py --write-reference {name})")
        return
    if open(stamp).read() != reference_stamp(p, pdir):
        log(f"  {name}: the cached loss100 reference is stale (program.mlir or the run arguments changed); "
            "not bundled")
        return
    os.makedirs(os.path.join(pdir, "expected"), exist_ok=True)
    for emulate in ("fp32", "bf16"):  # bf16 (when written) is information beside the fp32 gate
        if os.path.exists(os.path.join(ref, f"losses-{emulate}.txt")):
            shutil.copy(os.path.join(ref, f"losses-{emulate}.txt"), os.path.join(pdir, "expected", f"losses-{emulate}.txt"))


def write_reference(name, build, emulate):
    """Runs latch-interp --emulate=EMULATE --train-steps 100 on the program as the bundle makes it and
    writes test/gpu/references/<name>/{losses-EMULATE.txt,program.sha256}."""
    programs = [p for p in parse_programs(os.path.join(REPO, "test", "gpu", "programs.txt")) if p["name"] == name]
    if not programs:
        sys.exit(f"make_bundle.py: no program '{name}' in programs.txt")
    p = programs[0]
    scratch = os.path.join(build, f"reference-{name}-{emulate}")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, "programs"))
    bundle_program(p, build, scratch, [], compile_program=False)
    pdir = os.path.join(scratch, "programs", name)
    meta = json.load(open(os.path.join(pdir, "program.json")))
    cmd = [os.path.join(build, "latch-interp"), "program.mlir", "--entry", p["entry"]] + meta["run_args"] + \
          ["--train-steps", str(LOSS_UPDATES), f"--emulate={emulate}"]
    log(f"write-reference {name}: {' '.join(cmd)} (in {pdir})")
    r = run(cmd, cwd=pdir)
    if r.returncode:
        sys.exit(f"make_bundle.py: latch-interp failed: {first_lines(r.stderr)}")
    ref = os.path.join(REFERENCES, name)
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(ref, f"losses-{emulate}.txt"), "w") as f:
        f.write(r.stdout)
    with open(os.path.join(ref, "program.sha256"), "w") as f:
        f.write(reference_stamp(p, pdir))
    log(f"write-reference {name}: wrote {ref}")


def copy_sources(out):
    src = os.path.join(out, "src")
    for sub, names in (("runtime", None),
                       ("support", ["cli.c", "cli.h", "init.c", "init.h", "npy.c", "npy.h"]),
                       ("tools", ["latch-run.c"])):
        os.makedirs(os.path.join(src, sub))
        folder = os.path.join(REPO, sub)
        for name in sorted(os.listdir(folder)) if names is None else names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and name.endswith((".c", ".h", ".def")):
                shutil.copy(path, os.path.join(src, sub, name))
    gpu = os.path.join(REPO, "test", "gpu")
    os.makedirs(os.path.join(out, "checks"))
    for name in sorted(os.listdir(gpu)):
        if name.endswith(".py") and name != "make_bundle.py":
            shutil.copy(os.path.join(gpu, name), os.path.join(out, "checks", name))
    shutil.copy(os.path.join(gpu, "run.sh"), os.path.join(out, "run.sh"))
    shutil.copy(os.path.join(gpu, "build-latch-run.sh"), os.path.join(out, "build-latch-run.sh"))
    shutil.copy(os.path.join(gpu, "programs.txt"), os.path.join(out, "programs.txt"))
    shutil.copytree(os.path.join(gpu, "fixtures"), os.path.join(out, "fixtures"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out")
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--write-reference", metavar="NAME",
                    help="write test/gpu/references/NAME/ (the loss100 reference of a large program) and stop")
    ap.add_argument("--emulate", choices=("fp32", "bf16"), default="fp32",
                    help="the interpreter's rounding for --write-reference (the gate is against fp32; "
                         "bf16 is kept beside it for diagnosis)")
    args = ap.parse_args()
    if args.write_reference:
        write_reference(args.write_reference, os.path.abspath(args.build), args.emulate)
        return 0
    if not args.out:
        ap.error("--out is required")
    build, out = os.path.abspath(args.build), os.path.abspath(args.out)
    for tool in ("latch-gen", "latch-opt", "latch-interp"):
        if not os.path.exists(os.path.join(build, tool)):
            sys.exit(f"make_bundle.py: {tool} is not built in {build} (run make build)")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    copy_sources(out)
    programs = parse_programs(os.path.join(REPO, "test", "gpu", "programs.txt"))
    if args.only:
        wanted = set(args.only.split(","))
        programs = [p for p in programs if p["name"] in wanted]
    log(f"gpu-bundle: {len(programs)} programs into {out}")
    skipped, failed = [], []
    for p in programs:
        try:
            bundle_program(p, build, out, skipped)
        except (RuntimeError, ValueError, OSError) as e:
            failed.append((p["name"], str(e)))
            log(f"  {p['name']:<18} FAILED: {e}")
            shutil.rmtree(os.path.join(out, "programs", p["name"]), ignore_errors=True)
    with open(os.path.join(out, "skipped.txt"), "w") as f:
        for name, reason in skipped:
            f.write(f"{name}: does not compile yet: {reason}\n")
        for name, reason in failed:
            f.write(f"{name}: not bundled: {reason}\n")
    size = sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(out) for n in ns)
    log(f"gpu-bundle: {len(programs) - len(skipped) - len(failed)} compiled, {len(skipped)} skipped "
        f"(do not compile yet), {len(failed)} not bundled; {size / 2**20:.1f} MiB")
    for name, reason in skipped:
        log(f"  skipped {name}: {reason[:160]}")
    for name, reason in failed:
        log(f"  not bundled {name}: {reason[:160]}")
    log(f"run it on a GPU machine: copy {out} there (docs/gpu.md), then ./run.sh")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
