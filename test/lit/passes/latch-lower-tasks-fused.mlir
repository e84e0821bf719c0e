// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-lower-tasks,latch-lower-intervals)' | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-lower-tasks)' | FileCheck %s --check-prefix=TASKS
//
// Fused prologues and epilogues. A map that latch-fuse-phases marks `task.fused = "prologue"` of
// rmsnorm_grad's dy (or rmsnorm's x) runs inside the norm's tiles: each load of dy calls the map's body on
// its inputs at the same index (rank-0 inputs at 0), the map gets `tiles = 0` (no tiles, nothing written)
// and latch-lower-intervals gives it no wave, so the interval has one wave and no grid barrier inside. The
// bits are those of the map's own tiles (the same body function): GPU check programs norm-prologues and
// matmul-epilogues (last case).

// The norm's tile body takes the map's inputs a, b, s and calls its body; @latch_main calls only the norm.
// TASKS: func.func @task_body_1(%{{.*}}: i32 {{{.*}}}, %[[A:[^:]+]]: !llvm.ptr<1>, %[[B:[^:]+]]: !llvm.ptr<1>, %[[S:[^:]+]]: !llvm.ptr<1>,
// TASKS: func.call @map_body_0(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// TASKS: "task.map"
// TASKS: task.fused = "prologue", tiles = 0 : i64
// TASKS: "task.rmsnorm_grad"
// TASKS-SAME: tiles = 5 : i64
// CHECK-LABEL: gpu.func @latch_main(
// CHECK: scf.for
// CHECK-NEXT: func.call @task_1(
// CHECK-NEXT: }
// CHECK-NOT: func.call @task_
// CHECK: gpu.return
func.func @norm_grad(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>, %s: tensor<f32>, %x: tensor<64x32xf32>, %w: tensor<32xf32>) -> (tensor<64x32xf32>, tensor<32xf32>) {
  %dy = "task.map"(%a, %b, %s) ({
  ^bb0(%u: f32, %v: f32, %k: f32):
    %r = arith.addf %u, %v : f32
    %m = arith.mulf %r, %k : f32
    gpu.yield %m : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5 : f64} : (tensor<64x32xf32>, tensor<32xf32>, tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<32xf32>)
  return %dx, %dw : tensor<64x32xf32>, tensor<32xf32>
}

// -----

// A convert prologue of a product's operand stays a task of its own: the product stages its operands by
// copies, not element by element. Two waves, a grid barrier between them.
// TASKS: "task.convert"
// TASKS-SAME: task.fused = "prologue", tiles = 1 : i64
// CHECK-LABEL: gpu.func @latch_main(
// CHECK: func.call @task_0(
// CHECK: nvvm.barrier0
// CHECK: func.call @task_1(
// CHECK: gpu.return
func.func @product(%a: tensor<64x64xf32>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %ab = "task.convert"(%a) : (tensor<64x64xf32>) -> tensor<64x64xbf16>
  %c = "task.matmul"(%ab, %b) {transpose_a = false, transpose_b = false} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// A residual added to a tensor-core product is its epilogue (latch-fuse-phases: its other input is of the
// product's shape and defined before it): each store of the product calls the map's body on the value and
// r at the same index and stores the sum into y; the map gets tiles = 0 and the interval one wave. The loads
// of r come in batches of 16 (8 accumulator pairs) before the batch's stores: element by element, each load
// would wait for the store before it, which may alias it.
// TASKS: func.func @task_body_0(%{{.*}}: i32 {{{.*}}}, %[[A:[^:]+]]: !llvm.ptr<1>, %[[B:[^:]+]]: !llvm.ptr<1>, %[[R:[^:]+]]: !llvm.ptr<1>, %[[Y:[^:]+]]: !llvm.ptr<1>)
// TASKS: nvvm.wgmma.mma_async
// TASKS-NOT: llvm.getelementptr %[[Y]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: func.call @map_body_0
// TASKS: llvm.getelementptr %[[R]][
// TASKS-NOT: llvm.getelementptr %[[R]][
// TASKS: %[[SUM:.*]] = func.call @map_body_0(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// TASKS-NEXT: %[[AT:.*]] = llvm.getelementptr %[[Y]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// TASKS-NEXT: llvm.store %[[SUM]], %[[AT]] : f32, !llvm.ptr<1>
// TASKS: "task.matmul"
// TASKS: "task.map"
// TASKS: task.fused = "epilogue", tiles = 0 : i64
// CHECK-LABEL: gpu.func @latch_main(
// CHECK: func.call @task_0(
// CHECK-NOT: func.call @task_
// CHECK: gpu.return
func.func @residual(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>, %r: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xf32>
  %y = "task.map"(%c, %r) ({
  ^bb0(%u: f32, %v: f32):
    %s = arith.addf %u, %v : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}
