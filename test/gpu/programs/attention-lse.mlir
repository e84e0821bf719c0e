// attention-lse.mlir - attention and its gradient of the same q, k, v (pipeline forward: the forward
// becomes task.attention_lse and the statistics task.attention_stats_from_lse) on the warp-per-row
// templates (f32, heads of 16 and 8): causal at 1 x 2 heads of 40 tokens, not causal at 2 x 1 head of
// 7 queries and 11 keys with a narrower v.
func.func @attention_lse(
    %q: tensor<1x2x40x16xf32> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<1x2x40x16xf32> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<1x2x40x16xf32> {task.name = "v", task.init_std = 1.0 : f64},
    %do: tensor<1x2x40x16xf32> {task.name = "do", task.init_std = 1.0 : f64},
    %q2: tensor<2x1x7x8xf32> {task.name = "q2", task.init_std = 1.0 : f64},
    %k2: tensor<2x1x11x8xf32> {task.name = "k2", task.init_std = 1.0 : f64},
    %v2: tensor<2x1x11x4xf32> {task.name = "v2", task.init_std = 1.0 : f64},
    %do2: tensor<2x1x7x4xf32> {task.name = "do2", task.init_std = 1.0 : f64})
    -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<2x1x7x4xf32>, tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>) {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.25 : f64} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> tensor<1x2x40x16xf32>
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
  %o2 = "task.attention"(%q2, %k2, %v2) {causal = false, scale = 0.5 : f64} : (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>) -> tensor<2x1x7x4xf32>
  %dq2, %dk2, %dv2 = "task.attention_grad"(%q2, %k2, %v2, %o2, %do2) {causal = false, scale = 0.5 : f64} : (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>, tensor<2x1x7x4xf32>, tensor<2x1x7x4xf32>) -> (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>)
  return %o, %dq, %dk, %dv, %o2, %dq2, %dk2, %dv2 : tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<2x1x7x4xf32>, tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>
}
