// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{l2-evict-first=true})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s --check-prefix=DEFAULT

// latch-lower-tasks{l2-evict-first}: every task's global loads and stores are inline PTX
// ld/st.global.L2::cache_hint of the access's raw bits under a createpolicy evict_first policy (LLVM 22's
// NVPTX backend has no cache-hinted access), so that no task's data evicts the kernel's code from L2
// (docs/benchmarks.md, rounds twenty-six and twenty-seven); cp.async copies stay plain. The values are the
// same; the default keeps plain loads and stores.
// The product: operands staged by plain cp.async, the accumulators stored as f32 pairs.
// CHECK-LABEL: func.func @task_body_0(
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[PAIR:.*]] = llvm.bitcast %{{.*}} : vector<2xf32> to vector<2xi32>
// CHECK: llvm.extractelement %[[PAIR]]
// CHECK: %[[POLICY:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK: llvm.inline_asm has_side_effects "st.global.L2::cache_hint.v2.b32 [$0], {$1, $2}, $3;", "l,r,r,l,~{memory}"
// CHECK-SAME: %[[POLICY]] : (!llvm.ptr<1>, i32, i32, i64) -> !llvm.void
// CHECK-NOT: llvm.store %{{.*}} !llvm.ptr<1>
// CHECK: return
// The map by vectors: 16-byte loads and stores as four 32-bit registers, bitcast from and to vector<4xf32>.
// CHECK-LABEL: func.func @task_body_1(
// CHECK: %[[RAW:.*]] = llvm.inline_asm has_side_effects "ld.global.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;", "=r,=r,=r,=r,l,l"
// CHECK-SAME: : (!llvm.ptr<1>, i64) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.extractvalue %[[RAW]][3]
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: llvm.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: llvm.inline_asm has_side_effects "st.global.L2::cache_hint.v4.b32 [$0], {$1, $2, $3, $4}, $5;", "l,r,r,r,r,l,~{memory}"
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK: return
// DEFAULT-LABEL: func.func @task_body_0(
// DEFAULT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// DEFAULT-NOT: llvm.inline_asm
// DEFAULT: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// DEFAULT-LABEL: func.func @task_body_1(
// DEFAULT-NOT: llvm.inline_asm
// DEFAULT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// DEFAULT: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @product_then_map(%a: tensor<128x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<128x128xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<128x256xbf16>, tensor<256x128xbf16>) -> tensor<128x128xf32>
  %d = "task.map"(%c, %c) ({
  ^bb0(%x: f32, %z: f32):
    %s = arith.mulf %x, %z : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}
