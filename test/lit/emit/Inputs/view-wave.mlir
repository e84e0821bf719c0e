// Inputs/waves.mlir with a view in place of the epilogue: %v, a reshape of %a bound over it with no
// tiles (latch-plan-arena's views), reads what task_0 writes in the same interval but runs nothing.
module {
  gpu.module @latch {
    // arena[tile] = tile (thread 0 of the CTA).
    func.func @task_0(%tile: i32, %args: !llvm.ptr<1>) {
      %base_word = llvm.load %args {alignment = 8 : i64} : !llvm.ptr<1> -> i64
      %base = llvm.inttoptr %base_word : i64 to !llvm.ptr<1>
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %c0 = arith.constant 0 : i32
      %first = arith.cmpi eq, %tid, %c0 : i32
      scf.if %first {
        %slot = llvm.getelementptr %base[%tile] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %tile, %slot {alignment = 4 : i64} : i32, !llvm.ptr<1>
      }
      return
    }
    // w[i] = exp(w[i]) for the tile's 256 elements of program argument 1 (args[3 + 1]).
    func.func @task_1(%tile: i32, %args: !llvm.ptr<1>) {
      %arg_slot = llvm.getelementptr %args[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
      %w_word = llvm.load %arg_slot {alignment = 8 : i64} : !llvm.ptr<1> -> i64
      %w = llvm.inttoptr %w_word : i64 to !llvm.ptr<1>
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %c256 = arith.constant 256 : i32
      %row = arith.muli %tile, %c256 : i32
      %i = arith.addi %row, %tid : i32
      %p = llvm.getelementptr %w[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> f32
      %e = math.exp %v : f32
      llvm.store %e, %p {alignment = 4 : i64} : f32, !llvm.ptr<1>
      return
    }
    func.func @task_2(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
  }
  "interval.program"() ({
  ^bb0(%x: tensor<4x8xf32>, %w: tensor<2x256xf32>, %ids: tensor<4xi32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 4480 : i64, size = 4608 : i64} : () -> memref<4608xi8>
    %s0 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 0 : i64, size = 128 : i64} : (memref<4608xi8>) -> memref<128xi8>
    %s1 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 256 : i64, size = 2048 : i64} : (memref<4608xi8>) -> memref<2048xi8>
    %s2 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 2304 : i64, size = 2304 : i64} : (memref<4608xi8>) -> memref<2304xi8>
    "interval.interval"() {name = "i0.softmax"} : () -> ()
    %a = "task.softmax"(%x) {tiles = 3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "arena.bind"(%a, %s0) {offset = 0 : i64} : (tensor<4x8xf32>, memref<128xi8>) -> ()
    %b = "task.softmax"(%w) {tiles = 2 : i64, task.device_function = "task_1"} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    %v = "task.reshape"(%a) {tiles = 0 : i64, task.device_function = "task_2"} : (tensor<4x8xf32>) -> tensor<32xf32>
    "arena.bind"(%v, %s0) {offset = 0 : i64} : (tensor<32xf32>, memref<128xi8>) -> ()
    "arena.bind"(%b, %s1) {offset = 0 : i64} : (tensor<2x256xf32>, memref<2048xi8>) -> ()
    "interval.barrier"() : () -> ()
    "interval.interval"() {name = "i1.softmax"} : () -> ()
    %c = "task.softmax"(%b) {tiles = 4 : i64, task.device_function = "task_2"} : (tensor<2x256xf32>) -> tensor<2x256xf32>
    "arena.bind"(%c, %s2) {offset = 64 : i64} : (tensor<2x256xf32>, memref<2304xi8>) -> ()
    gpu.yield %c, %v, %w : tensor<2x256xf32>, tensor<32xf32>, tensor<2x256xf32>
  }) {arg_attrs = [{task.name = "x"}, {task.init_std = 0.5 : f64, task.name = "w", task.param},
                   {task.name = "ids", task.range = 10 : i64}],
      function_type = (tensor<4x8xf32>, tensor<2x256xf32>, tensor<4xi32>) -> (tensor<2x256xf32>, tensor<32xf32>, tensor<2x256xf32>),
      sym_name = "two"} : () -> ()
}
