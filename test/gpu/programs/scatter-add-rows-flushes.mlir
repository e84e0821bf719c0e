// scatter-add-rows-flushes.mlir - task.scatter_add_rows alone: 10000 rows of 40 summed into 20 rows, all
// in one row tile, so its list of matches is flushed three times (the later flushes add to what the
// first stored), f32.
func.func @scatter_add_rows_flushes(
    %x: tensor<10000x40xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %idx: tensor<10000xi32> {task.name = "idx", task.range = 20 : i64})
    -> (tensor<20x40xf32>) {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 20 : i64} : (tensor<10000x40xf32>, tensor<10000xi32>) -> tensor<20x40xf32>
  return %y : tensor<20x40xf32>
}
