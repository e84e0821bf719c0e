/* builder.c - C-level tests of the task builder (dialects/builder.h): the result type every op infers,
 * argument attributes, locations, map bodies, composites, the finished module (which latch-verify
 * accepts), and the failed state (an error is reported at the op's location, later calls do nothing,
 * and no module comes out). Also checks the models' closed-form parameter counts against their programs.
 * Run by test/lit/gen/builder-capi.test; the CHECK lines below are matched against this program's output. */
#include <stdio.h>
#include <string.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include "../../dialects/builder.h"
#include "../../dialects/dialects.h"
#include "../../models/models.h"
#include "../../passes/pass.h"
#include "../../support/diagnostics.h"

static void print_to_stdout(MlirStringRef text, void *user_data) {
  (void)user_data;
  fwrite(text.data, 1, text.length, stdout);
}

static void show(const char *label, MlirValue value) {
  printf("%s: ", label);
  if (mlirValueIsNull(value))
    printf("null");
  else
    mlirTypePrint(mlirValueGetType(value), print_to_stdout, NULL);
  printf("\n");
}

static bool run_verify(MlirContext context, MlirModule module) {
  if (mlirModuleIsNull(module))
    return false;
  MlirPassManager pm = mlirPassManagerCreateOnOperation(context, mlirStringRefCreateFromCString("builtin.module"));
  char error[256];
  bool ok = latch_pipeline_parse(pm, "builtin.module(latch-verify)", error, sizeof(error)) &&
            mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  return ok;
}

/* A map body with two outputs: (x * y, x - y). */
static void product_and_difference(latch_builder *b, const MlirValue *args, MlirValue *out, void *user_data) {
  (void)user_data;
  out[0] = latch_s_mul(b, args[0], args[1]);
  out[1] = latch_s_apply2(b, LATCH_FN_SUB, args[0], args[1]);
}

/* A map body over an f32 and an i32 input: x * float(mask). */
static void mask_by_int(latch_builder *b, const MlirValue *args, MlirValue *out, void *user_data) {
  (void)user_data;
  out[0] = latch_s_mul(b, args[0], latch_s_convert(b, args[1], LATCH_F32));
}

