/* schedule.c - the schedule level's shared readers and the tile-count rule. */
#include "schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include "ops.h"

bool latch_schedule_is_structure(MlirOperation op) {
  return latch_op_is(op, "interval.interval") || latch_op_is(op, "interval.barrier") ||
         latch_op_is(op, "gpu.yield");
}

bool latch_attention_fits_tensor_cores(bool all_bf16, int64_t tq, int64_t hd, int64_t tk, int64_t hdv) {
  return all_bf16 && hd % 16 == 0 && hd > 0 && hd <= LATCH_ATTENTION_TC_MAX_HEAD && hdv % 8 == 0 && hdv > 0 &&
         hdv <= LATCH_ATTENTION_TC_MAX_HEAD && tq % 64 == 0 && tq > 0 && tk % 32 == 0 && tk > 0;
}

bool latch_attention_products_fit_tensor_cores(bool all_bf16, int64_t tq, int64_t hd, int64_t tk, int64_t hdv) {
  return latch_attention_fits_tensor_cores(all_bf16, tq, hd, tk, hdv) && tk % 64 == 0;
}

bool latch_attention_grad_tiles_paired(bool causal, int64_t heads, int64_t tq, int64_t tk) {
  return causal && tq > 0 && tk > 0 && tq % LATCH_ATTENTION_GRAD_PAIRED_ROWS == 0 &&
         tk % LATCH_ATTENTION_GRAD_PAIRED_ROWS == 0 &&
         heads * (tq + tk) / LATCH_ATTENTION_GRAD_PAIRED_ROWS >= LATCH_ATTENTION_GRAD_PAIRED_MIN_TILES;
}

const latch_probe_rule latch_probe_rules[] = {
    /* The routing: which experts each token went to, and their router probabilities. */
    {LATCH_OP_TASK_TOPK, "topk", 2, {"values", "indices"}},
};
const size_t latch_probe_rule_count = sizeof(latch_probe_rules) / sizeof(latch_probe_rules[0]);

bool latch_result_is_probed(MlirOperation op, intptr_t result) {
  latch_op_kind kind = latch_op_kind_of(op);
  for (size_t r = 0; r < latch_probe_rule_count; ++r)
    if (latch_probe_rules[r].kind == kind)
      return result >= 0 && result < latch_probe_rules[r].result_count;
  return false;
}

bool latch_reshape_is_view(MlirOperation op) {
  if (latch_op_kind_of(op) != LATCH_OP_TASK_RESHAPE || mlirOperationGetNumOperands(op) != 1 ||
      mlirOperationGetNumResults(op) != 1 || latch_has_fused_mark(op))
    return false;
  MlirValue input = mlirOperationGetOperand(op, 0);
  if (!mlirValueIsAOpResult(input))
    return false;
  MlirOperation producer = mlirOpResultGetOwner(input);
  return latch_op_is_task(producer) && latch_op_kind_of(producer) != LATCH_OP_TASK_ADAMW;
}

