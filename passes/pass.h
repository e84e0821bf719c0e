/* pass.h - how a Latch pass is declared: one `latch_pass_info` per file in passes/, listed once in
 * passes.def. The registry turns an info into an MLIR external pass with parsed options. */
#ifndef LATCH_PASS_H
#define LATCH_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

typedef enum latch_option_kind {
  LATCH_OPTION_INT,    /* int64_t */
  LATCH_OPTION_FLOAT,  /* double */
  LATCH_OPTION_BOOL,   /* bool: true/false/1/0 */
  LATCH_OPTION_STRING, /* char[LATCH_OPTION_STRING_MAX] */
} latch_option_kind;

#define LATCH_OPTION_STRING_MAX 512

/* One pass option. `offset` is where its value lives in the pass's options struct. */
typedef struct latch_pass_option {
  const char *name;
  latch_option_kind kind;
  const char *default_value; /* text, parsed like a value given on the command line */
  const char *summary;
  size_t offset;
} latch_pass_option;

/* A dialect the pass creates ops in (upstream dialects only; Latch's own are always loaded). */
typedef MlirDialectHandle (*latch_dialect_handle_getter)(void);

typedef struct latch_pass_info {
  const char *name;    /* pipeline name, e.g. "latch-verify" */
  const char *summary; /* one line, shown by --list-passes */
  const char *anchor;  /* op name it runs on, e.g. "builtin.module"; "" = any op */
  const latch_pass_option *options;
  size_t option_count;
  size_t options_size; /* sizeof the options struct; 0 when the pass has none */
  const latch_dialect_handle_getter *dependent_dialects;
  size_t dependent_dialect_count;
  /* Runs the pass on `op` with parsed options. Reports problems with mlirEmitError at an op's
   * location and returns failure; the registry then signals pass failure. */
  MlirLogicalResult (*run)(MlirOperation op, const void *options);
  /* A named pipeline instead of a pass: the pipeline text (elements only, no anchor) it expands to.
   * Such an entry has no run function and no options. */
  const char *pipeline;
} latch_pass_info;

/* The registry: every pass and named pipeline of passes.def, in that order. */
size_t latch_pass_count(void);
const latch_pass_info *latch_pass_at(size_t index);
/* The entry named `name` (length `length`), or NULL. */
const latch_pass_info *latch_pass_lookup(const char *name, size_t length);

/* Parses `text` ("key=value key2=value2", the inside of the braces) into `out_options`, which must be
 * `info->options_size` bytes; defaults are applied first. On error writes one message into `error`
 * (at most `error_size` bytes) and returns false. */
bool latch_pass_options_parse(const latch_pass_info *info, const char *text, size_t length,
                              void *out_options, char *error, size_t error_size);

/* Creates an MLIR pass for `info` with parsed `options` (copied). The caller owns the pass until it is
 * given to a pass manager. */
MlirPass latch_pass_create(const latch_pass_info *info, const void *options);

/* Adds the passes of `pipeline` (a full `builtin.module(...)` string, mixing Latch passes, named
 * pipelines and upstream passes) to `pm`. On error writes one message into `error` and returns false. */
bool latch_pipeline_parse(MlirPassManager pm, const char *pipeline, char *error, size_t error_size);

/* One top-level element of a pipeline string (not NUL-terminated). */
typedef struct latch_pipeline_element {
  const char *text;
  size_t length;
} latch_pipeline_element;

/* Splits a pipeline that latch_pipeline_parse accepted into its top-level elements (`builtin.module(a,
 * b{x=1}, func.func(c))` gives `a`, `b{x=1}`, `func.func(c)`). Returns the element count; at most
 * `capacity` are stored. */
size_t latch_pipeline_split(const char *pipeline, latch_pipeline_element *out_elements, size_t capacity);

#endif
