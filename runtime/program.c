/* program.c - a compiled Latch program on one GPU (see program.h). */
#include "program.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"

/* cuMemAlloc gives at least this alignment; the arena needs LATCH_ABI_ARENA_ALIGNMENT. Zero-byte
 * buffers still get an allocation of this size so every argument has a distinct valid address. */
#define MIN_ALLOCATION 256
#define JIT_LOG_BYTES 16384

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static latch_status allocate(latch_program *p, size_t bytes, const char *what, CUdeviceptr *out) {
  if (bytes < MIN_ALLOCATION)
    bytes = MIN_ALLOCATION;
  CUresult result = p->driver.cuMemAlloc_v2(out, bytes);
  if (result != CUDA_SUCCESS) {
    *out = 0;
    size_t free_bytes = 0, total_bytes = 0;
    latch_status status = latch_cuda_result_status(&p->driver, result, "cuMemAlloc_v2", __FILE__, __LINE__);
    if (p->driver.cuMemGetInfo_v2(&free_bytes, &total_bytes) == CUDA_SUCCESS)
      return latch_status_annotate(status, __FILE__, __LINE__,
                                   "allocating %zu bytes for %s (%zu of %zu bytes of device memory free)", bytes, what,
                                   free_bytes, total_bytes);
    return latch_status_annotate(status, __FILE__, __LINE__, "allocating %zu bytes for %s", bytes, what);
  }
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemsetD8_v2, (*out, 0, bytes), "zeroing %s", what);
  return latch_ok_status();
}

static latch_status load_module(latch_program *p, const char *image_name, const void *image, size_t image_size,
                                bool verbose) {
  (void)image_size;
  char *error_log = calloc(1, JIT_LOG_BYTES);
  if (!error_log)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void *values[] = {error_log, (void *)(uintptr_t)JIT_LOG_BYTES, p->jit_info_log,
                    (void *)(uintptr_t)sizeof(p->jit_info_log), (void *)(uintptr_t)(verbose ? 1 : 0)};
  CUresult result = p->driver.cuModuleLoadDataEx(&p->module, image, sizeof(options) / sizeof(options[0]), options,
                                                 values);
  latch_status status = latch_cuda_result_status(&p->driver, result, "cuModuleLoadDataEx", __FILE__, __LINE__);
  if (status) {
    p->module = NULL;
    size_t n = strnlen(error_log, JIT_LOG_BYTES - 1);
    while (n && (error_log[n - 1] == '\n' || error_log[n - 1] == ' '))
      error_log[--n] = '\0';
    status = latch_status_annotate(status, __FILE__, __LINE__, "loading '%s'%s%s%s", image_name,
                                   n ? " (JIT error log:\n" : " (the JIT left no error log)", n ? error_log : "",
                                   n ? ")" : "");
  }
  free(error_log);
  return status;
}

/* Lets `kernel` (named `name`) use the manifest's dynamic shared memory. The default limit, 48 KiB, covers
 * static and dynamic shared memory together (@latch_main's tile counter word is static), so the
 * manifest's amount is always asked for. */
static latch_status allow_dynamic_shared(latch_program *p, CUfunction kernel, const char *name) {
  latch_cuda_driver *d = &p->driver;
  int64_t bytes = p->manifest->dynamic_shared_bytes;
  if (bytes > 0)
    LATCH_CU_RETURN_IF_ERROR(d, cuFuncSetAttribute, (kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes),
                             "allowing %lld bytes of dynamic shared memory for '%s'", (long long)bytes, name);
  return latch_ok_status();
}

