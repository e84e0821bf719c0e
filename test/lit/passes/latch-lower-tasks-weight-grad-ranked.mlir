// latch-lower-tasks{weight-grad-ranked=true} (off by default, not yet measured on the H200): tile t of
// task.grouped_matmul_weight_grad takes the group of rank t, most rows first and ties by lower index.
// Group c's rank counts the groups h < c with at least its rows and the groups h > c with more. The tile
// then reads that group's rows (ends[group - 1] .. ends[group]). The default takes group t.
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{weight-grad-ranked=true})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c3_i64 step %c3_i64 : i64 {
// CHECK: %[[SIZE0:[0-9]+]] = arith.subi %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK: %[[SIZE1:[0-9]+]] = arith.subi %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK: %[[SIZE2:[0-9]+]] = arith.subi %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK: arith.cmpi sgt, %[[SIZE1]], %[[SIZE0]] : i64
// CHECK: arith.cmpi sgt, %[[SIZE2]], %[[SIZE0]] : i64
// CHECK: %[[RANK0:.*]] = arith.cmpi eq, %{{.*}}, %[[VT]] : i64
// CHECK-NEXT: %[[PICK0:.*]] = arith.select %[[RANK0]], %c0_i64, %c0_i64 : i64
// CHECK: arith.cmpi sge, %[[SIZE0]], %[[SIZE1]] : i64
// CHECK: arith.cmpi sgt, %[[SIZE2]], %[[SIZE1]] : i64
// CHECK: %[[PICK1:.*]] = arith.select %{{.*}}, %c1_i64, %[[PICK0]] : i64
// CHECK: arith.cmpi sge, %[[SIZE0]], %[[SIZE2]] : i64
// CHECK: arith.cmpi sge, %[[SIZE1]], %[[SIZE2]] : i64
// CHECK: %[[GROUP:.*]] = arith.select %{{.*}}, %c2_i64, %[[PICK1]] : i64
// CHECK: arith.subi %[[GROUP]], %c1_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// DEFAULT-LABEL: gpu.module @latch
// DEFAULT: func.func @task_body_0(
// DEFAULT: scf.for %[[VT:.*]] = %{{.*}} to %c3_i64 step %c3_i64 : i64 {
// DEFAULT-NOT: arith.extui %{{.*}} : i1 to i64
// DEFAULT: arith.subi %[[VT]], %c1_i64 : i64
// DEFAULT: nvvm.wgmma.mma_async
func.func @grouped_matmul_weight_grad(%x: tensor<20x8xbf16>, %dy: tensor<20x12xbf16>, %ends: tensor<3xi32>) -> tensor<3x8x12xbf16> {
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<20x8xbf16>, tensor<20x12xbf16>, tensor<3xi32>) -> tensor<3x8x12xbf16>
  return %dw : tensor<3x8x12xbf16>
}
