// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases{order=false},latch-verify)' 2>%t.err \
// RUN:   | FileCheck %s
// RUN: FileCheck %s -DFILE=%s --check-prefix=ERR --implicit-check-not=error: < %t.err
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases{merge=false order=false},latch-verify)' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=KEEP
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases{fuse-maps=false absorb=false order=false},latch-verify)' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=MERGE-ONLY
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases{balance=false order=false},latch-verify)' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=ASAP
// RUN: not latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-form-intervals,latch-fuse-phases,latch-verify)' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=ORDER
// RUN: latch-gen tinymoe --layers 1 --d-model 64 --heads 4 --experts 4 --ffn 128 --vocab 256 --batch 2 --seq 16 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases,latch-verify)' \
// RUN:   | FileCheck %s --check-prefix=MOE
// RUN: latch-gen tinymoe --layers 1 --d-model 64 --heads 4 --experts 4 --ffn 128 --vocab 256 --batch 2 --seq 16 \
// RUN:   | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases,latch-fuse-phases)' \
// RUN:   | FileCheck %s --check-prefix=MOE-TWICE
// RUN: latch-gen tinymoe | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases)' \
// RUN:   | FileCheck %s --check-prefix=MOE-DEFAULT
// RUN: latch-gen tinymoe --batch 32 | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases)' \
// RUN:   | FileCheck %s --check-prefix=MOE-DEFAULT
// RUN: latch-gen tinymoe | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases)' \
// RUN:   | FileCheck %s --check-prefix=PLACE
// RUN: latch-gen tinymoe | latch-opt --pass-pipeline='builtin.module(latch-train,latch-form-intervals,latch-fuse-phases{place-optimizer=false})' \
// RUN:   | FileCheck %s --check-prefix=NOPLACE
// latch-fuse-phases makes the intervals of an interval.program fewer and fuller with the same results:
// map/convert chains become one map (fuse-maps), elementwise work next to a matmul or norm runs inside
// its tiles (absorb: task.fused), and every task moves to the earliest interval after its producers'
// (merge). Programs come from func.funcs through latch-form-intervals (one interval per task); the
// counts before and after are recorded on the program. Every output below also passes latch-verify,
// and the pass itself checks that no task lands in an interval at or before one of its producers'.

// TinyMoE updates (latch-train): the small one and the default 2x1024 and 32x1024 (the same graph;
// only the tile counts differ).
// MOE: "interval.program"
// MOE: task.fused = "epilogue"
// MOE: interval.intervals_after = 54 : i64, interval.intervals_before = 154 : i64, sym_name = "tinymoe_update"
// MOE-DEFAULT: interval.intervals_after = 177 : i64, interval.intervals_before = 579 : i64, sym_name = "tinymoe_update"
// place-optimizer: an AdamW step goes to the interval that its tiles lengthen least, from its merged one on:
// the last layer's expert weights' (4096 tiles), merged beside their gradient's maps, run beside the
// layer's attention gradient, whose 512 tiles leave CTAs idle at the end; the update keeps its intervals.
// PLACE: "interval.interval"() {name = "i104.attention_grad+2"}
// PLACE-NOT: "interval.barrier"
// PLACE: "task.adamw"({{.*}}tiles = 4096 : i64
// PLACE: interval.intervals_after = 177 : i64
// Without it the step stays where merge put it, beside its gradient's maps and the norm's gradient.
// NOPLACE: "interval.interval"() {name = "i100.rmsnorm_grad+3"}
// NOPLACE-NOT: "interval.barrier"
// NOPLACE: "task.adamw"({{.*}}tiles = 4096 : i64
// A second run finds nothing more to do (its task.fused marks are found again).
// MOE-TWICE: interval.intervals_after = 54 : i64, interval.intervals_before = 54 : i64, sym_name = "tinymoe_update"

