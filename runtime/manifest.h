/* manifest.h - the manifest that `latch-opt --emit=ptx -o FILE` writes beside the kernel as
 * FILE.manifest.json (docs/device-abi.md, "The manifest"), read strictly: unknown keys, missing keys,
 * wrong types and inconsistent sizes are errors that name the key path (e.g. "args[3].shape[1]"). */
#ifndef LATCH_RUNTIME_MANIFEST_H
#define LATCH_RUNTIME_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

#define LATCH_MANIFEST_VERSION 1
#define LATCH_MANIFEST_MAX_RANK 8

/* Argument-block slots before the program arguments (docs/device-abi.md, "The argument block"). */
#define LATCH_ABI_ARG_ARENA 0
#define LATCH_ABI_ARG_SYNC_WORDS 1
#define LATCH_ABI_ARG_TRACE 2
#define LATCH_ABI_ARG_FIRST_BUFFER 3
/* u32 words at args[1], zeroed before each update: the grid barrier's counter (word 0) and the tile
 * counter (word 32, its own 128-byte line); a manifest's "sync_words" asks for more (dataflow: the tasks'
 * tile counts and each wave's tile counter; spread-ctas: the CTAs' claims), never fewer. */
#define LATCH_ABI_SYNC_WORDS 64
#define LATCH_ABI_MAX_SYNC_WORDS (1 << 24)
/* The arena's alignment. */
#define LATCH_ABI_ARENA_ALIGNMENT 256
/* u64 timestamps per CTA and interval in the trace buffer. */
#define LATCH_ABI_TRACE_WORDS 3
/* u64 words per tile record after them (tile_trace): begin, end, the CTA that ran the tile. */
#define LATCH_ABI_TILE_RECORD_WORDS 3

typedef enum latch_dtype { LATCH_DTYPE_F32, LATCH_DTYPE_BF16, LATCH_DTYPE_I32 } latch_dtype;
typedef enum latch_arg_role { LATCH_ROLE_PARAM, LATCH_ROLE_STATE, LATCH_ROLE_STEP, LATCH_ROLE_INPUT } latch_arg_role;
typedef enum latch_init_kind { LATCH_INIT_NORMAL, LATCH_INIT_ONES, LATCH_INIT_ZEROS } latch_init_kind;

typedef struct latch_manifest_task {
  char *kind; /* the op name without "task." ("matmul") */
  int64_t tiles;
  /* Optional ("bytes", "flops"; 0 when absent): the bytes of its tensors and the arithmetic of its
   * products (latch_task_bytes, latch_task_flops), for the tile report's rates. */
  int64_t bytes, flops;
  char *body; /* optional ("body"): its tile body function, task_body_<N> (tools join it with the kernel's
               * code sizes); NULL when absent */
} latch_manifest_task;

typedef struct latch_manifest_interval {
  char *name; /* "i3.matmul", "i7.matmul+2" (latch-fuse-phases: a matmul interval with 2 more tasks) */
  char *kind; /* the text after the first '.' up to a '+' ("matmul"), or the whole name */
  int64_t tiles;
  /* Optional ("tasks"): the interval's tasks in the order @latch_main numbers their tiles (wave by wave),
   * whose tiles add up to `tiles`; task_count 0 when the manifest has none. */
  int64_t task_count;
  latch_manifest_task *tasks;
} latch_manifest_interval;

typedef struct latch_manifest_tensor {
  char *name;
  int rank;
  int64_t shape[LATCH_MANIFEST_MAX_RANK];
  int64_t count; /* elements */
  latch_dtype dtype;
  int64_t bytes; /* count * element size */
} latch_manifest_tensor;

typedef struct latch_manifest_arg {
  int64_t index; /* its position: program argument `index` lives at args[3 + index] */
  latch_manifest_tensor tensor;
  latch_arg_role role;
  latch_init_kind init;   /* "normal" when absent */
  double init_std;        /* 0.02 when absent */
  int64_t range;          /* 0 when absent; i32 arguments filled by the init rule need 1 <= range <= 2^31 */
  int64_t param_index;    /* position among the role "param" arguments, or -1 */
} latch_manifest_arg;

