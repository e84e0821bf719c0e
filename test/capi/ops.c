/* ops.c - C-level tests of the dialect helper layer (dialects/ops.h): the op table against the IRDL
 * definitions, latch_op_create, the typed accessors and the attribute helpers.
 * Run by test/lit/capi/ops.test; the CHECK lines below are matched against this program's output. */
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
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

/* ---- small helpers ---------------------------------------------------------------------------- */

static void print_to_stdout(MlirStringRef text, void *user_data) {
  (void)user_data;
  fwrite(text.data, 1, text.length, stdout);
}

/* Diagnostics (from verification and parsing) go to stdout, one line each, so FileCheck sees them. */
static MlirLogicalResult print_diagnostic(MlirDiagnostic diagnostic, void *user_data) {
  (void)user_data;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, print_to_stdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static bool ref_equals(MlirStringRef ref, const char *text) {
  return ref.length == strlen(text) && memcmp(ref.data, text, ref.length) == 0;
}

static MlirStringRef op_name(MlirOperation op) { return mlirIdentifierStr(mlirOperationGetName(op)); }

static const char *kind_name(latch_attr_kind kind) {
  switch (kind) {
  case LATCH_ATTR_BOOL: return "bool";
  case LATCH_ATTR_INT: return "int";
  case LATCH_ATTR_FLOAT: return "float";
  case LATCH_ATTR_STRING: return "string";
  case LATCH_ATTR_I64_ARRAY: return "i64-array";
  case LATCH_ATTR_TYPE: return "type";
  }
  return "?";
}

/* The IRDL base-attribute name each attribute kind of the table stands for. */
static const char *kind_irdl_base(latch_attr_kind kind) {
  switch (kind) {
  case LATCH_ATTR_BOOL:
  case LATCH_ATTR_INT: return "#builtin.integer";
  case LATCH_ATTR_FLOAT: return "#builtin.float";
  case LATCH_ATTR_STRING: return "#builtin.string";
  case LATCH_ATTR_I64_ARRAY: return "#builtin.dense_array";
  case LATCH_ATTR_TYPE: return "#builtin.type";
  }
  return "?";
}

/* The descriptor whose op name is `<dialect>.<short_name>` for any dialect, e.g. "slot" -> arena.slot. */
static const latch_op_desc *desc_by_short_name(const char *short_name) {
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const latch_op_desc *desc = latch_op_desc_get((latch_op_kind)kind);
    const char *dot = strchr(desc->name, '.');
    if (dot && strcmp(dot + 1, short_name) == 0)
      return desc;
  }
  return NULL;
}

static const latch_op_desc *desc_by_name(const char *name, size_t length) {
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const latch_op_desc *desc = latch_op_desc_get((latch_op_kind)kind);
    if (strlen(desc->name) == length && memcmp(desc->name, name, length) == 0)
      return desc;
  }
  return NULL;
}

typedef struct op_search {
  const char *name;
  MlirOperation found;
} op_search;

static MlirWalkResult match_name(MlirOperation op, void *user_data) {
  op_search *search = user_data;
  if (!ref_equals(op_name(op), search->name))
    return MlirWalkResultAdvance;
  search->found = op;
  return MlirWalkResultInterrupt;
}

/* The first op named `name` inside `root` (pre-order), or a null op. */
static MlirOperation find_op(MlirOperation root, const char *name) {
  op_search search = {name, {NULL}};
  mlirOperationWalk(root, match_name, &search, MlirWalkPreOrder);
  return search.found;
}

/* Describes a value as "%argN" (a block argument) or "result #i of <op>". */
static void print_value(MlirValue value) {
  if (mlirValueIsNull(value)) {
    printf("<null>");
  } else if (mlirValueIsABlockArgument(value)) {
    printf("%%arg%ld", (long)mlirBlockArgumentGetArgNumber(value));
  } else {
    MlirStringRef name = op_name(mlirOpResultGetOwner(value));
    printf("result #%ld of %.*s", (long)mlirOpResultGetResultNumber(value), (int)name.length, name.data);
  }
}

/* ---- 1. every kind has a descriptor, and its name resolves back ------------------------------- */

static void test_descriptors(MlirContext context) {
  printf("== descriptors\n");
  EXPECT(latch_op_desc_get(LATCH_OP_UNKNOWN) == NULL, "the unknown kind has no descriptor");
  EXPECT(latch_op_desc_get(LATCH_OP_COUNT) == NULL, "LATCH_OP_COUNT has no descriptor");
  MlirLocation loc = mlirLocationUnknownGet(context);
  int resolved = 0, tasks = 0;
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const latch_op_desc *desc = latch_op_desc_get((latch_op_kind)kind);
    if (!desc || !desc->name) {
      EXPECT(false, "kind %d has no descriptor", kind);
      continue;
    }
    EXPECT(desc->kind == (latch_op_kind)kind, "descriptor of %s says kind %d, not %d", desc->name,
           desc->kind, kind);
    /* A bare op of that name (never verified: it lacks operands and attributes). */
    MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(desc->name), loc);
    MlirOperation op = mlirOperationCreate(&state);
    latch_op_kind back = latch_op_kind_of(op);
    EXPECT(back == (latch_op_kind)kind, "%s resolves to kind %d, not %d", desc->name, back, kind);
    resolved += back == (latch_op_kind)kind;
    bool is_task = strncmp(desc->name, "task.", 5) == 0;
    EXPECT(latch_op_is_task(op) == is_task, "latch_op_is_task(%s) is wrong", desc->name);
    tasks += latch_op_is_task(op);
    mlirOperationDestroy(op);
  }
  printf("%d of %d kinds resolve; %d are task ops\n", resolved, LATCH_OP_COUNT - 1, tasks);
  // CHECK-LABEL: == descriptors
  // CHECK: 40 of 40 kinds resolve; 33 are task ops

  /* Ops of other dialects are unknown, and "task" is a prefix only with its dot. */
  const char *others[] = {"func.return", "arith.addf", "gpu.yield", "tasks.matmul", "task"};
  for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); ++i) {
    MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(others[i]), loc);
    if (strchr(others[i], '.') == NULL || strncmp(others[i], "tasks.", 6) == 0)
      mlirContextSetAllowUnregisteredDialects(context, true);
    MlirOperation op = mlirOperationCreate(&state);
    mlirContextSetAllowUnregisteredDialects(context, false);
    printf("%s: kind %d, task %d\n", others[i], latch_op_kind_of(op), latch_op_is_task(op));
    mlirOperationDestroy(op);
  }
  // CHECK-NEXT: func.return: kind 0, task 0
  // CHECK-NEXT: arith.addf: kind 0, task 0
  // CHECK-NEXT: gpu.yield: kind 0, task 0
  // CHECK-NEXT: tasks.matmul: kind 0, task 0
  // CHECK-NEXT: task: kind 0, task 0
}

/* ---- 2. the C table agrees with the IRDL definitions ------------------------------------------ */


typedef struct text_buffer {
  char data[1024];
  size_t length;
} text_buffer;

static void append_to_buffer(MlirStringRef text, void *user_data) {
  text_buffer *buffer = user_data;
  size_t room = sizeof(buffer->data) - 1 - buffer->length;
  size_t n = text.length < room ? text.length : room;
  memcpy(buffer->data + buffer->length, text.data, n);
  buffer->length += n;
  buffer->data[buffer->length] = '\0';
}

static size_t count_words(const char *text, const char *word) {
  size_t count = 0;
  for (const char *p = text; (p = strstr(p, word)) != NULL; p += strlen(word))
    count++;
  return count;
}

/* Compares an irdl.operands / irdl.results op (or a null op: none) with the table's count and names.
 * A variadic entry of the table (count < 0) is `positions` optional operands in IRDL (task.map). */
static void compare_values(const char *op, const char *what, MlirOperation irdl, int count,
                           const char *const *names, int positions) {
  intptr_t irdl_count = 0;
  size_t variadic = 0;
  MlirAttribute irdl_names = {NULL};
  if (!mlirOperationIsNull(irdl)) {
    irdl_names = mlirOperationGetAttributeByName(irdl, mlirStringRefCreateFromCString("names"));
    irdl_count = mlirArrayAttrGetNumElements(irdl_names);
    /* The variadicity array has no C accessor; its printed form lists single/optional/variadic. */
    text_buffer text = {"", 0};
    mlirAttributePrint(mlirOperationGetAttributeByName(irdl, mlirStringRefCreateFromCString("variadicity")),
                       append_to_buffer, &text);
    variadic = count_words(text.data, "variadic]") + count_words(text.data, "variadic,") +
               count_words(text.data, "optional");
  }
  if (count < 0) {
    EXPECT(irdl_count == positions && variadic == (size_t)positions,
           "%s: the table says up to %d %s, IRDL has %ld (%zu optional)", op, positions, what,
           (long)irdl_count, variadic);
    return;
  } else {
    EXPECT(irdl_count == count && variadic == 0, "%s: the table has %d %s, IRDL %ld (%zu variadic)", op,
           count, what, (long)irdl_count, variadic);
  }
  int n = count < 0 ? 1 : count;
  for (int i = 0; i < n && i < irdl_count; ++i) {
    MlirStringRef name = mlirStringAttrGetValue(mlirArrayAttrGetElement(irdl_names, i));
    EXPECT(names && ref_equals(name, names[i]), "%s: %s %d is '%.*s' in IRDL, '%s' in the table", op, what,
           i, (int)name.length, name.data, names ? names[i] : "(none)");
  }
}

