// Without rules the pass changes nothing (it is opt-in), with or without an explicit empty list.
// RUN: latch-opt %s --split-input-file -o %t.plain
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules)' -o %t.none
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules{recompute= min-bytes=8 absorbed=true})' -o %t.empty
// RUN: diff %t.plain %t.none
// RUN: diff %t.plain %t.empty

// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules{recompute=norm,topk},latch-verify)' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules{recompute=norm min-bytes=256},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=MIN
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules{recompute=cheap},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=CHAIN
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules{recompute=norm absorbed=true},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=ABS
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-memory-rules{recompute=swiglu},latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=SWIGLU

// Bad options: one error each, naming the culprit.
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-memory-rules{recompute=norm,bogus})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-UNKNOWN
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-memory-rules{recompute=adamw})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-ADAMW
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-memory-rules{recompute=norm,,swiglu})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-EMPTY
// RUN: not latch-opt %s --pass-pipeline='builtin.module(latch-memory-rules{recompute=norm min-bytes=-1})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-BYTES

// The TinyMoE update: with norm,swiglu the three RMSNorm outputs and the SwiGLU product are
// recomputed (two of the norms and the product through the bf16 copy the backward matmuls read: 4 +
// 3 = 7 values), in @tinymoe_grad and @tinymoe_update alike; the result passes latch-verify, and the
// fp64 interpreter gives bitwise the same update with and without the rules (shared and absorbed, and
// with every forward kind the rules can name).
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: latch-gen tinymoe --layers 1 --d-model 64 --heads 4 --experts 4 --ffn 128 --vocab 256 --batch 2 --seq 16 -o %t.d/moe.mlir
// RUN: latch-opt %t.d/moe.mlir --pass-pipeline='builtin.module(latch-train)' -o %t.d/base.mlir
// RUN: latch-opt %t.d/moe.mlir -o %t.d/rules.mlir \
// RUN:   --pass-pipeline='builtin.module(latch-train,latch-memory-rules{recompute=norm,swiglu},latch-verify)'
// RUN: latch-opt %t.d/moe.mlir -o %t.d/absorbed.mlir \
// RUN:   --pass-pipeline='builtin.module(latch-train,latch-memory-rules{recompute=norm,swiglu absorbed=true},latch-verify)'
// RUN: latch-opt %t.d/moe.mlir -o %t.d/all.mlir --pass-pipeline='builtin.module(latch-train,latch-memory-rules{recompute=cheap,norm,softmax,rope,attention,gather_rows,embedding,matmul,topk absorbed=true},latch-verify)'
// RUN: FileCheck %s --check-prefix=MOE < %t.d/rules.mlir
// RUN: FileCheck %s --check-prefix=MOE-ABS < %t.d/absorbed.mlir
// RUN: latch-interp %t.d/base.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/base
// RUN: latch-interp %t.d/rules.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/rules
// RUN: latch-interp %t.d/absorbed.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/absorbed
// RUN: latch-interp %t.d/all.mlir --entry tinymoe_update --init 1 --random-inputs 2 --output-dir %t.d/all
// RUN: python3 -c "import filecmp, os, sys; d = sys.argv[1]; names = sorted(os.listdir(d + '/base')); \
// RUN:   bad = [n + ' in ' + v for v in sys.argv[2:] for n in names if not filecmp.cmp(d + '/base/' + n, d + '/' + v + '/' + n, shallow=False)]; \
// RUN:   print('identical', len(names), 'results' if not bad and len(names) == 37 else bad)" %t.d rules absorbed all \
// RUN:   | FileCheck %s --check-prefix=SAME
// SAME: identical 37 results

