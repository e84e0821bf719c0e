// rmsnorm-chain.mlir - a probe, not a test: six dependent task.rmsnorm of [2048, 512] f32 (TinyMoE's rows),
// each its own interval and all of one tile body, so that the persistent kernel runs the same code six
// times in a row while the staged control starts a new kernel for each. Compare the intervals' mean CTA
// work of the two (bench/compare_traces.py): the first interval against the next five in the persistent
// kernel isolates what a body's first run costs there (its code cold); persistent against staged on the
// later five tells whether the persistent kernel's tiles are slower even with their code warm
// (docs/benchmarks.md, round twenty-four). On the build machine:
//   build/latch-opt bench/probes/rmsnorm-chain.mlir --emit=ptx -o probe/prog.ptx --pass-pipeline='builtin.module(
//     latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,latch-lower-tasks,latch-lower-intervals{staged=true})'
// on the GPU machine, for MODE in persistent and staged:
//   bin/latch-run probe/prog.ptx --mode=MODE --steps 20 --random-inputs 2 --trace MODE.json --trace-slowest 0
//   python3 bench/compare_traces.py persistent.json staged.json --top 6
func.func @rmsnorm_chain(
    %x: tensor<2048x512xf32> {task.name = "x", task.init_std = 1.0 : f64},
    %s: tensor<512xf32> {task.name = "s", task.init_std = 1.0 : f64}) -> tensor<2048x512xf32> {
  %y1 = "task.rmsnorm"(%x, %s) {eps = 1.0e-05 : f64} : (tensor<2048x512xf32>, tensor<512xf32>) -> tensor<2048x512xf32>
  %y2 = "task.rmsnorm"(%y1, %s) {eps = 1.0e-05 : f64} : (tensor<2048x512xf32>, tensor<512xf32>) -> tensor<2048x512xf32>
  %y3 = "task.rmsnorm"(%y2, %s) {eps = 1.0e-05 : f64} : (tensor<2048x512xf32>, tensor<512xf32>) -> tensor<2048x512xf32>
  %y4 = "task.rmsnorm"(%y3, %s) {eps = 1.0e-05 : f64} : (tensor<2048x512xf32>, tensor<512xf32>) -> tensor<2048x512xf32>
  %y5 = "task.rmsnorm"(%y4, %s) {eps = 1.0e-05 : f64} : (tensor<2048x512xf32>, tensor<512xf32>) -> tensor<2048x512xf32>
  %y6 = "task.rmsnorm"(%y5, %s) {eps = 1.0e-05 : f64} : (tensor<2048x512xf32>, tensor<512xf32>) -> tensor<2048x512xf32>
  return %y6 : tensor<2048x512xf32>
}
