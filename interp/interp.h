/* interp.h - the fp64 interpreter of task programs: runs one func.func of a parsed module on given
 * argument tensors and returns its result tensors. Every task op follows docs/task-dialect.md (the
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

typedef struct latch_interp_options {
  latch_emulate emulate;
  latch_interp_observer observe; /* NULL: nothing is observed */
  void *observe_data;            /* passed to `observe` */
} latch_interp_options;

/* Runs `func` (a func.func inside a module) on `args` (`arg_count` tensors, borrowed: the interpreter
 * copies them). Each argument must match the function's argument type exactly (dtype and shape); under
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

/* The argument attribute `name` of argument `index` of `func`, or a null attribute. */
MlirAttribute latch_func_arg_attr(MlirOperation func, intptr_t index, const char *name);

/* The function type of `func` (null type when missing). */
MlirType latch_func_type(MlirOperation func);

#endif
