// embedding.mlir - task.embedding alone: a 50x32 table, ids 4x16, f32.
func.func @embedding(
    %table: tensor<50x32xf32> {task.name = "table", task.init_std = 1.0 : f64},
    %ids: tensor<4x16xi32> {task.name = "ids", task.range = 50 : i64})
    -> (tensor<4x16x32xf32>) {
  %y = "task.embedding"(%table, %ids) : (tensor<50x32xf32>, tensor<4x16xi32>) -> tensor<4x16x32xf32>
  return %y : tensor<4x16x32xf32>
}
