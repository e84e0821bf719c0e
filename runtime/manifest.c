/* manifest.c - reads FILE.manifest.json (docs/device-abi.md) into latch_manifest, checking every key. */
#include "manifest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Manifests are small; anything larger is not one. */
#define MANIFEST_MAX_BYTES ((size_t)64 << 20)

typedef struct reader {
  const char *name;
  latch_status status;
} reader;

static bool fail(reader *r, const latch_json_value *at, const char *path, const char *format, ...) {
  if (r->status)
    return false;
  char message[384];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  r->status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "%s:%d:%d: %s%s%s", r->name, at->line, at->column,
                                path, *path ? ": " : "", message);
  return false;
}

static void join(char *out, size_t size, const char *path, const char *key) {
  snprintf(out, size, "%s%s%s", path, *path ? "." : "", key);
}

/* Refuses keys of `object` that are not in `allowed` (NULL-terminated). */
static bool check_keys(reader *r, const latch_json_value *object, const char *path, const char *const *allowed) {
  for (size_t i = 0; i < object->count; ++i) {
    bool known = false;
    for (const char *const *a = allowed; *a && !known; ++a)
      known = strcmp(object->members[i].key, *a) == 0;
    if (!known) {
      char list[256] = "";
      for (const char *const *a = allowed; *a; ++a)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", a == allowed ? "" : ", ", *a);
      return fail(r, object->members[i].value, path, "unknown key \"%s\" (expected: %s)", object->members[i].key,
                  list);
    }
  }
  return true;
}

/* Member `key` of `object` of kind `kind`; NULL when absent (an error if `required`) or of another kind. */
static const latch_json_value *get(reader *r, const latch_json_value *object, const char *path, const char *key,
                                   latch_json_kind kind, bool required) {
  const latch_json_value *value = latch_json_object_get(object, key);
  char where[256];
  join(where, sizeof(where), path, key);
  if (!value) {
    if (required)
      fail(r, object, path, "missing key \"%s\"", key);
    return NULL;
  }
  if (value->kind != kind) {
    fail(r, value, where, "expected %s, found %s", latch_json_kind_name(kind), latch_json_kind_name(value->kind));
    return NULL;
  }
  return value;
}

static bool read_integer_value(reader *r, const latch_json_value *value, const char *where, int64_t min, int64_t max,
                               int64_t *out) {
  if (value->kind != LATCH_JSON_NUMBER || !value->is_integer) {
    if (value->kind == LATCH_JSON_NUMBER)
      return fail(r, value, where, "expected an integer, found %.17g", value->number);
    return fail(r, value, where, "expected an integer, found %s", latch_json_kind_name(value->kind));
  }
  if (value->integer < min || value->integer > max)
    return fail(r, value, where, "%lld is out of range [%lld, %lld]", (long long)value->integer, (long long)min,
                (long long)max);
  *out = value->integer;
  return true;
}

/* Reads integer member `key`; absent: an error if `required`, else leaves *out and returns true. */
static bool read_integer(reader *r, const latch_json_value *object, const char *path, const char *key, int64_t min,
                         int64_t max, bool required, int64_t *out) {
  const latch_json_value *value = latch_json_object_get(object, key);
  if (!value)
    return required ? fail(r, object, path, "missing key \"%s\"", key) : true;
  char where[256];
  join(where, sizeof(where), path, key);
  return read_integer_value(r, value, where, min, max, out);
}

static char *copy_string(reader *r, const latch_json_value *value, const char *where, bool allow_empty) {
  if (!allow_empty && value->string_length == 0)
    return fail(r, value, where, "must not be empty"), NULL;
  char *copy = malloc(value->string_length + 1);
  if (!copy) {
    if (!r->status)
      r->status = LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "%s: out of memory", r->name);
    return NULL;
  }
  memcpy(copy, value->string, value->string_length + 1);
  return copy;
}

static bool read_dtype(reader *r, const latch_json_value *object, const char *path, latch_dtype *out) {
  const latch_json_value *value = get(r, object, path, "dtype", LATCH_JSON_STRING, true);
  if (!value)
    return false;
  char where[256];
  join(where, sizeof(where), path, "dtype");
  if (strcmp(value->string, "f32") == 0)
    *out = LATCH_DTYPE_F32;
  else if (strcmp(value->string, "bf16") == 0)
    *out = LATCH_DTYPE_BF16;
  else if (strcmp(value->string, "i32") == 0)
    *out = LATCH_DTYPE_I32;
  else
    return fail(r, value, where, "unknown dtype \"%s\" (expected \"f32\", \"bf16\" or \"i32\")", value->string);
  return true;
}

