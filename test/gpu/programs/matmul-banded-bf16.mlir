// matmul-banded-bf16.mlir - task.matmul on wgmma with more than 16 row tiles: [2200 x 128] x [128 x 304], bf16, f32 result. 18 row tiles x 3 column tiles run in bands of 16 row tiles (column by column inside a band) and a last band of 2; partial tiles in M and N.
func.func @matmul_banded_bf16(
    %a: tensor<2200x128xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<128x304xbf16> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<2200x304xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2200x128xbf16>, tensor<128x304xbf16>) -> tensor<2200x304xf32>
  return %c : tensor<2200x304xf32>
}
