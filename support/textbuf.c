/* textbuf.c - vsnprintf into a buffer that doubles (from 4 KiB) until the text fits. */
#include "textbuf.h"

#include <stdio.h>
#include <stdlib.h>

void latch_text_vput(latch_text *text, const char *format, va_list args) {
  if (text->failed)
    return;
  for (;;) {
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(text->data ? text->data + text->length : NULL, text->data ? text->capacity - text->length : 0,
                      format, copy);
    va_end(copy);
    if (n < 0) {
      text->failed = true;
      return;
    }
    if (text->data && text->length + (size_t)n < text->capacity) {
      text->length += (size_t)n;
      return;
    }
    size_t capacity = text->capacity ? text->capacity : 4096;
    while (capacity <= text->length + (size_t)n)
      capacity *= 2;
    char *data = realloc(text->data, capacity);
    if (!data) {
      text->failed = true;
      return;
    }
    text->data = data;
    text->capacity = capacity;
  }
}

void latch_text_put(latch_text *text, const char *format, ...) {
  va_list args;
  va_start(args, format);
  latch_text_vput(text, format, args);
  va_end(args);
}

void latch_text_deinitialize(latch_text *text) {
  free(text->data);
  *text = (latch_text){0};
}
