// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify)' 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error:
// One case per latch-verify rule (docs/task-dialect.md, "Verifier rules"): each CHECK pins the message and
// the op's line and column; --implicit-check-not makes any further error fail the test.

// operands are static ranked tensors
func.func @f(%x: tensor<?x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax' operands must be ranked tensors of static shape
  %r = "task.softmax"(%x) : (tensor<?x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// results are static ranked tensors
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax' results must be ranked tensors of static shape
  %r = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x?xf32>
  return
}

// -----

// element types are f32, bf16, f64 or i32
func.func @f(%x: tensor<4xf16>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.convert' 'x' has element type f16; task tensors hold f32, bf16, f64 or i32
  %r = "task.convert"(%x) : (tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// i1 attributes
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' attribute 'transpose_a' must be an i1 (true or false), got 0 : i64
  %r = "task.matmul"(%a, %b) {transpose_a = 0, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

// i64 attributes
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' attribute 'k' must be an i64 integer, got 2 : i32
  %v, %i = "task.topk"(%x) {k = 2 : i32} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  return
}

// -----

// f64 attributes
func.func @f(%x: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' attribute 'theta' must be an f64 float, got 1.000000e+04 : f32
  %r = "task.rope"(%x) {theta = 1.0e4 : f32} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  return
}

// -----

// array<i64> attributes
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.transpose' attribute 'perm' must be an array<i64>, got array<i32: 1, 0>
  %r = "task.transpose"(%x) {perm = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

// matmul: a and b are float
func.func @f(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.matmul' 'a' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' 'b' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
  return
}

// -----

// matmul: b has a's dtype
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xbf16>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' 'b' must have the element type of 'a' (f32), got bf16
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xbf16>) -> tensor<4x2xf32>
  return
}

// -----

// matmul: c is f32 or a's dtype
func.func @f(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' 'c' must have element type f32 or that of 'a' (bf16), got f64
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xf64>
  return
}

// -----

// matmul: rank 2 or 3
func.func @f(%a: tensor<8xf32>, %b: tensor<8x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' operands and result must all be rank 2, or all rank 3 (leading batch dimension)
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  return
}

// -----

// matmul: one rank
func.func @f(%a: tensor<3x4x8xf32>, %b: tensor<8x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' operands and result must all be rank 2, or all rank 3 (leading batch dimension)
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<3x4x8xf32>, tensor<8x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

// matmul: inner dims
func.func @f(%a: tensor<4x8xf32>, %b: tensor<9x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' inner dimensions differ: 8 (a) vs 9 (b)
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<9x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

// matmul: inner dims after transposes
func.func @f(%a: tensor<4x8xf32>, %b: tensor<2x9xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' inner dimensions differ: 4 (a, transposed) vs 9 (b, transposed)
  %r = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<4x8xf32>, tensor<2x9xf32>) -> tensor<8x2xf32>
  return
}

// -----

// matmul: batch dims
func.func @f(%a: tensor<3x4x8xf32>, %b: tensor<2x8x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' dim 0 (batch) of 'b' must equal dim 0 of 'a' (got 2 and 3)
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<3x4x8xf32>, tensor<2x8x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

// matmul: result shape
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' 'c' must have shape [4, 2] (op(a) x op(b)), got [4, 3]
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: result batch dim
func.func @f(%a: tensor<3x4x8xf32>, %b: tensor<3x8x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.matmul' 'c' must have shape [3, 4, 2] (op(a) x op(b)), got [2, 4, 2]
  %r = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<2x4x2xf32>
  return
}

// -----

// grouped_matmul: x has rank 2
func.func @f(%x: tensor<16x8x1xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'x' must have rank 2, got 3
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8x1xf32>, tensor<4x8x2xf32>, tensor<4xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: x and w are float
func.func @f(%x: tensor<16x8xi32>, %w: tensor<4x8x2xi32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.grouped_matmul' 'x' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'w' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xi32>, tensor<4x8x2xi32>, tensor<4xi32>) -> tensor<16x2xi32>
  return
}

// -----

// grouped_matmul: w has rank 3
func.func @f(%x: tensor<16x8xf32>, %w: tensor<8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'w' must have rank 3, got 2
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<8x2xf32>, tensor<4xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: ends has rank 1
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4x1xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'ends' must have rank 1, got 2
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4x1xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: ends is i32
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'ends' must have element type i32, got f32
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: y has rank 2
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'y' must have rank 2, got 3
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4xi32>) -> tensor<16x2x1xf32>
  return
}

// -----

// grouped_matmul: w has x's dtype
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xbf16>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'w' must have the element type of 'x' (f32), got bf16
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: y is f32 or x's dtype
func.func @f(%x: tensor<16x8xbf16>, %w: tensor<4x8x2xbf16>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' 'y' must have element type f32 or that of 'x' (bf16), got f64
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xbf16>, tensor<4x8x2xbf16>, tensor<4xi32>) -> tensor<16x2xf64>
  return
}

// -----

// grouped_matmul: K
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x9x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' dim 1 of 'w' must equal dim 1 of 'x' (got 9 and 8)
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x9x2xf32>, tensor<4xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: G
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<3xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' dim 0 of 'ends' must equal dim 0 of 'w' (got 3 and 4)
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<3xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: y rows
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' dim 0 of 'y' must equal dim 0 of 'x' (got 15 and 16)
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4xi32>) -> tensor<15x2xf32>
  return
}

// -----

// grouped_matmul: y columns
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' dim 1 of 'y' must equal dim 2 of 'w' (got 3 and 2)
  %r = "task.grouped_matmul"(%x, %w, %e) : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4xi32>) -> tensor<16x3xf32>
  return
}

// -----

// grouped_matmul with transpose_w: w is [G, N, K], so its K is dim 2 and its N dim 1
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.grouped_matmul' dim 2 of 'w' must equal dim 1 of 'x' (got 2 and 8) (transpose_w)
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' dim 1 of 'y' must equal dim 1 of 'w' (got 2 and 8) (transpose_w)
  %r = "task.grouped_matmul"(%x, %w, %e) {transpose_w = true} : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: transpose_w must be a bool
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' attribute 'transpose_w' must be a bool
  %r = "task.grouped_matmul"(%x, %w, %e) {transpose_w = 1 : i64} : (tensor<16x8xf32>, tensor<4x8x2xf32>, tensor<4xi32>) -> tensor<16x2xf32>
  return
}

// -----

// grouped_matmul: the columns that w_column_offset names lie in w's last dim
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x6xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' attribute 'w_column_offset' (4) plus the 3 columns read must lie in dim 2 of 'w' (6)
  %r = "task.grouped_matmul"(%x, %w, %e) {w_column_offset = 4 : i64} : (tensor<16x8xf32>, tensor<4x8x6xf32>, tensor<4xi32>) -> tensor<16x3xf32>
  return
}

