/* runtime-test.c - latch-runtime-test: drives the host-side pieces of runtime/ for the lit tests in
 * test/lit/runtime (no GPU needed). Each subcommand prints what it found; errors print as
 * "error: <status text>" and exit 1.
 *   json FILE              parse FILE, print it back in one canonical line (numbers %.17g, integers exact)
 *   jsons FILE             the cases of FILE (separated by lines "-----"), each parsed as its own text
 *   manifest FILE          parse a manifest and print every field
 *   manifests FILE         the cases of FILE, each read as a manifest: "case N: ok" or its error
 *   status                 the status macros: code, file:line, context chain
 *   cuda-error CODE CALL   the status of a CUDA result without a driver (names fall back to the number)
 *   driver [LIBRARY]       load the CUDA driver table from LIBRARY (default: as latch-run does)
 *   trace KIND OUT.json    a synthetic trace analysed and written (KIND: good, zero, order, overlap; with
 *                          %smid words: sm, shared, partial, smbad)
 *   tiles                  a synthetic update's tiles' records: the slowest tasks
 *   init SEED P N STD DTYPE   the first N values the init rule gives tensor P (as float bits)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda_driver.h"
#include "../host.h"
#include "../json.h"
#include "../manifest.h"
#include "../status.h"
#include "../trace.h"

static int fail(latch_status status) {
  latch_status_fprint(stdout, "error: ", status);
  latch_status_free(status);
  return 1;
}

static void print_string(const char *s) {
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
    if (*c == '"' || *c == '\\')
      printf("\\%c", *c);
    else if (*c < 0x20)
      printf("\\u%04x", *c);
    else
      putchar(*c);
  }
  putchar('"');
}

static void print_json(const latch_json_value *v) {
  switch (v->kind) {
  case LATCH_JSON_NULL: printf("null"); break;
  case LATCH_JSON_BOOL: printf(v->boolean ? "true" : "false"); break;
  case LATCH_JSON_NUMBER:
    if (v->is_integer)
      printf("%" PRId64, v->integer);
    else
      printf("%.17g", v->number);
    break;
  case LATCH_JSON_STRING: print_string(v->string); break;
  case LATCH_JSON_ARRAY:
    putchar('[');
    for (size_t i = 0; i < v->count; ++i) {
      if (i)
        putchar(',');
      print_json(v->elements[i]);
    }
    putchar(']');
    break;
  case LATCH_JSON_OBJECT:
    putchar('{');
    for (size_t i = 0; i < v->count; ++i) {
      if (i)
        putchar(',');
      print_string(v->members[i].key);
      putchar(':');
      print_json(v->members[i].value);
    }
    putchar('}');
    break;
  }
}

static int cmd_json(const char *path) {
  char *text;
  size_t length;
  latch_status status = latch_read_file(path, (size_t)1 << 26, &text, &length);
  if (status)
    return fail(status);
  latch_json_document doc;
  status = latch_json_parse(path, text, length, &doc);
  free(text);
  if (status)
    return fail(status);
  printf("ok: ");
  print_json(doc.root);
  putchar('\n');
  latch_json_document_deinitialize(&doc);
  return 0;
}

/* Runs `check` on every case of `path`: the text between lines that are exactly "-----". Each case is
 * named PATH#N (N from 1) in messages, and its line numbers count from the case's first line. */
static int for_each_case(const char *path, latch_status (*check)(const char *name, const char *text, size_t length)) {
  char *text;
  size_t length;
  latch_status status = latch_read_file(path, (size_t)1 << 26, &text, &length);
  if (status)
    return fail(status);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char *start = text;
  for (int n = 1;; ++n) {
    char *separator = strstr(start, "\n-----\n");
    size_t size = separator ? (size_t)(separator - start) + 1 : strlen(start);
    char name[300];
    snprintf(name, sizeof(name), "%s#%d", base, n);
    status = check(name, start, size);
    if (status)
      latch_status_fprint(stdout, "", status);
    else
      printf("%s: ok\n", name);
    latch_status_free(status);
    if (!separator)
      break;
    start = separator + 7;
  }
  free(text);
  return 0;
}

