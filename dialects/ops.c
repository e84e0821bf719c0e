/* ops.c - the op descriptor table and the generic create/inspect helpers of the Latch dialects. */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#define NAMES(...) ((const char *const[]){__VA_ARGS__})
#define ATTRS(...) ATTRS_(__VA_ARGS__)
#define ATTRS_(...) ((const latch_attr_desc[]){__VA_ARGS__}), \
    (int)(sizeof((const latch_attr_desc[]){__VA_ARGS__}) / sizeof(latch_attr_desc))
#define NO_ATTRS NULL, 0
#define B LATCH_ATTR_BOOL
#define I LATCH_ATTR_INT
#define F LATCH_ATTR_FLOAT
#define S LATCH_ATTR_STRING

/* Columns: kind, op name, operand count (-1: variadic), result count (-1: variadic), regions, operand names,
 * result names, attributes. Order of every list = the IRDL order of dialects/<dialect>.irdl.mlir. */
#define OP(kind, name, nops, nres, nreg, ops, res, attrs) \
  [LATCH_OP_##kind] = {LATCH_OP_##kind, name, nops, nres, nreg, ops, res, attrs}
static const latch_op_desc op_table[LATCH_OP_COUNT] = {
    OP(TASK_MATMUL, "task.matmul", 2, 1, 0, NAMES("a", "b"), NAMES("c"),
       ATTRS({"transpose_a", B}, {"transpose_b", B})),
    OP(TASK_GROUPED_MATMUL, "task.grouped_matmul", 3, 1, 0, NAMES("x", "w", "ends"), NAMES("y"), NO_ATTRS),
    OP(TASK_MAP, "task.map", -1, -1, 1, NAMES("ins"), NAMES("outs"), NO_ATTRS),
    OP(TASK_REDUCE, "task.reduce", 1, 1, 0, NAMES("x"), NAMES("y"), ATTRS({"axis", I}, {"kind", S})),
    OP(TASK_RMSNORM, "task.rmsnorm", 2, 1, 0, NAMES("x", "w"), NAMES("y"), ATTRS({"eps", F})),
    OP(TASK_SOFTMAX, "task.softmax", 1, 1, 0, NAMES("x"), NAMES("y"), NO_ATTRS),
    OP(TASK_CROSS_ENTROPY, "task.cross_entropy", 2, 1, 0, NAMES("logits", "targets"), NAMES("loss"), NO_ATTRS),
    OP(TASK_EMBEDDING, "task.embedding", 2, 1, 0, NAMES("table", "ids"), NAMES("y"), NO_ATTRS),
    OP(TASK_ROPE, "task.rope", 1, 1, 0, NAMES("x"), NAMES("y"), ATTRS({"theta", F})),
    OP(TASK_ATTENTION, "task.attention", 3, 1, 0, NAMES("q", "k", "v"), NAMES("o"), ATTRS({"causal", B}, {"scale", F})),
    OP(TASK_TOPK, "task.topk", 1, 2, 0, NAMES("x"), NAMES("values", "indices"), ATTRS({"k", I})),
    OP(TASK_BUCKET, "task.bucket", 1, 2, 0, NAMES("ids"), NAMES("order", "ends"), ATTRS({"buckets", I})),
    OP(TASK_GATHER_ROWS, "task.gather_rows", 2, 1, 0, NAMES("x", "idx"), NAMES("y"), NO_ATTRS),
    OP(TASK_SCATTER_ADD_ROWS, "task.scatter_add_rows", 2, 1, 0, NAMES("x", "idx"), NAMES("y"), ATTRS({"rows", I})),
    OP(TASK_RESHAPE, "task.reshape", 1, 1, 0, NAMES("x"), NAMES("y"), NO_ATTRS),
    OP(TASK_TRANSPOSE, "task.transpose", 1, 1, 0, NAMES("x"), NAMES("y"), ATTRS({"perm", LATCH_ATTR_I64_ARRAY})),
    OP(TASK_CONVERT, "task.convert", 1, 1, 0, NAMES("x"), NAMES("y"), NO_ATTRS),
    OP(TASK_ADAMW, "task.adamw", 5, 3, 0, NAMES("p", "g", "m", "v", "step"), NAMES("p_out", "m_out", "v_out"),
       ATTRS({"lr", F}, {"beta1", F}, {"beta2", F}, {"eps", F}, {"weight_decay", F})),
    OP(TASK_REDUCE_GRAD, "task.reduce_grad", 2, 1, 0, NAMES("x", "dy"), NAMES("dx"),
       ATTRS({"axis", I}, {"kind", S})),
    OP(TASK_RMSNORM_GRAD, "task.rmsnorm_grad", 3, 2, 0, NAMES("x", "w", "dy"), NAMES("dx", "dw"),
       ATTRS({"eps", F})),
    OP(TASK_SOFTMAX_GRAD, "task.softmax_grad", 2, 1, 0, NAMES("y", "dy"), NAMES("dx"), NO_ATTRS),
    OP(TASK_CROSS_ENTROPY_GRAD, "task.cross_entropy_grad", 3, 1, 0, NAMES("logits", "targets", "dloss"),
       NAMES("dlogits"), NO_ATTRS),
    OP(TASK_ROPE_GRAD, "task.rope_grad", 1, 1, 0, NAMES("dy"), NAMES("dx"), ATTRS({"theta", F})),
    OP(TASK_ATTENTION_GRAD, "task.attention_grad", 5, 3, 0, NAMES("q", "k", "v", "o", "do"),
       NAMES("dq", "dk", "dv"), ATTRS({"causal", B}, {"scale", F})),
    OP(TASK_TOPK_GRAD, "task.topk_grad", 2, 1, 0, NAMES("dvalues", "indices"), NAMES("dx"),
       ATTRS({"columns", I})),
    OP(TASK_GROUPED_MATMUL_WEIGHT_GRAD, "task.grouped_matmul_weight_grad", 3, 1, 0, NAMES("x", "dy", "ends"),
       NAMES("dw"), NO_ATTRS),
    OP(TASK_ATTENTION_STATS, "task.attention_stats", 4, 1, 0, NAMES("q", "k", "o", "do"), NAMES("stats"),
       ATTRS({"causal", B}, {"scale", F})),
    OP(TASK_ATTENTION_GRAD_FROM_STATS, "task.attention_grad_from_stats", 5, 3, 0,
       NAMES("q", "k", "v", "do", "stats"), NAMES("dq", "dk", "dv"), ATTRS({"causal", B}, {"scale", F})),
    OP(TASK_ATTENTION_LSE, "task.attention_lse", 3, 2, 0, NAMES("q", "k", "v"), NAMES("o", "lse"),
       ATTRS({"causal", B}, {"scale", F})),
    OP(TASK_ATTENTION_STATS_FROM_LSE, "task.attention_stats_from_lse", 3, 1, 0, NAMES("o", "do", "lse"),
       NAMES("stats"), NO_ATTRS),
    OP(TASK_CROSS_ENTROPY_WITH_STATS, "task.cross_entropy_with_stats", 2, 2, 0, NAMES("logits", "targets"),
       NAMES("loss", "stats"), NO_ATTRS),
    OP(TASK_CROSS_ENTROPY_GRAD_FROM_STATS, "task.cross_entropy_grad_from_stats", 4, 1, 0,
       NAMES("logits", "targets", "dloss", "stats"), NAMES("dlogits"), NO_ATTRS),
    OP(TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT, "task.grouped_matmul_weight_grad_concat", 4, 1, 0,
       NAMES("x", "dy0", "dy1", "ends"), NAMES("dw"), NO_ATTRS),
    OP(INTERVAL_PROGRAM, "interval.program", 0, 0, 1, NULL, NULL,
       ATTRS({"sym_name", S}, {"function_type", LATCH_ATTR_TYPE})),
    OP(INTERVAL_INTERVAL, "interval.interval", 0, 0, 0, NULL, NULL, ATTRS({"name", S})),
    OP(INTERVAL_BARRIER, "interval.barrier", 0, 0, 0, NULL, NULL, NO_ATTRS),
    OP(ARENA_ARENA, "arena.arena", 0, 1, 0, NULL, NAMES("buffer"), ATTRS({"size", I}, {"alignment", I})),
    OP(ARENA_SLOT, "arena.slot", 1, 1, 0, NAMES("arena"), NAMES("bytes"),
       ATTRS({"offset", I}, {"size", I}, {"alignment", I})),
    OP(ARENA_BIND, "arena.bind", 2, 0, 0, NAMES("value", "slot"), NULL, ATTRS({"offset", I})),
    OP(ARENA_VIEW, "arena.view", 1, 1, 0, NAMES("slot"), NAMES("view"), NO_ATTRS),
};
#undef OP

const latch_op_desc *latch_op_desc_get(latch_op_kind kind) {
  if (kind <= LATCH_OP_UNKNOWN || kind >= LATCH_OP_COUNT)
    return NULL;
  return &op_table[kind];
}

latch_op_kind latch_task_kind_named(const char *name, size_t length) {
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const char *full = op_table[kind].name;
    if (strncmp(full, "task.", 5) == 0 && strlen(full + 5) == length && memcmp(full + 5, name, length) == 0)
      return (latch_op_kind)kind;
  }
  return LATCH_OP_UNKNOWN;
}

