/* latch-verify-arena.c - checks the arena plan of every interval.program, independently of the planner:
 * recomputes each slot's lifetime from the IR (the interval of its earliest writer to that of its last
 * reader; gpu.yield reads at the end) and rejects slots that share bytes while both live, values bound
 * never or twice, binds outside their slot, slots outside the arena, unaligned slots, and values of one
 * slot that share bytes while both live (unless the later one is written in place by the earlier one's
 * last reader). A task.reshape result bound exactly over its input (same slot, offset and bytes) is a
 * view: the same bytes, so its reads count as reads of its input. */
#include <limits.h>
#include <stdarg.h>
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

/* A slot as the IR states it, with the lifetime recomputed from its binds (first > last: never live). */
typedef struct arena_slot {
  MlirOperation op;
  int64_t offset, size, alignment;
  int first, last;
} arena_slot;

/* A value as bound: where it lives and when. `last_reader` is the op that reads it in its last interval;
 * `readers_at_last` counts the distinct ops that do. */
typedef struct arena_value {
  MlirOperation bind, writer;
  MlirValue value;
  intptr_t result;
  size_t root; /* the index of the value whose bytes these are: its own, or a view's input's root */
  int slot;
  int64_t offset, bytes;
  int written, last_read;
  MlirOperation last_reader;
  int readers_at_last;
} arena_value;

typedef struct checker {
  latch_schedule schedule;
  MlirOperation arena;
  int64_t arena_size;
  arena_slot *slots;
  size_t slot_count;
  arena_value *values;
  size_t value_count;
  latch_ptrmap slot_of;  /* slot result -> slot index plus one */
  latch_ptrmap value_of; /* bound value -> value index plus one */
  latch_ptrmap named;    /* every value some arena.bind names, valid or not (no second message) */
  int errors;
} checker;

static void report(checker *c, MlirOperation op, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void report(checker *c, MlirOperation op, const char *format, ...) {
  char text[768] = "latch-verify-arena: ";
  size_t used = strlen(text);
  va_list args;
  va_start(args, format);
  vsnprintf(text + used, sizeof(text) - used, format, args);
  va_end(args);
  mlirEmitError(mlirOperationGetLocation(op), text);
  c->errors++;
}

/* Program arguments, constants and AdamW results (written in place over their program-argument
 * operands) live outside the arena. */
static bool is_external(MlirValue value) {
  if (mlirValueIsABlockArgument(value))
    return true;
  MlirOperation owner = mlirOpResultGetOwner(value);
  return latch_op_is(owner, "arith.constant") || latch_op_is(owner, "task.adamw");
}

/* The byte size of a static tensor type, or -1. */
static int64_t byte_size(MlirType type) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return -1;
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t bits = mlirTypeIsAInteger(element) ? (int64_t)mlirIntegerTypeGetWidth(element)
                 : mlirTypeIsAFloat(element) ? (int64_t)mlirFloatTypeGetWidth(element)
                                             : 0;
  if (bits <= 0)
    return -1;
  int64_t total = (bits + 7) / 8;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d) {
    int64_t extent = mlirShapedTypeGetDimSize(type, d);
    if (extent != 0 && total > INT64_MAX / 8 / extent)
      return -1;
    total *= extent;
  }
  return total;
}

/* "'task.map' result 0 (written in interval 3)" */
typedef struct label {
  char s[128];
} label;

static label describe(const arena_value *v) {
  label l;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(v->writer));
  snprintf(l.s, sizeof(l.s), "'%.*s' result %ld (written in interval %d)", (int)name.length, name.data,
           (long)v->result, v->written);
  return l;
}

static label describe_slot(const checker *c, size_t index) {
  label l;
  const arena_slot *s = &c->slots[index];
  if (s->first > s->last)
    snprintf(l.s, sizeof(l.s), "slot %zu (bytes [%lld, %lld), never live)", index, (long long)s->offset,
             (long long)(s->offset + s->size));
  else
    snprintf(l.s, sizeof(l.s), "slot %zu (bytes [%lld, %lld), live in intervals %d..%d)", index,
             (long long)s->offset, (long long)(s->offset + s->size), s->first, s->last);
  return l;
}

/* ---- reading the plan ----------------------------------------------------------------------------- */

/* Roots of views: a reshape's result bound exactly over its bound input (binds follow their writers, so
 * the input's root is known). */
