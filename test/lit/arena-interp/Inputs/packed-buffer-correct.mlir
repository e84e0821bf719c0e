// The correct plan of ../../passes/Inputs/defect-packed-buffer.mlir, written by hand: the same program
// and slots, but slot %st (live in interval 1 only) has bytes of its own, [512, 576), instead of sharing
// those of %p0 in %sp while %sp is live (intervals 0..3). The arena grows to 768 bytes. Expected result
// r = 2 x + 3 y.
module {
  "interval.program"() ({
  ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
    %arena = "arena.arena"() {size = 768 : i64, alignment = 256 : i64, lower_bound = 192 : i64} : () -> memref<768xi8>
    %sp = "arena.slot"(%arena) {offset = 0 : i64, size = 128 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<128xi8>
    %st = "arena.slot"(%arena) {offset = 512 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<64xi8>
    %sr = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<768xi8>) -> memref<64xi8>
    "interval.interval"() {name = "i0.p0"} : () -> ()
    %p0 = "task.map"(%x, %x) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%p0, %sp) {offset = 0 : i64} : (tensor<16xf32>, memref<128xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1.t"} : () -> ()
    %t = "task.map"(%x, %y) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%t, %st) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2.p1"} : () -> ()
    %p1 = "task.map"(%y) ({
    ^bb0(%a: f32):
      %three = arith.constant 3.0 : f32
      %s = arith.mulf %a, %three : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%p1, %sp) {offset = 64 : i64} : (tensor<16xf32>, memref<128xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i3.r"} : () -> ()
    %r = "task.map"(%p0, %p1) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%r, %sr) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    gpu.yield %r : tensor<16xf32>
  }) {sym_name = "packed_buffer", function_type = (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>} : () -> ()
}
