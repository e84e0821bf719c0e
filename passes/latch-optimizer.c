/* latch-optimizer.c - the optimizer step: from each `@f_grad` writes
 *   @f_update(params..., m..., v..., step, inputs...) -> (loss, params'..., m'..., v'...)
 * with one decoupled-AdamW `task.adamw` per parameter. The gradient computation is copied into the
 * update (not called), so every forward and backward value stays visible to the schedule and memory
 * passes. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"

#include "../dialects/ops.h"
#include "pass.h"

typedef struct optimizer_options {
  double lr, beta1, beta2, eps, weight_decay;
} optimizer_options;

static const latch_pass_option optimizer_option_table[] = {
    {"lr", LATCH_OPTION_FLOAT, "3e-4", "learning rate", offsetof(optimizer_options, lr)},
    {"beta1", LATCH_OPTION_FLOAT, "0.9", "first-moment decay", offsetof(optimizer_options, beta1)},
    {"beta2", LATCH_OPTION_FLOAT, "0.999", "second-moment decay", offsetof(optimizer_options, beta2)},
    {"eps", LATCH_OPTION_FLOAT, "1e-8", "denominator epsilon", offsetof(optimizer_options, eps)},
    {"weight_decay", LATCH_OPTION_FLOAT, "0.1", "decoupled weight decay",
     offsetof(optimizer_options, weight_decay)},
};

#define MAX_ARGS 512

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

static MlirAttribute arg_dict(MlirOperation func, intptr_t index) {
  MlirAttribute arg_attrs = mlirOperationGetAttributeByName(func, str("arg_attrs"));
  if (mlirAttributeIsNull(arg_attrs) || !mlirAttributeIsAArray(arg_attrs) ||
      index >= mlirArrayAttrGetNumElements(arg_attrs))
    return mlirDictionaryAttrGet(mlirOperationGetContext(func), 0, NULL);
  return mlirArrayAttrGetElement(arg_attrs, index);
}

static bool dict_has(MlirAttribute dict, const char *name) {
  return mlirAttributeIsADictionary(dict) && !mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(dict, str(name)));
}

/* The name of argument `index` (its task.name, else argN), for naming its optimizer state. */
static void arg_name(MlirAttribute dict, intptr_t index, char *out, size_t size) {
  MlirAttribute name = mlirAttributeIsADictionary(dict) ? mlirDictionaryAttrGetElementByName(dict, str("task.name"))
                                                        : mlirAttributeGetNull();
  if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name)) {
    MlirStringRef text = mlirStringAttrGetValue(name);
    snprintf(out, size, "%.*s", (int)text.length, text.data);
  } else {
    snprintf(out, size, "arg%ld", (long)index);
  }
}

/* Argument attributes of an optimizer-state argument: its name and a zero initialisation. */
static MlirAttribute state_dict(MlirContext context, const char *prefix, const char *param_name) {
  char name[256];
  snprintf(name, sizeof(name), "%s.%s", prefix, param_name);
  MlirNamedAttribute entries[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(context, str("task.name")), mlirStringAttrGet(context, str(name))),
      mlirNamedAttributeGet(mlirIdentifierGet(context, str("task.state")), mlirUnitAttrGet(context)),
      mlirNamedAttributeGet(mlirIdentifierGet(context, str("task.init")), mlirStringAttrGet(context, str("zeros"))),
  };
  return mlirDictionaryAttrGet(context, 3, entries);
}

