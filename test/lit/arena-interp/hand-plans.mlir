// Hand-written arena plans run in the byte arena (docs/interp.md).
// RUN: rm -rf %t && mkdir -p %t && python3 %S/Inputs/arena.py inputs %t
// latch-verify-arena accepts @packed and rejects the overlaps of @partial and @int_over (and nothing else).
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-verify-arena)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY --implicit-check-not=error:
//
// @packed: a correct plan that packs values of three dtypes next to each other in one slot and reuses
// bytes over time for a value of another dtype; bit for bit the results without the arena.
// RUN: latch-interp %s --entry packed --input x=%t/x.npy --output-dir %t/packed --arena-stats 2> %t/packed.err | FileCheck %s --check-prefix=PACKED
// RUN: count 0 < %t/packed.err
// RUN: latch-interp %s --entry packed --input x=%t/x.npy --output-dir %t/packed-apart --no-arena
// RUN: cmp %t/packed/result0.npy %t/packed-apart/result0.npy
// RUN: cmp %t/packed/result1.npy %t/packed-apart/result1.npy
// RUN: cmp %t/packed/result2.npy %t/packed-apart/result2.npy
// RUN: latch-interp %s --entry packed --input x=%t/x.npy --output-dir %t/packed-bf16 --emulate=bf16
// RUN: latch-interp %s --entry packed --input x=%t/x.npy --output-dir %t/packed-apart-bf16 --emulate=bf16 --no-arena
// RUN: cmp %t/packed-bf16/result0.npy %t/packed-apart-bf16/result0.npy
// RUN: cmp %t/packed-bf16/result1.npy %t/packed-apart-bf16/result1.npy
// RUN: cmp %t/packed-bf16/result2.npy %t/packed-apart-bf16/result2.npy
//
// @partial: a bf16 value written 2 bytes into a live f32 value covers half of each of its first two
// elements: they read back as NaN (a partial overwrite), the other two are intact.
// RUN: latch-interp %s --entry partial --random-inputs 1 --output-dir %t/partial 2> %t/partial.err
// RUN: python3 %S/Inputs/arena.py nan %t/partial/result0.npy | FileCheck %s --check-prefix=PARTIAL
// RUN: FileCheck %s --check-prefix=PARTIAL-WARN < %t/partial.err
// RUN: latch-interp %s --entry partial --random-inputs 1 --output-dir %t/partial-apart --no-arena
// RUN: python3 %S/Inputs/arena.py nan %t/partial-apart/result0.npy | FileCheck %s --check-prefix=NO-NAN
//
// @int_over: an f32 value written over all bytes of a live i32 value: the i32 reads back the f32's bits.
// RUN: latch-interp %s --entry int_over --input x=%t/x.npy --output-dir %t/int_over 2> /dev/null
// RUN: python3 %S/Inputs/arena.py f32-bits %t/int_over/result0.npy %t/x.npy | FileCheck %s --check-prefix=BITS
//
// @view: a reshape bound over its input is a view (its bytes keep the input's owner): no corrupt read, no
// live overwrite, the results without the arena. @view_overwrite writes over a value that a view of it
// still has to give to a later reader: the overwrite is reported and the read sees the new bytes.
// RUN: latch-interp %s --entry view --random-inputs 1 --output-dir %t/view --arena-stats 2> %t/view.err | FileCheck %s --check-prefix=VIEW
// RUN: count 0 < %t/view.err
// RUN: latch-interp %s --entry view --random-inputs 1 --output-dir %t/view-apart --no-arena
// RUN: cmp %t/view/result0.npy %t/view-apart/result0.npy
// RUN: cmp %t/view/result1.npy %t/view-apart/result1.npy
// RUN: latch-interp %s --entry view_overwrite --random-inputs 1 --output-dir %t/view-over 2>&1 >/dev/null | FileCheck %s --check-prefix=VIEW-OVER

// VERIFY: hand-plans.mlir:{{[0-9]+}}:{{[0-9]+}}: error: latch-verify-arena: slot 0 (bytes [0, 16), live in intervals 0..2) and slot 1 (bytes [0, 16), live in intervals 1..1) share bytes [0, 16) while both are live in interval 1
// VERIFY: hand-plans.mlir:{{[0-9]+}}:{{[0-9]+}}: error: latch-verify-arena: slot 0 (bytes [0, 64), live in intervals 0..2) and slot 1 (bytes [0, 64), live in intervals 1..1) share bytes [0, 64) while both are live in interval 1
// PACKED: arena: @packed 512 bytes, 5 values bound, 80 element writes, 96 element reads, 0 corrupt reads, 0 live bytes overwritten
// PARTIAL: nan: 0 1
// PARTIAL-WARN: warning: the arena plan of @partial let 4 bytes of live values be overwritten
// PARTIAL-WARN: warning: 2 element reads from the arena of @partial found bytes that another value wrote; the first, arena byte 2: operand 0 of 'task.map'
// NO-NAN: nan:{{$}}
// BITS: f32-bits: yes
// VIEW: arena: @view 512 bytes, 4 values bound, 64 element writes, 80 element reads, 0 corrupt reads, 0 live bytes overwritten
// VIEW-OVER: warning: the arena plan of @view_overwrite let 64 bytes of live values be overwritten
// VERIFY: hand-plans.mlir:{{[0-9]+}}:{{[0-9]+}}: error: latch-verify-arena: values of slot 0 share bytes [0, 64) while both are live

