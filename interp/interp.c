/* interp.c - runs task programs op by op (see interp.h). Each function call has its own environment
 * (MlirValue -> tensor or scalar); a tensor is freed right after the last op of the body that uses it.
 * An interval.program with an arena plan keeps its bound values in one byte arena instead (see "The
 * byte arena" below and docs/interp.md). */
#include "interp.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "../support/init.h"
#include "kernels.h"
#include "scalar.h"

/* func.call nesting deeper than this is an error (it would otherwise exhaust the C stack). */
#define MAX_CALL_DEPTH 64

/* ---- Types, functions and attributes ---- */

bool latch_tensor_type_read(MlirType type, latch_dtype *out_dtype, int *out_rank, int64_t *out_shape) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return false;
  MlirType element = mlirShapedTypeGetElementType(type);
  if (mlirTypeIsAF32(element))
    *out_dtype = LATCH_DTYPE_F32;
  else if (mlirTypeIsABF16(element))
    *out_dtype = LATCH_DTYPE_BF16;
  else if (mlirTypeIsAF64(element))
    *out_dtype = LATCH_DTYPE_F64;
  else if (mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 32 &&
           !mlirIntegerTypeIsUnsigned(element))
    *out_dtype = LATCH_DTYPE_I32;
  else
    return false;
  int64_t rank = mlirShapedTypeGetRank(type);
  if (rank > LATCH_MAX_RANK)
    return false;
  *out_rank = (int)rank;
  for (int64_t d = 0; d < rank; ++d)
    out_shape[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
  return true;
}

static bool string_ref_equals(MlirStringRef a, MlirStringRef b) {
  return a.length == b.length && (a.length == 0 || memcmp(a.data, b.data, a.length) == 0);
}

MlirOperation latch_interp_find_func(MlirOperation module, MlirStringRef name) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  if (mlirBlockIsNull(body))
    return (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!latch_op_is(op, "func.func"))
      continue;
    MlirAttribute symbol = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(symbol) && mlirAttributeIsAString(symbol) &&
        string_ref_equals(mlirStringAttrGetValue(symbol), name))
      return op;
  }
  return (MlirOperation){NULL};
}

bool latch_interp_is_program(MlirOperation op) {
  return !mlirOperationIsNull(op) && latch_op_kind_of(op) == LATCH_OP_INTERVAL_PROGRAM;
}

MlirOperation latch_interp_find_entry(MlirOperation module, MlirStringRef name) {
  MlirOperation func = latch_interp_find_func(module, name);
  if (!mlirOperationIsNull(func))
    return func;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  if (mlirBlockIsNull(body))
    return (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!latch_interp_is_program(op))
      continue;
    MlirAttribute symbol = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(symbol) && mlirAttributeIsAString(symbol) &&
        string_ref_equals(mlirStringAttrGetValue(symbol), name))
      return op;
  }
  return (MlirOperation){NULL};
}

MlirAttribute latch_func_arg_attr(MlirOperation func, intptr_t index, const char *name) {
  MlirAttribute all = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all) || index >= mlirArrayAttrGetNumElements(all))
    return (MlirAttribute){NULL};
  MlirAttribute dict = mlirArrayAttrGetElement(all, index);
  if (!mlirAttributeIsADictionary(dict))
    return (MlirAttribute){NULL};
  return mlirDictionaryAttrGetElementByName(dict, mlirStringRefCreateFromCString(name));
}

MlirType latch_func_type(MlirOperation func) {
  MlirAttribute type = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("function_type"));
  if (mlirAttributeIsNull(type) || !mlirAttributeIsAType(type))
    return (MlirType){NULL};
  MlirType value = mlirTypeAttrGetValue(type);
  return mlirTypeIsAFunction(value) ? value : (MlirType){NULL};
}

/* Emits "'op.name' <formatted message>" at `op`'s location. */
static bool op_error(MlirOperation op, const char *format, ...) {
  char detail[600], text[700];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(text, sizeof(text), "'%.*s' %s", (int)name.length, name.data, detail);
  mlirEmitError(mlirOperationGetLocation(op), text);
  return false;
}

/* ---- The environment of one call ---- */

typedef struct binding {
  const void *key;    /* MlirValue.ptr; NULL: empty slot */
  intptr_t last_use;  /* index of the last op of the body that uses the value (-1: none) */
  latch_tensor *tensor; /* owned */
  bool is_scalar;
  latch_scalar scalar;
  latch_scalar_type scalar_type;
  size_t arena_value; /* 1 + its index in the arena's values when the value lives in the arena; 0: not */
} binding;

typedef struct arena_state arena_state;

typedef struct frame {
  binding *slots;
  size_t capacity, count;
  const latch_interp_options *options;
  MlirOperation func;
  int depth;
  arena_state *arena; /* NULL: no arena (a func.func, a program without a plan, or ignore_arena) */
} frame;

static size_t hash_pointer(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (size_t)x;
}

/* The slot of `key`, inserted (empty) when missing; NULL when out of memory. */
static binding *frame_slot(frame *f, const void *key, bool insert) {
  if (insert && (f->count + 1) * 2 > f->capacity) {
    size_t capacity = f->capacity ? f->capacity * 2 : 64;
    binding *slots = calloc(capacity, sizeof(*slots));
    if (!slots)
      return NULL;
    for (size_t i = 0; i < f->capacity; ++i) {
      if (!f->slots[i].key)
        continue;
      size_t j = hash_pointer(f->slots[i].key) & (capacity - 1);
      while (slots[j].key)
        j = (j + 1) & (capacity - 1);
      slots[j] = f->slots[i];
    }
    free(f->slots);
    f->slots = slots;
    f->capacity = capacity;
  }
  if (!f->capacity)
    return NULL;
  size_t j = hash_pointer(key) & (f->capacity - 1);
  while (f->slots[j].key && f->slots[j].key != key)
    j = (j + 1) & (f->capacity - 1);
  if (f->slots[j].key)
    return &f->slots[j];
  if (!insert)
    return NULL;
  f->slots[j] = (binding){.key = key, .last_use = -1};
  f->count++;
  return &f->slots[j];
}

static void arena_free(arena_state *a);

static void frame_deinitialize(frame *f) {
  for (size_t i = 0; i < f->capacity; ++i)
    latch_tensor_free(f->slots[i].tensor);
  free(f->slots);
  f->slots = NULL;
  f->capacity = f->count = 0;
  arena_free(f->arena);
  f->arena = NULL;
}

static latch_tensor *arena_load(frame *f, size_t index, MlirOperation reader, int operand);

/* The tensor of `value` for one use, as operand `operand` of `user` (the gpu.yield for a result):
 * the frame's own tensor, or, for a value that lives in the arena, a new tensor read from the arena's
 * bytes at this use, returned in *temp too (the caller frees it after the use). NULL when the frame
 * holds no tensor for `value` (or memory ran out reading it). */
static latch_tensor *frame_use(frame *f, MlirValue value, MlirOperation user, int operand, latch_tensor **temp) {
  *temp = NULL;
  binding *b = frame_slot(f, value.ptr, false);
  if (!b || b->is_scalar)
    return NULL;
  if (f->arena && b->arena_value && !b->tensor)
    return *temp = arena_load(f, b->arena_value - 1, user, operand);
  return b->tensor;
}

