// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-plan-arena,latch-verify-arena)' \
// RUN:   2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR --implicit-check-not=error: < %t.err
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-plan-arena{in-place=false},latch-verify-arena)' \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=NOINPLACE
// The small TinyMoE update, planned and then checked by latch-verify-arena (no diagnostics):
// RUN: latch-gen tinymoe --layers 1 --d-model 64 --heads 4 --experts 4 --ffn 128 --vocab 256 --batch 2 --seq 16 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-plan-arena,latch-verify-arena)' \
// RUN:   2>%t.moe.err | FileCheck %s --check-prefix=MOE
// RUN: count 0 < %t.moe.err
// RUN: latch-gen tinymoe --layers 1 --d-model 64 --heads 4 --experts 4 --ffn 128 --vocab 256 --batch 2 --seq 16 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-plan-arena{in-place=false},latch-verify-arena)' \
// RUN:   | FileCheck %s --check-prefix=MOE-NOINPLACE
//
// latch-plan-arena binds every tensor value that is not external (program arguments and constants are)
// into a slot of one arena (256-byte alignment): arena.arena and the slots go after the constants, before
// the first interval; each arena.bind right after the op that defines its value. A map, convert or
// reshape result is written over a same-size input that dies at that task (in place), so a slot may have
// several writers and is live from its earliest writer to its last reader. A reshape of a task's result is
// a view: bound over its input, tiles = 0, the two one storage that lives until the last read of either.
// Offsets come from best-fit packing over those lifetimes; `lower_bound` is the most bytes live in one
// interval.

