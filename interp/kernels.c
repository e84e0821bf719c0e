/* kernels.c - the task ops in fp64, each written from its definition in docs/task-dialect.md. Clarity
 * first; loop orders keep the inner loops contiguous (matmul i-k-j, attention row by row). */
#include "kernels.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checking helpers ---- */

static bool fail(char *error, size_t error_size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, error_size, format, args);
  va_end(args);
  return false;
}

static const char *shape_text(const latch_tensor *t, char *buffer, int size) {
  latch_shape_format(t->rank, t->shape, buffer, size);
  return buffer;
}

/* `t` must be a float tensor (`what` names it in the message). */
static bool need_float(const latch_tensor *t, const char *what, char *error, size_t error_size) {
  if (!latch_dtype_is_float(t->dtype))
    return fail(error, error_size, "%s must be a float tensor, not %s", what, latch_dtype_name(t->dtype));
  return true;
}

static bool need_i32(const latch_tensor *t, const char *what, char *error, size_t error_size) {
  if (t->dtype != LATCH_DTYPE_I32)
    return fail(error, error_size, "%s must be an i32 tensor, not %s", what, latch_dtype_name(t->dtype));
  return true;
}

static bool need_rank(const latch_tensor *t, int rank, const char *what, char *error, size_t error_size) {
  if (t->rank != rank)
    return fail(error, error_size, "%s must have rank %d, not %d", what, rank, t->rank);
  return true;
}

static bool need_same_shape(const latch_tensor *a, const char *a_name, const latch_tensor *b, const char *b_name,
                            char *error, size_t error_size) {
  if (!latch_tensor_same_shape(a, b)) {
    char sa[96], sb[96];
    return fail(error, error_size, "%s (%s) and %s (%s) must have the same shape", a_name, shape_text(a, sa, 96),
                b_name, shape_text(b, sb, 96));
  }
  return true;
}

static bool need_dim(const latch_tensor *t, int d, int64_t expected, const char *what, char *error,
                     size_t error_size) {
  if (t->shape[d] != expected)
    return fail(error, error_size, "dim %d of %s is %lld, expected %lld", d, what, (long long)t->shape[d],
                (long long)expected);
  return true;
}

/* Writes the multi-index of flat position `flat` in `t` as "[1, 2]". */
static const char *position_text(const latch_tensor *t, int64_t flat, char *buffer, int size) {
  int64_t index[LATCH_MAX_RANK];
  for (int d = t->rank - 1; d >= 0; --d) {
    index[d] = t->shape[d] ? flat % t->shape[d] : 0;
    flat = t->shape[d] ? flat / t->shape[d] : 0;
  }
  int n = snprintf(buffer, (size_t)size, "[");
  for (int d = 0; d < t->rank && n < size; ++d)
    n += snprintf(buffer + n, (size_t)(size - n), "%s%lld", d ? ", " : "", (long long)index[d]);
  if (n < size)
    snprintf(buffer + n, (size_t)(size - n), "]");
  return buffer;
}

/* An index read from `t` at `flat` must lie in [0, limit). */
static bool check_index(const latch_tensor *t, int64_t flat, int64_t limit, const char *what, char *error,
                        size_t error_size) {
  int32_t value = t->i[flat];
  if (value < 0 || value >= limit) {
    char at[128];
    return fail(error, error_size, "%s%s = %d is outside [0, %lld)", what, position_text(t, flat, at, 128), value,
                (long long)limit);
  }
  return true;
}

/* Product of dims [from, to) of `t`. */
static int64_t dims_product(const latch_tensor *t, int from, int to) {
  int64_t n = 1;
  for (int d = from; d < to; ++d)
    n *= t->shape[d];
  return n;
}

/* NaN-propagating maximum. */
static double max_propagating(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  return a > b ? a : b;
}

int32_t latch_float_to_i32(double value) {
  if (isnan(value))
    return 0;
  if (value >= 2147483647.0)
    return INT32_MAX;
  if (value <= -2147483648.0)
    return INT32_MIN;
  return (int32_t)value; /* C truncates toward zero */
}

/* ---- matmul ---- */

/* C[M,N] = A[M,K] x B[K,N], all row-major; i-k-j order so that the inner loop runs along rows. */
static void matmul_plain(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m * n; ++i)
    c[i] = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    double *c_row = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      double a_ip = a[i * k + p];
      const double *b_row = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        c_row[j] += a_ip * b_row[j];
    }
  }
}

/* out[cols, rows] = transpose of in[rows, cols]. */
static void transpose_2d(const double *in, double *out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[c * rows + r] = in[r * cols + c];
}

bool latch_kernel_matmul(const latch_tensor *a, const latch_tensor *b, bool transpose_a, bool transpose_b,
                         latch_tensor *c, char *error, size_t error_size) {
  if (!need_float(a, "a", error, error_size) || !need_float(b, "b", error, error_size) ||
      !need_float(c, "the result", error, error_size))
    return false;
  int r = a->rank;
  if ((r != 2 && r != 3) || b->rank != r || c->rank != r)
    return fail(error, error_size, "a, b and the result must all have rank 2, or all rank 3 (got %d, %d, %d)",
                a->rank, b->rank, c->rank);
  int64_t batch = r == 3 ? a->shape[0] : 1;
  if (r == 3 && (b->shape[0] != batch || c->shape[0] != batch))
    return fail(error, error_size, "batch dims of a, b and the result differ (%lld, %lld, %lld)",
                (long long)batch, (long long)b->shape[0], (long long)c->shape[0]);
  int64_t m = a->shape[r - (transpose_a ? 1 : 2)], ka = a->shape[r - (transpose_a ? 2 : 1)];
  int64_t kb = b->shape[r - (transpose_b ? 1 : 2)], n = b->shape[r - (transpose_b ? 2 : 1)];
  if (ka != kb)
    return fail(error, error_size, "inner dims differ: %lld (a) vs %lld (b)", (long long)ka, (long long)kb);
  if (c->shape[r - 2] != m || c->shape[r - 1] != n)
    return fail(error, error_size, "the result must be %lldx%lld", (long long)m, (long long)n);
  /* op(a) and op(b) as row-major [M,K] and [K,N] copies, so that one plain kernel does every case. */
  size_t a_size = (size_t)(m * ka) + 1, b_size = (size_t)(kb * n) + 1;
  double *a_op = transpose_a ? malloc(a_size * sizeof(double)) : NULL;
  double *b_op = transpose_b ? malloc(b_size * sizeof(double)) : NULL;
  if ((transpose_a && !a_op) || (transpose_b && !b_op)) {
    free(a_op);
    free(b_op);
    return fail(error, error_size, "out of memory");
  }
  for (int64_t s = 0; s < batch; ++s) {
    const double *as = a->f + s * m * ka, *bs = b->f + s * kb * n;
    if (transpose_a) {
      transpose_2d(as, a_op, ka, m);
      as = a_op;
    }
    if (transpose_b) {
      transpose_2d(bs, b_op, n, kb);
      bs = b_op;
    }
    matmul_plain(as, bs, c->f + s * m * n, m, ka, n);
  }
  free(a_op);
  free(b_op);
  return true;
}

/* ---- grouped_matmul ---- */

