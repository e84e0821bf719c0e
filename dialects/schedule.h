/* schedule.h - reading and writing the schedule level: an `interval.program` is a function-like op whose
 * one block holds, in order, its constants, then intervals: `interval.interval` (a marker that opens an
 * interval), the interval's tasks, and `interval.barrier` (which closes it; the last interval ends at the
 * block's `gpu.yield`). See docs/dialects.md. */
#ifndef LATCH_SCHEDULE_H
#define LATCH_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlir-c/IR.h"

#include "../support/ptrmap.h"
#include "ops.h"

/* The ops of a program body in order (markers, barriers and the terminator left out), with the interval
 * each belongs to (-1 for the constants before the first interval). */
typedef struct latch_schedule {
  MlirOperation program;
  MlirBlock body;
  MlirOperation *ops;
  int *interval;
  size_t count;
  int interval_count;
  latch_ptrmap position; /* op -> its index in `ops` plus one */
} latch_schedule;

/* Reads `program` (an interval.program). Returns false, after an error at the program's location,
 * when its body is malformed (ops outside intervals, a barrier that closes nothing). */
bool latch_schedule_initialize(latch_schedule *schedule, MlirOperation program);
void latch_schedule_deinitialize(latch_schedule *schedule);
/* The interval that produces `value`: -1 for program arguments and constants, -2 for values that are
 * not defined in the program's block (values from above, none in a well-formed program). */
int latch_schedule_interval_of(const latch_schedule *schedule, MlirValue value);
/* The index of `op` in schedule->ops, or -1. */
long latch_schedule_index_of(const latch_schedule *schedule, MlirOperation op);

/* Scans the top level of `module` for interval.program ops and `gpu.module @latch`: returns how many
 * programs there are and sets `out_program` to the first (null if none) and `out_gpu_module` to the
 * gpu.module named latch (null if none). */
int latch_module_find_program(MlirOperation module, MlirOperation *out_program, MlirOperation *out_gpu_module);

/* The gpu.module attribute in which latch-lower-tasks records the bytes of dynamic shared memory the
 * kernel needs (the most that a task uses); latch-lower-intervals writes it into the manifest. */
#define LATCH_SHARED_BYTES_ATTRIBUTE "latch.dynamic_shared_bytes"

/* task.scatter_add_rows with at most LATCH_SCATTER_ELEMENTWISE_SOURCES source rows is lowered one output
 * element per thread (tiles of 8192 elements); with more, a tile owns latch_scatter_tile_rows(rows) rows of
 * y (and reads all the indices once): LATCH_SCATTER_MAX_TILE_ROWS, or half of that while the task would
 * have fewer than LATCH_SPLIT_TILES tiles, down to LATCH_SCATTER_MIN_TILE_ROWS. A tile's 8 warps sum its
 * rows one after another, each a chain of dependent loads, so few tiles of many rows leave most of the
 * GPU waiting on a few CTAs (TinyMoE 2x1024: 2048 rows in 32 tiles of 24 us while the others ran 3 us);
 * more tiles read the indices more often (S x tiles), which is what the many tiles of a large scatter pay:
 * at TinyMoE 32x1024 (S = 65536) tiles of 64 rows spent 47-100 us each mostly reading indices; with at
 * most 256 rows (128 for its 32768-row scatters, 256 for the 65536-row ones) the update took 0.969 of
 * the time (H200, 2026-12-03; 128 at most: 0.971). */
/* task.attention_stats_from_lse runs in tiles of this many rows of o: one pass of a CTA's 256 threads, four
 * per row (latch-lower-tasks). */
#define LATCH_STATS_FROM_LSE_TILE_ROWS 64

#define LATCH_SCATTER_ELEMENTWISE_SOURCES 32
#define LATCH_SCATTER_MAX_TILE_ROWS 256
#define LATCH_SCATTER_MIN_TILE_ROWS 8
int64_t latch_scatter_tile_rows(int64_t rows);

/* A task.matmul with fewer than LATCH_SPLIT_TILES output tiles of 128 x 128 splits its k range into
 * slices (each at least LATCH_SPLIT_MIN_DEPTH deep on tensor cores, LATCH_SPLIT_MIN_DEPTH_FP32 on the
 * fp32 tiles) until it has about that many tiles; the slices' partial sums meet in task scratch
 * (docs/device-abi.md). latch_matmul_k_slices gives the slices of `matmul` (1: no split) from its types,
 * for the tile count and for latch-lower-tasks alike. The depth is what pays for the split: the slice
 * that arrives last reads every slice's 64 KiB of partials, about 2.3 us per slice on an H200 CTA, where
 * a 128-deep slice on tensor cores computes in about 4 us (per-tile trace, 2026-12-01): 16 slices of 128
 * made 37 us combines, longer than the product they split. The fp32 tiles are some 40 times slower per
 * k, so for them the combine stays cheap. */
