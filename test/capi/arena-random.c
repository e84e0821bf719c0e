/* arena-random.c - 1,000 seeded random interval programs (DAGs of task.map, task.matmul, task.convert and
 * task.reshape on random shapes and dtypes over a few intervals, several tasks to an interval, some values
 * yielded), each planned by latch-plan-arena and checked by latch-verify-arena through the pass registry.
 * On top of the checker, this test recomputes every slot's lifetime from what it generated (a third,
 * independent account) and checks the plan against it, and it plants defects into correct plans: one slot
 * moved over the bytes of another that is live with it (the checker must reject each), and in particular
 * moves that only an earliest-writer lifetime catches (the other slot is live only before a later writer
 * of a slot with several writers).
 * Run by test/lit/passes/arena-random.test; the CHECK lines below are matched against its output. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include "../../dialects/dialects.h"
#include "../../dialects/ops.h"
#include "../../passes/pass.h"

#define PROGRAMS 1000
#define MAX_VALUES 160
#define TEXT_SIZE (1 << 17)

/* ---- random numbers (splitmix64) ------------------------------------------------------------------ */

static uint64_t next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int below(uint64_t *state, int n) { return (int)(next(state) % (uint64_t)n); }

/* ---- the generated program -------------------------------------------------------------------------- */

enum { F32, BF16, I32 };
static const char *const dtype_name[] = {"f32", "bf16", "i32"};

typedef struct gen_value {
  char name[24]; /* SSA name in the text, e.g. %v3#1 */
  int rows, cols, dtype;
  bool external;
  int written, last_read; /* intervals (program arguments and constants: -1) */
} gen_value;

typedef struct program {
  char *text;
  size_t length;
  gen_value values[MAX_VALUES];
  int count, intervals;
  int task_values; /* values defined by tasks, in program order (after the externals) */
} program;

