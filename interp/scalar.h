/* scalar.h - the scalar ops of task.map bodies (arith, math, gpu.yield), compiled once per map into a
 * flat list of register instructions and then run once per element. Also used for scalar arith/math
 * ops outside maps (the constants that canonicalize hoists above a map, or any scalar op at the top). */
#ifndef LATCH_INTERP_SCALAR_H
#define LATCH_INTERP_SCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlir-c/IR.h"

#include "tensor.h"

/* One scalar value: `f` for float types, `i` for integer and index types (sign-extended from its
 * width, so i1 true is -1). */
typedef struct latch_scalar {
  double f;
  int64_t i;
} latch_scalar;

/* The type of a scalar register. */
typedef struct latch_scalar_type {
  bool is_float;
  latch_dtype float_dtype; /* for floats: f32, bf16 or f64 */
  int width;               /* for integers: 1..64 (index is 64) */
} latch_scalar_type;

/* Reads `type` as a scalar type; false for types the interpreter does not handle (f16, vectors, ...). */
bool latch_scalar_type_get(MlirType type, latch_scalar_type *out_type);

/* Finds the value of a scalar defined outside what is being compiled (the caller's environment).
 * Returns false when `value` is unknown or not a scalar. */
typedef bool (*latch_scalar_lookup_fn)(MlirValue value, latch_scalar *out_value, latch_scalar_type *out_type,
                                       void *user_data);

typedef struct latch_scalar_program latch_scalar_program;

/* Compiles the body of a task.map: `block`'s arguments are the inputs, its `gpu.yield` operands the
 * outputs. Values from above are read once through `lookup`. `mode` is the --emulate mode (it decides
 * whether arith.truncf and int-to-float conversions round). On failure emits one error at the
 * offending op's location and returns NULL. The caller owns the program. */
latch_scalar_program *latch_scalar_compile_block(MlirBlock block, latch_emulate mode, latch_scalar_lookup_fn lookup,
                                                 void *user_data);

/* Compiles the single op `op` (an arith or math op on scalars, outside any map): its operands are read
 * through `lookup`, its results are the outputs. Returns NULL (with an error emitted) when `op` is not
 * a scalar op the interpreter knows; when `quiet_if_unknown` is set an unknown op name emits nothing. */
latch_scalar_program *latch_scalar_compile_op(MlirOperation op, latch_emulate mode, latch_scalar_lookup_fn lookup,
                                              void *user_data, bool quiet_if_unknown);

/* True when `name` is the name of an op latch_scalar_compile_op understands. */
bool latch_scalar_op_known(MlirStringRef name);

void latch_scalar_program_free(latch_scalar_program *program);

int latch_scalar_program_input_count(const latch_scalar_program *program);
int latch_scalar_program_output_count(const latch_scalar_program *program);
latch_scalar_type latch_scalar_program_input_type(const latch_scalar_program *program, int index);
latch_scalar_type latch_scalar_program_output_type(const latch_scalar_program *program, int index);
/* Number of latch_scalar registers a run needs. */
int latch_scalar_program_register_count(const latch_scalar_program *program);

/* Sets `registers` (register_count entries) to the program's constants; do it once before runs. */
void latch_scalar_program_prepare(const latch_scalar_program *program, latch_scalar *registers);

/* Runs the program on prepared `registers`: `inputs` go in, `outputs` come out. On failure (integer
 * division by zero) writes a message into `error`, sets *out_failed_op and returns false. */
bool latch_scalar_program_run(const latch_scalar_program *program, latch_scalar *registers,
                              const latch_scalar *inputs, latch_scalar *outputs, MlirOperation *out_failed_op,
                              char *error, size_t error_size);

#endif
