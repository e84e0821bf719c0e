/* latch-autodiff.c - reverse-mode differentiation of a model `@f` into `@f_grad`, which returns the loss
 * and then one gradient per `task.param` argument, in argument order.
 *
 * The pass clones @f, then walks the clone's ops backwards from the loss, emitting each op's VJP before
 * the return. Forward values that the backward needs stay ordinary SSA values, so the memory passes
 * decide later whether to keep or recompute them. Only "active" values (those that depend on a
 * parameter through float data) get adjoints; integer values (token ids, routing indices, orders) are
 * never differentiated, and routing is differentiated through the selected weights only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/Math.h"

#include "../dialects/ops.h"
#include "../support/ptrmap.h"
#include "pass.h"

/* ---- values keyed by value ------------------------------------------------------------------------ */

typedef latch_ptrmap value_map;

static bool map_init(value_map *map) { return latch_ptrmap_initialize(map); }

static void map_free(value_map *map) { latch_ptrmap_deinitialize(map); }

static MlirValue map_get(const value_map *map, MlirValue key) {
  return (MlirValue){latch_ptrmap_get(map, key.ptr)};
}

static bool map_put(value_map *map, MlirValue key, MlirValue value) {
  return latch_ptrmap_put(map, key.ptr, (void *)value.ptr);
}

/* ---- emission ------------------------------------------------------------------------------------ */

typedef struct differentiator {
  MlirContext context;
  MlirBlock block;          /* where new ops go: before `anchor` */
  MlirOperation anchor;
  value_map adjoints;       /* value -> its accumulated gradient */
  value_map active;         /* value -> itself when it depends on a parameter */
  bool failed;
} differentiator;

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

static void fail_at(differentiator *d, MlirOperation op, const char *message) {
  char text[256];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(text, sizeof(text), "latch-autodiff: %s '%.*s'", message, (int)name.length, name.data);
  mlirEmitError(mlirOperationGetLocation(op), text);
  d->failed = true;
}

/* Inserts a backward op before the anchor; task ops are marked `task.phase = "backward"` so that later passes (memory
 * rules, scheduling) can tell the forward values that the backward reads. */
static MlirOperation insert(differentiator *d, MlirOperation op) {
  mlirBlockInsertOwnedOperationBefore(d->block, d->anchor, op);
  if (latch_op_is_task(op))
    mlirOperationSetAttributeByName(op, str("task.phase"), mlirStringAttrGet(d->context, str("backward")));
  return op;
}

/* Emits a task op before the anchor and returns it (a null op after a failure). */
static MlirOperation emit(differentiator *d, latch_op_kind kind, MlirLocation loc, intptr_t result_count,
                          const MlirType *result_types, intptr_t operand_count, const MlirValue *operands,
                          const MlirAttribute *attrs) {
  MlirOperation op = latch_op_create(kind, loc, result_count, result_types, operand_count, operands, attrs);
  if (mlirOperationIsNull(op)) {
    d->failed = true;
    return op;
  }
  return insert(d, op);
}

static MlirValue emit1(differentiator *d, latch_op_kind kind, MlirLocation loc, MlirType result_type,
                       intptr_t operand_count, const MlirValue *operands, const MlirAttribute *attrs) {
  MlirOperation op = emit(d, kind, loc, 1, &result_type, operand_count, operands, attrs);
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* Creates a generic op of any dialect (arith, math, gpu) with the given operands, results and at most
 * one attribute; the caller inserts it. */
static MlirOperation make_op(const char *name, MlirLocation loc, intptr_t result_count,
                             const MlirType *result_types, intptr_t operand_count,
                             const MlirValue *operands, const char *attr_name, MlirAttribute attr) {
  MlirOperationState state = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddResults(&state, result_count, result_types);
  mlirOperationStateAddOperands(&state, operand_count, operands);
  if (attr_name) {
    MlirNamedAttribute named =
        mlirNamedAttributeGet(mlirIdentifierGet(mlirLocationGetContext(loc), str(attr_name)), attr);
    mlirOperationStateAddAttributes(&state, 1, &named);
  }
  return mlirOperationCreate(&state);
}

static MlirType with_element(MlirType shaped, MlirType element) {
  intptr_t rank = mlirShapedTypeGetRank(shaped);
  int64_t shape[8];
  for (intptr_t i = 0; i < rank && i < 8; ++i)
    shape[i] = mlirShapedTypeGetDimSize(shaped, i);
  return mlirRankedTensorTypeGet(rank, shape, element, mlirAttributeGetNull());
}

static MlirType with_shape(MlirContext context, intptr_t rank, const int64_t *shape, MlirType element) {
  (void)context;
  return mlirRankedTensorTypeGet(rank, shape, element, mlirAttributeGetNull());
}

static bool is_float_tensor(MlirType type) {
  return mlirTypeIsARankedTensor(type) && mlirTypeIsAFloat(mlirShapedTypeGetElementType(type));
}

/* The type of `value` with the element type of `gradient` (for ops that only move elements). */
static MlirType like(MlirValue value, MlirValue gradient) {
  return with_element(mlirValueGetType(value), mlirShapedTypeGetElementType(mlirValueGetType(gradient)));
}

/* Gradients of bf16 values are carried in f32 (the matmuls that make them accumulate in fp32 anyway);
 * they are cast to bf16 only where a bf16 op consumes them. */
static MlirType adjoint_type(MlirType type) {
  MlirType element = mlirShapedTypeGetElementType(type);
  return mlirTypeIsABF16(element) ? with_element(type, mlirF32TypeGet(mlirTypeGetContext(type))) : type;
}

/* Casts `value` to the element type of `type` (a task.convert) unless it already has it. */
static MlirValue cast_to(differentiator *d, MlirLocation loc, MlirValue value, MlirType element) {
  MlirType type = mlirValueGetType(value);
  if (mlirTypeEqual(mlirShapedTypeGetElementType(type), element))
    return value;
  return emit1(d, LATCH_OP_TASK_CONVERT, loc, with_element(type, element), 1, &value, NULL);
}

/* A tensor of zeros of `type` (an arith.constant splat). */
static MlirValue zeros(differentiator *d, MlirLocation loc, MlirType type) {
  MlirType element = mlirShapedTypeGetElementType(type);
  MlirAttribute zero = mlirDenseElementsAttrSplatGet(type, mlirFloatAttrDoubleGet(d->context, element, 0.0));
  return mlirOperationGetResult(insert(d, make_op("arith.constant", loc, 1, &type, 0, NULL, "value", zero)), 0);
}

/* A task.map over same-shaped tensors whose body applies one binary arith op. */
static MlirValue emit_binary_map(differentiator *d, MlirLocation loc, const char *arith_op, MlirValue a,
                                 MlirValue b) {
  MlirType type = mlirValueGetType(a), element = mlirShapedTypeGetElementType(type);
  MlirValue operands[2] = {a, b};
  MlirOperation map = emit(d, LATCH_OP_TASK_MAP, loc, 1, &type, 2, operands, NULL);
  if (mlirOperationIsNull(map))
    return (MlirValue){NULL};
  MlirType args[2] = {element, element};
  MlirLocation locs[2] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, args, locs);
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(map, 0), body);
  MlirValue scalars[2] = {mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1)};
  MlirOperation combined = make_op(arith_op, loc, 1, &element, 2, scalars, NULL, mlirAttributeGetNull());
  mlirBlockAppendOwnedOperation(body, combined);
  MlirValue result = mlirOperationGetResult(combined, 0);
  mlirBlockAppendOwnedOperation(body, make_op("gpu.yield", loc, 0, NULL, 1, &result, NULL, mlirAttributeGetNull()));
  return mlirOperationGetResult(map, 0);
}

