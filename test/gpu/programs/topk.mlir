// topk.mlir - task.topk alone: top 2 of 8 per row, 64 rows, f32 (random values: no ties).
func.func @topk(
    %x: tensor<64x8xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<64x2xf32>, tensor<64x2xi32>) {
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<64x8xf32>) -> (tensor<64x2xf32>, tensor<64x2xi32>)
  return %v, %i : tensor<64x2xf32>, tensor<64x2xi32>
}
