// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-fold-weight-split,latch-verify)' | FileCheck %s
//
// latch-fold-weight-split lets the grouped products read the column halves of a weight split as SwiGLU's w13
// is (reshape, transpose {1, 0, 2}, reshape, gather_rows of a constant row, reshape) in place, with
// w_column_offset, and makes the gradient that comes back through the adjoints of that split (two weight
// gradients scattered into rows 0 and 1, summed, transposed back) one grouped_matmul_weight_grad_concat.
// A small TinyMoE update computes bit for bit the same in latch-interp folded and not, in fp64 and under
// --emulate=bf16 and fp32; its forward transpose and gathers go from its three functions, and with an FFN of
// 128 (a multiple of LATCH_CONCAT_HALF_COLUMNS) the backward scatters and transpose go as well:
// RUN: rm -rf %t && mkdir -p %t
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 128 --vocab 64 --batch 2 --seq 64 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-split-attention-grad,latch-fold-converts,latch-fold-transposes)' -o %t/whole.mlir
// RUN: latch-opt %t/whole.mlir --pass-pipeline='builtin.module(latch-fold-weight-split,latch-verify)' -o %t/folded.mlir
// RUN: grep -c '"task.transpose"' %t/whole.mlir %t/folded.mlir | FileCheck %s --check-prefix=TRANSPOSES
// TRANSPOSES: whole.mlir:5
// TRANSPOSES: folded.mlir:0
// RUN: grep -c '"task.gather_rows"' %t/whole.mlir %t/folded.mlir | FileCheck %s --check-prefix=GATHERS
// GATHERS: whole.mlir:17
// GATHERS: folded.mlir:11
// RUN: grep -c '"task.scatter_add_rows"' %t/whole.mlir %t/folded.mlir | FileCheck %s --check-prefix=SCATTERS
// SCATTERS: whole.mlir:15
// SCATTERS: folded.mlir:11
// RUN: grep -c '"task.grouped_matmul_weight_grad_concat"' %t/folded.mlir | FileCheck %s --check-prefix=CONCATS
// CONCATS: 2
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t/w64
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t/f64
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/wbf16
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/fbf16
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=fp32 --output-dir %t/wfp32
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=fp32 --output-dir %t/ffp32
// RUN: diff -r %t/w64 %t/f64 && diff -r %t/wbf16 %t/fbf16 && diff -r %t/wfp32 %t/ffp32
// With an FFN of 64 only the forward folds: the gradient keeps its scatters and transposes.
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 64 --vocab 64 --batch 2 --seq 64 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-split-attention-grad,latch-fold-converts,latch-fold-transposes,latch-fold-weight-split,latch-verify)' -o %t/narrow.mlir
// RUN: grep -c '"task.transpose"\|"task.scatter_add_rows"\|"task.grouped_matmul_weight_grad_concat"\|w_column_offset' %t/narrow.mlir | FileCheck %s --check-prefix=NARROW
// NARROW: 27
// RUN: latch-interp %t/narrow.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/nbf16
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 64 --vocab 64 --batch 2 --seq 64 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-split-attention-grad,latch-fold-converts,latch-fold-transposes)' -o %t/narrow-whole.mlir
// RUN: latch-interp %t/narrow-whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/nwbf16
// RUN: diff -r %t/nwbf16 %t/nbf16
// The pass runs after the gradient: latch-autodiff refuses a w_column_offset, at the product's line.
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 128 --vocab 64 --batch 2 --seq 64 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-fold-weight-split)' -o %t/forward.mlir
// RUN: not latch-opt %t/forward.mlir --pass-pipeline='builtin.module(latch-train)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTODIFF
// AUTODIFF: forward.mlir:{{[0-9]+}}:{{[0-9]+}}: error: latch-autodiff: no VJP rule for a w_column_offset of 'task.grouped_matmul'

