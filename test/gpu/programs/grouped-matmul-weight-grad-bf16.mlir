// grouped-matmul-weight-grad-bf16.mlir - task.grouped_matmul_weight_grad on bf16 tensor cores: groups ending at 101, 101 (empty), 351, 590 of 600 (odd first rows: k pairs start at odd k), K 136 and N 200 over several tiles.
func.func @grouped_matmul_weight_grad_bf16(
    %x: tensor<600x136xbf16> {task.name = "x", task.init_std = 1.0 : f64},
    %dy: tensor<600x200xbf16> {task.name = "dy", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<4x136x200xf32>) {
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<600x136xbf16>, tensor<600x200xbf16>, tensor<4xi32>) -> tensor<4x136x200xf32>
  return %dw : tensor<4x136x200xf32>
}
