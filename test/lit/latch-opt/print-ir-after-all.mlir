// --print-ir-after-all prints the IR after each pass, Latch and upstream alike, to stderr; the result
// still goes to stdout.
// RUN: latch-opt %s --print-ir-after-all --pass-pipeline='builtin.module(func.func(cse),latch-verify)' 2>&1 >/dev/null | FileCheck %s
// RUN: latch-opt %s --print-ir-after-all --pass-pipeline='builtin.module(func.func(cse),latch-verify)' 2>/dev/null | FileCheck %s --check-prefix=OUT

// CHECK: // -----// IR Dump After CSE (cse) ('func.func' operation: @f) //----- //
// CHECK: func.func @f
// CHECK: // -----// IR Dump After latch-verify (latch-verify) ('builtin.module' operation) //----- //
// CHECK: module {
// CHECK: func.func @f

// OUT-NOT: IR Dump
// OUT: func.func @f
func.func @f(%x: i32) -> i32 {
  %a = arith.addi %x, %x : i32
  %b = arith.addi %x, %x : i32
  %c = arith.muli %a, %b : i32
  return %c : i32
}
