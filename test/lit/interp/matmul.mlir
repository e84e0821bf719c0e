// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen matmul %t
// RUN: latch-interp %s --entry nn --input arg0=%t/nn/arg0.npy --input arg1=%t/nn/arg1.npy --output-dir %t/nn
// RUN: latch-interp %s --entry tn --input arg0=%t/tn/arg0.npy --input arg1=%t/tn/arg1.npy --output-dir %t/tn
// RUN: latch-interp %s --entry nt --input arg0=%t/nt/arg0.npy --input arg1=%t/nt/arg1.npy --output-dir %t/nt
// RUN: latch-interp %s --entry tt --input arg0=%t/tt/arg0.npy --input arg1=%t/tt/arg1.npy --output-dir %t/tt
// RUN: latch-interp %s --entry batched --input arg0=%t/batched/arg0.npy --input arg1=%t/batched/arg1.npy --output-dir %t/batched
// RUN: latch-interp %s --entry wide --input arg0=%t/wide/arg0.npy --input arg1=%t/wide/arg1.npy --output-dir %t/wide
// RUN: python3 %S/Inputs/cases.py check matmul %t | FileCheck %s
// task.matmul: c = op(a) x op(b), every transpose combination, rank 3 with a batch dim, f64.

// CHECK: ok nn
// CHECK: ok tn
// CHECK: ok nt
// CHECK: ok tt
// CHECK: ok batched
// CHECK: ok wide

func.func @nn(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}
func.func @tn(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = false} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}
func.func @nt(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}
func.func @tt(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}
func.func @batched(%a: tensor<2x3x4xbf16>, %b: tensor<2x5x4xbf16>) -> tensor<2x3x5xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<2x3x4xbf16>, tensor<2x5x4xbf16>) -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}
func.func @wide(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>) -> tensor<2x2xf64> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  return %c : tensor<2x2xf64>
}
