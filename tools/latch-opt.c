/* latch-opt.c - runs pass pipelines that mix Latch passes with upstream MLIR passes over .mlir input. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include "../dialects/dialects.h"
#include "../dialects/ops.h"
#include "../passes/pass.h"
#include "../support/diagnostics.h"
#include "../support/source.h"
#include "emit.h"
#include "emit_parts.h"

static const char usage[] =
    "usage: latch-opt [options] [INPUT.mlir | -]\n"
    "\n"
    "  --pass-pipeline='builtin.module(...)'  passes to run; Latch and upstream passes mix freely,\n"
    "                                         options in braces: latch-foo{threshold=4}\n"
    "  -o FILE                                write the result to FILE (default and `-o -`: stdout)\n"
    "  --split-input-file                     treat '// -----' lines as separators of independent inputs\n"
    "  --print-ir-after-all                   print the IR after every pass (to stderr)\n"
    "  --verify-each[=true|false]             run the MLIR verifier after every pass (default: true)\n"
    "  --list-passes                          list Latch passes, named pipelines and upstream passes\n"
    "  --stats=FILE.json                      time each top-level pipeline element and write the counts of\n"
    "                                         the result (tasks, intervals, arena bytes and lower bound); with\n"
    "                                         --emit also the times of lowering, translation and LLVM (O3 and\n"
    "                                         code generation) and the number of parts\n"
    "  --emit=ptx|llvm                        after the pipeline, lower gpu.module @latch and write PTX (sm_90a)\n"
    "                                         or optimised LLVM IR to the -o FILE, and its manifest to\n"
    "                                         FILE.manifest.json (docs/device-abi.md)\n"
    "  --emit-parts=N                         optimise and assemble PTX in N parts at once, one thread each\n"
    "                                         (1 to 16, default 2; the PTX depends on N, not on the machine)\n"
    "  --help                                 show this text\n";

typedef struct options {
  const char *input;
  const char *output;
  const char *pipeline;
  bool split_input_file;
  bool print_ir_after_all;
  bool verify_each;
  bool list_passes;
  const char *stats; /* --stats=FILE.json, or NULL */
  bool emit;         /* --emit=ptx|llvm */
  latch_emit_format emit_format;
  unsigned emit_parts; /* --emit-parts=N */
} options;

/* What --stats records: each top-level pipeline element with its wall time. */
#define MAX_STATS_PASSES 64
typedef struct pipeline_stats {
  latch_pipeline_element passes[MAX_STATS_PASSES];
  double ms[MAX_STATS_PASSES];
  size_t pass_count;
} pipeline_stats;

static const struct {
  const char *name, *summary;
} upstream_passes[] = {
#include "upstream_passes.inc"
};

static void ignore_message(MlirStringRef message, void *user_data) {
  (void)message;
  (void)user_data;
}

static int list_passes(MlirContext context) {
  printf("Latch passes:\n");
  for (size_t i = 0; i < latch_pass_count(); ++i) {
    const latch_pass_info *info = latch_pass_at(i);
    if (info->pipeline)
      continue;
    printf("  %-40s %s\n", info->name, info->summary);
    for (size_t j = 0; j < info->option_count; ++j) {
      const latch_pass_option *option = &info->options[j];
      char spec[128];
      snprintf(spec, sizeof(spec), "%s=%s", option->name, option->default_value);
      printf("      %-36s %s\n", spec, option->summary);
    }
  }
  printf("Latch pipelines:\n");
  for (size_t i = 0; i < latch_pass_count(); ++i) {
    const latch_pass_info *info = latch_pass_at(i);
    if (info->pipeline)
      printf("  %-40s %s (= %s)\n", info->name, info->summary, info->pipeline);
  }
  /* Only the upstream passes that this MLIR build actually registers (mlir-opt also has test passes). */
  printf("Upstream MLIR passes:\n");
  for (size_t i = 0; i < sizeof(upstream_passes) / sizeof(upstream_passes[0]); ++i) {
    MlirPassManager pm = mlirPassManagerCreate(context);
    MlirLogicalResult known = mlirOpPassManagerAddPipeline(
        mlirPassManagerGetAsOpPassManager(pm), mlirStringRefCreateFromCString(upstream_passes[i].name),
        ignore_message, NULL);
    mlirPassManagerDestroy(pm);
    if (mlirLogicalResultIsSuccess(known))
      printf("  %-40s %s\n", upstream_passes[i].name, upstream_passes[i].summary);
  }
  return 0;
}

