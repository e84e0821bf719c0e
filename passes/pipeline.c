/* pipeline.c - parses a textual pass pipeline that mixes Latch passes with upstream MLIR passes.
 *
 * MLIR's C API cannot register external passes by name, so the pipeline is parsed here:
 *   pipeline := anchor '(' list? ')'
 *   list     := element (',' element)*
 *   element  := name ('{' options '}')?  |  name '(' list? ')'     (the second form nests on op `name`)
 * Latch passes and named pipelines are added directly; runs of upstream elements are handed to
 * mlirOpPassManagerAddPipeline as text, so upstream parsing and errors stay upstream's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pass.h"

/* Named pipelines may refer to each other; this bounds the expansion. */
#define MAX_PIPELINE_DEPTH 16
/* Nested pass managers (`func.func(...)` inside `builtin.module(...)`); the parser recurses once per
 * level, and IR does not nest deeper than source.h's LATCH_MAX_NESTING. */
#define MAX_PIPELINE_NESTING 64

typedef struct parser {
  const char *text; /* the whole string being parsed (for error context) */
  const char *p, *end;
  char *error;
  size_t error_size;
  /* Upstream elements not yet handed over, comma-separated. */
  char *pending;
  size_t pending_length, pending_capacity;
  char upstream_error[1024];
  int nesting; /* open `name(` levels */
} parser;

static void skip_space(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

/* Error messages quote the pipeline, cut to this many characters (a generated one can be huge). */
#define QUOTED_MAX 160

static int quoted_length(const parser *ps, const char **out_more) {
  size_t length = strlen(ps->text);
  *out_more = length > QUOTED_MAX ? "..." : "";
  return (int)(length > QUOTED_MAX ? QUOTED_MAX : length);
}

static bool fail(parser *ps, const char *message) {
  const char *more;
  int shown = quoted_length(ps, &more);
  if (ps->p < ps->end)
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%.*s%s': %s at '%.20s'", shown, ps->text,
             more, message, ps->p);
  else
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%.*s%s': %s at its end", shown, ps->text,
             more, message);
  return false;
}

static bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

/* Upstream reports pipeline errors in several lines (a parser banner, the source echo, a caret); the
 * message proper is the text after the last "error: " of the first line, or the first line itself. */
static void collect_upstream_error(MlirStringRef message, void *user_data) {
  parser *ps = user_data;
  size_t used = strlen(ps->upstream_error);
  if (used + 1 < sizeof(ps->upstream_error))
    snprintf(ps->upstream_error + used, sizeof(ps->upstream_error) - used, "%.*s", (int)message.length,
             message.data);
}

/* Upstream's option parser (llvm::cl) writes why an option value is bad straight to stderr, outside the
 * error callback (": for the --max-iterations option: 'abc' value invalid for long argument!"). While
 * upstream parses, file descriptor 2 goes to a temporary file, so that this reason can become part of
 * the one error message instead of a stray line. Without a temporary file nothing is captured. */
typedef struct stderr_capture {
  FILE *file;
  int saved;
} stderr_capture;

static void capture_stderr(stderr_capture *capture) {
  fflush(stderr);
  capture->saved = -1;
  capture->file = tmpfile();
  if (!capture->file)
    return;
  capture->saved = dup(STDERR_FILENO);
  if (capture->saved < 0 || dup2(fileno(capture->file), STDERR_FILENO) < 0) {
    if (capture->saved >= 0)
      close(capture->saved);
    fclose(capture->file);
    capture->file = NULL;
  }
}

/* Restores stderr; `out` gets what was written meanwhile (at most `out_size` - 1 bytes). */
static void release_stderr(stderr_capture *capture, char *out, size_t out_size) {
  out[0] = '\0';
  if (!capture->file)
    return;
  fflush(stderr);
  dup2(capture->saved, STDERR_FILENO);
  close(capture->saved);
  rewind(capture->file);
  size_t length = fread(out, 1, out_size - 1, capture->file);
  out[length] = '\0';
  fclose(capture->file);
}

/* The first line of what upstream wrote to stderr, without llvm::cl's leading ": " and final "!". */
static char *captured_reason(char *text) {
  while (*text == ':' || *text == ' ' || *text == '\n')
    text++;
  char *newline = strchr(text, '\n');
  if (newline)
    *newline = '\0';
  size_t length = strlen(text);
  if (length && text[length - 1] == '!')
    text[length - 1] = '\0';
  return text;
}

