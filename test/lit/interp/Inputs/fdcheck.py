# fdcheck.py PROG F F_GRAD DIR SEED CHECKS - gradients of @F_GRAD (from latch-autodiff) against central
# differences of @F, both run by latch-interp in fp64. Every task.param argument gets random values (given
# by --input), the other arguments come from --random-inputs SEED; for each parameter, CHECKS elements
# (the largest gradient first, then random ones) are perturbed by +-h.
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyio  # noqa: E402


def split_top(text):
    """Splits at commas outside (), <>, {}, [] and quotes."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, c in enumerate(text):
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "(<{[":
            depth += 1
        elif not quoted and c in ")>}]":
            depth -= 1
        elif not quoted and c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def arguments(program, func):
    text = open(program).read()
    start = text.index("func.func @%s(" % func) + len("func.func @%s(" % func)
    depth, end = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    args = []
    for k, arg in enumerate(split_top(text[start:end - 1])):
        m = re.match(r"%[\w.]+: tensor<([0-9x]*)(f32|bf16|f64|i32)>\s*(\{.*\})?$", arg, re.S)
        assert m, arg
        dims = tuple(int(d) for d in m.group(1).split("x") if d)
        attrs = m.group(3) or ""
        std = re.search(r"task\.init_std = ([-+0-9.e]+)", attrs)
        init = re.search(r'task\.init = "(\w+)"', attrs)
        args.append({"pos": k, "shape": dims, "param": "task.param" in attrs,
                     "std": float(std.group(1)) if std else 0.02, "init": init.group(1) if init else "normal"})
    return args


def run(program, entry, inputs, seed, out):
    command = ["latch-interp", program, "--entry", entry, "--random-inputs", str(seed), "--output-dir", out]
    for pos, path in inputs.items():
        command += ["--input", "arg%d=%s" % (pos, path)]
    subprocess.run(command, check=True)
    return [npyio.read(os.path.join(out, "result%d.npy" % k))[2] for k in range(len(os.listdir(out)))]


def main(program, f, f_grad, directory, seed, checks):
    seed, checks = int(seed), int(checks)
    rnd = random.Random(seed)
    os.makedirs(directory, exist_ok=True)
    args = arguments(program, f)
    params = [a for a in args if a["param"]]
    inputs, values = {}, {}
    for a in params:
        n = 1
        for d in a["shape"]:
            n *= d
        base = 1.0 if a["init"] == "ones" else 0.0
        scale = 0.1 if a["init"] != "normal" else max(a["std"], 0.05)
        values[a["pos"]] = [npyio.f32(base + rnd.gauss(0.0, scale)) for _ in range(n)]
        inputs[a["pos"]] = os.path.join(directory, "p%d.npy" % a["pos"])
        npyio.write(inputs[a["pos"]], "f64", a["shape"], values[a["pos"]])
    grads = run(program, f_grad, inputs, seed, os.path.join(directory, "grad"))
    assert len(grads) == 1 + len(params), "expected the loss and one gradient per parameter"
    worst = 0.0
    for k, a in enumerate(params):
        g = grads[1 + k]
        order = sorted(range(len(g)), key=lambda i: -abs(g[i]))
        picks = order[:1] + [rnd.randrange(len(g)) for _ in range(checks - 1)]
        for i in picks:
            losses = []
            for sign in (1, -1):
                h = 1e-5 * max(1.0, abs(values[a["pos"]][i]))
                moved = list(values[a["pos"]])
                moved[i] += sign * h
                path = os.path.join(directory, "moved.npy")
                npyio.write(path, "f64", a["shape"], moved)
                changed = dict(inputs)
                changed[a["pos"]] = path
                losses.append(run(program, f, changed, seed, os.path.join(directory, "fd"))[0][0])
            fd = (losses[0] - losses[1]) / (2 * h)
            error = abs(fd - g[i]) / max(abs(fd), 1e-4)
            worst = max(worst, error)
            if error > 1e-4:
                print("FAIL arg%d[%d]: gradient %r, finite difference %r" % (a["pos"], i, g[i], fd))
                sys.exit(1)
    print("ok %d parameters agree with finite differences" % len(params))


if __name__ == "__main__":
    main(*sys.argv[1:])