// -----

// grouped_matmul: w_column_offset is an i64
func.func @f(%x: tensor<16x8xf32>, %w: tensor<4x8x6xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul' attribute 'w_column_offset' must be an i64 integer, got "3"
  %r = "task.grouped_matmul"(%x, %w, %e) {w_column_offset = "3"} : (tensor<16x8xf32>, tensor<4x8x6xf32>, tensor<4xi32>) -> tensor<16x3xf32>
  return
}

// -----

// grouped_matmul_weight_grad_concat: dw holds the columns of dy0 and of dy1
func.func @f(%x: tensor<16x8xf32>, %d0: tensor<16x3xf32>, %d1: tensor<16x3xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad_concat' dim 2 of 'dw' must be twice dim 1 of 'dy0' (got 3 and 3)
  %r = "task.grouped_matmul_weight_grad_concat"(%x, %d0, %d1, %e) : (tensor<16x8xf32>, tensor<16x3xf32>, tensor<16x3xf32>, tensor<4xi32>) -> tensor<4x8x3xf32>
  return
}

// -----

// map: at least one output
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:3: error: 'task.map' must have at least one output
  "task.map"(%x0) ({
  ^bb0(%a: f32):
    gpu.yield
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> ()
  return
}

// -----

// map: outputs share one shape
func.func @f(%x0: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.map' 'outs[1]' must have the shape of 'outs[0]' ([4, 8]), got [8, 4]
  %r:2 = "task.map"(%x0) ({
  ^bb0(%a: f32):
    gpu.yield %a, %a : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x4xf32>)
  return
}

// -----

// map: inputs of rank > 0 have the output shape
func.func @f(%x0: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' 'ins[0]' must have rank 0 or the shape of 'outs[0]' ([4, 9]), got [4, 8]
  %r = "task.map"(%x0) ({
  ^bb0(%a: f32):
    gpu.yield %a : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x9xf32>
  return
}

// -----

// map: one block
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' body must have exactly one block, got 2
  %r = "task.map"(%x0) ({
  ^bb0(%a: f32):
    cf.br ^bb1
  ^bb1:
    gpu.yield %a : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// map: one block, not none
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' body must have exactly one block, got 0
  %r = "task.map"(%x0) ({

  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// map: one block argument per input
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' body has 2 arguments, expected 1 (one per input)
  %r = "task.map"(%x0) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// map: block arguments have the inputs' element types
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' body argument 0 has type i32, expected the element type of 'ins[0]' (f32)
  %r = "task.map"(%x0) ({
  ^bb0(%a: i32):
    %f = arith.sitofp %a : i32 to f32
    gpu.yield %f : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// map: the body ends in gpu.yield
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' body must end in gpu.yield
  %r = "task.map"(%x0) ({
  ^bb0(%a: f32):
    llvm.unreachable
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// map: one yielded value per output
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' gpu.yield has 2 operands, expected 1 (one per output)
  %r = "task.map"(%x0) ({
  ^bb0(%a: f32):
    gpu.yield %a, %a : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// map: yielded values have the outputs' element types
func.func @f(%x0: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.map' gpu.yield operand 0 has type i32, expected the element type of 'outs[0]' (f32)
  %r = "task.map"(%x0) ({
  ^bb0(%a: f32):
    %i = arith.fptosi %a : f32 to i32
    gpu.yield %i : i32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// reduce: x has rank >= 1
func.func @f(%x: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce' 'x' must have rank >= 1, got 0
  %r = "task.reduce"(%x) {axis = 0, kind = "sum"} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// reduce: kind
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce' attribute 'kind' must be "sum", "max" or "mean", got "min"
  %r = "task.reduce"(%x) {axis = 1, kind = "min"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// reduce: axis below the rank
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce' attribute 'axis' must be in [0, 2) (the rank of 'x'), got 2
  %r = "task.reduce"(%x) {axis = 2, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// reduce: axis not negative
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce' attribute 'axis' must be in [0, 2) (the rank of 'x'), got -1
  %r = "task.reduce"(%x) {axis = -1, kind = "max"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// reduce: result shape
func.func @f(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce' 'y' must have shape [2, 4] ('x' without dim 'axis'), got [2, 3]
  %r = "task.reduce"(%x) {axis = 1, kind = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// rmsnorm: x has rank >= 1
func.func @f(%x: tensor<f32>, %w: tensor<1xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' 'x' must have rank >= 1, got 0
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<f32>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

// rmsnorm: x is float
func.func @f(%x: tensor<2x8xi32>, %w: tensor<8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' 'x' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xi32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// rmsnorm: w has rank 1
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8x1xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' 'w' must have rank 1, got 2
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8x1xf32>) -> tensor<2x8xf32>
  return
}

// -----

// rmsnorm: w is float
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' 'w' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xi32>) -> tensor<2x8xf32>
  return
}

// -----

// rmsnorm: y is float
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' 'y' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi32>
  return
}

// -----

// rmsnorm: w matches the last dim of x
func.func @f(%x: tensor<2x8xf32>, %w: tensor<7xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' dim 0 of 'w' must equal the last dim of 'x' (got 7 and 8)
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<7xf32>) -> tensor<2x8xf32>
  return
}

// -----

// rmsnorm: y has x's shape
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' 'y' must have the shape of 'x' ([2, 8]), got [2, 9]
  %r = "task.rmsnorm"(%x, %w) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x9xf32>
  return
}

// -----

// rmsnorm: eps > 0
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rmsnorm' attribute 'eps' must be > 0, got 0
  %r = "task.rmsnorm"(%x, %w) {eps = 0.0} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// softmax: x has rank >= 1
func.func @f(%x: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax' 'x' must have rank >= 1, got 0
  %r = "task.softmax"(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// softmax: x is float
func.func @f(%x: tensor<4x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax' 'x' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.softmax"(%x) : (tensor<4x8xi32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax: y is float
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax' 'y' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xi32>
  return
}

// -----

// softmax: y has x's shape
func.func @f(%x: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax' 'y' must have the shape of 'x' ([4, 8]), got [8, 4]
  %r = "task.softmax"(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

// cross_entropy: logits have rank 2
func.func @f(%l: tensor<8x10x1xf32>, %t: tensor<8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' 'logits' must have rank 2, got 3
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10x1xf32>, tensor<8xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: logits are float
func.func @f(%l: tensor<8x10xi32>, %t: tensor<8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' 'logits' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10xi32>, tensor<8xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: targets have rank 1
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8x1xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' 'targets' must have rank 1, got 2
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10xf32>, tensor<8x1xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: targets are i32
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' 'targets' must have element type i32, got f32
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10xf32>, tensor<8xf32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: the loss has rank 0
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' 'loss' must have rank 0, got 1
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<1xf32>
  return
}

// -----

// cross_entropy: the loss is f32
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' 'loss' must have element type f32, got bf16
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<bf16>
  return
}

// -----

// cross_entropy: one target per row
func.func @f(%l: tensor<8x10xf32>, %t: tensor<7xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy' dim 0 of 'targets' must equal dim 0 of 'logits' (got 7 and 8)
  %r = "task.cross_entropy"(%l, %t) : (tensor<8x10xf32>, tensor<7xi32>) -> tensor<f32>
  return
}

// -----

// embedding: table has rank 2
func.func @f(%t: tensor<100xbf16>, %i: tensor<2x5xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.embedding' 'table' must have rank 2, got 1
  %r = "task.embedding"(%t, %i) : (tensor<100xbf16>, tensor<2x5xi32>) -> tensor<2x5x16xbf16>
  return
}

// -----

// embedding: ids are i32
func.func @f(%t: tensor<100x16xbf16>, %i: tensor<2x5xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.embedding' 'ids' must have element type i32, got f32
  %r = "task.embedding"(%t, %i) : (tensor<100x16xbf16>, tensor<2x5xf32>) -> tensor<2x5x16xbf16>
  return
}

// -----

// embedding: y has table's dtype
func.func @f(%t: tensor<100x16xbf16>, %i: tensor<2x5xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.embedding' 'y' must have the element type of 'table' (bf16), got f32
  %r = "task.embedding"(%t, %i) : (tensor<100x16xbf16>, tensor<2x5xi32>) -> tensor<2x5x16xf32>
  return
}

// -----

// embedding: y has shape ids + [D]
func.func @f(%t: tensor<100x16xbf16>, %i: tensor<2x5xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.embedding' 'y' must have shape [2, 5, 16] (the shape of 'ids', then dim 1 of 'table'), got [2, 5, 8]
  %r = "task.embedding"(%t, %i) : (tensor<100x16xbf16>, tensor<2x5xi32>) -> tensor<2x5x8xbf16>
  return
}

// -----

// rope: x has rank 4
func.func @f(%x: tensor<16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' 'x' must have rank 4, got 3
  %r = "task.rope"(%x) {theta = 1.0e4} : (tensor<16x4x8xf32>) -> tensor<16x4x8xf32>
  return
}

// -----

// rope: x is float
func.func @f(%x: tensor<2x16x4x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' 'x' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.rope"(%x) {theta = 1.0e4} : (tensor<2x16x4x8xi32>) -> tensor<2x16x4x8xi32>
  return
}

// -----

// rope: y has x's shape
func.func @f(%x: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' 'y' must have the shape of 'x' ([2, 16, 4, 8]), got [2, 16, 4, 6]
  %r = "task.rope"(%x) {theta = 1.0e4} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x6xf32>
  return
}

// -----

// rope: y has x's dtype, or bf16 for an f32 x (rounded on store; latch-fold-converts): not f32 for bf16
func.func @f(%x: tensor<2x16x4x8xbf16>, %z: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' 'y' must have the element type of 'x' (bf16), or bf16 for f32, got f32
  %r = "task.rope"(%x) {theta = 1.0e4} : (tensor<2x16x4x8xbf16>) -> tensor<2x16x4x8xf32>
  %ok = "task.rope"(%z) {theta = 1.0e4} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xbf16>
  return
}

// -----

// rope: the head dim is even
func.func @f(%x: tensor<2x16x4x7xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' dim 3 (head dim) of 'x' must be even, got 7
  %r = "task.rope"(%x) {theta = 1.0e4} : (tensor<2x16x4x7xf32>) -> tensor<2x16x4x7xf32>
  return
}

// -----

// rope: theta > 0
func.func @f(%x: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope' attribute 'theta' must be > 0, got -1
  %r = "task.rope"(%x) {theta = -1.0} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  return
}

// -----

// attention: q, k and v have rank 4
func.func @f(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:8: error: 'task.attention' 'q' must have rank 4, got 3
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.attention' 'k' must have rank 4, got 3
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' 'v' must have rank 4, got 3
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return
}

// -----

// attention: q, k and v are float
func.func @f(%q: tensor<2x4x16x8xi32>, %k: tensor<2x4x16x8xi32>, %v: tensor<2x4x16x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:8: error: 'task.attention' 'q' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.attention' 'k' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' 'v' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: o is float
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' 'o' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xi32>
  return
}

// -----

// attention: B of k
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<3x4x16x8xf32>, %v: tensor<3x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.attention' dim 0 of 'k' must equal dim 0 of 'q' (got 3 and 2)
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 0 of 'v' must equal dim 0 of 'q' (got 3 and 2)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<3x4x16x8xf32>, tensor<3x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: H of k
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x5x16x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 1 of 'k' must equal dim 1 of 'q' (got 5 and 4)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x5x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: hd of k
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x6xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 3 of 'k' must equal dim 3 of 'q' (got 6 and 8)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: B of v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<3x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 0 of 'v' must equal dim 0 of 'q' (got 3 and 2)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<3x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: H of v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x5x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 1 of 'v' must equal dim 1 of 'q' (got 5 and 4)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x5x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: hd of v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x6xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 3 of 'v' must equal dim 3 of 'q' (got 6 and 8)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: k and v have one T
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x12x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' dim 2 of 'v' must equal dim 2 of 'k' (got 16 and 12)
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: o has q's shape
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' 'o' must have the shape of 'q' ([2, 4, 16, 8]), got [2, 4, 16, 4]
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x4xf32>
  return
}

// -----

// attention: causal needs Tq == Tk
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x12x8xf32>, %v: tensor<2x4x12x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' with causal = true, dim 2 of 'k' must equal dim 2 of 'q' (got 12 and 16)
  %r = "task.attention"(%q, %k, %v) {causal = true, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: scale is finite
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' attribute 'scale' must be finite, got inf
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0x7FF0000000000000 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// attention: scale is not NaN
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.attention' attribute 'scale' must be finite, got nan
  %r = "task.attention"(%q, %k, %v) {causal = false, scale = 0x7FF8000000000000 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

// topk: x has rank 2
func.func @f(%x: tensor<16x8x1xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'x' must have rank 2, got 3
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8x1xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  return
}

// -----

// topk: x is float
func.func @f(%x: tensor<16x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'x' must have a float element type (f32, bf16 or f64), got i32
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xi32>) -> (tensor<16x2xi32>, tensor<16x2xi32>)
  return
}

// -----

// topk: values have rank 2
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'values' must have rank 2, got 1
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<32xf32>, tensor<16x2xi32>)
  return
}

// -----

// topk: indices have rank 2
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'indices' must have rank 2, got 1
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<32xi32>)
  return
}

// -----

// topk: indices are i32
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'indices' must have element type i32, got f32
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xf32>)
  return
}

// -----

// topk: k >= 1
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' attribute 'k' must be >= 1, got 0
  %v, %i = "task.topk"(%x) {k = 0} : (tensor<16x8xf32>) -> (tensor<16x0xf32>, tensor<16x0xi32>)
  return
}

// -----

// topk: k <= E
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'k' must be at most dim 1 of 'x' (got 9 and 8)
  %v, %i = "task.topk"(%x) {k = 9} : (tensor<16x8xf32>) -> (tensor<16x9xf32>, tensor<16x9xi32>)
  return
}

// -----

// topk: values have x's dtype
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' 'values' must have the element type of 'x' (f32), got bf16
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xbf16>, tensor<16x2xi32>)
  return
}

// -----

// topk: values have N rows
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' dim 0 of 'values' must equal dim 0 of 'x' (got 15 and 16)
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<15x2xf32>, tensor<16x2xi32>)
  return
}

// -----

// topk: values have k columns
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' dim 1 of 'values' must equal 'k' (got 3 and 2)
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x3xf32>, tensor<16x2xi32>)
  return
}

// -----

// topk: indices have N rows
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' dim 0 of 'indices' must equal dim 0 of 'x' (got 15 and 16)
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<15x2xi32>)
  return
}

// -----

// topk: indices have k columns
func.func @f(%x: tensor<16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.topk' dim 1 of 'indices' must equal 'k' (got 3 and 2)
  %v, %i = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x3xi32>)
  return
}

// -----

// bucket: ids have rank 2
func.func @f(%x: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' 'ids' must have rank 2, got 1
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<32xi32>) -> (tensor<32xi32>, tensor<8xi32>)
  return
}

// -----

// bucket: ids are i32
func.func @f(%x: tensor<16x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' 'ids' must have element type i32, got f32
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xf32>) -> (tensor<32xi32>, tensor<8xi32>)
  return
}

// -----

// bucket: order has rank 1
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' 'order' must have rank 1, got 2
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32x1xi32>, tensor<8xi32>)
  return
}

// -----

// bucket: order is i32
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' 'order' must have element type i32, got f32
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32xf32>, tensor<8xi32>)
  return
}

