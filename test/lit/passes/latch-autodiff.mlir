// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-autodiff)' | FileCheck %s

// A matmul's VJP is two matmuls with the right transposes: dA = dC B^T, dB = A^T dC.
// CHECK-LABEL: func.func @matmul_grad
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32> {task.param}, %[[B:.*]]: tensor<8x2xf32> {task.param}, %[[T:.*]]: tensor<4xi32>)
// CHECK-SAME: -> (tensor<f32>, tensor<4x8xf32>, tensor<8x2xf32>)
// CHECK-SAME: attributes {task.generated = "grad"}
// CHECK: %[[C:.*]] = "task.matmul"(%[[A]], %[[B]]) {transpose_a = false, transpose_b = false}
// CHECK: %[[L:.*]] = "task.cross_entropy"(%[[C]], %[[T]])
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DC:.*]] = "task.cross_entropy_grad"(%[[C]], %[[T]], %[[ONE]])
// CHECK-DAG: %[[DA:.*]] = "task.matmul"(%[[DC]], %[[B]]) {task.phase = "backward", transpose_a = false, transpose_b = true} : (tensor<4x2xf32>, tensor<8x2xf32>) -> tensor<4x8xf32>
// CHECK-DAG: %[[DB:.*]] = "task.matmul"(%[[A]], %[[DC]]) {task.phase = "backward", transpose_a = true, transpose_b = false} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
// CHECK: return %[[L]], %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<4x8xf32> {task.param}, %b: tensor<8x2xf32> {task.param}, %t: tensor<4xi32>) -> tensor<f32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %l = "task.cross_entropy"(%c, %t) : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Transposed operands: with c = a^T b^T, dA = B' dC^T (a is transposed) and dB = dC^T A'.
// CHECK-LABEL: func.func @transposed_grad
// CHECK: %[[DC:.*]] = "task.cross_entropy_grad"
// CHECK-DAG: "task.matmul"(%arg1, %[[DC]]) {task.phase = "backward", transpose_a = true, transpose_b = true} : (tensor<2x8xf32>, tensor<4x2xf32>) -> tensor<8x4xf32>
// CHECK-DAG: "task.matmul"(%[[DC]], %arg0) {task.phase = "backward", transpose_a = true, transpose_b = true} : (tensor<4x2xf32>, tensor<8x4xf32>) -> tensor<2x8xf32>
func.func @transposed(%a: tensor<8x4xf32> {task.param}, %b: tensor<2x8xf32> {task.param}, %t: tensor<4xi32>) -> tensor<f32> {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<8x4xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  %l = "task.cross_entropy"(%c, %t) : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value with two users gets its adjoint accumulated once (one elementwise add); the integer targets
// and the non-parameter input get no gradient (no matmul computes d(x)).
// CHECK-LABEL: func.func @two_users_grad
// CHECK-SAME: -> (tensor<f32>, tensor<8x4xf32>)
// CHECK: %[[H:.*]] = "task.matmul"(%arg0, %arg1)
// CHECK: "task.cross_entropy_grad"
// CHECK: %[[G1:.*]] = "task.softmax_grad"
// CHECK: %[[SUM:.*]] = "task.map"(%{{.*}}, %[[G1]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.addf
// CHECK-NOT: arith.addf
// CHECK: %[[DW:.*]] = "task.matmul"(%arg0, %[[SUM]]) {task.phase = "backward", transpose_a = true, transpose_b = false}
// CHECK-NOT: "task.matmul"
// CHECK: return %{{.*}}, %[[DW]]
func.func @two_users(%x: tensor<4x8xf32>, %w: tensor<8x4xf32> {task.param}, %t: tensor<4xi32>) -> tensor<f32> {
  %h = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %s = "task.softmax"(%h) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = "task.map"(%h, %s) ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %l = "task.cross_entropy"(%sum, %t) : (tensor<4x4xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Map bodies are differentiated at the scalar level: d(a*b) = (g*b, g*a); d exp(a) = g*exp(a).
// A rank-0 (broadcast) input's adjoint is the sum over all elements.
// CHECK-LABEL: func.func @scalar_rules_grad
// CHECK: "task.map"(%arg0, %arg1, %{{.*}}) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[S:.*]]: f32, %[[G:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[S]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[M]]
// CHECK-NEXT: %[[GE:.*]] = arith.mulf %[[G]], %[[E]]
// CHECK-NEXT: %[[GA:.*]] = arith.mulf %[[GE]], %[[S]]
// CHECK-NEXT: %[[GS:.*]] = arith.mulf %[[GE]], %[[A]]
// CHECK-NEXT: gpu.yield %[[GA]], %[[GS]] : f32, f32
// CHECK: %[[FLAT:.*]] = "task.reshape"(%{{.*}}) {task.phase = "backward"} : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: "task.reduce"(%[[FLAT]]) {axis = 0 : i64, kind = "sum", task.phase = "backward"} : (tensor<6xf32>) -> tensor<f32>
func.func @scalar_rules(%a: tensor<2x3xf32> {task.param}, %s: tensor<f32> {task.param}, %t: tensor<2xi32>) -> tensor<f32> {
  %e = "task.map"(%a, %s) ({
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %y : f32
    %r = math.exp %m : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %l = "task.cross_entropy"(%e, %t) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Integer values (routing indices, bucket orders) carry no gradient; routing is differentiated through
// the selected weights only (topk_grad), and gather/scatter-add are each other's transpose.
// CHECK-LABEL: func.func @routing_grad
// CHECK: %[[TK:.*]]:2 = "task.topk"
// CHECK: "task.bucket"(%[[TK]]#1)
// CHECK-NOT: "task.bucket"
// CHECK-DAG: "task.topk_grad"(%{{.*}}, %[[TK]]#1) {columns = 4 : i64, task.phase = "backward"}
// CHECK-DAG: "task.scatter_add_rows"(%{{.*}}, %arg2) {rows = 8 : i64, task.phase = "backward"} : (tensor<6x3xf32>, tensor<6xi32>) -> tensor<8x3xf32>
func.func @routing(%x: tensor<2x4xf32> {task.param}, %rows: tensor<8x3xf32> {task.param}, %idx: tensor<6xi32>, %t: tensor<2xi32>) -> tensor<f32> {
  %v, %i = "task.topk"(%x) {k = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  %order, %ends = "task.bucket"(%i) {buckets = 4 : i64} : (tensor<2x2xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  %g = "task.gather_rows"(%rows, %idx) : (tensor<8x3xf32>, tensor<6xi32>) -> tensor<6x3xf32>
  %l1 = "task.cross_entropy"(%v, %t) : (tensor<2x2xf32>, tensor<2xi32>) -> tensor<f32>
  %r = "task.reduce"(%g) {axis = 0 : i64, kind = "sum"} : (tensor<6x3xf32>) -> tensor<3xf32>
  %r2 = "task.reduce"(%r) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %l = "task.map"(%l1, %r2) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter the loss does not depend on gets a zero gradient; functions without parameters or without
// a rank-0 first result are left alone.
// CHECK-LABEL: func.func @unused_grad
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[Z]]
// CHECK-NOT: func.func @helper_grad
func.func @unused(%a: tensor<2x3xf32> {task.param}, %unused: tensor<3xf32> {task.param}, %t: tensor<2xi32>) -> tensor<f32> {
  %l = "task.cross_entropy"(%a, %t) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @helper(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}

// -----

// A grouped_matmul's VJP: dx = dy w[g]^T reads w as it lies (transpose_w, no transposed copy of w), and
// dw = grouped_matmul_weight_grad(x, dy). A grouped_matmul that has transpose_w (y = x w[g]^T, w
// [G, N, K]) gets dx = dy w[g] and dw = grouped_matmul_weight_grad(dy, x).
// CHECK-LABEL: func.func @grouped_grad
// CHECK-SAME: (%[[X:.*]]: tensor<6x4xf32> {task.param}, %[[W:.*]]: tensor<3x4x5xf32> {task.param}, %[[V:.*]]: tensor<3x4x4xf32> {task.param}, %[[E:.*]]: tensor<3xi32>, %[[T:.*]]: tensor<6xi32>)
// CHECK-NOT: "task.transpose"
// CHECK: %[[H:.*]] = "task.grouped_matmul"(%[[X]], %[[V]], %[[E]]) {transpose_w = true}
// CHECK: %[[DY:.*]] = "task.cross_entropy_grad"
// CHECK: %[[DH:.*]] = "task.grouped_matmul"(%[[DY]], %[[W]], %[[E]]) {task.phase = "backward", transpose_w = true} : (tensor<6x5xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x4xf32>
// CHECK: "task.grouped_matmul_weight_grad"(%[[H]], %[[DY]], %[[E]]) {task.phase = "backward"} : (tensor<6x4xf32>, tensor<6x5xf32>, tensor<3xi32>) -> tensor<3x4x5xf32>
// CHECK: "task.grouped_matmul"(%[[DH]], %[[V]], %[[E]]) {task.phase = "backward"} : (tensor<6x4xf32>, tensor<3x4x4xf32>, tensor<3xi32>) -> tensor<6x4xf32>
// CHECK: "task.grouped_matmul_weight_grad"(%[[DH]], %[[X]], %[[E]]) {task.phase = "backward"} : (tensor<6x4xf32>, tensor<6x4xf32>, tensor<3xi32>) -> tensor<3x4x4xf32>
// CHECK-NOT: "task.transpose"
func.func @grouped(%x: tensor<6x4xf32> {task.param}, %w: tensor<3x4x5xf32> {task.param}, %v: tensor<3x4x4xf32> {task.param},
                   %e: tensor<3xi32>, %t: tensor<6xi32>) -> tensor<f32> {
  %h = "task.grouped_matmul"(%x, %v, %e) {transpose_w = true} : (tensor<6x4xf32>, tensor<3x4x4xf32>, tensor<3xi32>) -> tensor<6x4xf32>
  %y = "task.grouped_matmul"(%h, %w, %e) : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x5xf32>
  %l = "task.cross_entropy"(%y, %t) : (tensor<6x5xf32>, tensor<6xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