static latch_status check_json(const char *name, const char *text, size_t length) {
  latch_json_document doc;
  LATCH_RETURN_IF_ERROR_AS_IS(latch_json_parse(name, text, length, &doc));
  latch_json_document_deinitialize(&doc);
  return latch_ok_status();
}

static latch_status check_manifest(const char *name, const char *text, size_t length) {
  latch_manifest m;
  LATCH_RETURN_IF_ERROR_AS_IS(latch_manifest_parse(name, text, length, &m));
  latch_manifest_deinitialize(&m);
  return latch_ok_status();
}

static void print_tensor(const latch_manifest_tensor *t) {
  printf("\"%s\" %s [", t->name, latch_dtype_name(t->dtype));
  for (int d = 0; d < t->rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)t->shape[d]);
  printf("] %lld elements %lld bytes", (long long)t->count, (long long)t->bytes);
}

static int cmd_manifest(const char *path) {
  latch_manifest m;
  latch_status status = latch_manifest_load(path, &m);
  if (status)
    return fail(status);
  printf("version %lld kernel %s block [%d, %d, %d] dynamic_shared_bytes %lld arena_bytes %lld sync_words %lld\n",
         (long long)m.version, m.kernel, m.block[0], m.block[1], m.block[2], (long long)m.dynamic_shared_bytes,
         (long long)m.arena_bytes, (long long)m.sync_words);
  for (int64_t i = 0; i < m.interval_count; ++i)
    printf("interval %lld \"%s\" kind \"%s\" tiles %lld\n", (long long)i, m.intervals[i].name, m.intervals[i].kind,
           (long long)m.intervals[i].tiles);
  for (int64_t i = 0; i < m.staged_kernel_count; ++i)
    printf("staged_kernel %lld %s\n", (long long)i, m.staged_kernels[i]);
  for (int64_t i = 0; i < m.launch_count; ++i)
    printf("launch %lld %s%s\n", (long long)i, m.launches[i].kernel, m.launches[i].cooperative ? " cooperative" : "");
  static const char *const inits[] = {"normal", "ones", "zeros"};
  for (int64_t k = 0; k < m.arg_count; ++k) {
    const latch_manifest_arg *a = &m.args[k];
    printf("arg %lld %s ", (long long)k, latch_arg_role_name(a->role));
    print_tensor(&a->tensor);
    printf(" init %s std %g range %lld param_index %lld\n", inits[a->init], a->init_std, (long long)a->range,
           (long long)a->param_index);
  }
  for (int64_t r = 0; r < m.result_count; ++r) {
    printf("result %lld ", (long long)r);
    print_tensor(&m.results[r].tensor);
    if (m.results[r].alias_arg >= 0)
      printf(" alias_arg %lld\n", (long long)m.results[r].alias_arg);
    else
      printf(" arena_offset %lld\n", (long long)m.results[r].arena_offset);
  }
  for (int64_t i = 0; i < m.probe_count; ++i) {
    const latch_manifest_probe *p = &m.probes[i];
    printf("probe %lld ", (long long)i);
    print_tensor(&p->tensor);
    printf(" op %s result %lld arena_offset %lld interval %lld staged_kernel %lld intact_at_end %s\n", p->op,
           (long long)p->result, (long long)p->arena_offset, (long long)p->interval, (long long)p->staged_kernel,
           p->intact_at_end ? "true" : "false");
  }
  latch_manifest_deinitialize(&m);
  return 0;
}

