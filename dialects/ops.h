/* ops.h - the op tables of the task, interval and arena dialects and a small C layer to create and
 * inspect their ops: typed accessors for operands, results and attributes keep pass code short. */
#ifndef LATCH_OPS_H
#define LATCH_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

/* The kind of an attribute as the IRDL definitions declare it. */
typedef enum latch_attr_kind {
  LATCH_ATTR_BOOL,        /* i1 integer attribute */
  LATCH_ATTR_INT,         /* i64 integer attribute */
  LATCH_ATTR_FLOAT,       /* f64 float attribute */
  LATCH_ATTR_STRING,      /* string attribute */
  LATCH_ATTR_I64_ARRAY,   /* array<i64: ...> */
  LATCH_ATTR_TYPE,        /* a type attribute (interval.program's function_type) */
} latch_attr_kind;

typedef struct latch_attr_desc {
  const char *name;
  latch_attr_kind kind;
} latch_attr_desc;

/* Every op of the three dialects. Names, counts and attributes of each op are in the descriptor table
 * of ops.c (in IRDL order); a C test checks that every kind has an entry and that the table agrees with
 * the IRDL definitions. */
#define LATCH_OP_LIST(X)                                   \
  X(TASK_MATMUL)                   \
  X(TASK_GROUPED_MATMUL)   \
  X(TASK_MAP)                       \
  X(TASK_REDUCE)                   \
  X(TASK_RMSNORM)                 \
  X(TASK_SOFTMAX)                 \
  X(TASK_CROSS_ENTROPY)     \
  X(TASK_EMBEDDING)             \
  X(TASK_ROPE)                       \
  X(TASK_ATTENTION)             \
  X(TASK_TOPK)                       \
  X(TASK_BUCKET)                   \
  X(TASK_GATHER_ROWS)         \
  X(TASK_SCATTER_ADD_ROWS) \
  X(TASK_RESHAPE)                 \
  X(TASK_TRANSPOSE)             \
  X(TASK_CONVERT)                 \
  X(TASK_ADAMW)                     \
  X(TASK_REDUCE_GRAD)              \
  X(TASK_RMSNORM_GRAD)             \
  X(TASK_SOFTMAX_GRAD)             \
  X(TASK_CROSS_ENTROPY_GRAD)       \
  X(TASK_ROPE_GRAD)                \
  X(TASK_ATTENTION_GRAD)           \
  X(TASK_TOPK_GRAD)                \
  X(TASK_GROUPED_MATMUL_WEIGHT_GRAD)                     \
  X(TASK_ATTENTION_STATS)          \
  X(TASK_ATTENTION_GRAD_FROM_STATS) \
  X(TASK_ATTENTION_LSE)            \
  X(TASK_ATTENTION_STATS_FROM_LSE) \
  X(TASK_CROSS_ENTROPY_WITH_STATS) \
  X(TASK_CROSS_ENTROPY_GRAD_FROM_STATS) \
  X(TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT) \
  X(INTERVAL_PROGRAM)         \
  X(INTERVAL_INTERVAL)       \
  X(INTERVAL_BARRIER)         \
  X(ARENA_ARENA)                   \
  X(ARENA_SLOT)                     \
  X(ARENA_BIND)                     \
  X(ARENA_VIEW)

/* task.map takes at most this many inputs and outputs: IRDL cannot type a variadic list whose elements
 * differ, so each position is an optional operand of its own (see dialects/task.irdl.mlir). */
#define LATCH_MAP_MAX_INPUTS 12
#define LATCH_MAP_MAX_OUTPUTS 6

typedef enum latch_op_kind {
  LATCH_OP_UNKNOWN = 0,
#define X(kind) LATCH_OP_##kind,
  LATCH_OP_LIST(X)
#undef X
  LATCH_OP_COUNT
} latch_op_kind;

typedef struct latch_op_desc {
  latch_op_kind kind;
  const char *name;
  int operand_count; /* -1: variadic */
  int result_count;  /* -1: variadic */
  int region_count;
  const char *const *operand_names;
  const char *const *result_names;
  const latch_attr_desc *attrs;
  int attr_count;
} latch_op_desc;

