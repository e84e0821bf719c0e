/* latch-run.c - runs a compiled Latch program (PTX or cubin plus FILE.manifest.json from `latch-opt
 * --emit=ptx`) on a GPU through the CUDA driver (runtime/): fills the arguments like latch-interp (--init,
 * --random-inputs, --input, --data), runs N updates as N cooperative launches of the persistent kernel
 * (a CUDA graph of its parts and the kernels between them when the manifest lists "launches"; with
 * --mode=staged, N launches of a CUDA graph of one kernel per interval),
 * prints every update's loss and the median update time, and optionally writes a per-CTA trace, every
 * buffer and the manifest's probes (task results such as the routing, read from the arena) as .npy. Needs only libcuda at run time (loaded with dlopen), no LLVM or MLIR. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/host.h"
#include "../runtime/manifest.h"
#include "../runtime/program.h"
#include "../runtime/status.h"
#include "../runtime/trace.h"
#include "../support/cli.h"
#include "../support/init.h"
#include "../support/npy.h"

static const char usage[] =
    "usage: latch-run PROG.ptx --steps N [options]\n"
    "\n"
    "Runs N updates of the compiled program PROG.ptx (PTX text, or a cubin) on the GPU, as described by\n"
    "PROG.ptx.manifest.json beside it (docs/device-abi.md). Prints 'step K loss L' per update (the result\n"
    "named \"loss\", else result 0 when it is a scalar; L is the loss before update K's parameter change,\n"
    "as latch-interp --train-steps prints it) and the median update time (CUDA events around each launch).\n"
    "Arguments are filled exactly as latch-interp fills them, so the two can be compared bit for bit.\n"
    "\n"
    "  --steps N                updates to run (one cooperative launch each, or one graph of the\n"
    "                           manifest's \"launches\")\n"
    "  --init SEED              fill every \"param\" argument not given by --input by the initialisation rule\n"
    "                           of docs/task-dialect.md (bit-identical to latch-interp --init SEED)\n"
    "  --random-inputs SEED     fill every \"input\" argument not given by the same rule (latch-interp\n"
    "                           --random-inputs SEED); \"state\" arguments (m, v) always follow their init rule\n"
    "  --input NAME=FILE.npy    an argument by its manifest name or as argN; float arguments take '<f4' or\n"
    "                           '<f8' (rounded to the argument's dtype), i32 arguments '<i4'; exact shape\n"
    "  --data TOKENS.npy        an int32 [S] token stream: update K takes the inputs \"tokens\" [B, T] and\n"
    "                           \"targets\" [B*T] from positions o .. o+B*T (targets one further),\n"
    "                           o = (K-1)*B*T, wrapping around (as latch-interp --train-steps --data)\n"
    "  --dump-dir DIR           after the last update, write every argument as DIR/<name>.npy and every\n"
    "                           result as DIR/result<R>.npy (floats as '<f4', bf16 widened exactly; i32 '<i4')\n"
    "  --probe-dir DIR          write every probe of the manifest (task results in the arena, e.g. each\n"
    "                           task.topk's values and indices: docs/device-abi.md \"Probes\") as\n"
    "                           DIR/<name>.npy, read during the last update: with --mode=staged right after\n"
    "                           the staged kernel that writes it (that update's kernels are then launched one\n"
    "                           by one instead of as the graph); with --mode=persistent after the update,\n"
    "                           which needs every probe to be intact at its end (\"intact_at_end\")\n"
    "  --trace FILE.json        trace the last update: write a Chrome/Perfetto trace (one track per SM when\n"
    "                           every CTA has an SM of its own, else one per CTA) and print the share of\n"
    "                           CTA time spent waiting at grid barriers, overall and per interval kind\n"
    "                           (the interval name after its first '.', up to a '+'), and the\n"
    "                           intervals of the longest span (first entry to last exit)\n"
    "  --trace-slowest N        how many of those intervals to list (default 12; 0: none)\n"
    "  --mode=persistent        one persistent kernel per update, cooperatively launched (the default)\n"
    "  --mode=staged            the same-tiles control: each interval (wave) as its own kernel, the\n"
    "                           manifest's \"staged_kernels\" (latch-lower-intervals{staged=true}), launched\n"
    "                           in order on the same grid with programmatic dependent launch, as one CUDA\n"
    "                           graph per update (docs/device-abi.md \"Staged control\")\n"
    "  --manifest FILE          the manifest (default: PROG.ptx.manifest.json)\n"
    "  --grid N                 CTAs to launch (default: SMs x the CTAs that fit on one SM)\n"
    "  --device N               the CUDA device (default 0)\n"
    "  --timeout SECONDS        an update running longer is an error (default 60; 0: no limit)\n"
    "  --dry-run                use no GPU: read the manifest, program and inputs and fill the arguments;\n"
    "                           with --dump-dir, write the arguments that update N (--steps N, default 1)\n"
    "                           would get (parameters and state as initialised); with --probe-dir, print\n"
    "                           where and when each probe would be read (and write nothing)\n"
    "  --verbose                print the JIT info log (registers, spills) and the buffer sizes\n"
    "  --help                   show this text\n"
    "\n"
    "The CUDA driver is loaded at run time from libcuda.so.1, or from $LATCH_CUDA_DRIVER when set.\n";

#define MAX_INPUTS 256

typedef struct input_spec {
  const char *name; /* points into argv; the text before '=' */
  size_t name_length;
  const char *path;
} input_spec;