/* Adds `gradient` to the adjoint of `value` (the first contribution is taken as is; later ones are
 * summed with one elementwise add each, in the order the backward walk reaches the users). */
static void accumulate(differentiator *d, MlirLocation loc, MlirValue value, MlirValue gradient) {
  if (d->failed || mlirValueIsNull(gradient))
    return;
  if (mlirValueIsNull(map_get(&d->active, value)))
    return;
  MlirType type = adjoint_type(mlirValueGetType(value));
  gradient = cast_to(d, loc, gradient, mlirShapedTypeGetElementType(type));
  MlirValue previous = map_get(&d->adjoints, value);
  if (!mlirValueIsNull(previous))
    gradient = emit_binary_map(d, loc, "arith.addf", previous, gradient);
  if (!map_put(&d->adjoints, value, gradient))
    d->failed = true;
}

static bool is_active(differentiator *d, MlirValue value) { return !mlirValueIsNull(map_get(&d->active, value)); }

/* ---- scalar differentiation of task.map bodies --------------------------------------------------- */

typedef struct scalar_builder {
  MlirBlock block;
  MlirLocation loc;
  value_map clone;   /* forward body value -> its copy in the new body */
  value_map adjoint;
  value_map active;  /* forward body values that depend on a block argument */
  bool failed;
} scalar_builder;

static MlirValue sb_op(scalar_builder *s, const char *name, MlirType type, intptr_t n, const MlirValue *operands) {
  MlirOperation op = make_op(name, s->loc, 1, &type, n, operands, NULL, mlirAttributeGetNull());
  mlirBlockAppendOwnedOperation(s->block, op);
  return mlirOperationGetResult(op, 0);
}

static MlirValue sb_bin(scalar_builder *s, const char *name, MlirValue a, MlirValue b) {
  MlirValue operands[2] = {a, b};
  return sb_op(s, name, mlirValueGetType(a), 2, operands);
}

static MlirValue sb_un(scalar_builder *s, const char *name, MlirValue a) {
  return sb_op(s, name, mlirValueGetType(a), 1, &a);
}

static MlirValue sb_const(scalar_builder *s, MlirType type, double value) {
  MlirAttribute attr = mlirFloatAttrDoubleGet(mlirTypeGetContext(type), type, value);
  MlirOperation op = make_op("arith.constant", s->loc, 1, &type, 0, NULL, "value", attr);
  mlirBlockAppendOwnedOperation(s->block, op);
  return mlirOperationGetResult(op, 0);
}

/* A constant that `type` may not hold exactly: written in f64 and truncated, so that an fp64 evaluation
 * sees the exact value while fp32 code gets the rounded one. */
static MlirValue sb_const_exact(scalar_builder *s, MlirType type, double value) {
  MlirType f64 = mlirF64TypeGet(mlirTypeGetContext(type));
  MlirValue wide = sb_const(s, f64, value);
  return mlirTypeIsAF64(type) ? wide : sb_op(s, "arith.truncf", type, 1, &wide);
}

static MlirValue sb_select_ge(scalar_builder *s, MlirValue a, MlirValue b, MlirValue if_ge, MlirValue otherwise) {
  MlirContext context = mlirTypeGetContext(mlirValueGetType(a));
  MlirType i1 = mlirIntegerTypeGet(context, 1);
  MlirValue operands[2] = {a, b};
  /* arith.cmpf's predicate is an i64 enum; 3 is `oge` (ordered greater-or-equal). */
  MlirOperation cmp = make_op("arith.cmpf", s->loc, 1, &i1, 2, operands, "predicate",
                              mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), 3));
  mlirBlockAppendOwnedOperation(s->block, cmp);
  MlirValue select_operands[3] = {mlirOperationGetResult(cmp, 0), if_ge, otherwise};
  return sb_op(s, "arith.select", mlirValueGetType(if_ge), 3, select_operands);
}

static MlirValue mapped(scalar_builder *s, MlirValue forward) {
  MlirValue copy = map_get(&s->clone, forward);
  return mlirValueIsNull(copy) ? forward : copy; /* values from above the body are used as they are */
}

static bool wants_adjoint(scalar_builder *s, MlirValue forward) {
  return mlirTypeIsAFloat(mlirValueGetType(forward)) && !mlirValueIsNull(map_get(&s->active, forward));
}

static void sb_accumulate(scalar_builder *s, MlirValue forward, MlirValue gradient) {
  if (!wants_adjoint(s, forward))
    return;
  MlirValue previous = map_get(&s->adjoint, forward);
  if (!mlirValueIsNull(previous))
    gradient = sb_bin(s, "arith.addf", previous, gradient);
  if (!map_put(&s->adjoint, forward, gradient))
    s->failed = true;
}