#define LATCH_SPLIT_TILES 256
#define LATCH_SPLIT_MIN_DEPTH 512
/* A product with LATCH_SPLIT_TILES tiles or more still splits a k deeper than LATCH_SPLIT_MAX_DEPTH into
 * slices of at most that depth: TinyMoE's head weight gradient at 32x1024 (256 tiles of k = 32768) ran
 * its 256 tiles at 751 us each beside 1024 tiles of 243 us, the interval's tail (per-tile trace). */
#define LATCH_SPLIT_MAX_DEPTH 8192
#define LATCH_SPLIT_MIN_DEPTH_FP32 128
int64_t latch_matmul_k_slices(MlirOperation matmul);

/* Two kinds of task.matmul are lowered output element by output element: a batched one whose M is not a
 * multiple of 128 (its 128-row tiles would cross batches), and a narrow one, at most
 * LATCH_NARROW_PRODUCT_COLUMNS columns with a's k contiguous (transpose_a false) and fewer than
 * LATCH_SPLIT_TILES row tiles: a 128-column tile would compute 8 or more times the output, and so few
 * tiles only fill the GPU by splitting k into slow fp32 slices (TinyMoE's router at 2x1024, [2048, 512]
 * x [512, 8], took 64 us per tile, the whole span of its interval; 4.3% faster update element by
 * element). With as many row tiles as that the tiled form is faster (the router at 32x1024: 1.8% slower
 * update element by element; both H200, 2026-12-01). A warp per element when k >= 32
 * (the lanes split k, reading a's row coalesced), LATCH_SMALL_PRODUCT_WARP_OUTPUTS elements per tile,
 * else a thread per element, LATCH_SMALL_PRODUCT_THREAD_OUTPUTS per tile. */
#define LATCH_SMALL_PRODUCT_WARP_OUTPUTS 64
#define LATCH_SMALL_PRODUCT_THREAD_OUTPUTS 2048
/* With k = 1 (an outer product: TinyMoE's routing weights times the experts' rows, [R, 1, 1] x [R, 1, D])
 * each output is one product, so the product takes an elementwise task's tiles (8192 outputs, loads issued
 * before stores, vectors of 4 when aligned): a thread per output, 2048 per tile, moved 1.2 TB/s (per-tile
 * trace, 32x1024, 2026-12-03). */
#define LATCH_SMALL_PRODUCT_UNIT_DEPTH_OUTPUTS 8192
#define LATCH_NARROW_PRODUCT_COLUMNS 16
bool latch_matmul_is_small(int64_t batch, int64_t m, int64_t n, bool transpose_a);
/* The k-sliced narrow product: an unbatched c = a^T b (transpose_a, not transpose_b) with at most
 * LATCH_NARROW_PRODUCT_COLUMNS columns and a deep k (a multiple of 8, at least
 * LATCH_NARROW_SLICED_MIN_DEPTH), TinyMoE's router weight gradient [512, 8] over the tokens. The tiled form
 * computed it in 128 x 128 fp32 tiles of which 8 columns were used (51 us per tile of k = 128 on the
 * H200, the longest tile of its interval); this form gives each output element a thread, 256 per tile,
 * and splits k into slices of the returned depth (a multiple of 8, at most LATCH_NARROW_SLICED_MAX_SLICES
 * slices) whose partial sums the last slice to arrive adds in slice order. 0 when the form does not apply. */
#define LATCH_NARROW_SLICED_MIN_DEPTH 512
#define LATCH_NARROW_SLICED_DEPTH 128
#define LATCH_NARROW_SLICED_MAX_SLICES 64
int64_t latch_narrow_sliced_depth(int64_t batch, int64_t m, int64_t n, int64_t k, bool transpose_a, bool transpose_b);
/* Outputs per tile of the element-wise product of depth k with `outputs` outputs: the numbers above, halved
 * (down to one per warp, or per thread) while the product would have fewer than LATCH_SPLIT_TILES tiles
 * (TinyMoE's routing-weight gradient, 4096 dot products of 512, ran in 64 tiles of 24 us). */
int64_t latch_small_product_outputs_per_tile(int64_t k, int64_t outputs);
/* Whether the element-wise product of depth k takes a warp per output (else a thread): k >= 32. */
bool latch_small_product_by_warp(int64_t k);

/* task.bucket with at most this many buckets counts them per warp in shared memory (one tile per 256 sort
 * positions); with more, every position is computed alone (tiles of 256 of the G + N items). */
#define LATCH_BUCKET_COUNTED_GROUPS 32

