// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{wgmma-in-flight=false})' \
// RUN:   | FileCheck %s --check-prefix=WAITALL

// latch-lower-tasks{lean-wgmma-stages} (the default): the wgmma ring slot of a stage is carried from stage to stage as an
// i32 (0, 1, 2, 0, ...; the slot two stages ahead is a select, no division), and each matrix descriptor is
// one operand start plus slot and step constants or'ed with the constant rest of the descriptor (K-major A:
// leading 16, stride 1024 bytes; MN-major B: leading 4096, stride 1024). A stage's copies test once whether
// the tile's rows and the stage's k lie inside both operands and the thread's first chunk is 16-byte
// aligned: then eight cp.async (four per operand) at places stepped from the tile's first, and the commit;
// otherwise the general per-chunk copies. The prologue's two stages are copied the same way. With
// wgmma-in-flight=false (WAITALL) the stage two ahead is copied the same way before the wgmma.
// WAITALL-LABEL: func.func @task_body_0(
// WAITALL: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c0_i32) -> (!llvm.struct<({{(f32, )+}}f32)>, i32) : i64 {
// WAITALL: scf.if
// WAITALL-COUNT-8: nvvm.cp.async.shared.global
// WAITALL-NEXT: nvvm.cp.async.commit.group
// WAITALL-NEXT: } else {
// WAITALL: nvvm.wgmma.fence.aligned
// WAITALL-NOT: nvvm.cp.async.shared.global
// WAITALL: nvvm.wgmma.wait.group.sync.aligned 0
// WAITALL: scf.yield %{{.*}}, %{{.*}} : !llvm.struct<({{(f32, )+}}f32)>, i32
// CHECK-LABEL: func.func @task_body_0(
// CHECK: nvvm.barrier0
// CHECK-NEXT: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64  : i64 {
// CHECK: scf.if
// CHECK-COUNT-8: nvvm.cp.async.shared.global
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: } else {
// CHECK: %[[SUM:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %c0_i32) -> (!llvm.struct<({{(f32, )+}}f32)>, i32) : i64 {
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: %[[BACK:.*]] = arith.cmpi eq, %[[SLOT]], %c0_i32 : i32
// CHECK-NEXT: arith.select %[[BACK]], %c2_i32, %{{.*}} : i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: arith.muli %[[SLOT]], %c2048_i32 : i32
// CHECK: %[[A_UNITS:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT: %[[A_DESC:.*]] = arith.ori %[[A_UNITS]], %c4611686293305360384_i64 : i64
// CHECK: %[[B_UNITS:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT: %[[B_DESC:.*]] = arith.ori %[[B_UNITS]], %c4611686293338849280_i64 : i64
// CHECK-NEXT: nvvm.wgmma.mma_async %[[A_DESC]], %[[B_DESC]]
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: nvvm.barrier0
// CHECK: scf.if
// CHECK-COUNT-8: nvvm.cp.async.shared.global
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: } else {
// CHECK: %[[NEXT:.*]] = arith.addi %[[SLOT]], %c1_i32 : i32
// CHECK-NEXT: %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c3_i32 : i32
// CHECK-NEXT: %[[NEXT_SLOT:.*]] = arith.select %[[WRAP]], %c0_i32, %[[NEXT]] : i32
// CHECK-NEXT: scf.yield %{{.*}}, %[[NEXT_SLOT]] : !llvm.struct<({{(f32, )+}}f32)>, i32
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue %[[SUM]]#0[0]
func.func @matmul(%a: tensor<128x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<128x128xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<128x256xbf16>, tensor<256x128xbf16>) -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
