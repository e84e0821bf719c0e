/* latch-interp.c - runs one function (a func.func, or an interval.program) of a task program on the CPU in
 * fp64 and writes its results as .npy files; arguments come from .npy files, from the documented --init
 * rule (parameters) or from --random-inputs (everything else). Two more modes reuse the loaded program:
 * --gradcheck compares the gradients of @f_grad with central differences of @f, and --train-steps runs
 * @f_update repeatedly, feeding its new parameters and optimizer state back (docs/autodiff.md). An
 * interval.program with an arena plan runs in one byte arena (docs/interp.md). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include "../dialects/dialects.h"
#include "../dialects/ops.h"
#include "../interp/interp.h"
#include "../support/cli.h"
#include "../support/diagnostics.h"
#include "../support/init.h"
#include "../support/npy.h"
#include "../support/source.h"

static const char usage[] =
    "usage: latch-interp PROG.mlir --entry NAME --output-dir DIR [options]\n"
    "\n"
    "Runs function @NAME of PROG.mlir ('-': stdin) in fp64 and writes DIR/result0.npy, DIR/result1.npy, ...\n"
    "(float results as '<f8', i32 results as '<i4'). @NAME is a func.func or an interval.program (from\n"
    "latch-form-intervals): its block runs in order, its arguments are the block's (with the program's\n"
    "arg_attrs), its results the operands of its gpu.yield. A program with an arena plan (latch-plan-arena)\n"
    "runs in one byte arena of the plan's size: every bound value is stored at its slot's offset plus its\n"
    "bind offset and read back from there at every use, so that a plan that lets a value be overwritten\n"
    "while it is live gives wrong numbers (docs/interp.md). Such overwrites are also reported on stderr.\n"
    "\n"
    "  --entry NAME             the function or program to run\n"
    "  --input ARG=FILE.npy     an argument, named argN (position) or by its task.name; float arguments take\n"
    "                           '<f4' or '<f8' arrays, i32 arguments '<i4'; the shape must match exactly\n"
    "  --init SEED              fill every task.param argument not given by the initialisation rule of\n"
    "                           docs/task-dialect.md (task.init, task.init_std)\n"
    "  --random-inputs SEED     fill every other argument not given by the same rule (i32 arguments need\n"
    "                           task.range = R : i64 and get values in [0, R))\n"
    "  --emulate=fp32|bf16      round every stored float tensor at op boundaries and every scalar result\n"
    "                           inside task.map bodies: fp32 rounds all to f32, bf16 rounds to the declared\n"
    "                           dtype (bf16 through f32, or f32; f64 stays f64)\n"
    "  --output-dir DIR         where the results go (created if missing)\n"
    "  --no-arena               run a planned program without its arena (every value held apart)\n"
    "  --arena-stats            print what the arena saw to stdout: 'arena: @NAME S bytes, V values bound,\n"
    "                           W element writes, R element reads, C corrupt reads, L live bytes overwritten'\n"
    "  --help                   show this text\n"
    "\n"
    "latch-interp PROG.mlir --entry f --gradcheck [options]\n"
    "\n"
    "Runs @f_grad (from latch-autodiff) once and compares each gradient with central differences of @f\n"
    "(all in fp64, one loaded program): every element p of every task.param argument is moved to p + h and\n"
    "p - h with h = S * max(1, |p|), S = 1e-5, and g_fd = (loss(p + h) - loss(p - h)) / ((p + h) - (p - h)).\n"
    "Prints one row per parameter with the relative L2 error ||g_ad - g_fd|| / max(||g_fd||, 1e-30) and PASS\n"
    "or FAIL, then how close each task.topk and max reduction came to a tie; exits 1 if a row fails.\n"
    "  --gradcheck-tol TOL      the largest relative L2 error that passes (default 1e-6)\n"
    "  --gradcheck-max-elements N  check at most N elements per parameter, evenly spaced (j * count / N)\n"
    "  --gradcheck-step S       the relative step S of h = S * max(1, |p|) (default 1e-5)\n"
    "\n"
    "latch-interp PROG.mlir --entry f_update --train-steps N [--data TOKENS.npy] [options]\n"
    "\n"
    "Runs N updates of @f_update (from latch-optimizer): its new parameters and moments feed the next\n"
    "update, the argument named \"step\" is 1, 2, ..., N, and task.state arguments (m, v) start from their\n"
    "task.init rule (zeros). Prints 'step K loss L' per update (L: the loss before update K), then 'final\n"
    "loss L after N updates' (the loss of the trained parameters on the next batch). With --output-dir,\n"
    "writes the results of the last update.\n"
    "  --data TOKENS.npy        an int32 [S] token stream: update K takes the arguments named \"tokens\" [B, T]\n"
    "                           and \"targets\" [B*T] from positions o .. o+B*T (targets one further),\n"
    "                           o = (K-1)*B*T, wrapping around the stream\n";

#define MAX_INPUTS 256

typedef struct input_spec {
  const char *name; /* points into argv; the text before '=' */
  size_t name_length;
  const char *path;
} input_spec;

typedef enum run_mode { MODE_RUN, MODE_GRADCHECK, MODE_TRAIN } run_mode;

typedef struct options {
  const char *program;
  const char *entry;
  const char *output_dir;
  input_spec inputs[MAX_INPUTS];
  int input_count;
  bool has_init, has_random;
  uint64_t init_seed, random_seed;
  latch_emulate emulate;
  run_mode mode;
  double gradcheck_tol, gradcheck_step;
  int64_t gradcheck_max; /* 0: every element */
  int64_t train_steps;
  const char *data; /* --data TOKENS.npy, or NULL */
  bool no_arena, arena_stats;
} options;

static const char tool[] = "latch-interp";

static bool error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  latch_cli_verror(tool, format, args);
  va_end(args);
  return false;
}

static bool parse_positive_real(const char *flag, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (!*text || *end || errno == ERANGE || !(value > 0.0) || !isfinite(value))
    return error("%s needs a positive number, not '%s'", flag, text);
  *out = value;
  return true;
}

