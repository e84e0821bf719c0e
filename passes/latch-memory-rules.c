/* latch-memory-rules.c - rematerialisation: opt-in rules that choose which saved forward values the
 * backward recomputes instead of keeping.
 *
 * Runs on the task programs of a module (every func.func with backward tasks: @f_grad, @f_update),
 * before latch-form-intervals. A task op without `task.phase` is a forward task; a SAVED value is a
 * result of a forward task that a backward task (`task.phase = "backward"`) reads, so it lives from
 * its forward producer to its last backward reader. For each saved value V, in program order, whose
 * producer P matches a rule and whose size is at least `min-bytes`, the pass clones P right before the
 * first backward reader of V, marks the clone `task.phase = "recompute"`, and makes every backward use
 * of V use the clone instead; forward uses keep V, which now dies at its last forward use. The clone
 * reads the same operand values, so its results are bitwise those of P.
 *
 * Rules (`recompute=`, comma-separated; empty, the default, changes nothing):
 *   - a task op kind without its "task." prefix (rmsnorm, map, convert, softmax, rope, reshape,
 *     transpose, gather_rows, embedding, attention, ...); task.adamw is refused (never recomputed);
 *   - `norm` = rmsnorm;
 *   - `swiglu` = the SwiGLU product silu(a) * b: a task.map with exactly two inputs, both of the
 *     output's shape (rank >= 1, no broadcast) and exactly one output, whose body yields
 *     `arith.mulf(S, b)` or `arith.mulf(b, S)` where b is one block argument and S is silu of the other
 *     block argument a, written as `arith.divf(a, D)` or `arith.mulf(a, arith.divf(1.0, D))` (either
 *     operand order of the mulf), with D = `arith.addf(1.0, math.exp(arith.negf(a)))` (either operand
 *     order of the addf) and 1.0 an `arith.constant` (in the body or above the op). This is what
 *     latch_s_silu and latch_s_mul build (dialects/builder.c); other maps with exp or divf (softmax
 *     pieces, routing-weight normalisation) do not match;
 *   - `cheap` = map, convert, reshape, transpose.
 * A task.convert, task.reshape or task.transpose of a value that matches a rule matches that rule too
 * (its copy in another dtype or layout IS that value: the bf16 copy of a norm output that a backward
 * matmul reads counts as a norm output, and recomputing it recomputes the norm as well).
 *
 * Chains: when a clone's operand is a result of a forward task that matches a rule, that task is
 * recomputed too (the clone would otherwise keep the operand alive for the backward), whatever its
 * size; each forward task is recomputed at most once per program (once per backward reader in
 * absorbed mode). Never recomputed: backward and optimizer tasks, task.adamw, and tasks with an operand
 * produced by an optimizer task.
 *
 * `absorbed=true`: every clone also carries `task.fused = "prologue"`: it runs inside the tiles of the
 * backward task that consumes it (the scheduler places it in that task's interval instead of one of its
 * own). A prologue belongs to one consumer, so each backward reader gets its own copy (and its own copy
 * of a chain), placed right before it.
 *
 * Each program with backward tasks gets `task.recomputed = N : i64`: the number of forward values
 * (results of forward tasks) whose readers now read a recomputed copy. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../support/ptrmap.h"
#include "pass.h"

/* ---- options ---------------------------------------------------------------------------------- */

typedef struct memory_rules_options {
  char recompute[LATCH_OPTION_STRING_MAX];
  int64_t min_bytes;
  bool absorbed;
} memory_rules_options;

static const latch_pass_option option_table[] = {
    {"recompute", LATCH_OPTION_STRING, "",
     "comma-separated rules: task op kinds (rmsnorm, map, convert, ...) or groups norm, swiglu, cheap",
     offsetof(memory_rules_options, recompute)},
    {"min-bytes", LATCH_OPTION_INT, "0", "recompute only saved values of at least this many bytes",
     offsetof(memory_rules_options, min_bytes)},
    {"absorbed", LATCH_OPTION_BOOL, "false",
     "fuse each recomputation into the backward task that reads it (task.fused = \"prologue\", one copy per reader)",
     offsetof(memory_rules_options, absorbed)},
};