/* Picks the grid: every CTA must be co-resident for the grid barrier (a cooperative launch). */
static latch_status choose_grid(latch_program *p, const latch_program_options *options) {
  const latch_manifest *m = p->manifest;
  latch_cuda_driver *d = &p->driver;
  int threads = m->block[0] * m->block[1] * m->block[2];
  int cooperative = 0, max_threads = 0, static_shared = 0;
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGetAttribute,
                           (&p->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, p->device), "counting SMs");
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGetAttribute, (&cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, p->device),
                           "asking for cooperative launch support");
  if (!cooperative && !options->staged)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION,
                             "device %d (%s) does not support cooperative launches, which the grid barrier needs",
                             options->device_ordinal, p->device_name);
  LATCH_CU_RETURN_IF_ERROR(d, cuFuncGetAttribute, (&p->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, p->kernel),
                           "reading the kernel's register count");
  LATCH_CU_RETURN_IF_ERROR(d, cuFuncGetAttribute, (&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p->kernel),
                           "reading the kernel's largest block");
  LATCH_CU_RETURN_IF_ERROR(d, cuFuncGetAttribute, (&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, p->kernel),
                           "reading the kernel's static shared memory");
  if (threads > max_threads)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED,
                             "kernel '%s' can run at most %d threads per CTA (%d registers per thread), but the "
                             "manifest's block has %d",
                             m->kernel, max_threads, p->registers, threads);
  latch_status allowed = allow_dynamic_shared(p, p->kernel, m->kernel);
  if (allowed)
    return allowed;
  LATCH_CU_RETURN_IF_ERROR(d, cuOccupancyMaxActiveBlocksPerMultiprocessor,
                           (&p->ctas_per_sm, p->kernel, threads, (size_t)m->dynamic_shared_bytes),
                           "asking how many CTAs of %d threads fit on an SM", threads);
  if (p->ctas_per_sm < 1)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED,
                             "no CTA of kernel '%s' fits on an SM (%d threads, %d registers per thread, %d bytes of "
                             "static and %lld of dynamic shared memory)",
                             m->kernel, threads, p->registers, static_shared, (long long)m->dynamic_shared_bytes);
  int64_t most = (int64_t)p->sm_count * p->ctas_per_sm;
  /* Staged kernels have no grid barrier: their CTAs need not be co-resident. */
  if (options->grid > most && !options->staged)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED,
                             "a cooperative launch of %d CTAs needs them all co-resident, but at most %d SMs x %d "
                             "CTAs per SM = %lld fit (kernel '%s': %d threads, %d registers per thread, %lld bytes "
                             "of dynamic shared memory)",
                             options->grid, p->sm_count, p->ctas_per_sm, (long long)most, m->kernel, threads,
                             p->registers, (long long)m->dynamic_shared_bytes);
  p->grid = options->grid > 0 ? options->grid : (int)most;
  return latch_ok_status();
}

/* Finds kernel `name` (`list`[index] of the manifest) and lets it run the manifest's block and dynamic
 * shared memory. */
static latch_status load_kernel(latch_program *p, const char *image_name, const char *name, const char *list,
                                int64_t index, CUfunction *out) {
  const latch_manifest *m = p->manifest;
  latch_cuda_driver *d = &p->driver;
  int threads = m->block[0] * m->block[1] * m->block[2], max_threads = 0;
  LATCH_CU_RETURN_IF_ERROR(d, cuModuleGetFunction, (out, p->module, name), "finding the kernel '%s' (%s[%lld]) in '%s'",
                           name, list, (long long)index, image_name);
  LATCH_CU_RETURN_IF_ERROR(d, cuFuncGetAttribute, (&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, *out),
                           "reading the largest block of '%s'", name);
  if (threads > max_threads)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED,
                             "kernel '%s' (%s[%lld]) can run at most %d threads per CTA, but the manifest's block has %d",
                             name, list, (long long)index, max_threads, threads);
  return allow_dynamic_shared(p, *out, name);
}

/* Staged mode: finds every kernel of the manifest's "staged_kernels". */
static latch_status load_staged_kernels(latch_program *p, const char *image_name) {
  const latch_manifest *m = p->manifest;
  if (m->staged_kernel_count == 0)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION,
                             "the manifest lists no \"staged_kernels\" (compile with "
                             "latch-lower-intervals{staged=true})");
  p->staged_kernels = calloc((size_t)m->staged_kernel_count, sizeof(CUfunction));
  if (!p->staged_kernels)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < m->staged_kernel_count; ++i)
    LATCH_RETURN_IF_ERROR_AS_IS(
        load_kernel(p, image_name, m->staged_kernels[i], "staged_kernels", i, &p->staged_kernels[i]));
  return latch_ok_status();
}

/* Persistent mode with the manifest's "launches": finds every kernel of the update. A cooperative one has
 * grid barriers, so the grid that choose_grid sized by "kernel" must fit it as well. */
