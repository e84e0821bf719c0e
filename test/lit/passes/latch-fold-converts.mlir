// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-fold-converts,latch-verify)' | FileCheck %s
//
// latch-fold-converts folds an f32 -> bf16 task.convert into the task.rope, task.rope_grad,
// task.cross_entropy_grad or task.rmsnorm that produces its input, when the convert is that result's only reader
// (directly or through reshapes, retyped with it); and it removes a bf16 -> f32 convert whose value
// reaches, through single-use transposes and reshapes, a convert back to bf16 (both go) or a rope or
// rope_grad with a bf16 result (which then loads the bf16 values). The small TinyMoE update computes bit
// for bit the same in latch-interp folded and not, in fp64 and under --emulate=bf16 and fp32:
// RUN: rm -rf %t && mkdir -p %t
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 64 --vocab 64 --batch 2 --seq 8 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-split-attention-grad)' -o %t/whole.mlir
// RUN: latch-opt %t/whole.mlir --pass-pipeline='builtin.module(latch-fold-converts,latch-verify)' -o %t/folded.mlir
// RUN: grep -c '"task.convert"' %t/whole.mlir %t/folded.mlir | FileCheck %s --check-prefix=COUNT
// COUNT: whole.mlir:62
// COUNT: folded.mlir:36
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t/w64
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t/f64
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/wbf16
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/fbf16
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=fp32 --output-dir %t/wfp32
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=fp32 --output-dir %t/ffp32
// RUN: diff -r %t/w64 %t/f64 && diff -r %t/wbf16 %t/fbf16 && diff -r %t/wfp32 %t/ffp32

// The rotary embedding writes bf16 and the convert goes; a rope with a second reader keeps its f32 result
// and its convert.
// CHECK-LABEL: func.func @rope(
// CHECK-NEXT: %[[Q:.*]] = "task.rope"(%{{.*}}) {theta = 1.000000e+04 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: %[[K:.*]] = "task.rope"(%{{.*}}) {theta = 1.000000e+04 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
// CHECK-NEXT: %[[KB:.*]] = "task.convert"(%[[K]]) : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: return %[[Q]], %[[KB]], %[[K]]
func.func @rope(%x: tensor<1x8x2x16xf32>) -> (tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xf32>) {
  %q = "task.rope"(%x) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %qb = "task.convert"(%q) : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xbf16>
  %k = "task.rope"(%x) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %kb = "task.convert"(%k) : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xbf16>
  return %qb, %kb, %k : tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xf32>
}

// -----

// Through a reshape (the backward's rope_grad, then its [N, D] view): both retyped.
// CHECK-LABEL: func.func @rope_grad(
// CHECK-NEXT: %[[D:.*]] = "task.rope_grad"(%{{.*}}) {{.*}} -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: %[[R:.*]] = "task.reshape"(%[[D]]) : (tensor<1x8x2x16xbf16>) -> tensor<8x32xbf16>
// CHECK-NEXT: return %[[R]]
func.func @rope_grad(%dy: tensor<1x8x2x16xf32>) -> tensor<8x32xbf16> {
  %dx = "task.rope_grad"(%dy) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %r = "task.reshape"(%dx) : (tensor<1x8x2x16xf32>) -> tensor<8x32xf32>
  %rb = "task.convert"(%r) : (tensor<8x32xf32>) -> tensor<8x32xbf16>
  return %rb : tensor<8x32xbf16>
}

// -----

