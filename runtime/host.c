/* host.c - host images of arguments: the init rule, .npy conversion, --data windows (see host.h). */
#include "host.h"

#include <stdlib.h>
#include <string.h>

#include "../support/init.h"

static void store_float(latch_dtype dtype, double value, void *out, int64_t i) {
  if (dtype == LATCH_DTYPE_F32) {
    float f = (float)latch_round_f32(value);
    memcpy((char *)out + 4 * i, &f, 4);
  } else {
    uint16_t bits = latch_bf16_from_float((float)latch_round_bf16(value));
    memcpy((char *)out + 2 * i, &bits, 2);
  }
}

latch_status latch_host_fill_by_rule(const latch_manifest_arg *arg, uint64_t seed, uint64_t p, const char *flag,
                                     void *out) {
  const latch_manifest_tensor *t = &arg->tensor;
  uint64_t key = latch_init_key(seed, p);
  if (t->dtype == LATCH_DTYPE_I32) {
    if (arg->range < 1)
      return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                               "argument '%s' (arg%lld) is i32 and has no range, so %s cannot fill it; give "
                               "--input %s=FILE.npy",
                               t->name, (long long)arg->index, flag, t->name);
    int32_t *values = out;
    for (int64_t i = 0; i < t->count; ++i)
      values[i] = (int32_t)latch_init_index(key, (uint64_t)i, (uint64_t)arg->range);
    return latch_ok_status();
  }
  for (int64_t i = 0; i < t->count; ++i) {
    double value = arg->init == LATCH_INIT_ONES    ? 1.0
                   : arg->init == LATCH_INIT_ZEROS ? 0.0
                                                   : latch_init_normal(key, (uint64_t)i) * arg->init_std;
    store_float(t->dtype, value, out, i);
  }
  return latch_ok_status();
}

static void shape_text(int rank, const int64_t *shape, char *out, size_t size) {
  size_t used = (size_t)snprintf(out, size, "[");
  for (int d = 0; d < rank && used < size; ++d)
    used += (size_t)snprintf(out + used, size - used, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (used < size)
    snprintf(out + used, size - used, "]");
}

latch_status latch_host_from_npy(const latch_manifest_tensor *tensor, const latch_npy_array *array, const char *path,
                                 void *out) {
  bool same = array->rank == tensor->rank;
  for (int d = 0; same && d < tensor->rank; ++d)
    same = array->shape[d] == tensor->shape[d];
  if (!same) {
    char want[160], got[160];
    shape_text(tensor->rank, tensor->shape, want, sizeof(want));
    shape_text(array->rank, array->shape, got, sizeof(got));
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "'%s' has shape %s, but argument '%s' is %s %s", path, got,
                             tensor->name, latch_dtype_name(tensor->dtype), want);
  }
  if (tensor->dtype == LATCH_DTYPE_I32) {
    if (array->dtype != LATCH_NPY_I32)
      return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "'%s' holds '%s', but argument '%s' is i32 (needs '<i4')",
                               path, latch_npy_dtype_descr(array->dtype), tensor->name);
    if (tensor->bytes)
      memcpy(out, array->data, (size_t)tensor->bytes);
    return latch_ok_status();
  }
  if (array->dtype == LATCH_NPY_I32)
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                             "'%s' holds '<i4', but argument '%s' is %s (needs '<f4' or '<f8')", path, tensor->name,
                             latch_dtype_name(tensor->dtype));
  for (int64_t i = 0; i < tensor->count; ++i) {
    double value = array->dtype == LATCH_NPY_F32 ? (double)((const float *)array->data)[i]
                                                 : ((const double *)array->data)[i];
    store_float(tensor->dtype, value, out, i);
  }
  return latch_ok_status();
}

double latch_host_read_float(const latch_manifest_tensor *tensor, const void *bytes, int64_t index) {
  if (tensor->dtype == LATCH_DTYPE_F32) {
    float f;
    memcpy(&f, (const char *)bytes + 4 * index, 4);
    return f;
  }
  if (tensor->dtype == LATCH_DTYPE_BF16) {
    uint16_t bits;
    memcpy(&bits, (const char *)bytes + 2 * index, 2);
    return latch_bf16_to_float(bits);
  }
  int32_t v;
  memcpy(&v, (const char *)bytes + 4 * index, 4);
  return v;
}

latch_status latch_host_to_npy(const latch_manifest_tensor *tensor, const void *bytes, latch_npy_array *out_array) {
  memset(out_array, 0, sizeof(*out_array));
  out_array->dtype = tensor->dtype == LATCH_DTYPE_I32 ? LATCH_NPY_I32 : LATCH_NPY_F32;
  out_array->rank = tensor->rank;
  for (int d = 0; d < tensor->rank; ++d)
    out_array->shape[d] = tensor->shape[d];
  out_array->count = tensor->count;
  out_array->data = malloc(tensor->count ? (size_t)tensor->count * 4 : 1);
  if (!out_array->data)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory converting '%s'", tensor->name);
  if (tensor->dtype == LATCH_DTYPE_BF16) {
    float *values = out_array->data;
    for (int64_t i = 0; i < tensor->count; ++i)
      values[i] = (float)latch_host_read_float(tensor, bytes, i);
  } else if (tensor->count) {
    memcpy(out_array->data, bytes, (size_t)tensor->count * 4);
  }
  return latch_ok_status();
}

void latch_host_write_step(const latch_manifest_tensor *step, int64_t t, void *out) {
  if (step->dtype == LATCH_DTYPE_I32) {
    int32_t v = (int32_t)t;
    memcpy(out, &v, 4);
  } else {
    float v = (float)t;
    memcpy(out, &v, 4);
  }
}

void latch_host_data_window(const int32_t *stream, int64_t stream_count, int64_t k, int64_t count, int64_t shift,
                            int32_t *out) {
  int64_t offset = (int64_t)(((__int128)(k - 1) * count) % stream_count);
  for (int64_t i = 0; i < count; ++i)
    out[i] = stream[(offset + shift + i) % stream_count];
}
