// matmul-tiled.mlir - task.matmul alone over several 128 x 128 tiles with ragged edges and a reduction that is not a multiple of 8, f32.
func.func @matmul_tiled(
    %a: tensor<260x203xf32> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<203x300xf32> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<260x300xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<260x203xf32>, tensor<203x300xf32>) -> tensor<260x300xf32>
  return %c : tensor<260x300xf32>
}
