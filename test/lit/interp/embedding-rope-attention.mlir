// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen embedding %t/emb && python3 %S/Inputs/cases.py gen rope %t/rope && python3 %S/Inputs/cases.py gen attention %t/att
// RUN: latch-interp %s --entry emb --input table=%t/emb/emb/table.npy --input ids=%t/emb/emb/ids.npy --output-dir %t/emb/emb
// RUN: latch-interp %s --entry emb1 --input table=%t/emb/emb1/table.npy --input ids=%t/emb/emb1/ids.npy --output-dir %t/emb/emb1
// RUN: latch-interp %s --entry rope_big_theta --input x=%t/rope/rope_big_theta/x.npy --output-dir %t/rope/rope_big_theta
// RUN: latch-interp %s --entry rope_small_theta --input x=%t/rope/rope_small_theta/x.npy --output-dir %t/rope/rope_small_theta
// RUN: latch-interp %s --entry causal --input q=%t/att/causal/q.npy --input k=%t/att/causal/k.npy --input v=%t/att/causal/v.npy --output-dir %t/att/causal
// RUN: latch-interp %s --entry cross --input q=%t/att/cross/q.npy --input k=%t/att/cross/k.npy --input v=%t/att/cross/v.npy --output-dir %t/att/cross
// RUN: python3 %S/Inputs/cases.py check embedding %t/emb | FileCheck %s --check-prefix=EMB
// RUN: python3 %S/Inputs/cases.py check rope %t/rope | FileCheck %s --check-prefix=ROPE
// RUN: python3 %S/Inputs/cases.py check attention %t/att | FileCheck %s --check-prefix=ATT
// task.embedding (rank-1 and rank-2 ids, an f32 table from '<f4'), task.rope (rotate-half, two thetas),
// task.attention (causal with a shared T; non-causal with k/v longer than q).

// EMB: ok emb
// EMB: ok emb1
// ROPE: ok rope_big_theta
// ROPE: ok rope_small_theta
// ATT: ok causal
// ATT: ok cross

func.func @emb(%t: tensor<5x3xf32> {task.name = "table"}, %ids: tensor<2x3xi32> {task.name = "ids"}) -> tensor<2x3x3xf32> {
  %y = "task.embedding"(%t, %ids) : (tensor<5x3xf32>, tensor<2x3xi32>) -> tensor<2x3x3xf32>
  return %y : tensor<2x3x3xf32>
}
func.func @emb1(%t: tensor<4x2xf64> {task.name = "table"}, %ids: tensor<3xi32> {task.name = "ids"}) -> tensor<3x2xf64> {
  %y = "task.embedding"(%t, %ids) : (tensor<4x2xf64>, tensor<3xi32>) -> tensor<3x2xf64>
  return %y : tensor<3x2xf64>
}
func.func @rope_big_theta(%x: tensor<2x4x2x6xf32> {task.name = "x"}) -> tensor<2x4x2x6xf32> {
  %y = "task.rope"(%x) {theta = 10000.0 : f64} : (tensor<2x4x2x6xf32>) -> tensor<2x4x2x6xf32>
  return %y : tensor<2x4x2x6xf32>
}
func.func @rope_small_theta(%x: tensor<1x5x1x4xf32> {task.name = "x"}) -> tensor<1x5x1x4xf32> {
  %y = "task.rope"(%x) {theta = 3.0 : f64} : (tensor<1x5x1x4xf32>) -> tensor<1x5x1x4xf32>
  return %y : tensor<1x5x1x4xf32>
}
func.func @causal(%q: tensor<1x2x4x3xf32> {task.name = "q"}, %k: tensor<1x2x4x3xf32> {task.name = "k"},
                  %v: tensor<1x2x4x3xf32> {task.name = "v"}) -> tensor<1x2x4x3xf32> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.5 : f64}
      : (tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  return %o : tensor<1x2x4x3xf32>
}
func.func @cross(%q: tensor<2x1x3x4xf32> {task.name = "q"}, %k: tensor<2x1x5x4xf32> {task.name = "k"},
                 %v: tensor<2x1x5x4xf32> {task.name = "v"}) -> tensor<2x1x3x4xf32> {
  %o = "task.attention"(%q, %k, %v) {causal = false, scale = 0.7 : f64}
      : (tensor<2x1x3x4xf32>, tensor<2x1x5x4xf32>, tensor<2x1x5x4xf32>) -> tensor<2x1x3x4xf32>
  return %o : tensor<2x1x3x4xf32>
}
