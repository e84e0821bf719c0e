// Causal attention forward at TinyMoE 2x1024: B 2, H 8, T 1024, head 64, bf16 inputs and output.
func.func @k(%q: tensor<2x8x1024x64xbf16> {task.name = "q", task.init_std = 1.0 : f64},
             %k: tensor<2x8x1024x64xbf16> {task.name = "k", task.init_std = 1.0 : f64},
             %v: tensor<2x8x1024x64xbf16> {task.name = "v", task.init_std = 1.0 : f64}) -> tensor<2x8x1024x64xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.125 : f64} : (tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>) -> tensor<2x8x1024x64xbf16>
  return %o : tensor<2x8x1024x64xbf16>
}
