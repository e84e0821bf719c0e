// Gradients of task.reshape, task.transpose and task.convert (f32 -> f64 -> f32, and through bf16,
// which latch-interp does not round without --emulate) agree with central differences (latch-interp
// --gradcheck, fp64, relative L2 error below 1e-6).
// Each program ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so every
// output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the roundoff
// of a central difference (about ulp(loss) / h) stays far below 1e-6 of them.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry reshape --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=RESHAPE
// RUN: latch-interp %t.mlir --entry transpose --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: latch-interp %t.mlir --entry convert_f64 --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=CONVERTF64
// RUN: latch-interp %t.mlir --entry convert_bf16 --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=CONVERTBF16

// RESHAPE: {{^}}x {{.*}} PASS
// RESHAPE: closest tie: no task.topk or max reduction
// RESHAPE: gradcheck: ok, 1 of 1 gradients within 1e-06
// TRANSPOSE: {{^}}x {{.*}} PASS
// TRANSPOSE: closest tie: no task.topk or max reduction
// TRANSPOSE: gradcheck: ok, 1 of 1 gradients within 1e-06
// CONVERTF64: {{^}}x {{.*}} PASS
// CONVERTF64: closest tie: no task.topk or max reduction
// CONVERTF64: gradcheck: ok, 1 of 1 gradients within 1e-06
// CONVERTBF16: {{^}}x {{.*}} PASS
// CONVERTBF16: closest tie: no task.topk or max reduction
// CONVERTBF16: gradcheck: ok, 1 of 1 gradients within 1e-06

func.func @reshape(%x: tensor<2x6xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x4xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.reshape"(%x) : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x4xf32>) -> tensor<12xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<12xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @transpose(%x: tensor<2x3x4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<4x2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<4x2x3xf32>) -> tensor<24xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<24xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @convert_f64(%x: tensor<2x3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf64> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %x64 = "task.convert"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %y = "task.map"(%x64) ({
  ^bb0(%v: f64):
    %r = arith.mulf %v, %v : f64
    gpu.yield %r : f64
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f64, %wv: f64):
    %r = arith.mulf %yv, %wv : f64
    gpu.yield %r : f64
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf64>) -> tensor<6xf64>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf64>) -> tensor<f64>
  %loss32 = "task.convert"(%loss) : (tensor<f64>) -> tensor<f32>
  return %loss32 : tensor<f32>
}

func.func @convert_bf16(%x: tensor<2x3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %xb = "task.convert"(%x) : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %yb = "task.map"(%xb) ({
  ^bb0(%v: bf16):
    %r = arith.mulf %v, %v : bf16
    gpu.yield %r : bf16
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %y = "task.convert"(%yb) : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
