// matmul-tiled-t.mlir - task.matmul alone, rank 3 with both transposes and M a multiple of 128 (the tiled product per batch), bf16 inputs, f32 result.
func.func @matmul_tiled_t(
    %a: tensor<2x72x256xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<2x136x72xbf16> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<2x256x136xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<2x72x256xbf16>, tensor<2x136x72xbf16>) -> tensor<2x256x136xf32>
  return %c : tensor<2x256x136xf32>
}
