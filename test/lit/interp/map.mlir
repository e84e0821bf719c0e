// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen map %t
// RUN: latch-interp %s --entry silu_mul --input a=%t/silu_mul/a.npy --input b=%t/silu_mul/b.npy --output-dir %t/silu_mul
// RUN: latch-interp %s --entry broadcast --input s=%t/broadcast/s.npy --input x=%t/broadcast/x.npy --output-dir %t/broadcast
// RUN: latch-interp %s --entry integers --input arg0=%t/integers/arg0.npy --input arg1=%t/integers/arg1.npy --output-dir %t/integers
// RUN: latch-interp %s --entry mathops --input x=%t/mathops/x.npy --output-dir %t/mathops
// RUN: latch-interp %s --entry no_inputs --output-dir %t/no_inputs
// RUN: latch-interp %s --entry compare_select --input a=%t/compare_select/a.npy --input b=%t/compare_select/b.npy --output-dir %t/compare_select 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: python3 %S/Inputs/cases.py check map %t | FileCheck %s
// task.map: scalar arith/math bodies, constants hoisted above the map, rank-0 broadcast, several
// outputs, integer wrapping and float <-> int conversions, ordered and unordered compares.

// CHECK: ok silu_mul
// CHECK: ok broadcast
// CHECK: ok integers
// CHECK: ok mathops
// CHECK: ok no_inputs
// CHECK: ok compare_select
// NaN inputs are allowed (propagated) and counted.
// WARN: latch-interp: warning: 2 non-finite values in inputs

func.func @silu_mul(%a: tensor<2x3xf32> {task.name = "a"}, %b: tensor<2x3xf32> {task.name = "b"}) -> tensor<2x3xf32> {
  // The constant lives above the map, as canonicalize leaves it.
  %one = arith.constant 1.0 : f32
  %y = "task.map"(%a, %b) ({
  ^bb0(%x: f32, %g: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %r = arith.mulf %s, %g : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @broadcast(%s: tensor<f32> {task.name = "s"}, %x: tensor<4xf32> {task.name = "x"}) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = "task.map"(%s, %x) ({
  ^bb0(%sv: f32, %xv: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.mulf %sv, %xv : f32
    %pos = arith.cmpf ogt, %xv, %zero : f32
    %r = arith.select %pos, %xv, %zero : f32
    gpu.yield %m, %r : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}

func.func @integers(%i: tensor<5xi32>, %x: tensor<5xf32>) -> (tensor<5xi32>, tensor<5xf32>) {
  %c2 = arith.constant 2 : i32
  %y:2 = "task.map"(%i, %x) ({
  ^bb0(%iv: i32, %xv: f32):
    %c3 = arith.constant 3 : i32
    %t = arith.fptosi %xv : f32 to i32
    %t3 = arith.muli %t, %c3 : i32
    %i2 = arith.muli %iv, %c2 : i32
    %h = arith.divsi %iv, %c2 : i32
    %s1 = arith.addi %t3, %i2 : i32
    %s = arith.addi %s1, %h : i32
    %f = arith.sitofp %iv : i32 to f32
    %p = arith.mulf %f, %xv : f32
    gpu.yield %s, %p : i32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<5xi32>, tensor<5xf32>) -> (tensor<5xi32>, tensor<5xf32>)
  return %y#0, %y#1 : tensor<5xi32>, tensor<5xf32>
}

func.func @mathops(%x: tensor<6xf64> {task.name = "x"}) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) {
  %y:5 = "task.map"(%x) ({
  ^bb0(%v: f64):
    %one = arith.constant 1.0 : f64
    %half = arith.constant 0.5 : f64
    %mhalf = arith.constant -0.5 : f64
    %p15 = arith.constant 1.5 : f64
    %th = math.tanh %v : f64
    %er = math.erf %v : f64
    %o0 = arith.addf %th, %er : f64
    %a = math.absf %v : f64
    %sq = math.sqrt %a : f64
    %a1 = arith.addf %a, %one : f64
    %rs = math.rsqrt %a1 : f64
    %o1 = arith.mulf %sq, %rs : f64
    %lg = math.log %a1 : f64
    %sn = math.sin %v : f64
    %cs = math.cos %v : f64
    %sc = arith.mulf %sn, %cs : f64
    %o2 = arith.subf %lg, %sc : f64
    %o3 = math.powf %a, %p15 : f64
    %mn = arith.minimumf %v, %half : f64
    %mx = arith.maximumf %v, %mhalf : f64
    %o4 = arith.addf %mn, %mx : f64
    gpu.yield %o0, %o1, %o2, %o3, %o4 : f64, f64, f64, f64, f64
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>} : (tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>)
  return %y#0, %y#1, %y#2, %y#3, %y#4 : tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>
}

func.func @no_inputs() -> tensor<3xi32> {
  %y = "task.map"() ({
    %c7 = arith.constant 7 : i32
    gpu.yield %c7 : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<3xi32>
  return %y : tensor<3xi32>
}

func.func @compare_select(%a: tensor<6xf64> {task.name = "a"}, %b: tensor<6xf64> {task.name = "b"}) -> tensor<6xf64> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%x: f64, %z: f64):
    %c42 = arith.constant 42.0 : f64
    %lt = arith.cmpf olt, %x, %z : f64
    %ge = arith.cmpf uge, %x, %z : f64
    %inner = arith.select %ge, %z, %c42 : f64
    %r = arith.select %lt, %x, %inner : f64
    gpu.yield %r : f64
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
  return %y : tensor<6xf64>
}
