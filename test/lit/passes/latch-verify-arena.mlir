// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify-arena)' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --implicit-check-not=error:
// The planted defects: buffers with several writers whose lifetime must start at the EARLIEST writer.
// RUN: not latch-opt %S/Inputs/defect-accumulated-gradient.mlir --pass-pipeline='builtin.module(latch-verify-arena)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRADIENT --implicit-check-not=error:
// RUN: not latch-opt %S/Inputs/defect-packed-buffer.mlir --pass-pipeline='builtin.module(latch-verify-arena)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PACKED --implicit-check-not=error:
//
// latch-verify-arena recomputes every slot's lifetime from the IR (the interval of its earliest writer to
// the interval of its last reader; gpu.yield reads at the end, interval_count) and checks the plan: one
// case per rule below, each CHECK pinning the message and its line; --implicit-check-not makes any other
// error fail the test (the valid plans must give none).

// The accumulated gradient (Inputs/defect-accumulated-gradient.mlir): %g2 is written over %g1 in
// interval 3, but %sg's first writer is %g1 in interval 1, so %sg is live 1..4 and meets %st (live 2..2).
// GRADIENT: defect-accumulated-gradient.mlir:14:11: error: latch-verify-arena: slot 1 (bytes [0, 64), live in intervals 1..4) and slot 2 (bytes [0, 64), live in intervals 2..2) share bytes [0, 64) while both are live in interval 2

// The packed buffer (Inputs/defect-packed-buffer.mlir): %p1 is written into %sp in interval 2, but %p0
// was written there in interval 0, so %sp is live 0..3 and meets %st (live 1..1).
// PACKED: defect-packed-buffer.mlir:13:11: error: latch-verify-arena: slot 0 (bytes [0, 128), live in intervals 0..3) and slot 1 (bytes [0, 64), live in intervals 1..1) share bytes [0, 64) while both are live in interval 1

// A valid plan with a slot of several writers: %b is written over %a by %a's only (last) reader (in
// place); %s0 is live 0..3 (%b is yielded), so %c, live 2..3, has bytes of its own.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<512xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.convert"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xi32>
  "arena.bind"(%b, %s0) {offset = 0 : i64} : (tensor<16xi32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %c = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%c, %s1) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %b, %c : tensor<16xi32>, tensor<16xf32>
}) {sym_name = "in_place", function_type = (tensor<16xf32>) -> (tensor<16xi32>, tensor<16xf32>)} : () -> ()

// -----

// A valid packed buffer: %p0 and %p1 at disjoint offsets of %sp (live 0..2); %sz shares the bytes of %sp
// after it (live 3..4).
"interval.program"() ({
^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 192 : i64} : () -> memref<512xi8>
  %sp = "arena.slot"(%arena) {offset = 0 : i64, size = 128 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<128xi8>
  %sr = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  %sz = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %p0 = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%p0, %sp) {offset = 0 : i64} : (tensor<16xf32>, memref<128xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %p1 = "task.softmax"(%y) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%p1, %sp) {offset = 64 : i64} : (tensor<16xf32>, memref<128xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %r = "task.map"(%p0, %p1) ({
  ^bb0(%e: f32, %f: f32):
    %n = arith.addf %e, %f : f32
    gpu.yield %n : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%r, %sr) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i3"} : () -> ()
  %z = "task.softmax"(%r) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%z, %sz) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %z : tensor<16xf32>
}) {sym_name = "packed", function_type = (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// Two slots over the same bytes, both live in interval 1: %a (live 0..1) and %b (live 1..2).
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<256xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:9: error: latch-verify-arena: slot 0 (bytes [0, 64), live in intervals 0..1) and slot 1 (bytes [0, 64), live in intervals 1..2) share bytes [0, 64) while both are live in interval 1
  %s1 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.softmax"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%b, %s1) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %b : tensor<16xf32>
}) {sym_name = "slots_overlap", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// Within one slot: %b is written over %a in interval 1, but %c still reads %a in interval 2.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<512xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.softmax"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: values of slot 0 share bytes [0, 64) while both are live: 'task.softmax' result 0 (written in interval 0) is read until interval 2, when 'task.softmax' result 0 (written in interval 1) is written by a task that is not its only last reader
  "arena.bind"(%b, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %c = "task.convert"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xbf16>
  "arena.bind"(%c, %s1) {offset = 0 : i64} : (tensor<16xbf16>, memref<64xi8>) -> ()
  gpu.yield %b, %c : tensor<16xf32>, tensor<16xbf16>
}) {sym_name = "read_after_overwrite", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>)} : () -> ()

