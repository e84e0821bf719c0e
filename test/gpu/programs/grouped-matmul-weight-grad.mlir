// grouped-matmul-weight-grad.mlir - task.grouped_matmul_weight_grad alone: dw[g] = x[rows of g]^T dy[rows of g], 4 groups ending at 100, 100 (empty), 350, 590 of 600, K 136 and N 200 over several tiles, f32.
func.func @grouped_matmul_weight_grad(
    %x: tensor<600x136xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %dy: tensor<600x200xf32> {task.name = "dy", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<4x136x200xf32>) {
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<600x136xf32>, tensor<600x200xf32>, tensor<4xi32>) -> tensor<4x136x200xf32>
  return %dw : tensor<4x136x200xf32>
}