static void compare_attributes(const char *op, MlirOperation irdl, const latch_op_desc *desc) {
  intptr_t irdl_count = 0;
  MlirAttribute irdl_names = {NULL};
  if (!mlirOperationIsNull(irdl)) {
    irdl_names = mlirOperationGetAttributeByName(irdl, mlirStringRefCreateFromCString("attributeValueNames"));
    irdl_count = mlirArrayAttrGetNumElements(irdl_names);
  }
  EXPECT(irdl_count == desc->attr_count, "%s: the table has %d attributes, IRDL %ld", op, desc->attr_count,
         (long)irdl_count);
  for (int i = 0; i < desc->attr_count && i < irdl_count; ++i) {
    MlirStringRef name = mlirStringAttrGetValue(mlirArrayAttrGetElement(irdl_names, i));
    EXPECT(ref_equals(name, desc->attrs[i].name), "%s: attribute %d is '%.*s' in IRDL, '%s' in the table",
           op, i, (int)name.length, name.data, desc->attrs[i].name);
    /* The constraint is an irdl.base op naming the attribute kind. */
    MlirOperation constraint = mlirOpResultGetOwner(mlirOperationGetOperand(irdl, i));
    MlirAttribute base = mlirOperationGetAttributeByName(constraint, mlirStringRefCreateFromCString("base_name"));
    bool is_base = ref_equals(op_name(constraint), "irdl.base") && !mlirAttributeIsNull(base);
    MlirStringRef base_name = is_base ? mlirStringAttrGetValue(base) : mlirStringRefCreateFromCString("?");
    EXPECT(ref_equals(base_name, kind_irdl_base(desc->attrs[i].kind)),
           "%s: attribute '%s' is %s in the table but '%.*s' in IRDL", op, desc->attrs[i].name,
           kind_name(desc->attrs[i].kind), (int)base_name.length, base_name.data);
  }
}

/* The op inside an irdl.operation body named `name`, or a null op. */
static MlirOperation irdl_child(MlirOperation operation, const char *name) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(operation, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (ref_equals(op_name(op), name))
      return op;
  return (MlirOperation){NULL};
}

static void print_names(int count, const char *const *names) {
  printf("(");
  for (int i = 0; i < (count < 0 ? 1 : count); ++i)
    printf("%s%s%s", i ? ", " : "", names[i], count < 0 ? "..." : "");
  printf(")");
}

static void test_table_matches_irdl(MlirContext context) {
  printf("== table vs IRDL\n");
  const char *sources[] = {latch_task_irdl_source, latch_interval_irdl_source, latch_arena_irdl_source};
  bool seen[LATCH_OP_COUNT] = {false};
  for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); ++s) {
    MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(sources[s]));
    EXPECT(!mlirModuleIsNull(module), "an embedded IRDL source does not parse");
    if (mlirModuleIsNull(module))
      continue;
    MlirOperation dialect = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
    MlirStringRef dialect_name = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(dialect, mlirStringRefCreateFromCString("sym_name")));
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(dialect, 0));
    for (MlirOperation operation = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(operation);
         operation = mlirOperationGetNextInBlock(operation)) {
      MlirStringRef short_name = mlirStringAttrGetValue(
          mlirOperationGetAttributeByName(operation, mlirStringRefCreateFromCString("sym_name")));
      char full[128];
      snprintf(full, sizeof(full), "%.*s.%.*s", (int)dialect_name.length, dialect_name.data,
               (int)short_name.length, short_name.data);
      const latch_op_desc *desc = desc_by_name(full, strlen(full));
      EXPECT(desc != NULL, "IRDL defines %s, the table does not", full);
      if (!desc)
        continue;
      seen[desc->kind] = true;
      compare_values(full, "operands", irdl_child(operation, "irdl.operands"), desc->operand_count,
                     desc->operand_names, LATCH_MAP_MAX_INPUTS);
      compare_values(full, "results", irdl_child(operation, "irdl.results"), desc->result_count,
                     desc->result_names, LATCH_MAP_MAX_OUTPUTS);
      MlirOperation regions = irdl_child(operation, "irdl.regions");
      intptr_t region_count = mlirOperationIsNull(regions) ? 0 : mlirOperationGetNumOperands(regions);
      EXPECT(region_count == desc->region_count, "%s: the table has %d regions, IRDL %ld", full,
             desc->region_count, (long)region_count);
      compare_attributes(full, irdl_child(operation, "irdl.attributes"), desc);
      /* The table, as checked: one line per op. */
      printf("%s", desc->name);
      print_names(desc->operand_count, desc->operand_names);
      printf(" -> ");
      print_names(desc->result_count, desc->result_names);
      if (desc->region_count)
        printf(" regions %d", desc->region_count);
      for (int i = 0; i < desc->attr_count; ++i)
        printf("%s%s: %s", i ? ", " : " {", desc->attrs[i].name, kind_name(desc->attrs[i].kind));
      printf("%s\n", desc->attr_count ? "}" : "");
    }
    mlirModuleDestroy(module);
  }
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind)
    EXPECT(seen[kind], "the table has %s, IRDL does not", latch_op_desc_get((latch_op_kind)kind)->name);
  // CHECK-LABEL: == table vs IRDL
  // CHECK-NEXT: task.matmul(a, b) -> (c) {transpose_a: bool, transpose_b: bool}
  // CHECK-NEXT: task.grouped_matmul(x, w, ends) -> (y)
  // CHECK-NEXT: task.map(ins...) -> (outs...) regions 1
  // CHECK-NEXT: task.reduce(x) -> (y) {axis: int, kind: string}
  // CHECK-NEXT: task.rmsnorm(x, w) -> (y) {eps: float}
  // CHECK-NEXT: task.softmax(x) -> (y)
  // CHECK-NEXT: task.cross_entropy(logits, targets) -> (loss)
  // CHECK-NEXT: task.embedding(table, ids) -> (y)
  // CHECK-NEXT: task.rope(x) -> (y) {theta: float}
  // CHECK-NEXT: task.attention(q, k, v) -> (o) {causal: bool, scale: float}
  // CHECK-NEXT: task.topk(x) -> (values, indices) {k: int}
  // CHECK-NEXT: task.bucket(ids) -> (order, ends) {buckets: int}
  // CHECK-NEXT: task.gather_rows(x, idx) -> (y)
  // CHECK-NEXT: task.scatter_add_rows(x, idx) -> (y) {rows: int}
  // CHECK-NEXT: task.reshape(x) -> (y)
  // CHECK-NEXT: task.transpose(x) -> (y) {perm: i64-array}
  // CHECK-NEXT: task.convert(x) -> (y)
  // CHECK-NEXT: task.adamw(p, g, m, v, step) -> (p_out, m_out, v_out) {lr: float, beta1: float, beta2: float, eps: float, weight_decay: float}
  // CHECK-NEXT: task.reduce_grad(x, dy) -> (dx) {axis: int, kind: string}
  // CHECK-NEXT: task.rmsnorm_grad(x, w, dy) -> (dx, dw) {eps: float}
  // CHECK-NEXT: task.softmax_grad(y, dy) -> (dx)
  // CHECK-NEXT: task.cross_entropy_grad(logits, targets, dloss) -> (dlogits)
  // CHECK-NEXT: task.rope_grad(dy) -> (dx) {theta: float}
  // CHECK-NEXT: task.attention_grad(q, k, v, o, do) -> (dq, dk, dv) {causal: bool, scale: float}
  // CHECK-NEXT: task.topk_grad(dvalues, indices) -> (dx) {columns: int}
  // CHECK-NEXT: task.grouped_matmul_weight_grad(x, dy, ends) -> (dw)
  // CHECK-NEXT: task.attention_stats(q, k, o, do) -> (stats) {causal: bool, scale: float}
  // CHECK-NEXT: task.attention_grad_from_stats(q, k, v, do, stats) -> (dq, dk, dv) {causal: bool, scale: float}
  // CHECK-NEXT: task.attention_lse(q, k, v) -> (o, lse) {causal: bool, scale: float}
  // CHECK-NEXT: task.attention_stats_from_lse(o, do, lse) -> (stats)
  // CHECK-NEXT: task.cross_entropy_with_stats(logits, targets) -> (loss, stats)
  // CHECK-NEXT: task.cross_entropy_grad_from_stats(logits, targets, dloss, stats) -> (dlogits)
  // CHECK-NEXT: task.grouped_matmul_weight_grad_concat(x, dy0, dy1, ends) -> (dw)
  // CHECK-NEXT: interval.program() -> () regions 1 {sym_name: string, function_type: type}
  // CHECK-NEXT: interval.interval() -> () {name: string}
  // CHECK-NEXT: interval.barrier() -> ()
  // CHECK-NEXT: arena.arena() -> (buffer) {size: int, alignment: int}
  // CHECK-NEXT: arena.slot(arena) -> (bytes) {offset: int, size: int, alignment: int}
  // CHECK-NEXT: arena.bind(value, slot) -> () {offset: int}
  // CHECK-NEXT: arena.view(slot) -> (view)
  // Nothing follows: the listing has exactly the table's ops.
  // CHECK-NOT: {{^(task|interval|arena)\.}}
}

/* ---- 3. latch_op_create with the table's attributes gives ops that verify --------------------- */

static MlirAttribute sample_attr(MlirContext context, latch_attr_kind kind) {
  static const int64_t perm[] = {1, 0};
  switch (kind) {
  case LATCH_ATTR_BOOL: return latch_attr_get_bool(context, true);
  case LATCH_ATTR_INT: return latch_attr_get_int(context, 64);
  case LATCH_ATTR_FLOAT: return latch_attr_get_float(context, 0.5);
  case LATCH_ATTR_STRING: return latch_attr_get_string(context, "s");
  case LATCH_ATTR_I64_ARRAY: return latch_attr_get_i64_array(context, 2, perm);
  case LATCH_ATTR_TYPE: {
    /* A function type, as interval.program's function_type: one tensor in, the same tensor out. */
    static const int64_t shape[] = {2, 2};
    MlirType tensor = mlirRankedTensorTypeGet(2, shape, mlirF32TypeGet(context), mlirAttributeGetNull());
    return mlirTypeAttrGet(mlirFunctionTypeGet(context, 1, &tensor, 1, &tensor));
  }
  }
  return (MlirAttribute){NULL};
}

/* The irdl.operation that defines the op named `name` in the parsed IRDL modules, or a null op. */
static MlirOperation irdl_operation_named(const MlirModule *modules, size_t count, const char *name) {
  for (size_t m = 0; m < count; ++m) {
    if (mlirModuleIsNull(modules[m]))
      continue;
    MlirOperation dialect = mlirBlockGetFirstOperation(mlirModuleGetBody(modules[m]));
    MlirStringRef dialect_name = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(dialect, mlirStringRefCreateFromCString("sym_name")));
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(dialect, 0));
    for (MlirOperation operation = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(operation);
         operation = mlirOperationGetNextInBlock(operation)) {
      MlirStringRef short_name = mlirStringAttrGetValue(
          mlirOperationGetAttributeByName(operation, mlirStringRefCreateFromCString("sym_name")));
      char full[128];
      snprintf(full, sizeof(full), "%.*s.%.*s", (int)dialect_name.length, dialect_name.data,
               (int)short_name.length, short_name.data);
      if (strcmp(full, name) == 0)
        return operation;
    }
  }
  return (MlirOperation){NULL};
}