/* Returns 0 when the options parse, 1 (after one `error:` line) when they do not, 2 for --help. */
static int parse_arguments(int argc, char **argv, options *out) {
  memset(out, 0, sizeof(*out));
  out->gradcheck_tol = 1e-6;
  out->gradcheck_step = 1e-5;
  bool gradcheck_options = false;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i], *value;
    bool missing = false;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(usage, stdout);
      return 2;
    } else if (strcmp(arg, "--gradcheck") == 0) {
      if (out->mode == MODE_TRAIN)
        return error("--gradcheck and --train-steps are two different modes; give one"), 1;
      out->mode = MODE_GRADCHECK;
    } else if ((value = latch_cli_flag_value("--gradcheck-tol", argc, argv, &i, &missing))) {
      if (!parse_positive_real("--gradcheck-tol", value, &out->gradcheck_tol))
        return 1;
      gradcheck_options = true;
    } else if ((value = latch_cli_flag_value("--gradcheck-step", argc, argv, &i, &missing))) {
      if (!parse_positive_real("--gradcheck-step", value, &out->gradcheck_step))
        return 1;
      gradcheck_options = true;
    } else if ((value = latch_cli_flag_value("--gradcheck-max-elements", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_integer(tool, "--gradcheck-max-elements", value, 1, INT64_MAX, &out->gradcheck_max))
        return 1;
      gradcheck_options = true;
    } else if ((value = latch_cli_flag_value("--train-steps", argc, argv, &i, &missing))) {
      if (out->mode == MODE_GRADCHECK)
        return error("--gradcheck and --train-steps are two different modes; give one"), 1;
      if (!latch_cli_parse_integer(tool, "--train-steps", value, 1, INT64_MAX, &out->train_steps))
        return 1;
      out->mode = MODE_TRAIN;
    } else if (strcmp(arg, "--no-arena") == 0) {
      out->no_arena = true;
    } else if (strcmp(arg, "--arena-stats") == 0) {
      out->arena_stats = true;
    } else if ((value = latch_cli_flag_value("--data", argc, argv, &i, &missing))) {
      out->data = value;
    } else if ((value = latch_cli_flag_value("--entry", argc, argv, &i, &missing))) {
      out->entry = value;
    } else if ((value = latch_cli_flag_value("--output-dir", argc, argv, &i, &missing))) {
      out->output_dir = value;
    } else if ((value = latch_cli_flag_value("--input", argc, argv, &i, &missing))) {
      const char *eq = strchr(value, '=');
      if (!eq || eq == value || !eq[1])
        return error("--input needs ARG=FILE.npy, not '%s'", value), 1;
      if (out->input_count == MAX_INPUTS)
        return error("more than %d --input options", MAX_INPUTS), 1;
      out->inputs[out->input_count++] = (input_spec){value, (size_t)(eq - value), eq + 1};
    } else if ((value = latch_cli_flag_value("--init", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_seed(tool, "--init", value, &out->init_seed))
        return 1;
      out->has_init = true;
    } else if ((value = latch_cli_flag_value("--random-inputs", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_seed(tool, "--random-inputs", value, &out->random_seed))
        return 1;
      out->has_random = true;
    } else if ((value = latch_cli_flag_value("--emulate", argc, argv, &i, &missing))) {
      if (strcmp(value, "fp32") == 0)
        out->emulate = LATCH_EMULATE_FP32;
      else if (strcmp(value, "bf16") == 0)
        out->emulate = LATCH_EMULATE_BF16;
      else if (strcmp(value, "none") == 0 || strcmp(value, "fp64") == 0)
        out->emulate = LATCH_EMULATE_NONE;
      else
        return error("--emulate takes fp32 or bf16, not '%s'", value), 1;
    } else if (missing) {
      return error("%s needs a value", arg), 1;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return error("unknown option '%s' (see --help)", arg), 1;
    } else if (out->program) {
      return error("more than one program ('%s' and '%s')", out->program, arg), 1;
    } else {
      out->program = arg;
    }
  }
  if (!out->program)
    return error("no program given (see --help)"), 1;
  if (!out->entry)
    return error("no --entry given"), 1;
  if (gradcheck_options && out->mode != MODE_GRADCHECK)
    return error("--gradcheck-tol, --gradcheck-step and --gradcheck-max-elements need --gradcheck"), 1;
  if (out->data && out->mode != MODE_TRAIN)
    return error("--data needs --train-steps"), 1;
  if (out->mode == MODE_GRADCHECK && out->emulate != LATCH_EMULATE_NONE)
    return error("--gradcheck runs in fp64; it does not take --emulate"), 1;
  if (out->mode == MODE_GRADCHECK && out->output_dir)
    return error("--gradcheck writes no results; it does not take --output-dir"), 1;
  if (out->mode == MODE_RUN && !out->output_dir)
    return error("no --output-dir given"), 1;
  return 0;
}

/* ---- Arguments ---- */

typedef struct argument {
  intptr_t position;
  MlirStringRef name; /* task.name, or empty */
  char label[160];    /* how messages name it: 'x' (arg0) or arg0 */
  MlirType type;
  latch_dtype dtype;
  int rank;
  int64_t shape[LATCH_MAX_RANK];
  bool is_param;
  intptr_t param_index;
  bool is_state;        /* task.state: optimizer state (m, v) */
  bool set_by_mode;     /* --train-steps sets it on every update (step; tokens and targets with --data) */
  latch_tensor *tensor; /* owned */
} argument;

typedef struct text_buffer {
  char *data;
  size_t size, used;
} text_buffer;

static void append_text(MlirStringRef text, void *user_data) {
  text_buffer *buffer = user_data;
  for (size_t i = 0; i < text.length && buffer->used + 1 < buffer->size; ++i)
    buffer->data[buffer->used++] = text.data[i];
  buffer->data[buffer->used] = '\0';
}

static const char *type_text(MlirType type, char *out, size_t size) {
  text_buffer buffer = {out, size, 0};
  out[0] = '\0';
  mlirTypePrint(type, append_text, &buffer);
  return out;
}

static const char *shape_tuple(int rank, const int64_t *shape, char *out, size_t size) {
  int n = snprintf(out, size, "(");
  for (int d = 0; d < rank && (size_t)n < size; ++d)
    n += snprintf(out + n, size - (size_t)n, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if ((size_t)n < size)
    snprintf(out + n, size - (size_t)n, "%s)", rank == 1 ? "," : "");
  return out;
}

static bool read_arguments(MlirOperation func, argument **out_args, intptr_t *out_count) {
  MlirType type = latch_func_type(func);
  intptr_t count = mlirFunctionTypeGetNumInputs(type);
  argument *args = calloc((size_t)count + 1, sizeof(*args));
  if (!args)
    return error("out of memory");
  intptr_t params = 0;
  for (intptr_t k = 0; k < count; ++k) {
    argument *a = &args[k];
    a->position = k;
    a->type = mlirFunctionTypeGetInput(type, k);
    MlirAttribute name = latch_func_arg_attr(func, k, "task.name");
    if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name)) {
      a->name = mlirStringAttrGetValue(name);
      snprintf(a->label, sizeof(a->label), "'%.*s' (arg%ld)", (int)a->name.length, a->name.data, (long)k);
    } else {
      snprintf(a->label, sizeof(a->label), "arg%ld", (long)k);
    }
    a->is_param = !mlirAttributeIsNull(latch_func_arg_attr(func, k, "task.param"));
    if (a->is_param)
      a->param_index = params++;
    a->is_state = !mlirAttributeIsNull(latch_func_arg_attr(func, k, "task.state"));
    if (!latch_tensor_type_read(a->type, &a->dtype, &a->rank, a->shape)) {
      char text[256];
      error("argument %ld has type %s; latch-interp takes static tensors of f32, bf16, f64 or i32 (rank <= %d)",
            (long)k, type_text(a->type, text, sizeof(text)), LATCH_MAX_RANK);
      free(args);
      return false;
    }
  }
  *out_args = args;
  *out_count = count;
  return true;
}

