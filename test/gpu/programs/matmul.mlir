// matmul.mlir - task.matmul alone, f32, 64x96 times 96x80 (GPU check: one update vs latch-interp fp64).
func.func @matmul(
    %a: tensor<64x96xf32> {task.name = "a"},
    %b: tensor<96x80xf32> {task.name = "b"})
    -> (tensor<64x80xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<64x96xf32>, tensor<96x80xf32>) -> tensor<64x80xf32>
  return %c : tensor<64x80xf32>
}
