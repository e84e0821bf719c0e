/* host.h - host images of the program's buffers in their device layout (docs/device-abi.md: declared
 * dtype, row-major; bf16 as its 16-bit pattern): the initialisation rule of docs/task-dialect.md (shared
 * with latch-interp through support/init.c, so parameters are bit-identical to `latch-interp --init`),
 * conversion from and to .npy arrays, and the --data token windows. No CUDA here. */
#ifndef LATCH_RUNTIME_HOST_H
#define LATCH_RUNTIME_HOST_H

#include <stdint.h>

#include "../support/npy.h"
#include "manifest.h"
#include "status.h"

/* Fills `out` (arg->tensor.bytes bytes) by the initialisation rule with key splitmix64(splitmix64(seed) ^ p):
 * floats by arg->init and arg->init_std, rounded to the dtype; i32 by arg->range (an error without one).
 * `flag` names the option that asked for it, for the message. */
latch_status latch_host_fill_by_rule(const latch_manifest_arg *arg, uint64_t seed, uint64_t p, const char *flag,
                                     void *out);

/* Converts `array` (from an .npy file, `path` for messages) into `out` for `tensor`: the shape must match
 * exactly; float tensors take '<f4' or '<f8' (rounded to f32, or to bf16 through f32, as the init rule
 * rounds), i32 tensors take '<i4'. */
latch_status latch_host_from_npy(const latch_manifest_tensor *tensor, const latch_npy_array *array, const char *path,
                                 void *out);

/* Wraps `bytes` (the device image of `tensor`) as an .npy array: f32 for f32 and bf16 (exact), i32 for
 * i32. The array owns a copy; release it with latch_npy_array_deinitialize. */
latch_status latch_host_to_npy(const latch_manifest_tensor *tensor, const void *bytes, latch_npy_array *out_array);

/* Writes the update counter t into the step argument's image (f32 t, or i32 t). */
void latch_host_write_step(const latch_manifest_tensor *step, int64_t t, void *out);

/* The value of a rank-0 or first element of a float image as a double (f32 or bf16). */
double latch_host_read_float(const latch_manifest_tensor *tensor, const void *bytes, int64_t index);

/* The --data windows of update `k` (1-based), as `latch-interp --train-steps --data` takes them:
 * o = (k-1) * count mod S; tokens[i] = stream[(o + i) mod S], targets[i] = stream[(o + 1 + i) mod S]. */
void latch_host_data_window(const int32_t *stream, int64_t stream_count, int64_t k, int64_t count, int64_t shift,
                            int32_t *out);

#endif
