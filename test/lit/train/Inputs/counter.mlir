// A hand-made update for loop.test that makes the --train-steps loop visible: the loss spells out the
// token and target windows as decimal digits (loss = sum tokens[i] 10^(5-i) + sum targets[i] 10^(2-i)),
// and the update adds 1 to p, the step number to m and 1 to v, so after N updates p = N (p starts at zero),
// m = N (N + 1) / 2 and v = N.

func.func @counter_update(%p: tensor<2xf32> {task.name = "p", task.param, task.init = "zeros"}, %m: tensor<2xf32> {task.name = "m.p", task.state, task.init = "zeros"}, %v: tensor<2xf32> {task.name = "v.p", task.state, task.init = "zeros"}, %step: tensor<f32> {task.name = "step", task.init = "ones"}, %tokens: tensor<1x3xi32> {task.name = "tokens", task.range = 10 : i64}, %targets: tensor<3xi32> {task.name = "targets", task.range = 10 : i64}) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %tf = "task.convert"(%tokens) : (tensor<1x3xi32>) -> tensor<1x3xf32>
  %tflat = "task.reshape"(%tf) : (tensor<1x3xf32>) -> tensor<3xf32>
  %gf = "task.convert"(%targets) : (tensor<3xi32>) -> tensor<3xf32>
  %place_t = arith.constant dense<[1.0e5, 1.0e4, 1.0e3]> : tensor<3xf32>
  %place_g = arith.constant dense<[1.0e2, 1.0e1, 1.0]> : tensor<3xf32>
  %digits = "task.map"(%tflat, %gf, %place_t, %place_g) ({
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
    %ac = arith.mulf %a, %c : f32
    %bd = arith.mulf %b, %d : f32
    %r = arith.addf %ac, %bd : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %loss = "task.reduce"(%digits) {axis = 0 : i64, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
  %next:3 = "task.map"(%p, %m, %v, %step) ({
  ^bb0(%pv: f32, %mv: f32, %vv: f32, %sv: f32):
    %one = arith.constant 1.0 : f32
    %p1 = arith.addf %pv, %one : f32
    %m1 = arith.addf %mv, %sv : f32
    %v1 = arith.addf %vv, %one : f32
    gpu.yield %p1, %m1, %v1 : f32, f32, f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %loss, %next#0, %next#1, %next#2 : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @no_step_update(%p: tensor<2xf32> {task.name = "p", task.param, task.init = "zeros"}, %m: tensor<2xf32> {task.name = "m.p", task.state, task.init = "zeros"}, %v: tensor<2xf32> {task.name = "v.p", task.state, task.init = "zeros"}, %tokens: tensor<1x3xi32> {task.name = "tokens", task.range = 10 : i64}, %targets: tensor<3xi32> {task.name = "targets", task.range = 10 : i64}) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %loss = arith.constant dense<0.0> : tensor<f32>
  return %loss, %p, %m, %v : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @one_moment_update(%p: tensor<2xf32> {task.name = "p", task.param, task.init = "zeros"}, %m: tensor<2xf32> {task.name = "m.p", task.state, task.init = "zeros"}, %step: tensor<f32> {task.name = "step", task.init = "ones"}, %tokens: tensor<1x3xi32> {task.name = "tokens", task.range = 10 : i64}, %targets: tensor<3xi32> {task.name = "targets", task.range = 10 : i64}) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>) {
  %loss = arith.constant dense<0.0> : tensor<f32>
  return %loss, %p, %m : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

func.func @no_data_update(%p: tensor<2xf32> {task.name = "p", task.param, task.init = "zeros"}, %m: tensor<2xf32> {task.name = "m.p", task.state, task.init = "zeros"}, %v: tensor<2xf32> {task.name = "v.p", task.state, task.init = "zeros"}, %step: tensor<f32> {task.name = "step", task.init = "ones"}) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %loss = arith.constant dense<0.0> : tensor<f32>
  return %loss, %p, %m, %v : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