/* Emits the adjoint contributions of one scalar op given the adjoint `g` of its result. Returns false
 * for an op without a rule. */
static bool scalar_vjp(scalar_builder *s, MlirOperation op, MlirValue g) {
/* Builds the contribution only for values that need one (constants and values from above do not). */
#define ACCUMULATE(forward, gradient)                  \
  do {                                                 \
    if (wants_adjoint(s, forward))                     \
      sb_accumulate(s, forward, gradient);             \
  } while (0)
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue a = n > 0 ? mapped(s, mlirOperationGetOperand(op, 0)) : (MlirValue){NULL};
  MlirValue b = n > 1 ? mapped(s, mlirOperationGetOperand(op, 1)) : (MlirValue){NULL};
  MlirValue fa = n > 0 ? mlirOperationGetOperand(op, 0) : (MlirValue){NULL};
  MlirValue fb = n > 1 ? mlirOperationGetOperand(op, 1) : (MlirValue){NULL};
  MlirValue y = mapped(s, mlirOperationGetResult(op, 0));
  MlirType t = mlirValueGetType(g);
  if (latch_op_is(op, "arith.addf")) {
    ACCUMULATE(fa, g);
    ACCUMULATE(fb, g);
  } else if (latch_op_is(op, "arith.subf")) {
    ACCUMULATE(fa, g);
    ACCUMULATE(fb, sb_un(s, "arith.negf", g));
  } else if (latch_op_is(op, "arith.mulf")) {
    ACCUMULATE(fa, sb_bin(s, "arith.mulf", g, b));
    ACCUMULATE(fb, sb_bin(s, "arith.mulf", g, a));
  } else if (latch_op_is(op, "arith.divf")) {
    MlirValue ga = sb_bin(s, "arith.divf", g, b);
    ACCUMULATE(fa, ga);
    ACCUMULATE(fb, sb_un(s, "arith.negf", sb_bin(s, "arith.mulf", ga, y)));
  } else if (latch_op_is(op, "arith.negf")) {
    ACCUMULATE(fa, sb_un(s, "arith.negf", g));
  } else if (latch_op_is(op, "arith.maximumf") || latch_op_is(op, "arith.maxnumf")) {
    MlirValue zero = sb_const(s, t, 0.0);
    ACCUMULATE(fa, sb_select_ge(s, a, b, g, zero));
    ACCUMULATE(fb, sb_select_ge(s, a, b, zero, g));
  } else if (latch_op_is(op, "arith.minimumf") || latch_op_is(op, "arith.minnumf")) {
    MlirValue zero = sb_const(s, t, 0.0);
    ACCUMULATE(fa, sb_select_ge(s, b, a, g, zero));
    ACCUMULATE(fb, sb_select_ge(s, b, a, zero, g));
  } else if (latch_op_is(op, "arith.select")) {
    MlirValue c = mapped(s, mlirOperationGetOperand(op, 0));
    MlirValue zero = sb_const(s, t, 0.0);
    MlirValue on_true[3] = {c, g, zero}, on_false[3] = {c, zero, g};
    ACCUMULATE(mlirOperationGetOperand(op, 1), sb_op(s, "arith.select", t, 3, on_true));
    ACCUMULATE(mlirOperationGetOperand(op, 2), sb_op(s, "arith.select", t, 3, on_false));
  } else if (latch_op_is(op, "arith.extf") || latch_op_is(op, "arith.truncf")) {
    MlirType source = mlirValueGetType(fa);
    ACCUMULATE(fa, sb_op(s, latch_op_is(op, "arith.extf") ? "arith.truncf" : "arith.extf", source, 1, &g));
  } else if (latch_op_is(op, "math.exp")) {
    ACCUMULATE(fa, sb_bin(s, "arith.mulf", g, y));
  } else if (latch_op_is(op, "math.log")) {
    ACCUMULATE(fa, sb_bin(s, "arith.divf", g, a));
  } else if (latch_op_is(op, "math.sqrt")) {
    MlirValue half = sb_const(s, t, 0.5);
    ACCUMULATE(fa, sb_bin(s, "arith.divf", sb_bin(s, "arith.mulf", g, half), y));
  } else if (latch_op_is(op, "math.rsqrt")) {
    MlirValue y3 = sb_bin(s, "arith.mulf", sb_bin(s, "arith.mulf", y, y), y);
    ACCUMULATE(fa, sb_bin(s, "arith.mulf", sb_bin(s, "arith.mulf", g, sb_const(s, t, -0.5)), y3));
  } else if (latch_op_is(op, "math.tanh")) {
    MlirValue one_minus = sb_bin(s, "arith.subf", sb_const(s, t, 1.0), sb_bin(s, "arith.mulf", y, y));
    ACCUMULATE(fa, sb_bin(s, "arith.mulf", g, one_minus));
  } else if (latch_op_is(op, "math.sin")) {
    ACCUMULATE(fa, sb_bin(s, "arith.mulf", g, sb_un(s, "math.cos", a)));
  } else if (latch_op_is(op, "math.cos")) {
    ACCUMULATE(fa, sb_un(s, "arith.negf", sb_bin(s, "arith.mulf", g, sb_un(s, "math.sin", a))));
  } else if (latch_op_is(op, "math.absf")) {
    ACCUMULATE(fa, sb_select_ge(s, a, sb_const(s, t, 0.0), g, sb_un(s, "arith.negf", g)));
  } else if (latch_op_is(op, "math.erf")) {
    MlirValue gauss = sb_un(s, "math.exp", sb_un(s, "arith.negf", sb_bin(s, "arith.mulf", a, a)));
    MlirValue scale = sb_const_exact(s, t, 1.1283791670955126); /* 2 / sqrt(pi) */
    ACCUMULATE(fa, sb_bin(s, "arith.mulf", g, sb_bin(s, "arith.mulf", scale, gauss)));
  } else if (latch_op_is(op, "math.powf")) {
    MlirValue b_minus_1 = sb_bin(s, "arith.subf", b, sb_const(s, t, 1.0));
    MlirValue pow_operands[2] = {a, b_minus_1};
    MlirValue da = sb_bin(s, "arith.mulf", sb_bin(s, "arith.mulf", g, b), sb_op(s, "math.powf", t, 2, pow_operands));
    ACCUMULATE(fa, da);
    ACCUMULATE(fb, sb_bin(s, "arith.mulf", sb_bin(s, "arith.mulf", g, y), sb_un(s, "math.log", a)));
  } else {
    return false;
  }
  return true;
#undef ACCUMULATE
}

