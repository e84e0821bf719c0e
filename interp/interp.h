/* interp.h - the fp64 interpreter of task programs: runs one func.func or interval.program of a parsed
 * module on given argument tensors and returns its result tensors. Every task op follows docs/task-dialect.md (the
 * kernels are in kernels.h); task.map bodies and scalar arith/math ops run through scalar.h; func.call
 * calls other functions of the same module; arith.constant may be a scalar or a dense tensor. The
 * backward ops of docs/task-dialect.md ("Backward ops") are kernels too.
 *
 * Errors (an unsupported op, an index out of range, mismatched shapes) are emitted with mlirEmitError
 * at the failing op's location, so they reach the context's diagnostic handlers; nothing is printed
 * directly. */
#ifndef LATCH_INTERP_INTERP_H
#define LATCH_INTERP_INTERP_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

#include "tensor.h"

/* Called after every task op has run (in the called function and in any function it calls), with the
 * op's operand and result tensors (borrowed: valid only during the call; results already rounded under
 * --emulate). Tools use it to watch values, such as latch-interp --gradcheck, which reports how far
 * each task.topk and max reduction is from a tie. */
typedef void (*latch_interp_observer)(void *user_data, MlirOperation op, intptr_t operand_count,
                                      const latch_tensor *const *operands, intptr_t result_count,
                                      const latch_tensor *const *results);

/* What running interval.programs in their byte arena saw (docs/interp.md), summed over the calls that
 * report into it. A "corrupt read" is an element read from the arena whose bytes are not (all) those
 * that its own value wrote; a "live overwrite" is a byte of a value that is still to be read (by a later
 * op, or by another task of the same interval) written by another value. A correct plan has neither. */
typedef struct latch_interp_arena_report {
  int64_t runs;          /* program calls that ran in an arena */
  int64_t arena_bytes;   /* the arena size of the last such call */
  int64_t values_bound;  /* the bound values of the last such call */
  int64_t element_writes, element_reads;
  int64_t corrupt_reads;
  /* The first corrupt read: the op that read it (the program's gpu.yield for a result) and the
   * operand; the value read and the value whose write was found at `corrupt_byte` (null when the byte
   * was never written or several values' bytes were mixed). */
  MlirOperation corrupt_reader;
  int corrupt_operand;
  MlirValue corrupt_value, corrupt_overwriter;
  int64_t corrupt_byte;
  int64_t live_overwrites; /* bytes */
  /* The first live overwrite: the value written, the value whose byte it overwrote, an op that still
   * reads that value, and the arena byte. */
  MlirValue overwrite_writer, overwrite_victim;
  MlirOperation overwrite_reader;
  int64_t overwrite_byte;
} latch_interp_arena_report;

typedef struct latch_interp_options {
  latch_emulate emulate;
  latch_interp_observer observe; /* NULL: nothing is observed */
  void *observe_data;            /* passed to `observe` */
  /* An interval.program with an arena plan (arena.arena, arena.slot, arena.bind) runs in one byte arena
   * of the plan's size: every bound value is stored at its slot's offset plus its bind offset when it
   * is defined and read back from there at every use (docs/interp.md). `ignore_arena` runs it without:
   * every value held apart, as for a func.func. */
  bool ignore_arena;
  latch_interp_arena_report *arena_report; /* NULL: not reported */
} latch_interp_options;

/* Runs `func` (a func.func or an interval.program inside a module) on `args` (`arg_count` tensors,
 * borrowed: the interpreter copies them). An interval.program runs its one block in order: constants,
 * then tasks; interval.interval and interval.barrier markers and the arena ops are no-ops; its results
 * are the operands of the block's gpu.yield. Its arguments are the block's arguments. Each argument must match the function's argument type exactly (dtype and shape); under
 * --emulate the copies are rounded like every stored tensor. On success returns true with
 * `*out_results` holding `*out_result_count` tensors that the caller owns and releases with
 * latch_interp_results_free. On failure emits an error and returns false. */
bool latch_interp_call(MlirOperation func, const latch_interp_options *options, intptr_t arg_count,
                       const latch_tensor *const *args, intptr_t *out_result_count, latch_tensor ***out_results);

void latch_interp_results_free(latch_tensor **results, intptr_t count);

/* Reads a ranked, static-shaped tensor type of f32, bf16, f64 or i32 (rank at most LATCH_MAX_RANK);
 * false for anything else. */
bool latch_tensor_type_read(MlirType type, latch_dtype *out_dtype, int *out_rank, int64_t *out_shape);

/* The func.func named `name` among the top-level ops of `module` (a builtin.module op), or a null op. */
MlirOperation latch_interp_find_func(MlirOperation module, MlirStringRef name);

/* The func.func or interval.program named `name` (its sym_name) among the top-level ops of `module`,
 * the func.func first; a null op when there is neither. */
MlirOperation latch_interp_find_entry(MlirOperation module, MlirStringRef name);

/* True when `op` is an interval.program. */
bool latch_interp_is_program(MlirOperation op);

/* The argument attribute `name` of argument `index` of `func` (a func.func or an interval.program), or a
 * null attribute. */
MlirAttribute latch_func_arg_attr(MlirOperation func, intptr_t index, const char *name);

/* The function type of `func` (its function_type attribute; a func.func or an interval.program), null
 * when missing. */
MlirType latch_func_type(MlirOperation func);

#endif
