/* textbuf.h - a growing text buffer written with printf formats (the passes that generate MLIR or JSON
 * as text). No MLIR dependency. */
#ifndef LATCH_SUPPORT_TEXTBUF_H
#define LATCH_SUPPORT_TEXTBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* `latch_text t = {0};` is an empty text. `data` holds `length` characters and a NUL after them (NULL
 * while nothing has been written); the caller owns it: release with latch_text_deinitialize. */
typedef struct latch_text {
  char *data;
  size_t length, capacity;
  bool failed; /* out of memory: everything after is dropped */
} latch_text;

/* Appends the formatted text; does nothing once `failed` is set. */
__attribute__((format(printf, 2, 3))) void latch_text_put(latch_text *text, const char *format, ...);
void latch_text_vput(latch_text *text, const char *format, va_list args);
/* Frees the data and leaves an empty text. */
void latch_text_deinitialize(latch_text *text);

#endif
