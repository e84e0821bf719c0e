/* json.c - the strict JSON reader of json.h: recursive descent over the bytes, values in one arena. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- Arena: blocks chained through their first word, freed in one call ---- */

typedef struct arena_block {
  struct arena_block *next;
  size_t used, size;
  max_align_t data[]; /* `size` bytes */
} arena_block;

static void *arena_allocate(arena_block **arena, size_t bytes) {
  bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  arena_block *block = *arena;
  if (!block || block->size - block->used < bytes) {
    size_t size = bytes > 16384 ? bytes : 16384;
    arena_block *fresh = malloc(sizeof(arena_block) + size);
    if (!fresh)
      return NULL;
    fresh->next = block;
    fresh->used = 0;
    fresh->size = size;
    *arena = block = fresh;
  }
  void *result = (char *)block->data + block->used;
  block->used += bytes;
  return result;
}

static void arena_free(arena_block *arena) {
  while (arena) {
    arena_block *next = arena->next;
    free(arena);
    arena = next;
  }
}

/* ---- Parser ---- */

typedef struct parser {
  const char *name;
  const unsigned char *text, *end, *at;
  const unsigned char *line_start;
  int line;
  arena_block *arena;
  latch_status status; /* the first error */
} parser;

static int column_of(const parser *p, const unsigned char *at) { return (int)(at - p->line_start) + 1; }

/* Records an error at byte `at` (which must be on the current line) and returns NULL. */
static void *fail_at(parser *p, const unsigned char *at, const char *format, ...) {
  if (p->status)
    return NULL;
  char message[256];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  p->status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "%s:%d:%d: %s", p->name, p->line,
                                column_of(p, at), message);
  return NULL;
}

static void *out_of_memory(parser *p) {
  if (!p->status)
    p->status = LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "%s: out of memory", p->name);
  return NULL;
}

static void skip_space(parser *p) {
  while (p->at < p->end) {
    unsigned char c = *p->at;
    if (c == '\n') {
      ++p->line;
      p->line_start = ++p->at;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++p->at;
    } else {
      break;
    }
  }
}

/* A description of the byte at `at` for messages. */
static const char *describe(const parser *p, const unsigned char *at, char *buffer, size_t size) {
  if (at >= p->end)
    return "the end of the input";
  if (*at >= 0x20 && *at < 0x7f)
    snprintf(buffer, size, "'%c'", *at);
  else
    snprintf(buffer, size, "byte 0x%02x", *at);
  return buffer;
}

static latch_json_value *new_value(parser *p, latch_json_kind kind, const unsigned char *start) {
  latch_json_value *value = arena_allocate(&p->arena, sizeof(*value));
  if (!value)
    return out_of_memory(p);
  memset(value, 0, sizeof(*value));
  value->kind = kind;
  value->line = p->line;
  value->column = column_of(p, start);
  return value;
}

static int hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads 4 hex digits at p->at (after "\u"). */
static bool read_hex4(parser *p, unsigned *out) {
  unsigned value = 0;
  for (int i = 0; i < 4; ++i) {
    if (p->at >= p->end || hex_digit(*p->at) < 0) {
      fail_at(p, p->at, "\\u needs four hex digits");
      return false;
    }
    value = value * 16 + (unsigned)hex_digit(*p->at++);
  }
  *out = value;
  return true;
}