/* The descriptor of `kind`, or NULL for LATCH_OP_UNKNOWN. */
const latch_op_desc *latch_op_desc_get(latch_op_kind kind);
/* The kind of `op`, LATCH_OP_UNKNOWN for ops of other dialects. */
latch_op_kind latch_op_kind_of(MlirOperation op);
/* The task op kind named `name` without its dialect ("rmsnorm" for task.rmsnorm; `length` bytes), or
 * LATCH_OP_UNKNOWN. */
latch_op_kind latch_task_kind_named(const char *name, size_t length);
/* Every attribute of `from` (task.phase, causal, ...) onto `to`: a rewrite that replaces a task by another
 * keeps what its passes and tools read. */
void latch_copy_attributes(MlirOperation from, MlirOperation to);
/* The ops of `kind` nested in `root`, in post order, into a malloc'ed array (*out_ops, to be freed; NULL
 * when there are none): collected first, so that a pass can then rewrite them. False when memory runs
 * out (nothing to free then). */
bool latch_ops_of_kind(MlirOperation root, latch_op_kind kind, MlirOperation **out_ops, size_t *out_count);
/* True when `op` is an op of the task dialect. */
bool latch_op_is_task(MlirOperation op);
/* True when `op` is named `name` (any dialect: "func.func", "arith.constant", "task.map"). */
bool latch_op_is(MlirOperation op, const char *name);
/* True when `ref` holds exactly the characters of the NUL-terminated `text`. */
bool latch_ref_is(MlirStringRef ref, const char *text);
/* The element count of a ranked shaped type: the product of its dimensions (static ones expected). */
int64_t latch_type_element_count(MlirType shaped);
/* Elements and bytes of a static tensor type; false when it cannot be sized (dynamic, an element type of
 * no fixed width, or more than INT64_MAX / 8 elements). */
bool latch_tensor_type_size(MlirType type, int64_t *out_elements, int64_t *out_bytes);

/* Creates a detached op of `kind` (the caller owns it until it is inserted into a block). `attrs`
 * holds one attribute per entry of the kind's attribute table, in table order. Region ops get
 * `region_count` empty regions; a task.map also gets its operand and result segment sizes. Operand and
 * result counts are checked against the table (and the map limits); returns a null op when they do
 * not match. */
MlirOperation latch_op_create(latch_op_kind kind, MlirLocation loc, intptr_t result_count,
                              const MlirType *result_types, intptr_t operand_count,
                              const MlirValue *operands, const MlirAttribute *attrs);

/* Attribute values by name; a missing or mistyped attribute reads as the given fallback. */
bool latch_attr_bool(MlirOperation op, const char *name, bool fallback);

/* task.grouped_matmul's optional attribute `transpose_w` (absent: false; latch-verify checks that it is a
 * bool): w is [G, N, K] and y[r] = x[r] w[g]^T. Optional because IRDL attributes are all required and the
 * forward programs never need it; latch-autodiff writes it for dx. */
bool latch_grouped_matmul_transpose_w(MlirOperation op);
/* task.grouped_matmul's optional attribute `w_column_offset` (an i64 c; absent: -1, w read whole): w's last
 * dim is a wider P and the op reads its columns [c, c + n), n being the width the op's other operands give
 * (N, or K with transpose_w). Written by latch-fold-weight-split, so that the products read the halves of
 * SwiGLU's w13 where they lie instead of copies; latch-verify checks 0 <= c and c + n <= P. */
int64_t latch_grouped_matmul_w_column_offset(MlirOperation op);
/* Whether `op` carries a `task.fused` mark (latch-fuse-phases, latch-memory-rules: it runs as part of
 * another task's tiles, so the passes that rewrite single tasks leave it alone). */
bool latch_has_fused_mark(MlirOperation op);
/* The optional attribute `layout` of the attention ops (task.attention, task.attention_lse,
 * task.attention_stats, task.attention_stats_from_lse, task.attention_grad_from_stats; absent: [B, H, T, d];
 * latch-verify checks it): "bthd" stores each of their [B, H, T, d] tensors (q, k, v, o, do, dq, dk, dv; not
 * stats or lse) as [B, T, H, d], the layout of the projections around them, so that no
 * transpose is needed (latch-fold-transposes writes it). */