/* The parsed rules: which op kinds match, and whether SwiGLU maps match. */
typedef struct rule_set {
  bool kind[LATCH_OP_COUNT];
  bool swiglu;
  bool any;
} rule_set;

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

/* Parses the `recompute` list; reports each bad entry at `loc` and returns the number of errors. */
static int parse_rules(const char *text, MlirLocation loc, rule_set *out_rules) {
  memset(out_rules, 0, sizeof(*out_rules));
  if (!text[0])
    return 0;
  int errors = 0;
  for (const char *p = text;; ++p) {
    const char *end = strchr(p, ',');
    size_t length = end ? (size_t)(end - p) : strlen(p);
    char message[256];
    latch_op_kind kind;
    if (length == 0) {
      mlirEmitError(loc, "latch-memory-rules: empty rule name in 'recompute' (rules are separated by single commas)");
      errors++;
    } else if (length == 4 && memcmp(p, "norm", 4) == 0) {
      out_rules->kind[LATCH_OP_TASK_RMSNORM] = true;
    } else if (length == 6 && memcmp(p, "swiglu", 6) == 0) {
      out_rules->swiglu = true;
    } else if (length == 5 && memcmp(p, "cheap", 5) == 0) {
      out_rules->kind[LATCH_OP_TASK_MAP] = out_rules->kind[LATCH_OP_TASK_CONVERT] = true;
      out_rules->kind[LATCH_OP_TASK_RESHAPE] = out_rules->kind[LATCH_OP_TASK_TRANSPOSE] = true;
    } else if ((kind = latch_task_kind_named(p, length)) == LATCH_OP_TASK_ADAMW) {
      mlirEmitError(loc, "latch-memory-rules: rule 'adamw' is not allowed: the optimizer step is never recomputed");
      errors++;
    } else if (kind != LATCH_OP_UNKNOWN) {
      out_rules->kind[kind] = true;
    } else {
      snprintf(message, sizeof(message),
               "latch-memory-rules: unknown rule '%.*s' in 'recompute' (a task op kind such as rmsnorm, "
               "or one of the groups norm, swiglu, cheap)",
               (int)length, p);
      mlirEmitError(loc, message);
      errors++;
    }
    if (!end)
      break;
    p = end;
  }
  for (int kind = 0; kind < LATCH_OP_COUNT; ++kind)
    out_rules->any |= out_rules->kind[kind];
  out_rules->any |= out_rules->swiglu;
  return errors;
}

/* ---- SwiGLU recognition (see the header) ------------------------------------------------------ */

static MlirOperation defining_op(MlirValue value) {
  return mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value) : (MlirOperation){NULL};
}

/* True when `value` is the result of op `name` with two operands; returns them. */
static bool binary(MlirValue value, const char *name, MlirValue *out_lhs, MlirValue *out_rhs) {
  MlirOperation op = defining_op(value);
  if (mlirOperationIsNull(op) || !latch_op_is(op, name) || mlirOperationGetNumOperands(op) != 2)
    return false;
  *out_lhs = mlirOperationGetOperand(op, 0);
  *out_rhs = mlirOperationGetOperand(op, 1);
  return true;
}

static bool unary(MlirValue value, const char *name, MlirValue *out_operand) {
  MlirOperation op = defining_op(value);
  if (mlirOperationIsNull(op) || !latch_op_is(op, name) || mlirOperationGetNumOperands(op) != 1)
    return false;
  *out_operand = mlirOperationGetOperand(op, 0);
  return true;
}

