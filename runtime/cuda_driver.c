/* cuda_driver.c - loads the CUDA driver with dlopen into the table of cuda_driver.h, and turns driver
 * results into statuses. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* Each table entry must have the type of cuda.h's declaration of the same symbol (checked where the
 * compiler can compare types; GCC and Clang can). */
#if defined(__GNUC__)
#define LATCH_CU_SYMBOL(symbol, params)                                                    \
  _Static_assert(__builtin_types_compatible_p(__typeof__(&symbol), CUresult(*) params), \
                 "cuda_symbols.def: " #symbol " differs from its declaration in cuda.h");
#define LATCH_CU_SYMBOL_OR(symbol, older, params) LATCH_CU_SYMBOL(symbol, params)
#include "cuda_symbols.def"
#undef LATCH_CU_SYMBOL
#undef LATCH_CU_SYMBOL_OR
#endif

latch_status latch_cuda_driver_load(const char *library, latch_cuda_driver *out_driver) {
  memset(out_driver, 0, sizeof(*out_driver));
  const char *from_env = getenv(LATCH_CUDA_DRIVER_ENV);
  if (!library)
    library = from_env && *from_env ? from_env : LATCH_CUDA_DRIVER_DEFAULT;
  dlerror();
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return LATCH_MAKE_STATUS(LATCH_STATUS_UNAVAILABLE,
                             "cannot load the CUDA driver: dlopen(\"%s\") failed: %s (is the NVIDIA driver "
                             "installed? %s names another driver library)",
                             library, why ? why : "unknown reason", LATCH_CUDA_DRIVER_ENV);
  }
  snprintf(out_driver->library_name, sizeof(out_driver->library_name), "%s", library);
  void *symbol;
  const char *missing = NULL;
  /* POSIX lets a void * from dlsym become a function pointer; the copy through memcpy says so without a
   * cast that -Wpedantic would flag. */
#define LATCH_CU_SYMBOL(name, params)                          \
  if (!missing) {                                              \
    symbol = dlsym(handle, #name);                             \
    if (symbol)                                                \
      memcpy(&out_driver->name, &symbol, sizeof(symbol));      \
    else                                                       \
      missing = #name;                                         \
  }
#define LATCH_CU_SYMBOL_OR(name, older, params)                \
  if (!missing) {                                              \
    symbol = dlsym(handle, #name);                             \
    if (!symbol)                                               \
      symbol = dlsym(handle, older);                           \
    if (symbol)                                                \
      memcpy(&out_driver->name, &symbol, sizeof(symbol));      \
    else                                                       \
      missing = #name " (or " older ")";                       \
  }
#include "cuda_symbols.def"
#undef LATCH_CU_SYMBOL
#undef LATCH_CU_SYMBOL_OR
  if (missing) {
    dlclose(handle);
    memset(out_driver, 0, sizeof(*out_driver));
    return LATCH_MAKE_STATUS(LATCH_STATUS_UNAVAILABLE,
                             "the CUDA driver library \"%s\" has no symbol %s (a driver older than CUDA 12.8, "
                             "or not the CUDA driver)",
                             library, missing);
  }
  out_driver->library = handle;
  return latch_ok_status();
}

void latch_cuda_driver_unload(latch_cuda_driver *driver) {
  if (driver->library)
    dlclose(driver->library);
  memset(driver, 0, sizeof(*driver));
}

static latch_status_code code_of_result(CUresult result) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return LATCH_STATUS_RESOURCE_EXHAUSTED;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    return LATCH_STATUS_UNAVAILABLE;
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_INVALID_VALUE:
    return LATCH_STATUS_INVALID_ARGUMENT;
  case CUDA_ERROR_NOT_FOUND:
    return LATCH_STATUS_NOT_FOUND;
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return LATCH_STATUS_DEADLINE_EXCEEDED;
  default:
    return LATCH_STATUS_INTERNAL;
  }
}

/* Names of the errors most likely here, for when cuGetErrorName cannot answer (the toolkit's stub library
 * answers every call with CUDA_ERROR_STUB_LIBRARY, that one included). */
static const char *fallback_name(CUresult result) {
  switch (result) {
  case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
  case CUDA_ERROR_INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
  case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
  case CUDA_ERROR_NO_BINARY_FOR_GPU: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case CUDA_ERROR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
  case CUDA_ERROR_NOT_READY: return "CUDA_ERROR_NOT_READY";
  case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
  case CUDA_ERROR_LAUNCH_TIMEOUT: return "CUDA_ERROR_LAUNCH_TIMEOUT";
  case CUDA_ERROR_LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
  default: return NULL;
  }
}

latch_status latch_cuda_result_status(const latch_cuda_driver *driver, CUresult result, const char *call,
                                      const char *file, int line) {
  if (result == CUDA_SUCCESS)
    return latch_ok_status();
  const char *name = NULL, *description = NULL;
  if (driver && driver->cuGetErrorName && driver->cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = NULL;
  if (driver && driver->cuGetErrorString && driver->cuGetErrorString(result, &description) != CUDA_SUCCESS)
    description = NULL;
  /* "cuMemAlloc" for "cuMemAlloc_v2": messages name the call as cuda.h spells it. */
  size_t length = strlen(call);
  if (length > 3 && call[length - 3] == '_' && call[length - 2] == 'v' && call[length - 1] >= '0' &&
      call[length - 1] <= '9')
    length -= 3;
  char unknown[32];
  if (!name)
    name = fallback_name(result);
  if (!name) {
    snprintf(unknown, sizeof(unknown), "CUDA error %d", (int)result);
    name = unknown;
  }
  if (description)
    return latch_status_make(code_of_result(result), file, line, "%.*s failed: %s (%s)", (int)length, call, name,
                             description);
  return latch_status_make(code_of_result(result), file, line, "%.*s failed: %s", (int)length, call, name);
}