typedef struct options {
  const char *program;
  const char *manifest;
  int64_t steps;
  bool has_init, has_random;
  uint64_t init_seed, random_seed;
  input_spec inputs[MAX_INPUTS];
  int input_count;
  const char *data;
  const char *dump_dir;
  const char *probe_dir;
  const char *trace;
  int64_t trace_slowest;
  int64_t grid;
  int64_t device;
  double timeout;
  bool dry_run, verbose;
  bool staged; /* --mode=staged */
} options;

static const char tool[] = "latch-run";

static bool error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  latch_cli_verror(tool, format, args);
  va_end(args);
  return false;
}

static bool parse_seconds(const char *flag, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (!*text || *end || errno == ERANGE || !(value >= 0.0) || value > 1e9)
    return error("%s needs a number of seconds (0: no limit), not '%s'", flag, text);
  *out = value;
  return true;
}

/* Returns 0 when the options parse, 1 (after one `error:` line) when they do not, 2 for --help. */
static int parse_arguments(int argc, char **argv, options *out) {
  memset(out, 0, sizeof(*out));
  out->trace_slowest = LATCH_TRACE_SLOWEST;
  out->timeout = 60.0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i], *value;
    bool missing = false;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(usage, stdout);
      return 2;
    } else if (strcmp(arg, "--dry-run") == 0) {
      out->dry_run = true;
    } else if (strcmp(arg, "--verbose") == 0) {
      out->verbose = true;
    } else if ((value = latch_cli_flag_value("--steps", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_integer(tool, "--steps", value, 1, INT32_MAX, &out->steps))
        return 1;
    } else if ((value = latch_cli_flag_value("--init", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_seed(tool, "--init", value, &out->init_seed))
        return 1;
      out->has_init = true;
    } else if ((value = latch_cli_flag_value("--random-inputs", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_seed(tool, "--random-inputs", value, &out->random_seed))
        return 1;
      out->has_random = true;
    } else if ((value = latch_cli_flag_value("--input", argc, argv, &i, &missing))) {
      const char *eq = strchr(value, '=');
      if (!eq || eq == value || !eq[1])
        return error("--input needs NAME=FILE.npy, not '%s'", value), 1;
      if (out->input_count == MAX_INPUTS)
        return error("more than %d --input options", MAX_INPUTS), 1;
      out->inputs[out->input_count++] = (input_spec){value, (size_t)(eq - value), eq + 1};
    } else if ((value = latch_cli_flag_value("--data", argc, argv, &i, &missing))) {
      out->data = value;
    } else if ((value = latch_cli_flag_value("--dump-dir", argc, argv, &i, &missing))) {
      out->dump_dir = value;
    } else if ((value = latch_cli_flag_value("--probe-dir", argc, argv, &i, &missing))) {
      out->probe_dir = value;
    } else if ((value = latch_cli_flag_value("--trace", argc, argv, &i, &missing))) {
      out->trace = value;
    } else if ((value = latch_cli_flag_value("--trace-slowest", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_integer(tool, "--trace-slowest", value, 0, INT32_MAX, &out->trace_slowest))
        return 1;
    } else if ((value = latch_cli_flag_value("--manifest", argc, argv, &i, &missing))) {
      out->manifest = value;
    } else if ((value = latch_cli_flag_value("--mode", argc, argv, &i, &missing))) {
      if (strcmp(value, "persistent") == 0)
        out->staged = false;
      else if (strcmp(value, "staged") == 0)
        out->staged = true;
      else
        return error("--mode takes 'persistent' or 'staged', not '%s'", value), 1;
    } else if ((value = latch_cli_flag_value("--grid", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_integer(tool, "--grid", value, 1, INT32_MAX, &out->grid))
        return 1;
    } else if ((value = latch_cli_flag_value("--device", argc, argv, &i, &missing))) {
      if (!latch_cli_parse_integer(tool, "--device", value, 0, 1023, &out->device))
        return 1;
    } else if ((value = latch_cli_flag_value("--timeout", argc, argv, &i, &missing))) {
      if (!parse_seconds("--timeout", value, &out->timeout))
        return 1;
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
  if (!out->steps && !out->dry_run)
    return error("no --steps given"), 1;
  if (out->dry_run && (out->trace || out->grid))
    return error("--dry-run uses no GPU; it does not take --trace or --grid"), 1;
  if (!out->steps)
    out->steps = 1;
  return 0;
}

/* ---- Files ---- */

/* mkdir -p `path`. */
static latch_status make_directory(const char *path) {
  char message[4400];
  if (!latch_cli_make_directory(path, message, sizeof(message)))
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "%s", message);
  return latch_ok_status();
}

/* DIR/<name>.npy with every character outside [A-Za-z0-9._-] of the name replaced by '_'. */
static void dump_path(const char *dir, const char *name, char *out, size_t size) {
  size_t used = (size_t)snprintf(out, size, "%s/", dir);
  for (const char *s = name; *s && used + 5 < size; ++s) {
    char c = *s;
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '_' || c == '-';
    out[used++] = plain ? c : '_';
  }
  snprintf(out + used, size - used, ".npy");
}

static latch_status write_npy(const char *path, const latch_manifest_tensor *tensor, const void *bytes) {
  latch_npy_array array;
  LATCH_RETURN_IF_ERROR(latch_host_to_npy(tensor, bytes, &array), "writing '%s'", path);
  char message[512];
  bool ok = latch_npy_write(path, &array, message, sizeof(message));
  latch_npy_array_deinitialize(&array);
  if (!ok)
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "%s", message);
  return latch_ok_status();
}

static latch_status read_npy(const char *path, latch_npy_array *out) {
  char message[512];
  if (!latch_npy_read(path, out, message, sizeof(message)))
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "%s", message);
  return latch_ok_status();
}

/* ---- Arguments ---- */

typedef enum source_kind { FROM_INPUT, FROM_STEP, FROM_DATA, FROM_RULE } source_kind;

typedef struct source {
  source_kind kind;
  const input_spec *input; /* FROM_INPUT */
  int64_t shift;           /* FROM_DATA: 0 for tokens, 1 for targets */
  uint64_t seed, p;        /* FROM_RULE */
  const char *flag;        /* FROM_RULE: the option that asked for it */
} source;

typedef struct run_state {
  const options *opts;
  latch_manifest manifest;
  char manifest_path[4096];
  char *image;
  size_t image_size;
  source *sources;
  latch_npy_array stream; /* --data */
  bool has_stream;
  int64_t step_arg;       /* -1 when the program has none */
  int64_t loss_result;    /* -1 when there is no scalar loss */
  latch_program program;
  bool has_program;
  void **images;          /* host image per argument (NULL once uploaded) */
  void **probes;          /* --probe-dir: host buffer per probe of the manifest */
} run_state;

static bool is_float(latch_dtype dtype) { return dtype != LATCH_DTYPE_I32; }

static bool name_is(const latch_manifest_arg *arg, const char *name) { return strcmp(arg->tensor.name, name) == 0; }

/* Decides where every argument comes from, checking the options against the manifest. */
static latch_status plan_arguments(run_state *s) {
  const options *o = s->opts;
  const latch_manifest *m = &s->manifest;
  s->sources = calloc((size_t)m->arg_count + 1, sizeof(source));
  bool *given = calloc((size_t)m->arg_count + 1, sizeof(bool));
  if (!s->sources || !given) {
    free(given);
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  latch_status status = latch_ok_status();
  s->step_arg = -1;
  const latch_manifest_arg *tokens = NULL, *targets = NULL;
  for (int64_t k = 0; k < m->arg_count; ++k) {
    const latch_manifest_arg *a = &m->args[k];
    if (a->role == LATCH_ROLE_STEP) {
      s->step_arg = k;
      s->sources[k].kind = FROM_STEP;
      given[k] = true;
    }
    if (o->data && a->role == LATCH_ROLE_INPUT && name_is(a, "tokens"))
      tokens = a;
    if (o->data && a->role == LATCH_ROLE_INPUT && name_is(a, "targets"))
      targets = a;
  }
  if (o->data) {
    if (!tokens || !targets) {
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                                 "--data needs input arguments named \"tokens\" and \"targets\"; the program lacks %s",
                                 tokens ? "\"targets\"" : "\"tokens\"");
    } else if (tokens->tensor.dtype != LATCH_DTYPE_I32 || tokens->tensor.rank != 2 ||
               targets->tensor.dtype != LATCH_DTYPE_I32 || targets->tensor.rank != 1 ||
               targets->tensor.shape[0] != tokens->tensor.count) {
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                                 "--data needs i32 arguments tokens [B, T] and targets [B*T]");
    } else if (!(status = read_npy(o->data, &s->stream))) {
      s->has_stream = true;
      if (s->stream.dtype != LATCH_NPY_I32 || s->stream.rank != 1 || s->stream.count < 1)
        status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                                   "--data '%s' must hold a non-empty int32 [S] array ('<i4', rank 1)", o->data);
    }
    if (status)
      status = latch_status_annotate(status, __FILE__, __LINE__, "reading --data");
    else {
      s->sources[tokens->index] = (source){.kind = FROM_DATA, .shift = 0};
      s->sources[targets->index] = (source){.kind = FROM_DATA, .shift = 1};
      given[tokens->index] = given[targets->index] = true;
    }
  }
  for (int i = 0; !status && i < o->input_count; ++i) {
    const input_spec *spec = &o->inputs[i];
    const latch_manifest_arg *a = latch_manifest_find_arg(m, spec->name, spec->name_length);
    if (!a)
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                                 "--input '%.*s': the program has no argument of that name (use argN or the "
                                 "manifest name)",
                                 (int)spec->name_length, spec->name);
    else if (s->sources[a->index].kind == FROM_STEP || s->sources[a->index].kind == FROM_DATA)
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                                 "argument '%s' (arg%lld) is set by %s; do not give it with --input", a->tensor.name,
                                 (long long)a->index,
                                 s->sources[a->index].kind == FROM_STEP ? "the update counter" : "--data");
    else if (given[a->index])
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "argument '%s' (arg%lld) is given more than once",
                                 a->tensor.name, (long long)a->index);
    else {
      s->sources[a->index] = (source){.kind = FROM_INPUT, .input = spec};
      given[a->index] = true;
    }
  }
  for (int64_t k = 0; !status && k < m->arg_count; ++k) {
    const latch_manifest_arg *a = &m->args[k];
    if (given[k])
      continue;
    source *src = &s->sources[k];
    src->kind = FROM_RULE;
    if (a->role == LATCH_ROLE_STATE) {
      /* As latch-interp --train-steps: optimizer state follows its own init rule (zeros) by itself. */
      *src = (source){.kind = FROM_RULE, .seed = o->has_random ? o->random_seed : 0,
                      .p = LATCH_INIT_INPUT_BASE + (uint64_t)k, .flag = "the state init rule"};
    } else if (a->role == LATCH_ROLE_PARAM && o->has_init) {
      *src = (source){.kind = FROM_RULE, .seed = o->init_seed, .p = (uint64_t)a->param_index, .flag = "--init"};
    } else if (a->role == LATCH_ROLE_INPUT && o->has_random) {
      *src = (source){.kind = FROM_RULE, .seed = o->random_seed, .p = LATCH_INIT_INPUT_BASE + (uint64_t)k,
                      .flag = "--random-inputs"};
    } else {
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "missing argument '%s' (arg%lld): give --input %s=FILE.npy or %s SEED",
                                 a->tensor.name, (long long)k, a->tensor.name,
                                 a->role == LATCH_ROLE_PARAM ? "--init" : "--random-inputs");
    }
    if (!status && src->kind == FROM_RULE && a->tensor.dtype == LATCH_DTYPE_I32 && a->range < 1)
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                                 "argument '%s' (arg%lld) is i32 and has no range, so %s cannot fill it; give "
                                 "--input %s=FILE.npy",
                                 a->tensor.name, (long long)k, src->flag, a->tensor.name);
  }
  free(given);
  return status;
}