bool latch_schedule_initialize(latch_schedule *schedule, MlirOperation program) {
  memset(schedule, 0, sizeof(*schedule));
  schedule->program = program;
  schedule->body = mlirRegionGetFirstBlock(mlirOperationGetRegion(program, 0));
  if (!latch_ptrmap_initialize(&schedule->position))
    return false;
  size_t capacity = 0;
  int current = -1;
  bool open = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(schedule->body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_is(op, "interval.interval")) {
      if (open) {
        mlirEmitError(mlirOperationGetLocation(op), "interval.interval opens an interval before the previous one ended in interval.barrier");
        latch_schedule_deinitialize(schedule);
        return false;
      }
      current++;
      open = true;
      continue;
    }
    if (latch_op_is(op, "interval.barrier")) {
      if (!open) {
        mlirEmitError(mlirOperationGetLocation(op), "interval.barrier closes no interval");
        latch_schedule_deinitialize(schedule);
        return false;
      }
      open = false;
      continue;
    }
    if (latch_op_is(op, "gpu.yield"))
      continue;
    if (!open && latch_op_is_task(op)) {
      mlirEmitError(mlirOperationGetLocation(op), "a task outside any interval (every task follows an interval.interval)");
      latch_schedule_deinitialize(schedule);
      return false;
    }
    if (schedule->count == capacity) {
      capacity = capacity ? capacity * 2 : 256;
      MlirOperation *ops = realloc(schedule->ops, capacity * sizeof(*ops));
      int *interval = realloc(schedule->interval, capacity * sizeof(*interval));
      if (ops)
        schedule->ops = ops;
      if (interval)
        schedule->interval = interval;
      if (!ops || !interval) {
        latch_schedule_deinitialize(schedule);
        return false;
      }
    }
    schedule->ops[schedule->count] = op;
    schedule->interval[schedule->count] = open ? current : -1;
    schedule->count++;
    if (!latch_ptrmap_put(&schedule->position, op.ptr, (void *)(uintptr_t)schedule->count)) {
      latch_schedule_deinitialize(schedule);
      return false;
    }
  }
  schedule->interval_count = current + 1;
  return true;
}

void latch_schedule_deinitialize(latch_schedule *schedule) {
  free(schedule->ops);
  free(schedule->interval);
  latch_ptrmap_deinitialize(&schedule->position);
  schedule->ops = NULL;
  schedule->interval = NULL;
  schedule->count = 0;
}

long latch_schedule_index_of(const latch_schedule *schedule, MlirOperation op) {
  uintptr_t position = (uintptr_t)latch_ptrmap_get(&schedule->position, op.ptr);
  return position ? (long)position - 1 : -1;
}

int latch_schedule_interval_of(const latch_schedule *schedule, MlirValue value) {
  if (mlirValueIsABlockArgument(value))
    return mlirBlockEqual(mlirBlockArgumentGetOwner(value), schedule->body) ? -1 : -2;
  long index = latch_schedule_index_of(schedule, mlirOpResultGetOwner(value));
  return index < 0 ? -2 : schedule->interval[index];
}

int latch_module_find_program(MlirOperation module, MlirOperation *out_program, MlirOperation *out_gpu_module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  int programs = 0;
  *out_program = (MlirOperation){NULL};
  *out_gpu_module = (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_PROGRAM) {
      if (programs++ == 0)
        *out_program = op;
    } else if (latch_op_is(op, "gpu.module")) {
      MlirAttribute name = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
      if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name) &&
          latch_ref_is(mlirStringAttrGetValue(name), "latch"))
        *out_gpu_module = op;
    }
  }
  return programs;
}

/* ---- tiles ----------------------------------------------------------------------------------------- */

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t rows(MlirType type) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t last = rank ? mlirShapedTypeGetDimSize(type, rank - 1) : 1;
  return last ? latch_type_element_count(type) / last : 0;
}

static int64_t dim_from_end(MlirType type, intptr_t k) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  return rank > k ? mlirShapedTypeGetDimSize(type, rank - 1 - k) : 1;
}

int64_t latch_matmul_k_slices(MlirOperation matmul) {
  MlirType a = mlirValueGetType(mlirOperationGetOperand(matmul, 0));
  MlirType b = mlirValueGetType(mlirOperationGetOperand(matmul, 1));
  MlirType out = mlirValueGetType(mlirOperationGetResult(matmul, 0));
  int64_t k = dim_from_end(a, latch_matmul_transpose_a(matmul) ? 1 : 0);
  int64_t output_tiles = ceil_div(rows(out), 128) * ceil_div(dim_from_end(out, 0), 128);
  bool tensor_cores = mlirTypeIsABF16(mlirShapedTypeGetElementType(a)) && mlirTypeIsABF16(mlirShapedTypeGetElementType(b));
  if (output_tiles <= 0)
    return 1;
  if (output_tiles >= LATCH_SPLIT_TILES) /* enough tiles: split only a depth that would make them long */
    return k > LATCH_SPLIT_MAX_DEPTH ? ceil_div(k, LATCH_SPLIT_MAX_DEPTH) : 1;
  int64_t wanted = ceil_div(LATCH_SPLIT_TILES, output_tiles),
          most = k / (tensor_cores ? LATCH_SPLIT_MIN_DEPTH : LATCH_SPLIT_MIN_DEPTH_FP32);
  int64_t slices = wanted < most ? wanted : most;
  return slices < 1 ? 1 : slices;
}