/* Returns 0 when the options parse, 1 (after one `error:` line) when they do not, 2 for --help. */
static int parse_arguments(int argc, char **argv, options *out) {
  *out = (options){.input = NULL, .output = NULL, .pipeline = NULL, .verify_each = true,
                   .emit_parts = LATCH_EMIT_DEFAULT_PARTS};
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(usage, stdout);
      return 2;
    } else if (strncmp(arg, "--pass-pipeline=", 16) == 0) {
      out->pipeline = arg + 16;
    } else if (strcmp(arg, "--pass-pipeline") == 0 || strcmp(arg, "-o") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "latch-opt: error: %s needs a value\n", arg);
        return 1;
      }
      if (arg[1] == 'o')
        out->output = argv[++i];
      else
        out->pipeline = argv[++i];
    } else if (strcmp(arg, "--split-input-file") == 0) {
      out->split_input_file = true;
    } else if (strcmp(arg, "--print-ir-after-all") == 0) {
      out->print_ir_after_all = true;
    } else if (strcmp(arg, "--verify-each") == 0 || strcmp(arg, "--verify-each=true") == 0) {
      out->verify_each = true;
    } else if (strcmp(arg, "--verify-each=false") == 0) {
      out->verify_each = false;
    } else if (strcmp(arg, "--list-passes") == 0) {
      out->list_passes = true;
    } else if (strncmp(arg, "--stats=", 8) == 0 && arg[8] != '\0') {
      out->stats = arg + 8;
    } else if (strncmp(arg, "--emit=", 7) == 0) {
      if (strcmp(arg + 7, "ptx") != 0 && strcmp(arg + 7, "llvm") != 0) {
        fprintf(stderr, "latch-opt: error: --emit takes ptx or llvm, not '%s'\n", arg + 7);
        return 1;
      }
      out->emit = true;
      out->emit_format = arg[7] == 'p' ? LATCH_EMIT_PTX : LATCH_EMIT_LLVM;
    } else if (strncmp(arg, "--emit-parts=", 13) == 0) {
      char *end;
      unsigned long parts = strtoul(arg + 13, &end, 10);
      if (arg[13] < '0' || arg[13] > '9' || *end != '\0' || parts < 1 || parts > LATCH_EMIT_MAX_PARTS) {
        fprintf(stderr, "latch-opt: error: --emit-parts takes a number from 1 to %d, not '%s'\n", LATCH_EMIT_MAX_PARTS,
                arg + 13);
        return 1;
      }
      out->emit_parts = (unsigned)parts;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      fprintf(stderr, "latch-opt: error: unknown option '%s' (see --help)\n", arg);
      return 1;
    } else if (out->input) {
      fprintf(stderr, "latch-opt: error: more than one input file ('%s' and '%s')\n", out->input, arg);
      return 1;
    } else {
      out->input = arg;
    }
  }
  if (!out->input)
    out->input = "-";
  if (out->stats && out->split_input_file) {
    fprintf(stderr, "latch-opt: error: --stats describes one module; it cannot be combined with --split-input-file\n");
    return 1;
  }
  if (out->output && strcmp(out->output, "-") == 0)
    out->output = NULL; /* stdout */
  if (out->emit && (!out->output || out->split_input_file)) {
    fprintf(stderr, "latch-opt: error: --emit writes FILE and FILE.manifest.json: it needs -o FILE and one input "
                    "(no --split-input-file)\n");
    return 1;
  }
  return 0;
}

/* Builds a pass manager for `opts`; on a bad pipeline prints one `error:` line and returns null. */
static MlirPassManager create_pass_manager(MlirContext context, const options *opts,
                                           MlirOpPrintingFlags flags) {
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(context, mlirStringRefCreateFromCString("builtin.module"));
  mlirPassManagerEnableVerifier(pm, opts->verify_each);
  if (opts->print_ir_after_all)
    mlirPassManagerEnableIRPrinting(pm, false, true, true, false, false, flags,
                                    mlirStringRefCreateFromCString(""));
  if (opts->pipeline) {
    char error[1024];
    if (!latch_pipeline_parse(pm, opts->pipeline, error, sizeof(error))) {
      fprintf(stderr, "latch-opt: error: %s\n", error);
      mlirPassManagerDestroy(pm);
      return (MlirPassManager){NULL};
    }
  }
  return pm;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Runs the pipeline on `top`. With `stats`, each top-level element runs as its own pass manager so that
 * its wall time can be measured (MLIR's pass timing is not reachable through the C API). */
static bool run_pipeline(MlirContext context, const options *opts, MlirOpPrintingFlags flags,
                         MlirOperation top, pipeline_stats *stats) {
  if (!stats || !opts->pipeline) {
    MlirPassManager pm = create_pass_manager(context, opts, flags);
    if (mlirPassManagerIsNull(pm))
      return false;
    bool ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, top));
    mlirPassManagerDestroy(pm);
    return ok;
  }
  stats->pass_count = latch_pipeline_split(opts->pipeline, stats->passes, MAX_STATS_PASSES);
  if (stats->pass_count > MAX_STATS_PASSES) {
    fprintf(stderr, "latch-opt: error: --stats times at most %d top-level pipeline elements\n", MAX_STATS_PASSES);
    return false;
  }
  for (size_t i = 0; i < stats->pass_count; ++i) {
    char element[4096];
    snprintf(element, sizeof(element), "builtin.module(%.*s)", (int)stats->passes[i].length, stats->passes[i].text);
    options one = *opts;
    one.pipeline = element;
    MlirPassManager pm = create_pass_manager(context, &one, flags);
    if (mlirPassManagerIsNull(pm))
      return false;
    double start = now_ms();
    bool ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, top));
    stats->ms[i] = now_ms() - start;
    mlirPassManagerDestroy(pm);
    if (!ok)
      return false;
  }
  return true;
}