/* The result the loss is read from: the one named "loss", else result 0 when it is a float scalar. */
static int64_t find_loss(const latch_manifest *m) {
  for (int64_t r = 0; r < m->result_count; ++r)
    if (strcmp(m->results[r].tensor.name, "loss") == 0 && m->results[r].tensor.count == 1 &&
        is_float(m->results[r].tensor.dtype))
      return r;
  if (m->result_count > 0 && m->results[0].tensor.rank == 0 && is_float(m->results[0].tensor.dtype))
    return 0;
  return -1;
}

/* Builds every argument's host image for update `update` (parameters and state as initialised). */
static latch_status build_images(run_state *s, int64_t update) {
  const latch_manifest *m = &s->manifest;
  s->images = calloc((size_t)m->arg_count + 1, sizeof(void *));
  if (!s->images)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t k = 0; k < m->arg_count; ++k) {
    const latch_manifest_arg *a = &m->args[k];
    const source *src = &s->sources[k];
    void *image = s->images[k] = calloc(1, a->tensor.bytes ? (size_t)a->tensor.bytes : 1);
    if (!image)
      return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory for argument '%s' (%lld bytes)",
                               a->tensor.name, (long long)a->tensor.bytes);
    switch (src->kind) {
    case FROM_STEP:
      latch_host_write_step(&a->tensor, update, image);
      break;
    case FROM_DATA:
      latch_host_data_window(s->stream.data, s->stream.count, update, a->tensor.count, src->shift, image);
      break;
    case FROM_RULE:
      LATCH_RETURN_IF_ERROR(latch_host_fill_by_rule(a, src->seed, src->p, src->flag, image),
                            "filling argument '%s'", a->tensor.name);
      break;
    case FROM_INPUT: {
      latch_npy_array array;
      LATCH_RETURN_IF_ERROR(read_npy(src->input->path, &array), "reading --input %.*s",
                            (int)src->input->name_length, src->input->name);
      latch_status status = latch_host_from_npy(&a->tensor, &array, src->input->path, image);
      latch_npy_array_deinitialize(&array);
      LATCH_RETURN_IF_ERROR(status, "reading --input %.*s", (int)src->input->name_length, src->input->name);
      break;
    }
    }
  }
  return latch_ok_status();
}

