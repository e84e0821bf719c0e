// attention-grad-long.mlir - task.attention_grad alone: 2200 tokens (the statistics of two chunks of 2048 query rows), 1 head of 8; causal and not, scale 0.3, f32.
func.func @attention_grad_long(
    %q: tensor<1x1x2200x8xf32> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<1x1x2200x8xf32> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<1x1x2200x8xf32> {task.name = "v", task.init_std = 1.0 : f64},
    %o: tensor<1x1x2200x8xf32> {task.name = "o", task.init_std = 1.0 : f64},
    %do: tensor<1x1x2200x8xf32> {task.name = "do", task.init_std = 1.0 : f64})
    -> (tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.3 : f64} : (tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>) -> (tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>)
  %dq2, %dk2, %dv2 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.3 : f64} : (tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>) -> (tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>)
  return %dq, %dk, %dv, %dq2, %dk2, %dv2 : tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>, tensor<1x1x2200x8xf32>
}
