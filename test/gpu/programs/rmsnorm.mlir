// rmsnorm.mlir - task.rmsnorm alone over the last axis of 4x16x96, eps 1e-5, f32.
func.func @rmsnorm(
    %x: tensor<4x16x96xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<96xf32> {task.name = "w", task.init_std = 1.0 : f64})
    -> (tensor<4x16x96xf32>) {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<4x16x96xf32>, tensor<96xf32>) -> tensor<4x16x96xf32>
  return %y : tensor<4x16x96xf32>
}
