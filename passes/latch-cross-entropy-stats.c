/* latch-cross-entropy-stats.c - lets the gradient of cross-entropy reuse its forward's row statistics.
 * When a task.cross_entropy_grad reads the same logits and targets as a task.cross_entropy that comes
 * before it in the same block, the forward becomes
 *   %loss, %stats = task.cross_entropy_with_stats(logits, targets)   // stats [N, 2] f32: max, sum exp(l - max)
 * and the gradient
 *   %dlogits = task.cross_entropy_grad_from_stats(logits, targets, dloss, %stats)
 * (each op keeps its attributes, task.phase included).
 *
 * Why: the gradient needs each row's max and sum of exp(l - max) before its first element, so on its own
 * it reads the logits twice (statistics, then the elements), a row per warp; the forward has computed
 * both. With them the gradient is element-wise, one read of the logits (TinyMoE 32x1024: 1 GB of f32
 * logits per read). Exact: the device computes the statistics with the same code in both tasks and the
 * gradient's arithmetic is unchanged, so the bits are the same; so are latch-interp's in fp64. Run it at
 * module level before latch-fold-converts (which then rounds the gradient on store as before). */
#include <stdbool.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "pass.h"

/* The forward of `grad`: a task.cross_entropy (or one already rewritten) of its logits and targets, before
 * it in its block and not fused into another task; null if none. */
static MlirOperation forward_of(MlirOperation grad) {
  MlirValue logits = latch_cross_entropy_grad_logits(grad), targets = latch_cross_entropy_grad_targets(grad);
  for (MlirOpOperand use = mlirValueGetFirstUse(logits); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation op = mlirOpOperandGetOwner(use);
    latch_op_kind kind = latch_op_kind_of(op);
    if ((kind == LATCH_OP_TASK_CROSS_ENTROPY || kind == LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS) &&
        mlirOpOperandGetOperandNumber(use) == 0 && mlirValueEqual(mlirOperationGetOperand(op, 1), targets) &&
        !latch_has_fused_mark(op) && mlirBlockEqual(mlirOperationGetBlock(op), mlirOperationGetBlock(grad)) &&
        mlirOperationIsBeforeInBlock(op, grad))
      return op;
  }
  return (MlirOperation){NULL};
}

static bool is_static_2d(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) && mlirShapedTypeGetRank(type) == 2;
}

/* The statistics of `forward`, rewriting it into task.cross_entropy_with_stats if it is not one. */
static MlirValue stats_of(MlirOperation forward) {
  if (latch_op_kind_of(forward) == LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS)
    return mlirOperationGetResult(forward, 1);
  MlirContext context = mlirOperationGetContext(forward);
  int64_t shape[2] = {mlirShapedTypeGetDimSize(mlirValueGetType(latch_cross_entropy_logits(forward)), 0), 2};
  MlirType types[2] = {mlirValueGetType(latch_cross_entropy_loss_result(forward)),
                       mlirRankedTensorTypeGet(2, shape, mlirF32TypeGet(context), mlirAttributeGetNull())};
  MlirValue operands[2] = {latch_cross_entropy_logits(forward), latch_cross_entropy_targets(forward)};
  MlirOperation with_stats = latch_op_create(LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS,
                                             mlirOperationGetLocation(forward), 2, types, 2, operands, NULL);
  latch_copy_attributes(forward, with_stats);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(forward), forward, with_stats);
  mlirValueReplaceAllUsesOfWith(latch_cross_entropy_loss_result(forward), mlirOperationGetResult(with_stats, 0));
  mlirOperationDestroy(forward);
  return mlirOperationGetResult(with_stats, 1);
}

static void rewrite(MlirOperation grad) {
  if (latch_has_fused_mark(grad) || !is_static_2d(latch_cross_entropy_grad_logits(grad)))
    return; /* latch-verify reports a bad shape */
  MlirOperation forward = forward_of(grad);
  if (mlirOperationIsNull(forward))
    return;
  MlirValue operands[4] = {latch_cross_entropy_grad_logits(grad), latch_cross_entropy_grad_targets(grad),
                           latch_cross_entropy_grad_dloss(grad), stats_of(forward)};
  MlirType type = mlirValueGetType(latch_cross_entropy_grad_dlogits_result(grad));
  MlirOperation from_stats = latch_op_create(LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS,
                                             mlirOperationGetLocation(grad), 1, &type, 4, operands, NULL);
  latch_copy_attributes(grad, from_stats);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(grad), grad, from_stats);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(grad, 0), mlirOperationGetResult(from_stats, 0));
  mlirOperationDestroy(grad);
}

static MlirLogicalResult run(MlirOperation op, const void *options) {
  (void)options;
  MlirOperation *grads;
  size_t count;
  if (!latch_ops_of_kind(op, LATCH_OP_TASK_CROSS_ENTROPY_GRAD, &grads, &count)) {
    mlirEmitError(mlirOperationGetLocation(op), "latch-cross-entropy-stats: out of memory");
    return mlirLogicalResultFailure();
  }
  for (size_t i = 0; i < count; ++i)
    rewrite(grads[i]);
  free(grads);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_cross_entropy_stats_pass = {
    .name = "latch-cross-entropy-stats",
    .summary = "The gradient of cross-entropy reads its forward's row statistics (max, sum) and reads the logits once",
    .anchor = "builtin.module",
    .run = run,
};
