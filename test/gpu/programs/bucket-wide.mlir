// bucket-wide.mlir - task.bucket alone over many tiles: 1500x2 ids in 8 buckets.
func.func @bucket_wide(
    %ids: tensor<1500x2xi32> {task.name = "ids", task.range = 8 : i64})
    -> (tensor<3000xi32>, tensor<8xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 8} : (tensor<1500x2xi32>) -> (tensor<3000xi32>, tensor<8xi32>)
  return %order, %ends : tensor<3000xi32>, tensor<8xi32>
}
