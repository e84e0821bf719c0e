// matmul-split-bf16.mlir - task.matmul with few output tiles and a deep k: [200 x 4000] x [4000 x 136] (4 tiles of 128 x 128) splits k into 7 slices (576 deep, the last 544) whose partial sums meet in pooled task scratch; bf16 tensor cores, f32 result.
func.func @matmul_split_bf16(
    %a: tensor<200x4000xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<4000x136xbf16> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<200x136xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<200x4000xbf16>, tensor<4000x136xbf16>) -> tensor<200x136xf32>
  return %c : tensor<200x136xf32>
}