/* Erases the ops of a map body (scalar arith/math ops, all free of side effects) whose results are
 * unused, last to first, so that recomputed forward work the derivatives do not need disappears. */
static void erase_dead_scalar_ops(MlirBlock body) {
  MlirOperation ops[1024];
  intptr_t count = 0;
  MlirOperation terminator = mlirBlockGetTerminator(body);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op) && count < 1024;
       op = mlirOperationGetNextInBlock(op))
    if (!mlirOperationEqual(op, terminator))
      ops[count++] = op;
  for (intptr_t k = count - 1; k >= 0; --k) {
    bool used = false;
    for (intptr_t r = 0, n = mlirOperationGetNumResults(ops[k]); r < n && !used; ++r)
      used = !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(ops[k], r)));
    if (!used)
      mlirOperationDestroy(ops[k]);
  }
}

/* One gradient map for the active inputs `wanted` (at most LATCH_MAP_MAX_OUTPUTS of them): it takes
 * (inputs..., output adjoints...), recomputes the forward body and yields one adjoint per wanted input.
 * Rank-0 (broadcast) inputs get a full-shape adjoint summed afterwards. */
static void vjp_map_group(differentiator *d, MlirOperation map, const intptr_t *wanted, intptr_t wanted_count) {
  MlirLocation loc = mlirOperationGetLocation(map);
  intptr_t inputs = mlirOperationGetNumOperands(map), outputs = mlirOperationGetNumResults(map);
  MlirBlock body = latch_map_body(map);
  MlirValue operands[2 * LATCH_MAP_MAX_INPUTS];
  MlirType arg_types[2 * LATCH_MAP_MAX_INPUTS];
  MlirLocation arg_locs[2 * LATCH_MAP_MAX_INPUTS];
  intptr_t count = 0;
  MlirType full_type = mlirValueGetType(mlirOperationGetResult(map, 0));
  for (intptr_t i = 0; i < inputs; ++i) {
    MlirValue input = mlirOperationGetOperand(map, i);
    operands[count] = input;
    arg_types[count] = mlirShapedTypeGetElementType(mlirValueGetType(input));
    arg_locs[count++] = loc;
  }
  for (intptr_t j = 0; j < outputs; ++j) {
    MlirValue result = mlirOperationGetResult(map, j);
    MlirValue adjoint = map_get(&d->adjoints, result);
    MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(result));
    adjoint = mlirValueIsNull(adjoint) ? zeros(d, loc, mlirValueGetType(result)) : cast_to(d, loc, adjoint, element);
    operands[count] = adjoint;
    arg_types[count] = element;
    arg_locs[count++] = loc;
  }
  MlirType result_types[LATCH_MAP_MAX_OUTPUTS];
  for (intptr_t i = 0; i < wanted_count; ++i)
    result_types[i] = with_element(full_type, arg_types[wanted[i]]);
  /* The body is built detached: arguments it ends up not using are dropped before the map is made, so
   * a map whose inputs and output adjoints exceed the limit can still be differentiated when its
   * derivatives need few of them. */
  MlirBlock grad_body = mlirBlockCreate(count, arg_types, arg_locs);

  scalar_builder s = {grad_body, loc, {0}, {0}, {0}, false};
  if (!map_init(&s.clone) || !map_init(&s.adjoint) || !map_init(&s.active)) {
    map_free(&s.clone);
    map_free(&s.adjoint);
    map_free(&s.active);
    d->failed = true;
    return;
  }
  /* Recompute the forward body inside the new one (cheap scalar work), remembering the copies. Only
   * the wanted inputs are active, so integer inputs and other inputs get no scalar adjoints. */
  for (intptr_t i = 0; i < inputs; ++i)
    map_put(&s.clone, mlirBlockGetArgument(body, i), mlirBlockGetArgument(grad_body, i));
  for (intptr_t i = 0; i < wanted_count; ++i)
    map_put(&s.active, mlirBlockGetArgument(body, wanted[i]), mlirBlockGetArgument(body, wanted[i]));
  MlirOperation terminator = mlirBlockGetTerminator(body);
  MlirOperation forward_ops[512];
  intptr_t forward_count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationEqual(op, terminator))
      break;
    if (forward_count == 512) {
      fail_at(d, map, "body too long to differentiate");
      break;
    }
    MlirOperation copy = mlirOperationClone(op);
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(copy); k < n; ++k)
      mlirOperationSetOperand(copy, k, mapped(&s, mlirOperationGetOperand(op, k)));
    mlirBlockAppendOwnedOperation(grad_body, copy);
    bool depends = false;
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n && !depends; ++k)
      depends = !mlirValueIsNull(map_get(&s.active, mlirOperationGetOperand(op, k)));
    for (intptr_t k = 0, n = mlirOperationGetNumResults(op); k < n; ++k) {
      MlirValue result = mlirOperationGetResult(op, k);
      map_put(&s.clone, result, mlirOperationGetResult(copy, k));
      if (depends)
        map_put(&s.active, result, result);
    }
    forward_ops[forward_count++] = op;
  }
  /* Seed with the output adjoints, then walk the body backwards. */
  for (intptr_t j = 0; j < outputs; ++j)
    sb_accumulate(&s, mlirOperationGetOperand(terminator, j), mlirBlockGetArgument(grad_body, inputs + j));
  for (intptr_t k = forward_count - 1; k >= 0 && !d->failed; --k) {
    MlirOperation op = forward_ops[k];
    if (mlirOperationGetNumResults(op) != 1)
      continue;
    MlirValue g = map_get(&s.adjoint, mlirOperationGetResult(op, 0));
    if (mlirValueIsNull(g))
      continue;
    if (!scalar_vjp(&s, op, g))
      fail_at(d, op, "no derivative rule for scalar op");
  }
  MlirValue yields[LATCH_MAP_MAX_OUTPUTS];
  for (intptr_t i = 0; i < wanted_count; ++i) {
    MlirValue g = map_get(&s.adjoint, mlirBlockGetArgument(body, wanted[i]));
    yields[i] = mlirValueIsNull(g) ? sb_const(&s, arg_types[wanted[i]], 0.0) : g;
  }
  mlirBlockAppendOwnedOperation(grad_body, make_op("gpu.yield", loc, 0, NULL, wanted_count, yields, NULL,
                                                   mlirAttributeGetNull()));
  map_free(&s.clone);
  map_free(&s.adjoint);
  map_free(&s.active);
  erase_dead_scalar_ops(grad_body);
  for (intptr_t k = count - 1; k >= 0; --k) {
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(grad_body, k))))
      continue;
    mlirBlockEraseArgument(grad_body, (unsigned)k);
    memmove(operands + k, operands + k + 1, (size_t)(count - k - 1) * sizeof(*operands));
    count--;
  }
  if (count > LATCH_MAP_MAX_INPUTS) {
    mlirBlockDestroy(grad_body);
    char message[160];
    snprintf(message, sizeof(message),
             "cannot differentiate (its gradient map needs %ld inputs, at most %d):", (long)count, LATCH_MAP_MAX_INPUTS);
    fail_at(d, map, message);
    return;
  }
  if (count == 0) { /* every derivative is a constant: feed one input so the map has a shape */
    mlirBlockInsertArgument(grad_body, 0, arg_types[0], loc);
    operands[0] = mlirOperationGetOperand(map, 0);
    count = 1;
  }
  MlirOperation grad_map = emit(d, LATCH_OP_TASK_MAP, loc, wanted_count, result_types, count, operands, NULL);
  if (mlirOperationIsNull(grad_map)) {
    mlirBlockDestroy(grad_body);
    return;
  }
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(grad_map, 0), grad_body);

  MlirOperation grad_yield = mlirBlockGetTerminator(grad_body);
  bool copies_only = true; /* every derivative is an operand: the map goes */
  for (intptr_t i = 0; i < wanted_count; ++i) {
    MlirValue input = mlirOperationGetOperand(map, wanted[i]);
    MlirValue g = mlirOperationGetResult(grad_map, i);
    /* A derivative that is one of the map's own operands unchanged (an addition passes its output's
     * adjoint to both inputs) is that operand: a map result would be a copy of it, written and read back. */
    MlirValue yielded = mlirOperationGetOperand(grad_yield, i);
    if (mlirValueIsABlockArgument(yielded)) {
      MlirValue operand = operands[mlirBlockArgumentGetArgNumber(yielded)];
      if (mlirTypeEqual(mlirValueGetType(operand), mlirValueGetType(g)))
        g = operand;
    }
    copies_only = copies_only && !mlirValueEqual(g, mlirOperationGetResult(grad_map, i));
    MlirType input_type = mlirValueGetType(input);
    if (mlirShapedTypeGetRank(input_type) == 0 && mlirShapedTypeGetRank(full_type) > 0) {
      /* A broadcast input: its adjoint is the sum over every element. */
      int64_t total = latch_type_element_count(full_type);
      MlirType flat = with_shape(d->context, 1, &total, mlirShapedTypeGetElementType(input_type));
      MlirValue flattened = emit1(d, LATCH_OP_TASK_RESHAPE, loc, flat, 1, &g, NULL);
      MlirAttribute attrs[2] = {latch_attr_get_int(d->context, 0), latch_attr_get_string(d->context, "sum")};
      g = emit1(d, LATCH_OP_TASK_REDUCE, loc, input_type, 1, &flattened, attrs);
    }
    accumulate(d, loc, input, g);
  }
  if (copies_only)
    mlirOperationDestroy(grad_map);
}