module {
  // Slot %s0 packs %b (16 x bf16, bytes [0, 32)), %i (16 x i32, bytes [32, 96)) and %f (16 x f64, bytes
  // [96, 224)), live in intervals 1..3; %u (16 x f32, slot %s2) is written in interval 2 over the bytes
  // [256, 320) that %c (slot %s1) had until it died in interval 1.
  "interval.program"() ({
  ^bb0(%x: tensor<16xf32>):
    %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 288 : i64} : () -> memref<512xi8>
    %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 224 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<224xi8>
    %s1 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
    %s2 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
    "interval.interval"() {name = "i0"} : () -> ()
    %c = "task.map"(%x) ({
    ^bb0(%a: f32):
      %three = arith.constant 3.0 : f32
      %r = arith.mulf %a, %three : f32
      gpu.yield %r : f32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%c, %s1) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1"} : () -> ()
    %b = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xbf16>
    "arena.bind"(%b, %s0) {offset = 0 : i64} : (tensor<16xbf16>, memref<224xi8>) -> ()
    %i = "task.convert"(%c) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xi32>
    "arena.bind"(%i, %s0) {offset = 32 : i64} : (tensor<16xi32>, memref<224xi8>) -> ()
    %f = "task.convert"(%c) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf64>
    "arena.bind"(%f, %s0) {offset = 96 : i64} : (tensor<16xf64>, memref<224xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2"} : () -> ()
    %u = "task.convert"(%i) {tiles = 1 : i64} : (tensor<16xi32>) -> tensor<16xf32>
    "arena.bind"(%u, %s2) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    gpu.yield %b, %f, %u : tensor<16xbf16>, tensor<16xf64>, tensor<16xf32>
  }) {sym_name = "packed", function_type = (tensor<16xf32>) -> (tensor<16xbf16>, tensor<16xf64>, tensor<16xf32>),
      arg_attrs = [{task.name = "x"}]} : () -> ()

  // %a (4 x f32, bytes [0, 16)) is read in interval 2; %h (2 x bf16) is written at bytes [2, 6) in
  // interval 1.
  "interval.program"() ({
  ^bb0(%x: tensor<4xf32>, %z: tensor<2xf32>):
    %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 32 : i64} : () -> memref<512xi8>
    %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 16 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<16xi8>
    %s1 = "arena.slot"(%arena) {offset = 0 : i64, size = 16 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<16xi8>
    %s2 = "arena.slot"(%arena) {offset = 256 : i64, size = 16 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<16xi8>
    "interval.interval"() {name = "i0"} : () -> ()
    %a = "task.convert"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<4xf32>, memref<16xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1"} : () -> ()
    %h = "task.convert"(%z) {tiles = 1 : i64} : (tensor<2xf32>) -> tensor<2xbf16>
    "arena.bind"(%h, %s1) {offset = 2 : i64} : (tensor<2xbf16>, memref<16xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2"} : () -> ()
    %y = "task.map"(%a) ({
    ^bb0(%e: f32):
      %zero = arith.constant 0.0 : f32
      %s = arith.addf %e, %zero : f32
      gpu.yield %s : f32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "arena.bind"(%y, %s2) {offset = 0 : i64} : (tensor<4xf32>, memref<16xi8>) -> ()
    gpu.yield %y : tensor<4xf32>
  }) {sym_name = "partial", function_type = (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>} : () -> ()

  // %k (16 x i32) is read in interval 2; %w (16 x f32, = x) is written over all of its bytes in interval 1.
  "interval.program"() ({
  ^bb0(%x: tensor<16xf32>):
    %arena = "arena.arena"() {size = 512 : i64, alignment = 256 : i64, lower_bound = 128 : i64} : () -> memref<512xi8>
    %s0 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
    %s1 = "arena.slot"(%arena) {offset = 0 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
    %s2 = "arena.slot"(%arena) {offset = 256 : i64, size = 64 : i64, alignment = 256 : i64} : (memref<512xi8>) -> memref<64xi8>
    "interval.interval"() {name = "i0"} : () -> ()
    %k = "task.convert"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xi32>
    "arena.bind"(%k, %s0) {offset = 0 : i64} : (tensor<16xi32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1"} : () -> ()
    %w = "task.reshape"(%x) {tiles = 1 : i64} : (tensor<16xf32>) -> tensor<16xf32>
    "arena.bind"(%w, %s1) {offset = 0 : i64} : (tensor<16xf32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2"} : () -> ()
    %k2 = "task.reshape"(%k) {tiles = 1 : i64} : (tensor<16xi32>) -> tensor<16xi32>
    "arena.bind"(%k2, %s2) {offset = 0 : i64} : (tensor<16xi32>, memref<64xi8>) -> ()
    gpu.yield %k2 : tensor<16xi32>
  }) {sym_name = "int_over", function_type = (tensor<16xf32>) -> tensor<16xi32>, arg_attrs = [{task.name = "x"}]} : () -> ()

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
    "arena.bind"(%w, %s0) {offset = 0 : i64} : (tensor<16xi32>, memref<64xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2"} : () -> ()
    %t = "task.transpose"(%v) {perm = array<i64: 1, 0>, tiles = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    "arena.bind"(%t, %s1) {offset = 0 : i64} : (tensor<4x4xf32>, memref<64xi8>) -> ()
    gpu.yield %w, %t : tensor<16xi32>, tensor<4x4xf32>
  }) {sym_name = "view_overwrite", function_type = (tensor<16xf32>) -> (tensor<16xi32>, tensor<4x4xf32>)} : () -> ()
}