static bool scalar_lookup(MlirValue value, latch_scalar *out_value, latch_scalar_type *out_type, void *user_data) {
  binding *b = frame_slot(user_data, value.ptr, false);
  if (!b || !b->is_scalar)
    return false;
  *out_value = b->scalar;
  *out_type = b->scalar_type;
  return true;
}

/* Binds `tensor` (taking ownership) to `value`. */
static bool bind_tensor(frame *f, MlirOperation op, MlirValue value, latch_tensor *tensor) {
  binding *b = frame_slot(f, value.ptr, true);
  if (!b) {
    latch_tensor_free(tensor);
    return op_error(op, "cannot run: out of memory");
  }
  latch_tensor_free(b->tensor);
  b->tensor = tensor;
  b->is_scalar = false;
  return true;
}

/* ---- Use tracking: after op k runs, values whose last use is k are freed ---- */

typedef struct use_walk {
  frame *f;
  intptr_t index;
  bool release; /* false: record last uses; true: free the values whose last use is `index` */
  bool ok;
} use_walk;

static MlirWalkResult visit_uses(MlirOperation op, void *user_data) {
  use_walk *walk = user_data;
  for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
    const void *key = mlirOperationGetOperand(op, k).ptr;
    binding *b = frame_slot(walk->f, key, !walk->release);
    if (!b) {
      walk->ok = walk->release;
      continue;
    }
    if (!walk->release) {
      b->last_use = walk->index;
    } else if (b->last_use == walk->index && b->tensor) {
      latch_tensor_free(b->tensor);
      b->tensor = NULL;
    }
  }
  return MlirWalkResultAdvance;
}

/* ---- The byte arena of a planned interval.program (docs/interp.md) ----
 *
 * One arena of the plan's `size` bytes. The interpreter computes in fp64 while the plan sizes tensors by
 * their declared dtype, so the arena's bytes are a shadow: each byte holds one fp64 number (`cells`) and
 * the value that last wrote it (`owner`). Storing element e of a bound value (dtype size s, at arena byte
 * q = slot offset + bind offset + e s) puts the element's fp64 value into the s cells q .. q+s-1 and marks
 * them as that value's. Reading element e back returns the cells' number when all s cells hold the same
 * bits (as they do when nothing else wrote there, and also when one element of another value of the same
 * size overwrote them all: the read then returns that value, as real memory would), and NaN when they
 * differ (a partial overwrite). i32 elements are stored the same way (exact in a double). An element
 * read from cells that one value of the other kind wrote is reinterpreted as memory would: an i32 read of
 * a float's cells gives the bits of that float as an f32, a float read of an i32's cells the f32 whose
 * bits that i32 is (a partial overwrite of an i32 reads the bits of an f32 NaN). A correct plan thus gives
 * every read exactly the fp64 value its writer computed (bitwise the results of a run without the plan,
 * in every --emulate mode: values are rounded before they are stored), and a write over bytes that a
 * value still to be read occupies changes that value when it is read. Besides the reinterpretation, the
 * owners serve the report: a read of bytes that another value wrote is a corrupt read, and a write over
 * bytes of a value that a later op (or another task of the same interval) still reads is a live
 * overwrite. A task.reshape result bound exactly over its input (same bytes) is a view: its bytes keep
 * the input's owner (its root's), and a write over them must wait for the readers of every view. */

typedef struct arena_value {
  MlirValue value;
  int64_t offset; /* the arena byte of element 0: the slot's offset plus the bind's */
  int element_size;
  latch_dtype dtype;
  int rank;
  int64_t shape[LATCH_MAX_RANK];
  int64_t count;
  uint32_t tag;             /* the owner mark of its bytes: 1 + its index, or its root's for a view */
  size_t next_view;         /* 1 + the index of the next view of the same root (0: none) */
  long checked_at;          /* the op index of the last liveness question (LONG_MIN: none) */
  MlirOperation still_read; /* its answer */
} arena_value;

struct arena_state {
  MlirBlock body;
  int64_t size;
  double *cells;
  uint32_t *owner; /* 1 + the index of the value in `values` that wrote the byte last; 0: never written */
  arena_value *values;
  size_t count, capacity;
  latch_schedule schedule;
  bool has_schedule;
  latch_interp_arena_report *report;
  latch_interp_arena_report local; /* the report when the caller asked for none */
};

/* The arena keeps this many bytes of shadow per arena byte; arenas above this size are refused. */
#define ARENA_SHADOW_BYTES (sizeof(double) + sizeof(uint32_t))
#define ARENA_MAX_BYTES ((int64_t)1 << 32)

static int dtype_size(latch_dtype dtype) {
  switch (dtype) {
  case LATCH_DTYPE_F32: return 4;
  case LATCH_DTYPE_BF16: return 2;
  case LATCH_DTYPE_F64: return 8;
  case LATCH_DTYPE_I32: return 4;
  }
  return 4;
}

static void arena_free(arena_state *a) {
  if (!a)
    return;
  free(a->cells);
  free(a->owner);
  free(a->values);
  if (a->has_schedule)
    latch_schedule_deinitialize(&a->schedule);
  free(a);
}

static bool is_arena_op(MlirOperation op) {
  latch_op_kind kind = latch_op_kind_of(op);
  return kind == LATCH_OP_ARENA_ARENA || kind == LATCH_OP_ARENA_SLOT || kind == LATCH_OP_ARENA_BIND ||
         kind == LATCH_OP_ARENA_VIEW;
}

/* The op of `body` that holds `op` (op itself, or the op whose region holds it); null when none does. */
static MlirOperation top_level_op(MlirBlock body, MlirOperation op) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), body))
    op = mlirOperationGetParentOperation(op);
  return op;
}

/* Makes `v` (the binding of `value`, about to be appended) a view when `value` is a task.reshape's result
 * bound exactly over the reshape's bound input: v takes the input's owner mark (its root's) and joins the
 * root's list of views. */
static void arena_view_of(frame *f, MlirValue value, arena_value *v) {
  arena_state *a = f->arena;
  if (!mlirValueIsAOpResult(value))
    return;
  MlirOperation writer = mlirOpResultGetOwner(value);
  if (latch_op_kind_of(writer) != LATCH_OP_TASK_RESHAPE || mlirOperationGetNumOperands(writer) != 1)
    return;
  binding *input = frame_slot(f, mlirOperationGetOperand(writer, 0).ptr, false);
  if (!input || !input->arena_value)
    return;
  arena_value *u = &a->values[input->arena_value - 1];
  if (u->offset != v->offset || u->count * u->element_size != v->count * v->element_size)
    return;
  arena_value *root = &a->values[u->tag - 1];
  v->tag = root->tag;
  v->next_view = root->next_view;
  root->next_view = a->count + 1; /* v's index once appended */
}

/* Reads the plan of `program` (body `body`) when it has one: an arena, and for every arena.bind the arena
 * bytes of its value, marked in the value's binding. Leaves f->arena NULL when there is no arena.arena. */
