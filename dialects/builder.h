/* builder.h - the C builder of task programs: how models are written in Latch.
 *
 * A builder makes one `func.func`: declare inputs and parameters (function arguments with their
 * `task.*` argument attributes), emit task ops whose result types are inferred from their operands, and
 * finish with the loss. Every op gets the builder's current location, a name location such as
 * `layer0.attn.q_proj` around `tinymoe.c:LINE:0`, set with LATCH_AT; diagnostics therefore name the
 * model layer and the line of the model source.
 *
 *     latch_builder *b = latch_builder_create(context, "mlp", "mlp.c");
 *     MlirValue x = latch_input(b, "x", LATCH_SHAPE(8, 16), LATCH_F32);
 *     MlirValue w = latch_param(b, "w", LATCH_SHAPE(16, 4), latch_normal(0.25));
 *     LATCH_AT(b, "fc");
 *     MlirValue y = latch_map1(b, latch_matmul(b, x, w, false, false), LATCH_FN_SILU);
 *     ...
 *     MlirModule module = latch_builder_finish(b, loss, 0, NULL);  // null if anything failed
 *     latch_builder_destroy(b);
 *
 * Errors. A shape, dtype or attribute error is reported with mlirEmitError at the current location
 * (the message starts with the location's name and the op: "layer0.moe.w2: 'task.grouped_matmul' ...")
 * and puts the builder into a failed state: every later call returns a null value and does nothing, and
 * latch_builder_finish returns a null module. The builder's own checks follow docs/task-dialect.md;
 * after them every op is also run through the MLIR verifier (the IRDL definitions), so whatever the
 * dialect definition rejects is reported at the op as well. A builder never hands out an invalid
 * module; the finished module also passes mlirOperationVerify.
 *
 * Ownership. The caller owns the builder (latch_builder_destroy) and the finished module
 * (mlirModuleDestroy). Values are owned by the function under construction: they are valid until the
 * builder is destroyed or, after a successful finish, as long as the module lives. */
#ifndef LATCH_BUILDER_H
#define LATCH_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

/* ---- element types and shapes ------------------------------------------------------------------ */

typedef enum latch_dtype {
  LATCH_F32,
  LATCH_BF16,
  LATCH_I32,
  LATCH_F64, /* accepted for reference programs */
  LATCH_DTYPE_INVALID,
} latch_dtype;

#define LATCH_MAX_RANK 8

/* A static shape (also used for permutations). LATCH_SHAPE(2, 1024) is a rank-2 shape; LATCH_SCALAR is
 * rank 0. */
typedef struct latch_shape {
  int rank;
  int64_t dims[LATCH_MAX_RANK];
} latch_shape;

#define LATCH_SHAPE(...) \
  ((latch_shape){(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__}})
#define LATCH_PERM(...) LATCH_SHAPE(__VA_ARGS__)
#define LATCH_SCALAR ((latch_shape){0, {0}})

/* The MLIR element type of `dtype` (null for LATCH_DTYPE_INVALID), and its name ("f32", ...). */
MlirType latch_dtype_type(MlirContext context, latch_dtype dtype);
const char *latch_dtype_name(latch_dtype dtype);
/* `tensor<shape x dtype>`. */
MlirType latch_tensor_type(MlirContext context, latch_shape shape, latch_dtype dtype);
/* The dtype of a scalar type or of a tensor's element type; LATCH_DTYPE_INVALID for anything else. */
latch_dtype latch_type_dtype(MlirType type);
/* The dtype and shape of a static ranked tensor value (LATCH_DTYPE_INVALID / rank -1 otherwise). */
latch_dtype latch_value_dtype(MlirValue value);
latch_shape latch_value_shape(MlirValue value);
/* Product of the dims (1 for rank 0). */
int64_t latch_shape_elements(latch_shape shape);

/* ---- the builder ------------------------------------------------------------------------------- */

typedef struct latch_builder latch_builder;

/* Starts a function named `function_name`; `file` is the file name of every location (the model's
 * source file, e.g. "tinymoe.c"). The context must have the Latch dialects loaded
 * (latch_context_create). Returns NULL when out of memory. The caller owns the builder. */
