// Gradients through task.map bodies: every scalar rule of latch-autodiff's scalar_vjp (addf subf mulf
// divf negf maximumf minimumf maxnumf minnumf select extf truncf exp log sqrt rsqrt tanh sin cos absf
// erf powf), a value from above the body, a rank-0 (broadcast) input and a map with two outputs agree
// with central differences (latch-interp --gradcheck, fp64, relative L2 error below 1e-6).
// Each program ends in loss = sum(y * w) with w a fixed random weighting; parameters have std 1.
// Kinks: maximumf/minimumf/maxnumf/minnumf (at a tie of their operands) and absf (at 0) are not
// differentiable there. The operands are random fp64 values, so an exact tie has probability zero, and
// @max_min_gaps and @abs_erf_gaps print the smallest distance of any element to its kink: it must be far
// above h = 1e-5 * max(1, |p|) (at most 5e-5 here), the largest move a central difference makes. The
// select condition compares a non-parameter input, so no perturbation flips it. log, sqrt, rsqrt and
// powf take positive arguments by construction (x*x + c).
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-verify,latch-autodiff,latch-verify)' -o %t.mlir
// RUN: latch-interp %t.mlir --entry add_sub_mul --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=ADDSUBMUL
// RUN: latch-interp %t.mlir --entry div_neg --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=DIVNEG
// RUN: latch-interp %t.mlir --entry max_min --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=MAXMIN
// RUN: latch-interp %t.mlir --entry max_min_gaps --init 1 --random-inputs 2 --output-dir %t/max_min_gaps
// RUN: python3 %S/Inputs/mingap.py %t/max_min_gaps/result0.npy 1e-3 | FileCheck %s --check-prefix=GAP
// RUN: latch-interp %t.mlir --entry select --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=SELECT
// RUN: latch-interp %t.mlir --entry ext_trunc --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=EXTTRUNC
// RUN: latch-interp %t.mlir --entry exp_log --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=EXPLOG
// RUN: latch-interp %t.mlir --entry sqrt_rsqrt --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=SQRTRSQRT
// RUN: latch-interp %t.mlir --entry tanh_sin_cos --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=TANHSINCOS
// RUN: latch-interp %t.mlir --entry abs_erf --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=ABSERF
// RUN: latch-interp %t.mlir --entry abs_erf_gaps --init 1 --random-inputs 2 --output-dir %t/abs_erf_gaps
// RUN: python3 %S/Inputs/mingap.py %t/abs_erf_gaps/result0.npy 1e-3 | FileCheck %s --check-prefix=GAP
// RUN: latch-interp %t.mlir --entry powf --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=POWF
// RUN: latch-interp %t.mlir --entry broadcast --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=BROADCAST
// RUN: latch-interp %t.mlir --entry two_outputs --gradcheck --init 1 --random-inputs 2 | FileCheck %s --check-prefix=TWOOUTPUTS

// ADDSUBMUL: {{^}}a {{.*}} PASS
// ADDSUBMUL: {{^}}b {{.*}} PASS
// ADDSUBMUL: gradcheck: ok, 2 of 2 gradients within 1e-06
// DIVNEG: {{^}}a {{.*}} PASS
// DIVNEG: {{^}}b {{.*}} PASS
// DIVNEG: gradcheck: ok, 2 of 2 gradients within 1e-06
// MAXMIN: {{^}}a {{.*}} PASS
// MAXMIN: {{^}}b {{.*}} PASS
// MAXMIN: {{^}}c {{.*}} PASS
// MAXMIN: gradcheck: ok, 3 of 3 gradients within 1e-06
// SELECT: {{^}}a {{.*}} PASS
// SELECT: {{^}}b {{.*}} PASS
// SELECT: gradcheck: ok, 2 of 2 gradients within 1e-06
// EXTTRUNC: {{^}}a {{.*}} PASS
// EXTTRUNC: gradcheck: ok, 1 of 1 gradients within 1e-06
// EXPLOG: {{^}}a {{.*}} PASS
// EXPLOG: {{^}}b {{.*}} PASS
// EXPLOG: gradcheck: ok, 2 of 2 gradients within 1e-06
// SQRTRSQRT: {{^}}a {{.*}} PASS
// SQRTRSQRT: {{^}}b {{.*}} PASS
// SQRTRSQRT: gradcheck: ok, 2 of 2 gradients within 1e-06
// TANHSINCOS: {{^}}a {{.*}} PASS
// TANHSINCOS: {{^}}b {{.*}} PASS
// TANHSINCOS: gradcheck: ok, 2 of 2 gradients within 1e-06
// ABSERF: {{^}}a {{.*}} PASS
// ABSERF: {{^}}b {{.*}} PASS
// ABSERF: gradcheck: ok, 2 of 2 gradients within 1e-06
// POWF: {{^}}a {{.*}} PASS
// POWF: {{^}}b {{.*}} PASS
// POWF: gradcheck: ok, 2 of 2 gradients within 1e-06
// BROADCAST: {{^}}s {{.*}} PASS
// BROADCAST: {{^}}a {{.*}} PASS
// BROADCAST: gradcheck: ok, 2 of 2 gradients within 1e-06
// TWOOUTPUTS: {{^}}a {{.*}} PASS
// TWOOUTPUTS: {{^}}b {{.*}} PASS
// TWOOUTPUTS: gradcheck: ok, 2 of 2 gradients within 1e-06
// GAP: smallest distance to a kink: {{.*}} (ok: above 1e-03)

