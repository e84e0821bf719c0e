// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-autodiff,latch-optimizer{lr=0.01 weight_decay=0})' | FileCheck %s
// RUN: latch-opt %s --pass-pipeline='builtin.module(latch-train)' | FileCheck %s --check-prefix=TRAIN
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-optimizer)' 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-optimizer{lr=fast})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// @f_update(params..., m..., v..., step, inputs...) -> (loss, params'..., m'..., v'...), one AdamW per
// parameter fed by the gradient of the copied @f_grad body; inputs keep their attributes.
// CHECK-LABEL: func.func @model_update
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32> {task.name = "w", task.param},
// CHECK-SAME: %[[S:.*]]: tensor<f32> {task.name = "s", task.param},
// CHECK-SAME: %[[MW:.*]]: tensor<8x4xf32> {task.init = "zeros", task.name = "m.w", task.state},
// CHECK-SAME: %[[MS:.*]]: tensor<f32> {task.init = "zeros", task.name = "m.s", task.state},
// CHECK-SAME: %[[VW:.*]]: tensor<8x4xf32> {task.init = "zeros", task.name = "v.w", task.state},
// CHECK-SAME: %[[VS:.*]]: tensor<f32> {task.init = "zeros", task.name = "v.s", task.state},
// CHECK-SAME: %[[STEP:.*]]: tensor<f32> {task.init = "ones", task.name = "step"},
// CHECK-SAME: %[[X:.*]]: tensor<2x8xf32> {task.name = "x"}, %[[T:.*]]: tensor<2xi32> {task.name = "t", task.range = 4 : i64})
// CHECK-SAME: -> (tensor<f32>, tensor<8x4xf32>, tensor<f32>, tensor<8x4xf32>, tensor<f32>, tensor<8x4xf32>, tensor<f32>)
// CHECK-SAME: attributes {task.generated = "update"}
// CHECK: "task.matmul"(%[[X]], %[[W]])
// CHECK: %[[UW:.*]]:3 = "task.adamw"(%[[W]], %{{.*}}, %[[MW]], %[[VW]], %[[STEP]]) {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, task.phase = "optimizer", weight_decay = 0.000000e+00 : f64}
// CHECK: %[[US:.*]]:3 = "task.adamw"(%[[S]], %{{.*}}, %[[MS]], %[[VS]], %[[STEP]])
// CHECK: return %{{.*}}, %[[UW]]#0, %[[US]]#0, %[[UW]]#1, %[[US]]#1, %[[UW]]#2, %[[US]]#2

// The named pipeline latch-train = verify, autodiff, optimizer (default hyperparameters), verify.
// TRAIN: func.func @model(
// TRAIN: func.func @model_grad(
// TRAIN: func.func @model_update(
// TRAIN: "task.adamw"{{.*}}lr = 3.000000e-04 : f64, task.phase = "optimizer", weight_decay = 1.000000e-01 : f64

// NOGRAD: error: latch-optimizer: no gradient function (run latch-autodiff first)
// BADOPT: latch-opt: error: option 'lr' expects a finite number, got 'fast'
func.func @model(%w: tensor<8x4xf32> {task.param, task.name = "w"}, %x: tensor<2x8xf32> {task.name = "x"},
                 %s: tensor<f32> {task.param, task.name = "s"}, %t: tensor<2xi32> {task.name = "t", task.range = 4 : i64}) -> tensor<f32> {
  %h = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = "task.map"(%h, %s) ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %l = "task.cross_entropy"(%y, %t) : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
