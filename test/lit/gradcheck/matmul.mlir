// Gradients of task.matmul (plain, transposed operands, batched, bf16 operands, one value used as both
// operands) from latch-autodiff agree with central differences of the forward program (latch-interp
// --gradcheck, fp64, relative L2 error below 1e-6 for every gradient).
// Every program here ends in loss = sum(y * w), w a fixed random weighting (--random-inputs, std 1), so
// every output element matters; parameters have std 1 (task.init_std), so gradients are O(1) and the
// roundoff of a central difference (about ulp(loss) / h) stays far below 1e-6 of them. A matmul is
// bilinear: there are no kinks or ties to avoid.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry mm --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MM
// RUN: latch-interp %t.mlir --entry mm_ta --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MMTA
// RUN: latch-interp %t.mlir --entry mm_tb --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MMTB
// RUN: latch-interp %t.mlir --entry mm_tatb --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MMTATB
// RUN: latch-interp %t.mlir --entry bmm --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=BMM
// RUN: latch-interp %t.mlir --entry bmm_ta --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=BMMTA
// RUN: latch-interp %t.mlir --entry bmm_tb --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=BMMTB
// RUN: latch-interp %t.mlir --entry bmm_tatb --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=BMMTATB
// RUN: latch-interp %t.mlir --entry mm_bf16 --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MMBF16
// RUN: latch-interp %t.mlir --entry mm_self --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MMSELF

// MM: gradcheck: @mm_grad against central differences of @mm
// MM: {{^}}a {{.*}} PASS
// MM: {{^}}b {{.*}} PASS
// MM: gradcheck: ok, 2 of 2 gradients within 1e-06
// MMTA: gradcheck: @mm_ta_grad against central differences of @mm_ta
// MMTA: {{^}}a {{.*}} PASS
// MMTA: {{^}}b {{.*}} PASS
// MMTA: gradcheck: ok, 2 of 2 gradients within 1e-06
// MMTB: gradcheck: @mm_tb_grad against central differences of @mm_tb
// MMTB: {{^}}a {{.*}} PASS
// MMTB: {{^}}b {{.*}} PASS
// MMTB: gradcheck: ok, 2 of 2 gradients within 1e-06
// MMTATB: gradcheck: @mm_tatb_grad against central differences of @mm_tatb
// MMTATB: {{^}}a {{.*}} PASS
// MMTATB: {{^}}b {{.*}} PASS
// MMTATB: gradcheck: ok, 2 of 2 gradients within 1e-06
// BMM: gradcheck: @bmm_grad against central differences of @bmm
// BMM: {{^}}a {{.*}} PASS
// BMM: {{^}}b {{.*}} PASS
// BMM: gradcheck: ok, 2 of 2 gradients within 1e-06
// BMMTA: gradcheck: @bmm_ta_grad against central differences of @bmm_ta
// BMMTA: {{^}}a {{.*}} PASS
// BMMTA: {{^}}b {{.*}} PASS
// BMMTA: gradcheck: ok, 2 of 2 gradients within 1e-06
// BMMTB: gradcheck: @bmm_tb_grad against central differences of @bmm_tb
// BMMTB: {{^}}a {{.*}} PASS
// BMMTB: {{^}}b {{.*}} PASS
// BMMTB: gradcheck: ok, 2 of 2 gradients within 1e-06
// BMMTATB: gradcheck: @bmm_tatb_grad against central differences of @bmm_tatb
// BMMTATB: {{^}}a {{.*}} PASS
// BMMTATB: {{^}}b {{.*}} PASS
// BMMTATB: gradcheck: ok, 2 of 2 gradients within 1e-06
// MMBF16: gradcheck: @mm_bf16_grad against central differences of @mm_bf16
// MMBF16: {{^}}a {{.*}} PASS
// MMBF16: {{^}}b {{.*}} PASS
// MMBF16: gradcheck: ok, 2 of 2 gradients within 1e-06
// MMSELF: gradcheck: @mm_self_grad against central differences of @mm_self
// MMSELF: {{^}}a {{.*}} PASS
// MMSELF: gradcheck: ok, 1 of 1 gradients within 1e-06

func.func @mm(%a: tensor<3x4xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<4x5xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x5xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @mm_ta(%a: tensor<4x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<4x5xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = false} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x5xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @mm_tb(%a: tensor<3x4xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<5x4xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x5xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @mm_tatb(%a: tensor<4x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<5x4xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x5xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @bmm(%a: tensor<2x3x4xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x4x5xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @bmm_ta(%a: tensor<2x4x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x4x5xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = false} : (tensor<2x4x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @bmm_tb(%a: tensor<2x3x4xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x5x4xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @bmm_tatb(%a: tensor<2x4x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x5x4xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<2x4x3xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3x5xf32>) -> tensor<30xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<30xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @mm_bf16(%a: tensor<3x4xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<4x5xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x5xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %ab = "task.convert"(%a) : (tensor<3x4xf32>) -> tensor<3x4xbf16>
  %bb = "task.convert"(%b) : (tensor<4x5xf32>) -> tensor<4x5xbf16>
  %y = "task.matmul"(%ab, %bb) {transpose_a = false, transpose_b = false} : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x5xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x5xf32>) -> tensor<15xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<15xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @mm_self(%a: tensor<3x4xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %w: tensor<3x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.matmul"(%a, %a) {transpose_a = false, transpose_b = true} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<3x3xf32>) -> tensor<9xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<9xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
