// reshape.mlir - task.reshape alone: 6x40 to 12x20, f32.
func.func @reshape(
    %x: tensor<6x40xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<12x20xf32>) {
  %y = "task.reshape"(%x) : (tensor<6x40xf32>) -> tensor<12x20xf32>
  return %y : tensor<12x20xf32>
}