static MlirLogicalResult build_update(MlirOperation grad, MlirBlock module_body, const optimizer_options *options) {
  MlirContext context = mlirOperationGetContext(grad);
  MlirStringRef grad_name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(grad, str("sym_name")));
  MlirLocation loc = mlirOperationGetLocation(grad);
  if (grad_name.length < 5) {
    mlirEmitError(loc, "latch-optimizer: a gradient function's name must end in _grad");
    return mlirLogicalResultFailure();
  }
  MlirOperation update = mlirOperationClone(grad);
  char name[256];
  snprintf(name, sizeof(name), "%.*s_update", (int)(grad_name.length - 5), grad_name.data);
  mlirOperationSetAttributeByName(update, str("sym_name"), mlirStringAttrGet(context, str(name)));
  mlirOperationSetAttributeByName(update, str("task.generated"), mlirStringAttrGet(context, str("update")));
  mlirBlockInsertOwnedOperationAfter(module_body, grad, update);

  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(update, 0));
  intptr_t old_count = mlirBlockGetNumArguments(block);
  if (old_count * 3 + 1 > MAX_ARGS) {
    mlirEmitError(loc, "latch-optimizer: too many arguments");
    return mlirLogicalResultFailure();
  }
  intptr_t params[MAX_ARGS], inputs[MAX_ARGS], param_count = 0, input_count = 0;
  for (intptr_t i = 0; i < old_count; ++i) {
    if (dict_has(arg_dict(update, i), "task.param"))
      params[param_count++] = i;
    else
      inputs[input_count++] = i;
  }

  /* New arguments in their final order, appended after the old ones: params, m, v, step, inputs. */
  MlirType types[MAX_ARGS];
  MlirAttribute dicts[MAX_ARGS];
  intptr_t count = 0;
  MlirValue new_param[MAX_ARGS], new_m[MAX_ARGS], new_v[MAX_ARGS];
  char param_names[MAX_ARGS][64];
  for (intptr_t p = 0; p < param_count; ++p) {
    MlirValue old = mlirBlockGetArgument(block, params[p]);
    new_param[p] = mlirBlockAddArgument(block, mlirValueGetType(old), loc);
    types[count] = mlirValueGetType(old);
    dicts[count++] = arg_dict(update, params[p]);
    arg_name(arg_dict(update, params[p]), params[p], param_names[p], sizeof(param_names[p]));
  }
  for (int moment = 0; moment < 2; ++moment)
    for (intptr_t p = 0; p < param_count; ++p) {
      MlirType type = mlirValueGetType(new_param[p]);
      MlirValue arg = mlirBlockAddArgument(block, type, loc);
      (moment ? new_v : new_m)[p] = arg;
      types[count] = type;
      dicts[count++] = state_dict(context, moment ? "v" : "m", param_names[p]);
    }
  MlirType step_type = mlirRankedTensorTypeGet(0, NULL, mlirF32TypeGet(context), mlirAttributeGetNull());
  MlirValue step = mlirBlockAddArgument(block, step_type, loc);
  types[count] = step_type;
  /* The step counter t >= 1; `task.init = "ones"` makes a generated first update use t = 1. */
  MlirNamedAttribute step_attrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(context, str("task.name")), mlirStringAttrGet(context, str("step"))),
      mlirNamedAttributeGet(mlirIdentifierGet(context, str("task.init")), mlirStringAttrGet(context, str("ones"))),
  };
  dicts[count++] = mlirDictionaryAttrGet(context, 2, step_attrs);
  for (intptr_t i = 0; i < input_count; ++i) {
    MlirValue old = mlirBlockGetArgument(block, inputs[i]);
    MlirValue arg = mlirBlockAddArgument(block, mlirValueGetType(old), loc);
    mlirValueReplaceAllUsesOfWith(old, arg);
    types[count] = mlirValueGetType(old);
    dicts[count++] = arg_dict(update, inputs[i]);
  }
  for (intptr_t p = 0; p < param_count; ++p)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(block, params[p]), new_param[p]);
  for (intptr_t i = old_count - 1; i >= 0; --i)
    mlirBlockEraseArgument(block, (unsigned)i);

  /* One AdamW per parameter, fed by the gradient the copied @f_grad body returned. */
  MlirOperation ret = mlirBlockGetTerminator(block);
  if (mlirOperationGetNumOperands(ret) != param_count + 1) {
    mlirEmitError(mlirOperationGetLocation(ret), "latch-optimizer: the gradient function must return the loss and one gradient per parameter");
    return mlirLogicalResultFailure();
  }
  MlirAttribute attrs[5] = {latch_attr_get_float(context, options->lr), latch_attr_get_float(context, options->beta1),
                            latch_attr_get_float(context, options->beta2), latch_attr_get_float(context, options->eps),
                            latch_attr_get_float(context, options->weight_decay)};
  MlirValue results[3 * MAX_ARGS + 1];
  MlirType result_types[3 * MAX_ARGS + 1];
  results[0] = mlirOperationGetOperand(ret, 0);
  result_types[0] = mlirValueGetType(results[0]);
  for (intptr_t p = 0; p < param_count; ++p) {
    MlirType type = mlirValueGetType(new_param[p]);
    MlirValue operands[5] = {new_param[p], mlirOperationGetOperand(ret, p + 1), new_m[p], new_v[p], step};
    MlirType out_types[3] = {type, type, type};
    MlirOperation adamw = latch_op_create(LATCH_OP_TASK_ADAMW, mlirOperationGetLocation(ret), 3, out_types, 5,
                                          operands, attrs);
    mlirOperationSetAttributeByName(adamw, str("task.phase"), mlirStringAttrGet(context, str("optimizer")));
    mlirBlockInsertOwnedOperationBefore(block, ret, adamw);
    for (int k = 0; k < 3; ++k) {
      results[1 + k * param_count + p] = mlirOperationGetResult(adamw, k);
      result_types[1 + k * param_count + p] = type;
    }
  }
  MlirOperationState state = mlirOperationStateGet(str("func.return"), mlirOperationGetLocation(ret));
  mlirOperationStateAddOperands(&state, 1 + 3 * param_count, results);
  mlirBlockInsertOwnedOperationBefore(block, ret, mlirOperationCreate(&state));
  mlirOperationDestroy(ret);

  mlirOperationSetAttributeByName(update, str("function_type"),
                                  mlirTypeAttrGet(mlirFunctionTypeGet(context, count, types, 1 + 3 * param_count,
                                                                      result_types)));
  mlirOperationSetAttributeByName(update, str("arg_attrs"), mlirArrayAttrGet(context, count, dicts));
  mlirOperationRemoveAttributeByName(update, str("res_attrs"));
  return mlirLogicalResultSuccess();
}