// -----

// Within one slot: %b is written over %a by one of %a's last readers, but another task of the same
// interval (running concurrently) reads %a too.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<512xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %b = "task.softmax"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: values of slot 0 share bytes [0, 64) while both are live: 'task.softmax' result 0 (written in interval 0) is read until interval 1, when 'task.softmax' result 0 (written in interval 1) is written by a task that is not its only last reader
  "arena.bind"(%b, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  %c = "task.convert"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xbf16>
  "arena.bind"(%c, %s1) {offset = 0 : i64} : (tensor<16xbf16>, memref<64xi8>) -> ()
  gpu.yield %b, %c : tensor<16xf32>, tensor<16xbf16>
}) {sym_name = "concurrent_reader", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>)} : () -> ()

// -----

// Within one slot: two values written in the same interval over the same bytes.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  %b = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xbf16>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: values of slot 0 share bytes [0, 32) while both are live: 'task.softmax' result 0 (written in interval 0) is read until interval 1, when 'task.convert' result 0 (written in interval 0) is written by a task that is not its only last reader
  "arena.bind"(%b, %s0) {offset = 0 : i64} : (tensor<16xbf16>, memref<64xi8>) -> ()
  gpu.yield %a, %b : tensor<16xf32>, tensor<16xbf16>
}) {sym_name = "same_interval", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>)} : () -> ()

// -----

// A value bound twice, a program argument bound, a bind outside its slot.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 1024 : i64, alignment = 256 : i64, lower_bound = 0 : i64} : () -> memref<1024xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<1024xi8>) -> memref<64xi8>
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<1024xi8>) -> memref<64xi8>
  %s2 = "arena.slot"(%arena) {offset = 512 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<1024xi8>) -> memref<64xi8>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: arena.bind binds an external value (a program argument or constant); those live outside the arena
  "arena.bind"(%x, %s2) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.interval"() {name = "i0"} : () -> ()
  %b = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%b, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: 'task.softmax' result 0 (written in interval 0) is bound more than once (already to slot 0 at offset 0)
  "arena.bind"(%b, %s1) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  %c = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: 'task.softmax' result 0 (written in interval 0) (64 bytes at offset 32) does not fit in slot 1 of 64 bytes
  "arena.bind"(%c, %s1) {offset = 32 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %b, %c : tensor<16xf32>, tensor<16xf32>
}) {sym_name = "binds", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)} : () -> ()

// -----

// A value that is not bound (a constant is external and needs no bind).
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%one) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:8: error: latch-verify-arena: 'task.softmax' result 0 (written in interval 1) is not bound to any arena slot
  %b = "task.softmax"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %b : tensor<16xf32>
}) {sym_name = "unbound", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// A bind whose slot is not an arena.slot, and one of a value without a static shape.
"interval.program"() ({
^bb0(%x: tensor<?xf32>, %m: memref<64xi8>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 0 : i64} : () -> memref<256xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: arena.bind binds a value whose byte size is unknown (not a static tensor of sized elements)
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<?xf32>, memref<64xi8>) -> ()
  %b = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: arena.bind must name an arena.slot of this program as its slot
  "arena.bind"(%b, %m) {offset = 0 : i64} : (tensor<?xf32>, memref<64xi8>) -> ()
  gpu.yield
}) {sym_name = "bad_binds", function_type = (tensor<?xf32>, memref<64xi8>) -> ()} : () -> ()