static bool arena_plan(frame *f, MlirOperation program, MlirBlock body) {
  MlirOperation arena_op = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_kind_of(op) != LATCH_OP_ARENA_ARENA)
      continue;
    if (!mlirOperationIsNull(arena_op))
      return op_error(op, "is a second arena of the program; latch-interp runs a plan of one arena");
    arena_op = op;
  }
  if (mlirOperationIsNull(arena_op))
    return true;
  int64_t size = latch_arena_size(arena_op);
  if (size < 0 || size > ARENA_MAX_BYTES)
    return op_error(arena_op, "has size %lld; latch-interp runs arenas of 0 to %lld bytes", (long long)size,
                    (long long)ARENA_MAX_BYTES);
  arena_state *a = calloc(1, sizeof(*a));
  if (!a)
    return op_error(arena_op, "cannot run: out of memory");
  f->arena = a;
  a->body = body;
  a->size = size;
  a->report = f->options->arena_report ? f->options->arena_report : &a->local;
  a->cells = calloc((size_t)size + 1, sizeof(double));
  a->owner = calloc((size_t)size + 1, sizeof(uint32_t));
  if (!a->cells || !a->owner)
    return op_error(arena_op, "cannot run: out of memory for an arena of %lld bytes (latch-interp keeps %d "
                    "bytes of shadow per arena byte)", (long long)size, (int)ARENA_SHADOW_BYTES);
  if (!latch_schedule_initialize(&a->schedule, program))
    return op_error(program, "cannot run its arena plan: the program's intervals are malformed");
  a->has_schedule = true;
  MlirValue buffer = latch_arena_buffer_result(arena_op);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_kind_of(op) != LATCH_OP_ARENA_BIND)
      continue;
    if (mlirOperationGetNumOperands(op) != 2)
      return op_error(op, "needs a value and a slot");
    MlirValue slot_value = latch_bind_slot(op), value = latch_bind_value(op);
    MlirOperation slot = mlirValueIsAOpResult(slot_value) ? mlirOpResultGetOwner(slot_value) : (MlirOperation){NULL};
    if (mlirOperationIsNull(slot) || latch_op_kind_of(slot) != LATCH_OP_ARENA_SLOT ||
        mlirOperationGetNumOperands(slot) != 1 || !mlirValueEqual(latch_slot_arena(slot), buffer))
      return op_error(op, "binds to something that is not an arena.slot of the program's arena");
    bool defined_here = mlirValueIsABlockArgument(value)
                            ? mlirBlockEqual(mlirBlockArgumentGetOwner(value), body)
                            : mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(value)), body);
    if (!defined_here)
      return op_error(op, "binds a value that the program's block does not define");
    arena_value v = {.value = value, .checked_at = LONG_MIN};
    if (!latch_tensor_type_read(mlirValueGetType(value), &v.dtype, &v.rank, v.shape))
      return op_error(op, "binds a value that is not a static tensor of f32, bf16, f64 or i32 (rank <= %d)",
                      LATCH_MAX_RANK);
    v.count = latch_shape_count(v.rank, v.shape);
    v.element_size = dtype_size(v.dtype);
    int64_t slot_offset = latch_slot_offset(slot), bind_offset = latch_bind_offset(op);
    v.offset = slot_offset + bind_offset;
    if (v.count < 0 || slot_offset < 0 || bind_offset < 0 || v.offset > size ||
        v.count > (size - v.offset) / v.element_size)
      return op_error(op, "puts %lld bytes at arena byte %lld (slot offset %lld + bind offset %lld), outside "
                      "the arena of %lld bytes", (long long)(v.count < 0 ? -1 : v.count * v.element_size),
                      (long long)v.offset, (long long)slot_offset, (long long)bind_offset, (long long)size);
    binding *b = frame_slot(f, value.ptr, true);
    if (!b)
      return op_error(op, "cannot run: out of memory");
    if (b->arena_value)
      return op_error(op, "binds a value that an earlier arena.bind already bound");
    if (a->count == a->capacity) {
      size_t capacity = a->capacity ? a->capacity * 2 : 64;
      arena_value *values = realloc(a->values, capacity * sizeof(*values));
      if (!values || capacity >= UINT32_MAX)
        return op_error(op, "cannot run: out of memory");
      a->values = values;
      a->capacity = capacity;
    }
    v.tag = (uint32_t)a->count + 1;
    arena_view_of(f, value, &v);
    a->values[a->count++] = v;
    b->arena_value = a->count;
  }
  a->report->runs++;
  a->report->arena_bytes = size;
  a->report->values_bound = (int64_t)a->count;
  return true;
}

/* The op index of `op` in the schedule (-1 for none: the program's arguments are written before op 0). */
static long arena_op_index(const arena_state *a, MlirOperation op) {
  return mlirOperationIsNull(op) ? -1 : latch_schedule_index_of(&a->schedule, op);
}

/* An op that reads `value` when op `index` (`writer`; index -1: the start of the program) writes over its
 * bytes: a later op (the gpu.yield for a result), or another task of the writer's interval, which may run
 * at the same time on the device; null when there is none. */
static MlirOperation arena_reader_after(arena_state *a, MlirValue value, long index, MlirOperation writer) {
  int interval = index >= 0 ? a->schedule.interval[index] : -1;
  MlirOperation terminator = mlirBlockGetTerminator(a->body);
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation reader = top_level_op(a->body, mlirOpOperandGetOwner(use));
    if (mlirOperationIsNull(reader) || is_arena_op(reader) ||
        (!mlirOperationIsNull(writer) && mlirOperationEqual(reader, writer)))
      continue;
    long at;
    int reader_interval;
    if (!mlirOperationIsNull(terminator) && mlirOperationEqual(reader, terminator)) {
      at = (long)a->schedule.count;
      reader_interval = a->schedule.interval_count;
    } else {
      at = latch_schedule_index_of(&a->schedule, reader);
      if (at < 0)
        continue;
      reader_interval = a->schedule.interval[at];
    }
    if (at > index || (interval >= 0 && reader_interval == interval))
      return reader;
  }
  return (MlirOperation){NULL};
}

/* arena_reader_after for the storage of `v` (a root): `v` itself or any of its views. */
static MlirOperation arena_still_read(arena_state *a, arena_value *v, long index, MlirOperation writer) {
  if (v->checked_at == index)
    return v->still_read;
  MlirOperation found = {NULL};
  for (const arena_value *m = v; m && mlirOperationIsNull(found);
       m = m->next_view ? &a->values[m->next_view - 1] : NULL)
    found = arena_reader_after(a, m->value, index, writer);
  v->checked_at = index;
  v->still_read = found;
  return found;
}

/* Stores tensor `t` (of the value's dtype and shape) at the arena bytes of value `index`, as written by
 * `writer` (null: the program's start). */
static void arena_store(frame *f, size_t index, const latch_tensor *t, MlirOperation writer) {
  arena_state *a = f->arena;
  arena_value *v = &a->values[index];
  uint32_t tag = v->tag;
  long at = arena_op_index(a, writer);
  int size = v->element_size;
  latch_interp_arena_report *r = a->report;
  for (int64_t e = 0; e < v->count; ++e) {
    double x = t->f ? t->f[e] : (double)t->i[e];
    int64_t base = v->offset + e * size;
    for (int c = 0; c < size; ++c) {
      uint32_t old = a->owner[base + c];
      if (old && old != tag) {
        arena_value *victim = &a->values[old - 1];
        MlirOperation reader = arena_still_read(a, victim, at, writer);
        if (!mlirOperationIsNull(reader)) {
          if (r->live_overwrites++ == 0) {
            r->overwrite_writer = v->value;
            r->overwrite_victim = victim->value;
            r->overwrite_reader = reader;
            r->overwrite_byte = base + c;
          }
        }
      }
      a->cells[base + c] = x;
      a->owner[base + c] = tag;
    }
  }
  r->element_writes += v->count;
}

