/* dialects.c - C-level tests of latch_context_create (dialects/dialects.h): which dialects a Latch
 * context holds, that every op of the table is registered from the embedded IRDL, and that anything
 * else is refused. Run by test/lit/capi/dialects.test; the CHECK lines are matched against the output. */
#include <stdio.h>
#include <string.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include "../../dialects/dialects.h"
#include "../../dialects/ops.h"

static int failures;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static void print_to_stdout(MlirStringRef text, void *user_data) {
  (void)user_data;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult print_diagnostic(MlirDiagnostic diagnostic, void *user_data) {
  (void)user_data;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, print_to_stdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* Prints "<namespace>: loaded as <namespace>" or "<namespace>: not loaded". */
static bool check_dialect(MlirContext context, const char *name) {
  MlirDialect dialect = mlirContextGetOrLoadDialect(context, mlirStringRefCreateFromCString(name));
  if (mlirDialectIsNull(dialect)) {
    printf("%s: not loaded\n", name);
    return false;
  }
  MlirStringRef ns = mlirDialectGetNamespace(dialect);
  printf("%s: loaded as %.*s\n", name, (int)ns.length, ns.data);
  return ns.length == strlen(name) && memcmp(ns.data, name, ns.length) == 0;
}

static void test_latch_dialects(MlirContext context) {
  printf("== latch dialects\n");
  EXPECT(check_dialect(context, "task"), "task is not loaded");
  EXPECT(check_dialect(context, "interval"), "interval is not loaded");
  EXPECT(check_dialect(context, "arena"), "arena is not loaded");
  // CHECK-LABEL: == latch dialects
  // CHECK-NEXT: task: loaded as task
  // CHECK-NEXT: interval: loaded as interval
  // CHECK-NEXT: arena: loaded as arena
}

/* The device-level dialects, the ones task.map bodies use, and irdl itself are there from the start,
 * so that upstream passes may create any op. */
static void test_upstream_dialects(MlirContext context) {
  printf("== upstream dialects\n");
  const char *names[] = {"builtin", "func", "arith", "math", "gpu", "scf", "memref", "vector",
                         "nvvm", "nvgpu", "llvm", "irdl"};
  int loaded = 0;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
    loaded += check_dialect(context, names[i]);
  printf("%d of %zu loaded; %ld dialects in all\n", loaded, sizeof(names) / sizeof(names[0]),
         (long)mlirContextGetNumLoadedDialects(context));
  // CHECK-LABEL: == upstream dialects
  // CHECK: gpu: loaded as gpu
  // CHECK: 12 of 12 loaded; {{[0-9]+}} dialects in all

  /* Nothing unknown gets in: no unregistered dialects, so a misspelt op is an error, not an opaque op. */
  printf("unregistered dialects allowed: %d\n", mlirContextGetAllowUnregisteredDialects(context));
  check_dialect(context, "nosuch");
  // CHECK-NEXT: unregistered dialects allowed: 0
  // CHECK-NEXT: nosuch: not loaded
}

/* Every op of the table is registered with the context; other names in the same dialects are not. */
static void test_registered_ops(MlirContext context) {
  printf("== registered ops\n");
  int registered = 0;
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const char *name = latch_op_desc_get((latch_op_kind)kind)->name;
    bool is = mlirContextIsRegisteredOperation(context, mlirStringRefCreateFromCString(name));
    EXPECT(is, "%s is not registered", name);
    registered += is;
  }
  printf("%d of %d table ops registered\n", registered, LATCH_OP_COUNT - 1);
  const char *others[] = {"task.nosuch", "interval.yield", "arena.free"};
  for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); ++i)
    printf("%s registered: %d\n", others[i],
           mlirContextIsRegisteredOperation(context, mlirStringRefCreateFromCString(others[i])));
  // CHECK-LABEL: == registered ops
  // CHECK-NEXT: 40 of 40 table ops registered
  // CHECK-NEXT: task.nosuch registered: 0
  // CHECK-NEXT: interval.yield registered: 0
  // CHECK-NEXT: arena.free registered: 0
}