static latch_status load_launches(latch_program *p, const char *image_name) {
  const latch_manifest *m = p->manifest;
  latch_cuda_driver *d = &p->driver;
  int threads = m->block[0] * m->block[1] * m->block[2];
  p->launch_kernels = calloc((size_t)m->launch_count, sizeof(CUfunction));
  if (!p->launch_kernels)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < m->launch_count; ++i) {
    const char *name = m->launches[i].kernel;
    LATCH_RETURN_IF_ERROR_AS_IS(load_kernel(p, image_name, name, "launches", i, &p->launch_kernels[i]));
    if (!m->launches[i].cooperative)
      continue;
    int ctas_per_sm = 0;
    LATCH_CU_RETURN_IF_ERROR(d, cuOccupancyMaxActiveBlocksPerMultiprocessor,
                             (&ctas_per_sm, p->launch_kernels[i], threads, (size_t)m->dynamic_shared_bytes),
                             "asking how many CTAs of '%s' fit on an SM", name);
    if ((int64_t)ctas_per_sm * p->sm_count < p->grid)
      return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED,
                               "a cooperative launch of '%s' (launches[%lld]) on %d CTAs needs them all co-resident, "
                               "but at most %d SMs x %d CTAs per SM fit",
                               name, (long long)i, p->grid, p->sm_count, ctas_per_sm);
  }
  return latch_ok_status();
}

/* A launch of the program's grid and block on the graph's stream, with `attribute` (or none). */
static CUlaunchConfig grid_launch_config(const latch_program *p, CUlaunchAttribute *attribute) {
  const latch_manifest *m = p->manifest;
  CUlaunchConfig config;
  memset(&config, 0, sizeof(config));
  config.gridDimX = (unsigned)p->grid;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = (unsigned)m->block[0];
  config.blockDimY = (unsigned)m->block[1];
  config.blockDimZ = (unsigned)m->block[2];
  config.sharedMemBytes = (unsigned)m->dynamic_shared_bytes;
  config.hStream = p->stream;
  config.attrs = attribute;
  config.numAttrs = attribute ? 1 : 0;
  return config;
}

/* Captures one update into a CUDA graph on a stream of its own, and instantiates it. Staged mode: every
 * staged kernel in order, each a normal launch of the grid; each after the first with programmatic stream
 * serialization, so it may launch as soon as the previous kernel's CTAs have all executed
 * griddepcontrol.launch_dependents, and its griddepcontrol.wait orders its memory accesses after that kernel.
 * Persistent mode with "launches": each kernel in order on the grid, cooperative where the manifest says. */
