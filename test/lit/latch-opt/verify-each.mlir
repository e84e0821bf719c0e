// --verify-each (the default), --verify-each=true and --verify-each=false are accepted and give the same
// result on good IR; no pass here breaks the IR, so the verifier has nothing to find either way.
// RUN: latch-opt %s --pass-pipeline='builtin.module(func.func(cse),latch-verify)' | FileCheck %s
// RUN: latch-opt %s --verify-each --pass-pipeline='builtin.module(func.func(cse),latch-verify)' | FileCheck %s
// RUN: latch-opt %s --verify-each=true --pass-pipeline='builtin.module(func.func(cse),latch-verify)' | FileCheck %s
// RUN: latch-opt %s --verify-each=false --pass-pipeline='builtin.module(func.func(cse),latch-verify)' | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: %[[A:.*]] = arith.addi
// CHECK-NOT: arith.addi
// CHECK: arith.muli %[[A]], %[[A]]
func.func @f(%x: i32) -> i32 {
  %a = arith.addi %x, %x : i32
  %b = arith.addi %x, %x : i32
  %c = arith.muli %a, %b : i32
  return %c : i32
}

// Input that does not verify is an error with or without --verify-each (the parser verifies).
// RUN: not latch-opt %S/Inputs/bad-return.mlir --verify-each=false 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: bad-return.mlir:2:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @f