bool latch_attention_bthd(MlirOperation op);
/* Whether ops of `kind` take `layout` (the five above), and how many of their leading operands and results
 * are the [B, H, T, d] tensors it places (q, k, v | q, k, o, do | o, do | q, k, v, do; o | dq, dk, dv; stats
 * and lse are neither). */
bool latch_op_takes_layout(latch_op_kind kind);
int latch_layout_operand_count(latch_op_kind kind);
int latch_layout_result_count(latch_op_kind kind);
/* Where dim `i` (0 B, 1 H, 2 T, 3 d) of a 4-D tensor of attention op `op` (q, k, v, o, do, dq, dk, dv) lies
 * in the layout `op` stores it, and that dim's size. */
intptr_t latch_attention_dim_index(MlirOperation op, intptr_t i);
int64_t latch_attention_dim(MlirOperation op, MlirValue value, intptr_t i);
int64_t latch_attr_int(MlirOperation op, const char *name, int64_t fallback);
double latch_attr_float(MlirOperation op, const char *name, double fallback);
MlirStringRef latch_attr_string(MlirOperation op, const char *name);
/* Element count of an array<i64> attribute (-1 if absent), and its elements. */
intptr_t latch_attr_i64_array_size(MlirOperation op, const char *name);
int64_t latch_attr_i64_array_get(MlirOperation op, const char *name, intptr_t index);

/* Attribute constructors in the form the IRDL definitions expect. */
MlirAttribute latch_attr_get_bool(MlirContext context, bool value);
MlirAttribute latch_attr_get_int(MlirContext context, int64_t value);
MlirAttribute latch_attr_get_float(MlirContext context, double value);
MlirAttribute latch_attr_get_string(MlirContext context, const char *value);
MlirAttribute latch_attr_get_i64_array(MlirContext context, intptr_t count, const int64_t *values);

/* Typed accessors: latch_<op>_<operand>(op) returns that operand, latch_<op>_<result>_result(op) the
 * result, latch_<op>_<attr>(op) the attribute value. Columns: op, name, index. */
#define LATCH_OPERAND_LIST(X)                                                                  \
  X(matmul, a, 0) X(matmul, b, 1)                                                              \
  X(grouped_matmul, x, 0) X(grouped_matmul, w, 1) X(grouped_matmul, ends, 2)                   \
  X(reduce, x, 0) X(rmsnorm, x, 0) X(rmsnorm, w, 1) X(softmax, x, 0)                           \
  X(cross_entropy, logits, 0) X(cross_entropy, targets, 1)                                     \
  X(embedding, table, 0) X(embedding, ids, 1) X(rope, x, 0)                                    \
  X(attention, q, 0) X(attention, k, 1) X(attention, v, 2)                                     \
  X(topk, x, 0) X(bucket, ids, 0) X(gather_rows, x, 0) X(gather_rows, idx, 1)                  \
  X(scatter_add_rows, x, 0) X(scatter_add_rows, idx, 1)                                        \
  X(reshape, x, 0) X(transpose, x, 0) X(convert, x, 0)                                         \
  X(adamw, p, 0) X(adamw, g, 1) X(adamw, m, 2) X(adamw, v, 3) X(adamw, step, 4)                \
  X(slot, arena, 0) X(view, slot, 0) X(bind, value, 0) X(bind, slot, 1)                                                           \
  X(reduce_grad, x, 0) X(reduce_grad, dy, 1)                                                   \
  X(rmsnorm_grad, x, 0) X(rmsnorm_grad, w, 1) X(rmsnorm_grad, dy, 2)                           \
  X(softmax_grad, y, 0) X(softmax_grad, dy, 1)                                                 \
  X(cross_entropy_grad, logits, 0) X(cross_entropy_grad, targets, 1)                           \
  X(cross_entropy_grad, dloss, 2) X(rope_grad, dy, 0)                                          \
  X(attention_grad, q, 0) X(attention_grad, k, 1) X(attention_grad, v, 2)                      \
  X(attention_grad, o, 3) X(attention_grad, do, 4)                                             \
  X(topk_grad, dvalues, 0) X(topk_grad, indices, 1)                                            \
  X(grouped_matmul_weight_grad, x, 0) X(grouped_matmul_weight_grad, dy, 1)                     \
  X(grouped_matmul_weight_grad, ends, 2)                                                       \
  X(attention_stats, q, 0) X(attention_stats, k, 1) X(attention_stats, o, 2)                   \
  X(attention_stats, do, 3) X(attention_grad_from_stats, q, 0)                                 \
  X(attention_grad_from_stats, k, 1) X(attention_grad_from_stats, v, 2)                        \
  X(attention_grad_from_stats, do, 3) X(attention_grad_from_stats, stats, 4)                   \
  X(attention_lse, q, 0) X(attention_lse, k, 1) X(attention_lse, v, 2)                        \
  X(attention_stats_from_lse, o, 0) X(attention_stats_from_lse, do, 1)                         \
  X(attention_stats_from_lse, lse, 2) X(cross_entropy_with_stats, logits, 0)                   \
  X(cross_entropy_with_stats, targets, 1) X(cross_entropy_grad_from_stats, logits, 0)          \
  X(cross_entropy_grad_from_stats, targets, 1) X(cross_entropy_grad_from_stats, dloss, 2)      \
  X(cross_entropy_grad_from_stats, stats, 3) X(grouped_matmul_weight_grad_concat, x, 0)           \
  X(grouped_matmul_weight_grad_concat, dy0, 1) X(grouped_matmul_weight_grad_concat, dy1, 2)    \
  X(grouped_matmul_weight_grad_concat, ends, 3)