bool latch_matmul_is_small(int64_t batch, int64_t m, int64_t n, bool transpose_a) {
  bool narrow = n <= LATCH_NARROW_PRODUCT_COLUMNS && !transpose_a && ceil_div(batch * m, 128) < LATCH_SPLIT_TILES;
  return (batch > 1 && m % 128 != 0) || narrow;
}

int64_t latch_narrow_sliced_depth(int64_t batch, int64_t m, int64_t n, int64_t k, bool transpose_a, bool transpose_b) {
  if (batch != 1 || !transpose_a || transpose_b || n > LATCH_NARROW_PRODUCT_COLUMNS || m < 1 || n < 1 ||
      k % 8 != 0 || k < LATCH_NARROW_SLICED_MIN_DEPTH)
    return 0;
  int64_t depth = ceil_div(k, LATCH_NARROW_SLICED_MAX_SLICES);
  depth = ceil_div(depth, 8) * 8;
  return depth > LATCH_NARROW_SLICED_DEPTH ? depth : LATCH_NARROW_SLICED_DEPTH;
}

/* The depth of `matmul` in the k-sliced narrow form, or 0. */
static int64_t narrow_sliced_depth_of(MlirOperation matmul) {
  MlirType a = mlirValueGetType(mlirOperationGetOperand(matmul, 0));
  MlirType out = mlirValueGetType(mlirOperationGetResult(matmul, 0));
  bool transpose_a = latch_matmul_transpose_a(matmul);
  return latch_narrow_sliced_depth(mlirShapedTypeGetRank(out) == 3 ? dim_from_end(out, 2) : 1, dim_from_end(out, 1),
                                   dim_from_end(out, 0), dim_from_end(a, transpose_a ? 1 : 0), transpose_a,
                                   latch_matmul_transpose_b(matmul));
}

bool latch_small_product_by_warp(int64_t k) { return k >= 32; }

int64_t latch_small_product_outputs_per_tile(int64_t k, int64_t outputs) {
  if (k == 1)
    return LATCH_SMALL_PRODUCT_UNIT_DEPTH_OUTPUTS;
  bool by_warp = latch_small_product_by_warp(k);
  int64_t per_tile = by_warp ? LATCH_SMALL_PRODUCT_WARP_OUTPUTS : LATCH_SMALL_PRODUCT_THREAD_OUTPUTS;
  int64_t least = by_warp ? 8 : 256; /* an output per warp, per thread */
  while (per_tile > least && ceil_div(outputs, per_tile) < LATCH_SPLIT_TILES)
    per_tile /= 2;
  return per_tile;
}

static double tensor_bytes(MlirValue value) {
  int64_t elements, bytes;
  return latch_tensor_type_size(mlirValueGetType(value), &elements, &bytes) ? (double)bytes : 0;
}

/* Whether a product's operands are bf16 (tensor cores) rather than f32 (the fp32 tiles). */
static bool bf16_operands(MlirOperation task) {
  for (intptr_t i = 0; i < 2; ++i)
    if (!mlirTypeIsABF16(mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(task, i)))))
      return false;
  return true;
}