/* name, shape, dtype and bytes (required unless `bytes_optional`) of an argument or result. */
static bool read_tensor(reader *r, const latch_json_value *object, const char *path, bool bytes_optional,
                        latch_manifest_tensor *out) {
  char where[256];
  const latch_json_value *name = get(r, object, path, "name", LATCH_JSON_STRING, true);
  if (!name)
    return false;
  join(where, sizeof(where), path, "name");
  if (!(out->name = copy_string(r, name, where, false)))
    return false;
  const latch_json_value *shape = get(r, object, path, "shape", LATCH_JSON_ARRAY, true);
  if (!shape)
    return false;
  join(where, sizeof(where), path, "shape");
  if (shape->count > LATCH_MANIFEST_MAX_RANK)
    return fail(r, shape, where, "rank %zu is larger than %d", shape->count, LATCH_MANIFEST_MAX_RANK);
  out->rank = (int)shape->count;
  out->count = 1;
  for (size_t d = 0; d < shape->count; ++d) {
    char dim[280];
    snprintf(dim, sizeof(dim), "%s[%zu]", where, d);
    if (!read_integer_value(r, shape->elements[d], dim, 0, (int64_t)1 << 40, &out->shape[d]))
      return false;
    if (out->shape[d] != 0 && out->count > ((int64_t)1 << 40) / out->shape[d])
      return fail(r, shape, where, "more than 2^40 elements");
    out->count *= out->shape[d];
  }
  if (!read_dtype(r, object, path, &out->dtype))
    return false;
  int64_t expected = out->count * latch_dtype_size(out->dtype);
  out->bytes = expected;
  int64_t bytes = -1;
  if (!read_integer(r, object, path, "bytes", 0, INT64_MAX, !bytes_optional, &bytes))
    return false;
  if (bytes >= 0 && bytes != expected) {
    join(where, sizeof(where), path, "bytes");
    return fail(r, latch_json_object_get(object, "bytes"), where,
                "%lld, but %lld elements of %s take %lld bytes", (long long)bytes, (long long)out->count,
                latch_dtype_name(out->dtype), (long long)expected);
  }
  return true;
}