/* The base type ("!builtin.tensor", "!builtin.memref") that IRDL requires of position `index` of the
 * irdl.operands or irdl.results op `values` (`what`) of an irdl.operation; "?" when there is no such
 * position or its constraint is not an irdl.base. A variadic op of the table has one optional position
 * per value in IRDL (task.map), so `index` is a position there too. */
static MlirStringRef irdl_value_base(MlirOperation operation, const char *what, int index) {
  MlirOperation values = mlirOperationIsNull(operation) ? operation : irdl_child(operation, what);
  if (mlirOperationIsNull(values) || index >= mlirOperationGetNumOperands(values))
    return mlirStringRefCreateFromCString("?");
  MlirOperation constraint = mlirOpResultGetOwner(mlirOperationGetOperand(values, index));
  MlirAttribute base = mlirOperationGetAttributeByName(constraint, mlirStringRefCreateFromCString("base_name"));
  if (!ref_equals(op_name(constraint), "irdl.base") || mlirAttributeIsNull(base))
    return mlirStringRefCreateFromCString("?");
  return mlirStringAttrGetValue(base);
}

/* A function-like op (interval.program) has a `function_type` type attribute: like a func.func it lives
 * at module level, and its body's block takes the function type's inputs and yields its results. */
static bool is_function_like(const latch_op_desc *desc) {
  for (int i = 0; i < desc->attr_count; ++i)
    if (strcmp(desc->attrs[i].name, "function_type") == 0 && desc->attrs[i].kind == LATCH_ATTR_TYPE)
      return true;
  return false;
}

static void test_create(MlirContext context) {
  printf("== create\n");
  MlirModule module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString("func.func @host(%t: tensor<2x2xf32>, %m: memref<64xi8>) {\n"
                                              "  return\n"
                                              "}\n"));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetTerminator(body);
  MlirValue tensor = mlirBlockGetArgument(body, 0), memref = mlirBlockGetArgument(body, 1);
  MlirType tensor_type = mlirValueGetType(tensor), memref_type = mlirValueGetType(memref);
  MlirLocation loc = mlirLocationUnknownGet(context);
  /* Which kind of value each operand and result takes comes from the IRDL definitions, position by
   * position (arena.bind takes a tensor and a memref), never from the op's name. */
  const char *sources[] = {latch_task_irdl_source, latch_interval_irdl_source, latch_arena_irdl_source};
  MlirModule irdl[3];
  for (size_t s = 0; s < 3; ++s)
    irdl[s] = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(sources[s]));

  int verified = 0, tensor_values = 0, memref_values = 0;
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const latch_op_desc *desc = latch_op_desc_get((latch_op_kind)kind);
    MlirOperation definition = irdl_operation_named(irdl, 3, desc->name);
    EXPECT(!mlirOperationIsNull(definition), "%s: no IRDL definition", desc->name);
    MlirValue operands[8];
    MlirType results[8];
    MlirAttribute attrs[8];
    int operand_count = desc->operand_count < 0 ? 2 : desc->operand_count;
    int result_count = desc->result_count < 0 ? 1 : desc->result_count;
    for (int i = 0; i < operand_count; ++i) {
      MlirStringRef base = irdl_value_base(definition, "irdl.operands", i);
      bool is_memref = ref_equals(base, "!builtin.memref");
      EXPECT(is_memref || ref_equals(base, "!builtin.tensor"), "%s: operand %d (%s) is '%.*s' in IRDL",
             desc->name, i, desc->operand_names[desc->operand_count < 0 ? 0 : i], (int)base.length, base.data);
      operands[i] = is_memref ? memref : tensor;
      memref_values += is_memref;
      tensor_values += !is_memref;
    }
    for (int i = 0; i < result_count; ++i) {
      MlirStringRef base = irdl_value_base(definition, "irdl.results", i);
      bool is_memref = ref_equals(base, "!builtin.memref");
      EXPECT(is_memref || ref_equals(base, "!builtin.tensor"), "%s: result %d (%s) is '%.*s' in IRDL",
             desc->name, i, desc->result_names[desc->result_count < 0 ? 0 : i], (int)base.length, base.data);
      results[i] = is_memref ? memref_type : tensor_type;
      memref_values += is_memref;
      tensor_values += !is_memref;
    }
    for (int i = 0; i < desc->attr_count; ++i)
      attrs[i] = sample_attr(context, desc->attrs[i].kind);
    MlirOperation op =
        latch_op_create((latch_op_kind)kind, loc, result_count, results, operand_count, operands, attrs);
    EXPECT(!mlirOperationIsNull(op), "latch_op_create(%s) returned a null op", desc->name);
    if (mlirOperationIsNull(op))
      continue;
    EXPECT(latch_op_kind_of(op) == (latch_op_kind)kind, "%s: wrong kind", desc->name);
    EXPECT(mlirOperationGetNumOperands(op) == operand_count && mlirOperationGetNumResults(op) == result_count &&
               mlirOperationGetNumRegions(op) == desc->region_count,
           "%s: wrong operand, result or region count", desc->name);
    for (int i = 0; i < desc->region_count; ++i)
      EXPECT(mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i))),
             "%s: region %d is not empty", desc->name, i);
    if (kind == LATCH_OP_TASK_MAP) {
      /* A scalar body: one f32 argument per input, ending in gpu.yield of one scalar per output. */
      EXPECT(mlirBlockIsNull(latch_map_body(op)), "task.map: a fresh map has a body");
      MlirType f32 = mlirF32TypeGet(context);
      MlirType arg_types[2] = {f32, f32};
      MlirLocation arg_locs[2] = {loc, loc};
      MlirBlock block = mlirBlockCreate(2, arg_types, arg_locs);
      mlirRegionAppendOwnedBlock(mlirOperationGetRegion(op, 0), block);
      MlirOperationState yield = mlirOperationStateGet(mlirStringRefCreateFromCString("gpu.yield"), loc);
      MlirValue scalar = mlirBlockGetArgument(block, 1);
      mlirOperationStateAddOperands(&yield, 1, &scalar);
      mlirBlockAppendOwnedOperation(block, mlirOperationCreate(&yield));
      EXPECT(mlirBlockEqual(latch_map_body(op), block), "latch_map_body does not return the body");
    }
    bool function_like = is_function_like(desc);
    if (function_like) {
      /* The body's block has the function type's inputs as arguments and yields, for each result, an
       * argument of the result's type. */
      MlirAttribute type_attr =
          mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("function_type"));
      MlirType type = mlirTypeAttrGetValue(type_attr);
      EXPECT(mlirTypeIsAFunction(type) && desc->region_count == 1, "%s: not function-like", desc->name);
      intptr_t inputs = mlirFunctionTypeGetNumInputs(type), outputs = mlirFunctionTypeGetNumResults(type);
      MlirType arg_types[4];
      MlirLocation arg_locs[4];
      MlirValue yielded[4];
      for (intptr_t i = 0; i < inputs && i < 4; ++i) {
        arg_types[i] = mlirFunctionTypeGetInput(type, i);
        arg_locs[i] = loc;
      }
      MlirBlock block = mlirBlockCreate(inputs < 4 ? inputs : 4, arg_types, arg_locs);
      mlirRegionAppendOwnedBlock(mlirOperationGetRegion(op, 0), block);
      for (intptr_t r = 0; r < outputs && r < 4; ++r) {
        yielded[r] = (MlirValue){NULL};
        for (intptr_t i = 0; i < mlirBlockGetNumArguments(block) && mlirValueIsNull(yielded[r]); ++i)
          if (mlirTypeEqual(mlirValueGetType(mlirBlockGetArgument(block, i)), mlirFunctionTypeGetResult(type, r)))
            yielded[r] = mlirBlockGetArgument(block, i);
        EXPECT(!mlirValueIsNull(yielded[r]), "%s: no argument to yield as result %ld", desc->name, (long)r);
      }
      MlirOperationState yield = mlirOperationStateGet(mlirStringRefCreateFromCString("gpu.yield"), loc);
      mlirOperationStateAddOperands(&yield, outputs < 4 ? outputs : 4, yielded);
      mlirBlockAppendOwnedOperation(block, mlirOperationCreate(&yield));
    }
    /* Verify the detached op, then again in place (where dominance of its operands is checked too): a
     * function-like op at module level after the func, like a func, any other op in the func's body. */
    bool detached_ok = mlirOperationVerify(op);
    if (function_like)
      mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), op);
    else
      mlirBlockInsertOwnedOperationBefore(body, ret, op);
    bool ok = detached_ok && mlirOperationVerify(op);
    EXPECT(ok, "%s created from the table does not verify", desc->name);
    verified += ok;
  }
  for (size_t s = 0; s < 3; ++s)
    if (!mlirModuleIsNull(irdl[s]))
      mlirModuleDestroy(irdl[s]);
  EXPECT(mlirOperationVerify(mlirModuleGetOperation(module)), "the module of created ops does not verify");
  printf("%d of %d created ops verify\n", verified, LATCH_OP_COUNT - 1);
  printf("operands and results per IRDL: %d tensor, %d memref\n", tensor_values, memref_values);
  mlirOperationPrint(mlirModuleGetOperation(module), print_to_stdout, NULL);
  printf("\n");
  mlirModuleDestroy(module);
  // CHECK-LABEL: == create
  // CHECK-NEXT: 40 of 40 created ops verify
  // CHECK-NEXT: operands and results per IRDL: 124 tensor, 6 memref
  // CHECK-NEXT: module {
  // CHECK-NEXT: func.func @host(%[[T:.*]]: tensor<2x2xf32>, %[[M:.*]]: memref<64xi8>)
  // CHECK-NEXT: "task.matmul"(%[[T]], %[[T]]) {transpose_a = true, transpose_b = true} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.grouped_matmul"(%[[T]], %[[T]], %[[T]]) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.map"(%[[T]], %[[T]]) ({
  // CHECK-NEXT: ^bb0(%{{.*}}: f32, %[[B:.*]]: f32):
  // CHECK-NEXT: gpu.yield %[[B]] : f32
  // CHECK-NEXT: }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.reduce"(%[[T]]) {axis = 64 : i64, kind = "s"}
  // CHECK-NEXT: "task.rmsnorm"(%[[T]], %[[T]]) {eps = 5.000000e-01 : f64}
  // CHECK-NEXT: "task.softmax"(%[[T]])
  // CHECK-NEXT: "task.cross_entropy"(%[[T]], %[[T]])
  // CHECK-NEXT: "task.embedding"(%[[T]], %[[T]])
  // CHECK-NEXT: "task.rope"(%[[T]]) {theta = 5.000000e-01 : f64}
  // CHECK-NEXT: "task.attention"(%[[T]], %[[T]], %[[T]]) {causal = true, scale = 5.000000e-01 : f64}
  // CHECK-NEXT: "task.topk"(%[[T]]) {k = 64 : i64} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.bucket"(%[[T]]) {buckets = 64 : i64}
  // CHECK-NEXT: "task.gather_rows"(%[[T]], %[[T]])
  // CHECK-NEXT: "task.scatter_add_rows"(%[[T]], %[[T]]) {rows = 64 : i64}
  // CHECK-NEXT: "task.reshape"(%[[T]])
  // CHECK-NEXT: "task.transpose"(%[[T]]) {perm = array<i64: 1, 0>}
  // CHECK-NEXT: "task.convert"(%[[T]])
  // CHECK-NEXT: "task.adamw"(%[[T]], %[[T]], %[[T]], %[[T]], %[[T]]) {beta1 = 5.000000e-01 : f64, beta2 = 5.000000e-01 : f64, eps = 5.000000e-01 : f64, lr = 5.000000e-01 : f64, weight_decay = 5.000000e-01 : f64} : {{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.reduce_grad"(%[[T]], %[[T]]) {axis = 64 : i64, kind = "s"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.rmsnorm_grad"(%[[T]], %[[T]], %[[T]]) {eps = 5.000000e-01 : f64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.softmax_grad"(%[[T]], %[[T]]) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.cross_entropy_grad"(%[[T]], %[[T]], %[[T]]) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.rope_grad"(%[[T]]) {theta = 5.000000e-01 : f64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.attention_grad"(%[[T]], %[[T]], %[[T]], %[[T]], %[[T]]) {causal = true, scale = 5.000000e-01 : f64} : {{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.topk_grad"(%[[T]], %[[T]]) {columns = 64 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.grouped_matmul_weight_grad"(%[[T]], %[[T]], %[[T]]) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: "task.attention_stats"(%[[T]], %[[T]], %[[T]], %[[T]]) {causal = true, scale = 5.000000e-01 : f64} : {{.*}} -> tensor<2x2xf32>
  // CHECK-NEXT: "task.attention_grad_from_stats"(%[[T]], %[[T]], %[[T]], %[[T]], %[[T]]) {causal = true, scale = 5.000000e-01 : f64} : {{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.attention_lse"(%[[T]], %[[T]], %[[T]]) {causal = true, scale = 5.000000e-01 : f64} : {{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.attention_stats_from_lse"(%[[T]], %[[T]], %[[T]]) : {{.*}} -> tensor<2x2xf32>
  // CHECK-NEXT: "task.cross_entropy_with_stats"(%[[T]], %[[T]]) : {{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: "task.cross_entropy_grad_from_stats"(%[[T]], %[[T]], %[[T]], %[[T]]) : {{.*}} -> tensor<2x2xf32>
  // CHECK-NEXT: "task.grouped_matmul_weight_grad_concat"(%[[T]], %[[T]], %[[T]], %[[T]]) : {{.*}} -> tensor<2x2xf32>
  // CHECK-NEXT: "interval.interval"() {name = "s"} : () -> ()
  // CHECK-NEXT: "interval.barrier"() : () -> ()
  // CHECK-NEXT: "arena.arena"() {alignment = 64 : i64, size = 64 : i64} : () -> memref<64xi8>
  // CHECK-NEXT: "arena.slot"(%[[M]]) {alignment = 64 : i64, offset = 64 : i64, size = 64 : i64} : (memref<64xi8>) -> memref<64xi8>
  // CHECK-NEXT: "arena.bind"(%[[T]], %[[M]]) {offset = 64 : i64} : (tensor<2x2xf32>, memref<64xi8>) -> ()
  // CHECK-NEXT: "arena.view"(%[[M]]) : (memref<64xi8>) -> memref<64xi8>
  // CHECK-NEXT: return
  // CHECK-NEXT: }
  // CHECK-NEXT: "interval.program"() ({
  // CHECK-NEXT: ^bb0(%[[P:.*]]: tensor<2x2xf32>):
  // CHECK-NEXT: gpu.yield %[[P]] : tensor<2x2xf32>
  // CHECK-NEXT: }) {function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>, sym_name = "s"} : () -> ()
  // CHECK-NEXT: }

  /* Counts that do not match the table give a null op; variadic counts take anything. */
  MlirValue two[2] = {tensor, tensor};
  MlirType one_type[2] = {tensor_type, tensor_type};
  MlirAttribute flags[2] = {latch_attr_get_bool(context, false), latch_attr_get_bool(context, false)};
  MlirAttribute k[1] = {latch_attr_get_int(context, 1)};
  printf("matmul with 1 operand: %s\n",
         mlirOperationIsNull(latch_op_create(LATCH_OP_TASK_MATMUL, loc, 1, one_type, 1, two, flags)) ? "null" : "op");
  printf("matmul with 3 operands: %s\n",
         mlirOperationIsNull(latch_op_create(LATCH_OP_TASK_MATMUL, loc, 1, one_type, 3, two, flags)) ? "null" : "op");
  printf("matmul with 2 results: %s\n",
         mlirOperationIsNull(latch_op_create(LATCH_OP_TASK_MATMUL, loc, 2, one_type, 2, two, flags)) ? "null" : "op");
  printf("topk with 1 result: %s\n",
         mlirOperationIsNull(latch_op_create(LATCH_OP_TASK_TOPK, loc, 1, one_type, 1, two, k)) ? "null" : "op");
  printf("unknown kind: %s\n",
         mlirOperationIsNull(latch_op_create(LATCH_OP_UNKNOWN, loc, 0, NULL, 0, NULL, NULL)) ? "null" : "op");
  printf("kind past the table: %s\n",
         mlirOperationIsNull(latch_op_create(LATCH_OP_COUNT, loc, 0, NULL, 0, NULL, NULL)) ? "null" : "op");
  MlirOperation empty_map = latch_op_create(LATCH_OP_TASK_MAP, loc, 0, NULL, 0, NULL, NULL);
  printf("map with no inputs and outputs: %s\n", mlirOperationIsNull(empty_map) ? "null" : "op");
  if (!mlirOperationIsNull(empty_map))
    mlirOperationDestroy(empty_map);
  // CHECK: matmul with 1 operand: null
  // CHECK-NEXT: matmul with 3 operands: null
  // CHECK-NEXT: matmul with 2 results: null
  // CHECK-NEXT: topk with 1 result: null
  // CHECK-NEXT: unknown kind: null
  // CHECK-NEXT: kind past the table: null
  // CHECK-NEXT: map with no inputs and outputs: op
}