/* task.rmsnorm_grad's dw tiles: LATCH_NORM_DW_COLUMNS columns (a thread per column) x
 * latch_rmsnorm_grad_chunk_rows(rows) rows: LATCH_NORM_DW_MIN_CHUNK_ROWS, doubled while the task would
 * have more than LATCH_NORM_DW_MAX_CHUNKS chunks, up to LATCH_NORM_DW_MAX_CHUNK_ROWS. A dw tile computes
 * the inverse RMS of each of its rows from the whole row, so its cost is chunk x (d + 2 columns): with
 * tiles of 64 columns x 256 rows TinyMoE's d = 512 read every row 8 times (x 5 the bytes of x and dy:
 * 15-20 us tiles at 2x1024 that ended their intervals, and some 2 ms of the 32x1024 update, per-tile
 * trace 2026-12-03). Few chunks keep the last tile's sum of the parts short. */
#define LATCH_NORM_DW_COLUMNS 256
#define LATCH_NORM_DW_MIN_CHUNK_ROWS 64
#define LATCH_NORM_DW_MAX_CHUNK_ROWS 1024
#define LATCH_NORM_DW_MAX_CHUNKS 128
int64_t latch_rmsnorm_grad_chunk_rows(int64_t rows);
/* rmsnorm_grad's dx tiles: a warp per row, LATCH_WARP_ROW_TILE rows, or LATCH_NORM_DX_WIDE_ROW_TILE (two
 * rows per warp) where that gives the task no more tiles than the grid has CTAs: with 8-row tiles TinyMoE
 * 2x1024's 256 dx tiles came after the 64 dw tiles, and 56 CTAs ran a dw tile and then a dx tile, ending
 * each interval (H100, 2026-12-07: 14-20 us against 6 us for a CTA with one dx tile). */
#define LATCH_NORM_DX_WIDE_ROW_TILE 16
int64_t latch_rmsnorm_grad_dx_rows(int64_t rows, int64_t columns);
/* task.grouped_matmul_weight_grad_concat's device template runs 128-column product tiles over dw's 2 N
 * columns, each reading dy0 or dy1: N must be a multiple of this so that no tile straddles the two.
 * latch-fold-weight-split makes the op only then. */
#define LATCH_CONCAT_HALF_COLUMNS 128
/* The persistent grid the schedule plans for: two CTAs on each of the 132 SMs of an H100 or H200 (the
 * runtime launches as many as fit; latch-fuse-phases' balance only weighs intervals by it). */
#define LATCH_GRID_CTAS 264
/* Row-wise ops with a warp per row (rmsnorm, rmsnorm_grad's dx, cross_entropy and its gradient) take
 * tiles of this many rows: one row per warp, so that even 2048 rows fill the SMs. */
#define LATCH_WARP_ROW_TILE 8
/* Element-wise tasks (maps, converts, copies, gathers, the cross-entropy gradient from statistics) run in
 * tiles of LATCH_ELEMENTWISE_TILE elements, or of the largest half or quarter of that which gives at
 * least LATCH_ELEMENTWISE_MIN_TILES tiles when the full size gives fewer: TinyMoE 2x1024's [2048, 512]
 * maps took 128 tiles, so half of the persistent grid's 264 CTAs (two per SM on the H200) waited while
 * the other half moved them. A task too small for that keeps the full tiles (a few CTAs, as before).
 * Elements are computed alone, so the tiling changes no bits. */
#define LATCH_ELEMENTWISE_TILE 8192
#define LATCH_ELEMENTWISE_MIN_TILE 2048
#define LATCH_ELEMENTWISE_MIN_TILES 256
int64_t latch_elementwise_tile(int64_t elements);
/* task.adamw runs in tiles of this many elements, a quarter of the other element-wise tiles: its tile
 * moves 28 bytes per element (16-20 us at 8192 elements on the H200, 2026-12-04), and intervals whose
 * tiles exceed the CTAs by a few dozen waited on CTAs that ran two of them. */
#define LATCH_ADAMW_TILE 2048
/* A task.adamw may update only a range of its tiles, `tile_range = array<i64: first, count>`
 * (latch-split-optimizer), passing the other elements of p, m and v through: the first tile and the
 * count it runs (absent, or not naming tiles of the task: 0 and all its tiles), and whether the attribute,
 * when present, names tiles of the task (count >= 1, first >= 0, first + count at most its tiles). */
bool latch_adamw_tile_range(MlirOperation adamw, int64_t *first, int64_t *count);

/* The number of tiles a task splits into, from its shape (the documented rule in docs/dialects.md). */
int64_t latch_task_tile_count(MlirOperation task);

/* A rough time in nanoseconds of one tile of `task` on a CTA of the persistent kernel (two per SM), from
 * rates measured on the H200 (per-tile traces, 2026-12-01): 128 x 128 product tiles at 1.3 TFLOP/s per
 * CTA on tensor cores (k = 2048: 53 us) and 82 GFLOP/s in fp32 (k = 128: 51 us), whatever share of the
 * tile's columns is used; the grouped weight gradient's tiles at 0.43 TFLOP/s (2026-12-03); attention at
 * 0.4 TFLOP/s (a 64-row tile of the T = 1024 gradient, 43 us); every other task moves its operands' and
 * results' bytes at 15 GB/s (an AdamW tile of 8192 elements, 229 KB, 17 us). Only a ranking: latch-fuse-phases{order} starts an interval's heaviest tiles first. */
