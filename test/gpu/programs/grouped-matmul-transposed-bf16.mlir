// grouped-matmul-transposed-bf16.mlir - task.grouped_matmul with transpose_w (latch-autodiff's dx = dy w[g]^T) on bf16 tensor cores: w is [G, N, K] = [4, 200, 64], read k-contiguous; 4 groups ending at rows 101, 101 (empty), 351, 590 of 600 (the rows after 590 give 0), tiles spanning groups.
func.func @grouped_matmul_transposed_bf16(
    %x: tensor<600x64xbf16> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<4x200x64xbf16> {task.name = "w", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<600x200xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) {transpose_w = true} : (tensor<600x64xbf16>, tensor<4x200x64xbf16>, tensor<4xi32>) -> tensor<600x200xf32>
  return %y : tensor<600x200xf32>
}
