// A program of f64 tensors, which the device does not store (test/lit/lower/errors.mlir).
func.func @f(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %y = "task.softmax"(%x) : (tensor<4x8xf64>) -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}
