// rmsnorm-grad-odd.mlir - task.rmsnorm_grad alone: 601 rows, the last of its 10 chunks of 64 rows odd (25 rows: the dw tile's pairs of rows end on a clamped pair), 200 columns (a row in the warp's lanes), 38 dx tiles of 16 rows, the last of 9.
func.func @rmsnorm_grad(
    %x: tensor<601x200xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<200xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %dy: tensor<601x200xf32> {task.name = "dy", task.init_std = 1.0 : f64})
    -> (tensor<601x200xf32>, tensor<200xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.000000e-05 : f64} : (tensor<601x200xf32>, tensor<200xf32>, tensor<601x200xf32>) -> (tensor<601x200xf32>, tensor<200xf32>)
  return %dx, %dw : tensor<601x200xf32>, tensor<200xf32>
}
