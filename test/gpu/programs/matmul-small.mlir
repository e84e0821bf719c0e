// matmul-small.mlir - batched task.matmul with M not a multiple of 128 (the small-product form), f32:
// per-row dot products (k = 96: a warp per output element), per-row scaling (k = 1: a thread per
// element, as TinyMoE's gate weighting) and a transposed a with k = 40 (a warp per element).
func.func @matmul_small(
    %a: tensor<300x1x96xf32> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<300x1x96xf32> {task.name = "b", task.init_std = 1.0 : f64},
    %c: tensor<3x40x5xf32> {task.name = "c", task.init_std = 1.0 : f64},
    %d: tensor<3x40x7xf32> {task.name = "d", task.init_std = 1.0 : f64})
    -> (tensor<300x1x1xf32>, tensor<300x1x96xf32>, tensor<3x5x7xf32>) {
  %dots = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<300x1x96xf32>, tensor<300x1x96xf32>) -> tensor<300x1x1xf32>
  %scaled = "task.matmul"(%dots, %b) {transpose_a = false, transpose_b = false} : (tensor<300x1x1xf32>, tensor<300x1x96xf32>) -> tensor<300x1x96xf32>
  %t = "task.matmul"(%c, %d) {transpose_a = true, transpose_b = false} : (tensor<3x40x5xf32>, tensor<3x40x7xf32>) -> tensor<3x5x7xf32>
  return %dots, %scaled, %t : tensor<300x1x1xf32>, tensor<300x1x96xf32>, tensor<3x5x7xf32>
}
