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

#include "pass.h"

/* Named pipelines may refer to each other; this bounds the expansion. */
#define MAX_PIPELINE_DEPTH 16

typedef struct parser {
  const char *text; /* the whole string being parsed (for error context) */
  const char *p, *end;
  char *error;
  size_t error_size;
  /* Upstream elements not yet handed over, comma-separated. */
  char *pending;
  size_t pending_length, pending_capacity;
  char upstream_error[1024];
} parser;

static void skip_space(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static bool fail(parser *ps, const char *message) {
  if (ps->p < ps->end)
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%s': %s at '%.20s'", ps->text, message,
             ps->p);
  else
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%s': %s at its end", ps->text, message);
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

static void report_upstream_error(parser *ps) {
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
  if (*text)
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%s': %s", ps->text, text);
  else
    snprintf(ps->error, ps->error_size, "invalid pass pipeline '%s'", ps->text);
}

static bool flush_upstream(parser *ps, MlirOpPassManager opm) {
  if (ps->pending_length == 0)
    return true;
  ps->upstream_error[0] = '\0';
  MlirLogicalResult result = mlirOpPassManagerAddPipeline(
      opm, (MlirStringRef){ps->pending, ps->pending_length}, collect_upstream_error, ps);
  ps->pending_length = 0;
  if (mlirLogicalResultIsFailure(result)) {
    report_upstream_error(ps);
    return false;
  }
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

static bool parse_list(parser *ps, MlirOpPassManager opm, int depth);

static bool add_named_pipeline(parser *ps, MlirOpPassManager opm, const latch_pass_info *info,
                               int depth) {
  if (depth >= MAX_PIPELINE_DEPTH)
    return fail(ps, "named pipelines nest too deeply");
  parser inner = *ps;
  inner.text = info->pipeline;
  inner.p = info->pipeline;
  inner.end = info->pipeline + strlen(info->pipeline);
  inner.pending = NULL;
  inner.pending_length = inner.pending_capacity = 0;
  bool ok = parse_list(&inner, opm, depth + 1) && flush_upstream(&inner, opm);
  if (ok && inner.p != inner.end)
    ok = fail(&inner, "unexpected text");
  free(inner.pending);
  return ok;
}

static bool parse_element(parser *ps, MlirOpPassManager opm, int depth) {
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
    MlirOpPassManager nested =
        mlirOpPassManagerGetNestedUnder(opm, mlirStringRefCreateFromCString(anchor));
    ps->p++;
    if (!parse_list(ps, nested, depth) || !flush_upstream(ps, nested))
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
    return add_named_pipeline(ps, opm, info, depth);
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

static bool parse_list(parser *ps, MlirOpPassManager opm, int depth) {
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == ')')
    return true;
  for (;;) {
    if (!parse_element(ps, opm, depth))
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
  parser ps = {pipeline, pipeline, pipeline + strlen(pipeline), error, error_size, NULL, 0, 0, ""};
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
      ok = parse_list(&ps, top, 0) && flush_upstream(&ps, top);
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
