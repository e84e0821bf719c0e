// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{vector-maps=false})' \
// RUN:   | FileCheck %s --check-prefix=SCALAR

// latch-lower-tasks{vector-maps} (the default): a map whose per-element tensors start 16-byte aligned (arguments
// are) with a multiple of 4 elements reads 4 consecutive elements of each input as one vector (aligned to
// its bytes), calls the body on each element as the scalar path does, and writes each result as one vector
// (8 bytes of bf16). The rank-0 input stays a scalar load. The tile count is the scalar path's:
// ceil(16388 / 8192) = 3 tiles of 2048 units of 4; a full tile's thread loads 4 units (1024 apart) before
// its first store.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3_i64 step
// CHECK: scf.for %{{.*}} = %c0_i64 to %c2048_i64 step %c1024_i64
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.store
// CHECK: %[[E0:.*]] = llvm.extractelement %{{.*}}[%c0_i32 : i32] : vector<4xf32>
// CHECK-NEXT: %[[R0:.*]]:2 = func.call @map_body_0(%[[E0]], %[[S:.*]]) : (f32, f32) -> (f32, bf16)
// CHECK: llvm.extractelement %{{.*}}[%c3_i32 : i32] : vector<4xf32>
// CHECK: %[[V:.*]] = llvm.insertelement %[[R0]]#0, %{{.*}}[%c0_i32 : i32] : vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.insertelement %[[R0]]#1, %{{.*}}[%c0_i32 : i32] : vector<4xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
// The last, partial tile: one unit per thread iteration, the same vectors.
// CHECK: } else {
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
// SCALAR-LABEL: gpu.module @latch
// SCALAR-NOT: vector<4xf32>
// SCALAR: func.call @map_body_0
// SCALAR-NOT: vector<4xf32>
// SCALAR: sym_name = "map_pair"
func.func @map_pair(%a: tensor<4x4097xf32>, %s: tensor<f32>) -> (tensor<4x4097xf32>, tensor<4x4097xbf16>) {
  %x, %y = "task.map"(%a, %s) ({
  ^bb0(%e: f32, %f: f32):
    %p = arith.mulf %e, %f : f32
    %r = arith.truncf %p : f32 to bf16
    gpu.yield %p, %r : f32, bf16
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x4097xf32>, tensor<f32>) -> (tensor<4x4097xf32>, tensor<4x4097xbf16>)
  return %x, %y : tensor<4x4097xf32>, tensor<4x4097xbf16>
}

// -----

// 4099 elements are no whole number of units: the scalar path, even with the option.
// CHECK-LABEL: gpu.module @latch
// CHECK-NOT: vector<4xf32>
// CHECK: func.call @map_body_0
// CHECK-NOT: vector<4xf32>
// CHECK: sym_name = "map_odd"
// SCALAR-LABEL: gpu.module @latch
func.func @map_odd(%a: tensor<4099xf32>) -> tensor<4099xf32> {
  %x = "task.map"(%a) ({
  ^bb0(%e: f32):
    %p = arith.mulf %e, %e : f32
    gpu.yield %p : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4099xf32>) -> tensor<4099xf32>
  return %x : tensor<4099xf32>
}

// -----

// task.adamw: p, grad, m, v as vectors (two units per thread before the first store: four inputs), the
// step a scalar; p', m', v' stored as vectors over p, m, v. Tiles of LATCH_ADAMW_TILE = 2048 elements:
// 8192 are 4 tiles of 512 units, one group of 256 threads x 2 each.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, {{[0-9]+}}>}, %[[P:.*]]: !llvm.ptr<1>, %[[G:.*]]: !llvm.ptr<1>, %[[M:.*]]: !llvm.ptr<1>, %[[V:.*]]: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[P1:.*]]: !llvm.ptr<1>, %[[M1:.*]]: !llvm.ptr<1>, %[[V1:.*]]: !llvm.ptr<1>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4_i64 step %c4_i64
// CHECK: scf.for %{{.*}} = %c0_i64 to %c512_i64 step %c512_i64
// CHECK-COUNT-8: -> vector<4xf32>
// CHECK-NOT: llvm.store
// CHECK: math.sqrt
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: sym_name = "adamw"
// SCALAR-LABEL: gpu.module @latch
// SCALAR-NOT: vector<4xf32>
// SCALAR: sym_name = "adamw"
func.func @adamw(%p: tensor<8192xf32>, %g: tensor<8192xf32>, %m: tensor<8192xf32>, %v: tensor<8192xf32>, %step: tensor<i32>) -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>) {
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %step) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64} : (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<i32>) -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>)
  return %p1, %m1, %v1 : tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>
}