static void free_arguments(argument *args, intptr_t count) {
  for (intptr_t k = 0; args && k < count; ++k)
    latch_tensor_free(args[k].tensor);
  free(args);
}

static argument *find_argument(argument *args, intptr_t count, const char *name, size_t length) {
  for (intptr_t k = 0; k < count; ++k)
    if (args[k].name.length == length && memcmp(args[k].name.data, name, length) == 0)
      return &args[k];
  if (length > 3 && memcmp(name, "arg", 3) == 0) {
    intptr_t position = 0;
    for (size_t i = 3; i < length; ++i) {
      if (name[i] < '0' || name[i] > '9' || position > count)
        return NULL;
      position = position * 10 + (name[i] - '0');
    }
    if (position < count && !(length > 4 && name[3] == '0'))
      return &args[position];
  }
  return NULL;
}

/* The name --input takes for `a`: its task.name, or argN. */
static const char *input_name(const argument *a, char *out, size_t size) {
  if (a->name.length)
    snprintf(out, size, "%.*s", (int)a->name.length, a->name.data);
  else
    snprintf(out, size, "arg%ld", (long)a->position);
  return out;
}

static latch_tensor *allocate_argument(const argument *a) {
  latch_tensor *t = latch_tensor_allocate(a->dtype, a->rank, a->shape);
  if (!t)
    error("argument %s is too large for the interpreter (limit %lld elements) or memory ran out", a->label,
          (long long)LATCH_MAX_ELEMENTS);
  return t;
}

/* Loads --input `spec` into its argument; counts non-finite values into *non_finite. */
static bool load_input(argument *a, const input_spec *spec, int64_t *non_finite) {
  char message[512], text[256], shape[256];
  latch_npy_array array;
  if (!latch_npy_read(spec->path, &array, message, sizeof(message)))
    return error("input %s: %s", a->label, message);
  bool ok = true;
  bool float_arg = latch_dtype_is_float(a->dtype);
  if (float_arg ? array.dtype == LATCH_NPY_I32 : array.dtype != LATCH_NPY_I32) {
    ok = error("input %s ('%s'): dtype '%s' does not fit the argument type %s (expected %s)", a->label,
               spec->path, latch_npy_dtype_descr(array.dtype), type_text(a->type, text, sizeof(text)),
               float_arg ? "'<f4' or '<f8'" : "'<i4'");
  }
  bool same_shape = array.rank == a->rank;
  for (int d = 0; same_shape && d < a->rank; ++d)
    same_shape = array.shape[d] == a->shape[d];
  if (ok && !same_shape)
    ok = error("input %s ('%s'): shape %s does not match the argument type %s", a->label, spec->path,
               shape_tuple(array.rank, array.shape, shape, sizeof(shape)), type_text(a->type, text, sizeof(text)));
  if (ok)
    ok = (a->tensor = allocate_argument(a)) != NULL;
  for (int64_t i = 0; ok && i < array.count; ++i) {
    if (array.dtype == LATCH_NPY_I32) {
      a->tensor->i[i] = ((const int32_t *)array.data)[i];
      continue;
    }
    double x = array.dtype == LATCH_NPY_F32 ? (double)((const float *)array.data)[i]
                                            : ((const double *)array.data)[i];
    if (!isfinite(x))
      ++*non_finite;
    a->tensor->f[i] = x;
  }
  latch_npy_array_deinitialize(&array);
  return ok;
}

