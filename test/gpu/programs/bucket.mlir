// bucket.mlir - task.bucket alone: 64x2 ids in 8 buckets (stable sort order and bucket ends).
func.func @bucket(
    %ids: tensor<64x2xi32> {task.name = "ids", task.range = 8 : i64})
    -> (tensor<128xi32>, tensor<8xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 8} : (tensor<64x2xi32>) -> (tensor<128xi32>, tensor<8xi32>)
  return %order, %ends : tensor<128xi32>, tensor<8xi32>
}