/* Length of the valid UTF-8 sequence at `s` (0 if invalid: overlong, surrogate, > U+10FFFF, truncated). */
static size_t utf8_sequence(const unsigned char *s, const unsigned char *end) {
  unsigned char c = s[0];
  size_t n;
  unsigned min, cp;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, cp = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, cp = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, cp = c & 0x07, min = 0x10000;
  else
    return 0;
  if ((size_t)(end - s) < n)
    return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

static size_t encode_utf8(unsigned cp, unsigned char *out) {
  if (cp < 0x80) {
    out[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (unsigned char)(0xC0 | (cp >> 6));
    out[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)(0xE0 | (cp >> 12));
    out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | (cp >> 18));
  out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Parses a string at p->at (the opening quote) into arena memory. */
static bool parse_string(parser *p, const char **out_text, size_t *out_length) {
  const unsigned char *open = p->at++;
  /* The decoded text is never longer than the source text. */
  const unsigned char *scan = p->at;
  while (scan < p->end && *scan != '"') {
    if (*scan == '\\' && scan + 1 < p->end)
      ++scan;
    ++scan;
  }
  unsigned char *out = arena_allocate(&p->arena, (size_t)(scan - p->at) + 1);
  if (!out)
    return out_of_memory(p), false;
  size_t length = 0;
  for (;;) {
    if (p->at >= p->end) {
      fail_at(p, open, "unterminated string");
      return false;
    }
    unsigned char c = *p->at;
    if (c == '"') {
      ++p->at;
      break;
    }
    if (c < 0x20) {
      fail_at(p, p->at, "control character 0x%02x in a string (escape it)", c);
      return false;
    }
    if (c != '\\') {
      size_t n = utf8_sequence(p->at, p->end);
      if (n == 0) {
        fail_at(p, p->at, "invalid UTF-8 in a string");
        return false;
      }
      memcpy(out + length, p->at, n);
      length += n;
      p->at += n;
      continue;
    }
    const unsigned char *escape = p->at++;
    if (p->at >= p->end) {
      fail_at(p, open, "unterminated string");
      return false;
    }
    c = *p->at++;
    switch (c) {
    case '"': out[length++] = '"'; break;
    case '\\': out[length++] = '\\'; break;
    case '/': out[length++] = '/'; break;
    case 'b': out[length++] = '\b'; break;
    case 'f': out[length++] = '\f'; break;
    case 'n': out[length++] = '\n'; break;
    case 'r': out[length++] = '\r'; break;
    case 't': out[length++] = '\t'; break;
    case 'u': {
      unsigned cp;
      if (!read_hex4(p, &cp))
        return false;
      if (cp >= 0xDC00 && cp <= 0xDFFF) {
        fail_at(p, escape, "unpaired low surrogate \\u%04X", cp);
        return false;
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned low;
        if (p->end - p->at < 2 || p->at[0] != '\\' || p->at[1] != 'u') {
          fail_at(p, escape, "unpaired high surrogate \\u%04X", cp);
          return false;
        }
        p->at += 2;
        if (!read_hex4(p, &low))
          return false;
        if (low < 0xDC00 || low > 0xDFFF) {
          fail_at(p, escape, "unpaired high surrogate \\u%04X", cp);
          return false;
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      if (cp == 0) {
        fail_at(p, escape, "\\u0000 in a string is not supported");
        return false;
      }
      length += encode_utf8(cp, out + length);
      break;
    }
    default:
      fail_at(p, escape, "invalid escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
      return false;
    }
  }
  out[length] = '\0';
  *out_text = (const char *)out;
  *out_length = length;
  return true;
}

static bool is_digit(const parser *p, const unsigned char *at) { return at < p->end && *at >= '0' && *at <= '9'; }

static latch_json_value *parse_number(parser *p) {
  const unsigned char *start = p->at, *s = p->at;
  bool integer = true;
  if (s < p->end && *s == '-')
    ++s;
  if (!is_digit(p, s))
    return fail_at(p, s, "a number needs a digit here");
  if (*s == '0') {
    ++s;
    if (is_digit(p, s))
      return fail_at(p, start, "leading zero in a number");
  } else {
    while (is_digit(p, s))
      ++s;
  }
  if (s < p->end && *s == '.') {
    integer = false;
    ++s;
    if (!is_digit(p, s))
      return fail_at(p, s, "a digit must follow the decimal point");
    while (is_digit(p, s))
      ++s;
  }
  if (s < p->end && (*s == 'e' || *s == 'E')) {
    integer = false;
    ++s;
    if (s < p->end && (*s == '+' || *s == '-'))
      ++s;
    if (!is_digit(p, s))
      return fail_at(p, s, "the exponent needs a digit");
    while (is_digit(p, s))
      ++s;
  }
  size_t length = (size_t)(s - start);
  char buffer[128];
  if (length >= sizeof(buffer))
    return fail_at(p, start, "number too long");
  memcpy(buffer, start, length);
  buffer[length] = '\0';
  latch_json_value *value = new_value(p, LATCH_JSON_NUMBER, start);
  if (!value)
    return NULL;
  errno = 0;
  if (integer) {
    long long v = strtoll(buffer, NULL, 10);
    if (errno == ERANGE)
      return fail_at(p, start, "integer %s is out of the 64-bit range", buffer);
    value->is_integer = true;
    value->integer = (int64_t)v;
    value->number = (double)v;
  } else {
    double v = strtod(buffer, NULL);
    if (!isfinite(v))
      return fail_at(p, start, "number %s is out of the double range", buffer);
    value->number = v;
  }
  p->at = s;
  return value;
}

static latch_json_value *parse_value(parser *p, int depth);

/* A growable list of pointers (or members) kept on the heap while an array/object is parsed. */
typedef struct list {
  void *items;
  size_t count, capacity, item_size;
} list;

static bool list_push(list *l, const void *item) {
  if (l->count == l->capacity) {
    size_t capacity = l->capacity ? 2 * l->capacity : 8;
    void *items = realloc(l->items, capacity * l->item_size);
    if (!items)
      return false;
    l->items = items;
    l->capacity = capacity;
  }
  memcpy((char *)l->items + l->count * l->item_size, item, l->item_size);
  ++l->count;
  return true;
}

/* Moves the list into the arena. */
static void *list_finish(parser *p, list *l) {
  void *result = NULL;
  if (l->count) {
    result = arena_allocate(&p->arena, l->count * l->item_size);
    if (result)
      memcpy(result, l->items, l->count * l->item_size);
    else
      out_of_memory(p);
  }
  free(l->items);
  l->items = NULL;
  return result;
}

static latch_json_value *parse_array(parser *p, int depth) {
  latch_json_value *array = new_value(p, LATCH_JSON_ARRAY, p->at);
  if (!array)
    return NULL;
  ++p->at;
  list elements = {.item_size = sizeof(latch_json_value *)};
  skip_space(p);
  if (p->at < p->end && *p->at == ']') {
    ++p->at;
    return array;
  }
  for (;;) {
    latch_json_value *element = parse_value(p, depth + 1);
    if (!element || !list_push(&elements, &element)) {
      free(elements.items);
      return element ? out_of_memory(p) : NULL;
    }
    skip_space(p);
    char what[16];
    if (p->at < p->end && *p->at == ',') {
      ++p->at;
      skip_space(p);
      if (p->at < p->end && *p->at == ']') {
        free(elements.items);
        return fail_at(p, p->at, "trailing comma in an array");
      }
      continue;
    }
    if (p->at < p->end && *p->at == ']') {
      ++p->at;
      break;
    }
    free(elements.items);
    return fail_at(p, p->at, "expected ',' or ']' in an array, found %s", describe(p, p->at, what, sizeof(what)));
  }
  array->count = elements.count;
  array->elements = list_finish(p, &elements);
  return p->status ? NULL : array;
}

static latch_json_value *parse_object(parser *p, int depth) {
  latch_json_value *object = new_value(p, LATCH_JSON_OBJECT, p->at);
  if (!object)
    return NULL;
  ++p->at;
  list members = {.item_size = sizeof(latch_json_member)};
  skip_space(p);
  if (p->at < p->end && *p->at == '}') {
    ++p->at;
    return object;
  }
  for (;;) {
    char what[16];
    skip_space(p);
    if (p->at >= p->end || *p->at != '"') {
      free(members.items);
      return fail_at(p, p->at, "expected a string key in an object, found %s", describe(p, p->at, what, sizeof(what)));
    }
    const unsigned char *key_at = p->at;
    latch_json_member member;
    if (!parse_string(p, &member.key, &member.key_length)) {
      free(members.items);
      return NULL;
    }
    for (size_t i = 0; i < members.count; ++i) {
      const latch_json_member *other = (const latch_json_member *)members.items + i;
      if (other->key_length == member.key_length && memcmp(other->key, member.key, member.key_length) == 0) {
        free(members.items);
        return fail_at(p, key_at, "duplicate key \"%s\"", member.key);
      }
    }
    skip_space(p);
    if (p->at >= p->end || *p->at != ':') {
      free(members.items);
      return fail_at(p, p->at, "expected ':' after the key \"%s\", found %s", member.key,
                     describe(p, p->at, what, sizeof(what)));
    }
    ++p->at;
    member.value = parse_value(p, depth + 1);
    if (!member.value || !list_push(&members, &member)) {
      free(members.items);
      return member.value ? out_of_memory(p) : NULL;
    }
    skip_space(p);
    if (p->at < p->end && *p->at == ',') {
      ++p->at;
      skip_space(p);
      if (p->at < p->end && *p->at == '}') {
        free(members.items);
        return fail_at(p, p->at, "trailing comma in an object");
      }
      continue;
    }
    if (p->at < p->end && *p->at == '}') {
      ++p->at;
      break;
    }
    free(members.items);
    return fail_at(p, p->at, "expected ',' or '}' in an object, found %s", describe(p, p->at, what, sizeof(what)));
  }
  object->count = members.count;
  object->members = list_finish(p, &members);
  return p->status ? NULL : object;
}

static bool match_word(parser *p, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(p->end - p->at) < n || memcmp(p->at, word, n) != 0)
    return false;
  const unsigned char *after = p->at + n;
  /* "truex" is not "true" followed by garbage we could report better: refuse the whole word. */
  if (after < p->end && ((*after >= 'a' && *after <= 'z') || (*after >= 'A' && *after <= 'Z') ||
                         (*after >= '0' && *after <= '9') || *after == '_'))
    return false;
  p->at = after;
  return true;
}

static latch_json_value *parse_value(parser *p, int depth) {
  skip_space(p);
  if (depth > LATCH_JSON_MAX_DEPTH)
    return fail_at(p, p->at, "nesting deeper than %d levels", LATCH_JSON_MAX_DEPTH);
  char what[16];
  if (p->at >= p->end)
    return fail_at(p, p->at, "expected a value, found the end of the input");
  const unsigned char *start = p->at;
  switch (*p->at) {
  case '{':
    return parse_object(p, depth);
  case '[':
    return parse_array(p, depth);
  case '"': {
    latch_json_value *value = new_value(p, LATCH_JSON_STRING, start);
    if (!value || !parse_string(p, &value->string, &value->string_length))
      return NULL;
    return value;
  }
  case 't':
  case 'f':
  case 'n': {
    latch_json_kind kind = *p->at == 'n' ? LATCH_JSON_NULL : LATCH_JSON_BOOL;
    bool truth = *p->at == 't';
    if (!match_word(p, truth ? "true" : *p->at == 'f' ? "false" : "null"))
      break;
    latch_json_value *value = new_value(p, kind, start);
    if (value)
      value->boolean = truth;
    return value;
  }
  default:
    if (*p->at == '-' || (*p->at >= '0' && *p->at <= '9'))
      return parse_number(p);
    break;
  }
  return fail_at(p, start, "expected a value, found %s", describe(p, start, what, sizeof(what)));
}

latch_status latch_json_parse(const char *name, const char *text, size_t length,
                              latch_json_document *out_document) {
  memset(out_document, 0, sizeof(*out_document));
  parser p = {.name = name,
              .text = (const unsigned char *)text,
              .end = (const unsigned char *)text + length,
              .at = (const unsigned char *)text,
              .line_start = (const unsigned char *)text,
              .line = 1};
  if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    fail_at(&p, p.at, "byte order mark at the start (JSON text has none)");
  } else if (memchr(text, '\0', length)) {
    const unsigned char *nul = memchr(text, '\0', length);
    for (const unsigned char *s = p.text; s < nul; ++s)
      if (*s == '\n')
        ++p.line, p.line_start = s + 1;
    fail_at(&p, nul, "NUL byte in the input");
  } else {
    skip_space(&p);
    if (p.at >= p.end) {
      fail_at(&p, p.at, "empty input (expected a JSON value)");
    } else {
      latch_json_value *root = parse_value(&p, 1);
      if (root) {
        skip_space(&p);
        char what[16];
        if (p.at < p.end)
          fail_at(&p, p.at, "unexpected %s after the JSON value", describe(&p, p.at, what, sizeof(what)));
        else
          out_document->root = root;
      }
    }
  }
  if (p.status) {
    arena_free(p.arena);
    out_document->root = NULL;
    return p.status;
  }
  out_document->arena = p.arena;
  return latch_ok_status();
}

void latch_json_document_deinitialize(latch_json_document *document) {
  arena_free(document->arena);
  document->arena = NULL;
  document->root = NULL;
}

const latch_json_value *latch_json_object_get(const latch_json_value *object, const char *key) {
  if (!object || object->kind != LATCH_JSON_OBJECT)
    return NULL;
  size_t length = strlen(key);
  for (size_t i = 0; i < object->count; ++i)
    if (object->members[i].key_length == length && memcmp(object->members[i].key, key, length) == 0)
      return object->members[i].value;
  return NULL;
}

const char *latch_json_kind_name(latch_json_kind kind) {
  switch (kind) {
  case LATCH_JSON_NULL: return "null";
  case LATCH_JSON_BOOL: return "a boolean";
  case LATCH_JSON_NUMBER: return "a number";
  case LATCH_JSON_STRING: return "a string";
  case LATCH_JSON_ARRAY: return "an array";
  case LATCH_JSON_OBJECT: return "an object";
  }
  return "a value";
}
