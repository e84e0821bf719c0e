// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,func.func(cse,canonicalize),latch-verify)' | FileCheck %s
// A pipeline mixing Latch passes with nested upstream passes runs in order; cse removes the duplicate.

// CHECK-LABEL: func.func @f
// CHECK: %[[C:.*]] = "task.matmul"
// CHECK-NOT: arith.constant
// CHECK: return %[[C]]
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %x = arith.constant 1 : i32
  %y = arith.constant 1 : i32
  return %c : tensor<4x2xf32>
}
