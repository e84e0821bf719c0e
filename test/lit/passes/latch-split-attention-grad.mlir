// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-split-attention-grad,latch-verify)' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-split-attention-grad{convert-do=false},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=KEEP-DO
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-split-attention-grad{forward-lse=false},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=RECOMPUTE
//
// With convert-do=false the results of the split program are bitwise those of the whole one in
// latch-interp (fp64; the interpreter's task.attention_grad is the same two steps), for a causal head, a
// non-causal one with Tq != Tk, one on tensor cores, and a small TinyMoE update. With convert-do (the
// default) the products on tensor cores read do rounded to bf16, so only the other results stay. The
// TinyMoE update takes its statistics from the forward's lse (forward-lse, the default): the same bits.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: latch-opt %S/Inputs/attention-grads.mlir --pass-pipeline='builtin.module(latch-split-attention-grad{convert-do=false})' -o %t.d/split.mlir
// RUN: latch-interp %S/Inputs/attention-grads.mlir --entry causal --random-inputs 3 --output-dir %t.d/whole-causal
// RUN: latch-interp %t.d/split.mlir --entry causal --random-inputs 3 --output-dir %t.d/split-causal
// RUN: latch-interp %S/Inputs/attention-grads.mlir --entry cross --random-inputs 3 --output-dir %t.d/whole-cross
// RUN: latch-interp %t.d/split.mlir --entry cross --random-inputs 3 --output-dir %t.d/split-cross
// RUN: latch-interp %S/Inputs/attention-grads.mlir --entry tensor_cores --random-inputs 3 --output-dir %t.d/whole-tc
// RUN: latch-interp %t.d/split.mlir --entry tensor_cores --random-inputs 3 --output-dir %t.d/split-tc
// RUN: latch-gen tinymoe --layers 1 --d-model 32 --heads 2 --experts 4 --ffn 64 --vocab 64 --batch 2 --seq 8 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train)' -o %t.d/moe-whole.mlir
// RUN: latch-opt %t.d/moe-whole.mlir --pass-pipeline='builtin.module(latch-split-attention-grad,latch-verify)' \
// RUN:   -o %t.d/moe-split.mlir
// RUN: FileCheck %s --check-prefix=MOE < %t.d/moe-split.mlir
// RUN: latch-interp %t.d/moe-whole.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/moe-whole
// RUN: latch-interp %t.d/moe-split.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/moe-split
// RUN: python3 -c "import filecmp, os, sys; d = sys.argv[1]; \
// RUN:   pairs = [(d + '/whole-' + c, d + '/split-' + c) for c in ('causal', 'cross', 'tc')] + [(d + '/moe-whole', d + '/moe-split')]; \
// RUN:   names = [(a, b, n) for a, b in pairs for n in sorted(os.listdir(a))]; \
// RUN:   bad = [b + '/' + n for a, b, n in names if not filecmp.cmp(a + '/' + n, b + '/' + n, shallow=False)]; \
// RUN:   print('identical', len(names), 'results' if not bad else bad)" %t.d | FileCheck %s --check-prefix=SAME
// SAME: identical 46 results

// Each attention_grad becomes the statistics (q, k, o, do -> [B, H, Tq, 2] f32) and the products (q, k,
// v, do, stats); causal, scale and the other attributes (task.phase) go to both; the uses follow.
// CHECK-LABEL: func.func @causal(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x40x16xf32>, %[[K:[^:]*]]: tensor<1x2x40x16xf32>, %[[V:[^:]*]]: tensor<1x2x40x16xf32>, %[[O:[^:]*]]: tensor<1x2x40x16xf32>, %[[DO:[^:]*]]: tensor<1x2x40x16xf32>)
// CHECK-NEXT: %[[S:.*]] = "task.attention_stats"(%[[Q]], %[[K]], %[[O]], %[[DO]]) {causal = true, scale = 2.500000e-01 : f64, task.phase = "backward"} : {{.*}} -> tensor<1x2x40x2xf32>
// CHECK-NEXT: %[[G:.*]]:3 = "task.attention_grad_from_stats"(%[[Q]], %[[K]], %[[V]], %[[DO]], %[[S]]) {causal = true, scale = 2.500000e-01 : f64, task.phase = "backward"}
// CHECK-NOT: task.attention_grad"
// CHECK: return %[[G]]#0, %[[G]]#1, %[[G]]#2
func.func @causal(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %o: tensor<1x2x40x16xf32>, %do: tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64, task.phase = "backward"} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
  return %dq, %dk, %dv : tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>
}

// -----

// Not causal, more keys than queries and a narrower v: stats follow the queries.
// CHECK-LABEL: func.func @cross(
// CHECK: "task.attention_stats"({{.*}}) {causal = false, scale = 5.000000e-01 : f64} : {{.*}} -> tensor<2x1x7x2xf32>
// CHECK: "task.attention_grad_from_stats"({{.*}}) {causal = false, scale = 5.000000e-01 : f64} : (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>, tensor<2x1x7x4xf32>, tensor<2x1x7x2xf32>) -> (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>)
func.func @cross(%q: tensor<2x1x7x8xf32>, %k: tensor<2x1x11x8xf32>, %v: tensor<2x1x11x4xf32>, %o: tensor<2x1x7x4xf32>, %do: tensor<2x1x7x4xf32>) -> (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = false, scale = 0.5 : f64} : (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>, tensor<2x1x7x4xf32>, tensor<2x1x7x4xf32>) -> (tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>)
  return %dq, %dk, %dv : tensor<2x1x7x8xf32>, tensor<2x1x11x8xf32>, tensor<2x1x11x4xf32>
}

