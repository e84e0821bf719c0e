// A one-task program (test/lit/lower/errors.mlir).
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