/* IRDL really checks what the table says: attributes of the wrong kind, and missing ones, fail. */
static void test_irdl_rejects(MlirContext context) {
  printf("== IRDL rejects\n");
  MlirModule module = mlirModuleCreateParse(
      context,
      mlirStringRefCreateFromCString("func.func @host(%t: tensor<2x2xf32>, %m: memref<64xi8>) {\n  return\n}\n"));
  MlirBlock body = mlirRegionGetFirstBlock(
      mlirOperationGetRegion(mlirBlockGetFirstOperation(mlirModuleGetBody(module)), 0));
  MlirValue operands[2] = {mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 0)};
  MlirValue memref = mlirBlockGetArgument(body, 1);
  MlirType type = mlirValueGetType(operands[0]);
  MlirLocation loc = mlirLocationUnknownGet(context);

  MlirAttribute floats[2] = {latch_attr_get_float(context, 1), latch_attr_get_float(context, 0)};
  MlirOperation wrong_kind = latch_op_create(LATCH_OP_TASK_MATMUL, loc, 1, &type, 2, operands, floats);
  printf("matmul with float flags verifies: %d\n", mlirOperationVerify(wrong_kind));
  // CHECK-LABEL: == IRDL rejects
  // CHECK-NEXT: diagnostic: {{.*}}builtin.integer
  // CHECK-NEXT: matmul with float flags verifies: 0

  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString("task.matmul"), loc);
  mlirOperationStateAddOperands(&state, 2, operands);
  mlirOperationStateAddResults(&state, 1, &type);
  MlirOperation no_attrs = mlirOperationCreate(&state);
  printf("matmul without attributes verifies: %d\n", mlirOperationVerify(no_attrs));
  // CHECK-NEXT: diagnostic: {{.*}}is expected but not provided
  // CHECK-NEXT: matmul without attributes verifies: 0

  /* arena.bind takes a tensor, then a memref: the other way round fails; so does an interval.program
   * whose function_type is not a type, and an interval.interval (a marker) given a region. */
  MlirAttribute offset = latch_attr_get_int(context, 0);
  MlirValue swapped[2] = {memref, operands[0]};
  MlirOperation bad_bind = latch_op_create(LATCH_OP_ARENA_BIND, loc, 0, NULL, 2, swapped, &offset);
  printf("bind of a memref to a tensor verifies: %d\n", mlirOperationVerify(bad_bind));
  // CHECK-NEXT: diagnostic: expected base type 'builtin.tensor' but got 'builtin.memref'
  // CHECK-NEXT: bind of a memref to a tensor verifies: 0
  MlirAttribute strings[2] = {latch_attr_get_string(context, "p"), latch_attr_get_string(context, "() -> ()")};
  MlirOperation bad_program = latch_op_create(LATCH_OP_INTERVAL_PROGRAM, loc, 0, NULL, 0, NULL, strings);
  printf("program with a string function_type verifies: %d\n", mlirOperationVerify(bad_program));
  // CHECK-NEXT: diagnostic: expected base attribute 'builtin.type' but got 'builtin.string'
  // CHECK-NEXT: program with a string function_type verifies: 0
  MlirOperationState marker = mlirOperationStateGet(mlirStringRefCreateFromCString("interval.interval"), loc);
  MlirNamedAttribute name = mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString("name")),
                                                  latch_attr_get_string(context, "i"));
  mlirOperationStateAddAttributes(&marker, 1, &name);
  MlirRegion region = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&marker, 1, &region);
  MlirOperation interval_with_region = mlirOperationCreate(&marker);
  printf("interval with a region verifies: %d\n", mlirOperationVerify(interval_with_region));
  // CHECK-NEXT: diagnostic: 'interval.interval' op unexpected number of regions: expected 0 but got 1
  // CHECK-NEXT: interval with a region verifies: 0
  mlirOperationDestroy(interval_with_region);
  mlirOperationDestroy(bad_program);
  mlirOperationDestroy(bad_bind);

  /* Typed accessors read missing attributes as their fallbacks. */
  MlirStringRef kind = latch_reduce_kind(no_attrs);
  printf("missing: transpose_a %d, transpose_b %d, reduce.axis %lld, reduce.kind '%.*s' (%zu), eps %g\n",
         latch_matmul_transpose_a(no_attrs), latch_matmul_transpose_b(no_attrs),
         (long long)latch_reduce_axis(no_attrs), (int)kind.length, kind.data, kind.length,
         latch_rmsnorm_eps(no_attrs));
  /* ... and mistyped ones too: the float flags read as false. */
  printf("mistyped: transpose_a %d, topk.k %lld, interval.name (%zu)\n", latch_matmul_transpose_a(wrong_kind),
         (long long)latch_topk_k(wrong_kind), latch_interval_name(wrong_kind).length);
  // CHECK-NEXT: missing: transpose_a 0, transpose_b 0, reduce.axis 0, reduce.kind '' (0), eps 0
  // CHECK-NEXT: mistyped: transpose_a 0, topk.k 0, interval.name (0)

  /* The backward ops' accessors fall back alike: missing attributes (read from the matmul) and mistyped
   * ones (a float causal, an integer scale, a float columns). */
  MlirStringRef grad_kind = latch_reduce_grad_kind(no_attrs);
  printf("missing backward: reduce_grad.axis %lld, reduce_grad.kind '%.*s' (%zu), rmsnorm_grad.eps %g, "
         "rope_grad.theta %g, attention_grad.causal %d, attention_grad.scale %g, topk_grad.columns %lld\n",
         (long long)latch_reduce_grad_axis(no_attrs), (int)grad_kind.length, grad_kind.data, grad_kind.length,
         latch_rmsnorm_grad_eps(no_attrs), latch_rope_grad_theta(no_attrs), latch_attention_grad_causal(no_attrs),
         latch_attention_grad_scale(no_attrs), (long long)latch_topk_grad_columns(no_attrs));
  MlirValue five[5] = {operands[0], operands[0], operands[0], operands[0], operands[0]};
  MlirType three[3] = {type, type, type};
  MlirAttribute mixed[2] = {latch_attr_get_float(context, 1), latch_attr_get_int(context, 3)};
  MlirOperation bad_attention = latch_op_create(LATCH_OP_TASK_ATTENTION_GRAD, loc, 3, three, 5, five, mixed);
  MlirOperation bad_topk = latch_op_create(LATCH_OP_TASK_TOPK_GRAD, loc, 1, &type, 2, operands, floats);
  EXPECT(!mlirOperationIsNull(bad_attention) && !mlirOperationIsNull(bad_topk),
         "latch_op_create refused a backward op with mistyped attributes");
  if (!mlirOperationIsNull(bad_attention) && !mlirOperationIsNull(bad_topk)) {
    printf("mistyped backward: attention_grad.causal %d, attention_grad.scale %g, topk_grad.columns %lld\n",
           latch_attention_grad_causal(bad_attention), latch_attention_grad_scale(bad_attention),
           (long long)latch_topk_grad_columns(bad_topk));
    mlirOperationDestroy(bad_attention);
    mlirOperationDestroy(bad_topk);
  }
  // CHECK-NEXT: missing backward: reduce_grad.axis 0, reduce_grad.kind '' (0), rmsnorm_grad.eps 0, rope_grad.theta 0, attention_grad.causal 0, attention_grad.scale 0, topk_grad.columns 0
  // CHECK-NEXT: mistyped backward: attention_grad.causal 0, attention_grad.scale 0, topk_grad.columns 0
  mlirOperationDestroy(no_attrs);
  mlirOperationDestroy(wrong_kind);
  mlirModuleDestroy(module);
}