func.func @add_sub_mul(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %s = arith.addf %a_, %b_ : f32
    %d = arith.subf %a_, %b_ : f32
    %r = arith.mulf %s, %d : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @div_neg(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  // A constant from above the body, as canonicalize leaves it.
  %half = arith.constant 0.5 : f32
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %bb = arith.mulf %b_, %b_ : f32
    %den = arith.addf %bb, %half : f32
    %q = arith.divf %a_, %den : f32
    %r = arith.negf %q : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @max_min(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %c: tensor<2x3xf32> {task.name = "c", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b, %c) ({
  ^bb0(%a_: f32, %b_: f32, %c_: f32):
    %t1 = arith.maximumf %a_, %b_ : f32
    %t2 = arith.minimumf %a_, %c_ : f32
    %t3 = arith.maxnumf %b_, %c_ : f32
    %t4 = arith.minnumf %c_, %a_ : f32
    %t12 = arith.mulf %t1, %t2 : f32
    %t34 = arith.mulf %t3, %t4 : f32
    %r = arith.addf %t12, %t34 : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @select(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %s: tensor<2x3xf32> {task.name = "s", task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b, %s) ({
  ^bb0(%a_: f32, %b_: f32, %s_: f32):
    %zero = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %s_, %zero : f32
    %ab = arith.mulf %a_, %b_ : f32
    %r = arith.select %c, %ab, %b_ : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @ext_trunc(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a) ({
  ^bb0(%a_: f32):
    %e = arith.extf %a_ : f32 to f64
    %sq = arith.mulf %e, %e : f64
    %tr = arith.truncf %sq : f64 to f32
    %r = arith.addf %tr, %a_ : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @exp_log(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %e = math.exp %a_ : f32
    %bb = arith.mulf %b_, %b_ : f32
    %s = arith.addf %e, %bb : f32
    %r = math.log %s : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @sqrt_rsqrt(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %aa = arith.mulf %a_, %a_ : f32
    %a1 = arith.addf %aa, %one : f32
    %sq = math.sqrt %a1 : f32
    %bb = arith.mulf %b_, %b_ : f32
    %b1 = arith.addf %bb, %half : f32
    %rs = math.rsqrt %b1 : f32
    %r = arith.mulf %sq, %rs : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @tanh_sin_cos(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %th = math.tanh %a_ : f32
    %sn = math.sin %b_ : f32
    %cs = math.cos %a_ : f32
    %sc = arith.mulf %sn, %cs : f32
    %r = arith.addf %th, %sc : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @abs_erf(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %ab = math.absf %a_ : f32
    %er = math.erf %b_ : f32
    %r = arith.mulf %ab, %er : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @powf(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %half = arith.constant 0.5 : f32
    %aa = arith.mulf %a_, %a_ : f32
    %base = arith.addf %aa, %half : f32
    %r = math.powf %base, %b_ : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @broadcast(%s: tensor<f32> {task.name = "s", task.param, task.init_std = 1.0 : f64}, %a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%s, %a) ({
  ^bb0(%sv: f32, %av: f32):
    %as = arith.mulf %av, %sv : f32
    %ss = arith.mulf %sv, %sv : f32
    %r = arith.addf %as, %ss : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @two_outputs(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %yy:2 = "task.map"(%a, %b) ({
  ^bb0(%av: f32, %bv: f32):
    %m = arith.mulf %av, %bv : f32
    %e = math.exp %av : f32
    %d = arith.subf %e, %bv : f32
    gpu.yield %m, %d : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %y = "task.map"(%yy#0, %yy#1) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.mulf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %yw = "task.map"(%y, %w) ({
  ^bb0(%yv: f32, %wv: f32):
    %r = arith.mulf %yv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %flat = "task.reshape"(%yw) : (tensor<2x3xf32>) -> tensor<6xf32>
  %loss = "task.reduce"(%flat) {axis = 0 : i64, kind = "sum"} : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @max_min_gaps(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %c: tensor<2x3xf32> {task.name = "c", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<2x3xf32> {
  %g = "task.map"(%a, %b, %c) ({
  ^bb0(%a_: f32, %b_: f32, %c_: f32):
    %ab = arith.subf %a_, %b_ : f32
    %ac = arith.subf %a_, %c_ : f32
    %bc = arith.subf %b_, %c_ : f32
    %x = math.absf %ab : f32
    %y = math.absf %ac : f32
    %z = math.absf %bc : f32
    %xy = arith.minimumf %x, %y : f32
    %r = arith.minimumf %xy, %z : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

func.func @abs_erf_gaps(%a: tensor<2x3xf32> {task.name = "a", task.param, task.init_std = 1.0 : f64}, %b: tensor<2x3xf32> {task.name = "b", task.param, task.init_std = 1.0 : f64}, %w: tensor<2x3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<2x3xf32> {
  %g = "task.map"(%a, %b) ({
  ^bb0(%a_: f32, %b_: f32):
    %r = math.absf %a_ : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}
