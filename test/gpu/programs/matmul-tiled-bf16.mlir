// matmul-tiled-bf16.mlir - task.matmul on bf16 tensor cores over several tiles: [300 x 77] x [77 x 200], K odd, no transposes, f32 result.
func.func @matmul_tiled_bf16(
    %a: tensor<300x77xbf16> {task.name = "a", task.init_std = 1.0 : f64},
    %b: tensor<77x200xbf16> {task.name = "b", task.init_std = 1.0 : f64})
    -> (tensor<300x200xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<300x77xbf16>, tensor<77x200xbf16>) -> tensor<300x200xf32>
  return %c : tensor<300x200xf32>
}