// -----

// Slots: one not aligned, one outside the arena, one not taken from the program's arena.
"interval.program"() ({
^bb0(%x: tensor<16xf32>, %m: memref<1024xi8>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 0 : i64} : () -> memref<512xi8>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:9: error: latch-verify-arena: slot 0 offset 128 is not a multiple of its alignment 256 (a power of two)
  %s0 = "arena.slot"(%arena) {offset = 128 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:9: error: latch-verify-arena: slot 1 (bytes [256, 768)) does not fit in the arena of 512 bytes
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 512 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<512xi8>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:9: error: latch-verify-arena: slot 2 is not a slot of the program's arena.arena
  %s2 = "arena.slot"(%m) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<1024xi8>) -> memref<64xi8>
  gpu.yield
}) {sym_name = "bad_slots", function_type = (tensor<16xf32>, memref<1024xi8>) -> ()} : () -> ()

// -----

// A program has exactly one arena.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 0 : i64, alignment = 256 : i64, lower_bound = 0 : i64} : () -> memref<0xi8>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:11: error: latch-verify-arena: a program has one arena.arena; this is a second one
  %more = "arena.arena"() {size = 0 : i64, alignment = 256 : i64, lower_bound = 0 : i64} : () -> memref<0xi8>
  gpu.yield
}) {sym_name = "two_arenas", function_type = (tensor<16xf32>) -> ()} : () -> ()

// -----

// CHECK: latch-verify-arena.mlir:[[@LINE+1]]:1: error: latch-verify-arena: the program has no arena.arena (run latch-plan-arena first)
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %a : tensor<16xf32>
}) {sym_name = "unplanned", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// -----

// A valid view: %v, a reshape bound exactly over %a, is %a's bytes; the storage's last reader %n (interval
// 2) writes over it in place. %m reads %a in interval 1 into a slot of its own.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<512xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  %v = "task.reshape"(%a) {tiles = 0 : i64} : (tensor<16xf32>) -> tensor<4x4xf32>
  "arena.bind"(%v, %s0) {offset = 0 : i64} : (tensor<4x4xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %m = "task.softmax"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%m, %s1) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %n = "task.convert"(%v) {tiles = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xi32>
  "arena.bind"(%n, %s0) {offset = 0 : i64} : (tensor<4x4xi32>, memref<64xi8>) -> ()
  gpu.yield %m, %n : tensor<16xf32>, tensor<4x4xi32>
}) {sym_name = "view", function_type = (tensor<16xf32>) -> (tensor<16xf32>, tensor<4x4xi32>)} : () -> ()

// -----

// A view's reads are its input's: %w (interval 1) writes over %a while %t still reads it through the view
// %v in interval 2.
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<512xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  %v = "task.reshape"(%a) {tiles = 0 : i64} : (tensor<16xf32>) -> tensor<4x4xf32>
  "arena.bind"(%v, %s0) {offset = 0 : i64} : (tensor<4x4xf32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %w = "task.convert"(%a) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xi32>
  // CHECK: latch-verify-arena.mlir:[[@LINE+1]]:3: error: latch-verify-arena: values of slot 0 share bytes [0, 64) while both are live: 'task.softmax' result 0 (written in interval 0) is read until interval 2, when 'task.convert' result 0 (written in interval 1) is written by a task that is not its only last reader
  "arena.bind"(%w, %s0) {offset = 0 : i64} : (tensor<16xi32>, memref<64xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i2"} : () -> ()
  %t = "task.transpose"(%v) {perm = array<i64: 1, 0>, tiles = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  "arena.bind"(%t, %s1) {offset = 0 : i64} : (tensor<4x4xf32>, memref<64xi8>) -> ()
  gpu.yield %w, %t : tensor<16xi32>, tensor<4x4xf32>
}) {sym_name = "view_read_after_overwrite", function_type = (tensor<16xf32>) -> (tensor<16xi32>, tensor<4x4xf32>)} : () -> ()
