// A two-layer MLP with a cross-entropy loss, written by hand in the task dialect (generic form).
// `make demo` runs the default pipeline over it.
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32> {task.param}, %w2: tensor<32x10xf32> {task.param},
               %targets: tensor<8xi32>) -> tensor<f32> {
  %h = "task.matmul"(%x, %w1) {transpose_a = false, transpose_b = false}
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = "task.map"(%h) ({
  ^bb0(%v: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %logits = "task.matmul"(%a, %w2) {transpose_a = false, transpose_b = false}
      : (tensor<8x32xf32>, tensor<32x10xf32>) -> tensor<8x10xf32>
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