// A chain of elementwise maps, each written over its dying input: one slot, live from interval 0 (the
// first writer) to interval 3 (the end, where %c is yielded).
// CHECK-LABEL: "interval.program"
// CHECK: %[[ARENA:.*]] = "arena.arena"() {alignment = 256 : i64, lower_bound = 64 : i64, size = 256 : i64} : () -> memref<256xi8>
// CHECK-NEXT: %[[S:.*]] = "arena.slot"(%[[ARENA]]) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64} : (memref<256xi8>) -> memref<64xi8>
// CHECK-NEXT: "interval.interval"() {name = "i0"}
// CHECK: %[[A:.*]] = "task.map"
// CHECK: "arena.bind"(%[[A]], %[[S]]) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
// CHECK-NEXT: "interval.barrier"
// CHECK: %[[B:.*]] = "task.map"(%[[A]])
// CHECK: "arena.bind"(%[[B]], %[[S]]) {offset = 0 : i64}
// CHECK: %[[C:.*]] = "task.map"(%[[B]], %{{.*}})
// CHECK: "arena.bind"(%[[C]], %[[S]]) {offset = 0 : i64}
// CHECK-NEXT: gpu.yield %[[C]]
// CHECK: sym_name = "chain"
// Without in-place writes, three slots; %a and %c share bytes (live 0..1 and 2..3).
// NOINPLACE-LABEL: "interval.program"
// NOINPLACE: "arena.arena"() {alignment = 256 : i64, lower_bound = 128 : i64, size = 512 : i64}
// NOINPLACE-NEXT: %[[S0:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// NOINPLACE-NEXT: %[[S1:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 64 : i64}
// NOINPLACE-NEXT: %[[S2:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// NOINPLACE: "arena.bind"(%{{.*}}, %[[S0]])
// NOINPLACE: "arena.bind"(%{{.*}}, %[[S1]])
// NOINPLACE: "arena.bind"(%{{.*}}, %[[S2]])
// NOINPLACE: sym_name = "chain"
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.map"(%a) ({
  ^bb0(%e: f32):
    %n = arith.addf %e, %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %c = "task.map"(%b, %x) ({
  ^bb0(%e: f32, %f: f32):
    %n = arith.mulf %e, %f : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %c : tensor<16xf32>
}) {sym_name = "chain", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// %a is read again in interval 2, so %b (interval 1) gets a slot of its own; %c is written over %a, the
// first of its inputs that dies with it (%b dies there too).
// CHECK-LABEL: "interval.program"
// CHECK: "arena.arena"() {alignment = 256 : i64, lower_bound = 128 : i64, size = 512 : i64}
// CHECK-NEXT: %[[SA:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[SB:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 64 : i64}
// CHECK: %[[A:.*]] = "task.map"
// CHECK: "arena.bind"(%[[A]], %[[SA]]) {offset = 0 : i64}
// CHECK: %[[B:.*]] = "task.map"(%[[A]])
// CHECK: "arena.bind"(%[[B]], %[[SB]]) {offset = 0 : i64}
// CHECK: %[[C:.*]] = "task.map"(%[[A]], %[[B]])
// CHECK: "arena.bind"(%[[C]], %[[SA]]) {offset = 0 : i64}
// CHECK: sym_name = "live_input"
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.map"(%a) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %c = "task.map"(%a, %b) ({
  ^bb0(%e: f32, %f: f32):
    %n = arith.addf %e, %f : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %c : tensor<16xf32>
}) {sym_name = "live_input", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// Two tasks of one interval read %a: they run concurrently, so neither may write over it. %d is written
// over %b, its first input, which dies with it. Slots of equal size are placed in order of lifetime.
// CHECK-LABEL: "interval.program"
// CHECK: "arena.arena"() {alignment = 256 : i64, lower_bound = 192 : i64, size = 768 : i64}
// CHECK-NEXT: %[[SA:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[SB:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 512 : i64, size = 64 : i64}
// CHECK-NEXT: %[[SC:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 64 : i64}
// CHECK: %[[A:.*]] = "task.map"
// CHECK: "arena.bind"(%[[A]], %[[SA]])
// CHECK: %[[B:.*]] = "task.map"(%[[A]])
// CHECK: "arena.bind"(%[[B]], %[[SB]])
// CHECK: %[[C:.*]] = "task.map"(%[[A]])
// CHECK: "arena.bind"(%[[C]], %[[SC]])
// CHECK: %[[D:.*]] = "task.map"(%[[B]], %[[C]])
// CHECK: "arena.bind"(%[[D]], %[[SB]])
// CHECK: sym_name = "concurrent_readers"
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.map"(%a) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  %c = "task.map"(%a) ({
  ^bb0(%e: f32):
    %n = arith.addf %e, %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %d = "task.map"(%b, %c) ({
  ^bb0(%e: f32, %f: f32):
    %n = arith.addf %e, %f : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %d : tensor<16xf32>
}) {sym_name = "concurrent_readers", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// A view: %v is %a's bytes (tiles = 0) although %a is read after it (by %m); the storage lives until the
// last read of either, so %m (interval 2) may not write over it and takes a slot of its own, while %n
// (interval 3), the storage's only last reader, writes over it. %r, a reshape of a program argument, is a
// copy into a slot of its own and keeps its tiles.
// CHECK-LABEL: "interval.program"
// CHECK: "arena.arena"() {alignment = 256 : i64, lower_bound = 192 : i64, size = 768 : i64}
// CHECK-NEXT: %[[S0:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[S1:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 64 : i64}
// CHECK-NEXT: %[[S2:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 512 : i64, size = 64 : i64}
// CHECK: %[[A:.*]] = "task.map"
// CHECK: "arena.bind"(%[[A]], %[[S0]]) {offset = 0 : i64} : (tensor<16xf32>
// CHECK: %[[V:.*]] = "task.reshape"(%[[A]]) {tiles = 0 : i64}
// CHECK-NEXT: "arena.bind"(%[[V]], %[[S0]]) {offset = 0 : i64} : (tensor<4x4xf32>
// CHECK-NEXT: %[[R:.*]] = "task.reshape"(%{{.*}}) {tiles = 1 : i64}
// CHECK-NEXT: "arena.bind"(%[[R]], %[[S1]])
// CHECK: %[[M:.*]] = "task.map"(%[[A]])
// CHECK: "arena.bind"(%[[M]], %[[S2]])
// CHECK: %[[N:.*]] = "task.map"(%[[V]])
// CHECK: "arena.bind"(%[[N]], %[[S0]])
// CHECK: sym_name = "views"
// Without in-place writes %n takes a fourth slot; %v is still a view.
// NOINPLACE-LABEL: "interval.program"
// NOINPLACE: "arena.arena"() {alignment = 256 : i64, lower_bound = 256 : i64, size = 1024 : i64}
// NOINPLACE: %[[V:.*]] = "task.reshape"(%{{.*}}) {tiles = 0 : i64}
// NOINPLACE: sym_name = "views"
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %v = "task.reshape"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<4x4xf32>
  %r = "task.reshape"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<4x4xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %m = "task.map"(%a) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i3"} : () -> ()
  %n = "task.map"(%v) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  gpu.yield %m, %n, %r : tensor<16xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}) {sym_name = "views", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<4x4xf32>, tensor<4x4xf32>)} : () -> ()

