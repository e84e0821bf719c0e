// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-lower-intervals)' 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error:
// RUN: not latch-opt %S/Inputs/two-intervals.mlir --pass-pipeline='builtin.module(latch-lower-intervals{spin-sleep=2000000})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SLEEP
// RUN: latch-opt %S/Inputs/two-intervals.mlir --pass-pipeline='builtin.module(latch-lower-intervals{spin-sleep=0})' \
// RUN:   | FileCheck %s --check-prefix=NO-SLEEP
// RUN: not latch-opt %S/Inputs/two-intervals.mlir --pass-pipeline='builtin.module(latch-lower-intervals{table-dispatch=true})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TABLE-CALL --implicit-check-not=error:
// What latch-lower-intervals refuses: each case pins the message and its line.
// SLEEP: error: latch-lower-intervals: spin-sleep must be 0..1000000 ns
// table-dispatch reads each task's pointers from the tile body call of its @task_<N> (latch-lower-tasks
// writes it); Inputs/two-intervals.mlir's stand-in task functions have none.
// TABLE-CALL: two-intervals.mlir:{{[0-9]+}}:{{[0-9]+}}: error: latch-lower-intervals: table-dispatch: @task_0 does not call a tile body
// NO-SLEEP-NOT: nvvm.nanosleep
// NO-SLEEP: gpu.func @latch_main
// NO-SLEEP-NOT: nvvm.nanosleep

// CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:1: error: latch-lower-intervals: the module holds no interval.program (run latch-form-intervals first)
module {
  gpu.module @latch {
  }
}

// -----

module {
  // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:3: error: latch-lower-intervals: no gpu.module @latch holds the device functions (run latch-lower-tasks first)
  "interval.program"() ({
    "interval.interval"() {name = "i0"} : () -> ()
    gpu.yield
  }) {function_type = () -> (), sym_name = "p"} : () -> ()
}

// -----

// CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:1: error: latch-lower-intervals: the module holds 2 interval.program ops; one kernel lowers exactly one
module {
  gpu.module @latch {
  }
  "interval.program"() ({
    gpu.yield
  }) {function_type = () -> (), sym_name = "p"} : () -> ()
  "interval.program"() ({
    gpu.yield
  }) {function_type = () -> (), sym_name = "q"} : () -> ()
}

// -----

// A missing device function, one of the wrong type, a task.device_function naming nothing, a task without
// tiles: every problem is reported.
module {
  gpu.module @latch {
    func.func @task_1(%tile: i64, %args: !llvm.ptr<1>) {
      return
    }
  }
  "interval.program"() ({
  ^bb0(%x: tensor<4xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 0 : i64, size = 0 : i64} : () -> memref<0xi8>
    "interval.interval"() {name = "i0"} : () -> ()
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:10: error: latch-lower-intervals: gpu.module @latch has no device function @task_0 for this task
    %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:10: error: latch-lower-intervals: device function @task_1 must be a func.func of type (i32, !llvm.ptr<1>) -> ()
    %b = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:10: error: latch-lower-intervals: gpu.module @latch has no device function @softmax_2 for this task
    %c = "task.softmax"(%x) {tiles = 1 : i64, task.device_function = "softmax_2"} : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+2]]:10: error: latch-lower-intervals: task has no integer `tiles` attribute (latch-form-intervals sets it)
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:10: error: latch-lower-intervals: task.device_function 'not a symbol' is not a symbol name (letters, digits, _ . $ -; under 128 bytes)
    %d = "task.softmax"(%x) {task.device_function = "not a symbol"} : (tensor<4xf32>) -> tensor<4xf32>
    gpu.yield
  }) {function_type = (tensor<4xf32>) -> (), sym_name = "p"} : () -> ()
}

// -----

module {
  gpu.module @latch {
    func.func @task_0(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:5: error: latch-lower-intervals: gpu.module @latch already holds @latch_main
    gpu.func @latch_main(%args: !llvm.ptr<1>) kernel {
      gpu.return
    }
  }
  "interval.program"() ({
  ^bb0(%x: tensor<4xf32>):
    "interval.interval"() {name = "i0"} : () -> ()
    %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    gpu.yield
  }) {function_type = (tensor<4xf32>) -> (), sym_name = "p"} : () -> ()
}

// -----

module {
  gpu.module @latch {
  }
  // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:3: error: latch-lower-intervals: the program has no arena.arena (run latch-plan-arena first)
  "interval.program"() ({
  ^bb0(%x: tensor<4xf32>):
    "interval.interval"() {name = "i0"} : () -> ()
    gpu.yield
  }) {function_type = (tensor<4xf32>) -> (), sym_name = "p"} : () -> ()
}

// -----

// Arguments the device cannot hold, a result that lives nowhere.
module {
  gpu.module @latch {
  }
  // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+2]]:3: error: latch-lower-intervals: argument 0: the device stores f32, bf16 and i32 tensors only
  // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:3: error: latch-lower-intervals: argument 1: task.init must be "normal", "ones" or "zeros"
  "interval.program"() ({
  ^bb0(%x: tensor<4xf64>, %y: tensor<4xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 0 : i64, size = 0 : i64} : () -> memref<0xi8>
    %zero = arith.constant dense<0.0> : tensor<4xf32>
    "interval.interval"() {name = "i0"} : () -> ()
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:5: error: latch-lower-intervals: result 0 is neither bound in the arena nor stored in an argument (run latch-plan-arena)
    gpu.yield %zero : tensor<4xf32>
  }) {arg_attrs = [{}, {task.init = "uniform"}], function_type = (tensor<4xf64>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "p"} : () -> ()
}

// -----

// A result bound past the end of the arena; a negative init_std.
module {
  gpu.module @latch {
    func.func @task_0(%tile: i32, %args: !llvm.ptr<1>) {
      return
    }
  }
  // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:3: error: latch-lower-intervals: argument 0: task.init_std must be a finite, non-negative float attribute
  "interval.program"() ({
  ^bb0(%x: tensor<4xf32>):
    %arena = "arena.arena"() {alignment = 256 : i64, lower_bound = 256 : i64, size = 256 : i64} : () -> memref<256xi8>
    %s0 = "arena.slot"(%arena) {alignment = 256 : i64, offset = 0 : i64, size = 256 : i64} : (memref<256xi8>) -> memref<256xi8>
    "interval.interval"() {name = "i0"} : () -> ()
    %a = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "arena.bind"(%a, %s0) {offset = 248 : i64} : (tensor<4xf32>, memref<256xi8>) -> ()
    // CHECK: {{.*}}latch-lower-intervals-errors.mlir:[[@LINE+1]]:5: error: latch-lower-intervals: result 0 occupies bytes 248 .. 264, outside the arena of 256 bytes
    gpu.yield %a : tensor<4xf32>
  }) {arg_attrs = [{task.init_std = -1.0 : f64}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "p"} : () -> ()
}
