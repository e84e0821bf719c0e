// A planned three-interval program with two task.topk (whose results the manifest lists as probes,
// docs/device-abi.md "Probes") and a hand-written gpu.module @latch whose device functions do nothing.
// Interval 0 runs topk0 (wave 0) and a bucket that reads topk0's indices (wave 1); interval 1 runs topk1;
// interval 2 writes a softmax over topk0's values (slot s0, free once interval 0 is over), so topk0.values
// is not intact at the end of the update and every other probe is.
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
    func.func @task_3(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
  }
  "interval.program"() ({
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 1536 : i64, size = 1536 : i64} : () -> memref<1536xi8>
    %s0 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 0 : i64, size = 256 : i64} : (memref<1536xi8>) -> memref<256xi8>
    %s1 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 256 : i64, size = 256 : i64} : (memref<1536xi8>) -> memref<256xi8>
    %s2 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 512 : i64, size = 512 : i64} : (memref<1536xi8>) -> memref<512xi8>
    %s3 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 1024 : i64, size = 512 : i64} : (memref<1536xi8>) -> memref<512xi8>
    "interval.interval"() {name = "i0.topk+1"} : () -> ()
    %a:2 = "task.topk"(%x) {k = 2 : i64, tiles = 1 : i64, task.device_function = "task_0"} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
    "arena.bind"(%a#0, %s0) {offset = 0 : i64} : (tensor<4x2xf32>, memref<256xi8>) -> ()
    "arena.bind"(%a#1, %s1) {offset = 0 : i64} : (tensor<4x2xi32>, memref<256xi8>) -> ()
    %o:2 = "task.bucket"(%a#1) {buckets = 8 : i64, tiles = 1 : i64, task.fused = "epilogue", task.device_function = "task_1"} : (tensor<4x2xi32>) -> (tensor<8xi32>, tensor<8xi32>)
    "arena.bind"(%o#0, %s2) {offset = 0 : i64} : (tensor<8xi32>, memref<512xi8>) -> ()
    "arena.bind"(%o#1, %s2) {offset = 256 : i64} : (tensor<8xi32>, memref<512xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1.topk"} : () -> ()
    %b:2 = "task.topk"(%y) {k = 2 : i64, tiles = 1 : i64, task.device_function = "task_2"} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
    "arena.bind"(%b#0, %s3) {offset = 0 : i64} : (tensor<4x2xf32>, memref<512xi8>) -> ()
    "arena.bind"(%b#1, %s3) {offset = 256 : i64} : (tensor<4x2xi32>, memref<512xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2.softmax"} : () -> ()
    %c = "task.softmax"(%x) {tiles = 1 : i64, task.device_function = "task_3"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "arena.bind"(%c, %s0) {offset = 0 : i64} : (tensor<4x8xf32>, memref<256xi8>) -> ()
    gpu.yield %c, %o#0, %b#1 : tensor<4x8xf32>, tensor<8xi32>, tensor<4x2xi32>
  }) {arg_attrs = [{task.name = "x"}, {task.name = "y"}],
      function_type = (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xi32>, tensor<4x2xi32>),
      sym_name = "probes"} : () -> ()
}
