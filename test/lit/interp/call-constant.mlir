// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen call %t
// RUN: latch-interp %s --entry main --input x=%t/main/x.npy --output-dir %t/main
// RUN: python3 %S/Inputs/cases.py check call %t | FileCheck %s
// func.call of another function of the module (twice), arith.constant of tensor type: dense splat and
// dense elements of f32, i32, bf16 and f64.

// CHECK: ok main

func.func private @helper(%x: tensor<2x3xf32>, %w: tensor<3x3xf32>) -> tensor<2x3xf32> {
  %y = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @main(%x: tensor<2x3xf32> {task.name = "x"})
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xi32>, tensor<2xbf16>, tensor<2xf64>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>
  %s = arith.constant dense<2.0> : tensor<3x3xf32>
  %i = arith.constant dense<[3, -1]> : tensor<2xi32>
  %b = arith.constant dense<[1.5, -2.25]> : tensor<2xbf16>
  %d = arith.constant dense<[0.1, 0.2]> : tensor<2xf64>
  %y0 = func.call @helper(%x, %c) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %y1 = func.call @helper(%x, %s) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return %y0, %y1, %i, %b, %d : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xi32>, tensor<2xbf16>, tensor<2xf64>
}
