// The three attention gradients of latch-split-attention-grad.mlir in one module, for latch-interp.
func.func @causal(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %o: tensor<1x2x40x16xf32>, %do: tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64, task.phase = "backward"} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
  return %dq, %dk, %dv : tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>
}

func.func @cross(%q: tensor<2x1x7x8xf32>, %k: tensor<2x1x11x8xf32>, %v: tensor<2x1x11x4xf32>, %o: tensor<2x1x7x4xf32>, %do: tensor<2x1x7x4xf32>) -> (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.5 : f64} : (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>, tensor<2x1x7x4xf32>, tensor<2x1x7x4xf32>) -> (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>)
  return %dq, %dk, %dv : tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>
}

func.func @tensor_cores(%q: tensor<1x1x64x16xbf16>, %k: tensor<1x1x64x16xbf16>, %v: tensor<1x1x64x16xbf16>, %o: tensor<1x1x64x16xbf16>, %do: tensor<1x1x64x16xf32>) -> (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64, task.phase = "backward"} : (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xf32>) -> (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>)
  return %dq, %dk, %dv : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>
}
