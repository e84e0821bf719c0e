// RUN: latch-opt %s | latch-opt | FileCheck %s
// Every op of the interval dialect prints and parses back (print, reparse, print again) in the generic
// form. IRDL ops cannot be terminators, so each region's block ends in gpu.yield.

// A program of two intervals separated by a barrier; the first interval holds two independent tasks.
// CHECK-LABEL: func.func @schedule
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x2xf32>)
// CHECK: "interval.program"() ({
// CHECK-NEXT: "interval.interval"() ({
// CHECK-NEXT: "task.matmul"(%[[X]], %[[W]]) {transpose_a = false, transpose_b = false}
// CHECK-NEXT: "task.softmax"(%[[X]])
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }) {name = "forward"} : () -> ()
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: "interval.interval"() ({
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }) {name = "empty"} : () -> ()
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }) {sym_name = "update"} : () -> ()
// CHECK-NEXT: return
func.func @schedule(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) {
  "interval.program"() ({
    "interval.interval"() ({
      %y = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false}
          : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
      %s = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      gpu.yield
    }) {name = "forward"} : () -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() ({
      gpu.yield
    }) {name = "empty"} : () -> ()
    gpu.yield
  }) {sym_name = "update"} : () -> ()
  return
}

// A barrier on its own, outside any program.
// CHECK-LABEL: func.func @barrier
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: return
func.func @barrier() {
  "interval.barrier"() : () -> ()
  return
}