// The forward: both halves read in place, the split's layout ops, gathers and index constants gone.
// CHECK-LABEL: func.func @halves(
// CHECK-SAME: %[[X:[^:]*]]: tensor<256x32xbf16>, %[[W:[^:]*]]: tensor<4x32x256xbf16>, %[[ENDS:[^:]*]]: tensor<4xi32>
// CHECK-NEXT: %[[A:.*]] = "task.grouped_matmul"(%[[X]], %[[W]], %[[ENDS]]) {w_column_offset = 0 : i64}
// CHECK-SAME: -> tensor<256x128xf32>
// CHECK-NEXT: %[[B:.*]] = "task.grouped_matmul"(%[[X]], %[[W]], %[[ENDS]]) {w_column_offset = 128 : i64}
// CHECK-NEXT: %[[BB:.*]] = "task.convert"(%[[B]])
// CHECK-NEXT: %[[DX:.*]] = "task.grouped_matmul"(%[[BB]], %[[W]], %[[ENDS]]) {transpose_w = true, w_column_offset = 128 : i64}
// CHECK-SAME: (tensor<256x128xbf16>, tensor<4x32x256xbf16>, tensor<4xi32>) -> tensor<256x32xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[DX]]
func.func @halves(%x: tensor<256x32xbf16>, %w: tensor<4x32x256xbf16>, %ends: tensor<4xi32>) -> (tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x32xf32>) {
  %r = "task.reshape"(%w) : (tensor<4x32x256xbf16>) -> tensor<128x2x128xbf16>
  %t = "task.transpose"(%r) {perm = array<i64: 1, 0, 2>} : (tensor<128x2x128xbf16>) -> tensor<2x128x128xbf16>
  %s = "task.reshape"(%t) : (tensor<2x128x128xbf16>) -> tensor<2x16384xbf16>
  %c0 = "task.map"() ({
    %zero = arith.constant 0 : i32
    gpu.yield %zero : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %c1 = "task.map"() ({
    %one = arith.constant 1 : i32
    gpu.yield %one : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %g0 = "task.gather_rows"(%s, %c0) : (tensor<2x16384xbf16>, tensor<1xi32>) -> tensor<1x16384xbf16>
  %w0 = "task.reshape"(%g0) : (tensor<1x16384xbf16>) -> tensor<4x32x128xbf16>
  %g1 = "task.gather_rows"(%s, %c1) : (tensor<2x16384xbf16>, tensor<1xi32>) -> tensor<1x16384xbf16>
  %w1 = "task.reshape"(%g1) : (tensor<1x16384xbf16>) -> tensor<4x32x128xbf16>
  %a = "task.grouped_matmul"(%x, %w0, %ends) : (tensor<256x32xbf16>, tensor<4x32x128xbf16>, tensor<4xi32>) -> tensor<256x128xf32>
  %b = "task.grouped_matmul"(%x, %w1, %ends) : (tensor<256x32xbf16>, tensor<4x32x128xbf16>, tensor<4xi32>) -> tensor<256x128xf32>
  %bb = "task.convert"(%b) : (tensor<256x128xf32>) -> tensor<256x128xbf16>
  %dx = "task.grouped_matmul"(%bb, %w1, %ends) {transpose_w = true} : (tensor<256x128xbf16>, tensor<4x32x128xbf16>, tensor<4xi32>) -> tensor<256x32xf32>
  return %a, %b, %dx : tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x32xf32>
}

// -----

// A half that another task reads as well stays a copy.
// CHECK-LABEL: func.func @half_read_elsewhere(
// CHECK: "task.gather_rows"
// CHECK: "task.grouped_matmul"(%{{[^,]*}}, %{{[^,]*}}, %{{[^)]*}}) : (tensor<256x32xbf16>, tensor<4x32x128xbf16>
// CHECK-NOT: w_column_offset
func.func @half_read_elsewhere(%x: tensor<256x32xbf16>, %w: tensor<4x32x256xbf16>, %ends: tensor<4xi32>) -> (tensor<256x128xf32>, tensor<4x32x128xbf16>) {
  %r = "task.reshape"(%w) : (tensor<4x32x256xbf16>) -> tensor<128x2x128xbf16>
  %t = "task.transpose"(%r) {perm = array<i64: 1, 0, 2>} : (tensor<128x2x128xbf16>) -> tensor<2x128x128xbf16>
  %s = "task.reshape"(%t) : (tensor<2x128x128xbf16>) -> tensor<2x16384xbf16>
  %c0 = "task.map"() ({
    %zero = arith.constant 0 : i32
    gpu.yield %zero : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %g0 = "task.gather_rows"(%s, %c0) : (tensor<2x16384xbf16>, tensor<1xi32>) -> tensor<1x16384xbf16>
  %w0 = "task.reshape"(%g0) : (tensor<1x16384xbf16>) -> tensor<4x32x128xbf16>
  %a = "task.grouped_matmul"(%x, %w0, %ends) : (tensor<256x32xbf16>, tensor<4x32x128xbf16>, tensor<4xi32>) -> tensor<256x128xf32>
  return %a, %w0 : tensor<256x128xf32>, tensor<4x32x128xbf16>
}

// -----

// The gradient: two weight gradients of one x and ends, scattered into rows 0 and 1 of [2, G K N], summed
// and transposed back to [G, K, 2 N], become one grouped_matmul_weight_grad_concat (dy of row 0 first).
// CHECK-LABEL: func.func @gradient(
// CHECK-SAME: %[[X:[^:]*]]: tensor<256x32xbf16>, %[[DA:[^:]*]]: tensor<256x128xbf16>, %[[DB:[^:]*]]: tensor<256x128xbf16>, %[[ENDS:[^:]*]]: tensor<4xi32>
// CHECK-NEXT: %[[DW:.*]] = "task.grouped_matmul_weight_grad_concat"(%[[X]], %[[DA]], %[[DB]], %[[ENDS]]) {task.phase = "backward"} : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x256xf32>
// CHECK-NEXT: return %[[DW]]
func.func @gradient(%x: tensor<256x32xbf16>, %da: tensor<256x128xbf16>, %db: tensor<256x128xbf16>, %ends: tensor<4xi32>) -> tensor<4x32x256xf32> {
  %c0 = "task.map"() ({
    %zero = arith.constant 0 : i32
    gpu.yield %zero : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %c1 = "task.map"() ({
    %one = arith.constant 1 : i32
    gpu.yield %one : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %gb = "task.grouped_matmul_weight_grad"(%x, %db, %ends) {task.phase = "backward"} : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x128xf32>
  %ga = "task.grouped_matmul_weight_grad"(%x, %da, %ends) {task.phase = "backward"} : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x128xf32>
  %rb = "task.reshape"(%gb) : (tensor<4x32x128xf32>) -> tensor<1x16384xf32>
  %sb = "task.scatter_add_rows"(%rb, %c1) {rows = 2 : i64} : (tensor<1x16384xf32>, tensor<1xi32>) -> tensor<2x16384xf32>
  %ra = "task.reshape"(%ga) : (tensor<4x32x128xf32>) -> tensor<1x16384xf32>
  %sa = "task.scatter_add_rows"(%ra, %c0) {rows = 2 : i64} : (tensor<1x16384xf32>, tensor<1xi32>) -> tensor<2x16384xf32>
  %sum = "task.map"(%sb, %sa) ({
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x16384xf32>, tensor<2x16384xf32>) -> tensor<2x16384xf32>
  %rows = "task.reshape"(%sum) : (tensor<2x16384xf32>) -> tensor<2x128x128xf32>
  %t = "task.transpose"(%rows) {perm = array<i64: 1, 0, 2>} : (tensor<2x128x128xf32>) -> tensor<128x2x128xf32>
  %dw = "task.reshape"(%t) : (tensor<128x2x128xf32>) -> tensor<4x32x256xf32>
  return %dw : tensor<4x32x256xf32>
}

// -----

// A sum that is not a plain addition stays as it is.
// CHECK-LABEL: func.func @not_a_sum(
// CHECK-NOT: grouped_matmul_weight_grad_concat
// CHECK: "task.transpose"
func.func @not_a_sum(%x: tensor<256x32xbf16>, %da: tensor<256x128xbf16>, %db: tensor<256x128xbf16>, %ends: tensor<4xi32>) -> tensor<4x32x256xf32> {
  %c0 = "task.map"() ({
    %zero = arith.constant 0 : i32
    gpu.yield %zero : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %c1 = "task.map"() ({
    %one = arith.constant 1 : i32
    gpu.yield %one : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %ga = "task.grouped_matmul_weight_grad"(%x, %da, %ends) : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x128xf32>
  %gb = "task.grouped_matmul_weight_grad"(%x, %db, %ends) : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x128xf32>
  %ra = "task.reshape"(%ga) : (tensor<4x32x128xf32>) -> tensor<1x16384xf32>
  %sa = "task.scatter_add_rows"(%ra, %c0) {rows = 2 : i64} : (tensor<1x16384xf32>, tensor<1xi32>) -> tensor<2x16384xf32>
  %rb = "task.reshape"(%gb) : (tensor<4x32x128xf32>) -> tensor<1x16384xf32>
  %sb = "task.scatter_add_rows"(%rb, %c1) {rows = 2 : i64} : (tensor<1x16384xf32>, tensor<1xi32>) -> tensor<2x16384xf32>
  %sum = "task.map"(%sa, %sb) ({
  ^bb0(%p: f32, %q: f32):
    %s = arith.subf %p, %q : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x16384xf32>, tensor<2x16384xf32>) -> tensor<2x16384xf32>
  %rows = "task.reshape"(%sum) : (tensor<2x16384xf32>) -> tensor<2x128x128xf32>
  %t = "task.transpose"(%rows) {perm = array<i64: 1, 0, 2>} : (tensor<2x128x128xf32>) -> tensor<128x2x128xf32>
  %dw = "task.reshape"(%t) : (tensor<128x2x128xf32>) -> tensor<4x32x256xf32>
  return %dw : tensor<4x32x256xf32>
}

// -----

// Stacked as [2, 64, 256] instead of [2, G K, N] = [2, 128, 128]: the transpose would interleave blocks of 256
// columns, not the halves, so it stays.
// CHECK-LABEL: func.func @other_blocks(
// CHECK-NOT: grouped_matmul_weight_grad_concat
// CHECK: "task.transpose"
func.func @other_blocks(%x: tensor<256x32xbf16>, %da: tensor<256x128xbf16>, %db: tensor<256x128xbf16>, %ends: tensor<4xi32>) -> tensor<4x32x256xf32> {
  %c0 = "task.map"() ({
    %zero = arith.constant 0 : i32
    gpu.yield %zero : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %c1 = "task.map"() ({
    %one = arith.constant 1 : i32
    gpu.yield %one : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %ga = "task.grouped_matmul_weight_grad"(%x, %da, %ends) : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x128xf32>
  %gb = "task.grouped_matmul_weight_grad"(%x, %db, %ends) : (tensor<256x32xbf16>, tensor<256x128xbf16>, tensor<4xi32>) -> tensor<4x32x128xf32>
  %ra = "task.reshape"(%ga) : (tensor<4x32x128xf32>) -> tensor<1x16384xf32>
  %sa = "task.scatter_add_rows"(%ra, %c0) {rows = 2 : i64} : (tensor<1x16384xf32>, tensor<1xi32>) -> tensor<2x16384xf32>
  %rb = "task.reshape"(%gb) : (tensor<4x32x128xf32>) -> tensor<1x16384xf32>
  %sb = "task.scatter_add_rows"(%rb, %c1) {rows = 2 : i64} : (tensor<1x16384xf32>, tensor<1xi32>) -> tensor<2x16384xf32>
  %sum = "task.map"(%sa, %sb) ({
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    gpu.yield %s : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x16384xf32>, tensor<2x16384xf32>) -> tensor<2x16384xf32>
  %rows = "task.reshape"(%sum) : (tensor<2x16384xf32>) -> tensor<2x64x256xf32>
  %t = "task.transpose"(%rows) {perm = array<i64: 1, 0, 2>} : (tensor<2x64x256xf32>) -> tensor<64x2x256xf32>
  %dw = "task.reshape"(%t) : (tensor<64x2x256xf32>) -> tensor<4x32x256xf32>
  return %dw : tensor<4x32x256xf32>
}

// -----

// Rows of [4, 8192] are quarters of the column blocks, not halves: the gather stays.
// CHECK-LABEL: func.func @quarter_rows(
// CHECK: "task.gather_rows"
// CHECK-NOT: w_column_offset
func.func @quarter_rows(%x: tensor<256x32xbf16>, %w: tensor<4x32x256xbf16>, %ends: tensor<4xi32>) -> tensor<256x64xf32> {
  %r = "task.reshape"(%w) : (tensor<4x32x256xbf16>) -> tensor<128x2x128xbf16>
  %t = "task.transpose"(%r) {perm = array<i64: 1, 0, 2>} : (tensor<128x2x128xbf16>) -> tensor<2x128x128xbf16>
  %s = "task.reshape"(%t) : (tensor<2x128x128xbf16>) -> tensor<4x8192xbf16>
  %c1 = "task.map"() ({
    %one = arith.constant 1 : i32
    gpu.yield %one : i32
  }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<1xi32>
  %g = "task.gather_rows"(%s, %c1) : (tensor<4x8192xbf16>, tensor<1xi32>) -> tensor<1x8192xbf16>
  %h = "task.reshape"(%g) : (tensor<1x8192xbf16>) -> tensor<4x32x64xbf16>
  %y = "task.grouped_matmul"(%x, %h, %ends) : (tensor<256x32xbf16>, tensor<4x32x64xbf16>, tensor<4xi32>) -> tensor<256x64xf32>
  return %y : tensor<256x64xf32>
}

