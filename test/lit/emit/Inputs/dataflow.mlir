// A planned program of four intervals for latch-lower-intervals{dataflow=true}: which earlier tasks each
// wave waits for. Interval 0: A (x -> a in slot 0) and B (w -> b in slot 1); interval 1: C (b -> c in
// slot 2); interval 2: D (a -> d, written over slot 1, which B wrote and C read); interval 3: F (x -> f in
// slot 3), whose device function names the pooled global @latch_pool0 as A's does.
module {
  gpu.module @latch {
    llvm.mlir.global internal @latch_pool0() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<64 x f32> {
      %z = llvm.mlir.zero : !llvm.array<64 x f32>
      llvm.return %z : !llvm.array<64 x f32>
    }
    func.func @task_0(%tile: i32, %args: !llvm.ptr<1>) {
      %pool = llvm.mlir.addressof @latch_pool0 : !llvm.ptr<1>
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
    func.func @task_4(%tile: i32, %args: !llvm.ptr<1>) {
      %pool = llvm.mlir.addressof @latch_pool0 : !llvm.ptr<1>
      return
    }
  }
  "interval.program"() ({
  ^bb0(%x: tensor<2x256xf32>, %w: tensor<2x256xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 8192 : i64, size = 8192 : i64} : () -> memref<8192xi8>
    %s0 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 0 : i64, size = 2048 : i64} : (memref<8192xi8>) -> memref<2048xi8>
    %s1 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 2048 : i64, size = 2048 : i64} : (memref<8192xi8>) -> memref<2048xi8>
    %s2 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 4096 : i64, size = 2048 : i64} : (memref<8192xi8>) -> memref<2048xi8>
    %s3 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 6144 : i64, size = 2048 : i64} : (memref<8192xi8>) -> memref<2048xi8>
    "interval.interval"() {name = "i0.softmax"} : () -> ()
    %a = "task.softmax"(%x) {tiles = 3 : i64} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<2x256xf32>, memref<2048xi8>) -> ()
    %b = "task.softmax"(%w) {tiles = 2 : i64} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    "arena.bind"(%b, %s1) {offset = 0 : i64} : (tensor<2x256xf32>, memref<2048xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1.softmax"} : () -> ()
    %c = "task.softmax"(%b) {tiles = 4 : i64} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    "arena.bind"(%c, %s2) {offset = 0 : i64} : (tensor<2x256xf32>, memref<2048xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i2.softmax"} : () -> ()
    %d = "task.softmax"(%a) {tiles = 5 : i64} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    "arena.bind"(%d, %s1) {offset = 0 : i64} : (tensor<2x256xf32>, memref<2048xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i3.softmax"} : () -> ()
    %f = "task.softmax"(%x) {tiles = 6 : i64} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    "arena.bind"(%f, %s3) {offset = 0 : i64} : (tensor<2x256xf32>, memref<2048xi8>) -> ()
    gpu.yield %c, %d, %f : tensor<2x256xf32>, tensor<2x256xf32>, tensor<2x256xf32>
  }) {arg_attrs = [{task.name = "x"}, {task.name = "w"}],
      function_type = (tensor<2x256xf32>, tensor<2x256xf32>) -> (tensor<2x256xf32>, tensor<2x256xf32>, tensor<2x256xf32>),
      sym_name = "dataflow"} : () -> ()
}
