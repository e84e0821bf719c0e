/* tensor.h - the interpreter's tensors: a dtype, a static shape and the elements in row-major order,
 * floats held as fp64 whatever their declared dtype, i32 as int32_t. No MLIR dependency. */
#ifndef LATCH_INTERP_TENSOR_H
#define LATCH_INTERP_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#define LATCH_MAX_RANK 8
/* Tensors with more elements than this are refused (an error, not an allocation failure). */
#define LATCH_MAX_ELEMENTS ((int64_t)1 << 30)

/* The element types a task program stores. */
typedef enum latch_dtype {
  LATCH_DTYPE_F32,
  LATCH_DTYPE_BF16,
  LATCH_DTYPE_F64,
  LATCH_DTYPE_I32,
} latch_dtype;

/* What --emulate asks for: how stored float tensors are rounded at op boundaries. */
typedef enum latch_emulate {
  LATCH_EMULATE_NONE, /* nothing is rounded: fp64 throughout */
  LATCH_EMULATE_FP32, /* every stored float tensor is rounded to f32 */
  LATCH_EMULATE_BF16, /* every stored float tensor is rounded to its declared dtype (f64 stays f64) */
} latch_emulate;

typedef struct latch_tensor {
  latch_dtype dtype;
  int rank;
  int64_t shape[LATCH_MAX_RANK];
  int64_t count;
  double *f;  /* the elements of a float tensor (NULL for i32) */
  int32_t *i; /* the elements of an i32 tensor (NULL for floats) */
} latch_tensor;

static inline bool latch_dtype_is_float(latch_dtype dtype) { return dtype != LATCH_DTYPE_I32; }
/* "f32", "bf16", "f64", "i32". */
const char *latch_dtype_name(latch_dtype dtype);

/* Element count of `shape`, or -1 when it is above LATCH_MAX_ELEMENTS (or a dim is negative). */
int64_t latch_shape_count(int rank, const int64_t *shape);

/* A zero-filled tensor; NULL when the rank or size is out of range or memory runs out. The caller owns
 * it and releases it with latch_tensor_free. */
latch_tensor *latch_tensor_allocate(latch_dtype dtype, int rank, const int64_t *shape);
latch_tensor *latch_tensor_clone(const latch_tensor *tensor);
void latch_tensor_free(latch_tensor *tensor);

/* True when both have the same rank and dims. */
bool latch_tensor_same_shape(const latch_tensor *a, const latch_tensor *b);
/* Writes the shape as "2x3" ("scalar" for rank 0) into `out`. */
void latch_shape_format(int rank, const int64_t *shape, char *out, int out_size);

/* `value` rounded as a stored element of `dtype` under `mode` (see latch_emulate). */
double latch_round_stored(double value, latch_dtype dtype, latch_emulate mode);
/* Rounds every element of a float tensor under `mode`; i32 tensors are left alone. */
void latch_tensor_round(latch_tensor *tensor, latch_emulate mode);

#endif