// -----

// bucket: ends have rank 1
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' 'ends' must have rank 1, got 2
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8x1xi32>)
  return
}

// -----

// bucket: ends are i32
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' 'ends' must have element type i32, got f32
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<8xf32>)
  return
}

// -----

// bucket: buckets >= 1
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' attribute 'buckets' must be >= 1, got 0
  %o, %e = "task.bucket"(%x) {buckets = 0} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<0xi32>)
  return
}

// -----

// bucket: one end per bucket
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' dim 0 of 'ends' must equal 'buckets' (got 7 and 8)
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<32xi32>, tensor<7xi32>)
  return
}

// -----

// bucket: order has N*k entries
func.func @f(%x: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:12: error: 'task.bucket' dim 0 of 'order' must equal the element count of 'ids' (got 30 and 32)
  %o, %e = "task.bucket"(%x) {buckets = 8} : (tensor<16x2xi32>) -> (tensor<30xi32>, tensor<8xi32>)
  return
}

// -----

// gather_rows: x has rank 2
func.func @f(%x: tensor<16x8x1xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' 'x' must have rank 2, got 3
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8x1xf32>, tensor<32xi32>) -> tensor<32x8xf32>
  return
}

// -----

// gather_rows: idx has rank 1
func.func @f(%x: tensor<16x8xf32>, %i: tensor<32x1xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' 'idx' must have rank 1, got 2
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8xf32>, tensor<32x1xi32>) -> tensor<32x8xf32>
  return
}

