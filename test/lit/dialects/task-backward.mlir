// RUN: latch-opt %s | latch-opt | FileCheck %s
// The backward ops of the task dialect (docs/task-dialect.md, "Backward ops") print and parse back
// (print, reparse, print again) in the generic form.

// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8xf32>, %[[DY:[^:]*]]: tensor<4x8xf32>, %[[D0:[^:]*]]: tensor<4xf32>,
// CHECK-SAME: %[[T:[^:]*]]: tensor<4xi32>, %[[L:[^:]*]]: tensor<f32>, %[[Q:[^:]*]]: tensor<1x2x4x8xf32>, %[[DV:[^:]*]]: tensor<4x2xf32>,
// CHECK-SAME: %[[IDX:[^:]*]]: tensor<4x2xi32>, %[[E:[^:]*]]: tensor<3xi32>)
// CHECK: "task.reduce_grad"(%[[X]], %[[D0]]) {axis = 1 : i64, kind = "max"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
// CHECK: "task.rmsnorm_grad"(%[[X]], %[[W]], %[[DY]]) {eps = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
// CHECK: "task.softmax_grad"(%[[X]], %[[DY]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: "task.cross_entropy_grad"(%[[X]], %[[T]], %[[L]]) : (tensor<4x8xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK: "task.rope_grad"(%[[Q]]) {theta = 1.000000e+04 : f64} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK: "task.attention_grad"(%[[Q]], %[[Q]], %[[Q]], %[[Q]], %[[Q]]) {causal = true, scale = 1.250000e-01 : f64}
// CHECK-SAME: -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
// CHECK: "task.topk_grad"(%[[DV]], %[[IDX]]) {columns = 8 : i64} : (tensor<4x2xf32>, tensor<4x2xi32>) -> tensor<4x8xf32>
// CHECK: "task.grouped_matmul_weight_grad"(%[[X]], %[[DY]], %[[E]]) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<3xi32>) -> tensor<3x8x8xf32>
func.func @backward(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %dy: tensor<4x8xf32>, %d0: tensor<4xf32>,
                    %t: tensor<4xi32>, %l: tensor<f32>, %q: tensor<1x2x4x8xf32>, %dv: tensor<4x2xf32>,
                    %idx: tensor<4x2xi32>, %ends: tensor<3xi32>) {
  %0 = "task.reduce_grad"(%x, %d0) {axis = 1 : i64, kind = "max"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  %1:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  %2 = "task.softmax_grad"(%x, %dy) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "task.cross_entropy_grad"(%x, %t, %l) : (tensor<4x8xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x8xf32>
  %4 = "task.rope_grad"(%q) {theta = 10000.0 : f64} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %5:3 = "task.attention_grad"(%q, %q, %q, %q, %q) {causal = true, scale = 0.125 : f64}
      : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
      -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
  %6 = "task.topk_grad"(%dv, %idx) {columns = 8 : i64} : (tensor<4x2xf32>, tensor<4x2xi32>) -> tensor<4x8xf32>
  %7 = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<3xi32>) -> tensor<3x8x8xf32>
  return
}
