/* builder.c - the C builder of task programs: arguments, task ops with inferred result types, maps,
 * composites and the finished func.func (see builder.h for the contract). */
#include "builder.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "ops.h"

#define MAX_SCOPES 16
#define NAME_SIZE 256

struct latch_builder {
  MlirContext context;
  char *function_name;
  char *file;
  MlirRegion region;   /* the function body, owned by the builder until finish hands it out */
  MlirBlock entry;     /* the entry block (arguments are added as they are declared) */
  MlirBlock block;     /* where ops go: the entry block, or the body of the map being built */
  int map_depth;       /* > 0 while a map body callback runs */
  bool failed;
  bool finished;
  /* Arguments: one attribute dictionary and one name per argument. */
  MlirAttribute *arg_attrs;
  char **arg_names;
  intptr_t arg_count, arg_capacity;
  /* Locations: the scope prefix ("layer0.moe"), one end offset per pushed scope, the current name. */
  char scope[NAME_SIZE];
  size_t scope_ends[MAX_SCOPES];
  int scope_depth;
  char name[NAME_SIZE];
  int line;
  MlirLocation location;
};

static const MlirValue null_value = {NULL};

/* ---- types and shapes -------------------------------------------------------------------------- */

MlirType latch_dtype_type(MlirContext context, latch_dtype dtype) {
  switch (dtype) {
  case LATCH_F32: return mlirF32TypeGet(context);
  case LATCH_BF16: return mlirBF16TypeGet(context);
  case LATCH_I32: return mlirIntegerTypeGet(context, 32);
  case LATCH_F64: return mlirF64TypeGet(context);
  case LATCH_DTYPE_INVALID: break;
  }
  return (MlirType){NULL};
}

const char *latch_dtype_name(latch_dtype dtype) {
  switch (dtype) {
  case LATCH_F32: return "f32";
  case LATCH_BF16: return "bf16";
  case LATCH_I32: return "i32";
  case LATCH_F64: return "f64";
  case LATCH_DTYPE_INVALID: break;
  }
  return "invalid";
}

MlirType latch_tensor_type(MlirContext context, latch_shape shape, latch_dtype dtype) {
  return mlirRankedTensorTypeGet(shape.rank, shape.dims, latch_dtype_type(context, dtype),
                                 mlirAttributeGetNull());
}

latch_dtype latch_type_dtype(MlirType type) {
  if (mlirTypeIsNull(type))
    return LATCH_DTYPE_INVALID;
  if (mlirTypeIsAShaped(type))
    type = mlirShapedTypeGetElementType(type);
  if (mlirTypeIsAF32(type))
    return LATCH_F32;
  if (mlirTypeIsABF16(type))
    return LATCH_BF16;
  if (mlirTypeIsAF64(type))
    return LATCH_F64;
  if (mlirTypeIsAInteger(type) && mlirIntegerTypeGetWidth(type) == 32 && !mlirIntegerTypeIsUnsigned(type))
    return LATCH_I32;
  return LATCH_DTYPE_INVALID;
}

static bool is_static_tensor(MlirType type) {
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type) &&
         mlirShapedTypeGetRank(type) <= LATCH_MAX_RANK;
}

latch_dtype latch_value_dtype(MlirValue value) {
  if (mlirValueIsNull(value) || !is_static_tensor(mlirValueGetType(value)))
    return LATCH_DTYPE_INVALID;
  return latch_type_dtype(mlirValueGetType(value));
}

latch_shape latch_value_shape(MlirValue value) {
  latch_shape shape = {-1, {0}};
  if (mlirValueIsNull(value) || !is_static_tensor(mlirValueGetType(value)))
    return shape;
  MlirType type = mlirValueGetType(value);
  shape.rank = (int)mlirShapedTypeGetRank(type);
  for (int i = 0; i < shape.rank; ++i)
    shape.dims[i] = mlirShapedTypeGetDimSize(type, i);
  return shape;
}

int64_t latch_shape_elements(latch_shape shape) {
  int64_t count = 1;
  for (int i = 0; i < shape.rank; ++i)
    count *= shape.dims[i];
  return count;
}

static bool is_float(latch_dtype dtype) {
  return dtype == LATCH_F32 || dtype == LATCH_BF16 || dtype == LATCH_F64;
}

static bool shapes_equal(latch_shape a, latch_shape b) {
  if (a.rank != b.rank)
    return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.dims[i] != b.dims[i])
      return false;
  return true;
}

/* "2x8xf32" (or "f32" for rank 0) into `buffer`. */
static const char *type_text(latch_shape shape, latch_dtype dtype, char *buffer, size_t size) {
  size_t used = 0;
  buffer[0] = '\0';
  for (int i = 0; i < shape.rank && used < size; ++i)
    used += (size_t)snprintf(buffer + used, size - used, "%lldx", (long long)shape.dims[i]);
  if (used < size)
    snprintf(buffer + used, size - used, "%s", latch_dtype_name(dtype));
  return buffer;
}

#define TYPE_TEXT(shape, dtype) type_text((shape), (dtype), (char[96]){0}, 96)

/* ---- the builder ------------------------------------------------------------------------------- */

static char *copy_string(const char *text) {
  size_t length = strlen(text) + 1;
  char *copy = malloc(length);
  if (copy)
    memcpy(copy, text, length);
  return copy;
}

static MlirStringRef ref(const char *text) { return mlirStringRefCreateFromCString(text); }

static void update_location(latch_builder *b) {
  MlirLocation file = mlirLocationFileLineColGet(b->context, ref(b->file), (unsigned)b->line, 0);
  b->location = mlirLocationNameGet(b->context, ref(b->name), file);
}

latch_builder *latch_builder_create(MlirContext context, const char *function_name, const char *file) {
  latch_builder *b = calloc(1, sizeof(*b));
  if (!b)
    return NULL;
  b->context = context;
  b->function_name = copy_string(function_name);
  b->file = copy_string(file);
  if (!b->function_name || !b->file) {
    free(b->function_name);
    free(b->file);
    free(b);
    return NULL;
  }
  b->region = mlirRegionCreate();
  b->entry = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(b->region, b->entry);
  b->block = b->entry;
  snprintf(b->name, sizeof(b->name), "%s", function_name);
  update_location(b);
  return b;
}

void latch_builder_destroy(latch_builder *b) {
  if (!b)
    return;
  if (!mlirRegionIsNull(b->region))
    mlirRegionDestroy(b->region);
  for (intptr_t i = 0; i < b->arg_count; ++i)
    free(b->arg_names[i]);
  free(b->arg_names);
  free(b->arg_attrs);
  free(b->function_name);
  free(b->file);
  free(b);
}

MlirContext latch_builder_context(const latch_builder *b) { return b->context; }

bool latch_builder_failed(const latch_builder *b) { return b->failed || b->finished; }

MlirLocation latch_builder_location(const latch_builder *b) { return b->location; }

/* Reports "<name>: '<op>' <message>" at the current location (once: the first error wins, since later
 * ones are usually its consequences) and fails the builder. `op` may be NULL. */
static void vfail(latch_builder *b, const char *op, const char *format, va_list args) {
  if (b->failed || b->finished)
    return;
  char message[512], text[800];
  vsnprintf(message, sizeof(message), format, args);
  if (op)
    snprintf(text, sizeof(text), "%s: '%s' %s", b->name, op, message);
  else
    snprintf(text, sizeof(text), "%s: %s", b->name, message);
  mlirEmitError(b->location, text);
  b->failed = true;
}

__attribute__((format(printf, 3, 4))) static void fail(latch_builder *b, const char *op, const char *format,
                                                       ...) {
  va_list args;
  va_start(args, format);
  vfail(b, op, format, args);
  va_end(args);
}

