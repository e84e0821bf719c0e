// The backward of TinyMoE's dispatch gather at 2x1024: 4096 routed rows of 512 added into 2048 token rows.
func.func @k(%x: tensor<4096x512xf32> {task.name = "x", task.init_std = 1.0 : f64},
             %idx: tensor<4096xi32> {task.name = "idx", task.range = 2048 : i64}) -> tensor<2048x512xf32> {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 2048 : i64} : (tensor<4096x512xf32>, tensor<4096xi32>) -> tensor<2048x512xf32>
  return %y : tensor<2048x512xf32>
}