/* Fills `a` by the initialisation rule with key index `p` (docs/task-dialect.md, "Initialisation"). */
static bool fill_by_rule(argument *a, MlirOperation func, uint64_t seed, uint64_t p, const char *flag) {
  uint64_t key = latch_init_key(seed, p);
  char text[256];
  if (a->dtype == LATCH_DTYPE_I32) {
    MlirAttribute range = latch_func_arg_attr(func, a->position, "task.range");
    if (mlirAttributeIsNull(range))
      return error("argument %s is i32 and has no task.range attribute, so %s cannot fill it; give "
                   "--input %s=FILE.npy", a->label, flag, input_name(a, text, sizeof(text)));
    if (!mlirAttributeIsAInteger(range) || mlirIntegerAttrGetValueInt(range) < 1 ||
        mlirIntegerAttrGetValueInt(range) > ((int64_t)1 << 31))
      return error("argument %s: task.range must be an integer in [1, 2^31]", a->label);
    uint64_t r = (uint64_t)mlirIntegerAttrGetValueInt(range);
    if (!(a->tensor = allocate_argument(a)))
      return false;
    for (int64_t i = 0; i < a->tensor->count; ++i)
      a->tensor->i[i] = (int32_t)latch_init_index(key, (uint64_t)i, r);
    return true;
  }
  enum { NORMAL, ONES, ZEROS } how = NORMAL;
  MlirAttribute init = latch_func_arg_attr(func, a->position, "task.init");
  if (!mlirAttributeIsNull(init)) {
    MlirStringRef value = mlirAttributeIsAString(init) ? mlirStringAttrGetValue(init) : (MlirStringRef){"", 0};
    if (value.length == 6 && memcmp(value.data, "normal", 6) == 0)
      how = NORMAL;
    else if (value.length == 4 && memcmp(value.data, "ones", 4) == 0)
      how = ONES;
    else if (value.length == 5 && memcmp(value.data, "zeros", 5) == 0)
      how = ZEROS;
    else
      return error("argument %s: task.init must be \"normal\", \"ones\" or \"zeros\"", a->label);
  }
  double std = LATCH_INIT_DEFAULT_STD;
  MlirAttribute std_attr = latch_func_arg_attr(func, a->position, "task.init_std");
  if (!mlirAttributeIsNull(std_attr)) {
    if (!mlirAttributeIsAFloat(std_attr))
      return error("argument %s: task.init_std must be a float attribute, not %s", a->label,
                   type_text(mlirAttributeGetType(std_attr), text, sizeof(text)));
    std = mlirFloatAttrGetValueDouble(std_attr);
  }
  if (!(a->tensor = allocate_argument(a)))
    return false;
  for (int64_t i = 0; i < a->tensor->count; ++i) {
    double value = how == ONES ? 1.0 : how == ZEROS ? 0.0 : latch_init_normal(key, (uint64_t)i) * std;
    if (a->dtype == LATCH_DTYPE_F32)
      value = latch_round_f32(value);
    else if (a->dtype == LATCH_DTYPE_BF16)
      value = latch_round_bf16(value);
    a->tensor->f[i] = value;
  }
  return true;
}

/* Gives every argument a tensor: --input first, then --init / --random-inputs. Under --train-steps the
 * arguments the mode sets (set_by_mode) only get a tensor, and task.state arguments follow their
 * task.init rule without needing --random-inputs. */
static bool bind_arguments(const options *opts, MlirOperation func, argument *args, intptr_t count) {
  int64_t non_finite = 0;
  for (int k = 0; k < opts->input_count; ++k) {
    const input_spec *spec = &opts->inputs[k];
    argument *a = find_argument(args, count, spec->name, spec->name_length);
    if (!a)
      return error("--input '%.*s': @%s has no argument of that name (use argN or the task.name)",
                   (int)spec->name_length, spec->name, opts->entry);
    if (a->tensor)
      return error("argument %s is given more than once", a->label);
    if (a->set_by_mode)
      return error("argument %s is set by --train-steps%s; do not give it with --input", a->label,
                   opts->data ? " and --data" : "");
    if (!load_input(a, spec, &non_finite))
      return false;
  }
  for (intptr_t k = 0; k < count; ++k) {
    argument *a = &args[k];
    if (a->tensor)
      continue;
    if (a->set_by_mode) {
      if (!(a->tensor = allocate_argument(a)))
        return false;
    } else if (opts->mode == MODE_TRAIN && a->is_state && !a->is_param) {
      uint64_t seed = opts->has_random ? opts->random_seed : 0;
      if (!fill_by_rule(a, func, seed, LATCH_INIT_INPUT_BASE + (uint64_t)k, "--train-steps"))
        return false;
    } else if (a->is_param && opts->has_init) {
      if (!fill_by_rule(a, func, opts->init_seed, (uint64_t)a->param_index, "--init"))
        return false;
    } else if (!a->is_param && opts->has_random) {
      if (!fill_by_rule(a, func, opts->random_seed, LATCH_INIT_INPUT_BASE + (uint64_t)k, "--random-inputs"))
        return false;
    } else {
      char name[160];
      return error("missing argument %s: give --input %s=FILE.npy or %s SEED", a->label,
                   input_name(a, name, sizeof(name)), a->is_param ? "--init" : "--random-inputs");
    }
  }
  if (non_finite)
    fprintf(stderr, "latch-interp: warning: %lld non-finite values in inputs\n", (long long)non_finite);
  return true;
}

/* ---- Results ---- */

static bool write_results(const char *dir, latch_tensor **results, intptr_t count) {
  char message[4400];
  if (!latch_cli_make_directory(dir, message, sizeof(message)))
    return error("%s", message);
  for (intptr_t k = 0; k < count; ++k) {
    const latch_tensor *t = results[k];
    char path[4200], message[512];
    snprintf(path, sizeof(path), "%s/result%ld.npy", dir, (long)k);
    latch_npy_array array = {.dtype = t->f ? LATCH_NPY_F64 : LATCH_NPY_I32, .rank = t->rank, .count = t->count,
                             .data = t->f ? (void *)t->f : (void *)t->i};
    for (int d = 0; d < t->rank; ++d)
      array.shape[d] = t->shape[d];
    if (!latch_npy_write(path, &array, message, sizeof(message)))
      return error("%s", message);
  }
  /* Results of an earlier run with more results would read as ours: remove result<count>.npy onwards. */
  for (intptr_t k = count;; ++k) {
    char path[4200];
    snprintf(path, sizeof(path), "%s/result%ld.npy", dir, (long)k);
    if (remove(path) != 0)
      break;
  }
  return true;
}

/* ---- Shared by the modes ---- */

/* What the byte arena saw over all calls (printed by report_arena). */
static latch_interp_arena_report arena_report;

/* The interpreter's options for a call under `emulate`: the arena as --no-arena says, reported. */
static latch_interp_options interp_options_for(const options *opts, latch_emulate emulate) {
  return (latch_interp_options){.emulate = emulate, .ignore_arena = opts->no_arena, .arena_report = &arena_report};
}

static bool is_rank0_float(MlirType type) {
  latch_dtype dtype;
  int rank;
  int64_t shape[LATCH_MAX_RANK];
  return latch_tensor_type_read(type, &dtype, &rank, shape) && rank == 0 && latch_dtype_is_float(dtype);
}

static bool name_equals(const argument *a, const char *name) {
  size_t length = strlen(name);
  return a->name.length == length && memcmp(a->name.data, name, length) == 0;
}