typedef struct latch_manifest_result {
  int64_t index;
  latch_manifest_tensor tensor;
  int64_t arena_offset; /* >= 0 when the result lives in the arena */
  int64_t alias_arg;    /* >= 0 when the result is written over that argument; exactly one of the two */
} latch_manifest_result;

/* A task result that `latch-run --probe-dir` copies out of the arena (docs/device-abi.md "Probes"). */
typedef struct latch_manifest_probe {
  latch_manifest_tensor tensor; /* name ("topk0.indices"), shape, dtype, bytes */
  char *op;                     /* the task op that writes it ("task.topk") */
  int64_t result;               /* which of that op's results it is */
  int64_t arena_offset;         /* where it lives: arena bytes arena_offset .. + tensor.bytes */
  int64_t interval;             /* the interval whose task writes it (an index into intervals) */
  int64_t staged_kernel;        /* the staged kernel (interval wave) that writes it, an index into
                                   staged_kernels; -1 when the manifest has none */
  bool intact_at_end;           /* no later value of the update is written over its bytes */
} latch_manifest_probe;

/* One kernel launch of the update (docs/device-abi.md "Launches"). */
typedef struct latch_manifest_launch {
  char *kernel;
  bool cooperative; /* a part of the persistent kernel (grid barriers: every CTA co-resident) */
} latch_manifest_launch;

typedef struct latch_manifest {
  int64_t version;
  char *kernel;
  int block[3];
  int64_t dynamic_shared_bytes;
  int64_t arena_bytes;
  int64_t interval_count;
  latch_manifest_interval *intervals;
  /* Optional ("tile_trace", from latch-lower-intervals{trace-tiles=true}): a tracing kernel also records
   * each tile's begin and end (trace.h). */
  bool tile_trace;
  /* "sync_words" (optional, from latch-lower-intervals{dataflow} or {spread-ctas}): the u32 words at args[1] that the
   * runtime zeroes before each update; LATCH_ABI_SYNC_WORDS when absent. */
  int64_t sync_words;
  /* Optional ("staged_kernels", from latch-lower-intervals{staged=true}): the staged control's kernels in
   * launch order (docs/device-abi.md "Staged control"); 0 and NULL when absent. */
  int64_t staged_kernel_count;
  char **staged_kernels;
  /* Optional ("launches", from latch-lower-intervals{attention-kernels=true}): the update's kernels in launch
   * order, the parts of the persistent kernel (cooperative) between kernels of intervals that run apart
   * (docs/device-abi.md "Launches"); 0 and NULL when absent (the update is `kernel`, one cooperative launch). */
  int64_t launch_count;
  latch_manifest_launch *launches;
  int64_t arg_count;
  latch_manifest_arg *args;
  int64_t result_count;
  latch_manifest_result *results;
  /* Optional ("probes"): task results readable after the update or right after their staged kernel; 0 and
   * NULL when absent. */
  int64_t probe_count;
  latch_manifest_probe *probes;
} latch_manifest;

/* Reads and checks the manifest text; `name` (the file name) prefixes every error. */
latch_status latch_manifest_parse(const char *name, const char *text, size_t length, latch_manifest *out_manifest);
/* Reads the file `path` and parses it. */
latch_status latch_manifest_load(const char *path, latch_manifest *out_manifest);
void latch_manifest_deinitialize(latch_manifest *manifest);

const char *latch_dtype_name(latch_dtype dtype);
int latch_dtype_size(latch_dtype dtype);
const char *latch_arg_role_name(latch_arg_role role);

/* The argument named `name`, or "argN" for position N; NULL if none. */
const latch_manifest_arg *latch_manifest_find_arg(const latch_manifest *manifest, const char *name, size_t length);

/* Reads a whole file into a NUL-terminated heap buffer (the caller frees it). Files larger than
 * `max_bytes` are refused. */
latch_status latch_read_file(const char *path, size_t max_bytes, char **out_text, size_t *out_length);

#endif
