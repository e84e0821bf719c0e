// norm-prologues.mlir - element-wise maps that latch-fuse-phases marks as prologues of a norm and that
// latch-lower-tasks computes inside the norm's tiles (no tiles, no wave of their own): rmsnorm of
// x = p + q, and rmsnorm_grad of dy = (a + b) * s + c with s rank 0 (TinyMoE sums its residual
// gradients this way before each norm's backward), f32 over 300 rows of 96.
func.func @norm_prologues(
    %p: tensor<300x96xf32> {task.name = "p", task.init_std = 1.0 : f64},
    %q: tensor<300x96xf32> {task.name = "q", task.init_std = 1.0 : f64},
    %w: tensor<96xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %a: tensor<300x96xf32> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<300x96xf32> {task.name = "b", task.init_std = 1.0 : f64},
    %c: tensor<300x96xf32> {task.name = "c", task.init_std = 1.0 : f64},
    %s: tensor<f32> {task.name = "s", task.init_std = 1.0 : f64})
    -> (tensor<300x96xf32>, tensor<300x96xf32>, tensor<96xf32>) {
  %x = "task.map"(%p, %q) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.addf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<300x96xf32>, tensor<300x96xf32>) -> tensor<300x96xf32>
  %y = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<300x96xf32>, tensor<96xf32>) -> tensor<300x96xf32>
  %dy = "task.map"(%a, %b, %s, %c) ({
  ^bb0(%u: f32, %v: f32, %k: f32, %t: f32):
    %r = arith.addf %u, %v : f32
    %m = arith.mulf %r, %k : f32
    %z = arith.addf %m, %t : f32
    gpu.yield %z : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<300x96xf32>, tensor<300x96xf32>, tensor<f32>, tensor<300x96xf32>) -> tensor<300x96xf32>
  %dx, %dw = "task.rmsnorm_grad"(%p, %w, %dy) {eps = 1.0e-5 : f64} : (tensor<300x96xf32>, tensor<96xf32>, tensor<300x96xf32>) -> (tensor<300x96xf32>, tensor<96xf32>)
  return %y, %dx, %dw : tensor<300x96xf32>, tensor<300x96xf32>, tensor<96xf32>
}
