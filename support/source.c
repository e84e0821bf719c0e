/* source.c - input reading, splitting and guarded parsing shared by the Latch tools. */
#include "source.h"

#include "mlir-c/Diagnostics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool latch_source_initialize(latch_source *out_source, const char *tool, const char *path) {
  memset(out_source, 0, sizeof(*out_source));
  bool is_stdin = strcmp(path, "-") == 0;
  out_source->display_name = is_stdin ? "<stdin>" : path;
  FILE *file = is_stdin ? stdin : fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "%s: error: cannot open '%s': %s\n", tool, path, strerror(errno));
    return false;
  }
  struct stat info;
  if (!is_stdin && fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    fprintf(stderr, "%s: error: cannot read '%s': it is a directory\n", tool, path);
    fclose(file);
    return false;
  }
  size_t capacity = 1 << 16, length = 0;
  char *text = malloc(capacity);
  bool ok = text != NULL;
  while (ok) {
    if (length + 1 == capacity) {
      if (capacity > LATCH_MAX_INPUT_BYTES) {
        fprintf(stderr, "%s: error: '%s' is larger than the input limit of %zu bytes\n", tool,
                out_source->display_name, LATCH_MAX_INPUT_BYTES);
        ok = false;
        break;
      }
      char *grown = realloc(text, capacity * 2);
      if (!grown) {
        fprintf(stderr, "%s: error: out of memory reading '%s'\n", tool, out_source->display_name);
        ok = false;
        break;
      }
      text = grown;
      capacity *= 2;
    }
    size_t got = fread(text + length, 1, capacity - 1 - length, file);
    length += got;
    if (got == 0) {
      if (ferror(file)) {
        fprintf(stderr, "%s: error: cannot read '%s': %s\n", tool, out_source->display_name,
                strerror(errno));
        ok = false;
      }
      break;
    }
  }
  if (ok && length > LATCH_MAX_INPUT_BYTES) {
    fprintf(stderr, "%s: error: '%s' is larger than the input limit of %zu bytes\n", tool,
            out_source->display_name, LATCH_MAX_INPUT_BYTES);
    ok = false;
  }
  if (!is_stdin)
    fclose(file);
  if (!ok) {
    free(text);
    return false;
  }
  text[length] = '\0';
  out_source->text = text;
  out_source->length = length;
  return true;
}

void latch_source_deinitialize(latch_source *source) {
  free(source->text);
  source->text = NULL;
  source->length = 0;
}

static bool is_split_marker(const char *line, const char *end) {
  static const char marker[] = "// -----";
  size_t n = sizeof(marker) - 1;
  return (size_t)(end - line) >= n && memcmp(line, marker, n) == 0;
}

size_t latch_source_split(const latch_source *source, latch_source_chunk **out_chunks) {
  const char *text = source->text, *end = text + source->length;
  size_t count = 1;
  for (const char *line = text; line < end;) {
    const char *next = memchr(line, '\n', (size_t)(end - line));
    next = next ? next + 1 : end;
    if (is_split_marker(line, next))
      count++;
    line = next;
  }
  latch_source_chunk *chunks = calloc(count, sizeof(*chunks));
  if (!chunks)
    return 0;
  size_t index = 0, line_number = 0, chunk_first_line = 0;
  const char *chunk_start = text;
  for (const char *line = text;; ) {
    const char *next = line < end ? memchr(line, '\n', (size_t)(end - line)) : NULL;
    next = next ? next + 1 : end;
    bool at_end = line >= end;
    if (at_end || is_split_marker(line, next)) {
      size_t body = (size_t)(line - chunk_start);
      size_t length = chunk_first_line + body;
      char *chunk = malloc(length + 1);
      if (!chunk) {
        latch_source_chunks_free(chunks, count);
        return 0;
      }
      memset(chunk, '\n', chunk_first_line);
      memcpy(chunk + chunk_first_line, chunk_start, body);
      chunk[length] = '\0';
      chunks[index].text = chunk;
      chunks[index].length = length;
      index++;
      if (at_end)
        break;
      chunk_start = next;
      chunk_first_line = line_number + 1;
    }
    line = next;
    line_number++;
  }
  *out_chunks = chunks;
  return count;
}

void latch_source_chunks_free(latch_source_chunk *chunks, size_t count) {
  if (!chunks)
    return;
  for (size_t i = 0; i < count; ++i)
    free(chunks[i].text);
  free(chunks);
}

static void emit_at(MlirContext context, const char *text, const char *at, const char *message) {
  unsigned line = 1, col = 1;
  for (const char *p = text; p < at; ++p) {
    if (*p == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  MlirLocation loc = mlirLocationFileLineColGet(context, mlirStringRefCreateFromCString("-"), line, col);
  mlirEmitError(loc, message);
}

bool latch_source_check(MlirContext context, const char *text, size_t length) {
  const char *nul = memchr(text, '\0', length);
  if (nul) {
    emit_at(context, text, nul, "input is not text: it contains a NUL byte");
    return false;
  }
  /* Bracket depth, skipping string literals and `//` comments, which may hold any characters. */
  int depth = 0;
  for (const char *p = text, *end = text + length; p < end; ++p) {
    char c = *p;
    if (c == '"') {
      for (++p; p < end && *p != '"' && *p != '\n'; ++p)
        if (*p == '\\' && p + 1 < end)
          ++p;
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n')
        ++p;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > LATCH_MAX_NESTING) {
        char message[128];
        snprintf(message, sizeof(message), "nesting is deeper than %d levels", LATCH_MAX_NESTING);
        emit_at(context, text, p, message);
        return false;
      }
    } else if (c == '}' || c == ')' || c == ']' || (c == '>' && p > text && p[-1] != '-')) {
      if (depth > 0)
        depth--;
    }
  }
  return true;
}

MlirModule latch_source_parse(MlirContext context, const char *text, size_t length) {
  if (!latch_source_check(context, text, length))
    return (MlirModule){NULL};
  return mlirModuleCreateParse(context, (MlirStringRef){text, length});
}
