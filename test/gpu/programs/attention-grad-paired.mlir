// attention-grad-paired.mlir - task.attention_grad alone: causal, 1x2 heads, 256 tokens of 16 (latch_attention_grad_tile_rows: the split gradient's 128-row tiles on the warp-per-row template), scale 0.25, f32.
func.func @attention_grad_paired(
    %q: tensor<1x2x256x16xf32> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<1x2x256x16xf32> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<1x2x256x16xf32> {task.name = "v", task.init_std = 1.0 : f64},
    %o: tensor<1x2x256x16xf32> {task.name = "o", task.init_std = 1.0 : f64},
    %do: tensor<1x2x256x16xf32> {task.name = "do", task.init_std = 1.0 : f64})
    -> (tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64} : (tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>) -> (tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>)
  return %dq, %dk, %dv : tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>, tensor<1x2x256x16xf32>
}