/* Differentiates a task.map at the scalar level: one gradient map per group of at most
 * LATCH_MAP_MAX_OUTPUTS active float inputs (each recomputes the forward body). */
static void vjp_map(differentiator *d, MlirOperation map) {
  intptr_t inputs = mlirOperationGetNumOperands(map);
  intptr_t active[LATCH_MAP_MAX_INPUTS], active_count = 0;
  for (intptr_t i = 0; i < inputs; ++i) {
    MlirValue input = mlirOperationGetOperand(map, i);
    if (is_active(d, input) && is_float_tensor(mlirValueGetType(input)))
      active[active_count++] = i;
  }
  if (active_count == 0)
    return;
  for (intptr_t start = 0; start < active_count && !d->failed; start += LATCH_MAP_MAX_OUTPUTS) {
    intptr_t group = active_count - start < LATCH_MAP_MAX_OUTPUTS ? active_count - start : LATCH_MAP_MAX_OUTPUTS;
    vjp_map_group(d, map, active + start, group);
  }
}

/* ---- VJP rules of the task ops ------------------------------------------------------------------- */

/* Backward of c = op(a) x op(b): with A = op(a), B = op(b), dA = dC B^T and dB = A^T dC. */
static void vjp_matmul(differentiator *d, MlirOperation op, MlirValue dc) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue a = latch_matmul_a(op), b = latch_matmul_b(op);
  bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
  MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(a));
  dc = cast_to(d, loc, dc, element);
  if (is_active(d, a)) {
    MlirValue operands[2] = {ta ? b : dc, ta ? dc : b};
    MlirAttribute attrs[2] = {latch_attr_get_bool(d->context, ta ? tb : false),
                              latch_attr_get_bool(d->context, ta ? true : !tb)};
    accumulate(d, loc, a, emit1(d, LATCH_OP_TASK_MATMUL, loc, adjoint_type(mlirValueGetType(a)), 2, operands, attrs));
  }
  if (is_active(d, b)) {
    MlirValue operands[2] = {tb ? dc : a, tb ? a : dc};
    MlirAttribute attrs[2] = {latch_attr_get_bool(d->context, tb ? true : !ta),
                              latch_attr_get_bool(d->context, tb ? ta : false)};
    accumulate(d, loc, b, emit1(d, LATCH_OP_TASK_MATMUL, loc, adjoint_type(mlirValueGetType(b)), 2, operands, attrs));
  }
}