// -----

// gather_rows: idx is i32
func.func @f(%x: tensor<16x8xf32>, %i: tensor<32xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' 'idx' must have element type i32, got f32
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8xf32>, tensor<32xf32>) -> tensor<32x8xf32>
  return
}

// -----

// gather_rows: y has rank 2
func.func @f(%x: tensor<16x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' 'y' must have rank 2, got 1
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8xf32>, tensor<32xi32>) -> tensor<256xf32>
  return
}

// -----

// gather_rows: y has x's dtype
func.func @f(%x: tensor<16x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' 'y' must have the element type of 'x' (f32), got bf16
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8xf32>, tensor<32xi32>) -> tensor<32x8xbf16>
  return
}

// -----

// gather_rows: one row of y per index
func.func @f(%x: tensor<16x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' dim 0 of 'y' must equal dim 0 of 'idx' (got 16 and 32)
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8xf32>, tensor<32xi32>) -> tensor<16x8xf32>
  return
}

// -----

// gather_rows: y rows are x rows
func.func @f(%x: tensor<16x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.gather_rows' dim 1 of 'y' must equal dim 1 of 'x' (got 4 and 8)
  %r = "task.gather_rows"(%x, %i) : (tensor<16x8xf32>, tensor<32xi32>) -> tensor<32x4xf32>
  return
}

// -----

// scatter_add_rows: x has rank 2
func.func @f(%x: tensor<32x8x1xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' 'x' must have rank 2, got 3
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8x1xf32>, tensor<32xi32>) -> tensor<16x8xf32>
  return
}

// -----

// scatter_add_rows: idx has rank 1
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32x1xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' 'idx' must have rank 1, got 2
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<32x1xi32>) -> tensor<16x8xf32>
  return
}

// -----

// scatter_add_rows: idx is i32
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' 'idx' must have element type i32, got f32
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<32xf32>) -> tensor<16x8xf32>
  return
}

// -----

// scatter_add_rows: y has rank 2
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' 'y' must have rank 2, got 1
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<128xf32>
  return
}

// -----

// scatter_add_rows: rows >= 1
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' attribute 'rows' must be >= 1, got 0
  %r = "task.scatter_add_rows"(%x, %i) {rows = 0} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<0x8xf32>
  return
}

// -----

// scatter_add_rows: y has x's dtype
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' 'y' must have the element type of 'x' (f32), got bf16
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<16x8xbf16>
  return
}

// -----

// scatter_add_rows: one index per row of x
func.func @f(%x: tensor<32x8xf32>, %i: tensor<16xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' dim 0 of 'idx' must equal dim 0 of 'x' (got 16 and 32)
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  return
}

// -----

// scatter_add_rows: y has 'rows' rows
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' dim 0 of 'y' must equal 'rows' (got 15 and 16)
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<15x8xf32>
  return
}

// -----