latch_op_kind latch_op_kind_of(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    if (latch_ref_is(name, op_table[kind].name))
      return (latch_op_kind)kind;
  }
  return LATCH_OP_UNKNOWN;
}

void latch_copy_attributes(MlirOperation from, MlirOperation to) {
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(from); ++i) {
    MlirNamedAttribute a = mlirOperationGetAttribute(from, i);
    mlirOperationSetAttributeByName(to, mlirIdentifierStr(a.name), a.attribute);
  }
}

typedef struct op_list {
  latch_op_kind kind;
  MlirOperation *ops;
  size_t count, capacity;
  bool out_of_memory;
} op_list;

static MlirWalkResult collect_of_kind(MlirOperation op, void *user_data) {
  op_list *list = user_data;
  if (latch_op_kind_of(op) != list->kind)
    return MlirWalkResultAdvance;
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 16;
    MlirOperation *grown = realloc(list->ops, capacity * sizeof(*grown));
    if (!grown) {
      list->out_of_memory = true;
      return MlirWalkResultInterrupt;
    }
    list->ops = grown;
    list->capacity = capacity;
  }
  list->ops[list->count++] = op;
  return MlirWalkResultAdvance;
}

bool latch_ops_of_kind(MlirOperation root, latch_op_kind kind, MlirOperation **out_ops, size_t *out_count) {
  op_list list = {.kind = kind};
  mlirOperationWalk(root, collect_of_kind, &list, MlirWalkPostOrder);
  if (list.out_of_memory) {
    free(list.ops);
    list.ops = NULL, list.count = 0;
  }
  *out_ops = list.ops;
  *out_count = list.count;
  return !list.out_of_memory;
}