/* The tensors of `args` as the interpreter takes them (borrowed); NULL when memory runs out. */
static const latch_tensor **argument_tensors(const argument *args, intptr_t count) {
  const latch_tensor **tensors = calloc((size_t)count + 1, sizeof(*tensors));
  if (!tensors) {
    error("out of memory");
    return NULL;
  }
  for (intptr_t k = 0; k < count; ++k)
    tensors[k] = args[k].tensor;
  return tensors;
}

/* Runs `func` and returns its first result (the loss) in *out_loss. */
static bool evaluate_loss(MlirOperation func, const latch_interp_options *interp_options, intptr_t count,
                          const latch_tensor **tensors, double *out_loss) {
  intptr_t result_count = 0;
  latch_tensor **results = NULL;
  bool ok = latch_interp_call(func, interp_options, count, tensors, &result_count, &results);
  if (ok && (result_count < 1 || !results[0]->f || results[0]->count != 1))
    ok = error("the first result is not a rank-0 float loss");
  if (ok)
    *out_loss = results[0]->f[0];
  latch_interp_results_free(results, result_count);
  return ok;
}

/* ---- The default mode: one call, results written as .npy ---- */

static bool run_once(const options *opts, MlirOperation func) {
  argument *args = NULL;
  intptr_t count = 0;
  bool ok = false;
  if (read_arguments(func, &args, &count) && bind_arguments(opts, func, args, count)) {
    const latch_tensor **tensors = argument_tensors(args, count);
    if (tensors) {
      latch_interp_options interp_options = interp_options_for(opts, opts->emulate);
      intptr_t result_count = 0;
      latch_tensor **results = NULL;
      if (latch_interp_call(func, &interp_options, count, tensors, &result_count, &results))
        ok = write_results(opts->output_dir, results, result_count);
      latch_interp_results_free(results, result_count);
      free(tensors);
    }
  }
  free_arguments(args, count);
  return ok;
}

/* ---- --gradcheck ---- */

/* How close the forward pass came to a kink where the loss is not differentiable: the smallest gap
 * between neighbouring ranked values that a task.topk selects or orders (the k-th against the
 * (k+1)-th and each selected value against the next), and between the largest and second largest
 * value of a max reduction. A perturbation that moves such values by less than the gap crosses no
 * kink. */
typedef struct tie_margins {
  double topk, reduce_max;
  int topk_ops, reduce_max_ops;
  bool failed; /* out of memory */
} tie_margins;

static int compare_descending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void observe_margins(void *user_data, MlirOperation op, intptr_t operand_count,
                            const latch_tensor *const *operands, intptr_t result_count,
                            const latch_tensor *const *results) {
  tie_margins *m = user_data;
  (void)result_count;
  (void)results;
  latch_op_kind kind = latch_op_kind_of(op);
  if (kind == LATCH_OP_TASK_TOPK && operand_count == 1 && operands[0]->f && operands[0]->rank == 2) {
    const latch_tensor *x = operands[0];
    int64_t rows = x->shape[0], columns = x->shape[1], k = latch_topk_k(op);
    int64_t gaps = k < columns - 1 ? k : columns - 1;
    double *row = malloc(sizeof(double) * (size_t)(columns + 1));
    if (!row) {
      m->failed = true;
      return;
    }
    for (int64_t r = 0; r < rows; ++r) {
      memcpy(row, x->f + r * columns, sizeof(double) * (size_t)columns);
      qsort(row, (size_t)columns, sizeof(double), compare_descending);
      for (int64_t j = 0; j < gaps; ++j)
        if (row[j] - row[j + 1] < m->topk)
          m->topk = row[j] - row[j + 1];
    }
    free(row);
    m->topk_ops++;
  } else if (kind == LATCH_OP_TASK_REDUCE && operand_count == 1 && operands[0]->f) {
    MlirStringRef reduction = latch_reduce_kind(op);
    int64_t axis = latch_reduce_axis(op);
    const latch_tensor *x = operands[0];
    if (reduction.length != 3 || memcmp(reduction.data, "max", 3) != 0 || axis < 0 || axis >= x->rank)
      return;
    int64_t outer = 1, n = x->shape[axis], inner = 1;
    for (int d = 0; d < axis; ++d)
      outer *= x->shape[d];
    for (int d = (int)axis + 1; d < x->rank; ++d)
      inner *= x->shape[d];
    for (int64_t o = 0; n > 1 && o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double first = -INFINITY, second = -INFINITY;
        for (int64_t j = 0; j < n; ++j) {
          double value = x->f[(o * n + j) * inner + i];
          if (value > first) {
            second = first;
            first = value;
          } else if (value > second) {
            second = value;
          }
        }
        if (first - second < m->reduce_max)
          m->reduce_max = first - second;
      }
    m->reduce_max_ops++;
  }
}

/* @f_grad must take @f's arguments (same types, same task.param arguments) and return @f's loss type,
 * then one gradient per parameter with the parameter's type. */
