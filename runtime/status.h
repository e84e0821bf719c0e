/* status.h - the runtime's status values (after IREE's iree_status_t): a failure carries a code, a message,
 * the file:line where it was made and every context added on the way out; success is a null value.
 *
 * A status is always consumed: returned to the caller, printed and freed (latch_status_free), or
 * deliberately dropped (latch_status_ignore). Functions that can fail return latch_status and take their
 * outputs through `out_` parameters. */
#ifndef LATCH_RUNTIME_STATUS_H
#define LATCH_RUNTIME_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum latch_status_code {
  LATCH_STATUS_OK = 0,
  LATCH_STATUS_INVALID_ARGUMENT,   /* bad user input: command line, manifest, .npy files */
  LATCH_STATUS_NOT_FOUND,          /* a file, symbol, kernel or argument that is not there */
  LATCH_STATUS_UNAVAILABLE,        /* no CUDA driver or no device */
  LATCH_STATUS_RESOURCE_EXHAUSTED, /* host or device memory, or CTAs that cannot be co-resident */
  LATCH_STATUS_FAILED_PRECONDITION,
  LATCH_STATUS_DEADLINE_EXCEEDED,  /* an update that never finished */
  LATCH_STATUS_DATA_LOSS,          /* results that cannot be right (an incomplete trace) */
  LATCH_STATUS_INTERNAL,           /* any other CUDA driver error */
  LATCH_STATUS_UNIMPLEMENTED,
} latch_status_code;

/* Null on success; otherwise owned by whoever holds it. */
typedef struct latch_status_storage *latch_status;

static inline latch_status latch_ok_status(void) { return NULL; }
static inline bool latch_status_is_ok(latch_status status) { return status == NULL; }

/* A new failure status: `format` is printf-like. Use LATCH_MAKE_STATUS, which adds file:line. Never
 * returns null (out of memory gives a static status that says so). */
latch_status latch_status_make(latch_status_code code, const char *file, int line, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Adds a context ("while ...") with its file:line to a failure and returns it; success passes through.
 * Use LATCH_RETURN_IF_ERROR, which calls it. */
latch_status latch_status_annotate(latch_status status, const char *file, int line, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

latch_status_code latch_status_code_of(latch_status status);
/* The name of a code: "INVALID_ARGUMENT", ... */
const char *latch_status_code_name(latch_status_code code);

/* The whole text: "message [file:line]; context [file:line]; ...". Valid until the status is freed. */
const char *latch_status_text(latch_status status);

/* Writes `prefix` + the text + newline to `stream`. */
void latch_status_fprint(FILE *stream, const char *prefix, latch_status status);

void latch_status_free(latch_status status);
/* Drops a status on purpose (cleanup paths where an earlier failure is already being reported). */
static inline void latch_status_ignore(latch_status status) { latch_status_free(status); }

/* Frees `status` and returns its code (LATCH_STATUS_OK for success). */
latch_status_code latch_status_consume_code(latch_status status);

#define LATCH_MAKE_STATUS(code, ...) latch_status_make((code), __FILE__, __LINE__, __VA_ARGS__)

/* Evaluates `expr` (a latch_status); on failure adds the context (printf-like, mandatory) and returns it. */
#define LATCH_RETURN_IF_ERROR(expr, ...)                                  \
  do {                                                                    \
    latch_status latch_status_tmp_ = (expr);                              \
    if (!latch_status_is_ok(latch_status_tmp_))                           \
      return latch_status_annotate(latch_status_tmp_, __FILE__, __LINE__, \
                                   __VA_ARGS__);                          \
  } while (0)

/* Evaluates `expr`; on failure returns the status unchanged (for thin wrappers with nothing to add). */
#define LATCH_RETURN_IF_ERROR_AS_IS(expr)                \
  do {                                                   \
    latch_status latch_status_tmp_ = (expr);             \
    if (!latch_status_is_ok(latch_status_tmp_))          \
      return latch_status_tmp_;                          \
  } while (0)

#endif
