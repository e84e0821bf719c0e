// An attention with layout = "bthd" on f32 tensors, which no tensor-core template lowers (test/lit/lower/errors.mlir).
func.func @f(%q: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  %o = "task.attention"(%q, %q, %q) {causal = true, layout = "bthd", scale = 2.500000e-01 : f64} : (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
