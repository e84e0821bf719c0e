"""Shared machinery of the JAX reference checks: build small task programs (generic MLIR text) together with
their JAX evaluation, run latch-interp on them through .npy files, compare, and print the gate table.

Storage rules of the modes (docs/task-dialect.md, "Precision", and latch-interp's --emulate):
  fp64  no --emulate: latch-interp computes in fp64 and stores fp64; the JAX side never rounds.
  fp32  --emulate=fp32: every stored float tensor is rounded to fp32 at op boundaries.
  bf16  --emulate=bf16: every stored f32 or bf16 tensor is rounded to its declared dtype; bf16 through
        fp32 (fp64 -> fp32 -> bf16, each nearest-even), as the GPU stores its fp32 results. No tensor here
        is declared f64 (which --emulate=bf16 leaves f64).
In both emulated modes a task.map body is evaluated in the scalar types it is written in: every float
result of every body op is rounded by the same rule to its scalar type (f64 results: to fp32 under fp32,
left f64 under bf16). The JAX side does the same by evaluating the body's MLIR text (ops.map_body).
Inputs are always written with values that the declared dtype holds exactly, so whether the interpreter
rounds its inputs on load or not cannot matter.
"""
import os
import shutil
import subprocess
import sys
import time

import numpy as np

import ops

# The fixed gates (see check_ops.py / check_tinymoe.py for why each is what it is).
FP64_GATE = 1e-10  # max |interp - jax| / max |jax|, per result
MIDPOINT_SLACK = 1e-10  # bf16/fp32: a 1-ulp difference is excused only this close (relative) to a tie


def storage(dtype, mode):
    """The dtype that a tensor declared `dtype` is stored in under `mode` ('fp64', 'fp32', 'bf16')."""
    if dtype not in ops.FLOAT_TYPES:
        return dtype
    if mode == "fp64":
        return "f64"
    if mode == "fp32":
        return "f32"
    return dtype if dtype in ("bf16", "f64") else "f32"


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def fattr(x):
    """An f64 attribute whose decimal text parses back to exactly the same double."""
    s = repr(float(x))
    if "e" in s and "." not in s.split("e")[0]:
        m, e = s.split("e")
        s = m + ".0e" + e
    elif "." not in s and "e" not in s:
        s += ".0"
    return s + " : f64"


def iattr(k):
    return f"{int(k)} : i64"


def battr(b):
    return "true" if b else "false"


def map_segments(nin, nout):
    """The segment-size attributes that task.map's IRDL definition asks for, read from
    dialects/task.irdl.mlir: with one optional operand per input position (IRDL unifies all uses of one
    constraint, so a single variadic list would force one type on every input) the generic form needs
    operandSegmentSizes/resultSegmentSizes; with plain variadic lists it needs none."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dialects", "task.irdl.mlir")
    text = open(src).read()
    body = text[text.index("irdl.operation @map {"):]
    body = body[:body.index("\n  }")]
    operands = body[body.index("irdl.operands("):].split("\n")[0]
    results = body[body.index("irdl.results("):].split("\n")[0]
    nopt_in, nopt_out = operands.count("optional"), results.count("optional")
    if not nopt_in and not nopt_out:
        return {}
    if nin > nopt_in or nout > nopt_out:
        raise ValueError(f"task.map takes at most {nopt_in} inputs and {nopt_out} outputs")
    seg = lambda n, m: "array<i32: " + ", ".join(["1"] * n + ["0"] * (m - n)) + ">"  # noqa: E731
    return {"operandSegmentSizes": seg(nin, nopt_in), "resultSegmentSizes": seg(nout, nopt_out)}


class V:
    """One SSA value of a program being built."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(int(d) for d in shape), dtype

    @property
    def type(self):
        return ttype(self.shape, self.dtype)


