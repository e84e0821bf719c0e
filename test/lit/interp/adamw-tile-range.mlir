// RUN: rm -rf %t && mkdir -p %t
// RUN: latch-interp %s --entry whole --random-inputs 7 --output-dir %t/whole
// RUN: latch-interp %s --entry parts --random-inputs 7 --output-dir %t/parts
// RUN: latch-interp %s --entry outside --random-inputs 7 --output-dir %t/outside
// RUN: cmp %t/whole/result0.npy %t/parts/result0.npy
// RUN: cmp %t/whole/result1.npy %t/parts/result1.npy
// RUN: cmp %t/whole/result2.npy %t/parts/result2.npy
// RUN: not cmp -s %t/whole/result0.npy %t/outside/result0.npy
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify)' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not latch-interp %s --entry beyond --random-inputs 1 --output-dir %t/beyond 2>&1 | FileCheck %s --check-prefix=RUNERR
// A task.adamw with `tile_range = [first, count]` updates the elements of those tiles of 2048 and passes
// the others of p, m and v through (latch-split-optimizer chains such parts, each reading the one
// before's results): three parts of one tile each give bitwise the whole step's p, m and v, here over
// 5000 elements (the last tile partial); a range that skips a tile leaves it as it was. A range past the
// tiles is an error for latch-verify and for latch-interp alike.
// RUNERR: error: 'task.adamw' tile_range must be [first, count] of the task's 2048-element tiles
func.func @whole(%p: tensor<5000xf32>, %g: tensor<5000xf32>, %m: tensor<5000xf32>, %v: tensor<5000xf32>)
    -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>) {
  %t = arith.constant dense<3> : tensor<i32>
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %t) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64} : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<i32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  return %p1, %m1, %v1 : tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>
}
func.func @parts(%p: tensor<5000xf32>, %g: tensor<5000xf32>, %m: tensor<5000xf32>, %v: tensor<5000xf32>)
    -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>) {
  %t = arith.constant dense<3> : tensor<i32>
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %t) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64, tile_range = array<i64: 0, 1>} : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<i32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  %p2, %m2, %v2 = "task.adamw"(%p1, %g, %m1, %v1, %t) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64, tile_range = array<i64: 1, 1>} : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<i32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  %p3, %m3, %v3 = "task.adamw"(%p2, %g, %m2, %v2, %t) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64, tile_range = array<i64: 2, 1>} : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<i32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  return %p3, %m3, %v3 : tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>
}
func.func @outside(%p: tensor<5000xf32>, %g: tensor<5000xf32>, %m: tensor<5000xf32>, %v: tensor<5000xf32>)
    -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>) {
  %t = arith.constant dense<3> : tensor<i32>
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %t) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64, tile_range = array<i64: 0, 2>} : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<i32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  return %p1, %m1, %v1 : tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>
}

// -----

// ERR: [[@LINE+3]]:{{[0-9]+}}: error: 'task.adamw' attribute 'tile_range' must be [first, count] of the 3 tiles of 2048 elements of 'p', got array<i64: 2, 2>
func.func @beyond(%p: tensor<5000xf32>, %g: tensor<5000xf32>, %m: tensor<5000xf32>, %v: tensor<5000xf32>) -> tensor<5000xf32> {
  %t = arith.constant dense<3> : tensor<i32>
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %t) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64, tile_range = array<i64: 2, 2>} : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<i32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  return %p1 : tensor<5000xf32>
}
