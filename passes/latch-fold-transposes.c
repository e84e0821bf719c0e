/* latch-fold-transposes.c - removes the transposes between the attention ops and the projections around
 * them: the attention ops (latch_op_takes_layout) take layout = "bthd"
 * (latch_attention_bthd, docs/task-dialect.md) and read and write their [B, H, T, d] tensors as the
 * [B, T, H, d] that the projections produce and consume.
 *
 * An attention op is rewritten when every one of its [B, H, T, d] operands (q, k, v | o, do | ...) is
 *   - a task.transpose {perm = [0, 2, 1, 3]} of a [B, T, H, d] value (the op then reads that value),
 *   - a task.convert of such a transpose (the op reads a new convert of the transposed value: TinyMoE's bf16
 *     do for the split gradient's products), or
 *   - a result of another attention op that is rewritten too (TinyMoE's o, read by the statistics),
 * and every reader of its [B, H, T, d] results (o | dq, dk, dv) is such a transpose (its readers then read
 * the result, which is [B, T, H, d] now) or an attention op that is rewritten too. Those conditions are
 * met by the largest set of ops that is closed under them, found by dropping ops that miss them until none
 * does. Only ops that the tensor-core templates lower are candidates (latch_attention_fits_tensor_cores
 * with bf16 q, k and v, or o for the statistics; latch-lower-tasks lowers layout = "bthd" only there), and
 * task.attention_stats_from_lse, whose one template reads either layout.
 * Transposes and converts left without readers are erased.
 *
 * Exact: only the place of each element changes (a transpose and a convert commute, both per element),
 * so latch-interp gives the same bits before and after in every --emulate mode. Why: TinyMoE moves q, k,
 * v and o through a transpose each way in the forward, do and dq, dk, dv in the backward: 8 tensors
 * written and read back per layer, in 4 intervals (each one more grid barrier) of the 2 x 1024 update.
 * Run it at module level after latch-split-attention-grad and latch-fold-converts, before the schedule. */
#include <stdbool.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "pass.h"

/* The attention ops of the module and what the fixpoint decided. */
typedef struct folder {
  MlirOperation *ops;
  bool *chosen;
  size_t count;
} folder;

static int layout_operands(MlirOperation op) { return latch_layout_operand_count(latch_op_kind_of(op)); }
static int layout_results(MlirOperation op) { return latch_layout_result_count(latch_op_kind_of(op)); }

static bool is_static_4d(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) && mlirShapedTypeGetRank(type) == 4;
}

static bool is_bf16(MlirValue value) { return mlirTypeIsABF16(mlirShapedTypeGetElementType(mlirValueGetType(value))); }

/* Whether `op` is a task.transpose {perm = [0, 2, 1, 3]} of a static 4-D tensor. */
static bool is_swap(MlirOperation op) {
  static const int64_t swap[4] = {0, 2, 1, 3};
  if (latch_op_kind_of(op) != LATCH_OP_TASK_TRANSPOSE || latch_has_fused_mark(op) || latch_transpose_perm_size(op) != 4 ||
      mlirOperationGetNumOperands(op) != 1 || !is_static_4d(mlirOperationGetOperand(op, 0)))
    return false;
  for (intptr_t d = 0; d < 4; ++d)
    if (latch_transpose_perm_at(op, d) != swap[d])
      return false;
  return true;
}

/* The swap transpose that defines `value`, or null; also null when it transposes a [B, H, T, d] result of
 * an attention op, whose layout this pass may change. */
static MlirOperation swap_transpose(MlirValue value) {
  if (!mlirValueIsAOpResult(value) || !is_swap(mlirOpResultGetOwner(value)))
    return (MlirOperation){NULL};
  MlirOperation op = mlirOpResultGetOwner(value);
  MlirValue source = mlirOperationGetOperand(op, 0);
  if (mlirValueIsAOpResult(source) && latch_op_takes_layout(latch_op_kind_of(mlirOpResultGetOwner(source))))
    return (MlirOperation){NULL};
  return op;
}

/* The task.convert of a swap_transpose that defines `value`, or null. */
static MlirOperation convert_of_swap(MlirValue value) {
  if (!mlirValueIsAOpResult(value))
    return (MlirOperation){NULL};
  MlirOperation op = mlirOpResultGetOwner(value);
  if (latch_op_kind_of(op) != LATCH_OP_TASK_CONVERT || latch_has_fused_mark(op) ||
      mlirOperationIsNull(swap_transpose(mlirOperationGetOperand(op, 0))))
    return (MlirOperation){NULL};
  return op;
}

