// attention.mlir - task.attention alone: causal, 2x4 heads, 32 tokens of 16, scale 0.25, f32.
func.func @attention(
    %q: tensor<2x4x32x16xf32> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<2x4x32x16xf32> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<2x4x32x16xf32> {task.name = "v", task.init_std = 1.0 : f64})
    -> (tensor<2x4x32x16xf32>) {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.25 : f64} : (tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}
