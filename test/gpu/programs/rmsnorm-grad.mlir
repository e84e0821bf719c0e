// rmsnorm-grad.mlir - task.rmsnorm_grad alone over several tiles: 600 rows (dw in 10 chunks of 64 rows that meet in task scratch) x 200 columns (one column tile of dw, partial).
func.func @rmsnorm_grad(
    %x: tensor<600x200xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<200xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %dy: tensor<600x200xf32> {task.name = "dy", task.init_std = 1.0 : f64})
    -> (tensor<600x200xf32>, tensor<200xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.000000e-05 : f64} : (tensor<600x200xf32>, tensor<200xf32>, tensor<600x200xf32>) -> (tensor<600x200xf32>, tensor<200xf32>)
  return %dx, %dw : tensor<600x200xf32>, tensor<200xf32>
}