/* The index of `op` among the attention ops, or -1. */
static long index_of(const folder *f, MlirOperation op) {
  for (size_t i = 0; i < f->count; ++i)
    if (mlirOperationEqual(f->ops[i], op))
      return (long)i;
  return -1;
}

/* Whether `value` is a [B, H, T, d] result of a chosen op. */
static bool chosen_layout_result(const folder *f, MlirValue value) {
  if (!mlirValueIsAOpResult(value))
    return false;
  long i = index_of(f, mlirOpResultGetOwner(value));
  return i >= 0 && f->chosen[i] && mlirOpResultGetResultNumber(value) < layout_results(f->ops[i]);
}

/* The tensor-core templates lower it (the only ones that read layout = "bthd"). */
static bool candidate(MlirOperation op) {
  if (latch_attention_bthd(op) || latch_has_fused_mark(op))
    return false;
  for (int i = 0; i < layout_operands(op); ++i)
    if (!is_static_4d(mlirOperationGetOperand(op, i)))
      return false;
  for (int i = 0; i < layout_results(op); ++i)
    if (!is_static_4d(mlirOperationGetResult(op, i)))
      return false;
  if (latch_op_kind_of(op) == LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE)
    return true; /* its row template reads either layout */
  MlirValue q = mlirOperationGetOperand(op, 0), k = mlirOperationGetOperand(op, 1), third = mlirOperationGetOperand(op, 2);
  int64_t tq = latch_attention_dim(op, q, 2), hd = latch_attention_dim(op, q, 3), tk = latch_attention_dim(op, k, 2);
  int64_t hdv = latch_attention_dim(op, third, 3); /* v, or o for the statistics (as wide as v) */
  bool bf16 = is_bf16(q) && is_bf16(k) && is_bf16(third);
  if (latch_op_kind_of(op) == LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS)
    return latch_attention_products_fit_tensor_cores(bf16, tq, hd, tk, hdv);
  return latch_attention_fits_tensor_cores(bf16, tq, hd, tk, hdv);
}

/* Whether op i still meets the conditions of the file comment, given the other ops' choices. */
static bool still_fits(const folder *f, size_t i) {
  MlirOperation op = f->ops[i];
  for (int n = 0; n < layout_operands(op); ++n) {
    MlirValue x = mlirOperationGetOperand(op, n);
    if (mlirOperationIsNull(swap_transpose(x)) && mlirOperationIsNull(convert_of_swap(x)) && !chosen_layout_result(f, x))
      return false;
  }
  for (int r = 0; r < layout_results(op); ++r)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, r)); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation reader = mlirOpOperandGetOwner(use);
      if (is_swap(reader))
        continue;
      long j = index_of(f, reader);
      if (j < 0 || !f->chosen[j] || (int)mlirOpOperandGetOperandNumber(use) >= layout_operands(reader))
        return false;
    }
  return true;
}

/* `type` ([B, H, T, d] or [B, T, H, d]) with dims 1 and 2 swapped. */
static MlirType swapped(MlirType type) {
  int64_t shape[4] = {mlirShapedTypeGetDimSize(type, 0), mlirShapedTypeGetDimSize(type, 2),
                      mlirShapedTypeGetDimSize(type, 1), mlirShapedTypeGetDimSize(type, 3)};
  return mlirRankedTensorTypeGet(4, shape, mlirShapedTypeGetElementType(type), mlirRankedTensorTypeGetEncoding(type));
}

static void erase_if_unused(MlirOperation op) {
  if (!mlirOperationIsNull(op) && mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))))
    mlirOperationDestroy(op);
}

/* A task.convert of the transpose's input, typed [B, T, H, d], just before `convert` (which it replaces
 * for the chosen ops; `convert` keeps its other readers). */
static MlirValue convert_before(MlirOperation convert) {
  MlirOperation transpose = mlirOpResultGetOwner(mlirOperationGetOperand(convert, 0));
  MlirValue source = mlirOperationGetOperand(transpose, 0);
  MlirType type = swapped(mlirValueGetType(mlirOperationGetResult(convert, 0)));
  MlirOperation moved = latch_op_create(LATCH_OP_TASK_CONVERT, mlirOperationGetLocation(convert), 1, &type, 1, &source, NULL);
  MlirStringRef phase_name = mlirStringRefCreateFromCString("task.phase");
  MlirAttribute phase = mlirOperationGetAttributeByName(convert, phase_name);
  if (!mlirAttributeIsNull(phase))
    mlirOperationSetAttributeByName(moved, phase_name, phase);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(convert), convert, moved);
  return mlirOperationGetResult(moved, 0);
}

