// attention-bf16.mlir - task.attention on tensor cores (bf16 q, k, v; heads of 64; sequences multiples of 64): causal at 2x2 heads of 256 tokens, and not causal at 1x2 heads of 192, scale 0.125, bf16 results.
func.func @attention_bf16(
    %q: tensor<2x2x256x64xbf16> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<2x2x256x64xbf16> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<2x2x256x64xbf16> {task.name = "v", task.init_std = 1.0 : f64},
    %q2: tensor<1x2x192x64xbf16> {task.name = "q2", task.init_std = 1.0 : f64},
    %k2: tensor<1x2x192x64xbf16> {task.name = "k2", task.init_std = 1.0 : f64},
    %v2: tensor<1x2x192x64xbf16> {task.name = "v2", task.init_std = 1.0 : f64})
    -> (tensor<2x2x256x64xbf16>, tensor<1x2x192x64xbf16>) {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.125 : f64} : (tensor<2x2x256x64xbf16>, tensor<2x2x256x64xbf16>, tensor<2x2x256x64xbf16>) -> tensor<2x2x256x64xbf16>
  %o2 = "task.attention"(%q2, %k2, %v2) {causal = false, scale = 0.125 : f64} : (tensor<1x2x192x64xbf16>, tensor<1x2x192x64xbf16>, tensor<1x2x192x64xbf16>) -> tensor<1x2x192x64xbf16>
  return %o, %o2 : tensor<2x2x256x64xbf16>, tensor<1x2x192x64xbf16>
}
