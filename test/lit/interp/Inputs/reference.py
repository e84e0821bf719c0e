# reference.py - the task ops written again in plain Python (fp64) from their definitions in
# docs/task-dialect.md, independently of interp/kernels.c, for checking latch-interp.
# A tensor is (shape tuple, flat row-major list).
import math


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def index(shape, idx):
    """Flat position of multi-index `idx` in `shape`."""
    flat = 0
    for d, i in zip(shape, idx):
        assert 0 <= i < d
        flat = flat * d + i
    return flat


def indices(shape):
    """Every multi-index of `shape` in row-major order."""
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in indices(shape[1:]):
            yield (i,) + rest


def get(t, *idx):
    shape, data = t
    return data[index(shape, idx)]


def matmul(a, b, transpose_a, transpose_b):
    """c = op(a) x op(b); rank 2, or rank 3 with a leading batch dim."""
    (sa, da), (sb, db) = a, b
    batched = len(sa) == 3
    batches = sa[0] if batched else 1

    def op(shape, data, transpose, s):
        rows, cols = shape[-2], shape[-1]
        base = s * rows * cols
        m = [[data[base + r * cols + c] for c in range(cols)] for r in range(rows)]
        return [list(col) for col in zip(*m)] if transpose else m

    out = []
    for s in range(batches):
        A, B = op(sa, da, transpose_a, s), op(sb, db, transpose_b, s)
        for i in range(len(A)):
            for j in range(len(B[0])):
                out.append(sum(A[i][k] * B[k][j] for k in range(len(B))))
    M, N = len(A), len(B[0])
    return ((batches, M, N) if batched else (M, N)), out


def grouped_matmul(x, w, ends):
    """Rows ends[g-1] <= r < ends[g] use w[g]; rows at or after ends[G-1] are zero."""
    (sx, dx), (sw, dw), (_, de) = x, w, ends
    R, K = sx
    G, _, N = sw
    out = [0.0] * (R * N)
    for g in range(G):
        begin = de[g - 1] if g else 0
        for r in range(begin, de[g]):
            for n in range(N):
                out[r * N + n] = sum(dx[r * K + k] * dw[(g * K + k) * N + n] for k in range(K))
    return (R, N), out


def reduce(x, axis, kind):
    shape, data = x
    out_shape = shape[:axis] + shape[axis + 1:]
    out = []
    for idx in indices(out_shape):
        vals = [data[index(shape, idx[:axis] + (l,) + idx[axis:])] for l in range(shape[axis])]
        if kind == "sum":
            out.append(sum(vals))
        elif kind == "max":
            out.append(max(vals))
        else:
            out.append(sum(vals) / len(vals))
    return out_shape, out


def rows(t):
    """The rows along the last axis."""
    shape, data = t
    n = shape[-1]
    return [data[i:i + n] for i in range(0, len(data), n)]


def rmsnorm(x, w, eps):
    """y = x / sqrt(mean(x^2 over the last axis) + eps) * w."""
    out = []
    for row in rows(x):
        rms = math.sqrt(sum(v * v for v in row) / len(row) + eps)
        out += [v / rms * wi for v, wi in zip(row, w[1])]
    return x[0], out


def softmax_list(row):
    m = max(row)
    e = [math.exp(v - m) for v in row]
    s = sum(e)
    return [v / s for v in e]


def softmax(x):
    out = []
    for row in rows(x):
        out += softmax_list(row)
    return x[0], out


def cross_entropy(logits, targets):
    """Mean over n of -log softmax(logits[n])[targets[n]]."""
    losses = [-math.log(softmax_list(row)[t]) for row, t in zip(rows(logits), targets[1])]
    return (), [sum(losses) / len(losses)]


def embedding(table, ids):
    (V, D), data = table
    out = []
    for i in ids[1]:
        out += data[i * D:(i + 1) * D]
    return tuple(ids[0]) + (D,), out


def rope(x, theta):
    """Rotate-half: for i < h = hd/2, f_i = theta^(-2i/hd), a = t f_i;
    y[i] = x[i] cos a - x[i+h] sin a; y[i+h] = x[i+h] cos a + x[i] sin a."""
    shape, data = x
    B, T, H, hd = shape
    h = hd // 2
    out = list(data)
    for b in range(B):
        for t in range(T):
            for hh in range(H):
                base = index(shape, (b, t, hh, 0))
                for i in range(h):
                    a = t * theta ** (-2.0 * i / hd)
                    x1, x2 = data[base + i], data[base + i + h]
                    out[base + i] = x1 * math.cos(a) - x2 * math.sin(a)
                    out[base + i + h] = x2 * math.cos(a) + x1 * math.sin(a)
    return shape, out


