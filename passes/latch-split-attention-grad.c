/* latch-split-attention-grad.c - splits every task.attention_grad into
 *   %stats = task.attention_stats(q, k, o, do)            // (L, D) per query row: [B, H, Tq, 2] f32
 *   %dq, %dk, %dv = task.attention_grad_from_stats(q, k, v, do, %stats)
 * with the same causal and scale attributes (and the original's other attributes, task.phase included).
 *
 * With `forward-lse` (the default), when o is the result of a task.attention of the same q, k, v, causal
 * and scale, that forward becomes a task.attention_lse, which also writes each query row's log-sum-exp
 *   %o, %lse = task.attention_lse(q, k, v)                 // lse: [B, H, Tq] f32
 * and the statistics read it instead of recomputing every score:
 *   %stats = task.attention_stats_from_lse(o, do, %lse)
 * The forward's online softmax is the statistics' (same blocks, same order), so L has the same bits, and
 * the statistics' pass over the keys (a quarter of the gradient's time at TinyMoE 32x1024) is gone; lse
 * lives from the forward to the backward (4 bytes per query row).
 *
 * Why: the key rows of the gradient need the log-sum-exp L of every query row that sees them, and a tile
 * of one task cannot wait for another tile of the same task. Unsplit, each key tile recomputes L for all
 * later query rows (quadratic per tile, about 6x redundant at T = 1024). Split, the statistics are one
 * row-parallel task, and the products read P = exp(S - L) in the next interval, with their query-row
 * tiles and key-row tiles all independent (docs/task-dialect.md, docs/device-abi.md).
 *
 * Heads wider than LATCH_ATTENTION_SPLIT_MAX_HEAD stay whole: the warp-per-row templates that lower the
 * split ops hold a row in at most 8 registers per lane (latch-lower-tasks).
 *
 * With `convert-do` (the default), when the products run on tensor cores
 * (latch_attention_products_fit_tensor_cores) and do is f32, they read do through a
 * task.convert to bf16: their mma operands are bf16 (models.md's precision rule), so the templates
 * rounded do to bf16 anyway, per block of every key-row tile, from synchronous f32 loads; a bf16 do is
 * copied by cp.async like q. The device computes bitwise what it did; the statistics keep the f32 do (D =
 * rowsum(do o)). In fp64 latch-interp the products then see the rounded do, so the split program equals
 * the whole one bit for bit only with convert-do=false (or f32 q, k, v). */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "pass.h"

#define LATCH_ATTENTION_SPLIT_MAX_HEAD 256

typedef struct split_options {
  bool convert_do;
  bool forward_lse;
} split_options;

static const latch_pass_option split_option_table[] = {
    {"convert-do", LATCH_OPTION_BOOL, "true",
     "give the products a bf16 do (task.convert) when they run on bf16 tensor cores and do is f32",
     offsetof(split_options, convert_do)},
    {"forward-lse", LATCH_OPTION_BOOL, "true",
     "the forward task.attention of o (same q, k, v, causal, scale) writes lse (task.attention_lse), and the "
     "statistics read it (task.attention_stats_from_lse) instead of recomputing the scores",
     offsetof(split_options, forward_lse)},
};
static int64_t dim_of(MlirValue value, intptr_t d) { return mlirShapedTypeGetDimSize(mlirValueGetType(value), d); }

static bool is_element(MlirValue value, bool (*is)(MlirType)) {
  return is(mlirShapedTypeGetElementType(mlirValueGetType(value)));
}

/* do for the products: do itself, or a task.convert of it to bf16 (inserted before `grad`) when the
 * products run on tensor cores and do is f32 (see the file comment). */
static bool is_static_4d(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeGetRank(type) == 4 && mlirShapedTypeHasStaticShape(type);
}

