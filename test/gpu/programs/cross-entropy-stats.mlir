// cross-entropy-stats.mlir - task.cross_entropy and its gradient of the same logits (pipeline forward:
// latch-cross-entropy-stats gives the gradient the forward's row statistics): 96 rows of 1024 logits (the
// vector path, 4 elements per unit) and 64 rows of 50 (one element per unit), f32, dloss 1.5.
func.func @cross_entropy_stats(
    %logits: tensor<96x1024xf32> {task.name = "logits", task.init_std = 2.0 : f64},
    %targets: tensor<96xi32> {task.name = "targets", task.range = 1024 : i64},
    %logits2: tensor<64x50xf32> {task.name = "logits2", task.init_std = 2.0 : f64},
    %targets2: tensor<64xi32> {task.name = "targets2", task.range = 50 : i64})
    -> (tensor<f32>, tensor<96x1024xf32>, tensor<f32>, tensor<64x50xf32>) {
  %dloss = arith.constant dense<1.5> : tensor<f32>
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<96x1024xf32>, tensor<96xi32>) -> tensor<f32>
  %d = "task.cross_entropy_grad"(%logits, %targets, %dloss) : (tensor<96x1024xf32>, tensor<96xi32>, tensor<f32>) -> tensor<96x1024xf32>
  %loss2 = "task.cross_entropy"(%logits2, %targets2) : (tensor<64x50xf32>, tensor<64xi32>) -> tensor<f32>
  %d2 = "task.cross_entropy_grad"(%logits2, %targets2, %dloss) : (tensor<64x50xf32>, tensor<64xi32>, tensor<f32>) -> tensor<64x50xf32>
  return %loss, %d, %loss2, %d2 : tensor<f32>, tensor<96x1024xf32>, tensor<f32>, tensor<64x50xf32>
}
