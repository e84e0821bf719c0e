/* latch-fuse-phases.c - phase fusion on interval.programs: fewer barrier-separated intervals computing
 * bit for bit the same results. Four steps, each with an option to switch it off:
 *
 * 1. fuse-maps: a task.map or task.convert whose results are used only by task.maps and task.converts
 *    is inlined into each of them: the consumer becomes one task.map whose body first recomputes the
 *    producer's scalar ops (those its used results need, in the producer's order) and then its own (a
 *    consumer convert first becomes a map whose body is the conversion: arith.extf, arith.truncf,
 *    arith.fptosi or arith.sitofp; a producer convert is inlined the same way). The consumer's inputs
 *    become its own, in order, with each use of the producer replaced in place by the producer's
 *    inputs, duplicates removed. It is done only when the result stays within LATCH_MAP_MAX_INPUTS /
 *    LATCH_MAP_MAX_OUTPUTS and FUSE_MAX_BODY_OPS, all or nothing per producer. Maps are shape-agnostic
 *    in row-major order, so a map/convert whose only use is a task.reshape whose users are all
 *    elementwise is first moved behind the reshape (it maps over the reshaped shape; its full-shape
 *    input is reshaped instead, at most one new reshape, none when that input is itself a reshape of
 *    a value of the target shape) and then fused like any other producer. Rank-0 inputs broadcast
 *    before and after: a producer with a rank-0 result has only rank-0 inputs.
 *
 * 2. absorb: elementwise work next to a tile-producing task (task.matmul, task.grouped_matmul,
 *    task.grouped_matmul_weight_grad, task.rmsnorm, task.rmsnorm_grad: the anchors) is marked to run
 *    inside that task's tiles, in the anchor's interval with no barrier in between:
 *      - `task.fused = "epilogue"` on a task.map/task.convert one of whose inputs is result 0 of an
 *        anchor (the value may appear at several input positions), that value having no other user;
 *        its other inputs are rank 0, or of that result's shape and defined before the anchor (a
 *        residual added to a product), and are produced in earlier intervals. The backend must run it
 *        inside each of the anchor's tiles on the tile's output elements once they are final, as the
 *        anchor would store them (accumulation complete, rounded to the result's dtype), reading its
 *        rank-0 inputs as broadcast scalars and its other inputs at the same element index, and store
 *        its own results at the same element indices; the anchor's result itself need not be stored. It applies to every element
 *        of the anchor's result (also rows a grouped matmul leaves zero).
 *      - `task.fused = "prologue"` on a task.map/task.convert with one result, all of whose uses are
 *        operands of one anchor (matmul a, b; grouped matmul x, w; grouped matmul weight grad x, dy;
 *        rmsnorm x, w; rmsnorm grad x, w, dy), and that is no epilogue. The backend must run it inside
 *        each of the anchor's tiles on every element of that operand as it is loaded (reading the
 *        prologue's own inputs at the same element index, rank-0 inputs as scalars) and give the
 *        anchor the values the prologue would store (rounded to its result's dtype, e.g. bf16 for a
 *        convert), so the prologue's result is never stored; an element loaded by several tiles is
 *        recomputed by each.
 *    A fused task keeps its own `tiles` (what it would take standalone); it has no tiles of its own in
 *    the anchor's interval. Running it as an ordinary task of that interval is wrong on a GPU: an
 *    epilogue reads what its anchor writes in the same interval (and an anchor what its prologue
 *    writes), with no barrier in between; a backend that does not fuse has to split the interval
 *    there (a grid barrier between the partners). An interpreter that runs the tasks of an interval
 *    one after another in block order (prologues, anchor, epilogue) is exact.
 *
 * 3. merge: list scheduling. Every task moves to the earliest interval after the intervals of all its
 *    producers; an anchor with its prologues and epilogue moves as one group (the group's interval is
 *    the earliest after every producer of any member, so an epilogue's rank-0 inputs are ready). A view
 *    (latch_reshape_is_view: a reshape of a task's result, which latch-plan-arena binds over its input
 *    with no tiles) reads no memory and goes into its input's interval, so its readers start one
 *    interval earlier. Empty intervals go, the rest are renumbered from 0 and renamed `i<N>.<kind>`
 *    after their first task that is not a prologue, an epilogue or a view (`i<N>.<kind>+<M>` when M
 *    more tasks other than views share the interval);
 *    the tasks of an interval are in program order (with order: see 5), a barrier between consecutive
 *    intervals. With merge=false every task keeps its interval (a fused map takes its consumer's, absorbed tasks join
 *    their anchor's, empty intervals go; an epilogue is absorbed only if its other inputs come from
 *    intervals before the anchor's).
 *
 * 4. balance (with merge): tasks that read only program arguments and constants (an update's weight
 *    conversions and splits) have no producer, so merge puts them all in the first interval. Each that
 *    is a group of its own moves to the interval that its tiles lengthen least (latch_task_tile_cost_ns:
 *    an interval takes its longest tile or its work over the grid's CTAs; the latest on ties) between its
 *    merged one and its latest: the interval before the latest of its first reader, the latest levels
 *    being those that keep the schedule's length. The tasks after them are placed as in merge again. So
 *    the weights' conversions fill intervals whose few tiles leave CTAs idle, and their results live
 *    from just before their readers.
 *    With place-optimizer, each task.adamw that is a group of its own moves the same way, from its merged
 *    interval to the last (nothing in the update reads what it writes), the earliest on ties (its
 *    gradient lives less): TinyMoE's expert weights' steps leave the memory-bound intervals beside their
 *    gradients' maps for those of the 64-tile products and the attention gradient, whose tiles leave CTAs
 *    idle.
 *
 * 5. order: the tasks of each interval heaviest tiles first (latch_task_tile_cost_ns), each after the
 *    tasks of its interval that it reads; the interval keeps the name of its program order. The
 *    persistent kernel numbers an interval's tiles in task order and each CTA starts with tile
 *    blockIdx.x, so the long tiles (TinyMoE's fp32 router weight gradient, 51 us per tile beside 4 us
 *    transposes) start first and the short ones fill in behind them. Measured on the H200 (2026-12-01,
 *    bench/ab.sh, 3 rounds): 2x1024 0.988, 32x1024 0.957 of the update time in program order.
 *
 * Prologues marked before this pass (latch-memory-rules{absorbed=true} marks its recomputed copies
 * `task.fused = "prologue"`, of any task kind, each right before its one reader) are honoured whatever
 * the options: a marked task whose results all go to one later task joins that task's group (chains
 * of marked tasks end in one group); a mark that cannot be honoured (several readers, a program
 * result, or with merge=false an input not ready before that interval) is removed. Marked tasks are
 * neither absorbed nor anchors. `task.fused = "epilogue"` marks from an earlier run are removed first
 * and found again, so the pass can run again with the same result.
 *
 * The program gets `interval.intervals_before = N : i64` and `interval.intervals_after = M : i64`; the
 * pass prints nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/GPU.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "../support/ptrmap.h"
#include "pass.h"

/* A fused body holds at most this many ops (its terminator included): a producer used by several maps
 * is recomputed by each, and chains of such fusions must not grow bodies without bound. */
#define FUSE_MAX_BODY_OPS 256
/* A producer is fused into at most this many consumers. */
#define FUSE_MAX_USERS 32
/* Marks, during the fuse-maps step, an input reshape that a map moved behind a reshape looked through. */
#define LOOKED_THROUGH "latch-fuse-phases.looked_through"

typedef struct fuse_options {
  bool fuse_maps;
  bool absorb;
  bool merge;
  bool balance;
  bool place_optimizer;
  bool order;
} fuse_options;

static const latch_pass_option fuse_option_table[] = {
    {"fuse-maps", LATCH_OPTION_BOOL, "true",
     "inline task.map/task.convert producers into the task.maps that use them",
     offsetof(fuse_options, fuse_maps)},
    {"absorb", LATCH_OPTION_BOOL, "true",
     "mark elementwise prologues/epilogues of matmul and norm tasks (task.fused) and place them with it",
     offsetof(fuse_options, absorb)},
    {"merge", LATCH_OPTION_BOOL, "true",
     "list-schedule: every task in the earliest interval after its producers'; drop empty intervals",
     offsetof(fuse_options, merge)},
    {"balance", LATCH_OPTION_BOOL, "true",
     "with merge: tasks that read only program arguments go to the interval (of those they may take) their tiles lengthen least",
     offsetof(fuse_options, balance)},
    {"place-optimizer", LATCH_OPTION_BOOL, "true",
     "with balance: each task.adamw moves to the interval, from its merged one to the last, that its tiles lengthen "
     "least (the earliest on ties)",
     offsetof(fuse_options, place_optimizer)},
    {"order", LATCH_OPTION_BOOL, "true",
     "the tasks of an interval heaviest tiles first (latch_task_tile_cost_ns), after their producers in it",
     offsetof(fuse_options, order)},
};

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

