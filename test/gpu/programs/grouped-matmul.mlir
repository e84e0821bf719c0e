// grouped-matmul.mlir - task.grouped_matmul alone: 4 groups ending at rows 10, 10 (empty), 30, 45; rows 45..47 are zero.
func.func @grouped_matmul(
    %x: tensor<48x32xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<4x32x24xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<48x24xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<48x32xf32>, tensor<4x32x24xf32>, tensor<4xi32>) -> tensor<48x24xf32>
  return %y : tensor<48x24xf32>
}
