// Two bf16 products of one shape (one wgmma tile body, called by two tasks) and a third of another shape
// (a body of its own, called once), for the inlining of the lone wgmma bodies (latch-lower-intervals).
func.func @k(%a: tensor<2048x512xbf16> {task.name = "a", task.init_std = 1.0 : f64},
             %b: tensor<512x512xbf16> {task.name = "b", task.init_std = 1.0 : f64},
             %w: tensor<512x1024xbf16> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<2048x1024xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2048x512xbf16>, tensor<512x512xbf16>) -> tensor<2048x512xf32>
  %d = "task.convert"(%c) : (tensor<2048x512xf32>) -> tensor<2048x512xbf16>
  %e = "task.matmul"(%d, %b) {transpose_a = false, transpose_b = false} : (tensor<2048x512xbf16>, tensor<512x512xbf16>) -> tensor<2048x512xf32>
  %f = "task.convert"(%e) : (tensor<2048x512xf32>) -> tensor<2048x512xbf16>
  %g = "task.matmul"(%f, %w) {transpose_a = false, transpose_b = false} : (tensor<2048x512xbf16>, tensor<512x1024xbf16>) -> tensor<2048x1024xf32>
  return %g : tensor<2048x1024xf32>
}
