// RUN: not latch-opt %s --split-input-file 2>&1 >/dev/null | FileCheck %s -DFILE=%s --implicit-check-not=error:
// Malformed input: each case is exactly one `FILE:LINE:COL: error:` line (notes may follow), and the
// whole run exits with 1. Bad attributes and types in task ops are IRDL's messages.

// Syntax error: a missing ')'.
// CHECK: [[FILE]]:[[@LINE+2]]:2: error: expected ')'
func.func @syntax(%x: i32 {
}

// -----

// An op of an unregistered dialect, and an unknown op of a registered one.
func.func @unregistered() {
  // CHECK: [[FILE]]:[[@LINE+1]]:12: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
  "foo.bar"() : () -> ()
  return
}

// -----

func.func @unknown_arith(%x: i32) {
  // CHECK: [[FILE]]:[[@LINE+1]]:8: error: custom op 'arith.frobnicate' is unknown
  %0 = arith.frobnicate %x : i32
  return
}

// -----

// Wrong operand counts, upstream and in the task dialect.
func.func @count(%x: i32) -> i32 {
  // CHECK: [[FILE]]:[[@LINE+1]]:8: error: 'arith.addi' op expected 2 operands, but found 1
  %0 = "arith.addi"(%x) : (i32) -> i32
  return %0 : i32
}

// -----

func.func @task_count(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: [[FILE]]:[[@LINE+1]]:8: error: op expects exactly 2 operands, but got 1
  %0 = "task.matmul"(%a) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Wrong operand types.
func.func @type(%x: f32) -> f32 {
  // CHECK: [[FILE]]:[[@LINE+1]]:8: error: 'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'
  %0 = arith.addi %x, %x : f32
  return %0 : f32
}

// -----

func.func @mismatch(%x: i32, %y: i64) -> i32 {
  // CHECK: [[FILE]]:[[@LINE+1]]:23: error: use of value '%y' expects different type than prior uses: 'i32' vs 'i64'
  %0 = arith.addi %x, %y : i32
  return %0 : i32
}

// -----

func.func @return_type(%x: i32) -> i64 {
  // CHECK: [[FILE]]:[[@LINE+1]]:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @return_type
  return %x : i32
}

// -----

// Bad attributes: malformed text, a wrong kind of value, a literal that does not fit its type.
// CHECK: [[FILE]]:[[@LINE+1]]:39: error: unbalanced '<' character in pretty dialect name
func.func @attr() attributes {a = #foo<} {
  return
}

// -----

func.func @attr_value(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // CHECK: [[FILE]]:[[@LINE+1]]:8: error: expected base attribute 'builtin.integer' but got 'builtin.string'
  %0 = "task.matmul"(%a, %b) {transpose_a = "yes", transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @dense() {
  // CHECK: [[FILE]]:[[@LINE+1]]:23: error: inferred shape of elements literal ([3]) does not match type ([2])
  %0 = arith.constant dense<[1, 2, 3]> : tensor<2xi32>
  return
}

// -----

func.func @int_range() {
  // CHECK: [[FILE]]:[[@LINE+1]]:23: error: integer constant out of range for attribute
  %0 = arith.constant 300 : i8
  return
}

// -----

// An unterminated string, and an undefined value.
// CHECK: [[FILE]]:[[@LINE+1]]:53: error: expected '"' in string literal
func.func @string() attributes {s = "unterminated} {
  return
}

// -----

func.func @undefined() -> i32 {
  // CHECK: [[FILE]]:[[@LINE+1]]:10: error: use of undeclared SSA value name
  return %nope : i32
}