static latch_status capture_graph(latch_program *p) {
  const latch_manifest *m = p->manifest;
  latch_cuda_driver *d = &p->driver;
  const char *what = p->staged ? "the staged update" : "the update's launches";
  int64_t count = p->staged ? m->staged_kernel_count : m->launch_count;
  /* A blocking stream: work on the legacy default stream (the memsets and copies) stays ordered with it. */
  LATCH_CU_RETURN_IF_ERROR(d, cuStreamCreate, (&p->stream, CU_STREAM_DEFAULT), "creating the stream of %s", what);
  LATCH_CU_RETURN_IF_ERROR(d, cuStreamBeginCapture_v2, (p->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                           "starting the capture of %s", what);
  CUdeviceptr arg_block = p->arg_block;
  void *params[] = {&arg_block};
  latch_status status = latch_ok_status();
  for (int64_t i = 0; i < count && !status; ++i) {
    CUlaunchAttribute attribute;
    memset(&attribute, 0, sizeof(attribute));
    bool attributed;
    if (p->staged) {
      attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute.value.programmaticStreamSerializationAllowed = 1;
      attributed = i > 0;
    } else {
      attribute.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attribute.value.cooperative = 1;
      attributed = m->launches[i].cooperative;
    }
    CUlaunchConfig config = grid_launch_config(p, attributed ? &attribute : NULL);
    CUfunction kernel = p->staged ? p->staged_kernels[i] : p->launch_kernels[i];
    status = LATCH_CU_CALL(d, cuLaunchKernelEx, (&config, kernel, params, NULL));
    if (status)
      status = latch_status_annotate(status, __FILE__, __LINE__, "capturing kernel '%s' of %s on %d CTAs",
                                     p->staged ? m->staged_kernels[i] : m->launches[i].kernel, what, p->grid);
  }
  /* The capture ends even after a failed launch, so that the stream is usable (and destroyable). */
  CUgraph graph = NULL;
  CUresult ended = d->cuStreamEndCapture(p->stream, &graph);
  p->graph = graph;
  if (status)
    return status;
  if (ended != CUDA_SUCCESS)
    return latch_status_annotate(latch_cuda_result_status(d, ended, "cuStreamEndCapture", __FILE__, __LINE__),
                                 __FILE__, __LINE__, "ending the capture of %s", what);
  LATCH_CU_RETURN_IF_ERROR(d, cuGraphInstantiateWithFlags, (&p->graph_exec, p->graph, 0),
                           "instantiating the graph of %s (%lld kernels)", what, (long long)count);
  return latch_ok_status();
}

static latch_status initialize(latch_program *p, const char *image_name, const void *image, size_t image_size,
                               const latch_program_options *options) {
  const latch_manifest *m = p->manifest;
  latch_cuda_driver *d = &p->driver;
  LATCH_RETURN_IF_ERROR(latch_cuda_driver_load(options->driver_library, d), "starting the CUDA runtime");
  LATCH_CU_RETURN_IF_ERROR(d, cuInit, (0), "initialising the CUDA driver '%s'", d->library_name);
  LATCH_CU_RETURN_IF_ERROR(d, cuDriverGetVersion, (&p->driver_version), "asking for the driver version");
  int count = 0;
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGetCount, (&count), "counting devices");
  if (options->device_ordinal < 0 || options->device_ordinal >= count)
    return LATCH_MAKE_STATUS(LATCH_STATUS_UNAVAILABLE, "no CUDA device %d (the driver sees %d)",
                             options->device_ordinal, count);
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGet, (&p->device, options->device_ordinal), "opening device %d",
                           options->device_ordinal);
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGetName, (p->device_name, (int)sizeof(p->device_name), p->device),
                           "naming device %d", options->device_ordinal);
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGetAttribute,
                           (&p->compute_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, p->device),
                           "reading the compute capability");
  LATCH_CU_RETURN_IF_ERROR(d, cuDeviceGetAttribute,
                           (&p->compute_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, p->device),
                           "reading the compute capability");
  LATCH_CU_RETURN_IF_ERROR(d, cuDevicePrimaryCtxRetain, (&p->context, p->device), "creating a context on %s",
                           p->device_name);
  p->context_retained = true;
  LATCH_CU_RETURN_IF_ERROR(d, cuCtxSetCurrent, (p->context), "making the context current");

  LATCH_RETURN_IF_ERROR(load_module(p, image_name, image, image_size, options->verbose_jit),
                        "loading the program on %s (sm_%d%d)", p->device_name, p->compute_major, p->compute_minor);
  LATCH_CU_RETURN_IF_ERROR(d, cuModuleGetFunction, (&p->kernel, p->module, m->kernel),
                           "finding the kernel '%s' (the manifest's \"kernel\") in '%s'", m->kernel, image_name);
  if (options->staged)
    LATCH_RETURN_IF_ERROR(load_staged_kernels(p, image_name), "setting up the staged control");
  LATCH_RETURN_IF_ERROR(choose_grid(p, options), "choosing the grid of '%s'", m->kernel);
  if (!options->staged && m->launch_count > 0)
    LATCH_RETURN_IF_ERROR(load_launches(p, image_name), "setting up the update's launches");

  LATCH_RETURN_IF_ERROR(allocate(p, (size_t)m->arena_bytes, "the arena", &p->arena), "setting up the arena");
  if (p->arena % LATCH_ABI_ARENA_ALIGNMENT != 0)
    return LATCH_MAKE_STATUS(LATCH_STATUS_INTERNAL, "the arena at 0x%llx is not %d-byte aligned",
                             (unsigned long long)p->arena, LATCH_ABI_ARENA_ALIGNMENT);
  LATCH_RETURN_IF_ERROR(allocate(p, (size_t)m->sync_words * sizeof(uint32_t), "the sync words", &p->sync_words),
                        "setting up the grid barrier and the tile counter");
  if (options->tracing) {
    p->trace_words = latch_trace_buffer_words(p->grid, m->interval_count) +
                     LATCH_ABI_TILE_RECORD_WORDS * latch_trace_tile_records(m);
    LATCH_RETURN_IF_ERROR(allocate(p, (size_t)p->trace_words * sizeof(uint64_t), "the trace buffer", &p->trace),
                          "setting up tracing");
  }
  p->buffers = calloc((size_t)m->arg_count + 1, sizeof(CUdeviceptr));
  uint64_t *block = calloc((size_t)m->arg_count + LATCH_ABI_ARG_FIRST_BUFFER, sizeof(uint64_t));
  if (!p->buffers || !block) {
    free(block);
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  block[LATCH_ABI_ARG_ARENA] = p->arena;
  block[LATCH_ABI_ARG_SYNC_WORDS] = p->sync_words;
  block[LATCH_ABI_ARG_TRACE] = 0;
  latch_status status = latch_ok_status();
  for (int64_t k = 0; k < m->arg_count && !status; ++k) {
    char what[300];
    snprintf(what, sizeof(what), "argument '%s'", m->args[k].tensor.name);
    status = allocate(p, (size_t)m->args[k].tensor.bytes, what, &p->buffers[k]);
    block[LATCH_ABI_ARG_FIRST_BUFFER + k] = p->buffers[k];
  }
  size_t block_bytes = ((size_t)m->arg_count + LATCH_ABI_ARG_FIRST_BUFFER) * sizeof(uint64_t);
  if (!status)
    status = allocate(p, block_bytes, "the argument block", &p->arg_block);
  if (!status)
    status = LATCH_CU_CALL(d, cuMemcpyHtoD_v2, (p->arg_block, block, block_bytes));
  free(block);
  LATCH_RETURN_IF_ERROR(status, "setting up the argument block");
  LATCH_CU_RETURN_IF_ERROR(d, cuEventCreate, (&p->start, CU_EVENT_DEFAULT), "creating timing events");
  LATCH_CU_RETURN_IF_ERROR(d, cuEventCreate, (&p->end, CU_EVENT_DEFAULT), "creating timing events");
  if (options->staged || m->launch_count > 0)
    LATCH_RETURN_IF_ERROR(capture_graph(p), options->staged ? "setting up the staged control"
                                                             : "setting up the update's launches");
  return latch_ok_status();
}

