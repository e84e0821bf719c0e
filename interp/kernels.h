/* kernels.h - the task ops as plain C functions over latch_tensor, each written from its definition in
 * docs/task-dialect.md and computed in fp64. No MLIR dependency.
 *
 * Every kernel takes its inputs and its already allocated outputs (dtype and shape from the op's result
 * types), checks that the shapes and dtypes fit together (so that no input, however wrong, can make it
 * read or write out of bounds), and fills the outputs. On failure it writes one message into `error`
 * (at most `error_size` bytes; the caller prefixes the op name and location) and returns false. None of
 * them rounds its outputs: the caller applies --emulate at the op boundary. */
#ifndef LATCH_INTERP_KERNELS_H
#define LATCH_INTERP_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "tensor.h"

typedef enum latch_reduction {
  LATCH_REDUCE_SUM,
  LATCH_REDUCE_MAX,
  LATCH_REDUCE_MEAN,
} latch_reduction;

typedef struct latch_adamw_config {
  double lr, beta1, beta2, eps, weight_decay;
} latch_adamw_config;

bool latch_kernel_matmul(const latch_tensor *a, const latch_tensor *b, bool transpose_a, bool transpose_b,
                         latch_tensor *c, char *error, size_t error_size);
/* y[r] = x[r] w[g] for the rows of group g (w is [G, K, N]; with transpose_w [G, N, K] and y[r] = x[r] w[g]^T),
 * 0 after ends[G-1]. */
bool latch_kernel_grouped_matmul(const latch_tensor *x, const latch_tensor *w, const latch_tensor *ends,
                                 bool transpose_w, latch_tensor *y, char *error, size_t error_size);
/* latch_kernel_grouped_matmul reading w's columns [offset, offset + n) of its last dim (task.grouped_matmul's
 * w_column_offset; n = N, or K with transpose_w): the same sums over that slice. */
bool latch_kernel_grouped_matmul_columns(const latch_tensor *x, const latch_tensor *w, const latch_tensor *ends,
                                         bool transpose_w, int64_t offset, latch_tensor *y, char *error,
                                         size_t error_size);
bool latch_kernel_reduce(const latch_tensor *x, int64_t axis, latch_reduction kind, latch_tensor *y,
                         char *error, size_t error_size);
bool latch_kernel_rmsnorm(const latch_tensor *x, const latch_tensor *w, double eps, latch_tensor *y,
                          char *error, size_t error_size);
bool latch_kernel_softmax(const latch_tensor *x, latch_tensor *y, char *error, size_t error_size);
bool latch_kernel_cross_entropy(const latch_tensor *logits, const latch_tensor *targets, latch_tensor *loss,
                                char *error, size_t error_size);
/* latch_kernel_cross_entropy that also writes stats [N, 2]: each row's max and sum of exp(l - max) (stats
 * may be NULL); latch_kernel_cross_entropy_grad_from_stats is latch_kernel_cross_entropy_grad with them. */
bool latch_kernel_cross_entropy_with_stats(const latch_tensor *logits, const latch_tensor *targets, latch_tensor *loss,
                                           latch_tensor *stats, char *error, size_t error_size);
bool latch_kernel_cross_entropy_grad_from_stats(const latch_tensor *logits, const latch_tensor *targets,
                                                const latch_tensor *dloss, const latch_tensor *stats,
                                                latch_tensor *dlogits, char *error, size_t error_size);
bool latch_kernel_embedding(const latch_tensor *table, const latch_tensor *ids, latch_tensor *y, char *error,
                            size_t error_size);
bool latch_kernel_rope(const latch_tensor *x, double theta, latch_tensor *y, char *error, size_t error_size);
bool latch_kernel_attention(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v, bool causal,
                            double scale, latch_tensor *o, char *error, size_t error_size);
/* latch_kernel_attention that also writes lse [B,H,Tq]: each query row's log-sum-exp L, as
 * latch_kernel_attention_stats computes it (lse may be NULL). */
bool latch_kernel_attention_lse(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v, bool causal,
                                double scale, latch_tensor *o, latch_tensor *lse, char *error, size_t error_size);
bool latch_kernel_topk(const latch_tensor *x, int64_t k, latch_tensor *values, latch_tensor *indices,
                       char *error, size_t error_size);
bool latch_kernel_bucket(const latch_tensor *ids, int64_t buckets, latch_tensor *order, latch_tensor *ends,
                         char *error, size_t error_size);
bool latch_kernel_gather_rows(const latch_tensor *x, const latch_tensor *idx, latch_tensor *y, char *error,
                              size_t error_size);