static void test_inference(MlirContext context) {
  printf("--- inference\n");
  // CHECK-LABEL: --- inference
  latch_builder *b = latch_builder_create(context, "every_op", "builder.c");
  MlirValue a = latch_input(b, "a", LATCH_SHAPE(4, 8), LATCH_BF16);
  MlirValue bm = latch_input(b, "b", LATCH_SHAPE(8, 2), LATCH_BF16);
  MlirValue at = latch_input(b, "at", LATCH_SHAPE(8, 4), LATCH_BF16);
  MlirValue bt = latch_input(b, "bt", LATCH_SHAPE(2, 8), LATCH_BF16);
  MlirValue a3 = latch_input(b, "a3", LATCH_SHAPE(3, 4, 8), LATCH_F32);
  MlirValue b3 = latch_input(b, "b3", LATCH_SHAPE(3, 8, 5), LATCH_F32);
  MlirValue ids = latch_input_ids(b, "ids", LATCH_SHAPE(2, 3), 16);
  MlirValue labels = latch_input_ids(b, "labels", LATCH_SHAPE(4), 8);
  MlirValue x = latch_param(b, "x", LATCH_SHAPE(4, 8), latch_normal(0.5));
  MlirValue scale = latch_param(b, "scale", LATCH_SHAPE(8), latch_ones());
  MlirValue zero = latch_param(b, "zero", LATCH_SCALAR, latch_zeros());
  show("param", zero);
  // CHECK: param: tensor<f32>

  LATCH_AT(b, "mm");
  MlirValue c = latch_matmul(b, a, bm, false, false);
  show("matmul", c);
  // CHECK: matmul: tensor<4x2xf32>
  show("matmul transposed", latch_matmul(b, at, bt, true, true));
  // CHECK: matmul transposed: tensor<4x2xf32>
  show("matmul batched", latch_matmul(b, a3, b3, false, false));
  // CHECK: matmul batched: tensor<3x4x5xf32>
  show("matmul to bf16", latch_matmul_to(b, a, bm, false, false, LATCH_BF16));
  // CHECK: matmul to bf16: tensor<4x2xbf16>
  printf("location: ");
  mlirLocationPrint(mlirOperationGetLocation(mlirOpResultGetOwner(c)), print_to_stdout, NULL);
  printf("\n");
  // CHECK: location: loc("mm"("builder.c":{{[0-9]+}}:0))

  LATCH_AT(b, "rest");
  MlirValue ends = latch_input(b, "ends", LATCH_SHAPE(3), LATCH_I32);
  MlirValue gw = latch_input(b, "gw", LATCH_SHAPE(3, 8, 5), LATCH_BF16);
  show("grouped_matmul", latch_grouped_matmul(b, latch_convert(b, x, LATCH_BF16), gw, ends));
  // CHECK: grouped_matmul: tensor<4x5xf32>
  show("map add", latch_add(b, x, x));
  // CHECK: map add: tensor<4x8xf32>
  show("map add rank-0", latch_add(b, x, zero));
  // CHECK: map add rank-0: tensor<4x8xf32>
  show("map rank-0 only", latch_map1(b, zero, LATCH_FN_EXP));
  // CHECK: map rank-0 only: tensor<f32>
  show("map silu", latch_map1(b, x, LATCH_FN_SILU));
  // CHECK: map silu: tensor<4x8xf32>
  show("map i32 div", latch_map_const(b, labels, LATCH_FN_DIV, 2));
  // CHECK: map i32 div: tensor<4xi32>
  MlirValue pair[2], ins[2] = {x, x};
  latch_map(b, 2, ins, 2, (latch_dtype[]){LATCH_F32, LATCH_F32}, LATCH_SCALAR, product_and_difference, NULL, pair);
  show("map two outputs", pair[1]);
  // CHECK: map two outputs: tensor<4x8xf32>
  MlirValue mixed[2] = {x, latch_input(b, "mask", LATCH_SHAPE(4, 8), LATCH_I32)}, masked;
  latch_map(b, 2, mixed, 1, (latch_dtype[]){LATCH_F32}, LATCH_SCALAR, mask_by_int, NULL, &masked);
  show("map f32 and i32", masked);
  // CHECK: map f32 and i32: tensor<4x8xf32>
  show("reduce", latch_reduce(b, x, 1, "sum"));
  // CHECK: reduce: tensor<4xf32>
  show("rmsnorm", latch_rmsnorm(b, x, scale, 1e-5));
  // CHECK: rmsnorm: tensor<4x8xf32>
  show("softmax", latch_softmax(b, x));
  // CHECK: softmax: tensor<4x8xf32>
  MlirValue loss = latch_cross_entropy(b, x, labels);
  show("cross_entropy", loss);
  // CHECK: cross_entropy: tensor<f32>
  MlirValue table = latch_param(b, "table", LATCH_SHAPE(16, 6), latch_normal(0.02));
  MlirValue embedded = latch_embedding(b, table, ids);
  show("embedding", embedded);
  // CHECK: embedding: tensor<2x3x6xf32>
  MlirValue heads = latch_input(b, "h", LATCH_SHAPE(2, 3, 4, 6), LATCH_F32);
  show("rope", latch_rope(b, heads, 10000));
  // CHECK: rope: tensor<2x3x4x6xf32>
  MlirValue q = latch_transpose(b, heads, LATCH_PERM(0, 2, 1, 3));
  show("transpose", q);
  // CHECK: transpose: tensor<2x4x3x6xf32>
  MlirValue kv = latch_input(b, "kv", LATCH_SHAPE(2, 4, 5, 6), LATCH_F32);
  show("attention", latch_attention(b, q, kv, kv, false, 0.5));
  // CHECK: attention: tensor<2x4x3x6xf32>
  MlirValue values, indices, order, bucket_ends;
  latch_topk(b, x, 2, &values, &indices);
  show("topk values", values);
  show("topk indices", indices);
  // CHECK: topk values: tensor<4x2xf32>
  // CHECK: topk indices: tensor<4x2xi32>
  latch_bucket(b, indices, 8, &order, &bucket_ends);
  show("bucket order", order);
  show("bucket ends", bucket_ends);
  // CHECK: bucket order: tensor<8xi32>
  // CHECK: bucket ends: tensor<8xi32>
  MlirValue gathered = latch_gather_rows(b, x, latch_map_const(b, order, LATCH_FN_DIV, 2));
  show("gather_rows", gathered);
  // CHECK: gather_rows: tensor<8x8xf32>
  show("scatter_add_rows", latch_scatter_add_rows(b, gathered, order, 4));
  // CHECK: scatter_add_rows: tensor<4x8xf32>
  show("reshape", latch_reshape(b, x, LATCH_SHAPE(2, 16)));
  // CHECK: reshape: tensor<2x16xf32>
  show("convert", latch_convert(b, x, LATCH_BF16));
  // CHECK: convert: tensor<4x8xbf16>
  MlirValue p_out, m_out, v_out;
  latch_adamw_config adamw = {.lr = 3e-4, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.1};
  MlirValue step = latch_input(b, "step", LATCH_SCALAR, LATCH_I32);
  latch_adamw(b, x, x, x, x, step, &adamw, &p_out, &m_out, &v_out);
  show("adamw p", p_out);
  show("adamw v", v_out);
  // CHECK: adamw p: tensor<4x8xf32>
  // CHECK: adamw v: tensor<4x8xf32>
  show("fill", latch_fill(b, LATCH_SHAPE(3), LATCH_I32, 7));
  // CHECK: fill: tensor<3xi32>
  MlirValue halves[2];
  latch_split_last(b, x, 2, halves);
  show("split_last 0", halves[0]);
  show("split_last 1", halves[1]);
  // CHECK: split_last 0: tensor<4x4xf32>
  // CHECK: split_last 1: tensor<4x4xf32>
  show("scale_rows", latch_scale_rows(b, x, latch_reduce(b, x, 1, "max")));
  // CHECK: scale_rows: tensor<4x8xf32>

  printf("failed before finish: %d\n", latch_builder_failed(b));
  // CHECK: failed before finish: 0
  MlirModule module = latch_builder_finish(b, loss, 1, &p_out);
  latch_builder_destroy(b);
  printf("module: %s\n", mlirModuleIsNull(module) ? "null" : "built");
  // CHECK: module: built
  printf("latch-verify: %s\n", run_verify(context, module) ? "ok" : "failed");
  // CHECK: latch-verify: ok
  printf("params: %lld\n", (long long)latch_module_param_count(module));
  // 32 (x) + 8 (scale) + 1 (zero) + 96 (table)
  // CHECK: params: 137
  if (mlirModuleIsNull(module))
    return;
  mlirOperationPrint(mlirModuleGetOperation(module), print_to_stdout, NULL);
  printf("\n");
  // CHECK: func.func @every_op(%arg0: tensor<4x8xbf16> {task.name = "a"}
  // CHECK-SAME: tensor<2x3xi32> {task.name = "ids", task.range = 16 : i64}
  // CHECK-SAME: tensor<4x8xf32> {task.init_std = 5.000000e-01 : f64, task.name = "x", task.param}
  // CHECK-SAME: tensor<8xf32> {task.init = "ones", task.name = "scale", task.param}
  // CHECK-SAME: tensor<f32> {task.init = "zeros", task.name = "zero", task.param}
  // CHECK-SAME: -> (tensor<f32>, tensor<4x8xf32>)
  // CHECK: "task.map"() ({
  // CHECK-NEXT: %[[SEVEN:.*]] = arith.constant 7 : i32
  // CHECK-NEXT: gpu.yield %[[SEVEN]] : i32
  // CHECK-NEXT: }) {{.*}}: () -> tensor<3xi32>
  // CHECK: return %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x8xf32>
  mlirModuleDestroy(module);
}