latch_status latch_program_initialize(const latch_manifest *manifest, const char *image_name, const void *image,
                                      size_t image_size, const latch_program_options *options,
                                      latch_program *out_program) {
  memset(out_program, 0, sizeof(*out_program));
  out_program->manifest = manifest;
  out_program->timeout_seconds = options->timeout_seconds;
  out_program->staged = options->staged;
  latch_status status = initialize(out_program, image_name, image, image_size, options);
  if (status)
    latch_program_deinitialize(out_program);
  return status;
}

void latch_program_deinitialize(latch_program *p) {
  latch_cuda_driver *d = &p->driver;
  if (d->library && !p->wedged) {
    /* Cleanup failures are not reported: the first failure (if any) is already on its way out. */
    if (p->graph_exec)
      d->cuGraphExecDestroy(p->graph_exec);
    if (p->graph)
      d->cuGraphDestroy(p->graph);
    if (p->stream)
      d->cuStreamDestroy_v2(p->stream);
    if (p->start)
      d->cuEventDestroy_v2(p->start);
    if (p->end)
      d->cuEventDestroy_v2(p->end);
    for (int64_t k = 0; p->buffers && k < p->manifest->arg_count; ++k)
      if (p->buffers[k])
        d->cuMemFree_v2(p->buffers[k]);
    CUdeviceptr singles[] = {p->arg_block, p->trace, p->sync_words, p->arena};
    for (size_t i = 0; i < sizeof(singles) / sizeof(singles[0]); ++i)
      if (singles[i])
        d->cuMemFree_v2(singles[i]);
    if (p->module)
      d->cuModuleUnload(p->module);
    if (p->context_retained)
      d->cuDevicePrimaryCtxRelease_v2(p->device);
  }
  free(p->buffers);
  free(p->staged_kernels);
  free(p->launch_kernels);
  /* A wedged kernel may still run: keep the driver loaded (process exit tears the context down). */
  if (!p->wedged)
    latch_cuda_driver_unload(d);
  memset(p, 0, sizeof(*p));
}

latch_status latch_program_write_arg(latch_program *p, int64_t index, const void *host) {
  const latch_manifest_tensor *t = &p->manifest->args[index].tensor;
  if (t->bytes == 0)
    return latch_ok_status();
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemcpyHtoD_v2, (p->buffers[index], host, (size_t)t->bytes),
                           "uploading argument '%s'", t->name);
  return latch_ok_status();
}

latch_status latch_program_read_arg(latch_program *p, int64_t index, void *host) {
  const latch_manifest_tensor *t = &p->manifest->args[index].tensor;
  if (t->bytes == 0)
    return latch_ok_status();
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemcpyDtoH_v2, (host, p->buffers[index], (size_t)t->bytes),
                           "downloading argument '%s'", t->name);
  return latch_ok_status();
}