bool latch_op_is_task(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length > 5 && memcmp(name.data, "task.", 5) == 0;
}

bool latch_op_is(MlirOperation op, const char *name) {
  return latch_ref_is(mlirIdentifierStr(mlirOperationGetName(op)), name);
}

bool latch_ref_is(MlirStringRef ref, const char *text) {
  return ref.length == strlen(text) && memcmp(ref.data, text, ref.length) == 0;
}

/* Bytes of one element, or 0 when the element type has no fixed size here. */
static int64_t element_bytes(MlirType element) {
  unsigned bits = 0;
  if (mlirTypeIsAInteger(element))
    bits = mlirIntegerTypeGetWidth(element);
  else if (mlirTypeIsAFloat(element))
    bits = mlirFloatTypeGetWidth(element);
  return (int64_t)(bits + 7) / 8;
}

bool latch_tensor_type_size(MlirType type, int64_t *out_elements, int64_t *out_bytes) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return false;
  int64_t per = element_bytes(mlirShapedTypeGetElementType(type));
  if (per <= 0)
    return false;
  int64_t n = 1;
  for (intptr_t i = 0, rank = mlirShapedTypeGetRank(type); i < rank; ++i) {
    int64_t d = mlirShapedTypeGetDimSize(type, i);
    if (d != 0 && n > INT64_MAX / 8 / d)
      return false;
    n *= d;
  }
  *out_elements = n;
  *out_bytes = n * per;
  return true;
}

