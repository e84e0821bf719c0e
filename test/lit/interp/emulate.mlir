// RUN: rm -rf %t && python3 %S/Inputs/rules.py emulate-gen %t
// RUN: latch-interp %s --entry em --input x=%t/x.npy --input d=%t/d.npy --output-dir %t/none
// RUN: latch-interp %s --entry em --input x=%t/x.npy --input d=%t/d.npy --emulate=fp32 --output-dir %t/fp32
// RUN: latch-interp %s --entry em --input x=%t/x.npy --input d=%t/d.npy --emulate=bf16 --output-dir %t/bf16
// RUN: python3 %S/Inputs/rules.py emulate-check none %t/none | FileCheck %s --check-prefix=NONE
// RUN: python3 %S/Inputs/rules.py emulate-check fp32 %t/fp32 | FileCheck %s --check-prefix=FP32
// RUN: python3 %S/Inputs/rules.py emulate-check bf16 %t/bf16 | FileCheck %s --check-prefix=BF16
// --emulate: without it nothing is rounded; fp32 rounds every stored float tensor to f32 (inputs when
// loaded, f64 tensors too); bf16 rounds to the declared dtype (f64 stays f64). Arithmetic inside an op
// stays fp64 (the matmul of bf16 operands is rounded once, to its f32 result).

// NONE: ok emulate=none
// FP32: ok emulate=fp32
// BF16: ok emulate=bf16

func.func @em(%x: tensor<4xf32> {task.name = "x"}, %d: tensor<2xf64> {task.name = "d"})
    -> (tensor<4xf32>, tensor<4xbf16>, tensor<2xf64>, tensor<4xf32>, tensor<1x1xf32>) {
  %r0 = "task.reshape"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r1 = "task.convert"(%x) : (tensor<4xf32>) -> tensor<4xbf16>
  %r2 = "task.reshape"(%d) : (tensor<2xf64>) -> tensor<2xf64>
  %r3 = "task.convert"(%r1) : (tensor<4xbf16>) -> tensor<4xf32>
  %row = "task.reshape"(%r1) : (tensor<4xbf16>) -> tensor<1x4xbf16>
  %col = "task.reshape"(%r1) : (tensor<4xbf16>) -> tensor<4x1xbf16>
  %r4 = "task.matmul"(%row, %col) {transpose_a = false, transpose_b = false} : (tensor<1x4xbf16>, tensor<4x1xbf16>) -> tensor<1x1xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<4xf32>, tensor<4xbf16>, tensor<2xf64>, tensor<4xf32>, tensor<1x1xf32>
}