// The normalised input of a bf16 product: the rmsnorm writes bf16. One that the router also reads (an f32
// product) keeps its f32 result and its convert.
// CHECK-LABEL: func.func @rmsnorm(
// CHECK-NEXT: %[[N:.*]] = "task.rmsnorm"(%{{.*}}) {{.*}} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xbf16>
// CHECK-NEXT: %[[M:.*]] = "task.rmsnorm"(%{{.*}}) {{.*}} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[MB:.*]] = "task.convert"(%[[M]]) : (tensor<4x16xf32>) -> tensor<4x16xbf16>
// CHECK-NEXT: return %[[N]], %[[MB]], %[[M]]
func.func @rmsnorm(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> (tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xf32>) {
  %n = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %nb = "task.convert"(%n) : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %m = "task.rmsnorm"(%x, %w) {eps = 1.0e-5 : f64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %mb = "task.convert"(%m) : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  return %nb, %mb, %m : tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xf32>
}

// -----

// The logit gradient: folded. Not folded: another producer (softmax), a widening convert, a convert to i32.
// CHECK-LABEL: func.func @others(
// CHECK: "task.cross_entropy_grad"({{.*}}) : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xbf16>
// CHECK-NEXT: %[[S:.*]] = "task.softmax"
// CHECK-NEXT: "task.convert"(%[[S]]) : (tensor<4x10xf32>) -> tensor<4x10xbf16>
// CHECK-NEXT: %[[W:.*]] = "task.rope"(%{{.*}}) {{.*}} -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: "task.convert"(%[[W]]) : (tensor<1x8x2x16xbf16>) -> tensor<1x8x2x16xf32>
// CHECK-NEXT: %[[I:.*]] = "task.rope"(%{{.*}}) {{.*}} -> tensor<1x8x2x16xf32>
// CHECK-NEXT: "task.convert"(%[[I]]) : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xi32>
func.func @others(%l: tensor<4x10xf32>, %t: tensor<4xi32>, %x: tensor<1x8x2x16xbf16>, %y: tensor<1x8x2x16xf32>)
    -> (tensor<4x10xbf16>, tensor<4x10xbf16>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xi32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %g = "task.cross_entropy_grad"(%l, %t, %one) : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  %gb = "task.convert"(%g) : (tensor<4x10xf32>) -> tensor<4x10xbf16>
  %s = "task.softmax"(%l) : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %sb = "task.convert"(%s) : (tensor<4x10xf32>) -> tensor<4x10xbf16>
  %w = "task.rope"(%x) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xbf16>) -> tensor<1x8x2x16xbf16>
  %wf = "task.convert"(%w) : (tensor<1x8x2x16xbf16>) -> tensor<1x8x2x16xf32>
  %i = "task.rope"(%y) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %ii = "task.convert"(%i) : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xi32>
  return %gb, %sb, %wf, %ii : tensor<4x10xbf16>, tensor<4x10xbf16>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xi32>
}

// -----

// Widening then narrowing through a transpose and a reshape (TinyMoE's dv): both converts go and the
// layout ops move bf16. Widening into a rope_grad whose result is bf16 (dk): the convert goes. Kept: a
// widened value with two readers, a rope_grad whose result stays f32 (another reader needs it), a widened
// value for a softmax.
// CHECK-LABEL: func.func @widening(
// CHECK-SAME: %[[DV:[^:]*]]: tensor<1x2x8x16xbf16>, %[[DK:[^:]*]]: tensor<1x2x8x16xbf16>
// CHECK-NEXT: %[[T:.*]] = "task.transpose"(%[[DV]]) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xbf16>) -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: %[[R:.*]] = "task.reshape"(%[[T]]) : (tensor<1x8x2x16xbf16>) -> tensor<8x32xbf16>
// CHECK-NEXT: %[[KT:.*]] = "task.transpose"(%[[DK]]) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xbf16>) -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: %[[G:.*]] = "task.rope_grad"(%[[KT]]) {{.*}} : (tensor<1x8x2x16xbf16>) -> tensor<1x8x2x16xbf16>
// CHECK-NEXT: %[[W2:.*]] = "task.convert"(%[[DK]]) : (tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: "task.softmax"(%[[W2]])
// CHECK-NEXT: "task.softmax"(%[[W2]])
// CHECK-NEXT: %[[W3:.*]] = "task.convert"(%[[DV]]) : (tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
// CHECK-NEXT: %[[T3:.*]] = "task.transpose"(%[[W3]]) {{.*}} -> tensor<1x8x2x16xf32>
// CHECK-NEXT: "task.rope_grad"(%[[T3]]) {{.*}} -> tensor<1x8x2x16xf32>
// CHECK-NEXT: return %[[R]], %[[G]]
func.func @widening(%dv: tensor<1x2x8x16xbf16>, %dk: tensor<1x2x8x16xbf16>)
    -> (tensor<8x32xbf16>, tensor<1x8x2x16xbf16>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x8x2x16xf32>) {
  %w = "task.convert"(%dv) : (tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
  %t = "task.transpose"(%w) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xf32>) -> tensor<1x8x2x16xf32>
  %r = "task.reshape"(%t) : (tensor<1x8x2x16xf32>) -> tensor<8x32xf32>
  %rb = "task.convert"(%r) : (tensor<8x32xf32>) -> tensor<8x32xbf16>
  %wk = "task.convert"(%dk) : (tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
  %kt = "task.transpose"(%wk) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xf32>) -> tensor<1x8x2x16xf32>
  %g = "task.rope_grad"(%kt) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xbf16>
  %w2 = "task.convert"(%dk) : (tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
  %s1 = "task.softmax"(%w2) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s2 = "task.softmax"(%w2) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %w3 = "task.convert"(%dv) : (tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
  %t3 = "task.transpose"(%w3) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xf32>) -> tensor<1x8x2x16xf32>
  %g3 = "task.rope_grad"(%t3) {theta = 1.0e4 : f64} : (tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  return %rb, %g, %s1, %s2, %g3 : tensor<8x32xbf16>, tensor<1x8x2x16xbf16>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x8x2x16xf32>
}
