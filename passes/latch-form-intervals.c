/* latch-form-intervals.c - turns a task program (a func.func) into an `interval.program`: the same ops in
 * the same order, one interval per task (so every task's inputs come from earlier intervals), each task
 * given its tile count (`tiles`), constants gathered before the first interval. latch-fuse-phases then
 * makes the intervals fewer and fuller. */
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "pass.h"

typedef struct form_options {
  char entry[LATCH_OPTION_STRING_MAX];
} form_options;

static const latch_pass_option form_option_table[] = {
    {"entry", LATCH_OPTION_STRING, "",
     "function to schedule (default: every @*_update, or every function with tasks if there is none)",
     offsetof(form_options, entry)},
};

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

static bool has_tasks(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (latch_op_is_task(op))
      return true;
  return false;
}

static bool is_update(MlirOperation func) {
  MlirAttribute generated = mlirOperationGetAttributeByName(func, str("task.generated"));
  if (mlirAttributeIsNull(generated) || !mlirAttributeIsAString(generated))
    return false;
  MlirStringRef kind = mlirStringAttrGetValue(generated);
  return kind.length == 6 && memcmp(kind.data, "update", 6) == 0;
}

static void insert_before(MlirBlock block, MlirOperation anchor, MlirOperation op) {
  mlirBlockInsertOwnedOperationBefore(block, anchor, op);
}

static MlirOperation make_marker(MlirContext context, MlirLocation loc, const char *name) {
  MlirAttribute attr = latch_attr_get_string(context, name);
  return latch_op_create(LATCH_OP_INTERVAL_INTERVAL, loc, 0, NULL, 0, NULL, &attr);
}