static latch_status dump_arguments_from_host(run_state *s, const char *dir) {
  LATCH_RETURN_IF_ERROR(make_directory(dir), "writing --dump-dir");
  for (int64_t k = 0; k < s->manifest.arg_count; ++k) {
    char path[4400];
    dump_path(dir, s->manifest.args[k].tensor.name, path, sizeof(path));
    LATCH_RETURN_IF_ERROR(write_npy(path, &s->manifest.args[k].tensor, s->images[k]), "writing --dump-dir");
  }
  return latch_ok_status();
}

static latch_status dump_from_device(run_state *s, const char *dir) {
  const latch_manifest *m = &s->manifest;
  LATCH_RETURN_IF_ERROR(make_directory(dir), "writing --dump-dir");
  for (int64_t k = 0; k < m->arg_count + m->result_count; ++k) {
    bool is_arg = k < m->arg_count;
    int64_t r = k - m->arg_count;
    const latch_manifest_tensor *t = is_arg ? &m->args[k].tensor : &m->results[r].tensor;
    void *bytes = malloc(t->bytes ? (size_t)t->bytes : 1);
    if (!bytes)
      return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory for '%s'", t->name);
    char path[4400], name[32];
    latch_status status = is_arg ? latch_program_read_arg(&s->program, k, bytes)
                                 : latch_program_read_result(&s->program, r, bytes);
    if (!status) {
      if (is_arg) {
        dump_path(dir, t->name, path, sizeof(path));
      } else {
        snprintf(name, sizeof(name), "result%lld", (long long)r);
        dump_path(dir, name, path, sizeof(path));
      }
      status = write_npy(path, t, bytes);
    }
    free(bytes);
    LATCH_RETURN_IF_ERROR(status, "writing --dump-dir");
  }
  return latch_ok_status();
}