/* The bits of `x` as an f32, read as an i32 (what memory holding that f32 reads as an i32). */
static int32_t f32_bits(double x) {
  float narrow = (float)x;
  int32_t bits;
  memcpy(&bits, &narrow, sizeof(bits));
  return bits;
}

/* The f32 whose bits are the i32 `x`. */
static double bits_f32(double x) {
  int32_t bits = (int32_t)x;
  float value;
  memcpy(&value, &bits, sizeof(value));
  return (double)value;
}

/* Reads value `index` from the arena, at its use as operand `operand` of `reader`. NULL (after an error)
 * when memory runs out. */
static latch_tensor *arena_load(frame *f, size_t index, MlirOperation reader, int operand) {
  arena_state *a = f->arena;
  arena_value *v = &a->values[index];
  latch_tensor *t = latch_tensor_allocate(v->dtype, v->rank, v->shape);
  if (!t) {
    op_error(reader, "cannot run: out of memory");
    return NULL;
  }
  uint32_t tag = v->tag;
  int size = v->element_size;
  latch_interp_arena_report *r = a->report;
  for (int64_t e = 0; e < v->count; ++e) {
    int64_t base = v->offset + e * size;
    const double *cells = a->cells + base;
    const uint32_t *owner = a->owner + base;
    bool own = true, same = true;
    int foreign = -1;
    for (int c = 0; c < size; ++c) {
      if (owner[c] != tag && foreign < 0)
        foreign = c;
      own = own && owner[c] == tag;
      same = same && memcmp(&cells[c], &cells[0], sizeof(double)) == 0;
    }
    double x = same ? cells[0] : NAN;
    /* The kind the cells were written as: this value's, or the one other value's that wrote them all. */
    bool written_as_int = !t->f;
    if (!own) {
      uint32_t other = owner[foreign];
      bool one_writer = other != 0;
      for (int c = 0; c < size; ++c)
        one_writer = one_writer && owner[c] == other;
      if (one_writer)
        written_as_int = a->values[other - 1].dtype == LATCH_DTYPE_I32;
      if (r->corrupt_reads++ == 0) {
        r->corrupt_reader = reader;
        r->corrupt_operand = operand;
        r->corrupt_value = v->value;
        r->corrupt_overwriter = one_writer ? a->values[other - 1].value : (MlirValue){NULL};
        r->corrupt_byte = base + foreign;
      }
    }
    if (t->f)
      t->f[e] = same && written_as_int ? bits_f32(x) : x;
    else
      t->i[e] = same && written_as_int ? (int32_t)x : f32_bits(x);
  }
  r->element_reads += v->count;
  return t;
}

/* After `op` ran: its results that the plan binds go into the arena (and their tensors away); a
 * task.adamw's results are also written over its p, m and v operands when those are program arguments,
 * as on the device (docs/device-abi.md), so that a later reader of such an argument sees the update. */
static bool arena_after_op(frame *f, MlirOperation op) {
  for (intptr_t k = 0, n = mlirOperationGetNumResults(op); k < n; ++k) {
    binding *b = frame_slot(f, mlirOperationGetResult(op, k).ptr, false);
    if (!b || !b->arena_value || !b->tensor)
      continue;
    arena_store(f, b->arena_value - 1, b->tensor, op);
    latch_tensor_free(b->tensor);
    b->tensor = NULL;
  }
  if (latch_op_kind_of(op) != LATCH_OP_TASK_ADAMW || mlirOperationGetNumResults(op) != 3 ||
      mlirOperationGetNumOperands(op) != 5)
    return true;
  for (int k = 0; k < 3; ++k) {
    MlirValue target = mlirOperationGetOperand(op, latch_adamw_written_over(k));
    if (!mlirValueIsABlockArgument(target) || !mlirBlockEqual(mlirBlockArgumentGetOwner(target), f->arena->body))
      continue;
    binding *b = frame_slot(f, target.ptr, false);
    if (!b || b->is_scalar || (!b->tensor && !b->arena_value))
      continue; /* already dead */
    latch_tensor *temp = NULL;
    latch_tensor *result = frame_use(f, mlirOperationGetResult(op, k), op, -1, &temp);
    if (!result) {
      latch_tensor_free(temp);
      return op_error(op, "result %d is not a tensor value the interpreter holds", k);
    }
    if (b->arena_value && !b->tensor) {
      if (f->arena->values[b->arena_value - 1].count == result->count &&
          f->arena->values[b->arena_value - 1].dtype == result->dtype)
        arena_store(f, b->arena_value - 1, result, op);
    } else if (b->tensor && b->tensor->dtype == result->dtype && b->tensor->count == result->count) {
      if (result->f)
        memcpy(b->tensor->f, result->f, (size_t)result->count * sizeof(double));
      else
        memcpy(b->tensor->i, result->i, (size_t)result->count * sizeof(int32_t));
    }
    latch_tensor_free(temp);
  }
  return true;
}

/* ---- Ops ---- */

/* Allocates one tensor per result of `op` from its result types. */
static bool allocate_results(MlirOperation op, latch_tensor **results, intptr_t count) {
  for (intptr_t k = 0; k < count; ++k) {
    latch_dtype dtype;
    int rank;
    int64_t shape[LATCH_MAX_RANK];
    results[k] = NULL;
    if (!latch_tensor_type_read(mlirValueGetType(mlirOperationGetResult(op, k)), &dtype, &rank, shape))
      return op_error(op, "result %d is not a static tensor of f32, bf16, f64 or i32 (rank <= %d)", (int)k,
                      LATCH_MAX_RANK);
    results[k] = latch_tensor_allocate(dtype, rank, shape);
    if (!results[k]) {
      char text[128];
      latch_shape_format(rank, shape, text, sizeof(text));
      return op_error(op, "result %d (%s) is too large for the interpreter (limit %lld elements) or memory ran out",
                      (int)k, text, (long long)LATCH_MAX_ELEMENTS);
    }
  }
  return true;
}