static MlirValue products_do(MlirOperation grad, MlirValue q, MlirValue k, MlirValue v, MlirValue d_o) {
  if (!is_static_4d(q) || !is_static_4d(k) || !is_static_4d(v) || !is_static_4d(d_o)) /* latch-verify's */
    return d_o;
  bool bf16 = is_element(q, mlirTypeIsABF16) && is_element(k, mlirTypeIsABF16) && is_element(v, mlirTypeIsABF16);
  if (!is_element(d_o, mlirTypeIsAF32) ||
      !latch_attention_products_fit_tensor_cores(bf16, dim_of(q, 2), dim_of(q, 3), dim_of(k, 2), dim_of(v, 3)))
    return d_o;
  MlirContext context = mlirOperationGetContext(grad);
  MlirType do_type = mlirValueGetType(d_o);
  int64_t shape[4];
  for (intptr_t d = 0; d < 4; ++d)
    shape[d] = dim_of(d_o, d);
  MlirType type = mlirRankedTensorTypeGet(4, shape, mlirBF16TypeGet(context), mlirRankedTensorTypeGetEncoding(do_type));
  MlirOperation convert = latch_op_create(LATCH_OP_TASK_CONVERT, mlirOperationGetLocation(grad), 1, &type, 1, &d_o, NULL);
  MlirAttribute phase = mlirOperationGetAttributeByName(grad, mlirStringRefCreateFromCString("task.phase"));
  if (!mlirAttributeIsNull(phase))
    mlirOperationSetAttributeByName(convert, mlirStringRefCreateFromCString("task.phase"), phase);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(grad), grad, convert);
  return mlirOperationGetResult(convert, 0);
}

/* The lse of o's forward: o's owner when it is a task.attention (or already a task.attention_lse) of the
 * same q, k, v, causal and scale as `grad`, rewritten into a task.attention_lse in place of the
 * task.attention; null when o has no such forward. */
static MlirValue forward_lse(MlirOperation grad) {
  MlirValue o = latch_attention_grad_o(grad);
  if (!mlirValueIsAOpResult(o) || mlirOpResultGetResultNumber(o) != 0)
    return (MlirValue){NULL};
  MlirOperation forward = mlirOpResultGetOwner(o);
  latch_op_kind kind = latch_op_kind_of(forward);
  if ((kind != LATCH_OP_TASK_ATTENTION && kind != LATCH_OP_TASK_ATTENTION_LSE) || latch_has_fused_mark(forward) ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(forward, mlirStringRefCreateFromCString("layout"))))
    return (MlirValue){NULL};
  for (intptr_t i = 0; i < 3; ++i)
    if (!mlirValueEqual(mlirOperationGetOperand(forward, i), mlirOperationGetOperand(grad, i)))
      return (MlirValue){NULL};
  if (latch_attr_bool(forward, "causal", false) != latch_attention_grad_causal(grad) ||
      latch_attr_float(forward, "scale", 0) != latch_attention_grad_scale(grad))
    return (MlirValue){NULL};
  if (kind == LATCH_OP_TASK_ATTENTION_LSE)
    return mlirOperationGetResult(forward, 1);
  MlirContext context = mlirOperationGetContext(forward);
  MlirValue q = latch_attention_q(forward);
  int64_t shape[3] = {dim_of(q, 0), dim_of(q, 1), dim_of(q, 2)};
  MlirType types[2] = {mlirValueGetType(o), mlirRankedTensorTypeGet(3, shape, mlirF32TypeGet(context), mlirAttributeGetNull())};
  MlirValue operands[3] = {q, latch_attention_k(forward), latch_attention_v(forward)};
  MlirAttribute attrs[2] = {latch_attr_get_bool(context, latch_attention_causal(forward)),
                            latch_attr_get_float(context, latch_attention_scale(forward))};
  MlirOperation with_lse =
      latch_op_create(LATCH_OP_TASK_ATTENTION_LSE, mlirOperationGetLocation(forward), 2, types, 3, operands, attrs);
  latch_copy_attributes(forward, with_lse);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(forward), forward, with_lse);
  mlirValueReplaceAllUsesOfWith(o, mlirOperationGetResult(with_lse, 0));
  mlirOperationDestroy(forward);
  return mlirOperationGetResult(with_lse, 1);
}