/* Three levels of calls, each adding its context on the way out. */
static latch_status innermost(int value) {
  if (value < 0)
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "value %d is negative", value);
  return latch_ok_status();
}
static latch_status middle(int value) {
  LATCH_RETURN_IF_ERROR(innermost(value), "checking value %d", value);
  return latch_ok_status();
}
static latch_status outer(int value) {
  LATCH_RETURN_IF_ERROR(middle(value), "running the outer step");
  return latch_ok_status();
}
static latch_status as_is(int value) {
  LATCH_RETURN_IF_ERROR_AS_IS(innermost(value));
  return latch_ok_status();
}

static int cmd_status(void) {
  latch_status ok = outer(1);
  printf("ok: %s code %s\n", latch_status_is_ok(ok) ? "is ok" : "is not ok", latch_status_code_name(latch_status_code_of(ok)));
  latch_status bad = outer(-2);
  printf("code %s\n", latch_status_code_name(latch_status_code_of(bad)));
  printf("text %s\n", latch_status_text(bad));
  printf("consumed %s\n", latch_status_code_name(latch_status_consume_code(bad)));
  latch_status plain = as_is(-3);
  printf("as-is %s\n", latch_status_text(plain));
  latch_status_ignore(plain);
  return 0;
}

static int cmd_cuda_error(const char *code, const char *call) {
  latch_status status = latch_cuda_result_status(NULL, (CUresult)atoi(code), call, __FILE__, __LINE__);
  printf("%s: %s\n", latch_status_code_name(latch_status_code_of(status)), latch_status_text(status));
  latch_status_free(status);
  return 0;
}

static int cmd_driver(const char *library) {
  latch_cuda_driver driver;
  latch_status status = latch_cuda_driver_load(library, &driver);
  if (status) {
    printf("%s\n", latch_status_code_name(latch_status_code_of(status)));
    return fail(status);
  }
  printf("loaded %s\n", driver.library_name);
  /* With the toolkit's stub library every call fails with CUDA_ERROR_STUB_LIBRARY: the error path. */
  status = LATCH_CU_CALL(&driver, cuInit, (0));
  if (status) {
    printf("cuInit: %s\n", latch_status_code_name(latch_status_code_of(status)));
    latch_status_fprint(stdout, "error: ", status);
    latch_status_free(status);
  } else {
    printf("cuInit: ok\n");
  }
  latch_cuda_driver_unload(&driver);
  return 0;
}

static const char synthetic_manifest[] =
    "{\"version\": 1, \"kernel\": \"latch_main\", \"block\": [256, 1, 1], \"dynamic_shared_bytes\": 0,"
    " \"arena_bytes\": 0, \"intervals\": [{\"name\": \"i0.matmul\", \"tiles\": 4},"
    " {\"name\": \"i1.map\", \"tiles\": 2}, {\"name\": \"i2.matmul+1\", \"tiles\": 4}],"
    " \"args\": [], \"results\": []}";

