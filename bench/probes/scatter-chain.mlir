// scatter-chain.mlir - a probe, not a test: TinyMoE's combine step, task.scatter_add_rows of [4096, 512] f32
// into 2048 rows, three times, each followed by a task.gather_rows back to 4096 rows so that every step is
// its own interval (six intervals of two bodies). In the TinyMoE update the scatter tiles take 10.6 us in
// the persistent kernel against 4.7 us in the staged control (docs/benchmarks.md, round twenty-five); the
// rmsnorm-chain probe found no such difference in a small kernel. If this probe shows it, the cost belongs
// to scatter tiles in a persistent kernel, not to the size of TinyMoE's @latch_main. The indices are drawn
// uniformly (task.range), not sorted by expert as TinyMoE's are. On the build machine:
//   build/latch-opt bench/probes/scatter-chain.mlir --emit=ptx -o probe/prog.ptx --pass-pipeline='builtin.module(
//     latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,latch-lower-tasks,latch-lower-intervals{staged=true})'
// on the GPU machine, for MODE in persistent and staged:
//   bin/latch-run probe/prog.ptx --mode=MODE --steps 20 --random-inputs 2 --trace MODE.json --trace-slowest 0
//   python3 bench/compare_traces.py persistent.json staged.json --top 6
func.func @scatter_chain(
    %x: tensor<4096x512xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %idx: tensor<4096xi32> {task.name = "idx", task.range = 2048 : i64}) -> tensor<4096x512xf32> {
  %y1 = "task.scatter_add_rows"(%x, %idx) {rows = 2048 : i64} : (tensor<4096x512xf32>, tensor<4096xi32>) -> tensor<2048x512xf32>
  %x1 = "task.gather_rows"(%y1, %idx) : (tensor<2048x512xf32>, tensor<4096xi32>) -> tensor<4096x512xf32>
  %y2 = "task.scatter_add_rows"(%x1, %idx) {rows = 2048 : i64} : (tensor<4096x512xf32>, tensor<4096xi32>) -> tensor<2048x512xf32>
  %x2 = "task.gather_rows"(%y2, %idx) : (tensor<2048x512xf32>, tensor<4096xi32>) -> tensor<4096x512xf32>
  %y3 = "task.scatter_add_rows"(%x2, %idx) {rows = 2048 : i64} : (tensor<4096x512xf32>, tensor<4096xi32>) -> tensor<2048x512xf32>
  %x3 = "task.gather_rows"(%y3, %idx) : (tensor<2048x512xf32>, tensor<4096xi32>) -> tensor<4096x512xf32>
  return %x3 : tensor<4096x512xf32>
}
