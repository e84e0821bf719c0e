/* interp.c - runs task programs op by op (see interp.h). Each function call has its own environment
 * (MlirValue -> tensor or scalar); a tensor is freed right after the last op of the body that uses it. */
#include "interp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
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

static bool op_named(MlirOperation op, const char *name) {
  return string_ref_equals(mlirIdentifierStr(mlirOperationGetName(op)), mlirStringRefCreateFromCString(name));
}

MlirOperation latch_interp_find_func(MlirOperation module, MlirStringRef name) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  if (mlirBlockIsNull(body))
    return (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!op_named(op, "func.func"))
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
} binding;

typedef struct frame {
  binding *slots;
  size_t capacity, count;
  const latch_interp_options *options;
  MlirOperation func;
  int depth;
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

static void frame_deinitialize(frame *f) {
  for (size_t i = 0; i < f->capacity; ++i)
    latch_tensor_free(f->slots[i].tensor);
  free(f->slots);
  f->slots = NULL;
  f->capacity = f->count = 0;
}

static latch_tensor *frame_tensor(frame *f, MlirValue value) {
  binding *b = frame_slot(f, value.ptr, false);
  return b && !b->is_scalar ? b->tensor : NULL;
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

/* Runs the kernel of task op `kind` on `ins`, filling `outs`. */
static bool run_task_kernel(frame *f, MlirOperation op, latch_op_kind kind, latch_tensor **in, intptr_t n_in,
                            latch_tensor **out, intptr_t n_out) {
  const latch_op_desc *desc = latch_op_desc_get(kind);
  if (kind != LATCH_OP_TASK_MAP && (n_in != desc->operand_count || n_out != desc->result_count))
    return op_error(op, "has %d operands and %d results; expected %d and %d", (int)n_in, (int)n_out,
                    desc->operand_count, desc->result_count);
  char error[512] = "";
  bool ok = false;
  switch (kind) {
  case LATCH_OP_TASK_MATMUL:
    ok = latch_kernel_matmul(in[0], in[1], latch_matmul_transpose_a(op), latch_matmul_transpose_b(op), out[0],
                             error, sizeof(error));
    break;
  case LATCH_OP_TASK_GROUPED_MATMUL:
    ok = latch_kernel_grouped_matmul(in[0], in[1], in[2], out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_MAP: return run_map(f, op, in, n_in, out, n_out);
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
  case LATCH_OP_TASK_EMBEDDING: ok = latch_kernel_embedding(in[0], in[1], out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_ROPE: ok = latch_kernel_rope(in[0], latch_rope_theta(op), out[0], error, sizeof(error)); break;
  case LATCH_OP_TASK_ATTENTION:
    ok = latch_kernel_attention(in[0], in[1], in[2], latch_attention_causal(op), latch_attention_scale(op), out[0],
                                error, sizeof(error));
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
    latch_adamw_config config = {latch_adamw_lr(op), latch_adamw_beta1(op), latch_adamw_beta2(op),
                                 latch_adamw_eps(op), latch_adamw_weight_decay(op)};
    ok = latch_kernel_adamw(in[0], in[1], in[2], in[3], in[4], &config, out[0], out[1], out[2], error,
                            sizeof(error));
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
  case LATCH_OP_TASK_TOPK_GRAD:
    ok = latch_kernel_topk_grad(in[0], in[1], latch_topk_grad_columns(op), out[0], error, sizeof(error));
    break;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD:
    ok = latch_kernel_grouped_matmul_weight_grad(in[0], in[1], in[2], out[0], error, sizeof(error));
    break;
  default: return op_error(op, "is not supported by latch-interp");
  }
  if (!ok)
    return op_error(op, "%s", error);
  return true;
}

/* A task op: operands from the frame, results allocated from the result types, the kernel, then the
 * --emulate rounding of every float result. */
static bool run_task_op(frame *f, MlirOperation op, latch_op_kind kind) {
  intptr_t n_in = mlirOperationGetNumOperands(op), n_out = mlirOperationGetNumResults(op);
  latch_tensor **in = calloc((size_t)n_in + 1, sizeof(*in));
  latch_tensor **out = calloc((size_t)n_out + 1, sizeof(*out));
  bool ok = in && out;
  if (!ok)
    op_error(op, "cannot run: out of memory");
  for (intptr_t k = 0; ok && k < n_in; ++k) {
    in[k] = frame_tensor(f, mlirOperationGetOperand(op, k));
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
  if (!args)
    return op_error(op, "cannot run: out of memory");
  bool ok = true;
  for (intptr_t k = 0; ok && k < n_in; ++k) {
    args[k] = frame_tensor(f, mlirOperationGetOperand(op, k));
    if (!args[k])
      ok = op_error(op, "operand %d is not a tensor value the interpreter holds", (int)k);
  }
  intptr_t result_count = 0;
  latch_tensor **results = NULL;
  if (ok)
    ok = call_function(target, f->options, f->depth + 1, n_in, args, op, &result_count, &results);
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
  if (op_named(op, "func.call"))
    return run_call(f, op);
  if (op_named(op, "arith.constant") && mlirOperationGetNumResults(op) == 1 &&
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

static bool call_function(MlirOperation func, const latch_interp_options *options, int depth, intptr_t arg_count,
                          const latch_tensor *const *args, MlirOperation caller, intptr_t *out_result_count,
                          latch_tensor ***out_results) {
  *out_result_count = 0;
  *out_results = NULL;
  MlirOperation where = mlirOperationIsNull(caller) ? func : caller;
  MlirType type = latch_func_type(func);
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if (mlirTypeIsNull(type) || mlirBlockIsNull(body))
    return op_error(where, "cannot run a function without a body");
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(body)))
    return op_error(func, "has more than one block; latch-interp runs single-block functions");
  if (mlirFunctionTypeGetNumInputs(type) != arg_count || mlirBlockGetNumArguments(body) != arg_count)
    return op_error(where, "passes %d arguments to a function of %d", (int)arg_count,
                    (int)mlirFunctionTypeGetNumInputs(type));

  frame f = {.options = options, .func = func, .depth = depth};
  bool ok = true;
  for (intptr_t k = 0; ok && k < arg_count; ++k) {
    if (!tensor_fits_type(args[k], mlirFunctionTypeGetInput(type, k))) {
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
    ok = bind_tensor(&f, func, mlirBlockGetArgument(body, k), copy);
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
    if (op_named(op, "func.return"))
      break;
    ok = run_op(&f, op);
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
    ok = op_error(func, "has a body that does not end in func.return");

  latch_tensor **results = NULL;
  intptr_t n_out = ok ? mlirOperationGetNumOperands(op) : 0;
  if (ok && n_out != mlirFunctionTypeGetNumResults(type))
    ok = op_error(op, "returns %d values from a function of %d results", (int)n_out,
                  (int)mlirFunctionTypeGetNumResults(type));
  if (ok) {
    results = calloc((size_t)n_out + 1, sizeof(*results));
    if (!results)
      ok = op_error(op, "cannot run: out of memory");
  }
  for (intptr_t k = 0; ok && k < n_out; ++k) {
    latch_tensor *t = frame_tensor(&f, mlirOperationGetOperand(op, k));
    if (!t) {
      ok = op_error(op, "operand %d is not a tensor value the interpreter holds", (int)k);
      break;
    }
    results[k] = latch_tensor_clone(t);
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