static int cmd_trace(const char *kind, const char *out) {
  latch_manifest m;
  latch_status status = latch_manifest_parse("synthetic", synthetic_manifest, strlen(synthetic_manifest), &m);
  if (status)
    return fail(status);
  enum { CTAS = 2, INTERVALS = 3 };
  /* CTA 0: matmul 100 busy + 20 wait, map 10 + 50, matmul 100 (last: leave = done).
   * CTA 1: matmul 60 + 60, map 40 + 20, matmul 100. Start at 1000 ns. Then the %smid words (+ 1), 0 as the
   * staged kernels leave them. */
  uint64_t trace[CTAS * INTERVALS * 3 + CTAS] = {
      1000, 1100, 1120, 1120, 1130, 1180, 1180, 1280, 1280,
      1000, 1060, 1120, 1120, 1160, 1180, 1180, 1280, 1280,
      0,    0,
  };
  uint64_t *sm_words = &trace[CTAS * INTERVALS * 3];
  if ((int64_t)(sizeof(trace) / sizeof(trace[0])) != latch_trace_buffer_words(CTAS, INTERVALS))
    return fail(LATCH_MAKE_STATUS(LATCH_STATUS_INTERNAL, "latch_trace_buffer_words disagrees"));
  if (strcmp(kind, "sm") == 0) { /* SM 5 and SM 2: one CTA per SM */
    sm_words[0] = 6;
    sm_words[1] = 3;
  } else if (strcmp(kind, "shared") == 0) { /* both on SM 3 */
    sm_words[0] = sm_words[1] = 4;
  } else if (strcmp(kind, "partial") == 0) { /* CTA 0 not recorded, CTA 1 on SM 7 */
    sm_words[1] = 8;
  } else if (strcmp(kind, "smbad") == 0) {
    sm_words[0] = 1;
    sm_words[1] = ((uint64_t)1 << 32) + 2;
  } else if (strcmp(kind, "zero") == 0)
    trace[(1 * INTERVALS + 2) * 3 + 1] = 0;
  else if (strcmp(kind, "order") == 0)
    trace[(0 * INTERVALS + 1) * 3 + 2] = 1125;
  else if (strcmp(kind, "overlap") == 0)
    trace[(1 * INTERVALS + 0) * 3 + 2] = 1150;
  latch_trace_report report;
  status = latch_trace_analyse(&m, CTAS, trace, &report);
  if (!status) {
    latch_trace_report_print(stdout, &report, LATCH_TRACE_SLOWEST);
    printf("SMs:");
    for (int64_t c = 0; c < report.ctas; ++c) {
      printf(" CTA %lld ", (long long)c);
      if (report.sms[c] >= 0)
        printf("SM %lld", (long long)report.sms[c]);
      else
        printf("none");
      printf("%s", c + 1 < report.ctas ? "," : "");
    }
    printf("; %lld recorded; one CTA per SM: %s\n", (long long)report.sms_recorded,
           report.one_cta_per_sm ? "yes" : "no");
    latch_trace_report_deinitialize(&report);
    status = latch_trace_write_json(out, &m, CTAS, trace, "synthetic \"trace\"");
  }
  latch_manifest_deinitialize(&m);
  return status ? fail(status) : 0;
}

/* The tiles' records of a synthetic update with tasks (docs/device-abi.md "Trace"): the task report. */
static const char synthetic_tasks_manifest[] =
    "{\"version\": 1, \"kernel\": \"latch_main\", \"block\": [256, 1, 1], \"dynamic_shared_bytes\": 0,"
    " \"tile_trace\": true, \"arena_bytes\": 0, \"intervals\": ["
    "{\"name\": \"i0.matmul+1\", \"tiles\": 4, \"tasks\": [{\"kind\": \"matmul\", \"tiles\": 3, \"bytes\": 2100,"
    " \"flops\": 21000000}, {\"kind\": \"convert\", \"tiles\": 1}]},"
    " {\"name\": \"i1.map\", \"tiles\": 2, \"tasks\": [{\"kind\": \"map\", \"tiles\": 2, \"bytes\": 500}]},"
    " {\"name\": \"i2.matmul+1\", \"tiles\": 4, \"tasks\": [{\"kind\": \"matmul\", \"tiles\": 2}, {\"kind\": \"adamw\", \"tiles\": 2}]}],"
    " \"args\": [], \"results\": []}";