/* ---- 4. typed accessors on parsed ops --------------------------------------------------------- */

/* The accessor program is an interval.program in the form latch-form-intervals and latch-plan-arena
 * write (docs/dialects.md, "The schedule and arena contract"): a module-level, function-like op whose one
 * block has the program's arguments; the arena and its slot come first, then the intervals, each opened
 * by interval.interval and closed by interval.barrier, the last one ending at the gpu.yield of the
 * program's results; arena.bind follows the op that defines the bound value. Every operand is a distinct
 * program argument, so an accessor that picks the wrong index shows. Each op kind appears once, but
 * interval.interval three times (the accessors read the first, "forward"). */
#define T2 "tensor<2xf32>"
#define T2X4 T2 ", " T2 ", " T2 ", " T2
#define T2X75 T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " \
  T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2X4 ", " T2 ", " T2 ", " T2
static const char accessor_program[] =
    "\"interval.program\"() ({\n"
    "^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>,\n"
    "    %arg4: tensor<2xf32>, %arg5: tensor<2xf32>, %arg6: tensor<2xf32>, %arg7: tensor<2xf32>,\n"
    "    %arg8: tensor<2xf32>, %arg9: tensor<2xf32>, %arg10: tensor<2xf32>, %arg11: tensor<2xf32>,\n"
    "    %arg12: tensor<2xf32>, %arg13: tensor<2xf32>, %arg14: tensor<2xf32>, %arg15: tensor<2xf32>,\n"
    "    %arg16: tensor<2xf32>, %arg17: tensor<2xf32>, %arg18: tensor<2xf32>, %arg19: tensor<2xf32>,\n"
    "    %arg20: tensor<2xf32>, %arg21: tensor<2xf32>, %arg22: tensor<2xf32>, %arg23: tensor<2xf32>,\n"
    "    %arg24: tensor<2xf32>, %arg25: tensor<2xf32>, %arg26: tensor<2xf32>, %arg27: tensor<2xf32>,\n"
    "    %arg28: tensor<2xf32>, %arg29: tensor<2xf32>, %arg30: tensor<2xf32>, %arg31: tensor<2xf32>,\n"
    "    %arg32: tensor<2xf32>, %arg33: tensor<2xf32>, %arg34: tensor<2xf32>, %arg35: tensor<2xf32>,\n"
    "    %arg36: tensor<2xf32>, %arg37: tensor<2xf32>, %arg38: tensor<2xf32>, %arg39: tensor<2xf32>,\n"
    "    %arg40: tensor<2xf32>, %arg41: tensor<2xf32>, %arg42: tensor<2xf32>, %arg43: tensor<2xf32>,\n"
    "    %arg44: tensor<2xf32>, %arg45: tensor<2xf32>, %arg46: tensor<2xf32>, %arg47: tensor<2xf32>,\n"
    "    %arg48: tensor<2xf32>, %arg49: tensor<2xf32>, %arg50: tensor<2xf32>, %arg51: tensor<2xf32>,\n"
    "    %arg52: tensor<2xf32>, %arg53: tensor<2xf32>, %arg54: tensor<2xf32>, %arg55: tensor<2xf32>,\n"
    "    %arg56: tensor<2xf32>, %arg57: tensor<2xf32>, %arg58: tensor<2xf32>, %arg59: tensor<2xf32>,\n"
    "    %arg60: tensor<2xf32>, %arg61: tensor<2xf32>, %arg62: tensor<2xf32>, %arg63: tensor<2xf32>,\n"
    "    %arg64: tensor<2xf32>, %arg65: tensor<2xf32>, %arg66: tensor<2xf32>, %arg67: tensor<2xf32>,\n"
    "    %arg68: tensor<2xf32>, %arg69: tensor<2xf32>, %arg70: tensor<2xf32>, %arg71: tensor<2xf32>,\n"
    "    %arg72: tensor<2xf32>, %arg73: tensor<2xf32>, %arg74: tensor<2xf32>):\n"
    "  %18 = \"arena.arena\"() {size = 4096 : i64, alignment = 256 : i64} : () -> memref<4096xi8>\n"
    "  %19 = \"arena.slot\"(%18) {offset = 512 : i64, size = 1024 : i64, alignment = 128 : i64}\n"
    "      : (memref<4096xi8>) -> memref<1024xi8>\n"
    "  %20 = \"arena.view\"(%19) : (memref<1024xi8>) -> memref<16x16xf32>\n"
    "  \"interval.interval\"() {name = \"forward\"} : () -> ()\n"
    "  %0 = \"task.matmul\"(%arg0, %arg1) {transpose_a = true, transpose_b = false}\n"
    "      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  \"arena.bind\"(%0, %19) {offset = 256 : i64} : (tensor<2xf32>, memref<1024xi8>) -> ()\n"
    "  %1 = \"task.grouped_matmul\"(%arg2, %arg3, %arg4) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %2 = \"task.map\"(%arg0, %arg1) ({\n"
    "  ^bb0(%a: f32, %b: f32):\n"
    "    %s = arith.addf %a, %b : f32\n"
    "    gpu.yield %s : f32\n"
    "  }) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>,\n"
    "      resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %3 = \"task.reduce\"(%arg5) {axis = 1 : i64, kind = \"max\"} : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  %4 = \"task.rmsnorm\"(%arg6, %arg7) {eps = 1.0e-05 : f64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %5 = \"task.softmax\"(%arg8) : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  %6 = \"task.cross_entropy\"(%arg9, %arg10) : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n"
    "  %7 = \"task.embedding\"(%arg11, %arg12) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %8 = \"task.rope\"(%arg13) {theta = 10000.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  %9 = \"task.attention\"(%arg14, %arg15, %arg16) {causal = true, scale = 0.125 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %10:2 = \"task.topk\"(%arg17) {k = 2 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xi32>)\n"
    "  %11:2 = \"task.bucket\"(%arg18) {buckets = 8 : i64} : (tensor<2xf32>) -> (tensor<2xi32>, tensor<8xi32>)\n"
    "  %12 = \"task.gather_rows\"(%arg19, %arg20) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %13 = \"task.scatter_add_rows\"(%arg21, %arg22) {rows = 16 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<16xf32>\n"
    "  %14 = \"task.reshape\"(%arg23) : (tensor<2xf32>) -> tensor<2x1xf32>\n"
    "  %15 = \"task.transpose\"(%arg24) {perm = array<i64: 1, 0>} : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  %16 = \"task.convert\"(%arg25) : (tensor<2xf32>) -> tensor<2xbf16>\n"
    "  \"interval.barrier\"() : () -> ()\n"
    "  \"interval.interval\"() {name = \"backward\"} : () -> ()\n"
    "  %21 = \"task.reduce_grad\"(%arg31, %arg32) {axis = 2 : i64, kind = \"mean\"}\n"
    "      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %22:2 = \"task.rmsnorm_grad\"(%arg33, %arg34, %arg35) {eps = 1.0e-06 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3xf32>)\n"
    "  %23 = \"task.softmax_grad\"(%arg36, %arg37) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    "  %24 = \"task.cross_entropy_grad\"(%arg38, %arg39, %arg40)\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x3xf32>\n"
    "  %25 = \"task.rope_grad\"(%arg41) {theta = 500000.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  %26:3 = \"task.attention_grad\"(%arg42, %arg43, %arg44, %arg45, %arg46) {causal = false, scale = 0.25 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
    "      -> (tensor<2xf32>, tensor<3xf32>, tensor<4xf32>)\n"
    "  %27 = \"task.topk_grad\"(%arg47, %arg48) {columns = 8 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x8xf32>\n"
    "  %28 = \"task.grouped_matmul_weight_grad\"(%arg49, %arg50, %arg51)\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2x2xf32>\n"
    "  %29 = \"task.attention_stats\"(%arg52, %arg53, %arg54, %arg55) {causal = true, scale = 0.5 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<5xf32>\n"
    "  %30:3 = \"task.attention_grad_from_stats\"(%arg56, %arg57, %arg58, %arg59, %arg60) {causal = false, scale = 2.0 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
    "      -> (tensor<6xf32>, tensor<7xf32>, tensor<8xf32>)\n"
    "  %31:2 = \"task.attention_lse\"(%arg61, %arg62, %arg63) {causal = true, scale = 0.125 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<9xf32>, tensor<10xf32>)\n"
    "  %32 = \"task.attention_stats_from_lse\"(%arg64, %arg65, %31#1)\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<10xf32>) -> tensor<11xf32>\n"
    "  %33:2 = \"task.cross_entropy_with_stats\"(%arg66, %arg67) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<12xf32>)\n"
    "  %34 = \"task.cross_entropy_grad_from_stats\"(%arg68, %arg69, %arg70, %33#1)\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<12xf32>) -> tensor<13xf32>\n"
    "  %35 = \"task.grouped_matmul_weight_grad_concat\"(%arg71, %arg72, %arg73, %arg74)\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<14xf32>\n"
    "  \"interval.barrier\"() : () -> ()\n"
    "  \"interval.interval\"() {name = \"optimizer\"} : () -> ()\n"
    "  %17:3 = \"task.adamw\"(%arg26, %arg27, %arg28, %arg29, %arg30)\n"
    "      {lr = 3.0e-04 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64, weight_decay = 0.1 : f64}\n"
    "      : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
    "      -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
    "  gpu.yield %17#0, %17#1, %17#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>\n"
    "}) {sym_name = \"update\",\n"
    "    function_type = (" T2X75 ") -> (" T2 ", " T2 ", " T2 ")} : () -> ()\n";