// MOE-LABEL: func.func @tinymoe_grad(
// MOE-SAME: task.recomputed = 7 : i64
// MOE-LABEL: func.func @tinymoe_update(
// MOE-SAME: task.recomputed = 7 : i64
// MOE: %[[N0:.*]] = "task.rmsnorm"(%[[X0:.*]], %[[W0:[^)]*]]) {eps = 1.000000e-05 : f64} :
// MOE-NEXT: %[[C0:.*]] = "task.convert"(%[[N0]]) :
// MOE: %[[N1:.*]] = "task.rmsnorm"(%[[X1:.*]], %[[W1:[^)]*]]) {eps = 1.000000e-05 : f64} :
// MOE: %[[N2:.*]] = "task.rmsnorm"(%[[X2:.*]], %[[W2:[^)]*]]) {eps = 1.000000e-05 : f64} :
// MOE-NEXT: %[[C2:.*]] = "task.convert"(%[[N2]]) :
// The last norm first: its bf16 copy feeds the lm-head weight gradient.
// MOE: "task.cross_entropy_grad"
// MOE: %[[R2:.*]] = "task.rmsnorm"(%[[X2]], %[[W2]]) {eps = 1.000000e-05 : f64, task.phase = "recompute"}
// MOE-NEXT: %[[RC2:.*]] = "task.convert"(%[[R2]]) {task.phase = "recompute"}
// MOE-NEXT: "task.matmul"(%[[RC2]], %{{.*}}) {task.phase = "backward", transpose_a = true
// The SwiGLU product, for the w2 weight gradient.
// MOE: "task.map"
// MOE: task.phase = "recompute"
// MOE-NEXT: %[[RS:.*]] = "task.convert"(%{{.*}}) {task.phase = "recompute"} : (tensor<64x128xf32>) -> tensor<64x128xbf16>
// MOE-NEXT: "task.grouped_matmul_weight_grad"(%[[RS]],
// The router norm, for the router weight gradient.
// MOE: %[[R1:.*]] = "task.rmsnorm"(%[[X1]], %[[W1]]) {eps = 1.000000e-05 : f64, task.phase = "recompute"}
// MOE-NEXT: "task.matmul"(%[[R1]], %{{.*}}) {task.phase = "backward", transpose_a = true
// The attention norm, whose copy feeds three weight gradients: one recomputation serves all three.
// MOE: %[[R0:.*]] = "task.rmsnorm"(%[[X0]], %[[W0]]) {eps = 1.000000e-05 : f64, task.phase = "recompute"}
// MOE-NEXT: %[[RC0:.*]] = "task.convert"(%[[R0]]) {task.phase = "recompute"}
// MOE-NEXT: "task.matmul"(%[[RC0]], %{{.*}}) {task.phase = "backward", transpose_a = true
// MOE-NOT: %[[C0]]{{[,)]}}
// MOE-NOT: %[[C2]]{{[,)]}}
// MOE: "task.matmul"(%[[RC0]], %{{.*}}) {task.phase = "backward", transpose_a = true
// MOE-NOT: %[[C0]]{{[,)]}}
// MOE: "task.matmul"(%[[RC0]], %{{.*}}) {task.phase = "backward", transpose_a = true
// MOE-NOT: "recompute"
// MOE: "task.adamw"

// Absorbed: the attention norm's copy gets one recomputation per reader (3 x 2 ops), the others one
// each (2 + 2 + 1): 11 prologues per program, still 7 values.
// MOE-ABS-LABEL: func.func @tinymoe_grad(
// MOE-ABS-SAME: task.recomputed = 7 : i64
// MOE-ABS-COUNT-11: task.fused = "prologue"
// MOE-ABS-NOT: task.fused = "prologue"
// MOE-ABS-LABEL: func.func @tinymoe_update(
// MOE-ABS-SAME: task.recomputed = 7 : i64
// MOE-ABS-COUNT-11: task.fused = "prologue"
// MOE-ABS-NOT: task.fused = "prologue"
// MOE-ABS: return

// ERR-UNKNOWN: error: latch-memory-rules: unknown rule 'bogus' in 'recompute' (a task op kind such as rmsnorm, or one of the groups norm, swiglu, cheap)
// ERR-UNKNOWN-NOT: error:
// ERR-ADAMW: error: latch-memory-rules: rule 'adamw' is not allowed: the optimizer step is never recomputed
// ERR-ADAMW-NOT: error:
// ERR-EMPTY: error: latch-memory-rules: empty rule name in 'recompute' (rules are separated by single commas)
// ERR-EMPTY-NOT: error:
// ERR-BYTES: error: latch-memory-rules: option 'min-bytes' must be >= 0
// ERR-BYTES-NOT: error:

