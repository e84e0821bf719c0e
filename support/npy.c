/* npy.c - strict .npy v1.0 reader and writer (see npy.h). */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

const char *latch_npy_dtype_descr(latch_npy_dtype dtype) {
  switch (dtype) {
  case LATCH_NPY_F32: return "<f4";
  case LATCH_NPY_F64: return "<f8";
  case LATCH_NPY_I32: return "<i4";
  }
  return "?";
}

size_t latch_npy_dtype_size(latch_npy_dtype dtype) { return dtype == LATCH_NPY_F64 ? 8 : 4; }

static bool fail(char *error, size_t error_size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, error_size, format, args);
  va_end(args);
  return false;
}

void latch_npy_array_deinitialize(latch_npy_array *array) {
  free(array->data);
  array->data = NULL;
  array->count = 0;
}

/* ---- The header: a Python dict literal with exactly the keys descr, fortran_order and shape. ---- */

typedef struct cursor {
  const char *p, *end;
} cursor;

static void skip_spaces(cursor *c) {
  while (c->p < c->end && *c->p == ' ')
    c->p++;
}

static bool take(cursor *c, char ch) {
  skip_spaces(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A quoted string ('...' or "...") without escapes, copied into `out` (NUL-terminated). */
static bool take_string(cursor *c, char *out, size_t out_size) {
  skip_spaces(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return false;
  char quote = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != quote) {
    if (*c->p == '\\' || n + 1 >= out_size)
      return false;
    out[n++] = *c->p++;
  }
  if (c->p >= c->end)
    return false;
  c->p++;
  out[n] = '\0';
  return true;
}

static bool take_word(cursor *c, const char *word) {
  skip_spaces(c);
  size_t n = strlen(word);
  if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
    c->p += n;
    return true;
  }
  return false;
}

/* A non-negative decimal integer below 2^62 (numpy may write an `L` suffix in old files: refused). */
static bool take_dim(cursor *c, int64_t *out) {
  skip_spaces(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9')
    return false;
  int64_t value = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    if (value > (((int64_t)1 << 62) - 9) / 10)
      return false;
    value = value * 10 + (*c->p++ - '0');
  }
  *out = value;
  return true;
}

static bool parse_shape(cursor *c, latch_npy_array *array, const char *name, char *error, size_t error_size) {
  if (!take(c, '('))
    return fail(error, error_size, "'%s': malformed .npy header: 'shape' is not a tuple", name);
  array->rank = 0;
  if (take(c, ')'))
    return true;
  for (;;) {
    int64_t dim;
    if (!take_dim(c, &dim))
      return fail(error, error_size, "'%s': malformed .npy header: bad dimension in 'shape'", name);
    if (array->rank == LATCH_NPY_MAX_RANK)
      return fail(error, error_size, "'%s': rank is above the limit of %d", name, LATCH_NPY_MAX_RANK);
    array->shape[array->rank++] = dim;
    bool comma = take(c, ',');
    if (take(c, ')')) {
      if (array->rank == 1 && !comma)
        return fail(error, error_size, "'%s': malformed .npy header: a one-element 'shape' needs a comma",
                    name);
      return true;
    }
    if (!comma)
      return fail(error, error_size, "'%s': malformed .npy header: bad 'shape' tuple", name);
  }
}

static bool parse_header(const char *name, const char *text, size_t length, latch_npy_array *array, char *error,
                         size_t error_size) {
  if (length == 0 || text[length - 1] != '\n')
    return fail(error, error_size, "'%s': malformed .npy header: it does not end in a newline", name);
  for (size_t i = 0; i + 1 < length; ++i)
    if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7E)
      return fail(error, error_size, "'%s': malformed .npy header: it is not printable ASCII", name);
  cursor c = {text, text + length - 1};
  bool have_descr = false, have_order = false, have_shape = false;
  if (!take(&c, '{'))
    return fail(error, error_size, "'%s': malformed .npy header: it is not a dict", name);
  while (!take(&c, '}')) {
    char key[32], descr[32];
    if (!take_string(&c, key, sizeof(key)) || !take(&c, ':'))
      return fail(error, error_size, "'%s': malformed .npy header: expected a quoted key and ':'", name);
    if (strcmp(key, "descr") == 0 && !have_descr) {
      if (!take_string(&c, descr, sizeof(descr)))
        return fail(error, error_size, "'%s': malformed .npy header: 'descr' is not a string", name);
      if (strcmp(descr, "<f4") == 0)
        array->dtype = LATCH_NPY_F32;
      else if (strcmp(descr, "<f8") == 0)
        array->dtype = LATCH_NPY_F64;
      else if (strcmp(descr, "<i4") == 0)
        array->dtype = LATCH_NPY_I32;
      else
        return fail(error, error_size, "'%s': unsupported dtype '%s' (supported: '<f4', '<f8', '<i4')", name,
                    descr);
      have_descr = true;
    } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
      if (take_word(&c, "True"))
        return fail(error, error_size, "'%s': Fortran-order arrays are not supported (write C order)", name);
      if (!take_word(&c, "False"))
        return fail(error, error_size, "'%s': malformed .npy header: 'fortran_order' is not True or False",
                    name);
      have_order = true;
    } else if (strcmp(key, "shape") == 0 && !have_shape) {
      if (!parse_shape(&c, array, name, error, error_size))
        return false;
      have_shape = true;
    } else {
      return fail(error, error_size, "'%s': malformed .npy header: unexpected or repeated key '%s'", name, key);
    }
    if (!take(&c, ',')) {
      if (!take(&c, '}'))
        return fail(error, error_size, "'%s': malformed .npy header: expected ',' or '}'", name);
      break;
    }
  }
  skip_spaces(&c);
  if (c.p != c.end)
    return fail(error, error_size, "'%s': malformed .npy header: text after the dict", name);
  if (!have_descr || !have_order || !have_shape)
    return fail(error, error_size, "'%s': malformed .npy header: missing '%s'", name,
                !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  return true;
}

