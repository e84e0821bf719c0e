// RUN: rm -rf %t && python3 %S/Inputs/cases.py gen adamw %t
// RUN: latch-interp %s --entry adamw_i32_step --input p=%t/adamw_i32_step/p.npy --input g=%t/adamw_i32_step/g.npy --input m=%t/adamw_i32_step/m.npy --input v=%t/adamw_i32_step/v.npy --input step=%t/adamw_i32_step/step.npy --output-dir %t/adamw_i32_step
// RUN: latch-interp %s --entry adamw_f32_step --input p=%t/adamw_f32_step/p.npy --input g=%t/adamw_f32_step/g.npy --input m=%t/adamw_f32_step/m.npy --input v=%t/adamw_f32_step/v.npy --input step=%t/adamw_f32_step/step.npy --output-dir %t/adamw_f32_step
// RUN: python3 %S/Inputs/cases.py check adamw %t | FileCheck %s
// task.adamw: decoupled AdamW with bias correction, step given as i32 or f32.

// CHECK: ok adamw_i32_step
// CHECK: ok adamw_f32_step

func.func @adamw_i32_step(%p: tensor<2x3xf32> {task.name = "p"}, %g: tensor<2x3xf32> {task.name = "g"},
                          %m: tensor<2x3xf32> {task.name = "m"}, %v: tensor<2x3xf32> {task.name = "v"},
                          %step: tensor<i32> {task.name = "step"}) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %p2, %m2, %v2 = "task.adamw"(%p, %g, %m, %v, %step)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64}
      : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return %p2, %m2, %v2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @adamw_f32_step(%p: tensor<2x3xf32> {task.name = "p"}, %g: tensor<2x3xf32> {task.name = "g"},
                          %m: tensor<2x3xf32> {task.name = "m"}, %v: tensor<2x3xf32> {task.name = "v"},
                          %step: tensor<f32> {task.name = "step"}) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %p2, %m2, %v2 = "task.adamw"(%p, %g, %m, %v, %step)
      {lr = 1.0e-2 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.1 : f64}
      : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return %p2, %m2, %v2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
