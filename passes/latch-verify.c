/* latch-verify.c - the semantic verifier of task programs: every rule that IRDL cannot express
 * (shapes, dtypes, attribute ranges), one clear message per rule. The rules and their messages are
 * listed at the end of docs/task-dialect.md.
 *
 * Most rules are rows of four tables: attribute kinds (from the op descriptors of ops.c), per-value rank
 * and dtype rules, attribute ranges, and relations between two values or a value and an attribute. What
 * no table can say (matmul transposes, map bodies, reduce axes, permutations) is one function per op. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "pass.h"

typedef struct verifier {
  int errors;
} verifier;

/* Reports a printf-style `format` at `op`'s location, prefixed with the op name, and counts it;
 * verification goes on so that one run shows every problem. */
static void report(verifier *v, MlirOperation op, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void report(verifier *v, MlirOperation op, const char *format, ...) {
  char message[448], text[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(text, sizeof(text), "'%.*s' %s", (int)name.length, name.data, message);
  mlirEmitError(mlirOperationGetLocation(op), text);
  v->errors++;
}

/* A short text for a message (a type, a shape, a value name), returned by value so that calls nest in
 * report's arguments; longer texts are cut. */
typedef struct text {
  char s[96];
} text;

static void appendf(text *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void appendf(text *t, const char *format, ...) {
  size_t used = strlen(t->s);
  va_list args;
  va_start(args, format);
  vsnprintf(t->s + used, sizeof(t->s) - used, format, args);
  va_end(args);
}

static void append_piece(MlirStringRef piece, void *user_data) {
  appendf(user_data, "%.*s", (int)piece.length, piece.data);
}

static text type_text(MlirType type) {
  text t = {""};
  mlirTypePrint(type, append_piece, &t);
  return t;
}

static text attr_text(MlirAttribute attr) {
  text t = {""};
  if (mlirAttributeIsNull(attr))
    appendf(&t, "nothing");
  else
    mlirAttributePrint(attr, append_piece, &t);
  return t;
}

static MlirType type_of(MlirValue value) { return mlirValueGetType(value); }
static MlirType element_of(MlirValue value) { return mlirShapedTypeGetElementType(type_of(value)); }
static int64_t rank_of(MlirType type) { return mlirShapedTypeGetRank(type); }
static int64_t dim(MlirType type, intptr_t i) { return mlirShapedTypeGetDimSize(type, i); }

static text shape_text(MlirType type) {
  text t = {"["};
  for (intptr_t i = 0; i < rank_of(type); ++i)
    appendf(&t, "%s%lld", i ? ", " : "", (long long)dim(type, i));
  appendf(&t, "]");
  return t;
}

static bool same_shape(MlirType a, MlirType b) {
  if (rank_of(a) != rank_of(b))
    return false;
  for (intptr_t i = 0; i < rank_of(a); ++i)
    if (dim(a, i) != dim(b, i))
      return false;
  return true;
}

static uint64_t element_count(MlirType type) {
  uint64_t count = 1;
  for (intptr_t i = 0; i < rank_of(type); ++i)
    count *= (uint64_t)dim(type, i);
  return count;
}

/* Operands are side 0, results side 1. */
static intptr_t value_count(MlirOperation op, int side) {
  return side ? mlirOperationGetNumResults(op) : mlirOperationGetNumOperands(op);
}

static MlirValue value_at(MlirOperation op, int side, intptr_t i) {
  return side ? mlirOperationGetResult(op, i) : mlirOperationGetOperand(op, i);
}

/* The name of operand/result `i` as the IRDL definition gives it; `ins[2]` for variadic ones. */
static text value_name(const latch_op_desc *desc, int side, intptr_t i) {
  const char *const *names = side ? desc->result_names : desc->operand_names;
  text t = {""};
  if ((side ? desc->result_count : desc->operand_count) < 0)
    appendf(&t, "%s[%ld]", names[0], (long)i);
  else
    appendf(&t, "%s", names[i]);
  return t;
}

/* The operand or result that `desc` names `name`. */
static bool find_value(MlirOperation op, const latch_op_desc *desc, const char *name, MlirValue *out) {
  for (int side = 0; side < 2; ++side) {
    int count = side ? desc->result_count : desc->operand_count;
    const char *const *names = side ? desc->result_names : desc->operand_names;
    for (int i = 0; i < count; ++i)
      if (strcmp(names[i], name) == 0) {
        *out = value_at(op, side, i);
        return true;
      }
  }
  return false;
}

static MlirType named_type(MlirOperation op, const latch_op_desc *desc, const char *name) {
  MlirValue value = {NULL};
  find_value(op, desc, name, &value);
  return type_of(value);
}

/* ---- Element types ---------------------------------------------------------------------------- */

static bool is_f32(MlirType t) { return mlirTypeIsAF32(t); }
static bool is_i32(MlirType t) {
  return mlirTypeIsAInteger(t) && mlirIntegerTypeIsSignless(t) && mlirIntegerTypeGetWidth(t) == 32;
}
static bool is_float(MlirType t) { return mlirTypeIsAF32(t) || mlirTypeIsABF16(t) || mlirTypeIsAF64(t); }
static bool is_f32_or_i32(MlirType t) { return is_f32(t) || is_i32(t); }
static bool is_storable(MlirType t) { return is_float(t) || is_i32(t); }

typedef enum dtype_class { ANY_DTYPE, FLOAT, F32, I32, F32_OR_I32 } dtype_class;

static const struct {
  bool (*accepts)(MlirType);
  const char *text;
} dtype_classes[] = {
    [ANY_DTYPE] = {NULL, NULL},
    [FLOAT] = {is_float, "a float element type (f32, bf16 or f64)"},
    [F32] = {is_f32, "element type f32"},
    [I32] = {is_i32, "element type i32"},
    [F32_OR_I32] = {is_f32_or_i32, "element type f32 or i32"},
};

/* ---- Attribute kinds: the precise kind ops.c declares for each attribute ------------------------ */

static bool has_width(MlirAttribute a, unsigned width) {
  return mlirAttributeIsAInteger(a) && mlirIntegerTypeGetWidth(mlirAttributeGetType(a)) == width;
}
static bool is_i1_attr(MlirAttribute a) { return has_width(a, 1); }
static bool is_i64_attr(MlirAttribute a) { return has_width(a, 64); }
static bool is_f64_attr(MlirAttribute a) { return mlirAttributeIsAFloat(a) && mlirTypeIsAF64(mlirAttributeGetType(a)); }

static const struct {
  bool (*accepts)(MlirAttribute);
  const char *text;
} attr_kinds[] = {
    [LATCH_ATTR_BOOL] = {is_i1_attr, "an i1 (true or false)"},
    [LATCH_ATTR_INT] = {is_i64_attr, "an i64 integer"},
    [LATCH_ATTR_FLOAT] = {is_f64_attr, "an f64 float"},
    [LATCH_ATTR_STRING] = {mlirAttributeIsAString, "a string"},
    [LATCH_ATTR_I64_ARRAY] = {mlirAttributeIsADenseI64Array, "an array<i64>"},
};

/* Every operand and result is a static ranked tensor of one of the four dtypes. Returns false when
 * later rules cannot run (a dynamic shape). */
static bool check_types(verifier *v, MlirOperation op, const latch_op_desc *desc) {
  bool shaped = true;
  for (int side = 0; side < 2; ++side)
    for (intptr_t i = 0; i < value_count(op, side); ++i) {
      MlirType type = type_of(value_at(op, side, i));
      if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type)) {
        report(v, op, "%s must be ranked tensors of static shape", side ? "results" : "operands");
        shaped = false;
        break;
      }
      if (!is_storable(mlirShapedTypeGetElementType(type)))
        report(v, op, "'%s' has element type %s; task tensors hold f32, bf16, f64 or i32",
               value_name(desc, side, i).s, type_text(mlirShapedTypeGetElementType(type)).s);
    }
  return shaped;
}

/* Every attribute has the exact kind of the descriptor table (IRDL checks only the base kind). Returns
 * false when one does not: its value cannot be read. */
static bool check_attr_kinds(verifier *v, MlirOperation op, const latch_op_desc *desc) {
  bool ok = true;
  for (int i = 0; i < desc->attr_count; ++i) {
    const latch_attr_desc *expected = &desc->attrs[i];
    MlirAttribute attr = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(expected->name));
    if (mlirAttributeIsNull(attr) || !attr_kinds[expected->kind].accepts(attr)) {
      report(v, op, "attribute '%s' must be %s, got %s", expected->name, attr_kinds[expected->kind].text,
             attr_text(attr).s);
      ok = false;
    }
  }
  return ok;
}

