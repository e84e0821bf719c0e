/* tinymoe.c - TinyMoE (../shared/notes/models.md) as a task program, written with the task builder.
 *
 * Shapes: B batch, T sequence, N = B*T tokens, D model width, H heads of hd = D/H, E experts, K experts
 * per token, F expert hidden width, V vocabulary, R = N*K expert rows. Weights are stored [in, out] so
 * that every projection is a plain x W.
 *
 * Precision (models.md): parameters are f32 masters; every matmul takes bf16 inputs (task.convert of
 * the activation and of the weight) and accumulates and stores f32; q, k, v enter attention as bf16
 * (after the fp32 rotary embedding) and the attention output stays bf16 for the output projection;
 * norms, the router (linear, softmax, top-k), the residual stream and the loss are fp32.
 *
 * SwiGLU: w13 is one parameter [E, D, 2F] (first F columns the gate a, last F the up projection b), as
 * models.md defines it. The halves come apart by latch_split_last (reshape / transpose / gather_rows),
 * either of the product or of the weight (swiglu_halves): one grouped matmul [R, 2F] split, or the bf16
 * weight split and two grouped matmuls [R, F]. a and b are the same sums over the same k either way; the
 * weight split rounds dx differently (two products added) and moves a constant number of bytes, the
 * product split a number that grows with the tokens.
 *
 * Dispatch: task.bucket sorts the N*K (token, slot) pairs by expert; pair j comes from token
 * order[j] / K (a map on i32), which indexes the gather of the normed tokens, the gather of its token's
 * probability sum and the scatter-add back. The routing weight of pair j is top_p_flat[order[j]]
 * divided by that sum (the renormalisation, done in pair order where the two line up, since a map
 * broadcasts only rank-0 inputs), and scales its expert output row (latch_scale_rows). */
#include <math.h>
#include <stdio.h>

#include "mlir-c/Diagnostics.h"

#include "../dialects/builder.h"
#include "models.h"

const latch_tinymoe_config latch_tinymoe_default = {
    .batch = 2, .seq = 1024, .layers = 4, .d_model = 512, .heads = 8,
    .experts = 8, .top_k = 2, .ffn = 1024, .vocab = 8192,
};

#define NORM_EPS 1e-5
#define ROPE_THETA 10000.0
#define INIT_STD 0.02
#define MAX_DIM (INT64_C(1) << 24)

typedef struct dims {
  int64_t B, T, N, D, H, hd, E, K, F, V, R;
} dims;

bool latch_tinymoe_check(const latch_tinymoe_config *c, char *error, size_t size) {
  const struct {
    const char *name;
    int64_t value;
  } fields[] = {{"batch", c->batch}, {"seq", c->seq},         {"layers", c->layers},
                {"d-model", c->d_model}, {"heads", c->heads}, {"experts", c->experts},
                {"top-k", c->top_k}, {"ffn", c->ffn},         {"vocab", c->vocab}};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i)
    if (fields[i].value < 1 || fields[i].value > MAX_DIM) {
      snprintf(error, size, "%s must be in 1..%lld, got %lld", fields[i].name, (long long)MAX_DIM,
               (long long)fields[i].value);
      return false;
    }
  if (c->d_model % c->heads != 0) {
    snprintf(error, size, "d-model %lld is not divisible by heads %lld", (long long)c->d_model,
             (long long)c->heads);
    return false;
  }
  if ((c->d_model / c->heads) % 2 != 0) {
    snprintf(error, size, "the head dim d-model / heads = %lld must be even (rotary embedding)",
             (long long)(c->d_model / c->heads));
    return false;
  }
  if (c->top_k > c->experts) {
    snprintf(error, size, "top-k %lld exceeds experts %lld", (long long)c->top_k, (long long)c->experts);
    return false;
  }
  if (c->batch * c->seq * c->top_k > INT32_MAX) {
    snprintf(error, size, "batch * seq * top-k = %lld exceeds the i32 index range",
             (long long)(c->batch * c->seq * c->top_k));
    return false;
  }
  return true;
}