static bool is_kind(MlirOperation op, latch_op_kind kind) { return latch_op_kind_of(op) == kind; }

static bool is_elementwise(MlirOperation op) {
  return is_kind(op, LATCH_OP_TASK_MAP) || is_kind(op, LATCH_OP_TASK_CONVERT);
}

/* Ranked, static and of rank at most 16 (what with_element() copies). */
static bool is_static_tensor(MlirType type) {
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) && mlirShapedTypeGetRank(type) <= 16;
}

static intptr_t rank_of(MlirValue value) { return mlirShapedTypeGetRank(mlirValueGetType(value)); }

static MlirType element_of(MlirValue value) { return mlirShapedTypeGetElementType(mlirValueGetType(value)); }

static bool same_shape(MlirType a, MlirType b) {
  intptr_t rank = mlirShapedTypeGetRank(a);
  if (rank != mlirShapedTypeGetRank(b))
    return false;
  for (intptr_t i = 0; i < rank; ++i)
    if (mlirShapedTypeGetDimSize(a, i) != mlirShapedTypeGetDimSize(b, i))
      return false;
  return true;
}

static MlirType with_element(MlirType shaped, MlirType element) {
  intptr_t rank = mlirShapedTypeGetRank(shaped);
  int64_t shape[16];
  for (intptr_t i = 0; i < rank && i < 16; ++i)
    shape[i] = mlirShapedTypeGetDimSize(shaped, i);
  return mlirRankedTensorTypeGet(rank, shape, element, mlirAttributeGetNull());
}

/* True when `value` is a result of `op`; its result number goes to *index. */
static bool is_result_of(MlirValue value, MlirOperation op, intptr_t *index) {
  if (!mlirValueIsAOpResult(value) || !mlirOperationEqual(mlirOpResultGetOwner(value), op))
    return false;
  if (index)
    *index = mlirOpResultGetResultNumber(value);
  return true;
}

static MlirOperation defining_op(MlirValue value) {
  return mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value) : (MlirOperation){NULL};
}

/* Creates a generic op (arith, gpu) without attributes; the caller inserts it. */
static MlirOperation make_op(const char *name, MlirLocation loc, intptr_t result_count, const MlirType *result_types,
                             intptr_t operand_count, const MlirValue *operands) {
  MlirOperationState state = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddResults(&state, result_count, result_types);
  mlirOperationStateAddOperands(&state, operand_count, operands);
  return mlirOperationCreate(&state);
}

/* Copies the attributes of `from` to `to`, except the map's segment sizes and `tiles` (set anew from
 * the new op's shape). */
static void copy_attributes(MlirOperation from, MlirOperation to) {
  static const char *const skip[] = {"operandSegmentSizes", "resultSegmentSizes", "tiles"};
  for (intptr_t i = 0, n = mlirOperationGetNumAttributes(from); i < n; ++i) {
    MlirNamedAttribute named = mlirOperationGetAttribute(from, i);
    MlirStringRef name = mlirIdentifierStr(named.name);
    bool skipped = false;
    for (size_t k = 0; k < sizeof(skip) / sizeof(skip[0]) && !skipped; ++k)
      skipped = latch_ref_is(name, skip[k]);
    if (!skipped)
      mlirOperationSetAttributeByName(to, name, named.attribute);
  }
  mlirOperationSetAttributeByName(to, str("tiles"),
                                  latch_attr_get_int(mlirOperationGetContext(to), latch_task_tile_count(to)));
}

/* Puts `replacement` where `old` was: inserted before it, its results taking over old's uses, `old`
 * destroyed. */
static void replace_op(MlirOperation old, MlirOperation replacement) {
  MlirBlock block = mlirOperationGetBlock(old);
  mlirBlockInsertOwnedOperationBefore(block, old, replacement);
  for (intptr_t i = 0, n = mlirOperationGetNumResults(old); i < n; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(old, i), mlirOperationGetResult(replacement, i));
  mlirOperationDestroy(old);
}

/* ---- scalar conversions -------------------------------------------------------------------------- */

/* The arith op that converts one scalar of type `from` to `to` as task.convert does: "" when no op is
 * needed (same type), NULL when there is none. */
static const char *conversion_op(MlirType from, MlirType to) {
  if (mlirTypeEqual(from, to))
    return "";
  bool from_float = mlirTypeIsAFloat(from), to_float = mlirTypeIsAFloat(to);
  if (from_float && to_float) {
    unsigned a = mlirFloatTypeGetWidth(from), b = mlirFloatTypeGetWidth(to);
    return a < b ? "arith.extf" : a > b ? "arith.truncf" : NULL;
  }
  if (from_float && mlirTypeIsAInteger(to))
    return "arith.fptosi";
  if (mlirTypeIsAInteger(from) && to_float)
    return "arith.sitofp";
  return NULL; /* integer widths other than i32 are not task dtypes */
}

/* ---- bodies -------------------------------------------------------------------------------------- */

/* Within the map limits, at least one result, and every operand and result a static tensor. */
static bool is_fusable_shape(MlirOperation op) {
  if (mlirOperationGetNumOperands(op) > LATCH_MAP_MAX_INPUTS || mlirOperationGetNumResults(op) > LATCH_MAP_MAX_OUTPUTS)
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (!is_static_tensor(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    if (!is_static_tensor(mlirValueGetType(mlirOperationGetResult(op, i))))
      return false;
  return mlirOperationGetNumResults(op) >= 1;
}

/* A map whose body can be inlined and rebuilt: one block, one argument per input, region-free body
 * ops, a gpu.yield with one value per output, static tensor types. Converts qualify when their
 * conversion has an arith op. */
static bool is_well_formed_elementwise(MlirOperation op) {
  if (!is_fusable_shape(op))
    return false;
  if (is_kind(op, LATCH_OP_TASK_CONVERT))
    return mlirOperationGetNumOperands(op) == 1 && mlirOperationGetNumResults(op) == 1 &&
           conversion_op(element_of(mlirOperationGetOperand(op, 0)), element_of(mlirOperationGetResult(op, 0)));
  if (!is_kind(op, LATCH_OP_TASK_MAP) || mlirOperationGetNumRegions(op) != 1)
    return false;
  MlirBlock body = latch_map_body(op);
  if (mlirBlockIsNull(body) || !mlirBlockIsNull(mlirBlockGetNextInRegion(body)) ||
      mlirBlockGetNumArguments(body) != mlirOperationGetNumOperands(op))
    return false;
  MlirOperation terminator = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(terminator) || !latch_op_is(terminator, "gpu.yield") ||
      mlirOperationGetNumOperands(terminator) != mlirOperationGetNumResults(op))
    return false;
  for (MlirOperation inner = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner))
    if (mlirOperationGetNumRegions(inner) != 0)
      return false;
  return true;
}

/* Ops in a map body, its terminator included (2 for a convert: the conversion and the yield). */
static intptr_t body_op_count(MlirOperation op) {
  if (is_kind(op, LATCH_OP_TASK_CONVERT))
    return 2;
  intptr_t count = 0;
  for (MlirOperation inner = mlirBlockGetFirstOperation(latch_map_body(op)); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner))
    count++;
  return count;
}

/* Marks the body ops of map `producer` (terminator excluded) that the yielded values of the results
 * flagged in `used` depend on: needed[k] for the k-th op. Returns how many, or -1 when out of memory. */