// -----

// task.convert to a dtype of the same size writes over its dying input and task.reshape is a view of its
// input (its bytes, tiles = 0); a convert to bf16 (half the bytes) and a matmul (which reads whole rows of
// %c) do not write over theirs.
// CHECK-LABEL: "interval.program"
// CHECK: %[[S0:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[S1:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 32 : i64}
// CHECK-NEXT: %[[S2:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: "interval.interval"
// CHECK: %[[A:.*]] = "task.map"
// CHECK: "arena.bind"(%[[A]], %[[S0]]) {offset = 0 : i64} : (tensor<16xf32>
// CHECK: %[[B:.*]] = "task.convert"(%[[A]])
// CHECK-NEXT: "arena.bind"(%[[B]], %[[S0]]) {offset = 0 : i64} : (tensor<16xi32>
// CHECK: %[[C:.*]] = "task.reshape"(%[[B]]) {tiles = 0 : i64}
// CHECK-NEXT: "arena.bind"(%[[C]], %[[S0]]) {offset = 0 : i64} : (tensor<4x4xi32>
// CHECK: %[[D:.*]] = "task.convert"(%[[C]])
// CHECK-NEXT: "arena.bind"(%[[D]], %[[S1]]) {offset = 0 : i64} : (tensor<4x4xbf16>
// CHECK: %[[E:.*]] = "task.matmul"(%[[D]], %{{.*}})
// CHECK-NEXT: "arena.bind"(%[[E]], %[[S2]]) {offset = 0 : i64} : (tensor<4x4xf32>
// CHECK: sym_name = "convert_reshape"
"interval.program"() ({
^bb0(%x: tensor<16xf32>, %w: tensor<4x4xbf16>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.convert"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xi32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %c = "task.reshape"(%b) {tiles = 1 : i64} : (tensor<16xi32>) -> tensor<4x4xi32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i3"} : () -> ()
  %d = "task.convert"(%c) {tiles = 1 : i64} : (tensor<4x4xi32>) -> tensor<4x4xbf16>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i4"} : () -> ()
  %e = "task.matmul"(%d, %w) {tiles = 1 : i64, transpose_a = false, transpose_b = false} : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xf32>
  gpu.yield %e : tensor<4x4xf32>
}) {sym_name = "convert_reshape", function_type = (tensor<16xf32>, tensor<4x4xbf16>) -> tensor<4x4xf32>} : () -> ()

// -----

// A map with two results over two inputs that both die with it: each result takes one input's bytes.
// CHECK-LABEL: "interval.program"
// CHECK: %[[SA:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK-NEXT: %[[SB:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 64 : i64}
// CHECK-NEXT: "interval.interval"
// CHECK: %[[R:.*]]:2 = "task.map"
// CHECK: gpu.yield
// CHECK-NEXT: }) {operandSegmentSizes
// CHECK-NEXT: "arena.bind"(%[[R]]#0, %[[SA]]) {offset = 0 : i64}
// CHECK-NEXT: "arena.bind"(%[[R]]#1, %[[SB]]) {offset = 0 : i64}
// CHECK-NEXT: gpu.yield
// CHECK: sym_name = "two_results"
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  %b = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.addf %e, %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %s, %d = "task.map"(%a, %b) ({
  ^bb0(%e: f32, %f: f32):
    %n = arith.addf %e, %f : f32
    %m = arith.subf %e, %f : f32
    gpu.yield %n, %m : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  gpu.yield %s, %d : tensor<16xf32>, tensor<16xf32>
}) {sym_name = "two_results", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)} : () -> ()

// -----