static void parse_and_report(MlirContext context, const char *label, const char *text) {
  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
  printf("%s: %s\n", label, mlirModuleIsNull(module) ? "rejected" : "parsed");
  if (!mlirModuleIsNull(module)) {
    mlirOperationPrint(mlirModuleGetOperation(module), print_to_stdout, NULL);
    printf("\n");
    mlirModuleDestroy(module);
  }
}

/* The parser checks what IRDL declares: op names, operand counts, attribute kinds, terminators. */
static void test_parsing(MlirContext context) {
  printf("== parsing\n");
  parse_and_report(context, "unknown op",
                   "func.func @f() {\n  \"task.nosuch\"() : () -> ()\n  return\n}\n");
  // CHECK-LABEL: == parsing
  // CHECK-NEXT: diagnostic: {{.*}}task.nosuch
  // CHECK-NEXT: unknown op: rejected
  parse_and_report(context, "matmul with one operand",
                   "func.func @f(%a: tensor<2x2xf32>) {\n"
                   "  %c = \"task.matmul\"(%a) {transpose_a = false, transpose_b = false}"
                   " : (tensor<2x2xf32>) -> tensor<2x2xf32>\n  return\n}\n");
  // CHECK-NEXT: diagnostic: {{.*}}operand
  // CHECK-NEXT: matmul with one operand: rejected
  parse_and_report(context, "reduce with a float axis",
                   "func.func @f(%a: tensor<2x2xf32>) {\n"
                   "  %c = \"task.reduce\"(%a) {axis = 1.0 : f64, kind = \"sum\"}"
                   " : (tensor<2x2xf32>) -> tensor<2xf32>\n  return\n}\n");
  // CHECK-NEXT: diagnostic: expected base attribute 'builtin.integer' but got 'builtin.float'
  // CHECK-NEXT: reduce with a float axis: rejected
  parse_and_report(context, "attention_grad with four operands",
                   "func.func @f(%a: tensor<1x1x2x2xf32>) {\n"
                   "  %g:3 = \"task.attention_grad\"(%a, %a, %a, %a) {causal = false, scale = 1.0 : f64}"
                   " : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>)"
                   " -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>)\n  return\n}\n");
  // CHECK-NEXT: diagnostic: {{.*}}expects exactly 5 operands, but got 4
  // CHECK-NEXT: attention_grad with four operands: rejected
  parse_and_report(context, "topk_grad with a float columns",
                   "func.func @f(%a: tensor<2x1xf32>, %i: tensor<2x1xi32>) {\n"
                   "  %c = \"task.topk_grad\"(%a, %i) {columns = 4.0 : f64}"
                   " : (tensor<2x1xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>\n  return\n}\n");
  // CHECK-NEXT: diagnostic: expected base attribute 'builtin.integer' but got 'builtin.float'
  // CHECK-NEXT: topk_grad with a float columns: rejected
  /* Every block of a region ends in gpu.yield: an interval.program body and a task.map body without it
   * are refused, the same program with it parses. */
  parse_and_report(context, "program without a terminator",
                   "\"interval.program\"() ({\n"
                   "^bb0(%x: tensor<2xf32>):\n"
                   "  \"interval.interval\"() {name = \"i\"} : () -> ()\n"
                   "  %y = \"task.softmax\"(%x) : (tensor<2xf32>) -> tensor<2xf32>\n"
                   "  \"interval.barrier\"() : () -> ()\n"
                   "}) {sym_name = \"p\", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()\n");
  // CHECK-NEXT: diagnostic: block with no terminator, has "interval.barrier"() : () -> ()
  // CHECK-NEXT: program without a terminator: rejected
  parse_and_report(context, "map body without a terminator",
                   "func.func @f(%a: tensor<2xf32>) {\n"
                   "  %m = \"task.map\"(%a) ({\n"
                   "  ^bb0(%x: f32):\n"
                   "    %y = arith.negf %x : f32\n"
                   "  }) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>,\n"
                   "      resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2xf32>) -> tensor<2xf32>\n"
                   "  return\n}\n");
  // CHECK-NEXT: diagnostic: block with no terminator, has %{{.*}} = "arith.negf"
  // CHECK-NEXT: map body without a terminator: rejected
  parse_and_report(context, "program ending in gpu.yield",
                   "\"interval.program\"() ({\n"
                   "^bb0(%x: tensor<2xf32>):\n"
                   "  \"interval.interval\"() {name = \"i\"} : () -> ()\n"
                   "  %y = \"task.softmax\"(%x) : (tensor<2xf32>) -> tensor<2xf32>\n"
                   "  \"interval.barrier\"() : () -> ()\n"
                   "  \"interval.interval\"() {name = \"j\"} : () -> ()\n"
                   "  gpu.yield %y : tensor<2xf32>\n"
                   "}) {sym_name = \"p\", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()\n");
  // CHECK-NEXT: program ending in gpu.yield: parsed
  // CHECK-NEXT: module {
  // CHECK-NEXT: "interval.program"() ({
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2xf32>):
  // CHECK-NEXT: "interval.interval"() {name = "i"} : () -> ()
  // CHECK-NEXT: %[[Y:.*]] = "task.softmax"(%[[X]]) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NEXT: "interval.barrier"() : () -> ()
  // CHECK-NEXT: "interval.interval"() {name = "j"} : () -> ()
  // CHECK-NEXT: gpu.yield %[[Y]] : tensor<2xf32>
  // CHECK-NEXT: }) {function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "p"} : () -> ()
  // CHECK-NEXT: }
  // CHECK-EMPTY:

  /* interval.interval is a marker: no region; interval.program's function_type is a type. */
  parse_and_report(context, "interval with a region",
                   "\"interval.interval\"() ({\n  \"interval.barrier\"() : () -> ()\n  gpu.yield\n})"
                   " {name = \"i\"} : () -> ()\n");
  // CHECK-NEXT: diagnostic: 'interval.interval' op unexpected number of regions: expected 0 but got 1
  // CHECK-NEXT: interval with a region: rejected
  parse_and_report(context, "program with a string function_type",
                   "\"interval.program\"() ({\n  gpu.yield\n}) {sym_name = \"p\", function_type = \"() -> ()\"}"
                   " : () -> ()\n");
  // CHECK-NEXT: diagnostic: expected base attribute 'builtin.type' but got 'builtin.string'
  // CHECK-NEXT: program with a string function_type: rejected
  parse_and_report(context, "program without a function_type",
                   "\"interval.program\"() ({\n  gpu.yield\n}) {sym_name = \"p\"} : () -> ()\n");
  // CHECK-NEXT: diagnostic: 'interval.program' op attribute "function_type" is expected but not provided
  // CHECK-NEXT: program without a function_type: rejected

  /* arena.bind takes a tensor value and a memref slot, in that order, and has no result. */
  parse_and_report(context, "bind of a memref",
                   "func.func @f(%t: tensor<2xf32>, %m: memref<8xi8>) {\n"
                   "  \"arena.bind\"(%m, %m) {offset = 0 : i64} : (memref<8xi8>, memref<8xi8>) -> ()\n"
                   "  return\n}\n");
  // CHECK-NEXT: diagnostic: expected base type 'builtin.tensor' but got 'builtin.memref'
  // CHECK-NEXT: bind of a memref: rejected
  parse_and_report(context, "bind with a result",
                   "func.func @f(%t: tensor<2xf32>, %m: memref<8xi8>) {\n"
                   "  %r = \"arena.bind\"(%t, %m) {offset = 0 : i64} : (tensor<2xf32>, memref<8xi8>) -> memref<8xi8>\n"
                   "  return\n}\n");
  // CHECK-NEXT: diagnostic: {{.*}}expects exactly 0 results, but got 1
  // CHECK-NEXT: bind with a result: rejected
  parse_and_report(context, "bind of a tensor to a slot",
                   "func.func @f(%t: tensor<2xf32>, %m: memref<8xi8>) {\n"
                   "  \"arena.bind\"(%t, %m) {offset = 0 : i64} : (tensor<2xf32>, memref<8xi8>) -> ()\n"
                   "  return\n}\n");
  // CHECK-NEXT: bind of a tensor to a slot: parsed
  // CHECK-NEXT: module {
  // CHECK-NEXT: func.func @f(%[[T:.*]]: tensor<2xf32>, %[[M:.*]]: memref<8xi8>) {
  // CHECK-NEXT: "arena.bind"(%[[T]], %[[M]]) {offset = 0 : i64} : (tensor<2xf32>, memref<8xi8>) -> ()
  // CHECK-NEXT: return
  // CHECK-NEXT: }
  // CHECK-NEXT: }
}