static intptr_t mark_needed(MlirOperation producer, const bool *used, bool *needed, intptr_t op_count) {
  MlirBlock body = latch_map_body(producer);
  MlirOperation terminator = mlirBlockGetTerminator(body);
  MlirOperation *ops = malloc(sizeof(*ops) * (size_t)(op_count ? op_count : 1));
  latch_ptrmap live;
  if (!ops || !latch_ptrmap_initialize(&live)) {
    free(ops);
    return -1;
  }
  intptr_t count = 0;
  for (MlirOperation inner = mlirBlockGetFirstOperation(body); !mlirOperationEqual(inner, terminator);
       inner = mlirOperationGetNextInBlock(inner))
    ops[count++] = inner;
  bool ok = true;
  for (intptr_t j = 0, n = mlirOperationGetNumOperands(terminator); j < n && ok; ++j)
    if (used[j])
      ok = latch_ptrmap_put(&live, mlirOperationGetOperand(terminator, j).ptr, (void *)1);
  intptr_t marked = 0;
  for (intptr_t k = count - 1; k >= 0 && ok; --k) {
    needed[k] = false;
    for (intptr_t r = 0, n = mlirOperationGetNumResults(ops[k]); r < n && !needed[k]; ++r)
      needed[k] = latch_ptrmap_get(&live, mlirOperationGetResult(ops[k], r).ptr) != NULL;
    if (!needed[k])
      continue;
    marked++;
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(ops[k]); i < n && ok; ++i)
      ok = latch_ptrmap_put(&live, mlirOperationGetOperand(ops[k], i).ptr, (void *)1);
  }
  latch_ptrmap_deinitialize(&live);
  free(ops);
  return ok ? marked : -1;
}

static intptr_t count_body_ops(MlirOperation map) {
  intptr_t count = 0;
  for (MlirOperation inner = mlirBlockGetFirstOperation(latch_map_body(map)); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner))
    count++;
  return count;
}

/* How many body ops of `producer` (map or convert) a consumer using the results flagged in `used`
 * needs, or -1 when out of memory. */
static intptr_t needed_op_count(MlirOperation producer, const bool *used) {
  if (is_kind(producer, LATCH_OP_TASK_CONVERT))
    return 1;
  intptr_t total = count_body_ops(producer);
  bool *needed = calloc((size_t)(total ? total : 1), sizeof(bool));
  if (!needed)
    return -1;
  intptr_t count = mark_needed(producer, used, needed, total);
  free(needed);
  return count;
}

/* ---- the fused input list ------------------------------------------------------------------------ */

static intptr_t index_in(const MlirValue *values, intptr_t count, MlirValue value) {
  for (intptr_t i = 0; i < count; ++i)
    if (mlirValueEqual(values[i], value))
      return i;
  return -1;
}

/* The inputs of `consumer` once `producer` is inlined into it: its own inputs in order, each result of
 * the producer replaced in place by `inputs` (the producer's inputs), duplicates dropped. Returns the
 * count (which may exceed `capacity`: then only the first `capacity` are written). */
static intptr_t fused_inputs(MlirOperation consumer, MlirOperation producer, const MlirValue *inputs,
                             intptr_t input_count, MlirValue *out, intptr_t capacity) {
  MlirValue all[2 * (LATCH_MAP_MAX_INPUTS + 1) + 64];
  intptr_t count = 0, limit = (intptr_t)(sizeof(all) / sizeof(all[0]));
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(consumer); i < n; ++i) {
    MlirValue operand = mlirOperationGetOperand(consumer, i);
    if (is_result_of(operand, producer, NULL)) {
      for (intptr_t k = 0; k < input_count; ++k)
        if (index_in(all, count, inputs[k]) < 0 && count < limit)
          all[count++] = inputs[k];
    } else if (index_in(all, count, operand) < 0 && count < limit) {
      all[count++] = operand;
    }
  }
  for (intptr_t i = 0; i < count && i < capacity; ++i)
    out[i] = all[i];
  return count;
}

/* The distinct users of the results of `op`, all of which must be elementwise tasks of `block`
 * (task.map, task.convert). Returns their number, or -1 when some use is anything else (a non
 * elementwise task, the program's results) or there are more than `capacity`. */
static intptr_t elementwise_users(MlirOperation op, MlirBlock block, MlirOperation *users, intptr_t capacity) {
  intptr_t count = 0;
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r) {
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, r)); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation owner = mlirOpOperandGetOwner(use);
      if (!is_elementwise(owner) || !mlirBlockEqual(mlirOperationGetBlock(owner), block))
        return -1;
      bool seen = false;
      for (intptr_t k = 0; k < count && !seen; ++k)
        seen = mlirOperationEqual(users[k], owner);
      if (seen)
        continue;
      if (count == capacity)
        return -1;
      users[count++] = owner;
    }
  }
  return count;
}

/* Whether `producer` (whose inputs are `inputs`) can be inlined into `consumer`: shapes agree, the
 * fused map stays within the map limits and FUSE_MAX_BODY_OPS. */
static bool can_fuse_into(MlirOperation producer, const MlirValue *inputs, intptr_t input_count,
                          intptr_t producer_ops, MlirOperation consumer) {
  if (!is_well_formed_elementwise(consumer))
    return false;
  MlirType out = mlirValueGetType(mlirOperationGetResult(consumer, 0));
  /* Every value of rank > 0 that the fused map reads has the consumer's shape. */
  for (intptr_t r = 0, n = mlirOperationGetNumResults(producer); r < n; ++r) {
    MlirValue result = mlirOperationGetResult(producer, r);
    if (rank_of(result) > 0 && !same_shape(mlirValueGetType(result), out))
      return false;
  }
  for (intptr_t k = 0; k < input_count; ++k)
    if (rank_of(inputs[k]) > 0 && !same_shape(mlirValueGetType(inputs[k]), out))
      return false;
  MlirValue scratch[LATCH_MAP_MAX_INPUTS];
  if (fused_inputs(consumer, producer, inputs, input_count, scratch, LATCH_MAP_MAX_INPUTS) > LATCH_MAP_MAX_INPUTS)
    return false;
  if (mlirOperationGetNumResults(consumer) > LATCH_MAP_MAX_OUTPUTS)
    return false;
  return producer_ops + body_op_count(consumer) <= FUSE_MAX_BODY_OPS;
}

/* Which results of `producer` `consumer` reads. */
static void used_results(MlirOperation producer, MlirOperation consumer, bool *used) {
  for (intptr_t r = 0, n = mlirOperationGetNumResults(producer); r < n; ++r)
    used[r] = false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(consumer); i < n; ++i) {
    intptr_t r;
    if (is_result_of(mlirOperationGetOperand(consumer, i), producer, &r))
      used[r] = true;
  }
}

/* ---- building maps ------------------------------------------------------------------------------- */

static MlirValue remap(const latch_ptrmap *map, MlirValue value) {
  void *mapped = latch_ptrmap_get(map, value.ptr);
  return mapped ? (MlirValue){mapped} : value; /* values from above the body stay as they are */
}

/* Appends a copy of `op` to `block`, its operands remapped; records its results in `map`. */
static bool clone_into(MlirBlock block, MlirOperation op, latch_ptrmap *map) {
  MlirOperation copy = mlirOperationClone(op);
  for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k)
    mlirOperationSetOperand(copy, k, remap(map, mlirOperationGetOperand(op, k)));
  mlirBlockAppendOwnedOperation(block, copy);
  for (intptr_t k = 0, n = mlirOperationGetNumResults(op); k < n; ++k)
    if (!latch_ptrmap_put(map, mlirOperationGetResult(op, k).ptr, (void *)mlirOperationGetResult(copy, k).ptr))
      return false;
  return true;
}

/* A detached task.map over `inputs` with the result types of `like`, its body one empty block with an
 * argument per input. */
static MlirOperation new_map(MlirOperation like, intptr_t input_count, const MlirValue *inputs, MlirBlock *out_body) {
  MlirType result_types[LATCH_MAP_MAX_OUTPUTS];
  intptr_t result_count = mlirOperationGetNumResults(like);
  for (intptr_t r = 0; r < result_count && r < LATCH_MAP_MAX_OUTPUTS; ++r)
    result_types[r] = mlirValueGetType(mlirOperationGetResult(like, r));
  MlirLocation loc = mlirOperationGetLocation(like);
  MlirOperation map = latch_op_create(LATCH_OP_TASK_MAP, loc, result_count, result_types, input_count, inputs, NULL);
  if (mlirOperationIsNull(map))
    return map;
  MlirType arg_types[LATCH_MAP_MAX_INPUTS];
  MlirLocation arg_locs[LATCH_MAP_MAX_INPUTS];
  for (intptr_t i = 0; i < input_count; ++i) {
    arg_types[i] = element_of(inputs[i]);
    arg_locs[i] = loc;
  }
  *out_body = mlirBlockCreate(input_count, arg_types, arg_locs);
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(map, 0), *out_body);
  return map;
}

