// The pipeline parser: nesting on an op name, blanks anywhere between elements, and an empty pipeline.
// RUN: latch-opt %s --pass-pipeline='builtin.module()' | FileCheck %s --check-prefix=NONE
// RUN: latch-opt %s --pass-pipeline='builtin.module(func.func(cse))' | FileCheck %s --check-prefix=CSE
// RUN: latch-opt %s --pass-pipeline='  builtin.module ( func.func ( cse , canonicalize ) , latch-verify )  ' | FileCheck %s --check-prefix=CSE
// RUN: latch-opt %s --pass-pipeline 'builtin.module(func.func(func.func(cse)),func.func())' | FileCheck %s --check-prefix=NONE

// With no passes the input comes back as it was.
// NONE-LABEL: func.func @twice
// NONE: arith.addi
// NONE: arith.addi

// cse under func.func removes the second, identical addition.
// CSE-LABEL: func.func @twice
// CSE: %[[SUM:.*]] = arith.addi %arg0, %arg0 : i32
// CSE-NOT: arith.addi
// CSE: return %[[SUM]], %[[SUM]] : i32, i32
func.func @twice(%x: i32) -> (i32, i32) {
  %a = arith.addi %x, %x : i32
  %b = arith.addi %x, %x : i32
  return %a, %b : i32, i32
}