bool latch_kernel_grouped_matmul(const latch_tensor *x, const latch_tensor *w, const latch_tensor *ends,
                                 bool transpose_w, latch_tensor *y, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(w, "w", error, error_size) ||
      !need_i32(ends, "ends", error, error_size) || !need_float(y, "the result", error, error_size) ||
      !need_rank(x, 2, "x", error, error_size) || !need_rank(w, 3, "w", error, error_size) ||
      !need_rank(ends, 1, "ends", error, error_size) || !need_rank(y, 2, "the result", error, error_size))
    return false;
  int64_t rows = x->shape[0], k = x->shape[1], groups = w->shape[0], n = w->shape[transpose_w ? 1 : 2];
  if (!need_dim(w, transpose_w ? 2 : 1, k, "w", error, error_size) ||
      !need_dim(ends, 0, groups, "ends", error, error_size) ||
      !need_dim(y, 0, rows, "the result", error, error_size) ||
      !need_dim(y, 1, n, "the result", error, error_size))
    return false;
  /* With transpose_w, each w[g] is transposed into [K, N] first: the same sums in the same order. */
  double *wt = transpose_w ? malloc((size_t)(k * n > 0 ? k * n : 1) * sizeof(double)) : NULL;
  if (transpose_w && !wt)
    return fail(error, error_size, "out of memory");
  int64_t begin = 0;
  for (int64_t g = 0; g < groups; ++g) {
    int64_t end = ends->i[g];
    if (end < begin || end > rows) {
      free(wt);
      return fail(error, error_size, "ends[%lld] = %lld is outside [%lld, %lld] (ends must be non-decreasing and "
                  "at most the %lld rows of x)", (long long)g, (long long)end, (long long)begin, (long long)rows,
                  (long long)rows);
    }
    const double *wg = w->f + g * k * n;
    if (transpose_w) {
      transpose_2d(wg, wt, n, k);
      wg = wt;
    }
    matmul_plain(x->f + begin * k, wg, y->f + begin * n, end - begin, k, n);
    begin = end;
  }
  free(wt);
  for (int64_t i = begin * n; i < rows * n; ++i)
    y->f[i] = 0.0;
  return true;
}

/* ---- reduce ---- */

bool latch_kernel_reduce(const latch_tensor *x, int64_t axis, latch_reduction kind, latch_tensor *y,
                         char *error, size_t error_size) {
  if (axis < 0 || axis >= x->rank)
    return fail(error, error_size, "axis %lld is outside [0, %d)", (long long)axis, x->rank);
  if (latch_dtype_is_float(x->dtype) != latch_dtype_is_float(y->dtype))
    return fail(error, error_size, "the input (%s) and the result (%s) must both be float or both i32",
                latch_dtype_name(x->dtype), latch_dtype_name(y->dtype));
  if (x->dtype == LATCH_DTYPE_I32 && kind == LATCH_REDUCE_MEAN)
    return fail(error, error_size, "kind \"mean\" needs a float tensor");
  int a = (int)axis;
  bool shape_ok = y->rank == x->rank - 1;
  for (int d = 0, e = 0; shape_ok && d < x->rank; ++d)
    if (d != a)
      shape_ok = y->shape[e++] == x->shape[d];
  if (!shape_ok) {
    char sx[96], sy[96];
    return fail(error, error_size, "the result (%s) must be the input's shape (%s) without dim %d",
                shape_text(y, sy, 96), shape_text(x, sx, 96), a);
  }
  int64_t outer = dims_product(x, 0, a), len = x->shape[a], inner = dims_product(x, a + 1, x->rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      if (x->f) {
        double acc = kind == LATCH_REDUCE_MAX ? -INFINITY : 0.0;
        for (int64_t l = 0; l < len; ++l) {
          double value = x->f[base + l * inner];
          acc = kind == LATCH_REDUCE_MAX ? max_propagating(acc, value) : acc + value;
        }
        y->f[o * inner + i] = kind == LATCH_REDUCE_MEAN ? acc / (double)len : acc;
      } else {
        /* i32: sum wraps modulo 2^32 (as the GPU's integer add does); max of nothing is INT32_MIN. */
        uint32_t sum = 0;
        int32_t max = INT32_MIN;
        for (int64_t l = 0; l < len; ++l) {
          int32_t value = x->i[base + l * inner];
          sum += (uint32_t)value;
          if (value > max)
            max = value;
        }
        int64_t wide = sum > INT32_MAX ? (int64_t)sum - ((int64_t)1 << 32) : (int64_t)sum;
        y->i[o * inner + i] = kind == LATCH_REDUCE_MAX ? max : (int32_t)wide;
      }
    }
  }
  return true;
}

/* ---- rmsnorm, softmax, cross_entropy ---- */

bool latch_kernel_rmsnorm(const latch_tensor *x, const latch_tensor *w, double eps, latch_tensor *y,
                          char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(w, "w", error, error_size) ||
      !need_float(y, "the result", error, error_size))
    return false;
  if (x->rank < 1)
    return fail(error, error_size, "x must have rank 1 or more");
  int64_t d = x->shape[x->rank - 1];
  if (!need_rank(w, 1, "w", error, error_size) || !need_dim(w, 0, d, "w", error, error_size) ||
      !need_same_shape(x, "x", y, "the result", error, error_size))
    return false;
  for (int64_t row = 0; row < (d ? x->count / d : 0); ++row) {
    const double *xr = x->f + row * d;
    double sum_sq = 0.0;
    for (int64_t i = 0; i < d; ++i)
      sum_sq += xr[i] * xr[i];
    double rms = sqrt(sum_sq / (double)d + eps);
    for (int64_t i = 0; i < d; ++i)
      y->f[row * d + i] = xr[i] / rms * w->f[i];
  }
  return true;
}

/* y = exp(x - max x) / sum exp(x - max x) over one row of `n`. */
static void softmax_row(const double *x, double *y, int64_t n) {
  double max = -INFINITY;
  for (int64_t i = 0; i < n; ++i)
    max = max_propagating(max, x[i]);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = exp(x[i] - max);
    sum += y[i];
  }
  for (int64_t i = 0; i < n; ++i)
    y[i] /= sum;
}

bool latch_kernel_softmax(const latch_tensor *x, latch_tensor *y, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(y, "the result", error, error_size) ||
      !need_same_shape(x, "x", y, "the result", error, error_size))
    return false;
  if (x->rank < 1)
    return fail(error, error_size, "x must have rank 1 or more");
  int64_t n = x->shape[x->rank - 1];
  for (int64_t row = 0; row < (n ? x->count / n : 0); ++row)
    softmax_row(x->f + row * n, y->f + row * n, n);
  return true;
}

bool latch_kernel_cross_entropy(const latch_tensor *logits, const latch_tensor *targets, latch_tensor *loss,
                                char *error, size_t error_size) {
  return latch_kernel_cross_entropy_with_stats(logits, targets, loss, NULL, error, error_size);
}

bool latch_kernel_cross_entropy_with_stats(const latch_tensor *logits, const latch_tensor *targets, latch_tensor *loss,
                                           latch_tensor *stats, char *error, size_t error_size) {
  if (!need_float(logits, "logits", error, error_size) || !need_i32(targets, "targets", error, error_size) ||
      !need_float(loss, "the loss", error, error_size) || !need_rank(logits, 2, "logits", error, error_size) ||
      !need_rank(targets, 1, "targets", error, error_size) || !need_rank(loss, 0, "the loss", error, error_size))
    return false;
  int64_t n = logits->shape[0], v = logits->shape[1];
  if (!need_dim(targets, 0, n, "targets", error, error_size))
    return false;
  if (stats && (!need_float(stats, "stats", error, error_size) || !need_rank(stats, 2, "stats", error, error_size) ||
                !need_dim(stats, 0, n, "stats", error, error_size) || !need_dim(stats, 1, 2, "stats", error, error_size)))
    return false;
  /* -log softmax(l)[t] = log(sum_j exp(l_j - max)) + max - l_t, the same quantity without overflow. */
  double total = 0.0;
  for (int64_t row = 0; row < n; ++row) {
    if (!check_index(targets, row, v, "targets", error, error_size))
      return false;
    const double *l = logits->f + row * v;
    double max = -INFINITY;
    for (int64_t j = 0; j < v; ++j)
      max = max_propagating(max, l[j]);
    double sum = 0.0;
    for (int64_t j = 0; j < v; ++j)
      sum += exp(l[j] - max);
    total += log(sum) + max - l[targets->i[row]];
    if (stats)
      stats->f[row * 2] = max, stats->f[row * 2 + 1] = sum;
  }
  loss->f[0] = total / (double)n;
  return true;
}

