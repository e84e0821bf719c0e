// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen routing %t
// RUN: latch-interp %s --entry topk3 --input x=%t/topk3/x.npy --output-dir %t/topk3
// RUN: latch-interp %s --entry bucket3 --input ids=%t/bucket3/ids.npy --output-dir %t/bucket3
// RUN: latch-interp %s --entry gather --input x=%t/gather/x.npy --input idx=%t/gather/idx.npy --output-dir %t/gather
// RUN: latch-interp %s --entry scatter --input x=%t/scatter/x.npy --input idx=%t/scatter/idx.npy --output-dir %t/scatter
// RUN: python3 %S/Inputs/cases.py check routing %t | FileCheck %s
// task.topk (ties go to the lower index), task.bucket (stable order, an empty bucket), task.gather_rows
// (repeated rows), task.scatter_add_rows (rows with no contribution are 0).

// CHECK: ok topk3
// CHECK: ok bucket3
// CHECK: ok gather
// CHECK: ok scatter

func.func @topk3(%x: tensor<3x6xf32> {task.name = "x"}) -> (tensor<3x3xf32>, tensor<3x3xi32>) {
  %v, %i = "task.topk"(%x) {k = 3} : (tensor<3x6xf32>) -> (tensor<3x3xf32>, tensor<3x3xi32>)
  return %v, %i : tensor<3x3xf32>, tensor<3x3xi32>
}
func.func @bucket3(%ids: tensor<4x2xi32> {task.name = "ids"}) -> (tensor<8xi32>, tensor<4xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 4} : (tensor<4x2xi32>) -> (tensor<8xi32>, tensor<4xi32>)
  return %order, %ends : tensor<8xi32>, tensor<4xi32>
}
func.func @gather(%x: tensor<4x3xf32> {task.name = "x"}, %idx: tensor<5xi32> {task.name = "idx"}) -> tensor<5x3xf32> {
  %y = "task.gather_rows"(%x, %idx) : (tensor<4x3xf32>, tensor<5xi32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}
func.func @scatter(%x: tensor<5x3xf32> {task.name = "x"}, %idx: tensor<5xi32> {task.name = "idx"}) -> tensor<4x3xf32> {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 4} : (tensor<5x3xf32>, tensor<5xi32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
