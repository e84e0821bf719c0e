/* latch-verify.c - the semantic verifier of task programs: every rule that IRDL cannot express
 * (shapes, dtypes, attribute ranges), one clear message per rule. */
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "../dialects/ops.h"
#include "pass.h"

/* Reports `message` at `op` and counts it; verification goes on so that one run shows every problem. */
typedef struct verifier {
  int errors;
} verifier;

static void report(verifier *v, MlirOperation op, const char *message) {
  char text[512];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(text, sizeof(text), "'%.*s' %s", (int)name.length, name.data, message);
  mlirEmitError(mlirOperationGetLocation(op), text);
  v->errors++;
}

static MlirType operand_type(MlirOperation op, intptr_t i) {
  return mlirValueGetType(mlirOperationGetOperand(op, i));
}

static MlirType result_type(MlirOperation op, intptr_t i) {
  return mlirValueGetType(mlirOperationGetResult(op, i));
}

static bool is_ranked_tensor(MlirType type) { return mlirTypeIsARankedTensor(type); }

static int64_t rank_of(MlirType type) { return mlirShapedTypeGetRank(type); }

static int64_t dim(MlirType type, intptr_t i) { return mlirShapedTypeGetDimSize(type, i); }

/* Every task operand and result is a ranked, static tensor of f32, bf16 or i32 (f64 is allowed too,
 * for reference programs). */
static bool check_tensor_types(verifier *v, MlirOperation op) {
  bool ok = true;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirType type = operand_type(op, i);
    if (!is_ranked_tensor(type) || !mlirShapedTypeHasStaticShape(type)) {
      report(v, op, "operands must be ranked tensors of static shape");
      ok = false;
      break;
    }
  }
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
    MlirType type = result_type(op, i);
    if (!is_ranked_tensor(type) || !mlirShapedTypeHasStaticShape(type)) {
      report(v, op, "results must be ranked tensors of static shape");
      ok = false;
      break;
    }
  }
  return ok;
}

static void verify_matmul(verifier *v, MlirOperation op) {
  MlirType a = operand_type(op, 0), b = operand_type(op, 1), c = result_type(op, 0);
  int64_t rank = rank_of(a);
  if (rank < 2 || rank > 3 || rank_of(b) != rank || rank_of(c) != rank) {
    report(v, op, "operands and result must all be rank 2, or all rank 3 (leading batch dimension)");
    return;
  }
  bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
  intptr_t r = (intptr_t)rank;
  int64_t m = dim(a, r - (ta ? 1 : 2)), ka = dim(a, r - (ta ? 2 : 1));
  int64_t kb = dim(b, r - (tb ? 1 : 2)), n = dim(b, r - (tb ? 2 : 1));
  char text[256];
  if (ka != kb) {
    snprintf(text, sizeof(text), "inner dimensions differ: %lld (a%s) vs %lld (b%s)", (long long)ka,
             ta ? ", transposed" : "", (long long)kb, tb ? ", transposed" : "");
    report(v, op, text);
    return;
  }
  if (rank == 3 && (dim(a, 0) != dim(b, 0) || dim(a, 0) != dim(c, 0))) {
    report(v, op, "batch dimensions of a, b and the result differ");
    return;
  }
  if (dim(c, r - 2) != m || dim(c, r - 1) != n) {
    snprintf(text, sizeof(text), "result shape must be %lldx%lld", (long long)m, (long long)n);
    report(v, op, text);
  }
}

static MlirWalkResult verify_op(MlirOperation op, void *user_data) {
  verifier *v = user_data;
  latch_op_kind kind = latch_op_kind_of(op);
  if (kind == LATCH_OP_UNKNOWN || !latch_op_is_task(op))
    return MlirWalkResultAdvance;
  if (!check_tensor_types(v, op))
    return MlirWalkResultAdvance;
  switch (kind) {
  case LATCH_OP_TASK_MATMUL: verify_matmul(v, op); break;
  default: break;
  }
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
