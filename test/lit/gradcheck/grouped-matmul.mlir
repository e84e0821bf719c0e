// Gradients of task.grouped_matmul (x and the expert weights w; one group empty, groups of different
// sizes; f32 and bf16 operands) agree with central differences (latch-interp --gradcheck, fp64,
// relative L2 error below 1e-6). The groups (ends) are fixed integers: no routing changes, no kinks.
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry grouped_matmul --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=GROUPEDMATMUL
// RUN: latch-interp %t.mlir --entry grouped_matmul_bf16 --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=GROUPEDMATMULBF16

// GROUPEDMATMUL: {{^}}x {{.*}} PASS
// GROUPEDMATMUL: {{^}}experts {{.*}} PASS
// GROUPEDMATMUL: closest tie: no task.topk or max reduction
// GROUPEDMATMUL: gradcheck: ok, 2 of 2 gradients within 1e-06
// GROUPEDMATMULBF16: {{^}}x {{.*}} PASS
// GROUPEDMATMULBF16: {{^}}experts {{.*}} PASS
// GROUPEDMATMULBF16: closest tie: no task.topk or max reduction
// GROUPEDMATMULBF16: gradcheck: ok, 2 of 2 gradients within 1e-06

// Rows 0-1 use expert 0, expert 1 gets no rows, rows 2-5 use expert 2.
func.func @grouped_matmul(%x: tensor<6x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %experts: tensor<3x4x5xf32> {task.name = "experts", task.param, task.init_std = 1.0 : f64}, %w: tensor<6x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %ends = arith.constant dense<[2, 2, 6]> : tensor<3xi32>
  %y = "task.grouped_matmul"(%x, %experts, %ends) : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<6x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// Rows 0-1 use expert 0, expert 1 gets no rows, rows 2-5 use expert 2.
func.func @grouped_matmul_bf16(%x: tensor<6x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %experts: tensor<3x4x5xf32> {task.name = "experts", task.param, task.init_std = 1.0 : f64}, %w: tensor<6x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %ends = arith.constant dense<[2, 2, 6]> : tensor<3xi32>
  %xb = "task.convert"(%x) : (tensor<6x4xf32>) -> tensor<6x4xbf16>
  %wb = "task.convert"(%experts) : (tensor<3x4x5xf32>) -> tensor<3x4x5xbf16>
  %y = "task.grouped_matmul"(%xb, %wb, %ends) : (tensor<6x4xbf16>, tensor<3x4x5xbf16>, tensor<3xi32>) -> tensor<6x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<6x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
