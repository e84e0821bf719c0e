// reduce-sum.mlir - task.reduce alone: sum over axis 1 of 8x300x4, f32.
func.func @reduce_sum(
    %x: tensor<8x300x4xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<8x4xf32>) {
  %y = "task.reduce"(%x) {axis = 1, kind = "sum"} : (tensor<8x300x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