static void emit(program *p, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void emit(program *p, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(p->text + p->length, TEXT_SIZE - p->length, format, args);
  va_end(args);
  if (n > 0 && p->length + (size_t)n < TEXT_SIZE)
    p->length += (size_t)n;
}

static void type_text(const gen_value *v, char *out, size_t size) {
  snprintf(out, size, "tensor<%dx%dx%s>", v->rows, v->cols, dtype_name[v->dtype]);
}

static const int dims[] = {1, 2, 3, 5, 8, 16, 32, 48};

static gen_value *add(program *p, int rows, int cols, int dtype) {
  gen_value *v = &p->values[p->count++];
  memset(v, 0, sizeof(*v));
  v->rows = rows;
  v->cols = cols;
  v->dtype = dtype;
  v->written = v->last_read = -1;
  return v;
}

/* An operand for a task of interval `t`: one defined before it, usually a recent one (so that values die
 * early and in-place writes happen). */
static int pick(program *p, uint64_t *rng, int t) {
  int available = 0;
  while (available < p->count && p->values[available].written < t)
    available++;
  if (available > 4 && below(rng, 10) < 7)
    return available - 1 - below(rng, 4);
  return below(rng, available);
}

static void read_value(program *p, int index, int t) {
  if (p->values[index].last_read < t)
    p->values[index].last_read = t;
}

/* One task in interval `t`; returns false when it could not be made (the caller picks another kind). */
static bool make_task(program *p, uint64_t *rng, int t, int *ssa) {
  if (p->count + 2 >= MAX_VALUES)
    return true;
  int kind = below(rng, 10); /* 0-4 map, 5-6 matmul, 7-8 convert, 9 reshape */
  int a = pick(p, rng, t);
  gen_value *x = &p->values[a];
  char tx[48], ty[48];
  type_text(x, tx, sizeof(tx));
  if (kind <= 4) {
    int inputs[3] = {a, a, a}, input_count = 1 + below(rng, 3), output_count = 1 + (below(rng, 4) == 0);
    for (int i = 1; i < input_count; ++i) {
      int b = pick(p, rng, t);
      const gen_value *y = &p->values[b];
      if (y->rows == x->rows && y->cols == x->cols && y->dtype == x->dtype)
        inputs[i] = b;
    }
    const char *dt = dtype_name[x->dtype];
    const char *add_op = x->dtype == I32 ? "arith.addi" : "arith.addf";
    int id = (*ssa)++;
    emit(p, "    %%v%d%s = \"task.map\"(", id, output_count == 2 ? ":2" : "");
    for (int i = 0; i < input_count; ++i)
      emit(p, "%s%s", i ? ", " : "", p->values[inputs[i]].name);
    emit(p, ") ({\n    ^bb0(");
    for (int i = 0; i < input_count; ++i)
      emit(p, "%s%%e%d: %s", i ? ", " : "", i, dt);
    emit(p, "):\n      %%r = %s %%e0, %%e%d : %s\n", add_op, input_count - 1, dt);
    emit(p, "      gpu.yield %%r%s : %s%s%s\n", output_count == 2 ? ", %r" : "", dt, output_count == 2 ? ", " : "",
         output_count == 2 ? dt : "");
    emit(p, "    }) {operandSegmentSizes = array<i32: %d, %d, %d, 0, 0, 0, 0, 0, 0, 0, 0, 0>, "
            "resultSegmentSizes = array<i32: 1, %d, 0, 0, 0, 0>, tiles = 1 : i64} : (",
         1, input_count > 1, input_count > 2, output_count > 1);
    for (int i = 0; i < input_count; ++i)
      emit(p, "%s%s", i ? ", " : "", tx);
    if (output_count == 2)
      emit(p, ") -> (%s, %s)\n", tx, tx);
    else
      emit(p, ") -> %s\n", tx);
    for (int i = 0; i < input_count; ++i)
      read_value(p, inputs[i], t);
    for (int o = 0; o < output_count; ++o) {
      gen_value *r = add(p, x->rows, x->cols, x->dtype);
      r->written = r->last_read = t;
      if (output_count == 2)
        snprintf(r->name, sizeof(r->name), "%%v%d#%d", id, o);
      else
        snprintf(r->name, sizeof(r->name), "%%v%d", id);
    }
    return true;
  }
  if (kind <= 6) {
    if (x->dtype == I32)
      return false;
    int b = -1;
    for (int tries = 0; tries < 6 && b < 0; ++tries) {
      int c = pick(p, rng, t);
      if (p->values[c].rows == x->cols && p->values[c].dtype == x->dtype)
        b = c;
    }
    if (b < 0)
      return false;
    gen_value *r = add(p, x->rows, p->values[b].cols, F32);
    r->written = r->last_read = t;
    int id = (*ssa)++;
    snprintf(r->name, sizeof(r->name), "%%v%d", id);
    char tb[48];
    type_text(&p->values[b], tb, sizeof(tb));
    type_text(r, ty, sizeof(ty));
    emit(p, "    %s = \"task.matmul\"(%s, %s) {tiles = 1 : i64, transpose_a = false, transpose_b = false} "
            ": (%s, %s) -> %s\n",
         r->name, x->name, p->values[b].name, tx, tb, ty);
    read_value(p, a, t);
    read_value(p, b, t);
    return true;
  }
  gen_value *r;
  const char *op;
  if (kind <= 8) {
    int dtype = (x->dtype + 1 + below(rng, 2)) % 3;
    r = add(p, x->rows, x->cols, dtype);
    op = "task.convert";
  } else {
    int rows = x->cols, cols = x->rows;
    if (below(rng, 2))
      rows = x->rows * x->cols, cols = 1;
    r = add(p, rows, cols, x->dtype);
    op = "task.reshape";
  }
  r->written = r->last_read = t;
  snprintf(r->name, sizeof(r->name), "%%v%d", (*ssa)++);
  type_text(r, ty, sizeof(ty));
  emit(p, "    %s = \"%s\"(%s) {tiles = 1 : i64} : (%s) -> %s\n", r->name, op, x->name, tx, ty);
  read_value(p, a, t);
  return true;
}

static void generate(program *p, uint64_t seed) {
  uint64_t rng = seed;
  p->length = 0;
  p->count = 0;
  p->text[0] = 0;
  int args = 1 + below(&rng, 3), constants = below(&rng, 3) == 0;
  /* Arguments: f32 or bf16 matrices, the second shaped to multiply the first. */
  for (int i = 0; i < args; ++i) {
    int rows = dims[below(&rng, 8)], cols = dims[below(&rng, 8)];
    if (i == 1)
      rows = p->values[0].cols;
    gen_value *v = add(p, rows, cols, below(&rng, 3) == 0 ? BF16 : F32);
    v->external = true;
    snprintf(v->name, sizeof(v->name), "%%a%d", i);
  }
  p->intervals = 2 + below(&rng, 11);
  emit(p, "module {\n  \"interval.program\"() ({\n  ^bb0(");
  for (int i = 0; i < args; ++i) {
    char t[48];
    type_text(&p->values[i], t, sizeof(t));
    emit(p, "%s%s: %s", i ? ", " : "", p->values[i].name, t);
  }
  emit(p, "):\n");
  if (constants) {
    gen_value *v = add(p, p->values[0].rows, p->values[0].cols, p->values[0].dtype);
    v->external = true;
    snprintf(v->name, sizeof(v->name), "%%c0");
    char t[48];
    type_text(v, t, sizeof(t));
    emit(p, "    %%c0 = arith.constant dense<1.0> : %s\n", t);
  }
  int first_task_value = p->count, ssa = 0;
  for (int t = 0; t < p->intervals; ++t) {
    emit(p, "    \"interval.interval\"() {name = \"i%d\"} : () -> ()\n", t);
    int tasks = 1 + below(&rng, 4);
    for (int k = 0; k < tasks; ++k)
      for (int tries = 0; tries < 4 && !make_task(p, &rng, t, &ssa); ++tries) {
      }
    if (t + 1 < p->intervals)
      emit(p, "    \"interval.barrier\"() : () -> ()\n");
  }
  p->task_values = p->count - first_task_value;
  /* Yield the last value and a random few others (sometimes an argument). */
  int yielded[MAX_VALUES], n = 0;
  for (int i = 0; i < p->count; ++i)
    if ((i == p->count - 1 && !p->values[i].external) || below(&rng, 6) == 0)
      yielded[n++] = i;
  emit(p, "    gpu.yield");
  for (int i = 0; i < n; ++i) {
    emit(p, "%s %s", i ? "," : "", p->values[yielded[i]].name);
    if (!p->values[yielded[i]].external)
      p->values[yielded[i]].last_read = p->intervals;
  }
  if (n)
    emit(p, " :");
  for (int i = 0; i < n; ++i) {
    char t[48];
    type_text(&p->values[yielded[i]], t, sizeof(t));
    emit(p, "%s %s", i ? "," : "", t);
  }
  emit(p, "\n  }) {sym_name = \"random\", function_type = (");
  for (int i = 0; i < args; ++i) {
    char t[48];
    type_text(&p->values[i], t, sizeof(t));
    emit(p, "%s%s", i ? ", " : "", t);
  }
  emit(p, ") -> (");
  for (int i = 0; i < n; ++i) {
    char t[48];
    type_text(&p->values[yielded[i]], t, sizeof(t));
    emit(p, "%s%s", i ? ", " : "", t);
  }
  emit(p, ")} : () -> ()\n}\n");
}

/* ---- diagnostics ------------------------------------------------------------------------------------ */

typedef struct messages {
  char text[4096];
  size_t length;
  int count;
} messages;

static void append(MlirStringRef text, void *user_data) {
  messages *m = user_data;
  size_t room = sizeof(m->text) - 1 - m->length;
  size_t n = text.length < room ? text.length : room;
  memcpy(m->text + m->length, text.data, n);
  m->length += n;
  m->text[m->length] = 0;
}

static MlirLogicalResult capture(MlirDiagnostic diagnostic, void *user_data) {
  messages *m = user_data;
  m->count++;
  mlirDiagnosticPrint(diagnostic, append, m);
  append(mlirStringRefCreateFromCString("\n"), m);
  return mlirLogicalResultSuccess();
}

/* ---- reading the plan ------------------------------------------------------------------------------- */

typedef struct plan {
  MlirOperation arena;
  MlirOperation slots[MAX_VALUES];
  int64_t offset[MAX_VALUES], size[MAX_VALUES];
  int first[MAX_VALUES], last[MAX_VALUES], naive_first[MAX_VALUES], writers[MAX_VALUES];
  int slot_count;
  int slot_of[MAX_VALUES]; /* per task value (generation order) */
} plan;

static bool same_value(MlirValue a, MlirValue b) { return mlirValueEqual(a, b); }

/* Reads arena, slots and binds; matches each bound IR value to the generated value it is (task results in
 * program order). Slot lifetimes come from the generator's own intervals: `first` from the earliest
 * writer, `naive_first` from the latest writer (what a planner starting at a later writer would use). */
static bool read_plan(MlirModule module, const program *p, plan *out) {
  memset(out, 0, sizeof(*out));
  MlirOperation program_op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(program_op, 0));
  MlirValue results[MAX_VALUES];
  int result_count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    latch_op_kind kind = latch_op_kind_of(op);
    if (kind == LATCH_OP_ARENA_ARENA)
      out->arena = op;
    else if (kind == LATCH_OP_ARENA_SLOT && out->slot_count < MAX_VALUES) {
      out->slots[out->slot_count] = op;
      out->offset[out->slot_count] = latch_slot_offset(op);
      out->size[out->slot_count] = latch_slot_size(op);
      out->first[out->slot_count] = 1 << 30;
      out->naive_first[out->slot_count] = -1;
      out->last[out->slot_count] = -1;
      out->slot_count++;
    } else if (latch_op_is_task(op))
      for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && result_count < MAX_VALUES; ++r)
        results[result_count++] = mlirOperationGetResult(op, r);
  }
  if (mlirOperationIsNull(out->arena) || result_count != p->task_values)
    return false;
  for (int i = 0; i < result_count; ++i)
    out->slot_of[i] = -1;
  int externals = p->count - p->task_values;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_kind_of(op) != LATCH_OP_ARENA_BIND)
      continue;
    int value = -1, slot = -1;
    for (int i = 0; i < result_count && value < 0; ++i)
      if (same_value(results[i], latch_bind_value(op)))
        value = i;
    for (int s = 0; s < out->slot_count && slot < 0; ++s)
      if (same_value(mlirOperationGetResult(out->slots[s], 0), latch_bind_slot(op)))
        slot = s;
    if (value < 0 || slot < 0)
      return false;
    out->slot_of[value] = slot;
    const gen_value *v = &p->values[externals + value];
    if (v->written < out->first[slot])
      out->first[slot] = v->written;
    if (v->written > out->naive_first[slot])
      out->naive_first[slot] = v->written;
    if (v->last_read > out->last[slot])
      out->last[slot] = v->last_read;
    out->writers[slot]++;
  }
  for (int i = 0; i < result_count; ++i)
    if (out->slot_of[i] < 0)
      return false;
  return true;
}

