/* source.h - reading tool input (files or stdin) and parsing it into modules, with the checks that keep
 * malformed input from reaching the MLIR parser: size limit, binary content, nesting depth. */
#ifndef LATCH_SUPPORT_SOURCE_H
#define LATCH_SUPPORT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"

/* Inputs larger than this are refused before parsing (a tool reads its whole input into memory). */
#define LATCH_MAX_INPUT_BYTES ((size_t)64 << 20)
/* Deeper nesting than this is refused: MLIR's parser, verifier and printer recurse once per level and
 * would overflow the stack long before any real program gets this deep. Nesting counts every open
 * bracket ({ ( [ <), every operator of an unfinished affine expression (`d0 + d1 - ...` and unary minus
 * recurse once per operator), and the nesting of every alias used (`#a1 = [#a0]` is one level deeper
 * than #a0, however short the text). About 4 KiB of stack per level in the worst case (regions). */
#define LATCH_MAX_NESTING 256

/* A whole input held in memory, NUL-terminated. */
typedef struct latch_source {
  char *text;
  size_t length;
  const char *display_name; /* "<stdin>" or the path as given; not owned */
} latch_source;

/* Reads `path` ("-" means stdin) into `out_source`. On failure prints one `error:` line to stderr
 * (prefixed by `tool`) and returns false. Release with latch_source_deinitialize. */
bool latch_source_initialize(latch_source *out_source, const char *tool, const char *path);
void latch_source_deinitialize(latch_source *source);

/* One piece of a --split-input-file input, NUL-terminated. The parser numbers its lines from 1; add
 * `line_offset` to get the line in the whole file (latch_diagnostic_sink.line_offset does). */
typedef struct latch_source_chunk {
  char *text;
  size_t length;
  unsigned line_offset; /* lines of the whole file before this chunk's first line */
} latch_source_chunk;

/* Splits at lines that start with `// -----`. Returns the number of chunks (>= 1) and an array the
 * caller frees with latch_source_chunks_free; returns 0 when out of memory. */
size_t latch_source_split(const latch_source *source, latch_source_chunk **out_chunks);
void latch_source_chunks_free(latch_source_chunk *chunks, size_t count);

/* Checks `text` for the things the parser must not see: MLIR bytecode (only text is read), NUL bytes,
 * invalid UTF-8, nesting deeper than LATCH_MAX_NESTING, and attribute or type aliases whose expansion
 * exceeds LATCH_MAX_INPUT_BYTES (`#a1 = [#a0, #a0]` doubles each level; printing expands them). Reports
 * the first problem through `context`'s diagnostics, at its line and column in the file "-", and returns
 * false. */
bool latch_source_check(MlirContext context, const char *text, size_t length);

/* Parses `text` (NUL-terminated) into a module; top-level ops other than one `builtin.module` are
 * wrapped in one. Errors go to the context's diagnostic handlers; returns a null module on failure. The
 * caller owns the module. */
MlirModule latch_source_parse(MlirContext context, const char *text, size_t length);

#endif
