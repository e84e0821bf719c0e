// The scalar element-wise path (vector-maps=false): latch-lower-tasks-vector-maps.mlir tests the default.
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{vector-maps=false})' \
// RUN:   | FileCheck %s
// RUN: latch-opt %s --split-input-file --pass-pipeline='builtin.module(latch-verify,latch-form-intervals,latch-plan-arena,latch-lower-tasks{wgmma=false})' \
// RUN:   | FileCheck %s --check-prefix=MMA
//
// latch-lower-tasks writes one device function @task_<N> per task into gpu.module @latch (docs/device-abi.md):
// tile %tile of the task's iteration space, computed by the CTA's threads (each walks its share with a
// stride of blockDim.x), fp32 arithmetic, bf16 loads extended and stores rounded to nearest even. One
// program per op kind; each case checks the structure its template promises.

// task.matmul (batched, b transposed, bf16 result) with M = 40, not a multiple of 128: the small-product
// form, a thread per output element (k = 24 < 32) over the flat [3, 40, 16] output, 2048 elements per
// tile halved while there would be fewer than 256 tiles, down to 256 (a thread's): 8 tiles; bf16 inputs extend to f32, the sum runs in f32 over increasing k (b[batch, col, k] for
// transpose_b), the result rounds to bf16.
// The tile body takes the tile, with its range [0, tiles) for LLVM, and the tensors' base pointers as
// arguments (tasks at other places share it); the task's own function computes them: program argument k at args[3 + k], the result at args[0] + its arena
// offset.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%[[TILE:[^:]*]]: i32 {llvm.range = #llvm.constant_range<i32, 0, 8>}, %[[A:.*]]: !llvm.ptr<1>, %[[B:.*]]: !llvm.ptr<1>, %[[C:.*]]: !llvm.ptr<1>) attributes {passthrough = ["noinline"]}
// CHECK: %[[TID32:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[NTID32:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK: %[[TID:.*]] = arith.extui %[[TID32]] : i32 to i64
// CHECK: %[[NTID:.*]] = arith.extui %[[NTID32]] : i32 to i64
// CHECK: %[[T:.*]] = arith.extui %[[TILE]] : i32 to i64
// CHECK: scf.for %[[VT:.*]] = %[[T]] to %c8_i64 step %c8_i64 : i64 {
// CHECK: %[[LO:.*]] = arith.muli %[[VT]], %c256_i64 : i64
// CHECK: %[[HI:.*]] = arith.minsi %{{.*}}, %c1920_i64 : i64
// CHECK: %[[FIRST:.*]] = arith.addi %[[LO]], %[[TID]] : i64
// CHECK: scf.for %[[E:.*]] = %[[FIRST]] to %[[HI]] step %[[NTID]] : i64 {
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0_i64 to %c24_i64 step %c1_i64 iter_args(%[[ACC:.*]] = %cst) -> (f32) : i64 {
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[Y:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: scf.yield %[[NEXT]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[C]][%[[E]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK: llvm.store %[[R]], %[[AT]] : bf16, !llvm.ptr<1>
// CHECK: func.func @task_0(%[[TILE0:.*]]: i32, %[[ARGS:.*]]: !llvm.ptr<1>)
// CHECK: %[[BASE_WORD:.*]] = llvm.load %[[ARGS]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK: %[[BASE:.*]] = llvm.inttoptr %[[BASE_WORD]] : i64 to !llvm.ptr<1>
// CHECK: %[[A_SLOT:.*]] = llvm.getelementptr %[[ARGS]][3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
// CHECK: %[[A_WORD:.*]] = llvm.load %[[A_SLOT]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK: %[[AP:.*]] = llvm.inttoptr %[[A_WORD]] : i64 to !llvm.ptr<1>
// CHECK: %[[B_SLOT:.*]] = llvm.getelementptr %[[ARGS]][4]
// CHECK: %[[B_WORD:.*]] = llvm.load %[[B_SLOT]]
// CHECK: %[[BP:.*]] = llvm.inttoptr %[[B_WORD]]
// CHECK: %[[CP:.*]] = llvm.getelementptr %[[BASE]][%c0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: call @task_body_0(%[[TILE0]], %[[AP]], %[[BP]], %[[CP]]) : (i32, !llvm.ptr<1>, !llvm.ptr<1>, !llvm.ptr<1>) -> ()
// CHECK: "task.matmul"(%{{.*}}) {task.device_function = "task_0", tiles = 8 : i64
// CHECK: sym_name = "matmul"
func.func @matmul(%a: tensor<3x40x24xbf16>, %b: tensor<3x16x24xbf16>) -> tensor<3x40x16xbf16> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<3x40x24xbf16>, tensor<3x16x24xbf16>) -> tensor<3x40x16xbf16>
  return %c : tensor<3x40x16xbf16>
}

// -----

// The small-product form with k = 40 >= 32: a warp per output element, 64 elements per tile halved while
// there would be fewer than 256 tiles, down to 8 (a warp's): the flat [2, 5, 7] output, 70 elements, is 9
// tiles; warp w takes elements w, w + 8, ...; lane l sums k = l, l + 32, ... (stride 32), loading
// min(ceil(k / 32), 8) = 2 steps before adding them in order (k = 40 is not a multiple of 64: a step past
// k reads step k - 1 and the select keeps the sum), the butterfly combines the lanes (xor 16, 8, 4, 2, 1)
// and lane 0 stores.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c9_i64 step %c9_i64 : i64 {
// CHECK: %[[LO:.*]] = arith.muli %[[VT]], %c8_i64 : i64
// CHECK: %[[HI:.*]] = arith.minsi %{{.*}}, %c70_i64 : i64
// CHECK: %[[WARPS:.*]] = arith.divui %{{.*}}, %c32_i64 : i64
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32_i64 : i64
// CHECK: %[[FIRST:.*]] = arith.addi %[[LO]], %[[WARP]] : i64
// CHECK: scf.for %[[E:.*]] = %[[FIRST]] to %[[HI]] step %[[WARPS]] : i64 {
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32_i64 : i64
// CHECK: %[[PART:.*]] = scf.for %[[BASE:.*]] = %c0_i64 to %c40_i64 step %c64_i64 iter_args(%[[ACC:.*]] = %cst) -> (f32) : i64 {
// CHECK: %[[K0:.*]] = arith.addi %[[BASE]], %[[LANE]] : i64
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[K0]], %c40_i64 : i64
// CHECK: arith.minsi %[[K0]], %c39_i64 : i64
// CHECK: %[[X0:.*]] = llvm.load
// CHECK: %[[Y0:.*]] = llvm.load
// CHECK: %[[IN1:.*]] = arith.cmpi slt
// CHECK: %[[X1:.*]] = llvm.load
// CHECK: %[[Y1:.*]] = llvm.load
// CHECK: %[[P0:.*]] = arith.mulf %[[X0]], %[[Y0]] : f32
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[ACC]], %[[P0]] : f32
// CHECK-NEXT: %[[A0:.*]] = arith.select %[[IN0]], %[[S0]], %[[ACC]] : f32
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[X1]], %[[Y1]] : f32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[A0]], %[[P1]] : f32
// CHECK-NEXT: %[[A1:.*]] = arith.select %[[IN1]], %[[S1]], %[[A0]] : f32
// CHECK-NEXT: scf.yield %[[A1]] : f32
// CHECK: gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK: %[[IS_LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0_i64 : i64
// CHECK: scf.if %[[IS_LANE0]] {
// CHECK: llvm.getelementptr %{{.*}}[%[[E]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: "task.matmul"(%{{.*}}) {task.device_function = "task_0", tiles = 9 : i64
func.func @matmul_small_warp(%a: tensor<2x5x40xf32>, %b: tensor<2x40x7xf32>) -> tensor<2x5x7xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2x5x40xf32>, tensor<2x40x7xf32>) -> tensor<2x5x7xf32>
  return %c : tensor<2x5x7xf32>
}

// -----

// The small-product form with k = 1 (an outer product per batch: TinyMoE's routing weights times the
// experts' rows) takes elementwise tiles of 8192 outputs: [300, 1, 96] is 4 tiles; with vector-maps=false
// one output per unit, 8 of them loaded (a's scalar, b's element) before the first store, each 0 + a b.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c4_i64 step %c4_i64 : i64 {
// CHECK: scf.for %{{.*}} = %c0_i64 to %c8192_i64 step %c2048_i64 : i64 {
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %cst, %[[P]] : f32
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.store %[[S]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: "task.matmul"(%{{.*}}) {task.device_function = "task_0", tiles = 4 : i64
func.func @matmul_outer(%a: tensor<300x1x1xf32>, %b: tensor<300x1x96xf32>) -> tensor<300x1x96xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<300x1x1xf32>, tensor<300x1x96xf32>) -> tensor<300x1x96xf32>
  return %c : tensor<300x1x96xf32>
}

// -----

// A narrow product (at most 16 columns, a's k contiguous: TinyMoE's router, here [300, 40] x [40, 8]) takes
// the same element-wise form, unbatched: 2400 outputs, 300 tiles of 8 (of 64 they would be 38), a warp per
// output. Read through
// transpose_a (k strided in a) it stays a tiled product: [40, 300]^T x [40, 8] is 3 x 1 tiles of 128 x 128.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c300_i64 step %c300_i64 : i64 {
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %{{.*}} to %c40_i64 step %c64_i64 iter_args(%{{.*}} = %cst) -> (f32) : i64 {
// CHECK: gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK: func.func @task_body_1(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3_i64 step %c3_i64 : i64 {
// CHECK: %{{.*}}:64 = scf.for
// CHECK: "task.matmul"(%{{.*}}) {task.device_function = "task_0", tiles = 300 : i64
// CHECK: "task.matmul"(%{{.*}}) {task.device_function = "task_1", tiles = 3 : i64
func.func @matmul_narrow(%a: tensor<300x40xf32>, %b: tensor<40x8xf32>, %at: tensor<40x300xf32>) -> (tensor<300x8xf32>, tensor<300x8xf32>) {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<300x40xf32>, tensor<40x8xf32>) -> tensor<300x8xf32>
  %d = "task.matmul"(%at, %b) {transpose_a = true, transpose_b = false} : (tensor<40x300xf32>, tensor<40x8xf32>) -> tensor<300x8xf32>
  return %c, %d : tensor<300x8xf32>, tensor<300x8xf32>
}

// -----