static latch_status write_trace(run_state *s) {
  latch_program *p = &s->program;
  uint64_t *trace = malloc((size_t)p->trace_words * sizeof(uint64_t));
  if (!trace)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory for the trace");
  latch_status status = latch_program_read_trace(p, trace);
  if (!status) {
    /* The staged kernels record no SM (docs/device-abi.md "Trace"). */
    bool any_sm = false;
    for (int c = 0; c < p->grid && !any_sm; ++c)
      any_sm = latch_trace_cta_sm(&s->manifest, p->grid, trace, c) >= 0;
    const char *tracks = !any_sm ? "one track per CTA (no SM recorded)"
                         : latch_trace_one_cta_per_sm(&s->manifest, p->grid, trace)
                             ? "one track per SM"
                             : "one track per CTA, named and sorted by SM";
    char label[512];
    snprintf(label, sizeof(label), "%s on %s: %d CTAs (%d per SM, %d SMs); %s", s->opts->program, p->device_name,
             p->grid, p->ctas_per_sm, p->sm_count, tracks);
    status = latch_trace_write_json(s->opts->trace, &s->manifest, p->grid, trace, label);
  }
  latch_trace_report report;
  if (!status && !(status = latch_trace_analyse(&s->manifest, p->grid, trace, &report))) {
    latch_trace_report_print(stdout, &report, s->opts->trace_slowest);
    latch_trace_tasks_print(stdout, &s->manifest, p->grid, trace, s->opts->trace_slowest);
    latch_trace_report_deinitialize(&report);
  }
  free(trace);
  LATCH_RETURN_IF_ERROR(status, "writing --trace '%s'", s->opts->trace);
  return latch_ok_status();
}

/* ---- Probes ---- */

/* --probe-dir: the manifest has probes, and in persistent mode (read after the update) every one of them
 * is still intact when the update ends. */