typedef struct module_counts {
  long long tasks, intervals, arena_bytes, arena_lower_bound_bytes;
} module_counts;

static MlirWalkResult count_op(MlirOperation op, void *user_data) {
  module_counts *counts = user_data;
  switch (latch_op_kind_of(op)) {
  case LATCH_OP_INTERVAL_INTERVAL: counts->intervals++; break;
  case LATCH_OP_ARENA_ARENA:
    counts->arena_bytes += latch_arena_size(op);
    counts->arena_lower_bound_bytes += latch_attr_int(op, "lower_bound", 0);
    break;
  default:
    if (latch_op_is_task(op))
      counts->tasks++;
  }
  return MlirWalkResultAdvance;
}

/* `emit_seconds`: the three phases of --emit (lowering, translation, LLVM), or NULL; `emit_parts`: its parts. */
static bool write_stats(const char *path, const pipeline_stats *stats, MlirOperation top, const double *emit_seconds,
                        unsigned emit_parts) {
  module_counts counts = {0, 0, 0, 0};
  mlirOperationWalk(top, count_op, &counts, MlirWalkPreOrder);
  FILE *file = fopen(path, "w");
  if (!file) {
    fprintf(stderr, "latch-opt: error: cannot write '%s': %s\n", path, strerror(errno));
    return false;
  }
  fputs("{\"passes\": [", file);
  for (size_t i = 0; i < stats->pass_count; ++i) {
    fputs(i ? ", {\"name\": \"" : "{\"name\": \"", file);
    for (size_t k = 0; k < stats->passes[i].length; ++k) {
      char c = stats->passes[i].text[k];
      if (c == '"' || c == '\\')
        fputc('\\', file);
      fputc(c == '\n' || c == '\t' ? ' ' : c, file);
    }
    fprintf(file, "\", \"ms\": %.3f}", stats->ms[i]);
  }
  fprintf(file, "], \"tasks\": %lld, \"intervals\": %lld, \"arena_bytes\": %lld, \"arena_lower_bound_bytes\": %lld",
          counts.tasks, counts.intervals, counts.arena_bytes, counts.arena_lower_bound_bytes);
  if (emit_seconds)
    fprintf(file, ", \"emit\": {\"lower_ms\": %.3f, \"translate_ms\": %.3f, \"llvm_ms\": %.3f, \"parts\": %u}",
            1e3 * emit_seconds[0], 1e3 * emit_seconds[1], 1e3 * emit_seconds[2], emit_parts);
  fputs("}\n", file);
  bool ok = !ferror(file);
  if (fclose(file) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "latch-opt: error: cannot write '%s'\n", path);
  return ok;
}

/* --emit: the code of gpu.module @latch to `output` (the -o FILE) and its manifest to FILE.manifest.json.
 * Errors in the IR are reported through the diagnostics. */
static bool emit(const options *opts, MlirOperation top, FILE *output, double *out_seconds) {
  latch_emit_output result;
  if (!latch_emit(top, opts->emit_format, opts->emit_parts, &result))
    return false;
  out_seconds[0] = result.lower_seconds;
  out_seconds[1] = result.translate_seconds;
  out_seconds[2] = result.llvm_seconds;
  fwrite(result.code, 1, result.code_length, output);
  char path[4096];
  bool ok = snprintf(path, sizeof(path), "%s.manifest.json", opts->output) < (int)sizeof(path);
  FILE *file = ok ? fopen(path, "w") : NULL;
  if (!file) {
    fprintf(stderr, "latch-opt: error: cannot write '%s.manifest.json': %s\n", opts->output,
            ok ? strerror(errno) : "name too long");
    latch_emit_output_deinitialize(&result);
    return false;
  }
  fwrite(result.manifest, 1, result.manifest_length, file);
  ok = !ferror(file);
  if (fclose(file) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "latch-opt: error: cannot write '%s'\n", path);
  latch_emit_output_deinitialize(&result);
  return ok;
}

/* Parses, transforms and prints one input (`line_offset` lines into the file); returns false when
 * anything reported an error. */