/* Replaces a task.convert by the equivalent task.map (body: the conversion) and returns the map. */
static MlirOperation convert_to_map(MlirOperation convert) {
  MlirValue x = mlirOperationGetOperand(convert, 0);
  MlirBlock body;
  MlirOperation map = new_map(convert, 1, &x, &body);
  if (mlirOperationIsNull(map))
    return map;
  MlirLocation loc = mlirOperationGetLocation(convert);
  MlirType to = element_of(mlirOperationGetResult(convert, 0));
  MlirValue value = mlirBlockGetArgument(body, 0);
  const char *name = conversion_op(element_of(x), to);
  if (name && name[0]) {
    MlirOperation cast = make_op(name, loc, 1, &to, 1, &value);
    mlirBlockAppendOwnedOperation(body, cast);
    value = mlirOperationGetResult(cast, 0);
  }
  mlirBlockAppendOwnedOperation(body, make_op("gpu.yield", loc, 0, NULL, 1, &value));
  copy_attributes(convert, map);
  replace_op(convert, map);
  return map;
}

/* Rebuilds map `consumer` with map `producer` inlined (see the file comment) and returns the new map,
 * which has taken the consumer's place; a null op when out of memory. */
static MlirOperation inline_producer(MlirOperation producer, MlirOperation consumer) {
  intptr_t producer_inputs = mlirOperationGetNumOperands(producer);
  MlirValue inputs[LATCH_MAP_MAX_INPUTS];
  for (intptr_t k = 0; k < producer_inputs; ++k)
    inputs[k] = mlirOperationGetOperand(producer, k);
  MlirValue fused[LATCH_MAP_MAX_INPUTS];
  intptr_t count = fused_inputs(consumer, producer, inputs, producer_inputs, fused, LATCH_MAP_MAX_INPUTS);
  MlirBlock body;
  MlirOperation map = new_map(consumer, count, fused, &body);
  if (mlirOperationIsNull(map))
    return map;

  bool used[LATCH_MAP_MAX_OUTPUTS];
  used_results(producer, consumer, used);
  MlirBlock producer_body = latch_map_body(producer);
  MlirOperation producer_yield = mlirBlockGetTerminator(producer_body);
  intptr_t total = count_body_ops(producer);
  bool *needed = calloc((size_t)(total ? total : 1), sizeof(bool));
  latch_ptrmap values;
  bool ok = needed && latch_ptrmap_initialize(&values);
  if (!ok) {
    free(needed);
    mlirOperationDestroy(map);
    return (MlirOperation){NULL};
  }
  ok = mark_needed(producer, used, needed, total) >= 0;
  /* The producer's arguments are the fused map's arguments for its inputs. */
  for (intptr_t k = 0; k < producer_inputs && ok; ++k)
    ok = latch_ptrmap_put(&values, mlirBlockGetArgument(producer_body, k).ptr,
                          (void *)mlirBlockGetArgument(body, index_in(fused, count, inputs[k])).ptr);
  intptr_t position = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(producer_body); ok && !mlirOperationEqual(op, producer_yield);
       op = mlirOperationGetNextInBlock(op), ++position)
    if (needed[position])
      ok = clone_into(body, op, &values);
  /* The consumer's arguments: its own inputs, or the producer's yielded values. */
  MlirBlock consumer_body = latch_map_body(consumer);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(consumer); i < n && ok; ++i) {
    MlirValue operand = mlirOperationGetOperand(consumer, i);
    intptr_t r;
    MlirValue value = is_result_of(operand, producer, &r)
                          ? remap(&values, mlirOperationGetOperand(producer_yield, r))
                          : mlirBlockGetArgument(body, index_in(fused, count, operand));
    ok = latch_ptrmap_put(&values, mlirBlockGetArgument(consumer_body, i).ptr, (void *)value.ptr);
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(consumer_body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ok = clone_into(body, op, &values);
  latch_ptrmap_deinitialize(&values);
  free(needed);
  if (!ok) {
    mlirOperationDestroy(map);
    return (MlirOperation){NULL};
  }
  copy_attributes(consumer, map);
  replace_op(consumer, map);
  return map;
}

/* ---- step 1: fuse maps ---------------------------------------------------------------------------- */

typedef struct fuser {
  MlirBlock block;
  bool failed; /* out of memory */
} fuser;

/* Inlines `producer` into every user if all of them can take it. Returns true when it did (the
 * producer is then gone). */
static bool fuse_producer(fuser *f, MlirOperation producer) {
  if (!is_well_formed_elementwise(producer))
    return false;
  MlirOperation users[FUSE_MAX_USERS];
  intptr_t user_count = elementwise_users(producer, f->block, users, FUSE_MAX_USERS);
  if (user_count <= 0)
    return false;
  intptr_t input_count = mlirOperationGetNumOperands(producer);
  if (input_count > LATCH_MAP_MAX_INPUTS)
    return false;
  MlirValue inputs[LATCH_MAP_MAX_INPUTS];
  for (intptr_t k = 0; k < input_count; ++k)
    inputs[k] = mlirOperationGetOperand(producer, k);
  for (intptr_t u = 0; u < user_count; ++u) {
    bool used[LATCH_MAP_MAX_OUTPUTS];
    used_results(producer, users[u], used);
    intptr_t needed = needed_op_count(producer, used);
    if (needed < 0) {
      f->failed = true;
      return false;
    }
    if (!can_fuse_into(producer, inputs, input_count, needed, users[u]))
      return false;
  }
  if (is_kind(producer, LATCH_OP_TASK_CONVERT)) {
    producer = convert_to_map(producer);
    if (mlirOperationIsNull(producer)) {
      f->failed = true;
      return false;
    }
  }
  for (intptr_t u = 0; u < user_count; ++u) {
    MlirOperation consumer = users[u];
    if (is_kind(consumer, LATCH_OP_TASK_CONVERT))
      consumer = convert_to_map(consumer);
    if (mlirOperationIsNull(consumer) || mlirOperationIsNull(inline_producer(producer, consumer))) {
      f->failed = true;
      return false;
    }
  }
  mlirOperationDestroy(producer);
  return true;
}

/* A map/convert whose only use is a task.reshape whose users are all elementwise moves behind the
 * reshape: `y = reshape(map(x, s))` becomes `map(reshape(x), s)` (s rank 0), with at most one new
 * reshape (none when x is itself a reshape of a value of y's shape), and only when the moved map can
 * then be fused into every user of the reshape. Returns true when it did. */
static bool move_behind_reshape(fuser *f, MlirOperation producer) {
  if (!is_well_formed_elementwise(producer) || mlirOperationGetNumResults(producer) != 1)
    return false;
  MlirValue result = mlirOperationGetResult(producer, 0);
  MlirOpOperand use = mlirValueGetFirstUse(result);
  if (mlirOpOperandIsNull(use) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
    return false;
  MlirOperation reshape = mlirOpOperandGetOwner(use);
  if (!is_kind(reshape, LATCH_OP_TASK_RESHAPE) || mlirOperationGetNumResults(reshape) != 1 ||
      !mlirBlockEqual(mlirOperationGetBlock(reshape), f->block))
    return false;
  MlirValue reshaped = mlirOperationGetResult(reshape, 0);
  MlirType target = mlirValueGetType(reshaped);
  if (!is_static_tensor(target) || !mlirTypeEqual(element_of(reshaped), element_of(result)) || rank_of(result) == 0)
    return false;
  MlirOperation users[FUSE_MAX_USERS];
  intptr_t user_count = elementwise_users(reshape, f->block, users, FUSE_MAX_USERS);
  if (user_count <= 0)
    return false;

  /* The moved producer's inputs: rank-0 inputs as they are, the others reshaped to the target. */
  intptr_t input_count = mlirOperationGetNumOperands(producer);
  MlirValue inputs[LATCH_MAP_MAX_INPUTS];
  intptr_t fresh = -1; /* the input that needs a new reshape */
  MlirOperation folded[LATCH_MAP_MAX_INPUTS]; /* input reshapes looked through */
  intptr_t folded_count = 0;
  for (intptr_t k = 0; k < input_count; ++k) {
    MlirValue input = mlirOperationGetOperand(producer, k);
    inputs[k] = input;
    if (rank_of(input) == 0)
      continue;
    if (!same_shape(mlirValueGetType(input), mlirValueGetType(result)))
      return false;
    MlirOperation def = defining_op(input);
    if (!mlirOperationIsNull(def) && is_kind(def, LATCH_OP_TASK_RESHAPE) &&
        mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(def, 0)), with_element(target, element_of(input)))) {
      inputs[k] = mlirOperationGetOperand(def, 0);
      folded[folded_count++] = def;
      continue;
    }
    intptr_t earlier = -1;
    for (intptr_t j = 0; j < k && earlier < 0; ++j)
      if (mlirValueEqual(mlirOperationGetOperand(producer, j), input))
        earlier = j;
    if (earlier >= 0) {
      inputs[k] = inputs[earlier];
      continue;
    }
    if (fresh >= 0)
      return false; /* more than one new reshape would not pay */
    fresh = k;
  }
  /* Check the later fusion on the reshape's users: the moved producer reads `inputs` (a new reshape
   * has the target type; `reshaped` stands in for it, it is not among the users' inputs). */
  MlirValue check[LATCH_MAP_MAX_INPUTS];
  for (intptr_t k = 0; k < input_count; ++k)
    check[k] = k == fresh ? reshaped : inputs[k];
  bool all_used = true;
  intptr_t needed = needed_op_count(producer, &all_used);
  if (needed < 0) {
    f->failed = true;
    return false;
  }
  for (intptr_t u = 0; u < user_count; ++u) {
    /* fused_inputs() replaces the reshape's result by check[]; with `reshaped` in check[] the count
     * is the same as with the new reshape's result. */
    if (!can_fuse_into(reshape, check, input_count, needed, users[u]))
      return false;
  }

  MlirContext context = mlirOperationGetContext(producer);
  if (fresh >= 0) {
    MlirValue x = inputs[fresh];
    MlirType type = with_element(target, element_of(x));
    MlirOperation view = latch_op_create(LATCH_OP_TASK_RESHAPE, mlirOperationGetLocation(producer), 1, &type, 1, &x, NULL);
    if (mlirOperationIsNull(view)) {
      f->failed = true;
      return false;
    }
    mlirBlockInsertOwnedOperationBefore(f->block, producer, view);
    mlirOperationSetAttributeByName(view, str("tiles"), latch_attr_get_int(context, latch_task_tile_count(view)));
    for (intptr_t k = 0; k < input_count; ++k)
      if (mlirValueEqual(inputs[k], x))
        inputs[k] = mlirOperationGetResult(view, 0);
  }
  MlirType result_type = target;
  MlirOperation moved;
  if (is_kind(producer, LATCH_OP_TASK_CONVERT)) {
    moved = latch_op_create(LATCH_OP_TASK_CONVERT, mlirOperationGetLocation(producer), 1, &result_type, 1, inputs, NULL);
  } else {
    moved = latch_op_create(LATCH_OP_TASK_MAP, mlirOperationGetLocation(producer), 1, &result_type, input_count,
                            inputs, NULL);
    if (!mlirOperationIsNull(moved))
      mlirRegionTakeBody(mlirOperationGetRegion(moved, 0), mlirOperationGetRegion(producer, 0));
  }
  if (mlirOperationIsNull(moved)) {
    f->failed = true;
    return false;
  }
  copy_attributes(producer, moved);
  replace_op(reshape, moved);
  mlirOperationDestroy(producer);
  /* An input reshape looked through goes at the end of the step if nothing uses it then (reshapes are
   * pure); it is only marked now, since the sweep of fuse_maps() may stand on it. */
  for (intptr_t k = 0; k < folded_count; ++k)
    mlirOperationSetAttributeByName(folded[k], str(LOOKED_THROUGH), mlirUnitAttrGet(context));
  return true;
}