/* Each case: a fresh builder, one error, then checks that the builder stays failed and yields no module. */
static void expect_no_module(latch_builder *b, MlirValue loss) {
  MlirValue later = latch_softmax(b, loss);
  MlirModule module = latch_builder_finish(b, loss, 0, NULL);
  printf("later op: %s, module: %s\n", mlirValueIsNull(later) ? "null" : "built",
         mlirModuleIsNull(module) ? "null" : "built");
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  latch_builder_destroy(b);
}

static void test_errors(MlirContext context) {
  printf("--- errors\n");
  // CHECK-LABEL: --- errors
  latch_builder *b = latch_builder_create(context, "bad", "builder.c");
  MlirValue x = latch_input(b, "x", LATCH_SHAPE(4, 8), LATCH_F32);
  MlirValue w = latch_param(b, "w", LATCH_SHAPE(4, 2), latch_normal(0.02));
  latch_builder_push_scope(b, "layer%d", 3);
  // CHECK: builder.c:[[@LINE+1]]:0: error: layer3.attn.q_proj: 'task.matmul' inner dimensions differ: 8 (a) vs 4 (b)
  LATCH_AT(b, "attn.q_proj");
  MlirValue y = latch_matmul(b, x, w, false, false);
  latch_builder_pop_scope(b);
  show("failed matmul", y);
  // CHECK-NEXT: failed matmul: null
  printf("failed: %d\n", latch_builder_failed(b));
  // CHECK-NEXT: failed: 1
  expect_no_module(b, y);
  // CHECK-NEXT: later op: null, module: null

  b = latch_builder_create(context, "bad_moe", "builder.c");
  MlirValue rows = latch_input(b, "rows", LATCH_SHAPE(6, 8), LATCH_BF16);
  MlirValue experts = latch_param(b, "w13", LATCH_SHAPE(4, 16, 32), latch_normal(0.02));
  MlirValue ends = latch_input(b, "ends", LATCH_SHAPE(4), LATCH_I32);
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: moe.w13: 'task.grouped_matmul' x and w must have the same float dtype; got bf16 and f32
  LATCH_AT(b, "moe.w13");
  expect_no_module(b, latch_grouped_matmul(b, rows, experts, ends));
  // CHECK-NEXT: later op: null, module: null

  b = latch_builder_create(context, "bad_split", "builder.c");
  x = latch_input(b, "x", LATCH_SHAPE(4, 9), LATCH_F32);
  MlirValue parts[2];
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: swiglu: 'split_last' cannot split 4x9xf32 into 2 equal parts along the last dim
  LATCH_AT(b, "swiglu");
  latch_split_last(b, x, 2, parts);
  expect_no_module(b, parts[0]);
  // CHECK-NEXT: later op: null, module: null

  b = latch_builder_create(context, "bad_reshape", "builder.c");
  x = latch_input(b, "x", LATCH_SHAPE(4, 8), LATCH_F32);
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: heads: 'task.reshape' cannot reshape 4x8xf32 to 3x8xf32: element counts differ
  LATCH_AT(b, "heads");
  expect_no_module(b, latch_reshape(b, x, LATCH_SHAPE(3, 8)));
  // CHECK-NEXT: later op: null, module: null

  b = latch_builder_create(context, "bad_topk", "builder.c");
  x = latch_input(b, "x", LATCH_SHAPE(4, 8), LATCH_F32);
  MlirValue values, indices;
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: router: 'task.topk' k must be in 1..8; got 9
  LATCH_AT(b, "router");
  latch_topk(b, x, 9, &values, &indices);
  expect_no_module(b, values);
  // CHECK-NEXT: later op: null, module: null

  b = latch_builder_create(context, "bad_names", "builder.c");
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: args: argument name 'x' declared twice
  LATCH_AT(b, "args");
  latch_input(b, "x", LATCH_SHAPE(4), LATCH_F32);
  x = latch_input(b, "x", LATCH_SHAPE(4), LATCH_F32);
  expect_no_module(b, x);
  // CHECK-NEXT: later op: null, module: null

  b = latch_builder_create(context, "bad_loss", "builder.c");
  x = latch_input(b, "x", LATCH_SHAPE(4), LATCH_F32);
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: loss: the first result (the loss) must be a rank-0 f32 tensor
  LATCH_AT(b, "loss");
  MlirModule module = latch_builder_finish(b, x, 0, NULL);
  printf("module: %s\n", mlirModuleIsNull(module) ? "null" : "built");
  // CHECK-NEXT: module: null
  latch_builder_destroy(b);

  b = latch_builder_create(context, "bad_scalar", "builder.c");
  x = latch_input(b, "x", LATCH_SHAPE(4), LATCH_F32);
  // CHECK-NEXT: builder.c:[[@LINE+1]]:0: error: body: scalar op 'exp' outside a map body
  LATCH_AT(b, "body");
  expect_no_module(b, latch_s_apply1(b, LATCH_FN_EXP, x));
  // CHECK-NEXT: later op: null, module: null
}

