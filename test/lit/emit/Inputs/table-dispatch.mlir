// Two bf16 products (one wgmma tile body for both) and two converts (one body), for latch-lower-intervals{table-dispatch}.
func.func @k(%a: tensor<2048x512xbf16> {task.name = "a", task.init_std = 1.0 : f64},
             %b: tensor<512x512xbf16> {task.name = "b", task.init_std = 1.0 : f64}) -> tensor<2048x512xbf16> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2048x512xbf16>, tensor<512x512xbf16>) -> tensor<2048x512xf32>
  %d = "task.convert"(%c) : (tensor<2048x512xf32>) -> tensor<2048x512xbf16>
  %e = "task.matmul"(%d, %b) {transpose_a = false, transpose_b = false} : (tensor<2048x512xbf16>, tensor<512x512xbf16>) -> tensor<2048x512xf32>
  %f = "task.convert"(%e) : (tensor<2048x512xf32>) -> tensor<2048x512xbf16>
  return %f : tensor<2048x512xbf16>
}
