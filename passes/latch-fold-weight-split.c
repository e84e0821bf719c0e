/* latch-fold-weight-split.c - lets the grouped products read and write the halves of a weight that a model
 * splits by columns (SwiGLU's w13 [G, K, 2 F]: gate columns, then up columns) where they lie, instead of
 * through copies:
 *
 * 1. Forward. The model takes half c of W [G, K, H n] as
 *      V = reshape(gather_rows(reshape(transpose{1, 0, 2}(reshape(W) : [G K, H, n])) : [H, G K n], [c]))
 *    (V [G, K, n] = W[:, :, c n : (c + 1) n]; [c] a task.map of no inputs that yields the constant c).
 *    Each task.grouped_matmul that reads V as its w then reads W with `w_column_offset = c n` (with
 *    transpose_w as well: V is then [G, N, K] and the slice is of K).
 * 2. Backward. The gradient of W comes back through the adjoints of those layout ops:
 *      D = reshape(transpose{1, 0, 2}(reshape(map(addf)(s0, s1)) : [2, G K, n])) : [G, K, 2 n],
 *      s_i = scatter_add_rows(reshape(grouped_matmul_weight_grad(x, dy_i, ends)), [c_i]) {rows = 2}
 *    with {c_0, c_1} = {0, 1}, both weight gradients of one x and ends. D becomes
 *    task.grouped_matmul_weight_grad_concat(x, dy_(c = 0), dy_(c = 1), ends), which writes each half's
 *    columns in place; only when n is a multiple of LATCH_CONCAT_HALF_COLUMNS (its device template's tiles).
 * Ops left without readers are erased.
 *
 * Why: TinyMoE 2 x 1024 moved per layer and update 64 MiB through the forward's transpose and gathers
 * (the bf16 w13) and about 256 MiB through the backward's scatters, sum and transpose (f32, half of the
 * scattered rows zeros), in intervals of their own; about 1.2 GB of a 4 ms update.
 *
 * Exact: 1. reads the same elements. In 2., each element of D was dw + 0 (the scatter's zero row of the
 * other half) and is now dw; they differ only for dw = -0, which a sum started at +0 never gives (x + y =
 * -0 in round to nearest needs both -0), and for NaN payloads, which addition keeps. Run it at module level
 * after latch-train (and latch-fold-converts, latch-fold-transposes), before the schedule. */
#include <stdbool.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "pass.h"

static int64_t dim(MlirValue value, intptr_t index) {
  return mlirShapedTypeGetDimSize(mlirValueGetType(value), index);
}

static intptr_t rank_of(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) ? mlirShapedTypeGetRank(type) : -1;
}

static bool has_one_use(MlirValue value) {
  MlirOpOperand use = mlirValueGetFirstUse(value);
  return !mlirOpOperandIsNull(use) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
}

/* The producer of `value` when it is a result of a task of `kind` that no other task's tiles hold. */
static MlirOperation producer_of(MlirValue value, latch_op_kind kind) {
  if (!mlirValueIsAOpResult(value))
    return (MlirOperation){NULL};
  MlirOperation op = mlirOpResultGetOwner(value);
  return latch_op_kind_of(op) == kind && !latch_has_fused_mark(op) ? op : (MlirOperation){NULL};
}

/* The i32 constant that `index` [1] holds when it is a task.map of no inputs yielding an arith.constant. */
static bool constant_index(MlirValue index, int64_t *value) {
  MlirOperation map = producer_of(index, LATCH_OP_TASK_MAP);
  if (mlirOperationIsNull(map) || mlirOperationGetNumOperands(map) != 0 || mlirOperationGetNumResults(map) != 1 ||
      rank_of(index) != 1 || dim(index, 0) != 1)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(map, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(yield) || mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue yielded = mlirOperationGetOperand(yield, 0);
  MlirOperation constant = mlirValueIsAOpResult(yielded) ? mlirOpResultGetOwner(yielded) : (MlirOperation){NULL};
  if (mlirOperationIsNull(constant) ||
      !mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(constant)), mlirStringRefCreateFromCString("arith.constant")))
    return false;
  MlirAttribute attr = mlirOperationGetAttributeByName(constant, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAInteger(attr))
    return false;
  *value = mlirIntegerAttrGetValueInt(attr);
  return true;
}

static bool is_swap_of_first_two(MlirOperation transpose) {
  return latch_transpose_perm_size(transpose) == 3 && latch_transpose_perm_at(transpose, 0) == 1 &&
         latch_transpose_perm_at(transpose, 1) == 0 && latch_transpose_perm_at(transpose, 2) == 2;
}

