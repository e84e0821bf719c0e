// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify)' | FileCheck %s
// Valid programs for every task op pass latch-verify unchanged. The error cases, one per rule, are in
// latch-verify-errors.mlir.

// CHECK-LABEL: func.func @matmul
// CHECK: "task.matmul"(%{{.*}}, %{{.*}}) {transpose_a = false, transpose_b = false} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xf32>
// CHECK: "task.matmul"(%{{.*}}, %{{.*}}) {transpose_a = true, transpose_b = true} : (tensor<3x8x4xf32>, tensor<3x2x8xf32>) -> tensor<3x4x2xf32>
// CHECK: "task.matmul"(%{{.*}}, %{{.*}}) {transpose_a = false, transpose_b = false} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
func.func @matmul(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>, %ta: tensor<3x8x4xf32>, %tb: tensor<3x2x8xf32>)
    -> (tensor<4x2xf32>, tensor<3x4x2xf32>, tensor<4x2xbf16>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false}
      : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xf32>
  %d = "task.matmul"(%ta, %tb) {transpose_a = true, transpose_b = true}
      : (tensor<3x8x4xf32>, tensor<3x2x8xf32>) -> tensor<3x4x2xf32>
  %e = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false}
      : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  return %c, %d, %e : tensor<4x2xf32>, tensor<3x4x2xf32>, tensor<4x2xbf16>
}

// -----