def attention(q, k, v, causal, scale):
    """o = softmax(q k^T * scale) v per (b, h); with causal, key j > query i is masked out."""
    (sq, dq), (sk, dk), (sv, dv) = q, k, v
    B, H, Tq, hd = sq
    Tk, hdv = sk[2], sv[3]
    out = []
    for b in range(B):
        for h in range(H):
            for i in range(Tq):
                scores = []
                for j in range(Tk):
                    if causal and j > i:
                        scores.append(-math.inf)
                        continue
                    dot = sum(dq[index(sq, (b, h, i, c))] * dk[index(sk, (b, h, j, c))] for c in range(hd))
                    scores.append(dot * scale)
                p = softmax_list(scores)
                for c in range(hdv):
                    out.append(sum(p[j] * dv[index(sv, (b, h, j, c))] for j in range(Tk)))
    return (B, H, Tq, hdv), out


def topk(x, k):
    """The k largest of each row, descending; ties go to the lower index."""
    values, idx = [], []
    for row in rows(x):
        order = sorted(range(len(row)), key=lambda j: (-row[j], j))[:k]
        values += [row[j] for j in order]
        idx += order
    n = x[0][0]
    return ((n, k), values), ((n, k), idx)


def bucket(ids, buckets):
    """Stable sort of the flat ids by value; ends[g] = number of ids <= g."""
    flat = ids[1]
    order = sorted(range(len(flat)), key=lambda s: (flat[s], s))
    ends = [sum(1 for v in flat if v <= g) for g in range(buckets)]
    return ((len(flat),), order), ((buckets,), ends)


def gather_rows(x, idx):
    (R, D), data = x
    out = []
    for i in idx[1]:
        out += data[i * D:(i + 1) * D]
    return (len(idx[1]), D), out


def scatter_add_rows(x, idx, rows_count):
    (S, D), data = x
    out = [0.0] * (rows_count * D)
    for s in range(S):  # increasing s
        r = idx[1][s]
        for d in range(D):
            out[r * D + d] += data[s * D + d]
    return (rows_count, D), out


def transpose(x, perm):
    shape, data = x
    out_shape = tuple(shape[p] for p in perm)
    out = []
    for idx in indices(out_shape):
        src = [0] * len(shape)
        for i, p in enumerate(perm):
            src[p] = idx[i]
        out.append(data[index(shape, tuple(src))])
    return out_shape, out


def adamw(p, g, m, v, t, lr, b1, b2, eps, wd):
    """m' = b1 m + (1-b1) g; v' = b2 v + (1-b2) g^2;
    p' = p - lr (wd p + (m'/(1-b1^t)) / (sqrt(v'/(1-b2^t)) + eps))."""
    P, M, V = [], [], []
    for pi, gi, mi, vi in zip(p[1], g[1], m[1], v[1]):
        m2 = b1 * mi + (1 - b1) * gi
        v2 = b2 * vi + (1 - b2) * gi * gi
        P.append(pi - lr * (wd * pi + (m2 / (1 - b1 ** t)) / (math.sqrt(v2 / (1 - b2 ** t)) + eps)))
        M.append(m2)
        V.append(v2)
    return (p[0], P), (p[0], M), (p[0], V)


