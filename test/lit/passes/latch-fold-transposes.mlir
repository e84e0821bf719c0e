// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-fold-transposes,latch-verify)' | FileCheck %s
//
// latch-fold-transposes gives task.attention, task.attention_stats and task.attention_grad_from_stats the
// layout "bthd" when each [B, H, T, d] operand is a transpose {perm = [0, 2, 1, 3]} of a [B, T, H, d]
// value (or a convert of one, or a result of another op it rewrites) and each such result is read only by
// those transposes or by ops it rewrites; the transposes go. A small TinyMoE update (heads of 16, 64
// tokens: the tensor-core shapes) computes bit for bit the same in latch-interp folded and not, in fp64 and
// under --emulate=bf16 and fp32, with the 16 transposes of q, k, v, o, do, dq, dk, dv gone:
// RUN: rm -rf %t && mkdir -p %t
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 64 --vocab 64 --batch 2 --seq 64 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-split-attention-grad,latch-fold-converts)' -o %t/whole.mlir
// RUN: latch-opt %t/whole.mlir --pass-pipeline='builtin.module(latch-fold-transposes,latch-verify)' -o %t/folded.mlir
// RUN: grep -c '"task.transpose"' %t/whole.mlir %t/folded.mlir | FileCheck %s --check-prefix=COUNT
// COUNT: whole.mlir:25
// COUNT: folded.mlir:5
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t/w64
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t/f64
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/wbf16
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=bf16 --output-dir %t/fbf16
// RUN: latch-interp %t/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=fp32 --output-dir %t/wfp32
// RUN: latch-interp %t/folded.mlir --entry tinymoe_update --init 1 --random-inputs 2 --emulate=fp32 --output-dir %t/ffp32
// RUN: diff -r %t/w64 %t/f64 && diff -r %t/wbf16 %t/fbf16 && diff -r %t/wfp32 %t/ffp32

// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x64x2x16xbf16>, %[[K:[^:]*]]: tensor<1x64x2x16xbf16>, %[[V:[^:]*]]: tensor<1x64x2x16xbf16>
// CHECK-NEXT: %[[O:.*]] = "task.attention"(%[[Q]], %[[K]], %[[V]]) {causal = true, layout = "bthd", scale = 2.500000e-01 : f64} : (tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>) -> tensor<1x64x2x16xbf16>
// CHECK-NEXT: return %[[O]]
// Forward: q, k, v from [B, T, H, d] projections, o back to [B, T, H, d].
func.func @forward(%q: tensor<1x64x2x16xbf16>, %k: tensor<1x64x2x16xbf16>, %v: tensor<1x64x2x16xbf16>) -> tensor<1x64x2x16xbf16> {
  %qt = "task.transpose"(%q) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %kt = "task.transpose"(%k) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %vt = "task.transpose"(%v) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %o = "task.attention"(%qt, %kt, %vt) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>) -> tensor<1x2x64x16xbf16>
  %ot = "task.transpose"(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x64x16xbf16>) -> tensor<1x64x2x16xbf16>
  return %ot : tensor<1x64x2x16xbf16>
}

// -----

// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x64x2x16xbf16>, %[[K:[^:]*]]: tensor<1x64x2x16xbf16>, %[[V:[^:]*]]: tensor<1x64x2x16xbf16>, %[[DO:[^:]*]]: tensor<1x64x2x16xf32>
// CHECK-NEXT: %[[QT:.*]] = "task.transpose"(%[[Q]])
// CHECK-NEXT: %[[O:.*]] = "task.attention"(%[[Q]], %[[K]], %[[V]]) {{{.*}}layout = "bthd"{{.*}}} : {{.*}} -> tensor<1x64x2x16xbf16>
// CHECK-NEXT: %[[DOB:.*]] = "task.convert"(%[[DO]]) : (tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xbf16>
// CHECK-NEXT: %[[S:.*]] = "task.attention_stats"(%[[Q]], %[[K]], %[[O]], %[[DO]]) {{{.*}}layout = "bthd"{{.*}}} : {{.*}} -> tensor<1x2x64x2xf32>
// CHECK-NEXT: %[[G:.*]]:3 = "task.attention_grad_from_stats"(%[[Q]], %[[K]], %[[V]], %[[DOB]], %[[S]]) {{{.*}}layout = "bthd"{{.*}}} : {{.*}} -> (tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>)
// CHECK-NEXT: return %[[O]], %[[G]]#0, %[[G]]#1, %[[G]]#2, %[[QT]]

