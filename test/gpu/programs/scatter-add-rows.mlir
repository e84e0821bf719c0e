// scatter-add-rows.mlir - task.scatter_add_rows alone: 70 rows of 24 summed into 40 rows (repeated indices), f32.
func.func @scatter_add_rows(
    %x: tensor<70x24xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %idx: tensor<70xi32> {task.name = "idx", task.range = 40 : i64})
    -> (tensor<40x24xf32>) {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 40} : (tensor<70x24xf32>, tensor<70xi32>) -> tensor<40x24xf32>
  return %y : tensor<40x24xf32>
}