void latch_builder_error(latch_builder *b, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vfail(b, NULL, format, args);
  va_end(args);
}

/* ---- locations --------------------------------------------------------------------------------- */

/* "<scope>.<local>" (or just <local> outside any scope) into out[size], truncated to fit. */
static void scoped_name(const char *scope, const char *local, char *out, size_t size) {
  size_t used = 0;
  if (scope[0]) {
    used = strlen(scope);
    if (used > size - 2)
      used = size - 2;
    memcpy(out, scope, used);
    out[used++] = '.';
  }
  size_t length = strlen(local);
  if (length > size - 1 - used)
    length = size - 1 - used;
  memcpy(out + used, local, length);
  out[used + length] = '\0';
}

void latch_builder_at(latch_builder *b, int line, const char *format, ...) {
  char local[NAME_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(local, sizeof(local), format, args);
  va_end(args);
  scoped_name(b->scope, local, b->name, sizeof(b->name));
  b->line = line;
  update_location(b);
}

void latch_builder_push_scope(latch_builder *b, const char *format, ...) {
  if (b->scope_depth >= MAX_SCOPES) {
    fail(b, NULL, "more than %d nested scopes", MAX_SCOPES);
    return;
  }
  char local[NAME_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(local, sizeof(local), format, args);
  va_end(args);
  size_t length = strlen(b->scope);
  b->scope_ends[b->scope_depth++] = length;
  snprintf(b->scope + length, sizeof(b->scope) - length, "%s%s", length ? "." : "", local);
}

void latch_builder_pop_scope(latch_builder *b) {
  if (b->scope_depth == 0) {
    fail(b, NULL, "scope popped more often than pushed");
    return;
  }
  b->scope[b->scope_ends[--b->scope_depth]] = '\0';
}

/* ---- arguments --------------------------------------------------------------------------------- */

static MlirNamedAttribute named(latch_builder *b, const char *name, MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(b->context, ref(name)), attr);
}

static bool check_shape(latch_builder *b, const char *what, latch_shape shape) {
  if (shape.rank < 0 || shape.rank > LATCH_MAX_RANK) {
    fail(b, NULL, "%s: rank %d is outside 0..%d", what, shape.rank, LATCH_MAX_RANK);
    return false;
  }
  for (int i = 0; i < shape.rank; ++i)
    if (shape.dims[i] <= 0) {
      fail(b, NULL, "%s: dimension %d is %lld; dimensions must be positive", what, i,
           (long long)shape.dims[i]);
      return false;
    }
  return true;
}

static MlirValue add_argument(latch_builder *b, const char *name, latch_shape shape, latch_dtype dtype,
                              intptr_t attr_count, const MlirNamedAttribute *attrs) {
  if (b->failed || b->finished)
    return null_value;
  if (b->map_depth) {
    fail(b, NULL, "argument '%s' declared inside a map body", name);
    return null_value;
  }
  if (!check_shape(b, name, shape))
    return null_value;
  if (dtype == LATCH_DTYPE_INVALID) {
    fail(b, NULL, "argument '%s' has no valid dtype", name);
    return null_value;
  }
  for (intptr_t i = 0; i < b->arg_count; ++i)
    if (strcmp(b->arg_names[i], name) == 0) {
      fail(b, NULL, "argument name '%s' declared twice", name);
      return null_value;
    }
  if (b->arg_count == b->arg_capacity) {
    intptr_t capacity = b->arg_capacity ? 2 * b->arg_capacity : 16;
    MlirAttribute *attrs_grown = realloc(b->arg_attrs, (size_t)capacity * sizeof(MlirAttribute));
    if (attrs_grown)
      b->arg_attrs = attrs_grown;
    char **names_grown = realloc(b->arg_names, (size_t)capacity * sizeof(char *));
    if (names_grown)
      b->arg_names = names_grown;
    if (!attrs_grown || !names_grown) {
      fail(b, NULL, "out of memory");
      return null_value;
    }
    b->arg_capacity = capacity;
  }
  char *copy = copy_string(name);
  if (!copy) {
    fail(b, NULL, "out of memory");
    return null_value;
  }
  b->arg_names[b->arg_count] = copy;
  b->arg_attrs[b->arg_count] = mlirDictionaryAttrGet(b->context, attr_count, attrs);
  b->arg_count++;
  MlirLocation file = mlirLocationFileLineColGet(b->context, ref(b->file), (unsigned)b->line, 0);
  MlirLocation loc = mlirLocationNameGet(b->context, ref(name), file);
  return mlirBlockAddArgument(b->entry, latch_tensor_type(b->context, shape, dtype), loc);
}

MlirValue latch_param(latch_builder *b, const char *name, latch_shape shape, latch_init init) {
  char full[NAME_SIZE];
  scoped_name(b->scope, name, full, sizeof(full));
  MlirNamedAttribute attrs[3];
  intptr_t count = 0;
  attrs[count++] = named(b, "task.param", mlirUnitAttrGet(b->context));
  attrs[count++] = named(b, "task.name", latch_attr_get_string(b->context, full));
  switch (init.kind) {
  case LATCH_INIT_NORMAL:
    if (!(init.std >= 0)) {
      fail(b, NULL, "parameter '%s': init_std must be >= 0", full);
      return null_value;
    }
    attrs[count++] = named(b, "task.init_std", latch_attr_get_float(b->context, init.std));
    break;
  case LATCH_INIT_ONES: attrs[count++] = named(b, "task.init", latch_attr_get_string(b->context, "ones")); break;
  case LATCH_INIT_ZEROS: attrs[count++] = named(b, "task.init", latch_attr_get_string(b->context, "zeros")); break;
  }
  return add_argument(b, full, shape, LATCH_F32, count, attrs);
}

MlirValue latch_input(latch_builder *b, const char *name, latch_shape shape, latch_dtype dtype) {
  MlirNamedAttribute attrs[1] = {named(b, "task.name", latch_attr_get_string(b->context, name))};
  return add_argument(b, name, shape, dtype, 1, attrs);
}

MlirValue latch_input_ids(latch_builder *b, const char *name, latch_shape shape, int64_t range) {
  if (range < 1) {
    fail(b, NULL, "input '%s': the id range must be at least 1", name);
    return null_value;
  }
  MlirNamedAttribute attrs[2] = {named(b, "task.name", latch_attr_get_string(b->context, name)),
                                 named(b, "task.range", latch_attr_get_int(b->context, range))};
  return add_argument(b, name, shape, LATCH_I32, 2, attrs);
}

/* ---- emitting ops ------------------------------------------------------------------------------ */

/* The dtype and shape of each operand of the op being built. */
typedef struct operand_info {
  latch_dtype dtype;
  latch_shape shape;
} operand_info;

/* Checks that the builder can take a task op `op` over `values`: not failed, not inside a map body,
 * every operand a static tensor of a Latch dtype. Fills `out`; false (after reporting) otherwise. */
static bool take(latch_builder *b, const char *op, intptr_t count, const MlirValue *values, operand_info *out) {
  if (b->failed || b->finished)
    return false;
  if (b->map_depth) {
    fail(b, op, "cannot be built inside a map body (only scalar ops can)");
    return false;
  }
  for (intptr_t i = 0; i < count; ++i) {
    if (mlirValueIsNull(values[i])) {
      fail(b, op, "operand #%d is a null value", (int)i);
      return false;
    }
    out[i].dtype = latch_value_dtype(values[i]);
    out[i].shape = latch_value_shape(values[i]);
    if (out[i].dtype == LATCH_DTYPE_INVALID) {
      fail(b, op, "operand #%d must be a static tensor of f32, bf16, i32 or f64 (rank <= %d)", (int)i,
           LATCH_MAX_RANK);
      return false;
    }
  }
  return true;
}

/* Runs the MLIR verifier (the IRDL definition) on a finished op; reports and fails when it rejects it.
 * The builder's own checks run first, so this catches what the dialect definition forbids beyond the
 * documented contract. */
static bool verified(latch_builder *b, MlirOperation op) {
  if (mlirOperationVerify(op))
    return true;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  char op_name[64];
  snprintf(op_name, sizeof(op_name), "%.*s", (int)name.length, name.data);
  fail(b, op_name, "is rejected by the dialect definition (see the diagnostic before this one)");
  return false;
}

/* Creates the op, appends it to the current block, verifies it (except a map, whose body comes later)
 * and returns it; a null op after reporting. */
static MlirOperation emit(latch_builder *b, latch_op_kind kind, intptr_t result_count,
                          const MlirType *result_types, intptr_t operand_count, const MlirValue *operands,
                          const MlirAttribute *attrs) {
  MlirOperation op = latch_op_create(kind, b->location, result_count, result_types, operand_count, operands,
                                     attrs);
  if (mlirOperationIsNull(op)) {
    fail(b, latch_op_desc_get(kind)->name, "does not match its op table entry (a builder defect)");
    return op;
  }
  mlirBlockAppendOwnedOperation(b->block, op);
  if (kind != LATCH_OP_TASK_MAP && !verified(b, op))
    return (MlirOperation){NULL};
  return op;
}

static MlirValue emit1(latch_builder *b, latch_op_kind kind, latch_shape shape, latch_dtype dtype,
                       intptr_t operand_count, const MlirValue *operands, const MlirAttribute *attrs) {
  MlirType type = latch_tensor_type(b->context, shape, dtype);
  MlirOperation op = emit(b, kind, 1, &type, operand_count, operands, attrs);
  return mlirOperationIsNull(op) ? null_value : mlirOperationGetResult(op, 0);
}

#define NAME(kind) (latch_op_desc_get(LATCH_OP_##kind)->name)

MlirValue latch_matmul_to(latch_builder *b, MlirValue a, MlirValue bm, bool transpose_a, bool transpose_b,
                          latch_dtype result) {
  const char *op = NAME(TASK_MATMUL);
  MlirValue operands[2] = {a, bm};
  operand_info in[2];
  if (!take(b, op, 2, operands, in))
    return null_value;
  int rank = in[0].shape.rank;
  if (rank < 2 || rank > 3 || in[1].shape.rank != rank) {
    fail(b, op, "operands must both be rank 2, or both rank 3 (leading batch dimension); got %s and %s",
         TYPE_TEXT(in[0].shape, in[0].dtype), TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  if (!is_float(in[0].dtype) || in[0].dtype != in[1].dtype) {
    fail(b, op, "a and b must have the same float dtype; got %s and %s", latch_dtype_name(in[0].dtype),
         latch_dtype_name(in[1].dtype));
    return null_value;
  }
  if (result != LATCH_F32 && result != in[0].dtype) {
    fail(b, op, "the result dtype must be f32 or the inputs' dtype %s; got %s", latch_dtype_name(in[0].dtype),
         latch_dtype_name(result));
    return null_value;
  }
  const int64_t *da = in[0].shape.dims, *db = in[1].shape.dims;
  int64_t m = da[rank - (transpose_a ? 1 : 2)], ka = da[rank - (transpose_a ? 2 : 1)];
  int64_t kb = db[rank - (transpose_b ? 1 : 2)], n = db[rank - (transpose_b ? 2 : 1)];
  if (ka != kb) {
    fail(b, op, "inner dimensions differ: %lld (a%s) vs %lld (b%s)", (long long)ka,
         transpose_a ? ", transposed" : "", (long long)kb, transpose_b ? ", transposed" : "");
    return null_value;
  }
  if (rank == 3 && da[0] != db[0]) {
    fail(b, op, "batch dimensions differ: %lld vs %lld", (long long)da[0], (long long)db[0]);
    return null_value;
  }
  latch_shape shape = rank == 3 ? LATCH_SHAPE(da[0], m, n) : LATCH_SHAPE(m, n);
  MlirAttribute attrs[2] = {latch_attr_get_bool(b->context, transpose_a),
                            latch_attr_get_bool(b->context, transpose_b)};
  return emit1(b, LATCH_OP_TASK_MATMUL, shape, result, 2, operands, attrs);
}

MlirValue latch_matmul(latch_builder *b, MlirValue a, MlirValue bm, bool transpose_a, bool transpose_b) {
  return latch_matmul_to(b, a, bm, transpose_a, transpose_b, LATCH_F32);
}

MlirValue latch_grouped_matmul(latch_builder *b, MlirValue x, MlirValue w, MlirValue ends) {
  const char *op = NAME(TASK_GROUPED_MATMUL);
  MlirValue operands[3] = {x, w, ends};
  operand_info in[3];
  if (!take(b, op, 3, operands, in))
    return null_value;
  if (in[0].shape.rank != 2 || in[1].shape.rank != 3 || in[2].shape.rank != 1) {
    fail(b, op, "expects x[R,K], w[G,K,N], ends[G]; got %s, %s, %s", TYPE_TEXT(in[0].shape, in[0].dtype),
         TYPE_TEXT(in[1].shape, in[1].dtype), TYPE_TEXT(in[2].shape, in[2].dtype));
    return null_value;
  }
  if (!is_float(in[0].dtype) || in[0].dtype != in[1].dtype) {
    fail(b, op, "x and w must have the same float dtype; got %s and %s", latch_dtype_name(in[0].dtype),
         latch_dtype_name(in[1].dtype));
    return null_value;
  }
  if (in[2].dtype != LATCH_I32 || in[2].shape.dims[0] != in[1].shape.dims[0]) {
    fail(b, op, "ends must be i32[%lld] (one end per group of w); got %s", (long long)in[1].shape.dims[0],
         TYPE_TEXT(in[2].shape, in[2].dtype));
    return null_value;
  }
  if (in[0].shape.dims[1] != in[1].shape.dims[1]) {
    fail(b, op, "inner dimensions differ: %lld (x) vs %lld (w)", (long long)in[0].shape.dims[1],
         (long long)in[1].shape.dims[1]);
    return null_value;
  }
  return emit1(b, LATCH_OP_TASK_GROUPED_MATMUL, LATCH_SHAPE(in[0].shape.dims[0], in[1].shape.dims[2]),
               LATCH_F32, 3, operands, NULL);
}

MlirValue latch_reduce(latch_builder *b, MlirValue x, int64_t axis, const char *kind) {
  const char *op = NAME(TASK_REDUCE);
  operand_info in[1];
  if (!take(b, op, 1, &x, in))
    return null_value;
  if (axis < 0 || axis >= in[0].shape.rank) {
    fail(b, op, "axis %lld is outside 0..%d", (long long)axis, in[0].shape.rank - 1);
    return null_value;
  }
  if (strcmp(kind, "sum") != 0 && strcmp(kind, "max") != 0 && strcmp(kind, "mean") != 0) {
    fail(b, op, "kind must be \"sum\", \"max\" or \"mean\"; got \"%s\"", kind);
    return null_value;
  }
  latch_shape shape = {0, {0}};
  for (int i = 0; i < in[0].shape.rank; ++i)
    if (i != axis)
      shape.dims[shape.rank++] = in[0].shape.dims[i];
  MlirAttribute attrs[2] = {latch_attr_get_int(b->context, axis), latch_attr_get_string(b->context, kind)};
  return emit1(b, LATCH_OP_TASK_REDUCE, shape, in[0].dtype, 1, &x, attrs);
}

MlirValue latch_rmsnorm(latch_builder *b, MlirValue x, MlirValue w, double eps) {
  const char *op = NAME(TASK_RMSNORM);
  MlirValue operands[2] = {x, w};
  operand_info in[2];
  if (!take(b, op, 2, operands, in))
    return null_value;
  if (in[0].shape.rank < 1 || !is_float(in[0].dtype) || !is_float(in[1].dtype)) {
    fail(b, op, "x must be a float tensor of rank >= 1 and w a float tensor; got %s and %s",
         TYPE_TEXT(in[0].shape, in[0].dtype), TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  int64_t d = in[0].shape.dims[in[0].shape.rank - 1];
  if (in[1].shape.rank != 1 || in[1].shape.dims[0] != d) {
    fail(b, op, "w must be [%lld] (the last dim of x); got %s", (long long)d, TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  if (!(eps > 0)) {
    fail(b, op, "eps must be > 0; got %g", eps);
    return null_value;
  }
  MlirAttribute attrs[1] = {latch_attr_get_float(b->context, eps)};
  return emit1(b, LATCH_OP_TASK_RMSNORM, in[0].shape, in[0].dtype, 2, operands, attrs);
}

MlirValue latch_softmax(latch_builder *b, MlirValue x) {
  const char *op = NAME(TASK_SOFTMAX);
  operand_info in[1];
  if (!take(b, op, 1, &x, in))
    return null_value;
  if (in[0].shape.rank < 1 || !is_float(in[0].dtype)) {
    fail(b, op, "x must be a float tensor of rank >= 1; got %s", TYPE_TEXT(in[0].shape, in[0].dtype));
    return null_value;
  }
  return emit1(b, LATCH_OP_TASK_SOFTMAX, in[0].shape, in[0].dtype, 1, &x, NULL);
}

MlirValue latch_cross_entropy(latch_builder *b, MlirValue logits, MlirValue targets) {
  const char *op = NAME(TASK_CROSS_ENTROPY);
  MlirValue operands[2] = {logits, targets};
  operand_info in[2];
  if (!take(b, op, 2, operands, in))
    return null_value;
  if (in[0].shape.rank != 2 || !is_float(in[0].dtype)) {
    fail(b, op, "logits must be a float [N,V]; got %s", TYPE_TEXT(in[0].shape, in[0].dtype));
    return null_value;
  }
  if (in[1].shape.rank != 1 || in[1].dtype != LATCH_I32 || in[1].shape.dims[0] != in[0].shape.dims[0]) {
    fail(b, op, "targets must be i32[%lld]; got %s", (long long)in[0].shape.dims[0],
         TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  return emit1(b, LATCH_OP_TASK_CROSS_ENTROPY, LATCH_SCALAR, LATCH_F32, 2, operands, NULL);
}

MlirValue latch_embedding(latch_builder *b, MlirValue table, MlirValue ids) {
  const char *op = NAME(TASK_EMBEDDING);
  MlirValue operands[2] = {table, ids};
  operand_info in[2];
  if (!take(b, op, 2, operands, in))
    return null_value;
  if (in[0].shape.rank != 2) {
    fail(b, op, "table must be [V,D]; got %s", TYPE_TEXT(in[0].shape, in[0].dtype));
    return null_value;
  }
  if (in[1].dtype != LATCH_I32 || in[1].shape.rank >= LATCH_MAX_RANK) {
    fail(b, op, "ids must be an i32 tensor of rank < %d; got %s", LATCH_MAX_RANK,
         TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  latch_shape shape = in[1].shape;
  shape.dims[shape.rank++] = in[0].shape.dims[1];
  return emit1(b, LATCH_OP_TASK_EMBEDDING, shape, in[0].dtype, 2, operands, NULL);
}

MlirValue latch_rope(latch_builder *b, MlirValue x, double theta) {
  const char *op = NAME(TASK_ROPE);
  operand_info in[1];
  if (!take(b, op, 1, &x, in))
    return null_value;
  if (in[0].shape.rank != 4 || !is_float(in[0].dtype)) {
    fail(b, op, "x must be a float [B,T,H,hd]; got %s", TYPE_TEXT(in[0].shape, in[0].dtype));
    return null_value;
  }
  if (in[0].shape.dims[3] % 2 != 0) {
    fail(b, op, "the head dim must be even; got %lld", (long long)in[0].shape.dims[3]);
    return null_value;
  }
  if (!(theta > 0)) {
    fail(b, op, "theta must be > 0; got %g", theta);
    return null_value;
  }
  MlirAttribute attrs[1] = {latch_attr_get_float(b->context, theta)};
  return emit1(b, LATCH_OP_TASK_ROPE, in[0].shape, in[0].dtype, 1, &x, attrs);
}

MlirValue latch_attention(latch_builder *b, MlirValue q, MlirValue k, MlirValue v, bool causal, double scale) {
  const char *op = NAME(TASK_ATTENTION);
  MlirValue operands[3] = {q, k, v};
  operand_info in[3];
  if (!take(b, op, 3, operands, in))
    return null_value;
  for (int i = 0; i < 3; ++i)
    if (in[i].shape.rank != 4 || !is_float(in[i].dtype) || in[i].dtype != in[0].dtype) {
      fail(b, op, "q, k, v must be [B,H,T,hd] of one float dtype; got %s, %s, %s",
           TYPE_TEXT(in[0].shape, in[0].dtype), TYPE_TEXT(in[1].shape, in[1].dtype),
           TYPE_TEXT(in[2].shape, in[2].dtype));
      return null_value;
    }
  const int64_t *dq = in[0].shape.dims, *dk = in[1].shape.dims, *dv = in[2].shape.dims;
  if (dk[0] != dq[0] || dv[0] != dq[0] || dk[1] != dq[1] || dv[1] != dq[1] || dk[3] != dq[3] ||
      dv[3] != dq[3] || dk[2] != dv[2]) {
    fail(b, op, "k and v must be [%lld,%lld,Tk,%lld] with one Tk; got %s and %s", (long long)dq[0],
         (long long)dq[1], (long long)dq[3], TYPE_TEXT(in[1].shape, in[1].dtype),
         TYPE_TEXT(in[2].shape, in[2].dtype));
    return null_value;
  }
  if (causal && dk[2] != dq[2]) {
    fail(b, op, "causal attention needs one sequence length for q and k; got %lld and %lld", (long long)dq[2],
         (long long)dk[2]);
    return null_value;
  }
  if (!isfinite(scale)) {
    fail(b, op, "scale must be finite; got %g", scale);
    return null_value;
  }
  MlirAttribute attrs[2] = {latch_attr_get_bool(b->context, causal), latch_attr_get_float(b->context, scale)};
  return emit1(b, LATCH_OP_TASK_ATTENTION, in[0].shape, in[0].dtype, 3, operands, attrs);
}

void latch_topk(latch_builder *b, MlirValue x, int64_t k, MlirValue *out_values, MlirValue *out_indices) {
  const char *op = NAME(TASK_TOPK);
  *out_values = *out_indices = null_value;
  operand_info in[1];
  if (!take(b, op, 1, &x, in))
    return;
  if (in[0].shape.rank != 2 || !is_float(in[0].dtype)) {
    fail(b, op, "x must be a float [N,E]; got %s", TYPE_TEXT(in[0].shape, in[0].dtype));
    return;
  }
  if (k < 1 || k > in[0].shape.dims[1]) {
    fail(b, op, "k must be in 1..%lld; got %lld", (long long)in[0].shape.dims[1], (long long)k);
    return;
  }
  latch_shape shape = LATCH_SHAPE(in[0].shape.dims[0], k);
  MlirType types[2] = {latch_tensor_type(b->context, shape, in[0].dtype),
                       latch_tensor_type(b->context, shape, LATCH_I32)};
  MlirAttribute attrs[1] = {latch_attr_get_int(b->context, k)};
  MlirOperation created = emit(b, LATCH_OP_TASK_TOPK, 2, types, 1, &x, attrs);
  if (mlirOperationIsNull(created))
    return;
  *out_values = mlirOperationGetResult(created, 0);
  *out_indices = mlirOperationGetResult(created, 1);
}

void latch_bucket(latch_builder *b, MlirValue ids, int64_t buckets, MlirValue *out_order, MlirValue *out_ends) {
  const char *op = NAME(TASK_BUCKET);
  *out_order = *out_ends = null_value;
  operand_info in[1];
  if (!take(b, op, 1, &ids, in))
    return;
  if (in[0].shape.rank != 2 || in[0].dtype != LATCH_I32) {
    fail(b, op, "ids must be i32[N,k]; got %s", TYPE_TEXT(in[0].shape, in[0].dtype));
    return;
  }
  if (buckets < 1) {
    fail(b, op, "buckets must be >= 1; got %lld", (long long)buckets);
    return;
  }
  MlirType types[2] = {
      latch_tensor_type(b->context, LATCH_SHAPE(in[0].shape.dims[0] * in[0].shape.dims[1]), LATCH_I32),
      latch_tensor_type(b->context, LATCH_SHAPE(buckets), LATCH_I32)};
  MlirAttribute attrs[1] = {latch_attr_get_int(b->context, buckets)};
  MlirOperation created = emit(b, LATCH_OP_TASK_BUCKET, 2, types, 1, &ids, attrs);
  if (mlirOperationIsNull(created))
    return;
  *out_order = mlirOperationGetResult(created, 0);
  *out_ends = mlirOperationGetResult(created, 1);
}

MlirValue latch_gather_rows(latch_builder *b, MlirValue x, MlirValue idx) {
  const char *op = NAME(TASK_GATHER_ROWS);
  MlirValue operands[2] = {x, idx};
  operand_info in[2];
  if (!take(b, op, 2, operands, in))
    return null_value;
  if (in[0].shape.rank != 2 || in[1].shape.rank != 1 || in[1].dtype != LATCH_I32) {
    fail(b, op, "expects x[R,D] and idx i32[S]; got %s and %s", TYPE_TEXT(in[0].shape, in[0].dtype),
         TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  return emit1(b, LATCH_OP_TASK_GATHER_ROWS, LATCH_SHAPE(in[1].shape.dims[0], in[0].shape.dims[1]),
               in[0].dtype, 2, operands, NULL);
}

MlirValue latch_scatter_add_rows(latch_builder *b, MlirValue x, MlirValue idx, int64_t rows) {
  const char *op = NAME(TASK_SCATTER_ADD_ROWS);
  MlirValue operands[2] = {x, idx};
  operand_info in[2];
  if (!take(b, op, 2, operands, in))
    return null_value;
  if (in[0].shape.rank != 2 || in[1].shape.rank != 1 || in[1].dtype != LATCH_I32 ||
      in[1].shape.dims[0] != in[0].shape.dims[0]) {
    fail(b, op, "expects x[S,D] and idx i32[S]; got %s and %s", TYPE_TEXT(in[0].shape, in[0].dtype),
         TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  if (rows < 1) {
    fail(b, op, "rows must be >= 1; got %lld", (long long)rows);
    return null_value;
  }
  MlirAttribute attrs[1] = {latch_attr_get_int(b->context, rows)};
  return emit1(b, LATCH_OP_TASK_SCATTER_ADD_ROWS, LATCH_SHAPE(rows, in[0].shape.dims[1]), in[0].dtype, 2,
               operands, attrs);
}

MlirValue latch_reshape(latch_builder *b, MlirValue x, latch_shape shape) {
  const char *op = NAME(TASK_RESHAPE);
  operand_info in[1];
  if (!take(b, op, 1, &x, in) || !check_shape(b, op, shape))
    return null_value;
  if (latch_shape_elements(shape) != latch_shape_elements(in[0].shape)) {
    fail(b, op, "cannot reshape %s to %s: element counts differ", TYPE_TEXT(in[0].shape, in[0].dtype),
         TYPE_TEXT(shape, in[0].dtype));
    return null_value;
  }
  return emit1(b, LATCH_OP_TASK_RESHAPE, shape, in[0].dtype, 1, &x, NULL);
}

MlirValue latch_transpose(latch_builder *b, MlirValue x, latch_shape perm) {
  const char *op = NAME(TASK_TRANSPOSE);
  operand_info in[1];
  if (!take(b, op, 1, &x, in))
    return null_value;
  bool seen[LATCH_MAX_RANK] = {false};
  bool ok = perm.rank == in[0].shape.rank;
  for (int i = 0; ok && i < perm.rank; ++i) {
    ok = perm.dims[i] >= 0 && perm.dims[i] < perm.rank && !seen[perm.dims[i]];
    if (ok)
      seen[perm.dims[i]] = true;
  }
  if (!ok) {
    fail(b, op, "perm must be a permutation of 0..%d", in[0].shape.rank - 1);
    return null_value;
  }
  latch_shape shape = {perm.rank, {0}};
  for (int i = 0; i < perm.rank; ++i)
    shape.dims[i] = in[0].shape.dims[perm.dims[i]];
  MlirAttribute attrs[1] = {latch_attr_get_i64_array(b->context, perm.rank, perm.dims)};
  return emit1(b, LATCH_OP_TASK_TRANSPOSE, shape, in[0].dtype, 1, &x, attrs);
}

MlirValue latch_convert(latch_builder *b, MlirValue x, latch_dtype dtype) {
  const char *op = NAME(TASK_CONVERT);
  operand_info in[1];
  if (!take(b, op, 1, &x, in))
    return null_value;
  if (dtype == LATCH_DTYPE_INVALID) {
    fail(b, op, "needs a valid target dtype");
    return null_value;
  }
  return emit1(b, LATCH_OP_TASK_CONVERT, in[0].shape, dtype, 1, &x, NULL);
}

void latch_adamw(latch_builder *b, MlirValue p, MlirValue g, MlirValue m, MlirValue v, MlirValue step,
                 const latch_adamw_config *config, MlirValue *out_p, MlirValue *out_m, MlirValue *out_v) {
  const char *op = NAME(TASK_ADAMW);
  *out_p = *out_m = *out_v = null_value;
  MlirValue operands[5] = {p, g, m, v, step};
  operand_info in[5];
  if (!take(b, op, 5, operands, in))
    return;
  for (int i = 1; i < 4; ++i)
    if (in[i].dtype != LATCH_F32 || in[0].dtype != LATCH_F32 || !shapes_equal(in[i].shape, in[0].shape)) {
      fail(b, op, "p, g, m, v must be f32 of one shape; got %s, %s, %s, %s", TYPE_TEXT(in[0].shape, in[0].dtype),
           TYPE_TEXT(in[1].shape, in[1].dtype), TYPE_TEXT(in[2].shape, in[2].dtype),
           TYPE_TEXT(in[3].shape, in[3].dtype));
      return;
    }
  if (in[4].shape.rank != 0 || (in[4].dtype != LATCH_F32 && in[4].dtype != LATCH_I32)) {
    fail(b, op, "step must be a rank-0 f32 or i32 tensor; got %s", TYPE_TEXT(in[4].shape, in[4].dtype));
    return;
  }
  const latch_adamw_config *c = config;
  if (!(c->lr > 0) || !(c->eps > 0) || !(c->beta1 >= 0 && c->beta1 < 1) || !(c->beta2 >= 0 && c->beta2 < 1) ||
      !(c->weight_decay >= 0)) {
    fail(b, op, "needs lr > 0, eps > 0, 0 <= beta1, beta2 < 1 and weight_decay >= 0");
    return;
  }
  MlirType type = latch_tensor_type(b->context, in[0].shape, LATCH_F32);
  MlirType types[3] = {type, type, type};
  MlirAttribute attrs[5] = {latch_attr_get_float(b->context, c->lr), latch_attr_get_float(b->context, c->beta1),
                            latch_attr_get_float(b->context, c->beta2), latch_attr_get_float(b->context, c->eps),
                            latch_attr_get_float(b->context, c->weight_decay)};
  MlirOperation created = emit(b, LATCH_OP_TASK_ADAMW, 3, types, 5, operands, attrs);
  if (mlirOperationIsNull(created))
    return;
  *out_p = mlirOperationGetResult(created, 0);
  *out_m = mlirOperationGetResult(created, 1);
  *out_v = mlirOperationGetResult(created, 2);
}

/* ---- maps -------------------------------------------------------------------------------------- */

#define MAX_MAP_VALUES (LATCH_MAP_MAX_INPUTS > LATCH_MAP_MAX_OUTPUTS ? LATCH_MAP_MAX_INPUTS : LATCH_MAP_MAX_OUTPUTS)

bool latch_map(latch_builder *b, intptr_t in_count, const MlirValue *ins, intptr_t out_count,
               const latch_dtype *out_dtypes, latch_shape shape, latch_map_body_fn body, void *user_data,
               MlirValue *outs) {
  const char *op = NAME(TASK_MAP);
  for (intptr_t i = 0; i < out_count; ++i)
    outs[i] = null_value;
  operand_info in[MAX_MAP_VALUES];
  if (in_count < 0 || in_count > LATCH_MAP_MAX_INPUTS || out_count < 1 || out_count > LATCH_MAP_MAX_OUTPUTS) {
    fail(b, op, "takes 0..%d inputs and 1..%d outputs; got %d and %d", LATCH_MAP_MAX_INPUTS,
         LATCH_MAP_MAX_OUTPUTS, (int)in_count, (int)out_count);
    return false;
  }
  if (!take(b, op, in_count, ins, in))
    return false;
  /* The outputs' shape: that of the non-rank-0 inputs, which must agree. */
  bool shaped = false;
  latch_shape out_shape = shape;
  for (intptr_t i = 0; i < in_count; ++i) {
    if (in[i].shape.rank == 0)
      continue;
    if (shaped && !shapes_equal(in[i].shape, out_shape)) {
      fail(b, op, "inputs must have one shape (rank-0 inputs broadcast); got %s and %s",
           TYPE_TEXT(out_shape, in[0].dtype), TYPE_TEXT(in[i].shape, in[i].dtype));
      return false;
    }
    out_shape = in[i].shape;
    shaped = true;
  }
  if (!shaped && !check_shape(b, op, out_shape))
    return false;
  MlirType result_types[MAX_MAP_VALUES], arg_types[MAX_MAP_VALUES];
  MlirLocation arg_locs[MAX_MAP_VALUES];
  for (intptr_t i = 0; i < out_count; ++i) {
    if (out_dtypes[i] == LATCH_DTYPE_INVALID) {
      fail(b, op, "output #%d has no valid dtype", (int)i);
      return false;
    }
    result_types[i] = latch_tensor_type(b->context, out_shape, out_dtypes[i]);
  }
  for (intptr_t i = 0; i < in_count; ++i) {
    arg_types[i] = latch_dtype_type(b->context, in[i].dtype);
    arg_locs[i] = b->location;
  }
  MlirOperation map = emit(b, LATCH_OP_TASK_MAP, out_count, result_types, in_count, ins, NULL);
  if (mlirOperationIsNull(map))
    return false;
  MlirBlock block = mlirBlockCreate(in_count, arg_types, arg_locs);
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(map, 0), block);

  MlirValue args[MAX_MAP_VALUES], results[MAX_MAP_VALUES];
  for (intptr_t i = 0; i < in_count; ++i)
    args[i] = mlirBlockGetArgument(block, i);
  for (intptr_t i = 0; i < out_count; ++i)
    results[i] = null_value;
  MlirBlock saved = b->block;
  b->block = block;
  b->map_depth++;
  body(b, args, results, user_data);
  b->map_depth--;
  b->block = saved;
  if (b->failed)
    return false;
  for (intptr_t i = 0; i < out_count; ++i) {
    MlirType expected = latch_dtype_type(b->context, out_dtypes[i]);
    if (mlirValueIsNull(results[i]) || !mlirTypeEqual(mlirValueGetType(results[i]), expected)) {
      fail(b, op, "the body must give output #%d a scalar of type %s", (int)i, latch_dtype_name(out_dtypes[i]));
      return false;
    }
  }
  MlirOperationState yield = mlirOperationStateGet(ref("gpu.yield"), b->location);
  mlirOperationStateAddOperands(&yield, out_count, results);
  mlirBlockAppendOwnedOperation(block, mlirOperationCreate(&yield));
  if (!verified(b, map))
    return false;
  for (intptr_t i = 0; i < out_count; ++i)
    outs[i] = mlirOperationGetResult(map, i);
  return true;
}

/* One scalar op `name` of result type `type` in the current map body. */
static MlirValue scalar_op(latch_builder *b, const char *name, MlirType type, intptr_t count,
                           const MlirValue *operands) {
  MlirOperationState state = mlirOperationStateGet(ref(name), b->location);
  mlirOperationStateAddResults(&state, 1, &type);
  mlirOperationStateAddOperands(&state, count, operands);
  MlirOperation op = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(b->block, op);
  return mlirOperationGetResult(op, 0);
}

static const char *fn_name(latch_fn fn) {
  static const char *const names[] = {"add", "sub", "mul", "div", "max", "min", "neg", "exp",
                                      "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "relu", "square"};
  return (unsigned)fn < sizeof(names) / sizeof(names[0]) ? names[fn] : "?";
}

static bool scalar_ready(latch_builder *b, latch_fn fn, intptr_t count, const MlirValue *values) {
  if (b->failed || b->finished)
    return false;
  if (!b->map_depth) {
    fail(b, NULL, "scalar op '%s' outside a map body", fn_name(fn));
    return false;
  }
  for (intptr_t i = 0; i < count; ++i)
    if (mlirValueIsNull(values[i]) || latch_type_dtype(mlirValueGetType(values[i])) == LATCH_DTYPE_INVALID ||
        mlirTypeIsAShaped(mlirValueGetType(values[i]))) {
      fail(b, NULL, "scalar op '%s': operand #%d is not a scalar of a Latch dtype", fn_name(fn), (int)i);
      return false;
    }
  return true;
}

MlirValue latch_s_const(latch_builder *b, MlirType type, double value) {
  if (b->failed || b->finished)
    return null_value;
  if (!b->map_depth) {
    fail(b, NULL, "scalar constant outside a map body");
    return null_value;
  }
  latch_dtype dtype = latch_type_dtype(type);
  if (dtype == LATCH_DTYPE_INVALID || mlirTypeIsAShaped(type)) {
    fail(b, NULL, "scalar constant of a type that is not a Latch scalar dtype");
    return null_value;
  }
  MlirAttribute attr = dtype == LATCH_I32 ? mlirIntegerAttrGet(type, (int64_t)value)
                                          : mlirFloatAttrDoubleGet(b->context, type, value);
  MlirOperationState state = mlirOperationStateGet(ref("arith.constant"), b->location);
  mlirOperationStateAddResults(&state, 1, &type);
  MlirNamedAttribute value_attr = named(b, "value", attr);
  mlirOperationStateAddAttributes(&state, 1, &value_attr);
  MlirOperation op = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(b->block, op);
  return mlirOperationGetResult(op, 0);
}

MlirValue latch_s_apply2(latch_builder *b, latch_fn fn, MlirValue x, MlirValue y) {
  MlirValue operands[2] = {x, y};
  if (!scalar_ready(b, fn, 2, operands))
    return null_value;
  MlirType type = mlirValueGetType(x);
  if (!mlirTypeEqual(type, mlirValueGetType(y))) {
    fail(b, NULL, "scalar op '%s': operands have different types", fn_name(fn));
    return null_value;
  }
  bool integer = latch_type_dtype(type) == LATCH_I32;
  const char *name = NULL;
  switch (fn) {
  case LATCH_FN_ADD: name = integer ? "arith.addi" : "arith.addf"; break;
  case LATCH_FN_SUB: name = integer ? "arith.subi" : "arith.subf"; break;
  case LATCH_FN_MUL: name = integer ? "arith.muli" : "arith.mulf"; break;
  case LATCH_FN_DIV: name = integer ? "arith.divsi" : "arith.divf"; break;
  case LATCH_FN_MAX: name = integer ? "arith.maxsi" : "arith.maximumf"; break;
  case LATCH_FN_MIN: name = integer ? "arith.minsi" : "arith.minimumf"; break;
  default:
    fail(b, NULL, "scalar op '%s' is not binary", fn_name(fn));
    return null_value;
  }
  return scalar_op(b, name, type, 2, operands);
}

MlirValue latch_s_apply1(latch_builder *b, latch_fn fn, MlirValue x) {
  if (!scalar_ready(b, fn, 1, &x))
    return null_value;
  MlirType type = mlirValueGetType(x);
  bool integer = latch_type_dtype(type) == LATCH_I32;
  switch (fn) {
  case LATCH_FN_NEG:
    if (integer)
      return latch_s_apply2(b, LATCH_FN_SUB, latch_s_const(b, type, 0), x);
    return scalar_op(b, "arith.negf", type, 1, &x);
  case LATCH_FN_RELU: return latch_s_apply2(b, LATCH_FN_MAX, x, latch_s_const(b, type, 0));
  case LATCH_FN_SQUARE: return latch_s_apply2(b, LATCH_FN_MUL, x, x);
  default: break;
  }
  if (integer) {
    fail(b, NULL, "scalar op '%s' needs a float operand", fn_name(fn));
    return null_value;
  }
  switch (fn) {
  case LATCH_FN_EXP: return scalar_op(b, "math.exp", type, 1, &x);
  case LATCH_FN_LOG: return scalar_op(b, "math.log", type, 1, &x);
  case LATCH_FN_SQRT: return scalar_op(b, "math.sqrt", type, 1, &x);
  case LATCH_FN_RSQRT: return scalar_op(b, "math.rsqrt", type, 1, &x);
  case LATCH_FN_TANH: return scalar_op(b, "math.tanh", type, 1, &x);
  case LATCH_FN_SIGMOID:
  case LATCH_FN_SILU: {
    /* 1 + exp(-x), then 1 / that (sigmoid) or x / that (silu). */
    MlirValue negated = scalar_op(b, "arith.negf", type, 1, &x);
    MlirValue e = scalar_op(b, "math.exp", type, 1, &negated);
    MlirValue denominator = latch_s_apply2(b, LATCH_FN_ADD, latch_s_const(b, type, 1.0), e);
    MlirValue numerator = fn == LATCH_FN_SILU ? x : latch_s_const(b, type, 1.0);
    return latch_s_apply2(b, LATCH_FN_DIV, numerator, denominator);
  }
  default:
    fail(b, NULL, "scalar op '%s' is not unary", fn_name(fn));
    return null_value;
  }
}

MlirValue latch_s_convert(latch_builder *b, MlirValue x, latch_dtype dtype) {
  if (!scalar_ready(b, LATCH_FN_ADD, 1, &x))
    return null_value;
  latch_dtype from = latch_type_dtype(mlirValueGetType(x));
  MlirType type = latch_dtype_type(b->context, dtype);
  if (dtype == LATCH_DTYPE_INVALID) {
    fail(b, NULL, "scalar convert needs a valid target dtype");
    return null_value;
  }
  if (from == dtype)
    return x;
  if (from == LATCH_I32)
    return scalar_op(b, "arith.sitofp", type, 1, &x);
  if (dtype == LATCH_I32)
    return scalar_op(b, "arith.fptosi", type, 1, &x);
  /* float -> float: widen or narrow by bit width (bf16 16 < f32 32 < f64 64). */
  int width_from = from == LATCH_BF16 ? 16 : from == LATCH_F32 ? 32 : 64;
  int width_to = dtype == LATCH_BF16 ? 16 : dtype == LATCH_F32 ? 32 : 64;
  return scalar_op(b, width_to > width_from ? "arith.extf" : "arith.truncf", type, 1, &x);
}

/* Bodies of the one-line maps. */
typedef struct simple_body {
  latch_fn fn;
  double constant;
  latch_dtype dtype; /* of the constant of a fill */
} simple_body;

static void body_unary(latch_builder *b, const MlirValue *args, MlirValue *out, void *user) {
  out[0] = latch_s_apply1(b, ((simple_body *)user)->fn, args[0]);
}

static void body_binary(latch_builder *b, const MlirValue *args, MlirValue *out, void *user) {
  out[0] = latch_s_apply2(b, ((simple_body *)user)->fn, args[0], args[1]);
}

static void body_constant(latch_builder *b, const MlirValue *args, MlirValue *out, void *user) {
  simple_body *s = user;
  out[0] = latch_s_apply2(b, s->fn, args[0], latch_s_const(b, mlirValueGetType(args[0]), s->constant));
}

static void body_fill(latch_builder *b, const MlirValue *args, MlirValue *out, void *user) {
  (void)args;
  simple_body *s = user;
  out[0] = latch_s_const(b, latch_dtype_type(b->context, s->dtype), s->constant);
}

MlirValue latch_map1(latch_builder *b, MlirValue x, latch_fn fn) {
  simple_body s = {fn, 0, LATCH_F32};
  latch_dtype dtype = latch_value_dtype(x);
  MlirValue out = null_value;
  latch_map(b, 1, &x, 1, &dtype, LATCH_SCALAR, body_unary, &s, &out);
  return out;
}

MlirValue latch_map2(latch_builder *b, MlirValue x, MlirValue y, latch_fn fn) {
  simple_body s = {fn, 0, LATCH_F32};
  latch_dtype dtype = latch_value_dtype(x);
  MlirValue ins[2] = {x, y}, out = null_value;
  latch_map(b, 2, ins, 1, &dtype, LATCH_SCALAR, body_binary, &s, &out);
  return out;
}

MlirValue latch_map_const(latch_builder *b, MlirValue x, latch_fn fn, double c) {
  simple_body s = {fn, c, LATCH_F32};
  latch_dtype dtype = latch_value_dtype(x);
  MlirValue out = null_value;
  latch_map(b, 1, &x, 1, &dtype, LATCH_SCALAR, body_constant, &s, &out);
  return out;
}

/* ---- composites -------------------------------------------------------------------------------- */

MlirValue latch_fill(latch_builder *b, latch_shape shape, latch_dtype dtype, double value) {
  simple_body s = {LATCH_FN_ADD, value, dtype};
  MlirValue out = null_value;
  latch_map(b, 0, NULL, 1, &dtype, shape, body_fill, &s, &out);
  return out;
}

bool latch_split_last(latch_builder *b, MlirValue x, int64_t parts, MlirValue *outs) {
  for (int64_t p = 0; p < parts; ++p)
    outs[p] = null_value;
  operand_info in[1];
  if (!take(b, "split_last", 1, &x, in))
    return false;
  latch_shape shape = in[0].shape;
  if (shape.rank < 1 || parts < 1 || shape.dims[shape.rank - 1] % parts != 0) {
    fail(b, "split_last", "cannot split %s into %lld equal parts along the last dim",
         TYPE_TEXT(shape, in[0].dtype), (long long)parts);
    return false;
  }
  if (parts == 1) {
    outs[0] = x;
    return true;
  }
  int64_t f = shape.dims[shape.rank - 1] / parts;
  int64_t rows = latch_shape_elements(shape) / shape.dims[shape.rank - 1];
  MlirValue stacked = latch_reshape(b, x, LATCH_SHAPE(rows, parts, f));
  stacked = latch_transpose(b, stacked, LATCH_PERM(1, 0, 2));
  stacked = latch_reshape(b, stacked, LATCH_SHAPE(parts, rows * f));
  latch_shape part_shape = shape;
  part_shape.dims[shape.rank - 1] = f;
  for (int64_t p = 0; p < parts; ++p) {
    MlirValue index = latch_fill(b, LATCH_SHAPE(1), LATCH_I32, (double)p);
    outs[p] = latch_reshape(b, latch_gather_rows(b, stacked, index), part_shape);
  }
  return !b->failed;
}

MlirValue latch_scale_rows(latch_builder *b, MlirValue x, MlirValue w) {
  MlirValue operands[2] = {x, w};
  operand_info in[2];
  if (!take(b, "scale_rows", 2, operands, in))
    return null_value;
  int64_t rows = in[0].shape.rank == 2 ? in[0].shape.dims[0] : -1;
  bool w_ok = (in[1].shape.rank == 1 && in[1].shape.dims[0] == rows) ||
              (in[1].shape.rank == 2 && in[1].shape.dims[0] == rows && in[1].shape.dims[1] == 1);
  if (rows < 0 || !w_ok || !is_float(in[0].dtype) || in[0].dtype != in[1].dtype) {
    fail(b, "scale_rows", "expects x[R,D] and w[R] or [R,1] of one float dtype; got %s and %s",
         TYPE_TEXT(in[0].shape, in[0].dtype), TYPE_TEXT(in[1].shape, in[1].dtype));
    return null_value;
  }
  int64_t d = in[0].shape.dims[1];
  MlirValue w3 = latch_reshape(b, w, LATCH_SHAPE(rows, 1, 1));
  MlirValue x3 = latch_reshape(b, x, LATCH_SHAPE(rows, 1, d));
  MlirValue y3 = latch_matmul_to(b, w3, x3, false, false, in[0].dtype);
  return latch_reshape(b, y3, LATCH_SHAPE(rows, d));
}

/* ---- finishing --------------------------------------------------------------------------------- */

MlirModule latch_builder_finish(latch_builder *b, MlirValue loss, intptr_t extra_count, const MlirValue *extras) {
  MlirModule none = {NULL};
  if (b->failed || b->finished) {
    b->finished = true;
    return none;
  }
  if (b->map_depth) {
    fail(b, NULL, "finish called inside a map body");
    return none;
  }
  intptr_t result_count = 1 + extra_count;
  MlirValue *results = malloc((size_t)result_count * sizeof(MlirValue));
  MlirType *result_types = malloc((size_t)result_count * sizeof(MlirType));
  MlirType *arg_types = malloc((size_t)(b->arg_count ? b->arg_count : 1) * sizeof(MlirType));
  if (!results || !result_types || !arg_types) {
    free(results);
    free(result_types);
    free(arg_types);
    fail(b, NULL, "out of memory");
    return none;
  }
  results[0] = loss;
  for (intptr_t i = 0; i < extra_count; ++i)
    results[1 + i] = extras[i];
  bool ok = true;
  for (intptr_t i = 0; ok && i < result_count; ++i) {
    if (mlirValueIsNull(results[i]) || latch_value_dtype(results[i]) == LATCH_DTYPE_INVALID) {
      fail(b, NULL, "result #%d is not a static tensor of a Latch dtype", (int)i);
      ok = false;
    } else {
      result_types[i] = mlirValueGetType(results[i]);
    }
  }
  if (ok && (latch_value_dtype(loss) != LATCH_F32 || latch_value_shape(loss).rank != 0)) {
    fail(b, NULL, "the first result (the loss) must be a rank-0 f32 tensor");
    ok = false;
  }
  MlirModule module = none;
  if (ok) {
    MlirOperationState ret = mlirOperationStateGet(ref("func.return"), b->location);
    mlirOperationStateAddOperands(&ret, result_count, results);
    mlirBlockAppendOwnedOperation(b->entry, mlirOperationCreate(&ret));

    for (intptr_t i = 0; i < b->arg_count; ++i)
      arg_types[i] = mlirValueGetType(mlirBlockGetArgument(b->entry, i));
    MlirType function_type = mlirFunctionTypeGet(b->context, b->arg_count, arg_types, result_count, result_types);
    MlirNamedAttribute attrs[3] = {
        named(b, "sym_name", latch_attr_get_string(b->context, b->function_name)),
        named(b, "function_type", mlirTypeAttrGet(function_type)),
        named(b, "arg_attrs", mlirArrayAttrGet(b->context, b->arg_count, b->arg_attrs)),
    };
    MlirLocation file = mlirLocationFileLineColGet(b->context, ref(b->file), 0, 0);
    MlirLocation loc = mlirLocationNameGet(b->context, ref(b->function_name), file);
    MlirOperationState func = mlirOperationStateGet(ref("func.func"), loc);
    mlirOperationStateAddAttributes(&func, 3, attrs);
    mlirOperationStateAddOwnedRegions(&func, 1, &b->region);
    b->region = (MlirRegion){NULL}; /* the function owns the body now */
    module = mlirModuleCreateEmpty(file);
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), mlirOperationCreate(&func));
    if (!mlirOperationVerify(mlirModuleGetOperation(module))) {
      mlirModuleDestroy(module);
      module = none;
      fail(b, NULL, "the finished function does not verify (a builder defect)");
    }
  }
  free(results);
  free(result_types);
  free(arg_types);
  b->finished = true;
  return module;
}

/* ---- inspection -------------------------------------------------------------------------------- */

int64_t latch_module_param_count(MlirModule module) {
  int64_t total = 0;
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!latch_op_is(op, "func.func"))
      continue;
    MlirAttribute arg_attrs = mlirOperationGetAttributeByName(op, ref("arg_attrs"));
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    if (mlirAttributeIsNull(arg_attrs) || !mlirAttributeIsAArray(arg_attrs) || mlirBlockIsNull(entry))
      continue;
    intptr_t count = mlirArrayAttrGetNumElements(arg_attrs);
    for (intptr_t i = 0; i < count && i < mlirBlockGetNumArguments(entry); ++i) {
      MlirAttribute dict = mlirArrayAttrGetElement(arg_attrs, i);
      if (!mlirAttributeIsADictionary(dict) ||
          mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(dict, ref("task.param"))))
        continue;
      latch_shape shape = latch_value_shape(mlirBlockGetArgument(entry, i));
      if (shape.rank >= 0)
        total += latch_shape_elements(shape);
    }
  }
  return total;
}
