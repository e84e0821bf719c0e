// Gradients of task.attention (q, k and v; causal, and not causal with more keys than queries) agree
// with central differences (latch-interp --gradcheck, fp64, relative L2 error below 1e-6). Attention is
// smooth (a softmax of scores).
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry causal --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=CAUSAL
// RUN: latch-interp %t.mlir --entry cross --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=CROSS

// CAUSAL: {{^}}q {{.*}} PASS
// CAUSAL: {{^}}k {{.*}} PASS
// CAUSAL: {{^}}v {{.*}} PASS
// CAUSAL: closest tie: no task.topk or max reduction
// CAUSAL: gradcheck: ok, 3 of 3 gradients within 1e-06
// CROSS: {{^}}q {{.*}} PASS
// CROSS: {{^}}k {{.*}} PASS
// CROSS: {{^}}v {{.*}} PASS
// CROSS: closest tie: no task.topk or max reduction
// CROSS: gradcheck: ok, 3 of 3 gradients within 1e-06

func.func @causal(%q: tensor<1x2x4x3xf32> {task.name = "q", task.param, task.init_std = 1.0 : f64}, %k: tensor<1x2x4x3xf32> {task.name = "k", task.param, task.init_std = 1.0 : f64}, %v: tensor<1x2x4x3xf32> {task.name = "v", task.param, task.init_std = 1.0 : f64}, %w: tensor<1x2x4x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.attention"(%q, %k, %v) {causal = true, scale = 0.5 : f64} : (tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<1x2x4x3xf32>) -> tensor<24xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<24xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @cross(%q: tensor<2x2x3x4xf32> {task.name = "q", task.param, task.init_std = 1.0 : f64}, %k: tensor<2x2x5x4xf32> {task.name = "k", task.param, task.init_std = 1.0 : f64}, %v: tensor<2x2x5x4xf32> {task.name = "v", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x2x3x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.attention"(%q, %k, %v) {causal = false, scale = 0.7 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x2x3x4xf32>, tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x2x3x4xf32>) -> tensor<48xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<48xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
