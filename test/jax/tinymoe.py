"""TinyMoE forward and loss in JAX, written from shared/notes/models.md (not from latch-gen's output).

Per layer (pre-norm): x += Attn(RMSNorm(x)); x += MoE(RMSNorm(x)); then a final RMSNorm, an untied head
and the mean cross-entropy of every position against its next-token target.
  attention: H heads of hd = D/H, q/k/v/o projections without biases, rotary embedding on q and k
             (theta 10000, rotate-half), causal, scale 1/sqrt(hd)
  MoE:       router linear D -> E, softmax, top-k of the probabilities, the k weights renormalised to sum 1;
             expert e: SwiGLU, h = x w13[e] (first half a, second half b), silu(a) * b, then w2[e]
  norms:     RMSNorm eps 1e-5 with a learned scale
Weights are applied as `x @ W` with W stored [in, out] (experts [E, in, out]), the orientation that the
task ops take without transposes; check_tinymoe.py maps the program's arguments onto these names.

The experts are evaluated densely (every token through every expert) and the top-k outputs are picked
and weighted afterwards, so nothing here depends on a sort/bucket/grouped-matmul formulation of the MoE.
`round_matmul_inputs` / `round_f32` let the bf16 check round where models.md says the GPU stores values.
"""
import numpy as np

import ops

jnp = ops.jnp

EPS = 1e-5
THETA = 10000.0


def _ident(x):
    return x


def forward(params, tokens, targets, cfg, round_f32=_ident, round_mm=_ident, with_aux=False):
    """Mean next-token cross-entropy. params: dict of fp64 arrays (see param_shapes). tokens, targets:
    int [B, T]. round_f32 is applied to every activation that models.md keeps in fp32, round_mm to
    every matmul input that it keeps in bf16 (identity for the fp64 check)."""
    B, T = tokens.shape
    D, H, E, K = cfg["d_model"], cfg["heads"], cfg["experts"], cfg["top_k"]
    hd = D // H

    def mm(a, w):  # bf16 inputs (when rounding), fp32 accumulation and result
        return round_f32(jnp.matmul(round_mm(a), round_mm(w)))

    aux = {"route_gap": []}
    x = round_f32(jnp.asarray(params["embed"])[jnp.asarray(tokens)])  # [B, T, D]
    for layer in range(cfg["layers"]):
        pre = f"layers.{layer}."
        p = {k[len(pre):]: v for k, v in params.items() if k.startswith(pre)}
        h = round_f32(ops.rmsnorm(x, p["attn_norm"], EPS))
        # q k^T and p v are matmuls too: q, k, v enter attention as bf16 (when rounding).
        q = round_mm(round_f32(ops.rope(mm(h, p["wq"]).reshape(B, T, H, hd), THETA)))
        k = round_mm(round_f32(ops.rope(mm(h, p["wk"]).reshape(B, T, H, hd), THETA)))
        v = round_mm(mm(h, p["wv"]).reshape(B, T, H, hd))
        q, k, v = (jnp.transpose(a, (0, 2, 1, 3)) for a in (q, k, v))
        o = round_f32(ops.attention(q, k, v, True, 1.0 / np.sqrt(hd)))
        x = round_f32(x + mm(jnp.transpose(o, (0, 2, 1, 3)).reshape(B, T, D), p["wo"]))

        h = round_f32(ops.rmsnorm(x, p["ffn_norm"], EPS)).reshape(B * T, D)
        probs = round_f32(ops.softmax(round_f32(jnp.matmul(h, p["router"]))))  # router in fp32
        vals, idx = ops.topk(probs, K)
        if with_aux:  # concrete values: not under jax.grad / jax.jit (check_grads.py differentiates this)
            srt = jnp.sort(probs, axis=-1)[:, ::-1]
            aux["route_gap"].append(float(jnp.min(srt[:, K - 1] - srt[:, K])) if K < E else float("inf"))
        gates = round_f32(vals / jnp.sum(vals, axis=-1, keepdims=True))  # [N, K]
        F = p["w13"].shape[-1] // 2
        ab = round_f32(jnp.einsum("nd,edf->enf", round_mm(h), round_mm(p["w13"])))  # [E, N, 2F]
        act = round_mm(round_f32(ops.map_(lambda a, b: [a / (1.0 + jnp.exp(-a)) * b], ab[..., :F], ab[..., F:])[0]))
        out = round_f32(jnp.einsum("enf,efd->end", act, round_mm(p["w2"])))  # [E, N, D]
        picked = out[idx.T.astype(jnp.int64), jnp.arange(B * T)[None, :]]  # [K, N, D]
        y = round_f32(jnp.sum(gates.T[:, :, None] * picked, axis=0))
        x = round_f32(x + y.reshape(B, T, D))

    h = round_f32(ops.rmsnorm(x, params["final_norm"], EPS))
    logits = mm(h, params["head"]).reshape(B * T, -1)
    loss = ops.cross_entropy(logits, jnp.asarray(targets).reshape(B * T))
    return (loss, aux) if with_aux else loss


def param_shapes(cfg):
    """Semantic parameter names and shapes (the order is not the program's: check_tinymoe.py maps)."""
    D, V, E, F = cfg["d_model"], cfg["vocab"], cfg["experts"], cfg["ffn"]
    shapes = {"embed": (V, D)}
    for layer in range(cfg["layers"]):
        pre = f"layers.{layer}."
        shapes.update({pre + "attn_norm": (D,), pre + "wq": (D, D), pre + "wk": (D, D), pre + "wv": (D, D),
                       pre + "wo": (D, D), pre + "ffn_norm": (D,), pre + "router": (D, E),
                       pre + "w13": (E, D, 2 * F), pre + "w2": (E, F, D)})
    shapes.update({"final_norm": (D,), "head": (D, V)})
    return shapes
