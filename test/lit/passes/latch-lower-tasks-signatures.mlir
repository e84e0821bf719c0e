// Tile bodies by signature: a task whose op, attributes, types, tiles and places (kind, alignment,
// sharing) an earlier task had takes that task's body without writing it, and repeats its scratch
// requests under its own number. With check-signatures every body is written anyway and compared with
// its signature's: the same output, and no error.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{check-signatures=true})' \
// RUN:   | FileCheck %s

// The first two losses have one signature (other arguments): one body, two tasks, each with its own
// partials and arrival counter. The third (34 columns) has its own body.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, 9>}
// CHECK: func.func @task_0(
// CHECK: llvm.mlir.addressof @latch_task0_partials
// CHECK: llvm.mlir.addressof @latch_task0_arrivals
// CHECK: call @task_body_0(
// CHECK: llvm.mlir.global internal @latch_task0_partials()
// CHECK: llvm.mlir.global internal @latch_task0_arrivals()
// CHECK-NOT: func.func @task_body_1(
// CHECK: func.func @task_1(
// CHECK: llvm.mlir.addressof @latch_task1_partials
// CHECK: llvm.mlir.addressof @latch_task1_arrivals
// CHECK: call @task_body_0(
// CHECK: llvm.mlir.global internal @latch_task1_partials() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<9 x f32>
// CHECK: llvm.mlir.global internal @latch_task1_arrivals() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
// CHECK: func.func @task_body_2(
// CHECK: %c34_i64
// CHECK: func.func @task_2(
// CHECK: call @task_body_2(
func.func @losses(%l1: tensor<70x33xbf16>, %t1: tensor<70xi32>, %l2: tensor<70x33xbf16>, %t2: tensor<70xi32>,
                  %l3: tensor<70x34xbf16>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = "task.cross_entropy"(%l1, %t1) : (tensor<70x33xbf16>, tensor<70xi32>) -> tensor<f32>
  %b = "task.cross_entropy"(%l2, %t2) : (tensor<70x33xbf16>, tensor<70xi32>) -> tensor<f32>
  %c = "task.cross_entropy"(%l3, %t1) : (tensor<70x34xbf16>, tensor<70xi32>) -> tensor<f32>
  return %a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>
}
