// bucket-many.mlir - task.bucket with more buckets than the ballot form takes (40 > 32): every sort
// position computed alone; 700x2 ids.
func.func @bucket_many(
    %ids: tensor<700x2xi32> {task.name = "ids", task.range = 40 : i64})
    -> (tensor<1400xi32>, tensor<40xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 40} : (tensor<700x2xi32>) -> (tensor<1400xi32>, tensor<40xi32>)
  return %order, %ends : tensor<1400xi32>, tensor<40xi32>
}
