"""tinymoe_torch.py - the fp64 reference of TinyMoE's loss and gradients in PyTorch, for the GPU checks at
sizes where latch-interp is too slow (TinyMoE 2x512: 63M parameters). Written from shared/notes/models.md
and test/jax/tinymoe.py (the JAX model that test/jax checks against latch-interp to 1e-10), with the
parameter names that `latch-gen tinymoe` gives its arguments. run_checks.py validates it against
latch-interp's fp64 gradients at a small size before it is trusted at a large one.

Per layer (pre-norm): x += Attn(RMSNorm(x)); x += MoE(RMSNorm(x)); then a final RMSNorm, the untied head
and the mean cross-entropy of every position against its target.
  attention: heads of hd = D/H, q/k/v/o projections without biases, rotary embedding on q and k (theta
             10000, rotate-half), causal, scale 1/sqrt(hd)
  MoE:       router D -> E, softmax, top-k of the probabilities (ties to the lower index), the k weights
             renormalised to sum 1; expert e: h = x w13[e] (first half a, second half b), silu(a) * b, w2[e]
  norms:     RMSNorm eps 1e-5 with a learned scale
Experts are evaluated densely (every token through every expert), then the top-k outputs picked.

Forced routing (`routing=`): the reference with each layer's top-k experts given, e.g. the GPU program's own
choice (latch-run --probe-dir: topk<layer>.indices), instead of picked from the fp64 router probabilities.
The router still runs in fp64 and the k gates are the fp64 probabilities of the given experts, renormalised,
so the gradient flows through the router as usual; only which experts a token uses is fixed. This separates
a wrong gradient from a different routing: near a router tie, the GPU's rounding may choose other experts
than fp64 does, and the loss is a different smooth function on each side of the tie.

Self-test on the CPU (needs torch only): `python3 test/gpu/tinymoe_torch.py --self-test` checks, on a tiny
random TinyMoE, that forcing the routing the reference picks itself gives bit-identical loss and
gradients, that forcing another routing changes them, and that the forced model's gradients match
central finite differences.
"""
import math

import numpy as np
import torch

EPS = 1e-5
THETA = 10000.0


def rmsnorm(x, w):
    return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + EPS) * w


def softmax(x):
    e = torch.exp(x - torch.max(x, dim=-1, keepdim=True).values)
    return e / torch.sum(e, dim=-1, keepdim=True)


def rope(x):
    _, t_len, _, hd = x.shape
    h = hd // 2
    f = torch.pow(torch.tensor(THETA, dtype=x.dtype, device=x.device),
                  -2.0 * torch.arange(h, dtype=x.dtype, device=x.device) / hd)
    a = torch.arange(t_len, dtype=x.dtype, device=x.device)[:, None] * f[None, :]
    cos, sin = torch.cos(a)[None, :, None, :], torch.sin(a)[None, :, None, :]
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def attention(q, k, v, scale):
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) * scale
    tq, tk = s.shape[-2], s.shape[-1]
    keep = torch.arange(tk, device=s.device)[None, :] <= torch.arange(tq, device=s.device)[:, None]
    s = torch.where(keep, s, torch.tensor(-math.inf, dtype=s.dtype, device=s.device))
    return torch.einsum("bhqk,bhkd->bhqd", softmax(s), v)


def topk(x, k):
    # A stable descending sort gives ties to the lower index, as task.topk does.
    idx = torch.sort(x, dim=-1, descending=True, stable=True).indices[:, :k]
    return torch.gather(x, -1, idx), idx


def cross_entropy(logits, targets):
    m = torch.max(logits, dim=-1, keepdim=True).values
    lse = (m + torch.log(torch.sum(torch.exp(logits - m), dim=-1, keepdim=True)))[:, 0]
    picked = torch.gather(logits, -1, targets[:, None].long())[:, 0]
    return torch.mean(lse - picked)


def layer_count(params):
    n = 0
    while f"layer{n}.attn.wq" in params:
        n += 1
    return n


def _ident(x):
    return x


def round_bf16(x):
    """x rounded to bf16 (through f32) in the forward pass; the gradient passes unchanged (the backward
    then reads the rounded value, as the GPU's backward reads the stored bf16 one). For the diagnostic
    `bf16-emulated` reference only."""
    r = x.detach().to(torch.float32).to(torch.bfloat16).to(x.dtype)
    return x + (r - x.detach())