static bool is_one(MlirValue value) {
  MlirOperation op = defining_op(value);
  if (mlirOperationIsNull(op) || !latch_op_is(op, "arith.constant"))
    return false;
  MlirAttribute attr = mlirOperationGetAttributeByName(op, str("value"));
  return !mlirAttributeIsNull(attr) && mlirAttributeIsAFloat(attr) && mlirFloatAttrGetValueDouble(attr) == 1.0;
}

/* D = 1.0 + exp(-a), either order. */
static bool is_silu_denominator(MlirValue d, MlirValue a) {
  MlirValue x, y, e, n;
  if (!binary(d, "arith.addf", &x, &y))
    return false;
  if (!is_one(x)) {
    MlirValue t = x;
    x = y;
    y = t;
  }
  return is_one(x) && unary(y, "math.exp", &e) && unary(e, "arith.negf", &n) && mlirValueEqual(n, a);
}

/* s = a / D, or a * (1.0 / D) in either order. */
static bool is_silu_of(MlirValue s, MlirValue a) {
  MlirValue x, y, one, d;
  if (binary(s, "arith.divf", &x, &y))
    return mlirValueEqual(x, a) && is_silu_denominator(y, a);
  if (!binary(s, "arith.mulf", &x, &y))
    return false;
  for (int swap = 0; swap < 2; ++swap) {
    MlirValue lhs = swap ? y : x, rhs = swap ? x : y;
    if (mlirValueEqual(lhs, a) && binary(rhs, "arith.divf", &one, &d) && is_one(one) && is_silu_denominator(d, a))
      return true;
  }
  return false;
}

static bool same_shape(MlirType a, MlirType b) {
  if (!mlirTypeIsARankedTensor(a) || !mlirTypeIsARankedTensor(b) ||
      mlirShapedTypeGetRank(a) != mlirShapedTypeGetRank(b))
    return false;
  for (intptr_t i = 0, rank = mlirShapedTypeGetRank(a); i < rank; ++i)
    if (mlirShapedTypeGetDimSize(a, i) != mlirShapedTypeGetDimSize(b, i))
      return false;
  return true;
}

static bool is_swiglu(MlirOperation map) {
  if (mlirOperationGetNumOperands(map) != 2 || mlirOperationGetNumResults(map) != 1)
    return false;
  MlirType out = mlirValueGetType(mlirOperationGetResult(map, 0));
  if (!mlirTypeIsARankedTensor(out) || mlirShapedTypeGetRank(out) < 1)
    return false;
  for (intptr_t i = 0; i < 2; ++i)
    if (!same_shape(mlirValueGetType(mlirOperationGetOperand(map, i)), out))
      return false;
  MlirBlock body = latch_map_body(map);
  if (mlirBlockIsNull(body) || mlirBlockGetNumArguments(body) != 2)
    return false;
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(yield) || !latch_op_is(yield, "gpu.yield") || mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue x, y;
  if (!binary(mlirOperationGetOperand(yield, 0), "arith.mulf", &x, &y))
    return false;
  for (int gate = 0; gate < 2; ++gate) {
    MlirValue a = mlirBlockGetArgument(body, gate), b = mlirBlockGetArgument(body, 1 - gate);
    if ((mlirValueEqual(y, b) && is_silu_of(x, a)) || (mlirValueEqual(x, b) && is_silu_of(y, a)))
      return true;
  }
  return false;
}

/* ---- one program ------------------------------------------------------------------------------ */

typedef enum phase { PHASE_OTHER, PHASE_FORWARD, PHASE_BACKWARD, PHASE_OPTIMIZER } phase;

enum { NO_TARGET = -1 };

