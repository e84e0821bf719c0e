// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cse),latch-verify)' 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s -DFILE=%s --check-prefix=ERR --implicit-check-not=error: < %t.err
// RUN: python3 -c "print('func.func @a() {\n  return\n}\n// -----\n\n' + '(' * 300)" > %t.deep
// RUN: not latch-opt %t.deep --split-input-file 2>&1 | FileCheck %s -DFILE=%t.deep --check-prefix=DEEP
// --split-input-file: every chunk is parsed and run on its own, an error in one does not stop the
// others, error lines and columns are those of the whole file, and the outputs of the chunks are
// separated by `// -----` (a chunk that fails prints nothing). Errors of the input check, before the
// parser, are placed in the whole file too: line 6 of the generated file %t.deep.
// DEEP: [[FILE]]:6:257: error: nesting is deeper than 256 levels

// OUT: module {
// OUT-NEXT: func.func @first
func.func @first() {
  return
}

// -----

// A parse error in the second chunk.
func.func @second(%x: i32) {
  // ERR: [[FILE]]:[[@LINE+1]]:18: error: expected SSA operand
  %0 = arith.addi : i32
  return
}

// -----

// OUT: // -----
// OUT-NEXT: // -----
// OUT-NEXT: module {
// OUT-NEXT: func.func @third
func.func @third(%x: i32) -> i32 {
  %a = arith.addi %x, %x : i32
  %b = arith.addi %x, %x : i32
  %c = arith.muli %a, %b : i32
  return %c : i32
}

// -----

// An error found by a pass (latch-verify), at the op's line in the whole file.
func.func @fourth(%a: tensor<4x8xf32>, %b: tensor<7x2xf32>) -> tensor<4x2xf32> {
  // ERR: [[FILE]]:[[@LINE+1]]:8: error: 'task.matmul' {{.*}}
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<7x2xf32>) -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

// OUT: // -----
// OUT-NEXT: // -----
// OUT-NEXT: module {
// OUT-NEXT: func.func @last
func.func @last() {
  return
}
