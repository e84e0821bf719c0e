/* program.h - one compiled Latch program on one GPU: the driver table, the primary context, the module
 * (PTX through the JIT, or a cubin) and its persistent kernel, the grid, every device buffer of the
 * argument block (docs/device-abi.md) and the launch of one update. In staged mode (docs/device-abi.md
 * "Staged control") an update is instead one CUDA graph of the manifest's staged kernels, each a normal
 * launch of the same grid, joined by programmatic dependent launch. A manifest with "launches"
 * (docs/device-abi.md "Launches") makes the persistent mode's update a CUDA graph too: the parts of the
 * persistent kernel (cooperative launches) and the kernels of the intervals that run apart, in order. */
#ifndef LATCH_RUNTIME_PROGRAM_H
#define LATCH_RUNTIME_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda_driver.h"
#include "manifest.h"
#include "status.h"

typedef struct latch_program_options {
  const char *driver_library; /* NULL: $LATCH_CUDA_DRIVER, else libcuda.so.1 */
  int device_ordinal;
  int grid;                   /* CTAs; 0: SMs x the most co-resident CTAs per SM */
  bool tracing;               /* allocate the trace buffer (latch_program_launch may then trace) */
  bool staged;                /* run the manifest's staged_kernels as a CUDA graph instead of latch_main */
  bool verbose_jit;           /* keep the JIT info log (registers, spills) */
  double timeout_seconds;     /* an update that runs longer is an error; <= 0: wait forever */
} latch_program_options;

typedef struct latch_program {
  const latch_manifest *manifest; /* not owned; outlives the program */
  latch_cuda_driver driver;
  CUdevice device;
  CUcontext context; /* the device's primary context, retained */
  bool context_retained;
  CUmodule module;
  CUfunction kernel;
  char device_name[128];
  int driver_version;
  int compute_major, compute_minor;
  int sm_count;
  int ctas_per_sm; /* the occupancy API's answer for the manifest's block and shared memory */
  int grid;
  int registers;   /* per thread, from the loaded kernel */
  char jit_info_log[8192];
  CUdeviceptr arena, sync_words, trace, arg_block;
  CUdeviceptr *buffers; /* one per program argument */
  int64_t trace_words;  /* latch_trace_buffer_words: grid * intervals * 3 timestamps, then grid %smid words */
  CUevent start, end;
  /* Staged mode: the kernels of manifest->staged_kernels, the stream the graph was captured on and
   * runs on, the captured graph and its executable. */
  bool staged;
  CUfunction *staged_kernels;
  /* Persistent mode with the manifest's "launches": their kernels; the update is then a graph as well. */
  CUfunction *launch_kernels;
  CUstream stream;
  CUgraph graph;
  CUgraphExec graph_exec;
  double timeout_seconds;
  bool wedged; /* an update never finished: the context cannot be torn down safely */
} latch_program;

/* Loads the driver, creates everything and zeroes every buffer. `image` is the PTX text (NUL-terminated)
 * or a cubin/fatbin, `image_name` its file name for messages. On failure everything made so far is
 * released and `out_program` holds nothing. */
latch_status latch_program_initialize(const latch_manifest *manifest, const char *image_name, const void *image,
                                      size_t image_size, const latch_program_options *options,
                                      latch_program *out_program);
void latch_program_deinitialize(latch_program *program);

/* Copies the device image of argument `index` from or to the host (manifest bytes). */
latch_status latch_program_write_arg(latch_program *program, int64_t index, const void *host);
latch_status latch_program_read_arg(latch_program *program, int64_t index, void *host);
/* Copies result `index` (from the arena, or from the argument it aliases) to the host. */
latch_status latch_program_read_result(latch_program *program, int64_t index, void *host);

/* Runs one update: zeroes the sync words (and, with `trace`, the trace buffer, whose address goes
 * into args[2] for this launch only), launches the kernel cooperatively (staged mode, or a manifest with
 * "launches": launches the graph), waits (at most the timeout) and returns the update's time from CUDA events in
 * milliseconds. */
latch_status latch_program_launch(latch_program *program, bool trace, double *out_milliseconds);

/* Staged mode: one update like latch_program_launch, except that the staged kernels are launched one by one
 * on the staged stream (normal launches in stream order: no graph, no programmatic dependent launch, so each
 * kernel has completed before the next starts), and right after staged kernel i every probe of the manifest
 * whose staged_kernel is i is copied from the arena into probe_out[j] (probes[j].tensor.bytes bytes; entries
 * of probes without a staged kernel are not touched). The time covers the whole sequence, the waits and
 * copies included: it is not the graph's time. */
latch_status latch_program_launch_probed(latch_program *program, bool trace, void *const *probe_out,
                                         double *out_milliseconds);
/* Copies probe `index` of the manifest from the arena to the host, as it is now. */
latch_status latch_program_read_probe(latch_program *program, int64_t index, void *host);

/* Copies the trace buffer (trace_words u64) of the last traced update to `out`. */
latch_status latch_program_read_trace(latch_program *program, uint64_t *out);

#endif