// -----

// Heads wider than 256 stay whole (the warp-per-row templates hold a row in 8 registers per lane).
// CHECK-LABEL: func.func @wide(
// CHECK-NOT: task.attention_stats
// CHECK: "task.attention_grad"
func.func @wide(%q: tensor<1x1x4x288xf32>, %o: tensor<1x1x4x288xf32>) -> (tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %q, %q, %o, %o) {causal = true, scale = 0.5 : f64} : (tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>) -> (tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>)
  return %dq, %dk, %dv : tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>, tensor<1x1x4x288xf32>
}

// The training update of a one-layer TinyMoE: its one attention gradient is split, in the backward phase,
// and its forward writes lse for the statistics.
// MOE-LABEL: func.func @tinymoe_update(
// MOE: %[[F:.*]]:2 = "task.attention_lse"({{.*}}) {causal = true, scale = 2.500000e-01 : f64} : {{.*}} -> (tensor<2x2x8x16xbf16>, tensor<2x2x8xf32>)
// MOE-NOT: "task.attention"(
// MOE: "task.attention_stats_from_lse"(%[[F]]#0, %{{.*}}, %[[F]]#1) {task.phase = "backward"}
// MOE-NEXT: "task.attention_grad_from_stats"
// MOE-NOT: "task.attention_grad"

// -----

// On tensor cores (bf16 q, k, v; heads of 16, 64 queries and keys) with an f32 do, the products read do
// through a task.convert to bf16 (their mma operands); the statistics keep the f32 do for D. Not with
// convert-do=false.
// CHECK-LABEL: func.func @tensor_cores(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x1x64x16xbf16>, %[[K:[^:]*]]: tensor<1x1x64x16xbf16>, %[[V:[^:]*]]: tensor<1x1x64x16xbf16>, %[[O:[^:]*]]: tensor<1x1x64x16xbf16>, %[[DO:[^:]*]]: tensor<1x1x64x16xf32>)
// CHECK-NEXT: %[[D16:.*]] = "task.convert"(%[[DO]]) {task.phase = "backward"} : (tensor<1x1x64x16xf32>) -> tensor<1x1x64x16xbf16>
// CHECK-NEXT: %[[S:.*]] = "task.attention_stats"(%[[Q]], %[[K]], %[[O]], %[[DO]])
// CHECK-NEXT: "task.attention_grad_from_stats"(%[[Q]], %[[K]], %[[V]], %[[D16]], %[[S]])
// KEEP-DO-LABEL: func.func @tensor_cores(
// KEEP-DO-NOT: task.convert
// KEEP-DO: "task.attention_grad_from_stats"(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %arg4, %{{[^)]*}})
func.func @tensor_cores(%q: tensor<1x1x64x16xbf16>, %k: tensor<1x1x64x16xbf16>, %v: tensor<1x1x64x16xbf16>, %o: tensor<1x1x64x16xbf16>, %do: tensor<1x1x64x16xf32>) -> (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64, task.phase = "backward"} : (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xf32>) -> (tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>)
  return %dq, %dk, %dv : tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>, tensor<1x1x64x16xbf16>
}

// -----

// The forward of o (same q, k, v, causal and scale) becomes task.attention_lse and the statistics read
// its lse; its other readers keep o. Not with forward-lse=false.
// CHECK-LABEL: func.func @with_forward(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x40x16xf32>, %[[K:[^:]*]]: tensor<1x2x40x16xf32>, %[[V:[^:]*]]: tensor<1x2x40x16xf32>, %[[DO:[^:]*]]: tensor<1x2x40x16xf32>)
// CHECK-NEXT: %[[F:.*]]:2 = "task.attention_lse"(%[[Q]], %[[K]], %[[V]]) {causal = true, scale = 2.500000e-01 : f64, task.phase = "forward"} : {{.*}} -> (tensor<1x2x40x16xf32>, tensor<1x2x40xf32>)
// CHECK-NEXT: %[[S:.*]] = "task.attention_stats_from_lse"(%[[F]]#0, %[[DO]], %[[F]]#1) {task.phase = "backward"} : {{.*}} -> tensor<1x2x40x2xf32>
// CHECK-NEXT: %[[G:.*]]:3 = "task.attention_grad_from_stats"(%[[Q]], %[[K]], %[[V]], %[[DO]], %[[S]])
// CHECK: return %[[F]]#0, %[[G]]#0
// RECOMPUTE-LABEL: func.func @with_forward(
// RECOMPUTE: %[[O:.*]] = "task.attention"(
// RECOMPUTE-NEXT: "task.attention_stats"(%{{[^,]*}}, %{{[^,]*}}, %[[O]], %{{[^)]*}})
func.func @with_forward(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %do: tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.25 : f64, task.phase = "forward"} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> tensor<1x2x40x16xf32>
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64, task.phase = "backward"} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
  return %o, %dq : tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>
}

// -----

// A forward of another scale (or other operands) is not o's softmax: the statistics recompute L.
// CHECK-LABEL: func.func @other_scale(
// CHECK: "task.attention"(
// CHECK: "task.attention_stats"(
func.func @other_scale(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %do: tensor<1x2x40x16xf32>) -> tensor<1x2x40x16xf32> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.5 : f64} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> tensor<1x2x40x16xf32>
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 0.25 : f64} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
  return %dq : tensor<1x2x40x16xf32>
}
