// A map over 3 x 8196 elements (three full tiles of 8192 and a partial one) with a rank-0 input and two
// f32 results: by default (latch-lower-tasks{vector-maps}) the full tiles' and the partial tile's vector
// paths run; map-wide-scalar runs it element by element.
func.func @map_wide(
    %a: tensor<3x8196xf32> {task.name = "a", task.init_std = 2.0 : f64},
    %b: tensor<3x8196xf32> {task.name = "b", task.init_std = 1.0 : f64},
    %s: tensor<f32> {task.name = "s", task.init_std = 1.0 : f64})
    -> (tensor<3x8196xf32>, tensor<3x8196xf32>) {
  %one = arith.constant 1.0 : f32
  %y, %z = "task.map"(%a, %b, %s) ({
  ^bb0(%av: f32, %bv: f32, %sv: f32):
    %n = arith.negf %av : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %si = arith.divf %av, %d : f32
    %p = arith.mulf %si, %bv : f32
    %r = arith.addf %p, %sv : f32
    gpu.yield %r, %si : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<3x8196xf32>, tensor<3x8196xf32>, tensor<f32>) -> (tensor<3x8196xf32>, tensor<3x8196xf32>)
  return %y, %z : tensor<3x8196xf32>, tensor<3x8196xf32>
}
