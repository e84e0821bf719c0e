// rope.mlir - task.rope alone on 2x16x4x32, theta 10000, f32.
func.func @rope(
    %x: tensor<2x16x4x32xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<2x16x4x32xf32>) {
  %y = "task.rope"(%x) {theta = 10000.0 : f64} : (tensor<2x16x4x32xf32>) -> tensor<2x16x4x32xf32>
  return %y : tensor<2x16x4x32xf32>
}
