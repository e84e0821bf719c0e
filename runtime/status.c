/* status.c - failure values with file:line and context (see status.h). */
#include "status.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct latch_status_storage {
  latch_status_code code;
  char *text; /* owned; NUL-terminated */
  size_t length;
};

/* Returned when the heap cannot hold a new status; never freed, annotations are dropped. */
static struct latch_status_storage out_of_memory_status = {
    LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory (while reporting another failure)", 0};

/* "runtime/device.c" from "/abs/path/runtime/device.c": the last two components of `file`. */
static const char *short_path(const char *file) {
  const char *last = NULL, *before = NULL;
  for (const char *p = file; *p; ++p) {
    if (*p == '/') {
      before = last;
      last = p;
    }
  }
  return before ? before + 1 : file;
}

/* Appends "[separator]<formatted> [file:line]" to the text of `status` (allocated when NULL). */
static bool append(struct latch_status_storage *status, const char *separator, const char *file, int line,
                   const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int body = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (body < 0)
    body = 0;
  const char *where = short_path(file);
  int tail = snprintf(NULL, 0, " [%s:%d]", where, line);
  size_t sep = strlen(separator);
  size_t extra = sep + (size_t)body + (size_t)(tail < 0 ? 0 : tail);
  char *text = realloc(status->text, status->length + extra + 1);
  if (!text)
    return false;
  status->text = text;
  memcpy(text + status->length, separator, sep);
  status->length += sep;
  if (body > 0)
    vsnprintf(text + status->length, (size_t)body + 1, format, args);
  status->length += (size_t)body;
  snprintf(text + status->length, extra - sep - (size_t)body + 1, " [%s:%d]", where, line);
  status->length += extra - sep - (size_t)body;
  text[status->length] = '\0';
  return true;
}

latch_status latch_status_make(latch_status_code code, const char *file, int line, const char *format, ...) {
  struct latch_status_storage *status = calloc(1, sizeof(*status));
  if (!status)
    return &out_of_memory_status;
  status->code = code == LATCH_STATUS_OK ? LATCH_STATUS_INTERNAL : code;
  va_list args;
  va_start(args, format);
  bool ok = append(status, "", file, line, format, args);
  va_end(args);
  if (!ok) {
    free(status->text);
    free(status);
    return &out_of_memory_status;
  }
  return status;
}

latch_status latch_status_annotate(latch_status status, const char *file, int line, const char *format, ...) {
  if (!status || status == &out_of_memory_status)
    return status;
  va_list args;
  va_start(args, format);
  append(status, "; while ", file, line, format, args); /* on failure the status keeps its old text */
  va_end(args);
  return status;
}

latch_status_code latch_status_code_of(latch_status status) { return status ? status->code : LATCH_STATUS_OK; }

const char *latch_status_code_name(latch_status_code code) {
  switch (code) {
  case LATCH_STATUS_OK: return "OK";
  case LATCH_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
  case LATCH_STATUS_NOT_FOUND: return "NOT_FOUND";
  case LATCH_STATUS_UNAVAILABLE: return "UNAVAILABLE";
  case LATCH_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
  case LATCH_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
  case LATCH_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
  case LATCH_STATUS_DATA_LOSS: return "DATA_LOSS";
  case LATCH_STATUS_INTERNAL: return "INTERNAL";
  case LATCH_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
  }
  return "UNKNOWN";
}

const char *latch_status_text(latch_status status) { return status ? status->text : "OK"; }

void latch_status_fprint(FILE *stream, const char *prefix, latch_status status) {
  fprintf(stream, "%s%s\n", prefix ? prefix : "", latch_status_text(status));
}

void latch_status_free(latch_status status) {
  if (!status || status == &out_of_memory_status)
    return;
  free(status->text);
  free(status);
}

latch_status_code latch_status_consume_code(latch_status status) {
  latch_status_code code = latch_status_code_of(status);
  latch_status_free(status);
  return code;
}
