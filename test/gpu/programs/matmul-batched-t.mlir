// matmul-batched-t.mlir - task.matmul alone, rank 3 with both transposes, f32.
func.func @matmul_batched_t(
    %a: tensor<2x96x64xf32> {task.name = "a"},
    %b: tensor<2x80x96xf32> {task.name = "b"})
    -> (tensor<2x64x80xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<2x96x64xf32>, tensor<2x80x96xf32>) -> tensor<2x64x80xf32>
  return %c : tensor<2x64x80xf32>
}