// With 256 row tiles or more ([32768, 40] x [40, 8]) a narrow product fills the GPU as a tiled product and
// stays one: 256 tiles of 128 x 128.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256_i64 step %c256_i64 : i64 {
// CHECK: %{{.*}}:64 = scf.for
// CHECK: "task.matmul"(%{{.*}}) {task.device_function = "task_0", tiles = 256 : i64
func.func @matmul_narrow_tall(%a: tensor<32768x40xf32>, %b: tensor<40x8xf32>) -> tensor<32768x8xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<32768x40xf32>, tensor<40x8xf32>) -> tensor<32768x8xf32>
  return %c : tensor<32768x8xf32>
}

// -----

// task.matmul, the tiled product ([200, 20] x [20, 300]: 2 x 3 tiles of 128 x 128): the stage loop over k
// in steps of 8 carries 64 f32 accumulators per thread; after a CTA barrier each thread copies 4 elements
// of A and of B (zero outside the operands) into @latch_smem, then after a second barrier runs 8 steps of
// 8 x 8 outer products (16 shared loads, 64 multiply-adds); each output inside [200, 300] is stored once.
// CHECK-LABEL: gpu.module @latch
// CHECK: llvm.mlir.global external @latch_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x f32>
// CHECK: func.func @task_body_0(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @latch_smem : !llvm.ptr<3>
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c6_i64 step %c6_i64 : i64 {
// CHECK: %[[ACC:.*]]:64 = scf.for %[[K0:.*]] = %c0_i64 to %c20_i64 step %c8_i64 iter_args({{.*}}) -> ({{(f32, )+}}f32) : i64 {
// CHECK-NEXT: nvvm.barrier0
// CHECK: arith.cmpi slt, %{{.*}}, %c20_i64 : i64
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[STEP:.*]]:64 = scf.for %{{.*}} = %c0_i64 to %c8_i64 step %c1_i64 iter_args({{.*}}) -> ({{(f32, )+}}f32) : i64 {
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-64: arith.addf
// CHECK: scf.yield %[[STEP]]#0,
// CHECK-COUNT-64: llvm.store %[[ACC]]#{{[0-9]+}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: sym_name = "matmul_tiled"
func.func @matmul_tiled(%a: tensor<200x20xf32>, %b: tensor<20x300xf32>) -> tensor<200x300xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<200x20xf32>, tensor<20x300xf32>) -> tensor<200x300xf32>
  return %c : tensor<200x300xf32>
}

// -----

// task.grouped_matmul: tiles are (row tile, group) pairs x 128 columns, here (1 row tile + 3 groups) x 1 =
// 4. A loop over the groups and the rows past ends[G-1] (G + 1 = 4 steps) counts each one's row tiles to
// find the pair's group and row tile (group -1: no pair, nothing to do); the pair runs one tiled product
// over its group's rows and stores only those rows (the rows past ends[G-1]: no rows of x read, zeros).
// bf16 operands staged by copies: by default the product runs on wgmma (below); with wgmma=false (MMA) on
// mma.sync tensor cores, 32 steps of k per stage, staged as they lie in memory through a ring of 4 buffers in
// dynamic shared memory: 16-byte chunks of x (k contiguous) and of w (columns contiguous) by cp.async
// when inside the operand and aligned, otherwise by i16 loads stored at once (each thread's chunks in a loop:
// 512 chunks of A, then of B, 256 threads apart); stages 0-2 before the stage
// loop, each iteration waiting for its stage's group (2 younger ones pending), one barrier, the copies of
// the stage 3 ahead, then two k16 steps of 16 mma.sync.m16n8k16, the fragments by ldmatrix .x4 (.trans
// for w's k rows: two for B's four column tiles, then one per row of A's tiles, four mma after each).
// MMA-LABEL: gpu.module @latch attributes {latch.dynamic_shared_bytes = 81920 : i64}
// MMA: llvm.mlir.global external @latch_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x f32>
// MMA: func.func @task_body_0(
// MMA: scf.for %[[VT:.*]] = %{{.*}} to %c4_i64 step %c4_i64 : i64 {
// MMA: %[[WALK:.*]]:3 = scf.for %{{.*}} = %c0_i64 to %c4_i64 step %c1_i64 iter_args(%{{.*}} = %c0_i64, %{{.*}} = %c-1_i64, %{{.*}} = %c0_i64) -> (i64, i64, i64) : i64 {
// MMA: scf.yield
// MMA: arith.muli %[[WALK]]#2, %c128_i64 : i64
// MMA: %[[SOME:.*]] = arith.cmpi sge, %[[WALK]]#1, %c0_i64 : i64
// MMA-NEXT: scf.if %[[SOME]] {
// MMA: nvvm.barrier0
// MMA: scf.for %{{.*}} = %c0_i64 to %c3_i64 step %c1_i64 : i64 {
// MMA: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// MMA: llvm.load %{{.*}} : !llvm.ptr<1> -> i16
// MMA: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// MMA: nvvm.cp.async.commit.group
// MMA: %{{.*}}:64 = scf.for %{{.*}} = %c0_i64 to %c8_i64 step %c32_i64 iter_args({{.*}}) -> ({{(f32, )+}}f32) : i64 {
// MMA-NEXT: arith.subi
// MMA-NEXT: arith.divui
// MMA-NEXT: nvvm.cp.async.wait.group 2
// MMA-NEXT: nvvm.barrier0
// MMA: scf.for %{{.*}} = %{{.*}} to %c512_i64 step %c256_i64 : i64 {
// MMA: nvvm.cp.async.shared.global
// MMA: scf.for %{{.*}} = %{{.*}} to %c512_i64 step %c256_i64 : i64 {
// MMA: nvvm.cp.async.shared.global
// MMA: nvvm.cp.async.commit.group
// MMA-NOT: nvvm.barrier0
// MMA-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// MMA: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// MMA-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// MMA: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// MMA-COUNT-31: nvvm.mma.sync
// MMA-NOT: nvvm.mma.sync
// MMA-NOT: nvvm.barrier0
// MMA: scf.yield
// The stores keep to the pair's rows [lo, hi) as well as the tensor's 20.
// MMA: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW:.*]], %c20_i64 : i64
// MMA-DAG: %[[UNDER_HI:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : i64
// MMA-DAG: %[[FROM_LO:.*]] = arith.cmpi sge, %[[ROW]], %{{.*}} : i64
// MMA: %[[INSIDE:.*]] = arith.andi %[[FROM_LO]], %[[UNDER_HI]] : i1
// MMA-NEXT: arith.andi %[[BELOW]], %[[INSIDE]] : i1
// wgmma: the ring of 3 buffers of 64 steps of k (32 KiB each) starts at @latch_smem's first 1024-byte
// boundary: (0 - address) & 1023 bytes in. x (k contiguous) is staged as 128-byte rows, chunk c of row i
// at (c ^ i % 8) 16 bytes; w (columns contiguous) as 1 KiB atoms of 8 k rows x 64 columns. Each stage:
// the wait for its copies, fence.proxy.async (the copies become visible to wgmma's reads), one barrier,
// then wgmma.fence, four m64n128k16 (x K-major: <row>; w MN-major: <row>, i.e. transposed), commit, the
// wait for the previous stage's group (this one stays in flight), a barrier, and the copies of the stage 2
// ahead into the buffer that group read (wgmma-in-flight, the default; the order without it:
// latch-lower-tasks-wgmma-in-flight.mlir); the accumulators are one struct of 64 f32 through the loop, beside
// the ring slot (lean-wgmma-stages, the default: latch-lower-tasks-lean-wgmma-stages.mlir; here no stage
// lies inside the 20 x 8 operands, so each takes the general copies).
// CHECK-LABEL: gpu.module @latch attributes {latch.dynamic_shared_bytes = 99328 : i64}
// CHECK: func.func @task_body_0(
// CHECK: %[[SMEM:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK-NEXT: %[[NEG:.*]] = arith.subi %c0_i64, %[[SMEM]] : i64
// CHECK-NEXT: arith.andi %[[NEG]], %c1023_i64 : i64
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64 : i64 {
// CHECK: arith.xori
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[SUM:.*]]:2 = scf.for %{{.*}} = %c0_i64 to %c8_i64 step %c64_i64 iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %c0_i32) -> (!llvm.struct<({{(f32, )+}}f32)>, i32) : i64 {
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[FIRST:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: arith.select %{{.*}}, %c0_i32, %{{.*}} : i32
// CHECK-NEXT: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: llvm.extractvalue %[[SUM]]#0[0]
// CHECK-NOT: nvvm.mma.sync
// The stores keep to the pair's rows [lo, hi) as well as the tensor's 20.
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW:.*]], %c20_i64 : i64
// CHECK-DAG: %[[UNDER_HI:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : i64
// CHECK-DAG: %[[FROM_LO:.*]] = arith.cmpi sge, %[[ROW]], %{{.*}} : i64
// CHECK: %[[INSIDE:.*]] = arith.andi %[[FROM_LO]], %[[UNDER_HI]] : i1
// CHECK-NEXT: arith.andi %[[BELOW]], %[[INSIDE]] : i1
// MMA: sym_name = "grouped_matmul"
// CHECK: sym_name = "grouped_matmul"
func.func @grouped_matmul(%x: tensor<20x8xbf16>, %w: tensor<3x8x12xbf16>, %ends: tensor<3xi32>) -> tensor<20x12xf32> {
  %y = "task.grouped_matmul"(%x, %w, %ends) : (tensor<20x8xbf16>, tensor<3x8x12xbf16>, tensor<3xi32>) -> tensor<20x12xf32>
  return %y : tensor<20x12xf32>
}

// -----

// task.grouped_matmul with transpose_w: w[g] is [N, K] = [12, 8], read as it lies (k contiguous, like x):
// on wgmma both operands are K-major (A <row>, B <col>); on mma.sync both operands' fragments come from
// plain ldmatrix (no .trans, which w's k rows need without it).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: func.func @task_0(
// MMA-LABEL: gpu.module @latch
// MMA: func.func @task_body_0(
// MMA: nvvm.cp.async.shared.global
// MMA-NOT: layout = #nvvm.mma_layout<col>
// MMA: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// MMA-NOT: layout = #nvvm.mma_layout<col>
// MMA: nvvm.mma.sync
// MMA-NOT: layout = #nvvm.mma_layout<col>
// MMA: func.func @task_0(
// CHECK: sym_name = "grouped_matmul_transposed"
func.func @grouped_matmul_transposed(%x: tensor<20x8xbf16>, %w: tensor<3x12x8xbf16>, %ends: tensor<3xi32>) -> tensor<20x12xf32> {
  %y = "task.grouped_matmul"(%x, %w, %ends) {transpose_w = true} : (tensor<20x8xbf16>, tensor<3x12x8xbf16>, tensor<3xi32>) -> tensor<20x12xf32>
  return %y : tensor<20x12xf32>
}

