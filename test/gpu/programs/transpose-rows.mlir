// transpose-rows.mlir - element-wise tasks by 16-byte vectors: task.transpose keeping the last axis
// ([3, 700, 2, 16] to [3, 2, 700, 16]) in bf16 (8 elements per vector) and f32 (4), 8 full tiles and a
// partial one, and task.convert f32 -> bf16 and bf16 -> f32 (vectors of 8).
func.func @transpose_rows(
    %x: tensor<3x700x2x16xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<3x2x700x16xbf16>, tensor<3x2x700x16xf32>, tensor<3x2x700x16xf32>) {
  %h = "task.convert"(%x) : (tensor<3x700x2x16xf32>) -> tensor<3x700x2x16xbf16>
  %y = "task.transpose"(%h) {perm = array<i64: 0, 2, 1, 3>} : (tensor<3x700x2x16xbf16>) -> tensor<3x2x700x16xbf16>
  %z = "task.transpose"(%x) {perm = array<i64: 0, 2, 1, 3>} : (tensor<3x700x2x16xf32>) -> tensor<3x2x700x16xf32>
  %w = "task.convert"(%y) : (tensor<3x2x700x16xbf16>) -> tensor<3x2x700x16xf32>
  return %y, %z, %w : tensor<3x2x700x16xbf16>, tensor<3x2x700x16xf32>, tensor<3x2x700x16xf32>
}
