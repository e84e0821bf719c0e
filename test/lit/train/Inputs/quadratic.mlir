// The model of adamw-textbook.test: loss = sum_i a_i w_i^2 / 2 with fixed a = (1, 2, 0.5, 3), so the
// gradient is a_i w_i, derivable by hand.
func.func @quad(%w: tensor<4xf32> {task.name = "w", task.param}) -> tensor<f32> {
  %a = arith.constant dense<[1.0, 2.0, 0.5, 3.0]> : tensor<4xf32>
  %q = "task.map"(%w, %a) ({
  ^bb0(%x: f32, %c: f32):
    %half = arith.constant 0.5 : f32
    %xx = arith.mulf %x, %x : f32
    %cxx = arith.mulf %c, %xx : f32
    %r = arith.mulf %half, %cxx : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %loss = "task.reduce"(%q) {axis = 0 : i64, kind = "sum"} : (tensor<4xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