static void report_upstream_error(parser *ps, char *captured) {
  char *text = ps->upstream_error;
  while (*text == '\n')
    text++;
  char *newline = strchr(text, '\n');
  if (newline)
    *newline = '\0';
  for (char *found; (found = strstr(text, "error: ")) != NULL;)
    text = found + 7;
  const char *prefix = "<Pass-Options-Parser>: ";
  if (strncmp(text, prefix, strlen(prefix)) == 0)
    text += strlen(prefix);
  const char *reason = captured_reason(captured);
  const char *more;
  int shown = quoted_length(ps, &more);
  if (*text && *reason)
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%.*s%s': %s: %s", shown, ps->text, more,
             text, reason);
  else if (*text || *reason)
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%.*s%s': %s", shown, ps->text, more,
             *text ? text : reason);
  else
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%.*s%s'", shown, ps->text, more);
}

static bool flush_upstream(parser *ps, MlirOpPassManager opm) {
  if (ps->pending_length == 0)
    return true;
  ps->upstream_error[0] = '\0';
  stderr_capture capture;
  capture_stderr(&capture);
  MlirLogicalResult result = mlirOpPassManagerAddPipeline(
      opm, (MlirStringRef){ps->pending, ps->pending_length}, collect_upstream_error, ps);
  char captured[512];
  release_stderr(&capture, captured, sizeof(captured));
  ps->pending_length = 0;
  if (mlirLogicalResultIsFailure(result)) {
    report_upstream_error(ps, captured);
    return false;
  }
  fputs(captured, stderr); /* not an error: pass it on */
  return true;
}

static bool append_upstream(parser *ps, const char *element, size_t length) {
  size_t needed = ps->pending_length + length + 2;
  if (needed > ps->pending_capacity) {
    size_t capacity = needed * 2;
    char *grown = realloc(ps->pending, capacity);
    if (!grown)
      return fail(ps, "out of memory");
    ps->pending = grown;
    ps->pending_capacity = capacity;
  }
  if (ps->pending_length)
    ps->pending[ps->pending_length++] = ',';
  memcpy(ps->pending + ps->pending_length, element, length);
  ps->pending_length += length;
  ps->pending[ps->pending_length] = '\0';
  return true;
}

/* Scans a balanced `{...}` starting at ps->p (which points at '{'); sets the inside span. */
static bool scan_braces(parser *ps, const char **out_inside, size_t *out_length) {
  const char *open = ps->p;
  int depth = 0;
  for (; ps->p < ps->end; ps->p++) {
    if (*ps->p == '{')
      depth++;
    else if (*ps->p == '}' && --depth == 0) {
      *out_inside = open + 1;
      *out_length = (size_t)(ps->p - open - 1);
      ps->p++;
      return true;
    }
  }
  ps->p = open;
  return fail(ps, "unbalanced '{'");
}

/* `opm` runs on ops named `op_name`. */
static bool parse_list(parser *ps, MlirOpPassManager opm, const char *op_name, int depth);

static bool add_named_pipeline(parser *ps, MlirOpPassManager opm, const char *op_name,
                               const latch_pass_info *info, int depth) {
  if (depth >= MAX_PIPELINE_DEPTH)
    return fail(ps, "named pipelines nest too deeply");
  parser inner = *ps;
  inner.text = info->pipeline;
  inner.p = info->pipeline;
  inner.end = info->pipeline + strlen(info->pipeline);
  inner.pending = NULL;
  inner.pending_length = inner.pending_capacity = 0;
  bool ok = parse_list(&inner, opm, op_name, depth + 1) && flush_upstream(&inner, opm);
  if (ok && inner.p != inner.end)
    ok = fail(&inner, "unexpected text");
  free(inner.pending);
  return ok;
}