/* A weight split by columns: W [G, K, H n] seen as [H, G K n] (reshape, transpose {1, 0, 2}, reshape). */
typedef struct column_split {
  MlirValue weight; /* W */
  int64_t halves, width; /* H, n */
} column_split;

/* Whether `stacked` [H, G K n] is W's column blocks stacked as rows, read through the chain of 1. above. */
static bool stacked_columns(MlirValue stacked, column_split *split) {
  MlirOperation flat = producer_of(stacked, LATCH_OP_TASK_RESHAPE);
  if (mlirOperationIsNull(flat) || rank_of(stacked) != 2)
    return false;
  MlirValue swapped = mlirOperationGetOperand(flat, 0);
  MlirOperation transpose = producer_of(swapped, LATCH_OP_TASK_TRANSPOSE);
  if (mlirOperationIsNull(transpose) || !is_swap_of_first_two(transpose) || rank_of(swapped) != 3 ||
      dim(stacked, 0) != dim(swapped, 0)) /* a row of `stacked` is one column block */
    return false;
  MlirValue grouped = mlirOperationGetOperand(transpose, 0);
  MlirOperation split_view = producer_of(grouped, LATCH_OP_TASK_RESHAPE);
  if (mlirOperationIsNull(split_view) || rank_of(grouped) != 3)
    return false;
  MlirValue weight = mlirOperationGetOperand(split_view, 0);
  if (rank_of(weight) != 3)
    return false;
  int64_t halves = dim(grouped, 1), width = dim(grouped, 2);
  if (dim(grouped, 0) != dim(weight, 0) * dim(weight, 1) || dim(weight, 2) != halves * width)
    return false;
  *split = (column_split){.weight = weight, .halves = halves, .width = width};
  return true;
}

/* Rule 1 for a task.gather_rows; returns whether it rewrote the products, and then in `*view` the reshape of
 * the gathered row that they read before. */
static bool fold_forward(MlirContext context, MlirOperation gather, MlirOperation *view_out) {
  int64_t c;
  column_split split;
  if (latch_has_fused_mark(gather) || !constant_index(latch_gather_rows_idx(gather), &c) ||
      !stacked_columns(latch_gather_rows_x(gather), &split) || c < 0 || c >= split.halves)
    return false;
  MlirValue row = latch_gather_rows_y_result(gather);
  if (!has_one_use(row))
    return false;
  MlirOperation view = mlirOpOperandGetOwner(mlirValueGetFirstUse(row));
  if (latch_op_kind_of(view) != LATCH_OP_TASK_RESHAPE)
    return false;
  MlirValue half = mlirOperationGetResult(view, 0), weight = split.weight;
  if (rank_of(half) != 3 || dim(half, 0) != dim(weight, 0) || dim(half, 1) != dim(weight, 1) ||
      dim(half, 2) != split.width)
    return false;
  /* Every reader must be a product that reads the half as its w (else the copy stays and nothing is won). */
  for (MlirOpOperand use = mlirValueGetFirstUse(half); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation reader = mlirOpOperandGetOwner(use);
    if (latch_op_kind_of(reader) != LATCH_OP_TASK_GROUPED_MATMUL || mlirOpOperandGetOperandNumber(use) != 1 ||
        latch_has_fused_mark(reader) || latch_grouped_matmul_w_column_offset(reader) >= 0)
      return false;
  }
  if (mlirOpOperandIsNull(mlirValueGetFirstUse(half)))
    return false;
  MlirAttribute offset = mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), c * split.width);
  while (!mlirOpOperandIsNull(mlirValueGetFirstUse(half))) {
    MlirOperation reader = mlirOpOperandGetOwner(mlirValueGetFirstUse(half));
    mlirOperationSetOperand(reader, 1, weight);
    mlirOperationSetAttributeByName(reader, mlirStringRefCreateFromCString("w_column_offset"), offset);
  }
  *view_out = view;
  return true;
}

static bool named(MlirOperation op, const char *name) {
  return !mlirOperationIsNull(op) &&
         mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), mlirStringRefCreateFromCString(name));
}

/* Whether `map` is y = a + b of its two inputs (in either order) and nothing else. */
static bool is_sum_of_two(MlirOperation map) {
  if (mlirOperationIsNull(map) || mlirOperationGetNumOperands(map) != 2 || mlirOperationGetNumResults(map) != 1)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(map, 0));
  MlirOperation add = mlirBlockGetFirstOperation(body);
  if (!named(add, "arith.addf") || mlirOperationGetNumOperands(add) != 2)
    return false;
  MlirOperation yield = mlirOperationGetNextInBlock(add);
  if (!named(yield, "gpu.yield") || mlirOperationGetNumOperands(yield) != 1 ||
      !mlirValueEqual(mlirOperationGetOperand(yield, 0), mlirOperationGetResult(add, 0)))
    return false;
  MlirValue a = mlirOperationGetOperand(add, 0), b = mlirOperationGetOperand(add, 1);
  MlirValue first = mlirBlockGetArgument(body, 0), second = mlirBlockGetArgument(body, 1);
  return (mlirValueEqual(a, first) && mlirValueEqual(b, second)) || (mlirValueEqual(a, second) && mlirValueEqual(b, first));
}