latch_builder *latch_builder_create(MlirContext context, const char *function_name, const char *file);
/* Frees the builder and, unless latch_builder_finish handed it out, the function under construction. */
void latch_builder_destroy(latch_builder *b);

MlirContext latch_builder_context(const latch_builder *b);
/* True once an error was reported (or after latch_builder_finish). */
bool latch_builder_failed(const latch_builder *b);

/* Reports `message` (printf format) at the current location and enters the failed state. For models
 * that check their own configuration. */
void latch_builder_error(latch_builder *b, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Finishes the function with results (loss, extras...) and returns it in a new module (the caller owns
 * it). `loss` must be a rank-0 f32 tensor. Returns a null module, after reporting why, when the builder
 * failed at any point or the result does not verify. The builder is finished afterwards: later calls
 * are no-ops. */
MlirModule latch_builder_finish(latch_builder *b, MlirValue loss, intptr_t extra_count,
                                const MlirValue *extras);

/* ---- locations --------------------------------------------------------------------------------- */

/* Sets the location of the ops that follow: a name location "<scopes>.<name>" (name: printf format)
 * around `<file>:line:0`. Use the LATCH_AT macro, which passes __LINE__. */
void latch_builder_at(latch_builder *b, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
#define LATCH_AT(b, ...) latch_builder_at((b), __LINE__, __VA_ARGS__)

/* Scopes prefix every later location name and every parameter name: after
 * latch_builder_push_scope(b, "layer%d", 0), LATCH_AT(b, "attn.q") names ops "layer0.attn.q" and
 * latch_param(b, "attn.wq", ...) declares "layer0.attn.wq". */
void latch_builder_push_scope(latch_builder *b, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void latch_builder_pop_scope(latch_builder *b);

/* The location the next op gets. */
MlirLocation latch_builder_location(const latch_builder *b);

/* ---- arguments: inputs and parameters ---------------------------------------------------------- */

typedef enum latch_init_kind { LATCH_INIT_NORMAL, LATCH_INIT_ONES, LATCH_INIT_ZEROS } latch_init_kind;

/* How a parameter is initialised (docs/task-dialect.md): normal with a standard deviation, ones or
 * zeros. */
typedef struct latch_init {
  latch_init_kind kind;
  double std;
} latch_init;

static inline latch_init latch_normal(double std) { return (latch_init){LATCH_INIT_NORMAL, std}; }
static inline latch_init latch_ones(void) { return (latch_init){LATCH_INIT_ONES, 0}; }
static inline latch_init latch_zeros(void) { return (latch_init){LATCH_INIT_ZEROS, 0}; }

/* Declares an f32 parameter (master parameters are f32): an argument with `task.param`,
 * `task.name = "<scopes>.<name>"` and `task.init_std` (normal) or `task.init` ("ones", "zeros"). */
MlirValue latch_param(latch_builder *b, const char *name, latch_shape shape, latch_init init);
/* Declares an input: an argument with `task.name = "<name>"` (not scoped). */
MlirValue latch_input(latch_builder *b, const char *name, latch_shape shape, latch_dtype dtype);
/* Declares an i32 input of ids valid in [0, range): `task.name` and `task.range = range : i64`. */
MlirValue latch_input_ids(latch_builder *b, const char *name, latch_shape shape, int64_t range);

/* ---- task ops (result types inferred; docs/task-dialect.md gives the rules) ------------------- */

/* op(a) x op(b), rank 2 or rank 3 with a shared leading batch dim; the result is f32 (fp32
 * accumulation). latch_matmul_to picks the result dtype (f32 or the inputs' dtype). */
MlirValue latch_matmul(latch_builder *b, MlirValue a, MlirValue bm, bool transpose_a, bool transpose_b);
MlirValue latch_matmul_to(latch_builder *b, MlirValue a, MlirValue bm, bool transpose_a, bool transpose_b,
                          latch_dtype result);
/* x[R,K], w[G,K,N], ends i32[G] -> f32 [R,N]. */
MlirValue latch_grouped_matmul(latch_builder *b, MlirValue x, MlirValue w, MlirValue ends);
/* Reduces `axis` away; kind "sum", "max" or "mean". */
MlirValue latch_reduce(latch_builder *b, MlirValue x, int64_t axis, const char *kind);
MlirValue latch_rmsnorm(latch_builder *b, MlirValue x, MlirValue w, double eps);
MlirValue latch_softmax(latch_builder *b, MlirValue x);
/* logits[N,V], targets i32[N] -> rank-0 f32 mean loss. */
MlirValue latch_cross_entropy(latch_builder *b, MlirValue logits, MlirValue targets);
/* table[V,D], ids i32[...] -> [..., D] of the table's dtype. */
MlirValue latch_embedding(latch_builder *b, MlirValue table, MlirValue ids);
MlirValue latch_rope(latch_builder *b, MlirValue x, double theta);
/* q[B,H,Tq,hd], k, v[B,H,Tk,hd] -> [B,H,Tq,hd] of q's dtype. */
MlirValue latch_attention(latch_builder *b, MlirValue q, MlirValue k, MlirValue v, bool causal, double scale);
/* x[N,E] -> values[N,k] (x's dtype), indices i32[N,k]. */
void latch_topk(latch_builder *b, MlirValue x, int64_t k, MlirValue *out_values, MlirValue *out_indices);
/* ids i32[N,k] -> order i32[N*k], ends i32[buckets]. */
void latch_bucket(latch_builder *b, MlirValue ids, int64_t buckets, MlirValue *out_order, MlirValue *out_ends);
MlirValue latch_gather_rows(latch_builder *b, MlirValue x, MlirValue idx);
MlirValue latch_scatter_add_rows(latch_builder *b, MlirValue x, MlirValue idx, int64_t rows);
MlirValue latch_reshape(latch_builder *b, MlirValue x, latch_shape shape);
MlirValue latch_transpose(latch_builder *b, MlirValue x, latch_shape perm);
MlirValue latch_convert(latch_builder *b, MlirValue x, latch_dtype dtype);

typedef struct latch_adamw_config {
  double lr, beta1, beta2, eps, weight_decay;
} latch_adamw_config;

/* p, g, m, v (f32, one shape), step (rank-0 f32 or i32) -> p', m', v'. */
void latch_adamw(latch_builder *b, MlirValue p, MlirValue g, MlirValue m, MlirValue v, MlirValue step,
                 const latch_adamw_config *config, MlirValue *out_p, MlirValue *out_m, MlirValue *out_v);

/* ---- element-wise maps ------------------------------------------------------------------------- */

/* The scalar functions of map bodies. Binary ones take (x, y); on i32 the arithmetic is signed integer
 * arithmetic (DIV truncates). */
typedef enum latch_fn {
  /* binary */
  LATCH_FN_ADD,
  LATCH_FN_SUB,
  LATCH_FN_MUL,
  LATCH_FN_DIV,
  LATCH_FN_MAX,
  LATCH_FN_MIN,
  /* unary */
  LATCH_FN_NEG,
  LATCH_FN_EXP,
  LATCH_FN_LOG,
  LATCH_FN_SQRT,
  LATCH_FN_RSQRT,
  LATCH_FN_TANH,
  LATCH_FN_SIGMOID, /* 1 / (1 + exp(-x)) */
  LATCH_FN_SILU,    /* x / (1 + exp(-x)) */
  LATCH_FN_RELU,    /* max(x, 0) */
  LATCH_FN_SQUARE,  /* x * x */
} latch_fn;

/* The body of a general map: emit scalar ops with the latch_s_* functions below (they insert into the
 * map's body) and store one scalar per output in `out_results`. `args` holds one scalar per input. */
typedef void (*latch_map_body_fn)(latch_builder *b, const MlirValue *args, MlirValue *out_results,
                                  void *user_data);

/* A task.map over `ins` (rank-0 inputs broadcast; the others share one shape, which the outputs get)
 * with outputs of `out_dtypes`. Without a non-rank-0 input the outputs have `shape` (only then is
 * `shape` read; pass LATCH_SCALAR otherwise). Writes the outputs to `outs`; returns false on failure
 * (outs are then null). At most LATCH_MAP_MAX_INPUTS inputs and LATCH_MAP_MAX_OUTPUTS outputs
 * (dialects/ops.h). */
bool latch_map(latch_builder *b, intptr_t in_count, const MlirValue *ins, intptr_t out_count,
               const latch_dtype *out_dtypes, latch_shape shape, latch_map_body_fn body, void *user_data,
               MlirValue *outs);

/* One-line maps: fn(x), fn(x, y) and fn(x, c) with the constant c of x's dtype; the result has the
 * dtype of x. */
MlirValue latch_map1(latch_builder *b, MlirValue x, latch_fn fn);
MlirValue latch_map2(latch_builder *b, MlirValue x, MlirValue y, latch_fn fn);
MlirValue latch_map_const(latch_builder *b, MlirValue x, latch_fn fn, double c);

static inline MlirValue latch_add(latch_builder *b, MlirValue x, MlirValue y) {
  return latch_map2(b, x, y, LATCH_FN_ADD);
}
static inline MlirValue latch_mul(latch_builder *b, MlirValue x, MlirValue y) {
  return latch_map2(b, x, y, LATCH_FN_MUL);
}
static inline MlirValue latch_scale(latch_builder *b, MlirValue x, double c) {
  return latch_map_const(b, x, LATCH_FN_MUL, c);
}

/* Scalar ops, valid only inside a map body callback (elsewhere they fail the builder). */
MlirValue latch_s_apply1(latch_builder *b, latch_fn fn, MlirValue x);
MlirValue latch_s_apply2(latch_builder *b, latch_fn fn, MlirValue x, MlirValue y);
/* An arith.constant of scalar type `type` (float or integer). */
MlirValue latch_s_const(latch_builder *b, MlirType type, double value);
/* arith/math casts between scalar dtypes (extf/truncf/sitofp/fptosi). */
MlirValue latch_s_convert(latch_builder *b, MlirValue x, latch_dtype dtype);

static inline MlirValue latch_s_add(latch_builder *b, MlirValue x, MlirValue y) {
  return latch_s_apply2(b, LATCH_FN_ADD, x, y);
}
static inline MlirValue latch_s_mul(latch_builder *b, MlirValue x, MlirValue y) {
  return latch_s_apply2(b, LATCH_FN_MUL, x, y);
}
static inline MlirValue latch_s_div(latch_builder *b, MlirValue x, MlirValue y) {
  return latch_s_apply2(b, LATCH_FN_DIV, x, y);
}
static inline MlirValue latch_s_silu(latch_builder *b, MlirValue x) {
  return latch_s_apply1(b, LATCH_FN_SILU, x);
}

/* ---- composites (documented sequences of core ops) -------------------------------------------- */

/* A tensor of `shape` filled with `value`: a task.map with no inputs whose body yields a constant. */
MlirValue latch_fill(latch_builder *b, latch_shape shape, latch_dtype dtype, double value);

/* Splits the last dim of x[..., P*F] into P tensors [..., F] (part p = columns p*F .. (p+1)*F):
 * x -> reshape [R, P, F] -> transpose [P, R, F] -> reshape [P, R*F] -> for each p: gather_rows with a
 * filled index [p] -> [1, R*F] -> reshape [..., F]. Writes the parts to `outs`; false on failure. */
bool latch_split_last(latch_builder *b, MlirValue x, int64_t parts, MlirValue *outs);

/* y[r, :] = x[r, :] * w[r] for x[R,D] and w[R] or [R,1] (both f32): a batch-R matmul of w as [R,1,1]
 * by x as [R,1,D] (exact: one product per element, no sum), reshaped back to [R,D]. */
MlirValue latch_scale_rows(latch_builder *b, MlirValue x, MlirValue w);

/* ---- inspection -------------------------------------------------------------------------------- */

/* The number of parameter elements (arguments with `task.param`) of every func.func in `module`. */
int64_t latch_module_param_count(MlirModule module);

#endif