/* Moves the body of `func` into a new interval.program placed before it, then erases `func`. */
static MlirLogicalResult form(MlirOperation func, MlirBlock module_body) {
  MlirContext context = mlirOperationGetContext(func);
  MlirLocation loc = mlirOperationGetLocation(func);
  MlirRegion func_region = mlirOperationGetRegion(func, 0);
  MlirBlock body = mlirRegionGetFirstBlock(func_region);
  if (mlirBlockIsNull(body) || !mlirBlockIsNull(mlirBlockGetNextInRegion(body))) {
    mlirEmitError(loc, "latch-form-intervals: a task program must have exactly one block");
    return mlirLogicalResultFailure();
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    bool constant = latch_op_is(op, "arith.constant");
    if (!latch_op_is_task(op) && !constant && !latch_op_is(op, "func.return")) {
      MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
      char message[256];
      snprintf(message, sizeof(message), "latch-form-intervals: '%.*s' cannot be scheduled (only task ops and constants)",
               (int)name.length, name.data);
      mlirEmitError(mlirOperationGetLocation(op), message);
      return mlirLogicalResultFailure();
    }
  }

  MlirAttribute attrs[2] = {mlirOperationGetAttributeByName(func, str("sym_name")),
                            mlirOperationGetAttributeByName(func, str("function_type"))};
  MlirOperation program = latch_op_create(LATCH_OP_INTERVAL_PROGRAM, loc, 0, NULL, 0, NULL, attrs);
  MlirAttribute arg_attrs = mlirOperationGetAttributeByName(func, str("arg_attrs"));
  if (!mlirAttributeIsNull(arg_attrs))
    mlirOperationSetAttributeByName(program, str("arg_attrs"), arg_attrs);
  MlirAttribute generated = mlirOperationGetAttributeByName(func, str("task.generated"));
  if (!mlirAttributeIsNull(generated))
    mlirOperationSetAttributeByName(program, str("task.generated"), generated);
  mlirRegionTakeBody(mlirOperationGetRegion(program, 0), func_region);
  mlirBlockInsertOwnedOperationBefore(module_body, func, program);
  mlirOperationDestroy(func);

  /* The terminator: func.return becomes gpu.yield of the same values. */
  MlirOperation ret = mlirBlockGetTerminator(body);
  MlirOperationState state = mlirOperationStateGet(str("gpu.yield"), mlirOperationGetLocation(ret));
  MlirValue results[512];
  intptr_t result_count = mlirOperationGetNumOperands(ret);
  if (result_count > 512) {
    mlirEmitError(loc, "latch-form-intervals: more than 512 results");
    return mlirLogicalResultFailure();
  }
  for (intptr_t i = 0; i < result_count; ++i)
    results[i] = mlirOperationGetOperand(ret, i);
  mlirOperationStateAddOperands(&state, result_count, results);
  MlirOperation yield = mlirOperationCreate(&state);
  insert_before(body, ret, yield);
  mlirOperationDestroy(ret);

  /* Constants first (in their order), then one interval per task in program order. The first
   * interval's marker goes in now so that it can anchor the constants. */
  MlirOperation anchor = make_marker(context, loc, "");
  mlirBlockInsertOwnedOperation(body, 0, anchor);
  for (MlirOperation op = mlirOperationGetNextInBlock(anchor), next; !mlirOperationEqual(op, yield); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (latch_op_is(op, "arith.constant"))
      mlirOperationMoveBefore(op, anchor);
  }
  int index = 0;
  for (MlirOperation op = mlirOperationGetNextInBlock(anchor), next; !mlirOperationEqual(op, yield); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (!latch_op_is_task(op))
      continue;
    MlirStringRef kind = mlirIdentifierStr(mlirOperationGetName(op));
    char name[96];
    snprintf(name, sizeof(name), "i%d.%.*s", index, (int)(kind.length - 5), kind.data + 5);
    if (index == 0) {
      mlirOperationSetAttributeByName(anchor, str("name"), latch_attr_get_string(context, name));
    } else {
      MlirLocation op_loc = mlirOperationGetLocation(op);
      insert_before(body, op, latch_op_create(LATCH_OP_INTERVAL_BARRIER, op_loc, 0, NULL, 0, NULL, NULL));
      insert_before(body, op, make_marker(context, op_loc, name));
    }
    mlirOperationSetAttributeByName(op, str("tiles"), latch_attr_get_int(context, latch_task_tile_count(op)));
    index++;
  }
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult run(MlirOperation module, const void *raw_options) {
  const form_options *options = raw_options;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation chosen[256];
  int count = 0;
  bool any_update = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    any_update |= latch_op_is(op, "func.func") && is_update(op);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op) && count < 256;
       op = mlirOperationGetNextInBlock(op)) {
    if (!latch_op_is(op, "func.func"))
      continue;
    MlirStringRef name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("sym_name")));
    bool wanted = options->entry[0] ? latch_ref_is(name, options->entry)
                                    : (any_update ? is_update(op) : has_tasks(op));
    if (wanted)
      chosen[count++] = op;
  }
  if (options->entry[0] && count == 0) {
    char message[LATCH_OPTION_STRING_MAX + 64];
    snprintf(message, sizeof(message), "latch-form-intervals: no function named '%s'", options->entry);
    mlirEmitError(mlirOperationGetLocation(module), message);
    return mlirLogicalResultFailure();
  }
  for (int i = 0; i < count; ++i)
    if (mlirLogicalResultIsFailure(form(chosen[i], body)))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

/* Upstream dialects whose ops this pass creates. */
static const latch_dialect_handle_getter form_dialects[] = {mlirGetDialectHandle__gpu__};

const latch_pass_info latch_form_intervals_pass = {
    .dependent_dialects = form_dialects,
    .dependent_dialect_count = sizeof(form_dialects) / sizeof(form_dialects[0]),
    .name = "latch-form-intervals",
    .summary = "Schedule a task program into an interval.program: one interval per task, tile counts set",
    .anchor = "builtin.module",
    .options = form_option_table,
    .option_count = sizeof(form_option_table) / sizeof(form_option_table[0]),
    .options_size = sizeof(form_options),
    .run = run,
};
