/* latch-plan-arena.c - bufferises every interval.program into one arena: each tensor value that is not
 * external (program arguments and constants are) is bound into a slot; a view (latch_reshape_is_view) is
 * bound over its input and gets `tiles = 0`; a task that may overwrite an input dying with it writes its
 * result over that input (in place); slots are packed by best fit over their lifetimes (earliest writer
 * to last reader). A value and its views are one storage: it dies when the last of them is read.
 * Checked independently by latch-verify-arena. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "../support/ptrmap.h"
#include "pass.h"

#define ARENA_ALIGNMENT 256

typedef struct plan_options {
  bool in_place;
} plan_options;

static const latch_pass_option plan_option_table[] = {
    {"in-place", LATCH_OPTION_BOOL, "true",
     "write a map, convert or reshape result over a same-size input that dies at that task",
     offsetof(plan_options, in_place)},
};

/* One tensor value to bind. `root` is the index of the value whose bytes it is: its own, or for a view
 * its input's root. The reads of a storage (a root and its views) are kept on the root: readers are the
 * top-level ops that use any of them (gpu.yield reads at interval_count);
 * `sole_last_reader` is the one op reading it in its last interval, or null when several do (then no
 * reader may overwrite it). */
typedef struct planned_value {
  MlirValue value;
  MlirOperation def;
  size_t root;
  int64_t bytes, elements;
  int def_interval, last_interval;
  MlirOperation sole_last_reader;
  bool shared_last; /* several ops read it in its last interval */
  bool consumed;    /* already overwritten in place by a result */
  int slot;
  int64_t offset; /* within the slot */
} planned_value;

typedef struct planned_slot {
  int64_t size, offset;
  int first, last; /* lifetime: earliest writer's interval .. last reader's interval */
} planned_slot;

typedef struct planner {
  latch_schedule schedule;
  planned_value *values;
  size_t value_count, value_capacity;
  planned_slot *slots;
  size_t slot_count, slot_capacity;
  latch_ptrmap index; /* value -> its index in `values` plus one */
} planner;

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

static int64_t align_up(int64_t n, int64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

static planned_value *lookup(planner *p, MlirValue value) {
  uintptr_t i = (uintptr_t)latch_ptrmap_get(&p->index, value.ptr);
  return i ? &p->values[i - 1] : NULL;
}

static bool grow(void **items, size_t *capacity, size_t count, size_t size) {
  if (count < *capacity)
    return true;
  size_t wanted = *capacity ? *capacity * 2 : 64;
  void *grown = realloc(*items, wanted * size);
  if (!grown)
    return false;
  *items = grown;
  *capacity = wanted;
  return true;
}

static bool fail(MlirOperation op, const char *message) {
  mlirEmitError(mlirOperationGetLocation(op), message);
  return false;
}

static bool out_of_memory(planner *p) { return fail(p->schedule.program, "latch-plan-arena: out of memory"); }

/* The op of the program block that holds `op` (op itself, or the task whose region holds it). */
static MlirOperation top_level(planner *p, MlirOperation op) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), p->schedule.body))
    op = mlirOperationGetParentOperation(op);
  return op;
}

