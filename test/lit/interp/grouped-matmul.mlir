// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen grouped-matmul %t
// RUN: latch-interp %s --entry gmm --input x=%t/gmm/x.npy --input w=%t/gmm/w.npy --input ends=%t/gmm/ends.npy --output-dir %t/gmm
// RUN: latch-interp %s --entry gmm_full --input x=%t/gmm_full/x.npy --input w=%t/gmm_full/w.npy --input ends=%t/gmm_full/ends.npy --output-dir %t/gmm_full
// RUN: python3 %S/Inputs/cases.py check grouped-matmul %t | FileCheck %s
// task.grouped_matmul: rows ends[g-1] <= r < ends[g] use w[g]; an empty group; rows past ends[G-1] are zero.
// Arguments are named by task.name.

// CHECK: ok gmm
// CHECK: ok gmm_full

func.func @gmm(%x: tensor<7x3xf32> {task.name = "x"}, %w: tensor<3x3x2xf32> {task.name = "w"},
               %ends: tensor<3xi32> {task.name = "ends"}) -> tensor<7x2xf32> {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<7x3xf32>, tensor<3x3x2xf32>, tensor<3xi32>) -> tensor<7x2xf32>
  return %y : tensor<7x2xf32>
}
func.func @gmm_full(%x: tensor<4x2xf32> {task.name = "x"}, %w: tensor<2x2x3xf32> {task.name = "w"},
                    %ends: tensor<2xi32> {task.name = "ends"}) -> tensor<4x3xf32> {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<4x2xf32>, tensor<2x2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