/* An attention task's (batch x head) count, its Tq x Tk scores per head and its head width (q's). */
static void attention_sizes(MlirOperation task, double *heads, double *scores, double *hd) {
  MlirValue q = mlirOperationGetOperand(task, 0), k = mlirOperationGetOperand(task, 1);
  *heads = (double)(latch_attention_dim(task, q, 0) * latch_attention_dim(task, q, 1));
  *scores = (double)(latch_attention_dim(task, q, 2) * latch_attention_dim(task, k, 2));
  *hd = (double)latch_attention_dim(task, q, 3);
}

double latch_task_tile_cost_ns(MlirOperation task) {
  /* flops per ns of one CTA: 128 x 128 tiles on tensor cores, the same tiles in fp32 (a router weight
   * gradient tile, 128 x 128 x 128 in fp32, took 51 us), the grouped weight gradient on tensor cores (its
   * tiles of TinyMoE 2x1024, 512 rows on average, took 33-41 us on the H200, 2026-12-03, where
   * TENSOR_CORE_RATE would say 13 us: rated so, they came after the product's 23 us tiles and ended
   * their intervals), attention on tensor cores; bytes per ns; ns per 256 ids of a bucket tile (TinyMoE
   * 2x1024's 16 tiles of 4096 ids took 10.6 us on an H100, 2026-12-06: rated by their bytes, they came
   * after the interval's 1024 transpose tiles and ended it 10 us after the rest); rmsnorm_grad by its dw
   * tiles (10-17 us on an H200, 2026-12-06, where its bytes over all its tiles said 2.6 us: they came after
   * the interval's AdamW tiles and ended it) */
  enum { TENSOR_CORE_RATE = 1300, WEIGHT_GRAD_RATE = 430, FP32_RATE = 82, ATTENTION_RATE = 400, BYTES_PER_NS = 15,
         BUCKET_STEP_NS = 650 };
  double tiles = (double)latch_task_tile_count(task);
  if (mlirOperationGetNumResults(task) == 0 || latch_reshape_is_view(task))
    return 0;
  MlirType out = mlirValueGetType(mlirOperationGetResult(task, 0));
  latch_op_kind kind = latch_op_kind_of(task);
  bool product = kind == LATCH_OP_TASK_MATMUL || kind == LATCH_OP_TASK_GROUPED_MATMUL ||
                 kind == LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD || kind == LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT;
  MlirType a = product ? mlirValueGetType(mlirOperationGetOperand(task, 0)) : out; /* products have 2 or 3 */
  double tile_flops = 2.0 * 128 * 128, rate = product && bf16_operands(task) ? TENSOR_CORE_RATE : FP32_RATE;
  switch (kind) {
  case LATCH_OP_TASK_MATMUL: { /* whole 128 x 128 tiles, however few of their columns are used */
    int64_t k = dim_from_end(a, latch_matmul_transpose_a(task) ? 1 : 0), depth = narrow_sliced_depth_of(task);
    if (depth > 0) /* a thread per output, 8 loads in flight: about 250 ns per 8 of k */
      return (double)depth / 8 * 250;
    if (!latch_matmul_is_small(dim_from_end(out, 2), dim_from_end(out, 1), dim_from_end(out, 0),
                               latch_matmul_transpose_a(task)))
      return tile_flops * (double)ceil_div(k, latch_matmul_k_slices(task)) / rate;
    break; /* element by element: its bytes */
  }
  case LATCH_OP_TASK_GROUPED_MATMUL: /* x [R, K]: a pair's rows, about a tile of them, times K */
    return tile_flops * (double)dim_from_end(a, 0) / rate;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD: /* x [R, K], dw [G, K, N]: a group's rows */
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT:
    return tile_flops * (double)rows(a) / (double)mlirShapedTypeGetDimSize(out, 0) /
           (bf16_operands(task) ? WEIGHT_GRAD_RATE : FP32_RATE);
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE:
  case LATCH_OP_TASK_ATTENTION_STATS:
  case LATCH_OP_TASK_ATTENTION_GRAD:
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: {
    /* per (b, h): S = q k^T (Tq Tk hd), plus P v in the forward and four more products in the gradient */
    double heads, scores, hd;
    attention_sizes(task, &heads, &scores, &hd);
    bool forward = kind == LATCH_OP_TASK_ATTENTION || kind == LATCH_OP_TASK_ATTENTION_LSE;
    double products = kind == LATCH_OP_TASK_ATTENTION_STATS ? 1 : forward ? 2 : 5;
    bool causal = latch_attr_bool(task, "causal", false);
    return 2 * heads * scores * hd * products * (causal ? 0.5 : 1) / tiles / ATTENTION_RATE;
  }
  case LATCH_OP_TASK_RMSNORM_GRAD: { /* its longest tiles, those of dw: x and dy of a chunk's rows, 256 columns */
    int64_t d = dim_from_end(out, 0), columns = d < LATCH_NORM_DW_COLUMNS ? d : LATCH_NORM_DW_COLUMNS;
    return (double)latch_rmsnorm_grad_chunk_rows(rows(out)) * (double)columns * 2 * 4 / BYTES_PER_NS;
  }
  case LATCH_OP_TASK_BUCKET: /* every tile reads all N ids, 256 at a time: a dependent load per step */
    return (double)ceil_div(latch_type_element_count(mlirValueGetType(mlirOperationGetOperand(task, 0))), 256) *
           BUCKET_STEP_NS;
  default:
    break;
  }
  return latch_task_bytes(task) / tiles / BYTES_PER_NS;
}