static latch_status check_probes(const run_state *s) {
  const latch_manifest *m = &s->manifest;
  if (m->probe_count == 0)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION,
                             "--probe-dir: the manifest lists no \"probes\" (the program has no probed task results, "
                             "or was compiled before latch-lower-intervals wrote them)");
  if (s->opts->staged)
    return latch_ok_status();
  for (int64_t j = 0; j < m->probe_count; ++j) {
    const latch_manifest_probe *probe = &m->probes[j];
    if (!probe->intact_at_end)
      return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION,
                               "--probe-dir with --mode=persistent reads the probes after the update, but probe '%s' "
                               "(written in interval %lld '%s') is overwritten later in the update; --mode=staged "
                               "reads it right after the kernel that writes it",
                               probe->tensor.name, (long long)probe->interval, m->intervals[probe->interval].name);
  }
  return latch_ok_status();
}

/* --dry-run --probe-dir: where and when each probe would be read. */
static void print_probe_plan(const run_state *s) {
  const latch_manifest *m = &s->manifest;
  for (int64_t j = 0; j < m->probe_count; ++j) {
    const latch_manifest_probe *probe = &m->probes[j];
    printf("probe %s: %s [", probe->tensor.name, latch_dtype_name(probe->tensor.dtype));
    for (int d = 0; d < probe->tensor.rank; ++d)
      printf(d ? ", %lld" : "%lld", (long long)probe->tensor.shape[d]);
    printf("] at arena offset %lld, %s result %lld, interval %lld '%s'; read ", (long long)probe->arena_offset,
           probe->op, (long long)probe->result, (long long)probe->interval, m->intervals[probe->interval].name);
    if (s->opts->staged)
      printf("after staged kernel %lld '%s'\n", (long long)probe->staged_kernel, m->staged_kernels[probe->staged_kernel]);
    else
      printf("after the update\n");
  }
}

static latch_status allocate_probes(run_state *s) {
  const latch_manifest *m = &s->manifest;
  s->probes = calloc((size_t)m->probe_count + 1, sizeof(void *));
  if (!s->probes)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t j = 0; j < m->probe_count; ++j)
    if (!(s->probes[j] = calloc(1, m->probes[j].tensor.bytes ? (size_t)m->probes[j].tensor.bytes : 1)))
      return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory for probe '%s' (%lld bytes)",
                               m->probes[j].tensor.name, (long long)m->probes[j].tensor.bytes);
  return latch_ok_status();
}

static latch_status write_probes(run_state *s, int64_t update) {
  const latch_manifest *m = &s->manifest;
  const char *dir = s->opts->probe_dir;
  LATCH_RETURN_IF_ERROR(make_directory(dir), "writing --probe-dir");
  for (int64_t j = 0; j < m->probe_count; ++j) {
    char path[4400];
    dump_path(dir, m->probes[j].tensor.name, path, sizeof(path));
    LATCH_RETURN_IF_ERROR(write_npy(path, &m->probes[j].tensor, s->probes[j]), "writing --probe-dir");
  }
  printf("probes: %lld values of update %lld written to %s (%s)\n", (long long)m->probe_count, (long long)update, dir,
         s->opts->staged ? "each after its staged kernel; that update's kernels ran one by one, not as the graph"
                         : "after the update");
  return latch_ok_status();
}

