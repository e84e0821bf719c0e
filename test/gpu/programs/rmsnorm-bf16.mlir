// rmsnorm-bf16.mlir - task.rmsnorm of f32 values with a bf16 result (computed in f32, rounded on the
// store: what latch-fold-converts makes of an rmsnorm whose one reader is a convert to bf16), over the
// last axis of 4x16x96, eps 1e-5.
func.func @rmsnorm_bf16(
    %x: tensor<4x16x96xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<96xf32> {task.name = "w", task.init_std = 1.0 : f64})
    -> (tensor<4x16x96xbf16>) {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<4x16x96xf32>, tensor<96xf32>) -> tensor<4x16x96xbf16>
  return %y : tensor<4x16x96xbf16>
}
