// scatter-add-rows-wide.mlir - task.scatter_add_rows alone: 3000 rows of 72 (several index chunks and columns per lane) summed into 300 rows, f32.
func.func @scatter_add_rows_wide(
    %x: tensor<3000x72xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %idx: tensor<3000xi32> {task.name = "idx", task.range = 300 : i64})
    -> (tensor<300x72xf32>) {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 300} : (tensor<3000x72xf32>, tensor<3000xi32>) -> tensor<300x72xf32>
  return %y : tensor<300x72xf32>
}