/* The tiles of a whole AdamW step: its p's elements in tiles of LATCH_ADAMW_TILE. */
static int64_t adamw_whole_tiles(MlirOperation adamw) {
  return ceil_div(latch_type_element_count(mlirValueGetType(mlirOperationGetOperand(adamw, 0))), LATCH_ADAMW_TILE);
}

bool latch_adamw_tile_range(MlirOperation adamw, int64_t *first, int64_t *count) {
  int64_t all = adamw_whole_tiles(adamw);
  *first = 0;
  *count = all;
  intptr_t size = latch_attr_i64_array_size(adamw, "tile_range");
  if (size < 0)
    return true;
  if (size != 2)
    return false;
  int64_t f = latch_attr_i64_array_get(adamw, "tile_range", 0), c = latch_attr_i64_array_get(adamw, "tile_range", 1);
  if (f < 0 || c < 1 || f > all || c > all - f)
    return false;
  *first = f;
  *count = c;
  return true;
}

double latch_interval_span_ns(double work, double longest) {
  double spread = work / LATCH_GRID_CTAS;
  return spread > longest ? spread : longest;
}

void latch_interval_add_tiles(double *work, double *longest, double cost, double tiles) {
  *work += cost * tiles;
  if (tiles > 0 && cost > *longest)
    *longest = cost;
}

double latch_task_bytes(MlirOperation task) {
  double bytes = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(task); ++i)
    bytes += tensor_bytes(mlirOperationGetOperand(task, i));
  for (intptr_t i = 0; i < mlirOperationGetNumResults(task); ++i)
    bytes += tensor_bytes(mlirOperationGetResult(task, i));
  if (latch_op_kind_of(task) == LATCH_OP_TASK_ADAMW) { /* a range of its tiles moves their share */
    int64_t first, count, all = adamw_whole_tiles(task);
    if (latch_adamw_tile_range(task, &first, &count) && all > 0)
      bytes *= (double)count / (double)all;
  }
  return bytes;
}

