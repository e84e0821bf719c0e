// grouped-matmul-tiled.mlir - task.grouped_matmul over several tiles: 4 groups ending at rows 100, 100 (empty), 350, 590 of 600 (tiles spanning groups, rows past the last end are zero).
func.func @grouped_matmul_tiled(
    %x: tensor<600x72xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<4x72x200xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<600x200xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<600x72xf32>, tensor<4x72x200xf32>, tensor<4xi32>) -> tensor<600x200xf32>
  return %y : tensor<600x200xf32>
}
