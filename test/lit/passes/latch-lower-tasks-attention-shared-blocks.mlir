// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{attention-shared-blocks=true})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s --check-prefix=PER-WARP

// latch-lower-tasks{attention-shared-blocks}: the staged tensor-core attention templates stage each block
// of 32 keys once for the four warps of a class (the warps whose blocks have one parity), 128 threads
// together (2 chunks of k and 2 of v per thread), two buffers deep. After the CTA barrier that opens the
// tile, the class's first block is copied; iteration j waits for the thread's copies, passes the class's
// named barrier (bar.sync 1 + class, 128 threads), copies block j + 1 if there is one, and runs the
// products of block j only if it is one of the warp's (otherwise the carried values pass through).
// The default stages per warp: 16 chunks per lane, one block deep, bar.warp.sync, no named barrier.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: nvvm.barrier0
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}:36 = scf.for %{{.*}} = %c0_i64 to %{{.*}} step %c1_i64 iter_args({{.*}}) -> ({{(f32, )+}}f32) : i64 {
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: }
// CHECK: %[[OWN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %{{.*}}:36 = scf.if %[[OWN]] -> ({{(f32, )+}}f32) {
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.barrier0
// CHECK: sym_name = "attention_tc"
// PER-WARP-LABEL: gpu.module @latch
// PER-WARP-NOT: nvvm.barrier id
// PER-WARP: scf.for
// PER-WARP: nvvm.bar.warp.sync
// PER-WARP-COUNT-16: nvvm.cp.async.shared.global
// PER-WARP: sym_name = "attention_tc"
func.func @attention_tc(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

// The split gradient: the statistics stage k alone (2 chunks per thread); the products' query tiles
// stage k and v, their key tiles q, do (f32, rounded to bf16 on the way: 2 vectors of 8 per thread) and
// the 32 (L, D) pairs (threads 0-15), each behind the class's named barrier.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: nvvm.cp.async.shared.global
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:4 = scf.for %{{.*}} = %c0_i64
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: func.func @task_body_1(
// CHECK: nvvm.barrier0
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %c0_i64
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK: %{{.*}}:32 = scf.if
// CHECK-COUNT-48: nvvm.mma.sync
// CHECK: %{{.*}}:64 = scf.for %{{.*}} = %c0_i64
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK-COUNT-2: nvvm.cp.async.shared.global
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: arith.cmpi slt, %{{.*}}, %c16_i64 : i64
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:64 = scf.if
// CHECK-COUNT-64: nvvm.mma.sync
// CHECK: sym_name = "attention_grad_tc"
func.func @attention_grad_tc(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %s = "task.attention_stats"(%q, %k, %o, %do) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf32>) -> tensor<1x1x64x2xf32>
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf32>, tensor<1x1x64x2xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>)
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}
