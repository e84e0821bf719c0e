// Gradients of task.topk (through its values; the indices carry none), task.gather_rows and
// task.scatter_add_rows (repeated indices accumulate, some rows are never touched) agree with central
// differences (latch-interp --gradcheck, fp64, relative L2 error below 1e-6).
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// top-k has kinks where the selection or the order of the selected values changes (ties between
// neighbouring ranked values, the k-th against the (k+1)-th included): the inputs are random fp64 values
// (a tie has probability zero) and --gradcheck prints the smallest such gap ("closest tie"); the check
// demands at least 1e-3, far above h = 1e-5 * max(1, |p|). gather/scatter are linear in x.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry topk --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=TOPK
// RUN: latch-interp %t.mlir --entry topk_all --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=TOPKALL
// RUN: latch-interp %t.mlir --entry gather_rows --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=GATHERROWS
// RUN: latch-interp %t.mlir --entry scatter_add_rows --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=SCATTERADDROWS

// TOPK: {{^}}x {{.*}} PASS
// TOPK: closest tie: task.topk {{[0-9]\.[0-9]+e(\+[0-9]+|-0[0-3])}} (1 op)
// TOPK: gradcheck: ok, 1 of 1 gradients within 1e-06
// TOPKALL: {{^}}x {{.*}} PASS
// TOPKALL: closest tie: task.topk {{[0-9]\.[0-9]+e(\+[0-9]+|-0[0-3])}} (1 op)
// TOPKALL: gradcheck: ok, 1 of 1 gradients within 1e-06
// GATHERROWS: {{^}}x {{.*}} PASS
// GATHERROWS: closest tie: no task.topk or max reduction
// GATHERROWS: gradcheck: ok, 1 of 1 gradients within 1e-06
// SCATTERADDROWS: {{^}}x {{.*}} PASS
// SCATTERADDROWS: closest tie: no task.topk or max reduction
// SCATTERADDROWS: gradcheck: ok, 1 of 1 gradients within 1e-06

func.func @topk(%x: tensor<4x6xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<4x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y, %idx = "task.topk"(%x) {k = 3 : i64} : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<4x3xf32>) -> tensor<12xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<12xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// k = E: every value is selected, only the order matters.
func.func @topk_all(%x: tensor<5x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<5x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y, %idx = "task.topk"(%x) {k = 4 : i64} : (tensor<5x4xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>)
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<5x4xf32>) -> tensor<20xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<20xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// Row 1 is never gathered, row 2 three times.
func.func @gather_rows(%x: tensor<4x3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<6x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %idx = arith.constant dense<[0, 2, 2, 3, 0, 2]> : tensor<6xi32>
  %y = "task.gather_rows"(%x, %idx) : (tensor<4x3xf32>, tensor<6xi32>) -> tensor<6x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<6x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<6x3xf32>) -> tensor<18xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<18xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// Rows 2 and 4 of the result get nothing, row 1 three rows of x.
func.func @scatter_add_rows(%x: tensor<6x3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<5x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %idx = arith.constant dense<[1, 1, 3, 0, 3, 1]> : tensor<6xi32>
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 5 : i64} : (tensor<6x3xf32>, tensor<6xi32>) -> tensor<5x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<5x3xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
