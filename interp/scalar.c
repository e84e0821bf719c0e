/* scalar.c - compiling and running the scalar arith/math ops of task.map bodies (see scalar.h).
 *
 * Floats are computed in fp64. Integers are held sign-extended in int64 and wrapped to their width after
 * every op (two's complement, no undefined behaviour). Where MLIR leaves a result undefined (poison) the
 * interpreter picks a fixed answer: float -> int conversions saturate and give 0 for NaN (as the GPU's
 * cvt does), shifts by the width or more give 0 (arithmetic right shift: the sign), and the overflowing
 * signed division INT_MIN / -1 wraps. Integer division by zero is an error. */
#include "scalar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../support/init.h"

/* The scalar ops. Columns: opcode, op name, operand count. */
#define LATCH_SCALAR_OP_LIST(X)                                                                       \
  X(CONSTANT, "arith.constant", 0)                                                                    \
  X(ADDF, "arith.addf", 2) X(SUBF, "arith.subf", 2) X(MULF, "arith.mulf", 2) X(DIVF, "arith.divf", 2) \
  X(REMF, "arith.remf", 2) X(NEGF, "arith.negf", 1)                                                   \
  X(MAXIMUMF, "arith.maximumf", 2) X(MINIMUMF, "arith.minimumf", 2)                                   \
  X(MAXNUMF, "arith.maxnumf", 2) X(MINNUMF, "arith.minnumf", 2)                                       \
  X(CMPF, "arith.cmpf", 2) X(CMPI, "arith.cmpi", 2) X(SELECT, "arith.select", 3)                      \
  X(EXTF, "arith.extf", 1) X(TRUNCF, "arith.truncf", 1) X(SITOFP, "arith.sitofp", 1)                  \
  X(UITOFP, "arith.uitofp", 1) X(FPTOSI, "arith.fptosi", 1) X(FPTOUI, "arith.fptoui", 1)              \
  X(EXTSI, "arith.extsi", 1) X(EXTUI, "arith.extui", 1) X(TRUNCI, "arith.trunci", 1)                  \
  X(INDEX_CAST, "arith.index_cast", 1) X(INDEX_CASTUI, "arith.index_castui", 1)                       \
  X(ADDI, "arith.addi", 2) X(SUBI, "arith.subi", 2) X(MULI, "arith.muli", 2)                          \
  X(DIVSI, "arith.divsi", 2) X(DIVUI, "arith.divui", 2) X(REMSI, "arith.remsi", 2)                    \
  X(REMUI, "arith.remui", 2) X(ANDI, "arith.andi", 2) X(ORI, "arith.ori", 2) X(XORI, "arith.xori", 2) \
  X(SHLI, "arith.shli", 2) X(SHRSI, "arith.shrsi", 2) X(SHRUI, "arith.shrui", 2)                      \
  X(MAXSI, "arith.maxsi", 2) X(MINSI, "arith.minsi", 2) X(MAXUI, "arith.maxui", 2)                    \
  X(MINUI, "arith.minui", 2)                                                                          \
  X(EXP, "math.exp", 1) X(EXP2, "math.exp2", 1) X(EXPM1, "math.expm1", 1) X(LOG, "math.log", 1)       \
  X(LOG2, "math.log2", 1) X(LOG10, "math.log10", 1) X(LOG1P, "math.log1p", 1)                         \
  X(SQRT, "math.sqrt", 1) X(RSQRT, "math.rsqrt", 1) X(TANH, "math.tanh", 1) X(SIN, "math.sin", 1)     \
  X(COS, "math.cos", 1) X(TAN, "math.tan", 1) X(ATAN, "math.atan", 1) X(ATAN2, "math.atan2", 2)       \
  X(ERF, "math.erf", 1) X(ABSF, "math.absf", 1) X(ABSI, "math.absi", 1) X(POWF, "math.powf", 2)       \
  X(FLOOR, "math.floor", 1) X(CEIL, "math.ceil", 1) X(ROUND, "math.round", 1)                         \
  X(ROUNDEVEN, "math.roundeven", 1) X(TRUNC, "math.trunc", 1) X(FMA, "math.fma", 3)                   \
  X(COPYSIGN, "math.copysign", 2)

