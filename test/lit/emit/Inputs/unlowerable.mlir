// A device function holding ops that the upstream lowering cannot turn into LLVM (tensors, a task op).
module {
  gpu.module @latch {
    func.func @task_0(%tile: i32, %args: !llvm.ptr<1>) {
      %t = tensor.empty() : tensor<4xf32>
      %u = "task.softmax"(%t) : (tensor<4xf32>) -> tensor<4xf32>
      return
    }
  }
  "interval.program"() ({
  ^bb0(%x: tensor<4xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 0 : i64, size = 0 : i64} : () -> memref<0xi8>
    "interval.interval"() {name = "i0.softmax"} : () -> ()
    %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    gpu.yield
  }) {function_type = (tensor<4xf32>) -> (), sym_name = "p"} : () -> ()
}