latch_status latch_program_read_result(latch_program *p, int64_t index, void *host) {
  const latch_manifest_result *r = &p->manifest->results[index];
  if (r->alias_arg >= 0)
    return latch_program_read_arg(p, r->alias_arg, host);
  if (r->tensor.bytes == 0)
    return latch_ok_status();
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemcpyDtoH_v2,
                           (host, p->arena + (CUdeviceptr)r->arena_offset, (size_t)r->tensor.bytes),
                           "downloading result %lld ('%s') from arena offset %lld", (long long)index, r->tensor.name,
                           (long long)r->arena_offset);
  return latch_ok_status();
}

latch_status latch_program_read_probe(latch_program *p, int64_t index, void *host) {
  const latch_manifest_probe *probe = &p->manifest->probes[index];
  if (probe->tensor.bytes == 0)
    return latch_ok_status();
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemcpyDtoH_v2,
                           (host, p->arena + (CUdeviceptr)probe->arena_offset, (size_t)probe->tensor.bytes),
                           "downloading probe '%s' (%lld bytes) from arena offset %lld", probe->tensor.name,
                           (long long)probe->tensor.bytes, (long long)probe->arena_offset);
  return latch_ok_status();
}

/* Waits for the `end` event, polling so that a kernel that never finishes (a grid barrier that never
 * opens) becomes an error instead of a hang. */
static latch_status wait_for_end(latch_program *p, double timeout_seconds) {
  double start = now_seconds();
  struct timespec pause = {0, 50 * 1000};
  for (;;) {
    CUresult result = p->driver.cuEventQuery(p->end);
    if (result != CUDA_ERROR_NOT_READY)
      return latch_cuda_result_status(&p->driver, result, "cuEventQuery", __FILE__, __LINE__);
    if (timeout_seconds > 0 && now_seconds() - start > timeout_seconds) {
      p->wedged = true;
      return LATCH_MAKE_STATUS(LATCH_STATUS_DEADLINE_EXCEEDED,
                               "the update did not finish within %g s (a grid barrier that never opens? a CTA "
                               "that is not resident?)",
                               timeout_seconds);
    }
    nanosleep(&pause, NULL);
  }
}

static latch_status set_trace_slot(latch_program *p, CUdeviceptr value) {
  uint64_t word = value;
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemcpyHtoD_v2,
                           (p->arg_block + LATCH_ABI_ARG_TRACE * sizeof(uint64_t), &word, sizeof(word)),
                           "writing args[%d] (the trace buffer)", LATCH_ABI_ARG_TRACE);
  return latch_ok_status();
}

/* Before an update: the sync words (barrier and tile counters) zeroed; with `trace`, the trace buffer
 * zeroed and put into args[2]. */
static latch_status begin_update(latch_program *p, bool trace) {
  latch_cuda_driver *d = &p->driver;
  if (trace && !p->trace)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION, "tracing was not enabled when the program was set up");
  LATCH_CU_RETURN_IF_ERROR(d, cuMemsetD32_v2, (p->sync_words, 0, (size_t)p->manifest->sync_words),
                           "zeroing the barrier and tile counters");
  if (trace) {
    LATCH_CU_RETURN_IF_ERROR(d, cuMemsetD8_v2, (p->trace, 0, (size_t)p->trace_words * sizeof(uint64_t)),
                             "zeroing the trace buffer");
    LATCH_RETURN_IF_ERROR(set_trace_slot(p, p->trace), "turning tracing on");
  }
  return latch_ok_status();
}

/* After the update's work is queued: records `end`, waits for it and times it from `start`. */
static latch_status end_update(latch_program *p, CUstream stream, bool trace, double *out_milliseconds) {
  latch_cuda_driver *d = &p->driver;
  LATCH_CU_RETURN_IF_ERROR(d, cuEventRecord, (p->end, stream), "recording the end event");
  LATCH_RETURN_IF_ERROR(wait_for_end(p, p->timeout_seconds), "waiting for the update to finish");
  float milliseconds = 0;
  LATCH_CU_RETURN_IF_ERROR(d, cuEventElapsedTime_v2, (&milliseconds, p->start, p->end), "timing the update");
  *out_milliseconds = milliseconds;
  if (trace)
    LATCH_RETURN_IF_ERROR(set_trace_slot(p, 0), "turning tracing off");
  return latch_ok_status();
}

