// Causal attention backward at TinyMoE 2x1024 (split by latch-split-attention-grad): B 2, H 8, T 1024, head 64.
func.func @k(%q: tensor<2x8x1024x64xbf16> {task.name = "q", task.init_std = 1.0 : f64},
             %k: tensor<2x8x1024x64xbf16> {task.name = "k", task.init_std = 1.0 : f64},
             %v: tensor<2x8x1024x64xbf16> {task.name = "v", task.init_std = 1.0 : f64},
             %o: tensor<2x8x1024x64xbf16> {task.name = "o", task.init_std = 1.0 : f64},
             %do: tensor<2x8x1024x64xf32> {task.name = "do", task.init_std = 1.0 : f64})
    -> (tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.125 : f64} : (tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xf32>) -> (tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>)
  return %dq, %dk, %dv : tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>
}