static void find_views(checker *c) {
  for (size_t i = 0; i < c->value_count; ++i) {
    arena_value *v = &c->values[i];
    if (latch_op_kind_of(v->writer) != LATCH_OP_TASK_RESHAPE || mlirOperationGetNumOperands(v->writer) != 1)
      continue;
    uintptr_t input = (uintptr_t)latch_ptrmap_get(&c->value_of, mlirOperationGetOperand(v->writer, 0).ptr);
    if (!input || input - 1 >= i)
      continue;
    const arena_value *u = &c->values[input - 1];
    if (u->slot == v->slot && u->offset == v->offset && u->bytes == v->bytes)
      v->root = u->root;
  }
}

static bool read_plan(checker *c) {
  size_t slot_capacity = 0, value_capacity = 0;
  for (size_t i = 0; i < c->schedule.count; ++i) {
    MlirOperation op = c->schedule.ops[i];
    latch_op_kind kind = latch_op_kind_of(op);
    if (kind == LATCH_OP_ARENA_ARENA) {
      if (!mlirOperationIsNull(c->arena)) {
        report(c, op, "a program has one arena.arena; this is a second one");
        continue;
      }
      c->arena = op;
      c->arena_size = latch_arena_size(op);
    } else if (kind == LATCH_OP_ARENA_SLOT) {
      if (c->slot_count == slot_capacity) {
        slot_capacity = slot_capacity ? 2 * slot_capacity : 64;
        arena_slot *grown = realloc(c->slots, slot_capacity * sizeof(*grown));
        if (!grown)
          return false;
        c->slots = grown;
      }
      c->slots[c->slot_count++] = (arena_slot){op, latch_slot_offset(op), latch_slot_size(op),
                                               latch_slot_alignment(op), INT_MAX, INT_MIN};
      if (!latch_ptrmap_put(&c->slot_of, mlirOperationGetResult(op, 0).ptr, (void *)(uintptr_t)c->slot_count))
        return false;
    }
  }
  for (size_t i = 0; i < c->schedule.count; ++i) {
    MlirOperation op = c->schedule.ops[i];
    if (latch_op_kind_of(op) != LATCH_OP_ARENA_BIND)
      continue;
    MlirValue value = latch_bind_value(op);
    if (!latch_ptrmap_put(&c->named, value.ptr, (void *)1))
      return false;
    uintptr_t slot = (uintptr_t)latch_ptrmap_get(&c->slot_of, latch_bind_slot(op).ptr);
    if (!slot) {
      report(c, op, "arena.bind must name an arena.slot of this program as its slot");
      continue;
    }
    if (is_external(value)) {
      report(c, op, "arena.bind binds an external value (a program argument or constant); "
                    "those live outside the arena");
      continue;
    }
    int64_t bytes = byte_size(mlirValueGetType(value));
    if (bytes < 0) {
      report(c, op, "arena.bind binds a value whose byte size is unknown (not a static tensor of sized elements)");
      continue;
    }
    uintptr_t earlier = (uintptr_t)latch_ptrmap_get(&c->value_of, value.ptr);
    if (earlier) {
      const arena_value *first = &c->values[earlier - 1];
      label what = describe(first);
      report(c, op, "%s is bound more than once (already to slot %d at offset %lld)", what.s, first->slot,
             (long long)first->offset);
      continue;
    }
    if (c->value_count == value_capacity) {
      value_capacity = value_capacity ? 2 * value_capacity : 64;
      arena_value *grown = realloc(c->values, value_capacity * sizeof(*grown));
      if (!grown)
        return false;
      c->values = grown;
    }
    MlirOperation writer = mlirOpResultGetOwner(value);
    int written = latch_schedule_interval_of(&c->schedule, value);
    size_t index = c->value_count++;
    c->values[index] = (arena_value){
        .bind = op, .writer = writer, .value = value, .result = mlirOpResultGetResultNumber(value), .root = index,
        .slot = (int)slot - 1, .offset = latch_bind_offset(op), .bytes = bytes, .written = written,
        .last_read = written, .last_reader = {NULL}, .readers_at_last = 0};
    if (!latch_ptrmap_put(&c->value_of, value.ptr, (void *)(uintptr_t)c->value_count))
      return false;
  }
  find_views(c);
  return true;
}

/* ---- reads ------------------------------------------------------------------------------------------ */

typedef struct read_walk {
  checker *c;
  MlirOperation reader; /* the op of the program block being scanned */
  int interval;
} read_walk;