typedef struct program {
  MlirContext context;
  MlirBlock block;
  const rule_set *rules;
  const memory_rules_options *options;
  intptr_t count;          /* top-level ops */
  MlirOperation *ops;      /* top-level ops in program order (before any clone is inserted) */
  phase *phases;
  bool *candidate;         /* a forward task the rules let the backward recompute */
  intptr_t *target;        /* non-absorbed: index of the op its clone goes before; NO_TARGET */
  MlirOperation *clone;    /* the op's current clone (non-absorbed: the one; absorbed: for `owner`) */
  intptr_t *clone_owner;   /* absorbed: index of the reader the clone belongs to */
  uint32_t *recomputed;    /* bit k: result k of the op is read through a clone somewhere */
  latch_ptrmap index;      /* top-level op -> its index + 1 */
} program;

static phase phase_of(MlirOperation op) {
  if (!latch_op_is_task(op))
    return PHASE_OTHER;
  MlirAttribute attr = mlirOperationGetAttributeByName(op, str("task.phase"));
  if (mlirAttributeIsNull(attr))
    return PHASE_FORWARD;
  if (!mlirAttributeIsAString(attr))
    return PHASE_OTHER;
  MlirStringRef value = mlirStringAttrGetValue(attr);
  /* Clones of an earlier run are backward work too (the pass may run again). */
  if (latch_ref_is(value, "backward") || latch_ref_is(value, "recompute"))
    return PHASE_BACKWARD;
  if (latch_ref_is(value, "optimizer"))
    return PHASE_OPTIMIZER;
  return PHASE_OTHER;
}

/* The index of the top-level op that is or contains `op`, or -1 (outside the program's block). */
static intptr_t top_level_index(const program *p, MlirOperation op) {
  while (!mlirOperationIsNull(op)) {
    void *entry = latch_ptrmap_get(&p->index, op.ptr);
    if (entry)
      return (intptr_t)entry - 1;
    if (mlirBlockEqual(mlirOperationGetBlock(op), p->block))
      return -1; /* a clone: not indexed */
    op = mlirOperationGetParentOperation(op);
  }
  return -1;
}

/* The index of the top-level op defining `value`, or -1 (block argument, nested value). */
static intptr_t producer_index(const program *p, MlirValue value) {
  MlirOperation op = defining_op(value);
  if (mlirOperationIsNull(op))
    return -1;
  void *entry = latch_ptrmap_get(&p->index, op.ptr);
  return entry ? (intptr_t)entry - 1 : -1;
}

static int64_t saturating_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* Bytes of a tensor value (elements x dtype size), or -1 when its type does not say. */
static int64_t value_bytes(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return -1;
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t size;
  if (mlirTypeIsABF16(element))
    size = 2;
  else if (mlirTypeIsAF32(element))
    size = 4;
  else if (mlirTypeIsAF64(element))
    size = 8;
  else if (mlirTypeIsAInteger(element))
    size = ((int64_t)mlirIntegerTypeGetWidth(element) + 7) / 8;
  else
    return -1;
  int64_t bytes = size;
  for (intptr_t i = 0, rank = mlirShapedTypeGetRank(type); i < rank; ++i)
    bytes = saturating_mul(bytes, mlirShapedTypeGetDimSize(type, i));
  return bytes;
}

static bool is_view_or_cast(latch_op_kind kind) {
  return kind == LATCH_OP_TASK_CONVERT || kind == LATCH_OP_TASK_RESHAPE || kind == LATCH_OP_TASK_TRANSPOSE;
}

/* Whether forward task `i` may be recomputed under the rules. Called for i = 0, 1, ... in order:
 * operands are defined earlier in the block, so the verdict on a cast's or view's operand is known. */
static bool decide_candidate(const program *p, intptr_t i) {
  if (p->phases[i] != PHASE_FORWARD)
    return false;
  MlirOperation op = p->ops[i];
  latch_op_kind kind = latch_op_kind_of(op);
  if (kind == LATCH_OP_UNKNOWN || kind == LATCH_OP_TASK_ADAMW)
    return false;
  for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
    intptr_t from = producer_index(p, mlirOperationGetOperand(op, k));
    if (from >= 0 && p->phases[from] == PHASE_OPTIMIZER)
      return false;
  }
  if (p->rules->kind[kind] || (p->rules->swiglu && kind == LATCH_OP_TASK_MAP && is_swiglu(op)))
    return true;
  if (!is_view_or_cast(kind) || mlirOperationGetNumOperands(op) != 1)
    return false;
  intptr_t from = producer_index(p, mlirOperationGetOperand(op, 0));
  return from >= 0 && from < i && p->candidate[from];
}

