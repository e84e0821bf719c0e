/* latch-interp.c - runs one function of a task program on the CPU in fp64 and writes its results as .npy
 * files; arguments come from .npy files, from the documented --init rule (parameters) or from
 * --random-inputs (everything else). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include "../dialects/dialects.h"
#include "../interp/interp.h"
#include "../support/diagnostics.h"
#include "../support/init.h"
#include "../support/npy.h"
#include "../support/source.h"

static const char usage[] =
    "usage: latch-interp PROG.mlir --entry NAME --output-dir DIR [options]\n"
    "\n"
    "Runs function @NAME of PROG.mlir ('-': stdin) in fp64 and writes DIR/result0.npy, DIR/result1.npy, ...\n"
    "(float results as '<f8', i32 results as '<i4').\n"
    "\n"
    "  --entry NAME             the function to run\n"
    "  --input ARG=FILE.npy     an argument, named argN (position) or by its task.name; float arguments take\n"
    "                           '<f4' or '<f8' arrays, i32 arguments '<i4'; the shape must match exactly\n"
    "  --init SEED              fill every task.param argument not given by the initialisation rule of\n"
    "                           docs/task-dialect.md (task.init, task.init_std)\n"
    "  --random-inputs SEED     fill every other argument not given by the same rule (i32 arguments need\n"
    "                           task.range = R : i64 and get values in [0, R))\n"
    "  --emulate=fp32|bf16      round every stored float tensor at op boundaries: fp32 rounds all to f32,\n"
    "                           bf16 rounds to the declared dtype (bf16 or f32; f64 stays f64)\n"
    "  --output-dir DIR         where the results go (created if missing)\n"
    "  --help                   show this text\n";

#define MAX_INPUTS 256

typedef struct input_spec {
  const char *name; /* points into argv; the text before '=' */
  size_t name_length;
  const char *path;
} input_spec;

typedef struct options {
  const char *program;
  const char *entry;
  const char *output_dir;
  input_spec inputs[MAX_INPUTS];
  int input_count;
  bool has_init, has_random;
  uint64_t init_seed, random_seed;
  latch_emulate emulate;
} options;

static bool error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fputs("latch-interp: error: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  return false;
}

static bool parse_seed(const char *flag, const char *text, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 0);
  if (!*text || *text == '-' || *end || errno == ERANGE)
    return error("%s needs an unsigned 64-bit integer, not '%s'", flag, text);
  *out = (uint64_t)value;
  return true;
}

/* The value of `--flag VALUE` or `--flag=VALUE`; NULL when `arg` is not that flag. */
static const char *flag_value(const char *flag, int argc, char **argv, int *i, bool *missing) {
  size_t n = strlen(flag);
  const char *arg = argv[*i];
  if (strncmp(arg, flag, n) != 0)
    return NULL;
  if (arg[n] == '=')
    return arg + n + 1;
  if (arg[n] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    *missing = true;
    return NULL;
  }
  return argv[++*i];
}

/* Returns 0 when the options parse, 1 (after one `error:` line) when they do not, 2 for --help. */
static int parse_arguments(int argc, char **argv, options *out) {
  memset(out, 0, sizeof(*out));
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i], *value;
    bool missing = false;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(usage, stdout);
      return 2;
    } else if ((value = flag_value("--entry", argc, argv, &i, &missing))) {
      out->entry = value;
    } else if ((value = flag_value("--output-dir", argc, argv, &i, &missing))) {
      out->output_dir = value;
    } else if ((value = flag_value("--input", argc, argv, &i, &missing))) {
      const char *eq = strchr(value, '=');
      if (!eq || eq == value || !eq[1])
        return error("--input needs ARG=FILE.npy, not '%s'", value), 1;
      if (out->input_count == MAX_INPUTS)
        return error("more than %d --input options", MAX_INPUTS), 1;
      out->inputs[out->input_count++] = (input_spec){value, (size_t)(eq - value), eq + 1};
    } else if ((value = flag_value("--init", argc, argv, &i, &missing))) {
      if (!parse_seed("--init", value, &out->init_seed))
        return 1;
      out->has_init = true;
    } else if ((value = flag_value("--random-inputs", argc, argv, &i, &missing))) {
      if (!parse_seed("--random-inputs", value, &out->random_seed))
        return 1;
      out->has_random = true;
    } else if ((value = flag_value("--emulate", argc, argv, &i, &missing))) {
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
  if (!out->output_dir)
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

/* Gives every argument a tensor: --input first, then --init / --random-inputs. */
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
    if (!load_input(a, spec, &non_finite))
      return false;
  }
  for (intptr_t k = 0; k < count; ++k) {
    argument *a = &args[k];
    if (a->tensor)
      continue;
    if (a->is_param && opts->has_init) {
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

/* mkdir -p `path`. */
static bool make_directory(const char *path) {
  char buffer[4096];
  size_t length = strlen(path);
  if (length == 0 || length >= sizeof(buffer))
    return error("bad output directory '%s'", path);
  memcpy(buffer, path, length + 1);
  for (size_t i = 1; i <= length; ++i) {
    if (buffer[i] != '/' && buffer[i] != '\0')
      continue;
    char saved = buffer[i];
    buffer[i] = '\0';
    struct stat info;
    if (stat(buffer, &info) != 0) {
      if (mkdir(buffer, 0777) != 0 && errno != EEXIST)
        return error("cannot create '%s': %s", buffer, strerror(errno));
    } else if (!S_ISDIR(info.st_mode)) {
      return error("'%s' is not a directory", buffer);
    }
    buffer[i] = saved;
  }
  return true;
}

static bool write_results(const char *dir, latch_tensor **results, intptr_t count) {
  if (!make_directory(dir))
    return false;
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

/* ---- Main ---- */

static bool run(const options *opts, MlirContext context, const latch_source *source) {
  latch_diagnostic_sink sink;
  latch_diagnostic_sink_attach(&sink, context, stderr, source->display_name);
  bool ok = false;
  MlirModule module = latch_source_parse(context, source->text, source->length);
  if (!mlirModuleIsNull(module)) {
    MlirOperation func =
        latch_interp_find_func(mlirModuleGetOperation(module), mlirStringRefCreateFromCString(opts->entry));
    argument *args = NULL;
    intptr_t arg_count = 0;
    if (mlirOperationIsNull(func))
      error("no function @%s in '%s'", opts->entry, source->display_name);
    else if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
      error("@%s in '%s' is a declaration without a body", opts->entry, source->display_name);
    else if (read_arguments(func, &args, &arg_count) && bind_arguments(opts, func, args, arg_count)) {
      const latch_tensor **tensors = calloc((size_t)arg_count + 1, sizeof(*tensors));
      if (!tensors) {
        error("out of memory");
      } else {
        for (intptr_t k = 0; k < arg_count; ++k)
          tensors[k] = args[k].tensor;
        latch_interp_options interp_options = {.emulate = opts->emulate};
        intptr_t result_count = 0;
        latch_tensor **results = NULL;
        if (latch_interp_call(func, &interp_options, arg_count, tensors, &result_count, &results))
          ok = write_results(opts->output_dir, results, result_count);
        latch_interp_results_free(results, result_count);
        free(tensors);
      }
    }
    free_arguments(args, arg_count);
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
