/* latch-fold-converts.c - removes task.converts between bf16 and f32 that change no value:
 *
 * 1. A narrowing convert (f32 -> bf16) folds into the task that produces its input, when that task
 *    computes in f32 and rounds on its store (task.rope, task.rope_grad, task.cross_entropy_grad,
 *    task.rmsnorm: docs/task-dialect.md lets their result be bf16 for an f32 input) and the convert is
 *    the only reader of that result, directly or through reshapes (retyped too). The producer then
 *    writes bf16.
 * 2. A widening convert (bf16 -> f32) whose result reaches, through single-use transposes and reshapes
 *    (the layout ops), either a narrowing convert back to bf16 (the pair is the identity: the layout ops
 *    move the bf16 values instead) or a task.rope / task.rope_grad with a bf16 result (which computes in
 *    f32 from the values it loads: it loads the bf16 ones instead).
 *
 * Why: TinyMoE's rotary embeddings (q and k, forward and backward) and its logit gradient are f32 values
 * whose one use is a conversion for a bf16 product (1.), and so is the normalised input of each attention
 * block and of the head (task.rmsnorm: a wave of convert tiles and its grid barrier less each); its
 * attention gradients dq, dk, dv are bf16, widened to f32 for their transposes and then narrowed for the
 * products or the rope gradient (2.). Folded, nothing writes and reads them back in f32 (about 7 GB per update at 32 x 1024).
 *
 * Exact: the device rounds the f32 value to bf16 on the store (round to nearest even), as the convert
 * did, and a bf16 value widened and narrowed, or widened and loaded, is the same number; latch-interp
 * computes in fp64 and rounds stored bf16 through f32 in --emulate=bf16 (as the f32 result and the
 * convert did), stores everything as f32 in --emulate=fp32, and does not round in fp64. Run it at
 * function level after latch-train. */
#include <stdbool.h>
#include <stdlib.h>

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "pass.h"

/* Reshapes between the producer and the convert (at most this many). */
#define FOLD_MAX_VIEWS 8

static bool is_layout(MlirOperation op) {
  return latch_op_kind_of(op) == LATCH_OP_TASK_TRANSPOSE || latch_op_kind_of(op) == LATCH_OP_TASK_RESHAPE;
}

static bool rounds_on_store(latch_op_kind kind) {
  return kind == LATCH_OP_TASK_ROPE || kind == LATCH_OP_TASK_ROPE_GRAD || kind == LATCH_OP_TASK_CROSS_ENTROPY_GRAD ||
         kind == LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS || kind == LATCH_OP_TASK_RMSNORM;
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

/* Whether `convert` converts a static tensor `from` of one float kind to `to` of the other (f32 <-> bf16:
 * `widening` says which) and is part of no other task's tiles. */
static bool plain_convert(MlirOperation convert, bool widening, MlirValue *from, MlirValue *to) {
  if (mlirOperationGetNumOperands(convert) != 1 || mlirOperationGetNumResults(convert) != 1 ||
      latch_has_fused_mark(convert))
    return false;
  *from = mlirOperationGetOperand(convert, 0), *to = mlirOperationGetResult(convert, 0);
  if (!is_static_tensor(*from) || !is_static_tensor(*to))
    return false;
  MlirType narrow = element_of(widening ? *from : *to), wide = element_of(widening ? *to : *from);
  return mlirTypeIsABF16(narrow) && mlirTypeIsAF32(wide);
}

/* Rule 1 for `convert` when it qualifies (see the file comment). */
static bool fold(MlirOperation convert) {
  MlirValue value, result;
  if (!plain_convert(convert, false, &value, &result))
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

/* The one reader of `value` (null when it has none or several). */
static MlirOperation sole_reader(MlirValue value) {
  return has_one_use(value) ? mlirOpOperandGetOwner(mlirValueGetFirstUse(value)) : (MlirOperation){NULL};
}

/* Rule 2 for `convert` when it qualifies (see the file comment); `erased` gets the narrowing convert it
 * removed with it (null when it removed none). */
static bool fold_widening(MlirOperation convert, MlirOperation *erased) {
  *erased = (MlirOperation){NULL};
  MlirValue narrow, wide;
  if (!plain_convert(convert, true, &narrow, &wide))
    return false;
  MlirOperation layouts[FOLD_MAX_VIEWS];
  int layout_count = 0;
  MlirValue value = wide;
  MlirOperation reader = sole_reader(value);
  while (!mlirOperationIsNull(reader) && is_layout(reader) && mlirOperationGetNumResults(reader) == 1) {
    if (layout_count == FOLD_MAX_VIEWS || !is_static_tensor(mlirOperationGetResult(reader, 0)))
      return false;
    layouts[layout_count++] = reader;
    value = mlirOperationGetResult(reader, 0);
    reader = sole_reader(value);
  }
  if (mlirOperationIsNull(reader) || mlirOperationGetNumResults(reader) != 1 || latch_has_fused_mark(reader) ||
      !is_static_tensor(mlirOperationGetResult(reader, 0)))
    return false;
  latch_op_kind kind = latch_op_kind_of(reader);
  bool back_to_bf16 = kind == LATCH_OP_TASK_CONVERT && mlirTypeIsABF16(element_of(mlirOperationGetResult(reader, 0)));
  bool loads_as_f32 = (kind == LATCH_OP_TASK_ROPE || kind == LATCH_OP_TASK_ROPE_GRAD) &&
                      mlirTypeIsABF16(element_of(mlirOperationGetResult(reader, 0)));
  if (!back_to_bf16 && !loads_as_f32)
    return false;
  MlirType bf16 = element_of(narrow);
  for (int i = 0; i < layout_count; ++i) {
    MlirValue result = mlirOperationGetResult(layouts[i], 0);
    mlirValueSetType(result, with_element(mlirValueGetType(result), bf16));
  }
  MlirValue moved = layout_count ? value : narrow; /* what the reader reads now */
  mlirValueReplaceAllUsesOfWith(wide, narrow);
  mlirOperationDestroy(convert);
  if (back_to_bf16) {
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(reader, 0), moved);
    mlirOperationDestroy(reader);
    *erased = reader;
  }
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
  /* Rule 1 first, so that rule 2 finds the rope and rope_grad results it made bf16. */
  bool *gone = calloc(count ? count : 1, sizeof(bool));
  if (!gone) {
    free(converts);
    mlirEmitError(mlirOperationGetLocation(op), "latch-fold-converts: out of memory");
    return mlirLogicalResultFailure();
  }
  for (size_t i = 0; i < count; ++i)
    gone[i] = fold(converts[i]);
  for (size_t i = 0; i < count; ++i) {
    if (gone[i])
      continue;
    MlirOperation erased; /* compared by identity only once destroyed */
    if (!fold_widening(converts[i], &erased))
      continue;
    gone[i] = true;
    for (size_t j = 0; j < count && !mlirOperationIsNull(erased); ++j)
      if (mlirOperationEqual(converts[j], erased))
        gone[j] = true;
  }
  free(gone);
  free(converts);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_fold_converts_pass = {
    .name = "latch-fold-converts",
    .summary = "Remove bf16 <-> f32 task.converts that change no value (into rope, rope_grad or cross_entropy_grad stores; widened and narrowed back)",
    .anchor = "builtin.module",
    .run = run,
};
