// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-task-stats)' | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-task-stats{per-function=false})' \
// RUN:   | FileCheck %s --check-prefix=MODULE
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-task-stats{per-function=maybe})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-VALUE
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-task-stats{functions=true})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-NAME
// latch-task-stats records, per program, how many task ops of each kind it has and the FLOPs of its
// matmuls, in a `task.stats` dictionary attribute; nothing else changes.

// ERR-VALUE: latch-opt: error: option 'per-function' expects true or false, got 'maybe'
// ERR-NAME: latch-opt: error: pass 'latch-task-stats' has no option 'functions'

// Matmul FLOPs are 2*M*N*K: 2*8*32*16 + 2*8*10*32 = 8192 + 5120.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: attributes {task.stats = {matmul_flops = 13312 : i64, ops = 4 : i64, task.cross_entropy = 1 : i64, task.map = 1 : i64, task.matmul = 2 : i64}}
// The ops themselves are untouched.
// CHECK: "task.matmul"(%{{.*}}, %{{.*}}) {transpose_a = false, transpose_b = false}
// MODULE: module attributes {task.stats = {matmul_flops = 13312 : i64, ops = 4 : i64, task.cross_entropy = 1 : i64, task.map = 1 : i64, task.matmul = 2 : i64}}
// MODULE-NOT: task.stats
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32> {task.param}, %w2: tensor<32x10xf32> {task.param},
               %targets: tensor<8xi32>) -> tensor<f32> {
  %h = "task.matmul"(%x, %w1) {transpose_a = false, transpose_b = false}
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = "task.map"(%h) ({
  ^bb0(%v: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %logits = "task.matmul"(%a, %w2) {transpose_a = false, transpose_b = false}
      : (tensor<8x32xf32>, tensor<32x10xf32>) -> tensor<8x10xf32>
  %loss = "task.cross_entropy"(%logits, %targets) : (tensor<8x10xf32>, tensor<8xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// K comes from a's other dimension when a is transposed (2*8*32*16), and a leading batch dimension
// multiplies (2*4*8*2*16); every function gets its own stats, one without task ops too.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: task.stats = {matmul_flops = 8192 : i64, ops = 1 : i64, task.matmul = 1 : i64}
// CHECK-LABEL: func.func @batched
// CHECK-SAME: task.stats = {matmul_flops = 2048 : i64, ops = 1 : i64, task.matmul = 1 : i64}
// CHECK-LABEL: func.func @empty
// CHECK-SAME: task.stats = {matmul_flops = 0 : i64, ops = 0 : i64}
// MODULE: module attributes {task.stats = {matmul_flops = 10240 : i64, ops = 2 : i64, task.matmul = 2 : i64}}
func.func @transposed(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = true, transpose_b = false}
      : (tensor<16x8xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}
func.func @batched(%a: tensor<4x8x16xbf16>, %b: tensor<4x2x16xbf16>) -> tensor<4x8x2xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true}
      : (tensor<4x8x16xbf16>, tensor<4x2x16xbf16>) -> tensor<4x8x2xf32>
  return %c : tensor<4x8x2xf32>
}
func.func @empty(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A grouped matmul counts 2*R*K*N = 2*64*32*16 (every row through one expert); the routing ops count
// as ops.
// CHECK-LABEL: func.func @moe
// CHECK-SAME: task.stats = {matmul_flops = 65536 : i64, ops = 3 : i64, task.bucket = 1 : i64, task.grouped_matmul = 1 : i64, task.topk = 1 : i64}
// MODULE: module attributes {task.stats = {matmul_flops = 65536 : i64, ops = 3 : i64, task.bucket = 1 : i64, task.grouped_matmul = 1 : i64, task.topk = 1 : i64}}
func.func @moe(%x: tensor<64x32xbf16>, %w: tensor<4x32x16xbf16>, %scores: tensor<32x4xf32>) -> tensor<64x16xf32> {
  %values, %ids = "task.topk"(%scores) {k = 2 : i64} : (tensor<32x4xf32>) -> (tensor<32x2xf32>, tensor<32x2xi32>)
  %order, %ends = "task.bucket"(%ids) {buckets = 4 : i64} : (tensor<32x2xi32>) -> (tensor<64xi32>, tensor<4xi32>)
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<64x32xbf16>, tensor<4x32x16xbf16>, tensor<4xi32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// -----

// A matmul whose types do not give its size (this pass may run before latch-verify) is counted as an
// op and as unsized, not in the FLOPs; a count too large for i64 saturates.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: task.stats = {matmul_flops = 0 : i64, ops = 1 : i64, task.matmul = 1 : i64, unsized_matmuls = 1 : i64}
// CHECK-LABEL: func.func @huge
// CHECK-SAME: task.stats = {matmul_flops = 9223372036854775807 : i64, ops = 1 : i64, task.matmul = 1 : i64}
// MODULE: module attributes {task.stats = {matmul_flops = 9223372036854775807 : i64, ops = 2 : i64, task.matmul = 2 : i64, unsized_matmuls = 1 : i64}}
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x2xf32>) -> tensor<?x2xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false}
      : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  return %c : tensor<?x2xf32>
}
func.func @huge(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %c = "task.matmul"(%a, %a) {transpose_a = false, transpose_b = false}
      : (tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %c : tensor<4294967296x4294967296xf32>
}

// -----

// An interval.program is a program too: its tasks are counted inside their intervals.
// CHECK-LABEL: "interval.program"
// CHECK: {function_type = () -> (), sym_name = "update", task.stats = {matmul_flops = 128 : i64, ops = 2 : i64, task.matmul = 1 : i64, task.softmax = 1 : i64}}
// MODULE: module attributes {task.stats = {matmul_flops = 128 : i64, ops = 2 : i64, task.matmul = 1 : i64, task.softmax = 1 : i64}}
// MODULE-NOT: task.stats
"interval.program"() ({
  %t = arith.constant dense<1.0> : tensor<4x4xf32>
  "interval.interval"() {name = "forward"} : () -> ()
  %c = "task.matmul"(%t, %t) {transpose_a = false, transpose_b = false}
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  "interval.barrier"() : () -> ()
  "interval.interval"() {name = "loss"} : () -> ()
  %s = "task.softmax"(%t) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  gpu.yield
}) {sym_name = "update", function_type = () -> ()} : () -> ()
