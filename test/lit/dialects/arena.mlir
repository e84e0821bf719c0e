// RUN: latch-opt %s | latch-opt | FileCheck %s
// Every op of the arena dialect prints and parses back (print, reparse, print again) in the generic form.

// One arena, two slots, and typed views of each slot's bytes.
// CHECK-LABEL: func.func @arena
// CHECK: %[[A:.*]] = "arena.arena"() {alignment = 256 : i64, size = 4096 : i64} : () -> memref<4096xi8>
// CHECK: %[[S0:.*]] = "arena.slot"(%[[A]]) {alignment = 256 : i64, offset = 0 : i64, size = 128 : i64} : (memref<4096xi8>) -> memref<128xi8>
// CHECK: %[[S1:.*]] = "arena.slot"(%[[A]]) {alignment = 16 : i64, offset = 256 : i64, size = 64 : i64} : (memref<4096xi8>) -> memref<64xi8>
// CHECK: %[[V0:.*]] = "arena.view"(%[[S0]]) : (memref<128xi8>) -> memref<4x8xf32>
// CHECK: %[[V1:.*]] = "arena.view"(%[[S1]]) : (memref<64xi8>) -> memref<32xbf16>
// CHECK: "arena.bind"(%[[T:.*]], %[[S0]]) {offset = 0 : i64} : (tensor<4x8xf32>, memref<128xi8>) -> ()
// CHECK: "arena.bind"(%[[T]], %[[S1]]) {offset = 32 : i64} : (tensor<4x8xf32>, memref<64xi8>) -> ()
// CHECK: return %[[V0]], %[[V1]] : memref<4x8xf32>, memref<32xbf16>
func.func @arena(%t: tensor<4x8xf32>) -> (memref<4x8xf32>, memref<32xbf16>) {
  %arena = "arena.arena"() {size = 4096, alignment = 256} : () -> memref<4096xi8>
  %s0 = "arena.slot"(%arena) {offset = 0, size = 128, alignment = 256} : (memref<4096xi8>) -> memref<128xi8>
  %s1 = "arena.slot"(%arena) {offset = 256, size = 64, alignment = 16} : (memref<4096xi8>) -> memref<64xi8>
  %v0 = "arena.view"(%s0) : (memref<128xi8>) -> memref<4x8xf32>
  %v1 = "arena.view"(%s1) : (memref<64xi8>) -> memref<32xbf16>
  "arena.bind"(%t, %s0) {offset = 0} : (tensor<4x8xf32>, memref<128xi8>) -> ()
  "arena.bind"(%t, %s1) {offset = 32} : (tensor<4x8xf32>, memref<64xi8>) -> ()
  return %v0, %v1 : memref<4x8xf32>, memref<32xbf16>
}