int64_t latch_tinymoe_param_count(const latch_tinymoe_config *c) {
  int64_t d = c->d_model, e = c->experts;
  int64_t attention = d + 4 * d * d;                         /* norm scale, wq, wk, wv, wo */
  int64_t moe = d + d * e + e * d * 2 * c->ffn + e * c->ffn * d; /* norm scale, router, w13, w2 */
  return 2 * c->vocab * d + d + c->layers * (attention + moe);   /* embedding, head, final norm */
}

/* x_bf16[rows, in] times a new parameter `name` [in, out] (converted to bf16) -> f32 [rows, out]. */
static MlirValue linear(latch_builder *b, const char *name, MlirValue x_bf16, int64_t in, int64_t out) {
  MlirValue w = latch_param(b, name, LATCH_SHAPE(in, out), latch_normal(INIT_STD));
  return latch_matmul(b, x_bf16, latch_convert(b, w, LATCH_BF16), false, false);
}

/* [N, D] f32 -> [B, H, T, hd] bf16, with the rotary embedding (in fp32) when `rotate`. */
static MlirValue split_heads(latch_builder *b, const dims *d, MlirValue x, bool rotate) {
  MlirValue h = latch_reshape(b, x, LATCH_SHAPE(d->B, d->T, d->H, d->hd));
  if (rotate)
    h = latch_rope(b, h, ROPE_THETA);
  h = latch_convert(b, h, LATCH_BF16);
  return latch_transpose(b, h, LATCH_PERM(0, 2, 1, 3));
}

static MlirValue attention_block(latch_builder *b, const dims *d, MlirValue x) {
  LATCH_AT(b, "attn.norm");
  MlirValue scale = latch_param(b, "attn.norm.scale", LATCH_SHAPE(d->D), latch_ones());
  MlirValue h = latch_convert(b, latch_rmsnorm(b, x, scale, NORM_EPS), LATCH_BF16);

  LATCH_AT(b, "attn.q_proj");
  MlirValue q = split_heads(b, d, linear(b, "attn.wq", h, d->D, d->D), true);
  LATCH_AT(b, "attn.k_proj");
  MlirValue k = split_heads(b, d, linear(b, "attn.wk", h, d->D, d->D), true);
  LATCH_AT(b, "attn.v_proj");
  MlirValue v = split_heads(b, d, linear(b, "attn.wv", h, d->D, d->D), false);

  LATCH_AT(b, "attn.attention");
  MlirValue o = latch_attention(b, q, k, v, true, 1.0 / sqrt((double)d->hd));
  o = latch_reshape(b, latch_transpose(b, o, LATCH_PERM(0, 2, 1, 3)), LATCH_SHAPE(d->N, d->D));

  LATCH_AT(b, "attn.o_proj");
  MlirValue y = linear(b, "attn.wo", o, d->D, d->D);
  LATCH_AT(b, "attn.residual");
  return latch_add(b, x, y);
}

/* The gate and up halves a, b [R, F] of rows w13[e]: by splitting whichever moves fewer bytes. Splitting
 * X elements (the f32 product [R, 2F], or the weight [E, D, 2F]) costs about 16 X bytes forward (a
 * transpose and two gathers, 4-byte elements; half that for the bf16 weight) and 32 X backward (two
 * scatters into [2, X / 2], their sum, a transpose; gradients are f32); the weight split adds a sum of
 * the two products' dx [R, D] (12 R D bytes). For TinyMoE the weight split wins from R = 3,641 rows on
 * (2 x 1024 tokens have 4,096, 32 x 1024 65,536; 2 x 512 keep the product split). */