/* ---- embedding, gather_rows, scatter_add_rows ---- */

/* Copies row `from` of a [*, d] tensor into row `to` of another of the same dtype class. */
static void copy_row(const latch_tensor *src, int64_t from, latch_tensor *dst, int64_t to, int64_t d) {
  if (src->f)
    memcpy(dst->f + to * d, src->f + from * d, (size_t)d * sizeof(double));
  else
    memcpy(dst->i + to * d, src->i + from * d, (size_t)d * sizeof(int32_t));
}

bool latch_kernel_embedding(const latch_tensor *table, const latch_tensor *ids, latch_tensor *y, char *error,
                            size_t error_size) {
  if (!need_rank(table, 2, "table", error, error_size) || !need_i32(ids, "ids", error, error_size))
    return false;
  if (latch_dtype_is_float(table->dtype) != latch_dtype_is_float(y->dtype))
    return fail(error, error_size, "table (%s) and the result (%s) must both be float or both i32",
                latch_dtype_name(table->dtype), latch_dtype_name(y->dtype));
  int64_t v = table->shape[0], d = table->shape[1];
  bool shape_ok = y->rank == ids->rank + 1 && y->shape[ids->rank] == d;
  for (int i = 0; shape_ok && i < ids->rank; ++i)
    shape_ok = y->shape[i] == ids->shape[i];
  if (!shape_ok) {
    char si[96], sy[96];
    return fail(error, error_size, "the result (%s) must be the shape of ids (%s) followed by %lld",
                shape_text(y, sy, 96), shape_text(ids, si, 96), (long long)d);
  }
  for (int64_t s = 0; s < ids->count; ++s) {
    if (!check_index(ids, s, v, "ids", error, error_size))
      return false;
    copy_row(table, ids->i[s], y, s, d);
  }
  return true;
}

bool latch_kernel_gather_rows(const latch_tensor *x, const latch_tensor *idx, latch_tensor *y, char *error,
                              size_t error_size) {
  if (!need_rank(x, 2, "x", error, error_size) || !need_i32(idx, "idx", error, error_size) ||
      !need_rank(idx, 1, "idx", error, error_size) || !need_rank(y, 2, "the result", error, error_size))
    return false;
  if (latch_dtype_is_float(x->dtype) != latch_dtype_is_float(y->dtype))
    return fail(error, error_size, "x (%s) and the result (%s) must both be float or both i32",
                latch_dtype_name(x->dtype), latch_dtype_name(y->dtype));
  int64_t r = x->shape[0], d = x->shape[1], s = idx->shape[0];
  if (!need_dim(y, 0, s, "the result", error, error_size) || !need_dim(y, 1, d, "the result", error, error_size))
    return false;
  for (int64_t i = 0; i < s; ++i) {
    if (!check_index(idx, i, r, "idx", error, error_size))
      return false;
    copy_row(x, idx->i[i], y, i, d);
  }
  return true;
}

bool latch_kernel_scatter_add_rows(const latch_tensor *x, const latch_tensor *idx, int64_t rows,
                                   latch_tensor *y, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(y, "the result", error, error_size) ||
      !need_rank(x, 2, "x", error, error_size) || !need_i32(idx, "idx", error, error_size) ||
      !need_rank(idx, 1, "idx", error, error_size) || !need_rank(y, 2, "the result", error, error_size))
    return false;
  int64_t s = x->shape[0], d = x->shape[1];
  if (!need_dim(idx, 0, s, "idx", error, error_size) || !need_dim(y, 0, rows, "the result", error, error_size) ||
      !need_dim(y, 1, d, "the result", error, error_size))
    return false;
  for (int64_t i = 0; i < y->count; ++i)
    y->f[i] = 0.0;
  for (int64_t i = 0; i < s; ++i) {
    if (!check_index(idx, i, rows, "idx", error, error_size))
      return false;
    double *dst = y->f + (int64_t)idx->i[i] * d;
    const double *src = x->f + i * d;
    for (int64_t j = 0; j < d; ++j)
      dst[j] += src[j];
  }
  return true;
}

/* ---- rope, attention ---- */

bool latch_kernel_rope(const latch_tensor *x, double theta, latch_tensor *y, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(y, "the result", error, error_size) ||
      !need_rank(x, 4, "x", error, error_size) || !need_same_shape(x, "x", y, "the result", error, error_size))
    return false;
  int64_t b = x->shape[0], t = x->shape[1], heads = x->shape[2], hd = x->shape[3];
  if (hd % 2 != 0)
    return fail(error, error_size, "the head dim %lld must be even", (long long)hd);
  int64_t half = hd / 2;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t ti = 0; ti < t; ++ti)
      for (int64_t h = 0; h < heads; ++h) {
        const double *xs = x->f + ((bi * t + ti) * heads + h) * hd;
        double *ys = y->f + ((bi * t + ti) * heads + h) * hd;
        for (int64_t i = 0; i < half; ++i) {
          double f = pow(theta, -2.0 * (double)i / (double)hd);
          double angle = (double)ti * f;
          double c = cos(angle), s = sin(angle);
          ys[i] = xs[i] * c - xs[i + half] * s;
          ys[i + half] = xs[i + half] * c + xs[i] * s;
        }
      }
  return true;
}

bool latch_kernel_attention(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v, bool causal,
                            double scale, latch_tensor *o, char *error, size_t error_size) {
  return latch_kernel_attention_lse(q, k, v, causal, scale, o, NULL, error, error_size);
}