def forward(p, tokens, targets, heads, top_k, round_mm=_ident, aux=None, routing=None, routes=None):
    """p: name -> fp64 tensor (the program's task.name names); tokens [B, T]; targets [B*T]. round_mm is
    applied to every matmul input that models.md keeps in bf16 (identity for the fp64 reference); aux, a
    list, receives per layer the gaps between the k-th and (k+1)-th router probability of every token.
    routing: None, or per layer an integer array [B*T, top_k] of expert indices that replaces the top-k
    choice (forced routing, see the module text); routes, a list, receives per layer the indices used."""
    B, T = tokens.shape
    V, D = p["embed.table"].shape
    hd = D // heads
    mm = lambda a, w: round_mm(a) @ round_mm(w)  # noqa: E731
    x = p["embed.table"][tokens.long()]
    layers = layer_count(p)
    if routing is not None and len(routing) != layers:
        raise ValueError(f"forced routing for {len(routing)} layers, but the model has {layers}")
    for layer in range(layers):
        pre = f"layer{layer}."
        h = rmsnorm(x, p[pre + "attn.norm.scale"])
        q = round_mm(rope(mm(h, p[pre + "attn.wq"]).reshape(B, T, heads, hd))).transpose(1, 2)
        k = round_mm(rope(mm(h, p[pre + "attn.wk"]).reshape(B, T, heads, hd))).transpose(1, 2)
        v = round_mm(mm(h, p[pre + "attn.wv"]).reshape(B, T, heads, hd)).transpose(1, 2)
        o = attention(q, k, v, 1.0 / math.sqrt(hd))
        x = x + mm(o.transpose(1, 2).reshape(B, T, D), p[pre + "attn.wo"])
        h = rmsnorm(x, p[pre + "moe.norm.scale"]).reshape(B * T, D)
        probs = softmax(h @ p[pre + "moe.router"])  # the router stays fp32 (models.md)
        if aux is not None and top_k < probs.shape[-1]:
            srt = torch.sort(probs.detach(), dim=-1, descending=True).values
            aux.append((srt[:, top_k - 1] - srt[:, top_k]).cpu().numpy())
        if routing is None:
            vals, idx = topk(probs, top_k)
        else:
            idx = forced_indices(routing[layer], probs.shape, top_k, layer, x.device)
            vals = torch.gather(probs, -1, idx)
        if routes is not None:
            routes.append(idx.detach().cpu().numpy())
        gates = vals / torch.sum(vals, dim=-1, keepdim=True)
        w13 = p[pre + "moe.w13"]
        F = w13.shape[-1] // 2
        ab = torch.einsum("nd,edf->enf", round_mm(h), round_mm(w13))
        a, b = ab[..., :F], ab[..., F:]
        act = round_mm(a / (1.0 + torch.exp(-a)) * b)
        out = torch.einsum("enf,efd->end", act, round_mm(p[pre + "moe.w2"]))
        picked = out[idx.T, torch.arange(B * T, device=x.device)[None, :]]
        y = torch.sum(gates.T[:, :, None] * picked, dim=0)
        x = x + y.reshape(B, T, D)
    h = rmsnorm(x, p["final.norm.scale"])
    logits = mm(h, p["head.w"]).reshape(B * T, V)
    return cross_entropy(logits, targets.reshape(B * T))


def forced_indices(given, probs_shape, top_k, layer, device):
    """The forced experts of one layer as a long tensor [N, top_k], checked: shape, range, and k distinct
    experts per token (a repeated expert would double its gate)."""
    n, experts = probs_shape
    idx = np.asarray(given)
    if idx.shape != (n, top_k) or idx.dtype.kind not in "iu":
        raise ValueError(f"layer {layer}: forced routing must be integers [{n}, {top_k}], not {idx.dtype} {list(idx.shape)}")
    if idx.size and (idx.min() < 0 or idx.max() >= experts):
        raise ValueError(f"layer {layer}: forced experts must lie in [0, {experts}), found {idx.min()} .. {idx.max()}")
    srt = np.sort(idx, axis=-1)
    if top_k > 1 and np.any(srt[:, 1:] == srt[:, :-1]):
        raise ValueError(f"layer {layer}: a token is routed twice to the same expert")
    return torch.tensor(idx.astype(np.int64), device=device)