// scatter_add_rows: y rows are x rows
func.func @f(%x: tensor<32x8xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.scatter_add_rows' dim 1 of 'y' must equal dim 1 of 'x' (got 4 and 8)
  %r = "task.scatter_add_rows"(%x, %i) {rows = 16} : (tensor<32x8xf32>, tensor<32xi32>) -> tensor<16x4xf32>
  return
}

// -----

// reshape: element counts
func.func @f(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reshape' 'y' must have as many elements as 'x' (got 25 and 24)
  %r = "task.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return
}

// -----

// reshape: dtypes
func.func @f(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reshape' 'y' must have the element type of 'x' (f32), got i32
  %r = "task.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xi32>
  return
}

// -----

// transpose: perm is a permutation
func.func @f(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.transpose' attribute 'perm' must be a permutation of the 3 dims of 'x', got array<i64: 0, 0, 1>
  %r = "task.transpose"(%x) {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// transpose: perm has one entry per dim
func.func @f(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.transpose' attribute 'perm' must be a permutation of the 3 dims of 'x', got array<i64: 1, 0>
  %r = "task.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

// transpose: perm entries are dims
func.func @f(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.transpose' attribute 'perm' must be a permutation of the 2 dims of 'x', got array<i64: 1, 2>
  %r = "task.transpose"(%x) {perm = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// transpose: result shape
func.func @f(%x: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.transpose' 'y' must have shape [4, 2, 3] (the dims of 'x' in 'perm' order), got [2, 3, 4]
  %r = "task.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// transpose: dtypes
func.func @f(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.transpose' 'y' must have the element type of 'x' (f32), got bf16
  %r = "task.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xbf16>
  return
}

// -----

// convert: same shape
func.func @f(%x: tensor<2x3xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.convert' 'y' must have the shape of 'x' ([2, 3]), got [3, 2]
  %r = "task.convert"(%x) : (tensor<2x3xf32>) -> tensor<3x2xbf16>
  return
}

// -----

// adamw: every tensor but step is f32
func.func @f(%p: tensor<4x8xbf16>, %g: tensor<4x8xbf16>, %m: tensor<4x8xbf16>, %v: tensor<4x8xbf16>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+7]]:10: error: 'task.adamw' 'p' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+6]]:10: error: 'task.adamw' 'g' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+5]]:10: error: 'task.adamw' 'm' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+4]]:10: error: 'task.adamw' 'v' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:10: error: 'task.adamw' 'p_out' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.adamw' 'm_out' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' 'v_out' must have element type f32, got bf16
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<i32>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>)
  return
}

// -----

// adamw: step has rank 0
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<1xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' 'step' must have rank 0, got 1
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: step is f32 or i32
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<bf16>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' 'step' must have element type f32 or i32, got bf16
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<bf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: one shape
func.func @f(%p: tensor<4x9xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+6]]:10: error: 'task.adamw' 'g' must have the shape of 'p' ([4, 9]), got [4, 8]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+5]]:10: error: 'task.adamw' 'm' must have the shape of 'p' ([4, 9]), got [4, 8]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+4]]:10: error: 'task.adamw' 'v' must have the shape of 'p' ([4, 9]), got [4, 8]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:10: error: 'task.adamw' 'p_out' must have the shape of 'p' ([4, 9]), got [4, 8]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.adamw' 'm_out' must have the shape of 'p' ([4, 9]), got [4, 8]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' 'v_out' must have the shape of 'p' ([4, 9]), got [4, 8]
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x9xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: lr > 0
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' attribute 'lr' must be > 0, got 0
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 0.0, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: 0 <= beta1 < 1
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' attribute 'beta1' must be in [0, 1), got 1
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 1.0, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: 0 <= beta2 < 1
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' attribute 'beta2' must be in [0, 1), got -0.1
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = -0.1, eps = 1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: eps > 0
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' attribute 'eps' must be > 0, got -1e-08
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = -1.0e-8, weight_decay = 0.1}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// adamw: weight_decay >= 0
func.func @f(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %s: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.adamw' attribute 'weight_decay' must be >= 0, got -0.01
  %r:3 = "task.adamw"(%p, %g, %m, %v, %s)
      {lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = -0.01}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// reduce_grad: x has rank >= 1
func.func @f(%x: tensor<f32>, %dy: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' 'x' must have rank >= 1, got 0
  %r = "task.reduce_grad"(%x, %dy) {axis = 0, kind = "sum"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// reduce_grad: x is float
func.func @f(%x: tensor<4x8xi32>, %dy: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' 'x' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "sum"} : (tensor<4x8xi32>, tensor<4xf32>) -> tensor<4x8xi32>
  return
}

// -----

// reduce_grad: dy is float
func.func @f(%x: tensor<4x8xf32>, %dy: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' 'dy' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "sum"} : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_grad: kind
func.func @f(%x: tensor<4x8xf32>, %dy: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' attribute 'kind' must be "sum", "max" or "mean", got "min"
  %r = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "min"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_grad: axis below the rank
func.func @f(%x: tensor<4x8xf32>, %dy: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' attribute 'axis' must be in [0, 2) (the rank of 'x'), got 2
  %r = "task.reduce_grad"(%x, %dy) {axis = 2, kind = "sum"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_grad: axis not negative
func.func @f(%x: tensor<4x8xf32>, %dy: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' attribute 'axis' must be in [0, 2) (the rank of 'x'), got -1
  %r = "task.reduce_grad"(%x, %dy) {axis = -1, kind = "max"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_grad: dy has the shape of x without the axis
func.func @f(%x: tensor<2x3x4xf32>, %dy: tensor<2x3xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' 'dy' must have shape [2, 4] ('x' without dim 'axis'), got [2, 3]
  %r = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "mean"} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// reduce_grad: dx has x's shape
func.func @f(%x: tensor<2x3x4xf32>, %dy: tensor<2x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' 'dx' must have the shape of 'x' ([2, 3, 4]), got [2, 3, 5]
  %r = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "sum"} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

// reduce_grad: dx has x's dtype
func.func @f(%x: tensor<2x3x4xf32>, %dy: tensor<2x4xbf16>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.reduce_grad' 'dx' must have the element type of 'x' (f32), got bf16
  %r = "task.reduce_grad"(%x, %dy) {axis = 1, kind = "sum"} : (tensor<2x3x4xf32>, tensor<2x4xbf16>) -> tensor<2x3x4xbf16>
  return
}

// -----

// rmsnorm_grad: x has rank >= 1
func.func @f(%x: tensor<f32>, %w: tensor<1xf32>, %dy: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'x' must have rank >= 1, got 0
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<f32>, tensor<1xf32>, tensor<f32>) -> (tensor<f32>, tensor<1xf32>)
  return
}

// -----

// rmsnorm_grad: x is float
func.func @f(%x: tensor<2x8xi32>, %w: tensor<8xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'x' must have a float element type (f32, bf16 or f64), got i32
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xi32>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<2x8xi32>, tensor<8xf32>)
  return
}

// -----

// rmsnorm_grad: w has rank 1
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8x1xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'w' must have rank 1, got 2
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8x1xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8x1xf32>)
  return
}

// -----

// rmsnorm_grad: w is float
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xi32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'w' must have a float element type (f32, bf16 or f64), got i32
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xi32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8xi32>)
  return
}

// -----

// rmsnorm_grad: dy is float
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %dy: tensor<2x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'dy' must have a float element type (f32, bf16 or f64), got i32
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xi32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  return
}

// -----

// rmsnorm_grad: w matches the last dim of x
func.func @f(%x: tensor<2x8xf32>, %w: tensor<7xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' dim 0 of 'w' must equal the last dim of 'x' (got 7 and 8)
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<7xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<7xf32>)
  return
}

// -----

// rmsnorm_grad: dy has x's shape
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %dy: tensor<2x9xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'dy' must have the shape of 'x' ([2, 8]), got [2, 9]
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x9xf32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  return
}

