/* latch-gen.c - writes the task program of a reference model (models/) for a given configuration. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/IR.h"

#include "../dialects/builder.h"
#include "../dialects/dialects.h"
#include "../models/models.h"
#include "../support/diagnostics.h"

static const latch_model *const models[] = {
#define X(name) &latch_model_##name,
    LATCH_MODEL_LIST(X)
#undef X
};
#define MODEL_COUNT (sizeof(models) / sizeof(models[0]))

#define MAX_CONFIG_SIZE 256
#define MAX_VALUE (INT64_C(1) << 40)

static void print_usage(FILE *stream) {
  fputs("usage: latch-gen MODEL [model options] [-o FILE] [--print-param-count] [--locations]\n"
        "\n"
        "  -o FILE                write the program to FILE (default: stdout)\n"
        "  --print-param-count    print the number of parameter elements instead of the program\n"
        "  --locations            print op locations (model layer names and source lines)\n"
        "  --help                 show this text\n"
        "\n"
        "Models and their options (--name N or --name=N, N a positive integer):\n",
        stream);
  for (size_t i = 0; i < MODEL_COUNT; ++i) {
    const latch_model *model = models[i];
    fprintf(stream, "  %-22s %s\n", model->name, model->summary);
    for (size_t j = 0; j < model->option_count; ++j) {
      const latch_model_option *option = &model->options[j];
      int64_t value = *(const int64_t *)((const char *)model->defaults + option->offset);
      char spec[64];
      snprintf(spec, sizeof(spec), "--%s N", option->name);
      fprintf(stream, "    %-20s %s (default %lld)\n", spec, option->help, (long long)value);
    }
  }
}

typedef struct options {
  const latch_model *model;
  int64_t config[MAX_CONFIG_SIZE / sizeof(int64_t)]; /* the model's config struct (int64_t fields) */
  const char *output;
  bool print_param_count;
  bool locations;
} options;

static const latch_model *find_model(const char *name) {
  for (size_t i = 0; i < MODEL_COUNT; ++i)
    if (strcmp(models[i]->name, name) == 0)
      return models[i];
  return NULL;
}

static const char *model_names(void) {
  static char names[256];
  size_t used = 0;
  for (size_t i = 0; i < MODEL_COUNT && used < sizeof(names); ++i)
    used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", models[i]->name);
  return names;
}

/* Parses a positive decimal integer (no sign, no trailing characters, at most MAX_VALUE). */
static bool parse_positive(const char *text, int64_t *out) {
  if (text[0] < '0' || text[0] > '9')
    return false;
  errno = 0;
  char *end = NULL;
  long long value = strtoll(text, &end, 10);
  if (errno || *end != '\0' || value < 1 || value > MAX_VALUE)
    return false;
  *out = value;
  return true;
}

/* Returns 0 when the arguments parse, 1 (after one `latch-gen: error:` line) when they do not, 2 for
 * --help. */
static int parse_arguments(int argc, char **argv, options *out) {
  memset(out, 0, sizeof(*out));
  if (argc < 2) {
    fprintf(stderr, "latch-gen: error: no model given (one of: %s; see --help)\n", model_names());
    return 1;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    print_usage(stdout);
    return 2;
  }
  if (argv[1][0] == '-') {
    fprintf(stderr, "latch-gen: error: the first argument must be a model (one of: %s), got '%s'\n",
            model_names(), argv[1]);
    return 1;
  }
  out->model = find_model(argv[1]);
  if (!out->model) {
    fprintf(stderr, "latch-gen: error: unknown model '%s' (one of: %s)\n", argv[1], model_names());
    return 1;
  }
  const latch_model *model = out->model;
  if (model->config_size > MAX_CONFIG_SIZE) {
    fprintf(stderr, "latch-gen: error: the config of model '%s' is too large\n", model->name);
    return 1;
  }
  memcpy(out->config, model->defaults, model->config_size);

  for (int i = 2; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      print_usage(stdout);
      return 2;
    }
    if (strcmp(arg, "--print-param-count") == 0) {
      out->print_param_count = true;
      continue;
    }
    if (strcmp(arg, "--locations") == 0) {
      out->locations = true;
      continue;
    }
    if (strcmp(arg, "-o") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "latch-gen: error: -o needs a file name\n");
        return 1;
      }
      out->output = argv[++i];
      continue;
    }
    if (strncmp(arg, "--", 2) != 0) {
      fprintf(stderr, "latch-gen: error: unexpected argument '%s' (see --help)\n", arg);
      return 1;
    }
    /* A model option: --name N or --name=N. */
    const char *name = arg + 2, *equals = strchr(name, '=');
    size_t name_length = equals ? (size_t)(equals - name) : strlen(name);
    const latch_model_option *option = NULL;
    for (size_t j = 0; j < model->option_count; ++j)
      if (strlen(model->options[j].name) == name_length &&
          memcmp(model->options[j].name, name, name_length) == 0)
        option = &model->options[j];
    if (!option) {
      fprintf(stderr, "latch-gen: error: unknown option '%.*s' for model '%s' (see --help)\n",
              (int)(name_length + 2), arg, model->name);
      return 1;
    }
    const char *value_text = equals ? equals + 1 : NULL;
    if (!value_text) {
      if (i + 1 >= argc) {
        fprintf(stderr, "latch-gen: error: --%s needs a value\n", option->name);
        return 1;
      }
      value_text = argv[++i];
    }
    int64_t value;
    if (!parse_positive(value_text, &value)) {
      fprintf(stderr, "latch-gen: error: --%s needs a positive integer, got '%s'\n", option->name, value_text);
      return 1;
    }
    memcpy((char *)out->config + option->offset, &value, sizeof(value));
  }
  char error[256];
  if (!model->check(out->config, error, sizeof(error))) {
    fprintf(stderr, "latch-gen: error: %s: %s\n", model->name, error);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  options opts;
  int status = parse_arguments(argc, argv, &opts);
  if (status)
    return status == 2 ? 0 : 1;

  MlirContext context = latch_context_create();
  if (mlirContextIsNull(context))
    return 1;
  latch_diagnostic_sink sink;
  latch_diagnostic_sink_attach(&sink, context, stderr, "latch-gen");
  bool ok = false;
  MlirModule module = opts.model->build(context, opts.config);
  if (!mlirModuleIsNull(module)) {
    int64_t count = latch_module_param_count(module);
    int64_t expected = opts.model->param_count(opts.config);
    FILE *output = NULL;
    if (count == expected)
      output = opts.output ? fopen(opts.output, "w") : stdout;
    if (count != expected) {
      fprintf(stderr, "latch-gen: error: %s: the program has %lld parameter elements, the model defines %lld\n",
              opts.model->name, (long long)count, (long long)expected);
    } else if (!output) {
      fprintf(stderr, "latch-gen: error: cannot write '%s'\n", opts.output);
    } else {
      if (opts.print_param_count) {
        fprintf(output, "%lld\n", (long long)count);
      } else {
        MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
        if (opts.locations)
          mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
        mlirOperationPrintWithFlags(mlirModuleGetOperation(module), flags, latch_print_to_file, output);
        fputc('\n', output);
        mlirOpPrintingFlagsDestroy(flags);
      }
      ok = true;
    }
    if (output && output != stdout && fclose(output) != 0) {
      fprintf(stderr, "latch-gen: error: cannot write '%s'\n", opts.output);
      ok = false;
    }
    mlirModuleDestroy(module);
  }
  latch_diagnostic_sink_detach(&sink);
  mlirContextDestroy(context);
  return ok && sink.error_count == 0 ? 0 : 1;
}
