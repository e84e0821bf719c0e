// matmul-split.mlir - task.matmul with one output tile and a deep k on the fp32 tiles: [100 x 600] x [50 x 600]^T splits k into 4 slices (160 deep, the last 120) added in order by the slice that arrives last; two such products in one interval (two pools), f32.
func.func @matmul_split(
    %a: tensor<100x600xf32> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<50x600xf32> {task.name = "b", task.init_std = 1.0 : f64},
    %c: tensor<50x600xf32> {task.name = "c", task.init_std = 1.0 : f64})
    -> (tensor<100x50xf32>, tensor<100x50xf32>) {
  %x = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<100x600xf32>, tensor<50x600xf32>) -> tensor<100x50xf32>
  %y = "task.matmul"(%a, %c) {transpose_a = false, transpose_b = true} : (tensor<100x600xf32>, tensor<50x600xf32>) -> tensor<100x50xf32>
  return %x, %y : tensor<100x50xf32>, tensor<100x50xf32>
}
