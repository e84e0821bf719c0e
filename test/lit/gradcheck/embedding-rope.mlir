// Gradients of task.embedding (repeated ids: their rows accumulate; an unused row gets zero) and task.rope
// (two theta values) agree with central differences (latch-interp --gradcheck, fp64, relative L2 error
// below 1e-6). Both are linear in the parameter: no kinks.
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry embedding --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=EMBEDDING
// RUN: latch-interp %t.mlir --entry rope --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=ROPE
// RUN: latch-interp %t.mlir --entry rope_theta100 --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=ROPETHETA100
// RUN: latch-interp %t.mlir --entry rope_wide --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=ROPEWIDE

// EMBEDDING: {{^}}table {{.*}} PASS
// EMBEDDING: closest tie: no task.topk or max reduction
// EMBEDDING: gradcheck: ok, 1 of 1 gradients within 1e-06
// ROPE: {{^}}x {{.*}} PASS
// ROPE: closest tie: no task.topk or max reduction
// ROPE: gradcheck: ok, 1 of 1 gradients within 1e-06
// ROPETHETA100: {{^}}x {{.*}} PASS
// ROPETHETA100: closest tie: no task.topk or max reduction
// ROPETHETA100: gradcheck: ok, 1 of 1 gradients within 1e-06
// ROPEWIDE: {{^}}x {{.*}} PASS
// ROPEWIDE: closest tie: no task.topk or max reduction
// ROPEWIDE: gradcheck: ok, 1 of 1 gradients within 1e-06

// Row 3 of the table is never looked up, rows 0 and 2 three times each.
func.func @embedding(%table: tensor<5x3xf32> {task.name = "table", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x4x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %ids = arith.constant dense<[[0, 2, 2, 4], [1, 0, 2, 0]]> : tensor<2x4xi32>
  %y = "task.embedding"(%table, %ids) : (tensor<5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x4x3xf32>) -> tensor<24xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<24xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @rope(%x: tensor<1x3x2x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<1x3x2x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.rope"(%x) {theta = 1.0e4 : f64} : (tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<1x3x2x4xf32>) -> tensor<24xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<24xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @rope_theta100(%x: tensor<1x3x2x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<1x3x2x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.rope"(%x) {theta = 1.0e2 : f64} : (tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<1x3x2x4xf32>) -> tensor<24xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<24xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @rope_wide(%x: tensor<2x5x1x8xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x5x1x8xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.rope"(%x) {theta = 1.0e4 : f64} : (tensor<2x5x1x8xf32>) -> tensor<2x5x1x8xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x5x1x8xf32>, tensor<2x5x1x8xf32>) -> tensor<2x5x1x8xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x5x1x8xf32>) -> tensor<80xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<80xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
