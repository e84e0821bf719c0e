// What latch-interp refuses in an arena plan (an error at the offending op, no results), and what it
// does with a program that has no plan.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not latch-interp %s --entry outside --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not latch-interp %s --entry two_arenas --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not latch-interp %s --entry not_a_slot --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: not latch-interp %s --entry twice --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not latch-interp %s --entry nowhere --random-inputs 1 --output-dir %t/o 2>&1 | FileCheck %s --check-prefix=NOWHERE
// The plan is ignored under --no-arena, so the same program runs.
// RUN: latch-interp %s --entry outside --random-inputs 1 --output-dir %t/o --no-arena --arena-stats | FileCheck %s --check-prefix=IGNORED
// A program without a plan runs with every value apart.
// RUN: latch-interp %s --entry unplanned --random-inputs 1 --output-dir %t/o --arena-stats | FileCheck %s --check-prefix=UNPLANNED

// OUTSIDE: errors.mlir:[[# @LINE + 8]]:3: error: 'arena.bind' puts 64 bytes at arena byte 256 (slot offset 256 + bind offset 0), outside the arena of 256 bytes
// IGNORED: arena: @outside ran without an arena
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  %s0 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %y = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%y, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %y : tensor<16xf32>
}) {sym_name = "outside", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// TWO: errors.mlir:[[# @LINE + 4]]:12: error: 'arena.arena' is a second arena of the program; latch-interp runs a plan of one arena
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  %other = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %y = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %y : tensor<16xf32>
}) {sym_name = "two_arenas", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// SLOT: errors.mlir:[[# @LINE + 7]]:3: error: 'arena.bind' binds to something that is not an arena.slot of the program's arena
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  %view = "arena.view"(%arena) : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %y = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%y, %view) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %y : tensor<16xf32>
}) {sym_name = "not_a_slot", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// TWICE: errors.mlir:[[# @LINE + 8]]:3: error: 'arena.bind' binds a value that an earlier arena.bind already bound
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 64 : i64} : () -> memref<256xi8>
  %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<64xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %y = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "arena.bind"(%y, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  "arena.bind"(%y, %s0) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
  gpu.yield %y : tensor<16xf32>
}) {sym_name = "twice", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()

// NOWHERE: latch-interp: error: no function @nowhere in '{{.*}}errors.mlir' (neither a func.func nor an interval.program of that name)

// UNPLANNED: arena: @unplanned ran without an arena
"interval.program"() ({
^bb0(%x: tensor<16xf32>):
  %c = arith.constant dense<2.0> : tensor<16xf32>
  "interval.interval"() {name = "i0"} : () -> ()
  %y = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  %z = "task.map"(%y, %c) ({
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    gpu.yield %p : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  gpu.yield %z : tensor<16xf32>
}) {sym_name = "unplanned", function_type = (tensor<16xf32>) -> tensor<16xf32>} : () -> ()