static bool is_gradient_function(MlirOperation op) {
  if (!latch_op_is(op, "func.func"))
    return false;
  MlirAttribute generated = mlirOperationGetAttributeByName(op, str("task.generated"));
  if (mlirAttributeIsNull(generated) || !mlirAttributeIsAString(generated))
    return false;
  MlirStringRef kind = mlirStringAttrGetValue(generated);
  return kind.length == 4 && memcmp(kind.data, "grad", 4) == 0;
}

static MlirLogicalResult run(MlirOperation module, const void *options) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation grads[64];
  intptr_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (is_gradient_function(op) && count < 64)
      grads[count++] = op;
  if (count == 0) {
    mlirEmitError(mlirOperationGetLocation(module), "latch-optimizer: no gradient function (run latch-autodiff first)");
    return mlirLogicalResultFailure();
  }
  for (intptr_t i = 0; i < count; ++i)
    if (mlirLogicalResultIsFailure(build_update(grads[i], body, options)))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

/* Upstream dialects whose ops this pass creates. */
static const latch_dialect_handle_getter optimizer_dialects[] = {mlirGetDialectHandle__func__};

const latch_pass_info latch_optimizer_pass = {
    .dependent_dialects = optimizer_dialects,
    .dependent_dialect_count = sizeof(optimizer_dialects) / sizeof(optimizer_dialects[0]),
    .name = "latch-optimizer",
    .summary = "Write @f_update from @f_grad: one decoupled AdamW step per parameter",
    .anchor = "builtin.module",
    .options = optimizer_option_table,
    .option_count = sizeof(optimizer_option_table) / sizeof(optimizer_option_table[0]),
    .options_size = sizeof(optimizer_options),
    .run = run,
};