static bool is_candidate(const program *p, intptr_t i) { return i >= 0 && p->candidate[i]; }

/* True when some use of a result of op `i` is in a backward task; writes the earliest one's index. */
static bool first_backward_reader(const program *p, intptr_t i, intptr_t *out_index) {
  bool found = false;
  MlirOperation op = p->ops[i];
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, r)); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      intptr_t reader = top_level_index(p, mlirOpOperandGetOwner(use));
      if (reader >= 0 && p->phases[reader] == PHASE_BACKWARD && (!found || reader < *out_index)) {
        *out_index = reader;
        found = true;
      }
    }
  return found;
}

/* True when a backward reader of some result of op `i` that is at least min-bytes large exists. */
static bool is_saved_root(const program *p, intptr_t i) {
  MlirOperation op = p->ops[i];
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r) {
    MlirValue value = mlirOperationGetResult(op, r);
    int64_t bytes = value_bytes(value);
    if (p->options->min_bytes > 0 && (bytes < 0 || bytes < p->options->min_bytes))
      continue;
    for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      intptr_t reader = top_level_index(p, mlirOpOperandGetOwner(use));
      if (reader >= 0 && p->phases[reader] == PHASE_BACKWARD)
        return true;
    }
  }
  return false;
}

static bool is_root_value(const program *p, MlirValue value) {
  int64_t bytes = value_bytes(value);
  return p->options->min_bytes <= 0 || (bytes >= 0 && bytes >= p->options->min_bytes);
}

/* Clones op `i` before `anchor` for `owner` (0 when not absorbed, else the reader's index): operands
 * that are results of ops already cloned for the same owner read those clones instead. */
static MlirOperation make_clone(program *p, intptr_t i, MlirOperation anchor, intptr_t owner) {
  MlirOperation copy = mlirOperationClone(p->ops[i]);
  mlirOperationSetAttributeByName(copy, str("task.phase"), latch_attr_get_string(p->context, "recompute"));
  if (p->options->absorbed)
    mlirOperationSetAttributeByName(copy, str("task.fused"), latch_attr_get_string(p->context, "prologue"));
  for (intptr_t k = 0, n = mlirOperationGetNumOperands(copy); k < n; ++k) {
    MlirValue operand = mlirOperationGetOperand(copy, k);
    intptr_t from = producer_index(p, operand);
    if (from >= 0 && !mlirOperationIsNull(p->clone[from]) && p->clone_owner[from] == owner) {
      intptr_t r = mlirOpResultGetResultNumber(operand);
      mlirOperationSetOperand(copy, k, mlirOperationGetResult(p->clone[from], r));
      p->recomputed[from] |= 1u << (r < 31 ? r : 31);
    }
  }
  mlirBlockInsertOwnedOperationBefore(p->block, anchor, copy);
  p->clone[i] = copy;
  p->clone_owner[i] = owner;
  return copy;
}

/* Non-absorbed: one clone per recomputed task, placed before the earliest backward task that needs it
 * (directly, or through the clone of a task that reads it). */