/* Collects the values to bind, in program order, with their intervals and readers. */
static bool collect(planner *p) {
  for (size_t i = 0; i < p->schedule.count; ++i) {
    MlirOperation op = p->schedule.ops[i];
    int interval = p->schedule.interval[i];
    if (latch_op_kind_of(op) == LATCH_OP_ARENA_ARENA || latch_op_kind_of(op) == LATCH_OP_ARENA_SLOT ||
        latch_op_kind_of(op) == LATCH_OP_ARENA_BIND)
      return fail(op, "latch-plan-arena: the program already has an arena plan");
    /* External: constants, and AdamW results, which are written over their p, m, v operands (program
     * arguments) in place (docs/device-abi.md). */
    if (latch_op_is(op, "arith.constant") || latch_op_kind_of(op) == LATCH_OP_TASK_ADAMW)
      continue;
    for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r) {
      MlirValue value = mlirOperationGetResult(op, r);
      if (!mlirTypeIsATensor(mlirValueGetType(value)))
        continue;
      planned_value v = {.value = value, .def = op, .root = p->value_count, .def_interval = interval,
                         .last_interval = interval, .slot = -1};
      if (latch_reshape_is_view(op)) {
        planned_value *input = lookup(p, mlirOperationGetOperand(op, 0));
        if (!input)
          return fail(op, "latch-plan-arena: internal error: the input of a view is not planned");
        v.root = input->root;
      }
      if (interval < 0)
        return fail(op, "latch-plan-arena: a tensor-valued op outside any interval");
      if (!latch_tensor_type_size(mlirValueGetType(value), &v.elements, &v.bytes))
        return fail(op, "latch-plan-arena: cannot size this result "
                        "(a static shape and an integer or float element type are needed)");
      if (!grow((void **)&p->values, &p->value_capacity, p->value_count, sizeof(planned_value)))
        return out_of_memory(p);
      p->values[p->value_count++] = v;
      if (!latch_ptrmap_put(&p->index, value.ptr, (void *)(uintptr_t)p->value_count))
        return out_of_memory(p);
    }
  }
  MlirOperation terminator = mlirBlockGetTerminator(p->schedule.body);
  for (size_t i = 0; i < p->value_count; ++i) {
    planned_value *v = &p->values[p->values[i].root];
    for (MlirOpOperand use = mlirValueGetFirstUse(p->values[i].value); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation reader = top_level(p, mlirOpOperandGetOwner(use));
      if (mlirOperationIsNull(reader) || latch_op_kind_of(reader) == LATCH_OP_ARENA_BIND)
        continue;
      int at;
      if (!mlirOperationIsNull(terminator) && mlirOperationEqual(reader, terminator)) {
        at = p->schedule.interval_count;
      } else {
        long index = latch_schedule_index_of(&p->schedule, reader);
        at = index < 0 ? p->schedule.interval_count : p->schedule.interval[index];
      }
      if (at > v->last_interval) {
        v->last_interval = at;
        v->sole_last_reader = reader;
        v->shared_last = false;
      } else if (at == v->last_interval && at > v->def_interval) {
        if (mlirOperationIsNull(v->sole_last_reader))
          v->sole_last_reader = reader;
        else if (!mlirOperationEqual(v->sole_last_reader, reader))
          v->shared_last = true;
      }
    }
  }
  for (size_t i = 0; i < p->value_count; ++i) {
    planned_value *v = &p->values[i];
    /* A probe stays until the end of the update, where latch-run can read it (docs/device-abi.md). */
    if (latch_result_is_probed(v->def, mlirOpResultGetResultNumber(v->value))) {
      planned_value *root = &p->values[v->root];
      root->last_interval = p->schedule.interval_count;
      root->shared_last = true;
    }
  }
  for (size_t i = 0; i < p->value_count; ++i)
    if (p->values[i].shared_last)
      p->values[i].sole_last_reader = (MlirOperation){NULL};
  return true;
}

/* The storage (a root) of an input of `op` whose bytes `result` may take over: bound, same bytes and
 * elements, dying at `op` (which is its only reader in `op`'s interval), not yet taken by another
 * result. */
static planned_value *in_place_input(planner *p, MlirOperation op, const planned_value *result) {
  latch_op_kind kind = latch_op_kind_of(op);
  intptr_t count = mlirOperationGetNumOperands(op);
  if (kind == LATCH_OP_TASK_CONVERT || kind == LATCH_OP_TASK_RESHAPE)
    count = count > 0 ? 1 : 0;
  else if (kind != LATCH_OP_TASK_MAP)
    return NULL;
  for (intptr_t i = 0; i < count; ++i) {
    planned_value *input = lookup(p, mlirOperationGetOperand(op, i));
    if (input)
      input = &p->values[input->root];
    if (!input || input->consumed || input->bytes != result->bytes || input->elements != result->elements ||
        input->def_interval >= result->def_interval || input->last_interval != result->def_interval ||
        mlirOperationIsNull(input->sole_last_reader) || !mlirOperationEqual(input->sole_last_reader, op))
      continue;
    return input;
  }
  return NULL;
}

/* Gives every value a slot: a view its root's place, any other value its own or, in place, its dying
 * input's (same slot, same offset). */