bool latch_kernel_attention_lse(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v, bool causal,
                                double scale, latch_tensor *o, latch_tensor *lse, char *error, size_t error_size) {
  if (!need_float(q, "q", error, error_size) || !need_float(k, "k", error, error_size) ||
      !need_float(v, "v", error, error_size) || !need_float(o, "the result", error, error_size) ||
      !need_rank(q, 4, "q", error, error_size) || !need_rank(k, 4, "k", error, error_size) ||
      !need_rank(v, 4, "v", error, error_size) || !need_rank(o, 4, "the result", error, error_size))
    return false;
  int64_t b = q->shape[0], heads = q->shape[1], tq = q->shape[2], hd = q->shape[3];
  int64_t tk = k->shape[2], hdv = v->shape[3];
  if (!need_dim(k, 0, b, "k", error, error_size) || !need_dim(k, 1, heads, "k", error, error_size) ||
      !need_dim(k, 3, hd, "k", error, error_size) || !need_dim(v, 0, b, "v", error, error_size) ||
      !need_dim(v, 1, heads, "v", error, error_size) || !need_dim(v, 2, tk, "v", error, error_size) ||
      !need_dim(o, 0, b, "the result", error, error_size) ||
      !need_dim(o, 1, heads, "the result", error, error_size) ||
      !need_dim(o, 2, tq, "the result", error, error_size) || !need_dim(o, 3, hdv, "the result", error, error_size))
    return false;
  if (lse && (!need_float(lse, "lse", error, error_size) || !need_rank(lse, 3, "lse", error, error_size) ||
              !need_dim(lse, 0, b, "lse", error, error_size) || !need_dim(lse, 1, heads, "lse", error, error_size) ||
              !need_dim(lse, 2, tq, "lse", error, error_size)))
    return false;
  if (causal && tk != tq)
    return fail(error, error_size, "causal attention needs the same T for q and k (%lld vs %lld)", (long long)tq,
                (long long)tk);
  double *scores = malloc((size_t)(tk ? tk : 1) * sizeof(double));
  if (!scores)
    return fail(error, error_size, "out of memory");
  for (int64_t bh = 0; bh < b * heads; ++bh) {
    const double *qs = q->f + bh * tq * hd, *ks = k->f + bh * tk * hd, *vs = v->f + bh * tk * hdv;
    double *os = o->f + bh * tq * hdv;
    for (int64_t i = 0; i < tq; ++i) {
      int64_t keys = causal ? i + 1 : tk; /* with causal, key j > query i is masked out */
      double max = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0.0;
        for (int64_t c = 0; c < hd; ++c)
          dot += qs[i * hd + c] * ks[j * hd + c];
        scores[j] = dot * scale;
        max = max_propagating(max, scores[j]);
      }
      double sum = 0.0;
      for (int64_t j = 0; j < keys; ++j) {
        scores[j] = exp(scores[j] - max);
        sum += scores[j];
      }
      if (lse) /* the statistics' L (attention_stats): max + log of the shifted sum */
        lse->f[bh * tq + i] = max + log(sum);
      double *out = os + i * hdv;
      for (int64_t c = 0; c < hdv; ++c)
        out[c] = 0.0;
      for (int64_t j = 0; j < keys; ++j) {
        double p = scores[j] / sum;
        for (int64_t c = 0; c < hdv; ++c)
          out[c] += p * vs[j * hdv + c];
      }
    }
  }
  free(scores);
  return true;
}

/* ---- topk, bucket ---- */

/* True when a (at index ia) comes before b (at index ib) in topk order: larger first, NaN largest, ties to
 * the lower index. */
static bool topk_before(double a, int64_t ia, double b, int64_t ib) {
  bool na = isnan(a), nb = isnan(b);
  if (na != nb)
    return na;
  if (!na && a != b)
    return a > b;
  return ia < ib;
}

/* Stable merge sort of `index[0..n)` by topk order of `values[index[i]]`. */
static void sort_topk(int64_t *index, int64_t *scratch, int64_t n, const double *values) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi)
        scratch[out++] = topk_before(values[index[j]], index[j], values[index[i]], index[i]) ? index[j++]
                                                                                            : index[i++];
      while (i < mid)
        scratch[out++] = index[i++];
      while (j < hi)
        scratch[out++] = index[j++];
    }
    memcpy(index, scratch, (size_t)n * sizeof(int64_t));
  }
}

bool latch_kernel_topk(const latch_tensor *x, int64_t k, latch_tensor *values, latch_tensor *indices,
                       char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(values, "values", error, error_size) ||
      !need_i32(indices, "indices", error, error_size) || !need_rank(x, 2, "x", error, error_size) ||
      !need_rank(values, 2, "values", error, error_size) || !need_rank(indices, 2, "indices", error, error_size))
    return false;
  int64_t n = x->shape[0], e = x->shape[1];
  if (k < 1 || k > e)
    return fail(error, error_size, "k = %lld is outside [1, %lld]", (long long)k, (long long)e);
  if (!need_dim(values, 0, n, "values", error, error_size) || !need_dim(values, 1, k, "values", error, error_size) ||
      !need_same_shape(values, "values", indices, "indices", error, error_size))
    return false;
  int64_t *index = malloc((size_t)e * sizeof(int64_t)), *scratch = malloc((size_t)e * sizeof(int64_t));
  if (!index || !scratch) {
    free(index);
    free(scratch);
    return fail(error, error_size, "out of memory");
  }
  for (int64_t row = 0; row < n; ++row) {
    const double *xr = x->f + row * e;
    for (int64_t j = 0; j < e; ++j)
      index[j] = j;
    sort_topk(index, scratch, e, xr);
    for (int64_t j = 0; j < k; ++j) {
      values->f[row * k + j] = xr[index[j]];
      indices->i[row * k + j] = (int32_t)index[j];
    }
  }
  free(index);
  free(scratch);
  return true;
}

bool latch_kernel_bucket(const latch_tensor *ids, int64_t buckets, latch_tensor *order, latch_tensor *ends,
                         char *error, size_t error_size) {
  if (!need_i32(ids, "ids", error, error_size) || !need_i32(order, "order", error, error_size) ||
      !need_i32(ends, "ends", error, error_size) || !need_rank(order, 1, "order", error, error_size) ||
      !need_rank(ends, 1, "ends", error, error_size))
    return false;
  if (buckets < 1)
    return fail(error, error_size, "buckets = %lld must be at least 1", (long long)buckets);
  if (!need_dim(order, 0, ids->count, "order", error, error_size) ||
      !need_dim(ends, 0, buckets, "ends", error, error_size))
    return false;
  if (ids->count > INT32_MAX)
    return fail(error, error_size, "too many ids for i32 positions");
  /* Counting sort: stable, so that equal ids keep their flat order. */
  int64_t *next = calloc((size_t)buckets, sizeof(int64_t));
  if (!next)
    return fail(error, error_size, "out of memory");
  for (int64_t s = 0; s < ids->count; ++s) {
    if (!check_index(ids, s, buckets, "ids", error, error_size)) {
      free(next);
      return false;
    }
    next[ids->i[s]]++;
  }
  int64_t running = 0;
  for (int64_t g = 0; g < buckets; ++g) {
    int64_t count = next[g];
    next[g] = running; /* where bucket g starts */
    running += count;
    ends->i[g] = (int32_t)running; /* number of ids <= g */
  }
  for (int64_t s = 0; s < ids->count; ++s)
    order->i[next[ids->i[s]]++] = (int32_t)s;
  free(next);
  return true;
}

/* ---- reshape, transpose, convert ---- */

bool latch_kernel_reshape(const latch_tensor *x, latch_tensor *y, char *error, size_t error_size) {
  if (x->count != y->count)
    return fail(error, error_size, "element counts differ: %lld vs %lld", (long long)x->count,
                (long long)y->count);
  if (latch_dtype_is_float(x->dtype) != latch_dtype_is_float(y->dtype))
    return fail(error, error_size, "the input (%s) and the result (%s) must both be float or both i32",
                latch_dtype_name(x->dtype), latch_dtype_name(y->dtype));
  if (x->f)
    memcpy(y->f, x->f, (size_t)x->count * sizeof(double));
  else
    memcpy(y->i, x->i, (size_t)x->count * sizeof(int32_t));
  return true;
}

