// RUN: latch-gen tinymoe | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases{place-optimizer=false},latch-split-optimizer,latch-verify)' \
// RUN:   | FileCheck %s
// RUN: latch-gen tinymoe | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases{place-optimizer=false},latch-split-optimizer{min-part-tiles=4096},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-split-optimizer{min-part-tiles=0})' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: rm -rf %t && mkdir -p %t
// RUN: latch-gen tinymoe --layers 1 --d-model 256 --heads 4 --experts 4 --ffn 1024 --vocab 1024 --batch 1 --seq 64 > %t/m.mlir
// RUN: latch-opt %t/m.mlir --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases,latch-plan-arena)' -o %t/whole.mlir
// RUN: latch-opt %t/m.mlir --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases,latch-split-optimizer{min-part-tiles=1},latch-verify,latch-plan-arena,latch-verify-arena)' -o %t/parts.mlir
// RUN: FileCheck %s --check-prefix=PARTS < %t/parts.mlir
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 3 --output-dir %t/whole
// RUN: latch-interp %t/parts.mlir --entry tinymoe_update --init 1 --random-inputs 3 --output-dir %t/parts
// RUN: diff -r %t/whole %t/parts
// latch-split-optimizer (here after latch-fuse-phases without place-optimizer, so that the steps start in
// their merged intervals) cuts each AdamW step whose results only the program returns into ranges of its
// tiles, one per later interval whose idle CTA-time (by latch_task_tile_cost_ns) holds at least
// min-part-tiles of them, in order; each part reads the one before's p, m and v. TinyMoE 2x1024: the
// head's step (2048 tiles of [512, 8192]) leaves its own interval for three later ones (156, 459 and
// 1433 tiles), and the update keeps its intervals.
// CHECK: "interval.interval"() {name = "i93.convert+1"}
// CHECK: %[[P0:.*]]:3 = "task.adamw"(%arg38, %[[G:[0-9]+]], %arg77, %arg116, %arg117) {{.*}}tile_range = array<i64: 0, 156>, tiles = 156 : i64
// CHECK: "interval.interval"() {name = "i102.matmul+1"}
// CHECK: %[[P1:.*]]:3 = "task.adamw"(%[[P0]]#0, %[[G]], %[[P0]]#1, %[[P0]]#2, %arg117) {{.*}}tile_range = array<i64: 156, 459>, tiles = 459 : i64
// CHECK: %[[P2:.*]]:3 = "task.adamw"(%[[P1]]#0, %[[G]], %[[P1]]#1, %[[P1]]#2, %arg117) {{.*}}tile_range = array<i64: 615, 1433>, tiles = 1433 : i64
// CHECK: gpu.yield {{.*}}%[[P2]]#0
// CHECK: interval.intervals_after = 177 : i64
// With parts of at least 4096 tiles nothing fits anywhere: no step is cut or moved.
// NONE-NOT: tile_range
// ERR: error: latch-split-optimizer: min-part-tiles must be at least 1
// A smaller TinyMoE with parts of any size: steps cut into parts that start past tile 0, planned in the
// arena, give bitwise the update of the whole steps in latch-interp (every result: parameters, moments,
// loss).
// PARTS: "task.adamw"(%{{[0-9]+}}#0, %{{[0-9]+}}, %{{[0-9]+}}#1, %{{[0-9]+}}#2, {{.*}}tile_range = array<i64: {{[1-9][0-9]*}},
module {}
