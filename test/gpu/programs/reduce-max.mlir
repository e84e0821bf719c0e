// reduce-max.mlir - task.reduce alone: max over axis 2 of 8x300x4, f32.
func.func @reduce_max(
    %x: tensor<8x300x4xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<8x300xf32>) {
  %y = "task.reduce"(%x) {axis = 2, kind = "max"} : (tensor<8x300x4xf32>) -> tensor<8x300xf32>
  return %y : tensor<8x300xf32>
}
