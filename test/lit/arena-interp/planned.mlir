// Programs planned by latch-plan-arena run in the byte arena give bit for bit the results of the function
// they come from, in every mode (fp64, --emulate=fp32, --emulate=bf16): f32, bf16, f64 and i32 values
// (2, 4 and 8 bytes an element), in-place writes (a map over its dying input, a reshape), slots reused
// over time, a hoisted scalar constant, results read from the arena at the end. With in-place writes
// and without. --arena-stats shows the arena in use and nothing overwritten; --no-arena runs the planned
// program with every value apart, as a function.
// RUN: rm -rf %t && mkdir -p %t
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-form-intervals,latch-plan-arena,latch-verify-arena)' -o %t/planned.mlir
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-form-intervals,latch-plan-arena{in-place=false},latch-verify-arena)' -o %t/apart.mlir
// RUN: FileCheck %s --check-prefix=PLAN < %t/planned.mlir
// RUN: latch-interp %s --entry mix --random-inputs 5 --output-dir %t/func
// RUN: latch-interp %t/planned.mlir --entry mix --random-inputs 5 --output-dir %t/arena --arena-stats | FileCheck %s
// RUN: latch-interp %t/apart.mlir --entry mix --random-inputs 5 --output-dir %t/arena-apart --arena-stats | FileCheck %s
// RUN: latch-interp %t/planned.mlir --entry mix --random-inputs 5 --output-dir %t/no-arena --no-arena --arena-stats | FileCheck %s --check-prefix=NONE
// RUN: cmp %t/func/result0.npy %t/arena/result0.npy
// RUN: cmp %t/func/result1.npy %t/arena/result1.npy
// RUN: cmp %t/func/result2.npy %t/arena/result2.npy
// RUN: cmp %t/func/result3.npy %t/arena/result3.npy
// RUN: cmp %t/func/result4.npy %t/arena/result4.npy
// RUN: cmp %t/func/result5.npy %t/arena/result5.npy
// RUN: cmp %t/func/result6.npy %t/arena/result6.npy
// RUN: cmp %t/func/result0.npy %t/arena-apart/result0.npy
// RUN: cmp %t/func/result1.npy %t/arena-apart/result1.npy
// RUN: cmp %t/func/result2.npy %t/arena-apart/result2.npy
// RUN: cmp %t/func/result3.npy %t/arena-apart/result3.npy
// RUN: cmp %t/func/result4.npy %t/arena-apart/result4.npy
// RUN: cmp %t/func/result5.npy %t/arena-apart/result5.npy
// RUN: cmp %t/func/result6.npy %t/arena-apart/result6.npy
// RUN: cmp %t/func/result0.npy %t/no-arena/result0.npy
// RUN: cmp %t/func/result6.npy %t/no-arena/result6.npy
//
// RUN: latch-interp %s --entry mix --random-inputs 5 --output-dir %t/func-bf16 --emulate=bf16
// RUN: latch-interp %t/planned.mlir --entry mix --random-inputs 5 --output-dir %t/arena-bf16 --emulate=bf16
// RUN: cmp %t/func-bf16/result0.npy %t/arena-bf16/result0.npy
// RUN: cmp %t/func-bf16/result1.npy %t/arena-bf16/result1.npy
// RUN: cmp %t/func-bf16/result2.npy %t/arena-bf16/result2.npy
// RUN: cmp %t/func-bf16/result3.npy %t/arena-bf16/result3.npy
// RUN: cmp %t/func-bf16/result4.npy %t/arena-bf16/result4.npy
// RUN: cmp %t/func-bf16/result5.npy %t/arena-bf16/result5.npy
// RUN: cmp %t/func-bf16/result6.npy %t/arena-bf16/result6.npy
// RUN: latch-interp %s --entry mix --random-inputs 5 --output-dir %t/func-fp32 --emulate=fp32
// RUN: latch-interp %t/planned.mlir --entry mix --random-inputs 5 --output-dir %t/arena-fp32 --emulate=fp32
// RUN: cmp %t/func-fp32/result0.npy %t/arena-fp32/result0.npy
// RUN: cmp %t/func-fp32/result1.npy %t/arena-fp32/result1.npy
// RUN: cmp %t/func-fp32/result2.npy %t/arena-fp32/result2.npy
// RUN: cmp %t/func-fp32/result3.npy %t/arena-fp32/result3.npy
// RUN: cmp %t/func-fp32/result4.npy %t/arena-fp32/result4.npy
// RUN: cmp %t/func-fp32/result5.npy %t/arena-fp32/result5.npy
// RUN: cmp %t/func-fp32/result6.npy %t/arena-fp32/result6.npy

