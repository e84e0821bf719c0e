// Gradients of task.rmsnorm (x and the scale), task.softmax and task.cross_entropy agree with central
// differences (latch-interp --gradcheck, fp64, relative L2 error below 1e-6). All three are smooth.
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry rmsnorm --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=RMSNORM
// RUN: latch-interp %t.mlir --entry softmax --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=SOFTMAX
// RUN: latch-interp %t.mlir --entry softmax_rank3 --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=SOFTMAXRANK3
// RUN: latch-interp %t.mlir --entry cross_entropy --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=CROSSENTROPY

// RMSNORM: {{^}}x {{.*}} PASS
// RMSNORM: {{^}}scale {{.*}} PASS
// RMSNORM: closest tie: no task.topk or max reduction
// RMSNORM: gradcheck: ok, 2 of 2 gradients within 1e-06
// SOFTMAX: {{^}}x {{.*}} PASS
// SOFTMAX: closest tie: no task.topk or max reduction
// SOFTMAX: gradcheck: ok, 1 of 1 gradients within 1e-06
// SOFTMAXRANK3: {{^}}x {{.*}} PASS
// SOFTMAXRANK3: closest tie: no task.topk or max reduction
// SOFTMAXRANK3: gradcheck: ok, 1 of 1 gradients within 1e-06
// CROSSENTROPY: {{^}}logits {{.*}} PASS
// CROSSENTROPY: closest tie: no task.topk or max reduction
// CROSSENTROPY: gradcheck: ok, 1 of 1 gradients within 1e-06

func.func @rmsnorm(%x: tensor<2x3x8xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %scale: tensor<8xf32> {task.name = "scale", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3x8xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.rmsnorm"(%x, %scale) {eps = 1.0e-5 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3x8xf32>) -> tensor<48xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<48xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @softmax(%x: tensor<3x5xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.softmax"(%x) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x5xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @softmax_rank3(%x: tensor<2x3x5xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.softmax"(%x) : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// The loss is the mean cross-entropy itself; targets come from --random-inputs (task.range).
func.func @cross_entropy(%logits: tensor<4x6xf32> {task.name = "logits", task.param, task.init_std = 1.0 : f64}, %targets: tensor<4xi32> {task.name = "targets", task.range = 6 : i64}) -> tensor<f32> {
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<4x6xf32>, tensor<4xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
