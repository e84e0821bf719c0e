/* diagnostics.h - prints MLIR diagnostics as `FILE:LINE:COL: error: message` and counts errors. */
#ifndef LATCH_SUPPORT_DIAGNOSTICS_H
#define LATCH_SUPPORT_DIAGNOSTICS_H

#include <stdio.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

/* Where diagnostics go and how locations are named. The parser gives every location of a parsed string
 * the file name "-"; `display_name` replaces it (the real file name, or "<stdin>"), and `line_offset`
 * is added to its line numbers (the lines before a --split-input-file chunk). A location without a
 * file position prints as `display_name: error: ...`. */
typedef struct latch_diagnostic_sink {
  FILE *stream;
  const char *display_name;
  unsigned line_offset; /* 0 after attaching; set it for a chunk of a larger file */
  int error_count;
  MlirDiagnosticHandlerID handler_id;
  MlirContext context;
} latch_diagnostic_sink;

/* Attaches a handler to `context` that prints to `sink->stream`. The sink must outlive the attachment;
 * detach with latch_diagnostic_sink_detach before the sink goes away. */
void latch_diagnostic_sink_attach(latch_diagnostic_sink *sink, MlirContext context, FILE *stream,
                                  const char *display_name);
void latch_diagnostic_sink_detach(latch_diagnostic_sink *sink);

/* Writes `loc` as `FILE:LINE:COL` (the first file location inside a name, call-site or fused location);
 * a location in the file "-" is written as `display_name` with `line_offset` added to its line, and
 * line 0 (the whole file) as just the file. Writes nothing and returns 0 when the location carries no
 * file. */
int latch_location_print(FILE *stream, MlirLocation loc, const char *display_name, unsigned line_offset);

/* Writes an MlirStringRef to a FILE* (an MlirStringCallback). */
void latch_print_to_file(MlirStringRef text, void *stream);

#endif
