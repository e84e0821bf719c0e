// rmsnorm-grad-wide.mlir - task.rmsnorm_grad alone: 1001 rows, 16 chunks of 64 rows (the parts summed as one block of 16), the last odd (41 rows); 600 columns, more than a warp's lanes hold (the inverse RMS by the loop over columns), 3 column tiles of dw, the last partial (88 columns).
func.func @rmsnorm_grad(
    %x: tensor<1001x600xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<600xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %dy: tensor<1001x600xf32> {task.name = "dy", task.init_std = 1.0 : f64})
    -> (tensor<1001x600xf32>, tensor<600xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.000000e-05 : f64} : (tensor<1001x600xf32>, tensor<600xf32>, tensor<1001x600xf32>) -> (tensor<1001x600xf32>, tensor<600xf32>)
  return %dx, %dw : tensor<1001x600xf32>, tensor<600xf32>
}
