/* latch-split-optimizer.c - cuts AdamW steps into ranges of their tiles placed where CTAs would idle.
 *
 * After latch-fuse-phases, an interval takes its longest tile or its work over the persistent grid's
 * CTAs (latch_task_tile_cost_ns, LATCH_GRID_CTAS), whichever is longer; in the first case its other CTAs
 * idle once their tiles are done (TinyMoE 2x1024's backward: 115 CTA-ms idle against about 195 CTA-ms of
 * AdamW, H100 trace 2026-12-07). A whole step is too coarse to fill that: moved beside two 64-tile
 * products, a 4096-tile step lengthened their interval by 35 us. This pass takes each task.adamw whose
 * results only the program returns and, walking the intervals after its own in order, gives each one
 * as many of its tiles as that interval's idle CTA-time holds (at least `min-part-tiles`, else none);
 * the tiles left stay in its interval. Each part is a task.adamw with `tile_range = [first, count]`
 * (latch-verify, docs/task-dialect.md): it updates those tiles' elements and passes the others of p, m
 * and v through, and reads the part before it's results, so the parts run in order, each written over
 * the same program arguments (latch-lower-tasks, latch-lower-intervals' alias_arg, latch-interp). The
 * results are bitwise those of the whole step: every element is updated once, by the same arithmetic.
 * A part goes at the end of its interval (AdamW's tiles are among the lightest, as latch-fuse-phases{order}
 * would put them). Run it after latch-fuse-phases and before latch-plan-arena. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "pass.h"

typedef struct split_options {
  int64_t min_part_tiles;
} split_options;

static const latch_pass_option split_option_table[] = {
    {"min-part-tiles", LATCH_OPTION_INT, "64",
     "the fewest tiles a part placed in a later interval may have (an interval whose idle CTA-time holds fewer "
     "takes none)",
     offsetof(split_options, min_part_tiles)},
};

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

static int64_t tiles_of(MlirOperation op) { return latch_attr_int(op, "tiles", 0); }

/* A task.adamw without a tile range whose results only the program's terminator uses. */
static bool splittable(MlirOperation op, MlirOperation terminator) {
  if (latch_op_kind_of(op) != LATCH_OP_TASK_ADAMW || latch_attr_i64_array_size(op, "tile_range") >= 0 ||
      mlirOperationGetNumResults(op) != 3 || tiles_of(op) < 2)
    return false;
  for (intptr_t r = 0; r < 3; ++r)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, r)); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use))
      if (!mlirOperationEqual(mlirOpOperandGetOwner(use), terminator))
        return false;
  return true;
}

/* A copy of `step` over tiles [first, first + count), inserted before `before`; its p, m, v are those of
 * `previous` when that is not null. */
static MlirOperation make_part(MlirOperation step, MlirOperation previous, int64_t first, int64_t count,
                               MlirOperation before) {
  MlirContext context = mlirOperationGetContext(step);
  MlirOperation part = mlirOperationClone(step);
  int64_t range[2] = {first, count};
  mlirOperationSetAttributeByName(part, str("tile_range"), latch_attr_get_i64_array(context, 2, range));
  mlirOperationSetAttributeByName(part, str("tiles"), mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), count));
  for (intptr_t r = 0; !mlirOperationIsNull(previous) && r < 3; ++r)
    mlirOperationSetOperand(part, latch_adamw_written_over(r), mlirOperationGetResult(previous, r));
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, part);
  return part;
}

static MlirLogicalResult split_program(MlirOperation program, const split_options *options) {
  latch_schedule s;
  if (!latch_schedule_initialize(&s, program))
    return mlirLogicalResultFailure();
  int n = s.interval_count;
  double *work = calloc((size_t)n + 1, sizeof(double)), *longest = calloc((size_t)n + 1, sizeof(double));
  MlirOperation *closer = calloc((size_t)n + 1, sizeof(MlirOperation)); /* the op before which a part joins */
  int64_t *taken = calloc((size_t)n + 1, sizeof(int64_t));
  bool ok = work && longest && closer && taken;
  if (!ok)
    mlirEmitError(mlirOperationGetLocation(program), "latch-split-optimizer: out of memory");
  MlirOperation terminator = mlirBlockGetTerminator(s.body);
  /* Interval k ends before its barrier; the last one before the terminator. */
  for (int k = 0; ok && k < n; ++k)
    closer[k] = terminator;
  int at = -1;
  for (MlirOperation op = mlirBlockGetFirstOperation(s.body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_INTERVAL)
      at++;
    else if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_BARRIER && at >= 0 && at < n)
      closer[at] = op;
  }
  /* Tasks that run inside an anchor's tiles (task.fused) add none of their own. */
  for (size_t i = 0; ok && i < s.count; ++i) {
    MlirOperation op = s.ops[i];
    if (!latch_op_is_task(op) || latch_has_fused_mark(op) || s.interval[i] < 0)
      continue;
    latch_interval_add_tiles(&work[s.interval[i]], &longest[s.interval[i]], latch_task_tile_cost_ns(op),
                             (double)tiles_of(op));
  }
  for (size_t i = 0; ok && i < s.count; ++i) {
    MlirOperation step = s.ops[i];
    int own = s.interval[i];
    if (own < 0 || !splittable(step, terminator))
      continue;
    double cost = latch_task_tile_cost_ns(step);
    int64_t tiles = tiles_of(step), left = tiles;
    if (!(cost > 0))
      continue;
    for (int k = own + 1; k < n; ++k) {
      taken[k] = 0;
      double idle = latch_interval_span_ns(work[k], longest[k]) * LATCH_GRID_CTAS - work[k];
      int64_t fits = (int64_t)floor(idle / cost);
      if (fits > left)
        fits = left;
      if (fits >= options->min_part_tiles) { /* at least 1 (run checks it) */
        taken[k] = fits;
        left -= fits;
      }
    }
    if (left == tiles)
      continue;
    /* The parts in order: the tiles left in its own interval first, then one per later interval. */
    MlirOperation previous = {NULL};
    int64_t first = 0;
    if (left > 0) {
      previous = make_part(step, previous, 0, left, step);
      first = left;
    }
    work[own] -= cost * (double)(tiles - left);
    for (int k = own + 1; k < n; ++k) {
      if (taken[k] == 0)
        continue;
      previous = make_part(step, previous, first, taken[k], closer[k]);
      first += taken[k];
      work[k] += cost * (double)taken[k];
    }
    for (intptr_t r = 0; r < 3; ++r)
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(step, r), mlirOperationGetResult(previous, r));
    mlirOperationDestroy(step);
  }
  free(work);
  free(longest);
  free(closer);
  free(taken);
  latch_schedule_deinitialize(&s);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

static MlirLogicalResult run(MlirOperation module, const void *raw_options) {
  const split_options *options = raw_options;
  if (options->min_part_tiles < 1) {
    mlirEmitError(mlirOperationGetLocation(module), "latch-split-optimizer: min-part-tiles must be at least 1");
    return mlirLogicalResultFailure();
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_PROGRAM && mlirLogicalResultIsFailure(split_program(op, options)))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_split_optimizer_pass = {
    .name = "latch-split-optimizer",
    .summary = "Cut AdamW steps into tile ranges placed in later intervals whose CTAs would idle",
    .anchor = "builtin.module",
    .options = split_option_table,
    .option_count = sizeof(split_option_table) / sizeof(split_option_table[0]),
    .options_size = sizeof(split_options),
    .run = run,
};