static bool assign(planner *p, bool in_place) {
  for (size_t i = 0; i < p->value_count; ++i) {
    planned_value *v = &p->values[i];
    if (v->root != i) {
      v->slot = p->values[v->root].slot;
      v->offset = p->values[v->root].offset;
      continue;
    }
    planned_value *input = in_place ? in_place_input(p, v->def, v) : NULL;
    if (input) {
      input->consumed = true;
      v->slot = input->slot;
      v->offset = input->offset;
    } else {
      if (!grow((void **)&p->slots, &p->slot_capacity, p->slot_count, sizeof(planned_slot)))
        return out_of_memory(p);
      p->slots[p->slot_count] = (planned_slot){.size = v->bytes, .first = v->def_interval, .last = v->last_interval};
      v->slot = (int)p->slot_count++;
      v->offset = 0;
    }
    planned_slot *s = &p->slots[v->slot];
    if (v->offset + v->bytes > s->size)
      s->size = v->offset + v->bytes;
    if (v->def_interval < s->first)
      s->first = v->def_interval;
    if (v->last_interval > s->last)
      s->last = v->last_interval;
  }
  return true;
}

/* ---- placement ------------------------------------------------------------------------------------ */

typedef struct sort_entry {
  int64_t key1, key2, key3;
  size_t index;
} sort_entry;