bool latch_kernel_transpose(const latch_tensor *x, const int64_t *perm, int64_t perm_count, latch_tensor *y,
                            char *error, size_t error_size) {
  int r = x->rank;
  if (perm_count != r || y->rank != r)
    return fail(error, error_size, "perm must have one entry per dim of the input (rank %d) and the result", r);
  if (latch_dtype_is_float(x->dtype) != latch_dtype_is_float(y->dtype))
    return fail(error, error_size, "the input (%s) and the result (%s) must both be float or both i32",
                latch_dtype_name(x->dtype), latch_dtype_name(y->dtype));
  bool seen[LATCH_MAX_RANK] = {false};
  for (int d = 0; d < r; ++d) {
    if (perm[d] < 0 || perm[d] >= r || seen[perm[d]])
      return fail(error, error_size, "perm is not a permutation of 0..%d", r - 1);
    seen[perm[d]] = true;
    if (y->shape[d] != x->shape[perm[d]])
      return fail(error, error_size, "dim %d of the result is %lld, expected %lld (dim %lld of the input)", d,
                  (long long)y->shape[d], (long long)x->shape[perm[d]], (long long)perm[d]);
  }
  /* Walk y in row-major order; y[i_0..i_r-1] = x[j] with j_perm[d] = i_d. */
  int64_t x_stride[LATCH_MAX_RANK], stride[LATCH_MAX_RANK], index[LATCH_MAX_RANK] = {0};
  int64_t size = 1;
  for (int d = r - 1; d >= 0; --d) {
    x_stride[d] = size;
    size *= x->shape[d];
  }
  for (int d = 0; d < r; ++d)
    stride[d] = x_stride[perm[d]];
  int64_t from = 0;
  for (int64_t to = 0; to < y->count; ++to) {
    if (x->f)
      y->f[to] = x->f[from];
    else
      y->i[to] = x->i[from];
    for (int d = r - 1; d >= 0; --d) {
      from += stride[d];
      if (++index[d] < y->shape[d])
        break;
      from -= stride[d] * y->shape[d];
      index[d] = 0;
    }
  }
  return true;
}

bool latch_kernel_convert(const latch_tensor *x, latch_tensor *y, char *error, size_t error_size) {
  if (!need_same_shape(x, "the input", y, "the result", error, error_size))
    return false;
  for (int64_t i = 0; i < x->count; ++i) {
    if (x->f && y->f)
      y->f[i] = x->f[i];
    else if (x->f)
      y->i[i] = latch_float_to_i32(x->f[i]);
    else if (y->f)
      y->f[i] = (double)x->i[i];
    else
      y->i[i] = x->i[i];
  }
  return true;
}

/* ---- adamw ---- */

bool latch_kernel_adamw(const latch_tensor *p, const latch_tensor *g, const latch_tensor *m,
                        const latch_tensor *v, const latch_tensor *step, const latch_adamw_config *config,
                        int64_t first, int64_t last, latch_tensor *p_out, latch_tensor *m_out, latch_tensor *v_out,
                        char *error, size_t error_size) {
  const latch_tensor *all[6] = {p, g, m, p_out, m_out, v_out};
  static const char *const names[6] = {"p", "g", "m", "p'", "m'", "v'"};
  for (int i = 0; i < 6; ++i)
    if (!need_float(all[i], names[i], error, error_size) ||
        !need_same_shape(all[i], names[i], v, "v", error, error_size))
      return false;
  if (!need_float(v, "v", error, error_size) || !need_rank(step, 0, "step", error, error_size))
    return false;
  double t = step->f ? step->f[0] : (double)step->i[0];
  if (!(t >= 1.0))
    return fail(error, error_size, "step t = %g must be at least 1", t);
  double b1 = config->beta1, b2 = config->beta2;
  double correction1 = 1.0 - pow(b1, t), correction2 = 1.0 - pow(b2, t);
  first = first > 0 ? first : 0;
  last = last < p->count ? last : p->count;
  for (int64_t i = 0; i < p->count; ++i) {
    if (i < first || i >= last) { /* outside its tile range: passed through */
      p_out->f[i] = p->f[i];
      m_out->f[i] = m->f[i];
      v_out->f[i] = v->f[i];
      continue;
    }
    double gi = g->f[i];
    double mi = b1 * m->f[i] + (1.0 - b1) * gi;
    double vi = b2 * v->f[i] + (1.0 - b2) * gi * gi;
    double m_hat = mi / correction1, v_hat = vi / correction2;
    p_out->f[i] = p->f[i] - config->lr * (config->weight_decay * p->f[i] + m_hat / (sqrt(v_hat) + config->eps));
    m_out->f[i] = mi;
    v_out->f[i] = vi;
  }
  return true;
}

/* ---- Backward ops ---- */

bool latch_kernel_reduce_grad(const latch_tensor *x, const latch_tensor *dy, int64_t axis, latch_reduction kind,
                              latch_tensor *dx, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(dy, "dy", error, error_size) ||
      !need_float(dx, "dx", error, error_size) || !need_same_shape(x, "x", dx, "dx", error, error_size))
    return false;
  if (axis < 0 || axis >= x->rank)
    return fail(error, error_size, "axis %lld is outside [0, %d)", (long long)axis, x->rank);
  int a = (int)axis;
  bool shape_ok = dy->rank == x->rank - 1;
  for (int d = 0, e = 0; shape_ok && d < x->rank; ++d)
    if (d != a)
      shape_ok = dy->shape[e++] == x->shape[d];
  if (!shape_ok) {
    char sx[96], sy[96];
    return fail(error, error_size, "dy (%s) must be the shape of x (%s) without dim %d", shape_text(dy, sy, 96),
                shape_text(x, sx, 96), a);
  }
  int64_t outer = dims_product(x, 0, a), len = x->shape[a], inner = dims_product(x, a + 1, x->rank);
  for (int64_t i = 0; i < dx->count; ++i)
    dx->f[i] = 0.0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      double g = dy->f[o * inner + i];
      if (kind == LATCH_REDUCE_MAX) {
        /* The first index where x attains its maximum (a NaN, if any, is the maximum). */
        int64_t best = 0;
        for (int64_t l = 1; l < len; ++l) {
          double value = x->f[base + l * inner], current = x->f[base + best * inner];
          if (!isnan(current) && (isnan(value) || value > current))
            best = l;
        }
        if (len > 0)
          dx->f[base + best * inner] = g;
      } else {
        for (int64_t l = 0; l < len; ++l)
          dx->f[base + l * inner] = kind == LATCH_REDUCE_MEAN ? g / (double)len : g;
      }
    }
  return true;
}

bool latch_kernel_rmsnorm_grad(const latch_tensor *x, const latch_tensor *w, const latch_tensor *dy, double eps,
                               latch_tensor *dx, latch_tensor *dw, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(w, "w", error, error_size) ||
      !need_float(dy, "dy", error, error_size) || !need_float(dx, "dx", error, error_size) ||
      !need_float(dw, "dw", error, error_size))
    return false;
  if (x->rank < 1)
    return fail(error, error_size, "x must have rank 1 or more");
  int64_t d = x->shape[x->rank - 1];
  if (!need_rank(w, 1, "w", error, error_size) || !need_dim(w, 0, d, "w", error, error_size) ||
      !need_same_shape(x, "x", dy, "dy", error, error_size) || !need_same_shape(x, "x", dx, "dx", error, error_size) ||
      !need_same_shape(w, "w", dw, "dw", error, error_size))
    return false;
  for (int64_t i = 0; i < d; ++i)
    dw->f[i] = 0.0;
  for (int64_t row = 0; row < (d ? x->count / d : 0); ++row) {
    const double *xr = x->f + row * d, *gr = dy->f + row * d;
    double sum_sq = 0.0;
    for (int64_t i = 0; i < d; ++i)
      sum_sq += xr[i] * xr[i];
    double r = 1.0 / sqrt(sum_sq / (double)d + eps);
    /* mean(g xh) with g = dy w and xh = x r */
    double mean_g_xh = 0.0;
    for (int64_t i = 0; i < d; ++i)
      mean_g_xh += gr[i] * w->f[i] * (xr[i] * r);
    mean_g_xh /= (double)d;
    for (int64_t i = 0; i < d; ++i) {
      double xh = xr[i] * r, g = gr[i] * w->f[i];
      dw->f[i] += gr[i] * xh;
      dx->f[row * d + i] = r * (g - xh * mean_g_xh);
    }
  }
  return true;
}