/* y = x w[g] (w [G, K, N]): dx = dy w[g]^T, a grouped_matmul with transpose_w (no transposed copy of w),
 * and dw = grouped_matmul_weight_grad(x, dy). With transpose_w (y = x w[g]^T, w [G, N, K]): dx = dy w[g]
 * and dw = grouped_matmul_weight_grad(dy, x). */
static void vjp_grouped_matmul(differentiator *d, MlirOperation op, MlirValue dy) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue x = latch_grouped_matmul_x(op), w = latch_grouped_matmul_w(op), ends = latch_grouped_matmul_ends(op);
  bool transposed = latch_grouped_matmul_transpose_w(op);
  if (latch_grouped_matmul_w_column_offset(op) >= 0) { /* latch-fold-weight-split writes it after the gradient */
    fail_at(d, op, "no VJP rule for a w_column_offset of");
    return;
  }
  MlirType w_type = mlirValueGetType(w);
  dy = cast_to(d, loc, dy, mlirShapedTypeGetElementType(w_type));
  if (is_active(d, x)) {
    MlirValue operands[3] = {dy, w, ends};
    MlirValue dx = emit1(d, LATCH_OP_TASK_GROUPED_MATMUL, loc, adjoint_type(mlirValueGetType(x)), 3, operands, NULL);
    if (!transposed)
      mlirOperationSetAttributeByName(mlirOpResultGetOwner(dx), mlirStringRefCreateFromCString("transpose_w"),
                                      latch_attr_get_bool(d->context, true));
    accumulate(d, loc, x, dx);
  }
  if (is_active(d, w)) {
    MlirValue operands[3] = {transposed ? dy : x, transposed ? x : dy, ends};
    accumulate(d, loc, w, emit1(d, LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD, loc, adjoint_type(w_type), 3, operands, NULL));
  }
}

/* Ops whose backward is one dedicated op: operands of the backward op are the forward operands and
 * results listed, then the adjoints; its results are the adjoints of the listed forward operands. */
static void vjp_rmsnorm(differentiator *d, MlirOperation op, MlirValue dy) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue x = latch_rmsnorm_x(op), w = latch_rmsnorm_w(op);
  MlirValue operands[3] = {x, w, dy};
  MlirType types[2] = {mlirValueGetType(x), mlirValueGetType(w)};
  MlirAttribute eps = latch_attr_get_float(d->context, latch_rmsnorm_eps(op));
  MlirOperation grad = emit(d, LATCH_OP_TASK_RMSNORM_GRAD, loc, 2, types, 3, operands, &eps);
  if (mlirOperationIsNull(grad))
    return;
  accumulate(d, loc, x, mlirOperationGetResult(grad, 0));
  accumulate(d, loc, w, mlirOperationGetResult(grad, 1));
}

static void vjp_attention(differentiator *d, MlirOperation op, MlirValue d_o) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue q = latch_attention_q(op), k = latch_attention_k(op), v = latch_attention_v(op);
  MlirValue operands[5] = {q, k, v, latch_attention_o_result(op), d_o};
  MlirType types[3] = {mlirValueGetType(q), mlirValueGetType(k), mlirValueGetType(v)};
  MlirAttribute attrs[2] = {latch_attr_get_bool(d->context, latch_attention_causal(op)),
                            latch_attr_get_float(d->context, latch_attention_scale(op))};
  MlirOperation grad = emit(d, LATCH_OP_TASK_ATTENTION_GRAD, loc, 3, types, 5, operands, attrs);
  if (mlirOperationIsNull(grad))
    return;
  accumulate(d, loc, q, mlirOperationGetResult(grad, 0));
  accumulate(d, loc, k, mlirOperationGetResult(grad, 1));
  accumulate(d, loc, v, mlirOperationGetResult(grad, 2));
}

