// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen rmsnorm %t/rms && python3 %S/Inputs/cases.py gen softmax %t/sm && python3 %S/Inputs/cases.py gen cross-entropy %t/ce
// RUN: latch-interp %s --entry rms3 --input x=%t/rms/rms3/x.npy --input w=%t/rms/rms3/w.npy --output-dir %t/rms/rms3
// RUN: latch-interp %s --entry rms_small --input x=%t/rms/rms_small/x.npy --input w=%t/rms/rms_small/w.npy --output-dir %t/rms/rms_small
// RUN: latch-interp %s --entry sm --input x=%t/sm/sm/x.npy --output-dir %t/sm/sm
// RUN: latch-interp %s --entry sm3 --input x=%t/sm/sm3/x.npy --output-dir %t/sm/sm3
// RUN: latch-interp %s --entry ce --input logits=%t/ce/ce/logits.npy --input targets=%t/ce/ce/targets.npy --output-dir %t/ce/ce
// RUN: latch-interp %s --entry ce_large --input logits=%t/ce/ce_large/logits.npy --input targets=%t/ce/ce_large/targets.npy --output-dir %t/ce/ce_large
// RUN: python3 %S/Inputs/cases.py check rmsnorm %t/rms | FileCheck %s --check-prefix=RMS
// RUN: python3 %S/Inputs/cases.py check softmax %t/sm | FileCheck %s --check-prefix=SM
// RUN: python3 %S/Inputs/cases.py check cross-entropy %t/ce | FileCheck %s --check-prefix=CE
// task.rmsnorm (eps matters for tiny inputs), task.softmax (large logits need the max subtracted),
// task.cross_entropy (mean of -log softmax at the targets).

// RMS: ok rms3
// RMS: ok rms_small
// SM: ok sm
// SM: ok sm3
// CE: ok ce
// CE: ok ce_large

func.func @rms3(%x: tensor<2x3x4xf32> {task.name = "x"}, %w: tensor<4xf32> {task.name = "w"}) -> tensor<2x3x4xf32> {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}
func.func @rms_small(%x: tensor<2x3xf32> {task.name = "x"}, %w: tensor<3xf32> {task.name = "w"}) -> tensor<2x3xf32> {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @sm(%x: tensor<3x5xf32> {task.name = "x"}) -> tensor<3x5xf32> {
  %y = "task.softmax"(%x) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}
func.func @sm3(%x: tensor<2x2x3xf32> {task.name = "x"}) -> tensor<2x2x3xf32> {
  %y = "task.softmax"(%x) : (tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  return %y : tensor<2x2x3xf32>
}
func.func @ce(%l: tensor<4x6xf32> {task.name = "logits"}, %t: tensor<4xi32> {task.name = "targets"}) -> tensor<f32> {
  %y = "task.cross_entropy"(%l, %t) : (tensor<4x6xf32>, tensor<4xi32>) -> tensor<f32>
  return %y : tensor<f32>
}
func.func @ce_large(%l: tensor<3x4xf32> {task.name = "logits"}, %t: tensor<3xi32> {task.name = "targets"}) -> tensor<f32> {
  %y = "task.cross_entropy"(%l, %t) : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<f32>
  return %y : tensor<f32>
}
