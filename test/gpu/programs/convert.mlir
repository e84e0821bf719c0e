// convert.mlir - task.convert alone: f32 to bf16 (round to nearest even), 300 values.
func.func @convert(
    %x: tensor<300xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<300xbf16>) {
  %y = "task.convert"(%x) : (tensor<300xf32>) -> tensor<300xbf16>
  return %y : tensor<300xbf16>
}