/* Removes the reshapes that move_behind_reshape() looked through and that nothing uses any more. */
static void erase_looked_through(MlirBlock block) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block), next; !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (!mlirOperationRemoveAttributeByName(op, str(LOOKED_THROUGH)))
      continue;
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))))
      mlirOperationDestroy(op);
  }
}

/* Sweeps the block until nothing more fuses. */
static bool fuse_maps(MlirBlock block) {
  fuser f = {block, false};
  bool changed = true;
  while (changed && !f.failed) {
    changed = false;
    MlirOperation previous = {NULL};
    for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op) && !f.failed;) {
      if (is_elementwise(op) && (fuse_producer(&f, op) || move_behind_reshape(&f, op))) {
        /* `op` is gone; its users (later in the block) were replaced in place. */
        changed = true;
        op = mlirOperationIsNull(previous) ? mlirBlockGetFirstOperation(block) : mlirOperationGetNextInBlock(previous);
        continue;
      }
      previous = op;
      op = mlirOperationGetNextInBlock(op);
    }
  }
  erase_looked_through(block);
  return !f.failed;
}

/* ---- step 2: absorb ------------------------------------------------------------------------------- */

static bool is_prologue_mark(MlirOperation op) {
  MlirStringRef mark = latch_attr_string(op, "task.fused");
  return mark.length == 8 && memcmp(mark.data, "prologue", 8) == 0;
}

enum { ROLE_NONE, ROLE_PROLOGUE, ROLE_EPILOGUE };

/* Anchors: tasks whose tiles produce final output elements of result 0, and the operands a prologue
 * may feed (a bit per operand position). */
static bool anchor_kind(MlirOperation op, unsigned *prologue_operands) {
  switch (latch_op_kind_of(op)) {
  case LATCH_OP_TASK_MATMUL: *prologue_operands = 0x3; return true;                 /* a, b */
  case LATCH_OP_TASK_GROUPED_MATMUL: *prologue_operands = 0x3; return true;         /* x, w */
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD: *prologue_operands = 0x3; return true; /* x, dy */
  case LATCH_OP_TASK_RMSNORM: *prologue_operands = 0x3; return true;                /* x, w */
  case LATCH_OP_TASK_RMSNORM_GRAD: *prologue_operands = 0x7; return true;           /* x, w, dy */
  default: return false;
  }
}

typedef struct placement {
  latch_schedule schedule;
  int *role;     /* per schedule index */
  long *group;   /* per schedule index: the index of its anchor when absorbed, else itself */
  int *interval; /* per schedule index: the final interval (tasks only) */
} placement;

static long index_of_value(const placement *p, MlirValue value) {
  MlirOperation def = defining_op(value);
  return mlirOperationIsNull(def) ? -1 : latch_schedule_index_of(&p->schedule, def);
}

/* The anchor whose result 0 `op` is an epilogue of, or -1; with `full_inputs`, other inputs of that
 * result's shape are allowed too. */
static long epilogue_anchor(const placement *p, MlirOperation op, bool check_intervals, bool full_inputs) {
  if (!is_fusable_shape(op))
    return -1;
  /* The anchor's result: the one input of rank > 0 produced by an anchor (result 0); any other input of
   * rank > 0 must have its shape and be defined before the anchor. */
  MlirValue full = {NULL};
  unsigned unused;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue input = mlirOperationGetOperand(op, i);
    MlirOperation def = defining_op(input);
    if (rank_of(input) == 0 || mlirOperationIsNull(def) || !anchor_kind(def, &unused) || latch_has_fused_mark(def) ||
        mlirOpResultGetResultNumber(input) != 0)
      continue;
    if (!mlirValueIsNull(full) && !mlirValueEqual(full, input))
      return -1; /* two anchors */
    full = input;
  }
  if (mlirValueIsNull(full))
    return -1;
  MlirOperation anchor = defining_op(full);
  long anchor_index = latch_schedule_index_of(&p->schedule, anchor);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue input = mlirOperationGetOperand(op, i);
    if (rank_of(input) == 0 || mlirValueEqual(input, full))
      continue;
    if (!full_inputs || !same_shape(mlirValueGetType(input), mlirValueGetType(full)) || anchor_index < 0 ||
        index_of_value(p, input) >= anchor_index)
      return -1;
  }
  for (MlirOpOperand use = mlirValueGetFirstUse(full); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
    if (!mlirOperationEqual(mlirOpOperandGetOwner(use), op))
      return -1;
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r)
    if (!same_shape(mlirValueGetType(mlirOperationGetResult(op, r)), mlirValueGetType(full)))
      return -1;
  long a = latch_schedule_index_of(&p->schedule, anchor);
  if (a < 0 || p->group[a] != a)
    return -1;
  if (check_intervals) /* merge=false: the other inputs must be ready before the anchor's interval */
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
      MlirValue input = mlirOperationGetOperand(op, i);
      if (!mlirValueEqual(input, full) && latch_schedule_interval_of(&p->schedule, input) >= p->schedule.interval[a])
        return -1;
    }
  return a;
}