static void test_models(MlirContext context) {
  printf("--- models\n");
  // CHECK-LABEL: --- models
  latch_tinymoe_config small = {.batch = 2, .seq = 8, .layers = 2, .d_model = 32, .heads = 4,
                                .experts = 4, .top_k = 2, .ffn = 16, .vocab = 64};
  MlirModule module = latch_tinymoe_build(context, &small);
  printf("tinymoe params: %lld (closed form %lld), latch-verify: %s\n",
         (long long)latch_module_param_count(module), (long long)latch_tinymoe_param_count(&small),
         run_verify(context, module) ? "ok" : "failed");
  // CHECK-NEXT: tinymoe params: 24992 (closed form 24992), latch-verify: ok
  mlirModuleDestroy(module);
  printf("tinymoe default closed form: %lld\n", (long long)latch_tinymoe_param_count(&latch_tinymoe_default));
  // CHECK-NEXT: tinymoe default closed form: 62935552
  module = latch_mlp_build(context, &latch_mlp_default);
  printf("mlp params: %lld (closed form %lld), latch-verify: %s\n", (long long)latch_module_param_count(module),
         (long long)latch_mlp_param_count(&latch_mlp_default), run_verify(context, module) ? "ok" : "failed");
  // CHECK-NEXT: mlp params: 768 (closed form 768), latch-verify: ok
  mlirModuleDestroy(module);
  small.heads = 5;
  // CHECK-NEXT: error: tinymoe: d-model 32 is not divisible by heads 5
  module = latch_tinymoe_build(context, &small);
  printf("invalid config: %s\n", mlirModuleIsNull(module) ? "null" : "built");
  // CHECK-NEXT: invalid config: null
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep diagnostics and results in order even after a crash */
  MlirContext context = latch_context_create();
  if (mlirContextIsNull(context))
    return 1;
  latch_diagnostic_sink sink;
  latch_diagnostic_sink_attach(&sink, context, stdout, NULL);
  test_inference(context);
  test_errors(context);
  test_models(context);
  latch_diagnostic_sink_detach(&sink);
  mlirContextDestroy(context);
  return 0;
}
