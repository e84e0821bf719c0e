// reduce-mean.mlir - task.reduce alone: mean over axis 0 of 8x300x4, f32.
func.func @reduce_mean(
    %x: tensor<8x300x4xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<300x4xf32>) {
  %y = "task.reduce"(%x) {axis = 0, kind = "mean"} : (tensor<8x300x4xf32>) -> tensor<300x4xf32>
  return %y : tensor<300x4xf32>
}