/* One scattered half of 2.: s = scatter_add_rows(reshape(grouped_matmul_weight_grad(...)), [c]) {rows = 2}. */
typedef struct scattered_half {
  int64_t c;
  MlirOperation weight_grad;
} scattered_half;

static bool scattered(MlirValue value, scattered_half *half) {
  MlirOperation scatter = producer_of(value, LATCH_OP_TASK_SCATTER_ADD_ROWS);
  if (mlirOperationIsNull(scatter) || !has_one_use(value) || latch_scatter_add_rows_rows(scatter) != 2 ||
      !constant_index(latch_scatter_add_rows_idx(scatter), &half->c))
    return false;
  MlirValue row = latch_scatter_add_rows_x(scatter);
  MlirOperation view = producer_of(row, LATCH_OP_TASK_RESHAPE);
  if (mlirOperationIsNull(view) || !has_one_use(row))
    return false;
  MlirValue dw = mlirOperationGetOperand(view, 0);
  half->weight_grad = producer_of(dw, LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD);
  return !mlirOperationIsNull(half->weight_grad) && has_one_use(dw);
}

/* Rule 2 for a task.transpose; returns whether it replaced the gradient, and then in `*view_out` the
 * reshape that gave the gradient before. */
static bool fold_backward(MlirOperation transpose, MlirOperation *view_out) {
  if (latch_has_fused_mark(transpose) || !is_swap_of_first_two(transpose))
    return false;
  MlirValue swapped = latch_transpose_y_result(transpose), stacked = latch_transpose_x(transpose);
  if (!has_one_use(swapped) || rank_of(stacked) != 3 || dim(stacked, 0) != 2)
    return false;
  MlirOperation gradient_view = mlirOpOperandGetOwner(mlirValueGetFirstUse(swapped));
  MlirOperation rows_view = producer_of(stacked, LATCH_OP_TASK_RESHAPE);
  if (latch_op_kind_of(gradient_view) != LATCH_OP_TASK_RESHAPE || mlirOperationIsNull(rows_view) ||
      !has_one_use(stacked))
    return false;
  MlirValue sum = mlirOperationGetOperand(rows_view, 0);
  MlirOperation map = producer_of(sum, LATCH_OP_TASK_MAP);
  if (!is_sum_of_two(map) || !has_one_use(sum))
    return false;
  scattered_half halves[2];
  if (!scattered(mlirOperationGetOperand(map, 0), &halves[0]) || !scattered(mlirOperationGetOperand(map, 1), &halves[1]))
    return false;
  if (halves[0].c == halves[1].c || (halves[0].c != 0 && halves[0].c != 1) || (halves[1].c != 0 && halves[1].c != 1))
    return false;
  MlirOperation first = halves[halves[0].c == 0 ? 0 : 1].weight_grad, second = halves[halves[0].c == 0 ? 1 : 0].weight_grad;
  MlirValue x = latch_grouped_matmul_weight_grad_x(first), ends = latch_grouped_matmul_weight_grad_ends(first);
  if (!mlirValueEqual(x, latch_grouped_matmul_weight_grad_x(second)) ||
      !mlirValueEqual(ends, latch_grouped_matmul_weight_grad_ends(second)))
    return false;
  MlirValue gradient = mlirOperationGetResult(gradient_view, 0), dw = latch_grouped_matmul_weight_grad_dw_result(first);
  if (rank_of(gradient) != 3 || rank_of(dw) != 3 || dim(dw, 2) % LATCH_CONCAT_HALF_COLUMNS != 0 ||
      dim(gradient, 0) != dim(dw, 0) || dim(gradient, 1) != dim(dw, 1) ||
      dim(gradient, 2) != 2 * dim(dw, 2) ||
      !mlirTypeEqual(mlirShapedTypeGetElementType(mlirValueGetType(gradient)), mlirShapedTypeGetElementType(mlirValueGetType(dw))) ||
      !mlirTypeEqual(mlirValueGetType(dw), mlirValueGetType(latch_grouped_matmul_weight_grad_dw_result(second))))
    return false;
  /* the rows of [2, G K, n] must be dw's rows, or the transpose interleaves other blocks than the halves */
  if (dim(stacked, 1) != dim(dw, 0) * dim(dw, 1) || dim(stacked, 2) != dim(dw, 2))
    return false;
  /* the later of the two weight gradients: every operand of both is defined before it */
  if (!mlirBlockEqual(mlirOperationGetBlock(first), mlirOperationGetBlock(second)))
    return false;
  MlirOperation later = first;
  for (MlirOperation op = mlirOperationGetNextInBlock(first); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (mlirOperationEqual(op, second)) {
      later = second;
      break;
    }
  MlirValue operands[4] = {x, latch_grouped_matmul_weight_grad_dy(first), latch_grouped_matmul_weight_grad_dy(second), ends};
  MlirType type = mlirValueGetType(gradient);
  MlirOperation concat = latch_op_create(LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, mlirOperationGetLocation(first),
                                         1, &type, 4, operands, NULL);
  if (mlirOperationIsNull(concat))
    return false;
  MlirAttribute phase = mlirOperationGetAttributeByName(first, mlirStringRefCreateFromCString("task.phase"));
  if (!mlirAttributeIsNull(phase))
    mlirOperationSetAttributeByName(concat, mlirStringRefCreateFromCString("task.phase"), phase);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(later), later, concat);
  mlirValueReplaceAllUsesOfWith(gradient, mlirOperationGetResult(concat, 0));
  *view_out = gradient_view;
  return true;
}

