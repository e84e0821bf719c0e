// RUN: rm -rf %t && mkdir -p %t && python3 -c "import sys; sys.path.insert(0, '%S/Inputs'); import npyio; npyio.write('%t/w.npy', 'f32', (3, 4), [0.5] * 12)"
// RUN: latch-interp %s --entry params --init 42 --random-inputs 7 --output-dir %t/run1
// RUN: latch-interp %s --entry params --init 42 --random-inputs 7 --output-dir %t/again
// RUN: latch-interp %s --entry params --init 43 --random-inputs 7 --output-dir %t/seed43
// RUN: latch-interp %s --entry params --init 42 --random-inputs 7 --input w=%t/w.npy --output-dir %t/given
// RUN: python3 %S/Inputs/rules.py init-check %t/run1 %t/again %t/seed43 %t/given | FileCheck %s
// --init and --random-inputs follow the documented rule bit for bit (recomputed in Python from the
// rule): keys per parameter index or input position, task.init / task.init_std / task.range, rounding
// to the argument's dtype; runs are deterministic; a parameter given by --input keeps the others' keys.

// CHECK: ok splitmix64(0)
// CHECK: ok w
// CHECK: ok b
// CHECK: ok g
// CHECK: ok z
// CHECK: ok x
// CHECK: ok ids
// CHECK: ok h
// CHECK: ok y
// CHECK: ok bf16 values have 8 significant bits
// CHECK: ok deterministic
// CHECK: ok another seed changes params
// CHECK: ok another seed keeps inputs
// CHECK: ok w from --input
// CHECK: ok b unchanged when w is given
// CHECK: ok h unchanged when w is given

func.func @params(%w: tensor<3x4xf32> {task.param, task.name = "w"},
                  %b: tensor<5xbf16> {task.param, task.init_std = 1.0 : f64},
                  %g: tensor<4xf32> {task.param, task.init = "ones"},
                  %z: tensor<2xf64> {task.param, task.init = "zeros"},
                  %x: tensor<2x3xf64> {task.init_std = 0.5 : f64},
                  %ids: tensor<6xi32> {task.range = 7 : i64},
                  %h: tensor<3xf64> {task.param, task.init_std = 1.0 : f64},
                  %y: tensor<4xf32>)
    -> (tensor<3x4xf32>, tensor<5xbf16>, tensor<4xf32>, tensor<2xf64>, tensor<2x3xf64>, tensor<6xi32>,
        tensor<3xf64>, tensor<4xf32>) {
  return %w, %b, %g, %z, %x, %ids, %h, %y : tensor<3x4xf32>, tensor<5xbf16>, tensor<4xf32>, tensor<2xf64>,
      tensor<2x3xf64>, tensor<6xi32>, tensor<3xf64>, tensor<4xf32>
}