// -----

// rmsnorm_grad: dx has x's shape
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'dx' must have the shape of 'x' ([2, 8]), got [2, 9]
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<2x9xf32>, tensor<8xf32>)
  return
}

// -----

// rmsnorm_grad: dx has x's dtype
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'dx' must have the element type of 'x' (f32), got bf16
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<2x8xbf16>, tensor<8xf32>)
  return
}

// -----

// rmsnorm_grad: dw has w's shape
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'dw' must have the shape of 'w' ([8]), got [9]
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<9xf32>)
  return
}

// -----

// rmsnorm_grad: dw has w's dtype
func.func @f(%x: tensor<2x8xbf16>, %w: tensor<8xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' 'dw' must have the element type of 'w' (f32), got bf16
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5} : (tensor<2x8xbf16>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<2x8xbf16>, tensor<8xbf16>)
  return
}

// -----

// rmsnorm_grad: eps > 0
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %dy: tensor<2x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.rmsnorm_grad' attribute 'eps' must be > 0, got 0
  %r:2 = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 0.0} : (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  return
}

// -----

// softmax_grad: y has rank >= 1
func.func @f(%y: tensor<f32>, %dy: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax_grad' 'y' must have rank >= 1, got 0
  %r = "task.softmax_grad"(%y, %dy) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// softmax_grad: y is float
func.func @f(%y: tensor<4x8xi32>, %dy: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax_grad' 'y' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.softmax_grad"(%y, %dy) : (tensor<4x8xi32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax_grad: dy is float
func.func @f(%y: tensor<4x8xf32>, %dy: tensor<4x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax_grad' 'dy' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.softmax_grad"(%y, %dy) : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax_grad: dx is float
func.func @f(%y: tensor<4x8xf32>, %dy: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax_grad' 'dx' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.softmax_grad"(%y, %dy) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi32>
  return
}

// -----

// softmax_grad: dy has y's shape
func.func @f(%y: tensor<4x8xf32>, %dy: tensor<8x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax_grad' 'dy' must have the shape of 'y' ([4, 8]), got [8, 4]
  %r = "task.softmax_grad"(%y, %dy) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax_grad: dx has y's shape
func.func @f(%y: tensor<4x8xf32>, %dy: tensor<4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.softmax_grad' 'dx' must have the shape of 'y' ([4, 8]), got [4, 9]
  %r = "task.softmax_grad"(%y, %dy) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x9xf32>
  return
}

// -----

// cross_entropy_grad: logits have rank 2
func.func @f(%l: tensor<8x10x1xf32>, %t: tensor<8xi32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'logits' must have rank 2, got 3
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10x1xf32>, tensor<8xi32>, tensor<f32>) -> tensor<8x10x1xf32>
  return
}

// -----

// cross_entropy_grad: logits are float
func.func @f(%l: tensor<8x10xi32>, %t: tensor<8xi32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'logits' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xi32>, tensor<8xi32>, tensor<f32>) -> tensor<8x10xi32>
  return
}

// -----

// cross_entropy_grad: targets have rank 1
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8x1xi32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'targets' must have rank 1, got 2
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xf32>, tensor<8x1xi32>, tensor<f32>) -> tensor<8x10xf32>
  return
}

// -----

// cross_entropy_grad: targets are i32
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xf32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'targets' must have element type i32, got f32
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xf32>, tensor<8xf32>, tensor<f32>) -> tensor<8x10xf32>
  return
}

// -----

// cross_entropy_grad: dloss has rank 0
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xi32>, %d: tensor<1xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'dloss' must have rank 0, got 1
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xf32>, tensor<8xi32>, tensor<1xf32>) -> tensor<8x10xf32>
  return
}

// -----

// cross_entropy_grad: dloss is float
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xi32>, %d: tensor<i32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'dloss' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xf32>, tensor<8xi32>, tensor<i32>) -> tensor<8x10xf32>
  return
}

// -----

// cross_entropy_grad: one target per row
func.func @f(%l: tensor<8x10xf32>, %t: tensor<7xi32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' dim 0 of 'targets' must equal dim 0 of 'logits' (got 7 and 8)
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xf32>, tensor<7xi32>, tensor<f32>) -> tensor<8x10xf32>
  return
}

// -----

// cross_entropy_grad: dlogits have the shape of logits
func.func @f(%l: tensor<8x10xf32>, %t: tensor<8xi32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'dlogits' must have the shape of 'logits' ([8, 10]), got [8, 11]
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xf32>, tensor<8xi32>, tensor<f32>) -> tensor<8x11xf32>
  return
}

// -----

// cross_entropy_grad: dlogits have the dtype of logits
func.func @f(%l: tensor<8x10xbf16>, %t: tensor<8xi32>, %d: tensor<f32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.cross_entropy_grad' 'dlogits' must have the element type of 'logits' (bf16), or bf16 for f32, got f32
  %r = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<8x10xbf16>, tensor<8xi32>, tensor<f32>) -> tensor<8x10xf32>
  return
}

// -----

// rope_grad: dy has rank 4
func.func @f(%dy: tensor<16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope_grad' 'dy' must have rank 4, got 3
  %r = "task.rope_grad"(%dy) {theta = 1.0e4} : (tensor<16x4x8xf32>) -> tensor<16x4x8xf32>
  return
}

// -----

// rope_grad: dy is float
func.func @f(%dy: tensor<2x16x4x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope_grad' 'dy' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.rope_grad"(%dy) {theta = 1.0e4} : (tensor<2x16x4x8xi32>) -> tensor<2x16x4x8xi32>
  return
}

// -----

