// rope-3-heads.mlir - task.rope on 2x40x3x32: 3 heads do not divide a tile's 64 rows, so tiles start and
// end inside a position's heads (latch-lower-tasks' gen_rope checks each head's row against its tile).
func.func @rope_3_heads(
    %x: tensor<2x40x3x32xf32> {task.name = "x", task.init_std = 1.0 : f64})
    -> (tensor<2x40x3x32xf32>) {
  %y = "task.rope"(%x) {theta = 10000.0 : f64} : (tensor<2x40x3x32xf32>) -> tensor<2x40x3x32xf32>
  return %y : tensor<2x40x3x32xf32>
}