static latch_status run_updates(run_state *s) {
  const options *o = s->opts;
  const latch_manifest *m = &s->manifest;
  latch_program *p = &s->program;
  int64_t arena_kib = (m->arena_bytes + 1023) / 1024;
  printf("device: %s (sm_%d%d, %d SMs), driver %d.%d; kernel %s: %d registers, %d CTAs per SM, grid %d x %d "
         "threads; arena %lld KiB\n",
         p->device_name, p->compute_major, p->compute_minor, p->sm_count, p->driver_version / 1000,
         (p->driver_version % 1000) / 10, m->kernel, p->registers, p->ctas_per_sm, p->grid,
         m->block[0] * m->block[1] * m->block[2], (long long)arena_kib);
  if (o->staged)
    printf("mode staged: %lld kernels (%s ... %s) as one CUDA graph per update, programmatic dependent launch\n",
           (long long)m->staged_kernel_count, m->staged_kernels[0], m->staged_kernels[m->staged_kernel_count - 1]);
  else if (m->launch_count > 0)
    printf("mode persistent: %lld launches (parts of %s between the kernels of intervals that run apart) as one "
           "CUDA graph per update\n",
           (long long)m->launch_count, m->kernel);
  if (o->verbose && p->jit_info_log[0])
    printf("JIT info log:\n%s\n", p->jit_info_log);
  for (int64_t k = 0; k < m->arg_count; ++k) {
    LATCH_RETURN_IF_ERROR(latch_program_write_arg(p, k, s->images[k]), "setting up the arguments");
    if (s->sources[k].kind != FROM_STEP && s->sources[k].kind != FROM_DATA) {
      free(s->images[k]);
      s->images[k] = NULL;
    }
  }
  double *times = calloc((size_t)o->steps, sizeof(double));
  if (!times)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  latch_status status = latch_ok_status();
  unsigned char loss_bytes[8];
  for (int64_t step = 1; step <= o->steps && !status; ++step) {
    for (int64_t k = 0; k < m->arg_count && step > 1 && !status; ++k) {
      const source *src = &s->sources[k];
      if (src->kind == FROM_STEP)
        latch_host_write_step(&m->args[k].tensor, step, s->images[k]);
      else if (src->kind == FROM_DATA)
        latch_host_data_window(s->stream.data, s->stream.count, step, m->args[k].tensor.count, src->shift,
                               s->images[k]);
      else
        continue;
      status = latch_program_write_arg(p, k, s->images[k]);
    }
    bool probed = o->probe_dir && step == o->steps;
    if (!status && probed && o->staged)
      status = latch_program_launch_probed(p, o->trace && step == o->steps, s->probes, &times[step - 1]);
    else if (!status)
      status = latch_program_launch(p, o->trace && step == o->steps, &times[step - 1]);
    for (int64_t j = 0; !status && probed && !o->staged && j < m->probe_count; ++j)
      status = latch_program_read_probe(p, j, s->probes[j]);
    if (!status && s->loss_result >= 0)
      status = latch_program_read_result(p, s->loss_result, loss_bytes);
    if (status) {
      status = latch_status_annotate(status, __FILE__, __LINE__, "running update %lld of %lld", (long long)step,
                                     (long long)o->steps);
      break;
    }
    if (s->loss_result >= 0)
      printf("step %lld loss %.9g\n", (long long)step,
             latch_host_read_float(&m->results[s->loss_result].tensor, loss_bytes, 0));
    else
      printf("step %lld done\n", (long long)step);
    fflush(stdout);
  }
  if (!status) {
    double median = latch_sort_median(times, (size_t)o->steps);
    printf("median update time %.4f ms over %lld updates (min %.4f ms, max %.4f ms)\n", median, (long long)o->steps,
           times[0], times[o->steps - 1]);
  }
  free(times);
  if (!status && o->trace)
    status = write_trace(s);
  if (!status && o->dump_dir)
    status = dump_from_device(s, o->dump_dir);
  if (!status && o->probe_dir)
    status = write_probes(s, o->steps);
  return status;
}

/* Whether `image` is a cubin (ELF) or a fatbin (starts with 0xBA55ED50) rather than PTX text. */
static bool image_is_binary(const char *image, size_t size) {
  static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'}, fatbin[4] = {0x50, 0xED, 0x55, 0xBA};
  return size >= 4 && (memcmp(image, elf, 4) == 0 || memcmp(image, fatbin, 4) == 0);
}

/* PTX is text (NUL-terminated by latch_read_file); otherwise a cubin or fatbin. */
static latch_status check_image(const char *path, const char *image, size_t size) {
  if (image_is_binary(image, size))
    return latch_ok_status();
  if (memchr(image, '\0', size) || !strstr(image, ".version") || !strstr(image, ".entry"))
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT,
                             "'%s' is neither PTX text (with .version and .entry) nor a cubin or fatbin", path);
  return latch_ok_status();
}

/* The kernels that an update launches besides "kernel" exist: with --mode=staged the manifest's staged
 * kernels (it must list some), else its "launches" (docs/device-abi.md "Launches"), if any. After
 * check_image: PTX text is searched for each entry, a cubin or fatbin is not. */
static latch_status check_kernels(const char *path, const latch_manifest *m, bool staged, const char *image,
                                  size_t size) {
  if (staged && m->staged_kernel_count == 0)
    return LATCH_MAKE_STATUS(LATCH_STATUS_FAILED_PRECONDITION,
                             "--mode=staged: the manifest lists no \"staged_kernels\" (compile with "
                             "latch-lower-intervals{staged=true})");
  if (image_is_binary(image, size))
    return latch_ok_status();
  int64_t count = staged ? m->staged_kernel_count : m->launch_count;
  for (int64_t i = 0; i < count; ++i) {
    const char *name = staged ? m->staged_kernels[i] : m->launches[i].kernel;
    char entry[600];
    snprintf(entry, sizeof(entry), ".entry %s(", name);
    if (!strstr(image, entry))
      return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "%s'%s' has no kernel '%s' (%s[%lld] of the manifest)",
                               staged ? "--mode=staged: " : "", path, name, staged ? "staged_kernels" : "launches",
                               (long long)i);
  }
  return latch_ok_status();
}