def trunc_div(a, b):
    """Signed integer division rounding toward zero (arith.divsi)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# ---- Backward ops (docs/task-dialect.md, "Backward ops") ----

def reduce_grad(x, dy, axis, kind):
    """sum: dy broadcast along axis; mean: dy / n; max: dy to the first index of the maximum."""
    shape, data = x
    out = [0.0] * len(data)
    for idx in indices(shape[:axis] + shape[axis + 1:]):
        g = dy[1][index(dy[0], idx)]
        positions = [index(shape, idx[:axis] + (l,) + idx[axis:]) for l in range(shape[axis])]
        if kind == "max":
            values = [data[p] for p in positions]
            out[positions[values.index(max(values))]] = g
        else:
            for p in positions:
                out[p] = g / len(positions) if kind == "mean" else g
    return shape, out


def rmsnorm_grad(x, w, dy, eps):
    """r = 1/sqrt(mean(x^2) + eps), xh = x r; dw = sum over rows of dy xh; g = dy w;
    dx = r (g - xh mean(g xh))."""
    D = x[0][-1]
    dx, dw = [], [0.0] * D
    for xr, gr in zip(rows(x), rows(dy)):
        r = 1.0 / math.sqrt(sum(v * v for v in xr) / D + eps)
        xh = [v * r for v in xr]
        g = [gv * wv for gv, wv in zip(gr, w[1])]
        mean_g_xh = sum(a * b for a, b in zip(g, xh)) / D
        dx += [r * (a - b * mean_g_xh) for a, b in zip(g, xh)]
        for i in range(D):
            dw[i] += gr[i] * xh[i]
    return (x[0], dx), (w[0], dw)


def softmax_grad(y, dy):
    out = []
    for yr, gr in zip(rows(y), rows(dy)):
        dot = sum(a * b for a, b in zip(yr, gr))
        out += [a * (b - dot) for a, b in zip(yr, gr)]
    return y[0], out


def cross_entropy_grad(logits, targets, dloss):
    n = logits[0][0]
    out = []
    for row, t in zip(rows(logits), targets[1]):
        p = softmax_list(row)
        out += [dloss * (pj - (1.0 if j == t else 0.0)) / n for j, pj in enumerate(p)]
    return logits[0], out


def rope_grad(dy, theta):
    """The inverse rotation: dx[i] = dy[i] cos a + dy[i+h] sin a; dx[i+h] = dy[i+h] cos a - dy[i] sin a."""
    shape, data = dy
    B, T, H, hd = shape
    h = hd // 2
    out = list(data)
    for b in range(B):
        for t in range(T):
            for hh in range(H):
                base = index(shape, (b, t, hh, 0))
                for i in range(h):
                    a = t * theta ** (-2.0 * i / hd)
                    g1, g2 = data[base + i], data[base + i + h]
                    out[base + i] = g1 * math.cos(a) + g2 * math.sin(a)
                    out[base + i + h] = g2 * math.cos(a) - g1 * math.sin(a)
    return shape, out


def attention_grad(q, k, v, o, do, causal, scale):
    """S = q k^T scale (masked), P = softmax(S): dv = P^T do; dP = do v^T; dS = P (dP - rowsum(do o));
    dq = dS k scale; dk = dS^T q scale."""
    (sq, dq_), (sk, dk_), (sv, dv_) = q, k, v
    B, H, Tq, hd = sq
    Tk, hdv = sk[2], sv[3]
    DQ, DK, DV = [0.0] * len(dq_), [0.0] * len(dk_), [0.0] * len(dv_)
    for b in range(B):
        for h in range(H):
            Q = [[dq_[index(sq, (b, h, i, c))] for c in range(hd)] for i in range(Tq)]
            K = [[dk_[index(sk, (b, h, j, c))] for c in range(hd)] for j in range(Tk)]
            V = [[dv_[index(sv, (b, h, j, c))] for c in range(hdv)] for j in range(Tk)]
            O = [[o[1][index(o[0], (b, h, i, c))] for c in range(hdv)] for i in range(Tq)]
            G = [[do[1][index(do[0], (b, h, i, c))] for c in range(hdv)] for i in range(Tq)]
            P = []
            for i in range(Tq):
                s = [(-math.inf if causal and j > i else sum(Q[i][c] * K[j][c] for c in range(hd)) * scale)
                     for j in range(Tk)]
                P.append(softmax_list(s))
            dP = [[sum(G[i][c] * V[j][c] for c in range(hdv)) for j in range(Tk)] for i in range(Tq)]
            rowsum = [sum(G[i][c] * O[i][c] for c in range(hdv)) for i in range(Tq)]
            dS = [[P[i][j] * (dP[i][j] - rowsum[i]) for j in range(Tk)] for i in range(Tq)]
            for i in range(Tq):
                for c in range(hd):
                    DQ[index(sq, (b, h, i, c))] = sum(dS[i][j] * K[j][c] for j in range(Tk)) * scale
            for j in range(Tk):
                for c in range(hd):
                    DK[index(sk, (b, h, j, c))] = sum(dS[i][j] * Q[i][c] for i in range(Tq)) * scale
                for c in range(hdv):
                    DV[index(sv, (b, h, j, c))] = sum(P[i][j] * G[i][c] for i in range(Tq))
    return (sq, DQ), (sk, DK), (sv, DV)


def topk_grad(dvalues, idx, columns):
    (N, k), data = dvalues
    out = [0.0] * (N * columns)
    for n in range(N):
        for j in range(k):
            out[n * columns + idx[1][n * k + j]] = data[n * k + j]
    return (N, columns), out


def grouped_matmul_weight_grad(x, dy, ends):
    """dw[g] = sum over the rows r of group g of x[r]^T dy[r]."""
    (R, K), (_, N) = x[0], dy[0]
    G = len(ends[1])
    out = [0.0] * (G * K * N)
    for g in range(G):
        for r in range(ends[1][g - 1] if g else 0, ends[1][g]):
            for a in range(K):
                for n in range(N):
                    out[(g * K + a) * N + n] += x[1][r * K + a] * dy[1][r * N + n]
    return (G, K, N), out


def numeric_grad(fn, t, dy, h=1e-6):
    """d/dt of sum(fn(t) * dy) by central differences (to check the definitions above)."""
    shape, data = t
    out = []
    for i in range(len(data)):
        plus, minus = list(data), list(data)
        plus[i] += h
        minus[i] -= h
        fp, fm = fn((shape, plus))[1], fn((shape, minus))[1]
        out.append(sum((a - b) * g for a, b, g in zip(fp, fm, dy[1])) / (2 * h))
    return out


def assert_close(got, want, tol, what):
    for a, b in zip(got, want):
        assert abs(a - b) <= tol * max(1.0, abs(b)), (what, a, b)
