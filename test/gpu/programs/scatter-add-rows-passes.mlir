// scatter-add-rows-passes.mlir - task.scatter_add_rows alone: 1000 rows of 600 (three passes of 256 columns per warp, the last partial) summed into 70 rows (the last of 2 row tiles partial), f32.
func.func @scatter_add_rows_passes(
    %x: tensor<1000x600xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %idx: tensor<1000xi32> {task.name = "idx", task.range = 70 : i64})
    -> (tensor<70x600xf32>) {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 70} : (tensor<1000x600xf32>, tensor<1000xi32>) -> tensor<70x600xf32>
  return %y : tensor<70x600xf32>
}