typedef enum opcode {
#define X(code, name, arity) OP_##code,
  LATCH_SCALAR_OP_LIST(X)
#undef X
  OP_COUNT
} opcode;

static const struct {
  const char *name;
  int arity;
} op_info[OP_COUNT] = {
#define X(code, name, arity) [OP_##code] = {name, arity},
    LATCH_SCALAR_OP_LIST(X)
#undef X
};

/* MLIR's arith.cmpf and arith.cmpi predicate numbers. */
enum { CMPF_FALSE, CMPF_OEQ, CMPF_OGT, CMPF_OGE, CMPF_OLT, CMPF_OLE, CMPF_ONE, CMPF_ORD,
       CMPF_UEQ, CMPF_UGT, CMPF_UGE, CMPF_ULT, CMPF_ULE, CMPF_UNE, CMPF_UNO, CMPF_TRUE };
enum { CMPI_EQ, CMPI_NE, CMPI_SLT, CMPI_SLE, CMPI_SGT, CMPI_SGE, CMPI_ULT, CMPI_ULE, CMPI_UGT, CMPI_UGE };

typedef struct instruction {
  opcode code;
  int predicate;   /* cmpf / cmpi */
  int result;      /* register */
  int operands[3]; /* registers */
  MlirOperation op;
} instruction;

struct latch_scalar_program {
  latch_emulate mode;
  int input_count, output_count;
  int register_count, register_capacity;
  latch_scalar_type *types;
  latch_scalar *initial;
  const void **keys; /* the MlirValue of each register (NULL for none) */
  instruction *code;
  int code_count, code_capacity;
  int *outputs;
};

bool latch_scalar_type_get(MlirType type, latch_scalar_type *out_type) {
  *out_type = (latch_scalar_type){.is_float = false, .float_dtype = LATCH_DTYPE_F64, .width = 64};
  if (mlirTypeIsAF32(type)) {
    *out_type = (latch_scalar_type){true, LATCH_DTYPE_F32, 0};
  } else if (mlirTypeIsABF16(type)) {
    *out_type = (latch_scalar_type){true, LATCH_DTYPE_BF16, 0};
  } else if (mlirTypeIsAF64(type)) {
    *out_type = (latch_scalar_type){true, LATCH_DTYPE_F64, 0};
  } else if (mlirTypeIsAIndex(type)) {
    out_type->width = 64;
  } else if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    if (width < 1 || width > 64)
      return false;
    out_type->width = (int)width;
  } else {
    return false;
  }
  return true;
}

/* ---- Integer helpers: wrap to a width, read as unsigned ---- */

static uint64_t width_mask(int width) { return width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1; }

