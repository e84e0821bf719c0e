// grouped-matmul-bf16.mlir - task.grouped_matmul on bf16 tensor cores: 4 groups ending at rows 101, 101 (empty), 351, 590 of 600, K 73 (odd: the last pair of k half empty), tiles spanning groups.
func.func @grouped_matmul_bf16(
    %x: tensor<600x73xbf16> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<4x73x200xbf16> {task.name = "w", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<600x200xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<600x73xbf16>, tensor<4x73x200xbf16>, tensor<4xi32>) -> tensor<600x200xf32>
  return %y : tensor<600x200xf32>
}