/* ---- Value rules: rank and element type of one operand or result ------------------------------ */

enum { ANY_RANK = -1, NONZERO_RANK = -2 };

typedef struct value_rule {
  latch_op_kind op;
  const char *name;
  int rank; /* the rank, ANY_RANK or NONZERO_RANK */
  dtype_class dtype;
} value_rule;

/* Columns: op, operand or result, rank, element types. */
#define V(op, name, rank, dtype) {LATCH_OP_TASK_##op, name, rank, dtype}
static const value_rule value_rules[] = {
    V(MATMUL, "a", ANY_RANK, FLOAT),
    V(MATMUL, "b", ANY_RANK, FLOAT),
    V(GROUPED_MATMUL, "x", 2, FLOAT),
    V(GROUPED_MATMUL, "w", 3, FLOAT),
    V(GROUPED_MATMUL, "ends", 1, I32),
    V(GROUPED_MATMUL, "y", 2, ANY_DTYPE),
    V(REDUCE, "x", NONZERO_RANK, ANY_DTYPE),
    V(RMSNORM, "x", NONZERO_RANK, FLOAT),
    V(RMSNORM, "w", 1, FLOAT),
    V(RMSNORM, "y", ANY_RANK, FLOAT),
    V(SOFTMAX, "x", NONZERO_RANK, FLOAT),
    V(SOFTMAX, "y", ANY_RANK, FLOAT),
    V(CROSS_ENTROPY, "logits", 2, FLOAT),
    V(CROSS_ENTROPY, "targets", 1, I32),
    V(CROSS_ENTROPY, "loss", 0, F32),
    V(EMBEDDING, "table", 2, ANY_DTYPE),
    V(EMBEDDING, "ids", ANY_RANK, I32),
    V(ROPE, "x", 4, FLOAT),
    V(ATTENTION, "q", 4, FLOAT),
    V(ATTENTION, "k", 4, FLOAT),
    V(ATTENTION, "v", 4, FLOAT),
    V(ATTENTION, "o", ANY_RANK, FLOAT),
    V(TOPK, "x", 2, FLOAT),
    V(TOPK, "values", 2, ANY_DTYPE),
    V(TOPK, "indices", 2, I32),
    V(BUCKET, "ids", 2, I32),
    V(BUCKET, "order", 1, I32),
    V(BUCKET, "ends", 1, I32),
    V(GATHER_ROWS, "x", 2, ANY_DTYPE),
    V(GATHER_ROWS, "idx", 1, I32),
    V(GATHER_ROWS, "y", 2, ANY_DTYPE),
    V(SCATTER_ADD_ROWS, "x", 2, ANY_DTYPE),
    V(SCATTER_ADD_ROWS, "idx", 1, I32),
    V(SCATTER_ADD_ROWS, "y", 2, ANY_DTYPE),
    V(ADAMW, "p", ANY_RANK, F32),
    V(ADAMW, "g", ANY_RANK, F32),
    V(ADAMW, "m", ANY_RANK, F32),
    V(ADAMW, "v", ANY_RANK, F32),
    V(ADAMW, "step", 0, F32_OR_I32),
    V(ADAMW, "p_out", ANY_RANK, F32),
    V(ADAMW, "m_out", ANY_RANK, F32),
    V(ADAMW, "v_out", ANY_RANK, F32),
    V(REDUCE_GRAD, "x", NONZERO_RANK, FLOAT),
    V(REDUCE_GRAD, "dy", ANY_RANK, FLOAT),
    V(RMSNORM_GRAD, "x", NONZERO_RANK, FLOAT),
    V(RMSNORM_GRAD, "w", 1, FLOAT),
    V(RMSNORM_GRAD, "dy", ANY_RANK, FLOAT),
    V(SOFTMAX_GRAD, "y", NONZERO_RANK, FLOAT),
    V(SOFTMAX_GRAD, "dy", ANY_RANK, FLOAT),
    V(SOFTMAX_GRAD, "dx", ANY_RANK, FLOAT),
    V(CROSS_ENTROPY_GRAD, "logits", 2, FLOAT),
    V(CROSS_ENTROPY_GRAD, "targets", 1, I32),
    V(CROSS_ENTROPY_GRAD, "dloss", 0, FLOAT),
    V(ROPE_GRAD, "dy", 4, FLOAT),
    V(ATTENTION_GRAD, "q", 4, FLOAT),
    V(ATTENTION_GRAD, "k", 4, FLOAT),
    V(ATTENTION_GRAD, "v", 4, FLOAT),
    V(ATTENTION_GRAD, "o", 4, FLOAT),
    V(ATTENTION_GRAD, "do", 4, FLOAT),
    V(ATTENTION_STATS, "q", 4, FLOAT),
    V(ATTENTION_STATS, "k", 4, FLOAT),
    V(ATTENTION_STATS, "o", 4, FLOAT),
    V(ATTENTION_STATS, "do", 4, FLOAT),
    V(ATTENTION_STATS, "stats", 4, F32),
    V(ATTENTION_GRAD_FROM_STATS, "q", 4, FLOAT),
    V(ATTENTION_GRAD_FROM_STATS, "k", 4, FLOAT),
    V(ATTENTION_GRAD_FROM_STATS, "v", 4, FLOAT),
    V(ATTENTION_GRAD_FROM_STATS, "do", 4, FLOAT),
    V(ATTENTION_GRAD_FROM_STATS, "stats", 4, F32),
    V(ATTENTION_LSE, "q", 4, FLOAT),
    V(ATTENTION_LSE, "k", 4, FLOAT),
    V(ATTENTION_LSE, "v", 4, FLOAT),
    V(ATTENTION_LSE, "o", 4, FLOAT),
    V(ATTENTION_LSE, "lse", 3, F32),
    V(ATTENTION_STATS_FROM_LSE, "o", 4, FLOAT),
    V(ATTENTION_STATS_FROM_LSE, "do", 4, FLOAT),
    V(ATTENTION_STATS_FROM_LSE, "lse", 3, F32),
    V(ATTENTION_STATS_FROM_LSE, "stats", 4, F32),
    V(CROSS_ENTROPY_WITH_STATS, "logits", 2, FLOAT),
    V(CROSS_ENTROPY_WITH_STATS, "targets", 1, I32),
    V(CROSS_ENTROPY_WITH_STATS, "loss", 0, F32),
    V(CROSS_ENTROPY_WITH_STATS, "stats", 2, F32),
    V(CROSS_ENTROPY_GRAD_FROM_STATS, "logits", 2, FLOAT),
    V(CROSS_ENTROPY_GRAD_FROM_STATS, "targets", 1, I32),
    V(CROSS_ENTROPY_GRAD_FROM_STATS, "dloss", 0, FLOAT),
    V(CROSS_ENTROPY_GRAD_FROM_STATS, "stats", 2, F32),
    V(CROSS_ENTROPY_GRAD_FROM_STATS, "dlogits", 2, FLOAT),
    V(TOPK_GRAD, "dvalues", 2, FLOAT),
    V(TOPK_GRAD, "indices", 2, I32),
    V(TOPK_GRAD, "dx", 2, FLOAT),
    V(GROUPED_MATMUL_WEIGHT_GRAD, "x", 2, FLOAT),
    V(GROUPED_MATMUL_WEIGHT_GRAD, "dy", 2, FLOAT),
    V(GROUPED_MATMUL_WEIGHT_GRAD, "ends", 1, I32),
    V(GROUPED_MATMUL_WEIGHT_GRAD, "dw", 3, ANY_DTYPE),
    V(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "x", 2, FLOAT),
    V(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dy0", 2, FLOAT),
    V(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dy1", 2, FLOAT),
    V(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "ends", 1, I32),
    V(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dw", 3, ANY_DTYPE),
};
#undef V

/* Returns false when a rank is wrong: the dims that later rules read may then not exist. */
static bool check_values(verifier *v, MlirOperation op, const latch_op_desc *desc) {
  bool ranks_ok = true;
  for (size_t i = 0; i < sizeof(value_rules) / sizeof(value_rules[0]); ++i) {
    const value_rule *rule = &value_rules[i];
    if (rule->op != desc->kind)
      continue;
    MlirType type = named_type(op, desc, rule->name);
    int64_t rank = rank_of(type);
    if (rule->rank == NONZERO_RANK && rank == 0) {
      report(v, op, "'%s' must have rank >= 1, got 0", rule->name);
      ranks_ok = false;
    } else if (rule->rank >= 0 && rank != rule->rank) {
      report(v, op, "'%s' must have rank %d, got %lld", rule->name, rule->rank, (long long)rank);
      ranks_ok = false;
    }
    MlirType element = mlirShapedTypeGetElementType(type);
    if (rule->dtype != ANY_DTYPE && !dtype_classes[rule->dtype].accepts(element))
      report(v, op, "'%s' must have %s, got %s", rule->name, dtype_classes[rule->dtype].text, type_text(element).s);
  }
  return ranks_ok;
}

/* ---- Attribute ranges ------------------------------------------------------------------------- */

typedef struct attr_range {
  latch_op_kind op;
  const char *name;
  double low, high; /* -INFINITY / INFINITY: unbounded on that side (but the value must be finite) */
  bool low_closed, high_closed;
} attr_range;

/* Columns: op, attribute, lower bound, upper bound, whether each bound itself is allowed. NaN fails
 * every range. */
#define R(op, name, low, high, low_closed, high_closed) {LATCH_OP_TASK_##op, name, low, high, low_closed, high_closed}
static const attr_range attr_ranges[] = {
    R(RMSNORM, "eps", 0, INFINITY, false, false),
    R(ROPE, "theta", 0, INFINITY, false, false),
    R(ATTENTION, "scale", -INFINITY, INFINITY, false, false),
    R(TOPK, "k", 1, INFINITY, true, false),
    R(BUCKET, "buckets", 1, INFINITY, true, false),
    R(SCATTER_ADD_ROWS, "rows", 1, INFINITY, true, false),
    R(ADAMW, "lr", 0, INFINITY, false, false),
    R(ADAMW, "beta1", 0, 1, true, false),
    R(ADAMW, "beta2", 0, 1, true, false),
    R(ADAMW, "eps", 0, INFINITY, false, false),
    R(ADAMW, "weight_decay", 0, INFINITY, true, false),
    R(RMSNORM_GRAD, "eps", 0, INFINITY, false, false),
    R(ROPE_GRAD, "theta", 0, INFINITY, false, false),
    R(ATTENTION_GRAD, "scale", -INFINITY, INFINITY, false, false),
    R(TOPK_GRAD, "columns", 1, INFINITY, true, false),
    R(ATTENTION_STATS, "scale", -INFINITY, INFINITY, false, false),
    R(ATTENTION_GRAD_FROM_STATS, "scale", -INFINITY, INFINITY, false, false),
    R(ATTENTION_LSE, "scale", -INFINITY, INFINITY, false, false),
};
#undef R

static text range_text(const attr_range *r) {
  text t = {""};
  if (isinf(r->low) && isinf(r->high))
    appendf(&t, "finite");
  else if (isinf(r->high))
    appendf(&t, "%s %g", r->low_closed ? ">=" : ">", r->low);
  else
    appendf(&t, "in %c%g, %g%c", r->low_closed ? '[' : '(', r->low, r->high, r->high_closed ? ']' : ')');
  return t;
}

static void check_attr_ranges(verifier *v, MlirOperation op, latch_op_kind kind) {
  for (size_t i = 0; i < sizeof(attr_ranges) / sizeof(attr_ranges[0]); ++i) {
    const attr_range *r = &attr_ranges[i];
    if (r->op != kind)
      continue;
    MlirAttribute attr = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(r->name));
    double x = mlirAttributeIsAFloat(attr) ? mlirFloatAttrGetValueDouble(attr)
                                           : (double)mlirIntegerAttrGetValueInt(attr);
    bool above = r->low_closed ? x >= r->low : x > r->low;
    bool below = r->high_closed ? x <= r->high : x < r->high;
    if (!above || !below)
      report(v, op, "attribute '%s' must be %s, got %g", r->name, range_text(r).s, x);
  }
}

/* ---- Relations between two values, or a dim and an integer attribute -------------------------- */

typedef enum relation_kind {
  SAME_SHAPE, /* a has the shape of b */
  SAME_DTYPE, /* a has the element type of b */
  ACC_DTYPE,  /* a's element type is f32 or b's */
  STORE_DTYPE, /* a has the element type of b, or bf16 when b is f32 (computed in f32, rounded on store) */
  DIM_EQ,     /* size a == size b */
  DIM_LE,     /* size a <= size b */
} relation_kind;

enum { LAST = -1 }; /* the last dim */

typedef struct relation {
  latch_op_kind op;
  relation_kind kind;
  const char *a, *b; /* operand, result or (for sizes) integer attribute names */
  int a_dim, b_dim;  /* for sizes of values: which dim (LAST: the last one) */
} relation;

/* Columns: op, kind, then a and b (name and dim for the size relations). Every dim named here exists
 * once the value rules hold. */
#define SHAPE(op, a, b) {LATCH_OP_TASK_##op, SAME_SHAPE, a, b, 0, 0}
#define DTYPE(op, a, b) {LATCH_OP_TASK_##op, SAME_DTYPE, a, b, 0, 0}
#define ACC(op, a, b) {LATCH_OP_TASK_##op, ACC_DTYPE, a, b, 0, 0}
#define STORED(op, a, b) {LATCH_OP_TASK_##op, STORE_DTYPE, a, b, 0, 0}
#define EQ(op, a, a_dim, b, b_dim) {LATCH_OP_TASK_##op, DIM_EQ, a, b, a_dim, b_dim}
#define LE(op, a, a_dim, b, b_dim) {LATCH_OP_TASK_##op, DIM_LE, a, b, a_dim, b_dim}
static const relation relations[] = {
    DTYPE(MATMUL, "b", "a"),
    ACC(MATMUL, "c", "a"),
    DTYPE(GROUPED_MATMUL, "w", "x"),
    ACC(GROUPED_MATMUL, "y", "x"),
    EQ(GROUPED_MATMUL, "ends", 0, "w", 0), /* G */
    EQ(GROUPED_MATMUL, "y", 0, "x", 0),    /* R */
    EQ(RMSNORM, "w", 0, "x", LAST),
    SHAPE(RMSNORM, "y", "x"),
    SHAPE(SOFTMAX, "y", "x"),
    EQ(CROSS_ENTROPY, "targets", 0, "logits", 0),
    DTYPE(EMBEDDING, "y", "table"),
    SHAPE(ROPE, "y", "x"),
    STORED(ROPE, "y", "x"),
    EQ(ATTENTION, "k", 0, "q", 0), /* B */
    EQ(ATTENTION, "k", 1, "q", 1), /* H */
    EQ(ATTENTION, "k", 3, "q", 3), /* hd */
    EQ(ATTENTION, "v", 0, "q", 0),
    EQ(ATTENTION, "v", 1, "q", 1),
    EQ(ATTENTION, "v", 3, "q", 3),
    EQ(ATTENTION, "v", 2, "k", 2), /* T of the keys */
    SHAPE(ATTENTION, "o", "q"),
    LE(TOPK, "k", 0, "x", 1),
    DTYPE(TOPK, "values", "x"),
    EQ(TOPK, "values", 0, "x", 0),
    EQ(TOPK, "values", 1, "k", 0),
    EQ(TOPK, "indices", 0, "x", 0),
    EQ(TOPK, "indices", 1, "k", 0),
    EQ(BUCKET, "ends", 0, "buckets", 0),
    DTYPE(GATHER_ROWS, "y", "x"),
    EQ(GATHER_ROWS, "y", 0, "idx", 0),
    EQ(GATHER_ROWS, "y", 1, "x", 1),
    DTYPE(SCATTER_ADD_ROWS, "y", "x"),
    EQ(SCATTER_ADD_ROWS, "idx", 0, "x", 0),
    EQ(SCATTER_ADD_ROWS, "y", 0, "rows", 0),
    EQ(SCATTER_ADD_ROWS, "y", 1, "x", 1),
    DTYPE(RESHAPE, "y", "x"),
    DTYPE(TRANSPOSE, "y", "x"),
    SHAPE(CONVERT, "y", "x"),
    SHAPE(ADAMW, "g", "p"),
    SHAPE(ADAMW, "m", "p"),
    SHAPE(ADAMW, "v", "p"),
    SHAPE(ADAMW, "p_out", "p"),
    SHAPE(ADAMW, "m_out", "p"),
    SHAPE(ADAMW, "v_out", "p"),
    /* Backward ops: every result has the type of the forward value whose adjoint it is. */
    SHAPE(REDUCE_GRAD, "dx", "x"),
    DTYPE(REDUCE_GRAD, "dx", "x"),
    EQ(RMSNORM_GRAD, "w", 0, "x", LAST),
    SHAPE(RMSNORM_GRAD, "dy", "x"),
    SHAPE(RMSNORM_GRAD, "dx", "x"),
    DTYPE(RMSNORM_GRAD, "dx", "x"),
    SHAPE(RMSNORM_GRAD, "dw", "w"),
    DTYPE(RMSNORM_GRAD, "dw", "w"),
    SHAPE(SOFTMAX_GRAD, "dy", "y"),
    SHAPE(SOFTMAX_GRAD, "dx", "y"),
    EQ(CROSS_ENTROPY_GRAD, "targets", 0, "logits", 0),
    SHAPE(CROSS_ENTROPY_GRAD, "dlogits", "logits"),
    STORED(CROSS_ENTROPY_GRAD, "dlogits", "logits"),
    SHAPE(ROPE_GRAD, "dx", "dy"),
    STORED(ROPE_GRAD, "dx", "dy"),
    EQ(ATTENTION_GRAD, "k", 0, "q", 0), /* B */
    EQ(ATTENTION_GRAD, "k", 1, "q", 1), /* H */
    EQ(ATTENTION_GRAD, "k", 3, "q", 3), /* hd */
    EQ(ATTENTION_GRAD, "v", 0, "q", 0),
    EQ(ATTENTION_GRAD, "v", 1, "q", 1),
    EQ(ATTENTION_GRAD, "v", 3, "q", 3),
    EQ(ATTENTION_GRAD, "v", 2, "k", 2), /* T of the keys */
    SHAPE(ATTENTION_GRAD, "o", "q"),
    SHAPE(ATTENTION_GRAD, "do", "q"),
    SHAPE(ATTENTION_GRAD, "dq", "q"),
    DTYPE(ATTENTION_GRAD, "dq", "q"),
    SHAPE(ATTENTION_GRAD, "dk", "k"),
    DTYPE(ATTENTION_GRAD, "dk", "k"),
    SHAPE(ATTENTION_GRAD, "dv", "v"),
    DTYPE(ATTENTION_GRAD, "dv", "v"),
    EQ(ATTENTION_STATS, "k", 0, "q", 0),
    EQ(ATTENTION_STATS, "k", 1, "q", 1),
    EQ(ATTENTION_STATS, "k", 3, "q", 3),
    EQ(ATTENTION_STATS, "o", 0, "q", 0),
    EQ(ATTENTION_STATS, "o", 1, "q", 1),
    EQ(ATTENTION_STATS, "o", 2, "q", 2),
    SHAPE(ATTENTION_STATS, "do", "o"),
    EQ(ATTENTION_STATS, "stats", 0, "q", 0),
    EQ(ATTENTION_STATS, "stats", 1, "q", 1),
    EQ(ATTENTION_STATS, "stats", 2, "q", 2),
    EQ(ATTENTION_GRAD_FROM_STATS, "k", 0, "q", 0),
    EQ(ATTENTION_GRAD_FROM_STATS, "k", 1, "q", 1),
    EQ(ATTENTION_GRAD_FROM_STATS, "k", 3, "q", 3),
    EQ(ATTENTION_GRAD_FROM_STATS, "v", 0, "q", 0),
    EQ(ATTENTION_GRAD_FROM_STATS, "v", 1, "q", 1),
    EQ(ATTENTION_GRAD_FROM_STATS, "v", 2, "k", 2),
    EQ(ATTENTION_GRAD_FROM_STATS, "do", 0, "q", 0),
    EQ(ATTENTION_GRAD_FROM_STATS, "do", 1, "q", 1),
    EQ(ATTENTION_GRAD_FROM_STATS, "do", 2, "q", 2),
    EQ(ATTENTION_GRAD_FROM_STATS, "do", 3, "v", 3),
    EQ(ATTENTION_GRAD_FROM_STATS, "stats", 0, "q", 0),
    EQ(ATTENTION_GRAD_FROM_STATS, "stats", 1, "q", 1),
    EQ(ATTENTION_GRAD_FROM_STATS, "stats", 2, "q", 2),
    SHAPE(ATTENTION_GRAD_FROM_STATS, "dq", "q"),
    DTYPE(ATTENTION_GRAD_FROM_STATS, "dq", "q"),
    SHAPE(ATTENTION_GRAD_FROM_STATS, "dk", "k"),
    DTYPE(ATTENTION_GRAD_FROM_STATS, "dk", "k"),
    SHAPE(ATTENTION_GRAD_FROM_STATS, "dv", "v"),
    DTYPE(ATTENTION_GRAD_FROM_STATS, "dv", "v"),
    EQ(ATTENTION_LSE, "k", 0, "q", 0),
    EQ(ATTENTION_LSE, "k", 1, "q", 1),
    EQ(ATTENTION_LSE, "k", 3, "q", 3),
    EQ(ATTENTION_LSE, "v", 0, "q", 0),
    EQ(ATTENTION_LSE, "v", 1, "q", 1),
    EQ(ATTENTION_LSE, "v", 3, "q", 3),
    EQ(ATTENTION_LSE, "v", 2, "k", 2),
    SHAPE(ATTENTION_LSE, "o", "q"),
    EQ(ATTENTION_LSE, "lse", 0, "q", 0), /* lse [B, H, Tq] in either layout */
    EQ(ATTENTION_LSE, "lse", 1, "q", 1),
    EQ(ATTENTION_LSE, "lse", 2, "q", 2),
    SHAPE(ATTENTION_STATS_FROM_LSE, "do", "o"),
    EQ(ATTENTION_STATS_FROM_LSE, "lse", 0, "o", 0),
    EQ(ATTENTION_STATS_FROM_LSE, "lse", 1, "o", 1),
    EQ(ATTENTION_STATS_FROM_LSE, "lse", 2, "o", 2),
    EQ(ATTENTION_STATS_FROM_LSE, "stats", 0, "o", 0),
    EQ(ATTENTION_STATS_FROM_LSE, "stats", 1, "o", 1),
    EQ(ATTENTION_STATS_FROM_LSE, "stats", 2, "o", 2),
    EQ(CROSS_ENTROPY_WITH_STATS, "targets", 0, "logits", 0),
    EQ(CROSS_ENTROPY_WITH_STATS, "stats", 0, "logits", 0),
    EQ(CROSS_ENTROPY_GRAD_FROM_STATS, "targets", 0, "logits", 0),
    EQ(CROSS_ENTROPY_GRAD_FROM_STATS, "stats", 0, "logits", 0),
    SHAPE(CROSS_ENTROPY_GRAD_FROM_STATS, "dlogits", "logits"),
    STORED(CROSS_ENTROPY_GRAD_FROM_STATS, "dlogits", "logits"),
    LE(TOPK_GRAD, "dvalues", 1, "columns", 0), /* k <= E */
    SHAPE(TOPK_GRAD, "indices", "dvalues"),
    EQ(TOPK_GRAD, "dx", 0, "dvalues", 0),
    EQ(TOPK_GRAD, "dx", 1, "columns", 0),
    DTYPE(GROUPED_MATMUL_WEIGHT_GRAD, "dy", "x"),
    ACC(GROUPED_MATMUL_WEIGHT_GRAD, "dw", "x"),
    EQ(GROUPED_MATMUL_WEIGHT_GRAD, "dy", 0, "x", 0),   /* R */
    EQ(GROUPED_MATMUL_WEIGHT_GRAD, "dw", 0, "ends", 0), /* G */
    EQ(GROUPED_MATMUL_WEIGHT_GRAD, "dw", 1, "x", 1),    /* K */
    EQ(GROUPED_MATMUL_WEIGHT_GRAD, "dw", 2, "dy", 1),   /* N */
    DTYPE(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dy0", "x"),
    SHAPE(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dy1", "dy0"),
    DTYPE(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dy1", "x"),
    ACC(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dw", "x"),
    EQ(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dy0", 0, "x", 0),   /* R */
    EQ(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dw", 0, "ends", 0), /* G */
    EQ(GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "dw", 1, "x", 1),    /* K */
};
#undef SHAPE
#undef DTYPE
#undef ACC
#undef EQ
#undef LE

/* A size: dim `d` of the value `name` (described as "dim 1 of 'x'"), or the integer attribute `name`. */
static int64_t size_of(MlirOperation op, const latch_op_desc *desc, const char *name, int d, text *what) {
  MlirValue value;
  if (!find_value(op, desc, name, &value)) {
    appendf(what, "'%s'", name);
    return latch_attr_int(op, name, 0);
  }
  MlirType type = type_of(value);
  /* The relations name (B, H, T, d) dims; with layout = "bthd" H and T trade places (stats keeps its own). */
  if (rank_of(type) == 4 && strcmp(name, "stats") != 0)
    d = (int)latch_attention_dim_index(op, d);
  if (d == LAST)
    appendf(what, "the last dim of '%s'", name);
  else
    appendf(what, "dim %d of '%s'", d, name);
  return dim(type, d == LAST ? rank_of(type) - 1 : d);
}

static void check_relations(verifier *v, MlirOperation op, const latch_op_desc *desc) {
  for (size_t i = 0; i < sizeof(relations) / sizeof(relations[0]); ++i) {
    const relation *r = &relations[i];
    if (r->op != desc->kind)
      continue;
    if (r->kind == DIM_EQ || r->kind == DIM_LE) {
      text a_text = {""}, b_text = {""};
      int64_t a = size_of(op, desc, r->a, r->a_dim, &a_text), b = size_of(op, desc, r->b, r->b_dim, &b_text);
      if (r->kind == DIM_EQ ? a != b : a > b)
        report(v, op, "%s must %s %s (got %lld and %lld)", a_text.s, r->kind == DIM_EQ ? "equal" : "be at most",
               b_text.s, (long long)a, (long long)b);
      continue;
    }
    MlirType a = named_type(op, desc, r->a), b = named_type(op, desc, r->b);
    MlirType a_element = mlirShapedTypeGetElementType(a), b_element = mlirShapedTypeGetElementType(b);
    if (r->kind == SAME_SHAPE && !same_shape(a, b))
      report(v, op, "'%s' must have the shape of '%s' (%s), got %s", r->a, r->b, shape_text(b).s, shape_text(a).s);
    else if (r->kind == SAME_DTYPE && !mlirTypeEqual(a_element, b_element))
      report(v, op, "'%s' must have the element type of '%s' (%s), got %s", r->a, r->b, type_text(b_element).s,
             type_text(a_element).s);
    else if (r->kind == ACC_DTYPE && !is_f32(a_element) && !mlirTypeEqual(a_element, b_element))
      report(v, op, "'%s' must have element type f32 or that of '%s' (%s), got %s", r->a, r->b,
             type_text(b_element).s, type_text(a_element).s);
    else if (r->kind == STORE_DTYPE && !mlirTypeEqual(a_element, b_element) &&
             !(is_f32(b_element) && mlirTypeIsABF16(a_element)))
      report(v, op, "'%s' must have the element type of '%s' (%s), or bf16 for f32, got %s", r->a, r->b,
             type_text(b_element).s, type_text(a_element).s);
  }
}

/* ---- Rules of single ops ---------------------------------------------------------------------- */

/* Dim `i` of the shape a result must have, computed from the op's operands and attributes. */
typedef int64_t (*dim_fn)(MlirOperation op, intptr_t i);

/* Reports unless `value` (named `name`) has rank `rank` and dims dim(op, 0..rank-1); `why` says where
 * that shape comes from. */
static void expect_shape(verifier *v, MlirOperation op, MlirValue value, const char *name, int64_t rank,
                         dim_fn expected_dim, const char *why) {
  MlirType type = type_of(value);
  bool ok = rank_of(type) == rank;
  text expected = {"["};
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t d = expected_dim(op, i);
    ok = ok && dim(type, i) == d;
    appendf(&expected, "%s%lld", i ? ", " : "", (long long)d);
  }
  appendf(&expected, "]");
  if (!ok)
    report(v, op, "'%s' must have shape %s (%s), got %s", name, expected.s, why, shape_text(type).s);
}

/* Dim `from_end` (1: the last, 2: the one before) of a matmul operand after its optional transpose. */
static int64_t matmul_operand_dim(MlirValue value, bool transposed, int from_end) {
  MlirType type = type_of(value);
  return dim(type, rank_of(type) - (transposed ? 3 - from_end : from_end));
}

static int64_t matmul_c_dim(MlirOperation op, intptr_t i) {
  MlirValue a = latch_matmul_a(op), b = latch_matmul_b(op);
  int64_t rank = rank_of(type_of(a));
  if (i == rank - 2)
    return matmul_operand_dim(a, latch_matmul_transpose_a(op), 2);
  if (i == rank - 1)
    return matmul_operand_dim(b, latch_matmul_transpose_b(op), 1);
  return dim(type_of(a), 0);
}

static void verify_matmul(verifier *v, MlirOperation op) {
  MlirValue a = latch_matmul_a(op), b = latch_matmul_b(op), c = latch_matmul_c_result(op);
  int64_t rank = rank_of(type_of(a));
  if (rank < 2 || rank > 3 || rank_of(type_of(b)) != rank || rank_of(type_of(c)) != rank) {
    report(v, op, "operands and result must all be rank 2, or all rank 3 (leading batch dimension)");
    return;
  }
  bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
  int64_t ka = matmul_operand_dim(a, ta, 1), kb = matmul_operand_dim(b, tb, 2);
  if (ka != kb)
    report(v, op, "inner dimensions differ: %lld (a%s) vs %lld (b%s)", (long long)ka, ta ? ", transposed" : "",
           (long long)kb, tb ? ", transposed" : "");
  if (rank == 3 && dim(type_of(b), 0) != dim(type_of(a), 0))
    report(v, op, "dim 0 (batch) of 'b' must equal dim 0 of 'a' (got %lld and %lld)",
           (long long)dim(type_of(b), 0), (long long)dim(type_of(a), 0));
  expect_shape(v, op, c, "c", rank, matmul_c_dim, "op(a) x op(b)");
}

/* w is [G, K, N], or [G, N, K] with the optional transpose_w (a bool; absent: false). */
static void verify_grouped_matmul(verifier *v, MlirOperation op) {
  MlirAttribute transpose = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("transpose_w"));
  if (!mlirAttributeIsNull(transpose) && !mlirAttributeIsABool(transpose)) {
    report(v, op, "attribute 'transpose_w' must be a bool");
    return;
  }
  MlirType x = type_of(latch_grouped_matmul_x(op)), w = type_of(latch_grouped_matmul_w(op));
  MlirType y = type_of(latch_grouped_matmul_y_result(op));
  if (rank_of(x) != 2 || rank_of(w) != 3 || rank_of(y) != 2)
    return; /* the rank rules above report it */
  bool tw = latch_grouped_matmul_transpose_w(op);
  int64_t k = dim(w, tw ? 2 : 1), n = dim(w, tw ? 1 : 2);
  const char *note = tw ? " (transpose_w)" : "";
  /* With w_column_offset, w's last dim (K or N) only has to hold the columns the op reads. */
  MlirAttribute offset_attr = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("w_column_offset"));
  if (!mlirAttributeIsNull(offset_attr)) {
    if (!mlirAttributeIsAInteger(offset_attr) || mlirAttributeIsABool(offset_attr)) {
      report(v, op, "attribute 'w_column_offset' must be an i64 integer, got %s", attr_text(offset_attr).s);
      return;
    }
    int64_t offset = mlirIntegerAttrGetValueInt(offset_attr), width = tw ? dim(x, 1) : dim(y, 1);
    if (offset < 0 || offset + width > dim(w, 2))
      report(v, op, "attribute 'w_column_offset' (%lld) plus the %lld columns read must lie in dim 2 of 'w' (%lld)",
             (long long)offset, (long long)width, (long long)dim(w, 2));
    if (tw)
      k = dim(x, 1);
    else
      n = dim(y, 1);
  }
  if (dim(x, 1) != k)
    report(v, op, "dim %d of 'w' must equal dim 1 of 'x' (got %lld and %lld)%s", tw ? 2 : 1, (long long)k,
           (long long)dim(x, 1), note);
  if (dim(y, 1) != n)
    report(v, op, "dim 1 of 'y' must equal dim %d of 'w' (got %lld and %lld)%s", tw ? 1 : 2, (long long)dim(y, 1),
           (long long)n, note);
}

/* dw [G, K, 2 N]: the columns of dy0 and then those of dy1. */
static void verify_grouped_matmul_weight_grad_concat(verifier *v, MlirOperation op) {
  int64_t n = dim(type_of(latch_grouped_matmul_weight_grad_concat_dy0(op)), 1);
  int64_t columns = dim(type_of(latch_grouped_matmul_weight_grad_concat_dw_result(op)), 2);
  if (columns != 2 * n)
    report(v, op, "dim 2 of 'dw' must be twice dim 1 of 'dy0' (got %lld and %lld)", (long long)columns, (long long)n);
}

/* The scalars of a map body (its block arguments, or the operands of its gpu.yield) against the
 * element types of the op's inputs (side 0) or outputs (side 1). */
static void check_map_scalars(verifier *v, MlirOperation op, int side, const char *what, const char *noun,
                              intptr_t count, MlirValue (*scalar)(void *owner, intptr_t i), void *owner) {
  const latch_op_desc *desc = latch_op_desc_get(LATCH_OP_TASK_MAP);
  intptr_t expected = value_count(op, side);
  if (count != expected) {
    report(v, op, "%s has %ld %ss, expected %ld (one per %s)", what, (long)count, noun, (long)expected,
           side ? "output" : "input");
    return;
  }
  for (intptr_t i = 0; i < count; ++i) {
    MlirType type = type_of(scalar(owner, i)), element = element_of(value_at(op, side, i));
    if (!mlirTypeEqual(type, element))
      report(v, op, "%s %s %ld has type %s, expected the element type of '%s' (%s)", what, noun, (long)i,
             type_text(type).s, value_name(desc, side, i).s, type_text(element).s);
  }
}

static MlirValue block_argument(void *block, intptr_t i) { return mlirBlockGetArgument((MlirBlock){block}, i); }
static MlirValue op_operand(void *op, intptr_t i) { return mlirOperationGetOperand((MlirOperation){op}, i); }

static void verify_map(verifier *v, MlirOperation op) {
  const latch_op_desc *desc = latch_op_desc_get(LATCH_OP_TASK_MAP);
  if (mlirOperationGetNumResults(op) == 0) {
    report(v, op, "must have at least one output");
  } else {
    MlirType shape = type_of(mlirOperationGetResult(op, 0));
    for (int side = 0; side < 2; ++side)
      for (intptr_t i = side; i < value_count(op, side); ++i) {
        MlirType type = type_of(value_at(op, side, i));
        if ((side || rank_of(type) != 0) && !same_shape(type, shape))
          report(v, op, "'%s' must have %sthe shape of 'outs[0]' (%s), got %s", value_name(desc, side, i).s,
                 side ? "" : "rank 0 or ", shape_text(shape).s, shape_text(type).s);
      }
  }
  intptr_t blocks = 0;
  for (MlirBlock b = latch_map_body(op); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
    blocks++;
  if (blocks != 1) {
    report(v, op, "body must have exactly one block, got %ld", (long)blocks);
    return;
  }
  MlirBlock body = latch_map_body(op);
  check_map_scalars(v, op, 0, "body", "argument", mlirBlockGetNumArguments(body), block_argument, body.ptr);
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(yield) || !latch_op_is(yield, "gpu.yield")) {
    report(v, op, "body must end in gpu.yield");
    return;
  }
  check_map_scalars(v, op, 1, "gpu.yield", "operand", mlirOperationGetNumOperands(yield), op_operand, yield.ptr);
}

static int64_t reduce_y_dim(MlirOperation op, intptr_t i) {
  return dim(type_of(latch_reduce_x(op)), i < latch_reduce_axis(op) ? i : i + 1);
}

static int64_t reduce_grad_dy_dim(MlirOperation op, intptr_t i) {
  return dim(type_of(latch_reduce_grad_x(op)), i < latch_reduce_grad_axis(op) ? i : i + 1);
}

/* The `kind` and `axis` rules that task.reduce and task.reduce_grad share; false when the axis is out of
 * range (the reduced shape cannot be computed). */
static bool check_reduce_attrs(verifier *v, MlirOperation op, MlirStringRef kind, int64_t axis, MlirValue x) {
  static const char *const kinds[] = {"sum", "max", "mean"};
  bool known = false;
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    known = known || latch_ref_is(kind, kinds[i]);
  if (!known)
    report(v, op, "attribute 'kind' must be \"sum\", \"max\" or \"mean\", got \"%.*s\"", (int)kind.length,
           kind.data);
  int64_t rank = rank_of(type_of(x));
  if (axis < 0 || axis >= rank) {
    report(v, op, "attribute 'axis' must be in [0, %lld) (the rank of 'x'), got %lld", (long long)rank,
           (long long)axis);
    return false;
  }
  return true;
}

static void verify_reduce(verifier *v, MlirOperation op) {
  MlirValue x = latch_reduce_x(op);
  if (check_reduce_attrs(v, op, latch_reduce_kind(op), latch_reduce_axis(op), x))
    expect_shape(v, op, latch_reduce_y_result(op), "y", rank_of(type_of(x)) - 1, reduce_y_dim,
                 "'x' without dim 'axis'");
}

static void verify_reduce_grad(verifier *v, MlirOperation op) {
  MlirValue x = latch_reduce_grad_x(op);
  if (check_reduce_attrs(v, op, latch_reduce_grad_kind(op), latch_reduce_grad_axis(op), x))
    expect_shape(v, op, latch_reduce_grad_dy(op), "dy", rank_of(type_of(x)) - 1, reduce_grad_dy_dim,
                 "'x' without dim 'axis'");
}

static int64_t embedding_y_dim(MlirOperation op, intptr_t i) {
  MlirType ids = type_of(latch_embedding_ids(op));
  return i < rank_of(ids) ? dim(ids, i) : dim(type_of(latch_embedding_table(op)), 1);
}

static void verify_embedding(verifier *v, MlirOperation op) {
  expect_shape(v, op, latch_embedding_y_result(op), "y", rank_of(type_of(latch_embedding_ids(op))) + 1,
               embedding_y_dim, "the shape of 'ids', then dim 1 of 'table'");
}

/* The rotate-half pairs of task.rope and task.rope_grad need an even head dim. */
static void check_head_dim_even(verifier *v, MlirOperation op, MlirValue value, const char *name) {
  int64_t head_dim = dim(type_of(value), 3);
  if (head_dim % 2 != 0)
    report(v, op, "dim 3 (head dim) of '%s' must be even, got %lld", name, (long long)head_dim);
}

static void verify_rope(verifier *v, MlirOperation op) { check_head_dim_even(v, op, latch_rope_x(op), "x"); }

static void verify_rope_grad(verifier *v, MlirOperation op) {
  check_head_dim_even(v, op, latch_rope_grad_dy(op), "dy");
}

/* Causal masking compares query and key positions: task.attention and task.attention_grad need Tq == Tk
 * (dim 2, or dim 1 with layout = "bthd"). */
static void check_causal_lengths(verifier *v, MlirOperation op, bool causal, MlirValue q, MlirValue k) {
  int64_t tq = latch_attention_dim(op, q, 2), tk = latch_attention_dim(op, k, 2);
  int t_dim = (int)latch_attention_dim_index(op, 2);
  if (causal && tq != tk)
    report(v, op, "with causal = true, dim %d of 'k' must equal dim %d of 'q' (got %lld and %lld)", t_dim, t_dim,
           (long long)tk, (long long)tq);
}

/* The optional `layout` (latch_attention_bthd): the string "bthd", and only where the lowering and the
 * interpreter read it. */
static void check_layout(verifier *v, MlirOperation op, latch_op_kind kind) {
  MlirAttribute layout = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("layout"));
  if (mlirAttributeIsNull(layout))
    return;
  if (!latch_op_takes_layout(kind))
    report(v, op, "attribute 'layout' is only for task.attention, task.attention_lse, task.attention_stats, "
                  "task.attention_stats_from_lse and task.attention_grad_from_stats");
  else if (!mlirAttributeIsAString(layout) || !latch_attention_bthd(op))
    report(v, op, "attribute 'layout' must be the string \"bthd\" (absent: [B, H, T, d])");
}

static void verify_attention(verifier *v, MlirOperation op) {
  check_causal_lengths(v, op, latch_attention_causal(op), latch_attention_q(op), latch_attention_k(op));
}

static void verify_attention_grad(verifier *v, MlirOperation op) {
  check_causal_lengths(v, op, latch_attention_grad_causal(op), latch_attention_grad_q(op),
                       latch_attention_grad_k(op));
}

/* The statistics of the split attention gradient: (L, D) per query row, so the last dim is 2. */
static void check_stats_pairs(verifier *v, MlirOperation op, MlirValue stats) {
  if (dim(type_of(stats), 3) != 2)
    report(v, op, "dim 3 of 'stats' must be 2 (L and D of each query row), got %lld",
           (long long)dim(type_of(stats), 3));
}

static void verify_attention_stats(verifier *v, MlirOperation op) {
  check_causal_lengths(v, op, latch_attention_stats_causal(op), latch_attention_stats_q(op),
                       latch_attention_stats_k(op));
  check_stats_pairs(v, op, latch_attention_stats_stats_result(op));
}

static void verify_attention_grad_from_stats(verifier *v, MlirOperation op) {
  check_causal_lengths(v, op, latch_attention_grad_from_stats_causal(op), latch_attention_grad_from_stats_q(op),
                       latch_attention_grad_from_stats_k(op));
  check_stats_pairs(v, op, latch_attention_grad_from_stats_stats(op));
}

static void verify_attention_lse(verifier *v, MlirOperation op) {
  check_causal_lengths(v, op, latch_attention_lse_causal(op), latch_attention_lse_q(op), latch_attention_lse_k(op));
}

static void verify_attention_stats_from_lse(verifier *v, MlirOperation op) {
  check_stats_pairs(v, op, latch_attention_stats_from_lse_stats_result(op));
}

/* The cross-entropy statistics (max, sum of exp(l - max)) of each row: the last dim is 2. */
static void check_row_stats_pairs(verifier *v, MlirOperation op, MlirValue stats) {
  if (dim(type_of(stats), 1) != 2)
    report(v, op, "dim 1 of 'stats' must be 2 (the max and the sum of each row), got %lld",
           (long long)dim(type_of(stats), 1));
}

static void verify_cross_entropy_with_stats(verifier *v, MlirOperation op) {
  check_row_stats_pairs(v, op, latch_cross_entropy_with_stats_stats_result(op));
}

static void verify_cross_entropy_grad_from_stats(verifier *v, MlirOperation op) {
  check_row_stats_pairs(v, op, latch_cross_entropy_grad_from_stats_stats(op));
}

static void verify_bucket(verifier *v, MlirOperation op) {
  uint64_t ids = element_count(type_of(latch_bucket_ids(op)));
  int64_t order = dim(type_of(latch_bucket_order_result(op)), 0);
  if ((uint64_t)order != ids)
    report(v, op, "dim 0 of 'order' must equal the element count of 'ids' (got %lld and %llu)", (long long)order,
           (unsigned long long)ids);
}

static void verify_reshape(verifier *v, MlirOperation op) {
  uint64_t x = element_count(type_of(latch_reshape_x(op))), y = element_count(type_of(latch_reshape_y_result(op)));
  if (x != y)
    report(v, op, "'y' must have as many elements as 'x' (got %llu and %llu)", (unsigned long long)y,
           (unsigned long long)x);
}

static int64_t transpose_y_dim(MlirOperation op, intptr_t i) {
  return dim(type_of(latch_transpose_x(op)), latch_transpose_perm_at(op, i));
}

static void verify_transpose(verifier *v, MlirOperation op) {
  int64_t rank = rank_of(type_of(latch_transpose_x(op)));
  bool ok = latch_transpose_perm_size(op) == rank;
  for (intptr_t i = 0; ok && i < rank; ++i) {
    int64_t p = latch_transpose_perm_at(op, i);
    ok = p >= 0 && p < rank;
    for (intptr_t j = 0; ok && j < i; ++j)
      ok = latch_transpose_perm_at(op, j) != p;
  }
  if (!ok) {
    MlirAttribute perm = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("perm"));
    report(v, op, "attribute 'perm' must be a permutation of the %lld dims of 'x', got %s", (long long)rank,
           attr_text(perm).s);
    return;
  }
  expect_shape(v, op, latch_transpose_y_result(op), "y", rank, transpose_y_dim, "the dims of 'x' in 'perm' order");
}

/* tile_range (optional): [first, count] of the step's LATCH_ADAMW_TILE-element tiles (latch-split-optimizer). */
static void verify_adamw(verifier *v, MlirOperation op) {
  int64_t first, count; /* on failure: 0 and the whole step's tiles */
  if (!latch_adamw_tile_range(op, &first, &count)) {
    MlirAttribute range = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("tile_range"));
    report(v, op, "attribute 'tile_range' must be [first, count] of the %lld tiles of %d elements of 'p', got %s",
           (long long)count, LATCH_ADAMW_TILE, attr_text(range).s);
  }
}

static void (*const op_rules[LATCH_OP_COUNT])(verifier *, MlirOperation) = {
    [LATCH_OP_TASK_ADAMW] = verify_adamw,
    [LATCH_OP_TASK_MATMUL] = verify_matmul,       [LATCH_OP_TASK_MAP] = verify_map,
    [LATCH_OP_TASK_GROUPED_MATMUL] = verify_grouped_matmul,
    [LATCH_OP_TASK_REDUCE] = verify_reduce,       [LATCH_OP_TASK_EMBEDDING] = verify_embedding,
    [LATCH_OP_TASK_ROPE] = verify_rope,           [LATCH_OP_TASK_ATTENTION] = verify_attention,
    [LATCH_OP_TASK_BUCKET] = verify_bucket,       [LATCH_OP_TASK_RESHAPE] = verify_reshape,
    [LATCH_OP_TASK_TRANSPOSE] = verify_transpose, [LATCH_OP_TASK_REDUCE_GRAD] = verify_reduce_grad,
    [LATCH_OP_TASK_ROPE_GRAD] = verify_rope_grad, [LATCH_OP_TASK_ATTENTION_GRAD] = verify_attention_grad,
    [LATCH_OP_TASK_ATTENTION_STATS] = verify_attention_stats,
    [LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS] = verify_attention_grad_from_stats,
    [LATCH_OP_TASK_ATTENTION_LSE] = verify_attention_lse,
    [LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE] = verify_attention_stats_from_lse,
    [LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS] = verify_cross_entropy_with_stats,
    [LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS] = verify_cross_entropy_grad_from_stats,
    [LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT] = verify_grouped_matmul_weight_grad_concat,
};

static MlirWalkResult verify_op(MlirOperation op, void *user_data) {
  verifier *v = user_data;
  latch_op_kind kind = latch_op_kind_of(op);
  if (kind == LATCH_OP_UNKNOWN || !latch_op_is_task(op))
    return MlirWalkResultAdvance;
  const latch_op_desc *desc = latch_op_desc_get(kind);
  /* Each stage needs the ones before it: dims exist, attribute values can be read, ranks are right. */
  if (!check_types(v, op, desc) || !check_attr_kinds(v, op, desc))
    return MlirWalkResultAdvance;
  check_attr_ranges(v, op, kind);
  if (!check_values(v, op, desc))
    return MlirWalkResultAdvance;
  check_relations(v, op, desc);
  check_layout(v, op, kind);
  if (op_rules[kind])
    op_rules[kind](v, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation op, const void *options) {
  (void)options;
  verifier v = {0};
  mlirOperationWalk(op, verify_op, &v, MlirWalkPreOrder);
  return v.errors ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}

const latch_pass_info latch_verify_pass = {
    .name = "latch-verify",
    .summary = "Check shapes, dtypes and attributes of task ops beyond what IRDL can express",
    .anchor = "",
    .run = run,
};