// The norm output a backward matmul reads is recomputed right before that matmul (after the earlier
// backward task), from the same operands; the backward reads the copy, the forward keeps the original.
// CHECK-LABEL: func.func @norm(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8xf32>
// CHECK-SAME: task.recomputed = 1 : i64
// CHECK: %[[N:.*]] = "task.rmsnorm"(%[[X]], %[[W]]) {eps = 1.000000e-05 : f64} :
// CHECK-NEXT: %[[H:.*]] = "task.matmul"(%[[N]], %{{.*}}) {transpose_a = false, transpose_b = false}
// CHECK-NEXT: %[[DX:.*]]:2 = "task.rmsnorm_grad"(%[[X]], %[[W]], %{{.*}}) {{.*}}task.phase = "backward"
// CHECK-NEXT: %[[R:.*]] = "task.rmsnorm"(%[[X]], %[[W]]) {eps = 1.000000e-05 : f64, task.phase = "recompute"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DM:.*]] = "task.matmul"(%[[R]], %{{.*}}) {task.phase = "backward", transpose_a = true, transpose_b = false}
// CHECK-NEXT: return %[[H]], %[[DM]], %[[DX]]#0
// MIN-LABEL: func.func @norm(
// MIN-SAME: task.recomputed = 0 : i64
// MIN-NOT: "recompute"
// MIN: return
// ABS-LABEL: func.func @norm(
// ABS-SAME: task.recomputed = 1 : i64
// ABS: "task.rmsnorm"({{.*}}) {eps = 1.000000e-05 : f64, task.fused = "prologue", task.phase = "recompute"}
// ABS-NEXT: "task.matmul"
func.func @norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %m: tensor<8x8xf32>, %dh: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) {
  %n = "task.rmsnorm"(%x, %w) {eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %h = "task.matmul"(%n, %m) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %dx:2 = "task.rmsnorm_grad"(%x, %w, %dh) {eps = 1.0e-05 : f64, task.phase = "backward"}
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  %dm = "task.matmul"(%n, %dh) {task.phase = "backward", transpose_a = true, transpose_b = false}
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %h, %dm, %dx#0 : tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>
}

// -----

// min-bytes: the 128-byte norm output is kept, the 512-byte one recomputed.
// CHECK-LABEL: func.func @sizes(
// CHECK-SAME: task.recomputed = 2 : i64
// MIN-LABEL: func.func @sizes(
// MIN-SAME: task.recomputed = 1 : i64
// MIN: %[[SMALL:.*]] = "task.rmsnorm"({{.*}}) -> tensor<4x8xf32>
// MIN: %[[BIG:.*]] = "task.rmsnorm"({{.*}}) -> tensor<16x8xf32>
// MIN: "task.matmul"(%[[SMALL]], %{{.*}}) {task.phase = "backward"
// MIN-NEXT: %[[R:.*]] = "task.rmsnorm"({{.*}}task.phase = "recompute"{{.*}} -> tensor<16x8xf32>
// MIN-NEXT: "task.matmul"(%[[R]], %{{.*}}) {task.phase = "backward"
func.func @sizes(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %w: tensor<8xf32>, %da: tensor<4x8xf32>, %db: tensor<16x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %sa = "task.rmsnorm"(%a, %w) {eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %sb = "task.rmsnorm"(%b, %w) {eps = 1.0e-05 : f64} : (tensor<16x8xf32>, tensor<8xf32>) -> tensor<16x8xf32>
  %ga = "task.matmul"(%sa, %da) {task.phase = "backward", transpose_a = true, transpose_b = false}
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %gb = "task.matmul"(%sb, %db) {task.phase = "backward", transpose_a = true, transpose_b = false}
      : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %ga, %gb : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A convert (or reshape, transpose) of a norm output counts as a norm output: the bf16 copy that the
// backward matmuls read is recomputed with the norm it copies (a chain: 2 values), once, before the
// first reader. A convert of a matmul result does not match `norm`. Absorbed: each reader gets its own
// norm and convert, marked as prologues.
// CHECK-LABEL: func.func @copy(
// CHECK-SAME: task.recomputed = 2 : i64
// CHECK: %[[N:.*]] = "task.rmsnorm"
// CHECK-NEXT: %[[C:.*]] = "task.convert"(%[[N]])
// CHECK-NEXT: %[[P:.*]] = "task.matmul"(%[[C]],
// CHECK-NEXT: %[[PC:.*]] = "task.convert"(%[[P]])
// CHECK-NEXT: %[[R:.*]] = "task.rmsnorm"({{.*}}) {eps = 1.000000e-05 : f64, task.phase = "recompute"}
// CHECK-NEXT: %[[RC:.*]] = "task.convert"(%[[R]]) {task.phase = "recompute"}
// CHECK-NEXT: "task.matmul"(%[[RC]], %{{.*}}) {task.phase = "backward"
// CHECK-NEXT: "task.matmul"(%[[RC]], %[[PC]]) {task.phase = "backward"
// CHECK-NEXT: return
// ABS-LABEL: func.func @copy(
// ABS-SAME: task.recomputed = 2 : i64
// ABS: %[[P:.*]] = "task.matmul"
// ABS-NEXT: %[[PC:.*]] = "task.convert"(%[[P]]) :
// ABS-NEXT: %[[R1:.*]] = "task.rmsnorm"({{.*}}) {eps = 1.000000e-05 : f64, task.fused = "prologue", task.phase = "recompute"}
// ABS-NEXT: %[[C1:.*]] = "task.convert"(%[[R1]]) {task.fused = "prologue", task.phase = "recompute"}
// ABS-NEXT: "task.matmul"(%[[C1]], %{{.*}}) {task.phase = "backward"
// ABS-NEXT: %[[R2:.*]] = "task.rmsnorm"({{.*}}) {eps = 1.000000e-05 : f64, task.fused = "prologue", task.phase = "recompute"}
// ABS-NEXT: %[[C2:.*]] = "task.convert"(%[[R2]]) {task.fused = "prologue", task.phase = "recompute"}
// ABS-NEXT: "task.matmul"(%[[C2]], %[[PC]]) {task.phase = "backward"
// ABS-NEXT: return
func.func @copy(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %m: tensor<8x8xbf16>, %dh: tensor<4x8xbf16>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %n = "task.rmsnorm"(%x, %w) {eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %c = "task.convert"(%n) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %p = "task.matmul"(%c, %m) {transpose_a = false, transpose_b = false} : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xf32>
  %pc = "task.convert"(%p) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %g1 = "task.matmul"(%c, %dh) {task.phase = "backward", transpose_a = true, transpose_b = false}
      : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<8x8xf32>
  %g2 = "task.matmul"(%c, %pc) {task.phase = "backward", transpose_a = true, transpose_b = false}
      : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<8x8xf32>
  return %g1, %g2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Chains under `cheap`: the backward reads the transpose %t (first) and the map %s of it (later). %t is
// recomputed once, before its first backward reader, and the copy of %s reads that copy; the matmul %p
// that %t transposes is not cheap, so both copies start from it.
// CHAIN-LABEL: func.func @chain(
// CHAIN-SAME: task.recomputed = 2 : i64
// CHAIN: %[[P:.*]] = "task.matmul"
// CHAIN-NEXT: %[[T:.*]] = "task.transpose"(%[[P]])
// CHAIN-NEXT: %[[S:.*]] = "task.map"(%[[T]])
// CHAIN: %[[T2:.*]] = "task.transpose"(%[[P]]) {perm = array<i64: 1, 0>, task.phase = "recompute"}
// CHAIN-NEXT: %[[B1:.*]] = "task.map"(%[[T2]], %{{.*}})
// CHAIN: task.phase = "backward"
// CHAIN-NEXT: %[[S2:.*]] = "task.map"(%[[T2]])
// CHAIN: task.phase = "recompute"
// CHAIN-NEXT: "task.map"(%[[S2]], %[[B1]])
// CHAIN: task.phase = "backward"
// CHAIN-NEXT: return
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: task.recomputed = 0 : i64
func.func @chain(%x: tensor<4x8xf32>, %m: tensor<8x8xf32>, %d: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %p = "task.matmul"(%x, %m) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = "task.transpose"(%p) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = "task.map"(%t) ({
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}
      : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %b1 = "task.map"(%t, %d) ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, task.phase = "backward"}
      : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %b2 = "task.map"(%s, %b1) ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, task.phase = "backward"}
      : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %b2 : tensor<8x4xf32>
}

// -----

// A task of several results is recomputed once; each of its results that the backward reads counts.
// CHECK-LABEL: func.func @topk(
// CHECK-SAME: task.recomputed = 2 : i64
// CHECK: %[[V:.*]]:2 = "task.topk"(%{{.*}}) {k = 2 : i64} :
// CHECK-NEXT: "task.reduce"(%[[V]]#0)
// CHECK-NEXT: %[[R:.*]]:2 = "task.topk"(%{{.*}}) {k = 2 : i64, task.phase = "recompute"}
// CHECK-NEXT: "task.topk_grad"(%[[R]]#0, %[[R]]#1) {columns = 8 : i64, task.phase = "backward"}
func.func @topk(%x: tensor<16x8xf32>) -> (tensor<16xf32>, tensor<16x8xf32>) {
  %v:2 = "task.topk"(%x) {k = 2} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  %s = "task.reduce"(%v#0) {axis = 1, kind = "sum"} : (tensor<16x2xf32>) -> tensor<16xf32>
  %g = "task.topk_grad"(%v#0, %v#1) {columns = 8, task.phase = "backward"} : (tensor<16x2xf32>, tensor<16x2xi32>) -> tensor<16x8xf32>
  return %s, %g : tensor<16xf32>, tensor<16x8xf32>
}

// -----

// Never recomputed: a task that reads an optimizer result (here a norm of the updated weights, read by
// a backward task). A program without backward tasks is left alone (no task.recomputed).
// CHECK-LABEL: func.func @after_optimizer(
// CHECK-SAME: task.recomputed = 0 : i64
// CHECK-NOT: "recompute"
// CHECK: return
// CHECK-LABEL: func.func @forward_only(
// CHECK-NOT: task.recomputed
// CHECK: return
func.func @after_optimizer(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %mo: tensor<4x8xf32>, %v: tensor<4x8xf32>,
                           %step: tensor<f32>, %w: tensor<8xf32>, %dh: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %u:3 = "task.adamw"(%p, %g, %mo, %v, %step) {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64,
      lr = 1.0e-03 : f64, task.phase = "optimizer", weight_decay = 0.0 : f64}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  %n = "task.rmsnorm"(%u#0, %w) {eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %dm = "task.matmul"(%n, %dh) {task.phase = "backward", transpose_a = true, transpose_b = false}
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %dm : tensor<8x8xf32>
}
func.func @forward_only(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %n = "task.rmsnorm"(%x, %w) {eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// `swiglu` matches silu(a) * b as latch_s_silu builds it (a / (1 + exp(-a))) and in its sigmoid form
// (a * (1 / (exp(-a) + 1)), constant from above, operands swapped), but not other maps with exp or
// divf: a quotient of two inputs, silu(a) * a, or silu(a) * b with a broadcast b.
// SWIGLU-LABEL: func.func @swiglu(
// SWIGLU-SAME: task.recomputed = 2 : i64
// SWIGLU: %[[G1:.*]] = "task.map"(%[[A:[^,]*]], %[[B:[^)]*]])
// SWIGLU: %[[G2:.*]] = "task.map"(%[[B]], %[[A]])
// SWIGLU: %[[Q:.*]] = "task.map"(%[[A]], %[[B]])
// SWIGLU: %[[SQ:.*]] = "task.map"(%[[A]])
// SWIGLU: %[[BC:.*]] = "task.map"(%[[A]], %{{.*}})
// SWIGLU: %[[R1:.*]] = "task.map"(%[[A]], %[[B]])
// SWIGLU: task.phase = "recompute"
// SWIGLU-NEXT: %[[R2:.*]] = "task.map"(%[[B]], %[[A]])
// SWIGLU: task.phase = "recompute"
// SWIGLU-NEXT: "task.map"(%[[R1]], %[[R2]], %[[Q]], %[[SQ]], %[[BC]])
// SWIGLU: task.phase = "backward"
// SWIGLU-NEXT: return
func.func @swiglu(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %k: tensor<f32>) -> tensor<4x8xf32> {
  %one = arith.constant 1.0 : f32
  %g1 = "task.map"(%a, %b) ({
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %c1 = arith.constant 1.0 : f32
    %d = arith.addf %c1, %e : f32
    %s = arith.divf %x, %d : f32
    %r = arith.mulf %s, %y : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %g2 = "task.map"(%b, %a) ({
  ^bb0(%y: f32, %x: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sg = arith.divf %one, %d : f32
    %s = arith.mulf %sg, %x : f32
    %r = arith.mulf %y, %s : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = "task.map"(%a, %b) ({
  ^bb0(%x: f32, %y: f32):
    %r = arith.divf %x, %y : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %sq = "task.map"(%a) ({
  ^bb0(%x: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %r = arith.mulf %s, %x : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}
      : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %bc = "task.map"(%a, %k) ({
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %r = arith.mulf %s, %y : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}
      : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %sum = "task.map"(%g1, %g2, %q, %sq, %bc) ({
  ^bb0(%x1: f32, %x2: f32, %x3: f32, %x4: f32, %x5: f32):
    %s1 = arith.addf %x1, %x2 : f32
    %s2 = arith.addf %s1, %x3 : f32
    %s3 = arith.addf %s2, %x4 : f32
    %s4 = arith.addf %s3, %x5 : f32
    gpu.yield %s4 : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, task.phase = "backward"}
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %sum : tensor<4x8xf32>
}