int64_t latch_type_element_count(MlirType shaped) {
  int64_t count = 1;
  for (intptr_t i = 0, rank = mlirShapedTypeGetRank(shaped); i < rank; ++i)
    count *= mlirShapedTypeGetDimSize(shaped, i);
  return count;
}

MlirOperation latch_op_create(latch_op_kind kind, MlirLocation loc, intptr_t result_count,
                              const MlirType *result_types, intptr_t operand_count,
                              const MlirValue *operands, const MlirAttribute *attrs) {
  const latch_op_desc *desc = latch_op_desc_get(kind);
  if (!desc || (desc->operand_count >= 0 && desc->operand_count != operand_count) ||
      (desc->result_count >= 0 && desc->result_count != result_count))
    return (MlirOperation){NULL};
  bool is_map = kind == LATCH_OP_TASK_MAP;
  if (is_map && (operand_count > LATCH_MAP_MAX_INPUTS || result_count > LATCH_MAP_MAX_OUTPUTS))
    return (MlirOperation){NULL};
  MlirContext context = mlirLocationGetContext(loc);
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(desc->name), loc);
  mlirOperationStateAddResults(&state, result_count, result_types);
  mlirOperationStateAddOperands(&state, operand_count, operands);
  MlirNamedAttribute named[8];
  int named_count = 0;
  for (int i = 0; i < desc->attr_count; ++i) {
    MlirIdentifier id = mlirIdentifierGet(context, mlirStringRefCreateFromCString(desc->attrs[i].name));
    named[named_count++] = mlirNamedAttributeGet(id, attrs[i]);
  }
  if (is_map) {
    int32_t operand_segments[LATCH_MAP_MAX_INPUTS] = {0}, result_segments[LATCH_MAP_MAX_OUTPUTS] = {0};
    for (intptr_t i = 0; i < operand_count; ++i)
      operand_segments[i] = 1;
    for (intptr_t i = 0; i < result_count; ++i)
      result_segments[i] = 1;
    named[named_count++] = mlirNamedAttributeGet(
        mlirIdentifierGet(context, mlirStringRefCreateFromCString("operandSegmentSizes")),
        mlirDenseI32ArrayGet(context, LATCH_MAP_MAX_INPUTS, operand_segments));
    named[named_count++] = mlirNamedAttributeGet(
        mlirIdentifierGet(context, mlirStringRefCreateFromCString("resultSegmentSizes")),
        mlirDenseI32ArrayGet(context, LATCH_MAP_MAX_OUTPUTS, result_segments));
  }
  mlirOperationStateAddAttributes(&state, named_count, named);
  MlirRegion regions[1];
  for (int i = 0; i < desc->region_count; ++i)
    regions[i] = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, desc->region_count, regions);
  return mlirOperationCreate(&state);
}

static MlirAttribute find_attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

bool latch_attr_bool(MlirOperation op, const char *name, bool fallback) {
  MlirAttribute attr = find_attr(op, name);
  if (mlirAttributeIsNull(attr))
    return fallback;
  if (mlirAttributeIsABool(attr))
    return mlirBoolAttrGetValue(attr);
  if (mlirAttributeIsAInteger(attr))
    return mlirIntegerAttrGetValueInt(attr) != 0;
  return fallback;
}

bool latch_grouped_matmul_transpose_w(MlirOperation op) { return latch_attr_bool(op, "transpose_w", false); }