static int compare_entries(const void *a, const void *b) {
  const sort_entry *x = a, *y = b;
  if (x->key1 != y->key1)
    return x->key1 < y->key1 ? -1 : 1;
  if (x->key2 != y->key2)
    return x->key2 < y->key2 ? -1 : 1;
  if (x->key3 != y->key3)
    return x->key3 < y->key3 ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Best fit: slots in order of size (largest first, then earliest lifetime), each put in the smallest
 * gap, between the byte ranges of already placed slots whose lifetimes meet its own, that holds it
 * (lowest such gap on ties), or above all of them. */
static bool place(planner *p) {
  size_t n = p->slot_count;
  sort_entry *order = calloc(n ? n : 1, sizeof(*order));
  sort_entry *busy = calloc(n ? n : 1, sizeof(*busy));
  if (!order || !busy) {
    free(order);
    free(busy);
    return out_of_memory(p);
  }
  for (size_t i = 0; i < n; ++i)
    order[i] = (sort_entry){-p->slots[i].size, p->slots[i].first, p->slots[i].last, i};
  qsort(order, n, sizeof(*order), compare_entries);
  for (size_t k = 0; k < n; ++k) {
    planned_slot *s = &p->slots[order[k].index];
    size_t busy_count = 0;
    for (size_t j = 0; j < k; ++j) {
      const planned_slot *t = &p->slots[order[j].index];
      if (t->size > 0 && t->first <= s->last && s->first <= t->last)
        busy[busy_count++] = (sort_entry){t->offset, t->offset + t->size, 0, busy_count};
    }
    qsort(busy, busy_count, sizeof(*busy), compare_entries);
    int64_t cursor = 0, best = -1, best_gap = INT64_MAX;
    for (size_t j = 0; j < busy_count; ++j) {
      int64_t gap = busy[j].key1 - cursor;
      if (gap >= s->size && gap < best_gap) {
        best = cursor;
        best_gap = gap;
      }
      if (align_up(busy[j].key2, ARENA_ALIGNMENT) > cursor)
        cursor = align_up(busy[j].key2, ARENA_ALIGNMENT);
    }
    s->offset = best >= 0 ? best : cursor;
  }
  free(order);
  free(busy);
  return true;
}

/* The largest total of slot bytes live in one interval (intervals 0 .. interval_count, the last being
 * the program's end, where its results are read). */
static int64_t lower_bound(const planner *p) {
  int span = p->schedule.interval_count + 2;
  int64_t *delta = calloc((size_t)span, sizeof(*delta));
  if (!delta)
    return -1;
  for (size_t i = 0; i < p->slot_count; ++i) {
    delta[p->slots[i].first] += p->slots[i].size;
    delta[p->slots[i].last + 1] -= p->slots[i].size;
  }
  int64_t live = 0, most = 0;
  for (int t = 0; t < span; ++t) {
    live += delta[t];
    if (live > most)
      most = live;
  }
  free(delta);
  return most;
}

/* ---- writing the plan ---------------------------------------------------------------------------- */

static MlirType byte_buffer(MlirContext context, int64_t size) {
  return mlirMemRefTypeContiguousGet(mlirIntegerTypeGet(context, 8), 1, &size, mlirAttributeGetNull());
}

static bool emit(planner *p, int64_t bound) {
  MlirOperation program = p->schedule.program;
  MlirContext context = mlirOperationGetContext(program);
  MlirLocation loc = mlirOperationGetLocation(program);
  MlirBlock body = p->schedule.body;

  /* After the constants, before the first interval (or the terminator when there is none). */
  MlirOperation anchor = mlirBlockGetFirstOperation(body);
  while (!mlirOperationIsNull(anchor) && latch_op_is(anchor, "arith.constant"))
    anchor = mlirOperationGetNextInBlock(anchor);

  int64_t size = 0;
  for (size_t i = 0; i < p->slot_count; ++i)
    if (p->slots[i].offset + p->slots[i].size > size)
      size = p->slots[i].offset + p->slots[i].size;
  size = align_up(size, ARENA_ALIGNMENT);

  MlirAttribute alignment = latch_attr_get_int(context, ARENA_ALIGNMENT);
  MlirAttribute arena_attrs[2] = {latch_attr_get_int(context, size), alignment};
  MlirType arena_type = byte_buffer(context, size);
  MlirOperation arena = latch_op_create(LATCH_OP_ARENA_ARENA, loc, 1, &arena_type, 0, NULL, arena_attrs);
  if (mlirOperationIsNull(arena))
    return false;
  mlirOperationSetAttributeByName(arena, str("lower_bound"), latch_attr_get_int(context, bound));
  mlirBlockInsertOwnedOperationBefore(body, anchor, arena);
  MlirValue buffer = mlirOperationGetResult(arena, 0);

  MlirValue *slot_values = calloc(p->slot_count ? p->slot_count : 1, sizeof(*slot_values));
  if (!slot_values)
    return false;
  for (size_t i = 0; i < p->slot_count; ++i) {
    MlirAttribute attrs[3] = {latch_attr_get_int(context, p->slots[i].offset),
                              latch_attr_get_int(context, p->slots[i].size), alignment};
    MlirType type = byte_buffer(context, p->slots[i].size);
    MlirOperation slot = latch_op_create(LATCH_OP_ARENA_SLOT, loc, 1, &type, 1, &buffer, attrs);
    if (mlirOperationIsNull(slot)) {
      free(slot_values);
      return false;
    }
    mlirBlockInsertOwnedOperationBefore(body, anchor, slot);
    slot_values[i] = mlirOperationGetResult(slot, 0);
  }

  /* Binds right after the defining op, in result order. */
  MlirOperation previous_def = {NULL}, after = {NULL};
  for (size_t i = 0; i < p->value_count; ++i) {
    planned_value *v = &p->values[i];
    if (mlirOperationIsNull(previous_def) || !mlirOperationEqual(previous_def, v->def))
      after = v->def;
    previous_def = v->def;
    MlirValue operands[2] = {v->value, slot_values[v->slot]};
    MlirAttribute offset = latch_attr_get_int(context, v->offset);
    MlirOperation bind = latch_op_create(LATCH_OP_ARENA_BIND, mlirOperationGetLocation(v->def), 0, NULL, 2,
                                         operands, &offset);
    if (mlirOperationIsNull(bind)) {
      free(slot_values);
      return false;
    }
    if (v->root != i) /* a view: no device work */
      mlirOperationSetAttributeByName(v->def, str("tiles"), latch_attr_get_int(context, 0));
    mlirBlockInsertOwnedOperationAfter(body, after, bind);
    after = bind;
  }
  free(slot_values);
  return true;
}

static bool plan_program(MlirOperation program, const plan_options *options) {
  planner p;
  memset(&p, 0, sizeof(p));
  if (!latch_schedule_initialize(&p.schedule, program))
    return false;
  bool ok = latch_ptrmap_initialize(&p.index) ? collect(&p) && assign(&p, options->in_place) && place(&p)
                                               : out_of_memory(&p);
  int64_t bound = ok ? lower_bound(&p) : -1;
  if (ok && bound < 0)
    ok = out_of_memory(&p);
  if (ok && !emit(&p, bound))
    ok = fail(program, "latch-plan-arena: could not create the arena ops");
  free(p.values);
  free(p.slots);
  latch_ptrmap_deinitialize(&p.index);
  latch_schedule_deinitialize(&p.schedule);
  return ok;
}

static MlirLogicalResult run(MlirOperation module, const void *raw_options) {
  const plan_options *options = raw_options;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_PROGRAM && !plan_program(op, options))
      ok = false;
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

const latch_pass_info latch_plan_arena_pass = {
    .name = "latch-plan-arena",
    .summary = "Bind the tensors of each interval.program into slots of one arena, packed by lifetime",
    .anchor = "builtin.module",
    .options = plan_option_table,
    .option_count = sizeof(plan_option_table) / sizeof(plan_option_table[0]),
    .options_size = sizeof(plan_options),
    .run = run,
};