static bool overlap(int a0, int a1, int b0, int b1) { return a0 <= b1 && b0 <= a1; }

/* ---- the run ---------------------------------------------------------------------------------------- */

typedef struct totals {
  int parse_failures, plan_failures, unreadable, size_below_bound, own_check_violations;
  int in_place_true, values, slots, multi_writer_slots;
  int mutations, mutations_rejected, earliest_mutations, earliest_rejected;
  int64_t arena_bytes, bound_bytes;
} totals;

static MlirPassManager pipeline(MlirContext context, const char *text) {
  MlirPassManager pm = mlirPassManagerCreate(context);
  char error[256];
  if (!latch_pipeline_parse(pm, text, error, sizeof(error))) {
    printf("pipeline error: %s\n", error);
    mlirPassManagerDestroy(pm);
    return (MlirPassManager){NULL};
  }
  return pm;
}

/* Moves slot `moved` to the offset of slot `onto` and runs the checker: true when it rejects the plan
 * with a message about slots sharing bytes. The module is spoilt afterwards. */
static bool planted_defect_rejected(MlirContext context, MlirModule module, MlirPassManager verify, plan *pl,
                                    int moved, int onto, messages *m) {
  mlirOperationSetAttributeByName(pl->slots[moved], mlirStringRefCreateFromCString("offset"),
                                  latch_attr_get_int(context, pl->offset[onto]));
  m->length = 0;
  m->count = 0;
  m->text[0] = 0;
  MlirLogicalResult result = mlirPassManagerRunOnOp(verify, mlirModuleGetOperation(module));
  return mlirLogicalResultIsFailure(result) && strstr(m->text, "share bytes") != NULL;
}

