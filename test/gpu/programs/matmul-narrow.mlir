// matmul-narrow.mlir - unbatched task.matmul with at most 16 columns and a's k contiguous (the element-wise
// form, dialects/schedule.h): TinyMoE's router shape at small size (k = 512: a warp per output), a
// narrow product with k = 20 (a thread per output), and the router's weight gradient read through
// transpose_a (k strided in a), which stays a tiled product. f32.
func.func @matmul_narrow(
    %x: tensor<300x512xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %w: tensor<512x8xf32> {task.name = "w", task.init_std = 1.0 : f64},
    %p: tensor<200x20xf32> {task.name = "p", task.init_std = 1.0 : f64},
    %q: tensor<20x5xf32> {task.name = "q", task.init_std = 1.0 : f64},
    %dy: tensor<300x8xf32> {task.name = "dy", task.init_std = 1.0 : f64})
    -> (tensor<300x8xf32>, tensor<200x5xf32>, tensor<512x8xf32>) {
  %y = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<300x512xf32>, tensor<512x8xf32>) -> tensor<300x8xf32>
  %r = "task.matmul"(%p, %q) {transpose_a = false, transpose_b = false} : (tensor<200x20xf32>, tensor<20x5xf32>) -> tensor<200x5xf32>
  %dw = "task.matmul"(%x, %dy) {transpose_a = true, transpose_b = false} : (tensor<300x512xf32>, tensor<300x8xf32>) -> tensor<512x8xf32>
  return %y, %r, %dw : tensor<300x8xf32>, tensor<200x5xf32>, tensor<512x8xf32>
}
