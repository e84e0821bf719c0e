// cross-entropy.mlir - task.cross_entropy alone: 64 rows of 50 logits, f32.
func.func @cross_entropy(
    %logits: tensor<64x50xf32> {task.name = "logits", task.init_std = 2.0 : f64},
    %targets: tensor<64xi32> {task.name = "targets", task.range = 50 : i64})
    -> (tensor<f32>) {
  %y = "task.cross_entropy"(%logits, %targets) : (tensor<64x50xf32>, tensor<64xi32>) -> tensor<f32>
  return %y : tensor<f32>
}