latch_status latch_program_launch_probed(latch_program *p, bool trace, void *const *probe_out,
                                         double *out_milliseconds) {
  latch_cuda_driver *d = &p->driver;
  const latch_manifest *m = p->manifest;
  *out_milliseconds = 0;
  if (!p->staged)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION,
                             "a probed update launches the staged kernels one by one: the program was not set up "
                             "in staged mode");
  LATCH_RETURN_IF_ERROR_AS_IS(begin_update(p, trace));
  CUdeviceptr arg_block = p->arg_block;
  void *params[] = {&arg_block};
  LATCH_CU_RETURN_IF_ERROR(d, cuEventRecord, (p->start, p->stream), "recording the start event");
  for (int64_t i = 0; i < m->staged_kernel_count; ++i) {
    /* A normal launch in stream order: the previous kernel has completed, and griddepcontrol.wait (which
     * waits for a programmatic predecessor) returns at once. */
    CUlaunchConfig config = grid_launch_config(p, NULL);
    LATCH_CU_RETURN_IF_ERROR(d, cuLaunchKernelEx, (&config, p->staged_kernels[i], params, NULL),
                             "launching staged kernel '%s' (%lld of %lld) of the probed update on %d CTAs",
                             m->staged_kernels[i], (long long)i + 1, (long long)m->staged_kernel_count, p->grid);
    bool writes_probe = false;
    for (int64_t j = 0; j < m->probe_count && !writes_probe; ++j)
      writes_probe = m->probes[j].staged_kernel == i;
    if (!writes_probe)
      continue;
    LATCH_CU_RETURN_IF_ERROR(d, cuEventRecord, (p->end, p->stream), "recording the event after staged kernel '%s'",
                             m->staged_kernels[i]);
    LATCH_RETURN_IF_ERROR(wait_for_end(p, p->timeout_seconds), "waiting for staged kernel '%s' of the probed update",
                          m->staged_kernels[i]);
    for (int64_t j = 0; j < m->probe_count; ++j)
      if (m->probes[j].staged_kernel == i)
        LATCH_RETURN_IF_ERROR(latch_program_read_probe(p, j, probe_out[j]), "reading probes after staged kernel '%s'",
                              m->staged_kernels[i]);
  }
  return end_update(p, p->stream, trace, out_milliseconds);
}

latch_status latch_program_launch(latch_program *p, bool trace, double *out_milliseconds) {
  latch_cuda_driver *d = &p->driver;
  const latch_manifest *m = p->manifest;
  *out_milliseconds = 0;
  LATCH_RETURN_IF_ERROR_AS_IS(begin_update(p, trace));
  CUdeviceptr arg_block = p->arg_block;
  void *params[] = {&arg_block};
  CUstream stream = p->graph_exec ? p->stream : NULL;
  LATCH_CU_RETURN_IF_ERROR(d, cuEventRecord, (p->start, stream), "recording the start event");
  if (p->graph_exec)
    LATCH_CU_RETURN_IF_ERROR(d, cuGraphLaunch, (p->graph_exec, p->stream),
                             "launching the graph of %lld %s kernels on %d CTAs of %d x %d x %d threads",
                             (long long)(p->staged ? m->staged_kernel_count : m->launch_count),
                             p->staged ? "staged" : "persistent-mode", p->grid, m->block[0], m->block[1],
                             m->block[2]);
  else
    LATCH_CU_RETURN_IF_ERROR(d, cuLaunchCooperativeKernel,
                             (p->kernel, (unsigned)p->grid, 1, 1, (unsigned)m->block[0], (unsigned)m->block[1],
                              (unsigned)m->block[2], (unsigned)m->dynamic_shared_bytes, NULL, params),
                             "launching '%s' cooperatively on %d CTAs of %d x %d x %d threads", m->kernel, p->grid,
                             m->block[0], m->block[1], m->block[2]);
  return end_update(p, stream, trace, out_milliseconds);
}

latch_status latch_program_read_trace(latch_program *p, uint64_t *out) {
  if (!p->trace)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION, "tracing was not enabled when the program was set up");
  LATCH_CU_RETURN_IF_ERROR(&p->driver, cuMemcpyDtoH_v2, (out, p->trace, (size_t)p->trace_words * sizeof(uint64_t)),
                           "downloading the trace buffer");
  return latch_ok_status();
}
