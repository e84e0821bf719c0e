// map.mlir - task.map alone: silu(a) * b + s with a rank-0 s broadcast, f32.
func.func @map(
    %a: tensor<64x100xf32> {task.name = "a", task.init_std = 2.0 : f64},
    %b: tensor<64x100xf32> {task.name = "b", task.init_std = 1.0 : f64},
    %s: tensor<f32> {task.name = "s", task.init_std = 1.0 : f64})
    -> (tensor<64x100xf32>) {
  %one = arith.constant 1.0 : f32
  %y = "task.map"(%a, %b, %s) ({
  ^bb0(%av: f32, %bv: f32, %sv: f32):
    %n = arith.negf %av : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %si = arith.divf %av, %d : f32
    %p = arith.mulf %si, %bv : f32
    %r = arith.addf %p, %sv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<64x100xf32>, tensor<64x100xf32>, tensor<f32>) -> tensor<64x100xf32>
  return %y : tensor<64x100xf32>
}
