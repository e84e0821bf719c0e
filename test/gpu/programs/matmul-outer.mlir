// matmul-outer.mlir - batched task.matmul with k = 1 (an outer product per batch: the small-product form
// in elementwise tiles, LATCH_SMALL_PRODUCT_UNIT_DEPTH_OUTPUTS), f32: 4 outputs per vector where n is a
// multiple of 4 (transpose_b both ways), one per thread iteration where it is not, and a transposed a.
func.func @matmul_outer(
    %a: tensor<37x3x1xf32> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<37x1x20xf32> {task.name = "b", task.init_std = 1.0 : f64},
    %bt: tensor<37x20x1xf32> {task.name = "bt", task.init_std = 1.0 : f64},
    %at: tensor<37x1x3xf32> {task.name = "at", task.init_std = 1.0 : f64},
    %c: tensor<37x1x7xf32> {task.name = "c", task.init_std = 1.0 : f64})
    -> (tensor<37x3x20xf32>, tensor<37x3x20xf32>, tensor<37x3x7xf32>) {
  %ab = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<37x3x1xf32>, tensor<37x1x20xf32>) -> tensor<37x3x20xf32>
  %abt = "task.matmul"(%a, %bt) {transpose_a = false, transpose_b = true} : (tensor<37x3x1xf32>, tensor<37x20x1xf32>) -> tensor<37x3x20xf32>
  %atc = "task.matmul"(%at, %c) {transpose_a = true, transpose_b = false} : (tensor<37x1x3xf32>, tensor<37x1x7xf32>) -> tensor<37x3x7xf32>
  return %ab, %abt, %atc : tensor<37x3x20xf32>, tensor<37x3x20xf32>, tensor<37x3x7xf32>
}