/* The anchor that `op` is a prologue of, or -1. */
static long prologue_anchor(const placement *p, MlirOperation op) {
  if (!is_fusable_shape(op) || mlirOperationGetNumResults(op) != 1)
    return -1;
  MlirOperation anchor = {NULL};
  unsigned allowed = 0;
  MlirValue result = mlirOperationGetResult(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation owner = mlirOpOperandGetOwner(use);
    if (mlirOperationIsNull(anchor)) {
      anchor = owner;
      if (!anchor_kind(anchor, &allowed) || latch_has_fused_mark(anchor))
        return -1;
    } else if (!mlirOperationEqual(anchor, owner)) {
      return -1;
    }
    unsigned position = mlirOpOperandGetOperandNumber(use);
    if (position >= 8 || !(allowed & (1u << position)))
      return -1;
  }
  if (mlirOperationIsNull(anchor))
    return -1;
  long a = latch_schedule_index_of(&p->schedule, anchor);
  return a >= 0 && p->group[a] == a ? a : -1;
}

static void absorb(placement *p, bool check_intervals) {
  MlirContext context = mlirOperationGetContext(p->schedule.program);
  for (size_t i = 0; i < p->schedule.count; ++i) {
    MlirOperation op = p->schedule.ops[i];
    if (!is_elementwise(op) || p->schedule.interval[i] < 0 || latch_has_fused_mark(op))
      continue;
    /* An epilogue, else a prologue, else an epilogue that also reads full tensors (a residual added to
     * a product): a prologue feeds one task, which reads its inputs instead; such an epilogue has
     * readers of its own. */
    long anchor = epilogue_anchor(p, op, check_intervals, false);
    int role = ROLE_EPILOGUE;
    if (anchor < 0) {
      anchor = prologue_anchor(p, op);
      role = ROLE_PROLOGUE;
    }
    if (anchor < 0) {
      anchor = epilogue_anchor(p, op, check_intervals, true);
      role = ROLE_EPILOGUE;
    }
    if (anchor < 0)
      continue;
    p->role[i] = role;
    p->group[i] = anchor;
    mlirOperationSetAttributeByName(op, str("task.fused"),
                                    latch_attr_get_string(context, role == ROLE_EPILOGUE ? "epilogue" : "prologue"));
  }
}

/* The one task of the program that reads the results of `op` (every use is by it), or -1. */
static long single_reader(const placement *p, MlirOperation op) {
  MlirOperation reader = {NULL};
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, r)); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation owner = mlirOpOperandGetOwner(use);
      if (!mlirOperationIsNull(reader) && !mlirOperationEqual(reader, owner))
        return -1;
      reader = owner;
    }
  if (mlirOperationIsNull(reader) || !latch_op_is_task(reader))
    return -1;
  return latch_schedule_index_of(&p->schedule, reader);
}

/* Prologues marked before this pass join the group of their one reader (see the file comment). In
 * reverse program order, so that a reader's group is final when its prologue is seen. */
static void honour_prologues(placement *p, bool check_intervals) {
  for (size_t i = p->schedule.count; i-- > 0;) {
    MlirOperation op = p->schedule.ops[i];
    if (!latch_op_is_task(op) || p->role[i] != ROLE_NONE || !is_prologue_mark(op))
      continue;
    long reader = single_reader(p, op);
    long root = reader > (long)i ? p->group[reader] : -1;
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); root >= 0 && check_intervals && k < n; ++k)
      if (latch_schedule_interval_of(&p->schedule, mlirOperationGetOperand(op, k)) >= p->schedule.interval[root])
        root = -1;
    if (root < 0) {
      mlirOperationRemoveAttributeByName(op, str("task.fused"));
      continue;
    }
    p->role[i] = ROLE_PROLOGUE;
    p->group[i] = root;
  }
}

/* ---- step 3: place and re-emit -------------------------------------------------------------------- */

static void fail(MlirOperation op, const char *message) {
  char text[256];
  snprintf(text, sizeof(text), "latch-fuse-phases: %s", message);
  mlirEmitError(mlirOperationGetLocation(op), text);
}

/* A view (latch_reshape_is_view) that is a group of its own: it reads no memory, so it may share its
 * input's interval. */
static bool is_view(const placement *p, long i) {
  return p->group[i] == i && latch_reshape_is_view(p->schedule.ops[i]);
}

/* merge=true: every group in the earliest interval after all its members' producers (a view: in its
 * input's interval), and no earlier than pinned[group] when `pinned` is given. */
static bool place_asap(placement *p, const int *pinned) {
  size_t count = p->schedule.count;
  int *level = calloc(count ? count : 1, sizeof(int));
  int *pending = calloc(count ? count : 1, sizeof(int));
  if (!level || !pending) {
    free(level);
    free(pending);
    fail(p->schedule.program, "out of memory");
    return false;
  }
  for (size_t i = 0; i < count; ++i)
    if (latch_op_is_task(p->schedule.ops[i])) {
      pending[p->group[i]]++;
      if (pinned && pinned[p->group[i]] > level[p->group[i]])
        level[p->group[i]] = pinned[p->group[i]];
    }
  bool ok = true;
  for (size_t i = 0; i < count && ok; ++i) {
    MlirOperation op = p->schedule.ops[i];
    if (!latch_op_is_task(op))
      continue;
    long g = p->group[i];
    int after = is_view(p, (long)i) ? 0 : 1; /* a view joins its input's interval */
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n && ok; ++k) {
      long d = index_of_value(p, mlirOperationGetOperand(op, k));
      if (d < 0 || !latch_op_is_task(p->schedule.ops[d]) || p->group[d] == g)
        continue;
      if (pending[p->group[d]] > 0) { /* a group whose members are not all visited: cannot happen */
        fail(op, "internal error: a task uses a fused group before the group is complete");
        ok = false;
      } else if (level[p->group[d]] + after > level[g]) {
        level[g] = level[p->group[d]] + after;
      }
    }
    pending[g]--;
  }
  for (size_t i = 0; i < count; ++i)
    p->interval[i] = level[p->group[i]];
  free(level);
  free(pending);
  return ok;
}

/* The tiles a task runs (its `tiles` attribute; none for a view, which latch-plan-arena gives none). */
static int64_t task_tiles(const placement *p, long i) {
  MlirAttribute tiles = mlirOperationGetAttributeByName(p->schedule.ops[i], str("tiles"));
  if (is_view(p, i) || mlirAttributeIsNull(tiles) || !mlirAttributeIsAInteger(tiles))
    return 0;
  return mlirIntegerAttrGetValueInt(tiles);
}

/* A task that is a group of its own and reads only program arguments and constants (an update's weight
 * conversions and splits), other than a view or task.adamw. */
static bool reads_only_arguments(const placement *p, long i, const int *members) {
  MlirOperation op = p->schedule.ops[i];
  if (p->group[i] != i || members[i] != 1 || is_view(p, i) || is_kind(op, LATCH_OP_TASK_ADAMW))
    return false;
  for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
    long d = index_of_value(p, mlirOperationGetOperand(op, k));
    if (d >= 0 && latch_op_is_task(p->schedule.ops[d]))
      return false;
  }
  return true;
}

/* The latest interval of every group that keeps the schedule within `last` (a view in its input's
 * interval), to a fixed point: a group's members need not be adjacent in program order. */
static void latest_levels(const placement *p, int last, int *latest) {
  size_t count = p->schedule.count;
  for (size_t i = 0; i < count; ++i)
    latest[i] = last;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = count; i-- > 0;) {
      MlirOperation op = p->schedule.ops[i];
      if (!latch_op_is_task(op))
        continue;
      long g = p->group[i];
      int after = is_view(p, (long)i) ? 0 : 1;
      for (intptr_t k = 0, m = mlirOperationGetNumOperands(op); k < m; ++k) {
        long d = index_of_value(p, mlirOperationGetOperand(op, k));
        if (d < 0 || !latch_op_is_task(p->schedule.ops[d]) || p->group[d] == g)
          continue;
        if (latest[g] - after < latest[p->group[d]]) {
          latest[p->group[d]] = latest[g] - after;
          changed = true;
        }
      }
    }
  }
}

