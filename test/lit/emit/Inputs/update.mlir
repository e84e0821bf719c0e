// A planned update-like program: a bf16 parameter, its optimizer state, the step and an input; the loss
// lives in the arena, p', m' and v' of task.adamw are written over p, m and v (device-abi.md).
module {
  gpu.module @latch {
    func.func @task_0(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
    func.func @task_1(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
    func.func @task_2(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
  }
  "interval.program"() ({
  ^bb0(%p: tensor<2x128xbf16>, %m: tensor<2x128xf32>, %v: tensor<2x128xf32>, %step: tensor<f32>, %x: tensor<16xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 516 : i64, size = 768 : i64} : () -> memref<768xi8>
    %s0 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 0 : i64, size = 512 : i64} : (memref<768xi8>) -> memref<512xi8>
    %s1 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 512 : i64, size = 4 : i64} : (memref<768xi8>) -> memref<4xi8>
    "interval.interval"() {name = "i0.forward"} : () -> ()
    %g = "task.softmax"(%p) {tiles = 1 : i64} : (tensor<2x128xbf16>) -> tensor<2x128xbf16>
    "arena.bind"(%g, %s0) {offset = 0 : i64} : (tensor<2x128xbf16>, memref<512xi8>) -> ()
    %loss = "task.reduce"(%x) {axis = 0 : i64, kind = "sum", tiles = 1 : i64} : (tensor<16xf32>) -> tensor<f32>
    "arena.bind"(%loss, %s1) {offset = 0 : i64} : (tensor<f32>, memref<4xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1.adamw"} : () -> ()
    %p2, %m2, %v2 = "task.adamw"(%p, %g, %m, %v, %step) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, tiles = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<2x128xbf16>, tensor<2x128xbf16>, tensor<2x128xf32>, tensor<2x128xf32>, tensor<f32>) -> (tensor<2x128xbf16>, tensor<2x128xf32>, tensor<2x128xf32>)
    gpu.yield %loss, %p2, %m2, %v2 : tensor<f32>, tensor<2x128xbf16>, tensor<2x128xf32>, tensor<2x128xf32>
  }) {arg_attrs = [{task.init_std = 0.125 : f64, task.name = "layer0.w", task.param},
                   {task.init = "zeros", task.name = "m.layer0.w", task.state},
                   {task.init = "zeros", task.name = "v.layer0.w", task.state},
                   {task.init = "ones", task.name = "step"}, {task.name = "x"}],
      function_type = (tensor<2x128xbf16>, tensor<2x128xf32>, tensor<2x128xf32>, tensor<f32>, tensor<16xf32>) -> (tensor<f32>, tensor<2x128xbf16>, tensor<2x128xf32>, tensor<2x128xf32>),
      sym_name = "tiny_update", task.generated = "update"} : () -> ()
}
