// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-lower-tasks)' 2>&1 | FileCheck %s
// RUN: not latch-opt %S/Inputs/plain-program.mlir --pass-pipeline='builtin.module(latch-form-intervals,latch-lower-tasks)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNPLANNED
// RUN: not latch-opt %S/Inputs/plain-program.mlir \
// RUN:   --pass-pipeline='builtin.module(latch-form-intervals,latch-plan-arena,latch-lower-tasks,latch-lower-tasks)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// RUN: not latch-opt %S/Inputs/f64-program.mlir --pass-pipeline='builtin.module(latch-form-intervals,latch-plan-arena,latch-lower-tasks)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F64
// RUN: not latch-opt %S/Inputs/bthd-f32-program.mlir --pass-pipeline='builtin.module(latch-form-intervals,latch-plan-arena,latch-lower-tasks)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BTHD
//
// What latch-lower-tasks refuses, each at the op concerned: no program, a program that is not planned
// (UNPLANNED), lowering twice (TWICE), f64 tensors (F64), layout = "bthd" off the tensor cores (BTHD),
// non-splat tensor constants, a result planned over an input of a task that cannot run in place, a
// task.map body that uses a value from above that is not a scalar constant.

// UNPLANNED: error: latch-lower-tasks: the program has no arena.arena (run latch-plan-arena first)
// TWICE: error: latch-lower-tasks: gpu.module @latch already holds @task_0 (run latch-lower-tasks once)
// F64: error: latch-lower-tasks: the device stores f32, bf16 and i32 tensors only (f64 is rejected)
// BTHD: bthd-f32-program.mlir:3:8: error: latch-lower-tasks: layout = "bthd" is lowered on tensor cores only (bf16 q, k and v or o, heads of at most 64, query rows a multiple of 64, keys of 32, or 64 for the gradient)

// CHECK: [[@LINE+1]]:1: error: latch-lower-tasks: the module holds no interval.program (run latch-form-intervals first)
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

"interval.program"() ({
^bb0(%x: tensor<2xf32>):
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 8 : i64} : () -> memref<256xi8>
  %s = "arena.slot"(%arena) {offset = 0 : i64, size = 8 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<8xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  // CHECK: [[@LINE+1]]:8: error: latch-lower-tasks: non-splat tensor constants are not supported on the device
  %y = "task.map"(%x, %c) ({
  ^bb0(%a: f32, %b: f32):
    %z = arith.addf %a, %b : f32
    gpu.yield %z : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "arena.bind"(%y, %s) {offset = 0 : i64} : (tensor<2xf32>, memref<8xi8>) -> ()
  gpu.yield %y : tensor<2xf32>
}) {sym_name = "non_splat", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()

// -----

// A softmax planned over its own input: its rows are read again after they are written.
"interval.program"() ({
^bb0(%x: tensor<2x4xf32>):
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 32 : i64} : () -> memref<256xi8>
  %s = "arena.slot"(%arena) {offset = 0 : i64, size = 32 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<32xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  %a = "task.reshape"(%x) {tiles = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  "arena.bind"(%a, %s) {offset = 0 : i64} : (tensor<2x4xf32>, memref<32xi8>) -> ()
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "i1"} : () -> ()
  // CHECK: [[@LINE+1]]:8: error: latch-lower-tasks: result 0 overlaps operand 0 in memory and this task cannot run in place
  %b = "task.softmax"(%a) {tiles = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  "arena.bind"(%b, %s) {offset = 0 : i64} : (tensor<2x4xf32>, memref<32xi8>) -> ()
  gpu.yield %b : tensor<2x4xf32>
}) {sym_name = "overlap", function_type = (tensor<2x4xf32>) -> tensor<2x4xf32>} : () -> ()

// -----

// A scalar from above that is not a constant cannot be cloned into the map's body function.
"interval.program"() ({
^bb0(%x: tensor<2xf32>):
  %one = arith.constant 1.0 : f32
  %two = arith.addf %one, %one : f32
  %arena = "arena.arena"() {size = 256 : i64, alignment = 256 : i64, lower_bound = 8 : i64} : () -> memref<256xi8>
  %s = "arena.slot"(%arena) {offset = 0 : i64, size = 8 : i64, alignment = 256 : i64} : (memref<256xi8>) -> memref<8xi8>
  "interval.interval"() {name = "i0"} : () -> ()
  // CHECK: [[@LINE+1]]:8: error: latch-lower-tasks: the task.map body uses a value from above that is not a scalar arith.constant
  %y = "task.map"(%x) ({
  ^bb0(%a: f32):
    %z = arith.mulf %a, %two : f32
    gpu.yield %z : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  "arena.bind"(%y, %s) {offset = 0 : i64} : (tensor<2xf32>, memref<8xi8>) -> ()
  gpu.yield %y : tensor<2xf32>
}) {sym_name = "from_above", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()
