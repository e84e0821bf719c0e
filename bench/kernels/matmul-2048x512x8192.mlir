// TinyMoE's head: [2048 x 512] x [512 x 8192], bf16 inputs, f32 result.
func.func @k(%a: tensor<2048x512xbf16> {task.name = "a", task.init_std = 1.0 : f64},
             %b: tensor<512x8192xbf16> {task.name = "b", task.init_std = 1.0 : f64}) -> tensor<2048x8192xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2048x512xbf16>, tensor<512x8192xbf16>) -> tensor<2048x8192xf32>
  return %c : tensor<2048x8192xf32>
}