// CHECK-LABEL: func.func @grouped_matmul
// CHECK: "task.grouped_matmul"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<16x8xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
// CHECK: "task.grouped_matmul"(%{{.*}}, %{{.*}}, %{{.*}}) {transpose_w = true} : (tensor<16x2xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x8xf32>
func.func @grouped_matmul(%x: tensor<16x8xbf16>, %w: tensor<4x8x2xbf16>, %ends: tensor<4xi32>, %dy: tensor<16x2xbf16>)
    -> (tensor<16x2xf32>, tensor<16x8xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<16x8xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
  %dx = "task.grouped_matmul"(%dy, %w, %ends) {transpose_w = true} : (tensor<16x2xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x8xf32>
  return %y, %dx : tensor<16x2xf32>, tensor<16x8xf32>
}

// -----

// A map with a constant from above the op and two outputs. IRDL gives all inputs one type and all
// outputs one type (a variadic operand list shares one constraint variable).
// CHECK-LABEL: func.func @map
// CHECK: %[[C:.*]] = arith.constant
// CHECK: "task.map"(%{{.*}}, %{{.*}}) ({
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16):
// CHECK: gpu.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
func.func @map(%x: tensor<4x8xbf16>, %y: tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = arith.constant 2.0 : f32
  %s, %t = "task.map"(%x, %y) ({
  ^bb0(%a: bf16, %b: bf16):
    %e = arith.extf %a : bf16 to f32
    %f = arith.extf %b : bf16 to f32
    %m = arith.mulf %e, %f : f32
    %r = arith.addf %m, %c : f32
    gpu.yield %m, %r : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %s, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Rank-0 inputs broadcast to the output shape.
// CHECK-LABEL: func.func @map_broadcast
// CHECK: "task.map"(%{{.*}}, %{{.*}}) ({
// CHECK: }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<i32>, tensor<i32>) -> tensor<4x8xi32>
func.func @map_broadcast(%a: tensor<i32>, %b: tensor<i32>) -> tensor<4x8xi32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%x: i32, %z: i32):
    %s = arith.addi %x, %z : i32
    gpu.yield %s : i32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<i32>, tensor<i32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

// A map of no inputs into a rank-0 output.
// CHECK-LABEL: func.func @map_fill
// CHECK: "task.map"() ({
// CHECK: }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<f32>
func.func @map_fill() -> tensor<f32> {
  %y = "task.map"() ({
    %one = arith.constant 1.0 : f32
    gpu.yield %one : f32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @reduce
// CHECK: "task.reduce"(%{{.*}}) {axis = 1 : i64, kind = "sum"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: "task.reduce"(%{{.*}}) {axis = 0 : i64, kind = "max"} : (tensor<5xi32>) -> tensor<i32>
// CHECK: "task.reduce"(%{{.*}}) {axis = 2 : i64, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
func.func @reduce(%x: tensor<2x3x4xf32>, %i: tensor<5xi32>) -> (tensor<2x4xf32>, tensor<i32>, tensor<2x3xf32>) {
  %a = "task.reduce"(%x) {axis = 1, kind = "sum"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %b = "task.reduce"(%i) {axis = 0, kind = "max"} : (tensor<5xi32>) -> tensor<i32>
  %c = "task.reduce"(%x) {axis = 2, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %a, %b, %c : tensor<2x4xf32>, tensor<i32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @rmsnorm
// CHECK: "task.rmsnorm"(%{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64} : (tensor<2x3x8xbf16>, tensor<8xf32>) -> tensor<2x3x8xbf16>
func.func @rmsnorm(%x: tensor<2x3x8xbf16>, %w: tensor<8xf32>) -> tensor<2x3x8xbf16> {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x3x8xbf16>, tensor<8xf32>) -> tensor<2x3x8xbf16>
  return %y : tensor<2x3x8xbf16>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK: "task.softmax"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cross_entropy
// CHECK: "task.cross_entropy"(%{{.*}}, %{{.*}}) : (tensor<8x10xbf16>, tensor<8xi32>) -> tensor<f32>
func.func @cross_entropy(%logits: tensor<8x10xbf16>, %targets: tensor<8xi32>) -> tensor<f32> {
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<8x10xbf16>, tensor<8xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @embedding
// CHECK: "task.embedding"(%{{.*}}, %{{.*}}) : (tensor<100x16xbf16>, tensor<2x5xi32>) -> tensor<2x5x16xbf16>
// CHECK: "task.embedding"(%{{.*}}, %{{.*}}) : (tensor<100x16xbf16>, tensor<i32>) -> tensor<16xbf16>
func.func @embedding(%table: tensor<100x16xbf16>, %ids: tensor<2x5xi32>, %id: tensor<i32>)
    -> (tensor<2x5x16xbf16>, tensor<16xbf16>) {
  %y = "task.embedding"(%table, %ids) : (tensor<100x16xbf16>, tensor<2x5xi32>) -> tensor<2x5x16xbf16>
  %z = "task.embedding"(%table, %id) : (tensor<100x16xbf16>, tensor<i32>) -> tensor<16xbf16>
  return %y, %z : tensor<2x5x16xbf16>, tensor<16xbf16>
}

// -----

// CHECK-LABEL: func.func @rope
// CHECK: "task.rope"(%{{.*}}) {theta = 1.000000e+04 : f64} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16>
func.func @rope(%x: tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16> {
  %y = "task.rope"(%x) {theta = 10000.0} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16>
  return %y : tensor<2x16x4x8xbf16>
}

// -----

// Causal self-attention, and cross-attention with its own key length.
// CHECK-LABEL: func.func @attention
// CHECK: "task.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {causal = true, scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
// CHECK: "task.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {causal = false, scale = -1.000000e+00 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x8xbf16>) -> tensor<2x4x16x8xf32>
func.func @attention(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x5x8xbf16>, %v: tensor<2x4x5x8xbf16>)
    -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xf32>) {
  %o = "task.attention"(%q, %q, %q) {causal = true, scale = 0.125}
      : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
  %x = "task.attention"(%q, %k, %v) {causal = false, scale = -1.0}
      : (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x8xbf16>) -> tensor<2x4x16x8xf32>
  return %o, %x : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xf32>
}

// -----

// CHECK-LABEL: func.func @topk
// CHECK: "task.topk"(%{{.*}}) {k = 2 : i64} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
// CHECK: "task.topk"(%{{.*}}) {k = 8 : i64} : (tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>)
func.func @topk(%x: tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>, tensor<16x8xf32>, tensor<16x8xi32>) {
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  %w, %j = "task.topk"(%x) {k = 8} : (tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>)
  return %v, %i, %w, %j : tensor<16x2xf32>, tensor<16x2xi32>, tensor<16x8xf32>, tensor<16x8xi32>
}

// -----

// CHECK-LABEL: func.func @bucket
// CHECK: "task.bucket"(%{{.*}}) {buckets = 8 : i64} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xi32>)
func.func @bucket(%ids: tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xi32>)
  return %order, %ends : tensor<32xi32>, tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @gather_rows
// CHECK: "task.gather_rows"(%{{.*}}, %{{.*}}) : (tensor<16x8xbf16>, tensor<32xi32>) -> tensor<32x8xbf16>
func.func @gather_rows(%x: tensor<16x8xbf16>, %idx: tensor<32xi32>) -> tensor<32x8xbf16> {
  %y = "task.gather_rows"(%x, %idx) : (tensor<16x8xbf16>, tensor<32xi32>) -> tensor<32x8xbf16>
  return %y : tensor<32x8xbf16>
}

// -----

// CHECK-LABEL: func.func @scatter_add_rows
// CHECK: "task.scatter_add_rows"(%{{.*}}, %{{.*}}) {rows = 16 : i64} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<16x8xf32>
func.func @scatter_add_rows(%x: tensor<32x8xf32>, %idx: tensor<32xi32>) -> tensor<16x8xf32> {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 16} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK: "task.reshape"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: "task.reshape"(%{{.*}}) : (tensor<1xi32>) -> tensor<i32>
func.func @reshape(%x: tensor<2x3x4xf32>, %i: tensor<1xi32>) -> (tensor<6x4xf32>, tensor<i32>) {
  %y = "task.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %j = "task.reshape"(%i) : (tensor<1xi32>) -> tensor<i32>
  return %y, %j : tensor<6x4xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: "task.transpose"(%{{.*}}) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK: "task.transpose"(%{{.*}}) {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
func.func @transpose(%x: tensor<2x3x4xf32>, %s: tensor<f32>) -> (tensor<4x2x3xf32>, tensor<f32>) {
  %y = "task.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %t = "task.transpose"(%s) {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
  return %y, %t : tensor<4x2x3xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @convert
// CHECK: "task.convert"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// CHECK: "task.convert"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xi32>
// CHECK: "task.convert"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf64>
func.func @convert(%x: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xi32>, tensor<4x8xf64>) {
  %y = "task.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %i = "task.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %d = "task.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf64>
  return %y, %i, %d : tensor<4x8xbf16>, tensor<4x8xi32>, tensor<4x8xf64>
}

// -----

// CHECK-LABEL: func.func @adamw
// CHECK: "task.adamw"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {beta1 = 0.000000e+00 : f64, beta2 = {{.*}} : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: "task.adamw"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
func.func @adamw(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>,
                 %step: tensor<i32>, %fstep: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %step)
      {lr = 1.0e-3, beta1 = 0.0, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  %p2, %m2, %v2 = "task.adamw"(%p1, %g, %m1, %v1, %fstep)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.95, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return %p2, %m2, %v2, %v1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Backward ops (latch-autodiff emits these). dy may have its own float dtype; dx has x's type.
// CHECK-LABEL: func.func @reduce_grad
// CHECK: "task.reduce_grad"(%{{.*}}, %{{.*}}) {axis = 1 : i64, kind = "sum"} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
// CHECK: "task.reduce_grad"(%{{.*}}, %{{.*}}) {axis = 0 : i64, kind = "max"} : (tensor<5xbf16>, tensor<f32>) -> tensor<5xbf16>
// CHECK: "task.reduce_grad"(%{{.*}}, %{{.*}}) {axis = 2 : i64, kind = "mean"} : (tensor<2x3x4xf32>, tensor<2x3xf64>) -> tensor<2x3x4xf32>
func.func @reduce_grad(%x: tensor<2x3x4xf32>, %dy: tensor<2x4xf32>, %b: tensor<5xbf16>, %db: tensor<f32>,
                       %dm: tensor<2x3xf64>) -> (tensor<2x3x4xf32>, tensor<5xbf16>, tensor<2x3x4xf32>) {
  %a = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "sum"} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %c = "task.reduce_grad"(%b, %db) {axis = 0, kind = "max"} : (tensor<5xbf16>, tensor<f32>) -> tensor<5xbf16>
  %d = "task.reduce_grad"(%x, %dm) {axis = 2, kind = "mean"} : (tensor<2x3x4xf32>, tensor<2x3xf64>) -> tensor<2x3x4xf32>
  return %a, %c, %d : tensor<2x3x4xf32>, tensor<5xbf16>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @rmsnorm_grad
// CHECK: "task.rmsnorm_grad"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64} : (tensor<2x3x8xbf16>, tensor<8xf32>, tensor<2x3x8xf32>) -> (tensor<2x3x8xbf16>, tensor<8xf32>)
// CHECK: "task.rmsnorm_grad"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 5.000000e-01 : f64} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
func.func @rmsnorm_grad(%x: tensor<2x3x8xbf16>, %w: tensor<8xf32>, %dy: tensor<2x3x8xf32>, %v: tensor<8xf32>)
    -> (tensor<2x3x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5}
      : (tensor<2x3x8xbf16>, tensor<8xf32>, tensor<2x3x8xf32>) -> (tensor<2x3x8xbf16>, tensor<8xf32>)
  %dv, %dw2 = "task.rmsnorm_grad"(%v, %w, %v) {eps = 0.5}
      : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %dx, %dw, %dv, %dw2 : tensor<2x3x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_grad
// CHECK: "task.softmax_grad"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
func.func @softmax_grad(%y: tensor<4x8xf32>, %dy: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  %dx = "task.softmax_grad"(%y, %dy) : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cross_entropy_grad
// CHECK: "task.cross_entropy_grad"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x10xbf16>, tensor<8xi32>, tensor<f32>) -> tensor<8x10xbf16>
func.func @cross_entropy_grad(%logits: tensor<8x10xbf16>, %targets: tensor<8xi32>) -> tensor<8x10xbf16> {
  %one = arith.constant dense<1.0> : tensor<f32>
  %d = "task.cross_entropy_grad"(%logits, %targets, %one) : (tensor<8x10xbf16>, tensor<8xi32>, tensor<f32>) -> tensor<8x10xbf16>
  return %d : tensor<8x10xbf16>
}

// -----

// CHECK-LABEL: func.func @rope_grad
// CHECK: "task.rope_grad"(%{{.*}}) {theta = 1.000000e+04 : f64} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16>
func.func @rope_grad(%dy: tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16> {
  %dx = "task.rope_grad"(%dy) {theta = 10000.0} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16>
  return %dx : tensor<2x16x4x8xbf16>
}

// -----

// Causal self-attention, and cross-attention with its own key length and an f32 output.
// CHECK-LABEL: func.func @attention_grad
// CHECK: "task.attention_grad"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {causal = true, scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>)
// CHECK: "task.attention_grad"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {causal = false, scale = -1.000000e+00 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xbf16>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xbf16>)
func.func @attention_grad(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xbf16>,
                          %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>)
    -> (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xbf16>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %q, %q, %q, %q) {causal = true, scale = 0.125}
      : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>)
      -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>)
  %eq, %ek, %ev = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = -1.0}
      : (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xbf16>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
      -> (tensor<2x4x16x8xbf16>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xbf16>)
  return %eq, %ek, %ev : tensor<2x4x16x8xbf16>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xbf16>
}

// -----

// k below the column count, and k equal to it.
// CHECK-LABEL: func.func @topk_grad
// CHECK: "task.topk_grad"(%{{.*}}, %{{.*}}) {columns = 8 : i64} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<16x8xf32>
// CHECK: "task.topk_grad"(%{{.*}}, %{{.*}}) {columns = 2 : i64} : (tensor<16x2xbf16>, tensor<16x2xi32>) -> tensor<16x2xbf16>
func.func @topk_grad(%dv: tensor<16x2xf32>, %i: tensor<16x2xi32>, %bv: tensor<16x2xbf16>)
    -> (tensor<16x8xf32>, tensor<16x2xbf16>) {
  %dx = "task.topk_grad"(%dv, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<16x8xf32>
  %bx = "task.topk_grad"(%bv, %i) {columns = 2} : (tensor<16x2xbf16>, tensor<16x2xi32>) -> tensor<16x2xbf16>
  return %dx, %bx : tensor<16x8xf32>, tensor<16x2xbf16>
}

// -----

// dw accumulates in f32, or is stored in x's dtype.
// CHECK-LABEL: func.func @grouped_matmul_weight_grad
// CHECK: "task.grouped_matmul_weight_grad"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x2xf32>
// CHECK: "task.grouped_matmul_weight_grad"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x2xbf16>
func.func @grouped_matmul_weight_grad(%x: tensor<16x8xbf16>, %dy: tensor<16x2xbf16>, %ends: tensor<4xi32>)
    -> (tensor<4x8x2xf32>, tensor<4x8x2xbf16>) {
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x2xf32>
  %dv = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x2xbf16>
  return %dw, %dv : tensor<4x8x2xf32>, tensor<4x8x2xbf16>
}

// -----

// CHECK-LABEL: func.func @column_halves
// CHECK: "task.grouped_matmul"(%{{.*}}, %{{.*}}, %{{.*}}) {w_column_offset = 2 : i64} : (tensor<16x8xbf16>, tensor<4x8x4xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
// CHECK: "task.grouped_matmul"(%{{.*}}, %{{.*}}, %{{.*}}) {transpose_w = true, w_column_offset = 0 : i64} : (tensor<16x2xbf16>, tensor<4x8x4xbf16>, tensor<4xi32>) -> tensor<16x8xf32>
// CHECK: "task.grouped_matmul_weight_grad_concat"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x4xf32>
func.func @column_halves(%x: tensor<16x8xbf16>, %w: tensor<4x8x4xbf16>, %ends: tensor<4xi32>, %dy: tensor<16x2xbf16>)
    -> (tensor<16x2xf32>, tensor<16x8xf32>, tensor<4x8x4xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) {w_column_offset = 2 : i64} : (tensor<16x8xbf16>, tensor<4x8x4xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
  %dx = "task.grouped_matmul"(%dy, %w, %ends) {transpose_w = true, w_column_offset = 0 : i64} : (tensor<16x2xbf16>, tensor<4x8x4xbf16>, tensor<4xi32>) -> tensor<16x8xf32>
  %dw = "task.grouped_matmul_weight_grad_concat"(%x, %dy, %dy, %ends) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x4xf32>
  return %y, %dx, %dw : tensor<16x2xf32>, tensor<16x8xf32>, tensor<4x8x4xf32>
}

// -----

// A whole program: the example MLP of examples/mlp.mlir.
// CHECK-LABEL: func.func @mlp
// CHECK-COUNT-2: "task.matmul"
// CHECK: "task.cross_entropy"
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32> {task.param}, %w2: tensor<32x10xf32> {task.param},
               %targets: tensor<8xi32>) -> tensor<f32> {
  %h = "task.matmul"(%x, %w1) {transpose_a = false, transpose_b = false}
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = "task.map"(%h) ({
  ^bb0(%v: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %logits = "task.matmul"(%a, %w2) {transpose_a = false, transpose_b = false}
      : (tensor<8x32xf32>, tensor<32x10xf32>) -> tensor<8x10xf32>
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