// rope_grad: dx has dy's shape
func.func @f(%dy: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope_grad' 'dx' must have the shape of 'dy' ([2, 16, 4, 8]), got [2, 16, 4, 6]
  %r = "task.rope_grad"(%dy) {theta = 1.0e4} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x6xf32>
  return
}

// -----

// rope_grad: dx has dy's dtype, or bf16 for an f32 dy
func.func @f(%dy: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope_grad' 'dx' must have the element type of 'dy' (f32), or bf16 for f32, got f64
  %r = "task.rope_grad"(%dy) {theta = 1.0e4} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf64>
  %ok = "task.rope_grad"(%dy) {theta = 1.0e4} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xbf16>
  return
}

// -----

// rope_grad: the head dim is even
func.func @f(%dy: tensor<2x16x4x7xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope_grad' dim 3 (head dim) of 'dy' must be even, got 7
  %r = "task.rope_grad"(%dy) {theta = 1.0e4} : (tensor<2x16x4x7xf32>) -> tensor<2x16x4x7xf32>
  return
}

// -----

// rope_grad: theta > 0
func.func @f(%dy: tensor<2x16x4x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.rope_grad' attribute 'theta' must be > 0, got 0
  %r = "task.rope_grad"(%dy) {theta = 0.0} : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  return
}

// -----

// attention_grad: q, k, v, o and do have rank 4
func.func @f(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>,
             %o: tensor<4x16x8xf32>, %do: tensor<4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+5]]:10: error: 'task.attention_grad' 'q' must have rank 4, got 3
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+4]]:10: error: 'task.attention_grad' 'k' must have rank 4, got 3
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:10: error: 'task.attention_grad' 'v' must have rank 4, got 3
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad' 'o' must have rank 4, got 3
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' 'do' must have rank 4, got 3
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>)
  return
}

// -----

// attention_grad: q, k, v, o and do are float
func.func @f(%q: tensor<2x4x16x8xi32>, %k: tensor<2x4x16x8xi32>, %v: tensor<2x4x16x8xi32>,
             %o: tensor<2x4x16x8xi32>, %do: tensor<2x4x16x8xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+5]]:10: error: 'task.attention_grad' 'q' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+4]]:10: error: 'task.attention_grad' 'k' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:10: error: 'task.attention_grad' 'v' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad' 'o' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' 'do' must have a float element type (f32, bf16 or f64), got i32
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>) -> (tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>, tensor<2x4x16x8xi32>)
  return
}

// -----

// attention_grad: B of k and v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<3x4x16x8xf32>, %v: tensor<3x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad' dim 0 of 'k' must equal dim 0 of 'q' (got 3 and 2)
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' dim 0 of 'v' must equal dim 0 of 'q' (got 3 and 2)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<3x4x16x8xf32>, tensor<3x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<3x4x16x8xf32>, tensor<3x4x16x8xf32>)
  return
}

// -----

// attention_grad: H of k
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x5x16x8xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' dim 1 of 'k' must equal dim 1 of 'q' (got 5 and 4)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x5x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x5x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: hd of k
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x6xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' dim 3 of 'k' must equal dim 3 of 'q' (got 6 and 8)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: H of v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x5x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' dim 1 of 'v' must equal dim 1 of 'q' (got 5 and 4)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x5x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x5x16x8xf32>)
  return
}

// -----

// attention_grad: hd of v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x6xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' dim 3 of 'v' must equal dim 3 of 'q' (got 6 and 8)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>)
  return
}

// -----

// attention_grad: k and v have one T
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x12x8xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' dim 2 of 'v' must equal dim 2 of 'k' (got 16 and 12)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: o has q's shape
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x4xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' 'o' must have the shape of 'q' ([2, 4, 16, 8]), got [2, 4, 16, 4]
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: do has q's shape
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x12x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' 'do' must have the shape of 'q' ([2, 4, 16, 8]), got [2, 4, 12, 8]
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: causal needs Tq == Tk
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x12x8xf32>, %v: tensor<2x4x12x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' with causal = true, dim 2 of 'k' must equal dim 2 of 'q' (got 12 and 16)
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x8xf32>)
  return
}

// -----

// attention_grad: scale is finite
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' attribute 'scale' must be finite, got inf
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0x7FF0000000000000 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: dq, dk, dv have the shapes of q, k, v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:10: error: 'task.attention_grad' 'dq' must have the shape of 'q' ([2, 4, 16, 8]), got [2, 4, 16, 4]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad' 'dk' must have the shape of 'k' ([2, 4, 16, 8]), got [2, 4, 15, 8]
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' 'dv' must have the shape of 'v' ([2, 4, 16, 8]), got [1, 4, 16, 8]
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x4xf32>, tensor<2x4x15x8xf32>, tensor<1x4x16x8xf32>)
  return
}

// -----

// attention_grad: dq, dk, dv have the dtypes of q, k, v
func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xf64>,
             %o: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:10: error: 'task.attention_grad' 'dq' must have the element type of 'q' (f32), got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad' 'dk' must have the element type of 'k' (bf16), got f32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad' 'dv' must have the element type of 'v' (f64), got f32
  %r:3 = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.125} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xf64>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// i64 attributes: columns
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' attribute 'columns' must be an i64 integer, got 8 : i32
  %r = "task.topk_grad"(%d, %i) {columns = 8 : i32} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: dvalues have rank 2
func.func @f(%d: tensor<32xf32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'dvalues' must have rank 2, got 1
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<32xf32>, tensor<16x2xi32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: dvalues are float
func.func @f(%d: tensor<16x2xi32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'dvalues' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xi32>, tensor<16x2xi32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: indices have rank 2
func.func @f(%d: tensor<16x2xf32>, %i: tensor<32xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'indices' must have rank 2, got 1
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<32xi32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: indices are i32
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'indices' must have element type i32, got f32
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: dx has rank 2
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'dx' must have rank 2, got 1
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<128xf32>
  return
}

// -----

// topk_grad: dx is float
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'dx' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<16x8xi32>
  return
}

// -----

// topk_grad: columns >= 1
func.func @f(%d: tensor<16x0xf32>, %i: tensor<16x0xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' attribute 'columns' must be >= 1, got 0
  %r = "task.topk_grad"(%d, %i) {columns = 0} : (tensor<16x0xf32>, tensor<16x0xi32>) -> tensor<16x0xf32>
  return
}

// -----

// topk_grad: k <= columns
func.func @f(%d: tensor<16x9xf32>, %i: tensor<16x9xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' dim 1 of 'dvalues' must be at most 'columns' (got 9 and 8)
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x9xf32>, tensor<16x9xi32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: indices have the shape of dvalues
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x3xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' 'indices' must have the shape of 'dvalues' ([16, 2]), got [16, 3]
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x3xi32>) -> tensor<16x8xf32>
  return
}