// A chain of three maps becomes one map whose body runs the three bodies in order; its inputs are the
// consumer's, each use of a producer replaced in place by the producer's inputs: (x, s) then y. Three
// intervals become one.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<8x16xf32>, %[[Y:[^:]+]]: tensor<8x16xf32>, %[[S:[^:]+]]: tensor<f32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.map"} : () -> ()
// CHECK-NEXT: %[[R:.*]] = "task.map"(%[[X]], %[[S]], %[[Y]]) ({
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: f32, %[[SA:[^:]+]]: f32, %[[YA:[^:]+]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[XA]], %[[SA]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[M]], %[[YA]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[A]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT: gpu.yield %[[E]] : f32
// CHECK-NEXT: }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, tiles = 1 : i64}
// CHECK-NEXT: gpu.yield %[[R]] : tensor<8x16xf32>
// CHECK-NEXT: }) {function_type = {{.*}}, interval.intervals_after = 1 : i64, interval.intervals_before = 3 : i64, sym_name = "chain"}
// KEEP-LABEL: "interval.program"() ({
// KEEP: "interval.interval"() {name = "i0.map"}
// KEEP-NEXT: "task.map"
// KEEP: interval.intervals_after = 1 : i64, interval.intervals_before = 3 : i64, sym_name = "chain"
// Without fusion the chain keeps its three intervals.
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: interval.intervals_after = 3 : i64, interval.intervals_before = 3 : i64, sym_name = "chain"
func.func @chain(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %s: tensor<f32>) -> tensor<8x16xf32> {
  %a = "task.map"(%x, %s) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.mulf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %b = "task.map"(%a, %y) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.addf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = "task.map"(%b) ({
  ^bb0(%u: f32):
    %n = arith.negf %u : f32
    %r = math.exp %n : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// A producer convert and a consumer convert both end up in one map body. Converts fold into the body
// as task.convert computes them: f32 -> bf16 is arith.truncf, bf16 -> f32 arith.extf, i32 -> f32
// arith.sitofp, f32 -> i32 arith.fptosi (the interpreter rounds and saturates exactly as task.convert).
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<8x16xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: %[[R:.*]] = "task.map"(%[[X]]) ({
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: f32):
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[XA]] : f32 to bf16
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[H]] : bf16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[W]], %[[W]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: gpu.yield %[[T]] : bf16
// CHECK-NEXT: }) {{{.*}}tiles = 1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xbf16>
// CHECK-NEXT: gpu.yield %[[R]] : tensor<8x16xbf16>
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 1 : i64, interval.intervals_before = 3 : i64, sym_name = "converts"}
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: interval.intervals_after = 3 : i64, interval.intervals_before = 3 : i64, sym_name = "converts"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "converts"
func.func @converts(%x: tensor<8x16xf32>) -> tensor<8x16xbf16> {
  %h = "task.convert"(%x) : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  %m = "task.map"(%h) ({
  ^bb0(%u: bf16):
    %w = arith.extf %u : bf16 to f32
    %r = arith.mulf %w, %w : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x16xbf16>) -> tensor<8x16xf32>
  %t = "task.convert"(%m) : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  return %t : tensor<8x16xbf16>
}
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[IDS:[^:]+]]: tensor<32xi32>, %[[S:[^:]+]]: tensor<f32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: %[[R:.*]] = "task.map"(%[[IDS]], %[[S]]) ({
// CHECK-NEXT: ^bb0(%[[IA:[^:]+]]: i32, %[[SA:[^:]+]]: f32):
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[IA]] : i32 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[F]], %[[SA]] : f32
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[M]] : f32 to i32
// CHECK-NEXT: gpu.yield %[[I]] : i32
// CHECK-NEXT: }) {{{.*}}} : (tensor<32xi32>, tensor<f32>) -> tensor<32xi32>
// CHECK-NEXT: gpu.yield %[[R]]
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 1 : i64, interval.intervals_before = 3 : i64, sym_name = "convert_ints"}
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "convert_ints"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "convert_ints"
func.func @convert_ints(%ids: tensor<32xi32>, %s: tensor<f32>) -> tensor<32xi32> {
  %f = "task.convert"(%ids) : (tensor<32xi32>) -> tensor<32xf32>
  %m = "task.map"(%f, %s) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.mulf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<32xf32>, tensor<f32>) -> tensor<32xf32>
  %i = "task.convert"(%m) : (tensor<32xf32>) -> tensor<32xi32>
  return %i : tensor<32xi32>
}

// -----

