// attention-grad-bf16.mlir - task.attention_grad split into statistics and products on tensor cores (bf16 q, k, v, o; f32 do, as in TinyMoE): causal at 1x2 heads of 256 tokens and not causal at 1x2 heads of 128, scale 0.125, bf16 gradients.
func.func @attention_grad_bf16(
    %q: tensor<1x2x256x64xbf16> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<1x2x256x64xbf16> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<1x2x256x64xbf16> {task.name = "v", task.init_std = 1.0 : f64},
    %o: tensor<1x2x256x64xbf16> {task.name = "o", task.init_std = 1.0 : f64},
    %do: tensor<1x2x256x64xf32> {task.name = "do", task.init_std = 1.0 : f64},
    %q2: tensor<1x2x128x64xbf16> {task.name = "q2", task.init_std = 1.0 : f64},
    %k2: tensor<1x2x128x64xbf16> {task.name = "k2", task.init_std = 1.0 : f64},
    %v2: tensor<1x2x128x64xbf16> {task.name = "v2", task.init_std = 1.0 : f64},
    %o2: tensor<1x2x128x64xbf16> {task.name = "o2", task.init_std = 1.0 : f64},
    %do2: tensor<1x2x128x64xf32> {task.name = "do2", task.init_std = 1.0 : f64})
    -> (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.125 : f64} : (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xf32>) -> (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>)
  %dq2, %dk2, %dv2 = "task.attention_grad"(%q2, %k2, %v2, %o2, %do2) {causal = false, scale = 0.125 : f64} : (tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xf32>) -> (tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>)
  return %dq, %dk, %dv, %dq2, %dk2, %dv2 : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>
}
