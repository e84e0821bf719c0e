// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' 2>/dev/null \
// RUN:   | FileCheck %s
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-plan-arena,latch-lower-tasks)' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=ERR
// latch-lower-tasks on AdamW steps over tile ranges (tile_range, latch-split-optimizer): the part over tiles
// 1 .. 3 of 8192 elements runs its tile t as the whole step's tile t + 1 (vector units of 4: 512 a tile, up
// to the range's end), the part over tile 0 as tile 0; both write over the program's p, m and v (the second
// part's operands are the first's results, which locate follows to the arguments).
// CHECK-LABEL: func.func @task_body_0(
// CHECK: %[[T0:.*]] = arith.extui %arg0 : i32 to i64
// CHECK-NEXT: scf.for %{{.*}} = %[[T0]] to %c1_i64 step %c1_i64 : i64 {
// CHECK-LABEL: func.func @task_body_1(
// CHECK: %[[T1:.*]] = arith.extui %arg0 : i32 to i64
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[T1]], %c1_i64 : i64
// CHECK-NEXT: scf.for %{{.*}} = %[[F]] to %c4_i64 step %c3_i64 : i64 {
// CHECK: "task.adamw"(%arg0, %arg1, %arg2, %arg3, %arg4) {{.*}}tile_range = array<i64: 0, 1>, tiles = 1 : i64
// CHECK: "task.adamw"(%{{.*}}#0, %arg1, %{{.*}}#1, %{{.*}}#2, %arg4) {{.*}}tile_range = array<i64: 1, 3>, tiles = 3 : i64
func.func @parts(
    %p: tensor<8192xf32> {task.name = "p"},
    %g: tensor<8192xf32> {task.name = "g"},
    %m: tensor<8192xf32> {task.name = "m"},
    %v: tensor<8192xf32> {task.name = "v"},
    %t: tensor<f32> {task.name = "t"})
    -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>) {
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %t)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64,
       tile_range = array<i64: 0, 1>}
      : (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<f32>)
      -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>)
  %p2, %m2, %v2 = "task.adamw"(%p1, %g, %m1, %v1, %t)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64,
       tile_range = array<i64: 1, 3>}
      : (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<f32>)
      -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>)
  return %p2, %m2, %v2 : tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>
}

// -----

// A range past the step's tiles is an error (without latch-verify too).
// ERR: [[@LINE+8]]:{{[0-9]+}}: error: latch-lower-tasks: task.adamw's tile_range must be [first, count] of its 2048-element tiles
func.func @beyond(
    %p: tensor<8192xf32> {task.name = "p"},
    %g: tensor<8192xf32> {task.name = "g"},
    %m: tensor<8192xf32> {task.name = "m"},
    %v: tensor<8192xf32> {task.name = "v"},
    %t: tensor<f32> {task.name = "t"})
    -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>) {
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %t)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64,
       tile_range = array<i64: 3, 2>}
      : (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<f32>)
      -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>)
  return %p1, %m1, %v1 : tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>
}