static void swiglu_halves(latch_builder *b, const dims *d, MlirValue rows, MlirValue w13, MlirValue ends,
                          MlirValue *halves) {
  int64_t product = 48 * d->R * 2 * d->F, weight = 40 * d->E * d->D * 2 * d->F + 12 * d->R * d->D;
  MlirValue w13_bf16 = latch_convert(b, w13, LATCH_BF16);
  if (weight <= product) {
    MlirValue w_halves[2];
    latch_split_last(b, w13_bf16, 2, w_halves);
    for (int half = 0; half < 2; ++half)
      halves[half] = latch_grouped_matmul(b, rows, w_halves[half], ends);
  } else {
    latch_split_last(b, latch_grouped_matmul(b, rows, w13_bf16, ends), 2, halves);
  }
}

/* SwiGLU on one element: silu(gate) * up. */
static void swiglu(latch_builder *b, const MlirValue *args, MlirValue *out, void *user_data) {
  (void)user_data;
  out[0] = latch_s_mul(b, latch_s_silu(b, args[0]), args[1]);
}

static MlirValue moe_block(latch_builder *b, const dims *d, MlirValue x) {
  LATCH_AT(b, "moe.norm");
  MlirValue scale = latch_param(b, "moe.norm.scale", LATCH_SHAPE(d->D), latch_ones());
  MlirValue h = latch_rmsnorm(b, x, scale, NORM_EPS);

  /* Router, all fp32: the top-K experts of each token by probability. */
  LATCH_AT(b, "moe.router");
  MlirValue router = latch_param(b, "moe.router", LATCH_SHAPE(d->D, d->E), latch_normal(INIT_STD));
  MlirValue probs = latch_softmax(b, latch_matmul(b, h, router, false, false));
  LATCH_AT(b, "moe.topk");
  MlirValue top_p, top_expert;
  latch_topk(b, probs, d->K, &top_p, &top_expert);

  /* Dispatch: pairs sorted by expert; pair j is token order[j] / K. */
  LATCH_AT(b, "moe.dispatch");
  MlirValue order, ends;
  latch_bucket(b, top_expert, d->E, &order, &ends);
  MlirValue token = latch_map_const(b, order, LATCH_FN_DIV, (double)d->K);
  MlirValue rows = latch_gather_rows(b, latch_convert(b, h, LATCH_BF16), token);

  /* Routing weight of pair j, the K kept probabilities renormalised to sum 1: p[order[j]] over the sum
   * of its token's kept probabilities (both gathered into pair order, where they line up). */
  LATCH_AT(b, "moe.renorm");
  MlirValue pair_p = latch_gather_rows(b, latch_reshape(b, top_p, LATCH_SHAPE(d->R, 1)), order);
  MlirValue token_sum = latch_reshape(b, latch_reduce(b, top_p, 1, "sum"), LATCH_SHAPE(d->N, 1));
  MlirValue pair_sum = latch_gather_rows(b, token_sum, token);
  MlirValue pair_weight = latch_map2(b, pair_p, pair_sum, LATCH_FN_DIV);

  /* Experts: [gate | up] = rows w13[e], silu(gate) * up, then w2[e]. */
  LATCH_AT(b, "moe.w13");
  MlirValue w13 = latch_param(b, "moe.w13", LATCH_SHAPE(d->E, d->D, 2 * d->F), latch_normal(INIT_STD));
  MlirValue halves[2], act;
  swiglu_halves(b, d, rows, w13, ends, halves);
  LATCH_AT(b, "moe.swiglu");
  latch_map(b, 2, halves, 1, &(latch_dtype){LATCH_F32}, LATCH_SCALAR, swiglu, NULL, &act);
  LATCH_AT(b, "moe.w2");
  MlirValue w2 = latch_param(b, "moe.w2", LATCH_SHAPE(d->E, d->F, d->D), latch_normal(INIT_STD));
  MlirValue act_bf16 = latch_convert(b, act, LATCH_BF16);
  MlirValue out = latch_grouped_matmul(b, act_bf16, latch_convert(b, w2, LATCH_BF16), ends);

  /* Combine: each row times its routing weight, summed back onto its token in pair order. */
  LATCH_AT(b, "moe.combine");
  MlirValue y = latch_scatter_add_rows(b, latch_scale_rows(b, out, pair_weight), token, d->N);
  LATCH_AT(b, "moe.residual");
  return latch_add(b, x, y);
}

