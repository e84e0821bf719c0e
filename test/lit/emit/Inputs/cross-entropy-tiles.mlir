func.func @cross_entropy(%l: tensor<16x33xbf16>, %t: tensor<16xi32>) -> tensor<f32> {
  %loss = "task.cross_entropy"(%l, %t) : (tensor<16x33xbf16>, tensor<16xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