bool latch_kernel_scatter_add_rows(const latch_tensor *x, const latch_tensor *idx, int64_t rows,
                                   latch_tensor *y, char *error, size_t error_size);
bool latch_kernel_reshape(const latch_tensor *x, latch_tensor *y, char *error, size_t error_size);
/* `perm` has `perm_count` entries (-1 when the attribute is missing). */
bool latch_kernel_transpose(const latch_tensor *x, const int64_t *perm, int64_t perm_count, latch_tensor *y,
                            char *error, size_t error_size);
/* float -> int truncates toward zero and saturates at the i32 range (NaN gives 0), as the GPU does;
 * float -> float keeps the value (rounding to the new dtype is the op boundary's business). */
bool latch_kernel_convert(const latch_tensor *x, latch_tensor *y, char *error, size_t error_size);
/* Updates elements [first, last) (clamped to the tensors); the others of p, m and v pass through. */
bool latch_kernel_adamw(const latch_tensor *p, const latch_tensor *g, const latch_tensor *m,
                        const latch_tensor *v, const latch_tensor *step, const latch_adamw_config *config,
                        int64_t first, int64_t last, latch_tensor *p_out, latch_tensor *m_out, latch_tensor *v_out,
                        char *error, size_t error_size);

/* Backward ops (docs/task-dialect.md, "Backward ops"). */
bool latch_kernel_reduce_grad(const latch_tensor *x, const latch_tensor *dy, int64_t axis, latch_reduction kind,
                              latch_tensor *dx, char *error, size_t error_size);
bool latch_kernel_rmsnorm_grad(const latch_tensor *x, const latch_tensor *w, const latch_tensor *dy, double eps,
                               latch_tensor *dx, latch_tensor *dw, char *error, size_t error_size);
bool latch_kernel_softmax_grad(const latch_tensor *y, const latch_tensor *dy, latch_tensor *dx, char *error,
                               size_t error_size);
bool latch_kernel_cross_entropy_grad(const latch_tensor *logits, const latch_tensor *targets,
                                     const latch_tensor *dloss, latch_tensor *dlogits, char *error,
                                     size_t error_size);
bool latch_kernel_rope_grad(const latch_tensor *dy, double theta, latch_tensor *dx, char *error, size_t error_size);
bool latch_kernel_attention_grad(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v,
                                 const latch_tensor *o, const latch_tensor *d_o, bool causal, double scale,
                                 latch_tensor *dq, latch_tensor *dk, latch_tensor *dv, char *error,
                                 size_t error_size);
/* The split gradient (latch-split-attention-grad): stats [B,H,Tq,2] holds each query row's log-sum-exp L
 * and D = do . o; the products then use P = exp(S - L). latch_kernel_attention_grad is the two in turn. */
bool latch_kernel_attention_stats(const latch_tensor *q, const latch_tensor *k, const latch_tensor *o,
                                  const latch_tensor *d_o, bool causal, double scale, latch_tensor *stats,
                                  char *error, size_t error_size);
/* stats [B,H,Tq,2] from the forward's lse [B,H,Tq]: (L, D) = (lse, do . o) per query row. */
bool latch_kernel_attention_stats_from_lse(const latch_tensor *o, const latch_tensor *d_o, const latch_tensor *lse,
                                           latch_tensor *stats, char *error, size_t error_size);
bool latch_kernel_attention_grad_from_stats(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v,
                                            const latch_tensor *d_o, const latch_tensor *stats, bool causal,
                                            double scale, latch_tensor *dq, latch_tensor *dk, latch_tensor *dv,
                                            char *error, size_t error_size);
/* Scatters dvalues[n, j] to dx[n, indices[n, j]]; repeated indices (which topk never produces) add up. */
bool latch_kernel_topk_grad(const latch_tensor *dvalues, const latch_tensor *indices, int64_t columns,
                            latch_tensor *dx, char *error, size_t error_size);
bool latch_kernel_grouped_matmul_weight_grad(const latch_tensor *x, const latch_tensor *dy, const latch_tensor *ends,
                                             latch_tensor *dw, char *error, size_t error_size);
/* dw [G, K, 2 N]: the weight gradients of dy0 and of dy1 (each [R, N]) side by side in each row. */
bool latch_kernel_grouped_matmul_weight_grad_concat(const latch_tensor *x, const latch_tensor *dy0,
                                                    const latch_tensor *dy1, const latch_tensor *ends, latch_tensor *dw,
                                                    char *error, size_t error_size);

/* float -> i32 as convert does it: truncation toward zero, saturated, NaN -> 0. */
int32_t latch_float_to_i32(double value);

#endif
