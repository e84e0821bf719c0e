/* diagnostics.c - the diagnostic handler every Latch tool uses. */
#include "diagnostics.h"

#include <string.h>

void latch_print_to_file(MlirStringRef text, void *stream) {
  fwrite(text.data, 1, text.length, (FILE *)stream);
}

/* Finds the first file:line:col location inside `loc` (looking through name, call-site and fused
 * locations); returns false when there is none. */
static bool find_file_location(MlirLocation loc, MlirIdentifier *out_file, int *out_line, int *out_col) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    *out_file = mlirLocationFileLineColRangeGetFilename(loc);
    *out_line = mlirLocationFileLineColRangeGetStartLine(loc);
    *out_col = mlirLocationFileLineColRangeGetStartColumn(loc);
    return true;
  }
  if (mlirLocationIsAName(loc))
    return find_file_location(mlirLocationNameGetChildLoc(loc), out_file, out_line, out_col);
  if (mlirLocationIsACallSite(loc))
    return find_file_location(mlirLocationCallSiteGetCaller(loc), out_file, out_line, out_col);
  if (mlirLocationIsAFused(loc)) {
    unsigned n = mlirLocationFusedGetNumLocations(loc);
    if (n == 0 || n > 64)
      return false;
    MlirLocation children[64];
    mlirLocationFusedGetLocations(loc, children);
    for (unsigned i = 0; i < n; ++i)
      if (find_file_location(children[i], out_file, out_line, out_col))
        return true;
  }
  return false;
}

int latch_location_print(FILE *stream, MlirLocation loc, const char *display_name) {
  MlirIdentifier file;
  int line = 0, col = 0;
  if (!find_file_location(loc, &file, &line, &col))
    return 0;
  MlirStringRef name = mlirIdentifierStr(file);
  if (display_name && name.length == 1 && name.data[0] == '-')
    return fprintf(stream, "%s:%d:%d", display_name, line, col);
  return fprintf(stream, "%.*s:%d:%d", (int)name.length, name.data, line, col);
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
  if (latch_location_print(sink->stream, mlirDiagnosticGetLocation(diagnostic), sink->display_name) > 0)
    fputs(": ", sink->stream);
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
  sink->error_count = 0;
  sink->context = context;
  sink->handler_id = mlirContextAttachDiagnosticHandler(context, handle_diagnostic, sink, NULL);
}

void latch_diagnostic_sink_detach(latch_diagnostic_sink *sink) {
  mlirContextDetachDiagnosticHandler(sink->context, sink->handler_id);
}
