// Hand-written gradient functions for errors.test: @good_grad is right, @wrong_grad is off by a
// factor 2 in the gradient of x (a failing row), @half_wrong_grad returns the gradient of x for z too
// (one passing and one failing row), and the others break the signature rule.

func.func @good(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @good_grad(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> (tensor<f32>, tensor<3xf32>) {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %g = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %c = arith.constant 2.0 : f32
    %cx = arith.mulf %c, %xv : f32
    %r = arith.mulf %cx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %loss, %g : tensor<f32>, tensor<3xf32>
}

func.func @wrong(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @wrong_grad(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> (tensor<f32>, tensor<3xf32>) {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %g = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %c = arith.constant 1.0 : f32
    %cx = arith.mulf %c, %xv : f32
    %r = arith.mulf %cx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %loss, %g : tensor<f32>, tensor<3xf32>
}

func.func @half_wrong(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %z: tensor<3xf32> {task.name = "z", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %y2 = "task.map"(%z, %w) ({
  ^bb0(%zv: f32, %wv: f32):
    %r = arith.mulf %zv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l2 = "task.reduce"(%y2) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %total = "task.map"(%loss, %l2) ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %total : tensor<f32>
}

func.func @half_wrong_grad(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %z: tensor<3xf32> {task.name = "z", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %y2 = "task.map"(%z, %w) ({
  ^bb0(%zv: f32, %wv: f32):
    %r = arith.mulf %zv, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l2 = "task.reduce"(%y2) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %total = "task.map"(%loss, %l2) ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %g = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %c = arith.constant 2.0 : f32
    %cx = arith.mulf %c, %xv : f32
    %r = arith.mulf %cx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %total, %g, %g : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}

func.func @no_grad(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @short(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @short_grad(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @retyped(%x: tensor<3xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> tensor<f32> {
  %y = "task.map"(%x, %w) ({
  ^bb0(%xv: f32, %wv: f32):
    %xx = arith.mulf %xv, %xv : f32
    %r = arith.mulf %xx, %wv : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%y) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @retyped_grad(%x: tensor<4xf32> {task.name = "x", task.param, task.init_std = 1.0 : f64}, %w: tensor<3xf32> {task.name = "w", task.init_std = 1.0 : f64}) -> (tensor<f32>, tensor<4xf32>) {
  %loss = arith.constant dense<0.0> : tensor<f32>
  %g = arith.constant dense<0.0> : tensor<4xf32>
  return %loss, %g : tensor<f32>, tensor<4xf32>
}