static bool run_map(frame *f, MlirOperation op, latch_tensor **ins, intptr_t n_in, latch_tensor **outs,
                    intptr_t n_out) {
  MlirBlock body = latch_map_body(op);
  if (mlirBlockIsNull(body))
    return op_error(op, "has no body");
  latch_scalar_program *program = latch_scalar_compile_block(body, f->options->emulate, scalar_lookup, f);
  if (!program)
    return false;
  bool ok = true;
  if (latch_scalar_program_input_count(program) != n_in || latch_scalar_program_output_count(program) != n_out)
    ok = op_error(op, "body takes %d arguments and yields %d values, but the op has %d inputs and %d results",
                  latch_scalar_program_input_count(program), latch_scalar_program_output_count(program), (int)n_in,
                  (int)n_out);
  /* Scalar types must fit the tensors: floats for float tensors, i32 for i32 tensors. */
  for (intptr_t k = 0; ok && k < n_in; ++k) {
    latch_scalar_type type = latch_scalar_program_input_type(program, (int)k);
    if (type.is_float != latch_dtype_is_float(ins[k]->dtype) || (!type.is_float && type.width != 32))
      ok = op_error(op, "body argument %d does not fit input %d (%s elements)", (int)k, (int)k,
                    latch_dtype_name(ins[k]->dtype));
  }
  for (intptr_t k = 0; ok && k < n_out; ++k) {
    latch_scalar_type type = latch_scalar_program_output_type(program, (int)k);
    if (type.is_float != latch_dtype_is_float(outs[k]->dtype) || (!type.is_float && type.width != 32))
      ok = op_error(op, "yielded value %d does not fit result %d (%s elements)", (int)k, (int)k,
                    latch_dtype_name(outs[k]->dtype));
  }
  /* Every input that is not rank 0, and every output, has the shape of the first output (or input). */
  const latch_tensor *shape = n_out ? outs[0] : NULL;
  for (intptr_t k = 0; !shape && k < n_in; ++k)
    if (ins[k]->rank)
      shape = ins[k];
  for (intptr_t k = 0; ok && shape && k < n_in; ++k)
    if (ins[k]->rank && !latch_tensor_same_shape(ins[k], shape))
      ok = op_error(op, "input %d does not have the shape of the others (rank-0 inputs broadcast)", (int)k);
  for (intptr_t k = 0; ok && k < n_out; ++k)
    if (!latch_tensor_same_shape(outs[k], shape))
      ok = op_error(op, "result %d does not have the shape of the others", (int)k);
  latch_scalar *registers = NULL, *values = NULL;
  if (ok) {
    registers = calloc((size_t)latch_scalar_program_register_count(program) + 1, sizeof(latch_scalar));
    values = calloc((size_t)(n_in + n_out) + 1, sizeof(latch_scalar));
    if (!registers || !values)
      ok = op_error(op, "cannot run: out of memory");
  }
  if (ok) {
    latch_scalar_program_prepare(program, registers);
    int64_t count = shape ? shape->count : 1;
    latch_scalar *inputs = values, *outputs = values + n_in;
    for (int64_t e = 0; ok && e < count; ++e) {
      for (intptr_t k = 0; k < n_in; ++k) {
        int64_t at = ins[k]->rank ? e : 0;
        if (ins[k]->f)
          inputs[k].f = ins[k]->f[at];
        else
          inputs[k].i = ins[k]->i[at];
      }
      MlirOperation failed;
      char error[256];
      if (!latch_scalar_program_run(program, registers, inputs, outputs, &failed, error, sizeof(error))) {
        ok = op_error(failed, "%s (element %lld of the enclosing task.map)", error, (long long)e);
        break;
      }
      for (intptr_t k = 0; k < n_out; ++k) {
        if (outs[k]->f)
          outs[k]->f[e] = outputs[k].f;
        else
          outs[k]->i[e] = (int32_t)outputs[k].i; /* already wrapped to 32 bits */
      }
    }
  }
  free(registers);
  free(values);
  latch_scalar_program_free(program);
  return ok;
}

static bool reduce_kind(MlirOperation op, latch_reduction *out_kind) {
  MlirStringRef kind = latch_reduce_kind(op);
  if (string_ref_equals(kind, mlirStringRefCreateFromCString("sum")))
    *out_kind = LATCH_REDUCE_SUM;
  else if (string_ref_equals(kind, mlirStringRefCreateFromCString("max")))
    *out_kind = LATCH_REDUCE_MAX;
  else if (string_ref_equals(kind, mlirStringRefCreateFromCString("mean")))
    *out_kind = LATCH_REDUCE_MEAN;
  else
    return op_error(op, "has kind \"%.*s\"; expected \"sum\", \"max\" or \"mean\"", (int)kind.length, kind.data);
  return true;
}