def loss_and_grads(params, tokens, targets, heads, top_k, device=None, bf16=False, aux=None, routing=None,
                   routes=None):
    """params: name -> numpy array (any float dtype, used as fp64); returns (loss, name -> fp64 numpy
    gradient) of the mean cross-entropy. bf16: round the matmul inputs (a diagnostic, not the reference).
    routing / routes: forced routing per layer, and a list that receives the routing used (see forward)."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    p = {n: torch.tensor(np.asarray(v, dtype=np.float64), device=device, requires_grad=True)
         for n, v in params.items()}
    tok = torch.tensor(np.asarray(tokens), device=device)
    tgt = torch.tensor(np.asarray(targets), device=device)
    loss = forward(p, tok, tgt, heads, top_k, round_bf16 if bf16 else _ident, aux, routing, routes)
    loss.backward()
    return float(loss.detach().cpu()), {n: t.grad.detach().cpu().numpy() for n, t in p.items()}


def routing_differs(a, b):
    """Per token, whether two routings [N, k] choose different sets of experts (the order within a token's
    k experts does not change the output)."""
    a, b = np.sort(np.asarray(a), axis=-1), np.sort(np.asarray(b), axis=-1)
    if a.shape != b.shape:
        raise ValueError(f"routings of shapes {list(a.shape)} and {list(b.shape)}")
    return np.any(a != b, axis=-1)


def _tiny_model(seed, layers=2, d=16, heads=2, experts=4, ffn=8, vocab=11, batch=2, seq=5):
    rng = np.random.default_rng(seed)
    p = {"embed.table": rng.normal(0, 0.5, (vocab, d))}
    for layer in range(layers):
        pre = f"layer{layer}."
        p[pre + "attn.norm.scale"] = 1 + rng.normal(0, 0.1, d)
        for w in ("wq", "wk", "wv", "wo"):
            p[pre + "attn." + w] = rng.normal(0, 0.3, (d, d))
        p[pre + "moe.norm.scale"] = 1 + rng.normal(0, 0.1, d)
        p[pre + "moe.router"] = rng.normal(0, 0.5, (d, experts))
        p[pre + "moe.w13"] = rng.normal(0, 0.3, (experts, d, 2 * ffn))
        p[pre + "moe.w2"] = rng.normal(0, 0.3, (experts, ffn, d))
    p["final.norm.scale"] = 1 + rng.normal(0, 0.1, d)
    p["head.w"] = rng.normal(0, 0.3, (d, vocab))
    tokens = rng.integers(0, vocab, (batch, seq)).astype(np.int32)
    targets = rng.integers(0, vocab, batch * seq).astype(np.int32)
    return p, tokens, targets, heads


def self_test():
    """The forced-routing checks of the module text, on the CPU in fp64. Prints one line per check and
    returns the number of failures."""
    top_k, failures = 2, 0

    def report(ok, what):
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}")

    p, tokens, targets, heads = _tiny_model(1)
    routes = []
    loss, grads = loss_and_grads(p, tokens, targets, heads, top_k, device="cpu", routes=routes)
    report(len(routes) == layer_count(p) and all(r.shape == (tokens.size, top_k) for r in routes),
           f"routes: one [{tokens.size}, {top_k}] array per layer")
    # The reference's own routing, forced (and with each token's k experts in the other order).
    for label, given in (("its own routing", routes), ("its own routing, experts swapped", [r[:, ::-1] for r in routes])):
        f_loss, f_grads = loss_and_grads(p, tokens, targets, heads, top_k, device="cpu", routing=given)
        same = f_loss == loss and all(np.array_equal(f_grads[n], grads[n]) for n in grads)
        if label.endswith("swapped"):  # summation order of the k outputs changes: equal up to rounding
            worst = max(float(np.max(np.abs(f_grads[n] - grads[n]))) for n in grads)
            same = abs(f_loss - loss) <= 1e-15 and worst <= 1e-13
        report(same, f"forcing {label} reproduces the reference"
               + (" bit for bit" if not label.endswith("swapped") else " (to 1e-13)"))
    # Another routing: token 0 of layer 1 gets its second expert replaced by one it did not choose.
    other = [r.copy() for r in routes]
    unused = [e for e in range(p["layer1.moe.router"].shape[1]) if e not in other[1][0]]
    other[1][0, 1] = unused[0]
    o_loss, o_grads = loss_and_grads(p, tokens, targets, heads, top_k, device="cpu", routing=other)
    report(o_loss != loss and not np.array_equal(o_grads["layer1.moe.router"], grads["layer1.moe.router"]),
           "forcing another routing changes the loss and the router's gradient")
    report(int(np.sum(routing_differs(other[1], routes[1]))) == 1 and not np.any(routing_differs(routes[0], routes[0])),
           "routing_differs counts the one rerouted token")
    # The forced model is smooth in the parameters: its gradients are its finite differences.
    rng, eps, worst = np.random.default_rng(7), 1e-6, 0.0
    for name in ("layer0.moe.router", "layer1.moe.router", "layer1.moe.w13", "layer0.attn.wq", "embed.table"):
        for _ in range(3):
            at = tuple(int(rng.integers(0, n)) for n in p[name].shape)
            plus, minus = dict(p), dict(p)
            plus[name], minus[name] = p[name].copy(), p[name].copy()
            plus[name][at] += eps
            minus[name][at] -= eps
            lp = loss_and_grads(plus, tokens, targets, heads, top_k, device="cpu", routing=other)[0]
            lm = loss_and_grads(minus, tokens, targets, heads, top_k, device="cpu", routing=other)[0]
            fd, g = (lp - lm) / (2 * eps), o_grads[name][at]
            worst = max(worst, abs(fd - g) / max(abs(g), 1e-3))
    report(worst < 1e-6, f"forced-routing gradients match central differences (worst rel {worst:.1e})")
    for label, bad in (("a wrong shape", [routes[0][:, :1], routes[1]]),
                       ("an expert out of range", [routes[0] + 4, routes[1]]),
                       ("a repeated expert", [np.zeros_like(routes[0]), routes[1]]), ("one layer only", routes[:1])):
        try:
            loss_and_grads(p, tokens, targets, heads, top_k, device="cpu", routing=bad)
            report(False, f"forced routing with {label} is refused")
        except ValueError as e:
            report(True, f"forced routing with {label} is refused ({e})")
    print(f"{failures} failed")
    return failures


if __name__ == "__main__":
    import sys
    if sys.argv[1:] != ["--self-test"]:
        sys.exit("usage: tinymoe_torch.py --self-test   (the module is imported by run_checks.py)")
    sys.exit(1 if self_test() else 0)