/* The op of `desc` in the parsed program: its first in pre-order (only interval.interval appears more
 * than once). */
static MlirOperation op_of(MlirOperation root, const latch_op_desc *desc) {
  return desc ? find_op(root, desc->name) : (MlirOperation){NULL};
}

#define ATTR_KIND_OF(value)                                                                        \
  _Generic((value), bool: LATCH_ATTR_BOOL, int64_t: LATCH_ATTR_INT, double: LATCH_ATTR_FLOAT,      \
           MlirStringRef: LATCH_ATTR_STRING)

static void print_attr_value(latch_attr_kind kind, const void *value) {
  switch (kind) {
  case LATCH_ATTR_BOOL: printf("%s", *(const bool *)value ? "true" : "false"); break;
  case LATCH_ATTR_INT: printf("%lld", (long long)*(const int64_t *)value); break;
  case LATCH_ATTR_FLOAT: printf("%g", *(const double *)value); break;
  case LATCH_ATTR_STRING: {
    const MlirStringRef *ref = value;
    printf("\"%.*s\"", (int)ref->length, ref->data);
    break;
  }
  default: printf("?"); break;
  }
}

static void test_accessors(MlirContext context) {
  printf("== accessors\n");
  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(accessor_program));
  EXPECT(!mlirModuleIsNull(module), "the accessor program does not parse");
  if (mlirModuleIsNull(module))
    return;
  MlirOperation root = mlirModuleGetOperation(module);

  /* The program holds an op of every kind of the table. */
  int present = 0;
  for (int kind = LATCH_OP_UNKNOWN + 1; kind < LATCH_OP_COUNT; ++kind) {
    const latch_op_desc *desc = latch_op_desc_get((latch_op_kind)kind);
    bool found = !mlirOperationIsNull(op_of(root, desc));
    EXPECT(found, "no %s in the accessor program", desc->name);
    present += found;
  }
  printf("%d of %d kinds in the program\n", present, LATCH_OP_COUNT - 1);

  /* Operands: the value, and the accessor's name agrees with the table's operand name at its index. */
