// Every task op kind (and the variants the device templates distinguish), each reading program
// arguments so that each result can be checked on its own: used by test/lit/lower/all-ops.test and as a
// numerical check of the device code against latch-interp.
module {
  func.func @all(
      %mm_a: tensor<40x24xf32> {task.name = "mm_a"}, %mm_b: tensor<24x136xf32> {task.name = "mm_b"},
      %mt_a: tensor<24x40xbf16> {task.name = "mt_a"}, %mt_b: tensor<24x16xbf16> {task.name = "mt_b"},
      %mb_a: tensor<40x24xbf16> {task.name = "mb_a"}, %mb_b: tensor<16x24xbf16> {task.name = "mb_b"},
      %bm_a: tensor<3x5x7xf32> {task.name = "bm_a"}, %bm_b: tensor<3x7x6xf32> {task.name = "bm_b"},
      %bt_a: tensor<3x7x5xf32> {task.name = "bt_a"}, %bt_b: tensor<3x6x7xf32> {task.name = "bt_b"},
      %bl_a: tensor<2x100x8xf32> {task.name = "bl_a"}, %bl_b: tensor<2x8x9xf32> {task.name = "bl_b"},
      %gm_x: tensor<20x8xbf16> {task.name = "gm_x"}, %gm_w: tensor<3x8x12xbf16> {task.name = "gm_w"},
      %gm_ends: tensor<3xi32> {task.name = "gm_ends", task.range = 21 : i64},
      %gw_dy: tensor<20x12xbf16> {task.name = "gw_dy"},
      %map_a: tensor<16x600xf32> {task.name = "map_a"}, %map_s: tensor<f32> {task.name = "map_s"},
      %map_i: tensor<5xi32> {task.name = "map_i", task.range = 100 : i64},
      %rd_x: tensor<6x10x4xf32> {task.name = "rd_x"}, %rd_m: tensor<7x5xf32> {task.name = "rd_m"},
      %rd_b: tensor<3x4x9xbf16> {task.name = "rd_b"},
      %rd_i: tensor<4x6xi32> {task.name = "rd_i", task.range = 1000 : i64},
      %rn_x: tensor<70x32xf32> {task.name = "rn_x"}, %rn_w: tensor<32xf32> {task.name = "rn_w"},
      %rn_xb: tensor<5x16xbf16> {task.name = "rn_xb"}, %rn_wb: tensor<16xbf16> {task.name = "rn_wb"},
      %sm_x: tensor<3x5x11xf32> {task.name = "sm_x"},
      %ce_l: tensor<70x33xf32> {task.name = "ce_l"},
      %ce_t: tensor<70xi32> {task.name = "ce_t", task.range = 33 : i64},
      %em_t: tensor<50x12xf32> {task.name = "em_t"},
      %em_i: tensor<3x7xi32> {task.name = "em_i", task.range = 50 : i64},
      %rp_x: tensor<2x9x3x8xf32> {task.name = "rp_x"},
      %at_q: tensor<2x3x20x8xbf16> {task.name = "at_q"}, %at_k: tensor<2x3x20x8xbf16> {task.name = "at_k"},
      %at_v: tensor<2x3x20x8xbf16> {task.name = "at_v"},
      %an_q: tensor<1x2x5x8xf32> {task.name = "an_q"}, %an_k: tensor<1x2x7x8xf32> {task.name = "an_k"},
      %an_v: tensor<1x2x7x8xf32> {task.name = "an_v"},
      %al_q: tensor<1x1x130x4xf32> {task.name = "al_q"},
      %tk_x: tensor<10x7xf32> {task.name = "tk_x"}, %tk_b: tensor<10x7xbf16> {task.name = "tk_b"},
      %bk_i: tensor<9x2xi32> {task.name = "bk_i", task.range = 4 : i64},
      %gr_x: tensor<15x6xbf16> {task.name = "gr_x"},
      %gr_i: tensor<11xi32> {task.name = "gr_i", task.range = 15 : i64},
      %sa_x: tensor<11x6xf32> {task.name = "sa_x"},
      %sa_i: tensor<11xi32> {task.name = "sa_i", task.range = 5 : i64},
      %rs_x: tensor<4x6xf32> {task.name = "rs_x"},
      %tr_x: tensor<2x3x4x5xbf16> {task.name = "tr_x"},
      %tr_i: tensor<3x4xi32> {task.name = "tr_i", task.range = 1000 : i64},
      %cv_f: tensor<4x9xf32> {task.name = "cv_f"}, %cv_b: tensor<4x9xbf16> {task.name = "cv_b"},
      %cv_i: tensor<4x9xi32> {task.name = "cv_i", task.range = 100000 : i64},
      %aw_p: tensor<40xf32> {task.name = "aw_p", task.param}, %aw_g: tensor<40xf32> {task.name = "aw_g"},
      %aw_m: tensor<40xf32> {task.name = "aw_m"}, %aw_v: tensor<40xf32> {task.name = "aw_v"},
      %step: tensor<f32> {task.name = "step"},
      %aw_q: tensor<9xf32> {task.name = "aw_q", task.param}, %aw_n: tensor<9xf32> {task.name = "aw_n"},
      %aw_u: tensor<9xf32> {task.name = "aw_u"},
      %istep: tensor<i32> {task.name = "istep", task.range = 5 : i64},
      %rg_x: tensor<5x4xf32> {task.name = "rg_x"}, %rg_dy: tensor<4xf32> {task.name = "rg_dy"},
      %rg_y: tensor<3x6x2xf32> {task.name = "rg_y"}, %rg_dm: tensor<3x2xf32> {task.name = "rg_dm"},
      %rg_z: tensor<4x5xf32> {task.name = "rg_z"}, %rg_dz: tensor<4xf32> {task.name = "rg_dz"},
      %ng_x: tensor<70x16xf32> {task.name = "ng_x"}, %ng_w: tensor<16xf32> {task.name = "ng_w"},
      %ng_dy: tensor<70x16xf32> {task.name = "ng_dy"},
      %sg_y: tensor<6x9xf32> {task.name = "sg_y"}, %sg_dy: tensor<6x9xf32> {task.name = "sg_dy"},
      %cg_l: tensor<10x13xf32> {task.name = "cg_l"},
      %cg_t: tensor<10xi32> {task.name = "cg_t", task.range = 13 : i64},
      %cg_d: tensor<f32> {task.name = "cg_d"},
      %pg_dy: tensor<1x5x2x6xf32> {task.name = "pg_dy"},
      %ag_q: tensor<1x2x6x4xf32> {task.name = "ag_q"}, %ag_k: tensor<1x2x6x4xf32> {task.name = "ag_k"},
      %ag_v: tensor<1x2x6x4xf32> {task.name = "ag_v"}, %ag_o: tensor<1x2x6x4xf32> {task.name = "ag_o"},
      %ag_do: tensor<1x2x6x4xf32> {task.name = "ag_do"},
      %bg_q: tensor<1x1x5x4xbf16> {task.name = "bg_q"}, %bg_k: tensor<1x1x7x4xbf16> {task.name = "bg_k"},
      %bg_v: tensor<1x1x7x4xbf16> {task.name = "bg_v"}, %bg_o: tensor<1x1x5x4xbf16> {task.name = "bg_o"},
      %bg_do: tensor<1x1x5x4xf32> {task.name = "bg_do"},
      %kg_dv: tensor<6x2xf32> {task.name = "kg_dv"},
      %kg_i: tensor<6x2xi32> {task.name = "kg_i", task.range = 5 : i64})
      -> (tensor<40x136xf32>, tensor<40x16xbf16>, tensor<40x16xf32>, tensor<3x5x6xf32>, tensor<3x5x6xf32>,
          tensor<2x100x9xf32>, tensor<20x12xf32>, tensor<3x8x12xf32>,
          tensor<16x600xf32>, tensor<16x600xbf16>, tensor<5xi32>, tensor<5xi32>,
          tensor<6x4xf32>, tensor<5xf32>, tensor<3x4xbf16>, tensor<4xi32>, tensor<6xi32>,
          tensor<70x32xf32>, tensor<5x16xbf16>, tensor<3x5x11xf32>, tensor<f32>, tensor<3x7x12xf32>,
          tensor<2x9x3x8xf32>, tensor<2x3x20x8xbf16>, tensor<1x2x5x8xf32>, tensor<1x1x130x4xf32>,
          tensor<10x3xf32>, tensor<10x3xi32>, tensor<10x3xbf16>, tensor<10x3xi32>,
          tensor<18xi32>, tensor<4xi32>, tensor<11x6xbf16>, tensor<5x6xf32>,
          tensor<3x8xf32>, tensor<24xf32>, tensor<2x4x3x5xbf16>, tensor<4x3xi32>,
          tensor<4x9xbf16>, tensor<4x9xf32>, tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xbf16>,
          tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
          tensor<5x4xf32>, tensor<3x6x2xf32>, tensor<4x5xf32>,
          tensor<70x16xf32>, tensor<16xf32>, tensor<6x9xf32>, tensor<10x13xf32>, tensor<10x13xf32>,
          tensor<1x5x2x6xf32>,
          tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>,
          tensor<1x1x5x4xbf16>, tensor<1x1x7x4xbf16>, tensor<1x1x7x4xbf16>, tensor<6x5xf32>) {
    %two = arith.constant 2 : i32
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant dense<1.000000e+00> : tensor<f32>
    // matmul: plain (two column tiles), transposed a (bf16 result), transposed b, batched, batched with
    // both transposes, batched with row tiles that cross batches
    %mm = "task.matmul"(%mm_a, %mm_b) {transpose_a = false, transpose_b = false} : (tensor<40x24xf32>, tensor<24x136xf32>) -> tensor<40x136xf32>
    %mt = "task.matmul"(%mt_a, %mt_b) {transpose_a = true, transpose_b = false} : (tensor<24x40xbf16>, tensor<24x16xbf16>) -> tensor<40x16xbf16>
    %mb = "task.matmul"(%mb_a, %mb_b) {transpose_a = false, transpose_b = true} : (tensor<40x24xbf16>, tensor<16x24xbf16>) -> tensor<40x16xf32>
    %bm = "task.matmul"(%bm_a, %bm_b) {transpose_a = false, transpose_b = false} : (tensor<3x5x7xf32>, tensor<3x7x6xf32>) -> tensor<3x5x6xf32>
    %bt = "task.matmul"(%bt_a, %bt_b) {transpose_a = true, transpose_b = true} : (tensor<3x7x5xf32>, tensor<3x6x7xf32>) -> tensor<3x5x6xf32>
    %bl = "task.matmul"(%bl_a, %bl_b) {transpose_a = false, transpose_b = false} : (tensor<2x100x8xf32>, tensor<2x8x9xf32>) -> tensor<2x100x9xf32>
    %gm = "task.grouped_matmul"(%gm_x, %gm_w, %gm_ends) : (tensor<20x8xbf16>, tensor<3x8x12xbf16>, tensor<3xi32>) -> tensor<20x12xf32>
    %gw = "task.grouped_matmul_weight_grad"(%gm_x, %gw_dy, %gm_ends) : (tensor<20x8xbf16>, tensor<20x12xbf16>, tensor<3xi32>) -> tensor<3x8x12xf32>
    // map: two outputs (f32, bf16) over two tiles with a rank-0 input and a constant from above; an i32
    // map using a hoisted i32 constant; a map with no input
    %m1, %m2 = "task.map"(%map_a, %map_s) ({
    ^bb0(%a: f32, %s: f32):
      %e = math.exp %s : f32
      %p = arith.mulf %a, %e : f32
      %q = arith.addf %p, %half : f32
      %r = math.tanh %a : f32
      gpu.yield %q, %r : f32, f32
    }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (tensor<16x600xf32>, tensor<f32>) -> (tensor<16x600xf32>, tensor<16x600xf32>)
    %m2b = "task.convert"(%m2) : (tensor<16x600xf32>) -> tensor<16x600xbf16>
    %mi = "task.map"(%map_i) ({
    ^bb0(%i: i32):
      %d = arith.divsi %i, %two : i32
      gpu.yield %d : i32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<5xi32>) -> tensor<5xi32>
    %mc = "task.map"() ({
      %c7 = arith.constant 7 : i32
      gpu.yield %c7 : i32
    }) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : () -> tensor<5xi32>
    // reduce: sum over a middle axis, max over the first, mean over the last (bf16), i32 sum and max
    %rs = "task.reduce"(%rd_x) {axis = 1 : i64, kind = "sum"} : (tensor<6x10x4xf32>) -> tensor<6x4xf32>
    %rm = "task.reduce"(%rd_m) {axis = 0 : i64, kind = "max"} : (tensor<7x5xf32>) -> tensor<5xf32>
    %rb = "task.reduce"(%rd_b) {axis = 2 : i64, kind = "mean"} : (tensor<3x4x9xbf16>) -> tensor<3x4xbf16>
    %ri = "task.reduce"(%rd_i) {axis = 1 : i64, kind = "sum"} : (tensor<4x6xi32>) -> tensor<4xi32>
    %rj = "task.reduce"(%rd_i) {axis = 0 : i64, kind = "max"} : (tensor<4x6xi32>) -> tensor<6xi32>
    %rn = "task.rmsnorm"(%rn_x, %rn_w) {eps = 1.000000e-05 : f64} : (tensor<70x32xf32>, tensor<32xf32>) -> tensor<70x32xf32>
    %rnb = "task.rmsnorm"(%rn_xb, %rn_wb) {eps = 1.000000e-03 : f64} : (tensor<5x16xbf16>, tensor<16xbf16>) -> tensor<5x16xbf16>
    %sm = "task.softmax"(%sm_x) : (tensor<3x5x11xf32>) -> tensor<3x5x11xf32>
    %ce = "task.cross_entropy"(%ce_l, %ce_t) : (tensor<70x33xf32>, tensor<70xi32>) -> tensor<f32>
    %em = "task.embedding"(%em_t, %em_i) : (tensor<50x12xf32>, tensor<3x7xi32>) -> tensor<3x7x12xf32>
    %rp = "task.rope"(%rp_x) {theta = 1.000000e+04 : f64} : (tensor<2x9x3x8xf32>) -> tensor<2x9x3x8xf32>
    // attention: causal bf16; non-causal with more keys than queries; 130 queries (two query blocks)
    %at = "task.attention"(%at_q, %at_k, %at_v) {causal = true, scale = 3.535500e-01 : f64} : (tensor<2x3x20x8xbf16>, tensor<2x3x20x8xbf16>, tensor<2x3x20x8xbf16>) -> tensor<2x3x20x8xbf16>
    %an = "task.attention"(%an_q, %an_k, %an_v) {causal = false, scale = 5.000000e-01 : f64} : (tensor<1x2x5x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32>) -> tensor<1x2x5x8xf32>
    %al = "task.attention"(%al_q, %al_q, %al_q) {causal = true, scale = 1.000000e+00 : f64} : (tensor<1x1x130x4xf32>, tensor<1x1x130x4xf32>, tensor<1x1x130x4xf32>) -> tensor<1x1x130x4xf32>
    %tv, %ti = "task.topk"(%tk_x) {k = 3 : i64} : (tensor<10x7xf32>) -> (tensor<10x3xf32>, tensor<10x3xi32>)
    %tbv, %tbi = "task.topk"(%tk_b) {k = 3 : i64} : (tensor<10x7xbf16>) -> (tensor<10x3xbf16>, tensor<10x3xi32>)
    %bo, %be = "task.bucket"(%bk_i) {buckets = 4 : i64} : (tensor<9x2xi32>) -> (tensor<18xi32>, tensor<4xi32>)
    %gr = "task.gather_rows"(%gr_x, %gr_i) : (tensor<15x6xbf16>, tensor<11xi32>) -> tensor<11x6xbf16>
    %sa = "task.scatter_add_rows"(%sa_x, %sa_i) {rows = 5 : i64} : (tensor<11x6xf32>, tensor<11xi32>) -> tensor<5x6xf32>
    // reshape: a copy (of an argument) and one the planner puts over its dying input (no copy)
    %rsc = "task.reshape"(%rs_x) : (tensor<4x6xf32>) -> tensor<3x8xf32>
    %rsd = "task.map"(%rs_x) ({
    ^bb0(%a: f32):
      %n = arith.negf %a : f32
      gpu.yield %n : f32
    }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %rsi = "task.reshape"(%rsd) : (tensor<4x6xf32>) -> tensor<24xf32>
    %tr = "task.transpose"(%tr_x) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x4x5xbf16>) -> tensor<2x4x3x5xbf16>
    %tri = "task.transpose"(%tr_i) {perm = array<i64: 1, 0>} : (tensor<3x4xi32>) -> tensor<4x3xi32>
    %c1 = "task.convert"(%cv_f) : (tensor<4x9xf32>) -> tensor<4x9xbf16>
    %c2 = "task.convert"(%cv_b) : (tensor<4x9xbf16>) -> tensor<4x9xf32>
    %c3 = "task.convert"(%cv_f) : (tensor<4x9xf32>) -> tensor<4x9xi32>
    %c4 = "task.convert"(%cv_i) : (tensor<4x9xi32>) -> tensor<4x9xf32>
    %c5 = "task.convert"(%cv_i) : (tensor<4x9xi32>) -> tensor<4x9xbf16>
    %p1, %m1o, %v1o = "task.adamw"(%aw_p, %aw_g, %aw_m, %aw_v, %step) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64} : (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<f32>) -> (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>)
    %p2, %m2o, %v2o = "task.adamw"(%aw_q, %aw_n, %aw_n, %aw_u, %istep) {beta1 = 8.000000e-01 : f64, beta2 = 9.500000e-01 : f64, eps = 1.000000e-06 : f64, lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64} : (tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<i32>) -> (tensor<9xf32>, tensor<9xf32>, tensor<9xf32>)
    // backward ops
    %rg1 = "task.reduce_grad"(%rg_x, %rg_dy) {axis = 0 : i64, kind = "sum"} : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5x4xf32>
    %rg2 = "task.reduce_grad"(%rg_y, %rg_dm) {axis = 1 : i64, kind = "mean"} : (tensor<3x6x2xf32>, tensor<3x2xf32>) -> tensor<3x6x2xf32>
    %rg3 = "task.reduce_grad"(%rg_z, %rg_dz) {axis = 1 : i64, kind = "max"} : (tensor<4x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
    %ngx, %ngw = "task.rmsnorm_grad"(%ng_x, %ng_w, %ng_dy) {eps = 1.000000e-05 : f64} : (tensor<70x16xf32>, tensor<16xf32>, tensor<70x16xf32>) -> (tensor<70x16xf32>, tensor<16xf32>)
    %sg = "task.softmax_grad"(%sg_y, %sg_dy) : (tensor<6x9xf32>, tensor<6x9xf32>) -> tensor<6x9xf32>
    %cg1 = "task.cross_entropy_grad"(%cg_l, %cg_t, %cg_d) : (tensor<10x13xf32>, tensor<10xi32>, tensor<f32>) -> tensor<10x13xf32>
    %cg2 = "task.cross_entropy_grad"(%cg_l, %cg_t, %one) : (tensor<10x13xf32>, tensor<10xi32>, tensor<f32>) -> tensor<10x13xf32>
    %pg = "task.rope_grad"(%pg_dy) {theta = 5.000000e+02 : f64} : (tensor<1x5x2x6xf32>) -> tensor<1x5x2x6xf32>
    %agq, %agk, %agv = "task.attention_grad"(%ag_q, %ag_k, %ag_v, %ag_o, %ag_do) {causal = true, scale = 5.000000e-01 : f64} : (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>) -> (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>)
    %bgq, %bgk, %bgv = "task.attention_grad"(%bg_q, %bg_k, %bg_v, %bg_o, %bg_do) {causal = false, scale = 7.000000e-01 : f64} : (tensor<1x1x5x4xbf16>, tensor<1x1x7x4xbf16>, tensor<1x1x7x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x4xf32>) -> (tensor<1x1x5x4xbf16>, tensor<1x1x7x4xbf16>, tensor<1x1x7x4xbf16>)
    %kg = "task.topk_grad"(%kg_dv, %kg_i) {columns = 5 : i64} : (tensor<6x2xf32>, tensor<6x2xi32>) -> tensor<6x5xf32>
    return %mm, %mt, %mb, %bm, %bt, %bl, %gm, %gw, %m1, %m2b, %mi, %mc, %rs, %rm, %rb, %ri, %rj, %rn, %rnb, %sm, %ce,
        %em, %rp, %at, %an, %al, %tv, %ti, %tbv, %tbi, %bo, %be, %gr, %sa, %rsc, %rsi, %tr, %tri, %c1, %c2, %c3,
        %c4, %c5, %p1, %m1o, %v1o, %p2, %m2o, %v2o, %rg1, %rg2, %rg3, %ngx, %ngw, %sg, %cg1, %cg2, %pg,
        %agq, %agk, %agv, %bgq, %bgk, %bgv, %kg
        : tensor<40x136xf32>, tensor<40x16xbf16>, tensor<40x16xf32>, tensor<3x5x6xf32>, tensor<3x5x6xf32>,
          tensor<2x100x9xf32>, tensor<20x12xf32>, tensor<3x8x12xf32>,
          tensor<16x600xf32>, tensor<16x600xbf16>, tensor<5xi32>, tensor<5xi32>,
          tensor<6x4xf32>, tensor<5xf32>, tensor<3x4xbf16>, tensor<4xi32>, tensor<6xi32>,
          tensor<70x32xf32>, tensor<5x16xbf16>, tensor<3x5x11xf32>, tensor<f32>, tensor<3x7x12xf32>,
          tensor<2x9x3x8xf32>, tensor<2x3x20x8xbf16>, tensor<1x2x5x8xf32>, tensor<1x1x130x4xf32>,
          tensor<10x3xf32>, tensor<10x3xi32>, tensor<10x3xbf16>, tensor<10x3xi32>,
          tensor<18xi32>, tensor<4xi32>, tensor<11x6xbf16>, tensor<5x6xf32>,
          tensor<3x8xf32>, tensor<24xf32>, tensor<2x4x3x5xbf16>, tensor<4x3xi32>,
          tensor<4x9xbf16>, tensor<4x9xf32>, tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xbf16>,
          tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
          tensor<5x4xf32>, tensor<3x6x2xf32>, tensor<4x5xf32>,
          tensor<70x16xf32>, tensor<16xf32>, tensor<6x9xf32>, tensor<10x13xf32>, tensor<10x13xf32>,
          tensor<1x5x2x6xf32>,
          tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>,
          tensor<1x1x5x4xbf16>, tensor<1x1x7x4xbf16>, tensor<1x1x7x4xbf16>, tensor<6x5xf32>
  }
}