static bool check_grad_signature(MlirOperation f, MlirOperation g, const char *f_name, const char *g_name,
                                 const argument *args, intptr_t count) {
  MlirType f_type = latch_func_type(f), g_type = latch_func_type(g);
  char text[256], other[256];
  if (mlirTypeIsNull(g_type) || mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(g, 0))))
    return error("@%s is a declaration without a body", g_name);
  if (mlirFunctionTypeGetNumResults(f_type) < 1 || !is_rank0_float(mlirFunctionTypeGetResult(f_type, 0)))
    return error("@%s must return a rank-0 float loss first", f_name);
  if (mlirFunctionTypeGetNumInputs(g_type) != count)
    return error("signature mismatch: @%s takes %ld arguments, @%s takes %ld", g_name,
                 (long)mlirFunctionTypeGetNumInputs(g_type), f_name, (long)count);
  intptr_t params = 0;
  for (intptr_t k = 0; k < count; ++k) {
    MlirType type = mlirFunctionTypeGetInput(g_type, k);
    if (!mlirTypeEqual(type, args[k].type))
      return error("signature mismatch: argument %ld of @%s has type %s, that of @%s %s", (long)k, g_name,
                   type_text(type, text, sizeof(text)), f_name, type_text(args[k].type, other, sizeof(other)));
    bool is_param = !mlirAttributeIsNull(latch_func_arg_attr(g, k, "task.param"));
    if (is_param != args[k].is_param)
      return error("signature mismatch: argument %ld is a task.param of @%s but not of @%s", (long)k,
                   is_param ? g_name : f_name, is_param ? f_name : g_name);
    if (is_param && !latch_dtype_is_float(args[k].dtype))
      return error("parameter %s of @%s is not a float tensor", args[k].label, f_name);
    params += is_param;
  }
  if (params == 0)
    return error("@%s has no task.param argument to check", f_name);
  if (mlirFunctionTypeGetNumResults(g_type) != 1 + params)
    return error("signature mismatch: @%s returns %ld value%s; expected the loss and one gradient per "
                 "parameter (%ld)", g_name, (long)mlirFunctionTypeGetNumResults(g_type),
                 mlirFunctionTypeGetNumResults(g_type) == 1 ? "" : "s", (long)(1 + params));
  if (!mlirTypeEqual(mlirFunctionTypeGetResult(g_type, 0), mlirFunctionTypeGetResult(f_type, 0)))
    return error("signature mismatch: the first result of @%s is not @%s's loss type", g_name, f_name);
  for (intptr_t k = 0, p = 0; k < count; ++k) {
    if (!args[k].is_param)
      continue;
    MlirType type = mlirFunctionTypeGetResult(g_type, 1 + p);
    if (!mlirTypeEqual(type, args[k].type))
      return error("signature mismatch: result %ld of @%s has type %s, parameter %s has %s", (long)(1 + p),
                   g_name, type_text(type, text, sizeof(text)), args[k].label,
                   type_text(args[k].type, other, sizeof(other)));
    ++p;
  }
  return true;
}

static bool gradcheck(const options *opts, MlirOperation module, MlirOperation f) {
  char g_name[512];
  snprintf(g_name, sizeof(g_name), "%s_grad", opts->entry);
  MlirOperation g = latch_interp_find_entry(module, mlirStringRefCreateFromCString(g_name));
  if (mlirOperationIsNull(g))
    return error("no function @%s in '%s' (run latch-opt with latch-autodiff first)", g_name, opts->program);
  argument *args = NULL;
  intptr_t count = 0;
  if (!read_arguments(f, &args, &count)) /* errors are reported */
    return false;
  bool ok = check_grad_signature(f, g, opts->entry, g_name, args, count) && bind_arguments(opts, f, args, count);
  const latch_tensor **tensors = ok ? argument_tensors(args, count) : NULL;
  ok = ok && tensors;

  /* The loss at the given point, watching for ties, then every gradient at once. */
  tie_margins margins = {INFINITY, INFINITY, 0, 0, false};
  latch_interp_options watched = interp_options_for(opts, LATCH_EMULATE_NONE);
  watched.observe = observe_margins;
  watched.observe_data = &margins;
  latch_interp_options plain = interp_options_for(opts, LATCH_EMULATE_NONE);
  double loss = 0.0;
  ok = ok && evaluate_loss(f, &watched, count, tensors, &loss);
  if (ok && margins.failed)
    ok = error("out of memory");
  intptr_t grad_count = 0;
  latch_tensor **grads = NULL;
  ok = ok && latch_interp_call(g, &plain, count, tensors, &grad_count, &grads);
  if (!ok) {
    latch_interp_results_free(grads, grad_count);
    free(tensors);
    free_arguments(args, count);
    return false;
  }

  int width = 6;
  for (intptr_t k = 0; k < count; ++k) {
    char name[160];
    int length = (int)strlen(input_name(&args[k], name, sizeof(name)));
    if (args[k].is_param && length > width)
      width = length;
  }
  printf("gradcheck: @%s against central differences of @%s in fp64, h = %g * max(1, |p|), tolerance %g\n",
         g_name, opts->entry, opts->gradcheck_step, opts->gradcheck_tol);
  /* Each loss carries a rounding error of about one ulp, so a central difference has an error of about
   * ulp(loss) / h per element whatever the gradient: the floor of the relative error of a tensor with
   * n checked elements is about sqrt(n) ulp(loss) / (h ||g_fd||). */
  printf("loss %.17g (@%s), %.17g (@%s); roundoff of one difference about ulp(loss) / h = %.1e\n", loss,
         opts->entry, grads[0]->f[0], g_name, (nextafter(fabs(loss), INFINITY) - fabs(loss)) / opts->gradcheck_step);
  printf("%-*s %10s %10s %12s %12s %12s  %s\n", width, "tensor", "elements", "checked", "|g_fd|", "|g_ad-g_fd|",
         "rel-L2-err", "result");
  fflush(stdout);
  int checked_tensors = 0, failed_tensors = 0;
  for (intptr_t k = 0, p = 0; ok && k < count; ++k) {
    argument *a = &args[k];
    if (!a->is_param)
      continue;
    const latch_tensor *ad = grads[1 + p++];
    latch_tensor *t = a->tensor;
    int64_t n = t->count, checks = opts->gradcheck_max && opts->gradcheck_max < n ? opts->gradcheck_max : n;
    double fd_norm2 = 0.0, diff_norm2 = 0.0;
    for (int64_t j = 0; ok && j < checks; ++j) {
      int64_t i = checks == n ? j : (int64_t)((__int128)j * n / checks);
      double x = t->f[i], h = opts->gradcheck_step * fmax(1.0, fabs(x));
      double up = x + h, down = x - h, loss_up = 0.0, loss_down = 0.0;
      t->f[i] = up;
      ok = evaluate_loss(f, &plain, count, tensors, &loss_up);
      t->f[i] = down;
      ok = ok && evaluate_loss(f, &plain, count, tensors, &loss_down);
      t->f[i] = x;
      double fd = (loss_up - loss_down) / (up - down);
      fd_norm2 += fd * fd;
      diff_norm2 += (ad->f[i] - fd) * (ad->f[i] - fd);
    }
    if (!ok)
      break;
    double fd_norm = sqrt(fd_norm2), diff_norm = sqrt(diff_norm2);
    double relative = diff_norm / fmax(fd_norm, 1e-30);
    bool pass = relative <= opts->gradcheck_tol; /* NaN fails */
    char name[160];
    printf("%-*s %10lld %10lld %12.4e %12.4e %12.4e  %s\n", width, input_name(a, name, sizeof(name)),
           (long long)n, (long long)checks, fd_norm, diff_norm, relative, pass ? "PASS" : "FAIL");
    fflush(stdout);
    checked_tensors++;
    failed_tensors += !pass;
  }
  if (ok) {
    printf("closest tie:");
    if (margins.topk_ops)
      printf(" task.topk %.3e (%d op%s)", margins.topk, margins.topk_ops, margins.topk_ops == 1 ? "" : "s");
    if (margins.reduce_max_ops)
      printf("%s max reduction %.3e (%d op%s)", margins.topk_ops ? "," : "", margins.reduce_max,
             margins.reduce_max_ops, margins.reduce_max_ops == 1 ? "" : "s");
    if (!margins.topk_ops && !margins.reduce_max_ops)
      printf(" no task.topk or max reduction");
    printf("\n");
    if (failed_tensors)
      printf("gradcheck: FAIL, %d of %d gradients above %g\n", failed_tensors, checked_tensors, opts->gradcheck_tol);
    else
      printf("gradcheck: ok, %d of %d gradients within %g\n", checked_tensors, checked_tensors, opts->gradcheck_tol);
    fflush(stdout);
  }
  latch_interp_results_free(grads, grad_count);
  free(tensors);
  free_arguments(args, count);
  return ok && failed_tensors == 0;
}