static latch_status run(run_state *s) {
  const options *o = s->opts;
  if (o->manifest)
    snprintf(s->manifest_path, sizeof(s->manifest_path), "%s", o->manifest);
  else
    snprintf(s->manifest_path, sizeof(s->manifest_path), "%s.manifest.json", o->program);
  LATCH_RETURN_IF_ERROR(latch_manifest_load(s->manifest_path, &s->manifest), "reading the manifest of '%s'",
                        o->program);
  LATCH_RETURN_IF_ERROR(latch_read_file(o->program, (size_t)1 << 31, &s->image, &s->image_size),
                        "reading the program");
  LATCH_RETURN_IF_ERROR(check_image(o->program, s->image, s->image_size), "reading the program");
  LATCH_RETURN_IF_ERROR(check_kernels(o->program, &s->manifest, o->staged, s->image, s->image_size),
                        "reading the program");
  s->loss_result = find_loss(&s->manifest);
  if (o->probe_dir)
    LATCH_RETURN_IF_ERROR(check_probes(s), "reading the manifest of '%s'", o->program);
  LATCH_RETURN_IF_ERROR_AS_IS(plan_arguments(s));
  if (!o->dry_run) {
    /* The device first: a missing driver or a kernel that does not load is reported before the host
     * spends seconds initialising large parameters. */
    latch_program_options program_options = {.device_ordinal = (int)o->device, .grid = (int)o->grid,
                                             .tracing = o->trace != NULL, .staged = o->staged,
                                             .verbose_jit = o->verbose,
                                             .timeout_seconds = o->timeout};
    LATCH_RETURN_IF_ERROR(latch_program_initialize(&s->manifest, o->program, s->image, s->image_size,
                                                   &program_options, &s->program),
                          "setting up '%s'", o->program);
    s->has_program = true;
  }
  LATCH_RETURN_IF_ERROR_AS_IS(build_images(s, o->dry_run ? o->steps : 1));
  if (o->dry_run) {
    printf("dry run: %s: kernel %s, %lld intervals, %lld arguments, %lld results, arena %lld bytes\n", o->program,
           s->manifest.kernel, (long long)s->manifest.interval_count, (long long)s->manifest.arg_count,
           (long long)s->manifest.result_count, (long long)s->manifest.arena_bytes);
    if (o->staged) {
      printf("staged: %lld kernels, one graph per update:", (long long)s->manifest.staged_kernel_count);
      for (int64_t i = 0; i < s->manifest.staged_kernel_count; ++i)
        printf(" %s", s->manifest.staged_kernels[i]);
      printf("\n");
    } else if (s->manifest.launch_count > 0) {
      printf("launches: %lld kernels, one graph per update:", (long long)s->manifest.launch_count);
      for (int64_t i = 0; i < s->manifest.launch_count; ++i)
        printf(" %s%s", s->manifest.launches[i].kernel, s->manifest.launches[i].cooperative ? "" : " (apart)");
      printf("\n");
    }
    if (o->verbose)
      for (int64_t k = 0; k < s->manifest.arg_count; ++k) {
        const latch_manifest_arg *a = &s->manifest.args[k];
        static const char *const kinds[] = {"--input", "update counter", "--data", "init rule"};
        printf("  arg%lld %-6s %-24s %-4s %lld bytes from %s\n", (long long)k, latch_arg_role_name(a->role),
               a->tensor.name, latch_dtype_name(a->tensor.dtype), (long long)a->tensor.bytes,
               kinds[s->sources[k].kind]);
      }
    if (o->probe_dir)
      print_probe_plan(s);
    if (o->dump_dir)
      LATCH_RETURN_IF_ERROR_AS_IS(dump_arguments_from_host(s, o->dump_dir));
    return latch_ok_status();
  }
  if (o->probe_dir)
    LATCH_RETURN_IF_ERROR_AS_IS(allocate_probes(s));
  return run_updates(s);
}

int main(int argc, char **argv) {
  options *opts = malloc(sizeof(*opts));
  if (!opts)
    return 1;
  int parsed = parse_arguments(argc, argv, opts);
  if (parsed) {
    free(opts);
    return parsed == 2 ? 0 : 1;
  }
  run_state state;
  memset(&state, 0, sizeof(state));
  state.opts = opts;
  latch_status status = run(&state);
  if (status)
    latch_status_fprint(stderr, "latch-run: error: ", status);
  bool failed = status != NULL;
  latch_status_free(status);
  if (state.has_program)
    latch_program_deinitialize(&state.program);
  for (int64_t k = 0; state.images && k < state.manifest.arg_count; ++k)
    free(state.images[k]);
  free(state.images);
  for (int64_t j = 0; state.probes && j < state.manifest.probe_count; ++j)
    free(state.probes[j]);
  free(state.probes);
  free(state.sources);
  if (state.has_stream)
    latch_npy_array_deinitialize(&state.stream);
  free(state.image);
  latch_manifest_deinitialize(&state.manifest);
  free(opts);
  return failed ? 1 : 0;
}
