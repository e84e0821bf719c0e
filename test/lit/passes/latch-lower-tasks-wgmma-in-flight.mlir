// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{lean-wgmma-stages=false})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{wgmma-in-flight=false lean-wgmma-stages=false})' \
// RUN:   | FileCheck %s --check-prefix=OFF

// latch-lower-tasks{wgmma-in-flight} (the default): each stage's wgmma group stays in flight while the next stage
// waits for its copies and issues its own: after the commit, wgmma.wait_group 1 (the previous stage's
// group done), a CTA barrier (done in every warpgroup), and only then the copies of the stage 2 ahead, into
// the buffer that the previous group read; after the loop, wait_group 0 before the accumulators are read.
// With wgmma-in-flight=false (OFF) the copies come before the wgmma and every stage waits for all its groups.
// Both with lean-wgmma-stages=false, the general copies (latch-lower-tasks-lean-wgmma-stages.mlir has the
// default's).
// CHECK-LABEL: func.func @task_body_0(
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!llvm.struct<({{(f32, )+}}f32)>) : i64 {
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue %[[SUM]][0]
// OFF-LABEL: func.func @task_body_0(
// OFF: nvvm.cp.async.wait.group 1
// OFF: nvvm.cp.async.commit.group
// OFF: nvvm.wgmma.fence.aligned
// OFF: nvvm.wgmma.wait.group.sync.aligned 0
// OFF-NEXT: scf.yield
// OFF-NOT: nvvm.wgmma.wait.group.sync.aligned 1
func.func @matmul(%a: tensor<128x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<128x128xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<128x256xbf16>, tensor<256x128xbf16>) -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