// Backward (latch-split-attention-grad's form): the statistics read the forward's o and an f32 do, the
// products a bf16 convert of do; dq, dk, dv go back to [B, T, H, d]. The convert moves before the
// transpose; a transpose with another reader stays for it.
func.func @backward(%q: tensor<1x64x2x16xbf16>, %k: tensor<1x64x2x16xbf16>, %v: tensor<1x64x2x16xbf16>, %do: tensor<1x64x2x16xf32>)
    -> (tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x2x64x16xbf16>) {
  %qt = "task.transpose"(%q) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %kt = "task.transpose"(%k) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %vt = "task.transpose"(%v) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %o = "task.attention"(%qt, %kt, %vt) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>) -> tensor<1x2x64x16xbf16>
  %ot = "task.transpose"(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x64x16xbf16>) -> tensor<1x64x2x16xbf16>
  %dot = "task.transpose"(%do) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xf32>) -> tensor<1x2x64x16xf32>
  %dob = "task.convert"(%dot) : (tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xbf16>
  %s = "task.attention_stats"(%qt, %kt, %o, %dot) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xf32>) -> tensor<1x2x64x2xf32>
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%qt, %kt, %vt, %dob, %s) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x2xf32>) -> (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>)
  %dqt = "task.transpose"(%dq) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x64x16xbf16>) -> tensor<1x64x2x16xbf16>
  %dkt = "task.transpose"(%dk) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x64x16xbf16>) -> tensor<1x64x2x16xbf16>
  %dvt = "task.transpose"(%dv) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x64x16xbf16>) -> tensor<1x64x2x16xbf16>
  return %ot, %dqt, %dkt, %dvt, %qt : tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x2x64x16xbf16>
}

// -----

// CHECK-LABEL: func.func @kept(
// CHECK-NOT: layout
// CHECK-COUNT-4: "task.transpose"
// CHECK-NOT: layout
// CHECK: return

// Not folded: o read by something else than a transpose (and then the statistics that read o), a
// transpose of another permutation, f32 q, k, v (no tensor-core template), 48 query rows.
func.func @kept(%q: tensor<1x64x2x16xbf16>, %x: tensor<1x2x16x64xbf16>, %f: tensor<1x64x2x16xf32>, %s: tensor<1x48x2x16xbf16>)
    -> (tensor<1x2x64x16xbf16>, tensor<1x2x64x2xf32>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xf32>, tensor<1x2x48x16xbf16>) {
  %qt = "task.transpose"(%q) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xbf16>) -> tensor<1x2x64x16xbf16>
  %o = "task.attention"(%qt, %qt, %qt) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>) -> tensor<1x2x64x16xbf16>
  %st = "task.attention_stats"(%qt, %qt, %o, %o) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>) -> tensor<1x2x64x2xf32>
  %xt = "task.transpose"(%x) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x16x64xbf16>) -> tensor<1x2x64x16xbf16>
  %p = "task.attention"(%xt, %xt, %xt) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>) -> tensor<1x2x64x16xbf16>
  %ft = "task.transpose"(%f) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x64x2x16xf32>) -> tensor<1x2x64x16xf32>
  %r = "task.attention"(%ft, %ft, %ft) {causal = true, scale = 0.25 : f64} : (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32>
  %sh = "task.transpose"(%s) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x48x2x16xbf16>) -> tensor<1x2x48x16xbf16>
  %u = "task.attention"(%sh, %sh, %sh) {causal = true, scale = 0.25 : f64} : (tensor<1x2x48x16xbf16>, tensor<1x2x48x16xbf16>, tensor<1x2x48x16xbf16>) -> tensor<1x2x48x16xbf16>
  return %o, %st, %p, %r, %u : tensor<1x2x64x16xbf16>, tensor<1x2x64x2xf32>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xf32>, tensor<1x2x48x16xbf16>
}