double latch_task_flops(MlirOperation task) {
  if (mlirOperationGetNumResults(task) == 0)
    return 0;
  MlirType out = mlirValueGetType(mlirOperationGetResult(task, 0));
  latch_op_kind kind = latch_op_kind_of(task);
  switch (kind) {
  case LATCH_OP_TASK_MATMUL: { /* 2 batch M N K */
    MlirType a = mlirValueGetType(mlirOperationGetOperand(task, 0));
    int64_t k = dim_from_end(a, latch_matmul_transpose_a(task) ? 1 : 0);
    return 2.0 * (double)latch_type_element_count(out) * (double)k;
  }
  case LATCH_OP_TASK_GROUPED_MATMUL: { /* y [R, N] from x [R, K]: 2 R N K */
    MlirType x = mlirValueGetType(mlirOperationGetOperand(task, 0));
    return 2.0 * (double)latch_type_element_count(out) * (double)dim_from_end(x, 0);
  }
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD: /* dw [G, K, N] over the R rows of x: 2 R K N */
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT: {
    MlirType x = mlirValueGetType(mlirOperationGetOperand(task, 0));
    return 2.0 * (double)rows(x) * (double)dim_from_end(out, 1) * (double)dim_from_end(out, 0);
  }
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE:
  case LATCH_OP_TASK_ATTENTION_STATS:
  case LATCH_OP_TASK_ATTENTION_GRAD:
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: {
    /* per (b, h) and score: 2 hd for S = q k^T, 2 hdv for P v and for do v^T, ...; the split gradient's
     * query-row tiles compute S, dP and dq, its key-row tiles S, dP, dv and dk (both recompute S, dP) */
    double heads, scores, hd;
    attention_sizes(task, &heads, &scores, &hd);
    double hdv = hd;
    if (kind != LATCH_OP_TASK_ATTENTION_STATS)
      hdv = (double)latch_attention_dim(task, mlirOperationGetOperand(task, 2), 3);
    bool forward = kind == LATCH_OP_TASK_ATTENTION || kind == LATCH_OP_TASK_ATTENTION_LSE;
    double per_score = kind == LATCH_OP_TASK_ATTENTION_STATS ? 2 * hd
                       : forward                             ? 2 * (hd + hdv)
                       : kind == LATCH_OP_TASK_ATTENTION_GRAD ? 2 * (3 * hd + 2 * hdv)
                                                              : 2 * (4 * hd + 3 * hdv);
    return heads * scores * per_score * (latch_attr_bool(task, "causal", false) ? 0.5 : 1);
  }
  default:
    return 0;
  }
}

int64_t latch_scatter_tile_rows(int64_t rows) {
  int64_t tile_rows = LATCH_SCATTER_MAX_TILE_ROWS;
  while (tile_rows > LATCH_SCATTER_MIN_TILE_ROWS && ceil_div(rows, tile_rows) < LATCH_SPLIT_TILES)
    tile_rows /= 2;
  return tile_rows;
}

int64_t latch_elementwise_tile(int64_t elements) {
  for (int64_t tile = LATCH_ELEMENTWISE_TILE; tile >= LATCH_ELEMENTWISE_MIN_TILE; tile /= 2)
    if (ceil_div(elements, tile) >= LATCH_ELEMENTWISE_MIN_TILES)
      return tile;
  return LATCH_ELEMENTWISE_TILE;
}

/* Output tiles of 128 x 128 for matrix products (times the k slices of latch_matmul_k_slices; the small
 * element-wise products of latch_matmul_is_small by output elements), LATCH_WARP_ROW_TILE rows for the
 * warp-per-row ops, 64 rows for the other row-wise ops, latch_elementwise_tile elements for elementwise
 * work (copies and row gathers included; LATCH_ADAMW_TILE for adamw), 64 interleaved query rows of one
 * (batch, head) for attention (with or without lse) and the split gradient's statistics (the products:
 * those query-row tiles, then as many key-row tiles; LATCH_ATTENTION_GRAD_PAIRED_ROWS rows per tile when
 * latch_attention_grad_tiles_paired), LATCH_STATS_FROM_LSE_TILE_ROWS rows for the statistics from lse, one
 * (batch, head, 128 queries) block for the unsplit attention_grad, (row tile, group) pairs x 128 columns
 * for grouped_matmul (row tiles + groups of them), latch_scatter_tile_rows rows of a scatter_add_rows with
 * many sources, 256 sort positions for bucket, rmsnorm_grad's dw tiles (latch_rmsnorm_grad_chunk_rows)
 * plus its dx row tiles; at least 1, at most 4096. */
