func.func @cross_entropy(%l: tensor<70x33xbf16>, %t: tensor<70xi32>) -> tensor<f32> {
  %loss = "task.cross_entropy"(%l, %t) : (tensor<70x33xbf16>, tensor<70xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
