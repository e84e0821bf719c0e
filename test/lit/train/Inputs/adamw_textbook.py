# adamw_textbook.py inputs DIR | check DIR LR BETA1 BETA2 EPS WD - the expected values of
# adamw-textbook.test, from the textbook decoupled AdamW (Loshchilov & Hutter, "Decoupled Weight Decay
# Regularization", Algorithm 2; PyTorch's torch.optim.AdamW), written out here with the standard library
# only and never taken from latch-interp:
#   g_t = a * w_{t-1}                       (the gradient of sum a w^2 / 2, by hand)
#   m_t = beta1 m_{t-1} + (1 - beta1) g_t,  v_t = beta2 v_{t-1} + (1 - beta2) g_t^2,  m_0 = v_0 = 0
#   mhat_t = m_t / (1 - beta1^t),           vhat_t = v_t / (1 - beta2^t)
#   w_t = w_{t-1} - lr (mhat_t / (sqrt(vhat_t) + eps) + wd w_{t-1})
# for t = 1, 2, 3. `inputs` writes w_0, zero moments and the step numbers as .npy; `check` compares the
# loss, w, m and v of each update latch-interp made (DIR/stepT/result0..3.npy, from chained single
# updates) and of the --train-steps run (DIR/train/result*.npy and the printed losses in DIR/train.txt)
# with the formula, to 1e-12 relative.
import math
import os
import re
import struct
import sys

A = [1.0, 2.0, 0.5, 3.0]
W0 = [0.5, -1.0, 2.0, 0.25]
TOLERANCE = 1e-12


def write(path, shape, values):
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" % shape_text
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
        f.write(struct.pack("<%dd" % len(values), *values))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<H", data[8:10])
    header = eval(data[10:10 + length].decode("ascii"))  # a dict literal
    assert header["descr"] == "<f8", path
    body = data[10 + length:]
    return list(struct.unpack("<%dd" % (len(body) // 8), body))


def textbook(lr, beta1, beta2, eps, wd, steps=3):
    """[(loss before update t, w_t, m_t, v_t) for t = 1..steps]."""
    w, m, v, out = list(W0), [0.0] * 4, [0.0] * 4, []
    for t in range(1, steps + 1):
        loss = 0.0
        for a, x in zip(A, w):
            loss += 0.5 * (a * (x * x))
        g = [a * x for a, x in zip(A, w)]
        m = [beta1 * mi + (1 - beta1) * gi for mi, gi in zip(m, g)]
        v = [beta2 * vi + (1 - beta2) * gi * gi for vi, gi in zip(v, g)]
        mhat = [mi / (1 - beta1 ** t) for mi in m]
        vhat = [vi / (1 - beta2 ** t) for vi in v]
        w = [wi - lr * (mh / (math.sqrt(vh) + eps) + wd * wi) for wi, mh, vh in zip(w, mhat, vhat)]
        out.append((loss, w, m, v))
    return out


def compare(label, got, want):
    worst = max(abs(g - x) / max(abs(x), 1e-300) for g, x in zip(got, want))
    ok = len(got) == len(want) and worst <= TOLERANCE
    if not ok:
        print("FAIL %s: latch-interp %r, textbook %r (relative error %.3g)" % (label, got, want, worst))
    return ok, worst


def check(directory, lr, beta1, beta2, eps, wd):
    expected = textbook(float(lr), float(beta1), float(beta2), float(eps), float(wd))
    ok, worst = True, 0.0
    for t, (loss, w, m, v) in enumerate(expected, 1):
        got = [read(os.path.join(directory, "step%d" % t, "result%d.npy" % k)) for k in range(4)]
        for label, g, x in (("loss", got[0], [loss]), ("w", got[1], w), ("m", got[2], m), ("v", got[3], v)):
            good, error = compare("update %d %s" % (t, label), g, x)
            ok, worst = ok and good, max(worst, error)
        print("update t=%d: loss %.6f, w %s" % (t, loss, " ".join("%.6f" % x for x in w)))
    losses = [float(x) for x in re.findall(r"^step \d+ loss (\S+)$", open(os.path.join(directory, "train.txt")).read(), re.M)]
    good, error = compare("--train-steps losses", losses, [e[0] for e in expected])
    ok, worst = ok and good, max(worst, error)
    for k, want in ((1, expected[-1][1]), (2, expected[-1][2]), (3, expected[-1][3])):
        good, error = compare("--train-steps result %d" % k, read(os.path.join(directory, "train", "result%d.npy" % k)), want)
        ok, worst = ok and good, max(worst, error)
    print("%s: largest relative difference %.3g (tolerance %g)" % ("ok" if ok else "FAIL", worst, TOLERANCE))
    sys.exit(0 if ok else 1)


def inputs(directory):
    os.makedirs(directory, exist_ok=True)
    write(os.path.join(directory, "w0.npy"), [4], W0)
    write(os.path.join(directory, "zeros.npy"), [4], [0.0] * 4)
    for t in (1, 2, 3):
        write(os.path.join(directory, "t%d.npy" % t), [], [float(t)])


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    else:
        check(*sys.argv[2:])
