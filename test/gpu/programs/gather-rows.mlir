// gather-rows.mlir - task.gather_rows alone: 70 rows picked from 40x24, f32.
func.func @gather_rows(
    %x: tensor<40x24xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %idx: tensor<70xi32> {task.name = "idx", task.range = 40 : i64})
    -> (tensor<70x24xf32>) {
  %y = "task.gather_rows"(%x, %idx) : (tensor<40x24xf32>, tensor<70xi32>) -> tensor<70x24xf32>
  return %y : tensor<70x24xf32>
}