int64_t latch_grouped_matmul_w_column_offset(MlirOperation op) { return latch_attr_int(op, "w_column_offset", -1); }

bool latch_has_fused_mark(MlirOperation op) { return !mlirAttributeIsNull(find_attr(op, "task.fused")); }

bool latch_attention_bthd(MlirOperation op) { return latch_ref_is(latch_attr_string(op, "layout"), "bthd"); }

bool latch_op_takes_layout(latch_op_kind kind) {
  return kind == LATCH_OP_TASK_ATTENTION || kind == LATCH_OP_TASK_ATTENTION_STATS ||
         kind == LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS || kind == LATCH_OP_TASK_ATTENTION_LSE ||
         kind == LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE;
}

int latch_layout_operand_count(latch_op_kind kind) {
  switch (kind) {
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE: return 3;                /* q, k, v */
  case LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE: return 2;     /* o, do */
  case LATCH_OP_TASK_ATTENTION_STATS:
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: return 4;    /* q, k, o | v, do */
  default: return 0;
  }
}

int latch_layout_result_count(latch_op_kind kind) {
  switch (kind) {
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE: return 1;                /* o (not lse) */
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: return 3;    /* dq, dk, dv */
  default: return 0;
  }
}

intptr_t latch_attention_dim_index(MlirOperation op, intptr_t i) {
  static const intptr_t bthd_place[4] = {0, 2, 1, 3}; /* (B, H, T, d) in [B, T, H, d] */
  return latch_attention_bthd(op) && i >= 0 && i < 4 ? bthd_place[i] : i;
}

int64_t latch_attention_dim(MlirOperation op, MlirValue value, intptr_t i) {
  return mlirShapedTypeGetDimSize(mlirValueGetType(value), latch_attention_dim_index(op, i));
}

int64_t latch_attr_int(MlirOperation op, const char *name, int64_t fallback) {
  MlirAttribute attr = find_attr(op, name);
  /* An i1 (`true`) is an integer attribute too, but never a valid count or axis. */
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAInteger(attr) || mlirAttributeIsABool(attr))
    return fallback;
  return mlirIntegerAttrGetValueInt(attr);
}

double latch_attr_float(MlirOperation op, const char *name, double fallback) {
  MlirAttribute attr = find_attr(op, name);
  return !mlirAttributeIsNull(attr) && mlirAttributeIsAFloat(attr) ? mlirFloatAttrGetValueDouble(attr)
                                                                    : fallback;
}

MlirStringRef latch_attr_string(MlirOperation op, const char *name) {
  MlirAttribute attr = find_attr(op, name);
  if (!mlirAttributeIsNull(attr) && mlirAttributeIsAString(attr))
    return mlirStringAttrGetValue(attr);
  return (MlirStringRef){"", 0};
}

intptr_t latch_attr_i64_array_size(MlirOperation op, const char *name) {
  MlirAttribute attr = find_attr(op, name);
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsADenseI64Array(attr))
    return -1;
  return mlirDenseArrayGetNumElements(attr);
}

int64_t latch_attr_i64_array_get(MlirOperation op, const char *name, intptr_t index) {
  if (index < 0 || index >= latch_attr_i64_array_size(op, name))
    return 0;
  return mlirDenseI64ArrayGetElement(find_attr(op, name), index);
}

MlirAttribute latch_attr_get_bool(MlirContext context, bool value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(context, 1), value ? 1 : 0);
}

MlirAttribute latch_attr_get_int(MlirContext context, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), value);
}

MlirAttribute latch_attr_get_float(MlirContext context, double value) {
  return mlirFloatAttrDoubleGet(context, mlirF64TypeGet(context), value);
}

MlirAttribute latch_attr_get_string(MlirContext context, const char *value) {
  return mlirStringAttrGet(context, mlirStringRefCreateFromCString(value));
}

MlirAttribute latch_attr_get_i64_array(MlirContext context, intptr_t count, const int64_t *values) {
  return mlirDenseI64ArrayGet(context, count, values);
}