static bool split(MlirOperation grad, const split_options *options) {
  MlirContext context = mlirOperationGetContext(grad);
  MlirLocation loc = mlirOperationGetLocation(grad);
  MlirValue q = latch_attention_grad_q(grad), k = latch_attention_grad_k(grad), v = latch_attention_grad_v(grad);
  MlirValue o = latch_attention_grad_o(grad), d_o = latch_attention_grad_do(grad);
  if (!mlirTypeIsARankedTensor(mlirValueGetType(q)) || mlirShapedTypeGetRank(mlirValueGetType(q)) != 4 ||
      !mlirTypeIsARankedTensor(mlirValueGetType(v)) || mlirShapedTypeGetRank(mlirValueGetType(v)) != 4)
    return false; /* latch-verify reports it */
  if (dim_of(q, 3) > LATCH_ATTENTION_SPLIT_MAX_HEAD || dim_of(v, 3) > LATCH_ATTENTION_SPLIT_MAX_HEAD)
    return false;
  MlirAttribute attrs[2] = {latch_attr_get_bool(context, latch_attention_grad_causal(grad)),
                            latch_attr_get_float(context, latch_attention_grad_scale(grad))};
  int64_t shape[4] = {dim_of(q, 0), dim_of(q, 1), dim_of(q, 2), 2};
  MlirType stats_type = mlirRankedTensorTypeGet(4, shape, mlirF32TypeGet(context), mlirAttributeGetNull());
  MlirValue lse = options->forward_lse ? forward_lse(grad) : (MlirValue){NULL};
  o = latch_attention_grad_o(grad); /* forward_lse may have replaced it */
  MlirOperation stats;
  if (!mlirValueIsNull(lse)) {
    MlirValue stats_operands[3] = {o, d_o, lse};
    stats = latch_op_create(LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE, loc, 1, &stats_type, 3, stats_operands, NULL);
  } else {
    MlirValue stats_operands[4] = {q, k, o, d_o};
    stats = latch_op_create(LATCH_OP_TASK_ATTENTION_STATS, loc, 1, &stats_type, 4, stats_operands, attrs);
  }
  MlirValue stats_value = mlirOperationGetResult(stats, 0);
  MlirValue operands[5] = {q, k, v, options->convert_do ? products_do(grad, q, k, v, d_o) : d_o, stats_value};
  MlirType types[3];
  for (int r = 0; r < 3; ++r)
    types[r] = mlirValueGetType(mlirOperationGetResult(grad, r));
  MlirOperation products = latch_op_create(LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS, loc, 3, types, 5, operands, attrs);
  latch_copy_attributes(grad, products);
  latch_copy_attributes(grad, stats);
  if (!mlirValueIsNull(lse)) { /* its attributes are the phase's: causal and scale live in the forward */
    mlirOperationRemoveAttributeByName(stats, mlirStringRefCreateFromCString("causal"));
    mlirOperationRemoveAttributeByName(stats, mlirStringRefCreateFromCString("scale"));
  }
  MlirBlock block = mlirOperationGetBlock(grad);
  mlirBlockInsertOwnedOperationBefore(block, grad, stats);
  mlirBlockInsertOwnedOperationBefore(block, grad, products);
  for (int r = 0; r < 3; ++r)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(grad, r), mlirOperationGetResult(products, r));
  mlirOperationDestroy(grad);
  return true;
}

static MlirLogicalResult run(MlirOperation op, const void *options) {
  MlirOperation *grads;
  size_t count;
  if (!latch_ops_of_kind(op, LATCH_OP_TASK_ATTENTION_GRAD, &grads, &count)) {
    mlirEmitError(mlirOperationGetLocation(op), "latch-split-attention-grad: out of memory");
    return mlirLogicalResultFailure();
  }
  for (size_t i = 0; i < count; ++i)
    split(grads[i], options);
  free(grads);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_split_attention_grad_pass = {
    .name = "latch-split-attention-grad",
    .summary = "Split task.attention_grad into its softmax statistics and its products (two independent tasks)",
    .anchor = "builtin.module",
    .options = split_option_table,
    .option_count = sizeof(split_option_table) / sizeof(split_option_table[0]),
    .options_size = sizeof(split_options),
    .run = run,
};
