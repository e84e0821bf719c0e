/* npy.h - reading and writing NumPy .npy files (format version 1.0, little-endian '<f4', '<f8' and '<i4'
 * in C order), with strict validation of the header and of the data size. No MLIR dependency. */
#ifndef LATCH_SUPPORT_NPY_H
#define LATCH_SUPPORT_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LATCH_NPY_MAX_RANK 8
/* Files whose data is larger than this are refused (a reader holds the whole array in memory). */
#define LATCH_NPY_MAX_BYTES ((int64_t)1 << 34)

typedef enum latch_npy_dtype {
  LATCH_NPY_F32, /* '<f4' */
  LATCH_NPY_F64, /* '<f8' */
  LATCH_NPY_I32, /* '<i4' */
} latch_npy_dtype;

/* An array in memory: `count` elements of `dtype` in C order (host byte order). */
typedef struct latch_npy_array {
  latch_npy_dtype dtype;
  int rank;
  int64_t shape[LATCH_NPY_MAX_RANK];
  int64_t count;
  void *data; /* float, double or int32_t elements; owned */
} latch_npy_array;

/* The descr string of `dtype` ("<f4", ...). */
const char *latch_npy_dtype_descr(latch_npy_dtype dtype);
/* Size of one element of `dtype` in bytes. */
size_t latch_npy_dtype_size(latch_npy_dtype dtype);

/* Reads `path` into `out_array`. On failure writes one message naming the file into `error` (at most
 * `error_size` bytes) and returns false; `out_array` then holds nothing. Release with
 * latch_npy_array_deinitialize. */
bool latch_npy_read(const char *path, latch_npy_array *out_array, char *error, size_t error_size);

/* Parses a whole .npy image held in memory (`bytes`, `length`); `name` names it in messages. */
bool latch_npy_parse(const char *name, const unsigned char *bytes, size_t length, latch_npy_array *out_array,
                     char *error, size_t error_size);

/* Writes `array` to `path` (version 1.0, header padded to 64 bytes). On failure writes one message into
 * `error` and returns false. */
bool latch_npy_write(const char *path, const latch_npy_array *array, char *error, size_t error_size);

void latch_npy_array_deinitialize(latch_npy_array *array);

#endif
