// RUN: not latch-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=error:
// What IRDL itself rejects when a program is parsed (op names, operand/result/region counts, attribute
// presence and kinds, operand types), with the exact diagnostic and its location.

func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: unregistered operation 'task.nosuch' found in dialect ('task') that does not allow unknown operations
  %r = "task.nosuch"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: op expects exactly 1 operands, but got 2
  %r = "task.softmax"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: op expects exactly 2 results, but got 1
  %v = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> tensor<16x2xf32>
  return
}

// -----

func.func @f(%x: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' op attribute "theta" is expected but not provided
  %r = "task.rope"(%x) : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: expected base attribute 'builtin.float' but got 'builtin.integer'
  %r = "task.rope"(%x) {theta = 10000} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: expected base attribute 'builtin.string' but got 'builtin.integer'
  %r = "task.reduce"(%x) {axis = 1, kind = 0} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: memref<4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: expected base type 'builtin.tensor' but got 'builtin.memref'
  %r = "task.softmax"(%x) : (memref<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: 'task.map' op unexpected number of regions: expected 1 but got 0
  %r = "task.map"(%x) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// task.map inputs are optional operands of their own (IRDL cannot type a heterogeneous variadic list),
// so a map written without its segment sizes is rejected.
func.func @f(%x: tensor<4x8xf32>, %s: tensor<f32>) {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: 'operandSegmentSizes' attribute is expected but not provided
  %r = "task.map"(%x, %s) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f() {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:3: error: unregistered operation 'interval.nosuch' found in dialect ('interval') that does not allow unknown operations
  "interval.nosuch"() : () -> ()
  return
}

// -----

func.func @f() {
  // CHECK: {{.*}}irdl-errors.mlir:[[@LINE+1]]:8: error: 'arena.arena' op attribute "alignment" is expected but not provided
  %a = "arena.arena"() {size = 1024} : () -> memref<1024xi8>
  return
}
