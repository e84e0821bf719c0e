// matmul-epilogues.mlir - element-wise maps that latch-fuse-phases marks as epilogues of a product and
// that latch-lower-tasks runs inside the product's tiles (no tiles or wave of their own; the product's
// result is never written): a residual r + c s after a bf16 tensor-core product (wgmma), c2 + r2 after a
// deep product whose k is split into slices (the last slice stores), and an fp32 product's epilogue
// (the SIMT tiles).
func.func @matmul_epilogues(
    %a: tensor<300x256xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<256x192xbf16> {task.name = "b", task.init_std = 1.0 : f64},
    %r: tensor<300x192xf32> {task.name = "r", task.init_std = 1.0 : f64},
    %s: tensor<f32> {task.name = "s", task.init_std = 1.0 : f64},
    %a2: tensor<256x4096xbf16> {task.name = "a2", task.init_std = 1.0 : f64},
    %b2: tensor<4096x256xbf16> {task.name = "b2", task.init_std = 1.0 : f64},
    %r2: tensor<256x256xf32> {task.name = "r2", task.init_std = 1.0 : f64},
    %a3: tensor<130x70xf32> {task.name = "a3", task.init_std = 1.0 : f64},
    %b3: tensor<70x90xf32> {task.name = "b3", task.init_std = 1.0 : f64},
    %r3: tensor<130x90xf32> {task.name = "r3", task.init_std = 1.0 : f64})
    -> (tensor<300x192xf32>, tensor<256x256xf32>, tensor<130x90xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<300x256xbf16>, tensor<256x192xbf16>) -> tensor<300x192xf32>
  %y = "task.map"(%r, %c, %s) ({
  ^bb0(%u: f32, %v: f32, %k: f32):
    %m = arith.mulf %v, %k : f32
    %z = arith.addf %u, %m : f32
    gpu.yield %z : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<300x192xf32>, tensor<300x192xf32>, tensor<f32>) -> tensor<300x192xf32>
  %c2 = "task.matmul"(%a2, %b2) {transpose_a = false, transpose_b = false} : (tensor<256x4096xbf16>, tensor<4096x256xbf16>) -> tensor<256x256xf32>
  %y2 = "task.map"(%c2, %r2) ({
  ^bb0(%u: f32, %v: f32):
    %z = arith.addf %u, %v : f32
    gpu.yield %z : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %c3 = "task.matmul"(%a3, %b3) {transpose_a = false, transpose_b = false} : (tensor<130x70xf32>, tensor<70x90xf32>) -> tensor<130x90xf32>
  %y3 = "task.map"(%c3, %r3) ({
  ^bb0(%u: f32, %v: f32):
    %z = arith.subf %u, %v : f32
    gpu.yield %z : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<130x90xf32>, tensor<130x90xf32>) -> tensor<130x90xf32>
  return %y, %y2, %y3 : tensor<300x192xf32>, tensor<256x256xf32>, tensor<130x90xf32>
}