static bool process(MlirContext context, const options *opts, MlirOpPrintingFlags flags,
                    const char *display_name, unsigned line_offset, const char *text, size_t length,
                    FILE *output) {
  latch_diagnostic_sink sink;
  latch_diagnostic_sink_attach(&sink, context, stderr, display_name);
  sink.line_offset = line_offset;
  bool ok = false;
  MlirModule module = latch_source_parse(context, text, length);
  if (!mlirModuleIsNull(module)) {
    MlirOperation top = mlirModuleGetOperation(module);
    pipeline_stats stats;
    stats.pass_count = 0;
    ok = run_pipeline(context, opts, flags, top, opts->stats ? &stats : NULL);
    /* A pass may fail without saying why; the failure still gets its one line. */
    if (!ok && sink.error_count == 0)
      mlirEmitError(mlirOperationGetLocation(top), "the pass pipeline failed without a diagnostic");
    double emit_seconds[3] = {0, 0, 0};
    if (ok && opts->emit)
      ok = emit(opts, top, output, emit_seconds);
    if (ok && opts->stats)
      ok = write_stats(opts->stats, &stats, top, opts->emit ? emit_seconds : NULL,
                       opts->emit_format == LATCH_EMIT_PTX ? opts->emit_parts : 1);
    if (ok && !opts->emit) {
      mlirOperationPrintWithFlags(top, flags, latch_print_to_file, output);
      fputc('\n', output);
    }
    mlirModuleDestroy(module);
  }
  latch_diagnostic_sink_detach(&sink);
  return ok && sink.error_count == 0;
}

/* MLIR and LLVM allocate and free millions of small objects; glibc's default gives freed memory back to
 * the system at every 128 KiB at the top of the heap and maps each block of 128 KiB or more anew, which
 * cost about 5% of a TinyMoE compile (2026-12-03, user time 6.6 s against 7.1 s, median of six). A
 * compile lives a few seconds, so the heap keeps what it once held. */
static void tune_allocator(void) {
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
}

int main(int argc, char **argv) {
  tune_allocator();
  options opts;
  int status = parse_arguments(argc, argv, &opts);
  if (status)
    return status == 2 ? 0 : 1;

  MlirContext context = latch_context_create();
  if (mlirContextIsNull(context))
    return 1;
  mlirRegisterAllPasses();
  if (opts.list_passes) {
    int result = list_passes(context);
    mlirContextDestroy(context);
    return result;
  }

  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  /* Check the pipeline once up front so that a bad one is one error, not one per input chunk. */
  MlirPassManager probe = create_pass_manager(context, &opts, flags);
  bool ok = !mlirPassManagerIsNull(probe);
  if (ok)
    mlirPassManagerDestroy(probe);

  latch_source source;
  if (ok)
    ok = latch_source_initialize(&source, "latch-opt", opts.input);
  FILE *output = NULL;
  if (ok) {
    output = opts.output ? fopen(opts.output, "w") : stdout;
    if (!output) {
      fprintf(stderr, "latch-opt: error: cannot write '%s': %s\n", opts.output, strerror(errno));
      ok = false;
    }
    if (ok && !opts.split_input_file) {
      ok = process(context, &opts, flags, source.display_name, 0, source.text, source.length, output);
    } else if (ok) {
      latch_source_chunk *chunks = NULL;
      size_t count = latch_source_split(&source, &chunks);
      if (count == 0) {
        fprintf(stderr, "latch-opt: error: out of memory splitting '%s'\n", source.display_name);
        ok = false;
      }
      for (size_t i = 0; i < count; ++i) {
        if (i)
          fputs("// -----\n", output);
        /* Every chunk runs even after a failure, as mlir-opt does, so one run shows every error. */
        if (!process(context, &opts, flags, source.display_name, chunks[i].line_offset, chunks[i].text,
                     chunks[i].length, output))
          ok = false;
      }
      latch_source_chunks_free(chunks, count);
    }
    /* A full disk or a closed pipe must not pass for success. */
    if (output) {
      bool written = fflush(output) == 0 && !ferror(output);
      int error = errno;
      if (output != stdout && fclose(output) != 0 && written) {
        written = false;
        error = errno;
      }
      if (!written) {
        fprintf(stderr, "latch-opt: error: cannot write '%s': %s\n", opts.output ? opts.output : "<stdout>",
                strerror(error));
        ok = false;
      }
    }
    latch_source_deinitialize(&source);
    /* A failed --emit leaves no half-written code or stale manifest behind. */
    if (!ok && opts.emit) {
      char path[4096];
      remove(opts.output);
      if (snprintf(path, sizeof(path), "%s.manifest.json", opts.output) < (int)sizeof(path))
        remove(path);
    }
  }
  mlirOpPrintingFlagsDestroy(flags);
  mlirContextDestroy(context);
  return ok ? 0 : 1;
}
