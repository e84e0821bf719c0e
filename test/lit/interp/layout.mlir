// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen layout %t
// RUN: latch-interp %s --entry reshape --input arg0=%t/reshape/arg0.npy --output-dir %t/reshape
// RUN: latch-interp %s --entry transpose3 --input arg0=%t/transpose3/arg0.npy --output-dir %t/transpose3
// RUN: latch-interp %s --entry transpose_i32 --input arg0=%t/transpose_i32/arg0.npy --output-dir %t/transpose_i32
// RUN: latch-interp %s --entry f2i --input arg0=%t/f2i/arg0.npy --output-dir %t/f2i
// RUN: latch-interp %s --entry i2f --input arg0=%t/i2f/arg0.npy --output-dir %t/i2f
// RUN: latch-interp %s --entry f2bf --input arg0=%t/f2bf/arg0.npy --output-dir %t/f2bf
// RUN: python3 %S/Inputs/cases.py check layout %t | FileCheck %s
// task.reshape, task.transpose (float and i32), task.convert (float -> int truncates toward zero and
// saturates; int -> float; float -> bf16 keeps the value without --emulate).

// CHECK: ok reshape
// CHECK: ok transpose3
// CHECK: ok transpose_i32
// CHECK: ok f2i
// CHECK: ok i2f
// CHECK: ok f2bf

func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %y = "task.reshape"(%x) : (tensor<2x6xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
func.func @transpose3(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = "task.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %y : tensor<4x2x3xf32>
}
func.func @transpose_i32(%x: tensor<2x3xi32>) -> tensor<3x2xi32> {
  %y = "task.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  return %y : tensor<3x2xi32>
}
func.func @f2i(%x: tensor<7xf64>) -> tensor<7xi32> {
  %y = "task.convert"(%x) : (tensor<7xf64>) -> tensor<7xi32>
  return %y : tensor<7xi32>
}
func.func @i2f(%x: tensor<4xi32>) -> tensor<4xf32> {
  %y = "task.convert"(%x) : (tensor<4xi32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @f2bf(%x: tensor<3xf32>) -> tensor<3xbf16> {
  %y = "task.convert"(%x) : (tensor<3xf32>) -> tensor<3xbf16>
  return %y : tensor<3xbf16>
}