#define LATCH_RESULT_LIST(X)                                                                   \
  X(matmul, c, 0) X(grouped_matmul, y, 0) X(reduce, y, 0) X(rmsnorm, y, 0) X(softmax, y, 0)    \
  X(cross_entropy, loss, 0) X(embedding, y, 0) X(rope, y, 0) X(attention, o, 0)                \
  X(topk, values, 0) X(topk, indices, 1) X(bucket, order, 0) X(bucket, ends, 1)                \
  X(gather_rows, y, 0) X(scatter_add_rows, y, 0) X(reshape, y, 0) X(transpose, y, 0)           \
  X(convert, y, 0) X(adamw, p_out, 0) X(adamw, m_out, 1) X(adamw, v_out, 2)                    \
  X(arena, buffer, 0) X(slot, bytes, 0) X(view, view, 0) \
  X(reduce_grad, dx, 0) X(rmsnorm_grad, dx, 0) X(rmsnorm_grad, dw, 1) X(softmax_grad, dx, 0)   \
  X(cross_entropy_grad, dlogits, 0) X(rope_grad, dx, 0) X(attention_grad, dq, 0)               \
  X(attention_grad, dk, 1) X(attention_grad, dv, 2) X(topk_grad, dx, 0)                        \
  X(grouped_matmul_weight_grad, dw, 0) X(attention_stats, stats, 0)                            \
  X(attention_grad_from_stats, dq, 0) X(attention_grad_from_stats, dk, 1)                      \
  X(attention_grad_from_stats, dv, 2) X(attention_lse, o, 0) X(attention_lse, lse, 1)           \
  X(attention_stats_from_lse, stats, 0) X(cross_entropy_with_stats, loss, 0)                    \
  X(cross_entropy_with_stats, stats, 1) X(cross_entropy_grad_from_stats, dlogits, 0) \
  X(grouped_matmul_weight_grad_concat, dw, 0)