static bool parse_element(parser *ps, MlirOpPassManager opm, const char *op_name, int depth) {
  skip_space(ps);
  const char *name = ps->p;
  while (ps->p < ps->end && is_name_char(*ps->p))
    ps->p++;
  size_t name_length = (size_t)(ps->p - name);
  if (name_length == 0)
    return fail(ps, "expected a pass name");
  skip_space(ps);

  if (ps->p < ps->end && *ps->p == '(') { /* a nested pipeline on ops named `name` */
    if (!flush_upstream(ps, opm))
      return false;
    char anchor[256];
    if (name_length >= sizeof(anchor))
      return fail(ps, "op name too long");
    memcpy(anchor, name, name_length);
    anchor[name_length] = '\0';
    if (ps->nesting >= MAX_PIPELINE_NESTING)
      return fail(ps, "pass managers nest too deeply");
    MlirOpPassManager nested =
        mlirOpPassManagerGetNestedUnder(opm, mlirStringRefCreateFromCString(anchor));
    ps->p++;
    ps->nesting++;
    bool ok = parse_list(ps, nested, anchor, depth) && flush_upstream(ps, nested);
    ps->nesting--;
    if (!ok)
      return false;
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != ')')
      return fail(ps, "expected ')'");
    ps->p++;
    return true;
  }

  const char *options = "";
  size_t options_length = 0;
  const char *element_end = ps->p;
  if (ps->p < ps->end && *ps->p == '{') {
    if (!scan_braces(ps, &options, &options_length))
      return false;
    element_end = ps->p;
  }

  const latch_pass_info *info = latch_pass_lookup(name, name_length);
  if (!info) /* upstream: MLIR parses it (and reports unknown names and bad options) */
    return append_upstream(ps, name, (size_t)(element_end - name));
  if (!flush_upstream(ps, opm))
    return false;
  if (info->pipeline) {
    if (options_length)
      return fail(ps, "a named pipeline takes no options");
    return add_named_pipeline(ps, opm, op_name, info, depth);
  }
  /* MLIR aborts (report_fatal_error) when a pass anchored on one op is added to a pass manager of another. */
  if (info->anchor[0] && strcmp(info->anchor, op_name) != 0) {
    const char *more;
    int shown = quoted_length(ps, &more);
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%.*s%s': pass '%s' runs on '%s' ops, not on '%s'",
             shown, ps->text, more, info->name, info->anchor, op_name);
    return false;
  }
  void *values = info->options_size ? calloc(1, info->options_size) : NULL;
  if (info->options_size && !values)
    return fail(ps, "out of memory");
  bool ok = latch_pass_options_parse(info, options, options_length, values, ps->error, ps->error_size);
  if (ok) {
    MlirPass pass = latch_pass_create(info, values);
    if (!pass.ptr)
      ok = fail(ps, "out of memory");
    else
      mlirOpPassManagerAddOwnedPass(opm, pass);
  }
  free(values);
  return ok;
}

static bool parse_list(parser *ps, MlirOpPassManager opm, const char *op_name, int depth) {
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == ')')
    return true;
  for (;;) {
    if (!parse_element(ps, opm, op_name, depth))
      return false;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    return true;
  }
}

bool latch_pipeline_parse(MlirPassManager pm, const char *pipeline, char *error, size_t error_size) {
  parser ps = {pipeline, pipeline, pipeline + strlen(pipeline), error, error_size, NULL, 0, 0, "", 0};
  error[0] = '\0';
  MlirOpPassManager top = mlirPassManagerGetAsOpPassManager(pm);
  skip_space(&ps);
  static const char anchor[] = "builtin.module";
  size_t anchor_length = sizeof(anchor) - 1;
  bool ok;
  if ((size_t)(ps.end - ps.p) < anchor_length || memcmp(ps.p, anchor, anchor_length) != 0) {
    ok = fail(&ps, "a pipeline must start with 'builtin.module('");
  } else {
    ps.p += anchor_length;
    skip_space(&ps);
    if (ps.p >= ps.end || *ps.p != '(') {
      ok = fail(&ps, "expected '('");
    } else {
      ps.p++;
      ok = parse_list(&ps, top, anchor, 0) && flush_upstream(&ps, top);
      if (ok) {
        skip_space(&ps);
        if (ps.p >= ps.end || *ps.p != ')')
          ok = fail(&ps, "expected ')'");
        else {
          ps.p++;
          skip_space(&ps);
          if (ps.p != ps.end)
            ok = fail(&ps, "unexpected text after the pipeline");
        }
      }
    }
  }
  free(ps.pending);
  return ok;
}

size_t latch_pipeline_split(const char *pipeline, latch_pipeline_element *out_elements, size_t capacity) {
  const char *open = strchr(pipeline, '(');
  const char *close = strrchr(pipeline, ')');
  if (!open || !close || close < open)
    return 0;
  size_t count = 0;
  int depth = 0;
  const char *start = open + 1;
  for (const char *p = open + 1; p <= close; ++p) {
    bool end = p == close;
    if (!end && (*p == '(' || *p == '{'))
      depth++;
    else if (!end && (*p == ')' || *p == '}'))
      depth--;
    if (end || (*p == ',' && depth == 0)) {
      while (start < p && (*start == ' ' || *start == '\t' || *start == '\n'))
        start++;
      size_t length = (size_t)(p - start);
      while (length && (start[length - 1] == ' ' || start[length - 1] == '\t' || start[length - 1] == '\n'))
        length--;
      if (length) {
        if (count < capacity)
          out_elements[count] = (latch_pipeline_element){start, length};
        count++;
      }
      start = p + 1;
    }
  }
  return count;
}