static void vjp_op(differentiator *d, MlirOperation op) {
  latch_op_kind kind = latch_op_kind_of(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue g = mlirOperationGetNumResults(op) ? map_get(&d->adjoints, mlirOperationGetResult(op, 0)) : (MlirValue){NULL};
  switch (kind) {
  case LATCH_OP_TASK_MATMUL: vjp_matmul(d, op, g); return;
  case LATCH_OP_TASK_GROUPED_MATMUL: vjp_grouped_matmul(d, op, g); return;
  case LATCH_OP_TASK_MAP: vjp_map(d, op); return;
  case LATCH_OP_TASK_RMSNORM: vjp_rmsnorm(d, op, g); return;
  case LATCH_OP_TASK_ATTENTION: vjp_attention(d, op, g); return;
  case LATCH_OP_TASK_ATTENTION_LSE: /* operands, attributes and o as task.attention's; lse is for statistics */
    if (!mlirValueIsNull(map_get(&d->adjoints, latch_attention_lse_lse_result(op)))) {
      fail_at(d, op, "no VJP rule for the result 'lse' of");
      return;
    }
    vjp_attention(d, op, g);
    return;
  case LATCH_OP_TASK_REDUCE: {
    MlirValue x = latch_reduce_x(op);
    MlirValue operands[2] = {x, g};
    MlirAttribute attrs[2] = {latch_attr_get_int(d->context, latch_reduce_axis(op)),
                              mlirOperationGetAttributeByName(op, str("kind"))};
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_REDUCE_GRAD, loc, mlirValueGetType(x), 2, operands, attrs));
    return;
  }
  case LATCH_OP_TASK_SOFTMAX: {
    MlirValue x = latch_softmax_x(op);
    MlirValue operands[2] = {latch_softmax_y_result(op), g};
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_SOFTMAX_GRAD, loc, mlirValueGetType(x), 2, operands, NULL));
    return;
  }
  case LATCH_OP_TASK_CROSS_ENTROPY: {
    MlirValue logits = latch_cross_entropy_logits(op);
    MlirValue operands[3] = {logits, latch_cross_entropy_targets(op), g};
    accumulate(d, loc, logits,
               emit1(d, LATCH_OP_TASK_CROSS_ENTROPY_GRAD, loc, mlirValueGetType(logits), 3, operands, NULL));
    return;
  }
  case LATCH_OP_TASK_EMBEDDING: {
    /* The transpose of a row gather: scatter-add the output rows into the table's rows. */
    MlirValue table = latch_embedding_table(op), ids = latch_embedding_ids(op);
    MlirType table_type = mlirValueGetType(table), ids_type = mlirValueGetType(ids);
    int64_t rows = latch_type_element_count(ids_type);
    int64_t flat_shape[2] = {rows, mlirShapedTypeGetDimSize(table_type, 1)};
    MlirType g_element = mlirShapedTypeGetElementType(mlirValueGetType(g));
    MlirValue flat_g = emit1(d, LATCH_OP_TASK_RESHAPE, loc, with_shape(d->context, 2, flat_shape, g_element), 1, &g, NULL);
    MlirValue flat_ids = ids;
    if (mlirShapedTypeGetRank(ids_type) != 1)
      flat_ids = emit1(d, LATCH_OP_TASK_RESHAPE, loc,
                       with_shape(d->context, 1, &rows, mlirShapedTypeGetElementType(ids_type)), 1, &ids, NULL);
    MlirValue operands[2] = {flat_g, flat_ids};
    MlirAttribute attr = latch_attr_get_int(d->context, mlirShapedTypeGetDimSize(table_type, 0));
    accumulate(d, loc, table, emit1(d, LATCH_OP_TASK_SCATTER_ADD_ROWS, loc, like(table, g), 2, operands, &attr));
    return;
  }
  case LATCH_OP_TASK_ROPE: {
    MlirValue x = latch_rope_x(op);
    MlirAttribute theta = latch_attr_get_float(d->context, latch_rope_theta(op));
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_ROPE_GRAD, loc, like(x, g), 1, &g, &theta));
    return;
  }
  case LATCH_OP_TASK_TOPK: {
    /* Routing is differentiated through the selected values only; the indices carry no gradient. */
    MlirValue x = latch_topk_x(op);
    if (mlirValueIsNull(g))
      return;
    MlirValue operands[2] = {g, latch_topk_indices_result(op)};
    MlirAttribute columns = latch_attr_get_int(d->context, mlirShapedTypeGetDimSize(mlirValueGetType(x), 1));
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_TOPK_GRAD, loc, mlirValueGetType(x), 2, operands, &columns));
    return;
  }
  case LATCH_OP_TASK_GATHER_ROWS: {
    MlirValue x = latch_gather_rows_x(op);
    MlirValue operands[2] = {g, latch_gather_rows_idx(op)};
    MlirAttribute rows = latch_attr_get_int(d->context, mlirShapedTypeGetDimSize(mlirValueGetType(x), 0));
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_SCATTER_ADD_ROWS, loc, like(x, g), 2, operands, &rows));
    return;
  }
  case LATCH_OP_TASK_SCATTER_ADD_ROWS: {
    MlirValue x = latch_scatter_add_rows_x(op);
    MlirValue operands[2] = {g, latch_scatter_add_rows_idx(op)};
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_GATHER_ROWS, loc, like(x, g), 2, operands, NULL));
    return;
  }
  case LATCH_OP_TASK_RESHAPE: {
    MlirValue x = latch_reshape_x(op);
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_RESHAPE, loc, like(x, g), 1, &g, NULL));
    return;
  }
  case LATCH_OP_TASK_TRANSPOSE: {
    MlirValue x = latch_transpose_x(op);
    intptr_t rank = latch_attr_i64_array_size(op, "perm");
    int64_t inverse[8];
    for (intptr_t i = 0; i < rank && i < 8; ++i)
      inverse[latch_attr_i64_array_get(op, "perm", i)] = i;
    MlirAttribute perm = latch_attr_get_i64_array(d->context, rank, inverse);
    accumulate(d, loc, x, emit1(d, LATCH_OP_TASK_TRANSPOSE, loc, like(x, g), 1, &g, &perm));
    return;
  }
  case LATCH_OP_TASK_CONVERT: {
    MlirValue x = latch_convert_x(op);
    accumulate(d, loc, x, g); /* accumulate() casts to x's gradient dtype */
    return;
  }
  default:
    fail_at(d, op, "no VJP rule for");
  }
}

/* ---- the pass ------------------------------------------------------------------------------------ */

static bool arg_is_param(MlirOperation func, intptr_t index) {
  MlirAttribute arg_attrs = mlirOperationGetAttributeByName(func, str("arg_attrs"));
  if (mlirAttributeIsNull(arg_attrs) || !mlirAttributeIsAArray(arg_attrs) ||
      index >= mlirArrayAttrGetNumElements(arg_attrs))
    return false;
  MlirAttribute dict = mlirArrayAttrGetElement(arg_attrs, index);
  return mlirAttributeIsADictionary(dict) &&
         !mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(dict, str("task.param")));
}

/* Marks every value that depends on a parameter through float data. */
static void mark_active(differentiator *d, MlirOperation func, MlirBlock entry, MlirOperation *ops, intptr_t count) {
  for (intptr_t i = 0, n = mlirBlockGetNumArguments(entry); i < n; ++i)
    if (arg_is_param(func, i))
      map_put(&d->active, mlirBlockGetArgument(entry, i), mlirBlockGetArgument(entry, i));
  for (intptr_t k = 0; k < count; ++k) {
    MlirOperation op = ops[k];
    bool any = false;
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n && !any; ++i)
      any = is_active(d, mlirOperationGetOperand(op, i));
    if (!any)
      continue;
    for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
      MlirValue result = mlirOperationGetResult(op, i);
      if (is_float_tensor(mlirValueGetType(result)))
        map_put(&d->active, result, result);
    }
  }
}

