/* emit_parts.h - LLVM's O3 and the NVPTX backend on parts of the module at once (docs/device-abi.md
 * "Parallel code generation").
 *
 * The translated module (libdevice linked in, everything but the kernels internal) is cut into parts: the
 * kernels and what they reach stay in part 0, the tile bodies (@task_body_<N>) are spread over the parts
 * by size, a helper is copied into every part that calls it. Each part is optimised and assembled in its
 * own thread, LLVM context and target machine, and the PTX texts are joined into one module. The cut is
 * a function of the module alone, not of the machine, so the PTX is the same wherever it is compiled. */
#ifndef LATCH_EMIT_PARTS_H
#define LATCH_EMIT_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "llvm-c/Core.h"
#include "llvm-c/TargetMachine.h"

/* The number of parts latch-opt --emit=ptx uses unless --emit-parts says otherwise: the cores of the
 * build machine the compile-time target is set on. */
#define LATCH_EMIT_DEFAULT_PARTS 2
/* How latch-lower-tasks names every tile body (passes/latch-lower-tasks.c): what the parts share out. */
#define LATCH_EMIT_TILE_BODY_PREFIX "task_body_"
#define LATCH_EMIT_MAX_PARTS 16

/* Optimises `module` (verified, internalised; left unchanged) in `parts` parts (2..LATCH_EMIT_MAX_PARTS)
 * and writes the joined PTX to *out_ptx (malloc'd, NUL-terminated). `machine_for` makes a target machine
 * for one part (one per thread: a target machine is not shared between threads). On failure returns
 * false with one line in `error`. */
bool latch_emit_parts_ptx(LLVMModuleRef module, unsigned parts, LLVMTargetMachineRef (*machine_for)(void),
                          char **out_ptx, size_t *out_length, char *error, size_t error_size);

#endif
