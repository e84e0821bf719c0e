// Gradients of task.reduce (sum, mean and max over different axes) agree with central differences
// (latch-interp --gradcheck, fp64, relative L2 error below 1e-6 for every gradient).
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// max has a kink where the largest two values of a slice tie: the inputs are random fp64 values (a tie
// has probability zero) and --gradcheck prints the smallest gap between the largest and second largest
// value ("closest tie"); the check demands at least 1e-3, far above h = 1e-5 * max(1, |p|).
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry sum --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=SUM
// RUN: latch-interp %t.mlir --entry mean --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MEAN
// RUN: latch-interp %t.mlir --entry max --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MAX
// RUN: latch-interp %t.mlir --entry max_last --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MAXLAST

// SUM: {{^}}x {{.*}} PASS
// SUM: closest tie: no task.topk or max reduction
// SUM: gradcheck: ok, 1 of 1 gradients within 1e-06
// MEAN: {{^}}x {{.*}} PASS
// MEAN: closest tie: no task.topk or max reduction
// MEAN: gradcheck: ok, 1 of 1 gradients within 1e-06
// MAX: {{^}}x {{.*}} PASS
// MAX: closest tie: max reduction {{[0-9]\.[0-9]+e(\+[0-9]+|-0[0-3])}} (1 op)
// MAX: gradcheck: ok, 1 of 1 gradients within 1e-06
// MAXLAST: {{^}}x {{.*}} PASS
// MAXLAST: closest tie: max reduction {{[0-9]\.[0-9]+e(\+[0-9]+|-0[0-3])}} (1 op)
// MAXLAST: gradcheck: ok, 1 of 1 gradients within 1e-06

func.func @sum(%x: tensor<2x3x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.reduce"(%x) {axis = 1 : i64, kind = "sum"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x4xf32>) -> tensor<8xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<8xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @mean(%x: tensor<2x3x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.reduce"(%x) {axis = 2 : i64, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @max(%x: tensor<2x3x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.reduce"(%x) {axis = 0 : i64, kind = "max"} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x4xf32>) -> tensor<12xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<12xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @max_last(%x: tensor<2x3x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.reduce"(%x) {axis = 2 : i64, kind = "max"} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