bool latch_npy_parse(const char *name, const unsigned char *bytes, size_t length, latch_npy_array *out_array,
                     char *error, size_t error_size) {
  memset(out_array, 0, sizeof(*out_array));
  if (length < 10 || memcmp(bytes, magic, sizeof(magic)) != 0)
    return fail(error, error_size, "'%s': not a .npy file (no \\x93NUMPY magic)", name);
  if (bytes[6] != 1 || bytes[7] != 0)
    return fail(error, error_size, "'%s': unsupported .npy version %d.%d (supported: 1.0)", name, bytes[6],
                bytes[7]);
  size_t header_length = (size_t)bytes[8] | (size_t)bytes[9] << 8;
  if (10 + header_length > length)
    return fail(error, error_size, "'%s': truncated .npy header", name);
  latch_npy_array array = {0};
  if (!parse_header(name, (const char *)bytes + 10, header_length, &array, error, error_size))
    return false;
  size_t item = latch_npy_dtype_size(array.dtype);
  int64_t count = 1;
  for (int i = 0; i < array.rank; ++i) {
    if (array.shape[i] != 0 && count > LATCH_NPY_MAX_BYTES / (int64_t)item / array.shape[i])
      return fail(error, error_size, "'%s': the array is larger than the limit of %lld bytes", name,
                  (long long)LATCH_NPY_MAX_BYTES);
    count *= array.shape[i];
  }
  size_t data_bytes = (size_t)count * item, have = length - 10 - header_length;
  if (have != data_bytes)
    return fail(error, error_size, "'%s': the data is %zu bytes, the header says %zu (%lld elements of %s)", name,
                have, data_bytes, (long long)count, latch_npy_dtype_descr(array.dtype));
  array.count = count;
  array.data = malloc(data_bytes ? data_bytes : 1);
  if (!array.data)
    return fail(error, error_size, "'%s': out of memory", name);
  /* Little-endian bytes to host values, independent of the host's byte order. */
  const unsigned char *src = bytes + 10 + header_length;
  for (int64_t i = 0; i < count; ++i, src += item) {
    uint64_t bits = 0;
    for (size_t b = 0; b < item; ++b)
      bits |= (uint64_t)src[b] << (8 * b);
    if (item == 8) {
      memcpy((char *)array.data + i * 8, &bits, 8);
    } else {
      uint32_t narrow = (uint32_t)bits;
      memcpy((char *)array.data + i * 4, &narrow, 4);
    }
  }
  *out_array = array;
  return true;
}