static int64_t wrap(uint64_t bits, int width) {
  if (width < 64) {
    bits &= width_mask(width);
    if ((bits >> (width - 1)) & 1)
      bits |= ~width_mask(width);
  }
  int64_t value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

static uint64_t as_unsigned(int64_t value, int width) { return (uint64_t)value & width_mask(width); }

static int64_t signed_min(int width) { return wrap(UINT64_C(1) << (width - 1), width); }

static int64_t float_to_signed(double x, int width) {
  double limit = ldexp(1.0, width - 1);
  if (isnan(x))
    return 0;
  if (x >= limit)
    return wrap(width_mask(width) >> 1, width);
  if (x <= -limit)
    return signed_min(width);
  return wrap((uint64_t)(int64_t)x, width);
}

static int64_t float_to_unsigned(double x, int width) {
  double limit = ldexp(1.0, width);
  if (isnan(x) || x <= -1.0)
    return 0;
  if (x >= limit)
    return wrap(width_mask(width), width);
  return wrap((uint64_t)trunc(x < 0 ? 0 : x), width);
}

/* NaN-propagating max/min with -0 < +0 (arith.maximumf / minimumf). */
static double maximum_f(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}

static double minimum_f(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
}

static bool compare_f(int predicate, double a, double b) {
  bool unordered = isnan(a) || isnan(b);
  switch (predicate) {
  case CMPF_FALSE: return false;
  case CMPF_OEQ: return !unordered && a == b;
  case CMPF_OGT: return !unordered && a > b;
  case CMPF_OGE: return !unordered && a >= b;
  case CMPF_OLT: return !unordered && a < b;
  case CMPF_OLE: return !unordered && a <= b;
  case CMPF_ONE: return !unordered && a != b;
  case CMPF_ORD: return !unordered;
  case CMPF_UEQ: return unordered || a == b;
  case CMPF_UGT: return unordered || a > b;
  case CMPF_UGE: return unordered || a >= b;
  case CMPF_ULT: return unordered || a < b;
  case CMPF_ULE: return unordered || a <= b;
  case CMPF_UNE: return unordered || a != b;
  case CMPF_UNO: return unordered;
  default: return true;
  }
}

static bool compare_i(int predicate, int64_t a, int64_t b, int width) {
  uint64_t ua = as_unsigned(a, width), ub = as_unsigned(b, width);
  switch (predicate) {
  case CMPI_EQ: return a == b;
  case CMPI_NE: return a != b;
  case CMPI_SLT: return a < b;
  case CMPI_SLE: return a <= b;
  case CMPI_SGT: return a > b;
  case CMPI_SGE: return a >= b;
  case CMPI_ULT: return ua < ub;
  case CMPI_ULE: return ua <= ub;
  case CMPI_UGT: return ua > ub;
  default: return ua >= ub;
  }
}

/* ---- Running ---- */

static bool run_one(const latch_scalar_program *program, const instruction *in, latch_scalar *r, char *error,
                    size_t error_size) {
  const latch_scalar *a = &r[in->operands[0]], *b = &r[in->operands[1]], *c = &r[in->operands[2]];
  latch_scalar_type rt = program->types[in->result], at = program->types[in->operands[0]];
  int w = rt.width, aw = at.width;
  latch_scalar out = {0.0, 0};
  switch (in->code) {
  case OP_CONSTANT: out = r[in->result]; break;
  case OP_ADDF: out.f = a->f + b->f; break;
  case OP_SUBF: out.f = a->f - b->f; break;
  case OP_MULF: out.f = a->f * b->f; break;
  case OP_DIVF: out.f = a->f / b->f; break;
  case OP_REMF: out.f = fmod(a->f, b->f); break;
  case OP_NEGF: out.f = -a->f; break;
  case OP_MAXIMUMF: out.f = maximum_f(a->f, b->f); break;
  case OP_MINIMUMF: out.f = minimum_f(a->f, b->f); break;
  case OP_MAXNUMF: out.f = fmax(a->f, b->f); break;
  case OP_MINNUMF: out.f = fmin(a->f, b->f); break;
  case OP_CMPF: out.i = compare_f(in->predicate, a->f, b->f) ? -1 : 0; break;
  case OP_CMPI: out.i = compare_i(in->predicate, a->i, b->i, aw) ? -1 : 0; break;
  case OP_SELECT: out = a->i ? *b : *c; break;
  case OP_EXTF: out.f = a->f; break;
  case OP_TRUNCF: out.f = latch_round_stored(a->f, rt.float_dtype, program->mode); break;
  case OP_SITOFP: out.f = latch_round_stored((double)a->i, rt.float_dtype, program->mode); break;
  case OP_UITOFP: out.f = latch_round_stored((double)as_unsigned(a->i, aw), rt.float_dtype, program->mode); break;
  case OP_FPTOSI: out.i = float_to_signed(a->f, w); break;
  case OP_FPTOUI: out.i = float_to_unsigned(a->f, w); break;
  case OP_EXTSI: case OP_TRUNCI: case OP_INDEX_CAST: out.i = wrap((uint64_t)a->i, w); break;
  case OP_EXTUI: case OP_INDEX_CASTUI: out.i = wrap(as_unsigned(a->i, aw), w); break;
  case OP_ADDI: out.i = wrap((uint64_t)a->i + (uint64_t)b->i, w); break;
  case OP_SUBI: out.i = wrap((uint64_t)a->i - (uint64_t)b->i, w); break;
  case OP_MULI: out.i = wrap((uint64_t)a->i * (uint64_t)b->i, w); break;
  case OP_DIVSI: case OP_REMSI:
    if (b->i == 0) {
      snprintf(error, error_size, "integer division by zero");
      return false;
    }
    if (b->i == -1) /* a / -1 = -a (wrapping at INT_MIN); the remainder is 0 */
      out.i = in->code == OP_DIVSI ? wrap(0 - (uint64_t)a->i, w) : 0;
    else
      out.i = in->code == OP_DIVSI ? a->i / b->i : a->i % b->i;
    break;
  case OP_DIVUI: case OP_REMUI: {
    uint64_t ua = as_unsigned(a->i, w), ub = as_unsigned(b->i, w);
    if (ub == 0) {
      snprintf(error, error_size, "integer division by zero");
      return false;
    }
    out.i = wrap(in->code == OP_DIVUI ? ua / ub : ua % ub, w);
    break;
  }
  case OP_ANDI: out.i = a->i & b->i; break;
  case OP_ORI: out.i = a->i | b->i; break;
  case OP_XORI: out.i = a->i ^ b->i; break;
  case OP_SHLI: case OP_SHRSI: case OP_SHRUI: {
    uint64_t amount = as_unsigned(b->i, w), ua = as_unsigned(a->i, w);
    if (amount >= (uint64_t)w)
      out.i = in->code == OP_SHRSI && a->i < 0 ? -1 : 0;
    else if (in->code == OP_SHLI)
      out.i = wrap(ua << amount, w);
    else if (in->code == OP_SHRUI)
      out.i = wrap(ua >> amount, w);
    else
      out.i = a->i < 0 ? wrap(~(~(uint64_t)a->i >> amount), w) : wrap((uint64_t)a->i >> amount, w);
    break;
  }
  case OP_MAXSI: out.i = a->i > b->i ? a->i : b->i; break;
  case OP_MINSI: out.i = a->i < b->i ? a->i : b->i; break;
  case OP_MAXUI: out.i = as_unsigned(a->i, w) > as_unsigned(b->i, w) ? a->i : b->i; break;
  case OP_MINUI: out.i = as_unsigned(a->i, w) < as_unsigned(b->i, w) ? a->i : b->i; break;
  case OP_EXP: out.f = exp(a->f); break;
  case OP_EXP2: out.f = exp2(a->f); break;
  case OP_EXPM1: out.f = expm1(a->f); break;
  case OP_LOG: out.f = log(a->f); break;
  case OP_LOG2: out.f = log2(a->f); break;
  case OP_LOG10: out.f = log10(a->f); break;
  case OP_LOG1P: out.f = log1p(a->f); break;
  case OP_SQRT: out.f = sqrt(a->f); break;
  case OP_RSQRT: out.f = 1.0 / sqrt(a->f); break;
  case OP_TANH: out.f = tanh(a->f); break;
  case OP_SIN: out.f = sin(a->f); break;
  case OP_COS: out.f = cos(a->f); break;
  case OP_TAN: out.f = tan(a->f); break;
  case OP_ATAN: out.f = atan(a->f); break;
  case OP_ATAN2: out.f = atan2(a->f, b->f); break;
  case OP_ERF: out.f = erf(a->f); break;
  case OP_ABSF: out.f = fabs(a->f); break;
  case OP_ABSI: out.i = a->i < 0 ? wrap(0 - (uint64_t)a->i, w) : a->i; break;
  case OP_POWF: out.f = pow(a->f, b->f); break;
  case OP_FLOOR: out.f = floor(a->f); break;
  case OP_CEIL: out.f = ceil(a->f); break;
  case OP_ROUND: out.f = round(a->f); break;
  case OP_ROUNDEVEN: out.f = nearbyint(a->f); break; /* the default rounding mode is to nearest even */
  case OP_TRUNC: out.f = trunc(a->f); break;
  case OP_FMA: out.f = fma(a->f, b->f, c->f); break;
  case OP_COPYSIGN: out.f = copysign(a->f, b->f); break;
  case OP_COUNT: break;
  }
  /* Emulation: the GPU evaluates a body in the scalar types it is written in, so every float result is
   * rounded to its type, not only at the op's boundary (a fused chain then rounds like the unfused one). */
  if (program->mode != LATCH_EMULATE_NONE && rt.is_float)
    out.f = latch_round_stored(out.f, rt.float_dtype, program->mode);
  r[in->result] = out;
  return true;
}

bool latch_scalar_program_run(const latch_scalar_program *program, latch_scalar *registers,
                              const latch_scalar *inputs, latch_scalar *outputs, MlirOperation *out_failed_op,
                              char *error, size_t error_size) {
  for (int i = 0; i < program->input_count; ++i)
    registers[i] = inputs[i];
  for (int k = 0; k < program->code_count; ++k) {
    if (!run_one(program, &program->code[k], registers, error, error_size)) {
      *out_failed_op = program->code[k].op;
      return false;
    }
  }
  for (int o = 0; o < program->output_count; ++o)
    outputs[o] = registers[program->outputs[o]];
  return true;
}

/* ---- Compiling ---- */

/* Emits "'op.name' <detail>" at `op`. */
static void emit(MlirOperation op, const char *detail) {
  char text[512];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(text, sizeof(text), "'%.*s' %s", (int)name.length, name.data, detail);
  mlirEmitError(mlirOperationGetLocation(op), text);
}

static latch_scalar_program *program_create(latch_emulate mode) {
  latch_scalar_program *program = calloc(1, sizeof(*program));
  if (program)
    program->mode = mode;
  return program;
}

void latch_scalar_program_free(latch_scalar_program *program) {
  if (!program)
    return;
  free(program->types);
  free(program->initial);
  free(program->keys);
  free(program->code);
  free(program->outputs);
  free(program);
}

/* A new register for `value` (NULL key: none) of `type`; -1 when out of memory. */
static int add_register(latch_scalar_program *program, const void *key, latch_scalar_type type) {
  if (program->register_count == program->register_capacity) {
    int capacity = program->register_capacity ? program->register_capacity * 2 : 16;
    latch_scalar_type *types = realloc(program->types, (size_t)capacity * sizeof(*types));
    if (types)
      program->types = types;
    latch_scalar *initial = realloc(program->initial, (size_t)capacity * sizeof(*initial));
    if (initial)
      program->initial = initial;
    const void **keys = realloc(program->keys, (size_t)capacity * sizeof(*keys));
    if (keys)
      program->keys = keys;
    if (!types || !initial || !keys)
      return -1;
    program->register_capacity = capacity;
  }
  int index = program->register_count++;
  program->types[index] = type;
  program->initial[index] = (latch_scalar){0.0, 0};
  program->keys[index] = key;
  return index;
}

static int find_register(const latch_scalar_program *program, MlirValue value) {
  for (int i = program->register_count - 1; i >= 0; --i)
    if (program->keys[i] == value.ptr)
      return i;
  return -1;
}

static opcode opcode_of(MlirStringRef name) {
  for (int code = 0; code < OP_COUNT; ++code)
    if (strlen(op_info[code].name) == name.length && memcmp(op_info[code].name, name.data, name.length) == 0)
      return (opcode)code;
  return OP_COUNT;
}

bool latch_scalar_op_known(MlirStringRef name) { return opcode_of(name) != OP_COUNT; }

/* The register holding `value`: one of the program's, or a new one holding the value `lookup` finds. */
static int operand_register(latch_scalar_program *program, MlirOperation op, MlirValue value,
                            latch_scalar_lookup_fn lookup, void *user_data) {
  int index = find_register(program, value);
  if (index >= 0)
    return index;
  latch_scalar scalar;
  latch_scalar_type type;
  if (!lookup || !lookup(value, &scalar, &type, user_data)) {
    emit(op, "uses a value that is not a scalar defined in the body or above it");
    return -1;
  }
  index = add_register(program, value.ptr, type);
  if (index < 0) {
    emit(op, "cannot be compiled: out of memory");
    return -1;
  }
  program->initial[index] = scalar;
  return index;
}

/* The value of an arith.constant of scalar type, or false. */
static bool constant_value(MlirOperation op, latch_scalar_type type, latch_scalar *out) {
  MlirAttribute value = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(value))
    return false;
  if (type.is_float && mlirAttributeIsAFloat(value)) {
    out->f = mlirFloatAttrGetValueDouble(value);
    return true;
  }
  if (!type.is_float && mlirAttributeIsAInteger(value)) {
    out->i = wrap((uint64_t)mlirIntegerAttrGetValueInt(value), type.width);
    return true;
  }
  return false;
}