/* The embedded sources are the .irdl.mlir files: NUL-terminated text defining one dialect each. */
static void test_embedded_sources(void) {
  printf("== embedded sources\n");
  struct {
    const char *name, *source;
  } sources[] = {{"task", latch_task_irdl_source},
                 {"interval", latch_interval_irdl_source},
                 {"arena", latch_arena_irdl_source}};
  for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); ++i) {
    char needle[64];
    snprintf(needle, sizeof(needle), "irdl.dialect @%s {", sources[i].name);
    printf("%s: %s, defines @%s: %d\n", sources[i].name, strlen(sources[i].source) > 0 ? "text" : "empty",
           sources[i].name, strstr(sources[i].source, needle) != NULL);
  }
  // CHECK-LABEL: == embedded sources
  // CHECK-NEXT: task: text, defines @task: 1
  // CHECK-NEXT: interval: text, defines @interval: 1
  // CHECK-NEXT: arena: text, defines @arena: 1
}

/* Contexts are independent: each loads its own copy of the dialects, and destroying one leaves the
 * other working. */
static void test_two_contexts(MlirContext first) {
  printf("== two contexts\n");
  MlirContext second = latch_context_create();
  EXPECT(!mlirContextIsNull(second), "a second context cannot be created");
  if (mlirContextIsNull(second))
    return;
  MlirDialect a = mlirContextGetOrLoadDialect(first, mlirStringRefCreateFromCString("task"));
  MlirDialect b = mlirContextGetOrLoadDialect(second, mlirStringRefCreateFromCString("task"));
  printf("same task dialect object: %d\n", mlirDialectEqual(a, b));
  mlirContextDestroy(second);
  parse_and_report(first, "after destroying the second",
                   "%x = \"arena.arena\"() {size = 64 : i64, alignment = 64 : i64} : () -> memref<64xi8>\n");
  // CHECK-LABEL: == two contexts
  // CHECK-NEXT: same task dialect object: 0
  // CHECK-NEXT: after destroying the second: parsed
  // CHECK: "arena.arena"() {alignment = 64 : i64, size = 64 : i64} : () -> memref<64xi8>
}

int main(void) {
  MlirContext context = latch_context_create();
  if (mlirContextIsNull(context)) {
    printf("FAIL: latch_context_create returned a null context\n");
    return 1;
  }
  MlirDiagnosticHandlerID handler = mlirContextAttachDiagnosticHandler(context, print_diagnostic, NULL, NULL);
  test_latch_dialects(context);
  test_upstream_dialects(context);
  test_registered_ops(context);
  test_parsing(context);
  test_embedded_sources();
  test_two_contexts(context);
  mlirContextDetachDiagnosticHandler(context, handler);
  mlirContextDestroy(context);
  printf("failures: %d\n", failures);
  // CHECK-NOT: FAIL
  // CHECK: failures: 0
  return failures ? 1 : 0;
}