bool latch_npy_read(const char *path, latch_npy_array *out_array, char *error, size_t error_size) {
  memset(out_array, 0, sizeof(*out_array));
  FILE *file = fopen(path, "rb");
  if (!file)
    return fail(error, error_size, "cannot open '%s': %s", path, strerror(errno));
  struct stat info;
  if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
    fclose(file);
    return fail(error, error_size, "cannot read '%s': not a regular file", path);
  }
  if ((int64_t)info.st_size > LATCH_NPY_MAX_BYTES + 65536) {
    fclose(file);
    return fail(error, error_size, "'%s': the file is larger than the limit of %lld bytes", path,
                (long long)LATCH_NPY_MAX_BYTES);
  }
  size_t length = (size_t)info.st_size;
  unsigned char *bytes = malloc(length ? length : 1);
  if (!bytes) {
    fclose(file);
    return fail(error, error_size, "'%s': out of memory", path);
  }
  size_t got = fread(bytes, 1, length, file);
  bool read_error = ferror(file) != 0 || got != length || fgetc(file) != EOF;
  fclose(file);
  bool ok = !read_error;
  if (read_error)
    fail(error, error_size, "cannot read '%s'", path);
  else
    ok = latch_npy_parse(path, bytes, length, out_array, error, error_size);
  free(bytes);
  return ok;
}

bool latch_npy_write(const char *path, const latch_npy_array *array, char *error, size_t error_size) {
  if (array->rank < 0 || array->rank > LATCH_NPY_MAX_RANK)
    return fail(error, error_size, "cannot write '%s': bad rank %d", path, array->rank);
  char header[512];
  int n = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   latch_npy_dtype_descr(array->dtype));
  for (int i = 0; i < array->rank; ++i)
    n += snprintf(header + n, sizeof(header) - (size_t)n, "%s%lld", i ? ", " : "", (long long)array->shape[i]);
  n += snprintf(header + n, sizeof(header) - (size_t)n, "%s), }", array->rank == 1 ? "," : "");
  /* Pad with spaces and end in a newline so that the data starts at a multiple of 64 bytes. */
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  memset(header + n, ' ', padded - total);
  header[padded - 10 - 1] = '\n';
  size_t header_length = padded - 10;

  FILE *file = fopen(path, "wb");
  if (!file)
    return fail(error, error_size, "cannot write '%s': %s", path, strerror(errno));
  unsigned char prefix[10];
  memcpy(prefix, magic, sizeof(magic));
  prefix[6] = 1;
  prefix[7] = 0;
  prefix[8] = (unsigned char)(header_length & 0xFF);
  prefix[9] = (unsigned char)(header_length >> 8);
  bool ok = fwrite(prefix, 1, 10, file) == 10 && fwrite(header, 1, header_length, file) == header_length;
  size_t item = latch_npy_dtype_size(array->dtype);
  unsigned char buffer[4096];
  size_t used = 0;
  for (int64_t i = 0; ok && i < array->count; ++i) {
    uint64_t bits = 0;
    if (item == 8) {
      memcpy(&bits, (const char *)array->data + i * 8, 8);
    } else {
      uint32_t narrow;
      memcpy(&narrow, (const char *)array->data + i * 4, 4);
      bits = narrow;
    }
    for (size_t b = 0; b < item; ++b)
      buffer[used++] = (unsigned char)(bits >> (8 * b));
    if (used + 8 > sizeof(buffer)) {
      ok = fwrite(buffer, 1, used, file) == used;
      used = 0;
    }
  }
  if (ok && used)
    ok = fwrite(buffer, 1, used, file) == used;
  if (fclose(file) != 0)
    ok = false;
  if (!ok)
    return fail(error, error_size, "cannot write '%s'", path);
  return true;
}