class Prog:
    """A one-function task program and, op by op, the JAX function that computes each op."""

    def __init__(self, entry="test"):
        self.entry = entry
        self.args = []  # (V, data, attrs text)
        self.pre = []  # lines before the ops (e.g. constants used from above a task.map)
        self.ops = []  # (ins, outs, fn, text)
        self.results = []
        self.count = 0
        self.bodies = {}  # first result name of a task.map -> its region text (for the emulated modes)

    def arg(self, data, dtype, name=None):
        data = np.asarray(data)
        v = V(f"%arg{len(self.args)}", data.shape, dtype)
        if dtype in ops.FLOAT_TYPES:
            data = data.astype(np.float64)
            assert np.array_equal(ops.round_to(data, dtype), data), "inputs must be exact in their dtype"
        else:
            data = data.astype(np.int32)
        attrs = f' {{task.name = "{name}"}}' if name else ""
        self.args.append((v, data, attrs))
        return v

    def const(self, value, dtype):
        """A scalar constant defined above the ops (for task.map bodies that use it from above)."""
        v = V(f"%c{len(self.pre)}", (), dtype)
        self.pre.append((v, f"{v.name} = arith.constant {fattr(value).split(' :')[0]} : {dtype}"))
        return v

    def op(self, name, ins, outs, fn, attrs=None, region=None):
        """outs: list of (shape, dtype). fn(*input arrays) -> list of output arrays (fp64 / int32)."""
        k = self.count
        self.count += 1
        res = [V(f"%v{k}_{i}", s, d) for i, (s, d) in enumerate(outs)]
        text = ", ".join(r.name for r in res) + f' = "task.{name}"(' + ", ".join(i.name for i in ins) + ")"
        if region is not None:
            text += " ({\n" + region + "\n  })"
        if attrs:
            text += " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"
        in_types = "(" + ", ".join(i.type for i in ins) + ")"
        out_types = res[0].type if len(res) == 1 else "(" + ", ".join(r.type for r in res) + ")"
        text += f" : {in_types} -> {out_types}"
        self.ops.append((ins, res, fn, text))
        if name == "map" and region is not None:
            self.bodies[res[0].name] = region
        return res[0] if len(res) == 1 else res

    def ret(self, *vals):
        self.results = list(vals)

    def mlir(self):
        sig = ", ".join(f"{v.name}: {v.type}{a}" for v, _, a in self.args)
        rt = ", ".join(r.type for r in self.results)
        lines = [f"func.func @{self.entry}({sig}) -> ({rt}) {{"]
        lines += ["  " + t for _, t in self.pre]
        for _, _, _, text in self.ops:
            lines += ["  " + line for line in text.split("\n")]
        lines.append("  return " + ", ".join(r.name for r in self.results) + " : " + rt)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def reference(self, mode):
        """JAX evaluation: (stored results, results before their final rounding), as numpy arrays.

        Each op's results are rounded to their storage dtype under `mode` at the op boundary. A task.map
        body is computed by its Python function in fp64 mode; in the emulated modes it is evaluated from
        its MLIR text op by op (ops.map_body), every float result rounded to its scalar type under the
        mode (docs/task-dialect.md, "Precision"), and "before the final rounding" is then the value of the
        yielded op before its own rounding. The function and the unrounded body must agree in any mode."""
        env, raw = {}, {}

        def store(v, x, unrounded=None):
            x = np.asarray(x)
            if v.dtype in ops.FLOAT_TYPES:
                raw[v.name] = np.asarray(x if unrounded is None else unrounded, np.float64)
                env[v.name] = ops.round_to(x.astype(np.float64), storage(v.dtype, mode))
            else:
                assert x.dtype.kind in "iu", (v.name, x.dtype)
                env[v.name] = raw[v.name] = x.astype(np.int32)

        for v, data, _ in self.args:
            store(v, data)
        for v, t in self.pre:
            store(v, float(t.split("= arith.constant ")[1].split(" :")[0]))
        above = lambda: {v.name: env[v.name] for v, _ in self.pre}  # noqa: E731
        for ins, outs, fn, _ in self.ops:
            args = [env[i.name] for i in ins]
            vals = fn(*args)
            if len(outs) == 1 and not isinstance(vals, (list, tuple)):
                vals = [vals]
            assert len(vals) == len(outs)
            body = self.bodies.get(outs[0].name)
            if body is not None:
                check_body(body, args, vals, above())
                if mode != "fp64":
                    pairs = ops.map_body(body, args, lambda t: storage(t, mode), above())
                    assert len(pairs) == len(outs)
                    for v, (x, r) in zip(outs, pairs):
                        store(v, x, r)
                    continue
            for v, x in zip(outs, vals):
                store(v, x)
        return [env[r.name] for r in self.results], [raw[r.name] for r in self.results]


