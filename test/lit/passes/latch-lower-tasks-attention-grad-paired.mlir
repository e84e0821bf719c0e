// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks)' \
// RUN:   | FileCheck %s

// The split gradient's causal tiles pair mirrored row groups (latch_attention_grad_tiles_paired: T a
// multiple of 128 and at least 1024 paired tiles): 256 heads of T = 256 give 512 query-row tiles and 512
// key-row tiles of 128 rows (2 per head each), not 1024 and 1024 of 64.
// Each tile runs two halves (a loop of 2 opened by a CTA barrier): the warp pair of slot s takes group
// p = 4 t + s in half 0 and its mirror 15 - p in half 1 (16 groups of 16 rows), so every warp sees
// about the same number of keys. Query side first, then the key side, the same placement.
// CHECK-LABEL: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c1024_i64 step %c1024_i64 : i64 {
// CHECK: %[[QUERY:.*]] = arith.cmpi slt, %[[VT]], %c512_i64 : i64
// CHECK: scf.if %[[QUERY]] {
// CHECK-NEXT: scf.for %[[HALF:.*]] = %c0_i64 to %c2_i64 step %c1_i64 : i64 {
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[SLOT:.*]] = arith.divui %[[WARP:.*]], %c2_i64 : i64
// CHECK: %[[T:.*]] = arith.remui %[[VT]], %c2_i64 : i64
// CHECK: %[[FOUR_T:.*]] = arith.muli %[[T]], %c4_i64 : i64
// CHECK: %[[PAIR:.*]] = arith.addi %[[FOUR_T]], %[[SLOT]] : i64
// CHECK: %[[MIRROR:.*]] = arith.subi %c15_i64, %[[PAIR]] : i64
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[HALF]], %c0_i64 : i64
// CHECK: %[[GROUP:.*]] = arith.select %[[FIRST]], %[[PAIR]], %[[MIRROR]] : i64
// CHECK: arith.muli %[[GROUP]], %c16_i64 : i64
// CHECK: nvvm.mma.sync
// CHECK: scf.for %[[KHALF:.*]] = %c0_i64 to %c2_i64 step %c1_i64 : i64 {
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[KEY_VT:.*]] = arith.subi %[[VT]], %c512_i64 : i64
// CHECK: arith.subi %c15_i64
// CHECK: arith.cmpi eq, %[[KHALF]], %c0_i64 : i64
// CHECK: nvvm.mma.sync
// CHECK: "task.attention_grad_from_stats"{{.*}}tiles = 1024 : i64
func.func @paired(%q: tensor<1x256x256x64xbf16>, %k: tensor<1x256x256x64xbf16>, %v: tensor<1x256x256x64xbf16>, %do: tensor<1x256x256x64xbf16>, %s: tensor<1x256x256x2xf32>) -> (tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>) {
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 0.125 : f64} : (tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>, tensor<1x256x256x2xf32>) -> (tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>)
  return %dq, %dk, %dv : tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>, tensor<1x256x256x64xbf16>
}

// -----

// One head of T = 256 would have 4 paired tiles, fewer than 1024: the tiles of 64 rows (4 + 4), no halves
// (with one wave, the paired key-row tiles would hold the interval while the query-row ones are done).
// CHECK-LABEL: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c8_i64 step %c8_i64 : i64 {
// CHECK-NOT: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64
// CHECK: "task.attention_grad_from_stats"{{.*}}tiles = 8 : i64
func.func @few(%q: tensor<1x1x256x64xbf16>, %k: tensor<1x1x256x64xbf16>, %v: tensor<1x1x256x64xbf16>, %do: tensor<1x1x256x64xbf16>, %s: tensor<1x1x256x2xf32>) -> (tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>) {
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 0.125 : f64} : (tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x2xf32>) -> (tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>)
  return %dq, %dk, %dv : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>
}

// -----

// Without the causal mask every row sees every key: tiles of 64 rows (4 + 4), no halves.
// CHECK-LABEL: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c8_i64 step %c8_i64 : i64 {
// CHECK-NOT: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64
// CHECK: "task.attention_grad_from_stats"{{.*}}tiles = 8 : i64
func.func @full(%q: tensor<1x1x256x64xbf16>, %k: tensor<1x1x256x64xbf16>, %v: tensor<1x1x256x64xbf16>, %do: tensor<1x1x256x64xbf16>, %s: tensor<1x1x256x2xf32>) -> (tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>) {
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = false, scale = 0.125 : f64} : (tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x2xf32>) -> (tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>)
  return %dq, %dk, %dv : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16>
}

// -----

// f32 operands take the warp-per-row template: paired, a tile runs two of its 64-row tiles (2 vt + half),
// of 1024 query-row tiles and 1024 key-row tiles.
// CHECK-LABEL: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c1024_i64 step %c1024_i64 : i64 {
// CHECK-NEXT: scf.for %[[HALF:.*]] = %c0_i64 to %c2_i64 step %c1_i64 : i64 {
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[TWICE:.*]] = arith.muli %[[VT]], %c2_i64 : i64
// CHECK-NEXT: %[[ROW_TILE:.*]] = arith.addi %[[TWICE]], %[[HALF]] : i64
// CHECK-NEXT: arith.cmpi slt, %[[ROW_TILE]], %c1024_i64 : i64
// CHECK: "task.attention_grad_from_stats"{{.*}}tiles = 1024 : i64
func.func @rows(%q: tensor<1x256x256x16xf32>, %k: tensor<1x256x256x16xf32>, %v: tensor<1x256x256x16xf32>, %do: tensor<1x256x256x16xf32>, %s: tensor<1x256x256x2xf32>) -> (tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>) {
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 0.25 : f64} : (tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>, tensor<1x256x256x2xf32>) -> (tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>)
  return %dq, %dk, %dv : tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>, tensor<1x256x256x16xf32>
}
