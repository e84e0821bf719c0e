/* source.c - input reading, splitting and guarded parsing shared by the Latch tools. */
#include "source.h"

#include "mlir-c/Diagnostics.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool too_large(const char *tool, const char *name) {
  fprintf(stderr, "%s: error: '%s' is larger than the input limit of %zu bytes\n", tool, name,
          LATCH_MAX_INPUT_BYTES);
  return false;
}

bool latch_source_initialize(latch_source *out_source, const char *tool, const char *path) {
  memset(out_source, 0, sizeof(*out_source));
  bool is_stdin = strcmp(path, "-") == 0;
  out_source->display_name = is_stdin ? "<stdin>" : path;
  FILE *file = is_stdin ? stdin : fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "%s: error: cannot open '%s': %s\n", tool, path, strerror(errno));
    return false;
  }
  /* A regular file's size is known: refuse one over the limit without reading it, and read the rest in
   * one go (the spare byte sees the end of the file without growing the buffer). */
  size_t capacity = 1 << 16, length = 0;
  struct stat info;
  bool ok = true;
  if (fstat(fileno(file), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      fprintf(stderr, "%s: error: cannot read '%s': it is a directory\n", tool, out_source->display_name);
      ok = false;
    } else if (S_ISREG(info.st_mode) && info.st_size >= 0) {
      if ((uintmax_t)info.st_size > LATCH_MAX_INPUT_BYTES)
        ok = too_large(tool, out_source->display_name);
      else
        capacity = (size_t)info.st_size + 2;
    }
  }
  char *text = ok ? malloc(capacity) : NULL;
  if (ok && !text) {
    fprintf(stderr, "%s: error: out of memory reading '%s'\n", tool, out_source->display_name);
    ok = false;
  }
  /* Reads at most LATCH_MAX_INPUT_BYTES + 1 bytes (pipes and devices have no size; /dev/zero is endless). */
  while (ok) {
    if (length + 1 == capacity) {
      if (length > LATCH_MAX_INPUT_BYTES) {
        ok = too_large(tool, out_source->display_name);
        break;
      }
      size_t grown_capacity = capacity < (LATCH_MAX_INPUT_BYTES + 2) / 2 ? capacity * 2 : LATCH_MAX_INPUT_BYTES + 2;
      char *grown = realloc(text, grown_capacity);
      if (!grown) {
        fprintf(stderr, "%s: error: out of memory reading '%s'\n", tool, out_source->display_name);
        ok = false;
        break;
      }
      text = grown;
      capacity = grown_capacity;
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
  if (ok && length > LATCH_MAX_INPUT_BYTES)
    ok = too_large(tool, out_source->display_name);
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
  /* Each chunk is a copy (the parser needs NUL-terminated text), so all of them together are as large
   * as the input; line numbers are fixed up by an offset rather than by padding, which would be
   * quadratic in the number of chunks. */
  size_t index = 0;
  unsigned line_number = 0, chunk_first_line = 0;
  const char *chunk_start = text;
  for (const char *line = text;;) {
    const char *next = line < end ? memchr(line, '\n', (size_t)(end - line)) : NULL;
    next = next ? next + 1 : end;
    bool at_end = line >= end;
    if (at_end || is_split_marker(line, next)) {
      size_t length = (size_t)(line - chunk_start);
      char *chunk = malloc(length + 1);
      if (!chunk) {
        latch_source_chunks_free(chunks, count);
        return 0;
      }
      memcpy(chunk, chunk_start, length);
      chunk[length] = '\0';
      chunks[index].text = chunk;
      chunks[index].length = length;
      chunks[index].line_offset = chunk_first_line;
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

/* ---- the guard in front of the parser ------------------------------------------------------------ */

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

/* Returns the first byte that does not start a well-formed UTF-8 sequence (no overlong forms, no
 * surrogates, nothing above U+10FFFF), or NULL. */
static const char *find_invalid_utf8(const char *text, size_t length) {
  const unsigned char *p = (const unsigned char *)text, *end = p + length;
  while (p < end) {
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    size_t n;
    unsigned char low = 0x80, high = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0)
        low = 0xA0;
      else if (c == 0xED)
        high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0)
        low = 0x90;
      else if (c == 0xF4)
        high = 0x8F;
    } else {
      return (const char *)p;
    }
    if ((size_t)(end - p) < n || p[1] < low || p[1] > high)
      return (const char *)p;
    for (size_t i = 2; i < n; ++i)
      if ((p[i] & 0xC0) != 0x80)
        return (const char *)p;
    p += n;
  }
  return NULL;
}

/* An attribute (`#name`) or type (`!name`) alias: how deep and how large its value is once every alias
 * inside it is replaced by its own value. */
typedef struct alias {
  const char *name; /* including the `#` or `!` */
  size_t length;
  int nesting;
  size_t expanded; /* bytes, saturating at SIZE_MAX */
} alias;

/* Open addressing; `capacity` is a power of two and at most half full. */
typedef struct alias_table {
  alias *slots;
  size_t capacity, count;
} alias_table;

static size_t alias_hash(const char *name, size_t length) { /* FNV-1a */
  uint64_t hash = 14695981039346656037u;
  for (size_t i = 0; i < length; ++i)
    hash = (hash ^ (unsigned char)name[i]) * 1099511628211u;
  return (size_t)hash;
}

static alias *alias_slot(const alias_table *table, const char *name, size_t length) {
  size_t mask = table->capacity - 1;
  for (size_t i = alias_hash(name, length) & mask;; i = (i + 1) & mask) {
    alias *slot = &table->slots[i];
    if (!slot->name || (slot->length == length && memcmp(slot->name, name, length) == 0))
      return slot;
  }
}

static const alias *alias_find(const alias_table *table, const char *name, size_t length) {
  if (!table->capacity)
    return NULL;
  const alias *slot = alias_slot(table, name, length);
  return slot->name ? slot : NULL;
}

/* Adds or redefines an alias; returns false when out of memory. */
static bool alias_define(alias_table *table, alias entry) {
  if (2 * (table->count + 1) > table->capacity) {
    alias_table grown = {calloc(table->capacity ? 2 * table->capacity : 64, sizeof(alias)),
                         table->capacity ? 2 * table->capacity : 64, 0};
    if (!grown.slots)
      return false;
    for (size_t i = 0; i < table->capacity; ++i)
      if (table->slots[i].name) {
        *alias_slot(&grown, table->slots[i].name, table->slots[i].length) = table->slots[i];
        grown.count++;
      }
    free(table->slots);
    *table = grown;
  }
  alias *slot = alias_slot(table, entry.name, entry.length);
  if (!slot->name)
    table->count++;
  *slot = entry;
  return true;
}

static bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static size_t saturating_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* The nesting scan. `nesting` is the current depth in LATCH_MAX_NESTING's sense: open brackets, plus the
 * operators of the affine expression being read at each bracket level, plus the nesting of aliases
 * used. A separator (, : = ;) ends an expression and drops back to the depth of its bracket. */
typedef struct scanner {
  MlirContext context;
  const char *text, *end;
  int nesting;
  int brackets;
  int outer[LATCH_MAX_NESTING + 1]; /* nesting just before each open bracket */
  alias_table aliases;
  /* The alias being defined (`#name = value` at the top level), if `defining`. */
  bool defining, defining_has_value;
  alias definition; /* `expanded` so far: the values of the aliases it uses */
  const char *definition_start;
  size_t definition_names; /* bytes of the alias names it uses (replaced by their values) */
} scanner;

static bool too_deep(scanner *s, const char *at, const alias *through) {
  char message[192];
  if (through)
    snprintf(message, sizeof(message), "nesting is deeper than %d levels (counting the nesting of alias '%.*s')",
             LATCH_MAX_NESTING, (int)(through->length < 64 ? through->length : 64), through->name);
  else
    snprintf(message, sizeof(message), "nesting is deeper than %d levels", LATCH_MAX_NESTING);
  emit_at(s->context, s->text, at, message);
  return false;
}

/* Raises the nesting by one at `at` (an open bracket or an operator). */
static bool deeper(scanner *s, const char *at) {
  if (s->nesting >= LATCH_MAX_NESTING)
    return too_deep(s, at, NULL);
  s->nesting++;
  if (s->defining && s->nesting > s->definition.nesting)
    s->definition.nesting = s->nesting;
  return true;
}

static void end_expression(scanner *s) {
  s->nesting = s->brackets ? s->outer[s->brackets - 1] + 1 : 0;
}

/* Ends the alias definition in progress (at `at`, the end of its value) and records it. */
static bool finish_definition(scanner *s, const char *at) {
  if (!s->defining)
    return true;
  s->defining = false;
  alias *d = &s->definition;
  size_t own = (size_t)(at - s->definition_start) - s->definition_names;
  d->expanded = saturating_add(d->expanded, own);
  /* Location aliases are printed as aliases, never expanded, so only attributes and types count. */
  bool is_location = s->end - s->definition_start >= 4 && memcmp(s->definition_start, "loc(", 4) == 0;
  if (!is_location && d->expanded > LATCH_MAX_INPUT_BYTES) {
    char message[192];
    snprintf(message, sizeof(message), "alias '%.*s' expands to more than %zu bytes",
             (int)(d->length < 64 ? d->length : 64), d->name, LATCH_MAX_INPUT_BYTES);
    emit_at(s->context, s->text, d->name, message);
    return false;
  }
  if (!alias_define(&s->aliases, *d)) {
    emit_at(s->context, s->text, d->name, "out of memory checking the input");
    return false;
  }
  return true;
}

/* `#name` or `!name` at `p` (length `length`): a definition when `=` follows at the top level, else a
 * use of an alias (or of a dialect attribute or type, which the table does not know). */
static bool scan_alias_name(scanner *s, const char *p, size_t length, const char **out_next) {
  const char *q = p + length;
  while (q < s->end && (*q == ' ' || *q == '\t'))
    ++q;
  if (s->brackets == 0 && q < s->end && *q == '=' && (q + 1 == s->end || q[1] != '=')) {
    if (!finish_definition(s, p))
      return false;
    s->defining = true;
    s->defining_has_value = false;
    s->definition = (alias){p, length, 0, 0};
    s->definition_names = 0;
    s->nesting = 0;
    ++q;
    while (q < s->end && (*q == ' ' || *q == '\t'))
      ++q;
    s->definition_start = q;
    *out_next = q;
    return true;
  }
  *out_next = p + length;
  const alias *used = alias_find(&s->aliases, p, length);
  if (!used)
    return true;
  if (s->nesting + used->nesting > LATCH_MAX_NESTING)
    return too_deep(s, p, used);
  if (s->defining) {
    if (s->nesting + used->nesting > s->definition.nesting)
      s->definition.nesting = s->nesting + used->nesting;
    s->definition.expanded = saturating_add(s->definition.expanded, used->expanded);
    s->definition_names += length;
  }
  return true;
}

static bool scan(scanner *s) {
  const char *p = s->text, *end = s->end;
  while (p < end) {
    char c = *p;
    if (c == '\n') {
      /* An alias definition ends with the first line break at the top level after its value. */
      if (s->defining && s->defining_has_value && s->brackets == 0 && !finish_definition(s, p))
        return false;
      ++p;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++p;
      continue;
    }
    s->defining_has_value = true;
    if (c == '"') { /* string literal: any characters; a backslash escapes the next one */
      for (++p; p < end && *p != '"' && *p != '\n'; ++p)
        if (*p == '\\' && p + 1 < end)
          ++p;
      if (p < end && *p == '"')
        ++p;
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n')
        ++p;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      int before = s->nesting;
      if (!deeper(s, p))
        return false;
      s->outer[s->brackets++] = before;
      ++p;
    } else if (c == '}' || c == ')' || c == ']' || c == '>') {
      if (c == '>' && p + 1 < end && p[1] == '=') { /* `>=` of an integer set ends an expression */
        end_expression(s);
        p += 2;
        continue;
      }
      if (s->brackets > 0)
        s->nesting = s->outer[--s->brackets];
      ++p;
    } else if (c == ',' || c == ':' || c == '=' || c == ';') {
      end_expression(s);
      ++p;
    } else if (c == '-' && p + 1 < end && p[1] == '>') {
      p += 2;
    } else if (c == '-' || c == '+' || c == '*') {
      if (!deeper(s, p))
        return false;
      ++p;
    } else if (c == '#' || c == '!') {
      size_t length = 1;
      while (p + length < end && is_id_char(p[length]))
        length++;
      if (length == 1) {
        ++p;
      } else if (!scan_alias_name(s, p, length, &p)) {
        return false;
      }
    } else if (c == '%' || c == '^' || c == '@') { /* SSA value, block or symbol name */
      for (++p; p < end && (is_id_char(*p) || *p == '-'); ++p) {
      }
    } else if (is_digit(c)) { /* number; the sign of an exponent is not an operator */
      while (p < end && (is_id_char(*p) || ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E') &&
                                            p + 1 < end && is_digit(p[1]))))
        ++p;
    } else if (is_id_char(c)) { /* keyword or bare identifier */
      const char *word = p;
      while (p < end && is_id_char(*p))
        ++p;
      size_t n = (size_t)(p - word);
      if ((n == 3 && memcmp(word, "mod", 3) == 0) || (n == 8 && memcmp(word, "floordiv", 8) == 0) ||
          (n == 7 && memcmp(word, "ceildiv", 7) == 0)) {
        if (!deeper(s, word))
          return false;
      }
    } else {
      ++p;
    }
  }
  return finish_definition(s, end);
}