static void recompute_shared(program *p) {
  /* Roots and their first readers; then, in reverse program order, chains: the producers of a
   * recomputed task's operands that are candidates are recomputed too, no later than it. */
  for (intptr_t i = 0; i < p->count; ++i) {
    p->target[i] = NO_TARGET;
    if (is_candidate(p, i) && is_saved_root(p, i))
      first_backward_reader(p, i, &p->target[i]);
  }
  for (intptr_t i = p->count - 1; i >= 0; --i) {
    if (p->target[i] == NO_TARGET)
      continue;
    intptr_t reader;
    if (first_backward_reader(p, i, &reader) && reader < p->target[i])
      p->target[i] = reader;
    MlirOperation op = p->ops[i];
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
      intptr_t from = producer_index(p, mlirOperationGetOperand(op, k));
      if (from >= 0 && is_candidate(p, from) && (p->target[from] == NO_TARGET || p->target[i] < p->target[from]))
        p->target[from] = p->target[i];
    }
  }
  /* Clones in program order (each before its target, after the clones it reads), then every backward
   * use of a recomputed task's results goes to its clone. */
  for (intptr_t i = 0; i < p->count; ++i) {
    if (p->target[i] == NO_TARGET)
      continue;
    MlirOperation copy = make_clone(p, i, p->ops[p->target[i]], 0);
    MlirOperation op = p->ops[i];
    for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r) {
      MlirValue value = mlirOperationGetResult(op, r);
      /* Collect first: changing an operand unlinks it from the use list being walked. */
      MlirOpOperand use = mlirValueGetFirstUse(value);
      while (!mlirOpOperandIsNull(use)) {
        MlirOpOperand next = mlirOpOperandGetNextUse(use);
        MlirOperation owner = mlirOpOperandGetOwner(use);
        intptr_t reader = top_level_index(p, owner);
        if (reader >= 0 && p->phases[reader] == PHASE_BACKWARD) {
          mlirOperationSetOperand(owner, (intptr_t)mlirOpOperandGetOperandNumber(use), mlirOperationGetResult(copy, r));
          p->recomputed[i] |= 1u << (r < 31 ? r : 31);
        }
        use = next;
      }
    }
  }
}

/* Marks op `i` and, through its candidate operands, its chain as needed by reader `owner`
 * (`needed[j] == owner`); explicit stack, since chains of views can be long. */
static void mark_chain(program *p, intptr_t i, intptr_t owner, intptr_t *needed, intptr_t *stack) {
  intptr_t depth = 0;
  if (needed[i] == owner)
    return;
  needed[i] = owner;
  stack[depth++] = i;
  while (depth > 0) {
    MlirOperation op = p->ops[stack[--depth]];
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
      intptr_t from = producer_index(p, mlirOperationGetOperand(op, k));
      if (from >= 0 && needed[from] != owner && is_candidate(p, from)) {
        needed[from] = owner;
        stack[depth++] = from; /* each op is pushed at most once per owner: depth <= count */
      }
    }
  }
}

/* Absorbed: each backward reader gets its own copies, right before it. */
static bool recompute_absorbed(program *p) {
  intptr_t *needed = malloc((size_t)p->count * sizeof(intptr_t));
  intptr_t *stack = malloc((size_t)p->count * sizeof(intptr_t));
  if (!needed || !stack) {
    free(needed);
    free(stack);
    return false;
  }
  for (intptr_t i = 0; i < p->count; ++i)
    needed[i] = -1;
  for (intptr_t u = 0; u < p->count; ++u) {
    if (p->phases[u] != PHASE_BACKWARD)
      continue;
    MlirOperation reader = p->ops[u];
    bool any = false;
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(reader); k < n; ++k) {
      MlirValue operand = mlirOperationGetOperand(reader, k);
      intptr_t from = producer_index(p, operand);
      if (from >= 0 && is_candidate(p, from) && is_root_value(p, operand)) {
        mark_chain(p, from, u, needed, stack);
        any = true;
      }
    }
    if (!any)
      continue;
    for (intptr_t i = 0; i < u; ++i)
      if (needed[i] == u)
        make_clone(p, i, reader, u);
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(reader); k < n; ++k) {
      MlirValue operand = mlirOperationGetOperand(reader, k);
      intptr_t from = producer_index(p, operand);
      if (from >= 0 && needed[from] == u && p->clone_owner[from] == u) {
        intptr_t r = mlirOpResultGetResultNumber(operand);
        mlirOperationSetOperand(reader, k, mlirOperationGetResult(p->clone[from], r));
        p->recomputed[from] |= 1u << (r < 31 ? r : 31);
      }
    }
  }
  free(needed);
  free(stack);
  return true;
}