// Best fit: the slots are placed largest first. %t (live 2..3) may not share bytes with %s0, %s2 and %s4
// (yielded, live 0..3); of the two gaps between them, [1024, 1792) and [2304, 2816), it takes the smaller.
// %s1 and %s3 die in interval 1; the two tiny reductions read them there and go above the rest.
// CHECK-LABEL: "interval.program"
// CHECK: "arena.arena"() {alignment = 256 : i64, lower_bound = 2952 : i64, size = 3584 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 1024 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 1024 : i64, size = 768 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 1792 : i64, size = 512 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 2304 : i64, size = 384 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 2816 : i64, size = 256 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 3072 : i64, size = 4 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 3328 : i64, size = 4 : i64}
// CHECK-NEXT: "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 2304 : i64, size = 256 : i64}
// CHECK: sym_name = "best_fit"
"interval.program"() ({
^bb0(%x0: tensor<256xf32>, %x1: tensor<192xf32>, %x2: tensor<128xf32>, %x3: tensor<96xf32>, %x4: tensor<64xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %s0 = "task.map"(%x0) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %s1 = "task.map"(%x1) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<192xf32>) -> tensor<192xf32>
  %s2 = "task.map"(%x2) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<128xf32>) -> tensor<128xf32>
  %s3 = "task.map"(%x3) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<96xf32>) -> tensor<96xf32>
  %s4 = "task.map"(%x4) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<64xf32>) -> tensor<64xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %r1 = "task.reduce"(%s1) {axis = 0 : i64, kind = "sum", tiles = 1 : i64} : (tensor<192xf32>) -> tensor<f32>
  %r3 = "task.reduce"(%s3) {axis = 0 : i64, kind = "sum", tiles = 1 : i64} : (tensor<96xf32>) -> tensor<f32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %t = "task.map"(%x4) ({
  ^bb0(%e: f32):
    %n = arith.addf %e, %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<64xf32>) -> tensor<64xf32>
  gpu.yield %s0, %s2, %s4, %t, %r1, %r3 : tensor<256xf32>, tensor<128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>
}) {sym_name = "best_fit", function_type = (tensor<256xf32>, tensor<192xf32>, tensor<128xf32>, tensor<96xf32>, tensor<64xf32>) -> (tensor<256xf32>, tensor<128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>)} : () -> ()

// -----

