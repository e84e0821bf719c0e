// grouped-columns-bf16.mlir - latch-fold-weight-split's two forms on bf16 tensor cores: task.grouped_matmul
// reading the column halves of w [4, 64, 512] in place (w_column_offset 0 and 256, and 256 with transpose_w,
// where the slice is of K), and task.grouped_matmul_weight_grad_concat writing dw [4, 136, 512] from dy0 and
// dy1 [600, 256]; groups ending at rows 101, 101 (empty), 351, 590 of 600.
func.func @grouped_columns_bf16(
    %x: tensor<600x64xbf16> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<4x64x512xbf16> {task.name = "w", task.init_std = 1.0 : f64},
    %d: tensor<600x256xbf16> {task.name = "d", task.init_std = 1.0 : f64},
    %xg: tensor<600x136xbf16> {task.name = "xg", task.init_std = 1.0 : f64},
    %dy0: tensor<600x256xbf16> {task.name = "dy0", task.init_std = 1.0 : f64},
    %dy1: tensor<600x256xbf16> {task.name = "dy1", task.init_std = 1.0 : f64},
    %ends: tensor<4xi32> {task.name = "ends"})
    -> (tensor<600x256xf32>, tensor<600x256xf32>, tensor<600x64xf32>, tensor<4x136x512xf32>) {
  %a = "task.grouped_matmul"(%x, %w, %ends) {w_column_offset = 0 : i64} : (tensor<600x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32>) -> tensor<600x256xf32>
  %b = "task.grouped_matmul"(%x, %w, %ends) {w_column_offset = 256 : i64} : (tensor<600x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32>) -> tensor<600x256xf32>
  %dx = "task.grouped_matmul"(%d, %w, %ends) {transpose_w = true, w_column_offset = 256 : i64} : (tensor<600x256xbf16>, tensor<4x64x512xbf16>, tensor<4xi32>) -> tensor<600x64xf32>
  %dw = "task.grouped_matmul_weight_grad_concat"(%xg, %dy0, %dy1, %ends) : (tensor<600x136xbf16>, tensor<600x256xbf16>, tensor<600x256xbf16>, tensor<4xi32>) -> tensor<4x136x512xf32>
  return %a, %b, %dx, %dw : tensor<600x256xf32>, tensor<600x256xf32>, tensor<600x64xf32>, tensor<4x136x512xf32>
}