MlirModule latch_tinymoe_build(MlirContext context, const latch_tinymoe_config *c) {
  char error[256];
  if (!latch_tinymoe_check(c, error, sizeof(error))) {
    char message[300];
    snprintf(message, sizeof(message), "tinymoe: %s", error);
    mlirEmitError(mlirLocationUnknownGet(context), message);
    return (MlirModule){NULL};
  }
  dims d = {.B = c->batch, .T = c->seq, .N = c->batch * c->seq, .D = c->d_model, .H = c->heads,
            .hd = c->d_model / c->heads, .E = c->experts, .K = c->top_k, .F = c->ffn, .V = c->vocab,
            .R = c->batch * c->seq * c->top_k};
  latch_builder *b = latch_builder_create(context, "tinymoe", "tinymoe.c");
  if (!b)
    return (MlirModule){NULL};

  LATCH_AT(b, "inputs");
  MlirValue tokens = latch_input_ids(b, "tokens", LATCH_SHAPE(d.B, d.T), d.V);
  MlirValue targets = latch_input_ids(b, "targets", LATCH_SHAPE(d.N), d.V);

  LATCH_AT(b, "embed");
  MlirValue table = latch_param(b, "embed.table", LATCH_SHAPE(d.V, d.D), latch_normal(INIT_STD));
  MlirValue x = latch_reshape(b, latch_embedding(b, table, tokens), LATCH_SHAPE(d.N, d.D));

  for (int64_t layer = 0; layer < c->layers; ++layer) {
    latch_builder_push_scope(b, "layer%lld", (long long)layer);
    x = attention_block(b, &d, x);
    x = moe_block(b, &d, x);
    latch_builder_pop_scope(b);
  }

  LATCH_AT(b, "final.norm");
  MlirValue scale = latch_param(b, "final.norm.scale", LATCH_SHAPE(d.D), latch_ones());
  MlirValue h = latch_convert(b, latch_rmsnorm(b, x, scale, NORM_EPS), LATCH_BF16);
  LATCH_AT(b, "head");
  MlirValue logits = linear(b, "head.w", h, d.D, d.V);
  LATCH_AT(b, "loss");
  MlirValue loss = latch_cross_entropy(b, logits, targets);

  MlirModule module = latch_builder_finish(b, loss, 0, NULL);
  latch_builder_destroy(b);
  return module;
}

/* ---- the model table entry --------------------------------------------------------------------- */

static bool check(const void *config, char *error, size_t size) { return latch_tinymoe_check(config, error, size); }
static int64_t param_count(const void *config) { return latch_tinymoe_param_count(config); }
static MlirModule build(MlirContext context, const void *config) { return latch_tinymoe_build(context, config); }

#define OPTION(name, field, help) {name, offsetof(latch_tinymoe_config, field), help}
static const latch_model_option options[] = {
    OPTION("batch", batch, "sequences per batch (B)"),
    OPTION("seq", seq, "tokens per sequence (T)"),
    OPTION("layers", layers, "transformer layers"),
    OPTION("d-model", d_model, "model width (D)"),
    OPTION("heads", heads, "attention heads (D / heads must be even)"),
    OPTION("experts", experts, "experts per MoE layer (E)"),
    OPTION("top-k", top_k, "experts per token (K <= E)"),
    OPTION("ffn", ffn, "expert hidden width (F)"),
    OPTION("vocab", vocab, "vocabulary size (V)"),
};
#undef OPTION

const latch_model latch_model_tinymoe = {
    .name = "tinymoe",
    .summary = "TinyMoE of models.md: pre-norm attention + top-k MoE with SwiGLU experts",
    .config_size = sizeof(latch_tinymoe_config),
    .defaults = &latch_tinymoe_default,
    .options = options,
    .option_count = sizeof(options) / sizeof(options[0]),
    .check = check,
    .param_count = param_count,
    .build = build,
};