bool latch_kernel_softmax_grad(const latch_tensor *y, const latch_tensor *dy, latch_tensor *dx, char *error,
                               size_t error_size) {
  if (!need_float(y, "y", error, error_size) || !need_float(dy, "dy", error, error_size) ||
      !need_float(dx, "dx", error, error_size) || !need_same_shape(y, "y", dy, "dy", error, error_size) ||
      !need_same_shape(y, "y", dx, "dx", error, error_size))
    return false;
  if (y->rank < 1)
    return fail(error, error_size, "y must have rank 1 or more");
  int64_t n = y->shape[y->rank - 1];
  for (int64_t row = 0; row < (n ? y->count / n : 0); ++row) {
    const double *yr = y->f + row * n, *gr = dy->f + row * n;
    double dot = 0.0;
    for (int64_t i = 0; i < n; ++i)
      dot += gr[i] * yr[i];
    for (int64_t i = 0; i < n; ++i)
      dx->f[row * n + i] = yr[i] * (gr[i] - dot);
  }
  return true;
}

bool latch_kernel_cross_entropy_grad(const latch_tensor *logits, const latch_tensor *targets,
                                     const latch_tensor *dloss, latch_tensor *dlogits, char *error,
                                     size_t error_size) {
  if (!need_float(logits, "logits", error, error_size) || !need_i32(targets, "targets", error, error_size) ||
      !need_float(dloss, "dloss", error, error_size) || !need_float(dlogits, "dlogits", error, error_size) ||
      !need_rank(logits, 2, "logits", error, error_size) || !need_rank(targets, 1, "targets", error, error_size) ||
      !need_rank(dloss, 0, "dloss", error, error_size) ||
      !need_same_shape(logits, "logits", dlogits, "dlogits", error, error_size))
    return false;
  int64_t n = logits->shape[0], v = logits->shape[1];
  if (!need_dim(targets, 0, n, "targets", error, error_size))
    return false;
  double scale = dloss->f[0] / (double)n;
  for (int64_t row = 0; row < n; ++row) {
    if (!check_index(targets, row, v, "targets", error, error_size))
      return false;
    double *out = dlogits->f + row * v;
    softmax_row(logits->f + row * v, out, v);
    out[targets->i[row]] -= 1.0;
    for (int64_t j = 0; j < v; ++j)
      out[j] *= scale;
  }
  return true;
}

bool latch_kernel_cross_entropy_grad_from_stats(const latch_tensor *logits, const latch_tensor *targets,
                                                const latch_tensor *dloss, const latch_tensor *stats,
                                                latch_tensor *dlogits, char *error, size_t error_size) {
  if (!need_float(logits, "logits", error, error_size) || !need_i32(targets, "targets", error, error_size) ||
      !need_float(dloss, "dloss", error, error_size) || !need_float(dlogits, "dlogits", error, error_size) ||
      !need_float(stats, "stats", error, error_size) || !need_rank(logits, 2, "logits", error, error_size) ||
      !need_rank(targets, 1, "targets", error, error_size) || !need_rank(dloss, 0, "dloss", error, error_size) ||
      !need_rank(stats, 2, "stats", error, error_size) ||
      !need_same_shape(logits, "logits", dlogits, "dlogits", error, error_size))
    return false;
  int64_t n = logits->shape[0], v = logits->shape[1];
  if (!need_dim(targets, 0, n, "targets", error, error_size) || !need_dim(stats, 0, n, "stats", error, error_size) ||
      !need_dim(stats, 1, 2, "stats", error, error_size))
    return false;
  double scale = dloss->f[0] / (double)n;
  for (int64_t row = 0; row < n; ++row) {
    if (!check_index(targets, row, v, "targets", error, error_size))
      return false;
    const double *l = logits->f + row * v;
    double *out = dlogits->f + row * v, max = stats->f[row * 2], sum = stats->f[row * 2 + 1];
    for (int64_t j = 0; j < v; ++j) /* softmax_row's arithmetic, with its max and sum */
      out[j] = exp(l[j] - max) / sum;
    out[targets->i[row]] -= 1.0;
    for (int64_t j = 0; j < v; ++j)
      out[j] *= scale;
  }
  return true;
}

bool latch_kernel_rope_grad(const latch_tensor *dy, double theta, latch_tensor *dx, char *error,
                            size_t error_size) {
  if (!need_float(dy, "dy", error, error_size) || !need_float(dx, "dx", error, error_size) ||
      !need_rank(dy, 4, "dy", error, error_size) || !need_same_shape(dy, "dy", dx, "dx", error, error_size))
    return false;
  int64_t b = dy->shape[0], t = dy->shape[1], heads = dy->shape[2], hd = dy->shape[3];
  if (hd % 2 != 0)
    return fail(error, error_size, "the head dim %lld must be even", (long long)hd);
  int64_t half = hd / 2;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t ti = 0; ti < t; ++ti)
      for (int64_t h = 0; h < heads; ++h) {
        const double *gs = dy->f + ((bi * t + ti) * heads + h) * hd;
        double *xs = dx->f + ((bi * t + ti) * heads + h) * hd;
        for (int64_t i = 0; i < half; ++i) {
          double angle = (double)ti * pow(theta, -2.0 * (double)i / (double)hd);
          double c = cos(angle), s = sin(angle);
          xs[i] = gs[i] * c + gs[i + half] * s;
          xs[i + half] = gs[i + half] * c - gs[i] * s;
        }
      }
  return true;
}

/* The shapes shared by the attention gradient kernels: q, o, do [B,H,Tq,hd|hdv], k [B,H,Tk,hd], v [B,H,Tk,hdv]
 * (v and o only when given), stats [B,H,Tq,2] when given. */
static bool check_attention_grad_shapes(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v,
                                        const latch_tensor *o, const latch_tensor *d_o, const latch_tensor *stats,
                                        bool causal, char *error, size_t error_size) {
  const latch_tensor *all[6] = {q, k, v, o, d_o, stats};
  static const char *const names[6] = {"q", "k", "v", "o", "do", "stats"};
  for (int i = 0; i < 6; ++i)
    if (all[i] && (!need_float(all[i], names[i], error, error_size) || !need_rank(all[i], 4, names[i], error, error_size)))
      return false;
  int64_t b = q->shape[0], heads = q->shape[1], tq = q->shape[2], hd = q->shape[3], tk = k->shape[2];
  int64_t hdv = d_o->shape[3];
  if (!need_dim(k, 0, b, "k", error, error_size) || !need_dim(k, 1, heads, "k", error, error_size) ||
      !need_dim(k, 3, hd, "k", error, error_size) || !need_dim(d_o, 0, b, "do", error, error_size) ||
      !need_dim(d_o, 1, heads, "do", error, error_size) || !need_dim(d_o, 2, tq, "do", error, error_size))
    return false;
  if (v && (!need_dim(v, 0, b, "v", error, error_size) || !need_dim(v, 1, heads, "v", error, error_size) ||
            !need_dim(v, 2, tk, "v", error, error_size) || !need_dim(v, 3, hdv, "v", error, error_size)))
    return false;
  if (o && !need_same_shape(o, "o", d_o, "do", error, error_size))
    return false;
  if (stats && (!need_dim(stats, 0, b, "stats", error, error_size) ||
                !need_dim(stats, 1, heads, "stats", error, error_size) ||
                !need_dim(stats, 2, tq, "stats", error, error_size) || !need_dim(stats, 3, 2, "stats", error, error_size)))
    return false;
  if (causal && tk != tq)
    return fail(error, error_size, "causal attention needs the same T for q and k (%lld vs %lld)", (long long)tq,
                (long long)tk);
  return true;
}

