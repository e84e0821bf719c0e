// The square reference product: [4096 x 4096] x [4096 x 4096], bf16 inputs, f32 result.
func.func @k(%a: tensor<4096x4096xbf16> {task.name = "a", task.init_std = 1.0 : f64},
             %b: tensor<4096x4096xbf16> {task.name = "b", task.init_std = 1.0 : f64}) -> tensor<4096x4096xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}
