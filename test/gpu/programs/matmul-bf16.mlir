// matmul-bf16.mlir - task.matmul alone, bf16 inputs and bf16 result (fp32 accumulation, one bf16 rounding on store).
func.func @matmul_bf16(
    %a: tensor<64x96xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<96x80xbf16> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<64x80xbf16>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<64x96xbf16>, tensor<96x80xbf16>) -> tensor<64x80xbf16>
  return %c : tensor<64x80xbf16>
}
