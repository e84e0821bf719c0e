// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{map-evict-first=true})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s --check-prefix=DEFAULT

// latch-lower-tasks{map-evict-first}: a map by vectors loads and stores its vectors through inline PTX
// evict-first in L2 (createpolicy, .L2::cache_hint), as adamw-evict-first does for AdamW (docs/benchmarks.md, round
// twenty-six); the default keeps plain vector loads and stores.
// CHECK-LABEL: func.func @task_body_0(
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "ld.global.L2::cache_hint.v4.b32
// CHECK: llvm.inline_asm has_side_effects "st.global.L2::cache_hint.v4.b32
// CHECK: return
// DEFAULT-LABEL: func.func @task_body_0(
// DEFAULT-NOT: llvm.inline_asm
// DEFAULT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
func.func @add(%a: tensor<1024xf32> {task.name = "a"}, %b: tensor<1024xf32> {task.name = "b"}) -> tensor<1024xf32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%x: f32, %z: f32):
    %s = arith.addf %x, %z : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}