/* Rewrites chosen op `op` (see the file comment); `converts` and `moved` remember the converts already
 * replaced, so that two ops reading one share its replacement. */
static void rewrite(MlirOperation op, MlirOperation *converts, MlirValue *moved, size_t *moved_count) {
  for (int n = 0; n < layout_operands(op); ++n) {
    MlirValue x = mlirOperationGetOperand(op, n);
    MlirOperation transpose = swap_transpose(x), convert = convert_of_swap(x);
    if (!mlirOperationIsNull(transpose)) {
      mlirOperationSetOperand(op, n, mlirOperationGetOperand(transpose, 0));
      erase_if_unused(transpose);
    } else if (!mlirOperationIsNull(convert)) {
      size_t m = 0;
      while (m < *moved_count && !mlirOperationEqual(converts[m], convert))
        ++m;
      if (m == *moved_count) {
        converts[m] = convert;
        moved[m] = convert_before(convert);
        ++*moved_count;
      }
      mlirOperationSetOperand(op, n, moved[m]);
      /* erased once no op reads it (at the end: a later op may still share it) */
    }
  }
  MlirContext context = mlirOperationGetContext(op);
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("layout"),
                                  mlirStringAttrGet(context, mlirStringRefCreateFromCString("bthd")));
  for (int r = 0; r < layout_results(op); ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    mlirValueSetType(result, swapped(mlirValueGetType(result)));
    MlirOpOperand use = mlirValueGetFirstUse(result);
    while (!mlirOpOperandIsNull(use)) {
      MlirOperation reader = mlirOpOperandGetOwner(use);
      use = mlirOpOperandGetNextUse(use); /* before `reader` goes */
      if (!is_swap(reader))
        continue; /* a chosen attention op: it reads the [B, T, H, d] result */
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(reader, 0), result);
      mlirOperationDestroy(reader);
    }
  }
}

/* Appends each attention op (latch_op_takes_layout) to the folder; stops the walk when memory runs out. */
static MlirWalkResult collect_op(MlirOperation op, void *user_data) {
  folder *f = user_data;
  if (!latch_op_takes_layout(latch_op_kind_of(op)))
    return MlirWalkResultAdvance;
  MlirOperation *grown = realloc(f->ops, (f->count + 1) * sizeof(*grown));
  if (!grown)
    return MlirWalkResultInterrupt;
  f->ops = grown;
  f->ops[f->count++] = op;
  return MlirWalkResultAdvance;
}

static bool collect(MlirOperation module, folder *f) {
  f->ops = NULL, f->chosen = NULL, f->count = 0;
  mlirOperationWalk(module, collect_op, f, MlirWalkPostOrder);
  f->chosen = calloc(f->count ? f->count : 1, sizeof(bool));
  return f->chosen != NULL && (f->count == 0 || f->ops != NULL);
}

static MlirLogicalResult run(MlirOperation module, const void *options) {
  (void)options;
  folder f = {0};
  MlirOperation *converts = NULL;
  MlirValue *moved = NULL;
  bool ok = collect(module, &f);
  if (ok) {
    converts = malloc((f.count ? 4 * f.count : 1) * sizeof(*converts));
    moved = malloc((f.count ? 4 * f.count : 1) * sizeof(*moved));
    ok = converts && moved;
  }
  if (!ok) {
    free(f.ops), free(f.chosen), free(converts), free(moved);
    mlirEmitError(mlirOperationGetLocation(module), "latch-fold-transposes: out of memory");
    return mlirLogicalResultFailure();
  }
  for (size_t i = 0; i < f.count; ++i)
    f.chosen[i] = candidate(f.ops[i]);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < f.count; ++i)
      if (f.chosen[i] && !still_fits(&f, i))
        f.chosen[i] = false, changed = true;
  }
  size_t moved_count = 0;
  for (size_t i = 0; i < f.count; ++i)
    if (f.chosen[i])
      rewrite(f.ops[i], converts, moved, &moved_count);
  for (size_t m = 0; m < moved_count; ++m) {
    MlirOperation transpose = mlirOpResultGetOwner(mlirOperationGetOperand(converts[m], 0));
    erase_if_unused(converts[m]);
    erase_if_unused(transpose);
  }
  free(f.ops), free(f.chosen), free(converts), free(moved);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_fold_transposes_pass = {
    .name = "latch-fold-transposes",
    .summary = "Attention reads and writes [B, T, H, d] (layout = \"bthd\") instead of transposing q, k, v, o, do, dq, dk, dv",
    .anchor = "builtin.module",
    .run = run,
};