/* The type rules each op needs beyond its operand count: which operands and results are float. */
static bool check_types(const latch_scalar_program *program, const instruction *in) {
  latch_scalar_type rt = program->types[in->result];
  int arity = op_info[in->code].arity;
  bool float_ops = true, int_ops = true;
  for (int k = 0; k < arity; ++k) {
    float_ops = float_ops && program->types[in->operands[k]].is_float;
    int_ops = int_ops && !program->types[in->operands[k]].is_float;
  }
  switch (in->code) {
  case OP_CONSTANT: return true;
  case OP_CMPF: return float_ops && !rt.is_float;
  case OP_CMPI: return int_ops && !rt.is_float;
  case OP_SELECT:
    return !program->types[in->operands[0]].is_float &&
           program->types[in->operands[1]].is_float == rt.is_float &&
           program->types[in->operands[2]].is_float == rt.is_float;
  case OP_SITOFP: case OP_UITOFP: return int_ops && rt.is_float;
  case OP_FPTOSI: case OP_FPTOUI: return float_ops && !rt.is_float;
  case OP_EXTSI: case OP_EXTUI: case OP_TRUNCI: case OP_INDEX_CAST: case OP_INDEX_CASTUI:
  case OP_ADDI: case OP_SUBI: case OP_MULI: case OP_DIVSI: case OP_DIVUI: case OP_REMSI: case OP_REMUI:
  case OP_ANDI: case OP_ORI: case OP_XORI: case OP_SHLI: case OP_SHRSI: case OP_SHRUI:
  case OP_MAXSI: case OP_MINSI: case OP_MAXUI: case OP_MINUI: case OP_ABSI:
    return int_ops && !rt.is_float;
  default: return float_ops && rt.is_float;
  }
}

