// dataflow-prologue.mlir - a prologue (the map) inside rmsnorm_grad's tiles whose input a comes from the
// interval before and stays live (a program result), so that the map's result cannot take its bytes
// (test/lit/emit/dataflow-prologue.test).
func.func @after(%x: tensor<64x32xf32>, %w: tensor<32xf32>, %b: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<32xf32>, tensor<64x32xf32>) {
  %a = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %dy = "task.map"(%a, %b) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.addf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5 : f64} : (tensor<64x32xf32>, tensor<32xf32>, tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<32xf32>)
  return %dx, %dw, %a : tensor<64x32xf32>, tensor<32xf32>, tensor<64x32xf32>
}