// The plan writes the silu map over its input (in place) and binds values of all four dtypes.
// PLAN: "arena.arena"()
// PLAN: %[[H:[0-9]+]] = "task.matmul"
// PLAN-NEXT: "arena.bind"(%[[H]], %[[SLOT:[0-9]+]]) {offset = 0 : i64} : (tensor<8x8xf32>
// PLAN: %[[S:[0-9]+]] = "task.map"(%[[H]])
// PLAN: "arena.bind"(%[[S]], %[[SLOT]]) {offset = 0 : i64} : (tensor<8x8xf32>
// PLAN-DAG: tensor<8x2xi32>, memref
// PLAN-DAG: tensor<8xf64>, memref
// PLAN-DAG: tensor<8x8xbf16>, memref

// CHECK: arena: @mix {{[0-9]+}} bytes, 12 values bound, {{[0-9]+}} element writes, {{[0-9]+}} element reads, 0 corrupt reads, 0 live bytes overwritten
// NONE: arena: @mix ran without an arena

func.func @mix(%x: tensor<8x16xf32> {task.name = "x"}, %w: tensor<16x8xbf16> {task.name = "w"},
               %ids: tensor<4xi32> {task.name = "ids", task.range = 8 : i64}, %d: tensor<8xf64> {task.name = "d"})
    -> (tensor<8x2xf32>, tensor<8x2xi32>, tensor<8xi32>, tensor<32xf32>, tensor<8xf64>, tensor<8xbf16>, tensor<8x8xbf16>) {
  %one = arith.constant 1.0 : f32
  %xb = "task.convert"(%x) : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  %h = "task.matmul"(%xb, %w) {transpose_a = false, transpose_b = false} : (tensor<8x16xbf16>, tensor<16x8xbf16>) -> tensor<8x8xf32>
  %s = "task.map"(%h) ({
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %q = arith.addf %one, %e : f32
    %r = arith.divf %a, %q : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = "task.softmax"(%s) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v, %i = "task.topk"(%p) {k = 2} : (tensor<8x8xf32>) -> (tensor<8x2xf32>, tensor<8x2xi32>)
  %isum = "task.reduce"(%i) {axis = 1, kind = "sum"} : (tensor<8x2xi32>) -> tensor<8xi32>
  %g = "task.gather_rows"(%p, %ids) : (tensor<8x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  %flat = "task.reshape"(%g) : (tensor<4x8xf32>) -> tensor<32xf32>
  %dd = "task.map"(%d) ({
  ^bb0(%a: f64):
    %two = arith.constant 2.0 : f64
    %r = arith.mulf %a, %two : f64
    gpu.yield %r : f64
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8xf64>) -> tensor<8xf64>
  %sb = "task.convert"(%s) : (tensor<8x8xf32>) -> tensor<8x8xbf16>
  %m = "task.reduce"(%sb) {axis = 1, kind = "sum"} : (tensor<8x8xbf16>) -> tensor<8xbf16>
  return %v, %i, %isum, %flat, %dd, %m, %sb : tensor<8x2xf32>, tensor<8x2xi32>, tensor<8xi32>, tensor<32xf32>, tensor<8xf64>, tensor<8xbf16>, tensor<8x8xbf16>
}
