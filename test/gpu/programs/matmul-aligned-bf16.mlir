// matmul-aligned-bf16.mlir - task.matmul on bf16 tensor cores with 16-byte-aligned rows (K 96): [200 x 96] x [136 x 96]^T, both operands k-contiguous and staged by 16-byte loads, partial tiles in M and N, f32 result.
func.func @matmul_aligned_bf16(
    %a: tensor<200x96xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<136x96xbf16> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<200x136xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<200x96xbf16>, tensor<136x96xbf16>) -> tensor<200x136xf32>
  return %c : tensor<200x136xf32>
}