static MlirLogicalResult differentiate(MlirOperation func, MlirBlock module_body) {
  MlirStringRef name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(func, str("sym_name")));
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(entry) || !mlirBlockIsNull(mlirBlockGetNextInRegion(entry))) {
    mlirEmitError(mlirOperationGetLocation(func), "latch-autodiff: a model must have exactly one block");
    return mlirLogicalResultFailure();
  }

  MlirOperation grad = mlirOperationClone(func);
  char grad_name[256];
  snprintf(grad_name, sizeof(grad_name), "%.*s_grad", (int)name.length, name.data);
  MlirContext context = mlirOperationGetContext(func);
  mlirOperationSetAttributeByName(grad, str("sym_name"), mlirStringAttrGet(context, str(grad_name)));
  mlirBlockInsertOwnedOperationAfter(module_body, func, grad);

  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(grad, 0));
  MlirOperation ret = mlirBlockGetTerminator(block);
  intptr_t count = 0, capacity = 256;
  MlirOperation *ops = malloc(sizeof(*ops) * (size_t)capacity);
  differentiator d = {context, block, ret, {0}, {0}, false};
  if (!ops || !map_init(&d.adjoints) || !map_init(&d.active)) {
    free(ops);
    map_free(&d.adjoints);
    map_free(&d.active);
    return mlirLogicalResultFailure();
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op)) {
    if (count == capacity) {
      MlirOperation *grown = realloc(ops, sizeof(*ops) * (size_t)(capacity *= 2));
      if (!grown) {
        d.failed = true;
        break;
      }
      ops = grown;
    }
    ops[count++] = op;
  }
  mark_active(&d, grad, block, ops, count);

  /* Seed: d loss / d loss = 1. */
  MlirValue loss = mlirOperationGetOperand(ret, 0);
  MlirLocation loc = mlirOperationGetLocation(ret);
  MlirType loss_type = mlirValueGetType(loss);
  MlirAttribute one = mlirDenseElementsAttrSplatGet(
      loss_type, mlirFloatAttrDoubleGet(context, mlirShapedTypeGetElementType(loss_type), 1.0));
  MlirValue seed = mlirOperationGetResult(insert(&d, make_op("arith.constant", loc, 1, &loss_type, 0, NULL, "value", one)), 0);
  map_put(&d.adjoints, loss, seed);

  for (intptr_t k = count - 1; k >= 0 && !d.failed; --k) {
    MlirOperation op = ops[k];
    bool has_adjoint = false;
    for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n && !has_adjoint; ++i)
      has_adjoint = !mlirValueIsNull(map_get(&d.adjoints, mlirOperationGetResult(op, i)));
    if (has_adjoint)
      vjp_op(&d, op);
  }

  /* The new return: the loss, then one gradient per parameter (zeros where the loss does not depend
   * on it). */
  MlirValue results[256];
  MlirType result_types[256];
  intptr_t result_count = 0;
  results[result_count] = loss;
  result_types[result_count++] = loss_type;
  for (intptr_t i = 0, n = mlirBlockGetNumArguments(block); i < n && !d.failed; ++i) {
    if (!arg_is_param(grad, i))
      continue;
    if (result_count == 256) {
      mlirEmitError(mlirOperationGetLocation(func), "latch-autodiff: more than 255 parameters");
      d.failed = true;
      break;
    }
    MlirValue arg = mlirBlockGetArgument(block, i);
    MlirValue g = map_get(&d.adjoints, arg);
    if (mlirValueIsNull(g))
      g = zeros(&d, loc, mlirValueGetType(arg));
    g = cast_to(&d, loc, g, mlirShapedTypeGetElementType(mlirValueGetType(arg)));
    results[result_count] = g;
    result_types[result_count++] = mlirValueGetType(arg);
  }
  if (!d.failed) {
    mlirBlockInsertOwnedOperationBefore(block, ret, make_op("func.return", loc, 0, NULL, result_count, results, NULL,
                                                            mlirAttributeGetNull()));
    mlirOperationDestroy(ret);
    MlirType inputs[256];
    intptr_t input_count = mlirBlockGetNumArguments(block);
    for (intptr_t i = 0; i < input_count && i < 256; ++i)
      inputs[i] = mlirValueGetType(mlirBlockGetArgument(block, i));
    MlirType type = mlirFunctionTypeGet(context, input_count, inputs, result_count, result_types);
    mlirOperationSetAttributeByName(grad, str("function_type"), mlirTypeAttrGet(type));
    mlirOperationRemoveAttributeByName(grad, str("res_attrs"));
    mlirOperationSetAttributeByName(grad, str("task.generated"), mlirStringAttrGet(context, str("grad")));
  }
  free(ops);
  map_free(&d.adjoints);
  map_free(&d.active);
  return d.failed ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}

/* A model: a func.func, not generated by Latch, whose first result is a rank-0 float tensor and that
 * has at least one task.param argument. (Functions it generates carry task.generated and are skipped.) */
static bool is_model(MlirOperation op) {
  if (!latch_op_is(op, "func.func") ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("task.generated"))))
    return false;
  MlirType type = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(op, str("function_type")));
  if (mlirFunctionTypeGetNumResults(type) < 1)
    return false;
  MlirType loss = mlirFunctionTypeGetResult(type, 0);
  if (!is_float_tensor(loss) || mlirShapedTypeGetRank(loss) != 0)
    return false;
  for (intptr_t i = 0, n = mlirFunctionTypeGetNumInputs(type); i < n; ++i)
    if (arg_is_param(op, i))
      return true;
  return false;
}

static MlirLogicalResult run(MlirOperation module, const void *options) {
  (void)options;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation models[64];
  intptr_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (is_model(op) && count < 64)
      models[count++] = op;
  for (intptr_t i = 0; i < count; ++i)
    if (mlirLogicalResultIsFailure(differentiate(models[i], body)))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

/* Upstream dialects whose ops this pass creates. */
static const latch_dialect_handle_getter autodiff_dialects[] = {mlirGetDialectHandle__arith__, mlirGetDialectHandle__func__, mlirGetDialectHandle__gpu__, mlirGetDialectHandle__math__};

const latch_pass_info latch_autodiff_pass = {
    .dependent_dialects = autodiff_dialects,
    .dependent_dialect_count = sizeof(autodiff_dialects) / sizeof(autodiff_dialects[0]),
    .name = "latch-autodiff",
    .summary = "Differentiate each model @f (loss first, task.param arguments) into @f_grad",
    .anchor = "builtin.module",
    .run = run,
};
