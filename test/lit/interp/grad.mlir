// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen grad %t
// RUN: latch-interp %s --entry reduce_grads --input x=%t/reduce_grads/x.npy --input dys=%t/reduce_grads/dys.npy --input dym=%t/reduce_grads/dym.npy --input t=%t/reduce_grads/t.npy --input dyt=%t/reduce_grads/dyt.npy --output-dir %t/reduce_grads
// RUN: latch-interp %s --entry rmsnorm_grad --input x=%t/rmsnorm_grad/x.npy --input w=%t/rmsnorm_grad/w.npy --input dy=%t/rmsnorm_grad/dy.npy --output-dir %t/rmsnorm_grad
// RUN: latch-interp %s --entry softmax_grad --input y=%t/softmax_grad/y.npy --input dy=%t/softmax_grad/dy.npy --output-dir %t/softmax_grad
// RUN: latch-interp %s --entry cross_entropy_grad --input logits=%t/cross_entropy_grad/logits.npy --input targets=%t/cross_entropy_grad/targets.npy --input dloss=%t/cross_entropy_grad/dloss.npy --output-dir %t/cross_entropy_grad
// RUN: latch-interp %s --entry rope_grad --input dy=%t/rope_grad/dy.npy --output-dir %t/rope_grad
// RUN: latch-interp %s --entry attention_grad_causal --input q=%t/attention_grad_causal/q.npy --input k=%t/attention_grad_causal/k.npy --input v=%t/attention_grad_causal/v.npy --input o=%t/attention_grad_causal/o.npy --input do=%t/attention_grad_causal/do.npy --output-dir %t/attention_grad_causal
// RUN: latch-interp %s --entry attention_grad_cross --input q=%t/attention_grad_cross/q.npy --input k=%t/attention_grad_cross/k.npy --input v=%t/attention_grad_cross/v.npy --input o=%t/attention_grad_cross/o.npy --input do=%t/attention_grad_cross/do.npy --output-dir %t/attention_grad_cross
// RUN: latch-interp %s --entry topk_grad --input dv=%t/topk_grad/dv.npy --input idx=%t/topk_grad/idx.npy --output-dir %t/topk_grad
// RUN: latch-interp %s --entry gmm_weight_grad --input x=%t/gmm_weight_grad/x.npy --input dy=%t/gmm_weight_grad/dy.npy --input ends=%t/gmm_weight_grad/ends.npy --output-dir %t/gmm_weight_grad
// RUN: python3 %S/Inputs/cases.py check grad %t | FileCheck %s
// The backward ops, from their definitions (which cases.py checks against central differences of the
// forward definitions before using them).

// CHECK: ok reduce_grads
// CHECK: ok rmsnorm_grad
// CHECK: ok softmax_grad
// CHECK: ok cross_entropy_grad
// CHECK: ok rope_grad
// CHECK: ok attention_grad_causal
// CHECK: ok attention_grad_cross
// CHECK: ok topk_grad
// CHECK: ok gmm_weight_grad

func.func @reduce_grads(%x: tensor<2x3x4xf32> {task.name = "x"}, %dys: tensor<2x4xf32> {task.name = "dys"},
                        %dym: tensor<2x3xf32> {task.name = "dym"}, %t: tensor<2x3xf32> {task.name = "t"},
                        %dyt: tensor<2xf32> {task.name = "dyt"})
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3xf32>) {
  %s = "task.reduce_grad"(%x, %dys) {axis = 1, kind = "sum"} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %m = "task.reduce_grad"(%x, %dys) {axis = 1, kind = "mean"} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %x2 = "task.reduce_grad"(%x, %dym) {axis = 2, kind = "max"} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
  %tm = "task.reduce_grad"(%t, %dyt) {axis = 1, kind = "max"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %s, %m, %x2, %tm : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3xf32>
}
func.func @rmsnorm_grad(%x: tensor<3x4xf32> {task.name = "x"}, %w: tensor<4xf32> {task.name = "w"},
                        %dy: tensor<3x4xf32> {task.name = "dy"}) -> (tensor<3x4xf32>, tensor<4xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.0e-5 : f64}
      : (tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  return %dx, %dw : tensor<3x4xf32>, tensor<4xf32>
}
func.func @softmax_grad(%y: tensor<2x5xf32> {task.name = "y"}, %dy: tensor<2x5xf32> {task.name = "dy"}) -> tensor<2x5xf32> {
  %dx = "task.softmax_grad"(%y, %dy) : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %dx : tensor<2x5xf32>
}
func.func @cross_entropy_grad(%l: tensor<3x4xf32> {task.name = "logits"}, %t: tensor<3xi32> {task.name = "targets"},
                              %d: tensor<f32> {task.name = "dloss"}) -> tensor<3x4xf32> {
  %dl = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<3x4xf32>, tensor<3xi32>, tensor<f32>) -> tensor<3x4xf32>
  return %dl : tensor<3x4xf32>
}
func.func @rope_grad(%dy: tensor<1x3x2x4xf32> {task.name = "dy"}) -> tensor<1x3x2x4xf32> {
  %dx = "task.rope_grad"(%dy) {theta = 5.0 : f64} : (tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  return %dx : tensor<1x3x2x4xf32>
}
func.func @attention_grad_causal(%q: tensor<1x2x3x2xf32> {task.name = "q"}, %k: tensor<1x2x3x2xf32> {task.name = "k"},
                                 %v: tensor<1x2x3x3xf32> {task.name = "v"}, %o: tensor<1x2x3x3xf32> {task.name = "o"},
                                 %do: tensor<1x2x3x3xf32> {task.name = "do"})
    -> (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x3xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.8 : f64}
      : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
      -> (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x3xf32>)
  return %dq, %dk, %dv : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x3xf32>
}
func.func @attention_grad_cross(%q: tensor<1x2x3x2xf32> {task.name = "q"}, %k: tensor<1x2x4x2xf32> {task.name = "k"},
                                %v: tensor<1x2x4x3xf32> {task.name = "v"}, %o: tensor<1x2x3x3xf32> {task.name = "o"},
                                %do: tensor<1x2x3x3xf32> {task.name = "do"})
    -> (tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x3xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.8 : f64}
      : (tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
      -> (tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x3xf32>)
  return %dq, %dk, %dv : tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x3xf32>
}
func.func @topk_grad(%dv: tensor<2x2xf32> {task.name = "dv"}, %idx: tensor<2x2xi32> {task.name = "idx"}) -> tensor<2x5xf32> {
  %dx = "task.topk_grad"(%dv, %idx) {columns = 5} : (tensor<2x2xf32>, tensor<2x2xi32>) -> tensor<2x5xf32>
  return %dx : tensor<2x5xf32>
}
func.func @gmm_weight_grad(%x: tensor<6x2xf32> {task.name = "x"}, %dy: tensor<6x3xf32> {task.name = "dy"},
                           %ends: tensor<3xi32> {task.name = "ends"}) -> tensor<3x2x3xf32> {
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<6x2xf32>, tensor<6x3xf32>, tensor<3xi32>) -> tensor<3x2x3xf32>
  return %dw : tensor<3x2x3xf32>
}
