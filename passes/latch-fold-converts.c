/* latch-fold-converts.c - folds a narrowing task.convert (f32 -> bf16) into the task that produces its
 * input, when that task computes in f32 and rounds on its store (task.rope, task.rope_grad,
 * task.cross_entropy_grad: docs/task-dialect.md lets their result be bf16 for an f32 input) and the
 * convert is the only reader of that result, directly or through views (reshapes, which are retyped
 * too). The producer then writes bf16, and the convert, its f32 result and their interval go.
 *
 * Why: TinyMoE's rotary embeddings (q and k, forward and backward) and its logit gradient are f32 values
 * whose one use is a conversion for a bf16 product: folded, nothing writes and reads them back in f32
 * (about 4 GB per update at 32 x 1024, half of it the logit gradient).
 *
 * Exact: the device rounds the f32 value to bf16 on the store (round to nearest even), as the convert
 * did; latch-interp computes in fp64 and rounds stored bf16 through f32 in --emulate=bf16 (as the f32
 * result and the convert did) and not at all in fp64. Run it at function level after latch-train. */
#include <stdbool.h>
#include <stdlib.h>

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "pass.h"

/* Reshapes between the producer and the convert (at most this many). */
#define FOLD_MAX_VIEWS 8

static bool rounds_on_store(latch_op_kind kind) {
  return kind == LATCH_OP_TASK_ROPE || kind == LATCH_OP_TASK_ROPE_GRAD || kind == LATCH_OP_TASK_CROSS_ENTROPY_GRAD;
}

static bool has_one_use(MlirValue value) {
  MlirOpOperand use = mlirValueGetFirstUse(value);
  return !mlirOpOperandIsNull(use) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
}

static MlirType element_of(MlirValue value) { return mlirShapedTypeGetElementType(mlirValueGetType(value)); }

static MlirType with_element(MlirType type, MlirType element) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t shape[16];
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(type, d);
  return mlirRankedTensorTypeGet(rank, shape, element, mlirRankedTensorTypeGetEncoding(type));
}

static bool is_static_tensor(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) && mlirShapedTypeGetRank(type) <= 16;
}

/* Folds `convert` when it qualifies (see the file comment). */
static bool fold(MlirOperation convert) {
  if (mlirOperationGetNumOperands(convert) != 1 || mlirOperationGetNumResults(convert) != 1 ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(convert, mlirStringRefCreateFromCString("task.fused"))))
    return false;
  MlirValue result = mlirOperationGetResult(convert, 0), value = mlirOperationGetOperand(convert, 0);
  if (!is_static_tensor(result) || !is_static_tensor(value) || !mlirTypeIsABF16(element_of(result)) ||
      !mlirTypeIsAF32(element_of(value)))
    return false;
  MlirOperation views[FOLD_MAX_VIEWS];
  int view_count = 0;
  while (mlirValueIsAOpResult(value) && latch_op_kind_of(mlirOpResultGetOwner(value)) == LATCH_OP_TASK_RESHAPE) {
    MlirOperation view = mlirOpResultGetOwner(value);
    if (view_count == FOLD_MAX_VIEWS || !has_one_use(value) || mlirOperationGetNumOperands(view) != 1 ||
        !is_static_tensor(value))
      return false;
    views[view_count++] = view;
    value = mlirOperationGetOperand(view, 0);
  }
  if (!mlirValueIsAOpResult(value) || !has_one_use(value) || !is_static_tensor(value))
    return false;
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (!rounds_on_store(latch_op_kind_of(producer)) || !mlirTypeIsAF32(element_of(value)))
    return false;
  MlirType bf16 = element_of(result);
  mlirValueSetType(value, with_element(mlirValueGetType(value), bf16));
  for (int i = view_count; i-- > 0;) {
    MlirValue view_result = mlirOperationGetResult(views[i], 0);
    mlirValueSetType(view_result, with_element(mlirValueGetType(view_result), bf16));
  }
  MlirValue folded = view_count ? mlirOperationGetResult(views[0], 0) : value;
  mlirValueReplaceAllUsesOfWith(result, folded);
  mlirOperationDestroy(convert);
  return true;
}

static MlirLogicalResult run(MlirOperation op, const void *options) {
  (void)options;
  MlirOperation *converts;
  size_t count;
  if (!latch_ops_of_kind(op, LATCH_OP_TASK_CONVERT, &converts, &count)) {
    mlirEmitError(mlirOperationGetLocation(op), "latch-fold-converts: out of memory");
    return mlirLogicalResultFailure();
  }
  for (size_t i = 0; i < count; ++i)
    fold(converts[i]);
  free(converts);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_fold_converts_pass = {
    .name = "latch-fold-converts",
    .summary = "Fold a narrowing task.convert into the rope, rope_grad or cross_entropy_grad that produces its input",
    .anchor = "builtin.module",
    .run = run,
};