bool latch_source_check(MlirContext context, const char *text, size_t length) {
  static const char bytecode_magic[] = "ML\xefR";
  if (length >= 4 && memcmp(text, bytecode_magic, 4) == 0) {
    emit_at(context, text, text, "input is MLIR bytecode; only textual MLIR is accepted");
    return false;
  }
  const char *nul = memchr(text, '\0', length);
  if (nul) {
    emit_at(context, text, nul, "input is not text: it contains a NUL byte");
    return false;
  }
  const char *invalid = find_invalid_utf8(text, length);
  if (invalid) {
    char message[96];
    snprintf(message, sizeof(message), "input is not valid UTF-8: unexpected byte 0x%02x",
             (unsigned char)*invalid);
    emit_at(context, text, invalid, message);
    return false;
  }
  scanner *s = calloc(1, sizeof(*s));
  if (!s) {
    emit_at(context, text, text, "out of memory checking the input");
    return false;
  }
  s->context = context;
  s->text = text;
  s->end = text + length;
  bool ok = scan(s);
  free(s->aliases.slots);
  free(s);
  return ok;
}

MlirModule latch_source_parse(MlirContext context, const char *text, size_t length) {
  if (!latch_source_check(context, text, length))
    return (MlirModule){NULL};
  return mlirModuleCreateParse(context, (MlirStringRef){text, length});
}