/* Appends the instruction for `op` (not gpu.yield); false after emitting an error. */
static bool compile_op(latch_scalar_program *program, MlirOperation op, latch_scalar_lookup_fn lookup,
                       void *user_data, bool quiet_if_unknown) {
  opcode code = opcode_of(mlirIdentifierStr(mlirOperationGetName(op)));
  if (code == OP_COUNT) {
    if (!quiet_if_unknown)
      emit(op, "is not supported by latch-interp in a task.map body");
    return false;
  }
  int arity = op_info[code].arity;
  if (mlirOperationGetNumOperands(op) != arity || mlirOperationGetNumResults(op) != 1 ||
      mlirOperationGetNumRegions(op) != 0) {
    emit(op, "has an unexpected number of operands, results or regions");
    return false;
  }
  latch_scalar_type type;
  MlirValue result = mlirOperationGetResult(op, 0);
  if (!latch_scalar_type_get(mlirValueGetType(result), &type)) {
    emit(op, "has a result type latch-interp does not handle (scalars: f32, bf16, f64, i1..i64, index)");
    return false;
  }
  instruction in = {.code = code, .op = op};
  for (int k = 0; k < arity; ++k) {
    in.operands[k] = operand_register(program, op, mlirOperationGetOperand(op, k), lookup, user_data);
    if (in.operands[k] < 0)
      return false;
  }
  in.result = add_register(program, result.ptr, type);
  if (in.result < 0) {
    emit(op, "cannot be compiled: out of memory");
    return false;
  }
  if (code == OP_CONSTANT) {
    latch_scalar *value = &program->initial[in.result];
    if (!constant_value(op, type, value)) {
      emit(op, "has a value latch-interp does not handle");
      return false;
    }
    /* Under emulation a constant is rounded like every other scalar result (an f64 constant becomes
     * fp32 under --emulate=fp32). */
    if (program->mode != LATCH_EMULATE_NONE && type.is_float)
      value->f = latch_round_stored(value->f, type.float_dtype, program->mode);
    return true; /* constants live in the initial registers; no instruction */
  }
  if (code == OP_CMPF || code == OP_CMPI) {
    MlirAttribute predicate = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("predicate"));
    if (mlirAttributeIsNull(predicate) || !mlirAttributeIsAInteger(predicate)) {
      emit(op, "has no integer predicate");
      return false;
    }
    in.predicate = (int)mlirIntegerAttrGetValueInt(predicate);
  }
  if (!check_types(program, &in)) {
    emit(op, "has operand or result types latch-interp does not handle");
    return false;
  }
  if (program->code_count == program->code_capacity) {
    int capacity = program->code_capacity ? program->code_capacity * 2 : 16;
    instruction *grown = realloc(program->code, (size_t)capacity * sizeof(*grown));
    if (!grown) {
      emit(op, "cannot be compiled: out of memory");
      return false;
    }
    program->code = grown;
    program->code_capacity = capacity;
  }
  program->code[program->code_count++] = in;
  return true;
}

