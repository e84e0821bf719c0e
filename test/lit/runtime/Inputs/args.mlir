// Returns its arguments: latch-interp --init/--random-inputs then writes exactly the values it filled.
// args.manifest.json describes the same arguments (same order, roles, dtypes, init attributes) as the
// compiler's manifest would.
func.func @args(%w: tensor<3x4xf32> {task.param, task.name = "w", task.init_std = 0.5 : f64},
                %b: tensor<5xbf16> {task.param, task.name = "b", task.init_std = 1.0 : f64},
                %g: tensor<4xf32> {task.param, task.name = "g", task.init = "ones"},
                %m: tensor<3x4xf32> {task.state, task.name = "m.w", task.init = "zeros"},
                %x: tensor<2x3xf32> {task.name = "x", task.init_std = 0.25 : f64},
                %ids: tensor<6xi32> {task.name = "ids", task.range = 7 : i64},
                %h: tensor<7xbf16> {task.name = "h"},
                %z: tensor<2xf32> {task.name = "z", task.init = "zeros"})
    -> (tensor<3x4xf32>, tensor<5xbf16>, tensor<4xf32>, tensor<3x4xf32>, tensor<2x3xf32>, tensor<6xi32>,
        tensor<7xbf16>, tensor<2xf32>) {
  return %w, %b, %g, %m, %x, %ids, %h, %z : tensor<3x4xf32>, tensor<5xbf16>, tensor<4xf32>, tensor<3x4xf32>,
      tensor<2x3xf32>, tensor<6xi32>, tensor<7xbf16>, tensor<2xf32>
}
