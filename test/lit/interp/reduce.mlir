// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen reduce %t
// RUN: latch-interp %s --entry sum0 --input arg0=%t/sum0/arg0.npy --output-dir %t/sum0
// RUN: latch-interp %s --entry max2 --input arg0=%t/max2/arg0.npy --output-dir %t/max2
// RUN: latch-interp %s --entry mean1 --input arg0=%t/mean1/arg0.npy --output-dir %t/mean1
// RUN: latch-interp %s --entry isum --input arg0=%t/isum/arg0.npy --output-dir %t/isum
// RUN: latch-interp %s --entry to_scalar --input arg0=%t/to_scalar/arg0.npy --output-dir %t/to_scalar
// RUN: python3 %S/Inputs/cases.py check reduce %t | FileCheck %s
// task.reduce: sum, max and mean over each axis position, an i32 sum, and a reduction to rank 0.

// CHECK: ok sum0
// CHECK: ok max2
// CHECK: ok mean1
// CHECK: ok isum
// CHECK: ok to_scalar

func.func @sum0(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  %y = "task.reduce"(%x) {axis = 0, kind = "sum"} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
func.func @max2(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %y = "task.reduce"(%x) {axis = 2, kind = "max"} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @mean1(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %y = "task.reduce"(%x) {axis = 1, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
func.func @isum(%x: tensor<3x4xi32>) -> tensor<3xi32> {
  %y = "task.reduce"(%x) {axis = 1, kind = "sum"} : (tensor<3x4xi32>) -> tensor<3xi32>
  return %y : tensor<3xi32>
}
func.func @to_scalar(%x: tensor<5xf64>) -> tensor<f64> {
  %y = "task.reduce"(%x) {axis = 0, kind = "sum"} : (tensor<5xf64>) -> tensor<f64>
  return %y : tensor<f64>
}