/* stats[bh, i] = (L, D): L = log sum_j exp(S[i, j]) over the unmasked keys (max-shifted), D = do[i] . o[i].
 * `scores` holds one row of S (Tk values). */
static void attention_stats(const latch_tensor *q, const latch_tensor *k, const latch_tensor *o,
                            const latch_tensor *d_o, bool causal, double scale, double *scores, double *stats) {
  int64_t bhs = q->shape[0] * q->shape[1], tq = q->shape[2], hd = q->shape[3], tk = k->shape[2];
  int64_t hdv = d_o->shape[3];
  for (int64_t bh = 0; bh < bhs; ++bh) {
    const double *qs = q->f + bh * tq * hd, *ks = k->f + bh * tk * hd;
    const double *os = o->f + bh * tq * hdv, *dos = d_o->f + bh * tq * hdv;
    for (int64_t i = 0; i < tq; ++i) {
      int64_t keys = causal ? i + 1 : tk;
      double max = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0.0;
        for (int64_t c = 0; c < hd; ++c)
          dot += qs[i * hd + c] * ks[j * hd + c];
        scores[j] = dot * scale;
        max = max_propagating(max, scores[j]);
      }
      double sum = 0.0;
      for (int64_t j = 0; j < keys; ++j)
        sum += exp(scores[j] - max);
      double row_dot = 0.0;
      for (int64_t c = 0; c < hdv; ++c)
        row_dot += dos[i * hdv + c] * os[i * hdv + c];
      stats[(bh * tq + i) * 2] = max + log(sum);
      stats[(bh * tq + i) * 2 + 1] = row_dot;
    }
  }
}

/* dq, dk, dv from P[i, j] = exp(S[i, j] - L[i]) and dS = P (do v^T - D), with (L, D) from `stats`. */
static void attention_grad_from_stats(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v,
                                      const latch_tensor *d_o, const double *stats, bool causal, double scale,
                                      latch_tensor *dq, latch_tensor *dk, latch_tensor *dv) {
  int64_t bhs = q->shape[0] * q->shape[1], tq = q->shape[2], hd = q->shape[3], tk = k->shape[2];
  int64_t hdv = v->shape[3];
  for (int64_t i = 0; i < dq->count; ++i)
    dq->f[i] = 0.0;
  for (int64_t i = 0; i < dk->count; ++i)
    dk->f[i] = 0.0;
  for (int64_t i = 0; i < dv->count; ++i)
    dv->f[i] = 0.0;
  for (int64_t bh = 0; bh < bhs; ++bh) {
    const double *qs = q->f + bh * tq * hd, *ks = k->f + bh * tk * hd, *vs = v->f + bh * tk * hdv;
    const double *dos = d_o->f + bh * tq * hdv;
    double *dqs = dq->f + bh * tq * hd, *dks = dk->f + bh * tk * hd, *dvs = dv->f + bh * tk * hdv;
    for (int64_t i = 0; i < tq; ++i) {
      double lse = stats[(bh * tq + i) * 2], row_dot = stats[(bh * tq + i) * 2 + 1];
      int64_t keys = causal ? i + 1 : tk;
      for (int64_t j = 0; j < keys; ++j) {
        double s = 0.0, dp = 0.0; /* S[i, j] and dP[i, j] = do[i] . v[j] */
        for (int64_t c = 0; c < hd; ++c)
          s += qs[i * hd + c] * ks[j * hd + c];
        for (int64_t c = 0; c < hdv; ++c)
          dp += dos[i * hdv + c] * vs[j * hdv + c];
        double p = exp(s * scale - lse), ds = p * (dp - row_dot);
        for (int64_t c = 0; c < hdv; ++c) /* dv = P^T do */
          dvs[j * hdv + c] += p * dos[i * hdv + c];
        for (int64_t c = 0; c < hd; ++c) { /* dq = dS k scale; dk = dS^T q scale */
          dqs[i * hd + c] += ds * ks[j * hd + c] * scale;
          dks[j * hd + c] += ds * qs[i * hd + c] * scale;
        }
      }
    }
  }
}

bool latch_kernel_attention_grad(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v,
                                 const latch_tensor *o, const latch_tensor *d_o, bool causal, double scale,
                                 latch_tensor *dq, latch_tensor *dk, latch_tensor *dv, char *error,
                                 size_t error_size) {
  if (!check_attention_grad_shapes(q, k, v, o, d_o, NULL, causal, error, error_size) ||
      !need_same_shape(q, "q", dq, "dq", error, error_size) || !need_same_shape(k, "k", dk, "dk", error, error_size) ||
      !need_same_shape(v, "v", dv, "dv", error, error_size))
    return false;
  size_t rows = (size_t)(q->count / q->shape[3]);
  double *stats = malloc((rows * 2 + (size_t)k->shape[2] + 1) * sizeof(double));
  if (!stats)
    return fail(error, error_size, "out of memory");
  attention_stats(q, k, o, d_o, causal, scale, stats + rows * 2, stats);
  attention_grad_from_stats(q, k, v, d_o, stats, causal, scale, dq, dk, dv);
  free(stats);
  return true;
}

bool latch_kernel_attention_stats(const latch_tensor *q, const latch_tensor *k, const latch_tensor *o,
                                  const latch_tensor *d_o, bool causal, double scale, latch_tensor *stats,
                                  char *error, size_t error_size) {
  if (!check_attention_grad_shapes(q, k, NULL, o, d_o, stats, causal, error, error_size))
    return false;
  double *scores = malloc((size_t)(k->shape[2] + 1) * sizeof(double));
  if (!scores)
    return fail(error, error_size, "out of memory");
  attention_stats(q, k, o, d_o, causal, scale, scores, stats->f);
  free(scores);
  return true;
}

bool latch_kernel_attention_stats_from_lse(const latch_tensor *o, const latch_tensor *d_o, const latch_tensor *lse,
                                           latch_tensor *stats, char *error, size_t error_size) {
  if (!need_float(o, "o", error, error_size) || !need_rank(o, 4, "o", error, error_size) ||
      !need_same_shape(o, "o", d_o, "do", error, error_size) || !need_float(lse, "lse", error, error_size) ||
      !need_rank(lse, 3, "lse", error, error_size) || !need_float(stats, "stats", error, error_size) ||
      !need_rank(stats, 4, "stats", error, error_size) || !need_dim(stats, 3, 2, "stats", error, error_size))
    return false;
  for (int d = 0; d < 3; ++d)
    if (!need_dim(lse, d, o->shape[d], "lse", error, error_size) ||
        !need_dim(stats, d, o->shape[d], "stats", error, error_size))
      return false;
  int64_t rows = o->shape[0] * o->shape[1] * o->shape[2], hdv = o->shape[3];
  for (int64_t r = 0; r < rows; ++r) {
    double row_dot = 0.0;
    for (int64_t c = 0; c < hdv; ++c)
      row_dot += d_o->f[r * hdv + c] * o->f[r * hdv + c];
    stats->f[r * 2] = lse->f[r];
    stats->f[r * 2 + 1] = row_dot;
  }
  return true;
}