/* An interval's optional "tasks": [{"kind": "matmul", "tiles": 256}, ...], adding up to its tiles. */
static bool read_interval_tasks(reader *r, const latch_json_value *item, const char *path,
                                latch_manifest_interval *interval) {
  if (!latch_json_object_get(item, "tasks"))
    return true;
  const latch_json_value *list = get(r, item, path, "tasks", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  char where[128];
  join(where, sizeof(where), path, "tasks");
  if (!(interval->tasks = calloc(list->count ? list->count : 1, sizeof(*interval->tasks))))
    return fail(r, list, where, "out of memory");
  interval->task_count = (int64_t)list->count;
  static const char *const keys[] = {"kind", "tiles", "bytes", "flops", "body", NULL};
  int64_t sum = 0;
  for (size_t t = 0; t < list->count; ++t) {
    char task_path[160], kind_path[176];
    snprintf(task_path, sizeof(task_path), "%s[%zu]", where, t);
    const latch_json_value *task = list->elements[t];
    if (task->kind != LATCH_JSON_OBJECT)
      return fail(r, task, task_path, "expected an object, found %s", latch_json_kind_name(task->kind));
    if (!check_keys(r, task, task_path, keys))
      return false;
    const latch_json_value *kind = get(r, task, task_path, "kind", LATCH_JSON_STRING, true);
    join(kind_path, sizeof(kind_path), task_path, "kind");
    if (!kind || !(interval->tasks[t].kind = copy_string(r, kind, kind_path, false)) ||
        !read_integer(r, task, task_path, "tiles", 0, INT32_MAX, true, &interval->tasks[t].tiles) ||
        !read_integer(r, task, task_path, "bytes", 0, INT64_MAX, false, &interval->tasks[t].bytes) ||
        !read_integer(r, task, task_path, "flops", 0, INT64_MAX, false, &interval->tasks[t].flops))
      return false;
    if (latch_json_object_get(task, "body")) {
      char body_path[176];
      join(body_path, sizeof(body_path), task_path, "body");
      const latch_json_value *body = get(r, task, task_path, "body", LATCH_JSON_STRING, true);
      if (!body || !(interval->tasks[t].body = copy_string(r, body, body_path, false)))
        return false;
    }
    sum += interval->tasks[t].tiles;
  }
  if (sum != interval->tiles)
    return fail(r, list, where, "the tasks' tiles add up to %lld, but the interval has %lld", (long long)sum,
                (long long)interval->tiles);
  return true;
}

static bool read_intervals(reader *r, const latch_json_value *root, latch_manifest *m) {
  const latch_json_value *list = get(r, root, "", "intervals", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  if (list->count == 0)
    return fail(r, list, "intervals", "a program has at least one interval");
  m->intervals = calloc(list->count, sizeof(*m->intervals));
  if (!m->intervals)
    return fail(r, list, "intervals", "out of memory");
  m->interval_count = (int64_t)list->count;
  static const char *const keys[] = {"name", "tiles", "tasks", NULL};
  for (size_t i = 0; i < list->count; ++i) {
    char path[64], where[96];
    snprintf(path, sizeof(path), "intervals[%zu]", i);
    const latch_json_value *item = list->elements[i];
    if (item->kind != LATCH_JSON_OBJECT)
      return fail(r, item, path, "expected an object, found %s", latch_json_kind_name(item->kind));
    if (!check_keys(r, item, path, keys))
      return false;
    latch_manifest_interval *interval = &m->intervals[i];
    const latch_json_value *name = get(r, item, path, "name", LATCH_JSON_STRING, true);
    join(where, sizeof(where), path, "name");
    if (!name || !(interval->name = copy_string(r, name, where, false)))
      return false;
    const char *dot = strchr(interval->name, '.');
    const char *kind = dot && dot[1] ? dot + 1 : interval->name;
    size_t kind_length = strcspn(kind, "+");
    if (kind_length == 0)
      kind_length = strlen(kind);
    if (!(interval->kind = malloc(kind_length + 1)))
      return fail(r, item, path, "out of memory");
    memcpy(interval->kind, kind, kind_length);
    interval->kind[kind_length] = '\0';
    if (!read_integer(r, item, path, "tiles", 0, INT32_MAX, true, &interval->tiles) ||
        !read_interval_tasks(r, item, path, interval))
      return false;
  }
  return true;
}

/* The optional "staged_kernels": a non-empty array of kernel names (non-empty strings), in launch order. */
static bool read_staged_kernels(reader *r, const latch_json_value *root, latch_manifest *m) {
  if (!latch_json_object_get(root, "staged_kernels"))
    return true;
  const latch_json_value *list = get(r, root, "", "staged_kernels", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  if (list->count == 0)
    return fail(r, list, "staged_kernels", "when present, lists at least one kernel");
  m->staged_kernels = calloc(list->count, sizeof(*m->staged_kernels));
  if (!m->staged_kernels)
    return fail(r, list, "staged_kernels", "out of memory");
  m->staged_kernel_count = (int64_t)list->count;
  for (size_t i = 0; i < list->count; ++i) {
    char where[64];
    snprintf(where, sizeof(where), "staged_kernels[%zu]", i);
    const latch_json_value *item = list->elements[i];
    if (item->kind != LATCH_JSON_STRING)
      return fail(r, item, where, "expected a string, found %s", latch_json_kind_name(item->kind));
    if (!(m->staged_kernels[i] = copy_string(r, item, where, false)))
      return false;
  }
  return true;
}

/* The optional "launches": at least two objects {"kernel": name, "cooperative": bool}, in launch order, the
 * first a cooperative launch of the manifest's "kernel" (the runtime sizes the grid by it). */
static bool read_launches(reader *r, const latch_json_value *root, latch_manifest *m) {
  if (!latch_json_object_get(root, "launches"))
    return true;
  const latch_json_value *list = get(r, root, "", "launches", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  if (list->count < 2)
    return fail(r, list, "launches", "when present, lists at least two kernels (one is \"kernel\" alone)");
  m->launches = calloc(list->count, sizeof(*m->launches));
  if (!m->launches)
    return fail(r, list, "launches", "out of memory");
  m->launch_count = (int64_t)list->count;
  static const char *const keys[] = {"kernel", "cooperative", NULL};
  for (size_t i = 0; i < list->count; ++i) {
    char path[64];
    snprintf(path, sizeof(path), "launches[%zu]", i);
    const latch_json_value *item = list->elements[i];
    if (item->kind != LATCH_JSON_OBJECT)
      return fail(r, item, path, "expected an object, found %s", latch_json_kind_name(item->kind));
    if (!check_keys(r, item, path, keys))
      return false;
    const latch_json_value *kernel = get(r, item, path, "kernel", LATCH_JSON_STRING, true);
    const latch_json_value *cooperative = kernel ? get(r, item, path, "cooperative", LATCH_JSON_BOOL, true) : NULL;
    if (!cooperative)
      return false;
    char where[96];
    join(where, sizeof(where), path, "kernel");
    if (!(m->launches[i].kernel = copy_string(r, kernel, where, false)))
      return false;
    m->launches[i].cooperative = cooperative->boolean;
  }
  if (!m->launches[0].cooperative || strcmp(m->launches[0].kernel, m->kernel) != 0)
    return fail(r, list->elements[0], "launches[0]", "must be the cooperative launch of \"kernel\" ('%s')",
                m->kernel);
  return true;
}

static bool read_args(reader *r, const latch_json_value *root, latch_manifest *m) {
  const latch_json_value *list = get(r, root, "", "args", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  m->args = calloc(list->count ? list->count : 1, sizeof(*m->args));
  if (!m->args)
    return fail(r, list, "args", "out of memory");
  m->arg_count = (int64_t)list->count;
  static const char *const keys[] = {"index", "name", "role", "shape", "dtype", "bytes", "init", "init_std", "range",
                                     NULL};
  int64_t params = 0;
  const latch_manifest_arg *step = NULL;
  for (size_t i = 0; i < list->count; ++i) {
    char path[64], where[96];
    snprintf(path, sizeof(path), "args[%zu]", i);
    const latch_json_value *item = list->elements[i];
    if (item->kind != LATCH_JSON_OBJECT)
      return fail(r, item, path, "expected an object, found %s", latch_json_kind_name(item->kind));
    if (!check_keys(r, item, path, keys))
      return false;
    latch_manifest_arg *arg = &m->args[i];
    arg->param_index = -1;
    arg->init = LATCH_INIT_NORMAL;
    arg->init_std = 0.02;
    if (!read_integer(r, item, path, "index", 0, INT32_MAX, true, &arg->index))
      return false;
    if (arg->index != (int64_t)i) {
      join(where, sizeof(where), path, "index");
      return fail(r, latch_json_object_get(item, "index"), where,
                  "is %lld, but the arguments must be listed in order (expected %zu)", (long long)arg->index, i);
    }
    if (!read_tensor(r, item, path, false, &arg->tensor))
      return false;
    for (size_t j = 0; j < i; ++j)
      if (strcmp(m->args[j].tensor.name, arg->tensor.name) == 0)
        return fail(r, latch_json_object_get(item, "name"), path, "name \"%s\" is also the name of args[%zu]",
                    arg->tensor.name, j);
    const latch_json_value *role = get(r, item, path, "role", LATCH_JSON_STRING, true);
    if (!role)
      return false;
    join(where, sizeof(where), path, "role");
    if (strcmp(role->string, "param") == 0)
      arg->role = LATCH_ROLE_PARAM, arg->param_index = params++;
    else if (strcmp(role->string, "state") == 0)
      arg->role = LATCH_ROLE_STATE;
    else if (strcmp(role->string, "step") == 0)
      arg->role = LATCH_ROLE_STEP;
    else if (strcmp(role->string, "input") == 0)
      arg->role = LATCH_ROLE_INPUT;
    else
      return fail(r, role, where, "unknown role \"%s\" (expected \"param\", \"state\", \"step\" or \"input\")",
                  role->string);
    if (arg->role == LATCH_ROLE_STEP) {
      if (step)
        return fail(r, role, where, "a second step argument (the first is \"%s\")", step->tensor.name);
      step = arg;
      if (arg->tensor.rank != 0 || arg->tensor.dtype == LATCH_DTYPE_BF16)
        return fail(r, item, path, "the step argument must be a rank-0 f32 or i32 tensor");
    }
    const latch_json_value *init = get(r, item, path, "init", LATCH_JSON_STRING, false);
    if (r->status)
      return false;
    if (init) {
      join(where, sizeof(where), path, "init");
      if (strcmp(init->string, "normal") == 0)
        arg->init = LATCH_INIT_NORMAL;
      else if (strcmp(init->string, "ones") == 0)
        arg->init = LATCH_INIT_ONES;
      else if (strcmp(init->string, "zeros") == 0)
        arg->init = LATCH_INIT_ZEROS;
      else
        return fail(r, init, where, "unknown init \"%s\" (expected \"normal\", \"ones\" or \"zeros\")", init->string);
    }
    const latch_json_value *std = get(r, item, path, "init_std", LATCH_JSON_NUMBER, false);
    if (r->status)
      return false;
    if (std) {
      join(where, sizeof(where), path, "init_std");
      if (!(std->number >= 0))
        return fail(r, std, where, "must be a non-negative number, not %.17g", std->number);
      arg->init_std = std->number;
    }
    if (!read_integer(r, item, path, "range", 1, (int64_t)1 << 31, false, &arg->range))
      return false;
    if (arg->range && arg->tensor.dtype != LATCH_DTYPE_I32) {
      join(where, sizeof(where), path, "range");
      return fail(r, latch_json_object_get(item, "range"), where, "only i32 arguments have a range, this one is %s",
                  latch_dtype_name(arg->tensor.dtype));
    }
  }
  return true;
}

static bool same_shape(const latch_manifest_tensor *a, const latch_manifest_tensor *b) {
  if (a->rank != b->rank || a->dtype != b->dtype)
    return false;
  for (int d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d])
      return false;
  return true;
}

/* The bytes [offset, offset + bytes) of a value of `dtype` lie inside the arena and are aligned to its element. */
static bool check_arena_range(reader *r, const latch_json_value *at, const char *where, const latch_manifest *m,
                              int64_t offset, int64_t bytes, latch_dtype dtype) {
  if (offset > m->arena_bytes || bytes > m->arena_bytes - offset)
    return fail(r, at, where, "bytes %lld .. %lld lie outside the arena of %lld bytes", (long long)offset,
                (long long)(offset + bytes), (long long)m->arena_bytes);
  if (offset % latch_dtype_size(dtype) != 0)
    return fail(r, at, where, "%lld is not a multiple of the %s element size", (long long)offset,
                latch_dtype_name(dtype));
  return true;
}

static bool read_results(reader *r, const latch_json_value *root, latch_manifest *m) {
  const latch_json_value *list = get(r, root, "", "results", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  m->results = calloc(list->count ? list->count : 1, sizeof(*m->results));
  if (!m->results)
    return fail(r, list, "results", "out of memory");
  m->result_count = (int64_t)list->count;
  static const char *const keys[] = {"index", "name", "shape", "dtype", "bytes", "arena_offset", "alias_arg", NULL};
  for (size_t i = 0; i < list->count; ++i) {
    char path[64], where[96];
    snprintf(path, sizeof(path), "results[%zu]", i);
    const latch_json_value *item = list->elements[i];
    if (item->kind != LATCH_JSON_OBJECT)
      return fail(r, item, path, "expected an object, found %s", latch_json_kind_name(item->kind));
    if (!check_keys(r, item, path, keys))
      return false;
    latch_manifest_result *result = &m->results[i];
    result->arena_offset = result->alias_arg = -1;
    if (!read_integer(r, item, path, "index", 0, INT32_MAX, true, &result->index))
      return false;
    if (result->index != (int64_t)i) {
      join(where, sizeof(where), path, "index");
      return fail(r, latch_json_object_get(item, "index"), where,
                  "is %lld, but the results must be listed in order (expected %zu)", (long long)result->index, i);
    }
    if (!read_tensor(r, item, path, true, &result->tensor))
      return false;
    const latch_json_value *offset = latch_json_object_get(item, "arena_offset");
    const latch_json_value *alias = latch_json_object_get(item, "alias_arg");
    if ((offset != NULL) == (alias != NULL))
      return fail(r, item, path, "needs exactly one of \"arena_offset\" and \"alias_arg\"");
    if (offset) {
      join(where, sizeof(where), path, "arena_offset");
      if (!read_integer_value(r, offset, where, 0, INT64_MAX, &result->arena_offset))
        return false;
      if (!check_arena_range(r, offset, where, m, result->arena_offset, result->tensor.bytes, result->tensor.dtype))
        return false;
    } else {
      join(where, sizeof(where), path, "alias_arg");
      if (!read_integer_value(r, alias, where, 0, m->arg_count - 1 < 0 ? -1 : m->arg_count - 1, &result->alias_arg))
        return false;
      const latch_manifest_arg *arg = &m->args[result->alias_arg];
      if (!same_shape(&arg->tensor, &result->tensor))
        return fail(r, alias, where, "result \"%s\" and argument \"%s\" differ in shape or dtype", result->tensor.name,
                    arg->tensor.name);
    }
  }
  return true;
}

/* The optional "probes" (docs/device-abi.md "Probes"): a non-empty array of task results in the arena, each
 * with the interval that writes it, its staged kernel exactly when the manifest lists staged kernels, and
 * whether it survives to the end of the update. Names are unique among the probes. */
static bool read_probes(reader *r, const latch_json_value *root, latch_manifest *m) {
  if (!latch_json_object_get(root, "probes"))
    return true;
  const latch_json_value *list = get(r, root, "", "probes", LATCH_JSON_ARRAY, true);
  if (!list)
    return false;
  if (list->count == 0)
    return fail(r, list, "probes", "when present, lists at least one probe");
  m->probes = calloc(list->count, sizeof(*m->probes));
  if (!m->probes)
    return fail(r, list, "probes", "out of memory");
  m->probe_count = (int64_t)list->count;
  static const char *const keys[] = {"name",         "op",       "result",        "shape",         "dtype", "bytes",
                                     "arena_offset", "interval", "staged_kernel", "intact_at_end", NULL};
  for (size_t i = 0; i < list->count; ++i) {
    char path[64], where[96];
    snprintf(path, sizeof(path), "probes[%zu]", i);
    const latch_json_value *item = list->elements[i];
    if (item->kind != LATCH_JSON_OBJECT)
      return fail(r, item, path, "expected an object, found %s", latch_json_kind_name(item->kind));
    if (!check_keys(r, item, path, keys))
      return false;
    latch_manifest_probe *probe = &m->probes[i];
    probe->staged_kernel = -1;
    if (!read_tensor(r, item, path, false, &probe->tensor))
      return false;
    for (size_t j = 0; j < i; ++j)
      if (strcmp(m->probes[j].tensor.name, probe->tensor.name) == 0)
        return fail(r, latch_json_object_get(item, "name"), path, "name \"%s\" is also the name of probes[%zu]",
                    probe->tensor.name, j);
    const latch_json_value *op = get(r, item, path, "op", LATCH_JSON_STRING, true);
    join(where, sizeof(where), path, "op");
    if (!op || !(probe->op = copy_string(r, op, where, false)))
      return false;
    if (!read_integer(r, item, path, "result", 0, INT32_MAX, true, &probe->result) ||
        !read_integer(r, item, path, "arena_offset", 0, INT64_MAX, true, &probe->arena_offset))
      return false;
    join(where, sizeof(where), path, "arena_offset");
    if (!check_arena_range(r, latch_json_object_get(item, "arena_offset"), where, m, probe->arena_offset,
                           probe->tensor.bytes, probe->tensor.dtype))
      return false;
    if (!read_integer(r, item, path, "interval", 0, m->interval_count - 1, true, &probe->interval))
      return false;
    const latch_json_value *staged = latch_json_object_get(item, "staged_kernel");
    if (m->staged_kernel_count > 0 && !staged)
      return fail(r, item, path, "missing key \"staged_kernel\" (the manifest lists staged kernels)");
    if (m->staged_kernel_count == 0 && staged)
      return fail(r, staged, path, "has a \"staged_kernel\", but the manifest lists no staged kernels");
    if (staged) {
      join(where, sizeof(where), path, "staged_kernel");
      if (!read_integer_value(r, staged, where, 0, m->staged_kernel_count - 1, &probe->staged_kernel))
        return false;
    }
    const latch_json_value *intact = get(r, item, path, "intact_at_end", LATCH_JSON_BOOL, true);
    if (!intact)
      return false;
    probe->intact_at_end = intact->boolean;
  }
  return true;
}

static bool read_root(reader *r, const latch_json_value *root, latch_manifest *m) {
  if (root->kind != LATCH_JSON_OBJECT)
    return fail(r, root, "", "a manifest is a JSON object, not %s", latch_json_kind_name(root->kind));
  static const char *const keys[] = {"version",   "kernel", "block",   "dynamic_shared_bytes", "arena_bytes",
                                     "intervals", "args",   "results", "staged_kernels",       "probes",
                                     "tile_trace", "sync_words", "launches", NULL};
  if (!check_keys(r, root, "", keys))
    return false;
  if (!read_integer(r, root, "", "version", INT64_MIN, INT64_MAX, true, &m->version))
    return false;
  if (m->version != LATCH_MANIFEST_VERSION)
    return fail(r, latch_json_object_get(root, "version"), "version",
                "manifest version %lld is not supported (this runtime reads version %d)", (long long)m->version,
                LATCH_MANIFEST_VERSION);
  const latch_json_value *kernel = get(r, root, "", "kernel", LATCH_JSON_STRING, true);
  if (!kernel || !(m->kernel = copy_string(r, kernel, "kernel", false)))
    return false;
  const latch_json_value *block = get(r, root, "", "block", LATCH_JSON_ARRAY, true);
  if (!block)
    return false;
  if (block->count != 3)
    return fail(r, block, "block", "expected 3 dimensions [x, y, z], found %zu", block->count);
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    char where[32];
    int64_t value;
    snprintf(where, sizeof(where), "block[%d]", d);
    if (!read_integer_value(r, block->elements[d], where, 1, 1024, &value))
      return false;
    m->block[d] = (int)value;
    threads *= value;
  }
  if (threads > 1024)
    return fail(r, block, "block", "%lld threads per CTA; CUDA allows at most 1024", (long long)threads);
  if (!read_integer(r, root, "", "dynamic_shared_bytes", 0, INT32_MAX, true, &m->dynamic_shared_bytes) ||
      !read_integer(r, root, "", "arena_bytes", 0, INT64_MAX, true, &m->arena_bytes))
    return false;
  m->sync_words = LATCH_ABI_SYNC_WORDS;
  if (!read_integer(r, root, "", "sync_words", LATCH_ABI_SYNC_WORDS, LATCH_ABI_MAX_SYNC_WORDS, false, &m->sync_words))
    return false;
  if (latch_json_object_get(root, "tile_trace")) {
    const latch_json_value *tile_trace = get(r, root, "", "tile_trace", LATCH_JSON_BOOL, true);
    if (!tile_trace)
      return false;
    m->tile_trace = tile_trace->boolean;
  }
  return read_intervals(r, root, m) && read_staged_kernels(r, root, m) && read_launches(r, root, m) &&
         read_args(r, root, m) &&
         read_results(r, root, m) && read_probes(r, root, m);
}

latch_status latch_manifest_parse(const char *name, const char *text, size_t length, latch_manifest *out_manifest) {
  memset(out_manifest, 0, sizeof(*out_manifest));
  latch_json_document document;
  LATCH_RETURN_IF_ERROR_AS_IS(latch_json_parse(name, text, length, &document));
  reader r = {.name = name};
  read_root(&r, document.root, out_manifest);
  latch_json_document_deinitialize(&document);
  if (r.status)
    latch_manifest_deinitialize(out_manifest);
  return r.status;
}

latch_status latch_read_file(const char *path, size_t max_bytes, char **out_text, size_t *out_length) {
  *out_text = NULL;
  *out_length = 0;
  FILE *file = fopen(path, "rb");
  if (!file)
    return LATCH_MAKE_STATUS(errno == ENOENT ? LATCH_STATUS_NOT_FOUND : LATCH_STATUS_INVALID_ARGUMENT,
                             "cannot open '%s': %s", path, strerror(errno));
  size_t capacity = 4096, length = 0;
  char *text = malloc(capacity + 1);
  latch_status status = NULL;
  while (text && !status) {
    size_t n = fread(text + length, 1, capacity - length, file);
    length += n;
    if (length > max_bytes) {
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "'%s' is larger than %zu bytes", path, max_bytes);
    } else if (length == capacity) {
      char *bigger = realloc(text, 2 * capacity + 1);
      if (!bigger) {
        free(text);
        text = NULL;
        break;
      }
      text = bigger;
      capacity *= 2;
    } else if (ferror(file)) {
      status = LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "cannot read '%s': %s", path, strerror(errno));
    } else {
      break;
    }
  }
  fclose(file);
  if (!text)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory reading '%s'", path);
  if (status) {
    free(text);
    return status;
  }
  text[length] = '\0';
  *out_text = text;
  *out_length = length;
  return latch_ok_status();
}

latch_status latch_manifest_load(const char *path, latch_manifest *out_manifest) {
  memset(out_manifest, 0, sizeof(*out_manifest));
  char *text;
  size_t length;
  LATCH_RETURN_IF_ERROR(latch_read_file(path, MANIFEST_MAX_BYTES, &text, &length), "reading the manifest");
  latch_status status = latch_manifest_parse(path, text, length, out_manifest);
  free(text);
  return status;
}

void latch_manifest_deinitialize(latch_manifest *manifest) {
  free(manifest->kernel);
  for (int64_t i = 0; manifest->launches && i < manifest->launch_count; ++i)
    free(manifest->launches[i].kernel);
  free(manifest->launches);
  for (int64_t i = 0; manifest->intervals && i < manifest->interval_count; ++i) {
    free(manifest->intervals[i].name);
    free(manifest->intervals[i].kind);
    for (int64_t t = 0; t < manifest->intervals[i].task_count; ++t) {
      free(manifest->intervals[i].tasks[t].kind);
      free(manifest->intervals[i].tasks[t].body);
    }
    free(manifest->intervals[i].tasks);
  }
  free(manifest->intervals);
  for (int64_t i = 0; manifest->staged_kernels && i < manifest->staged_kernel_count; ++i)
    free(manifest->staged_kernels[i]);
  free(manifest->staged_kernels);
  for (int64_t i = 0; i < manifest->arg_count; ++i)
    free(manifest->args ? manifest->args[i].tensor.name : NULL);
  free(manifest->args);
  for (int64_t i = 0; i < manifest->result_count; ++i)
    free(manifest->results ? manifest->results[i].tensor.name : NULL);
  free(manifest->results);
  for (int64_t i = 0; manifest->probes && i < manifest->probe_count; ++i) {
    free(manifest->probes[i].tensor.name);
    free(manifest->probes[i].op);
  }
  free(manifest->probes);
  memset(manifest, 0, sizeof(*manifest));
}

const char *latch_dtype_name(latch_dtype dtype) {
  switch (dtype) {
  case LATCH_DTYPE_F32: return "f32";
  case LATCH_DTYPE_BF16: return "bf16";
  case LATCH_DTYPE_I32: return "i32";
  }
  return "?";
}

int latch_dtype_size(latch_dtype dtype) { return dtype == LATCH_DTYPE_BF16 ? 2 : 4; }

const char *latch_arg_role_name(latch_arg_role role) {
  switch (role) {
  case LATCH_ROLE_PARAM: return "param";
  case LATCH_ROLE_STATE: return "state";
  case LATCH_ROLE_STEP: return "step";
  case LATCH_ROLE_INPUT: return "input";
  }
  return "?";
}

const latch_manifest_arg *latch_manifest_find_arg(const latch_manifest *manifest, const char *name, size_t length) {
  for (int64_t k = 0; k < manifest->arg_count; ++k) {
    const char *arg_name = manifest->args[k].tensor.name;
    if (strlen(arg_name) == length && memcmp(arg_name, name, length) == 0)
      return &manifest->args[k];
  }
  if (length > 3 && memcmp(name, "arg", 3) == 0) {
    int64_t position = 0;
    for (size_t i = 3; i < length; ++i) {
      if (name[i] < '0' || name[i] > '9' || position > INT32_MAX)
        return NULL;
      position = position * 10 + (name[i] - '0');
    }
    if (position < manifest->arg_count && !(name[3] == '0' && length > 4))
      return &manifest->args[position];
  }
  return NULL;
}