static int cmd_tiles(const char *out) {
  latch_manifest m;
  latch_status status =
      latch_manifest_parse("synthetic", synthetic_tasks_manifest, strlen(synthetic_tasks_manifest), &m);
  if (status)
    return fail(status);
  enum { CTAS = 2, INTERVALS = 3, TILES = 10 };
  if (latch_trace_tile_records(&m) != TILES) {
    latch_manifest_deinitialize(&m);
    return fail(LATCH_MAKE_STATUS(LATCH_STATUS_INTERNAL, "latch_trace_tile_records disagrees"));
  }
  uint64_t trace[CTAS * (INTERVALS * 3 + 1) + LATCH_ABI_TILE_RECORD_WORDS * TILES] = {0};
  /* (begin, end, CTA), in ns: i0 matmul 50, 60, 100 and convert 20; i1 map 10, 40; i2 matmul 100, 90 and
   * adamw 30 and one tile that nothing ran (0, 0, 0). */
  static const uint64_t records[LATCH_ABI_TILE_RECORD_WORDS * TILES] = {
      1000, 1050, 0, 1000, 1060, 1, 1050, 1150, 0, 1060, 1080, 1, 1200, 1210, 0,
      1200, 1240, 1, 1300, 1400, 0, 1300, 1390, 1, 1400, 1430, 1, 0,    0,    0};
  memcpy(&trace[CTAS * (INTERVALS * 3 + 1)], records, sizeof(records));
  latch_trace_tasks_print(stdout, &m, CTAS, trace, 4);
  status = out ? latch_trace_write_json(out, &m, CTAS, trace, "synthetic tiles") : latch_ok_status();
  latch_manifest_deinitialize(&m);
  return status ? fail(status) : 0;
}

static int cmd_init(const char *seed, const char *p, const char *n, const char *std, const char *dtype) {
  latch_manifest_arg arg;
  memset(&arg, 0, sizeof(arg));
  arg.tensor.name = "t";
  arg.tensor.rank = 1;
  arg.tensor.count = arg.tensor.shape[0] = atoll(n);
  arg.tensor.dtype = strcmp(dtype, "bf16") == 0 ? LATCH_DTYPE_BF16 : strcmp(dtype, "i32") == 0 ? LATCH_DTYPE_I32 : LATCH_DTYPE_F32;
  arg.tensor.bytes = arg.tensor.count * latch_dtype_size(arg.tensor.dtype);
  arg.init = LATCH_INIT_NORMAL;
  arg.init_std = atof(std);
  arg.range = arg.tensor.dtype == LATCH_DTYPE_I32 ? (int64_t)atof(std) : 0;
  void *out = calloc(1, (size_t)arg.tensor.bytes + 1);
  latch_status status = latch_host_fill_by_rule(&arg, strtoull(seed, NULL, 0), strtoull(p, NULL, 0), "test", out);
  if (status) {
    free(out);
    return fail(status);
  }
  for (int64_t i = 0; i < arg.tensor.count; ++i) {
    if (arg.tensor.dtype == LATCH_DTYPE_I32)
      printf("%d\n", ((const int32_t *)out)[i]);
    else
      printf("%.9g\n", latch_host_read_float(&arg.tensor, out, i));
  }
  free(out);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "json") == 0)
    return cmd_json(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "jsons") == 0)
    return for_each_case(argv[2], check_json);
  if (argc >= 3 && strcmp(argv[1], "manifests") == 0)
    return for_each_case(argv[2], check_manifest);
  if (argc >= 3 && strcmp(argv[1], "manifest") == 0)
    return cmd_manifest(argv[2]);
  if (argc >= 2 && strcmp(argv[1], "status") == 0)
    return cmd_status();
  if (argc >= 4 && strcmp(argv[1], "cuda-error") == 0)
    return cmd_cuda_error(argv[2], argv[3]);
  if (argc >= 2 && strcmp(argv[1], "driver") == 0)
    return cmd_driver(argc >= 3 ? argv[2] : NULL);
  if (argc >= 4 && strcmp(argv[1], "trace") == 0)
    return cmd_trace(argv[2], argv[3]);
  if (argc >= 2 && strcmp(argv[1], "tiles") == 0)
    return cmd_tiles(argc >= 3 ? argv[2] : NULL);
  if (argc >= 7 && strcmp(argv[1], "init") == 0)
    return cmd_init(argv[2], argv[3], argv[4], argv[5], argv[6]);
  fprintf(stderr, "usage: latch-runtime-test json|jsons|manifest|manifests|status|cuda-error|driver|trace|tiles|init ...\n");
  return 2;
}