/* ---- --train-steps ---- */

/* Fills the i32 tensor `t` with stream[(offset + shift + i) mod S]. */
static void fill_window(latch_tensor *t, const latch_npy_array *stream, int64_t offset, int64_t shift) {
  const int32_t *s = stream->data;
  for (int64_t i = 0; i < t->count; ++i)
    t->i[i] = s[(offset + shift + i) % stream->count];
}

static bool train(const options *opts, MlirOperation func) {
  argument *args = NULL;
  intptr_t count = 0;
  if (!read_arguments(func, &args, &count))
    return false;
  MlirType type = latch_func_type(func);
  argument *step = NULL, *tokens = NULL, *targets = NULL;
  intptr_t params = 0, states = 0, *carried = calloc((size_t)count + 1, sizeof(intptr_t));
  bool ok = carried != NULL;
  if (!ok)
    error("out of memory");
  for (intptr_t k = 0; ok && k < count; ++k) {
    if (name_equals(&args[k], "step"))
      step = &args[k];
    if (opts->data && name_equals(&args[k], "tokens"))
      tokens = &args[k];
    if (opts->data && name_equals(&args[k], "targets"))
      targets = &args[k];
    if (args[k].is_param)
      carried[params++] = k;
  }
  /* The carried arguments: the parameters, then the task.state arguments (m..., v...), in argument
   * order; result 1 + j replaces carried argument j. */
  for (intptr_t k = 0; ok && k < count; ++k)
    if (args[k].is_state && !args[k].is_param)
      carried[params + states++] = k;
  intptr_t result_count = ok ? mlirFunctionTypeGetNumResults(type) : 0;
  if (!ok) {
  } else if (!step) {
    ok = error("@%s has no argument named \"step\" (train an @f_update from latch-optimizer)", opts->entry);
  } else if (step->rank != 0) {
    ok = error("the step argument %s must have rank 0", step->label);
  } else if (params == 0 || states != 2 * params) {
    ok = error("@%s has %ld task.param and %ld task.state arguments; an update has one m and one v per "
               "parameter", opts->entry, (long)params, (long)states);
  } else if (result_count != 1 + 3 * params || !is_rank0_float(mlirFunctionTypeGetResult(type, 0))) {
    ok = error("@%s returns %ld values; expected the loss, then the new parameters, m and v (%ld)", opts->entry,
               (long)result_count, (long)(1 + 3 * params));
  }
  for (intptr_t j = 0; ok && j < 3 * params; ++j) {
    char text[256], other[256];
    MlirType result = mlirFunctionTypeGetResult(type, 1 + j);
    const argument *a = &args[carried[j]];
    if (!mlirTypeEqual(result, a->type))
      ok = error("result %ld of @%s has type %s, but it replaces argument %s of type %s", (long)(1 + j), opts->entry,
                 type_text(result, text, sizeof(text)), a->label, type_text(a->type, other, sizeof(other)));
  }
  latch_npy_array stream = {0};
  bool has_stream = false;
  if (ok && opts->data) {
    char message[512];
    if (!tokens || !targets) {
      ok = error("--data needs arguments named \"tokens\" and \"targets\"; @%s lacks %s", opts->entry,
                 tokens ? "\"targets\"" : "\"tokens\"");
    } else if (tokens->dtype != LATCH_DTYPE_I32 || tokens->rank != 2 || targets->dtype != LATCH_DTYPE_I32 ||
               targets->rank != 1 || targets->shape[0] != tokens->shape[0] * tokens->shape[1]) {
      ok = error("--data needs i32 arguments tokens [B, T] and targets [B*T]");
    } else if (!(has_stream = latch_npy_read(opts->data, &stream, message, sizeof(message)))) {
      ok = error("--data: %s", message);
    } else if (stream.dtype != LATCH_NPY_I32 || stream.rank != 1 || stream.count < 1) {
      ok = error("--data '%s' must hold a non-empty int32 [S] array ('<i4', rank 1)", opts->data);
    }
    if (ok)
      tokens->set_by_mode = targets->set_by_mode = true;
  }
  if (ok)
    step->set_by_mode = true;
  ok = ok && bind_arguments(opts, func, args, count);

  latch_interp_options interp_options = interp_options_for(opts, opts->emulate);
  for (int64_t k = 1; ok && k <= opts->train_steps + 1; ++k) {
    if (step->tensor->f)
      step->tensor->f[0] = (double)k;
    else
      step->tensor->i[0] = (int32_t)k;
    if (has_stream) {
      int64_t offset = (int64_t)(((__int128)(k - 1) * tokens->tensor->count) % stream.count);
      fill_window(tokens->tensor, &stream, offset, 0);
      fill_window(targets->tensor, &stream, offset, 1);
    }
    const latch_tensor **tensors = argument_tensors(args, count);
    intptr_t n = 0;
    latch_tensor **results = NULL;
    ok = tensors && latch_interp_call(func, &interp_options, count, tensors, &n, &results);
    free(tensors);
    if (ok && n != 1 + 3 * params)
      ok = error("@%s returned %ld values", opts->entry, (long)n);
    if (ok && k > opts->train_steps) {
      printf("final loss %.17g after %lld updates\n", results[0]->f[0], (long long)opts->train_steps);
    } else if (ok) {
      printf("step %lld loss %.17g\n", (long long)k, results[0]->f[0]);
      fflush(stdout);
      if (k == opts->train_steps && opts->output_dir)
        ok = write_results(opts->output_dir, results, n);
      for (intptr_t j = 0; ok && j < 3 * params; ++j) {
        argument *a = &args[carried[j]];
        latch_tensor_free(a->tensor);
        a->tensor = results[1 + j];
        results[1 + j] = NULL;
      }
    }
    latch_interp_results_free(results, n);
  }
  if (has_stream)
    latch_npy_array_deinitialize(&stream);
  free(carried);
  free_arguments(args, count);
  return ok;
}