static bool set_outputs(latch_scalar_program *program, MlirOperation op, intptr_t count, bool from_operands,
                        latch_scalar_lookup_fn lookup, void *user_data) {
  program->output_count = (int)count;
  program->outputs = calloc(count ? (size_t)count : 1, sizeof(int));
  if (!program->outputs) {
    emit(op, "cannot be compiled: out of memory");
    return false;
  }
  for (intptr_t k = 0; k < count; ++k) {
    MlirValue value = from_operands ? mlirOperationGetOperand(op, k) : mlirOperationGetResult(op, k);
    program->outputs[k] = operand_register(program, op, value, lookup, user_data);
    if (program->outputs[k] < 0)
      return false;
  }
  return true;
}

latch_scalar_program *latch_scalar_compile_block(MlirBlock block, latch_emulate mode, latch_scalar_lookup_fn lookup,
                                                 void *user_data) {
  latch_scalar_program *program = program_create(mode);
  if (!program)
    return NULL;
  intptr_t args = mlirBlockGetNumArguments(block);
  MlirOperation parent = mlirBlockGetParentOperation(block);
  for (intptr_t k = 0; k < args; ++k) {
    MlirValue arg = mlirBlockGetArgument(block, k);
    latch_scalar_type type;
    if (!latch_scalar_type_get(mlirValueGetType(arg), &type)) {
      emit(parent, "body has an argument of a type latch-interp does not handle");
      latch_scalar_program_free(program);
      return NULL;
    }
    if (add_register(program, arg.ptr, type) < 0) {
      latch_scalar_program_free(program);
      return NULL;
    }
  }
  program->input_count = (int)args;
  bool ok = true, yielded = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (name.length == 9 && memcmp(name.data, "gpu.yield", 9) == 0) {
      ok = set_outputs(program, op, mlirOperationGetNumOperands(op), true, lookup, user_data);
      yielded = true;
      break;
    }
    ok = compile_op(program, op, lookup, user_data, false);
  }
  if (ok && !yielded) {
    emit(parent, "body does not end in gpu.yield");
    ok = false;
  }
  if (!ok) {
    latch_scalar_program_free(program);
    return NULL;
  }
  return program;
}

latch_scalar_program *latch_scalar_compile_op(MlirOperation op, latch_emulate mode, latch_scalar_lookup_fn lookup,
                                              void *user_data, bool quiet_if_unknown) {
  latch_scalar_program *program = program_create(mode);
  if (!program)
    return NULL;
  if (!compile_op(program, op, lookup, user_data, quiet_if_unknown) ||
      !set_outputs(program, op, mlirOperationGetNumResults(op), false, lookup, user_data)) {
    latch_scalar_program_free(program);
    return NULL;
  }
  return program;
}

int latch_scalar_program_input_count(const latch_scalar_program *program) { return program->input_count; }
int latch_scalar_program_output_count(const latch_scalar_program *program) { return program->output_count; }
int latch_scalar_program_register_count(const latch_scalar_program *program) { return program->register_count; }

latch_scalar_type latch_scalar_program_input_type(const latch_scalar_program *program, int index) {
  return program->types[index];
}

latch_scalar_type latch_scalar_program_output_type(const latch_scalar_program *program, int index) {
  return program->types[program->outputs[index]];
}

void latch_scalar_program_prepare(const latch_scalar_program *program, latch_scalar *registers) {
  for (int i = 0; i < program->register_count; ++i)
    registers[i] = program->initial[i];
}