/* task.adamw writes its p, m and v (program arguments) in place: a movable reader of an operand of one
 * stays in an interval before it. */
static void keep_before_adamw(const placement *p, const bool *movable, int *latest) {
  for (size_t a = 0; a < p->schedule.count; ++a) {
    MlirOperation adamw = p->schedule.ops[a];
    if (!is_kind(adamw, LATCH_OP_TASK_ADAMW))
      continue;
    for (size_t i = 0; i < p->schedule.count; ++i) {
      if (!movable[i])
        continue;
      MlirOperation op = p->schedule.ops[i];
      for (intptr_t k = 0, m = mlirOperationGetNumOperands(adamw); k < m; ++k)
        for (intptr_t j = 0, r = mlirOperationGetNumOperands(op); j < r; ++j)
          if (mlirValueEqual(mlirOperationGetOperand(adamw, k), mlirOperationGetOperand(op, j)) &&
              p->interval[a] - 1 < latest[i])
            latest[i] = p->interval[a] - 1;
    }
  }
}

/* place-optimizer: a task.adamw that is a group of its own. Nothing in the update reads what it writes
 * (its p, m and v are program results), so it may run in any interval after its producers'. */
static bool optimizer_step(const placement *p, long i, const int *members) {
  return p->group[i] == i && members[i] == 1 && is_kind(p->schedule.ops[i], LATCH_OP_TASK_ADAMW);
}

/* balance (after place_asap): tasks that read only program arguments have no producer, so ASAP puts
 * them all in interval 0 (TinyMoE: every weight's conversion to bf16, 34 tasks, while most later
 * intervals leave CTAs idle). Each moves to the interval that its tiles lengthen least by
 * latch_interval_span_ns (the latest on ties, so that its result lives less) from its merged one to its
 * latest: the last interval before its first reader's latest, so that the schedule keeps its length,
 * and before any task.adamw that writes an argument it reads; the tasks after them are then placed ASAP
 * again. Counting tiles instead had put TinyMoE's expert weights' conversions (1024 and 512 tiles of 3 us)
 * into the routing's intervals of a few short tiles, where they alone set the time, rather than beside
 * the 64 product tiles of 13 us that leave 200 CTAs idle. */
static bool balance(placement *p, bool place_optimizer) {
  size_t count = p->schedule.count, n = count ? count : 1;
  int *latest = malloc(n * sizeof(int)), *pinned = malloc(n * sizeof(int)), *members = calloc(n, sizeof(int));
  bool *movable = calloc(n, sizeof(bool));
  int last = 0;
  for (size_t i = 0; i < count; ++i)
    if (latch_op_is_task(p->schedule.ops[i]) && p->interval[i] > last)
      last = p->interval[i];
  double *work = calloc((size_t)last + 1, sizeof(double)), *longest = calloc((size_t)last + 1, sizeof(double));
  bool *steps = calloc(n, sizeof(bool)); /* place-optimizer's movable task.adamw */
  bool ok = latest && pinned && members && movable && work && longest && steps;
  if (!ok) {
    fail(p->schedule.program, "out of memory");
  } else {
    for (size_t i = 0; i < count; ++i) {
      pinned[i] = -1;
      if (latch_op_is_task(p->schedule.ops[i]))
        members[p->group[i]]++;
    }
    for (size_t i = 0; i < count; ++i) {
      movable[i] = latch_op_is_task(p->schedule.ops[i]) && reads_only_arguments(p, (long)i, members);
      steps[i] = place_optimizer && latch_op_is_task(p->schedule.ops[i]) && optimizer_step(p, (long)i, members);
    }
    latest_levels(p, last, latest);
    keep_before_adamw(p, movable, latest);
    /* Absorbed tasks run inside their anchors' tiles: only the others' tiles count. */
    for (size_t i = 0; i < count; ++i) {
      MlirOperation op = p->schedule.ops[i];
      if (latch_op_is_task(op) && !movable[i] && !steps[i] && p->role[i] == ROLE_NONE)
        latch_interval_add_tiles(&work[p->interval[i]], &longest[p->interval[i]], latch_task_tile_cost_ns(op),
                                 (double)task_tiles(p, (long)i));
    }
    for (size_t i = 0; i < count; ++i) {
      if (!movable[i] && !steps[i])
        continue;
      double cost = latch_task_tile_cost_ns(p->schedule.ops[i]), tiles = (double)task_tiles(p, (long)i);
      int best = p->interval[i];
      double best_added = 0;
      for (int level = p->interval[i]; level <= latest[i]; ++level) {
        double with_work = work[level], with_longest = longest[level];
        latch_interval_add_tiles(&with_work, &with_longest, cost, tiles);
        double added = latch_interval_span_ns(with_work, with_longest) - latch_interval_span_ns(work[level], longest[level]);
        /* on ties a conversion takes the latest (its result lives less), an AdamW step the earliest (its
         * gradient does) */
        if (level == p->interval[i] || added < best_added || (!steps[i] && added == best_added)) {
          best = level;
          best_added = added;
        }
      }
      pinned[i] = best;
      latch_interval_add_tiles(&work[best], &longest[best], cost, tiles);
    }
    ok = place_asap(p, pinned);
  }
  free(latest);
  free(pinned);
  free(members);
  free(movable);
  free(work);
  free(longest);
  free(steps);
  return ok;
}

/* merge=false: every task keeps its interval; absorbed tasks join their anchor's. */
static void place_kept(placement *p) {
  for (size_t i = 0; i < p->schedule.count; ++i)
    p->interval[i] = p->schedule.interval[p->group[i]];
}

/* Checks that every task's producers are in earlier intervals (or in its own group; a view's may be in
 * its interval, before it in program order). */
static bool check_order(const placement *p) {
  for (size_t i = 0; i < p->schedule.count; ++i) {
    MlirOperation op = p->schedule.ops[i];
    if (!latch_op_is_task(op))
      continue;
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
      long d = index_of_value(p, mlirOperationGetOperand(op, k));
      if (d < 0 || !latch_op_is_task(p->schedule.ops[d]))
        continue;
      bool same_group = p->group[d] == p->group[(long)i];
      bool early = is_view(p, (long)i) ? p->interval[d] > p->interval[i] : p->interval[d] >= p->interval[i];
      if (same_group ? (size_t)d >= i : early) {
        fail(op, "internal error: a task would run no later than one of its producers");
        return false;
      }
    }
  }
  return true;
}

static MlirOperation make_marker(MlirContext context, MlirLocation loc, const char *name) {
  MlirAttribute attr = latch_attr_get_string(context, name);
  return latch_op_create(LATCH_OP_INTERVAL_INTERVAL, loc, 0, NULL, 0, NULL, &attr);
}

/* Rewrites the block: constants, then the intervals in order, each task at its place. Returns the
 * number of intervals. */
/* Reorders the interval's tasks order[first..at) heaviest tiles first (latch_task_tile_cost_ns; ties in
 * program order), each after the tasks of the interval that it reads: the persistent kernel numbers an
 * interval's tiles in task order and its CTAs start with the first ones, so the long tiles start first
 * and the short ones fill in behind them (longest processing time first) instead of ending the
 * interval. Returns false when memory runs out. */
static bool order_heaviest_first(const placement *p, size_t *order, size_t first, size_t at) {
  size_t n = at - first;
  size_t *sorted = malloc(sizeof(size_t) * (n ? n : 1));
  bool *placed = calloc(n ? n : 1, sizeof(bool));
  double *cost = malloc(sizeof(double) * (n ? n : 1));
  if (!sorted || !placed || !cost) {
    free(sorted), free(placed), free(cost);
    return false;
  }
  for (size_t j = 0; j < n; ++j)
    cost[j] = latch_task_tile_cost_ns(p->schedule.ops[order[first + j]]);
  for (size_t filled = 0; filled < n; ++filled) {
    size_t best = n;
    for (size_t j = 0; j < n; ++j) {
      if (placed[j] || (best < n && cost[j] <= cost[best]))
        continue;
      MlirOperation op = p->schedule.ops[order[first + j]];
      bool ready = true; /* every producer of it in this interval placed */
      for (intptr_t o = 0; ready && o < mlirOperationGetNumOperands(op); ++o) {
        long producer = index_of_value(p, mlirOperationGetOperand(op, o));
        for (size_t m = 0; ready && producer >= 0 && m < n; ++m)
          ready = placed[m] || order[first + m] != (size_t)producer;
      }
      if (ready)
        best = j;
    }
    placed[best] = true; /* there is one: the first unplaced task in program order is always ready */
    sorted[filled] = order[first + best];
  }
  memcpy(order + first, sorted, sizeof(size_t) * n);
  free(sorted), free(placed), free(cost);
  return true;
}

