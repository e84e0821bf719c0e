// RUN: latch-opt %s | latch-opt | FileCheck %s
// Every op of the interval dialect prints and parses back (print, reparse, print again) in the generic
// form. A program is function-like: its block's arguments are the program arguments, constants come
// first, `interval.interval` opens an interval, `interval.barrier` closes it, `gpu.yield` returns.

// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x2xf32>):
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4x2xf32>
// CHECK-NEXT: "interval.interval"() {name = "forward"} : () -> ()
// CHECK-NEXT: %[[Y:.*]] = "task.matmul"(%[[X]], %[[W]]) {tiles = 1 : i64, transpose_a = false, transpose_b = false}
// CHECK-NEXT: %[[S:.*]] = "task.softmax"(%[[X]]) {tiles = 1 : i64}
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: "interval.interval"() {name = "loss"} : () -> ()
// CHECK-NEXT: %[[Z:.*]] = "task.softmax"(%[[Y]])
// CHECK-NEXT: gpu.yield %[[Z]], %[[S]], %[[C]] : tensor<4x2xf32>, tensor<4x8xf32>, tensor<4x2xf32>
// CHECK-NEXT: }) {arg_attrs = [{task.param}, {}], function_type = (tensor<4x8xf32>, tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x8xf32>, tensor<4x2xf32>), sym_name = "update"} : () -> ()
"interval.program"() ({
^bb0(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>):
  %c = arith.constant dense<1.0> : tensor<4x2xf32>
  "interval.interval"() {name = "forward"} : () -> ()
  %y = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false, tiles = 1 : i64}
      : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %s = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "loss"} : () -> ()
  %z = "task.softmax"(%y) {tiles = 1 : i64} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  gpu.yield %z, %s, %c : tensor<4x2xf32>, tensor<4x8xf32>, tensor<4x2xf32>
}) {sym_name = "update", function_type = (tensor<4x8xf32>, tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x8xf32>, tensor<4x2xf32>),
    arg_attrs = [{task.param}, {}]} : () -> ()

// A barrier on its own, outside any program.
// CHECK-LABEL: func.func @barrier
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: return
func.func @barrier() {
  "interval.barrier"() : () -> ()
  return
}