int64_t latch_task_tile_count(MlirOperation task) {
  MlirType out = mlirOperationGetNumResults(task) ? mlirValueGetType(mlirOperationGetResult(task, 0))
                                                   : mlirValueGetType(mlirOperationGetOperand(task, 0));
  int64_t tiles = 1;
  switch (latch_op_kind_of(task)) {
  case LATCH_OP_TASK_MATMUL: {
    MlirType a = mlirValueGetType(mlirOperationGetOperand(task, 0));
    bool transpose_a = latch_matmul_transpose_a(task);
    int64_t k = dim_from_end(a, transpose_a ? 1 : 0), depth = narrow_sliced_depth_of(task);
    if (depth > 0) { /* 256 output elements times the slices of k */
      tiles = ceil_div(latch_type_element_count(out), 256) * ceil_div(k, depth);
      break;
    }
    if (latch_matmul_is_small(dim_from_end(out, 2), dim_from_end(out, 1), dim_from_end(out, 0), transpose_a)) {
      int64_t outputs = latch_type_element_count(out);
      tiles = ceil_div(outputs, latch_small_product_outputs_per_tile(k, outputs));
      break;
    }
    tiles = ceil_div(rows(out), 128) * ceil_div(dim_from_end(out, 0), 128) * latch_matmul_k_slices(task);
    break;
  }
  case LATCH_OP_TASK_GROUPED_MATMUL: {
    /* (row tile, group) pairs: at most one per row tile plus one per group (latch-lower-tasks). */
    int64_t groups = mlirShapedTypeGetDimSize(mlirValueGetType(mlirOperationGetOperand(task, 1)), 0);
    tiles = (ceil_div(rows(out), 128) + groups) * ceil_div(dim_from_end(out, 0), 128);
    break;
  }
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD:
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT:
    tiles = mlirShapedTypeGetDimSize(out, 0) * ceil_div(dim_from_end(out, 1), 128) * ceil_div(dim_from_end(out, 0), 128);
    break;
  case LATCH_OP_TASK_ATTENTION_GRAD: {
    MlirType q = mlirValueGetType(mlirOperationGetOperand(task, 0));
    tiles = mlirShapedTypeGetDimSize(q, 0) * mlirShapedTypeGetDimSize(q, 1) * ceil_div(mlirShapedTypeGetDimSize(q, 2), 128);
    break;
  }
  case LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE: /* rows of o */
    tiles = ceil_div(rows(mlirValueGetType(mlirOperationGetOperand(task, 0))), LATCH_STATS_FROM_LSE_TILE_ROWS);
    break;
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE:
  case LATCH_OP_TASK_ATTENTION_STATS:
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: {
    MlirValue q = mlirOperationGetOperand(task, 0), k = mlirOperationGetOperand(task, 1);
    int64_t heads = latch_attention_dim(task, q, 0) * latch_attention_dim(task, q, 1);
    int64_t tq = latch_attention_dim(task, q, 2), tk = latch_attention_dim(task, k, 2);
    tiles = heads * ceil_div(tq, 64);
    if (latch_op_kind_of(task) != LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS)
      break;
    if (latch_attention_grad_tiles_paired(latch_attr_bool(task, "causal", false), heads, tq, tk))
      tiles = heads * (tq + tk) / LATCH_ATTENTION_GRAD_PAIRED_ROWS;
    else
      tiles += heads * ceil_div(tk, 64);
    break;
  }
  case LATCH_OP_TASK_MAP:
  case LATCH_OP_TASK_CONVERT:
  case LATCH_OP_TASK_TRANSPOSE:
  case LATCH_OP_TASK_RESHAPE:
  case LATCH_OP_TASK_EMBEDDING:
  case LATCH_OP_TASK_GATHER_ROWS:
    tiles = ceil_div(latch_type_element_count(out), latch_elementwise_tile(latch_type_element_count(out)));
    break;
  case LATCH_OP_TASK_ADAMW: {
    int64_t first;
    latch_adamw_tile_range(task, &first, &tiles);
    break;
  }
  case LATCH_OP_TASK_SCATTER_ADD_ROWS:
    if (rows(mlirValueGetType(mlirOperationGetOperand(task, 0))) <= LATCH_SCATTER_ELEMENTWISE_SOURCES)
      tiles = ceil_div(latch_type_element_count(out), latch_elementwise_tile(latch_type_element_count(out)));
    else
      tiles = ceil_div(rows(out), latch_scatter_tile_rows(rows(out)));
    break;
  case LATCH_OP_TASK_BUCKET: { /* one position of the counting sort (of order, or also of ends) per thread */
    int64_t groups = latch_type_element_count(mlirValueGetType(mlirOperationGetResult(task, 1)));
    tiles = ceil_div(latch_type_element_count(out) + (groups <= LATCH_BUCKET_COUNTED_GROUPS ? 0 : groups), 256);
    break;
  }
  case LATCH_OP_TASK_RMSNORM_GRAD: { /* the row tiles of dx, then (columns, chunk rows) tiles of dw */
    int64_t columns = dim_from_end(out, 0);
    tiles = ceil_div(rows(out), latch_rmsnorm_grad_dx_rows(rows(out), columns)) +
            ceil_div(columns, LATCH_NORM_DW_COLUMNS) * ceil_div(rows(out), latch_rmsnorm_grad_chunk_rows(rows(out)));
    break;
  }
  case LATCH_OP_TASK_RMSNORM:
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD:
    tiles = ceil_div(rows(out), LATCH_WARP_ROW_TILE);
    break;
  case LATCH_OP_TASK_CROSS_ENTROPY:
  case LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS:
    tiles = ceil_div(rows(mlirValueGetType(mlirOperationGetOperand(task, 0))), LATCH_WARP_ROW_TILE);
    break;
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS: /* element-wise */
    tiles = ceil_div(latch_type_element_count(out), latch_elementwise_tile(latch_type_element_count(out)));
    break;
  case LATCH_OP_TASK_REDUCE:
  case LATCH_OP_TASK_TOPK:
    tiles = ceil_div(rows(mlirValueGetType(mlirOperationGetOperand(task, 0))), 64);
    break;
  default: /* row-wise ops: norms, softmax, rope, embedding, row gathers and scatters, their gradients */
    tiles = ceil_div(rows(out), 64);
    break;
  }
  return tiles < 1 ? 1 : tiles > 4096 ? 4096 : tiles;
}

int64_t latch_rmsnorm_grad_dx_rows(int64_t rows, int64_t columns) {
  int64_t dw_tiles = ceil_div(columns, LATCH_NORM_DW_COLUMNS) * ceil_div(rows, latch_rmsnorm_grad_chunk_rows(rows));
  return dw_tiles + ceil_div(rows, LATCH_NORM_DX_WIDE_ROW_TILE) <= LATCH_GRID_CTAS ? LATCH_NORM_DX_WIDE_ROW_TILE
                                                                                 : LATCH_WARP_ROW_TILE;
}

int64_t latch_rmsnorm_grad_chunk_rows(int64_t rows) {
  int64_t chunk = LATCH_NORM_DW_MIN_CHUNK_ROWS;
  while (chunk < LATCH_NORM_DW_MAX_CHUNK_ROWS && (rows + chunk - 1) / chunk > LATCH_NORM_DW_MAX_CHUNKS)
    chunk *= 2;
  return chunk;
}