bool latch_kernel_attention_grad_from_stats(const latch_tensor *q, const latch_tensor *k, const latch_tensor *v,
                                            const latch_tensor *d_o, const latch_tensor *stats, bool causal,
                                            double scale, latch_tensor *dq, latch_tensor *dk, latch_tensor *dv,
                                            char *error, size_t error_size) {
  if (!check_attention_grad_shapes(q, k, v, NULL, d_o, stats, causal, error, error_size) ||
      !need_same_shape(q, "q", dq, "dq", error, error_size) || !need_same_shape(k, "k", dk, "dk", error, error_size) ||
      !need_same_shape(v, "v", dv, "dv", error, error_size))
    return false;
  attention_grad_from_stats(q, k, v, d_o, stats->f, causal, scale, dq, dk, dv);
  return true;
}

bool latch_kernel_topk_grad(const latch_tensor *dvalues, const latch_tensor *indices, int64_t columns,
                            latch_tensor *dx, char *error, size_t error_size) {
  if (!need_float(dvalues, "dvalues", error, error_size) || !need_i32(indices, "indices", error, error_size) ||
      !need_float(dx, "dx", error, error_size) || !need_rank(dvalues, 2, "dvalues", error, error_size) ||
      !need_same_shape(dvalues, "dvalues", indices, "indices", error, error_size) ||
      !need_rank(dx, 2, "dx", error, error_size))
    return false;
  int64_t n = dvalues->shape[0], k = dvalues->shape[1];
  if (!need_dim(dx, 0, n, "dx", error, error_size) || !need_dim(dx, 1, columns, "dx", error, error_size))
    return false;
  for (int64_t i = 0; i < dx->count; ++i)
    dx->f[i] = 0.0;
  for (int64_t s = 0; s < n * k; ++s) {
    if (!check_index(indices, s, columns, "indices", error, error_size))
      return false;
    dx->f[(s / k) * columns + indices->i[s]] += dvalues->f[s];
  }
  return true;
}

bool latch_kernel_grouped_matmul_weight_grad(const latch_tensor *x, const latch_tensor *dy, const latch_tensor *ends,
                                             latch_tensor *dw, char *error, size_t error_size) {
  if (!need_float(x, "x", error, error_size) || !need_float(dy, "dy", error, error_size) ||
      !need_i32(ends, "ends", error, error_size) || !need_float(dw, "dw", error, error_size) ||
      !need_rank(x, 2, "x", error, error_size) || !need_rank(dy, 2, "dy", error, error_size) ||
      !need_rank(ends, 1, "ends", error, error_size) || !need_rank(dw, 3, "dw", error, error_size))
    return false;
  int64_t rows = x->shape[0], k = x->shape[1], n = dy->shape[1], groups = ends->shape[0];
  if (!need_dim(dy, 0, rows, "dy", error, error_size) || !need_dim(dw, 0, groups, "dw", error, error_size) ||
      !need_dim(dw, 1, k, "dw", error, error_size) || !need_dim(dw, 2, n, "dw", error, error_size))
    return false;
  for (int64_t i = 0; i < dw->count; ++i)
    dw->f[i] = 0.0;
  int64_t begin = 0;
  for (int64_t g = 0; g < groups; ++g) {
    int64_t end = ends->i[g];
    if (end < begin || end > rows)
      return fail(error, error_size, "ends[%lld] = %lld is outside [%lld, %lld] (ends must be non-decreasing and "
                  "at most the %lld rows of x)", (long long)g, (long long)end, (long long)begin, (long long)rows,
                  (long long)rows);
    double *wg = dw->f + g * k * n;
    for (int64_t r = begin; r < end; ++r) /* increasing r */
      for (int64_t p = 0; p < k; ++p) {
        double xv = x->f[r * k + p];
        const double *dyr = dy->f + r * n;
        for (int64_t j = 0; j < n; ++j)
          wg[p * n + j] += xv * dyr[j];
      }
    begin = end;
  }
  return true;
}

/* The columns [offset, offset + width) of the last dim of a rank-3 x, as a tensor of their own. */
static latch_tensor *column_slice(const latch_tensor *x, int64_t offset, int64_t width, char *error,
                                  size_t error_size) {
  if (!need_float(x, "w", error, error_size) || !need_rank(x, 3, "w", error, error_size))
    return NULL;
  int64_t columns = x->shape[2];
  if (offset < 0 || width < 0 || offset + width > columns) {
    fail(error, error_size, "w_column_offset %lld plus the %lld columns read lie outside dim 2 of 'w' (%lld)",
         (long long)offset, (long long)width, (long long)columns);
    return NULL;
  }
  int64_t shape[3] = {x->shape[0], x->shape[1], width};
  latch_tensor *slice = latch_tensor_allocate(x->dtype, 3, shape);
  if (!slice) {
    fail(error, error_size, "out of memory");
    return NULL;
  }
  for (int64_t row = 0; row < shape[0] * shape[1]; ++row)
    for (int64_t j = 0; j < width; ++j)
      slice->f[row * width + j] = x->f[row * columns + offset + j];
  return slice;
}

bool latch_kernel_grouped_matmul_columns(const latch_tensor *x, const latch_tensor *w, const latch_tensor *ends,
                                         bool transpose_w, int64_t offset, latch_tensor *y, char *error,
                                         size_t error_size) {
  if (!need_rank(x, 2, "x", error, error_size) || !need_rank(y, 2, "y", error, error_size))
    return false;
  latch_tensor *slice = column_slice(w, offset, transpose_w ? x->shape[1] : y->shape[1], error, error_size);
  if (!slice)
    return false;
  bool ok = latch_kernel_grouped_matmul(x, slice, ends, transpose_w, y, error, error_size);
  latch_tensor_free(slice);
  return ok;
}

bool latch_kernel_grouped_matmul_weight_grad_concat(const latch_tensor *x, const latch_tensor *dy0,
                                                    const latch_tensor *dy1, const latch_tensor *ends, latch_tensor *dw,
                                                    char *error, size_t error_size) {
  if (!need_float(dw, "dw", error, error_size) || !need_rank(dw, 3, "dw", error, error_size) ||
      !need_rank(dy0, 2, "dy0", error, error_size))
    return false;
  if (!latch_tensor_same_shape(dy0, dy1))
    return fail(error, error_size, "dy1 must have the shape of dy0");
  int64_t n = dy0->shape[1];
  if (!need_dim(dw, 2, 2 * n, "dw", error, error_size))
    return false;
  int64_t shape[3] = {dw->shape[0], dw->shape[1], n};
  latch_tensor *half[2] = {latch_tensor_allocate(dw->dtype, 3, shape), latch_tensor_allocate(dw->dtype, 3, shape)};
  bool ok = half[0] && half[1];
  if (!ok)
    fail(error, error_size, "out of memory");
  ok = ok && latch_kernel_grouped_matmul_weight_grad(x, dy0, ends, half[0], error, error_size) &&
       latch_kernel_grouped_matmul_weight_grad(x, dy1, ends, half[1], error, error_size);
  for (int64_t row = 0; ok && row < shape[0] * shape[1]; ++row)
    for (int h = 0; h < 2; ++h)
      for (int64_t j = 0; j < n; ++j)
        dw->f[row * 2 * n + h * n + j] = half[h]->f[row * n + j];
  latch_tensor_free(half[0]);
  latch_tensor_free(half[1]);
  return ok;
}
