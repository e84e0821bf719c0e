// RUN: latch-opt %s | latch-opt | FileCheck %s
// Every op of the task dialect prints and parses back (print, reparse, print again) in the generic form.

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<3x8x4xbf16>, %[[B:.*]]: tensor<3x2x8xbf16>)
// CHECK: %[[C:.*]] = "task.matmul"(%[[A]], %[[B]]) {transpose_a = true, transpose_b = true} : (tensor<3x8x4xbf16>, tensor<3x2x8xbf16>) -> tensor<3x4x2xf32>
// CHECK: return %[[C]]
func.func @matmul(%a: tensor<3x8x4xbf16>, %b: tensor<3x2x8xbf16>) -> tensor<3x4x2xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true}
      : (tensor<3x8x4xbf16>, tensor<3x2x8xbf16>) -> tensor<3x4x2xf32>
  return %c : tensor<3x4x2xf32>
}

// CHECK-LABEL: func.func @grouped_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xbf16>, %[[W:.*]]: tensor<4x8x2xbf16>, %[[E:.*]]: tensor<4xi32>)
// CHECK: "task.grouped_matmul"(%[[X]], %[[W]], %[[E]]) : (tensor<16x8xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
func.func @grouped_matmul(%x: tensor<16x8xbf16>, %w: tensor<4x8x2xbf16>, %ends: tensor<4xi32>) -> tensor<16x2xf32> {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<16x8xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
  return %y : tensor<16x2xf32>
}

// CHECK-LABEL: func.func @map
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]]:2 = "task.map"(%[[X]], %[[Y]]) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: gpu.yield %[[S]], %[[P]] : f32, f32
// CHECK-NEXT: }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @map(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s, %p = "task.map"(%x, %y) ({
  ^bb0(%a: f32, %b: f32):
    %sum = arith.addf %a, %b : f32
    %prod = arith.mulf %a, %b : f32
    gpu.yield %sum, %prod : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %s, %p : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK: "task.reduce"(%{{.*}}) {axis = 1 : i64, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
func.func @reduce(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %y = "task.reduce"(%x) {axis = 1, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @rmsnorm
// CHECK: "task.rmsnorm"(%{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64} : (tensor<2x8xbf16>, tensor<8xf32>) -> tensor<2x8xbf16>
func.func @rmsnorm(%x: tensor<2x8xbf16>, %w: tensor<8xf32>) -> tensor<2x8xbf16> {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xbf16>, tensor<8xf32>) -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

// CHECK-LABEL: func.func @softmax
// CHECK: "task.softmax"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK: "task.cross_entropy"(%{{.*}}, %{{.*}}) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<f32>
func.func @cross_entropy(%logits: tensor<8x10xf32>, %targets: tensor<8xi32>) -> tensor<f32> {
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @embedding
// CHECK: "task.embedding"(%{{.*}}, %{{.*}}) : (tensor<100x16xbf16>, tensor<2x5xi32>) -> tensor<2x5x16xbf16>
func.func @embedding(%table: tensor<100x16xbf16>, %ids: tensor<2x5xi32>) -> tensor<2x5x16xbf16> {
  %y = "task.embedding"(%table, %ids) : (tensor<100x16xbf16>, tensor<2x5xi32>) -> tensor<2x5x16xbf16>
  return %y : tensor<2x5x16xbf16>
}

// CHECK-LABEL: func.func @rope
// CHECK: "task.rope"(%{{.*}}) {theta = 1.000000e+04 : f64} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16>
func.func @rope(%x: tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16> {
  %y = "task.rope"(%x) {theta = 10000.0} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xbf16>
  return %y : tensor<2x16x4x8xbf16>
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x16x8xbf16>, %[[K:.*]]: tensor<2x4x16x8xbf16>, %[[V:.*]]: tensor<2x4x16x8xbf16>)
// CHECK: "task.attention"(%[[Q]], %[[K]], %[[V]]) {causal = true, scale = 3.535530e-01 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
func.func @attention(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>)
    -> tensor<2x4x16x8xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.353553}
      : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
  return %o : tensor<2x4x16x8xbf16>
}

// CHECK-LABEL: func.func @topk
// CHECK: %[[R:.*]]:2 = "task.topk"(%{{.*}}) {k = 2 : i64} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @topk(%x: tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>) {
  %values, %indices = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  return %values, %indices : tensor<16x2xf32>, tensor<16x2xi32>
}

// CHECK-LABEL: func.func @bucket
// CHECK: %[[R:.*]]:2 = "task.bucket"(%{{.*}}) {buckets = 8 : i64} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xi32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @bucket(%ids: tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xi32>)
  return %order, %ends : tensor<32xi32>, tensor<8xi32>
}

// CHECK-LABEL: func.func @gather_rows
// CHECK: "task.gather_rows"(%{{.*}}, %{{.*}}) : (tensor<16x8xbf16>, tensor<32xi32>) -> tensor<32x8xbf16>
func.func @gather_rows(%x: tensor<16x8xbf16>, %idx: tensor<32xi32>) -> tensor<32x8xbf16> {
  %y = "task.gather_rows"(%x, %idx) : (tensor<16x8xbf16>, tensor<32xi32>) -> tensor<32x8xbf16>
  return %y : tensor<32x8xbf16>
}

// CHECK-LABEL: func.func @scatter_add_rows
// CHECK: "task.scatter_add_rows"(%{{.*}}, %{{.*}}) {rows = 16 : i64} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<16x8xf32>
func.func @scatter_add_rows(%x: tensor<32x8xf32>, %idx: tensor<32xi32>) -> tensor<16x8xf32> {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 16} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK: "task.reshape"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = "task.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: "task.transpose"(%{{.*}}) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = "task.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %y : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @convert
// CHECK: "task.convert"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
func.func @convert(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %y = "task.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @adamw
// CHECK-SAME: (%[[P:[^:]*]]: tensor<4x8xf32>, %[[G:[^:]*]]: tensor<4x8xf32>, %[[M:[^:]*]]: tensor<4x8xf32>, %[[V:[^:]*]]: tensor<4x8xf32>, %[[S:[^:]*]]: tensor<i32>)
// CHECK: %[[R:.*]]:3 = "task.adamw"(%[[P]], %[[G]], %[[M]], %[[V]], %[[S]]) {beta1 = 9.000000e-01 : f64, beta2 = 5.000000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-01 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @adamw(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %step: tensor<i32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %step)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.5, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return %p1, %m1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