/* ---- Main ---- */

/* Where a value comes from, for messages: "the result of 'task.map' at FILE:L:C" or "argument N". */
static void print_value(MlirValue value, const char *display_name) {
  if (mlirValueIsNull(value)) {
    fputs("several values", stderr);
  } else if (mlirValueIsABlockArgument(value)) {
    fprintf(stderr, "argument %ld", (long)mlirBlockArgumentGetArgNumber(value));
  } else {
    MlirOperation def = mlirOpResultGetOwner(value);
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(def));
    fprintf(stderr, "result %ld of '%.*s'", (long)mlirOpResultGetResultNumber(value), (int)name.length, name.data);
    fputs(" at ", stderr);
    if (latch_location_print(stderr, mlirOperationGetLocation(def), display_name, 0) <= 0)
      fputs("an unknown location", stderr);
  }
}

static void print_op(MlirOperation op, const char *display_name) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  fprintf(stderr, "'%.*s' at ", (int)name.length, name.data);
  if (latch_location_print(stderr, mlirOperationGetLocation(op), display_name, 0) <= 0)
    fputs("an unknown location", stderr);
}

/* Warns about what the arena saw that a correct plan never does, and prints --arena-stats. */
static void report_arena(const options *opts, const char *display_name) {
  const latch_interp_arena_report *r = &arena_report;
  if (r->live_overwrites) {
    fprintf(stderr, "latch-interp: warning: the arena plan of @%s let %lld bytes of live values be overwritten; "
            "the first, arena byte %lld: ", opts->entry, (long long)r->live_overwrites, (long long)r->overwrite_byte);
    print_value(r->overwrite_writer, display_name);
    fputs(" was written over ", stderr);
    print_value(r->overwrite_victim, display_name);
    fputs(", which ", stderr);
    print_op(r->overwrite_reader, display_name);
    fputs(" still reads\n", stderr);
  }
  if (r->corrupt_reads) {
    fprintf(stderr, "latch-interp: warning: %lld element reads from the arena of @%s found bytes that another "
            "value wrote; the first, arena byte %lld: ", (long long)r->corrupt_reads, opts->entry,
            (long long)r->corrupt_byte);
    if (r->corrupt_operand >= 0) {
      fprintf(stderr, "operand %d of ", r->corrupt_operand);
      print_op(r->corrupt_reader, display_name);
    } else {
      fputs("a read by ", stderr);
      print_op(r->corrupt_reader, display_name);
    }
    fputs(" (", stderr);
    print_value(r->corrupt_value, display_name);
    fputs(") found ", stderr);
    if (mlirValueIsNull(r->corrupt_overwriter)) {
      fputs("bytes never written or mixed from several values", stderr);
    } else {
      print_value(r->corrupt_overwriter, display_name);
    }
    fputs("\n", stderr);
  }
  if (opts->arena_stats) {
    if (r->runs)
      printf("arena: @%s %lld bytes, %lld values bound, %lld element writes, %lld element reads, %lld corrupt "
             "reads, %lld live bytes overwritten\n", opts->entry, (long long)r->arena_bytes,
             (long long)r->values_bound, (long long)r->element_writes, (long long)r->element_reads,
             (long long)r->corrupt_reads, (long long)r->live_overwrites);
    else
      printf("arena: @%s ran without an arena\n", opts->entry);
    fflush(stdout);
  }
}

static bool run(const options *opts, MlirContext context, const latch_source *source) {
  latch_diagnostic_sink sink;
  latch_diagnostic_sink_attach(&sink, context, stderr, source->display_name);
  bool ok = false;
  MlirModule module = latch_source_parse(context, source->text, source->length);
  if (!mlirModuleIsNull(module)) {
    MlirOperation module_op = mlirModuleGetOperation(module);
    MlirOperation func = latch_interp_find_entry(module_op, mlirStringRefCreateFromCString(opts->entry));
    if (mlirOperationIsNull(func))
      error("no function @%s in '%s' (neither a func.func nor an interval.program of that name)", opts->entry,
            source->display_name);
    else if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
      error("@%s in '%s' is a declaration without a body", opts->entry, source->display_name);
    else if (mlirTypeIsNull(latch_func_type(func)))
      error("@%s in '%s' has no function_type attribute", opts->entry, source->display_name);
    else if (opts->mode == MODE_GRADCHECK)
      ok = gradcheck(opts, module_op, func);
    else if (opts->mode == MODE_TRAIN)
      ok = train(opts, func);
    else
      ok = run_once(opts, func);
    report_arena(opts, source->display_name);
    mlirModuleDestroy(module);
  }
  latch_diagnostic_sink_detach(&sink);
  return ok && sink.error_count == 0;
}

int main(int argc, char **argv) {
  options *opts = malloc(sizeof(*opts));
  if (!opts)
    return 1;
  int status = parse_arguments(argc, argv, opts);
  if (status) {
    free(opts);
    return status == 2 ? 0 : 1;
  }
  latch_source source;
  bool ok = latch_source_initialize(&source, "latch-interp", opts->program);
  if (ok) {
    MlirContext context = latch_context_create();
    ok = !mlirContextIsNull(context) && run(opts, context, &source);
    latch_source_deinitialize(&source);
    if (!mlirContextIsNull(context))
      mlirContextDestroy(context);
  }
  free(opts);
  return ok ? 0 : 1;
}
