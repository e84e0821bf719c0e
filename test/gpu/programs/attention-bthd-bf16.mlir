// attention-bthd-bf16.mlir - attention and its gradient between [B, T, H, d] projections, as in TinyMoE:
// latch-fold-transposes (pipeline forward-bthd) removes every transpose, so the tensor-core templates read
// and write the layout "bthd" (row stride H d); causal at 2 x 128 tokens x 2 heads of 64, not causal at
// 1 x 128 x 4 heads of 32; bf16 q, k, v, f32 do, bf16 results.
func.func @attention_bthd_bf16(
    %q: tensor<2x128x2x64xbf16> {task.name = "q", task.init_std = 1.0 : f64},
    %k: tensor<2x128x2x64xbf16> {task.name = "k", task.init_std = 1.0 : f64},
    %v: tensor<2x128x2x64xbf16> {task.name = "v", task.init_std = 1.0 : f64},
    %do: tensor<2x128x2x64xf32> {task.name = "do", task.init_std = 1.0 : f64},
    %q2: tensor<1x128x4x32xbf16> {task.name = "q2", task.init_std = 1.0 : f64},
    %k2: tensor<1x128x4x32xbf16> {task.name = "k2", task.init_std = 1.0 : f64},
    %v2: tensor<1x128x4x32xbf16> {task.name = "v2", task.init_std = 1.0 : f64},
    %do2: tensor<1x128x4x32xf32> {task.name = "do2", task.init_std = 1.0 : f64})
    -> (tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<1x128x4x32xbf16>, tensor<1x128x4x32xbf16>, tensor<1x128x4x32xbf16>, tensor<1x128x4x32xbf16>) {
  %qt = "task.transpose"(%q) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x128x2x64xbf16>) -> tensor<2x2x128x64xbf16>
  %kt = "task.transpose"(%k) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x128x2x64xbf16>) -> tensor<2x2x128x64xbf16>
  %vt = "task.transpose"(%v) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x128x2x64xbf16>) -> tensor<2x2x128x64xbf16>
  %dot = "task.transpose"(%do) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x128x2x64xf32>) -> tensor<2x2x128x64xf32>
  %o = "task.attention"(%qt, %kt, %vt) {causal = true, scale = 0.125 : f64} : (tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>) -> tensor<2x2x128x64xbf16>
  %dq, %dk, %dv = "task.attention_grad"(%qt, %kt, %vt, %o, %dot) {causal = true, scale = 0.125 : f64} : (tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xf32>) -> (tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>)
  %ob = "task.transpose"(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x128x64xbf16>) -> tensor<2x128x2x64xbf16>
  %dqb = "task.transpose"(%dq) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x128x64xbf16>) -> tensor<2x128x2x64xbf16>
  %dkb = "task.transpose"(%dk) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x128x64xbf16>) -> tensor<2x128x2x64xbf16>
  %dvb = "task.transpose"(%dv) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x128x64xbf16>) -> tensor<2x128x2x64xbf16>
  %qt2 = "task.transpose"(%q2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x4x32xbf16>) -> tensor<1x4x128x32xbf16>
  %kt2 = "task.transpose"(%k2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x4x32xbf16>) -> tensor<1x4x128x32xbf16>
  %vt2 = "task.transpose"(%v2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x4x32xbf16>) -> tensor<1x4x128x32xbf16>
  %dot2 = "task.transpose"(%do2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x4x32xf32>) -> tensor<1x4x128x32xf32>
  %o2 = "task.attention"(%qt2, %kt2, %vt2) {causal = false, scale = 0.125 : f64} : (tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>) -> tensor<1x4x128x32xbf16>
  %dq2, %dk2, %dv2 = "task.attention_grad"(%qt2, %kt2, %vt2, %o2, %dot2) {causal = false, scale = 0.125 : f64} : (tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xf32>) -> (tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>)
  %ob2 = "task.transpose"(%o2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x128x32xbf16>) -> tensor<1x128x4x32xbf16>
  %dqb2 = "task.transpose"(%dq2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x128x32xbf16>) -> tensor<1x128x4x32xbf16>
  %dkb2 = "task.transpose"(%dk2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x128x32xbf16>) -> tensor<1x128x4x32xbf16>
  %dvb2 = "task.transpose"(%dv2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x128x32xbf16>) -> tensor<1x128x4x32xbf16>
  return %ob, %dqb, %dkb, %dvb, %ob2, %dqb2, %dkb2, %dvb2 : tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<1x128x4x32xbf16>, tensor<1x128x4x32xbf16>, tensor<1x128x4x32xbf16>, tensor<1x128x4x32xbf16>
}