double latch_task_tile_cost_ns(MlirOperation task);
/* An interval's time by that cost: its longest tile, or its work (tile costs summed) spread over the
 * persistent grid's CTAs (LATCH_GRID_CTAS), whichever is longer; and the sums that `tiles` more tiles of
 * `cost` ns each make (latch-fuse-phases{balance}, latch-split-optimizer). */
double latch_interval_span_ns(double work, double longest);
void latch_interval_add_tiles(double *work, double *longest, double cost, double tiles);
/* The bytes of a task's tensor operands and results (each counted once: what it moves at least), and the
 * arithmetic of its products as its templates do them (2 per multiply-add; attention: the causal half of
 * the scores, the split gradient's recomputed S and dP included; 0 for tasks without products). The
 * manifest lists both per task, and latch-run's tile report divides them by the task's tile time. */
double latch_task_bytes(MlirOperation task);
double latch_task_flops(MlirOperation task);

/* A task.reshape is a view when its input is the result of a task that the arena holds (any task but
 * task.adamw, whose results are its program arguments) and no `task.fused` mark makes it part of another
 * task's tiles: row-major order makes its result the input's bytes read with another shape, so
 * latch-plan-arena binds it over its input (tiles = 0: no device work) and latch-fuse-phases schedules it
 * in its input's interval. Any other reshape is a copy. */
bool latch_reshape_is_view(MlirOperation op);
/* Attention on tensor cores (latch-lower-tasks): q, k and v bf16, heads of at most 64 (q and k
 * multiples of 16, v of 8), queries a multiple of 64 and keys of 32 (of 64 for the split gradient's
 * products, whose key-row tiles are 64 rows). `all_bf16` says whether q, k and v are bf16. */
#define LATCH_ATTENTION_TC_MAX_HEAD 64
bool latch_attention_fits_tensor_cores(bool all_bf16, int64_t tq, int64_t hd, int64_t tk, int64_t hdv);
/* The same for the split gradient's products (task.attention_grad_from_stats): keys a multiple of 64. */
bool latch_attention_products_fit_tensor_cores(bool all_bf16, int64_t tq, int64_t hd, int64_t tk, int64_t hdv);
/* The split gradient's causal tiles (task.attention_grad_from_stats) pair rows so that each warp has the
 * same work: a tile of LATCH_ATTENTION_GRAD_PAIRED_ROWS query rows (or key rows) in which each group of 16
 * rows is paired with its mirror (g and G - 1 - g of the head's G groups: under the causal mask one sees
 * few keys where the other sees many), where an unpaired tile of 64 rows lasts as long as its heaviest
 * warp (per-tile trace, H100, 2026-12-06: 78 us for a head's first tile, 31 us for its last). Only with
 * many tiles (at least LATCH_ATTENTION_GRAD_PAIRED_MIN_TILES paired ones): paired tiles are as long as
 * the unpaired heavy ones, so with one wave the key-row tiles (86 us on an H200) hold the interval while
 * the query-row tiles (55 us) are done, and TinyMoE 2x1024 (256 paired tiles) took 1.028 of the time
 * (1.012 again with the blocks staged per CTA, H100, round twenty-nine); at 32x1024 (4096) the tile
 * counter evens that out. Causal, with query and key counts multiples of
 * LATCH_ATTENTION_GRAD_PAIRED_ROWS; `heads` is B H. */
#define LATCH_ATTENTION_GRAD_PAIRED_ROWS 128
#define LATCH_ATTENTION_GRAD_PAIRED_MIN_TILES 1024
bool latch_attention_grad_tiles_paired(bool causal, int64_t heads, int64_t tq, int64_t tk);
/* Probes (docs/device-abi.md "Probes"): task results that the runtime can copy out of the arena, one
 * rule per op kind: the j-th task of `kind` in program order gives probes "<prefix><j>.<results[k]>" for
 * its results k < result_count. latch-plan-arena keeps them to the end of the update;
 * latch-lower-intervals lists them in the manifest. */
typedef struct latch_probe_rule {
  latch_op_kind kind;
  const char *prefix;
  int result_count;
  const char *results[2];
} latch_probe_rule;
extern const latch_probe_rule latch_probe_rules[];
extern const size_t latch_probe_rule_count;
bool latch_result_is_probed(MlirOperation op, intptr_t result);
/* True for interval.interval, interval.barrier and the program terminator. */
bool latch_schedule_is_structure(MlirOperation op);

#endif
