/* latch-task-stats.c - counts the task ops of each program and the FLOPs of its matmuls, and records
 * them in a `task.stats` dictionary attribute (the C API cannot emit remarks, only errors). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include "../dialects/ops.h"
#include "pass.h"

/* ---- options ---------------------------------------------------------------------------------- */

typedef struct task_stats_options {
  bool per_function;
} task_stats_options;

static const latch_pass_option options[] = {
    {"per-function", LATCH_OPTION_BOOL, "true",
     "one task.stats per func.func and interval.program (false: one for the whole module)",
     offsetof(task_stats_options, per_function)},
};

/* ---- counting --------------------------------------------------------------------------------- */

typedef struct task_stats {
  int64_t count[LATCH_OP_COUNT]; /* task ops of each kind */
  int64_t ops;                   /* all task ops */
  int64_t matmul_flops;          /* saturates at INT64_MAX */
  int64_t unsized_matmuls;       /* matmuls whose types do not give their FLOPs */
} task_stats;

static int64_t saturating_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t saturating_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

/* True when `value` is a ranked tensor of static shape and rank `rank`. */
static bool is_static_tensor(MlirValue value, int64_t rank) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) &&
         mlirShapedTypeGetRank(type) == rank;
}

static int64_t dim(MlirValue value, intptr_t index) {
  return mlirShapedTypeGetDimSize(mlirValueGetType(value), index);
}

/* 2 * batch * M * N * K for task.matmul (M, N from the result, K from a); 2 * R * K * N for
 * task.grouped_matmul (exact when every row is routed, ends[G-1] = R; an upper bound otherwise).
 * Returns -1 when the types do not say (not yet verified, or dynamic shapes). */
static int64_t matmul_flops(MlirOperation op, latch_op_kind kind) {
  if (kind == LATCH_OP_TASK_GROUPED_MATMUL) {
    MlirValue x = latch_grouped_matmul_x(op), w = latch_grouped_matmul_w(op), y = latch_grouped_matmul_y_result(op);
    if (!is_static_tensor(x, 2) || !is_static_tensor(w, 3) || !is_static_tensor(y, 2))
      return -1;
    int64_t n = dim(y, 1); /* w's last dim may be wider (w_column_offset) */
    return saturating_mul(saturating_mul(saturating_mul(2, dim(x, 0)), dim(x, 1)), n);
  }
  MlirValue a = latch_matmul_a(op), c = latch_matmul_c_result(op);
  int64_t rank = mlirShapedTypeGetRank(mlirValueGetType(c));
  if ((rank != 2 && rank != 3) || !is_static_tensor(a, rank) || !is_static_tensor(c, rank))
    return -1;
  intptr_t r = (intptr_t)rank;
  int64_t batch = rank == 3 ? dim(c, 0) : 1;
  int64_t k = dim(a, latch_matmul_transpose_a(op) ? r - 2 : r - 1);
  int64_t mn = saturating_mul(dim(c, r - 2), dim(c, r - 1));
  return saturating_mul(saturating_mul(saturating_mul(2, batch), mn), k);
}

static MlirWalkResult count_op(MlirOperation op, void *user_data) {
  task_stats *stats = user_data;
  latch_op_kind kind = latch_op_kind_of(op);
  if (kind == LATCH_OP_UNKNOWN || !latch_op_is_task(op))
    return MlirWalkResultAdvance;
  stats->count[kind]++;
  stats->ops++;
  if (kind == LATCH_OP_TASK_MATMUL || kind == LATCH_OP_TASK_GROUPED_MATMUL) {
    int64_t flops = matmul_flops(op, kind);
    if (flops < 0)
      stats->unsized_matmuls++;
    else
      stats->matmul_flops = saturating_add(stats->matmul_flops, flops);
  }
  return MlirWalkResultAdvance;
}

/* ---- recording -------------------------------------------------------------------------------- */

static MlirNamedAttribute entry(MlirContext context, const char *name, int64_t value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)),
                               latch_attr_get_int(context, value));
}

/* Counts the task ops nested in `op` and sets `task.stats` on it, e.g.
 *   task.stats = {matmul_flops = 1024 : i64, ops = 3 : i64, task.matmul = 2 : i64, task.softmax = 1 : i64}
 * (`unsized_matmuls` only when there are any). */
static void record_stats(MlirOperation op) {
  task_stats stats;
  memset(&stats, 0, sizeof(stats));
  mlirOperationWalk(op, count_op, &stats, MlirWalkPreOrder);

  MlirContext context = mlirOperationGetContext(op);
  MlirNamedAttribute entries[LATCH_OP_COUNT + 3];
  intptr_t n = 0;
  entries[n++] = entry(context, "ops", stats.ops);
  entries[n++] = entry(context, "matmul_flops", stats.matmul_flops);
  if (stats.unsized_matmuls)
    entries[n++] = entry(context, "unsized_matmuls", stats.unsized_matmuls);
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind)
    if (stats.count[kind])
      entries[n++] = entry(context, latch_op_desc_get((latch_op_kind)kind)->name, stats.count[kind]);
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString("task.stats"),
                                             mlirDictionaryAttrGet(context, n, entries));
}

static bool is_program(MlirOperation op) {
  return latch_op_is(op, "func.func") || latch_op_kind_of(op) == LATCH_OP_INTERVAL_PROGRAM;
}

/* Annotates every outermost func.func and interval.program; ops inside one are its own. */
static MlirWalkResult record_program(MlirOperation op, void *user_data) {
  (void)user_data;
  if (!is_program(op))
    return MlirWalkResultAdvance;
  record_stats(op);
  return MlirWalkResultSkip;
}

static MlirLogicalResult run(MlirOperation module, const void *opaque_options) {
  const task_stats_options *opts = opaque_options;
  if (opts->per_function)
    mlirOperationWalk(module, record_program, NULL, MlirWalkPreOrder);
  else
    record_stats(module);
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_task_stats_pass = {
    .name = "latch-task-stats",
    .summary = "Record the task ops of each program and the FLOPs of its matmuls in task.stats",
    .anchor = "builtin.module",
    .options = options,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options_size = sizeof(task_stats_options),
    .run = run,
};