// Multi-result ops get one bind per result, in result order, right after the op; constants are external
// (never bound) and stay before the arena; a value nobody reads is still written, so it is bound and live
// in its own interval (%dead, live 2..2, shares bytes with %a, live 0..1).
// CHECK-LABEL: "interval.program"
// CHECK: ^bb0(%[[X:.*]]: tensor<8x4xf32>):
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<1.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT: "arena.arena"() {alignment = 256 : i64, lower_bound = 256 : i64, size = 768 : i64}
// CHECK-NEXT: %[[SA:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 128 : i64}
// CHECK-NEXT: %[[SV:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 256 : i64, size = 64 : i64}
// CHECK-NEXT: %[[SI:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 512 : i64, size = 64 : i64}
// CHECK-NEXT: %[[SD:.*]] = "arena.slot"({{.*}}) {alignment = 256 : i64, offset = 0 : i64, size = 128 : i64}
// CHECK-NEXT: "interval.interval"
// CHECK-NEXT: %[[A:.*]] = "task.map"(%[[X]], %[[CST]])
// CHECK: "arena.bind"(%[[A]], %[[SA]])
// CHECK: %[[TOP:.*]]:2 = "task.topk"(%[[A]])
// CHECK-NEXT: "arena.bind"(%[[TOP]]#0, %[[SV]]) {offset = 0 : i64} : (tensor<8x2xf32>, memref<64xi8>) -> ()
// CHECK-NEXT: "arena.bind"(%[[TOP]]#1, %[[SI]]) {offset = 0 : i64} : (tensor<8x2xi32>, memref<64xi8>) -> ()
// CHECK: %[[DEAD:.*]] = "task.map"(%[[X]])
// CHECK: "arena.bind"(%[[DEAD]], %[[SD]])
// CHECK-NOT: "arena.bind"
// CHECK: gpu.yield %[[TOP]]#0, %[[TOP]]#1
// CHECK: sym_name = "results_constants_dead"
"interval.program"() ({
^bb0(%x: tensor<8x4xf32>):
  %one = arith.constant dense<1.0> : tensor<8x4xf32>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.map"(%x, %one) ({
  ^bb0(%e: f32, %f: f32):
    %n = arith.addf %e, %f : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %v, %i = "task.topk"(%a) {k = 2 : i64, tiles = 1 : i64} : (tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi32>)
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %dead = "task.map"(%x) ({
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  gpu.yield %v, %i : tensor<8x2xf32>, tensor<8x2xi32>
}) {sym_name = "results_constants_dead", function_type = (tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi32>)} : () -> ()

// -----

// A program without tasks: an empty arena, before the terminator.
// CHECK-LABEL: "interval.program"
// CHECK: "arena.arena"() {alignment = 256 : i64, lower_bound = 0 : i64, size = 0 : i64} : () -> memref<0xi8>
// CHECK-NEXT: gpu.yield
// CHECK: sym_name = "empty"
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  gpu.yield %x : tensor<16xf32>
}) {sym_name = "empty", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// Errors. A program is planned once.
// ERR: latch-plan-arena.mlir:[[@LINE+3]]:12: error: latch-plan-arena: the program already has an arena plan
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 0 : i64, alignment = 256 : i64} : () -> memref<0xi8>
  gpu.yield %x : tensor<16xf32>
}) {sym_name = "planned", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// A value must have a static shape to be sized.
"interval.program"() ({
^bb0(%x: tensor<?xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  // ERR: latch-plan-arena.mlir:[[@LINE+1]]:8: error: latch-plan-arena: cannot size this result (a static shape and an integer or float element type are needed)
  %a = "task.convert"(%x) {tiles = 1 : i64} : (tensor<?xf32>) -> tensor<?xi32>
  gpu.yield %a : tensor<?xi32>
}) {sym_name = "dynamic", function_type = (tensor<?xf32>) -> tensor<?xi32>} : () -> ()

// The small TinyMoE update. AdamW results are external (written in place over the parameters and their
// m and v), so only the loss is bound among the results, and the peak is in the forward and backward
// intervals: 608,788 bytes live at once; the arena is 642,560 bytes (1.055 x the lower bound). The
// embedding's reshape is a view of the embedding (its bytes: one slot, and no tiles).
// MOE-LABEL: "interval.program"() ({
// MOE: "arena.arena"() {alignment = 256 : i64, lower_bound = 608788 : i64, size = 642560 : i64} : () -> memref<642560xi8>
// MOE: "interval.interval"() {name = "i0.embedding"}
// MOE-NEXT: %[[E:[0-9]+]] = "task.embedding"
// MOE-NEXT: "arena.bind"(%[[E]], %[[S:[0-9]+]]) {offset = 0 : i64} : (tensor<2x16x64xf32>, memref<8192xi8>) -> ()
// MOE: %[[R:[0-9]+]] = "task.reshape"(%[[E]]) {tiles = 0 : i64}
// MOE-NEXT: "arena.bind"(%[[R]], %[[S]]) {offset = 0 : i64} : (tensor<32x64xf32>, memref<8192xi8>) -> ()
// MOE: %[[P:[0-9]+]]:3 = "task.adamw"
// MOE-NOT: "arena.bind"(%[[P]]
// MOE: gpu.yield
// MOE: sym_name = "tinymoe_update"
// Without in-place writes: one slot per value but views (the embedding's reshape is the embedding's bytes,
// tiles = 0); the peak holds more (the in-place chains no longer share).
// MOE-NOINPLACE-LABEL: "interval.program"() ({
// MOE-NOINPLACE: "arena.arena"() {alignment = 256 : i64, lower_bound = 625172 : i64, size = 658944 : i64}
// MOE-NOINPLACE: %[[E:[0-9]+]] = "task.embedding"
// MOE-NOINPLACE-NEXT: "arena.bind"(%[[E]], %[[S:[0-9]+]])
// MOE-NOINPLACE: %[[R:[0-9]+]] = "task.reshape"(%[[E]]) {tiles = 0 : i64}
// MOE-NOINPLACE-NEXT: "arena.bind"(%[[R]], %[[S]])
// MOE-NOINPLACE-NOT: %[[S]])
// MOE-NOINPLACE: gpu.yield