// -----

// task.map: the body becomes @map_body_0 (a scalar constant from above cloned in, gpu.yield -> return),
// called once per element; two tiles of 8192 elements; the rank-0 input is element 0. The full tile
// (elements 0..8191) runs groups of 8 elements per thread (2 inputs: unroll 8; the group's elements
// base + tid + 256 u), all 16 loads of a group before its first store; the partial tile (8192..11999) one
// element per thread iteration.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func private @map_body_0(%[[E:.*]]: f32, %[[F:.*]]: f32) -> (f32, bf16) {
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[E]], %[[F]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[P]], %[[HALF]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK-NEXT: return %[[Q]], %[[T]] : f32, bf16
// CHECK: func.func @task_body_0(
// CHECK: %[[TID32:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[TID:.*]] = arith.extui %[[TID32]] : i32 to i64
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c2_i64 step %c2_i64 : i64 {
// CHECK: %[[LO:.*]] = arith.muli %[[VT]], %c8192_i64 : i64
// CHECK: %[[END:.*]] = arith.addi %[[LO]], %c8192_i64 : i64
// CHECK: %[[FULL:.*]] = arith.cmpi sle, %[[END]], %c12000_i64 : i64
// CHECK: scf.if %[[FULL]] {
// CHECK: scf.for %[[Q:.*]] = %c0_i64 to %c8192_i64 step %c2048_i64 : i64 {
// CHECK: %[[B0:.*]] = arith.addi %[[LO]], %[[Q]] : i64
// CHECK: %[[BASE:.*]] = arith.addi %[[B0]], %[[TID]] : i64
// CHECK: llvm.getelementptr %{{.*}}[%[[BASE]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-COUNT-15: llvm.load
// CHECK-NOT: llvm.store
// CHECK: llvm.load
// CHECK-NOT: llvm.load
// CHECK: func.call @map_body_0
// CHECK-COUNT-15: llvm.store
// CHECK-NOT: llvm.load
// CHECK: llvm.store
// CHECK: } else {
// CHECK: %[[HI0:.*]] = arith.addi %[[LO]], %c8192_i64 : i64
// CHECK: %[[HI:.*]] = arith.minsi %[[HI0]], %c12000_i64 : i64
// CHECK: %[[START:.*]] = arith.addi %[[LO]], %{{.*}} : i64
// CHECK: scf.for %[[I:.*]] = %[[START]] to %[[HI]] step %{{.*}} : i64 {
// CHECK: %[[PA:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[A:.*]] = llvm.load %[[PA]] : !llvm.ptr<1> -> f32
// CHECK: %[[PS:.*]] = llvm.getelementptr %{{.*}}[%c0_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[S:.*]] = llvm.load %[[PS]] : !llvm.ptr<1> -> f32
// CHECK: %[[R:.*]]:2 = func.call @map_body_0(%[[A]], %[[S]]) : (f32, f32) -> (f32, bf16)
// CHECK: llvm.store %[[R]]#0, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: llvm.store %[[R]]#1, %{{.*}} : bf16, !llvm.ptr<1>
// CHECK: sym_name = "map"
func.func @map(%a: tensor<300x40xf32>, %s: tensor<f32>) -> (tensor<300x40xf32>, tensor<300x40xbf16>) {
  %half = arith.constant 5.000000e-01 : f32
  %x, %y = "task.map"(%a, %s) ({
  ^bb0(%e: f32, %f: f32):
    %p = arith.mulf %e, %f : f32
    %q = arith.addf %p, %half : f32
    %r = arith.truncf %q : f32 to bf16
    gpu.yield %q, %r : f32, bf16
  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<300x40xf32>, tensor<f32>) -> (tensor<300x40xf32>, tensor<300x40xbf16>)
  return %x, %y : tensor<300x40xf32>, tensor<300x40xbf16>
}

// -----

// task.reduce (mean over a middle axis of bf16): one output element per thread iteration, a sum in f32
// over the axis (stride 4), divided by its length.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0_i64 to %c10_i64 step %c1_i64 iter_args(%[[ACC:.*]] = %cst) -> (f32) : i64 {
// CHECK: arith.muli %{{.*}}, %c4_i64 : i64
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[MEAN:.*]] = arith.divf %[[SUM]], %{{.*}} : f32
// CHECK: llvm.store %[[MEAN]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: sym_name = "reduce"
func.func @reduce(%x: tensor<6x10x4xbf16>) -> tensor<6x4xf32> {
  %y = "task.reduce"(%x) {axis = 1 : i64, kind = "mean"} : (tensor<6x10x4xbf16>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// task.rmsnorm: 8 rows per tile, one per warp (nine tiles for 70 rows), a warp per row (lane l takes columns l, l +
// 32, ..., all loaded before use; the butterfly sums the squares): rms = sqrt(sum(x^2) / D + eps),
// y = x / rms * w, rounded to bf16.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c9_i64 step %c9_i64 : i64 {
// CHECK: %[[LO:.*]] = arith.muli %[[VT]], %c8_i64 : i64
// CHECK: arith.minsi %{{.*}}, %c70_i64 : i64
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: scf.for
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[SS:.*]] = arith.addf %{{.*}}, %[[X2]] : f32
// CHECK: gpu.shuffle xor %[[SS]], %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[MS:.*]] = arith.divf %[[SUM]], %{{.*}} : f32
// CHECK: %[[MSE:.*]] = arith.addf %[[MS]], %{{.*}} : f32
// CHECK: %[[RMS:.*]] = math.sqrt %[[MSE]] : f32
// CHECK: %[[N:.*]] = arith.divf %{{.*}}, %[[RMS]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[N]], %{{.*}} : f32
// CHECK: %[[YB:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK: llvm.store %[[YB]], %{{.*}} : bf16, !llvm.ptr<1>
// CHECK: sym_name = "rmsnorm"
func.func @rmsnorm(%x: tensor<70x32xf32>, %w: tensor<32xf32>) -> tensor<70x32xbf16> {
  %y = "task.rmsnorm"(%x, %w) {eps = 1.000000e-05 : f64} : (tensor<70x32xf32>, tensor<32xf32>) -> tensor<70x32xbf16>
  return %y : tensor<70x32xbf16>
}

// -----

// task.softmax: max (NaN-propagating), sum of exp(x - max), exp(x - max) / sum per row.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[MAX:.*]] = scf.for {{.*}} -> (f32)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = scf.for {{.*}} -> (f32)
// CHECK: arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK: math.exp
// CHECK: scf.for
// CHECK: %[[E:.*]] = math.exp
// CHECK: %[[Y:.*]] = arith.divf %[[E]], %[[SUM]] : f32
// CHECK: llvm.store %[[Y]]
// CHECK: sym_name = "softmax"
func.func @softmax(%x: tensor<3x5x11xf32>) -> tensor<3x5x11xf32> {
  %y = "task.softmax"(%x) : (tensor<3x5x11xf32>) -> tensor<3x5x11xf32>
  return %y : tensor<3x5x11xf32>
}

// -----

// task.cross_entropy: tiles of 8 rows (70 rows: 9); warp w takes the tile's row w: the row's
// max and exp sum in one pass over its lanes (33 columns: no whole group of 8 per lane, so the tail loop
// carries the (max, sum) state), the lanes' states merged by xor butterflies of shuffles (the same on
// every lane), the row losses added
// in order; thread 0 adds the 8 warp sums in warp order into the tile's partial (@latch_task0_partials),
// fences (release) and counts the tile in (@latch_task0_arrivals). The tile that arrives last (8 before it)
// fences (acquire); its warp 0 adds the partials in index order (lanes striding them, then the butterfly),
// stores the mean and resets the counter. The two scratch globals are zero-initialised in gpu.module.
// The scratch globals reach the tile body as its last two arguments.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, {{[0-9]+}}>}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[PARTIALS:.*]]: !llvm.ptr<1>, %[[ARRIVALS:.*]]: !llvm.ptr<1>)
// CHECK: %[[TID:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c9_i64 step %c9_i64 : i64 {
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32_i64 : i64
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32) : i64 {
// CHECK: %[[STATE:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c33_i64 step %c32_i64 iter_args({{.*}}) -> (f32, f32) : i64 {
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: gpu.shuffle xor %[[STATE]]#0, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %[[STATE]]#1, %c16_i32, %c32_i32 : f32
// CHECK: math.log
// CHECK: nvvm.barrier0
// CHECK: llvm.store %[[PART]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0_i64 : i64
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[TILE_SUM:.*]] = scf.for {{.*}} -> (f32) : i64 {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.store %[[TILE_SUM]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: nvvm.barrier0
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: %[[OLD:.*]] = llvm.atomicrmw add %[[ARRIVALS]], %c1_i32 syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: %[[LAST:.*]] = arith.cmpi eq, %[[OLD]], %c8_i32 : i32
// CHECK: nvvm.barrier0
// CHECK: %[[FINISHING:.*]] = arith.cmpf one
// CHECK-NEXT: scf.if %[[FINISHING]] {
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK: scf.for {{.*}} -> (f32) : i64 {
// CHECK: llvm.getelementptr %[[PARTIALS]]
// CHECK-NEXT: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: %[[LOSS:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: llvm.store %[[LOSS]]
// CHECK: llvm.getelementptr %[[ARRIVALS]]
// CHECK-NEXT: llvm.store %c0_i32, %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: nvvm.barrier0
// CHECK: func.func @task_0(
// CHECK: %[[P:.*]] = llvm.mlir.addressof @latch_task0_partials : !llvm.ptr<1>
// CHECK: %[[A:.*]] = llvm.mlir.addressof @latch_task0_arrivals : !llvm.ptr<1>
// CHECK: call @task_body_0(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[P]], %[[A]])
// CHECK: llvm.mlir.global internal @latch_task0_partials() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<9 x f32>
// CHECK-NEXT: llvm.mlir.zero : !llvm.array<9 x f32>
// CHECK: llvm.mlir.global internal @latch_task0_arrivals() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
// CHECK-NEXT: llvm.mlir.zero : !llvm.array<1 x i32>
// CHECK: sym_name = "cross_entropy"
func.func @cross_entropy(%l: tensor<70x33xbf16>, %t: tensor<70xi32>) -> tensor<f32> {
  %loss = "task.cross_entropy"(%l, %t) : (tensor<70x33xbf16>, tensor<70xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// task.embedding: element-parallel copies of table rows; an id outside [0, V) gives 0.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: arith.select %[[IN]], %{{.*}}, %c0_i64 : i64
// CHECK: %[[V:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : bf16
// CHECK: llvm.store %[[V]], %{{.*}} : bf16, !llvm.ptr<1>
// CHECK: sym_name = "embedding"
func.func @embedding(%table: tensor<50x12xbf16>, %ids: tensor<3x7xi32>) -> tensor<3x7x12xbf16> {
  %y = "task.embedding"(%table, %ids) : (tensor<50x12xbf16>, tensor<3x7xi32>) -> tensor<3x7x12xbf16>
  return %y : tensor<3x7x12xbf16>
}

// -----

// task.rope: the pairs of the position's 3 heads loaded first (3 does not divide the tile's 64 rows, so
// each head checks that its row is in the tile), then theta^(-2i/hd) chosen among the host's values (no
// pow), the angle and its cosine and sine in f64 once per (position, i), then the rotation in f32.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK-NOT: math.powf
// CHECK-COUNT-6: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: %[[I1:.*]] = arith.cmpi eq, %[[I:.*]], %c1_i64 : i64
// CHECK: %[[F1:.*]] = arith.select %[[I1]], %cst_{{[0-9]+}}, %cst_{{[0-9]+}} : f64
// CHECK: arith.cmpi eq, %[[I]], %c2_i64 : i64
// CHECK: arith.cmpi eq, %[[I]], %c3_i64 : i64
// CHECK: %[[F:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK: %[[ANGLE:.*]] = arith.mulf %{{.*}}, %[[F]] : f64
// CHECK: %[[COS:.*]] = math.cos %[[ANGLE]] : f64
// CHECK: arith.truncf %[[COS]] : f64 to f32
// CHECK: %[[SIN:.*]] = math.sin %[[ANGLE]] : f64
// CHECK: arith.truncf %[[SIN]] : f64 to f32
// CHECK-NOT: math.cos
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: llvm.store
// CHECK-NOT: math.powf
// CHECK: sym_name = "rope"
func.func @rope(%x: tensor<2x9x3x8xf32>) -> tensor<2x9x3x8xf32> {
  %y = "task.rope"(%x) {theta = 1.000000e+04 : f64} : (tensor<2x9x3x8xf32>) -> tensor<2x9x3x8xf32>
  return %y : tensor<2x9x3x8xf32>
}

// -----

// task.attention: tiles of 64 interleaved query rows of one (b, h): 6 (T = 20 gives one tile per head,
// rows = slots); warp w takes the slots w, 15 - w, 16 + w, ... (8 rounds, odd rounds mirrored) with the
// row's elements spread over the lanes (here one each: hd = 8); the online softmax carries (m, l, acc)
// over the keys, each score a dot product combined by the xor butterfly of shuffles.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32_i64 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c6_i64 step %c6_i64 : i64 {
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32_i64 : i64
// CHECK: scf.for %[[ROUND:.*]] = %c0_i64 to %c8_i64 step %c1_i64 : i64 {
// CHECK: %[[ODD:.*]] = arith.remui %[[ROUND]], %c2_i64 : i64
// CHECK: %[[MIRROR:.*]] = arith.cmpi ne, %[[ODD]], %c0_i64 : i64
// CHECK: %[[BACK:.*]] = arith.subi %c7_i64, %[[WARP]] : i64
// CHECK: arith.select %[[MIRROR]], %[[BACK]], %[[WARP]] : i64
// CHECK: %[[I:.*]] = arith.addi %c0_i64, %{{.*}} : i64
// CHECK: %[[INSIDE:.*]] = arith.cmpi slt, %[[I]], %c20_i64 : i64
// CHECK: scf.if %[[INSIDE]] {
// CHECK: %[[KEYS:.*]] = arith.addi %[[I]], %c1_i64 : i64
// Two keys per iteration up to the even count, then the odd key (row_loop): the same steps in order.
// CHECK: %[[COUNT:.*]] = arith.subi %[[KEYS]], %c0_i64 : i64
// CHECK: %[[HALF:.*]] = arith.divui %{{.*}}, %c2_i64 : i64
// CHECK: %[[EVEN:.*]] = arith.muli %[[HALF]], %c2_i64 : i64
// CHECK: %[[PAIRS_END:.*]] = arith.addi %c0_i64, %[[EVEN]] : i64
// CHECK: %[[ML:.*]]:3 = scf.for %[[J:.*]] = %c0_i64 to %[[PAIRS_END]] step %c2_i64 iter_args(%[[M:.*]] = %cst{{.*}}, %[[L:.*]] = %cst{{.*}}, %{{.*}} = %cst{{.*}}) -> (f32, f32, f32) : i64 {
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: %[[M1:.*]] = arith.maximumf %[[M]], %{{.*}} : f32
// CHECK: math.exp
// CHECK: math.exp
// CHECK: arith.addi %[[J]], %c1_i64 : i64
// CHECK: %[[M2:.*]] = arith.maximumf %[[M1]], %{{.*}} : f32
// CHECK: scf.yield %[[M2]], %{{.*}}, %{{.*}} : f32, f32, f32
// CHECK: %[[ODD_LEFT:.*]] = arith.cmpi slt, %[[PAIRS_END]], %[[KEYS]] : i64
// CHECK: %[[LAST:.*]]:3 = scf.if %[[ODD_LEFT]] -> (f32, f32, f32) {
// CHECK: arith.maximumf %[[ML]]#0, %{{.*}} : f32
// CHECK: } else {
// CHECK: scf.yield %[[ML]]#0, %[[ML]]#1, %[[ML]]#2 : f32, f32, f32
// CHECK: arith.divf %[[LAST]]#2, %[[LAST]]#1 : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: sym_name = "attention"
func.func @attention(%q: tensor<2x3x20x8xbf16>, %k: tensor<2x3x20x8xbf16>, %v: tensor<2x3x20x8xbf16>) -> tensor<2x3x20x8xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 3.535500e-01 : f64} : (tensor<2x3x20x8xbf16>, tensor<2x3x20x8xbf16>, tensor<2x3x20x8xbf16>) -> tensor<2x3x20x8xbf16>
  return %o : tensor<2x3x20x8xbf16>
}

// -----

// task.topk: slot s takes the first element (larger first, NaN largest, ties to the lower index) after
// the one slot s-1 took.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[SLOTS:.*]]:2 = scf.for %{{.*}} = %c0_i64 to %c3_i64 step %c1_i64 iter_args(%{{.*}} = %cst, %{{.*}} = %c-1_i64) -> (f32, i64) : i64 {
// CHECK: %[[BEST:.*]]:2 = scf.for %{{.*}} = %c0_i64 to %c7_i64 step %c1_i64 iter_args(%{{.*}} = %cst, %{{.*}} = %c-1_i64) -> (f32, i64) : i64 {
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: llvm.store %[[BEST]]#0, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: %[[INDEX:.*]] = arith.trunci %[[BEST]]#1 : i64 to i32
// CHECK: llvm.store %[[INDEX]], %{{.*}} : i32, !llvm.ptr<1>
// CHECK: sym_name = "topk"
func.func @topk(%x: tensor<10x7xf32>) -> (tensor<10x3xf32>, tensor<10x3xi32>) {
  %v, %i = "task.topk"(%x) {k = 3 : i64} : (tensor<10x7xf32>) -> (tensor<10x3xf32>, tensor<10x3xi32>)
  return %v, %i : tensor<10x3xf32>, tensor<10x3xi32>
}

// -----

// task.bucket with G = 4 <= 32 buckets (the match form): one tile per 256 sort positions (18 ids: one
// tile). The tile zeroes its per-warp counts in shared memory, counts over all ids 256 at a time (each
// warp's lanes of equal ids found by match.any; the lowest lane of each adds their number to its warp's
// count of the id, and to the count before the tile or of the tile's own step), keeps the number of its
// warp's lanes below it with its id in the tile's own step, then each thread places its id (the sums of
// the earlier buckets, the ids before the tile, the earlier warps' and lanes' equal ids of the tile) and
// tile 0 writes ends. No scratch memory, no global atomics.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c1_i64 step %c1_i64 : i64 {
// CHECK: %[[P0:.*]] = arith.muli %[[VT]], %c256_i64 : i64
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c768_i64 step %{{.*}} : i64 {
// CHECK: llvm.store %c0_i32, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[RANK:.*]] = scf.for %[[C:.*]] = %c0_i64 to %c18_i64 step %c256_i64 iter_args(%[[ARG:.*]] = %c0_i32) -> (i32) : i64 {
// CHECK: %[[SAME:.*]] = nvvm.match.sync any %c-1_i32, %{{.*}} : i32 -> i32
// CHECK: %[[FIRST:.*]] = "llvm.intr.cttz"(%[[SAME]])
// CHECK: %[[OWN:.*]] = arith.cmpi eq, %[[C]], %[[P0]] : i64
// CHECK: scf.if
// CHECK: %[[COUNT:.*]] = llvm.intr.ctpop(%[[SAME]]) : (i32) -> i32
// CHECK: llvm.atomicrmw add %{{.*}}, %[[COUNT]] syncscope("block") monotonic : !llvm.ptr<3>, i32
// CHECK: arith.cmpi slt, %[[C]], %[[P0]] : i64
// CHECK: llvm.atomicrmw add %{{.*}}, %[[COUNT]] syncscope("block") monotonic : !llvm.ptr<3>, i32
// CHECK: scf.if %[[OWN]] {
// CHECK: llvm.atomicrmw add %{{.*}}, %[[COUNT]] syncscope("block") monotonic : !llvm.ptr<3>, i32
// CHECK: %[[BELOW:.*]] = arith.andi %[[SAME]], %{{.*}} : i32
// CHECK: %[[LANES:.*]] = llvm.intr.ctpop(%[[BELOW]]) : (i32) -> i32
// CHECK: %[[NEXT:.*]] = arith.select %[[OWN]], %[[LANES]], %[[ARG]] : i32
// CHECK: scf.yield %[[NEXT]] : i32
// CHECK-NOT: nvvm.vote.sync
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: arith.extui %[[RANK]] : i32 to i64
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
// CHECK: %[[TILE0:.*]] = arith.cmpi eq, %[[VT]], %c0_i64 : i64
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
// CHECK: sym_name = "bucket"
func.func @bucket(%ids: tensor<9x2xi32>) -> (tensor<18xi32>, tensor<4xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 4 : i64} : (tensor<9x2xi32>) -> (tensor<18xi32>, tensor<4xi32>)
  return %order, %ends : tensor<18xi32>, tensor<4xi32>
}

// -----

// task.bucket with G = 40 > 32 buckets: items 0..G-1 count ends[g], the others place one id each (each
// from all N ids), in virtual tiles of 256 items.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c1_i64 step %c1_i64 : i64 {
// CHECK: %[[LO:.*]] = arith.muli %[[VT]], %c256_i64 : i64
// CHECK: %[[HI0:.*]] = arith.addi %[[LO]], %c256_i64 : i64
// CHECK: %[[HI:.*]] = arith.minsi %[[HI0]], %c58_i64 : i64
// CHECK: scf.for %[[W:.*]] = %{{.*}} to %[[HI]] step %{{.*}} : i64 {
// CHECK: %[[ENDS:.*]] = arith.cmpi slt, %[[W]], %c40_i64 : i64
// CHECK: scf.if %[[ENDS]] {
// CHECK: %[[COUNT:.*]] = scf.for %{{.*}} = %c0_i64 to %c18_i64 step %c1_i64 iter_args(%{{.*}} = %c0_i32) -> (i32) : i64 {
// CHECK: llvm.store %[[COUNT]], %{{.*}} : i32, !llvm.ptr<1>
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %c0_i64 to %c18_i64 step %c1_i64 iter_args(%{{.*}} = %c0_i64) -> (i64) : i64 {
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
// CHECK: sym_name = "bucket_many"
func.func @bucket_many(%ids: tensor<9x2xi32>) -> (tensor<18xi32>, tensor<40xi32>) {
  %order, %ends = "task.bucket"(%ids) {buckets = 40 : i64} : (tensor<9x2xi32>) -> (tensor<18xi32>, tensor<40xi32>)
  return %order, %ends : tensor<18xi32>, tensor<40xi32>
}

// -----

// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: arith.cmpi slt, %{{.*}}, %c15_i64 : i64
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: sym_name = "gather_rows"
func.func @gather_rows(%x: tensor<15x6xf32>, %idx: tensor<11xi32>) -> tensor<11x6xf32> {
  %y = "task.gather_rows"(%x, %idx) : (tensor<15x6xf32>, tensor<11xi32>) -> tensor<11x6xf32>
  return %y : tensor<11x6xf32>
}

// -----

// task.scatter_add_rows with few sources (11 <= 32): each y element tests every source and sums the x rows
// that go to it, in increasing s (no atomics), in tiles of 8192 elements.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0_i64 to %c11_i64 step %c1_i64 iter_args(%[[ACC:.*]] = %cst) -> (f32) : i64 {
// CHECK: %[[HIT:.*]] = arith.cmpi eq
// CHECK: %[[ADDED:.*]] = arith.addf %[[ACC]]
// CHECK: arith.select %[[HIT]], %[[ADDED]], %[[ACC]] : f32
// CHECK: llvm.store %[[SUM]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: sym_name = "scatter_add_rows"
func.func @scatter_add_rows(%x: tensor<11x6xf32>, %idx: tensor<11xi32>) -> tensor<5x6xf32> {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 5 : i64} : (tensor<11x6xf32>, tensor<11xi32>) -> tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// -----

// task.scatter_add_rows with many sources (100): a tile of 8 y rows (7 rows: one tile; 64 rows would give
// fewer than 256 tiles, and so would 32 and 16: latch_scatter_tile_rows halves down to 8) reads the indices
// in chunks of 8 rounds of 256, all 8 loads first (the list length and "first flush to come" carried);
// each (round, warp)'s ballot and match count (ctpop) go to shared memory, each match writes its s and
// local row at its place (after the list so far, the chunk's earlier rounds, the matches of earlier warps,
// then of earlier lanes: increasing s). After the last chunk (or when the
// list is nearly full) the list is flushed: warp w takes rows w, w + 8, ..., starting from zero (first
// flush) or from y, scans the list 32 entries at a time (ballot of its row), and for each match in lane
// order (cttz of the mask, the s shuffled from that lane) adds x[s] for its 8 columns per lane; then
// stores the row.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %{{.*}} = %c0_i64 to %c100_i64 step %c2048_i64 iter_args(%[[LEN:.*]] = %c0_i64, %[[FIRST:.*]] = %c1_i64) -> (i64, i64) : i64 {
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK: arith.cmpi slt, %{{.*}}, %c8_i64 : i64
// CHECK: %[[MASK:.*]] = nvvm.vote.sync ballot %c-1_i32, %{{.*}} -> i32
// CHECK: llvm.intr.ctpop(%[[MASK]]) : (i32) -> i32
// CHECK-COUNT-7: nvvm.vote.sync ballot
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %{{.*}}:2 = scf.if %{{.*}} -> (i64, i64) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8_i64 step %c8_i64 : i64 {
// CHECK: scf.for %{{.*}} = %c0_i64 to %c40_i64 step %c256_i64 : i64 {
// CHECK: %[[SUMS:.*]]:8 = scf.for %{{.*}} = %c0_i64 to %{{.*}} step %c32_i64 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) : i64 {
// CHECK: %[[ROWS:.*]] = nvvm.vote.sync ballot %c-1_i32, %{{.*}} -> i32
// CHECK: scf.for {{.*}} -> (i32, f32, f32, f32, f32, f32, f32, f32, f32) : i64 {
// CHECK: "llvm.intr.cttz"
// CHECK: gpu.shuffle idx
// CHECK-COUNT-8: arith.addf
// CHECK: llvm.store %[[SUMS]]#0, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: nvvm.barrier0
// CHECK: } else {
// CHECK: sym_name = "scatter_add_rows_scan"
func.func @scatter_add_rows_scan(%x: tensor<100x40xf32>, %idx: tensor<100xi32>) -> tensor<7x40xf32> {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 7 : i64} : (tensor<100x40xf32>, tensor<100xi32>) -> tensor<7x40xf32>
  return %y : tensor<7x40xf32>
}

// -----

// The tile rows by the row count (at most 256, halved while under 256 tiles): 8192 rows in tiles of 64
// would be 128 tiles (< 256), in tiles of 32 are 256 (the body's tile range), whose warps take rows w
// and w + 8, w + 16, w + 24; 16384 rows take 64 (256 tiles), 65536 rows 256 (256 tiles).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, 256>}
// CHECK: arith.cmpi slt, %{{.*}}, %c32_i64 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32_i64 step %c8_i64 : i64 {
// CHECK: func.func @task_body_1(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, 256>}
// CHECK: arith.cmpi slt, %{{.*}}, %c64_i64 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64_i64 step %c8_i64 : i64 {
// CHECK: func.func @task_body_2(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, 256>}
// CHECK: arith.cmpi slt, %{{.*}}, %c256_i64 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256_i64 step %c8_i64 : i64 {
// CHECK: sym_name = "scatter_add_rows_tile_rows"
func.func @scatter_add_rows_tile_rows(%x: tensor<100x40xf32>, %idx: tensor<100xi32>, %x1: tensor<100x1xf32>)
    -> (tensor<8192x40xf32>, tensor<16384x40xf32>, tensor<65536x1xf32>) {
  %y = "task.scatter_add_rows"(%x, %idx) {rows = 8192 : i64} : (tensor<100x40xf32>, tensor<100xi32>) -> tensor<8192x40xf32>
  %z = "task.scatter_add_rows"(%x, %idx) {rows = 16384 : i64} : (tensor<100x40xf32>, tensor<100xi32>) -> tensor<16384x40xf32>
  %w = "task.scatter_add_rows"(%x1, %idx) {rows = 65536 : i64} : (tensor<100x1xf32>, tensor<100xi32>) -> tensor<65536x1xf32>
  return %y, %z, %w : tensor<8192x40xf32>, tensor<16384x40xf32>, tensor<65536x1xf32>
}

// -----

// task.reshape: a copy from the argument (task_0), by 16-byte vectors (24 f32: 6 vectors, 4 per thread
// iteration, all loaded before the first store); the map (task_1) and nothing for the reshape of its
// dying result, which the planner put in the same bytes (task_2).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %{{.*}} = %c0_i64 to %{{.*}} step %c1024_i64 : i64 {
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: func.func @task_1(
// CHECK: func.func @task_2(
// CHECK-NOT: llvm.store
// CHECK: return
// CHECK: sym_name = "reshape"
func.func @reshape(%x: tensor<4x6xf32>) -> (tensor<3x8xf32>, tensor<24xf32>) {
  %copy = "task.reshape"(%x) : (tensor<4x6xf32>) -> tensor<3x8xf32>
  %n = "task.map"(%x) ({
  ^bb0(%e: f32):
    %m = arith.negf %e : f32
    gpu.yield %m : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %flat = "task.reshape"(%n) : (tensor<4x6xf32>) -> tensor<24xf32>
  return %copy, %flat : tensor<3x8xf32>, tensor<24xf32>
}

// -----

// task.transpose: y's coordinates from its flat index, x's offset from them (strides of perm).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: arith.remui %{{.*}}, %c5_i64 : i64
// CHECK: arith.remui %{{.*}}, %c3_i64 : i64
// CHECK: arith.remui %{{.*}}, %c4_i64 : i64
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> bf16
// CHECK: llvm.store %[[X]], %{{.*}} : bf16, !llvm.ptr<1>
// CHECK: sym_name = "transpose"
func.func @transpose(%x: tensor<2x3x4x5xbf16>) -> tensor<2x4x3x5xbf16> {
  %y = "task.transpose"(%x) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x4x5xbf16>) -> tensor<2x4x3x5xbf16>
  return %y : tensor<2x4x3x5xbf16>
}

// -----

// task.transpose keeping the last axis (runs of 16 bf16): 16-byte vectors, the source of each vector from
// the coordinates of its first element; perm [0, 2, 1, 3] of [2, 3, 4, 16].
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: arith.remui %{{.*}}, %c16_i64 : i64
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: sym_name = "transpose_rows"
func.func @transpose_rows(%x: tensor<2x3x4x16xbf16>) -> tensor<2x4x3x16xbf16> {
  %y = "task.transpose"(%x) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x4x16xbf16>) -> tensor<2x4x3x16xbf16>
  return %y : tensor<2x4x3x16xbf16>
}

// -----

// task.convert: f32 -> bf16 rounds to nearest even; f32 -> i32 truncates and saturates, NaN gives 0.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[B:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: llvm.store %[[B]], %{{.*}} : bf16, !llvm.ptr<1>
// CHECK: func.func @task_body_1(
// CHECK: %[[NAN:.*]] = arith.cmpf uno
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %c0_i32, %{{.*}} : i32
// CHECK: llvm.store %[[R]], %{{.*}} : i32, !llvm.ptr<1>
// CHECK: sym_name = "convert"
func.func @convert(%x: tensor<4x9xf32>) -> (tensor<4x9xbf16>, tensor<4x9xi32>) {
  %b = "task.convert"(%x) : (tensor<4x9xf32>) -> tensor<4x9xbf16>
  %i = "task.convert"(%x) : (tensor<4x9xf32>) -> tensor<4x9xi32>
  return %b, %i : tensor<4x9xbf16>, tensor<4x9xi32>
}

// -----

// By vectors: task.convert f32 -> bf16 of 32 elements (vectors of 8: a 32-byte load, one truncf of the
// vector, a 16-byte store) and task.gather_rows of bf16 rows of 16 (16-byte vectors; the row's id read
// once per vector, zeros for an id outside the table).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[X:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf32>
// CHECK: arith.truncf %[[X]] : vector<8xf32> to vector<8xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK: func.func @task_body_1(
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK: %[[ROW:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : vector<4xi32>
// CHECK: arith.select %{{.*}}, %[[ROW]], %[[ZERO]] : vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: sym_name = "by_vectors"
func.func @by_vectors(%x: tensor<4x8xf32>, %t: tensor<5x16xbf16>, %idx: tensor<3xi32>) -> (tensor<4x8xbf16>, tensor<3x16xbf16>) {
  %b = "task.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %y = "task.gather_rows"(%t, %idx) : (tensor<5x16xbf16>, tensor<3xi32>) -> tensor<3x16xbf16>
  return %b, %y : tensor<4x8xbf16>, tensor<3x16xbf16>
}

// -----

// task.adamw: the element's loads first, then the bias corrections in f64 from the i32 step, beta^t by
// squaring over t's bits (no pow: a libdevice call), then the step; p', m', v' are stored over p, m, v:
// the results' pointers come from args[3 + 0], args[3 + 2] and args[3 + 3] again.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, {{[0-9]+}}>}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[STEP:.*]]: !llvm.ptr<1>, %[[P:.*]]: !llvm.ptr<1>, %[[M:.*]]: !llvm.ptr<1>, %[[V:.*]]: !llvm.ptr<1>)
// CHECK-NOT: math.powf
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: %[[T:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK: arith.extsi %[[T]] : i32 to i64
// CHECK: "llvm.intr.ctlz"
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f64, f64, f64, f64, i64)
// CHECK: arith.andi
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.shrui
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: math.powf
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: %[[AT_P:.*]] = llvm.getelementptr %[[P]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store %{{.*}}, %[[AT_P]]
// CHECK: %[[AT_M:.*]] = llvm.getelementptr %[[M]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store %{{.*}}, %[[AT_M]]
// CHECK: %[[AT_V:.*]] = llvm.getelementptr %[[V]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store %{{.*}}, %[[AT_V]]
// CHECK: func.func @task_0(%{{.*}}: i32, %[[ARGS:.*]]: !llvm.ptr<1>)
// CHECK: llvm.getelementptr %[[ARGS]][3]
// CHECK: llvm.getelementptr %[[ARGS]][4]
// CHECK: llvm.getelementptr %[[ARGS]][5]
// CHECK: llvm.getelementptr %[[ARGS]][6]
// CHECK: llvm.getelementptr %[[ARGS]][7]
// CHECK: llvm.getelementptr %[[ARGS]][3]
// CHECK: llvm.getelementptr %[[ARGS]][5]
// CHECK: llvm.getelementptr %[[ARGS]][6]
// CHECK: sym_name = "adamw"
func.func @adamw(%p: tensor<40xf32>, %g: tensor<40xf32>, %m: tensor<40xf32>, %v: tensor<40xf32>, %step: tensor<i32>) -> (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>) {
  %p1, %m1, %v1 = "task.adamw"(%p, %g, %m, %v, %step) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64} : (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<i32>) -> (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>)
  return %p1, %m1, %v1 : tensor<40xf32>, tensor<40xf32>, tensor<40xf32>
}

// -----

// task.reduce_grad (max): dy goes to the first index of the largest element (NaN largest).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[BEST:.*]]:2 = scf.for %{{.*}} = %c1_i64 to %c5_i64 step %c1_i64 iter_args({{.*}}) -> (f32, i64) : i64 {
// CHECK: %[[AT:.*]] = arith.cmpi eq, %{{.*}}, %[[BEST]]#1 : i64
// CHECK: %[[DX:.*]] = arith.select %[[AT]], %{{.*}}, %cst{{.*}} : f32
// CHECK: llvm.store %[[DX]]
// CHECK: sym_name = "reduce_grad"
func.func @reduce_grad(%x: tensor<4x5xf32>, %dy: tensor<4xf32>) -> tensor<4x5xf32> {
  %dx = "task.reduce_grad"(%x, %dy) {axis = 1 : i64, kind = "max"} : (tensor<4x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  return %dx : tensor<4x5xf32>
}

// -----

// task.rmsnorm_grad: virtual tiles 0..17 are the dw tiles (one column tile of 256 columns x 18 chunks of
// 64 rows: latch_rmsnorm_grad_chunk_rows; first, being the longer), tiles 18..86 the 16-row tiles of dx,
// row tile vt - 18; dx takes a warp per row (the butterfly sums over lanes), the dw tile's inverse RMS a
// warp per two rows, both rows' loads first. The dw tile puts the chunk's inverse RMS in shared memory,
// and each thread sums its column over the chunk's rows in order (blocks of 16 rows with their loads
// first, then the rest one by one) into the chunk's part (task scratch: @latch_task0_partials, 18 x 16),
// fenced (release); thread 0 counts the chunk in; the last of the 18 fences (acquire), adds the parts in
// chunk order (16 loaded at a time, then the other 2) into dw and resets the counter.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, {{[0-9]+}}>}, {{(%[^:]*: !llvm.ptr<1>, )+}}%[[PARTIALS:.*]]: !llvm.ptr<1>, %[[ARRIVALS:.*]]: !llvm.ptr<1>)
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c87_i64 step %c87_i64 : i64 {
// CHECK: %[[ROWS:.*]] = arith.cmpi sge, %[[VT]], %c18_i64 : i64
// CHECK: scf.if %[[ROWS]] {
// CHECK: %[[ROW_TILE:.*]] = arith.subi %[[VT]], %c18_i64 : i64
// CHECK: arith.muli %[[ROW_TILE]], %c16_i64 : i64
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: math.sqrt
// CHECK: llvm.store
// CHECK: } else {
// CHECK: %[[CT:.*]] = arith.divui %[[VT]], %c18_i64 : i64
// CHECK: %[[CH:.*]] = arith.remui %[[VT]], %c18_i64 : i64
// CHECK: nvvm.barrier0
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.shuffle
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: gpu.shuffle xor
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %c0_i64 to %{{.*}} step %c16_i64 iter_args(%{{.*}}) -> (f32) : i64 {
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-16: arith.addf
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1_i64 iter_args(%{{.*}}) -> (f32) : i64 {
// CHECK: llvm.getelementptr %[[PARTIALS]]
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.fence syncscope("device") release
// CHECK: %[[COUNTER:.*]] = llvm.getelementptr %[[ARRIVALS]][%[[CT]]]
// CHECK: nvvm.barrier0
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: %[[OLD:.*]] = llvm.atomicrmw add %[[COUNTER]], %c1_i32 syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: arith.cmpi eq, %[[OLD]], %c17_i32 : i32
// CHECK: nvvm.barrier0
// CHECK: llvm.fence syncscope("device") acquire
// CHECK: %[[PARTS:.*]] = scf.for %{{.*}} = %c0_i64 to %c16_i64 step %c16_i64 iter_args(%{{.*}}) -> (f32) : i64 {
// CHECK-COUNT-16: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[SEVENTEEN:.*]] = arith.addf %[[PARTS]], %{{.*}} : f32
// CHECK: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[DW:.*]] = arith.addf %[[SEVENTEEN]], %{{.*}} : f32
// CHECK: llvm.store %[[DW]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: llvm.store %c0_i32, %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: llvm.mlir.global internal @latch_task0_partials() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<288 x f32>
// CHECK: llvm.mlir.global internal @latch_task0_arrivals() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
// CHECK: sym_name = "rmsnorm_grad"
func.func @rmsnorm_grad(%x: tensor<1100x16xf32>, %w: tensor<16xf32>, %dy: tensor<1100x16xf32>) -> (tensor<1100x16xf32>, tensor<16xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.000000e-05 : f64} : (tensor<1100x16xf32>, tensor<16xf32>, tensor<1100x16xf32>) -> (tensor<1100x16xf32>, tensor<16xf32>)
  return %dx, %dw : tensor<1100x16xf32>, tensor<16xf32>
}

// -----

// task.rmsnorm_grad with more dx tiles of 16 rows than the grid's CTAs take beside its dw tiles (64 + 256
// > 264): dx tiles of 8 rows, a warp per row (64 dw tiles, then 512 dx tiles).
// CHECK-LABEL: gpu.module @latch
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c576_i64 step %c576_i64 : i64 {
// CHECK: %[[ROW_TILE:.*]] = arith.subi %[[VT]], %c64_i64 : i64
// CHECK: arith.muli %[[ROW_TILE]], %c8_i64 : i64
// CHECK: sym_name = "rmsnorm_grad_tall"
func.func @rmsnorm_grad_tall(%x: tensor<4096x16xf32>, %w: tensor<16xf32>, %dy: tensor<4096x16xf32>) -> (tensor<4096x16xf32>, tensor<16xf32>) {
  %dx, %dw = "task.rmsnorm_grad"(%x, %w, %dy) {eps = 1.000000e-05 : f64} : (tensor<4096x16xf32>, tensor<16xf32>, tensor<4096x16xf32>) -> (tensor<4096x16xf32>, tensor<16xf32>)
  return %dx, %dw : tensor<4096x16xf32>, tensor<16xf32>
}

// -----

// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[DOT:.*]] = scf.for {{.*}} -> (f32)
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %[[DOT]] : f32
// CHECK: %[[DX:.*]] = arith.mulf %{{.*}}, %[[D]] : f32
// CHECK: llvm.store %[[DX]]
// CHECK: sym_name = "softmax_grad"
func.func @softmax_grad(%y: tensor<6x9xf32>, %dy: tensor<6x9xf32>) -> tensor<6x9xf32> {
  %dx = "task.softmax_grad"(%y, %dy) : (tensor<6x9xf32>, tensor<6x9xf32>) -> tensor<6x9xf32>
  return %dx : tensor<6x9xf32>
}

// -----

// task.cross_entropy_grad: the splat constant dloss is an immediate (no memory), scaled by 1/N.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[N:.*]] = arith.constant 1.000000e+01 : f32
// CHECK: %[[SCALE:.*]] = arith.divf %[[ONE]], %[[N]] : f32
// CHECK: %[[P:.*]] = arith.divf
// CHECK: %[[PT:.*]] = arith.subf %[[P]], %[[ONE]] : f32
// CHECK: %[[G:.*]] = arith.select %{{.*}}, %[[PT]], %[[P]] : f32
// CHECK: %[[D:.*]] = arith.mulf %[[G]], %[[SCALE]] : f32
// CHECK: llvm.store %[[D]]
// CHECK: sym_name = "cross_entropy_grad"
func.func @cross_entropy_grad(%l: tensor<10x13xf32>, %t: tensor<10xi32>) -> tensor<10x13xf32> {
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %dl = "task.cross_entropy_grad"(%l, %t, %one) : (tensor<10x13xf32>, tensor<10xi32>, tensor<f32>) -> tensor<10x13xf32>
  return %dl : tensor<10x13xf32>
}

// -----

// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: sym_name = "rope_grad"
func.func @rope_grad(%dy: tensor<1x5x2x6xf32>) -> tensor<1x5x2x6xf32> {
  %dx = "task.rope_grad"(%dy) {theta = 5.000000e+02 : f64} : (tensor<1x5x2x6xf32>) -> tensor<1x5x2x6xf32>
  return %dx : tensor<1x5x2x6xf32>
}

// -----

// task.attention_grad: per (b, h, block), warp w takes query rows and key rows w, w + 8, ... (elements
// over the lanes); for each chunk of 2048 query rows (from the block's first row on, causal) lane 0 of
// the warp of a row writes its log-sum-exp (one online pass) and rowsum(do o) to shared memory between
// two CTA barriers; then the chunk's query rows sum dq over their keys, and the key rows (16 per warp)
// add the chunk's queries i >= j to dk and dv, carried across chunks in local memory; no atomics.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: llvm.alloca %c16_i64 x f32 : (i64) -> !llvm.ptr
// CHECK: llvm.alloca %c16_i64 x f32 : (i64) -> !llvm.ptr
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2_i64 step %c2_i64 : i64 {
// CHECK: scf.for %[[CHUNK:.*]] = %{{.*}} to %c6_i64 step %c2048_i64 : i64 {
// CHECK: nvvm.barrier0
// CHECK: scf.for {{.*}} -> (f32, f32) : i64 {
// CHECK: gpu.shuffle xor
// CHECK: math.log
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: scf.for %[[T:.*]] = %c0_i64 to %c16_i64 step %c1_i64 : i64 {
// CHECK: %[[FROM:.*]] = arith.maxsi %[[CHUNK]], %{{.*}} : i64
// CHECK: scf.for %{{.*}} = %[[FROM]] to %{{.*}} step %c1_i64 iter_args({{.*}}) -> (f32, f32) : i64 {
// CHECK: sym_name = "attention_grad"
func.func @attention_grad(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>, %o: tensor<1x2x6x4xf32>, %do: tensor<1x2x6x4xf32>) -> (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>) {
  %dq, %dk, %dv = "task.attention_grad"(%q, %k, %v, %o, %do) {causal = true, scale = 5.000000e-01 : f64} : (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>) -> (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>)
  return %dq, %dk, %dv : tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>
}

// -----

// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64 iter_args(%{{.*}}) -> (f32) : i64 {
// CHECK: arith.select
// CHECK: llvm.store %[[SUM]]
// CHECK: sym_name = "topk_grad"
func.func @topk_grad(%dv: tensor<6x2xf32>, %i: tensor<6x2xi32>) -> tensor<6x5xf32> {
  %dx = "task.topk_grad"(%dv, %i) {columns = 5 : i64} : (tensor<6x2xf32>, tensor<6x2xi32>) -> tensor<6x5xf32>
  return %dx : tensor<6x5xf32>
}

// -----

// task.grouped_matmul_weight_grad: tiles (g, 128 x 128 of K x N), each a tiled product whose reduction
// runs over the rows of group g, ends[g-1] .. ends[g] (clamped to [0, R]), in increasing r.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c3_i64 step %c3_i64 : i64 {
// CHECK: %[[BEGIN:.*]] = arith.minsi %{{.*}}, %c20_i64 : i64
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %c20_i64 : i64
// Both operands are contiguous along i (MN-major): wgmma reads them transposed (A <col>, B <row>).
// CHECK: %[[SUM:.*]]:2 = scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c64_i64 iter_args({{.*}}) -> ({{.*}}) : i64 {
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK: %[[FIRST:.*]] = llvm.extractvalue %[[SUM]]#0[0]
// CHECK: %[[R:.*]] = arith.truncf %[[FIRST]] : f32 to bf16
// CHECK: llvm.store %[[R]]
// CHECK: sym_name = "grouped_matmul_weight_grad"
func.func @grouped_matmul_weight_grad(%x: tensor<20x8xbf16>, %dy: tensor<20x12xbf16>, %ends: tensor<3xi32>) -> tensor<3x8x12xbf16> {
  %dw = "task.grouped_matmul_weight_grad"(%x, %dy, %ends) : (tensor<20x8xbf16>, tensor<20x12xbf16>, tensor<3xi32>) -> tensor<3x8x12xbf16>
  return %dw : tensor<3x8x12xbf16>
}

// -----

// task.attention_stats: the attention row tiles (2 heads of 40 rows: 2); per query row the online softmax
// over keys 0..i (causal), L = m + log(l) and D = do . o (both dot products by the xor butterfly); lane 0
// writes stats[row] = (L, D).
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2_i64 step %c2_i64 : i64 {
// CHECK: scf.for %{{.*}} = %c0_i64 to %c8_i64 step %c1_i64 : i64 {
// CHECK: %[[PAIRS:.*]]:2 = scf.for {{.*}} step %c2_i64 iter_args({{.*}}) -> (f32, f32) : i64 {
// CHECK: math.exp
// CHECK: math.exp
// CHECK: %[[ML:.*]]:2 = scf.if %{{.*}} -> (f32, f32) {
// CHECK: scf.yield %[[PAIRS]]#0, %[[PAIRS]]#1 : f32, f32
// CHECK: %[[LOG:.*]] = math.log %[[ML]]#1 : f32
// CHECK: %[[LSE:.*]] = arith.addf %[[ML]]#0, %[[LOG]] : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[D:.*]] = arith.addf
// CHECK: scf.if
// CHECK: llvm.store %[[LSE]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: llvm.store %[[D]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: sym_name = "stats"
func.func @stats(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x40x16xf32>, %o: tensor<1x2x40x16xf32>, %do: tensor<1x2x40x16xf32>) -> tensor<1x2x40x2xf32> {
  %s = "task.attention_stats"(%q, %k, %o, %do) {causal = true, scale = 2.500000e-01 : f64} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) -> tensor<1x2x40x2xf32>
  return %s : tensor<1x2x40x2xf32>
}

// -----

// task.attention_grad_from_stats: 2 query-row tiles, then 2 key-row tiles. A query row reads (L, D), sums
// dq over keys 0..i with P = exp(s scale - L); a key row sums dk and dv over the queries i >= j (causal)
// up to T = 40, and writes both.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c4_i64 step %c4_i64 : i64 {
// CHECK: %[[QUERY:.*]] = arith.cmpi slt, %[[VT]], %c2_i64 : i64
// CHECK: scf.if %[[QUERY]] {
// CHECK: scf.for {{.*}} -> (f32) : i64 {
// CHECK: math.exp
// CHECK: } else {
// CHECK: arith.subi %[[VT]], %c2_i64 : i64
// CHECK: %[[PAIRS:.*]]:2 = scf.for %{{.*}} = %[[J:.*]] to %{{.*}} step %c2_i64 iter_args({{.*}}) -> (f32, f32) : i64 {
// CHECK: math.exp
// CHECK: math.exp
// CHECK: %[[ODD:.*]] = arith.cmpi slt, %{{.*}}, %c40_i64 : i64
// CHECK: %[[DKV:.*]]:2 = scf.if %[[ODD]] -> (f32, f32) {
// CHECK: llvm.store %[[DKV]]#0
// CHECK: llvm.store %[[DKV]]#1
// CHECK: sym_name = "products"
func.func @products(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %do: tensor<1x2x40x16xf32>, %s: tensor<1x2x40x2xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) {
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 2.500000e-01 : f64} : (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x2xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
  return %dq, %dk, %dv : tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>
}

// -----

// Sharing: tasks that differ only in where their tensors live call one tile body (@task_body_0 here, for
// the two products of [8, 16] x [16, 8] at other places, and @map_body_3 for the two identical maps);
// the product of another shape and the map with another constant get their own. Each task keeps its own
// @task_<N>, which computes its pointers.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: func.func @task_0(
// CHECK: call @task_body_0(
// CHECK: func.func @task_1(
// CHECK: call @task_body_0(
// CHECK: func.func @task_body_2(
// CHECK: func.func @task_2(
// CHECK: call @task_body_2(
// CHECK: func.func private @map_body_3(
// CHECK: func.func @task_body_3(
// CHECK: func.call @map_body_3(
// CHECK: func.func @task_3(
// CHECK: func.func @task_4(
// CHECK: call @task_body_3(
// CHECK: func.func private @map_body_5(
// CHECK: func.func @task_body_5(
// CHECK: func.call @map_body_5(
// CHECK: func.func @task_5(
// CHECK-NOT: func.func
// CHECK: "task.matmul"{{.*}}task.device_function = "task_0"
// CHECK: "task.matmul"{{.*}}task.device_function = "task_1"
func.func @shared(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8x16xf32>, %d: tensor<16x4xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %x = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %y = "task.matmul"(%c, %b) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %z = "task.matmul"(%a, %d) {transpose_a = false, transpose_b = false} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %u = "task.map"(%x) ({
  ^bb0(%e: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %e, %two : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v = "task.map"(%y) ({
  ^bb0(%e: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %e, %two : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %w = "task.map"(%y) ({
  ^bb0(%e: f32):
    %three = arith.constant 3.0 : f32
    %r = arith.mulf %e, %three : f32
    gpu.yield %r : f32
  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %x, %y, %z, %u, %v, %w : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// task.attention on tensor cores (bf16 q, k, v, heads of 64, 64 query rows): warp w takes group w / 2
// and key-block parity w % 2 (so warps w and w + 4, which share an SM sub-partition, hold a light and a
// heavy group); the tile's warps read their group's q fragments (4 k16 steps x 4 words, 32-bit loads of
// bf16 pairs). The CTA stages the key blocks two at a time (k and v rows of blocks 2i and 2i + 1, by all
// its threads, one cp.async group per pair, after a CTA barrier per tile): the first pair before the loop
// over pairs, and in each iteration, after a wait for all copies and a CTA barrier, the next pair. Each
// warp then takes block 2i + its parity, in an scf.if that passes m, l (2 rows each) and its 32 output
// accumulators through when the block is past its causal range: 16 mma for the scores (k fragments by
// ldmatrix), the causal mask (a key after the row gives -inf), the row max over the quad (xor 1, 2), the
// exponentials, the scores as bf16 pairs and 16 mma for P v (v fragments by ldmatrix .trans). After the
// loop the odd warp's 36 values pass through shared memory between two CTA barriers; the even warp
// rescales both, sums l over the quad and writes o / l as bf16.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32_i64 : i64
// CHECK: %[[GROUP:.*]] = arith.divui %[[WARP]], %c2_i64 : i64
// CHECK-NEXT: %[[PARITY:.*]] = arith.remui %[[WARP]], %c2_i64 : i64
// CHECK: arith.cmpi slt, %[[GROUP]], %c2_i64 : i64
// CHECK: nvvm.barrier0
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:36 = scf.for %[[PAIR:.*]] = %c0_i64 to %[[PAIRS:.*]] step %c1_i64 iter_args({{.*}}) -> ({{(f32, )+}}f32) : i64 {
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[PAIR]], %c1_i64 : i64
// CHECK: arith.cmpi slt, %[[NEXT]], %[[PAIRS]] : i64
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: %[[TWICE:.*]] = arith.muli %[[PAIR]], %c2_i64 : i64
// CHECK-NEXT: %[[KB:.*]] = arith.addi %[[TWICE]], %[[PARITY]] : i64
// CHECK: %[[MINE:.*]] = arith.cmpi slt, %[[KB]], %{{.*}} : i64
// CHECK: %{{.*}}:36 = scf.if %[[MINE]] -> ({{(f32, )+}}f32) {
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK-COUNT-16: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: arith.cmpi sgt
// CHECK: arith.select %{{.*}}, %cst{{.*}}, %{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: math.exp
// CHECK: llvm.insertelement %{{.*}}, %{{.*}}[%c1_i32 : i32] : vector<2xf32>
// CHECK-NEXT: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-NOT: nvvm.cp.async
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK: scf.yield
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: arith.divf
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<1>
// CHECK: sym_name = "attention_tc"
func.func @attention_tc(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

// The split gradient on tensor cores: statistics (16 mma per key block, m and l carried, L = m + log l
// and D = do . o over the quad's columns, written by the quad's lane 0) and products: query tiles carry
// 32 dq accumulators over key blocks (16 mma for S, 16 for dP = do v^T, 16 for dS k), key tiles carry 64
// (dk, dv) over query blocks (16 + 16 mma for S^T and dP^T, 16 for dS^T q, 16 for P^T do). The CTA stages
// the other side's blocks two at a time (blocks 2i and 2i + 1, by all its threads, one cp.async group)
// into one of two buffers: the first pair before the loop over pairs, and in each iteration, after a wait
// for all copies and a CTA barrier, the next pair; then each warp computes the block of its parity, in an
// scf.if that passes its accumulators through where the block lies outside its causal range. The products
// read k and v (query tiles) or q and do (key tiles) from shared memory by ldmatrix (.trans where the
// block's rows are the product's k), never from global memory; key tiles also read their own k and v rows
// by ldmatrix, copied once per tile by each group's even warp. do (f32) is rounded to bf16 by vectors of 8.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %{{.*}}:4 = scf.for
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: math.log
// CHECK: func.func @task_body_1(
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %c0_i64 to %{{.*}} step %c1_i64 iter_args(
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:32 = scf.if %{{.*}} -> (f32,
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NEXT: llvm.extractvalue
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.barrier0
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-8: nvvm.cp.async.shared.global
// CHECK: }
// CHECK-COUNT-2: nvvm.cp.async.shared.global
// CHECK-COUNT-2: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:64 = scf.for
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.commit.group
// CHECK: %{{.*}}:64 = scf.if %{{.*}} -> (f32,
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK-NOT: nvvm.mma.sync
// CHECK: sym_name = "attention_grad_tc"
func.func @attention_grad_tc(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %s = "task.attention_stats"(%q, %k, %o, %do) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf32>) -> tensor<1x1x64x2xf32>
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf32>, tensor<1x1x64x2xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>)
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// The same products with a bf16 do (what latch-split-attention-grad gives them, convert-do): the key
// tiles stage q, do and the (L, D) pairs alike, by cp.async and no f32 loads.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %{{.*}}:64 = scf.for
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-5: nvvm.cp.async.shared.global
// CHECK-NOT: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-64: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: sym_name = "attention_grad_tc_bf16_do"
func.func @attention_grad_tc_bf16_do(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %do: tensor<1x1x64x64xbf16>, %s: tensor<1x1x64x2xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) {
  %dq, %dk, %dv = "task.attention_grad_from_stats"(%q, %k, %v, %do, %s) {causal = true, scale = 0.125 : f64} : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x2xf32>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>)
  return %dq, %dk, %dv : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
}

// -----

// task.matmul with few output tiles and a deep k ([64, 8192] x [8192, 64]: one tile): k splits into 16
// slices of 512 (dialects/schedule.c latch_matmul_k_slices: about 256 tiles, slices at least 512 deep on
// tensor cores),
// tiles = 16. Each slice's 64 accumulators per thread go to the pooled scratch @latch_pool0 (16 x 64 x
// 256 floats, written at the end of the pass) in the threads' own layout, fenced (release); the slice
// that arrives last at the tile's counter adds the 16 slices in order and stores the result.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(%{{.*}}: i32 {llvm.range = #llvm.constant_range<i32, 0, {{[0-9]+}}>}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[POOL:.*]]: !llvm.ptr<1>, %[[ARRIVALS:.*]]: !llvm.ptr<1>)
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c16_i64 step %c16_i64 : i64 {
// CHECK: arith.muli %{{.*}}, %c512_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK-COUNT-64: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: llvm.fence syncscope("device") release
// CHECK: llvm.atomicrmw add
// CHECK: %{{.*}}:64 = scf.for %{{.*}} = %c0_i64 to %c16_i64 step %c1_i64 iter_args(
// CHECK: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %c0_i32, %{{.*}} atomic syncscope("device") monotonic
// CHECK: func.func @task_0(
// CHECK: llvm.mlir.addressof @latch_pool0 : !llvm.ptr<1>
// CHECK: llvm.mlir.addressof @latch_task0_arrivals : !llvm.ptr<1>
// CHECK: llvm.mlir.global internal @latch_pool0() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<262144 x f32>
// CHECK: "task.matmul"{{.*}}tiles = 16 : i64
func.func @matmul_split(%a: tensor<64x8192xbf16>, %b: tensor<8192x64xbf16>) -> tensor<64x64xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<64x8192xbf16>, tensor<8192x64xbf16>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// A product with enough output tiles (256: [2048, 16384] x [16384, 2048]) still splits a k deeper than
// 8192 (LATCH_SPLIT_MAX_DEPTH) into slices of at most 8192: 2 slices, 512 tiles, each slice's depth
// ceil(16384 / 2) = 8192.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c512_i64 step %c512_i64 : i64 {
// CHECK: arith.muli %{{.*}}, %c8192_i64 : i64
// CHECK: llvm.fence syncscope("device") release
// CHECK: sym_name = "matmul_deep"
func.func @matmul_deep(%a: tensor<2048x16384xbf16>, %b: tensor<16384x2048xbf16>) -> tensor<2048x2048xf32> {
  %c = "task.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2048x16384xbf16>, tensor<16384x2048xbf16>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}

// -----

// task.attention with layout = "bthd" (latch-fold-transposes): q, k, v, o are [B, T, H, d], so (b, h) starts
// at element b T H d + h d (here bh / 2 * 2048 + bh % 2 * 16) and rows lie H d = 32 elements apart.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: %[[H:.*]] = arith.remui %[[BH:arg[0-9]+]], %c2_i64 : i64
// CHECK-NEXT: %[[HOFF:.*]] = arith.muli %[[H]], %c16_i64 : i64
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[BH]], %c2_i64 : i64
// CHECK-NEXT: %[[BOFF:.*]] = arith.muli %[[B]], %c2048_i64 : i64
// CHECK-NEXT: arith.addi %[[BOFF]], %[[HOFF]] : i64
// CHECK: arith.muli %{{.*}}, %c32_i64 : i64
// CHECK: nvvm.mma.sync
// CHECK: sym_name = "attention_bthd"
func.func @attention_bthd(%q: tensor<1x64x2x16xbf16>, %k: tensor<1x64x2x16xbf16>, %v: tensor<1x64x2x16xbf16>) -> tensor<1x64x2x16xbf16> {
  %o = "task.attention"(%q, %k, %v) {causal = true, layout = "bthd", scale = 2.500000e-01 : f64} : (tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>) -> tensor<1x64x2x16xbf16>
  return %o : tensor<1x64x2x16xbf16>
}

// -----

// The k-sliced narrow product (c = a^T b, 8 columns, k = 512): a thread per output element, 2 tiles of
// 256 outputs times 4 slices of 128 (8 virtual tiles), 8 elements of k per step; each slice's partial goes
// to scratch (release), the last of the tile's 4 arrivals (acquire) adds them in slice order.
// CHECK-LABEL: gpu.module @latch
// CHECK: func.func @task_body_0(
// CHECK: scf.for %[[VT:.*]] = %{{.*}} to %c8_i64 step %c8_i64 : i64 {
// CHECK-NEXT: %[[TILE:.*]] = arith.divui %[[VT]], %c4_i64 : i64
// CHECK-NEXT: %[[SLICE:.*]] = arith.remui %[[VT]], %c4_i64 : i64
// CHECK: %[[LO:.*]] = arith.muli %[[SLICE]], %c128_i64 : i64
// CHECK: scf.for %{{.*}} = %[[LO]] to %{{.*}} step %c8_i64 iter_args(%{{.*}} = %cst) -> (f32) : i64 {
// CHECK-COUNT-16: llvm.load
// CHECK: llvm.fence syncscope("device") release
// CHECK: llvm.atomicrmw add
// CHECK: llvm.fence syncscope("device") acquire
// CHECK: scf.for %{{.*}} = %c0_i64 to %c4_i64 step %c1_i64 iter_args(%{{.*}} = %cst) -> (f32) : i64 {
// CHECK: sym_name = "narrow_sliced"
func.func @narrow_sliced(%x: tensor<512x64xf32>, %dy: tensor<512x8xf32>) -> tensor<64x8xf32> {
  %dw = "task.matmul"(%x, %dy) {transpose_a = true, transpose_b = false} : (tensor<512x64xf32>, tensor<512x8xf32>) -> tensor<64x8xf32>
  return %dw : tensor<64x8xf32>
}