static void note_read(checker *c, MlirValue operand, MlirOperation reader, int interval) {
  uintptr_t index = (uintptr_t)latch_ptrmap_get(&c->value_of, operand.ptr);
  if (!index)
    return;
  arena_value *v = &c->values[c->values[index - 1].root];
  if (interval > v->last_read) {
    v->last_read = interval;
    v->last_reader = reader;
    v->readers_at_last = 1;
  } else if (interval == v->last_read && (v->readers_at_last == 0 || !mlirOperationEqual(v->last_reader, reader))) {
    v->last_reader = reader; /* reads of one op come together: a new op here is another reader */
    v->readers_at_last++;
  }
}

static MlirWalkResult scan_operands(MlirOperation op, void *user_data) {
  read_walk *walk = user_data;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    note_read(walk->c, mlirOperationGetOperand(op, i), walk->reader, walk->interval);
  return MlirWalkResultAdvance;
}

/* Every op of the program (tasks and, at the end, gpu.yield) reads its operands in its interval; binds
 * are not reads. Lifetimes of slots follow from their values. */
static void compute_lifetimes(checker *c) {
  for (size_t i = 0; i < c->schedule.count; ++i) {
    MlirOperation op = c->schedule.ops[i];
    if (latch_op_kind_of(op) == LATCH_OP_ARENA_BIND)
      continue;
    read_walk walk = {c, op, c->schedule.interval[i]};
    mlirOperationWalk(op, scan_operands, &walk, MlirWalkPreOrder);
  }
  MlirOperation end = mlirBlockGetTerminator(c->schedule.body);
  if (!mlirOperationIsNull(end) && latch_op_is(end, "gpu.yield")) {
    read_walk walk = {c, end, c->schedule.interval_count};
    mlirOperationWalk(end, scan_operands, &walk, MlirWalkPreOrder);
  }
  for (size_t i = 0; i < c->value_count; ++i) {
    const arena_value *v = &c->values[i];
    if (v->root != i)
      continue; /* a view: its reads are its root's */
    arena_slot *s = &c->slots[v->slot];
    if (v->written < s->first)
      s->first = v->written;
    if (v->last_read > s->last)
      s->last = v->last_read;
  }
}

/* ---- rules ------------------------------------------------------------------------------------------ */

static void check_unbound(checker *c) {
  for (size_t i = 0; i < c->schedule.count; ++i) {
    MlirOperation op = c->schedule.ops[i];
    latch_op_kind kind = latch_op_kind_of(op);
    if (kind == LATCH_OP_ARENA_ARENA || kind == LATCH_OP_ARENA_SLOT || kind == LATCH_OP_ARENA_BIND)
      continue;
    for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r) {
      MlirValue value = mlirOperationGetResult(op, r);
      if (!mlirTypeIsATensor(mlirValueGetType(value)) || is_external(value))
        continue;
      if (!latch_ptrmap_get(&c->named, value.ptr)) {
        MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
        report(c, op, "'%.*s' result %ld (written in interval %d) is not bound to any arena slot",
               (int)name.length, name.data, (long)r, c->schedule.interval[i]);
      }
    }
  }
}

static void check_slots(checker *c) {
  MlirValue buffer = mlirOperationGetResult(c->arena, 0);
  for (size_t i = 0; i < c->slot_count; ++i) {
    const arena_slot *s = &c->slots[i];
    if (!mlirValueEqual(latch_slot_arena(s->op), buffer))
      report(c, s->op, "slot %zu is not a slot of the program's arena.arena", i);
    if (s->alignment <= 0 || (s->alignment & (s->alignment - 1)) != 0 || s->offset % s->alignment != 0)
      report(c, s->op, "slot %zu offset %lld is not a multiple of its alignment %lld (a power of two)", i,
             (long long)s->offset, (long long)s->alignment);
    if (s->offset < 0 || s->size < 0 || s->offset > c->arena_size || s->size > c->arena_size - s->offset)
      report(c, s->op, "slot %zu (bytes [%lld, %lld)) does not fit in the arena of %lld bytes", i,
             (long long)s->offset, (long long)(s->offset + s->size), (long long)c->arena_size);
  }
}

static void check_binds(checker *c) {
  for (size_t i = 0; i < c->value_count; ++i) {
    const arena_value *v = &c->values[i];
    const arena_slot *s = &c->slots[v->slot];
    if (v->offset < 0 || v->offset > s->size || v->bytes > s->size - v->offset) {
      label what = describe(v);
      report(c, v->bind, "%s (%lld bytes at offset %lld) does not fit in slot %d of %lld bytes", what.s,
             (long long)v->bytes, (long long)v->offset, v->slot, (long long)s->size);
    }
  }
}