static int emit_intervals(placement *p, bool heaviest_first) {
  MlirBlock block = p->schedule.body;
  MlirContext context = mlirOperationGetContext(p->schedule.program);
  size_t count = p->schedule.count;
  /* Markers and barriers go; they are made anew. */
  for (MlirOperation op = mlirBlockGetFirstOperation(block), next; !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (latch_op_is(op, "interval.interval") || latch_op_is(op, "interval.barrier"))
      mlirOperationDestroy(op);
  }
  MlirOperation yield = mlirBlockGetTerminator(block);
  /* Renumber the used intervals densely, in order. */
  int max = -1;
  for (size_t i = 0; i < count; ++i)
    if (latch_op_is_task(p->schedule.ops[i]) && p->interval[i] > max)
      max = p->interval[i];
  int *dense = malloc(sizeof(int) * (size_t)(max + 2));
  size_t *order = malloc(sizeof(size_t) * (count ? count : 1));
  size_t *start = calloc((size_t)max + 2, sizeof(size_t));
  if (!dense || !order || !start) {
    free(dense);
    free(order);
    free(start);
    fail(p->schedule.program, "out of memory");
    return -1;
  }
  for (int k = 0; k <= max; ++k)
    dense[k] = -1;
  for (size_t i = 0; i < count; ++i)
    if (latch_op_is_task(p->schedule.ops[i]))
      dense[p->interval[i]] = 0;
  int intervals = 0;
  for (int k = 0; k <= max; ++k)
    if (dense[k] == 0)
      dense[k] = intervals++;
  /* Tasks by (interval, program order): a stable counting sort. */
  for (size_t i = 0; i < count; ++i)
    if (latch_op_is_task(p->schedule.ops[i]))
      start[dense[p->interval[i]] + 1]++;
  for (int k = 0; k < intervals; ++k)
    start[k + 1] += start[k];
  size_t filled = start[intervals];
  for (size_t i = 0; i < count; ++i)
    if (latch_op_is_task(p->schedule.ops[i]))
      order[start[dense[p->interval[i]]]++] = i;
  size_t at = 0;
  for (int k = 0; k < intervals; ++k) {
    size_t first = at;
    while (at < filled && dense[p->interval[order[at]]] == k)
      at++;
    /* Named after its first task that is not a prologue or epilogue. */
    MlirOperation head = p->schedule.ops[order[first]];
    size_t working = 0; /* tasks other than views */
    for (size_t j = at; j-- > first;)
      if (!is_view(p, (long)order[j])) {
        working++;
        if (p->role[order[j]] == ROLE_NONE)
          head = p->schedule.ops[order[j]];
      }
    MlirStringRef kind = mlirIdentifierStr(mlirOperationGetName(head));
    char name[128];
    if (working > 1)
      snprintf(name, sizeof(name), "i%d.%.*s+%zu", k, (int)(kind.length - 5), kind.data + 5, working - 1);
    else
      snprintf(name, sizeof(name), "i%d.%.*s", k, (int)(kind.length - 5), kind.data + 5);
    MlirLocation loc = mlirOperationGetLocation(head);
    /* after the name, which stays that of the program order */
    if (heaviest_first && !order_heaviest_first(p, order, first, at)) {
      free(dense), free(order), free(start);
      fail(p->schedule.program, "out of memory");
      return -1;
    }
    if (k > 0)
      mlirBlockInsertOwnedOperationBefore(block, yield,
                                          latch_op_create(LATCH_OP_INTERVAL_BARRIER, loc, 0, NULL, 0, NULL, NULL));
    mlirBlockInsertOwnedOperationBefore(block, yield, make_marker(context, loc, name));
    for (size_t j = first; j < at; ++j)
      mlirOperationMoveBefore(p->schedule.ops[order[j]], yield);
  }
  free(dense);
  free(order);
  free(start);
  return intervals;
}

/* ---- the pass ------------------------------------------------------------------------------------- */

static bool read_schedule(latch_schedule *schedule, MlirOperation program) {
  if (!latch_schedule_initialize(schedule, program))
    return false;
  for (size_t i = 0; i < schedule->count; ++i) {
    MlirOperation op = schedule->ops[i];
    if (latch_op_is_task(op) || (schedule->interval[i] < 0 && latch_op_is(op, "arith.constant")))
      continue;
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    char message[200];
    snprintf(message, sizeof(message), "'%.*s' cannot be rescheduled (only constants before the first interval and tasks)",
             (int)name.length, name.data);
    fail(op, message);
    latch_schedule_deinitialize(schedule);
    return false;
  }
  return true;
}

static MlirLogicalResult fuse_program(MlirOperation program, const fuse_options *options) {
  MlirContext context = mlirOperationGetContext(program);
  MlirRegion region = mlirOperationGetRegion(program, 0);
  MlirBlock block = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(block) || !mlirBlockIsNull(mlirBlockGetNextInRegion(block)) ||
      mlirOperationIsNull(mlirBlockGetTerminator(block)) ||
      !latch_op_is(mlirBlockGetTerminator(block), "gpu.yield")) {
    fail(program, "an interval.program must have one block ending in gpu.yield");
    return mlirLogicalResultFailure();
  }
  latch_schedule before;
  if (!read_schedule(&before, program))
    return mlirLogicalResultFailure();
  int intervals_before = before.interval_count;
  for (size_t i = 0; i < before.count; ++i)
    if (latch_has_fused_mark(before.ops[i]) && !is_prologue_mark(before.ops[i]))
      mlirOperationRemoveAttributeByName(before.ops[i], str("task.fused"));
  latch_schedule_deinitialize(&before);

  if (options->fuse_maps && !fuse_maps(block)) {
    fail(program, "out of memory");
    return mlirLogicalResultFailure();
  }

  placement p;
  memset(&p, 0, sizeof(p));
  if (!read_schedule(&p.schedule, program))
    return mlirLogicalResultFailure();
  size_t count = p.schedule.count ? p.schedule.count : 1;
  p.role = calloc(count, sizeof(int));
  p.group = calloc(count, sizeof(long));
  p.interval = calloc(count, sizeof(int));
  bool ok = p.role && p.group && p.interval;
  if (!ok)
    fail(program, "out of memory");
  for (size_t i = 0; ok && i < p.schedule.count; ++i)
    p.group[i] = (long)i;
  if (ok && options->absorb)
    absorb(&p, !options->merge);
  if (ok)
    honour_prologues(&p, !options->merge);
  if (ok) {
    if (options->merge)
      ok = place_asap(&p, NULL) && (!options->balance || balance(&p, options->place_optimizer));
    else
      place_kept(&p);
  }
  ok = ok && check_order(&p);
  int intervals_after = ok ? emit_intervals(&p, options->order) : -1;
  latch_schedule_deinitialize(&p.schedule);
  free(p.role);
  free(p.group);
  free(p.interval);
  if (intervals_after < 0)
    return mlirLogicalResultFailure();
  mlirOperationSetAttributeByName(program, str("interval.intervals_before"), latch_attr_get_int(context, intervals_before));
  mlirOperationSetAttributeByName(program, str("interval.intervals_after"), latch_attr_get_int(context, intervals_after));
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult run(MlirOperation module, const void *raw_options) {
  const fuse_options *options = raw_options;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (is_kind(op, LATCH_OP_INTERVAL_PROGRAM) && mlirLogicalResultIsFailure(fuse_program(op, options)))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

static const latch_dialect_handle_getter fuse_dialects[] = {mlirGetDialectHandle__arith__, mlirGetDialectHandle__gpu__};

const latch_pass_info latch_fuse_phases_pass = {
    .name = "latch-fuse-phases",
    .summary = "Phase fusion on interval.programs: fuse map chains, absorb prologues/epilogues, merge intervals",
    .anchor = "builtin.module",
    .options = fuse_option_table,
    .option_count = sizeof(fuse_option_table) / sizeof(fuse_option_table[0]),
    .options_size = sizeof(fuse_options),
    .dependent_dialects = fuse_dialects,
    .dependent_dialect_count = sizeof(fuse_dialects) / sizeof(fuse_dialects[0]),
    .run = run,
};
