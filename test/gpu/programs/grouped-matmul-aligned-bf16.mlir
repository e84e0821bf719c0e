// grouped-matmul-aligned-bf16.mlir - task.grouped_matmul on bf16 tensor cores with 16-byte-aligned rows (K 64, N 200): groups ending at rows 101, 101 (empty), 351, 590 of 600, so that tiles cut groups and the 16-byte loads of x meet rows of other groups; w staged by 16-byte loads of columns, the last 8 of 200 in a partial chunk.
func.func @grouped_matmul_aligned_bf16(
    %x: tensor<600x64xbf16> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<4x64x200xbf16> {task.name = "w", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<600x200xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<600x64xbf16>, tensor<4x64x200xbf16>, tensor<4xi32>) -> tensor<600x200xf32>
  return %y : tensor<600x200xf32>
}