/* Two slots that share bytes must never be live in the same interval. */
static void check_slot_overlaps(checker *c) {
  for (size_t j = 0; j < c->slot_count; ++j) {
    const arena_slot *b = &c->slots[j];
    for (size_t i = 0; i < j; ++i) {
      const arena_slot *a = &c->slots[i];
      int64_t low = a->offset > b->offset ? a->offset : b->offset;
      int64_t high = a->offset + a->size < b->offset + b->size ? a->offset + a->size : b->offset + b->size;
      int from = a->first > b->first ? a->first : b->first;
      int to = a->last < b->last ? a->last : b->last;
      if (low >= high || from > to)
        continue;
      label first = describe_slot(c, i), second = describe_slot(c, j);
      report(c, b->op, "%s and %s share bytes [%lld, %lld) while both are live in interval %d", first.s,
             second.s, (long long)low, (long long)high, from);
    }
  }
}

/* Within a slot, values that share bytes must not both be live, except a value written over one whose
 * last reader is the very task that writes it (in place). */
static int compare_by_slot(const void *x, const void *y) {
  const arena_value *a = *(const arena_value *const *)x, *b = *(const arena_value *const *)y;
  if (a->slot != b->slot)
    return a->slot < b->slot ? -1 : 1;
  return a < b ? -1 : a > b; /* bind order */
}

static void check_value_overlaps(checker *c) {
  arena_value **by_slot = calloc(c->value_count ? c->value_count : 1, sizeof(*by_slot));
  if (!by_slot) {
    report(c, c->arena, "out of memory");
    return;
  }
  size_t count = 0;
  for (size_t i = 0; i < c->value_count; ++i)
    if (c->values[i].root == i) /* views are their roots' bytes */
      by_slot[count++] = &c->values[i];
  qsort(by_slot, count, sizeof(*by_slot), compare_by_slot);
  for (size_t j = 0; j < count; ++j) {
    for (size_t i = j; i-- > 0 && by_slot[i]->slot == by_slot[j]->slot;) {
      const arena_value *a = by_slot[i], *b = by_slot[j];
      int64_t low = a->offset > b->offset ? a->offset : b->offset;
      int64_t high = a->offset + a->bytes < b->offset + b->bytes ? a->offset + a->bytes : b->offset + b->bytes;
      if (low >= high)
        continue;
      if (a->written > b->written) {
        const arena_value *t = a;
        a = b;
        b = t;
      }
      /* a is written first (or in the same interval); both are live when b is written unless a's last
       * read comes earlier. */
      if (a->last_read < b->written)
        continue;
      if (a->written < b->written && a->last_read == b->written && a->readers_at_last == 1 &&
          mlirOperationEqual(a->last_reader, b->writer))
        continue; /* in place */
      label older = describe(a), newer = describe(b);
      report(c, b->bind,
             "values of slot %d share bytes [%lld, %lld) while both are live: %s is read until interval %d, "
             "when %s is written by a task that is not its only last reader",
             b->slot, (long long)low, (long long)high, older.s, a->last_read, newer.s);
    }
  }
  free(by_slot);
}

static bool verify_program(MlirOperation program) {
  checker c;
  memset(&c, 0, sizeof(c));
  if (!latch_schedule_initialize(&c.schedule, program))
    return false;
  bool ok = latch_ptrmap_initialize(&c.slot_of) && latch_ptrmap_initialize(&c.value_of) &&
            latch_ptrmap_initialize(&c.named) && read_plan(&c);
  if (!ok) {
    mlirEmitError(mlirOperationGetLocation(program), "latch-verify-arena: out of memory");
  } else if (mlirOperationIsNull(c.arena)) {
    report(&c, program, "the program has no arena.arena (run latch-plan-arena first)");
  } else {
    compute_lifetimes(&c);
    check_unbound(&c);
    check_slots(&c);
    check_binds(&c);
    check_slot_overlaps(&c);
    check_value_overlaps(&c);
  }
  free(c.slots);
  free(c.values);
  latch_ptrmap_deinitialize(&c.slot_of);
  latch_ptrmap_deinitialize(&c.value_of);
  latch_ptrmap_deinitialize(&c.named);
  latch_schedule_deinitialize(&c.schedule);
  return ok && c.errors == 0;
}

static MlirLogicalResult run(MlirOperation module, const void *options) {
  (void)options;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_PROGRAM && !verify_program(op))
      ok = false;
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

const latch_pass_info latch_verify_arena_pass = {
    .name = "latch-verify-arena",
    .summary = "Check each interval.program's arena plan: binds, slot bounds, alignment, lifetimes that share bytes",
    .anchor = "builtin.module",
    .run = run,
};
