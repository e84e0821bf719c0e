// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{adamw-evict-first=true})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s --check-prefix=DEFAULT

// latch-lower-tasks{adamw-evict-first}: an AdamW step by vectors loads p, g, m, v and stores p, m, v through
// inline PTX evict-first in L2 (createpolicy, .L2::cache_hint; LLVM 22 has no such access), so that the
// optimizer's stream does not evict the kernel's code from L2 (docs/benchmarks.md, round twenty-six). The
// values are the same; the default keeps plain vector loads and stores.
// CHECK-LABEL: func.func @task_body_0(
// CHECK: llvm.inline_asm "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK: llvm.inline_asm has_side_effects "ld.global.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;"
// CHECK-SAME: -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.inline_asm has_side_effects "st.global.L2::cache_hint.v4.b32 [$0], {$1, $2, $3, $4}, $5;"
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: return
// DEFAULT-LABEL: func.func @task_body_0(
// DEFAULT-NOT: llvm.inline_asm
// DEFAULT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// DEFAULT: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @adamw(
    %p: tensor<512xf32> {task.name = "p"},
    %g: tensor<512xf32> {task.name = "g"},
    %m: tensor<512xf32> {task.name = "m"},
    %v: tensor<512xf32> {task.name = "v"},
    %t: tensor<f32> {task.name = "t"})
    -> (tensor<512xf32>, tensor<512xf32>, tensor<512xf32>) {
  %p2, %m2, %v2 = "task.adamw"(%p, %g, %m, %v, %t)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64}
      : (tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<f32>)
      -> (tensor<512xf32>, tensor<512xf32>, tensor<512xf32>)
  return %p2, %m2, %v2 : tensor<512xf32>, tensor<512xf32>, tensor<512xf32>
}