/* The kinds of task the rules go through: only those are erased. */
static bool in_a_chain(MlirOperation op) {
  switch (latch_op_kind_of(op)) {
  case LATCH_OP_TASK_RESHAPE:
  case LATCH_OP_TASK_TRANSPOSE:
  case LATCH_OP_TASK_GATHER_ROWS:
  case LATCH_OP_TASK_SCATTER_ADD_ROWS:
  case LATCH_OP_TASK_MAP:
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD: return true;
  default: return false;
  }
}

/* Erases `op` when nothing reads it, then those of its producers that it leaves without readers, and so on
 * up the chain (the kinds above take at most LATCH_MAP_MAX_INPUTS operands, a map's limit). */
static void erase_if_unread(MlirOperation op) {
  if (!in_a_chain(op))
    return;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, r))))
      return;
  MlirOperation producers[LATCH_MAP_MAX_INPUTS];
  int count = 0;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op) && count < LATCH_MAP_MAX_INPUTS; ++k) {
    MlirValue operand = mlirOperationGetOperand(op, k);
    if (!mlirValueIsAOpResult(operand))
      continue;
    MlirOperation producer = mlirOpResultGetOwner(operand);
    bool seen = false; /* each once: the first erase may destroy it */
    for (int i = 0; i < count; ++i)
      seen = seen || mlirOperationEqual(producers[i], producer);
    if (!seen)
      producers[count++] = producer;
  }
  mlirOperationDestroy(op);
  for (int i = 0; i < count; ++i)
    erase_if_unread(producers[i]);
}

static MlirLogicalResult run(MlirOperation op, const void *options) {
  (void)options;
  MlirContext context = mlirOperationGetContext(op);
  MlirOperation *gathers = NULL, *transposes = NULL, *unread = NULL;
  size_t gather_count = 0, transpose_count = 0, unread_count = 0;
  bool ok = latch_ops_of_kind(op, LATCH_OP_TASK_GATHER_ROWS, &gathers, &gather_count) &&
            latch_ops_of_kind(op, LATCH_OP_TASK_TRANSPOSE, &transposes, &transpose_count) &&
            (unread = malloc((gather_count + transpose_count + 1) * sizeof(MlirOperation))) != NULL;
  if (!ok) {
    free(gathers);
    free(transposes);
    mlirEmitError(mlirOperationGetLocation(op), "latch-fold-weight-split: out of memory");
    return mlirLogicalResultFailure();
  }
  /* Every rule first, then the erasing: the lists above hold ops that it destroys. */
  for (size_t i = 0; i < gather_count; ++i)
    if (fold_forward(context, gathers[i], &unread[unread_count]))
      ++unread_count;
  for (size_t i = 0; i < transpose_count; ++i)
    if (fold_backward(transposes[i], &unread[unread_count]))
      ++unread_count;
  for (size_t i = 0; i < unread_count; ++i)
    erase_if_unread(unread[i]);
  free(gathers);
  free(transposes);
  free(unread);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_fold_weight_split_pass = {
    .name = "latch-fold-weight-split",
    .summary = "Let grouped products read and write the column halves of a split weight in place (w_column_offset, "
               "grouped_matmul_weight_grad_concat) instead of through transposes, gathers and scatters",
    .anchor = "builtin.module",
    .run = run,
};