// A producer used by two maps is recomputed in each (only the ops each needs); a producer with a
// user that is not elementwise, or whose result is a program result, stays. (balance then moves the
// maps that read only arguments to the last interval: their results are the program's.)
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: %[[Q:.*]] = "task.map"(%[[Y]]) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: })
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: "interval.interval"() {name = "i1.map+3"}
// CHECK-NEXT: %[[A:.*]] = "task.map"(%[[X]], %[[Y]]) ({
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: f32, %[[YA:[^:]+]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[XA]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[E]], %[[YA]] : f32
// CHECK-NEXT: gpu.yield %[[S]] : f32
// CHECK-NEXT: })
// CHECK-NEXT: %[[B:.*]] = "task.map"(%[[X]]) ({
// CHECK-NEXT: ^bb0(%[[XB:[^:]+]]: f32):
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[XB]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[N]], %[[N]] : f32
// CHECK-NEXT: gpu.yield %[[P]] : f32
// CHECK-NEXT: })
// CHECK-NEXT: %[[SM:.*]] = "task.softmax"(%[[Q]])
// CHECK-NEXT: %[[C:.*]] = "task.map"(%[[Q]]) ({
// CHECK: gpu.yield %[[A]], %[[B]], %[[SM]], %[[C]] :
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 2 : i64, interval.intervals_before = 6 : i64, sym_name = "users"}
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "users"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "users"
func.func @users(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p:2 = "task.map"(%x) ({
  ^bb0(%u: f32):
    %e = math.exp %u : f32
    %n = arith.negf %u : f32
    gpu.yield %e, %n : f32, f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %a = "task.map"(%p#0, %y) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.addf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = "task.map"(%p#1) ({
  ^bb0(%u: f32):
    %r = arith.mulf %u, %u : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = "task.map"(%y) ({
  ^bb0(%u: f32):
    %r = math.tanh %u : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %sm = "task.softmax"(%q) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = "task.map"(%q) ({
  ^bb0(%u: f32):
    %r = arith.negf %u : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %sm, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// At most 12 inputs: 11 + the producer's 2 - the producer's result = 12 fuses, one more does not.
// CHECK-LABEL: "interval.program"() ({
// CHECK: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: "task.map"(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NOT: "task.map"
// CHECK: interval.intervals_after = 1 : i64, interval.intervals_before = 2 : i64, sym_name = "limit_fits"
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "limit_fits"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "limit_fits"
func.func @limit_fits(%a: tensor<4xf32>, %b: tensor<4xf32>, %x1: tensor<4xf32>, %x2: tensor<4xf32>, %x3: tensor<4xf32>, %x4: tensor<4xf32>, %x5: tensor<4xf32>, %x6: tensor<4xf32>, %x7: tensor<4xf32>, %x8: tensor<4xf32>, %x9: tensor<4xf32>, %x10: tensor<4xf32>) -> tensor<4xf32> {
  %p = "task.map"(%a, %b) ({
  ^bb0(%u: f32, %w: f32):
    %r = arith.mulf %u, %w : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = "task.map"(%p, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10) ({
  ^bb0(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %v8: f32, %v9: f32, %v10: f32):
    %s1 = arith.addf %v0, %v1 : f32
    %s2 = arith.addf %s1, %v2 : f32
    %s3 = arith.addf %s2, %v3 : f32
    %s4 = arith.addf %s3, %v4 : f32
    %s5 = arith.addf %s4, %v5 : f32
    %s6 = arith.addf %s5, %v6 : f32
    %s7 = arith.addf %s6, %v7 : f32
    %s8 = arith.addf %s7, %v8 : f32
    %s9 = arith.addf %s8, %v9 : f32
    %s10 = arith.addf %s9, %v10 : f32
    gpu.yield %s10 : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
// CHECK-LABEL: "interval.program"() ({
// CHECK: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: %[[P:.*]] = "task.map"(%{{[^,]+}}, %{{[^,]+}}) ({
// CHECK: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.map"}
// CHECK-NEXT: "task.map"(%[[P]], %{{.*}}) ({
// CHECK: interval.intervals_after = 2 : i64, interval.intervals_before = 2 : i64, sym_name = "limit_exceeded"
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "limit_exceeded"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "limit_exceeded"
func.func @limit_exceeded(%a: tensor<4xf32>, %b: tensor<4xf32>, %x1: tensor<4xf32>, %x2: tensor<4xf32>, %x3: tensor<4xf32>, %x4: tensor<4xf32>, %x5: tensor<4xf32>, %x6: tensor<4xf32>, %x7: tensor<4xf32>, %x8: tensor<4xf32>, %x9: tensor<4xf32>, %x10: tensor<4xf32>, %x11: tensor<4xf32>) -> tensor<4xf32> {
  %p = "task.map"(%a, %b) ({
  ^bb0(%u: f32, %w: f32):
    %r = arith.mulf %u, %w : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = "task.map"(%p, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11) ({
  ^bb0(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %v8: f32, %v9: f32, %v10: f32, %v11: f32):
    %s1 = arith.addf %v0, %v1 : f32
    %s2 = arith.addf %s1, %v2 : f32
    %s3 = arith.addf %s2, %v3 : f32
    %s4 = arith.addf %s3, %v4 : f32
    %s5 = arith.addf %s4, %v5 : f32
    %s6 = arith.addf %s5, %v6 : f32
    %s7 = arith.addf %s6, %v7 : f32
    %s8 = arith.addf %s7, %v8 : f32
    %s9 = arith.addf %s8, %v9 : f32
    %s10 = arith.addf %s9, %v10 : f32
    %s11 = arith.addf %s10, %v11 : f32
    gpu.yield %s11 : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A rank-0 producer (of rank-0 inputs) is broadcast in its consumer like its inputs.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>, %[[T:[^:]+]]: tensor<f32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: "task.map"(%[[X]], %[[T]]) ({
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: f32, %[[TA:[^:]+]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[TA]], %[[TA]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[XA]], %[[SQ]] : f32
// CHECK-NEXT: gpu.yield %[[D]] : f32
// CHECK-NEXT: }) {{{.*}}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK: interval.intervals_after = 1 : i64, interval.intervals_before = 2 : i64, sym_name = "rank0"
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "rank0"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "rank0"
func.func @rank0(%x: tensor<4x8xf32>, %t: tensor<f32>) -> tensor<4x8xf32> {
  %s = "task.map"(%t) ({
  ^bb0(%u: f32):
    %r = arith.mulf %u, %u : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<f32>) -> tensor<f32>
  %c = "task.map"(%x, %s) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.subf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A map before a reshape whose users are maps moves behind it (maps are shape-agnostic in row-major
// order): its input of rank > 0 is reshaped instead, or, when that input is itself a reshape of a
// value of the target shape, that value is used and the old reshape goes.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>, %[[S:[^:]+]]: tensor<f32>, %[[Y:[^:]+]]: tensor<32xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.reshape"}
// CHECK-NEXT: %[[XR:.*]] = "task.reshape"(%[[X]]) {tiles = 1 : i64} : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.map"}
// CHECK-NEXT: %[[R:.*]] = "task.map"(%[[XR]], %[[S]], %[[Y]]) ({
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: f32, %[[SA:[^:]+]]: f32, %[[YA:[^:]+]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[XA]], %[[SA]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[M]], %[[YA]] : f32
// CHECK-NEXT: gpu.yield %[[A]] : f32
// CHECK-NEXT: }) {{{.*}}} : (tensor<32xf32>, tensor<f32>, tensor<32xf32>) -> tensor<32xf32>
// CHECK-NEXT: gpu.yield %[[R]]
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 2 : i64, interval.intervals_before = 3 : i64, sym_name = "reshape"}
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "reshape"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "reshape"
func.func @reshape(%x: tensor<4x8xf32>, %s: tensor<f32>, %y: tensor<32xf32>) -> tensor<32xf32> {
  %m = "task.map"(%x, %s) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.mulf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %r = "task.reshape"(%m) : (tensor<4x8xf32>) -> tensor<32xf32>
  %c = "task.map"(%r, %y) ({
  ^bb0(%u: f32, %v: f32):
    %q = arith.addf %u, %v : f32
    gpu.yield %q : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  return %c : tensor<32xf32>
}
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X0:[^:]+]]: tensor<32xf32>, %[[Y:[^:]+]]: tensor<32xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.map"}
// CHECK-NEXT: %[[R:.*]] = "task.map"(%[[X0]], %[[Y]]) ({
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: f32, %[[YA:[^:]+]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[XA]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[E]], %[[YA]] : f32
// CHECK-NEXT: gpu.yield %[[A]] : f32
// CHECK-NEXT: })
// CHECK-NEXT: gpu.yield %[[R]]
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 1 : i64, interval.intervals_before = 4 : i64, sym_name = "reshape_folded"}
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "reshape_folded"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "reshape_folded"
func.func @reshape_folded(%x0: tensor<32xf32>, %y: tensor<32xf32>) -> tensor<32xf32> {
  %x = "task.reshape"(%x0) : (tensor<32xf32>) -> tensor<4x8xf32>
  %m = "task.map"(%x) ({
  ^bb0(%u: f32):
    %r = math.exp %u : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "task.reshape"(%m) : (tensor<4x8xf32>) -> tensor<32xf32>
  %c = "task.map"(%r, %y) ({
  ^bb0(%u: f32, %v: f32):
    %q = arith.addf %u, %v : f32
    gpu.yield %q : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  return %c : tensor<32xf32>
}

// -----

// Epilogues and prologues: the scaling of a matmul's result and the bf16 convert of a norm's result
// run inside that task's tiles (same interval, no barrier); the bf16 convert of a weight runs inside
// the tiles of the matmul that loads it.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<64x32xf32>, %[[W:[^:]+]]: tensor<32x128xf32>, %[[SCALE:[^:]+]]: tensor<f32>, %[[G:[^:]+]]: tensor<128xf32>, %[[W2:[^:]+]]: tensor<128x16xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.matmul+1"}
// CHECK-NEXT: %[[C:.*]] = "task.matmul"(%[[A]], %[[W]])
// CHECK-NEXT: %[[E:.*]] = "task.map"(%[[C]], %[[SCALE]]) ({
// CHECK: }) {{{.*}}task.fused = "epilogue", tiles = 1 : i64}
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.rmsnorm+1"}
// CHECK-NEXT: %[[N:.*]] = "task.rmsnorm"(%[[E]], %[[G]])
// CHECK-NEXT: %[[H:.*]] = "task.convert"(%[[N]]) {task.fused = "epilogue", tiles = 1 : i64} : (tensor<64x128xf32>) -> tensor<64x128xbf16>
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i2.matmul+1"}
// CHECK-NEXT: %[[WB:.*]] = "task.convert"(%[[W2]]) {task.fused = "prologue", tiles = 1 : i64}
// CHECK-NEXT: %[[O:.*]] = "task.matmul"(%[[H]], %[[WB]])
// CHECK-NEXT: gpu.yield %[[O]]
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 3 : i64, interval.intervals_before = 6 : i64, sym_name = "absorb"}
// merge=false: each absorbed task joins its anchor's interval; the rest stay, empty intervals go.
// KEEP-LABEL: "interval.program"() ({
// KEEP: "interval.interval"() {name = "i0.matmul+1"}
// KEEP-NEXT: "task.matmul"
// KEEP-NEXT: "task.map"
// KEEP: task.fused = "epilogue"
// KEEP-NEXT: "interval.barrier"
// KEEP-NEXT: "interval.interval"() {name = "i1.rmsnorm+1"}
// KEEP-NEXT: "task.rmsnorm"
// KEEP-NEXT: "task.convert"{{.*}}task.fused = "epilogue"
// KEEP-NEXT: "interval.barrier"
// KEEP-NEXT: "interval.interval"() {name = "i2.matmul+1"}
// KEEP-NEXT: "task.convert"{{.*}}task.fused = "prologue"
// KEEP-NEXT: "task.matmul"
// KEEP: interval.intervals_after = 3 : i64, interval.intervals_before = 6 : i64, sym_name = "absorb"
// With absorb=false (and no fusion) the weight convert has no producer: ASAP would put it in the first
// interval; balance puts it in the latest of the intervals before its reader that its tile lengthens
// least, beside the activation's convert.
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY-NOT: task.fused
// MERGE-ONLY: "interval.interval"() {name = "i0.matmul"}
// MERGE-ONLY-NEXT: "task.matmul"
// MERGE-ONLY: "interval.interval"() {name = "i3.convert+1"}
// MERGE-ONLY-NEXT: "task.convert"
// MERGE-ONLY-NEXT: "task.convert"(%arg4)
// MERGE-ONLY-NEXT: "interval.barrier"
// MERGE-ONLY-NOT: task.fused
// MERGE-ONLY: interval.intervals_after = 5 : i64, interval.intervals_before = 6 : i64, sym_name = "absorb"
func.func @absorb(%a: tensor<64x32xf32>, %w: tensor<32x128xf32>, %scale: tensor<f32>, %g: tensor<128xf32>,
                  %w2: tensor<128x16xf32>) -> tensor<64x16xf32> {
  %c = "task.matmul"(%a, %w) {transpose_a = false, transpose_b = false} : (tensor<64x32xf32>, tensor<32x128xf32>) -> tensor<64x128xf32>
  %e = "task.map"(%c, %scale) ({
  ^bb0(%u: f32, %v: f32):
    %r = arith.mulf %u, %v : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<64x128xf32>, tensor<f32>) -> tensor<64x128xf32>
  %n = "task.rmsnorm"(%e, %g) {eps = 1.0e-05 : f64} : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %h = "task.convert"(%n) : (tensor<64x128xf32>) -> tensor<64x128xbf16>
  %wb = "task.convert"(%w2) : (tensor<128x16xf32>) -> tensor<128x16xbf16>
  %o = "task.matmul"(%h, %wb) {transpose_a = false, transpose_b = false} : (tensor<64x128xbf16>, tensor<128x16xbf16>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// -----

// Not absorbed: a matmul result with a second user; a map whose second input of rank > 0 is defined
// after the matmul (one defined before it would be absorbed: a residual); a convert whose result is also
// a program result.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<8x16xf32>, %[[W:[^:]+]]: tensor<16x8xf32>, %[[R:[^:]+]]: tensor<8x8xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.matmul+3"}
// CHECK-NEXT: %[[C:.*]] = "task.matmul"(%[[A]], %[[W]]) {tiles
// CHECK-NEXT: %[[D:.*]] = "task.matmul"(%[[A]], %[[W]]) {tiles
// CHECK-NEXT: %[[RS:.*]] = "task.softmax"(%[[R]]) {tiles
// CHECK-NEXT: %[[WB:.*]] = "task.convert"(%[[W]]) {tiles
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.map+3"}
// CHECK-NEXT: %[[E:.*]] = "task.map"(%[[C]]) ({
// CHECK: }) {operandSegmentSizes = {{.*}}, tiles = 1 : i64}
// CHECK-NEXT: %[[S:.*]] = "task.map"(%[[D]], %[[RS]]) ({
// CHECK: }) {operandSegmentSizes = {{.*}}, tiles = 1 : i64}
// CHECK-NEXT: %[[AB:.*]] = "task.convert"(%[[A]]) {task.fused = "prologue", tiles = 1 : i64}
// CHECK-NEXT: %[[O:.*]] = "task.matmul"(%[[AB]], %[[WB]])
// CHECK-NEXT: gpu.yield %[[C]], %[[E]], %[[S]], %[[O]], %[[WB]] :
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 2 : i64, interval.intervals_before = 8 : i64, sym_name = "not_absorbed"}
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: sym_name = "not_absorbed"
// KEEP-LABEL: "interval.program"() ({
// KEEP: sym_name = "not_absorbed"
func.func @not_absorbed(%a: tensor<8x16xf32>, %w: tensor<16x8xf32>, %r: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<16x8xbf16>) {
  %c = "task.matmul"(%a, %w) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %e = "task.map"(%c) ({
  ^bb0(%u: f32):
    %q = arith.negf %u : f32
    gpu.yield %q : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = "task.matmul"(%a, %w) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %rs = "task.softmax"(%r) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = "task.map"(%d, %rs) ({
  ^bb0(%u: f32, %v: f32):
    %q = arith.addf %u, %v : f32
    gpu.yield %q : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %wb = "task.convert"(%w) : (tensor<16x8xf32>) -> tensor<16x8xbf16>
  %ab = "task.convert"(%a) : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  %o = "task.matmul"(%ab, %wb) {transpose_a = false, transpose_b = false} : (tensor<8x16xbf16>, tensor<16x8xbf16>) -> tensor<8x8xf32>
  return %c, %e, %s, %o, %wb : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<16x8xbf16>
}

// -----

// Merging: every task goes to the earliest interval after its producers'; tasks later in program
// order that depend on nothing scheduled move up; within an interval, program order (ASAP, with
// balance=false). Then balance: the tasks that read only program arguments may take any interval up to
// the one before their first reader's latest (the softmaxes of %y and %z, program results: any of the
// three; that of %x: only the first); each goes to the one that its tiles lengthen least by
// latch_task_tile_cost_ns, the latest on ties: a softmax tile (68 ns) would lengthen interval 2, whose
// reduce takes 10 ns, and interval 1, whose small products take 60 ns, so both stay in interval 0.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<8x16xf32>, %[[Y:[^:]+]]: tensor<8x16xf32>, %[[Z:[^:]+]]: tensor<8x16xf32>, %[[W:[^:]+]]: tensor<16x4xf32>, %[[W2:[^:]+]]: tensor<16x4xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.softmax+2"} : () -> ()
// CHECK-NEXT: %[[A:.*]] = "task.softmax"(%[[X]])
// CHECK-NEXT: %[[C:.*]] = "task.softmax"(%[[Y]])
// CHECK-NEXT: %[[E:.*]] = "task.softmax"(%[[Z]])
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: "interval.interval"() {name = "i1.matmul+1"} : () -> ()
// CHECK-NEXT: %[[B:.*]] = "task.matmul"(%[[A]], %[[W]])
// CHECK-NEXT: %[[F:.*]] = "task.matmul"(%[[A]], %[[W2]])
// CHECK-NEXT: "interval.barrier"() : () -> ()
// CHECK-NEXT: "interval.interval"() {name = "i2.reduce"} : () -> ()
// CHECK-NEXT: %[[D:.*]] = "task.reduce"(%[[B]])
// CHECK-NEXT: gpu.yield %[[D]], %[[C]], %[[E]], %[[F]] :
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 3 : i64, interval.intervals_before = 6 : i64, sym_name = "merge"}
// ASAP: "interval.interval"() {name = "i0.softmax+2"} : () -> ()
// ASAP-NEXT: "task.softmax"
// ASAP-NEXT: "task.softmax"
// ASAP-NEXT: "task.softmax"
// ASAP-NEXT: "interval.barrier"() : () -> ()
// ASAP-NEXT: "interval.interval"() {name = "i1.matmul+1"} : () -> ()
// ASAP: "interval.interval"() {name = "i2.reduce"} : () -> ()
// ASAP: sym_name = "merge"
// merge=false keeps one interval per task, in program order.
// KEEP-LABEL: "interval.program"() ({
// KEEP: "interval.interval"() {name = "i0.softmax"}
// KEEP-NEXT: "task.softmax"
// KEEP-NEXT: "interval.barrier"
// KEEP-NEXT: "interval.interval"() {name = "i1.matmul"}
// KEEP-NEXT: "task.matmul"
// KEEP-NEXT: "interval.barrier"
// KEEP-NEXT: "interval.interval"() {name = "i2.softmax"}
// KEEP: "interval.interval"() {name = "i5.matmul"}
// KEEP: interval.intervals_after = 6 : i64, interval.intervals_before = 6 : i64, sym_name = "merge"
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: interval.intervals_after = 3 : i64, interval.intervals_before = 6 : i64, sym_name = "merge"
func.func @merge(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %z: tensor<8x16xf32>, %w: tensor<16x4xf32>,
                 %w2: tensor<16x4xf32>) -> (tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>) {
  %a = "task.softmax"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = "task.matmul"(%a, %w) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %c = "task.softmax"(%y) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %d = "task.reduce"(%b) {axis = 1 : i64, kind = "sum"} : (tensor<8x4xf32>) -> tensor<8xf32>
  %e = "task.softmax"(%z) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %f = "task.matmul"(%a, %w2) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %d, %c, %e, %f : tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>
}

// -----

// An epilogue's rank-0 input made after its matmul: merging moves the matmul to the interval after
// that input; with merge=false the map is not absorbed (its input is not ready in the matmul's
// interval).
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<8x16xf32>, %[[W:[^:]+]]: tensor<16x4xf32>, %[[V:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.reduce"}
// CHECK-NEXT: %[[S:.*]] = "task.reduce"(%[[V]])
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.matmul+1"}
// CHECK-NEXT: %[[C:.*]] = "task.matmul"(%[[A]], %[[W]])
// CHECK-NEXT: %[[E:.*]] = "task.map"(%[[C]], %[[S]]) ({
// CHECK: }) {{{.*}}task.fused = "epilogue"
// CHECK-NEXT: gpu.yield %[[E]]
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 2 : i64, interval.intervals_before = 3 : i64, sym_name = "late_scalar"}
// KEEP-LABEL: "interval.program"() ({
// KEEP-NOT: task.fused
// KEEP: interval.intervals_after = 3 : i64, interval.intervals_before = 3 : i64, sym_name = "late_scalar"
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: interval.intervals_after = 2 : i64, interval.intervals_before = 3 : i64, sym_name = "late_scalar"
func.func @late_scalar(%a: tensor<8x16xf32>, %w: tensor<16x4xf32>, %v: tensor<4xf32>) -> tensor<8x4xf32> {
  %c = "task.matmul"(%a, %w) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %s = "task.reduce"(%v) {axis = 0 : i64, kind = "max"} : (tensor<4xf32>) -> tensor<f32>
  %e = "task.map"(%c, %s) ({
  ^bb0(%u: f32, %t: f32):
    %q = arith.subf %u, %t : f32
    gpu.yield %q : f32
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  return %e : tensor<8x4xf32>
}

// -----

// Prologues marked before this pass (latch-memory-rules{absorbed=true} marks recomputed copies, of any
// kind) join their one reader's interval, chains included: the norm and its bf16 copy run inside the
// matmul's tiles, with the weight's convert (a prologue found here). A mark on a task with two readers
// cannot be honoured and is removed.
// CHECK-LABEL: "interval.program"() ({
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<8x16xf32>, %[[G:[^:]+]]: tensor<16xf32>, %[[W:[^:]+]]: tensor<16x4xf32>, %[[Y:[^:]+]]: tensor<8x16xf32>):
// CHECK-NEXT: "interval.interval"() {name = "i0.matmul+4"}
// CHECK-NEXT: %[[N:.*]] = "task.rmsnorm"(%[[X]], %[[G]]) {eps = 1.000000e-05 : f64, task.fused = "prologue", tiles = 1 : i64}
// CHECK-NEXT: %[[C:.*]] = "task.convert"(%[[N]]) {task.fused = "prologue", tiles = 1 : i64}
// CHECK-NEXT: %[[WB:.*]] = "task.convert"(%[[W]]) {task.fused = "prologue", tiles = 1 : i64}
// CHECK-NEXT: %[[M:.*]] = "task.matmul"(%[[C]], %[[WB]])
// CHECK-NEXT: %[[S:.*]] = "task.softmax"(%[[Y]]) {tiles = 1 : i64}
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.reduce+1"}
// CHECK-NEXT: %[[A:.*]] = "task.reduce"(%[[S]])
// CHECK-NEXT: %[[B:.*]] = "task.softmax"(%[[S]])
// CHECK-NEXT: gpu.yield %[[M]], %[[A]], %[[B]] :
// CHECK-NEXT: }) {{{.*}}interval.intervals_after = 2 : i64, interval.intervals_before = 7 : i64, sym_name = "marked"}
// KEEP-LABEL: "interval.program"() ({
// KEEP: "interval.interval"() {name = "i0.matmul+3"}
// KEEP-NEXT: "task.rmsnorm"{{.*}}task.fused = "prologue"
// KEEP-NEXT: "task.convert"{{.*}}task.fused = "prologue"
// KEEP-NEXT: "task.convert"{{.*}}task.fused = "prologue"
// KEEP-NEXT: "task.matmul"
// KEEP-NEXT: "interval.barrier"
// KEEP-NEXT: "interval.interval"() {name = "i1.softmax"}
// KEEP-NEXT: "task.softmax"(%{{[^)]*}}) {tiles = 1 : i64}
// KEEP: interval.intervals_after = 4 : i64, interval.intervals_before = 7 : i64, sym_name = "marked"
// With absorb=false marks made before are still honoured; none are added.
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: "interval.interval"() {name = "i0.convert+1"}
// MERGE-ONLY-NEXT: "task.convert"(%{{[^)]*}}) {tiles = 1 : i64}
// MERGE-ONLY-NEXT: "task.softmax"
// MERGE-ONLY-NEXT: "interval.barrier"
// MERGE-ONLY-NEXT: "interval.interval"() {name = "i1.matmul+4"}
// MERGE-ONLY-NEXT: "task.rmsnorm"{{.*}}task.fused = "prologue"
// MERGE-ONLY-NEXT: "task.convert"{{.*}}task.fused = "prologue"
// MERGE-ONLY-NEXT: "task.matmul"
// MERGE-ONLY-NEXT: "task.reduce"
// MERGE-ONLY-NEXT: "task.softmax"
// MERGE-ONLY: interval.intervals_after = 2 : i64, interval.intervals_before = 7 : i64, sym_name = "marked"
func.func @marked(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %w: tensor<16x4xf32>, %y: tensor<8x16xf32>)
    -> (tensor<8x4xf32>, tensor<8xf32>, tensor<8x16xf32>) {
  %n = "task.rmsnorm"(%x, %g) {eps = 1.0e-05 : f64, task.fused = "prologue"} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %c = "task.convert"(%n) {task.fused = "prologue"} : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  %wb = "task.convert"(%w) : (tensor<16x4xf32>) -> tensor<16x4xbf16>
  %m = "task.matmul"(%c, %wb) {transpose_a = false, transpose_b = false} : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  %s = "task.softmax"(%y) {task.fused = "prologue"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = "task.reduce"(%s) {axis = 1 : i64, kind = "sum"} : (tensor<8x16xf32>) -> tensor<8xf32>
  %b = "task.softmax"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m, %a, %b : tensor<8x4xf32>, tensor<8xf32>, tensor<8x16xf32>
}

// -----

// Only constants before the first interval and tasks can be rescheduled.
"interval.program"() ({
^bb0(%x: tensor<4xf32>):
  "interval.interval"() {name = "a"} : () -> ()
  %y = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  // ERR: [[FILE]]:[[@LINE+1]]:8: error: latch-fuse-phases: 'arith.constant' cannot be rescheduled (only constants before the first interval and tasks)
  %c = arith.constant dense<1.0> : tensor<4xf32>
  gpu.yield %y, %c : tensor<4xf32>, tensor<4xf32>
}) {sym_name = "constant_inside", function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)} : () -> ()

// -----

// A malformed schedule: a task before any interval.
"interval.program"() ({
^bb0(%x: tensor<4xf32>):
  // ERR: [[FILE]]:[[@LINE+1]]:8: error: a task outside any interval (every task follows an interval.interval)
  %y = "task.softmax"(%x) {tiles = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  gpu.yield %y : tensor<4xf32>
}) {sym_name = "outside", function_type = (tensor<4xf32>) -> tensor<4xf32>} : () -> ()

// -----

// Views (latch_reshape_is_view): a reshape of a task's result reads no memory, so merge puts it in its
// producer's interval (%v beside %a), and its readers one after; a reshape of a program argument (%r) is
// a copy and takes an interval of its own like any task (here the first). Views do not count in the
// interval names' "+M".
// CHECK-LABEL: "interval.program"() ({
// CHECK: "interval.interval"() {name = "i0.reshape+1"}
// CHECK-NEXT: %[[R:.*]] = "task.reshape"(%{{.*}}) {tiles = 1 : i64} : (tensor<32xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[A:.*]] = "task.matmul"
// CHECK-NEXT: %[[V:.*]] = "task.reshape"(%[[A]])
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i1.matmul+1"}
// CHECK-NEXT: "task.matmul"(%[[R]],
// CHECK-NEXT: "task.transpose"(%[[V]])
// CHECK: interval.intervals_after = 2 : i64, interval.intervals_before = 5 : i64, sym_name = "views"
// KEEP-LABEL: "interval.program"() ({
// KEEP: interval.intervals_after = 5 : i64, interval.intervals_before = 5 : i64, sym_name = "views"
// MERGE-ONLY-LABEL: "interval.program"() ({
// MERGE-ONLY: interval.intervals_after = 2 : i64, interval.intervals_before = 5 : i64, sym_name = "views"
func.func @views(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %t: tensor<32xf32>) -> (tensor<4x8xf32>, tensor<2x2x8xf32>) {
  %r = "task.reshape"(%t) : (tensor<32xf32>) -> tensor<4x8xf32>
  %a = "task.matmul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %v = "task.reshape"(%a) : (tensor<4x8xf32>) -> tensor<2x2x8xf32>
  %c = "task.matmul"(%r, %w) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %d = "task.transpose"(%v) {perm = array<i64: 1, 0, 2>} : (tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  return %c, %d : tensor<4x8xf32>, tensor<2x2x8xf32>
}

// -----

// balance keeps a reader of a program argument before the task.adamw that writes it in place: %c may take
// any interval by its readers (a program result), but interval 2 is the AdamW's, so it goes to 1 (the
// latest of the intervals that its tile lengthens least). With balance=false it stays in interval 0.
// CHECK-LABEL: "interval.program"() ({
// CHECK: "interval.interval"() {name = "i1.softmax+1"}
// CHECK-NEXT: "task.softmax"
// CHECK-NEXT: "task.convert"(%arg0)
// CHECK-NEXT: "interval.barrier"
// CHECK-NEXT: "interval.interval"() {name = "i2.adamw"}
// CHECK: sym_name = "adamw_reader"
// ASAP: "interval.interval"() {name = "i0.softmax+1"}
// ASAP-NEXT: "task.softmax"(%arg4)
// ASAP-NEXT: "task.convert"(%arg0)
// ASAP: sym_name = "adamw_reader"
func.func @adamw_reader(%p: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>, %step: tensor<i32>, %x: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>) {
  %g = "task.softmax"(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %h = "task.softmax"(%g) : (tensor<16xf32>) -> tensor<16xf32>
  %c = "task.convert"(%p) : (tensor<16xf32>) -> tensor<16xbf16>
  %p1, %m1, %v1 = "task.adamw"(%p, %h, %m, %v, %step) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64} : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return %p1, %m1, %v1, %c : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>
}

// -----

// order (the default; the cases above run with order=false): an interval's tasks heaviest tiles first
// (latch_task_tile_cost_ns: the product's 128 x 128 tiles of k = 256 before the map's 8192 elements),
// each after what it reads in the interval; the name stays that of program order.
// ORDER-LABEL: "interval.program"() ({
// ORDER: "interval.interval"() {name = "i0.map+1"}
// ORDER-NEXT: "task.matmul"
// ORDER-NEXT: "task.map"
// ORDER: sym_name = "heaviest_first"
func.func @heaviest_first(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>, %x: tensor<64x8xf32>) -> (tensor<64x8xf32>, tensor<256x256xf32>) {
  %m = "task.map"(%x) ({
  ^bb0(%u: f32):
    %q = arith.negf %u : f32
    gpu.yield %q : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<64x8xf32>) -> tensor<64x8xf32>
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %m, %c : tensor<64x8xf32>, tensor<256x256xf32>
}

// -----

// order: the grouped weight gradient is rated at its measured rate (latch_task_tile_cost_ns), so its tiles
// (256 rows per group: 19.5 us) go before the grouped product's (k = 512: 12.9 us), which a tensor-core
// rate for both would have put first (6.5 us).
// ORDER: "interval.interval"() {name = "i0.grouped_matmul+1"}
// ORDER-NEXT: "task.grouped_matmul_weight_grad"
// ORDER-NEXT: "task.grouped_matmul"
// ORDER: sym_name = "weight_grad_first"
func.func @weight_grad_first(%x: tensor<1024x512xbf16>, %w: tensor<4x512x128xbf16>, %dy: tensor<1024x128xbf16>, %ends: tensor<4xi32>)
    -> (tensor<1024x128xf32>, tensor<4x512x128xf32>) {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<1024x512xbf16>, tensor<4x512x128xbf16>, tensor<4xi32>) -> tensor<1024x128xf32>
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<1024x512xbf16>, tensor<1024x128xbf16>, tensor<4xi32>) -> tensor<4x512x128xf32>
  return %y, %dw : tensor<1024x128xf32>, tensor<4x512x128xf32>
}