#define X(opname, field, index)                                                                    \
  {                                                                                                \
    const latch_op_desc *desc = desc_by_short_name(#opname);                                       \
    MlirOperation op = op_of(root, desc);                                                          \
    EXPECT(!mlirOperationIsNull(op), "no %s in the program", #opname);                             \
    if (!mlirOperationIsNull(op)) {                                                                \
      EXPECT((desc->operand_count < 0 || index < desc->operand_count) &&                           \
                 strcmp(desc->operand_names[index], #field) == 0,                                  \
             "latch_%s_%s: the table names operand %d differently", #opname, #field, index);      \
      printf("%s.%s = ", desc->name, #field);                                                      \
      print_value(latch_##opname##_##field(op));                                                   \
      printf("\n");                                                                                \
    }                                                                                              \
  }
  LATCH_OPERAND_LIST(X)
#undef X
  // CHECK-LABEL: == accessors
  // CHECK-NEXT: 40 of 40 kinds in the program
  // CHECK-NEXT: task.matmul.a = %arg0
  // CHECK-NEXT: task.matmul.b = %arg1
  // CHECK-NEXT: task.grouped_matmul.x = %arg2
  // CHECK-NEXT: task.grouped_matmul.w = %arg3
  // CHECK-NEXT: task.grouped_matmul.ends = %arg4
  // CHECK-NEXT: task.reduce.x = %arg5
  // CHECK-NEXT: task.rmsnorm.x = %arg6
  // CHECK-NEXT: task.rmsnorm.w = %arg7
  // CHECK-NEXT: task.softmax.x = %arg8
  // CHECK-NEXT: task.cross_entropy.logits = %arg9
  // CHECK-NEXT: task.cross_entropy.targets = %arg10
  // CHECK-NEXT: task.embedding.table = %arg11
  // CHECK-NEXT: task.embedding.ids = %arg12
  // CHECK-NEXT: task.rope.x = %arg13
  // CHECK-NEXT: task.attention.q = %arg14
  // CHECK-NEXT: task.attention.k = %arg15
  // CHECK-NEXT: task.attention.v = %arg16
  // CHECK-NEXT: task.topk.x = %arg17
  // CHECK-NEXT: task.bucket.ids = %arg18
  // CHECK-NEXT: task.gather_rows.x = %arg19
  // CHECK-NEXT: task.gather_rows.idx = %arg20
  // CHECK-NEXT: task.scatter_add_rows.x = %arg21
  // CHECK-NEXT: task.scatter_add_rows.idx = %arg22
  // CHECK-NEXT: task.reshape.x = %arg23
  // CHECK-NEXT: task.transpose.x = %arg24
  // CHECK-NEXT: task.convert.x = %arg25
  // CHECK-NEXT: task.adamw.p = %arg26
  // CHECK-NEXT: task.adamw.g = %arg27
  // CHECK-NEXT: task.adamw.m = %arg28
  // CHECK-NEXT: task.adamw.v = %arg29
  // CHECK-NEXT: task.adamw.step = %arg30
  // CHECK-NEXT: arena.slot.arena = result #0 of arena.arena
  // CHECK-NEXT: arena.view.slot = result #0 of arena.slot
  // CHECK-NEXT: arena.bind.value = result #0 of task.matmul
  // CHECK-NEXT: arena.bind.slot = result #0 of arena.slot
  // CHECK-NEXT: task.reduce_grad.x = %arg31
  // CHECK-NEXT: task.reduce_grad.dy = %arg32
  // CHECK-NEXT: task.rmsnorm_grad.x = %arg33
  // CHECK-NEXT: task.rmsnorm_grad.w = %arg34
  // CHECK-NEXT: task.rmsnorm_grad.dy = %arg35
  // CHECK-NEXT: task.softmax_grad.y = %arg36
  // CHECK-NEXT: task.softmax_grad.dy = %arg37
  // CHECK-NEXT: task.cross_entropy_grad.logits = %arg38
  // CHECK-NEXT: task.cross_entropy_grad.targets = %arg39
  // CHECK-NEXT: task.cross_entropy_grad.dloss = %arg40
  // CHECK-NEXT: task.rope_grad.dy = %arg41
  // CHECK-NEXT: task.attention_grad.q = %arg42
  // CHECK-NEXT: task.attention_grad.k = %arg43
  // CHECK-NEXT: task.attention_grad.v = %arg44
  // CHECK-NEXT: task.attention_grad.o = %arg45
  // CHECK-NEXT: task.attention_grad.do = %arg46
  // CHECK-NEXT: task.topk_grad.dvalues = %arg47
  // CHECK-NEXT: task.topk_grad.indices = %arg48
  // CHECK-NEXT: task.grouped_matmul_weight_grad.x = %arg49
  // CHECK-NEXT: task.grouped_matmul_weight_grad.dy = %arg50
  // CHECK-NEXT: task.grouped_matmul_weight_grad.ends = %arg51
  // CHECK-NEXT: task.attention_stats.q = %arg52
  // CHECK-NEXT: task.attention_stats.k = %arg53
  // CHECK-NEXT: task.attention_stats.o = %arg54
  // CHECK-NEXT: task.attention_stats.do = %arg55
  // CHECK-NEXT: task.attention_grad_from_stats.q = %arg56
  // CHECK-NEXT: task.attention_grad_from_stats.k = %arg57
  // CHECK-NEXT: task.attention_grad_from_stats.v = %arg58
  // CHECK-NEXT: task.attention_grad_from_stats.do = %arg59
  // CHECK-NEXT: task.attention_grad_from_stats.stats = %arg60
  // CHECK-NEXT: task.attention_lse.q = %arg61
  // CHECK-NEXT: task.attention_lse.k = %arg62
  // CHECK-NEXT: task.attention_lse.v = %arg63
  // CHECK-NEXT: task.attention_stats_from_lse.o = %arg64
  // CHECK-NEXT: task.attention_stats_from_lse.do = %arg65
  // CHECK-NEXT: task.attention_stats_from_lse.lse = result #1 of task.attention_lse
  // CHECK-NEXT: task.cross_entropy_with_stats.logits = %arg66
  // CHECK-NEXT: task.cross_entropy_with_stats.targets = %arg67
  // CHECK-NEXT: task.cross_entropy_grad_from_stats.logits = %arg68
  // CHECK-NEXT: task.cross_entropy_grad_from_stats.targets = %arg69
  // CHECK-NEXT: task.cross_entropy_grad_from_stats.dloss = %arg70
  // CHECK-NEXT: task.cross_entropy_grad_from_stats.stats = result #1 of task.cross_entropy_with_stats
  // CHECK-NEXT: task.grouped_matmul_weight_grad_concat.x = %arg71
  // CHECK-NEXT: task.grouped_matmul_weight_grad_concat.dy0 = %arg72
  // CHECK-NEXT: task.grouped_matmul_weight_grad_concat.dy1 = %arg73
  // CHECK-NEXT: task.grouped_matmul_weight_grad_concat.ends = %arg74

  /* Results: owned by the op, at the table's index under the table's name; the type tells them apart. */
#define X(opname, field, index)                                                                    \
  {                                                                                                \
    const latch_op_desc *desc = desc_by_short_name(#opname);                                       \
    MlirOperation op = op_of(root, desc);                                                          \
    EXPECT(!mlirOperationIsNull(op), "no %s in the program", #opname);                             \
    if (!mlirOperationIsNull(op)) {                                                                \
      MlirValue value = latch_##opname##_##field##_result(op);                                     \
      EXPECT((desc->result_count < 0 || index < desc->result_count) &&                             \
                 strcmp(desc->result_names[index], #field) == 0,                                   \
             "latch_%s_%s_result: the table names result %d differently", #opname, #field, index); \
      EXPECT(mlirValueIsAOpResult(value) && mlirOperationEqual(mlirOpResultGetOwner(value), op),    \
             "latch_%s_%s_result is not a result of its op", #opname, #field);                    \
      printf("%s.%s = ", desc->name, #field);                                                      \
      print_value(value);                                                                          \
      printf(" : ");                                                                               \
      mlirTypePrint(mlirValueGetType(value), print_to_stdout, NULL);                               \
      printf("\n");                                                                                \
    }                                                                                              \
  }
  LATCH_RESULT_LIST(X)
#undef X
  // CHECK-NEXT: task.matmul.c = result #0 of task.matmul : tensor<2xf32>
  // CHECK-NEXT: task.grouped_matmul.y = result #0 of task.grouped_matmul : tensor<2xf32>
  // CHECK-NEXT: task.reduce.y = result #0 of task.reduce : tensor<2xf32>
  // CHECK-NEXT: task.rmsnorm.y = result #0 of task.rmsnorm : tensor<2xf32>
  // CHECK-NEXT: task.softmax.y = result #0 of task.softmax : tensor<2xf32>
  // CHECK-NEXT: task.cross_entropy.loss = result #0 of task.cross_entropy : tensor<f32>
  // CHECK-NEXT: task.embedding.y = result #0 of task.embedding : tensor<2xf32>
  // CHECK-NEXT: task.rope.y = result #0 of task.rope : tensor<2xf32>
  // CHECK-NEXT: task.attention.o = result #0 of task.attention : tensor<2xf32>
  // CHECK-NEXT: task.topk.values = result #0 of task.topk : tensor<2xf32>
  // CHECK-NEXT: task.topk.indices = result #1 of task.topk : tensor<2xi32>
  // CHECK-NEXT: task.bucket.order = result #0 of task.bucket : tensor<2xi32>
  // CHECK-NEXT: task.bucket.ends = result #1 of task.bucket : tensor<8xi32>
  // CHECK-NEXT: task.gather_rows.y = result #0 of task.gather_rows : tensor<2xf32>
  // CHECK-NEXT: task.scatter_add_rows.y = result #0 of task.scatter_add_rows : tensor<16xf32>
  // CHECK-NEXT: task.reshape.y = result #0 of task.reshape : tensor<2x1xf32>
  // CHECK-NEXT: task.transpose.y = result #0 of task.transpose : tensor<2xf32>
  // CHECK-NEXT: task.convert.y = result #0 of task.convert : tensor<2xbf16>
  // CHECK-NEXT: task.adamw.p_out = result #0 of task.adamw : tensor<2xf32>
  // CHECK-NEXT: task.adamw.m_out = result #1 of task.adamw : tensor<2xf32>
  // CHECK-NEXT: task.adamw.v_out = result #2 of task.adamw : tensor<2xf32>
  // CHECK-NEXT: arena.arena.buffer = result #0 of arena.arena : memref<4096xi8>
  // CHECK-NEXT: arena.slot.bytes = result #0 of arena.slot : memref<1024xi8>
  // CHECK-NEXT: arena.view.view = result #0 of arena.view : memref<16x16xf32>
  // CHECK-NEXT: task.reduce_grad.dx = result #0 of task.reduce_grad : tensor<2xf32>
  // CHECK-NEXT: task.rmsnorm_grad.dx = result #0 of task.rmsnorm_grad : tensor<2xf32>
  // CHECK-NEXT: task.rmsnorm_grad.dw = result #1 of task.rmsnorm_grad : tensor<3xf32>
  // CHECK-NEXT: task.softmax_grad.dx = result #0 of task.softmax_grad : tensor<2xf32>
  // CHECK-NEXT: task.cross_entropy_grad.dlogits = result #0 of task.cross_entropy_grad : tensor<2x3xf32>
  // CHECK-NEXT: task.rope_grad.dx = result #0 of task.rope_grad : tensor<2xf32>
  // CHECK-NEXT: task.attention_grad.dq = result #0 of task.attention_grad : tensor<2xf32>
  // CHECK-NEXT: task.attention_grad.dk = result #1 of task.attention_grad : tensor<3xf32>
  // CHECK-NEXT: task.attention_grad.dv = result #2 of task.attention_grad : tensor<4xf32>
  // CHECK-NEXT: task.topk_grad.dx = result #0 of task.topk_grad : tensor<2x8xf32>
  // CHECK-NEXT: task.grouped_matmul_weight_grad.dw = result #0 of task.grouped_matmul_weight_grad : tensor<4x2x2xf32>
  // CHECK-NEXT: task.attention_stats.stats = result #0 of task.attention_stats : tensor<5xf32>
  // CHECK-NEXT: task.attention_grad_from_stats.dq = result #0 of task.attention_grad_from_stats : tensor<6xf32>
  // CHECK-NEXT: task.attention_grad_from_stats.dk = result #1 of task.attention_grad_from_stats : tensor<7xf32>
  // CHECK-NEXT: task.attention_grad_from_stats.dv = result #2 of task.attention_grad_from_stats : tensor<8xf32>
  // CHECK-NEXT: task.attention_lse.o = result #0 of task.attention_lse : tensor<9xf32>
  // CHECK-NEXT: task.attention_lse.lse = result #1 of task.attention_lse : tensor<10xf32>
  // CHECK-NEXT: task.attention_stats_from_lse.stats = result #0 of task.attention_stats_from_lse : tensor<11xf32>
  // CHECK-NEXT: task.cross_entropy_with_stats.loss = result #0 of task.cross_entropy_with_stats : tensor<f32>
  // CHECK-NEXT: task.cross_entropy_with_stats.stats = result #1 of task.cross_entropy_with_stats : tensor<12xf32>
  // CHECK-NEXT: task.cross_entropy_grad_from_stats.dlogits = result #0 of task.cross_entropy_grad_from_stats : tensor<13xf32>
  // CHECK-NEXT: task.grouped_matmul_weight_grad_concat.dw = result #0 of task.grouped_matmul_weight_grad_concat : tensor<14xf32>

  /* Attributes: the value, and the accessor's C type agrees with the table's kind for that name. */
#define X(opname, field, ctype, reader)                                                            \
  {                                                                                                \
    const latch_op_desc *desc = desc_by_short_name(#opname);                                       \
    MlirOperation op = op_of(root, desc);                                                          \
    EXPECT(!mlirOperationIsNull(op), "no %s in the program", #opname);                             \
    if (!mlirOperationIsNull(op)) {                                                                \
      ctype value = latch_##opname##_##field(op);                                                  \
      latch_attr_kind kind = ATTR_KIND_OF(value);                                                  \
      bool listed = false;                                                                         \
      for (int i = 0; i < desc->attr_count; ++i)                                                   \
        if (strcmp(desc->attrs[i].name, #field) == 0)                                              \
          listed = desc->attrs[i].kind == kind;                                                    \
      EXPECT(listed, "latch_%s_%s: the table has no %s attribute '%s'", #opname, #field,           \
             kind_name(kind), #field);                                                             \
      printf("%s.%s = ", desc->name, #field);                                                      \
      print_attr_value(kind, &value);                                                              \
      printf("\n");                                                                                \
    }                                                                                              \
  }
  LATCH_ATTR_LIST(X)
#undef X
  // CHECK-NEXT: task.matmul.transpose_a = true
  // CHECK-NEXT: task.matmul.transpose_b = false
  // CHECK-NEXT: task.reduce.axis = 1
  // CHECK-NEXT: task.reduce.kind = "max"
  // CHECK-NEXT: task.rmsnorm.eps = 1e-05
  // CHECK-NEXT: task.rope.theta = 10000
  // CHECK-NEXT: task.attention.causal = true
  // CHECK-NEXT: task.attention.scale = 0.125
  // CHECK-NEXT: task.topk.k = 2
  // CHECK-NEXT: task.bucket.buckets = 8
  // CHECK-NEXT: task.scatter_add_rows.rows = 16
  // CHECK-NEXT: task.adamw.lr = 0.0003
  // CHECK-NEXT: task.adamw.beta1 = 0.9
  // CHECK-NEXT: task.adamw.beta2 = 0.999
  // CHECK-NEXT: task.adamw.eps = 1e-08
  // CHECK-NEXT: task.adamw.weight_decay = 0.1
  // CHECK-NEXT: interval.interval.name = "forward"
  // CHECK-NEXT: arena.arena.size = 4096
  // CHECK-NEXT: arena.arena.alignment = 256
  // CHECK-NEXT: arena.slot.offset = 512
  // CHECK-NEXT: arena.slot.size = 1024
  // CHECK-NEXT: arena.slot.alignment = 128
  // CHECK-NEXT: arena.bind.offset = 256
  // CHECK-NEXT: task.reduce_grad.axis = 2
  // CHECK-NEXT: task.reduce_grad.kind = "mean"
  // CHECK-NEXT: task.rmsnorm_grad.eps = 1e-06
  // CHECK-NEXT: task.rope_grad.theta = 500000
  // CHECK-NEXT: task.attention_grad.causal = false
  // CHECK-NEXT: task.attention_grad.scale = 0.25
  // CHECK-NEXT: task.topk_grad.columns = 8
  // CHECK-NEXT: task.attention_stats.causal = true
  // CHECK-NEXT: task.attention_stats.scale = 0.5
  // CHECK-NEXT: task.attention_grad_from_stats.causal = false
  // CHECK-NEXT: task.attention_grad_from_stats.scale = 2
  // CHECK-NEXT: task.attention_lse.causal = true
  // CHECK-NEXT: task.attention_lse.scale = 0.125

  /* The accessors outside the lists: task.transpose's perm and task.map's body; interval.program's
   * sym_name has none and is read through latch_attr_string. */
  MlirOperation transpose = find_op(root, "task.transpose");
  intptr_t perm_size = latch_transpose_perm_size(transpose);
  printf("task.transpose.perm = [");
  for (intptr_t i = 0; i < perm_size; ++i)
    printf("%s%lld", i ? ", " : "", (long long)latch_transpose_perm_at(transpose, i));
  printf("]\n");
  printf("perm of a matmul: size %ld\n", (long)latch_transpose_perm_size(find_op(root, "task.matmul")));
  MlirOperation program = find_op(root, "interval.program");
  MlirStringRef sym = latch_attr_string(program, "sym_name");
  printf("interval.program.sym_name = \"%.*s\"\n", (int)sym.length, sym.data);
  /* The program is function-like: a module-level op whose function_type (a type attribute, no typed
   * accessor) matches its block's arguments and the gpu.yield that ends the block. */
  MlirAttribute function_type =
      mlirOperationGetAttributeByName(program, mlirStringRefCreateFromCString("function_type"));
  bool is_type = !mlirAttributeIsNull(function_type) && mlirAttributeIsAType(function_type);
  MlirType type = is_type ? mlirTypeAttrGetValue(function_type) : (MlirType){NULL};
  bool is_function = is_type && mlirTypeIsAFunction(type);
  MlirBlock program_body = mlirRegionGetFirstBlock(mlirOperationGetRegion(program, 0));
  MlirOperation terminator = mlirBlockGetTerminator(program_body);
  MlirStringRef parent = op_name(mlirOperationGetParentOperation(program));
  printf("interval.program: parent %.*s, function_type %ld -> %ld, %ld block arguments, %ld regions, ends in ",
         (int)parent.length, parent.data, is_function ? (long)mlirFunctionTypeGetNumInputs(type) : -1L,
         is_function ? (long)mlirFunctionTypeGetNumResults(type) : -1L,
         (long)mlirBlockGetNumArguments(program_body), (long)mlirOperationGetNumRegions(program));
  mlirOperationPrint(terminator, print_to_stdout, NULL);
  printf("\n");
  MlirOperation interval = find_op(root, "interval.interval");
  printf("interval.interval: %ld regions, parent %s\n", (long)mlirOperationGetNumRegions(interval),
         mlirOperationEqual(mlirOperationGetParentOperation(interval), program) ? "the program" : "other");
  MlirBlock map_body = latch_map_body(find_op(root, "task.map"));
  printf("task.map body: %ld arguments, first op %s\n", (long)mlirBlockGetNumArguments(map_body),
         mlirOperationIsNull(mlirBlockGetFirstOperation(map_body)) ? "none" : "present");
  mlirOperationPrint(mlirBlockGetFirstOperation(map_body), print_to_stdout, NULL);
  printf("\n");
  // CHECK-NEXT: task.transpose.perm = [1, 0]
  // CHECK-NEXT: perm of a matmul: size -1
  // CHECK-NEXT: interval.program.sym_name = "update"
  // CHECK-NEXT: interval.program: parent builtin.module, function_type 75 -> 3, 75 block arguments, 1 regions, ends in gpu.yield %{{.*}}#0, %{{.*}}#1, %{{.*}}#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  // CHECK-NEXT: interval.interval: 0 regions, parent the program
  // CHECK-NEXT: task.map body: 2 arguments, first op present
  // CHECK-NEXT: arith.addf

  /* A parsed op prints back in the generic form. */
  mlirOperationPrint(find_op(root, "task.topk"), print_to_stdout, NULL);
  printf("\n");
  // CHECK-NEXT: %{{.*}}:2 = "task.topk"(%arg17) {k = 2 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xi32>)
  mlirModuleDestroy(module);
}

/* ---- 5. attribute helpers on missing and mistyped attributes ---------------------------------- */

static void test_attribute_fallbacks(MlirContext context) {
  printf("== attribute fallbacks\n");
  MlirModule module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(
                   "func.func private @odd() attributes {flag = \"yes\", five = 5 : i64, zero = 0 : i64,\n"
                   "  truth = true, half = 2.5 : f32, text = \"hello\", i32s = array<i32: 1, 2>,\n"
                   "  list = [1, 2], none = array<i64>, dims = array<i64: 3, 1>}\n"));
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));

  printf("bool: missing %d %d, string %d %d, int 5 %d, int 0 %d, true %d\n", latch_attr_bool(op, "nope", true),
         latch_attr_bool(op, "nope", false), latch_attr_bool(op, "flag", true), latch_attr_bool(op, "flag", false),
         latch_attr_bool(op, "five", false), latch_attr_bool(op, "zero", true), latch_attr_bool(op, "truth", false));
  // CHECK-LABEL: == attribute fallbacks
  // CHECK-NEXT: bool: missing 1 0, string 1 0, int 5 1, int 0 0, true 1
  printf("int: missing %lld, float %lld, string %lld, array %lld, int %lld\n",
         (long long)latch_attr_int(op, "nope", -7), (long long)latch_attr_int(op, "half", -7),
         (long long)latch_attr_int(op, "flag", -7), (long long)latch_attr_int(op, "dims", -7),
         (long long)latch_attr_int(op, "five", -7));
  // CHECK-NEXT: int: missing -7, float -7, string -7, array -7, int 5
  printf("float: missing %g, int %g, string %g, f32 %g\n", latch_attr_float(op, "nope", 1.5),
         latch_attr_float(op, "five", 1.5), latch_attr_float(op, "text", 1.5), latch_attr_float(op, "half", 1.5));
  // CHECK-NEXT: float: missing 1.5, int 1.5, string 1.5, f32 2.5
  MlirStringRef missing = latch_attr_string(op, "nope"), mistyped = latch_attr_string(op, "five"),
                text = latch_attr_string(op, "text");
  printf("string: missing '%.*s' (%zu, data %s), int '%.*s' (%zu), string '%.*s'\n", (int)missing.length,
         missing.data, missing.length, missing.data ? "set" : "null", (int)mistyped.length, mistyped.data,
         mistyped.length, (int)text.length, text.data);
  // CHECK-NEXT: string: missing '' (0, data set), int '' (0), string 'hello'
  printf("i64 array: missing %ld, i32 array %ld, array attr %ld, int %ld, empty %ld, dims %ld = [%lld, %lld]\n",
         (long)latch_attr_i64_array_size(op, "nope"), (long)latch_attr_i64_array_size(op, "i32s"),
         (long)latch_attr_i64_array_size(op, "list"), (long)latch_attr_i64_array_size(op, "five"),
         (long)latch_attr_i64_array_size(op, "none"), (long)latch_attr_i64_array_size(op, "dims"),
         (long long)latch_attr_i64_array_get(op, "dims", 0), (long long)latch_attr_i64_array_get(op, "dims", 1));
  // CHECK-NEXT: i64 array: missing -1, i32 array -1, array attr -1, int -1, empty 0, dims 2 = [3, 1]
  mlirModuleDestroy(module);

  /* The constructors give the forms the IRDL definitions expect. */
  static const int64_t values[] = {2, 0, 1};
  MlirAttribute made[] = {latch_attr_get_bool(context, true), latch_attr_get_bool(context, false),
                          latch_attr_get_int(context, -3), latch_attr_get_float(context, 1e-5),
                          latch_attr_get_string(context, "sum"), latch_attr_get_i64_array(context, 3, values),
                          latch_attr_get_i64_array(context, 0, NULL)};
  for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); ++i) {
    printf("%s", i ? " | " : "made: ");
    mlirAttributePrint(made[i], print_to_stdout, NULL);
  }
  printf("\n");
  // CHECK-NEXT: made: true | false | -3 : i64 | 1.000000e-05 : f64 | "sum" | array<i64: 2, 0, 1> | array<i64>
}

int main(void) {
  MlirContext context = latch_context_create();
  if (mlirContextIsNull(context)) {
    printf("FAIL: latch_context_create returned a null context\n");
    return 1;
  }
  MlirDiagnosticHandlerID handler = mlirContextAttachDiagnosticHandler(context, print_diagnostic, NULL, NULL);
  test_descriptors(context);
  test_table_matches_irdl(context);
  test_create(context);
  test_irdl_rejects(context);
  test_accessors(context);
  test_attribute_fallbacks(context);
  mlirContextDetachDiagnosticHandler(context, handler);
  mlirContextDestroy(context);
  printf("failures: %d\n", failures);
  // CHECK-NOT: FAIL
  // CHECK: failures: 0
  return failures ? 1 : 0;
}