/* `capi-arena-random --print SEED` prints the program of one seed (to replay a failure with latch-opt). */
int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--print") == 0) {
    program *one = calloc(1, sizeof(*one));
    one->text = malloc(TEXT_SIZE);
    generate(one, strtoull(argv[2], NULL, 10) * 7919);
    fwrite(one->text, 1, one->length, stdout);
    free(one->text);
    free(one);
    return 0;
  }
  MlirContext context = latch_context_create();
  if (mlirContextIsNull(context))
    return 1;
  messages m = {.length = 0};
  MlirDiagnosticHandlerID handler = mlirContextAttachDiagnosticHandler(context, capture, &m, NULL);
  MlirPassManager plan_in_place =
      pipeline(context, "builtin.module(latch-plan-arena,latch-verify-arena)");
  MlirPassManager plan_separate =
      pipeline(context, "builtin.module(latch-plan-arena{in-place=false},latch-verify-arena)");
  MlirPassManager verify = pipeline(context, "builtin.module(latch-verify-arena)");
  if (mlirPassManagerIsNull(plan_in_place) || mlirPassManagerIsNull(plan_separate) || mlirPassManagerIsNull(verify))
    return 1;

  program *p = calloc(1, sizeof(*p));
  p->text = malloc(TEXT_SIZE);
  plan *pl = calloc(1, sizeof(*pl));
  totals t = {0};
  int reported = 0;
  for (uint64_t seed = 1; seed <= PROGRAMS; ++seed) {
    generate(p, seed * 7919);
    bool in_place = seed % 4 != 0;
    t.in_place_true += in_place;
    m.length = 0;
    m.count = 0;
    m.text[0] = 0;
    MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreate(p->text, p->length));
    if (mlirModuleIsNull(module)) {
      if (reported++ < 3)
        printf("seed %" PRIu64 ": parse failure\n%s\n%s\n", seed, m.text, p->text);
      t.parse_failures++;
      continue;
    }
    MlirLogicalResult result = mlirPassManagerRunOnOp(in_place ? plan_in_place : plan_separate,
                                                      mlirModuleGetOperation(module));
    if (mlirLogicalResultIsFailure(result)) {
      if (reported++ < 3)
        printf("seed %" PRIu64 " (in-place=%d): plan or check failed\n%s\n%s\n", seed, in_place, m.text, p->text);
      t.plan_failures++;
      mlirModuleDestroy(module);
      continue;
    }
    if (!read_plan(module, p, pl)) {
      t.unreadable++;
      mlirModuleDestroy(module);
      continue;
    }
    int64_t size = latch_attr_int(pl->arena, "size", -1), bound = latch_attr_int(pl->arena, "lower_bound", -1);
    t.size_below_bound += size < bound || bound < 0;
    t.arena_bytes += size;
    t.bound_bytes += bound;
    t.values += p->task_values;
    t.slots += pl->slot_count;
    for (int s = 0; s < pl->slot_count; ++s)
      t.multi_writer_slots += pl->writers[s] > 1;

    /* The test's own account: slots live together must not share bytes. Then pick a defect to plant:
     * preferably a pair that only the earliest-writer rule separates. */
    int moved = -1, onto = -1, earliest_moved = -1, earliest_onto = -1;
    for (int a = 0; a < pl->slot_count; ++a)
      for (int b = 0; b < pl->slot_count; ++b) {
        if (a == b || !overlap(pl->first[a], pl->last[a], pl->first[b], pl->last[b]))
          continue;
        if (a < b && pl->offset[a] < pl->offset[b] + pl->size[b] && pl->offset[b] < pl->offset[a] + pl->size[a])
          t.own_check_violations++;
        if (pl->offset[a] + pl->size[b] > size)
          continue; /* b moved onto a must stay inside the arena */
        if (moved < 0) {
          moved = b;
          onto = a;
        }
        if (earliest_moved < 0 && pl->writers[a] > 1 &&
            !overlap(pl->naive_first[a], pl->last[a], pl->first[b], pl->last[b])) {
          earliest_moved = b;
          earliest_onto = a;
        }
      }
    if (earliest_moved >= 0) {
      t.earliest_mutations++;
      t.mutations++;
      bool rejected = planted_defect_rejected(context, module, verify, pl, earliest_moved, earliest_onto, &m);
      t.earliest_rejected += rejected;
      t.mutations_rejected += rejected;
    } else if (moved >= 0) {
      t.mutations++;
      t.mutations_rejected += planted_defect_rejected(context, module, verify, pl, moved, onto, &m);
    }
    mlirModuleDestroy(module);
  }

  printf("arena-random: %d programs (%d with in-place writes), %d values in %d slots, %d slots with several writers\n",
         PROGRAMS, t.in_place_true, t.values, t.slots, t.multi_writer_slots);
  printf("parse failures: %d\n", t.parse_failures);
  printf("plan or check failures: %d\n", t.plan_failures);
  printf("plans that do not bind every value: %d\n", t.unreadable);
  printf("arenas smaller than their lower bound: %d\n", t.size_below_bound);
  printf("slots live together sharing bytes (the test's own lifetimes): %d\n", t.own_check_violations);
  printf("arena bytes over lower bound: %.3f\n", t.bound_bytes ? (double)t.arena_bytes / (double)t.bound_bytes : 0.0);
  printf("planted defects rejected: %d of %d\n", t.mutations_rejected, t.mutations);
  printf("planted earliest-writer defects rejected: %d of %d\n", t.earliest_rejected, t.earliest_mutations);
  // CHECK: arena-random: 1000 programs (750 with in-place writes), {{[0-9]+}} values in {{[0-9]+}} slots, {{[1-9][0-9]*}} slots with several writers
  // CHECK-NEXT: parse failures: 0
  // CHECK-NEXT: plan or check failures: 0
  // CHECK-NEXT: plans that do not bind every value: 0
  // CHECK-NEXT: arenas smaller than their lower bound: 0
  // CHECK-NEXT: slots live together sharing bytes (the test's own lifetimes): 0
  // CHECK-NEXT: arena bytes over lower bound: {{[0-9.]+}}
  // CHECK-NEXT: planted defects rejected: [[N:[1-9][0-9]*]] of [[N]]
  // CHECK-NEXT: planted earliest-writer defects rejected: [[E:[1-9][0-9]*]] of [[E]]

  free(pl);
  free(p->text);
  free(p);
  mlirPassManagerDestroy(plan_in_place);
  mlirPassManagerDestroy(plan_separate);
  mlirPassManagerDestroy(verify);
  mlirContextDetachDiagnosticHandler(context, handler);
  mlirContextDestroy(context);
  return 0;
}
