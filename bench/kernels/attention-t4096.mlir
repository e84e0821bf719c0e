// Causal attention forward at T 4096: B 1, H 8, head 64, bf16 inputs and output.
func.func @k(%q: tensor<1x8x4096x64xbf16> {task.name = "q", task.init_std = 1.0 : f64},
             %k: tensor<1x8x4096x64xbf16> {task.name = "k", task.init_std = 1.0 : f64},
             %v: tensor<1x8x4096x64xbf16> {task.name = "v", task.init_std = 1.0 : f64}) -> tensor<1x8x4096x64xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.125 : f64} : (tensor<1x8x4096x64xbf16>, tensor<1x8x4096x64xbf16>, tensor<1x8x4096x64xbf16>) -> tensor<1x8x4096x64xbf16>
  return %o : tensor<1x8x4096x64xbf16>
}
