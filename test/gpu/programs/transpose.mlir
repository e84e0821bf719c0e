// transpose.mlir - task.transpose alone: 4x6x10 with perm [2, 0, 1], f32.
func.func @transpose(
    %x: tensor<4x6x10xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<10x4x6xf32>) {
  %y = "task.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<4x6x10xf32>) -> tensor<10x4x6xf32>
  return %y : tensor<10x4x6xf32>
}
