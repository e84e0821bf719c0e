/* cuda_driver.h - the CUDA driver API reached through one table of function pointers filled by
 * dlopen/dlsym (cuda_symbols.def), so that the runtime builds and its host-side tests run on machines
 * without a GPU driver: a missing libcuda is a status that says so, not a loader failure. cuda.h gives
 * the types only; nothing links against libcuda. */
#ifndef LATCH_RUNTIME_CUDA_DRIVER_H
#define LATCH_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include "status.h"

/* The library dlopen'ed when no other is named: the driver's soname. */
#define LATCH_CUDA_DRIVER_DEFAULT "libcuda.so.1"
/* An environment variable naming another driver library (a path or soname), for tests. */
#define LATCH_CUDA_DRIVER_ENV "LATCH_CUDA_DRIVER"

typedef struct latch_cuda_driver {
  void *library; /* dlopen handle; owned */
  char library_name[512];
#define LATCH_CU_SYMBOL(symbol, params) CUresult (*symbol) params;
#define LATCH_CU_SYMBOL_OR(symbol, older, params) CUresult (*symbol) params;
#include "cuda_symbols.def"
#undef LATCH_CU_SYMBOL
#undef LATCH_CU_SYMBOL_OR
} latch_cuda_driver;

/* Opens `library` (NULL: $LATCH_CUDA_DRIVER, else libcuda.so.1) and resolves every symbol. Does not call
 * cuInit. On failure (no library, a missing symbol) `out_driver` holds nothing. */
latch_status latch_cuda_driver_load(const char *library, latch_cuda_driver *out_driver);
void latch_cuda_driver_unload(latch_cuda_driver *driver);

/* The status of a driver call's result: OK for CUDA_SUCCESS, else "<call> failed: CUDA_ERROR_X (its
 * description)" with a code that fits the error. `call` is the symbol ("cuMemAlloc_v2"; the version
 * suffix is dropped in the message). */
latch_status latch_cuda_result_status(const latch_cuda_driver *driver, CUresult result, const char *call,
                                      const char *file, int line);

/* Calls driver->symbol(args...) and turns its result into a status. */
#define LATCH_CU_CALL(driver, symbol, args) \
  latch_cuda_result_status((driver), (driver)->symbol args, #symbol, __FILE__, __LINE__)

/* LATCH_CU_CALL, then LATCH_RETURN_IF_ERROR with the context (printf-like, mandatory). */
#define LATCH_CU_RETURN_IF_ERROR(driver, symbol, args, ...) \
  LATCH_RETURN_IF_ERROR(LATCH_CU_CALL(driver, symbol, args), __VA_ARGS__)

#endif
