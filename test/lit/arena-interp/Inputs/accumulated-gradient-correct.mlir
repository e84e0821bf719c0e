// The correct plan of ../../passes/Inputs/defect-accumulated-gradient.mlir, written by hand: the same
// program and slots, but slot %st (live in interval 2 only) has bytes of its own, [512, 576), instead of
// sharing %sg's while %sg is live (intervals 1..4). The arena grows to 768 bytes. Expected result
// r = (2 x + x y) / 2.
module {
  "interval.program"() ({
  ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
    %arena = "arena.arena"() {size = 768 : i64, alignment = 256 : i64, lower_bound = 192 : i64} : () -> memref<768xi8>
    %sd = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<64xi8>
    %sg = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<64xi8>
    %st = "arena.slot"(%arena) {offset = 512 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<64xi8>
    %sr = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<64xi8>
    "interval.interval"() {name = "i0.d"} : () -> ()
    %d = "task.map"(%x, %y) ({
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      gpu.yield %p : f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%d, %sd) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1.g1"} : () -> ()
    %g1 = "task.map"(%x, %x) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%g1, %sg) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2.t"} : () -> ()
    %t = "task.map"(%y) ({
    ^bb0(%a: f32):
      %one = arith.constant 1.0 : f32
      %s = arith.addf %a, %one : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%t, %st) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i3.g2"} : () -> ()
    %g2 = "task.map"(%g1, %d) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%g2, %sg) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i4.r"} : () -> ()
    %r = "task.map"(%g2) ({
    ^bb0(%a: f32):
      %half = arith.constant 0.5 : f32
      %s = arith.mulf %a, %half : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%r, %sr) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    gpu.yield %r : tensor<16xf32>
  }) {sym_name = "accumulated_gradient", function_type = (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>} : () -> ()
}
