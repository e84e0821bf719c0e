/* diagnostics.c - the diagnostic handler every Latch tool uses. */
#include "diagnostics.h"

#include <string.h>

void latch_print_to_file(MlirStringRef text, void *stream) {
  fwrite(text.data, 1, text.length, (FILE *)stream);
}

/* Finds the first file:line:col location inside `loc` (looking through name, call-site and fused
 * locations); returns false when there is none. `budget` bounds the locations visited: fused locations
 * built from aliases can share children, so the tree may be exponentially larger than the input. */
static bool find_file_location(MlirLocation loc, MlirIdentifier *out_file, unsigned *out_line,
                               unsigned *out_col, int *budget) {
  if (--*budget < 0)
    return false;
  if (mlirLocationIsAFileLineColRange(loc)) {
    *out_file = mlirLocationFileLineColRangeGetFilename(loc);
    *out_line = (unsigned)mlirLocationFileLineColRangeGetStartLine(loc);
    *out_col = (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc);
    return true;
  }
  if (mlirLocationIsAName(loc))
    return find_file_location(mlirLocationNameGetChildLoc(loc), out_file, out_line, out_col, budget);
  if (mlirLocationIsACallSite(loc))
    return find_file_location(mlirLocationCallSiteGetCaller(loc), out_file, out_line, out_col, budget);
  if (mlirLocationIsAFused(loc)) {
    unsigned n = mlirLocationFusedGetNumLocations(loc);
    if (n == 0 || n > 64)
      return false;
    MlirLocation children[64];
    mlirLocationFusedGetLocations(loc, children);
    for (unsigned i = 0; i < n; ++i)
      if (find_file_location(children[i], out_file, out_line, out_col, budget))
        return true;
  }
  return false;
}

int latch_location_print(FILE *stream, MlirLocation loc, const char *display_name, unsigned line_offset) {
  MlirIdentifier file;
  unsigned line = 0, col = 0;
  int budget = 1024;
  if (!find_file_location(loc, &file, &line, &col, &budget))
    return 0;
  MlirStringRef name = mlirIdentifierStr(file);
  bool is_input = display_name && name.length == 1 && name.data[0] == '-';
  if (line == 0) /* the whole file (the module the parser wraps around top-level ops is at 0:0) */
    return is_input ? fprintf(stream, "%s", display_name)
                    : fprintf(stream, "%.*s", (int)name.length, name.data);
  if (is_input)
    return fprintf(stream, "%s:%u:%u", display_name, line + line_offset, col);
  return fprintf(stream, "%.*s:%u:%u", (int)name.length, name.data, line, col);
}

static const char *severity_name(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError: return "error";
  case MlirDiagnosticWarning: return "warning";
  case MlirDiagnosticNote: return "note";
  case MlirDiagnosticRemark: return "remark";
  }
  return "error";
}

static void print_diagnostic(latch_diagnostic_sink *sink, MlirDiagnostic diagnostic) {
  MlirDiagnosticSeverity severity = mlirDiagnosticGetSeverity(diagnostic);
  if (severity == MlirDiagnosticError)
    sink->error_count++;
  if (latch_location_print(sink->stream, mlirDiagnosticGetLocation(diagnostic), sink->display_name,
                           sink->line_offset) > 0)
    fputs(": ", sink->stream);
  else if (sink->display_name)
    fprintf(sink->stream, "%s: ", sink->display_name);
  fprintf(sink->stream, "%s: ", severity_name(severity));
  mlirDiagnosticPrint(diagnostic, latch_print_to_file, sink->stream);
  fputc('\n', sink->stream);
  intptr_t notes = mlirDiagnosticGetNumNotes(diagnostic);
  for (intptr_t i = 0; i < notes; ++i)
    print_diagnostic(sink, mlirDiagnosticGetNote(diagnostic, i));
}

static MlirLogicalResult handle_diagnostic(MlirDiagnostic diagnostic, void *user_data) {
  print_diagnostic((latch_diagnostic_sink *)user_data, diagnostic);
  return mlirLogicalResultSuccess();
}

void latch_diagnostic_sink_attach(latch_diagnostic_sink *sink, MlirContext context, FILE *stream,
                                  const char *display_name) {
  sink->stream = stream;
  sink->display_name = display_name;
  sink->line_offset = 0;
  sink->error_count = 0;
  sink->context = context;
  sink->handler_id = mlirContextAttachDiagnosticHandler(context, handle_diagnostic, sink, NULL);
}

void latch_diagnostic_sink_detach(latch_diagnostic_sink *sink) {
  mlirContextDetachDiagnosticHandler(sink->context, sink->handler_id);
}
