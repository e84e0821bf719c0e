/* tensor.c - allocation, shapes and rounding of the interpreter's tensors. */
#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/init.h"

const char *latch_dtype_name(latch_dtype dtype) {
  switch (dtype) {
  case LATCH_DTYPE_F32: return "f32";
  case LATCH_DTYPE_BF16: return "bf16";
  case LATCH_DTYPE_F64: return "f64";
  case LATCH_DTYPE_I32: return "i32";
  }
  return "?";
}

int64_t latch_shape_count(int rank, const int64_t *shape) {
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] < 0 || (shape[d] != 0 && count > LATCH_MAX_ELEMENTS / shape[d]))
      return -1;
    count *= shape[d];
  }
  return count;
}

latch_tensor *latch_tensor_allocate(latch_dtype dtype, int rank, const int64_t *shape) {
  if (rank < 0 || rank > LATCH_MAX_RANK)
    return NULL;
  int64_t count = latch_shape_count(rank, shape);
  if (count < 0)
    return NULL;
  latch_tensor *tensor = calloc(1, sizeof(*tensor));
  if (!tensor)
    return NULL;
  tensor->dtype = dtype;
  tensor->rank = rank;
  for (int d = 0; d < rank; ++d)
    tensor->shape[d] = shape[d];
  tensor->count = count;
  size_t n = count ? (size_t)count : 1;
  if (latch_dtype_is_float(dtype))
    tensor->f = calloc(n, sizeof(double));
  else
    tensor->i = calloc(n, sizeof(int32_t));
  if (!tensor->f && !tensor->i) {
    free(tensor);
    return NULL;
  }
  return tensor;
}

latch_tensor *latch_tensor_clone(const latch_tensor *tensor) {
  latch_tensor *copy = latch_tensor_allocate(tensor->dtype, tensor->rank, tensor->shape);
  if (!copy)
    return NULL;
  if (tensor->f)
    memcpy(copy->f, tensor->f, (size_t)tensor->count * sizeof(double));
  else
    memcpy(copy->i, tensor->i, (size_t)tensor->count * sizeof(int32_t));
  return copy;
}

void latch_tensor_free(latch_tensor *tensor) {
  if (!tensor)
    return;
  free(tensor->f);
  free(tensor->i);
  free(tensor);
}

bool latch_tensor_same_shape(const latch_tensor *a, const latch_tensor *b) {
  if (a->rank != b->rank)
    return false;
  for (int d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d])
      return false;
  return true;
}

void latch_shape_format(int rank, const int64_t *shape, char *out, int out_size) {
  if (rank == 0) {
    snprintf(out, (size_t)out_size, "scalar");
    return;
  }
  int n = 0;
  out[0] = '\0';
  for (int d = 0; d < rank && n >= 0 && n < out_size; ++d)
    n += snprintf(out + n, (size_t)(out_size - n), "%s%lld", d ? "x" : "", (long long)shape[d]);
}

double latch_round_stored(double value, latch_dtype dtype, latch_emulate mode) {
  switch (mode) {
  case LATCH_EMULATE_NONE: return value;
  case LATCH_EMULATE_FP32: return latch_round_f32(value);
  case LATCH_EMULATE_BF16:
    if (dtype == LATCH_DTYPE_BF16)
      return latch_round_bf16(value);
    if (dtype == LATCH_DTYPE_F32)
      return latch_round_f32(value);
    return value;
  }
  return value;
}

void latch_tensor_round(latch_tensor *tensor, latch_emulate mode) {
  if (!tensor->f || mode == LATCH_EMULATE_NONE)
    return;
  for (int64_t k = 0; k < tensor->count; ++k)
    tensor->f[k] = latch_round_stored(tensor->f[k], tensor->dtype, mode);
}
