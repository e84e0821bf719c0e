// An AdamW step over 20004 elements (two full tiles of 8192 and a partial one): by default
// (latch-lower-tasks{vector-maps}) p, grad, m, v go by vectors of 4; adamw-wide-scalar element by element.
func.func @adamw_wide(
    %p: tensor<20004xf32> {task.name = "p", task.init_std = 1.0 : f64},
    %g: tensor<20004xf32> {task.name = "g", task.init_std = 1.0 : f64},
    %m: tensor<20004xf32> {task.name = "m", task.init_std = 0.1 : f64},
    %v: tensor<20004xf32> {task.name = "v", task.init = "ones"},
    %t: tensor<f32> {task.name = "t"})
    -> (tensor<20004xf32>, tensor<20004xf32>, tensor<20004xf32>) {
  %p2, %m2, %v2 = "task.adamw"(%p, %g, %m, %v, %t)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64}
      : (tensor<20004xf32>, tensor<20004xf32>, tensor<20004xf32>, tensor<20004xf32>, tensor<f32>)
      -> (tensor<20004xf32>, tensor<20004xf32>, tensor<20004xf32>)
  return %p2, %m2, %v2 : tensor<20004xf32>, tensor<20004xf32>, tensor<20004xf32>
}
