// matmul-narrow-sliced.mlir - the k-sliced narrow product (dialects/schedule.h latch_narrow_sliced_depth):
// c = a^T b with at most 16 columns and a deep k, a thread per output and k cut into slices whose partial
// sums the last slice adds. TinyMoE's router weight gradient at 2 x 1024 ([2048, 512]^T [2048, 8]: 16
// slices of 128), and a shape whose 1000 outputs end inside a tile (k = 8192: 64 slices of 128). f32.
func.func @matmul_narrow_sliced(
    %x: tensor<2048x512xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %dy: tensor<2048x8xf32> {task.name = "dy", task.init_std = 1.0 : f64},
    %p: tensor<8192x200xf32> {task.name = "p", task.init_std = 1.0 : f64},
    %q: tensor<8192x5xf32> {task.name = "q", task.init_std = 1.0 : f64})
    -> (tensor<512x8xf32>, tensor<200x5xf32>) {
  %dw = "task.matmul"(%x, %dy) {transpose_a = true, transpose_b = false} : (tensor<2048x512xf32>, tensor<2048x8xf32>) -> tensor<512x8xf32>
  %r = "task.matmul"(%p, %q) {transpose_a = true, transpose_b = false} : (tensor<8192x200xf32>, tensor<8192x5xf32>) -> tensor<200x5xf32>
  return %dw, %r : tensor<512x8xf32>, tensor<200x5xf32>
}
