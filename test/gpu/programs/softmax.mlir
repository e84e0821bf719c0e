// softmax.mlir - task.softmax alone over the last axis of 40x130, f32.
func.func @softmax(
    %x: tensor<40x130xf32> {task.name = "x", task.init_std = 3.0 : f64})
    -> (tensor<40x130xf32>) {
  %y = "task.softmax"(%x) : (tensor<40x130xf32>) -> tensor<40x130xf32>
  return %y : tensor<40x130xf32>
}