BODY_AGREEMENT = 1e-12  # a map body evaluated unrounded vs its Python function: max|d|/max|fn|


def check_body(body, args, vals, above):
    """The task.map body's text, evaluated in fp64 without rounding, must compute what the case's Python
    function computes (to BODY_AGREEMENT; NaN where it gives NaN), so that the emulated modes' reference,
    which evaluates the text, checks the same function as the fp64 mode."""
    got = ops.map_body(body, args, lambda t: "f64", above)
    assert len(got) == len(vals), "map body and its function give different numbers of outputs"
    for k, ((x, _), want) in enumerate(zip(got, vals)):
        want = np.broadcast_to(np.asarray(want), x.shape)
        if want.dtype.kind in "iu" or x.dtype.kind in "iub":
            assert np.array_equal(np.asarray(x, np.int64), np.asarray(want, np.int64)), f"map output {k}: ints differ"
            continue
        x, want = np.asarray(x, np.float64), np.asarray(want, np.float64)
        assert np.array_equal(np.isnan(x), np.isnan(want)), f"map output {k}: NaNs differ"
        ok = ~np.isnan(want)
        scale = float(np.max(np.abs(want[ok]))) if np.any(ok) else 0.0
        err = float(np.max(np.abs(x[ok] - want[ok]))) if np.any(ok) else 0.0
        assert err <= BODY_AGREEMENT * max(scale, 1e-300), (
            f"map output {k}: body text and Python function differ by {err:.3g} (max|fn| {scale:.3g})")


def find_interp(given):
    path = given or shutil.which("latch-interp")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        cand = os.path.join(here, "..", "..", "build", "latch-interp")
        path = cand if os.path.exists(cand) else None
    if not path:
        sys.exit("latch-interp not found (PATH, --interp, or build/latch-interp)")
    return path


class InterpError(Exception):
    pass