/* Runs the kernel of task op `kind` on `ins`, filling `outs` (operand and result counts already checked). */
static bool run_kernel(MlirOperation op, latch_op_kind kind, latch_tensor **in, latch_tensor **out) {
  char error[512] = "";
  bool ok = false;
  switch (kind) {
  case LATCH_OP_TASK_MATMUL:
    ok = latch_kernel_matmul(in[0], in[1], latch_matmul_transpose_a(op), latch_matmul_transpose_b(op), out[0],
                             error, sizeof(error));
    break;
  case LATCH_OP_TASK_GROUPED_MATMUL:
    if (latch_grouped_matmul_w_column_offset(op) >= 0)
      ok = latch_kernel_grouped_matmul_columns(in[0], in[1], in[2], latch_grouped_matmul_transpose_w(op),
                                               latch_grouped_matmul_w_column_offset(op), out[0], error, sizeof(error));
    else
      ok = latch_kernel_grouped_matmul(in[0], in[1], in[2], latch_grouped_matmul_transpose_w(op), out[0], error,
                                       sizeof(error));
    break;
  case LATCH_OP_TASK_REDUCE: {
    latch_reduction reduce = LATCH_REDUCE_SUM;
    if (!reduce_kind(op, &reduce))
      return false;
    ok = latch_kernel_reduce(in[0], latch_reduce_axis(op), reduce, out[0], error, sizeof(error));
    break;
  }
  case LATCH_OP_TASK_RMSNORM:
    ok = latch_kernel_rmsnorm(in[0], in[1], latch_rmsnorm_eps(op), out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_SOFTMAX: ok = latch_kernel_softmax(in[0], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_CROSS_ENTROPY:
    ok = latch_kernel_cross_entropy(in[0], in[1], out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS:
    ok = latch_kernel_cross_entropy_with_stats(in[0], in[1], out[0], out[1], error, sizeof(error));
    break;
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS:
    ok = latch_kernel_cross_entropy_grad_from_stats(in[0], in[1], in[2], in[3], out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_EMBEDDING: ok = latch_kernel_embedding(in[0], in[1], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_ROPE: ok = latch_kernel_rope(in[0], latch_rope_theta(op), out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_ATTENTION:
    ok = latch_kernel_attention(in[0], in[1], in[2], latch_attention_causal(op), latch_attention_scale(op), out[0],
                                error, sizeof(error));
    break;
  case LATCH_OP_TASK_ATTENTION_LSE:
    ok = latch_kernel_attention_lse(in[0], in[1], in[2], latch_attention_lse_causal(op), latch_attention_lse_scale(op),
                                    out[0], out[1], error, sizeof(error));
    break;
  case LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE:
    ok = latch_kernel_attention_stats_from_lse(in[0], in[1], in[2], out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_TOPK:
    ok = latch_kernel_topk(in[0], latch_topk_k(op), out[0], out[1], error, sizeof(error));
    break;
  case LATCH_OP_TASK_BUCKET:
    ok = latch_kernel_bucket(in[0], latch_bucket_buckets(op), out[0], out[1], error, sizeof(error));
    break;
  case LATCH_OP_TASK_GATHER_ROWS: ok = latch_kernel_gather_rows(in[0], in[1], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_SCATTER_ADD_ROWS:
    ok = latch_kernel_scatter_add_rows(in[0], in[1], latch_scatter_add_rows_rows(op), out[0], error,
                                       sizeof(error));
    break;
  case LATCH_OP_TASK_RESHAPE: ok = latch_kernel_reshape(in[0], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_TRANSPOSE: {
    intptr_t count = latch_attr_i64_array_size(op, "perm");
    int64_t perm[LATCH_MAX_RANK];
    for (intptr_t d = 0; d < count && d < LATCH_MAX_RANK; ++d)
      perm[d] = latch_attr_i64_array_get(op, "perm", d);
    if (count > LATCH_MAX_RANK)
      count = LATCH_MAX_RANK + 1; /* reported as a rank mismatch */
    ok = latch_kernel_transpose(in[0], perm, count, out[0], error, sizeof(error));
    break;
  }
  case LATCH_OP_TASK_CONVERT: ok = latch_kernel_convert(in[0], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_ADAMW: {
    int64_t first, count;
    if (!latch_adamw_tile_range(op, &first, &count))
      return op_error(op, "tile_range must be [first, count] of the task's %d-element tiles", LATCH_ADAMW_TILE);
    latch_adamw_config config = {latch_adamw_lr(op), latch_adamw_beta1(op), latch_adamw_beta2(op),
                                 latch_adamw_eps(op), latch_adamw_weight_decay(op)};
    ok = latch_kernel_adamw(in[0], in[1], in[2], in[3], in[4], &config, first * LATCH_ADAMW_TILE,
                            (first + count) * LATCH_ADAMW_TILE, out[0], out[1], out[2], error, sizeof(error));
    break;
  }
  case LATCH_OP_TASK_REDUCE_GRAD: {
    latch_reduction reduce = LATCH_REDUCE_SUM;
    if (!reduce_kind(op, &reduce))
      return false;
    ok = latch_kernel_reduce_grad(in[0], in[1], latch_reduce_grad_axis(op), reduce, out[0], error, sizeof(error));
    break;
  }
  case LATCH_OP_TASK_RMSNORM_GRAD:
    ok = latch_kernel_rmsnorm_grad(in[0], in[1], in[2], latch_rmsnorm_grad_eps(op), out[0], out[1], error,
                                   sizeof(error));
    break;
  case LATCH_OP_TASK_SOFTMAX_GRAD: ok = latch_kernel_softmax_grad(in[0], in[1], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD:
    ok = latch_kernel_cross_entropy_grad(in[0], in[1], in[2], out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_ROPE_GRAD:
    ok = latch_kernel_rope_grad(in[0], latch_rope_grad_theta(op), out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_ATTENTION_GRAD:
    ok = latch_kernel_attention_grad(in[0], in[1], in[2], in[3], in[4], latch_attention_grad_causal(op),
                                     latch_attention_grad_scale(op), out[0], out[1], out[2], error, sizeof(error));
    break;
  case LATCH_OP_TASK_ATTENTION_STATS:
    ok = latch_kernel_attention_stats(in[0], in[1], in[2], in[3], latch_attention_stats_causal(op),
                                      latch_attention_stats_scale(op), out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS:
    ok = latch_kernel_attention_grad_from_stats(in[0], in[1], in[2], in[3], in[4],
                                                latch_attention_grad_from_stats_causal(op),
                                                latch_attention_grad_from_stats_scale(op), out[0], out[1], out[2],
                                                error, sizeof(error));
    break;
  case LATCH_OP_TASK_TOPK_GRAD:
    ok = latch_kernel_topk_grad(in[0], in[1], latch_topk_grad_columns(op), out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD:
    ok = latch_kernel_grouped_matmul_weight_grad(in[0], in[1], in[2], out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT:
    ok = latch_kernel_grouped_matmul_weight_grad_concat(in[0], in[1], in[2], in[3], out[0], error, sizeof(error));
    break;
  default: return op_error(op, "is not supported by latch-interp");
  }
  if (!ok)
    return op_error(op, "%s", error);
  return true;
}

/* y = x with dims 1 and 2 swapped ([B, T, H, d] <-> [B, H, T, d]); false when the shapes do not fit. */
static bool swap_dims_1_2_into(const latch_tensor *x, latch_tensor *y) {
  static const int64_t perm[4] = {0, 2, 1, 3};
  char error[256];
  return latch_kernel_transpose(x, perm, 4, y, error, sizeof(error));
}

/* A copy of 4-D `x` with dims 1 and 2 swapped; NULL when it is not 4-D or memory runs out. */
static latch_tensor *swap_dims_1_2(const latch_tensor *x) {
  int64_t shape[4] = {x->shape[0], x->shape[2], x->shape[1], x->shape[3]};
  latch_tensor *y = x->rank == 4 ? latch_tensor_allocate(x->dtype, 4, shape) : NULL;
  if (y && !swap_dims_1_2_into(x, y)) {
    latch_tensor_free(y);
    return NULL;
  }
  return y;
}

/* An attention op with layout = "bthd" (latch_attention_bthd): its [B, T, H, d] operands as [B, H, T, d]
 * copies (the kernels' layout), the kernel, and its [B, H, T, d] results copied back. Only data moves, so
 * the values are those of the transposes that latch-fold-transposes removed. */
static bool run_kernel_bthd(MlirOperation op, latch_op_kind kind, latch_tensor **in, latch_tensor **out) {
  /* q, k, v | o, do are the leading operands; the results but stats are [B, H, T, d] too. */
  const latch_op_desc *desc = latch_op_desc_get(kind); /* at most 5 operands and 3 results */
  intptr_t layout_in = latch_layout_operand_count(kind), layout_out = latch_layout_result_count(kind);
  latch_tensor *swapped_in[5] = {0}, *swapped_out[3] = {0}, *use_in[5] = {0}, *use_out[3] = {0};
  bool ok = true;
  for (intptr_t i = 0; i < desc->operand_count; ++i) {
    use_in[i] = i < layout_in ? (swapped_in[i] = swap_dims_1_2(in[i])) : in[i];
    ok = ok && (i >= layout_in || swapped_in[i]);
  }
  for (intptr_t i = 0; i < desc->result_count; ++i) {
    use_out[i] = i < layout_out ? (swapped_out[i] = swap_dims_1_2(out[i])) : out[i];
    ok = ok && (i >= layout_out || swapped_out[i]);
  }
  if (!ok)
    op_error(op, "with layout = \"bthd\" needs 4-D operands and results (or memory ran out)");
  else
    ok = run_kernel(op, kind, use_in, use_out);
  for (intptr_t i = 0; ok && i < layout_out; ++i)
    if (!swap_dims_1_2_into(swapped_out[i], out[i])) /* swapped_out[i] has out[i]'s shape swapped */
      ok = op_error(op, "result %d does not fit its layout", (int)i);
  for (intptr_t i = 0; i < 5; ++i)
    latch_tensor_free(swapped_in[i]);
  for (intptr_t i = 0; i < 3; ++i)
    latch_tensor_free(swapped_out[i]);
  return ok;
}

/* Runs the kernel of task op `kind` on `ins`, filling `outs`. */
static bool run_task_kernel(frame *f, MlirOperation op, latch_op_kind kind, latch_tensor **in, intptr_t n_in,
                            latch_tensor **out, intptr_t n_out) {
  const latch_op_desc *desc = latch_op_desc_get(kind);
  if (kind != LATCH_OP_TASK_MAP && (n_in != desc->operand_count || n_out != desc->result_count))
    return op_error(op, "has %d operands and %d results; expected %d and %d", (int)n_in, (int)n_out,
                    desc->operand_count, desc->result_count);
  if (kind == LATCH_OP_TASK_MAP)
    return run_map(f, op, in, n_in, out, n_out);
  if (latch_op_takes_layout(kind) && latch_attention_bthd(op))
    return run_kernel_bthd(op, kind, in, out);
  return run_kernel(op, kind, in, out);
}

/* A task op: operands from the frame, results allocated from the result types, the kernel, then the
 * --emulate rounding of every float result. */
static bool run_task_op(frame *f, MlirOperation op, latch_op_kind kind) {
  intptr_t n_in = mlirOperationGetNumOperands(op), n_out = mlirOperationGetNumResults(op);
  latch_tensor **in = calloc((size_t)n_in + 1, sizeof(*in));
  latch_tensor **temps = calloc((size_t)n_in + 1, sizeof(*temps)); /* operands read from the arena */
  latch_tensor **out = calloc((size_t)n_out + 1, sizeof(*out));
  bool ok = in && temps && out;
  if (!ok)
    op_error(op, "cannot run: out of memory");
  for (intptr_t k = 0; ok && k < n_in; ++k) {
    in[k] = frame_use(f, mlirOperationGetOperand(op, k), op, (int)k, &temps[k]);
    if (!in[k])
      ok = op_error(op, "operand %d is not a tensor value the interpreter holds", (int)k);
  }
  if (ok)
    ok = allocate_results(op, out, n_out);
  if (ok)
    ok = run_task_kernel(f, op, kind, in, n_in, out, n_out);
  for (intptr_t k = 0; ok && k < n_out; ++k)
    latch_tensor_round(out[k], f->options->emulate);
  if (ok && f->options->observe)
    f->options->observe(f->options->observe_data, op, n_in, (const latch_tensor *const *)in, n_out,
                        (const latch_tensor *const *)out);
  for (intptr_t k = 0; k < n_out; ++k) {
    if (ok) {
      ok = bind_tensor(f, op, mlirOperationGetResult(op, k), out[k]);
    } else {
      latch_tensor_free(out[k]);
    }
  }
  for (intptr_t k = 0; temps && k < n_in; ++k)
    latch_tensor_free(temps[k]);
  free(temps);
  free(in);
  free(out);
  return ok;
}

/* arith.constant of a tensor type: a dense splat, or dense elements of f32, f64, i32 or bf16. */
static bool run_tensor_constant(frame *f, MlirOperation op) {
  latch_tensor *t;
  if (!allocate_results(op, &t, 1))
    return false;
  MlirAttribute value = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  bool ok = !mlirAttributeIsNull(value) && mlirAttributeIsADenseElements(value) &&
            mlirElementsAttrGetNumElements(value) == t->count;
  if (ok && mlirDenseElementsAttrIsSplat(value)) {
    MlirAttribute splat = mlirDenseElementsAttrGetSplatValue(value);
    if (t->f && mlirAttributeIsAFloat(splat)) {
      double x = mlirFloatAttrGetValueDouble(splat);
      for (int64_t i = 0; i < t->count; ++i)
        t->f[i] = x;
    } else if (t->i && mlirAttributeIsAInteger(splat)) {
      int32_t x = mlirDenseElementsAttrGetInt32SplatValue(value);
      for (int64_t i = 0; i < t->count; ++i)
        t->i[i] = x;
    } else {
      ok = false;
    }
  } else if (ok) {
    const uint16_t *raw = t->dtype == LATCH_DTYPE_BF16 ? mlirDenseElementsAttrGetRawData(value) : NULL;
    for (int64_t i = 0; i < t->count; ++i) {
      switch (t->dtype) {
      case LATCH_DTYPE_F32: t->f[i] = mlirDenseElementsAttrGetFloatValue(value, i); break;
      case LATCH_DTYPE_F64: t->f[i] = mlirDenseElementsAttrGetDoubleValue(value, i); break;
      case LATCH_DTYPE_I32: t->i[i] = mlirDenseElementsAttrGetInt32Value(value, i); break;
      case LATCH_DTYPE_BF16: {
        uint16_t bits;
        memcpy(&bits, (const char *)raw + 2 * i, sizeof(bits));
        t->f[i] = (double)latch_bf16_to_float(bits);
        break;
      }
      }
    }
  }
  if (!ok) {
    latch_tensor_free(t);
    return op_error(op, "has a value latch-interp does not handle (dense elements of the result type)");
  }
  latch_tensor_round(t, f->options->emulate);
  return bind_tensor(f, op, mlirOperationGetResult(op, 0), t);
}

/* A scalar arith/math op outside any map (such as a constant hoisted above a task.map). */
static bool run_scalar_op(frame *f, MlirOperation op) {
  latch_scalar_program *program = latch_scalar_compile_op(op, f->options->emulate, scalar_lookup, f, false);
  if (!program)
    return false;
  int registers_count = latch_scalar_program_register_count(program);
  int outputs_count = latch_scalar_program_output_count(program);
  latch_scalar *registers = calloc((size_t)registers_count + 1, sizeof(latch_scalar));
  latch_scalar *outputs = calloc((size_t)outputs_count + 1, sizeof(latch_scalar));
  bool ok = registers && outputs;
  if (!ok)
    op_error(op, "cannot run: out of memory");
  if (ok) {
    latch_scalar_program_prepare(program, registers);
    MlirOperation failed;
    char error[256];
    if (!latch_scalar_program_run(program, registers, NULL, outputs, &failed, error, sizeof(error)))
      ok = op_error(failed, "%s", error);
  }
  for (int k = 0; ok && k < outputs_count; ++k) {
    binding *b = frame_slot(f, mlirOperationGetResult(op, k).ptr, true);
    if (!b) {
      ok = op_error(op, "cannot run: out of memory");
      break;
    }
    latch_tensor_free(b->tensor);
    b->tensor = NULL;
    b->is_scalar = true;
    b->scalar = outputs[k];
    b->scalar_type = latch_scalar_program_output_type(program, k);
  }
  free(registers);
  free(outputs);
  latch_scalar_program_free(program);
  return ok;
}

static bool call_function(MlirOperation func, const latch_interp_options *options, int depth, intptr_t arg_count,
                          const latch_tensor *const *args, MlirOperation caller, intptr_t *out_result_count,
                          latch_tensor ***out_results);

static bool run_call(frame *f, MlirOperation op) {
  MlirAttribute callee = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return op_error(op, "has no callee");
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(callee);
  MlirOperation module = mlirOperationGetParentOperation(f->func);
  MlirOperation target = mlirOperationIsNull(module) ? module : latch_interp_find_func(module, name);
  if (mlirOperationIsNull(target))
    return op_error(op, "calls @%.*s, which is not a func.func of this module", (int)name.length, name.data);
  if (f->depth + 1 >= MAX_CALL_DEPTH)
    return op_error(op, "nests calls deeper than %d", MAX_CALL_DEPTH);
  intptr_t n_in = mlirOperationGetNumOperands(op), n_out = mlirOperationGetNumResults(op);
  const latch_tensor **args = calloc((size_t)n_in + 1, sizeof(*args));
  latch_tensor **temps = calloc((size_t)n_in + 1, sizeof(*temps));
  if (!args || !temps) {
    free(args);
    free(temps);
    return op_error(op, "cannot run: out of memory");
  }
  bool ok = true;
  for (intptr_t k = 0; ok && k < n_in; ++k) {
    args[k] = frame_use(f, mlirOperationGetOperand(op, k), op, (int)k, &temps[k]);
    if (!args[k])
      ok = op_error(op, "operand %d is not a tensor value the interpreter holds", (int)k);
  }
  intptr_t result_count = 0;
  latch_tensor **results = NULL;
  if (ok)
    ok = call_function(target, f->options, f->depth + 1, n_in, args, op, &result_count, &results);
  for (intptr_t k = 0; k < n_in; ++k)
    latch_tensor_free(temps[k]);
  free(temps);
  free(args);
  if (!ok)
    return false;
  if (result_count != n_out) {
    latch_interp_results_free(results, result_count);
    return op_error(op, "expects %d results, @%.*s returned %d", (int)n_out, (int)name.length, name.data,
                    (int)result_count);
  }
  for (intptr_t k = 0; k < n_out; ++k) {
    if (ok) {
      ok = bind_tensor(f, op, mlirOperationGetResult(op, k), results[k]);
    } else {
      latch_tensor_free(results[k]);
    }
  }
  free(results);
  return ok;
}

static bool run_op(frame *f, MlirOperation op) {
  latch_op_kind kind = latch_op_kind_of(op);
  if (kind != LATCH_OP_UNKNOWN && latch_op_is_task(op))
    return run_task_op(f, op, kind);
  if (latch_op_is(op, "func.call"))
    return run_call(f, op);
  if (latch_op_is(op, "arith.constant") && mlirOperationGetNumResults(op) == 1 &&
      mlirTypeIsATensor(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return run_tensor_constant(f, op);
  if (latch_scalar_op_known(mlirIdentifierStr(mlirOperationGetName(op))))
    return run_scalar_op(f, op);
  return op_error(op, "is not supported by latch-interp");
}

/* ---- Functions ---- */

static bool tensor_fits_type(const latch_tensor *t, MlirType type) {
  latch_dtype dtype;
  int rank;
  int64_t shape[LATCH_MAX_RANK];
  if (!latch_tensor_type_read(type, &dtype, &rank, shape) || dtype != t->dtype || rank != t->rank)
    return false;
  for (int d = 0; d < rank; ++d)
    if (shape[d] != t->shape[d])
      return false;
  return true;
}

/* Ops of a program body that run as nothing: interval markers and barriers, and the arena plan (read
 * before the run). */
static bool is_program_structure(MlirOperation op) {
  latch_op_kind kind = latch_op_kind_of(op);
  return kind == LATCH_OP_INTERVAL_INTERVAL || kind == LATCH_OP_INTERVAL_BARRIER || is_arena_op(op);
}

static bool call_function(MlirOperation func, const latch_interp_options *options, int depth, intptr_t arg_count,
                          const latch_tensor *const *args, MlirOperation caller, intptr_t *out_result_count,
                          latch_tensor ***out_results) {
  *out_result_count = 0;
  *out_results = NULL;
  MlirOperation where = mlirOperationIsNull(caller) ? func : caller;
  bool is_program = latch_interp_is_program(func);
  const char *terminator = is_program ? "gpu.yield" : "func.return";
  MlirType type = latch_func_type(func); /* a program may lack its function_type: its block says it all */
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if ((mlirTypeIsNull(type) && !is_program) || mlirBlockIsNull(body))
    return op_error(where, "cannot run a function without a body");
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(body)))
    return op_error(func, "has more than one block; latch-interp runs single-block functions");
  intptr_t input_count = mlirTypeIsNull(type) ? mlirBlockGetNumArguments(body) : mlirFunctionTypeGetNumInputs(type);
  if (input_count != arg_count || mlirBlockGetNumArguments(body) != arg_count)
    return op_error(where, "passes %d arguments to a function of %d", (int)arg_count, (int)input_count);

  frame f = {.options = options, .func = func, .depth = depth};
  bool ok = true;
  if (is_program && !options->ignore_arena)
    ok = arena_plan(&f, func, body);
  for (intptr_t k = 0; ok && k < arg_count; ++k) {
    MlirValue argument = mlirBlockGetArgument(body, k);
    if (!tensor_fits_type(args[k], mlirValueGetType(argument))) {
      char shape[128];
      latch_shape_format(args[k]->rank, args[k]->shape, shape, sizeof(shape));
      ok = op_error(where, "argument %d (%s %s) does not match the function's argument type", (int)k, shape,
                    latch_dtype_name(args[k]->dtype));
      break;
    }
    latch_tensor *copy = latch_tensor_clone(args[k]);
    if (!copy) {
      ok = op_error(where, "cannot run: out of memory");
      break;
    }
    latch_tensor_round(copy, options->emulate);
    ok = bind_tensor(&f, func, argument, copy);
    binding *b = ok && f.arena ? frame_slot(&f, argument.ptr, false) : NULL;
    if (b && b->arena_value) { /* an argument the plan binds (not one a planner makes) */
      arena_store(&f, b->arena_value - 1, b->tensor, (MlirOperation){NULL});
      latch_tensor_free(b->tensor);
      b->tensor = NULL;
    }
  }

  /* Record the last use of every value, so that tensors are freed as soon as they are dead. */
  intptr_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++index) {
    use_walk walk = {&f, index, false, true};
    mlirOperationWalk(op, visit_uses, &walk, MlirWalkPreOrder);
    if (!walk.ok)
      ok = op_error(op, "cannot run: out of memory");
  }

  index = 0;
  MlirOperation op = mlirBlockGetFirstOperation(body);
  for (; ok && !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op), ++index) {
    if (latch_op_is(op, terminator))
      break;
    if (!is_program || !is_program_structure(op)) {
      ok = run_op(&f, op);
      if (ok && f.arena)
        ok = arena_after_op(&f, op);
    }
    /* Results nobody uses are dead at once; the others after their last use. */
    for (intptr_t k = 0, n = mlirOperationGetNumResults(op); ok && k < n; ++k) {
      binding *b = frame_slot(&f, mlirOperationGetResult(op, k).ptr, false);
      if (b && b->last_use < 0 && b->tensor) {
        latch_tensor_free(b->tensor);
        b->tensor = NULL;
      }
    }
    use_walk walk = {&f, index, true, true};
    if (ok)
      mlirOperationWalk(op, visit_uses, &walk, MlirWalkPreOrder);
  }
  if (ok && mlirOperationIsNull(op))
    ok = op_error(func, "has a body that does not end in %s", terminator);

  latch_tensor **results = NULL;
  intptr_t n_out = ok ? mlirOperationGetNumOperands(op) : 0;
  if (ok && !mlirTypeIsNull(type) && n_out != mlirFunctionTypeGetNumResults(type))
    ok = op_error(op, "returns %d values from a function of %d results", (int)n_out,
                  (int)mlirFunctionTypeGetNumResults(type));
  if (ok) {
    results = calloc((size_t)n_out + 1, sizeof(*results));
    if (!results)
      ok = op_error(op, "cannot run: out of memory");
  }
  for (intptr_t k = 0; ok && k < n_out; ++k) {
    latch_tensor *temp = NULL;
    latch_tensor *t = frame_use(&f, mlirOperationGetOperand(op, k), op, (int)k, &temp);
    if (!t) {
      ok = op_error(op, "operand %d is not a tensor value the interpreter holds", (int)k);
      break;
    }
    results[k] = temp ? temp : latch_tensor_clone(t);
    if (!results[k])
      ok = op_error(op, "cannot run: out of memory");
  }
  frame_deinitialize(&f);
  if (!ok) {
    latch_interp_results_free(results, n_out);
    return false;
  }
  *out_result_count = n_out;
  *out_results = results;
  return true;
}

bool latch_interp_call(MlirOperation func, const latch_interp_options *options, intptr_t arg_count,
                       const latch_tensor *const *args, intptr_t *out_result_count, latch_tensor ***out_results) {
  return call_function(func, options, 0, arg_count, args, (MlirOperation){NULL}, out_result_count, out_results);
}

void latch_interp_results_free(latch_tensor **results, intptr_t count) {
  if (!results)
    return;
  for (intptr_t k = 0; k < count; ++k)
    latch_tensor_free(results[k]);
  free(results);
}
