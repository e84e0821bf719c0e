/* emit.h - turns gpu.module @latch into PTX or LLVM IR (docs/device-abi.md "Pipeline"): upstream MLIR
 * lowering to the LLVM and NVVM dialects, translation to LLVM IR, CUDA's libdevice linked in, LLVM's O3,
 * the NVPTX backend. Also hands back the manifest that latch-lower-intervals recorded. */
#ifndef LATCH_EMIT_H
#define LATCH_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"

typedef enum latch_emit_format {
  LATCH_EMIT_PTX,  /* PTX assembly for sm_90a (PTX ISA 8.0) */
  LATCH_EMIT_LLVM, /* the optimised LLVM IR module, as text */
} latch_emit_format;

/* The target of docs/device-abi.md. */
#define LATCH_EMIT_TRIPLE "nvptx64-nvidia-cuda"
#define LATCH_EMIT_CHIP "sm_90a"
#define LATCH_EMIT_FEATURES "+ptx80"
/* Where libdevice is read from when the environment variable LATCH_LIBDEVICE does not say. */
#define LATCH_EMIT_LIBDEVICE "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"

/* The upstream passes that lower a copy of gpu.module @latch (anchored on the builtin.module that holds
 * only that copy). */
extern const char latch_emit_lowering_pipeline[];

typedef struct latch_emit_output {
  char *code; /* PTX or LLVM IR text, NUL-terminated; malloc'd */
  size_t code_length;
  char *manifest; /* the latch.manifest attribute (JSON), NUL-terminated; malloc'd */
  size_t manifest_length;
  /* Wall seconds of the phases: lowering to the LLVM dialect; translation to LLVM IR with libdevice;
   * LLVM's O3 and the code (NVPTX, or printing the LLVM IR), all parts together. */
  double lower_seconds, translate_seconds, llvm_seconds;
} latch_emit_output;

/* Emits the gpu.module @latch found at the top level of `module` (left unchanged: a copy is lowered).
 * The upstream passes must be registered (mlirRegisterAllPasses) and the context must have the LLVM IR
 * translations (latch_context_create does). PTX is optimised and assembled in `parts` parts at once
 * (emit_parts.h) when `parts` is 2 or more; LLVM IR always as one module. On failure reports exactly one
 * error through the context's diagnostics (at the gpu.module, or at the op an upstream pass failed on) and
 * returns false with `out_output` empty. On success the caller owns `out_output` and frees it with
 * latch_emit_output_deinitialize. */
bool latch_emit(MlirOperation module, latch_emit_format format, unsigned parts, latch_emit_output *out_output);
void latch_emit_output_deinitialize(latch_emit_output *output);

#endif
