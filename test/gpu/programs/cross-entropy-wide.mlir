// cross-entropy-wide.mlir - task.cross_entropy and task.cross_entropy_grad over rows of 700 logits (two
// whole groups of 8 columns per lane, then a tail), f32: the loss and dlogits.
func.func @cross_entropy_wide(
    %logits: tensor<40x700xf32> {task.name = "logits", task.init_std = 3.0 : f64},
    %targets: tensor<40xi32> {task.name = "targets", task.range = 700 : i64},
    %dloss: tensor<f32> {task.name = "dloss", task.init_std = 1.0 : f64})
    -> (tensor<f32>, tensor<40x700xf32>) {
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<40x700xf32>, tensor<40xi32>) -> tensor<f32>
  %dlogits = "task.cross_entropy_grad"(%logits, %targets, %dloss) : (tensor<40x700xf32>, tensor<40xi32>, tensor<f32>) -> tensor<40x700xf32>
  return %loss, %dlogits : tensor<f32>, tensor<40x700xf32>
}