/* Columns: op, attribute, C type, reader. */
#define LATCH_ATTR_LIST(X)                                                                     \
  X(matmul, transpose_a, bool, latch_attr_bool(op, "transpose_a", false))                      \
  X(matmul, transpose_b, bool, latch_attr_bool(op, "transpose_b", false))                      \
  X(reduce, axis, int64_t, latch_attr_int(op, "axis", 0))                                      \
  X(reduce, kind, MlirStringRef, latch_attr_string(op, "kind"))                                \
  X(rmsnorm, eps, double, latch_attr_float(op, "eps", 0))                                      \
  X(rope, theta, double, latch_attr_float(op, "theta", 0))                                     \
  X(attention, causal, bool, latch_attr_bool(op, "causal", false))                             \
  X(attention, scale, double, latch_attr_float(op, "scale", 0))                                \
  X(topk, k, int64_t, latch_attr_int(op, "k", 0))                                              \
  X(bucket, buckets, int64_t, latch_attr_int(op, "buckets", 0))                                \
  X(scatter_add_rows, rows, int64_t, latch_attr_int(op, "rows", 0))                            \
  X(adamw, lr, double, latch_attr_float(op, "lr", 0))                                          \
  X(adamw, beta1, double, latch_attr_float(op, "beta1", 0))                                    \
  X(adamw, beta2, double, latch_attr_float(op, "beta2", 0))                                    \
  X(adamw, eps, double, latch_attr_float(op, "eps", 0))                                        \
  X(adamw, weight_decay, double, latch_attr_float(op, "weight_decay", 0))                      \
  X(interval, name, MlirStringRef, latch_attr_string(op, "name"))                              \
  X(arena, size, int64_t, latch_attr_int(op, "size", 0))                                       \
  X(arena, alignment, int64_t, latch_attr_int(op, "alignment", 0))                             \
  X(slot, offset, int64_t, latch_attr_int(op, "offset", 0))                                    \
  X(slot, size, int64_t, latch_attr_int(op, "size", 0))                                        \
  X(slot, alignment, int64_t, latch_attr_int(op, "alignment", 0))                             \
  X(bind, offset, int64_t, latch_attr_int(op, "offset", 0)) \
  X(reduce_grad, axis, int64_t, latch_attr_int(op, "axis", 0))                                 \
  X(reduce_grad, kind, MlirStringRef, latch_attr_string(op, "kind"))                           \
  X(rmsnorm_grad, eps, double, latch_attr_float(op, "eps", 0))                                 \
  X(rope_grad, theta, double, latch_attr_float(op, "theta", 0))                                \
  X(attention_grad, causal, bool, latch_attr_bool(op, "causal", false))                        \
  X(attention_grad, scale, double, latch_attr_float(op, "scale", 0))                           \
  X(topk_grad, columns, int64_t, latch_attr_int(op, "columns", 0))                             \
  X(attention_stats, causal, bool, latch_attr_bool(op, "causal", false))                       \
  X(attention_stats, scale, double, latch_attr_float(op, "scale", 0))                          \
  X(attention_grad_from_stats, causal, bool, latch_attr_bool(op, "causal", false))             \
  X(attention_grad_from_stats, scale, double, latch_attr_float(op, "scale", 0))             \
  X(attention_lse, causal, bool, latch_attr_bool(op, "causal", false))                         \
  X(attention_lse, scale, double, latch_attr_float(op, "scale", 0))

#define X(opname, field, index)                                            \
  static inline MlirValue latch_##opname##_##field(MlirOperation op) {     \
    return mlirOperationGetOperand(op, index);                            \
  }
LATCH_OPERAND_LIST(X)
#undef X
#define X(opname, field, index)                                              \
  static inline MlirValue latch_##opname##_##field##_result(MlirOperation op) { \
    return mlirOperationGetResult(op, index);                                \
  }
LATCH_RESULT_LIST(X)
#undef X
#define X(opname, field, ctype, reader)                                    \
  static inline ctype latch_##opname##_##field(MlirOperation op) { return reader; }
LATCH_ATTR_LIST(X)
#undef X

/* The `perm` attribute of a task.transpose: its entry count (-1 when it is not an array<i64>) and entries. */
static inline intptr_t latch_transpose_perm_size(MlirOperation op) {
  return latch_attr_i64_array_size(op, "perm");
}
static inline int64_t latch_transpose_perm_at(MlirOperation op, intptr_t index) {
  return latch_attr_i64_array_get(op, "perm", index);
}

/* The operand that result `result` (0 p', 1 m', 2 v') of a task.adamw is written over in place: p, m, v
 * (operands 0, 2, 3; docs/device-abi.md). */
static inline intptr_t latch_adamw_written_over(intptr_t result) { return result == 0 ? 0 : result + 1; }

/* The scalar body of a task.map: its single block (NULL block if the region is empty). */
static inline MlirBlock latch_map_body(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

#endif