def run_interp(interp, mlir_text, entry, inputs, nresults, workdir, extra=(), timeout=600):
    """Write the program and inputs (name -> array) under workdir, run latch-interp, read its results."""
    os.makedirs(workdir, exist_ok=True)
    prog = os.path.join(workdir, "prog.mlir")
    with open(prog, "w") as f:
        f.write(mlir_text)
    cmd = [interp, prog, "--entry", entry]
    for name, data in inputs.items():
        path = os.path.join(workdir, f"in_{name}.npy")
        np.save(path, data)
        cmd += ["--input", f"{name}={path}"]
    outdir = os.path.join(workdir, "out")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    cmd += list(extra) + ["--output-dir", outdir]
    with open(os.path.join(workdir, "cmd.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise InterpError(f"timed out after {timeout} s")
    elapsed = time.time() - t0
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip() or "(no message)").splitlines()
        raise InterpError(f"exit {p.returncode}: " + " | ".join(msg[:3]))
    outs = []
    for i in range(nresults):
        path = os.path.join(outdir, f"result{i}.npy")
        if not os.path.exists(path):
            raise InterpError(f"no {os.path.basename(path)} written")
        outs.append(np.load(path))
    return outs, elapsed


# ----------------------------------------------------------------------------------------------------
# Metrics. Each returns (metric name, value, gate text, passed).
# ----------------------------------------------------------------------------------------------------
def check_shape(got, v):
    if tuple(got.shape) != v.shape:
        return ("shape", f"{tuple(got.shape)}", f"== {v.shape}", False)
    want = "int32" if v.dtype not in ops.FLOAT_TYPES else "float64"
    if got.dtype != np.dtype(want):
        return ("npy dtype", str(got.dtype), f"== {want}", False)
    return None


def rel_err(got, ref):
    """max |got - ref| / max |ref| (the max-abs error relative to the largest reference magnitude)."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if not np.all(np.isfinite(got)):
        return float("inf")
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
    return err / scale if scale > 0 else err


def compare_fp64(got, ref, v):
    bad = check_shape(got, v)
    if bad:
        return bad
    if v.dtype not in ops.FLOAT_TYPES:
        return compare_exact(got, ref, v)
    e = rel_err(got, ref)
    detail = None
    if not e <= FP64_GATE and got.size:
        d = np.abs(np.asarray(got, np.float64) - ref)
        worst = np.unravel_index(int(np.nanargmax(np.where(np.isfinite(d), d, np.inf))), got.shape)
        detail = f"worst at {[int(i) for i in worst]}: interp {float(got[worst])!r}, JAX {float(ref[worst])!r}"
    return ("max|d|/max|ref|", f"{e:.3e}", f"<= {FP64_GATE:.0e}", e <= FP64_GATE, detail)


def compare_exact(got, ref, v):
    bad = check_shape(got, v)
    if bad:
        return bad
    bad = np.asarray(got) != np.asarray(ref)
    n = int(np.sum(bad))
    detail = None
    if n:
        first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
        detail = f"first at {list(first)}: interp {np.asarray(got)[first]}, JAX {np.asarray(ref)[first]}"
    return ("mismatches", str(n), "== 0 (exact)", n == 0, detail)


def compare_rounded(got, ref, raw, v, mode):
    """Elements must equal JAX's value rounded (nearest-even; bf16 through fp32) to the storage dtype.
    A one-ulp difference is excused only where JAX's unrounded fp64 value lies within MIDPOINT_SLACK
    (relative) of the midpoint between the two candidates, i.e. where the two fp64 computations may
    legitimately fall on either side of a tie."""
    bad = check_shape(got, v)
    if bad:
        return bad
    if v.dtype not in ops.FLOAT_TYPES:
        return compare_exact(got, ref, v)
    dt = storage(v.dtype, mode)
    got, ref, raw = (np.asarray(a, np.float64) for a in (got, ref, raw))
    differ = ~((got == ref) | (np.isnan(got) & np.isnan(ref)))
    mid = (got + ref) / 2
    one_ulp = np.abs(got - ref) <= ops.ulp(np.maximum(np.abs(got), np.abs(ref)), dt)
    near_tie = np.abs(raw - mid) <= MIDPOINT_SLACK * np.abs(raw)
    excused = differ & one_ulp & near_tie
    bad = differ & ~excused
    n = int(np.sum(bad))
    note = f" ({int(np.sum(excused))} at ties)" if np.any(excused) else ""
    detail = None
    if n:
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        detail = (f"first at {list(first)}: interp {float(got[first])!r}, JAX {float(ref[first])!r} "
                  f"(unrounded fp64 {float(raw[first])!r}); max {np.max(np.abs(got - ref)[bad] / ops.ulp(ref[bad], dt)):.3g} ulp")
    return (f"elements != {dt}(ref)", f"{n}{note}", "== 0", n == 0, detail)


class Table:
    COLS = ("case", "mode", "result", "metric", "value", "gate", "")

    def __init__(self):
        self.rows = []
        self.details = []

    def add(self, case, mode, result, metric, value, gate, passed, detail=None):
        row = (case, mode, result, metric, value, gate, "PASS" if passed else "FAIL")
        self.rows.append(row)
        if detail and not passed:
            self.details.append(f"{case} {mode} {result}: {detail}")

    def failed(self):
        return [r for r in self.rows if r[-1] != "PASS"]

    def print(self):
        w = [max(len(str(r[i])) for r in self.rows + [self.COLS]) for i in range(len(self.COLS))]
        line = lambda r: "  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip()  # noqa: E731
        print()
        print(line(self.COLS))
        print(line(["-" * x for x in w]))
        for r in self.rows:
            print(line(r))
        nf = len(self.failed())
        print()
        if nf:
            print("FAILED gates:")
            for r in self.failed():
                print("  " + line(r))
            for d in self.details:
                print("  " + d)
        print(f"gates: {len(self.rows) - nf} passed, {nf} failed")
