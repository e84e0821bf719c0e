// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-cross-entropy-stats,latch-verify)' \
// RUN:   | FileCheck %s
//
// Exact in latch-interp (fp64): a small TinyMoE update gives the same bits with and without the pass.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 64 --vocab 64 --batch 2 --seq 8 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train)' -o %t.d/whole.mlir
// RUN: latch-opt %t.d/whole.mlir --pass-pipeline='builtin.module(latch-cross-entropy-stats,latch-verify)' -o %t.d/stats.mlir
// RUN: FileCheck %s --check-prefix=MOE < %t.d/stats.mlir
// RUN: latch-interp %t.d/whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/whole
// RUN: latch-interp %t.d/stats.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/stats
// RUN: python3 -c "import filecmp, os, sys; a, b = sys.argv[1:]; names = sorted(os.listdir(a)); \
// RUN:   bad = [n for n in names if not filecmp.cmp(a + '/' + n, b + '/' + n, shallow=False)]; \
// RUN:   print('identical', len(names), 'results' if not bad else bad)" %t.d/whole %t.d/stats | FileCheck %s --check-prefix=SAME
// SAME: identical 37 results

// MOE-LABEL: func.func @tinymoe_update(
// MOE: %[[F:.*]]:2 = "task.cross_entropy_with_stats"({{.*}}) : (tensor<16x64xf32>, tensor<16xi32>) -> (tensor<f32>, tensor<16x2xf32>)
// MOE: "task.cross_entropy_grad_from_stats"(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[F]]#1) {task.phase = "backward"}
// MOE-NOT: "task.cross_entropy_grad"(

// The forward of the same logits and targets writes (max, sum) per row; the gradient reads them; both
// keep their attributes and uses.
// CHECK-LABEL: func.func @pair(
// CHECK-SAME: %[[L:[^:]*]]: tensor<6x10xf32>, %[[T:[^:]*]]: tensor<6xi32>, %[[D:[^:]*]]: tensor<f32>)
// CHECK-NEXT: %[[F:.*]]:2 = "task.cross_entropy_with_stats"(%[[L]], %[[T]]) {task.phase = "forward"} : (tensor<6x10xf32>, tensor<6xi32>) -> (tensor<f32>, tensor<6x2xf32>)
// CHECK-NEXT: %[[G:.*]] = "task.cross_entropy_grad_from_stats"(%[[L]], %[[T]], %[[D]], %[[F]]#1) {task.phase = "backward"} : (tensor<6x10xf32>, tensor<6xi32>, tensor<f32>, tensor<6x2xf32>) -> tensor<6x10xf32>
// CHECK-NEXT: return %[[F]]#0, %[[G]]
func.func @pair(%l: tensor<6x10xf32>, %t: tensor<6xi32>, %d: tensor<f32>) -> (tensor<f32>, tensor<6x10xf32>) {
  %loss = "task.cross_entropy"(%l, %t) {task.phase = "forward"} : (tensor<6x10xf32>, tensor<6xi32>) -> tensor<f32>
  %g = "task.cross_entropy_grad"(%l, %t, %d) {task.phase = "backward"} : (tensor<6x10xf32>, tensor<6xi32>, tensor<f32>) -> tensor<6x10xf32>
  return %loss, %g : tensor<f32>, tensor<6x10xf32>
}

// -----

// Other targets, or a forward after the gradient: nothing to reuse.
// CHECK-LABEL: func.func @unrelated(
// CHECK: "task.cross_entropy"(
// CHECK: "task.cross_entropy_grad"(
// CHECK: "task.cross_entropy_grad"(
// CHECK: "task.cross_entropy"(
// CHECK-NOT: stats
func.func @unrelated(%l: tensor<6x10xf32>, %t: tensor<6xi32>, %u: tensor<6xi32>, %d: tensor<f32>) -> (tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<f32>) {
  %loss = "task.cross_entropy"(%l, %t) : (tensor<6x10xf32>, tensor<6xi32>) -> tensor<f32>
  %g = "task.cross_entropy_grad"(%l, %u, %d) : (tensor<6x10xf32>, tensor<6xi32>, tensor<f32>) -> tensor<6x10xf32>
  %g2 = "task.cross_entropy_grad"(%l, %u, %d) : (tensor<6x10xf32>, tensor<6xi32>, tensor<f32>) -> tensor<6x10xf32>
  %later = "task.cross_entropy"(%l, %u) : (tensor<6x10xf32>, tensor<6xi32>) -> tensor<f32>
  return %loss, %g, %g2, %later : tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<f32>
}

// -----

// Two gradients of one forward share its statistics.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[F:.*]]:2 = "task.cross_entropy_with_stats"
// CHECK: "task.cross_entropy_grad_from_stats"({{.*}}, %[[F]]#1)
// CHECK: "task.cross_entropy_grad_from_stats"({{.*}}, %[[F]]#1)
func.func @shared(%l: tensor<6x10xf32>, %t: tensor<6xi32>, %d: tensor<f32>) -> (tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32>) {
  %loss = "task.cross_entropy"(%l, %t) : (tensor<6x10xf32>, tensor<6xi32>) -> tensor<f32>
  %g = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<6x10xf32>, tensor<6xi32>, tensor<f32>) -> tensor<6x10xf32>
  %g2 = "task.cross_entropy_grad"(%l, %t, %d) : (tensor<6x10xf32>, tensor<6xi32>, tensor<f32>) -> tensor<6x10xf32>
  return %loss, %g, %g2 : tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32>
}
