/* json.h - a small strict JSON reader (RFC 8259) for the runtime's manifests: no extensions (no comments,
 * trailing commas, NaN, leading zeros or '+'), UTF-8 checked, duplicate keys refused, nesting limited.
 * Every error names NAME:LINE:COLUMN. The whole document lives in one arena freed in one call. */
#ifndef LATCH_RUNTIME_JSON_H
#define LATCH_RUNTIME_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define LATCH_JSON_MAX_DEPTH 64

typedef enum latch_json_kind {
  LATCH_JSON_NULL,
  LATCH_JSON_BOOL,
  LATCH_JSON_NUMBER,
  LATCH_JSON_STRING,
  LATCH_JSON_ARRAY,
  LATCH_JSON_OBJECT,
} latch_json_kind;

typedef struct latch_json_value latch_json_value;

typedef struct latch_json_member {
  const char *key; /* decoded, NUL-terminated (keys holding \u0000 are refused) */
  size_t key_length;
  latch_json_value *value;
} latch_json_member;

struct latch_json_value {
  latch_json_kind kind;
  int line, column; /* where the value starts, 1-based (column in bytes) */
  bool boolean;
  bool is_integer; /* a number written without fraction or exponent; `integer` holds it exactly */
  int64_t integer;
  double number;   /* every number, also integers (rounded to double) */
  const char *string; /* decoded, NUL-terminated (strings holding \u0000 are refused) */
  size_t string_length;
  size_t count; /* array elements or object members, in document order */
  latch_json_value **elements;
  latch_json_member *members;
};

typedef struct latch_json_document {
  latch_json_value *root;
  void *arena; /* owned */
} latch_json_document;

/* Parses `length` bytes of `text`; `name` (a file name) prefixes every error. On failure `out_document`
 * holds nothing. */
latch_status latch_json_parse(const char *name, const char *text, size_t length,
                              latch_json_document *out_document);
void latch_json_document_deinitialize(latch_json_document *document);

/* The member `key` of an object, or NULL. */
const latch_json_value *latch_json_object_get(const latch_json_value *object, const char *key);
/* "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *latch_json_kind_name(latch_json_kind kind);

#endif