// -----

// topk_grad: dx has N rows
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' dim 0 of 'dx' must equal dim 0 of 'dvalues' (got 15 and 16)
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<15x8xf32>
  return
}

// -----

// topk_grad: dx has 'columns' columns
func.func @f(%d: tensor<16x2xf32>, %i: tensor<16x2xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.topk_grad' dim 1 of 'dx' must equal 'columns' (got 7 and 8)
  %r = "task.topk_grad"(%d, %i) {columns = 8} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<16x7xf32>
  return
}

// -----

// grouped_matmul_weight_grad: x has rank 2
func.func @f(%x: tensor<16x8x1xf32>, %dy: tensor<16x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'x' must have rank 2, got 3
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8x1xf32>, tensor<16x2xf32>, tensor<4xi32>) -> tensor<4x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: dy has rank 2
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<32xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'dy' must have rank 2, got 1
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<32xf32>, tensor<4xi32>) -> tensor<4x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: ends have rank 1
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xf32>, %e: tensor<4x1xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'ends' must have rank 1, got 2
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xf32>, tensor<4x1xi32>) -> tensor<4x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: dw has rank 3
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'dw' must have rank 3, got 2
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xf32>, tensor<4xi32>) -> tensor<8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: x and dy are float
func.func @f(%x: tensor<16x8xi32>, %dy: tensor<16x2xi32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.grouped_matmul_weight_grad' 'x' must have a float element type (f32, bf16 or f64), got i32
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'dy' must have a float element type (f32, bf16 or f64), got i32
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xi32>, tensor<16x2xi32>, tensor<4xi32>) -> tensor<4x8x2xi32>
  return
}

// -----

// grouped_matmul_weight_grad: ends are i32
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xf32>, %e: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'ends' must have element type i32, got f32
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xf32>, tensor<4xf32>) -> tensor<4x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: dy has x's dtype
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xbf16>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'dy' must have the element type of 'x' (f32), got bf16
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: dw is f32 or x's dtype
func.func @f(%x: tensor<16x8xbf16>, %dy: tensor<16x2xbf16>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' 'dw' must have element type f32 or that of 'x' (bf16), got f64
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xbf16>, tensor<16x2xbf16>, tensor<4xi32>) -> tensor<4x8x2xf64>
  return
}

// -----

// grouped_matmul_weight_grad: one row of dy per row of x
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<15x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' dim 0 of 'dy' must equal dim 0 of 'x' (got 15 and 16)
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<15x2xf32>, tensor<4xi32>) -> tensor<4x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: G
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' dim 0 of 'dw' must equal dim 0 of 'ends' (got 3 and 4)
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xf32>, tensor<4xi32>) -> tensor<3x8x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: K
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' dim 1 of 'dw' must equal dim 1 of 'x' (got 9 and 8)
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xf32>, tensor<4xi32>) -> tensor<4x9x2xf32>
  return
}

// -----

// grouped_matmul_weight_grad: N
func.func @f(%x: tensor<16x8xf32>, %dy: tensor<16x2xf32>, %e: tensor<4xi32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:8: error: 'task.grouped_matmul_weight_grad' dim 2 of 'dw' must equal dim 1 of 'dy' (got 3 and 2)
  %r = "task.grouped_matmul_weight_grad"(%x, %dy, %e) : (tensor<16x8xf32>, tensor<16x2xf32>, tensor<4xi32>) -> tensor<4x8x3xf32>
  return
}

// -----

// attention_stats: stats is f32 and holds (L, D) per query row
func.func @f(%q: tensor<1x2x8x4xf32>, %o: tensor<1x2x8x4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.attention_stats' 'stats' must have element type f32, got bf16
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:8: error: 'task.attention_stats' dim 3 of 'stats' must be 2 (L and D of each query row), got 3
  %s = "task.attention_stats"(%q, %q, %o, %o) {causal = true, scale = 0.5} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x2xbf16>
  %t = "task.attention_stats"(%q, %q, %o, %o) {causal = true, scale = 0.5} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x3xf32>
  return
}

// -----

// attention_grad_from_stats: stats follows the queries, causal needs Tq == Tk
func.func @f(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x9x4xf32>, %s: tensor<1x2x7x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad_from_stats' dim 2 of 'stats' must equal dim 2 of 'q' (got 7 and 8)
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad_from_stats' with causal = true, dim 2 of 'k' must equal dim 2 of 'q' (got 9 and 8)
  %r:3 = "task.attention_grad_from_stats"(%q, %k, %k, %q, %s) {causal = true, scale = 0.5} : (tensor<1x2x8x4xf32>, tensor<1x2x9x4xf32>, tensor<1x2x9x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x7x2xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x9x4xf32>, tensor<1x2x9x4xf32>)
  return
}

// -----

// layout: the string "bthd", only on the attention ops that read it; with it, T is dim 1
func.func @f(%q: tensor<1x8x2x4xf32>, %k: tensor<1x9x2x4xf32>, %x: tensor<4xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:8: error: 'task.attention' with causal = true, dim 1 of 'k' must equal dim 1 of 'q' (got 9 and 8)
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:8: error: 'task.attention' attribute 'layout' must be the string "bthd" (absent: [B, H, T, d])
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+3]]:8: error: 'task.softmax' attribute 'layout' is only for task.attention, task.attention_lse, task.attention_stats, task.attention_stats_from_lse and task.attention_grad_from_stats
  %o = "task.attention"(%q, %k, %k) {causal = true, layout = "bthd", scale = 0.5} : (tensor<1x8x2x4xf32>, tensor<1x9x2x4xf32>, tensor<1x9x2x4xf32>) -> tensor<1x8x2x4xf32>
  %p = "task.attention"(%q, %q, %q) {causal = true, layout = "bhtd", scale = 0.5} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32>
  %s = "task.softmax"(%x) {layout = "bthd"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// layout = "bthd" relates (B, H, T, d) dims as the default layout does: stats keeps [B, H, T, 2]
func.func @f(%q: tensor<1x8x2x4xf32>, %s: tensor<1x8x2x2xf32>) {
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+2]]:10: error: 'task.attention_grad_from_stats' dim 1 of 'stats' must equal dim 2 of 'q' (got 8 and 2)
  // CHECK: {{.*}}latch-verify-errors.mlir:[[@LINE+1]]:10: error: 'task.attention_grad_from_stats' dim 2 of 'stats' must equal dim 1 of 'q' (got 2 and 8)
  %r:3 = "task.attention_grad_from_stats"(%q, %q, %q, %q, %s) {causal = true, layout = "bthd", scale = 0.5} : (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x2xf32>) -> (tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>)
  return
}
