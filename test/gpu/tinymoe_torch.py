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


def forward(p, tokens, targets, heads, top_k, round_mm=_ident, aux=None):
    """p: name -> fp64 tensor (the program's task.name names); tokens [B, T]; targets [B*T]. round_mm is
    applied to every matmul input that models.md keeps in bf16 (identity for the fp64 reference); aux, a
    list, receives per layer the smallest gaps between the k-th and (k+1)-th router probability."""
    B, T = tokens.shape
    V, D = p["embed.table"].shape
    hd = D // heads
    mm = lambda a, w: round_mm(a) @ round_mm(w)  # noqa: E731
    x = p["embed.table"][tokens.long()]
    for layer in range(layer_count(p)):
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
        vals, idx = topk(probs, top_k)
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


def loss_and_grads(params, tokens, targets, heads, top_k, device=None, bf16=False, aux=None):
    """params: name -> numpy array (any float dtype, used as fp64); returns (loss, name -> fp64 numpy
    gradient) of the mean cross-entropy. bf16: round the matmul inputs (a diagnostic, not the reference)."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    p = {n: torch.tensor(np.asarray(v, dtype=np.float64), device=device, requires_grad=True)
         for n, v in params.items()}
    tok = torch.tensor(np.asarray(tokens), device=device)
    tgt = torch.tensor(np.asarray(targets), device=device)
    loss = forward(p, tok, tgt, heads, top_k, round_bf16 if bf16 else _ident, aux)
    loss.backward()
    return float(loss.detach().cpu()), {n: t.grad.detach().cpu().numpy() for n, t in p.items()}