static int popcount(uint32_t bits) {
  int count = 0;
  for (; bits; bits &= bits - 1)
    count++;
  return count;
}

static MlirLogicalResult rewrite(MlirOperation func, const rule_set *rules, const memory_rules_options *options) {
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(block))
    return mlirLogicalResultSuccess();
  program p = {.context = mlirOperationGetContext(func), .block = block, .rules = rules, .options = options};
  bool any_backward = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    p.count++;
    any_backward |= phase_of(op) == PHASE_BACKWARD;
  }
  if (!any_backward)
    return mlirLogicalResultSuccess();

  size_t n = (size_t)p.count;
  p.ops = calloc(n, sizeof(*p.ops));
  p.phases = calloc(n, sizeof(*p.phases));
  p.candidate = calloc(n, sizeof(*p.candidate));
  p.target = calloc(n, sizeof(*p.target));
  p.clone = calloc(n, sizeof(*p.clone));
  p.clone_owner = calloc(n, sizeof(*p.clone_owner));
  p.recomputed = calloc(n, sizeof(*p.recomputed));
  bool ok = p.ops && p.phases && p.candidate && p.target && p.clone && p.clone_owner && p.recomputed &&
            latch_ptrmap_initialize(&p.index);
  if (ok) {
    intptr_t i = 0;
    for (MlirOperation op = mlirBlockGetFirstOperation(block); ok && !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op), ++i) {
      p.ops[i] = op;
      p.phases[i] = phase_of(op);
      ok = latch_ptrmap_put(&p.index, op.ptr, (void *)(i + 1));
    }
    for (i = 0; ok && i < p.count; ++i)
      p.candidate[i] = decide_candidate(&p, i);
  }
  if (ok) {
    if (options->absorbed)
      ok = recompute_absorbed(&p);
    else
      recompute_shared(&p);
  }
  int64_t recomputed = 0;
  for (intptr_t i = 0; ok && i < p.count; ++i)
    recomputed += popcount(p.recomputed[i]);
  if (ok)
    mlirOperationSetDiscardableAttributeByName(func, str("task.recomputed"), latch_attr_get_int(p.context, recomputed));
  else
    mlirEmitError(mlirOperationGetLocation(func), "latch-memory-rules: out of memory");
  if (p.index.keys)
    latch_ptrmap_deinitialize(&p.index);
  free(p.ops);
  free(p.phases);
  free(p.candidate);
  free(p.target);
  free(p.clone);
  free(p.clone_owner);
  free(p.recomputed);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

static MlirLogicalResult run(MlirOperation module, const void *opaque_options) {
  const memory_rules_options *options = opaque_options;
  MlirLocation loc = mlirOperationGetLocation(module);
  rule_set rules;
  int errors = parse_rules(options->recompute, loc, &rules);
  if (options->min_bytes < 0) {
    mlirEmitError(loc, "latch-memory-rules: option 'min-bytes' must be >= 0");
    errors++;
  }
  if (errors)
    return mlirLogicalResultFailure();
  if (!rules.any)
    return mlirLogicalResultSuccess(); /* opt-in: no rules, no change */
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (latch_op_is(op, "func.func") && mlirLogicalResultIsFailure(rewrite(op, &rules, options)))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

const latch_pass_info latch_memory_rules_pass = {
    .name = "latch-memory-rules",
    .summary = "Rematerialisation: recompute chosen saved forward values in the backward instead of keeping them",
    .anchor = "builtin.module",
    .options = option_table,
    .option_count = sizeof(option_table) / sizeof(option_table[0]),
    .options_size = sizeof(memory_rules_options),
    .run = run,
};
