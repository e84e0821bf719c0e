/* latch-lower-tasks.c - writes one device function per task of an arena-planned interval.program
 * (docs/device-abi.md): `func.func @task_<N>(%tile: i32, %args: !llvm.ptr<1>)` in gpu.module @latch, which
 * computes tile %tile of the task with the CTA's threads, and sets `task.device_function = "task_<N>"` on
 * the task. The program itself stays (latch-lower-intervals reads it).
 *
 * How: each function is generated as MLIR text of upstream dialects (func, arith, math, scf, llvm for
 * pointers, loads and stores on !llvm.ptr<1>, nvvm for thread registers, gpu.shuffle) from the C templates
 * below, parsed in the pass's context inside a scratch gpu.module and moved into gpu.module @latch. The
 * template writes the tile body, `@task_body_<M>(%tile, pointers...)`, which takes the base pointer of
 * every tensor (and task-scratch global) as an argument; @task_<N> computes them and calls it. A body whose
 * text an earlier task already wrote is not written again (tasks that differ only in their places share
 * it), and it stays out of line (noinline): that is what keeps LLVM and ptxas fast. A task.map body is
 * cloned through the C API into `func.func private @map_body_<M>` (its gpu.yield becomes func.return;
 * scalar constants it uses from above are cloned in; identical bodies shared the same way), which the
 * tile body calls once per element; LLVM inlines it.
 *
 * The rules every template follows:
 * - Tiles: the task is cut into "virtual tiles" by the rule of latch_task_tile_count without its clamp
 *   (128 x 128 outputs of a matrix product in row-major tile order, 64 rows of a row-wise op (256 to 8
 *   rows of a scatter_add_rows with many sources: latch_scatter_tile_rows), 8192
 *   elements of elementwise work, copies and row gathers, 64 interleaved query rows of one (batch, head)
 *   for attention and its split gradient (attention_row_begin), one (batch, head, 128 queries) block of
 *   the unsplit attention_grad, (g, 128 x 128 of K x N) of grouped_matmul_weight_grad, (row tile, group)
 *   pairs x 128 columns of grouped_matmul, 256 positions of
 *   bucket); tile t of the T tiles the task is launched with (its `tiles` attribute) runs virtual tiles
 *   t, t + T, t + 2T, ... So any T >= 1 computes everything, and T = the rule's count runs one virtual
 *   tile per tile. Where outputs do not follow the rule, the template says how it splits them: a
 *   reduction spreads its outputs over the row tiles of its input, rmsnorm_grad adds (256 columns,
 *   latch_rmsnorm_grad_chunk_rows rows) tiles of dw, attention_grad covers the key blocks too, attention_grad_from_stats adds key-row
 *   tiles after its query-row tiles; the tiles of cross_entropy and of rmsnorm_grad's dw meet in task
 *   scratch (task_scratch: partials and an arrival counter, combined in a fixed order by the tile that
 *   arrives last).
 * - Threads: inside a virtual tile the CTA's threads (or warps, for long rows) walk its units; the tiled
 *   products give each thread an 8 x 8 block of outputs (on tensor cores when both operands are bf16:
 *   wgmma, 64 x 128 per warpgroup, when both are staged by copies; else mma.sync, 4 x 4 tiles of 16 x 8
 *   per warp). Shared memory (@latch_smem) and CTA barriers
 *   stage data inside a tile; no value is accumulated atomically (the only atomic is task scratch's
 *   arrival counter): every output element is written by exactly one thread, and every sum runs in a
 *   fixed order (deterministic, bitwise reproducible).
 * - Precision: bf16 loads extend to f32, stores of bf16 round to nearest even (arith.truncf); arithmetic
 *   and every accumulation is fp32 (angles of rotary embeddings and AdamW's bias corrections in fp64);
 *   float -> i32 conversions truncate toward zero and saturate, NaN giving 0. f64 tensors are rejected.
 * - Addresses (docs/device-abi.md): program argument k at args[3 + k], an arena value at args[0] + slot
 *   offset + bind offset, a splat constant as an immediate; task.adamw writes over its p, m, v. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/SCF.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "../support/ptrmap.h"
#include "../support/textbuf.h"
#include "pass.h"

/* docs/device-abi.md and dialects/schedule.c */
#define ARG_FIRST_BUFFER 3
#define ELEMENTWISE_TILE LATCH_ELEMENTWISE_TILE /* the most: latch_elementwise_tile */
#define ROW_TILE 64
#define MATMUL_TILE 128
#define ATTENTION_TILE 128
#define MAX_RANK 8
#define MAX_SYMBOL 64
#define MAX_POOLS 64
#define POOL_PREFIX "latch_pool"
#define POOL_PREFIX_LENGTH (sizeof(POOL_PREFIX) - 1)

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

/* A pooled scratch global's name (pooled_scratch): written by write_pools, not with its task. */
static bool is_pool(MlirStringRef name) {
  return name.length >= POOL_PREFIX_LENGTH && strncmp(name.data, POOL_PREFIX, POOL_PREFIX_LENGTH) == 0;
}

static int64_t ceil_div(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

/* ---- the pass's view of the program ------------------------------------------------------------------ */

/* A text and the name given to it: a function's text without its name and the function's name, or a
 * task's signature and its tile body's name (with the scratch requests of that body's template). */
typedef struct named_text {
  char *key;
  size_t length;
  uint64_t hash;
  char name[MAX_SYMBOL];
  struct scratch_request *requests; /* signatures only: task_scratch and pooled_scratch calls in order */
  int request_count;
} named_text;

typedef struct text_table {
  named_text *entries;
  size_t count, capacity;
} text_table;

typedef struct lowerer {
  MlirContext context;
  MlirOperation module, program, gpu_module;
  latch_schedule schedule;
  bool schedule_ready;
  latch_ptrmap binds; /* value -> its arena.bind op */
  MlirSymbolTable symbols; /* of gpu.module @latch as the pass found it */
  /* Functions shared between tasks: the tile bodies (@task_body_<N>) and the map bodies (@map_body_<N>)
   * written so far, keyed by their text without their name. */
  text_table shared;
  /* Pooled task scratch (pooled_scratch): the interval of the task being lowered, the pools its earlier
   * tasks took, and each pool's largest request in floats. */
  int current_interval, pool_interval, pool_next, pool_count;
  int64_t pool_floats[MAX_POOLS];
  int64_t shared_floats; /* the most words of @latch_smem a task uses: the kernel's dynamic shared memory */
  bool wgmma;            /* the option: bf16 products staged by copies run on wgmma (else mma.sync) */
  bool wgmma_in_flight;  /* latch-lower-tasks{wgmma-in-flight}: a stage's wgmma group runs on into the next */
  bool lean_wgmma_stages;   /* latch-lower-tasks{lean-wgmma-stages}: a wgmma stage's places computed once per tile */
  bool adamw_evict_first;   /* latch-lower-tasks{adamw-evict-first} */
  bool map_evict_first;     /* latch-lower-tasks{map-evict-first} */
  bool l2_evict_first;      /* latch-lower-tasks{l2-evict-first}: every task's accesses */
  bool vector_maps;      /* latch-lower-tasks{vector-maps}: maps and AdamW by vectors of 4 where aligned */
  bool fuse;             /* latch-lower-tasks{fuse}: fused prologues and epilogues inside their partner's tiles */
  /* Tile bodies by the signature of their task (write_signature), and the option that checks them. */
  text_table signatures;
  bool check_signatures;
  /* The tasks written and not yet parsed (parse_pending), in program order. */
  struct pending_task *pending;
  size_t pending_count, pending_capacity;
  int errors;
} lowerer;

__attribute__((format(printf, 3, 4))) static void report(lowerer *l, MlirOperation op, const char *format, ...) {
  char message[512];
  int n = snprintf(message, sizeof(message), "latch-lower-tasks: ");
  va_list args;
  va_start(args, format);
  vsnprintf(message + n, sizeof(message) - (size_t)n, format, args);
  va_end(args);
  mlirEmitError(mlirOperationGetLocation(op), message);
  l->errors++;
}

typedef enum dtype { DT_F32, DT_BF16, DT_I32 } dtype;

static const char *dtype_name(dtype dt) { return dt == DT_F32 ? "f32" : dt == DT_BF16 ? "bf16" : "i32"; }
static int64_t dtype_bytes(dtype dt) { return dt == DT_BF16 ? 2 : 4; }

typedef enum place_kind { PLACE_ARG, PLACE_ARENA, PLACE_CONST } place_kind;

struct fused_prologue;
struct fused_epilogue;

/* A tensor operand or result of a task: where it lives, its dtype and shape, and (inside the function
 * being generated) the value id of its base pointer. */
typedef struct tensor_ref {
  place_kind kind;
  int64_t where; /* argument index, or byte offset in the arena */
  int64_t bytes;
  uint32_t bits; /* a splat constant's element, as the bit pattern of its dtype */
  dtype dt;
  int rank;
  int64_t dims[MAX_RANK];
  int64_t elements;
  int ptr; /* %v id of the base pointer; -1 for constants */
  /* A [B, H, T, d] tensor of an attention op with layout = "bthd": `dims` hold B, H, T, d (read_io swaps
   * them), the elements lie as [B, T, H, d] (attention_head, attention_row_stride). */
  bool bthd;
  /* An operand whose prologue runs inside this task's tiles (fused_prologue): never in memory. */
  struct fused_prologue *prologue;
  /* A result whose epilogue runs inside this task's tiles (fused_epilogue): never in memory. */
  struct fused_epilogue *epilogue;
} tensor_ref;

/* A task.map or task.convert marked `task.fused = "prologue"` (latch-fuse-phases) of an operand that the
 * task's template reads only element by element (load_raw; prologue_operand says which): each load of
 * that operand computes the prologue's value from its inputs at the same index (rank-0 inputs at 0), so
 * the prologue writes nothing and runs no tiles of its own (latch-lower-intervals gives it no wave). */
typedef struct fused_prologue {
  tensor_ref in[LATCH_MAP_MAX_INPUTS];
  int in_count;
  char map_body[MAX_SYMBOL]; /* the map's body function; empty for a convert */
} fused_prologue;

/* A task.map or task.convert marked `task.fused = "epilogue"` of a result that the task's template
 * stores only element by element (store_raw; fuse_epilogue says which templates): each store of that
 * result calls the map's body on the stored value (at the inputs that are the result) and the other
 * inputs at the same index (rank-0 inputs at 0), and stores the map's results there instead, so the
 * epilogue runs no tiles of its own and the result is never written. */
typedef struct fused_epilogue {
  tensor_ref in[LATCH_MAP_MAX_INPUTS];
  bool is_result[LATCH_MAP_MAX_INPUTS]; /* input k is the task's result */
  int in_count;
  tensor_ref out[LATCH_MAP_MAX_OUTPUTS];
  int out_count;
  char map_body[MAX_SYMBOL]; /* empty for a convert */
} fused_epilogue;

static int64_t dim(const tensor_ref *t, int d) { return d >= 0 && d < t->rank ? t->dims[d] : 1; }
static int64_t last_dim(const tensor_ref *t) { return t->rank ? t->dims[t->rank - 1] : 1; }
static int64_t row_count(const tensor_ref *t) {
  int64_t last = last_dim(t);
  return last ? t->elements / last : 0;
}

static bool places_equal(const tensor_ref *a, const tensor_ref *b) {
  return a->kind == b->kind && a->kind != PLACE_CONST && a->where == b->where;
}

static bool places_overlap(const tensor_ref *a, const tensor_ref *b) {
  if (a->kind != b->kind || a->kind == PLACE_CONST)
    return false;
  if (a->kind == PLACE_ARG)
    return a->where == b->where;
  return a->bytes > 0 && b->bytes > 0 && a->where < b->where + b->bytes && b->where < a->where + a->bytes;
}

static bool is_inside(MlirOperation op, MlirOperation ancestor) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirOperationEqual(op, ancestor))
      return true;
  return false;
}

/* The op that defines `value`, or (for a block argument) the op whose region holds its block. */
static MlirOperation defining_scope(MlirValue value) {
  if (mlirValueIsAOpResult(value))
    return mlirOpResultGetOwner(value);
  return mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value));
}

/* Where `value` (an operand or result of `task`) lives; false after an error. */
static bool locate(lowerer *l, MlirOperation task, MlirValue value, tensor_ref *out) {
  memset(out, 0, sizeof(*out));
  out->ptr = -1;
  MlirType type = mlirValueGetType(value);
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type)) {
    report(l, task, "operands and results must be static ranked tensors");
    return false;
  }
  MlirType element = mlirShapedTypeGetElementType(type);
  if (mlirTypeIsAF32(element))
    out->dt = DT_F32;
  else if (mlirTypeIsABF16(element))
    out->dt = DT_BF16;
  else if (mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 32)
    out->dt = DT_I32;
  else {
    report(l, task, "the device stores f32, bf16 and i32 tensors only (f64 is rejected)");
    return false;
  }
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank > MAX_RANK) {
    report(l, task, "tensors of rank above %d are not supported", MAX_RANK);
    return false;
  }
  out->rank = (int)rank;
  out->elements = 1;
  for (intptr_t d = 0; d < rank; ++d) {
    out->dims[d] = mlirShapedTypeGetDimSize(type, d);
    if (out->dims[d] && out->elements > (INT64_MAX / 16) / out->dims[d]) {
      report(l, task, "a tensor is too large");
      return false;
    }
    out->elements *= out->dims[d];
  }
  out->bytes = out->elements * dtype_bytes(out->dt);

  if (mlirValueIsABlockArgument(value)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(value), l->schedule.body)) {
      report(l, task, "an operand is a block argument of another block than the program's");
      return false;
    }
    out->kind = PLACE_ARG;
    out->where = mlirBlockArgumentGetArgNumber(value);
    return true;
  }
  MlirOperation def = mlirOpResultGetOwner(value);
  if (latch_op_is(def, "arith.constant")) {
    MlirAttribute attr = mlirOperationGetAttributeByName(def, str("value"));
    if (mlirAttributeIsNull(attr) || !mlirAttributeIsADenseElements(attr) || !mlirDenseElementsAttrIsSplat(attr)) {
      report(l, task, "non-splat tensor constants are not supported on the device");
      return false;
    }
    out->kind = PLACE_CONST;
    if (out->dt == DT_I32) {
      out->bits = (uint32_t)mlirDenseElementsAttrGetInt32SplatValue(attr);
    } else {
      float f = out->dt == DT_F32 ? mlirDenseElementsAttrGetFloatSplatValue(attr)
                                  : (float)mlirFloatAttrGetValueDouble(mlirDenseElementsAttrGetSplatValue(attr));
      uint32_t bits;
      memcpy(&bits, &f, sizeof(bits));
      out->bits = out->dt == DT_F32 ? bits : bits >> 16; /* a bf16 value is exact in f32 */
    }
    return true;
  }
  if (latch_op_kind_of(def) == LATCH_OP_TASK_ADAMW) {
    /* p', m', v' are written over p, m, v (docs/device-abi.md). */
    intptr_t r = mlirOpResultGetResultNumber(value);
    if (r < 0 || r > 2) {
      report(l, task, "task.adamw has three results");
      return false;
    }
    tensor_ref target;
    if (!locate(l, task, mlirOperationGetOperand(def, latch_adamw_written_over(r)), &target))
      return false;
    if (target.kind == PLACE_CONST) {
      report(l, task, "task.adamw cannot write over a constant");
      return false;
    }
    out->kind = target.kind;
    out->where = target.where;
    return true;
  }
  MlirOperation bind = {latch_ptrmap_get(&l->binds, value.ptr)};
  if (mlirOperationIsNull(bind)) {
    report(l, task, "a tensor value is neither a program argument, a splat constant nor bound in the arena "
                    "(run latch-plan-arena first)");
    return false;
  }
  MlirValue slot = latch_bind_slot(bind);
  if (!mlirValueIsAOpResult(slot) || latch_op_kind_of(mlirOpResultGetOwner(slot)) != LATCH_OP_ARENA_SLOT) {
    report(l, task, "arena.bind must place the value in an arena.slot");
    return false;
  }
  out->kind = PLACE_ARENA;
  out->where = latch_slot_offset(mlirOpResultGetOwner(slot)) + latch_bind_offset(bind);
  return true;
}

/* ---- writing MLIR text ------------------------------------------------------------------------------- */

typedef struct gen_constant {
  char literal[48];
  int id;
} gen_constant;

/* A pointer the tile body takes as an argument (%v<id>): a tensor of the task, or a task-scratch global.
 * The task's own function computes it and passes it (write_task_function). */
typedef struct gen_param {
  int id;
  const tensor_ref *tensor; /* NULL for a global */
  char global[MAX_SYMBOL];
} gen_param;

#define MAX_PARAMS (LATCH_MAP_MAX_INPUTS + 1 + LATCH_MAP_MAX_OUTPUTS + 4)

/* One tile body being written: values are %v<id>; the function's arguments are %tile and the pointers of
 * `params`. Constants collect in `entry`, which goes before the body. */
typedef struct gen {
  latch_text entry;
  latch_text globals; /* module-level globals of the task (task_scratch) */
  gen_constant *constants;
  size_t constant_count, constant_capacity;
  lowerer *l;
  MlirOperation op;
  latch_text *t;
  int next, depth;
  int tile, tid, ntid; /* i64 */
  int index;           /* the task's number (task_<index>) */
  int shared;          /* the base pointer of @latch_smem, -1 until needed */
  gen_param params[MAX_PARAMS];
  int param_count;
  int64_t tiles;       /* the tiles the task is launched with */
  /* its task_scratch and pooled_scratch requests in order (a task of the same signature repeats them) */
  struct scratch_request *requests;
  int request_count, request_capacity;
  bool evict_first; /* global loads and stores evict-first in L2 (global_load, global_store) */
  bool failed;
} gen;

static int fresh(gen *g) { return g->next++; }

__attribute__((format(printf, 2, 3))) static void ln(gen *g, const char *format, ...) {
  latch_text_put(g->t, "%*s", 2 * g->depth + 4, "");
  va_list args;
  va_start(args, format);
  latch_text_vput(g->t, format, args);
  va_end(args);
  latch_text_put(g->t, "\n");
}

/* Constants go to the function's entry block (they dominate every use there), one value per distinct
 * literal. `literal` is the text after `arith.constant `. */
static int constant(gen *g, const char *literal) {
  for (size_t i = 0; i < g->constant_count; ++i)
    if (strcmp(g->constants[i].literal, literal) == 0)
      return g->constants[i].id;
  if (g->constant_count == g->constant_capacity) {
    size_t capacity = g->constant_capacity ? 2 * g->constant_capacity : 32;
    gen_constant *grown = realloc(g->constants, capacity * sizeof(*grown));
    if (!grown) {
      g->failed = true;
      return 0;
    }
    g->constants = grown;
    g->constant_capacity = capacity;
  }
  gen_constant *c = &g->constants[g->constant_count++];
  snprintf(c->literal, sizeof(c->literal), "%s", literal);
  c->id = fresh(g);
  latch_text_put(&g->entry, "    %%v%d = arith.constant %s\n", c->id, literal);
  return c->id;
}

static int ci64(gen *g, int64_t value) {
  char literal[48];
  snprintf(literal, sizeof(literal), "%lld : i64", (long long)value);
  return constant(g, literal);
}

static int ci32(gen *g, int32_t value) {
  char literal[48];
  snprintf(literal, sizeof(literal), "%d : i32", value);
  return constant(g, literal);
}

static int ci1(gen *g, bool value) { return constant(g, value ? "true" : "false"); }

/* f32 constant, exactly (hex bit pattern); `value` is rounded to nearest f32. */
static int cf32(gen *g, double value) {
  float f = (float)value;
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  char literal[48];
  snprintf(literal, sizeof(literal), "0x%08X : f32", bits);
  return constant(g, literal);
}

static int cf64(gen *g, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  char literal[48];
  snprintf(literal, sizeof(literal), "0x%016llX : f64", (unsigned long long)bits);
  return constant(g, literal);
}

/* A constant of `dt` from its bit pattern. */
static int cbits(gen *g, dtype dt, uint32_t bits) {
  char literal[48];
  if (dt == DT_F32)
    snprintf(literal, sizeof(literal), "0x%08X : f32", bits);
  else if (dt == DT_BF16)
    snprintf(literal, sizeof(literal), "0x%04X : bf16", bits & 0xFFFF);
  else
    snprintf(literal, sizeof(literal), "%d : i32", (int32_t)bits);
  return constant(g, literal);
}

static int op2(gen *g, const char *op, int a, int b, const char *type) {
  int r = fresh(g);
  ln(g, "%%v%d = %s %%v%d, %%v%d : %s", r, op, a, b, type);
  return r;
}

static int op1(gen *g, const char *op, int a, const char *type) {
  int r = fresh(g);
  ln(g, "%%v%d = %s %%v%d : %s", r, op, a, type);
  return r;
}

static int cast(gen *g, const char *op, int a, const char *from, const char *to) {
  int r = fresh(g);
  ln(g, "%%v%d = %s %%v%d : %s to %s", r, op, a, from, to);
  return r;
}

static int cmpi(gen *g, const char *predicate, int a, int b, const char *type) {
  int r = fresh(g);
  ln(g, "%%v%d = arith.cmpi %s, %%v%d, %%v%d : %s", r, predicate, a, b, type);
  return r;
}

static int cmpf(gen *g, const char *predicate, int a, int b, const char *type) {
  int r = fresh(g);
  ln(g, "%%v%d = arith.cmpf %s, %%v%d, %%v%d : %s", r, predicate, a, b, type);
  return r;
}

static int sel(gen *g, int condition, int a, int b, const char *type) {
  int r = fresh(g);
  ln(g, "%%v%d = arith.select %%v%d, %%v%d, %%v%d : %s", r, condition, a, b, type);
  return r;
}

/* i64 and f32 shorthands */
static int add(gen *g, int a, int b) { return op2(g, "arith.addi", a, b, "i64"); }
static int sub(gen *g, int a, int b) { return op2(g, "arith.subi", a, b, "i64"); }
static int mul(gen *g, int a, int b) { return op2(g, "arith.muli", a, b, "i64"); }
static int divc(gen *g, int a, int64_t b) { return b == 1 ? a : op2(g, "arith.divui", a, ci64(g, b), "i64"); }
static int remc(gen *g, int a, int64_t b) { return b == 1 ? ci64(g, 0) : op2(g, "arith.remui", a, ci64(g, b), "i64"); }
static int mulc(gen *g, int a, int64_t b) { return b == 1 ? a : mul(g, a, ci64(g, b)); }
static int addc(gen *g, int a, int64_t b) { return b == 0 ? a : add(g, a, ci64(g, b)); }
static int mini(gen *g, int a, int b) { return op2(g, "arith.minsi", a, b, "i64"); }
static int maxi(gen *g, int a, int b) { return op2(g, "arith.maxsi", a, b, "i64"); }
static int fadd(gen *g, int a, int b) { return op2(g, "arith.addf", a, b, "f32"); }
static int fsub(gen *g, int a, int b) { return op2(g, "arith.subf", a, b, "f32"); }
static int fmul(gen *g, int a, int b) { return op2(g, "arith.mulf", a, b, "f32"); }
static int fdiv(gen *g, int a, int b) { return op2(g, "arith.divf", a, b, "f32"); }
static int fexp(gen *g, int a) { return op1(g, "math.exp", a, "f32"); }
static int i64_to_f64(gen *g, int a) { return cast(g, "arith.sitofp", a, "i64", "f64"); }
static int not1(gen *g, int a) { return op2(g, "arith.xori", a, ci1(g, true), "i1"); }

/* ---- structured control flow ------------------------------------------------------------------------- */

#define MAX_CARRIED 6

/* scf.for %iv = lo to hi step step : i64 with `n` iter args (initial values init[], types types[]); the
 * region arguments go to args[], the loop's results to results[] (usable after for_end). */
static int for_begin(gen *g, int lo, int hi, int step, int n, const int *init, const char *const *types,
                     int *args, int *results) {
  int iv = fresh(g);
  for (int i = 0; i < n; ++i) {
    results[i] = fresh(g);
    args[i] = fresh(g);
  }
  latch_text_put(g->t, "%*s", 2 * g->depth + 4, "");
  for (int i = 0; i < n; ++i)
    latch_text_put(g->t, i ? ", %%v%d" : "%%v%d", results[i]);
  latch_text_put(g->t, "%sscf.for %%v%d = %%v%d to %%v%d step %%v%d", n ? " = " : "", iv, lo, hi, step);
  if (n) {
    latch_text_put(g->t, " iter_args(");
    for (int i = 0; i < n; ++i)
      latch_text_put(g->t, "%s%%v%d = %%v%d", i ? ", " : "", args[i], init[i]);
    latch_text_put(g->t, ") -> (");
    for (int i = 0; i < n; ++i)
      latch_text_put(g->t, "%s%s", i ? ", " : "", types[i]);
    latch_text_put(g->t, ")");
  }
  latch_text_put(g->t, " : i64 {\n");
  g->depth++;
  return iv;
}

static void yield(gen *g, int n, const int *values, const char *const *types) {
  if (!n)
    return;
  latch_text_put(g->t, "%*sscf.yield ", 2 * g->depth + 4, "");
  for (int i = 0; i < n; ++i)
    latch_text_put(g->t, i ? ", %%v%d" : "%%v%d", values[i]);
  latch_text_put(g->t, " : ");
  for (int i = 0; i < n; ++i)
    latch_text_put(g->t, "%s%s", i ? ", " : "", types[i]);
  latch_text_put(g->t, "\n");
}

static void for_end(gen *g, int n, const int *values, const char *const *types) {
  yield(g, n, values, types);
  g->depth--;
  ln(g, "}");
}

/* A loop without iter args. */
static int loop_begin(gen *g, int lo, int hi, int step) { return for_begin(g, lo, hi, step, 0, NULL, NULL, NULL, NULL); }
static void loop_end(gen *g) { for_end(g, 0, NULL, NULL); }

/* A loop with one iter arg of `type`: *arg is the region argument, *result the loop's result. */
static int loop1_begin(gen *g, int lo, int hi, int step, int init, const char *type, int *arg, int *result) {
  const char *types[1] = {type};
  return for_begin(g, lo, hi, step, 1, &init, types, arg, result);
}
static void loop1_end(gen *g, int value, const char *type) {
  const char *types[1] = {type};
  for_end(g, 1, &value, types);
}

/* scf.if with `n` results. */
static void if_begin(gen *g, int condition, int n, const char *const *types, int *results) {
  latch_text_put(g->t, "%*s", 2 * g->depth + 4, "");
  for (int i = 0; i < n; ++i) {
    results[i] = fresh(g);
    latch_text_put(g->t, i ? ", %%v%d" : "%%v%d", results[i]);
  }
  latch_text_put(g->t, "%sscf.if %%v%d", n ? " = " : "", condition);
  if (n) {
    latch_text_put(g->t, " -> (");
    for (int i = 0; i < n; ++i)
      latch_text_put(g->t, "%s%s", i ? ", " : "", types[i]);
    latch_text_put(g->t, ")");
  }
  latch_text_put(g->t, " {\n");
  g->depth++;
}

static void if_else(gen *g, int n, const int *values, const char *const *types) {
  yield(g, n, values, types);
  g->depth--;
  ln(g, "} else {");
  g->depth++;
}

static void if_end(gen *g, int n, const int *values, const char *const *types) {
  yield(g, n, values, types);
  g->depth--;
  ln(g, "}");
}

static void when_begin(gen *g, int condition) { if_begin(g, condition, 0, NULL, NULL); }
static void otherwise(gen *g) { if_else(g, 0, NULL, NULL); }
static void when_end(gen *g) { if_end(g, 0, NULL, NULL); }

/* ---- memory -------------------------------------------------------------------------------------------- */

/* A pointer argument of the tile body (at most MAX_PARAMS: every task has fewer tensors and globals). */
static int add_param(gen *g, const tensor_ref *tensor, const char *global) {
  if (g->param_count == MAX_PARAMS) {
    g->failed = true;
    return 0;
  }
  gen_param *p = &g->params[g->param_count++];
  p->id = fresh(g);
  p->tensor = tensor;
  snprintf(p->global, sizeof(p->global), "%s", global ? global : "");
  return p->id;
}

/* The base pointer of `t`: an argument of the tile body, so that tasks that differ only in where their
 * tensors live share one body. */
static void prepare(gen *g, tensor_ref *t) {
  if (t->prologue) {
    for (int k = 0; k < t->prologue->in_count; ++k)
      prepare(g, &t->prologue->in[k]);
    t->ptr = -1;
    return;
  }
  if (t->epilogue) {
    for (int k = 0; k < t->epilogue->in_count; ++k)
      if (!t->epilogue->is_result[k])
        prepare(g, &t->epilogue->in[k]);
    for (int r = 0; r < t->epilogue->out_count; ++r)
      prepare(g, &t->epilogue->out[r]);
    t->ptr = -1;
    return;
  }
  t->ptr = t->kind == PLACE_CONST ? -1 : add_param(g, t, NULL);
}

static int element_address(gen *g, const tensor_ref *t, int index) {
  if (t->prologue || t->epilogue) /* a template that accesses a fused tensor other than by load_raw, store_raw */
    g->failed = true;
  int r = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, %s", r, t->ptr, index,
     dtype_name(t->dt));
  return r;
}

/* The vector of `type` whose `count` elements are the values `elements`. */
static int vector_of(gen *g, const int *elements, int count, const char *type) {
  int v = fresh(g);
  ln(g, "%%v%d = llvm.mlir.poison : %s", v, type);
  for (int e = 0; e < count; ++e) {
    int next = fresh(g);
    ln(g, "%%v%d = llvm.insertelement %%v%d, %%v%d[%%v%d : i32] : %s", next, elements[e], v, ci32(g, e), type);
    v = next;
  }
  return v;
}

/* L2 evict-first accesses (l2-evict-first, adamw-evict-first, map-evict-first): the data a tile streams
 * through L2 goes first when L2 needs room, so that it does not evict the kernel's code, which then comes
 * from memory at the next interval that runs it, about 0.5 us per KB (docs/benchmarks.md, round
 * twenty-six). LLVM 22's NVPTX backend has no cache-hinted load or store (it drops !nontemporal), so these
 * are inline PTX: ld/st.global.L2::cache_hint under a createpolicy evict_first policy (L2 only; ld.cs and
 * st.cs, evict-first in L1 as well, made TinyMoE 3-19% slower: docs/benchmarks.md, round twenty-seven).
 * cp.async stays plain: with an .L2::cache_hint policy it faulted (CUDA_ERROR_ILLEGAL_INSTRUCTION, H100). */
static int evict_first_policy(gen *g) {
  int policy = fresh(g);
  ln(g, "%%v%d = llvm.inline_asm \"createpolicy.fractional.L2::evict_first.b64 $0, 1.0;\", \"=l\"  : () -> i64",
     policy);
  return policy;
}

/* The bits of an LLVM dialect type (f32, bf16, i32, vector<4xf32>, ...); 0 for any other. */
static int type_bits(const char *type) {
  long lanes = 1;
  if (strncmp(type, "vector<", 7) == 0) {
    char *end = NULL;
    lanes = strtol(type + 7, &end, 10);
    if (!end || *end != 'x' || lanes <= 0)
      return 0;
    type = end + 1;
  }
  static const struct { const char *name; int bits; } scalars[] = {
      {"f32", 32}, {"i32", 32}, {"bf16", 16}, {"f16", 16}, {"i16", 16}, {"f64", 64}, {"i64", 64}};
  for (size_t k = 0; k < sizeof(scalars) / sizeof(scalars[0]); ++k) {
    size_t n = strlen(scalars[k].name);
    if (strncmp(type, scalars[k].name, n) == 0 && (type[n] == '\0' || type[n] == '>'))
      return (int)(lanes * scalars[k].bits);
  }
  return 0;
}

/* The integer form an evict-first access of `bits` moves (i16, i32, vector<2xi32>, vector<4xi32>): its
 * PTX vector width and register constraint. */
typedef struct raw_access {
  const char *type;  /* the LLVM type of the raw value */
  const char *ptx;   /* "b16", "b32", "v2.b32", "v4.b32" */
  int registers;     /* PTX registers of the value */
  char constraint;   /* 'h' (16 bits) or 'r' */
  const char *registers_type; /* the inline asm's result of a load of several registers */
} raw_access;

static bool raw_access_of(int bits, raw_access *out) {
  switch (bits) {
  case 16: *out = (raw_access){"i16", "b16", 1, 'h', "i16"}; return true;
  case 32: *out = (raw_access){"i32", "b32", 1, 'r', "i32"}; return true;
  case 64: *out = (raw_access){"vector<2xi32>", "v2.b32", 2, 'r', "!llvm.struct<(i32, i32)>"}; return true;
  case 128:
    *out = (raw_access){"vector<4xi32>", "v4.b32", 4, 'r', "!llvm.struct<(i32, i32, i32, i32)>"};
    return true;
  default: return false;
  }
}

/* Whether an access of `type` at an address that is a multiple of `alignment` bytes (0: the type's own)
 * goes evict-first: g's task asks for it, and the access is one whole naturally aligned PTX load or store. */
static bool evict_first_access(const gen *g, const char *type, int alignment, raw_access *raw) {
  int bits = type_bits(type);
  return g->evict_first && raw_access_of(bits, raw) && (alignment == 0 || alignment * 8 >= bits);
}

/* The register list "{$first, ...}" (or "$first") of a raw access, and its constraints ("=r,=r,"). */
static void raw_operands(const raw_access *raw, int first, bool output, char *list, size_t list_size,
                         char *constraints, size_t constraints_size) {
  size_t used = 0, used_c = 0;
  if (raw->registers > 1)
    used += (size_t)snprintf(list + used, list_size - used, "{");
  for (int r = 0; r < raw->registers; ++r) {
    used += (size_t)snprintf(list + used, list_size - used, "%s$%d", r ? ", " : "", first + r);
    used_c += (size_t)snprintf(constraints + used_c, constraints_size - used_c, "%s%c,", output ? "=" : "",
                               raw->constraint);
  }
  if (raw->registers > 1)
    snprintf(list + used, list_size - used, "}");
}

/* A load of `type` from global `address` (alignment as for evict_first_access). */
static int global_load(gen *g, int address, const char *type, int alignment) {
  raw_access raw;
  int r = fresh(g);
  if (!evict_first_access(g, type, alignment, &raw)) {
    if (alignment)
      ln(g, "%%v%d = llvm.load %%v%d {alignment = %d : i64} : !llvm.ptr<1> -> %s", r, address, alignment, type);
    else
      ln(g, "%%v%d = llvm.load %%v%d : !llvm.ptr<1> -> %s", r, address, type);
    return r;
  }
  char list[64], constraints[64];
  raw_operands(&raw, 0, true, list, sizeof(list), constraints, sizeof(constraints));
  int policy = evict_first_policy(g);
  /* has_side_effects: without it LLVM takes the asm for a pure function and may move it across stores */
  ln(g, "%%v%d = llvm.inline_asm has_side_effects \"ld.global.L2::cache_hint.%s %s, [$%d], $%d;\", \"%sl,l\" %%v%d, "
        "%%v%d : (!llvm.ptr<1>, i64) -> %s",
     r, raw.ptx, list, raw.registers, raw.registers + 1, constraints, address, policy, raw.registers_type);
  if (raw.registers > 1) {
    int lanes[4];
    for (int e = 0; e < raw.registers; ++e) {
      lanes[e] = fresh(g);
      ln(g, "%%v%d = llvm.extractvalue %%v%d[%d] : %s", lanes[e], r, e, raw.registers_type);
    }
    r = vector_of(g, lanes, raw.registers, raw.type);
  }
  if (strcmp(type, raw.type) == 0)
    return r;
  int value = fresh(g);
  ln(g, "%%v%d = llvm.bitcast %%v%d : %s to %s", value, r, raw.type, type);
  return value;
}

/* A store of `value` (of `type`) to global `address` (alignment as for evict_first_access). */
static void global_store(gen *g, int address, int value, const char *type, int alignment) {
  raw_access raw;
  if (!evict_first_access(g, type, alignment, &raw)) {
    if (alignment)
      ln(g, "llvm.store %%v%d, %%v%d {alignment = %d : i64} : %s, !llvm.ptr<1>", value, address, alignment, type);
    else
      ln(g, "llvm.store %%v%d, %%v%d : %s, !llvm.ptr<1>", value, address, type);
    return;
  }
  int bits = value;
  if (strcmp(type, raw.type) != 0) {
    bits = fresh(g);
    ln(g, "%%v%d = llvm.bitcast %%v%d : %s to %s", bits, value, type, raw.type);
  }
  char list[64], constraints[64], operands[160], types[96];
  raw_operands(&raw, 1, false, list, sizeof(list), constraints, sizeof(constraints));
  size_t used = (size_t)snprintf(operands, sizeof(operands), "%%v%d", address);
  size_t used_t = (size_t)snprintf(types, sizeof(types), "!llvm.ptr<1>");
  for (int e = 0; e < raw.registers; ++e) {
    int lane = bits;
    if (raw.registers > 1) {
      lane = fresh(g);
      ln(g, "%%v%d = llvm.extractelement %%v%d[%%v%d : i32] : %s", lane, bits, ci32(g, e), raw.type);
    }
    used += (size_t)snprintf(operands + used, sizeof(operands) - used, ", %%v%d", lane);
    used_t += (size_t)snprintf(types + used_t, sizeof(types) - used_t, ", %s", raw.registers > 1 ? "i32" : raw.type);
  }
  snprintf(operands + used, sizeof(operands) - used, ", %%v%d", evict_first_policy(g));
  snprintf(types + used_t, sizeof(types) - used_t, ", i64");
  int none = fresh(g);
  ln(g, "%%v%d = llvm.inline_asm has_side_effects \"st.global.L2::cache_hint.%s [$0], %s, $%d;\", "
        "\"l,%sl,~{memory}\" %s : (%s) -> !llvm.void",
     none, raw.ptx, list, raw.registers + 1, constraints, operands, types);
}

static int prologue_load(gen *g, const tensor_ref *t, int index);

/* Element `index` (i64) of `t` in its storage type. */
static int load_raw(gen *g, const tensor_ref *t, int index) {
  if (t->prologue)
    return prologue_load(g, t, index);
  if (t->kind == PLACE_CONST)
    return cbits(g, t->dt, t->bits);
  return global_load(g, element_address(g, t, index), dtype_name(t->dt), 0);
}

/* A value of storage type dt as f32 (bf16 extends exactly). */
static int raw_to_f32(gen *g, dtype dt, int value) {
  if (dt == DT_BF16)
    return cast(g, "arith.extf", value, "bf16", "f32");
  if (dt == DT_I32)
    return cast(g, "arith.sitofp", value, "i32", "f32");
  return value;
}

/* Element `index` of a float tensor as f32 (bf16 extends exactly). */
static int load_f32(gen *g, const tensor_ref *t, int index) { return raw_to_f32(g, t->dt, load_raw(g, t, index)); }

/* Element `index` of an i32 tensor, sign-extended to i64. */
static int load_index(gen *g, const tensor_ref *t, int index) {
  return cast(g, "arith.extsi", load_raw(g, t, index), "i32", "i64");
}

static void epilogue_store(gen *g, const tensor_ref *t, int index, int value);

static void store_raw(gen *g, const tensor_ref *t, int index, int value) {
  if (t->epilogue) {
    epilogue_store(g, t, index, value);
    return;
  }
  if (t->kind == PLACE_CONST) {
    g->failed = true;
    return;
  }
  global_store(g, element_address(g, t, index), value, dtype_name(t->dt), 0);
}

/* f32 -> i32, truncating toward zero and saturating, NaN giving 0 (docs/task-dialect.md "Precision"). */
static int f32_to_i32(gen *g, int value) {
  int nan = cmpf(g, "uno", value, value, "f32");
  int high = cmpf(g, "oge", value, cf32(g, 2147483648.0), "f32");
  int low = cmpf(g, "ole", value, cf32(g, -2147483648.0), "f32");
  int in_range = not1(g, op2(g, "arith.ori", op2(g, "arith.ori", nan, high, "i1"), low, "i1"));
  /* fptosi only where it is defined: the selects below never pick it elsewhere. */
  int clamped = sel(g, in_range, value, cf32(g, 0.0), "f32");
  int r = cast(g, "arith.fptosi", clamped, "f32", "i32");
  r = sel(g, low, ci32(g, INT32_MIN), r, "i32");
  r = sel(g, high, ci32(g, INT32_MAX), r, "i32");
  return sel(g, nan, ci32(g, 0), r, "i32");
}

/* An f32 value in storage type dt (bf16 rounds to nearest even). */
static int f32_to_raw(gen *g, dtype dt, int value) {
  if (dt == DT_BF16)
    return cast(g, "arith.truncf", value, "f32", "bf16");
  return dt == DT_I32 ? f32_to_i32(g, value) : value;
}

/* Stores an f32 value into a float tensor (bf16 rounds to nearest even). */
static void store_f32(gen *g, const tensor_ref *t, int index, int value) {
  store_raw(g, t, index, f32_to_raw(g, t->dt, value));
}

/* ---- tiles ------------------------------------------------------------------------------------------- */

/* for (vt = tile; vt < count; vt += tiles): one iteration per virtual tile this CTA runs. */
static int tiles_begin(gen *g, int64_t count) {
  int hi = ci64(g, count), step = ci64(g, g->tiles);
  return loop_begin(g, g->tile, hi, step);
}

/* Units [vt * unit, min(total, vt * unit + unit)) of virtual tile `vt`, walked by the CTA's threads:
 * returns the unit index of this thread's iteration. Close with loop_end. */
static int span_begin(gen *g, int vt, int64_t unit, int64_t total) {
  int lo = mulc(g, vt, unit);
  int hi = mini(g, addc(g, lo, unit), ci64(g, total));
  return loop_begin(g, add(g, lo, g->tid), hi, g->ntid);
}

/* Units [vt * unit, min(total, vt * unit + unit)) of virtual tile `vt`, one per warp iteration: warp w of
 * the CTA takes units w, w + 8, ... (uniform across its lanes, as the shuffles need); returns the unit.
 * Close with loop_end. */
static int warp_span_begin(gen *g, int vt, int64_t unit, int64_t total) {
  int first = mulc(g, vt, unit);
  int last = mini(g, addc(g, first, unit), ci64(g, total));
  return loop_begin(g, add(g, first, divc(g, g->tid, 32)), last, divc(g, g->ntid, 32));
}

/* Warp lane masks (i32): the lanes whose `predicate` holds, the bits set in a mask, its lowest set bit,
 * and the lanes below `lane` (an i64 lane index). */
static int warp_ballot(gen *g, int predicate) {
  int mask = fresh(g);
  ln(g, "%%v%d = nvvm.vote.sync ballot %%v%d, %%v%d -> i32", mask, ci32(g, -1), predicate);
  return mask;
}

static int popc32(gen *g, int value) {
  int r = fresh(g);
  ln(g, "%%v%d = llvm.intr.ctpop(%%v%d) : (i32) -> i32", r, value);
  return r;
}

static int lowest_bit32(gen *g, int mask) {
  int r = fresh(g);
  ln(g, "%%v%d = \"llvm.intr.cttz\"(%%v%d) <{is_zero_poison = false}> : (i32) -> i32", r, mask);
  return r;
}

static int lanes_below(gen *g, int lane) {
  int shifted = op2(g, "arith.shli", ci32(g, 1), cast(g, "arith.trunci", lane, "i64", "i32"), "i32");
  return op2(g, "arith.subi", shifted, ci32(g, 1), "i32");
}

/* `value` combined with `op` over the lanes whose index differs in the bits of `offsets`, in that order
 * (xor shuffles: the same bits on every lane of the group). */
static int butterfly(gen *g, const char *op, int value, const int *offsets, int count) {
  int width = ci32(g, 32);
  for (int i = 0; i < count; ++i) {
    int shuffled = fresh(g), valid = fresh(g);
    ln(g, "%%v%d, %%v%d = gpu.shuffle xor %%v%d, %%v%d, %%v%d : f32", shuffled, valid, value, ci32(g, offsets[i]), width);
    value = op2(g, op, value, shuffled, "f32");
  }
  return value;
}

/* The xor butterfly over the 32 lanes of a warp with `op` (arith.addf or arith.maximumf). Each step
 * combines a lane's value with its partner's, and both partners compute the same (commutative) result,
 * so every lane ends with the same bits: a fixed order, deterministic. */
static int warp_combine(gen *g, const char *op, int value) {
  static const int offsets[] = {16, 8, 4, 2, 1};
  return butterfly(g, op, value, offsets, 5);
}

/* Units [lo, hi) (i64 values) walked by the CTA's threads. */
static int threads_begin(gen *g, int lo, int hi) { return loop_begin(g, add(g, lo, g->tid), hi, g->ntid); }

/* Sum over c in [0, n) of a[a_base + c] * b[b_base + c] in fp32, in increasing c. */
static int dot(gen *g, const tensor_ref *a, int a_base, const tensor_ref *b, int b_base, int64_t n) {
  int acc, result;
  int c = loop1_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1), cf32(g, 0.0), "f32", &acc, &result);
  int x = load_f32(g, a, add(g, a_base, c));
  int y = load_f32(g, b, add(g, b_base, c));
  loop1_end(g, fadd(g, acc, fmul(g, x, y)), "f32");
  return result;
}

/* ---- local arrays (per-thread accumulators of attention) --------------------------------------------- */

/* `n` f32 of local memory, allocated at function entry (the caller emits it before any loop). */
static int local_array(gen *g, int64_t n) {
  int count = ci64(g, n > 0 ? n : 1), r = fresh(g);
  ln(g, "%%v%d = llvm.alloca %%v%d x f32 : (i64) -> !llvm.ptr", r, count);
  return r;
}

static int local_address(gen *g, int array, int index) {
  int r = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr, i64) -> !llvm.ptr, f32", r, array, index);
  return r;
}

static int local_load(gen *g, int array, int index) {
  int address = local_address(g, array, index), r = fresh(g);
  ln(g, "%%v%d = llvm.load %%v%d : !llvm.ptr -> f32", r, address);
  return r;
}

static void local_store(gen *g, int array, int index, int value) {
  int address = local_address(g, array, index);
  ln(g, "llvm.store %%v%d, %%v%d : f32, !llvm.ptr", value, address);
}

static void local_fill(gen *g, int array, int64_t n, int value) {
  int c = loop_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1));
  local_store(g, array, c, value);
  loop_end(g);
}

/* ---- shared memory ------------------------------------------------------------------------------------ */

/* One block of dynamic shared memory, @latch_smem, serves every template that stages data (docs/device-abi.md
 * "Shared memory"). A template writes it only after a CTA barrier, so the tile that ran before on the same
 * CTA has finished reading it; every thread of the CTA runs the same tiles, so the barriers match. Its size
 * is the most that any task of the program uses (need_shared): the staging ring of the tensor-core products
 * needs more than the 48 KiB that static shared memory allows, and programs without them keep more CTAs per
 * SM. SHARED_FLOATS is the area every other template may use. */
#define SHARED_FLOATS 12288
#define SHARED_GLOBAL \
  "  llvm.mlir.global external @latch_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x f32>\n"
/* docs/device-abi.md: every CTA has 256 threads (templates that give each thread one fixed item rely on it). */
#define CTA_THREADS 256
#define WARPS (CTA_THREADS / 32)

static void need_shared(gen *g, int64_t floats) {
  if (g->l->shared_floats < floats)
    g->l->shared_floats = floats;
}

static int shared_base(gen *g) {
  need_shared(g, SHARED_FLOATS);
  if (g->shared < 0) {
    g->shared = fresh(g);
    latch_text_put(&g->entry, "    %%v%d = llvm.mlir.addressof @latch_smem : !llvm.ptr<3>\n", g->shared);
  }
  return g->shared;
}

static int shared_address(gen *g, int index) {
  int base = shared_base(g), r = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32", r, base, index);
  return r;
}

/* Word `index` of @latch_smem as `type` (f32, or i32 for packed bf16 pairs). */
static int shared_load_as(gen *g, int index, const char *type) {
  int address = shared_address(g, index), r = fresh(g);
  ln(g, "%%v%d = llvm.load %%v%d : !llvm.ptr<3> -> %s", r, address, type);
  return r;
}

static void shared_store_as(gen *g, int index, int value, const char *type) {
  int address = shared_address(g, index);
  ln(g, "llvm.store %%v%d, %%v%d : %s, !llvm.ptr<3>", value, address, type);
}

static int shared_load(gen *g, int index) { return shared_load_as(g, index, "f32"); }
static void shared_store(gen *g, int index, int value) { shared_store_as(g, index, value, "f32"); }

static void sync_threads(gen *g) { ln(g, "nvvm.barrier0"); }

/* One task_scratch or pooled_scratch call of a tile body's template. */
typedef struct scratch_request {
  bool pooled;
  char what[16], type[8];
  int64_t count; /* elements of task scratch, floats of pooled scratch */
} scratch_request;

static void record_request(gen *g, bool pooled, const char *what, int64_t count, const char *type) {
  if (g->request_count == g->request_capacity) {
    int capacity = g->request_capacity ? 2 * g->request_capacity : 4;
    scratch_request *grown = realloc(g->requests, (size_t)capacity * sizeof(*grown));
    if (!grown) {
      g->failed = true;
      return;
    }
    g->requests = grown;
    g->request_capacity = capacity;
  }
  scratch_request *r = &g->requests[g->request_count++];
  r->pooled = pooled;
  snprintf(r->what, sizeof(r->what), "%s", what);
  snprintf(r->type, sizeof(r->type), "%s", type);
  r->count = count;
}

/* ---- cross-tile scratch (docs/device-abi.md "Task scratch") ----
 * A task whose tiles combine into one value keeps per-tile results in a zero-initialised global of the
 * module, @latch_task<N>_<what>, and an arrival counter beside it: each tile stores its partial result,
 * fences (release, gpu scope) and counts itself in; the tile that arrives last fences (acquire), combines
 * the partials in index order (so the bits do not depend on which tile was last) and resets the counter
 * for the next update. The counter is control only: no value is accumulated atomically. */
static int task_scratch(gen *g, const char *what, int64_t count, const char *type) {
  record_request(g, false, what, count, type);
  latch_text_put(&g->globals,
                 "  llvm.mlir.global internal @latch_task%d_%s() {addr_space = 1 : i32, alignment = 16 : i64} : "
                 "!llvm.array<%lld x %s> {\n"
                 "    %%z = llvm.mlir.zero : !llvm.array<%lld x %s>\n    llvm.return %%z : !llvm.array<%lld x %s>\n  }\n",
                 g->index, what, (long long)count, type, (long long)count, type, (long long)count, type);
  char global[MAX_SYMBOL];
  snprintf(global, sizeof(global), "latch_task%d_%s", g->index, what);
  return add_param(g, NULL, global);
}

/* Task scratch that tasks of different intervals share (every interval ends at a grid barrier, so they
 * never use it at once): the k-th request of an interval gets @latch_pool<k>, which the pass sizes for
 * the largest k-th request of any interval (write_pools). Zero-initialised like task_scratch, but its
 * contents do not survive the interval: the task writes before it reads. */
static int pooled_scratch(gen *g, int64_t floats) {
  record_request(g, true, "", floats, "");
  lowerer *l = g->l;
  if (l->pool_interval != l->current_interval) {
    l->pool_interval = l->current_interval;
    l->pool_next = 0;
  }
  int k = l->pool_next++;
  if (k >= MAX_POOLS) {
    g->failed = true;
    return 0;
  }
  if (k >= l->pool_count)
    l->pool_count = k + 1;
  if (floats > l->pool_floats[k])
    l->pool_floats[k] = floats;
  char global[MAX_SYMBOL];
  snprintf(global, sizeof(global), POOL_PREFIX "%d", k);
  return add_param(g, NULL, global);
}

static int scratch_address(gen *g, int base, int index, const char *type) {
  int r = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, %s", r, base, index, type);
  return r;
}

/* Adds 1 to the counter at `counter` after a release fence; returns the count before (i32). */
static int arrive(gen *g, int counter) {
  int old = fresh(g), one = ci32(g, 1);
  ln(g, "llvm.fence syncscope(\"device\") release");
  ln(g, "%%v%d = llvm.atomicrmw add %%v%d, %%v%d syncscope(\"device\") monotonic : !llvm.ptr<1>, i32", old, counter, one);
  return old;
}

/* A value another tile stored before its release fence (read after this thread's acquire fence). */
static int scratch_load_f32(gen *g, int address) {
  int r = fresh(g);
  ln(g, "%%v%d = llvm.load %%v%d atomic syncscope(\"device\") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> f32",
     r, address);
  return r;
}

/* Once the tile's partials are stored (each storing thread fenced them, or thread 0 stored them): thread 0
 * counts the tile in at `counter` (arrive); the i1 "this tile arrived last" reaches every thread of the
 * CTA through shared word `flag`, and every thread of the last tile fences (acquire) before it reads the
 * other tiles' partials. */
static int arrived_last(gen *g, int counter, int64_t count, int flag) {
  sync_threads(g);
  when_begin(g, cmpi(g, "eq", g->tid, ci64(g, 0), "i64"));
  int is_last = cmpi(g, "eq", arrive(g, counter), ci32(g, (int32_t)(count - 1)), "i32");
  shared_store(g, flag, sel(g, is_last, cf32(g, 1.0), cf32(g, 0.0), "f32"));
  when_end(g);
  sync_threads(g);
  int last = cmpf(g, "one", shared_load(g, flag), cf32(g, 0.0), "f32");
  when_begin(g, last);
  ln(g, "llvm.fence syncscope(\"device\") acquire");
  when_end(g);
  return last;
}

/* The last tile resets the counter for the next update. */
static void reset_arrivals(gen *g, int counter) {
  ln(g, "llvm.store %%v%d, %%v%d atomic syncscope(\"device\") monotonic {alignment = 4 : i64} : i32, !llvm.ptr<1>",
     ci32(g, 0), counter);
}

/* An f32 loaded only where `valid` holds (0 elsewhere), so that no address outside a tensor is read. */
static int load_f32_if(gen *g, const tensor_ref *t, int valid, int index) {
  const char *f32[1] = {"f32"};
  int value;
  if_begin(g, valid, 1, f32, &value);
  int loaded = load_f32(g, t, index);
  if_else(g, 1, &loaded, f32);
  int zero = cf32(g, 0.0);
  if_end(g, 1, &zero, f32);
  return value;
}

/* ---- the task templates -------------------------------------------------------------------------------- */

/* Everything a template reads: the task's operands and results, located and (once the prologue ran)
 * with base pointers. */
typedef struct task_io {
  tensor_ref in[LATCH_MAP_MAX_INPUTS + 1];
  tensor_ref out[LATCH_MAP_MAX_OUTPUTS];
  int in_count, out_count;
  int index;                 /* the task's N */
  char map_body[MAX_SYMBOL]; /* the function a task.map's tiles call per element */
  fused_prologue prologue;   /* of in[prologue_operand] when that operand's prologue is fused */
  int prologue_operand;      /* -1: none */
  fused_epilogue epilogue;   /* of out[0] when its epilogue is fused (epilogue.out_count > 0) */
} task_io;

/* Whether t lies in memory at an address that is a multiple of `bytes` (external buffers come from
 * cuMemAlloc, 256-byte aligned; arena places are as planned). */
static bool place_aligned(const tensor_ref *t, int64_t bytes) {
  return t->kind != PLACE_CONST && (t->kind != PLACE_ARENA || t->where % bytes == 0);
}

/* `type` at element `index` of t, whose address is a multiple of `alignment` bytes, and the store of one. */
static int load_aligned(gen *g, const tensor_ref *t, int index, const char *type, int alignment) {
  return global_load(g, element_address(g, t, index), type, alignment);
}

static void store_aligned(gen *g, const tensor_ref *t, int index, int value, const char *type, int alignment) {
  global_store(g, element_address(g, t, index), value, type, alignment);
}

/* The same at a 16-byte aligned element. */
static int load_vector_as(gen *g, const tensor_ref *t, int index, const char *type) {
  return load_aligned(g, t, index, type, 16);
}

static void store_vector_as(gen *g, const tensor_ref *t, int index, int value, const char *type) {
  store_aligned(g, t, index, value, type, 16);
}

/* ---- elementwise: map, convert, transpose, reshape, adamw ---- */

/* An elementwise template in two phases: `load` reads what element i needs into values[] (loads only),
 * `finish` computes element i from them and stores it. */
typedef void (*elementwise_load)(gen *g, const task_io *io, const void *context, int i, int *values);
typedef void (*elementwise_finish)(gen *g, const task_io *io, const void *context, int i, const int *values);
/* Optional, between a group's loads and its first finish: work that needs none of the loaded values (AdamW's
 * bias corrections), written after the loads so that its latency overlaps theirs instead of delaying them. */
typedef void (*elementwise_prepare)(gen *g, const task_io *io, const void *context);
#define ELEMENTWISE_MAX_VALUES LATCH_MAP_MAX_INPUTS
#define ELEMENTWISE_MAX_UNROLL 8

/* Tiles of `tile` units of [0, units) (a unit: one element, or ELEMENTWISE_WIDTH of them on the vector
 * path). A full tile takes its units in groups: thread t of the group handles units base + t + u
 * CTA_THREADS (u < unroll; every access coalesced) and issues all the group's loads before its first
 * store, so that `unroll` loads per value are in flight per thread (a load after a store of the same task
 * may not move above it: the compiler cannot rule out that they alias). The last, partial tile takes one
 * unit per thread iteration. Each element is computed exactly as alone: the order changes nothing. */
static void unit_tiles(gen *g, const task_io *io, const void *context, int64_t units, int64_t tile, int unroll,
                       elementwise_load load, elementwise_prepare prepare, elementwise_finish finish) {
  int64_t group = (int64_t)CTA_THREADS * unroll;
  bool any_full = units >= tile, any_partial = units % tile != 0;
  int vt = tiles_begin(g, ceil_div(units, tile));
  int lo = mulc(g, vt, tile);
  if (any_full && any_partial)
    when_begin(g, cmpi(g, "sle", addc(g, lo, tile), ci64(g, units), "i64"));
  if (any_full) {
    int q = loop_begin(g, ci64(g, 0), ci64(g, tile), ci64(g, group));
    int base = add(g, add(g, lo, q), g->tid);
    int index[ELEMENTWISE_MAX_UNROLL], values[ELEMENTWISE_MAX_UNROLL][ELEMENTWISE_MAX_VALUES];
    for (int u = 0; u < unroll; ++u) {
      index[u] = addc(g, base, (int64_t)u * CTA_THREADS);
      load(g, io, context, index[u], values[u]);
    }
    if (prepare)
      prepare(g, io, context);
    for (int u = 0; u < unroll; ++u)
      finish(g, io, context, index[u], values[u]);
    loop_end(g);
  }
  if (any_full && any_partial)
    otherwise(g);
  if (any_partial) {
    int i = loop_begin(g, add(g, lo, g->tid), mini(g, addc(g, lo, tile), ci64(g, units)), g->ntid);
    int values[ELEMENTWISE_MAX_VALUES];
    load(g, io, context, i, values);
    if (prepare)
      prepare(g, io, context);
    finish(g, io, context, i, values);
    loop_end(g);
  }
  if (any_full && any_partial)
    when_end(g);
  loop_end(g);
}

/* The unroll of unit_tiles for tiles of `tile` units, at most `unroll`: a full tile must be whole groups. */
static int whole_group_unroll(int64_t tile, int unroll) {
  while (unroll > 1 && tile % ((int64_t)CTA_THREADS * unroll) != 0)
    unroll /= 2;
  return unroll;
}

/* Tiles of `tile` elements (latch_elementwise_tile, or LATCH_ADAMW_TILE) of [0, n), an element per unit; the
 * unroll shrinks with the values an element loads (register pressure). */
static void elementwise_tiles(gen *g, const task_io *io, const void *context, int64_t n, int64_t tile,
                              int values_per_element, elementwise_load load, elementwise_prepare prepare,
                              elementwise_finish finish) {
  int unroll = values_per_element <= 4 ? ELEMENTWISE_MAX_UNROLL : values_per_element <= 8 ? 4 : 2;
  unit_tiles(g, io, context, n, tile, whole_group_unroll(tile, unroll), load, prepare, finish);
}

static void map_load(gen *g, const task_io *io, const void *context, int i, int *values) {
  (void)context;
  for (int k = 0; k < io->in_count; ++k)
    values[k] = load_raw(g, &io->in[k], io->in[k].rank == 0 ? ci64(g, 0) : i);
}

/* A map's body function called on one element's values of `in` (storage types); its results, one per
 * tensor of `out`, in their storage types. */
static void call_map_body(gen *g, const char *body, int in_count, const tensor_ref *in, const int *args,
                          int out_count, const tensor_ref *out, int *results) {
  latch_text_put(g->t, "%*s", 2 * g->depth + 4, "");
  for (int k = 0; k < out_count; ++k) {
    results[k] = fresh(g);
    latch_text_put(g->t, k ? ", %%v%d" : "%%v%d", results[k]);
  }
  latch_text_put(g->t, " = func.call @%s(", body);
  for (int k = 0; k < in_count; ++k)
    latch_text_put(g->t, k ? ", %%v%d" : "%%v%d", args[k]);
  latch_text_put(g->t, ") : (");
  for (int k = 0; k < in_count; ++k)
    latch_text_put(g->t, "%s%s", k ? ", " : "", dtype_name(in[k].dt));
  latch_text_put(g->t, ") -> (");
  for (int k = 0; k < out_count; ++k)
    latch_text_put(g->t, "%s%s", k ? ", " : "", dtype_name(out[k].dt));
  latch_text_put(g->t, ")\n");
}

/* The map body called on one element's inputs (storage types); its results in the outputs' storage types. */
static void map_compute(gen *g, const task_io *io, const void *context, const int *args, int *results) {
  (void)context;
  call_map_body(g, io->map_body, io->in_count, io->in, args, io->out_count, io->out, results);
}

static void map_finish(gen *g, const task_io *io, const void *context, int i, const int *args) {
  int results[LATCH_MAP_MAX_OUTPUTS];
  map_compute(g, io, context, args, results);
  for (int k = 0; k < io->out_count; ++k)
    store_raw(g, &io->out[k], i, results[k]);
}

/* ---- element-wise work by vectors of four ----
 * latch-lower-tasks{vector-maps} (default on): a map or an AdamW step whose per-element tensors (inputs of rank > 0
 * and every result) all start 16-byte aligned, with a multiple of 4 elements, reads and writes each
 * thread's 4 consecutive elements as one vector (16 bytes of f32 or i32, 8 of bf16) instead of 4 scalar
 * accesses: the same tiles (latch_elementwise_tile), in units of 4; rank-0 inputs and constants are
 * read as scalars. Each element is computed by the same code as alone, so the bits do not change. */
#define ELEMENTWISE_WIDTH 4
#define ELEMENTWISE_MAX_RESULTS (LATCH_MAP_MAX_OUTPUTS > 3 ? LATCH_MAP_MAX_OUTPUTS : 3) /* a map's, AdamW's 3 */
_Static_assert(ELEMENTWISE_TILE / ELEMENTWISE_WIDTH % (CTA_THREADS * ELEMENTWISE_MAX_UNROLL) == 0,
               "a full tile of units is whole groups");

/* Computes one element's results (storage types) from its inputs' values (storage types). */
typedef void (*elementwise_compute)(gen *g, const task_io *io, const void *context, const int *values, int *results);

static bool read_as_scalar(const tensor_ref *t) { return t->rank == 0 || t->kind == PLACE_CONST; }

static const char *vector_type(dtype dt) {
  return dt == DT_F32 ? "vector<4xf32>" : dt == DT_BF16 ? "vector<4xbf16>" : "vector<4xi32>";
}

/* The first element of unit `unit` (its elements 4 unit ..), and the unit's bytes: its address's alignment. */
static int unit_first(gen *g, int unit) { return mulc(g, unit, ELEMENTWISE_WIDTH); }
static int unit_bytes(const tensor_ref *t) { return (int)(ELEMENTWISE_WIDTH * dtype_bytes(t->dt)); }

/* Whether the first `inputs` inputs and every output of io fit the vector path over n elements. */
static bool elementwise_vectors_fit(const gen *g, const task_io *io, int inputs, int64_t n) {
  if (!g->l->vector_maps || n % ELEMENTWISE_WIDTH != 0)
    return false;
  for (int k = 0; k < inputs; ++k)
    if (!read_as_scalar(&io->in[k]) && (io->in[k].elements != n || !place_aligned(&io->in[k], 16)))
      return false;
  for (int k = 0; k < io->out_count; ++k)
    if (io->out[k].elements != n || !place_aligned(&io->out[k], 16))
      return false;
  return true;
}

/* What the vector path's unit callbacks need: the task's own context, its inputs read per element, and
 * how an element's results are computed. */
typedef struct vector_context {
  const void *context;
  int inputs;
  elementwise_prepare prepare;
  elementwise_compute compute;
} vector_context;

static void vector_unit_prepare(gen *g, const task_io *io, const void *context) {
  const vector_context *c = context;
  c->prepare(g, io, c->context);
}

/* Unit `unit`'s inputs: one vector each, or the scalar. */
static void vector_unit_load(gen *g, const task_io *io, const void *context, int unit, int *loaded) {
  const vector_context *c = context;
  for (int k = 0; k < c->inputs; ++k) {
    const tensor_ref *t = &io->in[k];
    if (read_as_scalar(t)) {
      loaded[k] = load_raw(g, t, ci64(g, 0));
    } else {
      loaded[k] = load_aligned(g, t, unit_first(g, unit), vector_type(t->dt), unit_bytes(t));
    }
  }
}

/* Each element of unit `unit` computed from its lanes of the loaded vectors; one vector store per result. */
static void vector_unit_finish(gen *g, const task_io *io, const void *context, int unit, const int *loaded) {
  const vector_context *c = context;
  int results[ELEMENTWISE_WIDTH][ELEMENTWISE_MAX_RESULTS];
  for (int e = 0; e < ELEMENTWISE_WIDTH; ++e) {
    int values[ELEMENTWISE_MAX_VALUES];
    for (int k = 0; k < c->inputs; ++k) {
      const tensor_ref *t = &io->in[k];
      if (read_as_scalar(t)) {
        values[k] = loaded[k];
      } else {
        values[k] = fresh(g);
        ln(g, "%%v%d = llvm.extractelement %%v%d[%%v%d : i32] : %s", values[k], loaded[k], ci32(g, e),
           vector_type(t->dt));
      }
    }
    c->compute(g, io, c->context, values, results[e]);
  }
  for (int k = 0; k < io->out_count; ++k) {
    const char *type = vector_type(io->out[k].dt);
    int elements[ELEMENTWISE_WIDTH];
    for (int e = 0; e < ELEMENTWISE_WIDTH; ++e)
      elements[e] = results[e][k];
    store_aligned(g, &io->out[k], unit_first(g, unit), vector_of(g, elements, ELEMENTWISE_WIDTH, type), type,
                  unit_bytes(&io->out[k]));
  }
}

/* The tiles of elementwise_tiles in units of ELEMENTWISE_WIDTH elements (elementwise_vectors_fit holds);
 * a thread loads at most about 32 registers of a group's vectors before its first store. */
static void elementwise_vector_tiles(gen *g, const task_io *io, const void *context, int64_t n, int64_t tile,
                                     int inputs, elementwise_prepare prepare, elementwise_compute compute) {
  vector_context c = {.context = context, .inputs = inputs, .prepare = prepare, .compute = compute};
  int unroll = inputs <= 2 ? 4 : inputs <= 4 ? 2 : 1;
  /* ceil_div(n / 4, tile / 4) = ceil_div(n, tile) tiles: n and tile are multiples of 4 */
  unit_tiles(g, io, &c, n / ELEMENTWISE_WIDTH, tile / ELEMENTWISE_WIDTH,
             whole_group_unroll(tile / ELEMENTWISE_WIDTH, unroll), vector_unit_load,
             prepare ? vector_unit_prepare : NULL, vector_unit_finish);
}

static void gen_map(gen *g, task_io *io) {
  int64_t n = io->out[0].elements;
  if (elementwise_vectors_fit(g, io, io->in_count, n)) {
    bool evict_first = g->evict_first;
    g->evict_first = evict_first || g->l->map_evict_first;
    elementwise_vector_tiles(g, io, NULL, n, latch_elementwise_tile(n), io->in_count, NULL, map_compute);
    g->evict_first = evict_first;
  } else {
    elementwise_tiles(g, io, NULL, n, latch_elementwise_tile(n), io->in_count, map_load, NULL, map_finish);
  }
}

/* ---- element-wise tasks by vectors ----
 * A copy whose source runs lie contiguous (a reshape; a transpose that keeps the last axis; the rows of a
 * gather) or a conversion between f32 and bf16 moves whole vectors of consecutive elements when both
 * tensors start 16-byte aligned and the vector length divides the runs: the same tiles of
 * latch_elementwise_tile elements, each thread loading VECTOR_UNROLL vectors before it stores them. Each element
 * gets the bits it gets alone. */
#define VECTOR_UNROLL 4

/* The vector (of vector_tiles' `type`) of the elements that output element `first` starts, loaded; and
 * its store. */
typedef int (*vector_load_fn)(gen *g, const task_io *io, const void *context, int first);
typedef void (*vector_store_fn)(gen *g, const task_io *io, const void *context, int first, int value);

static void vector_tiles(gen *g, const task_io *io, const void *context, int64_t per_vector, const char *type,
                         vector_load_fn load, vector_store_fn store) {
  const char *types[1] = {type};
  int64_t n = io->out[0].elements, tile = latch_elementwise_tile(n);
  int vt = tiles_begin(g, ceil_div(n, tile));
  int lo = mulc(g, vt, tile);
  int count = divc(g, sub(g, mini(g, addc(g, lo, tile), ci64(g, n)), lo), per_vector);
  int q = loop_begin(g, ci64(g, 0), count, ci64(g, CTA_THREADS * VECTOR_UNROLL));
  int first[VECTOR_UNROLL], valid[VECTOR_UNROLL], values[VECTOR_UNROLL];
  for (int u = 0; u < VECTOR_UNROLL; ++u) {
    int j = add(g, q, addc(g, g->tid, (int64_t)u * CTA_THREADS));
    valid[u] = cmpi(g, "slt", j, count, "i64");
    first[u] = add(g, lo, mulc(g, j, per_vector));
    if_begin(g, valid[u], 1, types, &values[u]);
    int loaded = load(g, io, context, first[u]);
    if_else(g, 1, &loaded, types);
    int none = fresh(g);
    ln(g, "%%v%d = llvm.mlir.poison : %s", none, type);
    if_end(g, 1, &none, types);
  }
  for (int u = 0; u < VECTOR_UNROLL; ++u) {
    when_begin(g, valid[u]);
    store(g, io, context, first[u], values[u]);
    when_end(g);
  }
  loop_end(g);
  loop_end(g);
}

/* A copy's elements per 16-byte vector (moved as vector<4xi32>), or 0 when it cannot go by vectors. */
static int64_t copy_vector_elements(const tensor_ref *x, const tensor_ref *y, int64_t run) {
  int64_t per_vector = 16 / dtype_bytes(y->dt);
  return place_aligned(x, 16) && place_aligned(y, 16) && x->dt == y->dt && run % per_vector == 0 ? per_vector : 0;
}

static void copy_vector_store(gen *g, const task_io *io, const void *context, int first, int value) {
  (void)context;
  store_vector_as(g, &io->out[0], first, value, "vector<4xi32>");
}

/* One element converted from x's dtype to y's (docs/task-dialect.md task.convert). */
static int convert_value(gen *g, int value, dtype from, dtype to) {
  if (from == to)
    return value;
  if (from == DT_I32) {
    int f = cast(g, "arith.sitofp", value, "i32", "f32");
    return to == DT_BF16 ? cast(g, "arith.truncf", f, "f32", "bf16") : f; /* two-step rounding to bf16 */
  }
  int f = from == DT_BF16 ? cast(g, "arith.extf", value, "bf16", "f32") : value;
  if (to == DT_I32)
    return f32_to_i32(g, f);
  return to == DT_BF16 ? cast(g, "arith.truncf", f, "f32", "bf16") : f;
}

/* Element `index` of a fused operand: its prologue's inputs there, then the map's body (the function its
 * own tiles call, so the same arithmetic) or the conversion (as gen_convert: through f32). */
static int prologue_load(gen *g, const tensor_ref *t, int index) {
  const fused_prologue *p = t->prologue;
  int values[LATCH_MAP_MAX_INPUTS];
  for (int k = 0; k < p->in_count; ++k)
    values[k] = load_raw(g, &p->in[k], p->in[k].rank == 0 ? ci64(g, 0) : index);
  if (!p->map_body[0])
    return convert_value(g, values[0], p->in[0].dt, t->dt);
  int r;
  call_map_body(g, p->map_body, p->in_count, p->in, values, 1, t, &r);
  return r;
}

/* The inputs of a fused epilogue at element `index` other than the stored result (whose slots stay 0). */
static void epilogue_load_inputs(gen *g, const fused_epilogue *e, int index, int *values) {
  for (int k = 0; k < e->in_count; ++k)
    values[k] = e->is_result[k] ? 0 : load_raw(g, &e->in[k], e->in[k].rank == 0 ? ci64(g, 0) : index);
}

/* The epilogue's results at element `index` of `t`, from the stored `value` and the other inputs there
 * (epilogue_load_inputs), stored. */
static void epilogue_finish(gen *g, const tensor_ref *t, int index, int value, const int *inputs) {
  const fused_epilogue *e = t->epilogue;
  int values[LATCH_MAP_MAX_INPUTS], results[LATCH_MAP_MAX_OUTPUTS];
  for (int k = 0; k < e->in_count; ++k)
    values[k] = e->is_result[k] ? value : inputs[k];
  if (!e->map_body[0]) {
    store_raw(g, &e->out[0], index, convert_value(g, values[0], e->in[0].dt, e->out[0].dt));
    return;
  }
  call_map_body(g, e->map_body, e->in_count, e->in, values, e->out_count, e->out, results);
  for (int r = 0; r < e->out_count; ++r)
    store_raw(g, &e->out[r], index, results[r]);
}

/* Whether a fused epilogue loads inputs other than the stored result (constants load nothing). */
static bool epilogue_loads(const fused_epilogue *e) {
  for (int k = 0; k < e->in_count; ++k)
    if (!e->is_result[k] && e->in[k].kind != PLACE_CONST)
      return true;
  return false;
}

/* The store of element `index` of a result whose epilogue is fused: the epilogue's results there. */
static void epilogue_store(gen *g, const tensor_ref *t, int index, int value) {
  int inputs[LATCH_MAP_MAX_INPUTS];
  epilogue_load_inputs(g, t->epilogue, index, inputs);
  epilogue_finish(g, t, index, value, inputs);
}

/* Element i of the one input (convert, reshape). */
static void first_input_load(gen *g, const task_io *io, const void *context, int i, int *values) {
  (void)context;
  values[0] = load_raw(g, &io->in[0], i);
}

static void convert_finish(gen *g, const task_io *io, const void *context, int i, const int *values) {
  (void)context;
  store_raw(g, &io->out[0], i, convert_value(g, values[0], io->in[0].dt, io->out[0].dt));
}

/* f32 <-> bf16 by vectors of 8 (arith.truncf rounds each to nearest even, as convert_value does). */
static int convert_vector_load(gen *g, const task_io *io, const void *context, int first) {
  (void)context;
  bool narrowing = io->in[0].dt == DT_F32;
  int x = load_vector_as(g, &io->in[0], first, narrowing ? "vector<8xf32>" : "vector<8xbf16>"), r = fresh(g);
  ln(g, "%%v%d = arith.%s %%v%d : %s", r, narrowing ? "truncf" : "extf", x,
     narrowing ? "vector<8xf32> to vector<8xbf16>" : "vector<8xbf16> to vector<8xf32>");
  return r;
}

static void convert_vector_store(gen *g, const task_io *io, const void *context, int first, int value) {
  (void)context;
  store_vector_as(g, &io->out[0], first, value, io->out[0].dt == DT_BF16 ? "vector<8xbf16>" : "vector<8xf32>");
}

static void gen_convert(gen *g, task_io *io) {
  const tensor_ref *x = &io->in[0], *y = &io->out[0];
  bool by_vectors = ((x->dt == DT_F32 && y->dt == DT_BF16) || (x->dt == DT_BF16 && y->dt == DT_F32)) &&
                    place_aligned(x, 16) && place_aligned(y, 16) && y->elements % 8 == 0;
  if (by_vectors)
    vector_tiles(g, io, NULL, 8, y->dt == DT_BF16 ? "vector<8xbf16>" : "vector<8xf32>", convert_vector_load,
                 convert_vector_store);
  else
    elementwise_tiles(g, io, NULL, y->elements, latch_elementwise_tile(y->elements), 1, first_input_load, NULL,
                      convert_finish);
}

/* y[i] = x[j] where y's coordinates of i, permuted back, are x's coordinates of j. */
typedef struct transpose_context {
  int64_t x_stride[MAX_RANK];
  int64_t perm[MAX_RANK];
} transpose_context;

/* The element of x that output element i of a transpose comes from. */
static int transpose_source(gen *g, const task_io *io, const transpose_context *t, int i) {
  const tensor_ref *y = &io->out[0];
  int rest = i, from = ci64(g, 0);
  for (int d = y->rank - 1; d >= 0; --d) {
    int coordinate = d ? remc(g, rest, y->dims[d]) : rest;
    if (d)
      rest = divc(g, rest, y->dims[d]);
    from = add(g, from, mulc(g, coordinate, t->x_stride[t->perm[d]]));
  }
  return from;
}

static void transpose_load(gen *g, const task_io *io, const void *context, int i, int *values) {
  values[0] = load_raw(g, &io->in[0], transpose_source(g, io, context, i));
}

static int transpose_vector_load(gen *g, const task_io *io, const void *context, int first) {
  return load_vector_as(g, &io->in[0], transpose_source(g, io, context, first), "vector<4xi32>");
}

/* Stores the one loaded value unchanged (transpose, reshape). */
static void copy_finish(gen *g, const task_io *io, const void *context, int i, const int *values) {
  (void)context;
  store_raw(g, &io->out[0], i, values[0]);
}

static void gen_transpose(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0];
  transpose_context t;
  int64_t size = 1;
  for (int d = x->rank - 1; d >= 0; --d) {
    t.x_stride[d] = size;
    size *= x->dims[d];
  }
  int rank = io->out[0].rank;
  for (int d = 0; d < rank; ++d)
    t.perm[d] = latch_transpose_perm_at(op, d);
  int64_t per_vector = rank && t.perm[rank - 1] == rank - 1 ? copy_vector_elements(x, &io->out[0], last_dim(x)) : 0;
  if (per_vector)
    vector_tiles(g, io, &t, per_vector, "vector<4xi32>", transpose_vector_load, copy_vector_store);
  else
    elementwise_tiles(g, io, &t, io->out[0].elements, latch_elementwise_tile(io->out[0].elements), 1, transpose_load,
                      NULL, copy_finish);
}

static int reshape_vector_load(gen *g, const task_io *io, const void *context, int first) {
  (void)context;
  return load_vector_as(g, &io->in[0], first, "vector<4xi32>");
}

/* A copy when the planner did not put y over x (then nothing to do). */
static void gen_reshape(gen *g, task_io *io) {
  if (places_equal(&io->in[0], &io->out[0]))
    return;
  int64_t per_vector = copy_vector_elements(&io->in[0], &io->out[0], io->out[0].elements);
  if (per_vector)
    vector_tiles(g, io, NULL, per_vector, "vector<4xi32>", reshape_vector_load, copy_vector_store);
  else
    elementwise_tiles(g, io, NULL, io->out[0].elements, latch_elementwise_tile(io->out[0].elements), 1,
                      first_input_load, NULL, copy_finish);
}

typedef struct adamw_context {
  double lr, b1, b2, eps, wd;
  int *corrections; /* [2]: the bias corrections 1 - beta1^t, 1 - beta2^t (f32 values), set by adamw_prepare */
} adamw_context;

/* The bias corrections from the step t (fp64, rounded to f32), after the group's loads (elementwise_prepare):
 * ahead of them, the step's load and two calls of libdevice's pow held back every tile's loads (the AdamW
 * intervals ran at about 2.7 TB/s, 2026-12-04). beta^t by squaring over t's bits (t counts updates: an
 * integer, an f32 step truncated, below 0 taken as 0), in a loop of t's bit length: no call. */
static void adamw_prepare(gen *g, const task_io *io, const void *context) {
  const adamw_context *a = context;
  const tensor_ref *step = &io->in[4];
  int zero = ci64(g, 0);
  int t = step->dt == DT_I32 ? cast(g, "arith.extsi", load_raw(g, step, zero), "i32", "i64")
                             : cast(g, "arith.fptosi", load_f32(g, step, zero), "f32", "i64");
  t = maxi(g, t, zero);
  int leading = fresh(g);
  ln(g, "%%v%d = \"llvm.intr.ctlz\"(%%v%d) <{is_zero_poison = false}> : (i64) -> i64", leading, t);
  int bits = sub(g, ci64(g, 64), leading);
  const char *const types[5] = {"f64", "f64", "f64", "f64", "i64"};
  int one = cf64(g, 1.0), init[5] = {one, one, cf64(g, a->b1), cf64(g, a->b2), t}, args[5], results[5];
  for_begin(g, zero, bits, ci64(g, 1), 5, init, types, args, results);
  int odd = cmpi(g, "ne", op2(g, "arith.andi", args[4], ci64(g, 1), "i64"), zero, "i64");
  int next[5];
  for (int k = 0; k < 2; ++k) { /* powers[k] *= squares[k] where t's bit is set; squares[k] squared */
    next[k] = sel(g, odd, op2(g, "arith.mulf", args[k], args[2 + k], "f64"), args[k], "f64");
    next[2 + k] = op2(g, "arith.mulf", args[2 + k], args[2 + k], "f64");
  }
  next[4] = op2(g, "arith.shrui", args[4], ci64(g, 1), "i64");
  for_end(g, 5, next, types);
  for (int k = 0; k < 2; ++k)
    a->corrections[k] = cast(g, "arith.truncf", op2(g, "arith.subf", one, results[k], "f64"), "f64", "f32");
}

static void adamw_load(gen *g, const task_io *io, const void *context, int i, int *values) {
  (void)context;
  for (int k = 0; k < 4; ++k) /* p, grad, m, v */
    values[k] = load_raw(g, &io->in[k], i);
}

/* p', m', v' (storage types) from p, grad, m, v (storage types). */
static void adamw_compute(gen *g, const task_io *io, const void *context, const int *values, int *results) {
  const adamw_context *a = context;
  int pi = raw_to_f32(g, io->in[0].dt, values[0]), gi = raw_to_f32(g, io->in[1].dt, values[1]);
  int mi = raw_to_f32(g, io->in[2].dt, values[2]), vi = raw_to_f32(g, io->in[3].dt, values[3]);
  /* m' = b1 m + (1 - b1) g; v' = b2 v + (1 - b2) g g */
  int m1 = fadd(g, fmul(g, cf32(g, a->b1), mi), fmul(g, cf32(g, 1.0 - a->b1), gi));
  int v1 = fadd(g, fmul(g, cf32(g, a->b2), vi), fmul(g, fmul(g, cf32(g, 1.0 - a->b2), gi), gi));
  int m_hat = fdiv(g, m1, a->corrections[0]), v_hat = fdiv(g, v1, a->corrections[1]);
  int denominator = fadd(g, op1(g, "math.sqrt", v_hat, "f32"), cf32(g, a->eps));
  int update = fadd(g, fmul(g, cf32(g, a->wd), pi), fdiv(g, m_hat, denominator));
  int p1 = fsub(g, pi, fmul(g, cf32(g, a->lr), update));
  results[0] = f32_to_raw(g, io->out[0].dt, p1);
  results[1] = f32_to_raw(g, io->out[1].dt, m1);
  results[2] = f32_to_raw(g, io->out[2].dt, v1);
}

static void adamw_finish(gen *g, const task_io *io, const void *context, int i, const int *values) {
  int results[3];
  adamw_compute(g, io, context, values, results);
  for (int k = 0; k < 3; ++k)
    store_raw(g, &io->out[k], i, results[k]);
}

static void gen_adamw(gen *g, task_io *io, MlirOperation op) {
  int corrections[2] = {-1, -1};
  adamw_context a = {.lr = latch_adamw_lr(op), .b1 = latch_adamw_beta1(op), .b2 = latch_adamw_beta2(op),
                     .eps = latch_adamw_eps(op), .wd = latch_adamw_weight_decay(op), .corrections = corrections};
  /* A step over a range of its tiles (tile_range) runs tiles first .. first + count - 1 of the whole
   * tensor's and writes no other element (they pass through in place). */
  int64_t first, count, n = io->in[0].elements;
  if (!latch_adamw_tile_range(op, &first, &count))
    report(g->l, op, "task.adamw's tile_range must be [first, count] of its %d-element tiles", LATCH_ADAMW_TILE);
  int whole_tile = g->tile;
  if (first > 0)
    g->tile = addc(g, g->tile, first);
  if ((first + count) * LATCH_ADAMW_TILE < n)
    n = (first + count) * LATCH_ADAMW_TILE;
  if (elementwise_vectors_fit(g, io, 4, n)) {
    bool evict_first = g->evict_first;
    g->evict_first = evict_first || g->l->adamw_evict_first;
    elementwise_vector_tiles(g, io, &a, n, LATCH_ADAMW_TILE, 4, adamw_prepare, adamw_compute);
    g->evict_first = evict_first;
  } else {
    elementwise_tiles(g, io, &a, n, LATCH_ADAMW_TILE, 4, adamw_load, adamw_prepare, adamw_finish);
  }
  g->tile = whole_tile;
}

/* ---- the tiled product: 128 x 128 outputs per tile, staged through shared memory ----
 * C(i, j) = sum over k in [lo, hi) of A(i, k) B(k, j), fp32, k increasing. The 256 threads form a 16 x 16
 * grid; thread (ty, tx) owns outputs i = row0 + ty + 16 a, j = col0 + tx + 16 b (a, b < 8) in 64
 * registers. Each stage copies 8 steps of k of A (128 x 8) and B (8 x 128) into shared memory, converted to
 * f32 and zero outside the operands (a zero step adds exact zeros), then every thread runs its 8 x 8 outer
 * products. Every output is still one fp32 sum in increasing k, written by one thread. */
#define PRODUCT_DEPTH 8    /* steps of k per stage */
#define PRODUCT_STRIDE 129 /* floats per staged step (128 and one pad word against bank conflicts) */
#define PRODUCT_MICRO 8    /* outputs per thread along each axis */
#define PRODUCT_ACCUMULATORS (PRODUCT_MICRO * PRODUCT_MICRO)
#define PRODUCT_B_OFFSET (PRODUCT_DEPTH * PRODUCT_STRIDE)
_Static_assert(2 * PRODUCT_B_OFFSET <= SHARED_FLOATS, "the staged A and B fit @latch_smem");

/* One operand of the product: element (i, k) at base + i i_stride + k k_stride, zero unless i is in [i_lo,
 * i_hi) (and k < hi). i is the output row for A, the output column for B. */
typedef struct product_operand {
  const tensor_ref *t;
  int base, i_lo, i_hi; /* i64 values */
  int64_t i_stride, k_stride;
} product_operand;

static const char *const f32_types[PRODUCT_ACCUMULATORS] = {
#define F8 "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32"
    F8, F8, F8, F8, F8, F8, F8, F8,
#undef F8
};

static void product_zero(gen *g, int *acc) {
  for (int e = 0; e < PRODUCT_ACCUMULATORS; ++e)
    acc[e] = cf32(g, 0.0);
}

/* Copies steps [k0, k0 + 8) of `side` for i in [i0, i0 + 128) to shared memory at `offset`, four elements
 * per thread; threads walk the operand's contiguous axis first (coalesced reads). */
static void product_stage(gen *g, const product_operand *side, int i0, int k0, int hi, int64_t offset) {
  bool i_contiguous = side->i_stride == 1;
  for (int q = 0; q < (PRODUCT_DEPTH * MATMUL_TILE) / CTA_THREADS; ++q) {
    int e = addc(g, g->tid, (int64_t)q * CTA_THREADS);
    int ii = i_contiguous ? remc(g, e, MATMUL_TILE) : divc(g, e, PRODUCT_DEPTH);
    int kk = i_contiguous ? divc(g, e, MATMUL_TILE) : remc(g, e, PRODUCT_DEPTH);
    int i = add(g, i0, ii), k = add(g, k0, kk);
    int valid = op2(g, "arith.andi", cmpi(g, "sge", i, side->i_lo, "i64"), cmpi(g, "slt", i, side->i_hi, "i64"), "i1");
    valid = op2(g, "arith.andi", valid, cmpi(g, "slt", k, hi, "i64"), "i1");
    int index = add(g, side->base, add(g, mulc(g, i, side->i_stride), mulc(g, k, side->k_stride)));
    int value = load_f32_if(g, side->t, valid, index);
    shared_store(g, addc(g, add(g, mulc(g, kk, PRODUCT_STRIDE), ii), offset), value);
  }
}

/* c += a b on one mma.sync.m16n8k16 (bf16 x bf16, f32 accumulators): a[4] and b[2] are bf16-pair words. */
static void mma_bf16(gen *g, const int *a, const int *b, int *c) {
  int d = fresh(g);
  ln(g, "%%v%d = nvvm.mma.sync A[%%v%d, %%v%d, %%v%d, %%v%d] B[%%v%d, %%v%d] C[%%v%d, %%v%d, %%v%d, %%v%d] "
        "{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, "
        "multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, "
        "shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>",
     d, a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3]);
  for (int r = 0; r < 4; ++r) {
    c[r] = fresh(g);
    ln(g, "%%v%d = llvm.extractvalue %%v%d[%d] : !llvm.struct<(f32, f32, f32, f32)>", c[r], d, r);
  }
}

/* ---- the same tile on bf16 tensor cores (mma.sync.m16n8k16, fp32 accumulators) ----
 * Used when both operands are bf16 (TinyMoE's products: models.md's bf16 matmul inputs). The 8 warps
 * form 2 x 4 warp tiles of 64 x 32 outputs: 4 x 4 mma tiles of 16 x 8, whose four accumulators per lane
 * are the thread's 64 registers. Each stage copies 32 steps of k of A (128 x 32) and B (32 x 128) into
 * shared memory as bf16 pairs along k (one 32-bit word per pair, the lower k in the low half, rows of 20
 * words, 80 bytes: each 8-row phase of an ldmatrix hits 32 different banks), zero outside the operands;
 * then two k16 steps of 16 mma each, the fragments loaded by ldmatrix. PTX fragment layout (lane =
 * 4 g + t): A word (g | g + 8, t | t + 4), B word (n = g, t | t + 4), accumulators (g | g + 8, 2 t + {0, 1}). Each output is one fp32 sum over k: in
 * chunks of 16 (the tensor core's own order) in increasing k, written by one thread. */
#define MMA_DEPTH 32                          /* steps of k per stage */
#define MMA_ROW_WORDS (MMA_DEPTH / 2 + 4)     /* a staged i row: the stage's k as pairs, 4 words of padding */
#define MMA_K_ROW_WORDS (MATMUL_TILE / 2 + 4) /* a staged k row: the tile's 128 i as pairs, 4 of padding */
#define MMA_B_OFFSET (MATMUL_TILE * MMA_ROW_WORDS)
#define MMA_BUFFER_WORDS (2 * MMA_B_OFFSET) /* one stage buffer: A's staged rows, then B's */
#define MMA_STAGES 4                        /* stage buffers of the ring (product_accumulate_mma) */
#define MMA_RING_WORDS (MMA_STAGES * MMA_BUFFER_WORDS)
_Static_assert(MMA_DEPTH * MMA_K_ROW_WORDS <= MMA_B_OFFSET, "an operand staged by k rows fits its half");
_Static_assert(MMA_BUFFER_WORDS <= SHARED_FLOATS, "the single-buffered pair stage fits @latch_smem");

/* wgmma's stages (product_accumulate_wgmma): 64 steps of k of A (128 x 64) and B (64 x 128), 16 KiB each,
 * in rings of WG_STAGES buffers that start at the first 1024-byte boundary of @latch_smem. */
#define WG_DEPTH 64
#define WG_ATOMS_K (WG_DEPTH / 8)                  /* 1 KiB atoms of 8 k rows along k (MN-major layout) */
#define WG_OPERAND_WORDS (MATMUL_TILE * WG_DEPTH / 2) /* 16 KiB */
#define WG_BUFFER_WORDS (2 * WG_OPERAND_WORDS)
#define WG_STAGES 3
#define WG_ALIGN_BYTES 1024
#define WG_RING_WORDS (WG_STAGES * WG_BUFFER_WORDS + WG_ALIGN_BYTES / 4)

static bool product_uses_mma(const product_operand *a, const product_operand *b) {
  return a->t->dt == DT_BF16 && b->t->dt == DT_BF16;
}

/* The 16 bits of bf16 element `index` of t, zero-extended to i32 (load_bf16_bits_if: 0 where `valid` is
 * false). */
static int load_bf16_bits(gen *g, const tensor_ref *t, int index) {
  return cast(g, "arith.extui", global_load(g, element_address(g, t, index), "i16", 0), "i16", "i32");
}

/* Two bf16 bit patterns (zero-extended to i32) as one pair word, `low` in the low half. */
static int pair_word(gen *g, int low, int high) {
  return op2(g, "arith.ori", low, op2(g, "arith.shli", high, ci32(g, 16), "i32"), "i32");
}

static int load_bf16_bits_if(gen *g, const tensor_ref *t, int valid, int index) {
  const char *i32[1] = {"i32"};
  int value;
  if_begin(g, valid, 1, i32, &value);
  int wide = load_bf16_bits(g, t, index);
  if_else(g, 1, &wide, i32);
  int zero = ci32(g, 0);
  if_end(g, 1, &zero, i32);
  return value;
}

/* Copies steps [k0, k0 + 32) of `side` for i in [i0, i0 + 128) to shared memory at `offset` as pairs
 * (k, k + 1) per word, eight words per thread; threads walk the operand's contiguous axis first. */
static void product_stage_pairs(gen *g, const product_operand *side, int i0, int k0, int hi, int64_t offset) {
  bool k_contiguous = side->k_stride == 1;
  int64_t pairs = MMA_DEPTH / 2;
  for (int q = 0; q < (pairs * MATMUL_TILE) / CTA_THREADS; ++q) {
    int e = addc(g, g->tid, (int64_t)q * CTA_THREADS);
    int ii = k_contiguous ? divc(g, e, pairs) : remc(g, e, MATMUL_TILE);
    int kp = k_contiguous ? remc(g, e, pairs) : divc(g, e, MATMUL_TILE);
    int i = add(g, i0, ii), k = add(g, k0, mulc(g, kp, 2));
    int row_ok = op2(g, "arith.andi", cmpi(g, "sge", i, side->i_lo, "i64"), cmpi(g, "slt", i, side->i_hi, "i64"), "i1");
    int index = add(g, side->base, add(g, mulc(g, i, side->i_stride), mulc(g, k, side->k_stride)));
    int low = load_bf16_bits_if(g, side->t, op2(g, "arith.andi", row_ok, cmpi(g, "slt", k, hi, "i64"), "i1"), index);
    int high = load_bf16_bits_if(g, side->t, op2(g, "arith.andi", row_ok, cmpi(g, "slt", addc(g, k, 1), hi, "i64"), "i1"),
                                 addc(g, index, side->k_stride));
    int word = pair_word(g, low, high);
    shared_store_as(g, addc(g, add(g, mulc(g, ii, MMA_ROW_WORDS), kp), offset), word, "i32");
  }
}

/* ---- staging bf16 operands by 16-byte copies ----
 * When the operand's tensor starts 16-byte aligned and one of its axes is contiguous, a stage is staged
 * as it lies in memory, 8 elements of the contiguous axis at a time (product_copy_stage), through a ring
 * of MMA_STAGES buffers filled by cp.async ahead of the mma (product_accumulate_mma). Otherwise a stage is
 * staged as pairs (k, k + 1) per word by product_stage_pairs, one buffer. */
static bool staged_by_copies(const product_operand *side) {
  const tensor_ref *t = side->t;
  return t->dt == DT_BF16 && place_aligned(t, 16) && (side->k_stride == 1 || side->i_stride == 1);
}

/* Eight bf16 at index, index + 1, ... as four pair words, element by element: valid[e] decides whether
 * element e is read or 0. */
static int load_eight(gen *g, const tensor_ref *t, int index, const int *valid) {
  int w[4];
  for (int m = 0; m < 4; ++m) {
    int low = load_bf16_bits_if(g, t, valid[2 * m], addc(g, index, 2 * m));
    int high = load_bf16_bits_if(g, t, valid[2 * m + 1], addc(g, index, 2 * m + 1));
    w[m] = pair_word(g, low, high);
  }
  return vector_of(g, w, 4, "vector<4xi32>");
}

static int in_range(gen *g, int x, int lo, int hi) {
  return op2(g, "arith.andi", cmpi(g, "sge", x, lo, "i64"), cmpi(g, "slt", x, hi, "i64"), "i1");
}

static int aligned8(gen *g, int index) {
  return cmpi(g, "eq", op2(g, "arith.andi", index, ci64(g, 7), "i64"), ci64(g, 0), "i64");
}

/* Stage [k0, k0 + depth) of `side` for i in [i0, i0 + 128) into the shared words at `offset`, as it lies
 * in memory: 16-byte chunks of 8 elements along the operand's contiguous axis, chunk e = tid, tid + 256,
 * ... (along k, i row e / (depth / 8), k chunk e % (depth / 8); along i, k row e / 16, i chunk e % 16),
 * placed by `layout`: PLACE_PADDED, mma.sync's rows of MMA_ROW_WORDS (k contiguous) or k rows
 * of MMA_K_ROW_WORDS (i contiguous, read back by ldmatrix .trans); PLACE_SWIZZLED, wgmma's 128-byte
 * swizzled layouts (product_accumulate_wgmma). A chunk inside the operand and 16-byte aligned is one
 * cp.async (its group is waited for by the stage loop); any other is read element by element (0 outside
 * the operand) and stored at once. */
typedef enum stage_layout { PLACE_PADDED, PLACE_SWIZZLED } stage_layout;

static int stage_word(gen *g, bool k_contiguous, stage_layout layout, int row, int chunk_index) {
  if (layout == PLACE_PADDED)
    return add(g, mulc(g, row, k_contiguous ? MMA_ROW_WORDS : MMA_K_ROW_WORDS), mulc(g, chunk_index, 4));
  int phase = remc(g, row, 8);
  if (k_contiguous) /* i row `row` at byte 128 row, its chunk c at (c ^ row % 8) 16 */
    return add(g, mulc(g, row, 32), mulc(g, op2(g, "arith.xori", chunk_index, phase, "i64"), 4));
  /* k row `row`, i chunk c16: atom (c16 / 8, row / 8), row % 8 inside it, chunk (c16 % 8) ^ (row % 8) */
  int atom = add(g, mulc(g, divc(g, chunk_index, 8), WG_ATOMS_K * 256), mulc(g, divc(g, row, 8), 256));
  int inside = add(g, mulc(g, phase, 32), mulc(g, op2(g, "arith.xori", remc(g, chunk_index, 8), phase, "i64"), 4));
  return add(g, atom, inside);
}

/* Where chunk e of a stage (8 elements along the operand's contiguous axis) goes and comes from: its word
 * in the stage buffer, its first element's i and k, and its index in the tensor. */
typedef struct chunk_place {
  int word, i, k, index; /* i64 values */
} chunk_place;

static chunk_place chunk_place_of(gen *g, const product_operand *side, int i0, int k0, int64_t depth,
                                  stage_layout layout, int e) {
  bool k_contiguous = side->k_stride == 1;
  int64_t per_row = k_contiguous ? depth / 8 : MATMUL_TILE / 8;
  int row = divc(g, e, per_row), chunk_index = remc(g, e, per_row), chunk = mulc(g, chunk_index, 8);
  chunk_place p = {.word = stage_word(g, k_contiguous, layout, row, chunk_index)};
  p.i = add(g, i0, k_contiguous ? row : chunk);
  p.k = add(g, k0, k_contiguous ? chunk : row);
  p.index = add(g, side->base, add(g, mulc(g, p.i, side->i_stride), mulc(g, p.k, side->k_stride)));
  return p;
}

/* Chunk e of the stage (product_copy_stage). */
static void product_copy_chunk(gen *g, const product_operand *side, int i0, int k0, int hi, int offset, int64_t depth,
                               stage_layout layout, int e) {
  bool k_contiguous = side->k_stride == 1;
  chunk_place place = chunk_place_of(g, side, i0, k0, depth, layout, e);
  int word = place.word, i = place.i, k = place.k, index = place.index;
  int valid[8], whole;
  if (k_contiguous) {
    int row_ok = in_range(g, i, side->i_lo, side->i_hi);
    whole = op2(g, "arith.andi", row_ok, cmpi(g, "slt", addc(g, k, 7), hi, "i64"), "i1");
    for (int m = 0; m < 8; ++m)
      valid[m] = op2(g, "arith.andi", row_ok, cmpi(g, "slt", addc(g, k, m), hi, "i64"), "i1");
  } else {
    int k_ok = cmpi(g, "slt", k, hi, "i64");
    whole = op2(g, "arith.andi", op2(g, "arith.andi", k_ok, cmpi(g, "sge", i, side->i_lo, "i64"), "i1"),
                cmpi(g, "slt", addc(g, i, 7), side->i_hi, "i64"), "i1");
    for (int m = 0; m < 8; ++m)
      valid[m] = op2(g, "arith.andi", k_ok, in_range(g, addc(g, i, m), side->i_lo, side->i_hi), "i1");
  }
  whole = op2(g, "arith.andi", whole, aligned8(g, index), "i1");
  int address = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32", address,
     shared_base(g), add(g, word, offset));
  when_begin(g, whole);
  ln(g, "nvvm.cp.async.shared.global %%v%d, %%v%d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>", address,
     element_address(g, side->t, index));
  otherwise(g);
  ln(g, "llvm.store %%v%d, %%v%d {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>",
     load_eight(g, side->t, index, valid), address);
  when_end(g);
}

static void product_copy_stage(gen *g, const product_operand *side, int i0, int k0, int hi, int offset, int64_t depth,
                               stage_layout layout) {
  /* the thread's chunks in a loop: each holds an element-by-element fallback, and written out four times
   * per stage (wgmma's 64 k) they made LLVM's share of latch-opt 0.7 s longer; lean wgmma stages copy whole
   * stages without it (wg_whole_copies) */
  int e = loop_begin(g, g->tid, ci64(g, MATMUL_TILE * depth / 8), ci64(g, CTA_THREADS));
  product_copy_chunk(g, side, i0, k0, hi, offset, depth, layout, e);
  loop_end(g);
}

/* The warp's place: rows wm * 64 + ..., columns wn * 32 + ...; g = lane / 4, t = lane % 4. */
typedef struct mma_lane {
  int row, col, g, t; /* row and col: the warp tile's first row and column inside the CTA tile */
} mma_lane;

static mma_lane mma_lane_of(gen *g) {
  int warp = divc(g, g->tid, 32), lane = remc(g, g->tid, 32);
  mma_lane m = {.row = mulc(g, divc(g, warp, 4), 64), .col = mulc(g, remc(g, warp, 4), 32),
                .g = divc(g, lane, 4), .t = remc(g, lane, 4)};
  return m;
}

/* Four 8 x 8 matrices of b16 from shared memory (ldmatrix .x4): lane L gives word `word` (16-byte
 * aligned), the start of row L % 8 of matrix L / 8; out[j] is the lane's word of matrix j (row lane / 4,
 * word lane % 4 of that row): the fragment layout of mma. */
static void ldmatrix4(gen *g, int word, bool transposed, int *out) {
  int address = fresh(g), r = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32", address,
     shared_base(g), word);
  ln(g, "%%v%d = nvvm.ldmatrix %%v%d {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<%s>, "
        "num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> "
        "!llvm.struct<(i32, i32, i32, i32)>",
     r, address, transposed ? "col" : "row");
  for (int j = 0; j < 4; ++j) {
    out[j] = fresh(g);
    ln(g, "%%v%d = llvm.extractvalue %%v%d[%d] : !llvm.struct<(i32, i32, i32, i32)>", out[j], r, j);
  }
}

/* One k16 step of the warp's 4 x 4 mma tiles from the stage buffer at word `buffer`. An operand staged
 * by i rows (k_rows false: the stage's k as pairs along a row) gives its fragments by ldmatrix: for B,
 * matrices (columns 8 nt.., k 0-7), (the same, k 8-15), then the same for nt + 1; for A, (rows 16 mt..,
 * k 0-7), (rows + 8), (k 8-15), (rows + 8, k 8-15): the words the fragment layout names. An operand
 * staged by k rows (i contiguous) gives the same matrices by ldmatrix .trans from 8 k rows of 8 i each.
 * Staged i rows are 80 bytes apart and k rows 272, so each phase of 8 rows hits 32 different banks. */
static void product_mma_step(gen *g, const mma_lane *w, bool a_k_rows, bool b_k_rows, int buffer, int step,
                             int *acc) {
  int lane = remc(g, g->tid, 32), matrix = divc(g, lane, 8), row8 = remc(g, lane, 8);
  int low = remc(g, matrix, 2), high = divc(g, matrix, 2); /* the matrix's two halves of the x4 */
  /* B's fragments of the step first, then A's per row of mma tiles: 8 + 4 words live, not 8 + 16 */
  int af[4], bf[4][2];
  for (int pair = 0; pair < 2; ++pair) {
    int col = add(g, w->col, mulc(g, addc(g, high, 2 * pair), 8)), word;
    if (b_k_rows)
      word = add(g, mulc(g, add(g, addc(g, mulc(g, low, 8), 16 * step), row8), MMA_K_ROW_WORDS), divc(g, col, 2));
    else
      word = add(g, mulc(g, add(g, col, row8), MMA_ROW_WORDS), addc(g, mulc(g, low, 4), 8 * step));
    int out[4];
    ldmatrix4(g, add(g, word, addc(g, buffer, MMA_B_OFFSET)), b_k_rows, out);
    bf[2 * pair][0] = out[0];
    bf[2 * pair][1] = out[1];
    bf[2 * pair + 1][0] = out[2];
    bf[2 * pair + 1][1] = out[3];
  }
  for (int mt = 0; mt < 4; ++mt) {
    int row = add(g, w->row, addc(g, mulc(g, low, 8), 16 * mt)), word;
    if (a_k_rows)
      word = add(g, mulc(g, add(g, addc(g, mulc(g, high, 8), 16 * step), row8), MMA_K_ROW_WORDS), divc(g, row, 2));
    else
      word = add(g, mulc(g, add(g, row, row8), MMA_ROW_WORDS), addc(g, mulc(g, high, 4), 8 * step));
    ldmatrix4(g, add(g, word, buffer), a_k_rows, af);
    for (int nt = 0; nt < 4; ++nt)
      mma_bf16(g, af, bf[nt], &acc[(mt * 4 + nt) * 4]);
  }
}

/* The stage from k of both operands into the buffer at word `buffer` (B at `buffer + b_offset`), when k is
 * inside [lo, hi); one cp.async group either way, so that the groups count stages. */
static void product_copy_ring_stage(gen *g, const product_operand *a, const product_operand *b, int row0, int col0,
                                    int k, int hi, int buffer, int64_t depth, stage_layout layout, int64_t b_offset) {
  when_begin(g, cmpi(g, "slt", k, hi, "i64"));
  product_copy_stage(g, a, row0, k, hi, buffer, depth, layout);
  product_copy_stage(g, b, col0, k, hi, addc(g, buffer, b_offset), depth, layout);
  when_end(g);
  ln(g, "nvvm.cp.async.commit.group");
}

/* ---- the same tile on Hopper's warpgroup tensor cores (wgmma.mma_async, sm_90a) ----
 * When both bf16 operands are staged by copies, warpgroup h (threads 128 h ..) computes rows 64 h .. 64 h + 63
 * of the tile, all 128 columns, by wgmma.mma_async.m64n128k16 from shared memory: the operands are named by
 * matrix descriptors, the 64 accumulators stay in registers. A stage holds WG_DEPTH steps of k of A and B in
 * the 128-byte swizzled layouts of the PTX ISA's canonical forms, 16-byte chunk c of a 128-byte row r at
 * (c ^ r % 8) 16 inside 1 KiB atoms of 8 rows:
 * - an operand contiguous along k (K-major) as 128 i rows of 128 bytes (64 k): the descriptor's rows are
 *   128 bytes apart, 8-row groups 1024 (SBO), and the k16 steps start 32 bytes apart;
 * - one contiguous along i (MN-major) as atoms of 8 k rows x 64 i, atom (i / 64, k / 8) at byte
 *   (i / 64) 8192 + (k / 8) 1024: 64-wide i blocks 8192 bytes apart (LBO), 8-row k groups 1024 (SBO),
 *   the k16 steps two atoms apart.
 * The ring of WG_STAGES buffers is filled by cp.async WG_STAGES - 1 stages ahead, as the mma.sync ring is;
 * each stage's four wgmma are waited for before the barrier of the next, so a buffer is free when it is
 * refilled; fence.proxy.async makes the copies (generic proxy) visible to wgmma's reads (async proxy).
 * Accumulators: warp w (of 8) holds rows 16 w + g and 16 w + g + 8, register 4 j + 2 h + e at column
 * 8 j + 2 t + e (g = lane / 4, t = lane % 4; h 0 for row g): mma.sync's 16 x 8 layout, repeated along n.
 * Each output is one fp32 sum over k in the tensor core's order, written by one thread. */
#define WG_ACCUMULATOR_TYPE                                                                                  \
  "!llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, " \
  "f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, " \
  "f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, " \
  "f32, f32, f32, f32)>"

static bool product_uses_wgmma(gen *g, const product_operand *a, const product_operand *b) {
  return g->l->wgmma && product_uses_mma(a, b) && staged_by_copies(a) && staged_by_copies(b);
}

/* The words of @latch_smem that the product's staging uses (the split product's flag lies after them). */
static int64_t product_shared_words(gen *g, const product_operand *a, const product_operand *b) {
  if (product_uses_wgmma(g, a, b))
    return WG_RING_WORDS;
  if (product_uses_mma(a, b))
    return staged_by_copies(a) && staged_by_copies(b) ? MMA_RING_WORDS : MMA_BUFFER_WORDS;
  return 2 * PRODUCT_B_OFFSET;
}

/* A matrix descriptor's bits other than its start: the leading and stride byte offsets, 128-byte swizzling. */
static int64_t wg_descriptor_fixed(int64_t leading, int64_t stride) {
  return ((leading >> 4) & 0x3FFF) << 16 | ((stride >> 4) & 0x3FFF) << 32 | (int64_t)1 << 62;
}

/* A shared-memory matrix descriptor: the operand's first byte (`bytes`, an i64 shared address), the
 * leading and stride byte offsets, 128-byte swizzling. */
static int wg_descriptor(gen *g, int bytes, int64_t leading, int64_t stride) {
  int start = op2(g, "arith.andi", op2(g, "arith.shrui", bytes, ci64(g, 4), "i64"), ci64(g, 0x3FFF), "i64");
  return op2(g, "arith.ori", start, ci64(g, wg_descriptor_fixed(leading, stride)), "i64");
}

/* An operand's layout in a stage buffer: its leading and stride byte offsets, the bytes from one k16 step to
 * the next, and from one 64-wide i block to the next (A's warpgroups). */
typedef struct wg_layout {
  int64_t leading, stride, step_bytes, block_bytes;
} wg_layout;

static wg_layout wg_layout_of(bool k_contiguous) {
  if (k_contiguous)
    return (wg_layout){.leading = 16, .stride = 1024, .step_bytes = 32, .block_bytes = 64 * 128};
  return (wg_layout){.leading = WG_ATOMS_K * 1024, .stride = 1024, .step_bytes = 2048, .block_bytes = WG_ATOMS_K * 1024};
}

/* The descriptor of k16 step `step` of an operand staged from shared byte `operand`, from its 64-wide i
 * block `first_block` on (A: the warpgroup's rows; B: 0, all 128 columns). */
static int wg_operand_descriptor(gen *g, bool k_contiguous, int operand, int64_t step, int first_block) {
  wg_layout w = wg_layout_of(k_contiguous);
  return wg_descriptor(g, add(g, operand, addc(g, mulc(g, first_block, w.block_bytes), w.step_bytes * step)),
                       w.leading, w.stride);
}

/* lean-wgmma-stages: the same descriptor from `start`, the operand's first 16-byte unit (i32) of slot 0 of the
 * ring, and the slot: shared addresses lie below 228 KiB, so a start stays below 2^14 units, inside its
 * 14-bit field, without the mask; the rest of the descriptor is constant. */
static int wg_lean_descriptor(gen *g, bool k_contiguous, int start, int slot, int64_t step) {
  wg_layout w = wg_layout_of(k_contiguous);
  int units = op2(g, "arith.addi", start,
                  op2(g, "arith.addi", op2(g, "arith.muli", slot, ci32(g, WG_BUFFER_WORDS * 4 / 16), "i32"),
                      ci32(g, (int32_t)(w.step_bytes * step / 16)), "i32"),
                  "i32");
  return op2(g, "arith.ori", cast(g, "arith.extui", units, "i32", "i64"),
             ci64(g, wg_descriptor_fixed(w.leading, w.stride)), "i64");
}

/* ---- lean stages (latch-lower-tasks{lean-wgmma-stages}) ----
 * Chunk q of a thread (e = tid + q CTA_THREADS, product_copy_chunk) lies rows_per_q = CTA_THREADS / per_row
 * rows after its chunk 0, in the same column of chunks, in every stage; rows_per_q is a multiple of 8, so the
 * swizzle phase (row % 8) is the same and the chunk's shared word and element index are chunk 0's plus
 * constants, and a stage's are the first stage's plus (k0 - lo) k_stride elements. When the tile's rows of
 * the operand are inside [i_lo, i_hi), its stage inside [.., hi) and the thread's chunk 0 16-byte aligned
 * (then every chunk is: the steps are multiples of 8 elements), each chunk is one cp.async at those places,
 * without the per-chunk division, swizzle, bounds and alignment tests of product_copy_chunk. */
typedef struct wg_whole_side {
  int first_word, first_index; /* i64: the thread's chunk 0 in a buffer, and in the tensor at k = lo */
  int64_t word_step, index_step;
} wg_whole_side;

typedef struct wg_whole {
  wg_whole_side a, b;
  int inside; /* i1: both operands' tile rows inside and the thread's chunks aligned */
} wg_whole;

static int wg_whole_side_of(gen *g, const product_operand *side, int i0, int lo, wg_whole_side *out) {
  bool k_contiguous = side->k_stride == 1;
  int64_t per_row = k_contiguous ? WG_DEPTH / 8 : MATMUL_TILE / 8, rows_per_q = CTA_THREADS / per_row;
  chunk_place first = chunk_place_of(g, side, i0, lo, WG_DEPTH, PLACE_SWIZZLED, g->tid);
  out->first_word = first.word;
  out->first_index = first.index;
  /* stage_word's rows: 32 words each along k; 8-row atoms of 256 words along i */
  out->word_step = k_contiguous ? rows_per_q * 32 : rows_per_q / 8 * 256;
  out->index_step = rows_per_q * (k_contiguous ? side->i_stride : side->k_stride);
  int rows_inside = op2(g, "arith.andi", cmpi(g, "sge", i0, side->i_lo, "i64"),
                        cmpi(g, "sle", addc(g, i0, MATMUL_TILE), side->i_hi, "i64"), "i1");
  return op2(g, "arith.andi", rows_inside, aligned8(g, out->first_index), "i1");
}

static void wg_whole_plan(gen *g, const product_operand *a, const product_operand *b, int row0, int col0, int lo,
                          wg_whole *out) {
  _Static_assert(CTA_THREADS % (MATMUL_TILE / 8) == 0 && CTA_THREADS / (MATMUL_TILE / 8) % 8 == 0 &&
                     CTA_THREADS % (WG_DEPTH / 8) == 0 && CTA_THREADS / (WG_DEPTH / 8) % 8 == 0,
                 "a thread's chunks of a stage are whole 8-row phases apart");
  int a_inside = wg_whole_side_of(g, a, row0, lo, &out->a);
  int b_inside = wg_whole_side_of(g, b, col0, lo, &out->b);
  out->inside = op2(g, "arith.andi", a_inside, b_inside, "i1");
}

static void wg_whole_copies(gen *g, const product_operand *side, const wg_whole_side *w, int k_offset, int buffer) {
  int word = add(g, buffer, w->first_word), index = add(g, w->first_index, mulc(g, k_offset, side->k_stride));
  for (int64_t q = 0; q < MATMUL_TILE * WG_DEPTH / 8 / CTA_THREADS; ++q) {
    int address = fresh(g);
    ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32", address,
       shared_base(g), addc(g, word, q * w->word_step));
    ln(g, "nvvm.cp.async.shared.global %%v%d, %%v%d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>", address,
       element_address(g, side->t, addc(g, index, q * w->index_step)));
  }
}

/* The copies of k stage `stage` (from k = lo + stage WG_DEPTH) into its ring buffer, the ring at word `ring`.
 * With `whole` (lean stages) the buffer is `slot`, carried by the caller, and a stage inside the operands is
 * copied by wg_whole_copies; without, the buffer is stage % WG_STAGES (`slot` unused). */
static void wg_copy_stage(gen *g, const product_operand *a, const product_operand *b, int row0, int col0, int lo, int hi,
                          int ring, int stage, int slot, const wg_whole *whole) {
  if (!whole) {
    product_copy_ring_stage(g, a, b, row0, col0, add(g, lo, mulc(g, stage, WG_DEPTH)), hi,
                            add(g, ring, mulc(g, remc(g, stage, WG_STAGES), WG_BUFFER_WORDS)), WG_DEPTH,
                            PLACE_SWIZZLED, WG_OPERAND_WORDS);
    return;
  }
  int k_offset = mulc(g, stage, WG_DEPTH), k = add(g, lo, k_offset);
  int buffer = add(g, ring, mulc(g, slot, WG_BUFFER_WORDS));
  when_begin(g, op2(g, "arith.andi", whole->inside, cmpi(g, "sle", addc(g, k, WG_DEPTH), hi, "i64"), "i1"));
  wg_whole_copies(g, a, &whole->a, k_offset, buffer);
  wg_whole_copies(g, b, &whole->b, k_offset, addc(g, buffer, WG_OPERAND_WORDS));
  ln(g, "nvvm.cp.async.commit.group");
  otherwise(g);
  product_copy_ring_stage(g, a, b, row0, col0, k, hi, buffer, WG_DEPTH, PLACE_SWIZZLED, WG_OPERAND_WORDS);
  when_end(g);
}

static void product_accumulate_wgmma(gen *g, const product_operand *a, const product_operand *b, int row0, int col0,
                                     int lo, int hi, const int *acc_in, int *acc_out) {
  need_shared(g, WG_RING_WORDS);
  bool a_k = a->k_stride == 1, b_k = b->k_stride == 1, lean = g->l->lean_wgmma_stages;
  int smem = fresh(g);
  ln(g, "%%v%d = llvm.ptrtoint %%v%d : !llvm.ptr<3> to i64", smem, shared_base(g));
  int pad = op2(g, "arith.andi", op2(g, "arith.subi", ci64(g, 0), smem, "i64"), ci64(g, WG_ALIGN_BYTES - 1), "i64");
  int ring = divc(g, pad, 4); /* the ring's first word: 1024-byte aligned */
  int warpgroup = divc(g, g->tid, 128);
  wg_whole whole_plan, *whole = NULL;
  int a_start = 0, b_start = 0; /* lean: the operands' first 16-byte units in slot 0 (i32) */
  if (lean) {
    wg_whole_plan(g, a, b, row0, col0, lo, &whole_plan);
    whole = &whole_plan;
    int ring_units = cast(g, "arith.trunci", divc(g, add(g, smem, pad), 16), "i64", "i32");
    a_start = op2(g, "arith.addi", ring_units,
                  cast(g, "arith.trunci", mulc(g, warpgroup, wg_layout_of(a_k).block_bytes / 16), "i64", "i32"), "i32");
    b_start = op2(g, "arith.addi", ring_units, ci32(g, WG_OPERAND_WORDS * 4 / 16), "i32");
  }
  sync_threads(g);
  int first = loop_begin(g, ci64(g, 0), ci64(g, WG_STAGES - 1), ci64(g, 1));
  wg_copy_stage(g, a, b, row0, col0, lo, hi, ring, first, first, whole);
  loop_end(g);
  int packed = fresh(g);
  ln(g, "%%v%d = llvm.mlir.poison : " WG_ACCUMULATOR_TYPE, packed);
  for (int r = 0; r < PRODUCT_ACCUMULATORS; ++r) {
    int next = fresh(g);
    ln(g, "%%v%d = llvm.insertvalue %%v%d, %%v%d[%d] : " WG_ACCUMULATOR_TYPE, next, acc_in[r], packed, r);
    packed = next;
  }
  /* the accumulators, and under lean stages the stage's ring slot (i32), carried from stage to stage */
  static const char *const carried_types[2] = {WG_ACCUMULATOR_TYPE, "i32"};
  int init[2] = {packed, lean ? ci32(g, 0) : 0}, carried[2], result[2], n_carried = lean ? 2 : 1;
  int k0 = for_begin(g, lo, hi, ci64(g, WG_DEPTH), n_carried, init, carried_types, carried, result);
  int stage = divc(g, sub(g, k0, lo), WG_DEPTH);
  ln(g, "nvvm.cp.async.wait.group %d", WG_STAGES - 2);
  ln(g, "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}");
  sync_threads(g);
  int ahead = addc(g, stage, WG_STAGES - 1), ahead_slot = 0, slot32 = carried[1];
  if (lean) /* (slot + WG_STAGES - 1) % WG_STAGES without a division */
    ahead_slot = cast(g, "arith.extui",
                      sel(g, cmpi(g, "eq", slot32, ci32(g, 0), "i32"), ci32(g, WG_STAGES - 1),
                                 op2(g, "arith.subi", slot32, ci32(g, 1), "i32"), "i32"),
                      "i32", "i64");
  bool in_flight = g->l->wgmma_in_flight;
  if (!in_flight) /* the buffer of stage - 1, whose wgmma every warpgroup waited for */
    wg_copy_stage(g, a, b, row0, col0, lo, hi, ring, ahead, ahead_slot, whole);
  /* the current buffer as shared bytes */
  int a_bytes = lean ? 0 : add(g, add(g, smem, pad), mulc(g, remc(g, stage, WG_STAGES), WG_BUFFER_WORDS * 4));
  int b_bytes = lean ? 0 : addc(g, a_bytes, WG_OPERAND_WORDS * 4);
  ln(g, "nvvm.wgmma.fence.aligned");
  int acc = carried[0];
  for (int64_t step = 0; step < WG_DEPTH / 16; ++step) {
    int da = lean ? wg_lean_descriptor(g, a_k, a_start, slot32, step)
                  : wg_operand_descriptor(g, a_k, a_bytes, step, warpgroup);
    int db = lean ? wg_lean_descriptor(g, b_k, b_start, slot32, step)
                  : wg_operand_descriptor(g, b_k, b_bytes, step, ci64(g, 0));
    int next = fresh(g);
    ln(g, "%%v%d = nvvm.wgmma.mma_async %%v%d, %%v%d, %%v%d, #nvvm.shape<m = 64, n = 128, k = 16>, "
          "D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <%s>], "
          "B [<bf16>, #nvvm.wgmma_scale_in<one>, <%s>] : " WG_ACCUMULATOR_TYPE " -> " WG_ACCUMULATOR_TYPE,
       next, da, db, acc, a_k ? "row" : "col", b_k ? "col" : "row");
    acc = next;
  }
  ln(g, "nvvm.wgmma.commit.group.sync.aligned");
  if (in_flight) {
    /* this stage's group runs on; the previous stage's is done in every warpgroup after the barrier, so
     * its buffer (that of stage + WG_STAGES - 1) can be refilled */
    ln(g, "nvvm.wgmma.wait.group.sync.aligned 1");
    sync_threads(g);
    wg_copy_stage(g, a, b, row0, col0, lo, hi, ring, ahead, ahead_slot, whole);
  } else {
    ln(g, "nvvm.wgmma.wait.group.sync.aligned 0");
  }
  int next_slot = 0;
  if (lean) {
    int up = op2(g, "arith.addi", slot32, ci32(g, 1), "i32");
    next_slot = sel(g, cmpi(g, "eq", up, ci32(g, WG_STAGES), "i32"), ci32(g, 0), up, "i32");
  }
  int yielded[2] = {acc, next_slot};
  for_end(g, n_carried, yielded, carried_types);
  if (in_flight)
    ln(g, "nvvm.wgmma.wait.group.sync.aligned 0");
  for (int r = 0; r < PRODUCT_ACCUMULATORS; ++r) {
    acc_out[r] = fresh(g);
    ln(g, "%%v%d = llvm.extractvalue %%v%d[%d] : " WG_ACCUMULATOR_TYPE, acc_out[r], result[0], r);
  }
}

static void product_accumulate_mma(gen *g, const product_operand *a, const product_operand *b, int row0, int col0,
                                   int lo, int hi, const int *acc_in, int *acc_out) {
  mma_lane w = mma_lane_of(g);
  if (staged_by_copies(a) && staged_by_copies(b)) {
    /* A ring of MMA_STAGES buffers: stages 0 .. S - 2 are copied before the loop; iteration s waits for
     * its own stage's group (at most S - 2 younger ones pending), and after one CTA barrier (every
     * thread's copies of stage s landed; every warp done with the buffer of stage s - 1) copies stage
     * s + S - 1 into that buffer, then runs the mma of stage s: the copies run S - 1 stages ahead. */
    need_shared(g, MMA_RING_WORDS);
    bool a_k_rows = a->k_stride != 1, b_k_rows = b->k_stride != 1;
    sync_threads(g);
    int first = loop_begin(g, ci64(g, 0), ci64(g, MMA_STAGES - 1), ci64(g, 1));
    product_copy_ring_stage(g, a, b, row0, col0, add(g, lo, mulc(g, first, MMA_DEPTH)), hi,
                            mulc(g, first, MMA_BUFFER_WORDS), MMA_DEPTH, PLACE_PADDED, MMA_B_OFFSET);
    loop_end(g);
    int stage_acc[PRODUCT_ACCUMULATORS], next[PRODUCT_ACCUMULATORS];
    int k0 = for_begin(g, lo, hi, ci64(g, MMA_DEPTH), PRODUCT_ACCUMULATORS, acc_in, f32_types, stage_acc, acc_out);
    int stage = divc(g, sub(g, k0, lo), MMA_DEPTH);
    ln(g, "nvvm.cp.async.wait.group %d", MMA_STAGES - 2);
    sync_threads(g);
    int ahead = addc(g, stage, MMA_STAGES - 1);
    product_copy_ring_stage(g, a, b, row0, col0, add(g, lo, mulc(g, ahead, MMA_DEPTH)), hi,
                            mulc(g, remc(g, ahead, MMA_STAGES), MMA_BUFFER_WORDS), MMA_DEPTH, PLACE_PADDED,
                            MMA_B_OFFSET);
    int current = mulc(g, remc(g, stage, MMA_STAGES), MMA_BUFFER_WORDS);
    memcpy(next, stage_acc, sizeof(next));
    for (int step = 0; step < MMA_DEPTH / 16; ++step)
      product_mma_step(g, &w, a_k_rows, b_k_rows, current, step, next);
    for_end(g, PRODUCT_ACCUMULATORS, next, f32_types);
    return;
  }
  int stage_acc[PRODUCT_ACCUMULATORS], next[PRODUCT_ACCUMULATORS];
  int k0 = for_begin(g, lo, hi, ci64(g, MMA_DEPTH), PRODUCT_ACCUMULATORS, acc_in, f32_types, stage_acc, acc_out);
  sync_threads(g);
  product_stage_pairs(g, a, row0, k0, hi, 0);
  product_stage_pairs(g, b, col0, k0, hi, MMA_B_OFFSET);
  sync_threads(g);
  memcpy(next, stage_acc, sizeof(next));
  int start = ci64(g, 0);
  for (int step = 0; step < MMA_DEPTH / 16; ++step)
    product_mma_step(g, &w, false, false, start, step, next);
  for_end(g, PRODUCT_ACCUMULATORS, next, f32_types);
}

/* f32 values lo, hi into elements index, index + 1 of the f32 tensor t with one 8-byte store (index even). */
static void store_f32_pair(gen *g, const tensor_ref *t, int index, int lo, int hi) {
  int pair[2] = {lo, hi};
  global_store(g, element_address(g, t, index), vector_of(g, pair, 2, "vector<2xf32>"), "vector<2xf32>", 8);
}

/* The warp's accumulators into out: registers 2h and 2h + 1 of a tile are columns col, col + 1 of one row,
 * stored by one 8-byte store when out is f32 (8-byte aligned), both columns are inside and the element
 * index is even; otherwise element by element, each inside rows x cols. */
/* row < rows, and with row_lo >= 0 (an i64 value) also row_lo <= row < row_hi. */
static int row_in(gen *g, int row, int64_t rows, int row_lo, int row_hi) {
  int ok = cmpi(g, "slt", row, ci64(g, rows), "i64");
  if (row_lo < 0)
    return ok;
  int inside = op2(g, "arith.andi", cmpi(g, "sge", row, row_lo, "i64"), cmpi(g, "slt", row, row_hi, "i64"), "i1");
  return op2(g, "arith.andi", ok, inside, "i1");
}

/* Accumulator pairs (q, h) per batch of a fused epilogue's loads (product_store_epilogue_mma). */
#define EPILOGUE_BATCH_PAIRS 8

/* A thread's place for accumulators 4 q + 2 h and 4 q + 2 h + 1 of an mma or wgmma tile: the first one's
 * row, column and element index in out, and whether the row is stored. */
typedef struct mma_place {
  int row, col, index, row_ok;
} mma_place;

static mma_place mma_place_of(gen *g, const mma_lane *w, bool wgmma, int out_base, int row0, int col0, int64_t rows,
                              int64_t cols, int row_lo, int row_hi, int q, int h) {
  int64_t row_step = wgmma ? 0 : 16 * (q / 4), col_step = wgmma ? 8 * q : 8 * (q % 4);
  mma_place p;
  p.row = add(g, add(g, row0, add(g, w->row, w->g)), ci64(g, row_step + 8 * h));
  p.col = add(g, add(g, col0, add(g, w->col, mulc(g, w->t, 2))), ci64(g, col_step));
  p.index = add(g, out_base, add(g, mulc(g, p.row, cols), p.col));
  p.row_ok = row_in(g, p.row, rows, row_lo, row_hi);
  return p;
}

/* Whether element `x` (0 or 1) of the pair at `p` is stored: its row is, and its column lies inside cols. */
static int mma_place_stored(gen *g, const mma_place *p, int x, int64_t cols) {
  return op2(g, "arith.andi", p->row_ok, cmpi(g, "slt", addc(g, p->col, x), ci64(g, cols), "i64"), "i1");
}

/* The stores of an mma or wgmma tile whose result has a fused epilogue that loads other inputs: each batch of
 * EPILOGUE_BATCH_PAIRS accumulator pairs first loads those inputs for all its elements (at element 0 where
 * the element is not stored, so that every load is unconditional), then applies the epilogue and stores.
 * Element by element, each load would wait for the store before it, which may alias it: 64 round trips to
 * memory in a row per thread. The same thread reads and writes each element, so the order within an element
 * is kept. */
static void product_store_epilogue_mma(gen *g, const tensor_ref *out, const mma_lane *w, bool wgmma, int out_base,
                                       int row0, int col0, int64_t rows, int64_t cols, int row_lo, int row_hi,
                                       const int *acc) {
  const fused_epilogue *e = out->epilogue;
  int pairs = PRODUCT_ACCUMULATORS / 2;
  for (int first = 0; first < pairs; first += EPILOGUE_BATCH_PAIRS) {
    int index[2 * EPILOGUE_BATCH_PAIRS], ok[2 * EPILOGUE_BATCH_PAIRS];
    int inputs[2 * EPILOGUE_BATCH_PAIRS][LATCH_MAP_MAX_INPUTS];
    for (int p = 0; p < EPILOGUE_BATCH_PAIRS; ++p) {
      mma_place place = mma_place_of(g, w, wgmma, out_base, row0, col0, rows, cols, row_lo, row_hi,
                                     (first + p) / 2, (first + p) % 2);
      for (int x = 0; x < 2; ++x) {
        int at = 2 * p + x;
        index[at] = addc(g, place.index, x);
        ok[at] = mma_place_stored(g, &place, x, cols);
        epilogue_load_inputs(g, e, sel(g, ok[at], index[at], ci64(g, 0), "i64"), inputs[at]);
      }
    }
    for (int at = 0; at < 2 * EPILOGUE_BATCH_PAIRS; ++at) {
      when_begin(g, ok[at]);
      epilogue_finish(g, out, index[at], acc[2 * first + at], inputs[at]);
      when_end(g);
    }
  }
}

/* Rows below `rows` are stored; with row_lo >= 0 (an i64 value) only rows in [row_lo, row_hi) of those.
 * Accumulator tile q (registers 4q .. 4q + 3, 16 x 8) of a thread starts at row 16 (q / 4), column
 * 8 (q % 4) of its warp's 64 x 32 outputs under mma.sync; at column 8 q of its warp's 16 rows x 128
 * columns under wgmma. */
static void product_store_mma(gen *g, const tensor_ref *out, int out_base, int row0, int col0, int64_t rows,
                              int64_t cols, int row_lo, int row_hi, bool wgmma, const int *acc) {
  mma_lane w = mma_lane_of(g);
  if (wgmma) {
    w.row = mulc(g, divc(g, g->tid, 32), 16);
    w.col = ci64(g, 0);
  }
  if (out->epilogue && epilogue_loads(out->epilogue)) {
    product_store_epilogue_mma(g, out, &w, wgmma, out_base, row0, col0, rows, cols, row_lo, row_hi, acc);
    return;
  }
  bool pairs = out->dt == DT_F32 && place_aligned(out, 8) && !out->epilogue;
  for (int q = 0; q < PRODUCT_ACCUMULATORS / 4; ++q)
    for (int h = 0; h < 2; ++h) {
      mma_place place = mma_place_of(g, &w, wgmma, out_base, row0, col0, rows, cols, row_lo, row_hi, q, h);
      int index = place.index;
      const int *value = &acc[q * 4 + 2 * h];
      if (pairs) {
        int both = mma_place_stored(g, &place, 1, cols);
        int even = cmpi(g, "eq", op2(g, "arith.andi", index, ci64(g, 1), "i64"), ci64(g, 0), "i64");
        when_begin(g, op2(g, "arith.andi", both, even, "i1"));
        store_f32_pair(g, out, index, value[0], value[1]);
        otherwise(g);
      }
      for (int e = 0; e < 2; ++e) {
        when_begin(g, mma_place_stored(g, &place, e, cols));
        store_f32(g, out, addc(g, index, e), value[e]);
        when_end(g);
      }
      if (pairs)
        when_end(g);
    }
}

/* acc_out = acc_in + the product over k in [lo, hi) for the tile at (row0, col0). */
static void product_accumulate(gen *g, const product_operand *a, const product_operand *b, int row0, int col0,
                               int lo, int hi, const int *acc_in, int *acc_out) {
  if (product_uses_wgmma(g, a, b)) {
    product_accumulate_wgmma(g, a, b, row0, col0, lo, hi, acc_in, acc_out);
    return;
  }
  if (product_uses_mma(a, b)) {
    product_accumulate_mma(g, a, b, row0, col0, lo, hi, acc_in, acc_out);
    return;
  }
  int ty = divc(g, g->tid, 16), tx = remc(g, g->tid, 16);
  int stage_acc[PRODUCT_ACCUMULATORS], step_acc[PRODUCT_ACCUMULATORS], step_out[PRODUCT_ACCUMULATORS];
  int k0 = for_begin(g, lo, hi, ci64(g, PRODUCT_DEPTH), PRODUCT_ACCUMULATORS, acc_in, f32_types, stage_acc, acc_out);
  sync_threads(g);
  product_stage(g, a, row0, k0, hi, 0);
  product_stage(g, b, col0, k0, hi, PRODUCT_B_OFFSET);
  sync_threads(g);
  int kk = for_begin(g, ci64(g, 0), ci64(g, PRODUCT_DEPTH), ci64(g, 1), PRODUCT_ACCUMULATORS, stage_acc, f32_types,
                     step_acc, step_out);
  int step = mulc(g, kk, PRODUCT_STRIDE);
  int av[PRODUCT_MICRO], bv[PRODUCT_MICRO];
  for (int m = 0; m < PRODUCT_MICRO; ++m) {
    av[m] = shared_load(g, add(g, step, addc(g, ty, 16 * m)));
    bv[m] = shared_load(g, addc(g, add(g, step, addc(g, tx, 16 * m)), PRODUCT_B_OFFSET));
  }
  int next[PRODUCT_ACCUMULATORS];
  for (int x = 0; x < PRODUCT_MICRO; ++x)
    for (int y = 0; y < PRODUCT_MICRO; ++y)
      next[x * PRODUCT_MICRO + y] = fadd(g, step_acc[x * PRODUCT_MICRO + y], fmul(g, av[x], bv[y]));
  for_end(g, PRODUCT_ACCUMULATORS, next, f32_types);
  for_end(g, PRODUCT_ACCUMULATORS, step_out, f32_types);
}

/* Stores each accumulator (row, col) inside rows x cols to out[out_base + row * cols + col], in the layout
 * that product_accumulate gave the operands a and b. */
static void product_store_rows(gen *g, const product_operand *a, const product_operand *b, const tensor_ref *out,
                               int out_base, int row0, int col0, int64_t rows, int64_t cols, int row_lo, int row_hi,
                               const int *acc) {
  if (product_uses_mma(a, b)) {
    product_store_mma(g, out, out_base, row0, col0, rows, cols, row_lo, row_hi, product_uses_wgmma(g, a, b), acc);
    return;
  }
  int ty = divc(g, g->tid, 16), tx = remc(g, g->tid, 16);
  for (int x = 0; x < PRODUCT_MICRO; ++x) {
    int row = add(g, row0, addc(g, ty, 16 * x));
    for (int y = 0; y < PRODUCT_MICRO; ++y) {
      int col = add(g, col0, addc(g, tx, 16 * y));
      when_begin(g, op2(g, "arith.andi", row_in(g, row, rows, row_lo, row_hi),
                        cmpi(g, "slt", col, ci64(g, cols), "i64"), "i1"));
      store_f32(g, out, add(g, out_base, add(g, mulc(g, row, cols), col)), acc[x * PRODUCT_MICRO + y]);
      when_end(g);
    }
  }
}

/* Stores rows below `rows` of the tile at (row0, col0). */
static void product_store(gen *g, const product_operand *a, const product_operand *b, const tensor_ref *out,
                          int out_base, int row0, int col0, int64_t rows, int64_t cols, const int *acc) {
  product_store_rows(g, a, b, out, out_base, row0, col0, rows, cols, -1, -1, acc);
}

/* The element-wise product with k = 1 (LATCH_SMALL_PRODUCT_UNIT_DEPTH_OUTPUTS): output e = (batch, i, j) is
 * 0 + a[batch, i] b[batch, j] (the one k; a and b index the same way transposed or not), computed as the
 * thread-per-output form computes it, in elementwise tiles: 4 consecutive outputs of one row per unit (one
 * vector of b, one store) when n is a multiple of 4 and b, c are f32 and 16-byte aligned, else one
 * output per unit, loads issued before the first store either way. */
typedef struct outer_product {
  int64_t m, n;
  bool vector;
} outer_product;

static void outer_operands(gen *g, const outer_product *o, int e, int *a_index, int *b_index) {
  int row = divc(g, e, o->n), col = remc(g, e, o->n);
  *a_index = row; /* batch m + i */
  *b_index = add(g, mulc(g, divc(g, row, o->m), o->n), col);
}

static void outer_load(gen *g, const task_io *io, const void *context, int unit, int *values) {
  const outer_product *o = context;
  int a_index, b_index;
  outer_operands(g, o, o->vector ? unit_first(g, unit) : unit, &a_index, &b_index);
  values[0] = load_f32(g, &io->in[0], a_index);
  values[1] = o->vector ? load_vector_as(g, &io->in[1], b_index, "vector<4xf32>") : load_f32(g, &io->in[1], b_index);
}

static void outer_finish(gen *g, const task_io *io, const void *context, int unit, const int *values) {
  const outer_product *o = context;
  if (!o->vector) {
    store_f32(g, &io->out[0], unit, fadd(g, cf32(g, 0.0), fmul(g, values[0], values[1])));
    return;
  }
  int v = fresh(g);
  ln(g, "%%v%d = llvm.mlir.poison : vector<4xf32>", v);
  for (int e = 0; e < ELEMENTWISE_WIDTH; ++e) {
    int y = fresh(g), next = fresh(g);
    ln(g, "%%v%d = llvm.extractelement %%v%d[%%v%d : i32] : vector<4xf32>", y, values[1], ci32(g, e));
    ln(g, "%%v%d = llvm.insertelement %%v%d, %%v%d[%%v%d : i32] : vector<4xf32>", next,
       fadd(g, cf32(g, 0.0), fmul(g, values[0], y)), v, ci32(g, e));
    v = next;
  }
  store_vector_as(g, &io->out[0], unit_first(g, unit), v, "vector<4xf32>");
}

static void gen_matmul_outer(gen *g, task_io *io, int64_t m, int64_t n) {
  const tensor_ref *b = &io->in[1], *c = &io->out[0];
  _Static_assert(ELEMENTWISE_TILE == LATCH_SMALL_PRODUCT_UNIT_DEPTH_OUTPUTS, "the k = 1 product's tiles");
  outer_product o = {.m = m, .n = n,
                     .vector = g->l->vector_maps && n % ELEMENTWISE_WIDTH == 0 && b->dt == DT_F32 &&
                               c->dt == DT_F32 && place_aligned(b, 16) && place_aligned(c, 16)};
  if (o.vector)
    unit_tiles(g, io, &o, c->elements / ELEMENTWISE_WIDTH, ELEMENTWISE_TILE / ELEMENTWISE_WIDTH, 4, outer_load, NULL,
               outer_finish);
  else
    elementwise_tiles(g, io, &o, c->elements, ELEMENTWISE_TILE, 2, outer_load, NULL, outer_finish);
}

/* The element-wise product (latch_matmul_is_small: batched with M not a multiple of 128, so row tiles
 * would cross batches, or at most 16 columns wide), element by element over the flat output: with k >= 32
 * (latch_small_product_by_warp) a warp per element, lane l summing
 * k = l, l + 32, ... in increasing order and the lanes combined by the butterfly; with shorter k a thread
 * per element, k increasing. Either order is fixed: deterministic. The warp's lane issues the loads of
 * SMALL_PRODUCT_LOADS steps of k before their products are added (in the same order, so the same bits):
 * one load pair in flight per lane had made TinyMoE's router products 24-29 us tiles (H200, 2026-12-04). */
#define SMALL_PRODUCT_LOADS 8
static void gen_matmul_elementwise(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *a = &io->in[0], *b = &io->in[1], *c = &io->out[0];
  bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
  int r = c->rank;
  int64_t m = dim(c, r - 2), n = dim(c, r - 1), k = ta ? dim(a, r - 2) : dim(a, r - 1);
  if (k == 1) {
    gen_matmul_outer(g, io, m, n);
    return;
  }
  int64_t per_tile = latch_small_product_outputs_per_tile(k, c->elements);
  bool by_warp = latch_small_product_by_warp(k);
  int vt = tiles_begin(g, ceil_div(c->elements, per_tile));
  int e = by_warp ? warp_span_begin(g, vt, per_tile, c->elements) : span_begin(g, vt, per_tile, c->elements);
  int row = divc(g, e, n), col = remc(g, e, n);
  int bi = divc(g, row, m), i = remc(g, row, m);
  int a_row = add(g, mulc(g, bi, m * k), ta ? i : mulc(g, i, k));
  int b_col = add(g, mulc(g, bi, k * n), tb ? mulc(g, col, k) : col);
  int64_t a_step = ta ? m : 1, b_step = tb ? 1 : n; /* elements between steps of k */
  int lane = by_warp ? remc(g, g->tid, 32) : ci64(g, 0);
  int acc, sum;
  if (by_warp) {
    /* steps base + lane + 32 u (u < loads) per iteration; a step past k (only when 32 loads does not
     * divide k) reads row k - 1 and leaves the sum as it is */
    int64_t loads = ceil_div(k, 32) < SMALL_PRODUCT_LOADS ? ceil_div(k, 32) : SMALL_PRODUCT_LOADS;
    bool ragged = k % (32 * loads) != 0;
    int base = loop1_begin(g, ci64(g, 0), ci64(g, k), ci64(g, 32 * loads), cf32(g, 0.0), "f32", &acc, &sum);
    int x[SMALL_PRODUCT_LOADS], y[SMALL_PRODUCT_LOADS], inside[SMALL_PRODUCT_LOADS];
    for (int64_t u = 0; u < loads; ++u) {
      int kk = add(g, base, addc(g, lane, 32 * u));
      if (ragged) {
        inside[u] = cmpi(g, "slt", kk, ci64(g, k), "i64");
        kk = mini(g, kk, ci64(g, k - 1));
      }
      x[u] = load_f32(g, a, add(g, a_row, mulc(g, kk, a_step)));
      y[u] = load_f32(g, b, add(g, b_col, mulc(g, kk, b_step)));
    }
    for (int64_t u = 0; u < loads; ++u) {
      int next = fadd(g, acc, fmul(g, x[u], y[u]));
      acc = ragged ? sel(g, inside[u], next, acc, "f32") : next;
    }
    loop1_end(g, acc, "f32");
  } else {
    int kk = loop1_begin(g, lane, ci64(g, k), ci64(g, 1), cf32(g, 0.0), "f32", &acc, &sum);
    int x = load_f32(g, a, add(g, a_row, mulc(g, kk, a_step)));
    int y = load_f32(g, b, add(g, b_col, mulc(g, kk, b_step)));
    loop1_end(g, fadd(g, acc, fmul(g, x, y)), "f32");
  }
  if (by_warp) {
    sum = warp_combine(g, "arith.addf", sum);
    when_begin(g, cmpi(g, "eq", lane, ci64(g, 0), "i64"));
  }
  store_f32(g, c, e, sum);
  if (by_warp)
    when_end(g);
  loop_end(g);
  loop_end(g);
}

/* The split-k combine of a product whose k is cut into `slices` (docs/device-abi.md): this thread's `count`
 * partial sums of virtual tile vt go to pooled scratch at ((vt count + a) 256 + tid), a release fence, and
 * the slice counts in at output tile `tile`'s counter (`flag`: a free shared word); in the slice that
 * arrives last, `sums` get every slice's partials added in slice order (so the sum's order does not depend
 * on arrival). Opens the last slice's block and returns the counter: the caller stores the sums there and
 * closes with end_combine. */
static int combine_slices(gen *g, int partials, int arrivals, int vt, int tile, int64_t slices, int count,
                          const int *values, int64_t flag, int *sums) {
  for (int a = 0; a < count; ++a) {
    int at = add(g, mulc(g, addc(g, mulc(g, vt, count), a), CTA_THREADS), g->tid);
    global_store(g, scratch_address(g, partials, at, "f32"), values[a], "f32", 0);
  }
  ln(g, "llvm.fence syncscope(\"device\") release");
  int counter = scratch_address(g, arrivals, tile, "i32");
  need_shared(g, flag + 1);
  int last = arrived_last(g, counter, slices, ci64(g, flag));
  when_begin(g, last);
  int zero[PRODUCT_ACCUMULATORS], args[PRODUCT_ACCUMULATORS], next[PRODUCT_ACCUMULATORS];
  for (int a = 0; a < count; ++a)
    zero[a] = cf32(g, 0.0);
  int s = for_begin(g, ci64(g, 0), ci64(g, slices), ci64(g, 1), count, zero, f32_types, args, sums);
  int first = mulc(g, add(g, mulc(g, tile, slices), s), count);
  for (int a = 0; a < count; ++a) {
    int at = add(g, mulc(g, addc(g, first, a), CTA_THREADS), g->tid);
    next[a] = fadd(g, args[a], scratch_load_f32(g, scratch_address(g, partials, at, "f32")));
  }
  for_end(g, count, next, f32_types);
  return counter;
}

/* Closes combine_slices' block: the last slice resets the counter for the next update. */
static void end_combine(gen *g, int counter) {
  when_begin(g, cmpi(g, "eq", g->tid, ci64(g, 0), "i64"));
  reset_arrivals(g, counter);
  when_end(g);
  when_end(g);
}

/* The k-sliced narrow product (latch_narrow_sliced_depth): c[i, j] = sum_k a[k, i] b[k, j] with a thread per
 * output element e = i n + j (consecutive threads read neighbouring a and b elements of one k), 256 per
 * tile, and k cut into slices of `depth`: vt = tile * slices + slice. A slice sums its k in increasing order,
 * 8 elements of a and b loaded before their 8 products so that the loads overlap, stores its partial sum
 * in task scratch (thread t of virtual tile vt at vt 256 + t), and the slice that arrives last at the tile's
 * counter adds the partials in slice order (so the sum's order does not depend on arrival), stores c and
 * resets the counter. */
static void gen_matmul_narrow_sliced(gen *g, task_io *io, int64_t depth) {
  const tensor_ref *a = &io->in[0], *b = &io->in[1], *c = &io->out[0];
  int64_t m = dim(c, 0), n = dim(c, 1), k = dim(a, 0);
  int64_t outputs = m * n, out_tiles = ceil_div(outputs, CTA_THREADS), slices = ceil_div(k, depth);
  int partials = pooled_scratch(g, out_tiles * slices * CTA_THREADS);
  int arrivals = task_scratch(g, "arrivals", out_tiles, "i32");
  int vt = tiles_begin(g, out_tiles * slices);
  int tile = divc(g, vt, slices), slice = remc(g, vt, slices);
  int e = add(g, mulc(g, tile, CTA_THREADS), g->tid);
  int valid = cmpi(g, "slt", e, ci64(g, outputs), "i64");
  int safe = sel(g, valid, e, ci64(g, 0), "i64"); /* threads past the outputs read element 0 and store nothing */
  int i = divc(g, safe, n), j = remc(g, safe, n);
  int lo = mulc(g, slice, depth), hi = mini(g, addc(g, lo, depth), ci64(g, k)); /* k % 8 == 0, depth % 8 == 0 */
  int acc, sum;
  int kk = loop1_begin(g, lo, hi, ci64(g, 8), cf32(g, 0.0), "f32", &acc, &sum);
  int xs[8], ys[8];
  for (int u = 0; u < 8; ++u) {
    xs[u] = load_f32(g, a, add(g, mulc(g, addc(g, kk, u), m), i));
    ys[u] = load_f32(g, b, add(g, mulc(g, addc(g, kk, u), n), j));
  }
  int next = acc;
  for (int u = 0; u < 8; ++u)
    next = fadd(g, next, fmul(g, xs[u], ys[u]));
  loop1_end(g, next, "f32");
  int done;
  int counter = combine_slices(g, partials, arrivals, vt, tile, slices, 1, &sum, 0, &done);
  when_begin(g, valid);
  store_f32(g, c, e, done);
  when_end(g);
  end_combine(g, counter);
  loop_end(g);
}

/* c[b, i, j] = sum_k op(a)[b, i, k] op(b)[b, k, j], fp32 accumulation in increasing k. Output tiles of
 * 128 x 128 over the [batch * M, N] view of c, in row-major tile order, each one tiled product (a tile
 * lies in one batch when M is a multiple of 128; otherwise the elementwise form). */
static void gen_matmul(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *a = &io->in[0], *b = &io->in[1], *c = &io->out[0];
  bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
  int r = c->rank;
  int64_t batch = r == 3 ? c->dims[0] : 1, m = dim(c, r - 2), n = dim(c, r - 1);
  int64_t k = ta ? dim(a, r - 2) : dim(a, r - 1);
  if (latch_matmul_is_small(batch, m, n, ta)) {
    gen_matmul_elementwise(g, io, op);
    return;
  }
  int64_t narrow_depth = latch_narrow_sliced_depth(batch, m, n, k, ta, tb);
  if (narrow_depth > 0) {
    gen_matmul_narrow_sliced(g, io, narrow_depth);
    return;
  }
  int64_t rows = batch * m, tile_cols = ceil_div(n, MATMUL_TILE), out_tiles = ceil_div(rows, MATMUL_TILE) * tile_cols;
  int64_t slices = latch_matmul_k_slices(op);
  int partials = -1, arrivals = -1;
  if (slices > 1) {
    partials = pooled_scratch(g, out_tiles * slices * PRODUCT_ACCUMULATORS * CTA_THREADS);
    arrivals = task_scratch(g, "arrivals", out_tiles, "i32");
  }
  int vt = tiles_begin(g, out_tiles * slices);
  int tile = divc(g, vt, slices), slice = remc(g, vt, slices);
  int row0 = mulc(g, divc(g, tile, tile_cols), MATMUL_TILE), col0 = mulc(g, remc(g, tile, tile_cols), MATMUL_TILE);
  int bi = divc(g, row0, m);
  /* a[b] is [M, K] (or [K, M] transposed), b[b] is [K, N] (or [N, K]); i counts rows of the [batch * M]
   * view, so a transposed a[b] starts at b K M and its row i - b M at column offset i - b M. */
  product_operand pa = {.t = a, .i_lo = ci64(g, 0), .i_hi = ci64(g, rows)};
  pa.base = ta ? mulc(g, bi, k * m - m) : ci64(g, 0);
  pa.i_stride = ta ? 1 : k;
  pa.k_stride = ta ? m : 1;
  product_operand pb = {.t = b, .base = mulc(g, bi, k * n), .i_lo = ci64(g, 0), .i_hi = ci64(g, n)};
  pb.i_stride = tb ? k : 1;
  pb.k_stride = tb ? 1 : n;
  int zero[PRODUCT_ACCUMULATORS], acc[PRODUCT_ACCUMULATORS];
  product_zero(g, zero);
  if (slices == 1) {
    product_accumulate(g, &pa, &pb, row0, col0, ci64(g, 0), ci64(g, k), zero, acc);
    product_store(g, &pa, &pb, c, ci64(g, 0), row0, col0, rows, n, acc);
  } else {
    /* Slice `slice` of k (a multiple of the stages' depth); its partial sums go to task scratch in the
     * threads' own layout (thread t's accumulator a at ((vt 64 + a) 256 + t)); the tile's last slice to
     * arrive adds the slices in order 0, 1, ... and stores the result. */
    int64_t depth = ceil_div(ceil_div(k, slices), MMA_DEPTH) * MMA_DEPTH;
    int lo = mini(g, mulc(g, slice, depth), ci64(g, k)), hi = mini(g, addc(g, lo, depth), ci64(g, k));
    product_accumulate(g, &pa, &pb, row0, col0, lo, hi, zero, acc);
    /* the flag's shared word lies past the product's staging: other warps may still read its last stage */
    int sums[PRODUCT_ACCUMULATORS];
    int counter = combine_slices(g, partials, arrivals, vt, tile, slices, PRODUCT_ACCUMULATORS, acc,
                                 product_shared_words(g, &pa, &pb), sums);
    product_store(g, &pa, &pb, c, ci64(g, 0), row0, col0, rows, n, sums);
    end_combine(g, counter);
  }
  loop_end(g);
}

/* Rows [begin, end) of group `group`: begin = ends[g-1] (0 for g = 0), end = ends[g], both clamped to
 * [0, rows]. */
static void group_rows(gen *g, const tensor_ref *ends, int group, int64_t rows, int *begin, int *end) {
  int zero = ci64(g, 0), row_count = ci64(g, rows);
  int previous = load_index(g, ends, maxi(g, sub(g, group, ci64(g, 1)), zero));
  int first = sel(g, cmpi(g, "sgt", group, zero, "i64"), previous, zero, "i64");
  *begin = mini(g, maxi(g, first, zero), row_count);
  *end = mini(g, maxi(g, load_index(g, ends, group), *begin), row_count);
}

/* The rows [begin, end) of group `group` in [0, G]: group_rows for g < G, and for "group" G the rows
 * after ends[G-1]. Returns the i1 value group == G. */
static int pair_group_rows(gen *g, const tensor_ref *ends, int group, int64_t groups, int64_t rows, int *begin,
                           int *end) {
  int b, e;
  group_rows(g, ends, mini(g, group, ci64(g, groups - 1)), rows, &b, &e);
  int past = cmpi(g, "eq", group, ci64(g, groups), "i64");
  *begin = sel(g, past, e, b, "i64");
  *end = sel(g, past, ci64(g, rows), e, "i64");
  return past;
}

/* y[r] = x[r] w[g] for the rows of group g, 0 after ends[G-1]. Tiles: (pair, 128 columns), where the
 * pairs are the (row tile, group) pairs whose rows meet, in row order, then the row tiles of the rows
 * after ends[G-1] (their zeros): at most R / 128 + G pairs (each group start inside a row tile adds one).
 * A pair runs one tiled product, of its group's rows, and stores only them, so a row tile that spans
 * groups costs no more than its share of each (it used to run every group's product over the whole
 * tile). Pairs past the last do nothing. */
static void gen_grouped_matmul(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0], *w = &io->in[1], *ends = &io->in[2], *y = &io->out[0];
  bool transposed = latch_grouped_matmul_transpose_w(op); /* w[g] is [N, K] */
  int64_t rows = dim(x, 0), k = dim(x, 1), n = dim(y, 1), groups = dim(w, 0);
  /* w_column_offset: w's rows are `pitch` long and the op reads their columns [offset, offset + n) (or
   * [offset, offset + k) with transpose_w). */
  int64_t offset = latch_grouped_matmul_w_column_offset(op), pitch = dim(w, 2);
  if (offset < 0)
    offset = 0;
  int64_t tile_cols = ceil_div(n, MATMUL_TILE);
  int vt = tiles_begin(g, (ceil_div(rows, MATMUL_TILE) + groups) * tile_cols);
  int pair = divc(g, vt, tile_cols), col0 = mulc(g, remc(g, vt, tile_cols), MATMUL_TILE);
  /* Walk the groups, counting their row tiles, to the one that holds `pair`: (pairs before, group, row
   * tile); group -1 when no group does. */
  static const char *const walk_types[3] = {"i64", "i64", "i64"};
  int init[3] = {ci64(g, 0), ci64(g, -1), ci64(g, 0)}, carried[3], found[3];
  int gi = for_begin(g, ci64(g, 0), ci64(g, groups + 1), ci64(g, 1), 3, init, walk_types, carried, found);
  int begin, end;
  pair_group_rows(g, ends, gi, groups, rows, &begin, &end);
  int first_tile = divc(g, begin, MATMUL_TILE);
  int count = sel(g, cmpi(g, "sgt", end, begin, "i64"),
                  addc(g, sub(g, divc(g, addc(g, end, -1), MATMUL_TILE), first_tile), 1), ci64(g, 0), "i64");
  int seen = add(g, carried[0], count);
  int hit = op2(g, "arith.andi", cmpi(g, "sge", pair, carried[0], "i64"), cmpi(g, "slt", pair, seen, "i64"), "i1");
  int next[3] = {seen, sel(g, hit, gi, carried[1], "i64"),
                 sel(g, hit, add(g, first_tile, sub(g, pair, carried[0])), carried[2], "i64")};
  for_end(g, 3, next, walk_types);
  int group = found[1], row0 = mulc(g, found[2], MATMUL_TILE);
  when_begin(g, cmpi(g, "sge", group, ci64(g, 0), "i64"));
  int lo, hi;
  int zeros = pair_group_rows(g, ends, group, groups, rows, &lo, &hi);
  /* The rows past ends[G-1] read an empty range of x's rows: their sums are 0. */
  product_operand px = {.t = x, .base = ci64(g, 0), .i_lo = lo, .i_hi = sel(g, zeros, lo, hi, "i64"), .i_stride = k,
                        .k_stride = 1};
  product_operand pw = {.t = w, .base = addc(g, mulc(g, mini(g, group, ci64(g, groups - 1)), dim(w, 1) * pitch), offset),
                        .i_lo = ci64(g, 0), .i_hi = ci64(g, n), .i_stride = transposed ? pitch : 1,
                        .k_stride = transposed ? 1 : pitch};
  int zero[PRODUCT_ACCUMULATORS], acc[PRODUCT_ACCUMULATORS];
  product_zero(g, zero);
  product_accumulate(g, &px, &pw, row0, col0, ci64(g, 0), ci64(g, k), zero, acc);
  product_store_rows(g, &px, &pw, y, ci64(g, 0), row0, col0, rows, n, lo, hi, acc);
  when_end(g);
  loop_end(g);
}

/* dw[g] = sum over the rows r of group g of x[r]^T dy[r], fp32, increasing r: a tiled product over K x N
 * with r as its reduction. Tiles: (g, 128 x 128 of K x N). With dy1 (task.grouped_matmul_weight_grad_concat)
 * dw is [G, K, 2 N], its columns below N from dy0 and the rest from dy1: a tile reads one of the two (N a
 * multiple of the tile, so that none straddles them), dy1's column j - N read as column j through its
 * pointer and a base moved back by N. */
static void weight_grad_tiles(gen *g, const tensor_ref *x, const tensor_ref *dy0, const tensor_ref *dy1,
                              const tensor_ref *ends, const tensor_ref *dw) {
  int64_t rows = dim(x, 0), k = dim(x, 1), n = dim(dw, 2), groups = dim(dw, 0);
  int64_t tile_rows = ceil_div(k, MATMUL_TILE), tile_cols = ceil_div(n, MATMUL_TILE);
  int vt = tiles_begin(g, groups * tile_rows * tile_cols);
  int group = divc(g, vt, tile_rows * tile_cols), rest = remc(g, vt, tile_rows * tile_cols);
  int row0 = mulc(g, divc(g, rest, tile_cols), MATMUL_TILE), col0 = mulc(g, remc(g, rest, tile_cols), MATMUL_TILE);
  int begin, end;
  group_rows(g, ends, group, rows, &begin, &end);
  product_operand px = {.t = x, .base = ci64(g, 0), .i_lo = ci64(g, 0), .i_hi = ci64(g, k), .i_stride = 1,
                        .k_stride = k};
  product_operand pd = {.t = dy0, .base = ci64(g, 0), .i_lo = ci64(g, 0), .i_hi = ci64(g, n), .i_stride = 1,
                        .k_stride = dim(dy0, 1)};
  tensor_ref either = *dy0;
  if (dy1) {
    int second = cmpi(g, "sge", col0, ci64(g, dim(dy0, 1)), "i64");
    either.ptr = sel(g, second, dy1->ptr, dy0->ptr, "!llvm.ptr<1>");
    pd.t = &either;
    pd.base = sel(g, second, ci64(g, -dim(dy0, 1)), pd.base, "i64");
  }
  int zero[PRODUCT_ACCUMULATORS], acc[PRODUCT_ACCUMULATORS];
  product_zero(g, zero);
  product_accumulate(g, &px, &pd, row0, col0, begin, end, zero, acc);
  product_store(g, &px, &pd, dw, mulc(g, group, k * n), row0, col0, k, n, acc);
  loop_end(g);
}

static void gen_grouped_matmul_weight_grad(gen *g, task_io *io) {
  weight_grad_tiles(g, &io->in[0], &io->in[1], NULL, &io->in[2], &io->out[0]);
}

static void gen_grouped_matmul_weight_grad_concat(gen *g, task_io *io) {
  const tensor_ref *dy0 = &io->in[1], *dy1 = &io->in[2];
  _Static_assert(LATCH_CONCAT_HALF_COLUMNS % MATMUL_TILE == 0, "no tile straddles dy0 and dy1");
  if (dim(dy0, 1) % LATCH_CONCAT_HALF_COLUMNS != 0 || dy0->kind == PLACE_CONST || dy1->kind == PLACE_CONST ||
      dy0->prologue || dy1->prologue || place_aligned(dy0, 16) != place_aligned(dy1, 16)) { /* dtypes: check_shapes */
    g->failed = true;
    return;
  }
  weight_grad_tiles(g, &io->in[0], dy0, dy1, &io->in[3], &io->out[0]);
}

/* ---- reductions along an axis ---- */

typedef enum reduction { REDUCE_SUM, REDUCE_MAX, REDUCE_MEAN, REDUCE_BAD } reduction;

static reduction reduction_of(MlirStringRef kind) {
  return latch_ref_is(kind, "sum")    ? REDUCE_SUM
         : latch_ref_is(kind, "max")  ? REDUCE_MAX
         : latch_ref_is(kind, "mean") ? REDUCE_MEAN
                                      : REDUCE_BAD;
}

/* x viewed as [outer, len, inner] around `axis`. */
static void axis_split(const tensor_ref *x, int axis, int64_t *outer, int64_t *len, int64_t *inner) {
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < axis; ++d)
    *outer *= x->dims[d];
  *len = x->dims[axis];
  for (int d = axis + 1; d < x->rank; ++d)
    *inner *= x->dims[d];
}

/* y[o, i] = reduce over l of x[o, l, i]: one output element per thread iteration, in increasing l. The
 * output elements are spread over the tiles of the row rule (64 rows of x per tile). */
static void gen_reduce(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0], *y = &io->out[0];
  reduction kind = reduction_of(latch_reduce_kind(op));
  int64_t outer, len, inner;
  axis_split(x, (int)latch_reduce_axis(op), &outer, &len, &inner);
  int64_t outputs = outer * inner;
  int64_t virtual_tiles = ceil_div(row_count(x), ROW_TILE);
  if (virtual_tiles < 1)
    virtual_tiles = 1;
  int64_t unit = ceil_div(outputs, virtual_tiles);
  if (unit < 1)
    unit = 1;
  int vt = tiles_begin(g, virtual_tiles);
  int o = span_begin(g, vt, unit, outputs);
  int base = add(g, mulc(g, divc(g, o, inner), len * inner), remc(g, o, inner));
  int acc, result;
  if (x->dt == DT_I32) {
    int init = kind == REDUCE_MAX ? ci32(g, INT32_MIN) : ci32(g, 0);
    int l = loop1_begin(g, ci64(g, 0), ci64(g, len), ci64(g, 1), init, "i32", &acc, &result);
    int v = load_raw(g, x, add(g, base, mulc(g, l, inner)));
    loop1_end(g, op2(g, kind == REDUCE_MAX ? "arith.maxsi" : "arith.addi", acc, v, "i32"), "i32");
    store_raw(g, y, o, result);
  } else {
    int init = kind == REDUCE_MAX ? cf32(g, -INFINITY) : cf32(g, 0.0);
    int l = loop1_begin(g, ci64(g, 0), ci64(g, len), ci64(g, 1), init, "f32", &acc, &result);
    int v = load_f32(g, x, add(g, base, mulc(g, l, inner)));
    loop1_end(g, op2(g, kind == REDUCE_MAX ? "arith.maximumf" : "arith.addf", acc, v, "f32"), "f32");
    if (kind == REDUCE_MEAN)
      result = fdiv(g, result, cf32(g, (double)len));
    store_f32(g, y, o, result);
  }
  loop_end(g);
  loop_end(g);
}

/* dx[o, l, i] = dy[o, i] (sum), dy[o, i] / len (mean), or dy[o, i] at the first l where x[o, :, i] is
 * largest (NaN largest) and 0 elsewhere (max). One dx element per thread iteration. */
static void gen_reduce_grad(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0], *dy = &io->in[1], *dx = &io->out[0];
  reduction kind = reduction_of(latch_reduce_grad_kind(op));
  int64_t outer, len, inner;
  axis_split(x, (int)latch_reduce_grad_axis(op), &outer, &len, &inner);
  int64_t n = dx->elements, unit = ROW_TILE * last_dim(dx);
  int vt = tiles_begin(g, ceil_div(n, unit));
  int e = span_begin(g, vt, unit, n);
  int o = divc(g, e, len * inner), l = remc(g, divc(g, e, inner), len), i = remc(g, e, inner);
  int gv = load_f32(g, dy, add(g, mulc(g, o, inner), i));
  int value;
  if (kind == REDUCE_MAX) {
    int base = add(g, mulc(g, o, len * inner), i);
    const char *types[2] = {"f32", "i64"};
    int init[2] = {load_f32(g, x, base), ci64(g, 0)}, args[2], best[2];
    int ll = for_begin(g, ci64(g, 1), ci64(g, len), ci64(g, 1), 2, init, types, args, best);
    int v = load_f32(g, x, add(g, base, mulc(g, ll, inner)));
    int current_nan = cmpf(g, "uno", args[0], args[0], "f32");
    int better = op2(g, "arith.ori", cmpf(g, "uno", v, v, "f32"), cmpf(g, "ogt", v, args[0], "f32"), "i1");
    int take = op2(g, "arith.andi", not1(g, current_nan), better, "i1");
    int next[2] = {sel(g, take, v, args[0], "f32"), sel(g, take, ll, args[1], "i64")};
    for_end(g, 2, next, types);
    value = sel(g, cmpi(g, "eq", l, best[1], "i64"), gv, cf32(g, 0.0), "f32");
  } else {
    value = kind == REDUCE_MEAN ? fdiv(g, gv, cf32(g, (double)len)) : gv;
  }
  store_f32(g, dx, e, value);
  loop_end(g);
  loop_end(g);
}

/* ---- row-wise ops: one row per thread iteration, 64 rows per tile ---- */

/* Opens the tile loop and the row loop over `rows` rows; returns the row index. Close with two loop_end. */
static int rows_begin(gen *g, int64_t rows) {
  int vt = tiles_begin(g, ceil_div(rows, ROW_TILE));
  return span_begin(g, vt, ROW_TILE, rows);
}

/* Row-wise work for long rows, one warp per row, tiles of LATCH_WARP_ROW_TILE rows (one per warp);
 * returns the row. Close with two loop_end. */
static int warp_rows_begin(gen *g, int64_t rows) {
  return warp_span_begin(g, tiles_begin(g, ceil_div(rows, LATCH_WARP_ROW_TILE)), LATCH_WARP_ROW_TILE, rows);
}

/* A lane's softmax state (max m, sum s of exp(x - m)) after taking in more elements: max `top`, the old
 * sum rescaled plus `added` (already relative to top). Zero while everything seen is -inf (exp(-inf -
 * -inf) would be NaN); a NaN stays NaN. */
static int softmax_rescaled(gen *g, int m, int s, int top, int added) {
  int empty = cmpf(g, "oeq", top, cf32(g, -INFINITY), "f32");
  return sel(g, empty, cf32(g, 0.0), fadd(g, fmul(g, s, fexp(g, fsub(g, m, top))), added), "f32");
}

/* Columns per lane per step of the row loops below: their loads are issued together. */
#define SOFTMAX_GROUP 8

/* max over c < n of x[base + c] (NaN-propagating) and sum of exp(x - max), over a warp in one pass: lane l
 * takes columns l, l + 32, ..., SOFTMAX_GROUP at a time (the group's max, then the running sum rescaled
 * once), the tail one column at a time; the lanes' states then merge by the xor butterfly (each pair
 * computes the same commutative sum: the same bits on every lane). */
static void warp_row_softmax_statistics(gen *g, const tensor_ref *x, int base, int64_t n, int *out_max,
                                        int *out_sum) {
  int lane = remc(g, g->tid, 32);
  const char *types[2] = {"f32", "f32"};
  int state[2] = {cf32(g, -INFINITY), cf32(g, 0.0)}, init[2], args[2], next[2];
  int64_t step = 32 * SOFTMAX_GROUP, whole = n / step * step;
  if (whole > 0) {
    memcpy(init, state, sizeof(init)); /* for_begin writes the results before it reads the initial values */
    int c0 = for_begin(g, ci64(g, 0), ci64(g, whole), ci64(g, step), 2, init, types, args, state);
    int v[SOFTMAX_GROUP];
    for (int u = 0; u < SOFTMAX_GROUP; ++u)
      v[u] = load_f32(g, x, add(g, base, add(g, c0, addc(g, lane, 32 * u))));
    int top = args[0];
    for (int u = 0; u < SOFTMAX_GROUP; ++u)
      top = op2(g, "arith.maximumf", top, v[u], "f32");
    int added = cf32(g, 0.0);
    for (int u = 0; u < SOFTMAX_GROUP; ++u)
      added = fadd(g, added, fexp(g, fsub(g, v[u], top)));
    next[0] = top;
    next[1] = softmax_rescaled(g, args[0], args[1], top, added);
    for_end(g, 2, next, types);
  }
  if (whole < n) {
    memcpy(init, state, sizeof(init));
    int c = for_begin(g, addc(g, lane, whole), ci64(g, n), ci64(g, 32), 2, init, types, args, state);
    int value = load_f32(g, x, add(g, base, c));
    int top = op2(g, "arith.maximumf", args[0], value, "f32");
    next[0] = top;
    next[1] = softmax_rescaled(g, args[0], args[1], top, fexp(g, fsub(g, value, top)));
    for_end(g, 2, next, types);
  }
  int width = ci32(g, 32);
  for (int offset = 16; offset >= 1; offset /= 2) {
    int other[2];
    for (int k = 0; k < 2; ++k) {
      int valid = fresh(g);
      other[k] = fresh(g);
      ln(g, "%%v%d, %%v%d = gpu.shuffle xor %%v%d, %%v%d, %%v%d : f32", other[k], valid, state[k], ci32(g, offset),
         width);
    }
    int top = op2(g, "arith.maximumf", state[0], other[0], "f32");
    int empty = cmpf(g, "oeq", top, cf32(g, -INFINITY), "f32");
    int mine = fmul(g, state[1], fexp(g, fsub(g, state[0], top)));
    int theirs = fmul(g, other[1], fexp(g, fsub(g, other[0], top)));
    state[1] = sel(g, empty, cf32(g, 0.0), fadd(g, mine, theirs), "f32");
    state[0] = top;
  }
  *out_max = state[0];
  *out_sum = state[1];
}

#define MAX_LANE_PARTS 8

/* Elements lane + 32 m (m < parts) of the row at `base` of t, 0 past n. */
static void lane_row(gen *g, const tensor_ref *t, int base, int64_t n, int lane, int *out) {
  for (int64_t m = 0; m < ceil_div(n, 32); ++m) {
    int c = addc(g, lane, 32 * m), index = add(g, base, c);
    out[m] = 32 * m + 31 < n ? load_f32(g, t, index) : load_f32_if(g, t, cmpi(g, "slt", c, ci64(g, n), "i64"), index);
  }
}

static void lane_row_store(gen *g, const tensor_ref *t, int base, int64_t n, int lane, const int *values) {
  for (int64_t m = 0; m < ceil_div(n, 32); ++m) {
    int c = addc(g, lane, 32 * m);
    bool whole = 32 * m + 31 < n;
    if (!whole)
      when_begin(g, cmpi(g, "slt", c, ci64(g, n), "i64"));
    store_f32(g, t, add(g, base, c), values[m]);
    if (!whole)
      when_end(g);
  }
}

static int lane_dot(gen *g, const int *a, const int *b, int64_t n) {
  int sum = fmul(g, a[0], b[0]);
  for (int64_t m = 1; m < ceil_div(n, 32); ++m)
    sum = fadd(g, sum, fmul(g, a[m], b[m]));
  return warp_combine(g, "arith.addf", sum);
}

/* Rows of up to 32 ROW_LANE_PARTS elements sit in the warp's registers in the warp-per-row templates:
 * each lane's parts are all loaded before the first is used, instead of one load per dependent loop
 * iteration (each of which waited for its load). Sums still run over c = lane, lane + 32, ... in order,
 * from +0, so the bits are those of the loop. */
#define ROW_LANE_PARTS 16
_Static_assert(ROW_LANE_PARTS >= MAX_LANE_PARTS, "lane_row's callers size their parts by either");

static bool row_in_lanes(int64_t d) { return ceil_div(d, 32) <= ROW_LANE_PARTS; }

/* +0 + terms[0] + terms[1] + ... over the lane's columns inside n (lane + 32 m < n). */
static int lane_sum(gen *g, const int *terms, int64_t n, int lane) {
  int sum = cf32(g, 0.0);
  for (int64_t m = 0; m < ceil_div(n, 32); ++m) {
    int next = fadd(g, sum, terms[m]);
    sum = 32 * m + 31 < n ? next : sel(g, cmpi(g, "slt", addc(g, lane, 32 * m), ci64(g, n), "i64"), next, sum, "f32");
  }
  return sum;
}

/* The sum of squares of a row held in the lanes' registers (lane_row's `v`), then the butterfly (the same
 * bits on every lane). */
static int lane_row_sum_of_squares(gen *g, const int *v, int64_t d, int lane) {
  int squares[ROW_LANE_PARTS];
  for (int64_t m = 0; m < ceil_div(d, 32); ++m)
    squares[m] = fmul(g, v[m], v[m]);
  return warp_combine(g, "arith.addf", lane_sum(g, squares, d, lane));
}

/* The sum of squares of row `base` (d elements) over a warp: lane l adds columns l, l + 32, ... (held in
 * registers when the row fits), then the butterfly (the same bits on every lane). */
static int warp_sum_of_squares(gen *g, const tensor_ref *x, int base, int64_t d, int lane) {
  if (row_in_lanes(d)) {
    int v[ROW_LANE_PARTS];
    lane_row(g, x, base, d, lane, v);
    return lane_row_sum_of_squares(g, v, d, lane);
  }
  int acc, result;
  int c = loop1_begin(g, lane, ci64(g, d), ci64(g, 32), cf32(g, 0.0), "f32", &acc, &result);
  int v = load_f32(g, x, add(g, base, c));
  loop1_end(g, fadd(g, acc, fmul(g, v, v)), "f32");
  return warp_combine(g, "arith.addf", result);
}

/* 1 / sqrt(mean(x^2) + eps) of a row, over a warp (the same code for rmsnorm_grad's dx and dw: bitwise
 * the same r). */
static int rms_inverse_of(gen *g, int sum_of_squares, int64_t d, double eps) {
  int mean = fdiv(g, sum_of_squares, cf32(g, (double)d));
  return fdiv(g, cf32(g, 1.0), op1(g, "math.sqrt", fadd(g, mean, cf32(g, eps)), "f32"));
}

static int warp_rms_inverse(gen *g, const tensor_ref *x, int base, int64_t d, double eps, int lane) {
  return rms_inverse_of(g, warp_sum_of_squares(g, x, base, d, lane), d, eps);
}

/* warp_rms_inverse of two rows, both rows' loads issued before either sum when a row fits the lanes (one
 * wait for memory instead of two); the same bits per row. */
static void warp_rms_inverse_pair(gen *g, const tensor_ref *x, const int base[2], int64_t d, double eps, int lane,
                                  int inverse[2]) {
  if (!row_in_lanes(d)) {
    for (int r = 0; r < 2; ++r)
      inverse[r] = warp_rms_inverse(g, x, base[r], d, eps, lane);
    return;
  }
  int v[2][ROW_LANE_PARTS];
  for (int r = 0; r < 2; ++r)
    lane_row(g, x, base[r], d, lane, v[r]);
  for (int r = 0; r < 2; ++r)
    inverse[r] = rms_inverse_of(g, lane_row_sum_of_squares(g, v[r], d, lane), d, eps);
}

/* A warp per row (tiles of LATCH_WARP_ROW_TILE rows, warp_rows_begin): rms = sqrt(mean(x^2) + eps); y = x / rms * w, lane l
 * writing columns l, l + 32, ... */
static void gen_rmsnorm(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0], *w = &io->in[1], *y = &io->out[0];
  int64_t d = last_dim(x);
  int row = warp_rows_begin(g, row_count(x));
  int lane = remc(g, g->tid, 32), base = mulc(g, row, d);
  if (row_in_lanes(d)) {
    int xs[ROW_LANE_PARTS], ws[ROW_LANE_PARTS], squares[ROW_LANE_PARTS], ys[ROW_LANE_PARTS];
    int64_t parts = ceil_div(d, 32);
    lane_row(g, x, base, d, lane, xs);
    lane_row(g, w, ci64(g, 0), d, lane, ws);
    for (int64_t m = 0; m < parts; ++m)
      squares[m] = fmul(g, xs[m], xs[m]);
    int mean = fdiv(g, warp_combine(g, "arith.addf", lane_sum(g, squares, d, lane)), cf32(g, (double)d));
    int rms = op1(g, "math.sqrt", fadd(g, mean, cf32(g, latch_rmsnorm_eps(op))), "f32");
    for (int64_t m = 0; m < parts; ++m)
      ys[m] = fmul(g, fdiv(g, xs[m], rms), ws[m]);
    lane_row_store(g, y, base, d, lane, ys);
    loop_end(g);
    loop_end(g);
    return;
  }
  int mean = fdiv(g, warp_sum_of_squares(g, x, base, d, lane), cf32(g, (double)d));
  int rms = op1(g, "math.sqrt", fadd(g, mean, cf32(g, latch_rmsnorm_eps(op))), "f32");
  int c = loop_begin(g, lane, ci64(g, d), ci64(g, 32));
  int index = add(g, base, c);
  store_f32(g, y, index, fmul(g, fdiv(g, load_f32(g, x, index), rms), load_f32(g, w, c)));
  loop_end(g);
  loop_end(g);
  loop_end(g);
}

/* max over c < n of x[base + c] (NaN-propagating), in fp32. */
static int row_max(gen *g, const tensor_ref *x, int base, int64_t n) {
  int acc, result;
  int c = loop1_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1), cf32(g, -INFINITY), "f32", &acc, &result);
  loop1_end(g, op2(g, "arith.maximumf", acc, load_f32(g, x, add(g, base, c)), "f32"), "f32");
  return result;
}

/* sum over c < n of exp(x[base + c] - max), increasing c. */
static int row_exp_sum(gen *g, const tensor_ref *x, int base, int64_t n, int max) {
  int acc, result;
  int c = loop1_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1), cf32(g, 0.0), "f32", &acc, &result);
  loop1_end(g, fadd(g, acc, fexp(g, fsub(g, load_f32(g, x, add(g, base, c)), max))), "f32");
  return result;
}

static void gen_softmax(gen *g, task_io *io) {
  const tensor_ref *x = &io->in[0], *y = &io->out[0];
  int64_t n = last_dim(x);
  int row = rows_begin(g, row_count(x));
  int base = mulc(g, row, n);
  int max = row_max(g, x, base, n);
  int sum = row_exp_sum(g, x, base, n, max);
  int c = loop_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1));
  int index = add(g, base, c);
  store_f32(g, y, index, fdiv(g, fexp(g, fsub(g, load_f32(g, x, index), max)), sum));
  loop_end(g);
  loop_end(g);
  loop_end(g);
}

/* dx = y (dy - sum(dy y)) per row. */
static void gen_softmax_grad(gen *g, task_io *io) {
  const tensor_ref *y = &io->in[0], *dy = &io->in[1], *dx = &io->out[0];
  int64_t n = last_dim(y);
  int row = rows_begin(g, row_count(y));
  int base = mulc(g, row, n);
  int total = dot(g, dy, base, y, base, n);
  int c = loop_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1));
  int index = add(g, base, c);
  store_f32(g, dx, index, fmul(g, load_f32(g, y, index), fsub(g, load_f32(g, dy, index), total)));
  loop_end(g);
  loop_end(g);
  loop_end(g);
}

/* The target of row `row`, clamped into [0, V) so that a bad target cannot read outside the row. */
static int target_of(gen *g, const tensor_ref *targets, int row, int64_t v) {
  int t = load_index(g, targets, row);
  return mini(g, maxi(g, t, ci64(g, 0)), ci64(g, v - 1));
}

/* loss = mean over n of (log(sum exp(l - max)) + max - l[t]). Tiles of LATCH_WARP_ROW_TILE rows: warp w
 * takes the tile's rows w, w + 8, ... (the row's statistics over its lanes,
 * warp_row_softmax_statistics), adding the row losses in order; thread 0 adds the 8 warp sums in warp order into the tile's partial sum. The partials meet in
 * task scratch: the last tile to arrive (task_scratch) has warp 0 add them, lane l taking partials l,
 * l + 32, ... in order and the lanes combined by the butterfly, and writes the loss. Deterministic: every
 * sum runs in a fixed order whatever the order of arrival. */
static void gen_cross_entropy(gen *g, task_io *io) {
  const tensor_ref *logits = &io->in[0], *targets = &io->in[1], *loss = &io->out[0];
  int64_t n = dim(logits, 0), v = dim(logits, 1), count = ceil_div(n, LATCH_WARP_ROW_TILE);
  int partials = task_scratch(g, "partials", count, "f32"), arrivals = task_scratch(g, "arrivals", 1, "i32");
  int zero = ci64(g, 0);
  int vt = tiles_begin(g, count);
  int lane = remc(g, g->tid, 32), warp = divc(g, g->tid, 32), warps = divc(g, g->ntid, 32);
  int first = mulc(g, vt, LATCH_WARP_ROW_TILE), last = mini(g, addc(g, first, LATCH_WARP_ROW_TILE), ci64(g, n));
  int acc, total;
  int row = loop1_begin(g, add(g, first, warp), last, warps, cf32(g, 0.0), "f32", &acc, &total);
  int base = mulc(g, row, v);
  int max, sum;
  warp_row_softmax_statistics(g, logits, base, v, &max, &sum);
  if (io->out_count > 1) { /* task.cross_entropy_with_stats: the row's (max, sum) for the gradient */
    when_begin(g, cmpi(g, "eq", lane, zero, "i64"));
    store_f32(g, &io->out[1], mulc(g, row, 2), max);
    store_f32(g, &io->out[1], addc(g, mulc(g, row, 2), 1), sum);
    when_end(g);
  }
  int target = load_f32(g, logits, add(g, base, target_of(g, targets, row, v)));
  int row_loss = fsub(g, fadd(g, op1(g, "math.log", sum, "f32"), max), target);
  loop1_end(g, fadd(g, acc, row_loss), "f32");
  sync_threads(g);
  when_begin(g, cmpi(g, "eq", lane, zero, "i64"));
  shared_store(g, warp, total);
  when_end(g);
  sync_threads(g);
  when_begin(g, cmpi(g, "eq", g->tid, zero, "i64"));
  {
    int sum_acc, sum_total;
    int w = loop1_begin(g, zero, warps, ci64(g, 1), cf32(g, 0.0), "f32", &sum_acc, &sum_total);
    loop1_end(g, fadd(g, sum_acc, shared_load(g, w)), "f32");
    global_store(g, scratch_address(g, partials, vt, "f32"), sum_total, "f32", 0);
  }
  when_end(g);
  int finishing = arrived_last(g, arrivals, count, ci64(g, WARPS));
  when_begin(g, op2(g, "arith.andi", finishing, cmpi(g, "eq", warp, zero, "i64"), "i1"));
  {
    int part_acc, part;
    int t = loop1_begin(g, lane, ci64(g, count), ci64(g, 32), cf32(g, 0.0), "f32", &part_acc, &part);
    loop1_end(g, fadd(g, part_acc, scratch_load_f32(g, scratch_address(g, partials, t, "f32"))), "f32");
    int all = warp_combine(g, "arith.addf", part);
    when_begin(g, cmpi(g, "eq", lane, zero, "i64"));
    store_f32(g, loss, zero, fdiv(g, all, cf32(g, (double)n)));
    reset_arrivals(g, scratch_address(g, arrivals, zero, "i32"));
    when_end(g);
  }
  when_end(g);
  sync_threads(g); /* the next tile of this CTA reuses the shared slots */
  loop_end(g);
}

/* dlogits = (softmax(logits) - onehot(target)) dloss / n, one warp per row (its lanes stride the row). */
static void gen_cross_entropy_grad(gen *g, task_io *io) {
  const tensor_ref *logits = &io->in[0], *targets = &io->in[1], *dloss = &io->in[2], *dlogits = &io->out[0];
  int64_t n = dim(logits, 0), v = dim(logits, 1);
  int row = warp_rows_begin(g, n);
  int scale = fdiv(g, load_f32(g, dloss, ci64(g, 0)), cf32(g, (double)n));
  int base = mulc(g, row, v);
  int target = load_index(g, targets, row);
  int max, sum;
  warp_row_softmax_statistics(g, logits, base, v, &max, &sum);
  /* SOFTMAX_GROUP columns per lane per step, their loads before their stores; then the tail */
  int lane = remc(g, g->tid, 32);
  int64_t step = 32 * SOFTMAX_GROUP, whole = v / step * step;
  for (int part = 0; part < 2; ++part) {
    int64_t lo = part ? whole : 0, hi = part ? v : whole, per_step = part ? 1 : SOFTMAX_GROUP;
    if (lo >= hi)
      continue;
    int c0 = loop_begin(g, addc(g, lane, lo), ci64(g, hi), ci64(g, part ? 32 : step));
    int column[SOFTMAX_GROUP], value[SOFTMAX_GROUP];
    for (int u = 0; u < per_step; ++u) {
      column[u] = addc(g, c0, 32 * u);
      value[u] = load_f32(g, logits, add(g, base, column[u]));
    }
    for (int u = 0; u < per_step; ++u) {
      int p = fdiv(g, fexp(g, fsub(g, value[u], max)), sum);
      p = sel(g, cmpi(g, "eq", column[u], target, "i64"), fsub(g, p, cf32(g, 1.0)), p, "f32");
      store_f32(g, dlogits, add(g, base, column[u]), fmul(g, p, scale));
    }
    loop_end(g);
  }
  loop_end(g);
  loop_end(g);
}

/* The gradient from the forward's statistics (task.cross_entropy_grad_from_stats): dlogits = (exp(l - max)
 * / sum - onehot(target)) dloss / n with each row's (max, sum) from stats, gen_cross_entropy_grad's
 * arithmetic (the same bits when the statistics are the forward's), element-wise tiles that read the
 * logits once: a unit of 4 consecutive elements of one row (one vector load and store) when the rows are
 * a multiple of 4 long, the logits f32 and both tensors 16-byte aligned, else one element. */
typedef struct softmax_rows {
  int64_t columns, width; /* V, and the elements per unit (1 or ELEMENTWISE_WIDTH) */
  int scale;              /* dloss / n */
} softmax_rows;

static void ce_grad_load(gen *g, const task_io *io, const void *context, int unit, int *values) {
  const softmax_rows *r = context;
  int first = mulc(g, unit, r->width), row = divc(g, first, r->columns);
  values[0] = r->width > 1 ? load_vector_as(g, &io->in[0], first, "vector<4xf32>") : load_f32(g, &io->in[0], first);
  values[1] = load_f32(g, &io->in[3], mulc(g, row, 2));
  values[2] = load_f32(g, &io->in[3], addc(g, mulc(g, row, 2), 1));
  values[3] = load_index(g, &io->in[1], row);
}

static void ce_grad_finish(gen *g, const task_io *io, const void *context, int unit, const int *values) {
  const softmax_rows *r = context;
  const tensor_ref *dlogits = &io->out[0];
  int first = mulc(g, unit, r->width), column0 = remc(g, first, r->columns), out = -1;
  const char *type = vector_type(dlogits->dt);
  if (r->width > 1) {
    out = fresh(g);
    ln(g, "%%v%d = llvm.mlir.poison : %s", out, type);
  }
  for (int64_t e = 0; e < r->width; ++e) {
    int value = values[0];
    if (r->width > 1) {
      value = fresh(g);
      ln(g, "%%v%d = llvm.extractelement %%v%d[%%v%d : i32] : vector<4xf32>", value, values[0], ci32(g, (int)e));
    }
    int p = fdiv(g, fexp(g, fsub(g, value, values[1])), values[2]);
    p = sel(g, cmpi(g, "eq", addc(g, column0, e), values[3], "i64"), fsub(g, p, cf32(g, 1.0)), p, "f32");
    p = fmul(g, p, r->scale);
    if (r->width == 1) {
      store_f32(g, dlogits, first, p);
      return;
    }
    int next = fresh(g);
    ln(g, "%%v%d = llvm.insertelement %%v%d, %%v%d[%%v%d : i32] : %s", next, f32_to_raw(g, dlogits->dt, p), out,
       ci32(g, (int)e), type);
    out = next;
  }
  store_aligned(g, dlogits, first, out, type, unit_bytes(dlogits));
}

static void gen_cross_entropy_grad_from_stats(gen *g, task_io *io) {
  const tensor_ref *logits = &io->in[0], *dlogits = &io->out[0];
  int64_t n = dim(logits, 0), v = dim(logits, 1);
  bool vector = g->l->vector_maps && v % ELEMENTWISE_WIDTH == 0 && logits->dt == DT_F32 &&
                dlogits->dt != DT_I32 && place_aligned(logits, 16) && place_aligned(dlogits, 16);
  softmax_rows r = {.columns = v, .width = vector ? ELEMENTWISE_WIDTH : 1};
  r.scale = fdiv(g, load_f32(g, &io->in[2], ci64(g, 0)), cf32(g, (double)n));
  if (vector)
    unit_tiles(g, io, &r, n * v / ELEMENTWISE_WIDTH, latch_elementwise_tile(n * v) / ELEMENTWISE_WIDTH,
               whole_group_unroll(latch_elementwise_tile(n * v) / ELEMENTWISE_WIDTH, 4), ce_grad_load, NULL,
               ce_grad_finish);
  else
    elementwise_tiles(g, io, &r, n * v, latch_elementwise_tile(n * v), 4, ce_grad_load, NULL, ce_grad_finish);
}

/* dx per row: r (g - xh mean(g xh)) with g = dy w, xh = x r. dw[c] = sum over rows of dy xh. Virtual
 * tiles: the (column tile of LATCH_NORM_DW_COLUMNS columns, chunk of latch_rmsnorm_grad_chunk_rows rows)
 * tiles of dw (dialects/schedule.h says why these sizes), then the row tiles of dx (latch_rmsnorm_grad_dx_rows
 * rows): the dw tiles take about twice as long, and numbered last they started last and ended their
 * intervals (TinyMoE 2x1024, H100, 2026-12-06: 10-11.6 us tiles started 11 us into a 14 us interval). A dw
 * tile computes r of its chunk's rows into shared memory (a warp per two rows, loaded together: a warp per
 * row waited for memory once per row, 8 times in a 64-row chunk); each thread then sums its column
 * over the chunk's rows in increasing order (blocks of NORM_DW_UNROLL rows with their loads issued
 * first, then the rest one by one) into the chunk's part, stored in task scratch. The last chunk tile of
 * a column tile to arrive (task_scratch) adds the parts in chunk order into dw (NORM_DW_UNROLL parts
 * loaded at a time). Every sum runs in a fixed order: deterministic. */
#define NORM_DW_UNROLL 16 /* rows (and parts) per thread whose loads a dw tile issues together */
_Static_assert(LATCH_NORM_DW_COLUMNS == CTA_THREADS, "a dw tile's thread sums one column");
_Static_assert(LATCH_NORM_DW_MAX_CHUNK_ROWS + 1 <= SHARED_FLOATS, "a chunk's inverse RMS and the flag fit @latch_smem");
static void gen_rmsnorm_grad(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0], *w = &io->in[1], *dy = &io->in[2], *dx = &io->out[0], *dw = &io->out[1];
  double eps = latch_rmsnorm_grad_eps(op);
  int64_t d = last_dim(x), rows = row_count(x);
  int64_t dx_rows = latch_rmsnorm_grad_dx_rows(rows, d);
  int64_t row_tiles = ceil_div(rows, dx_rows), column_tiles = ceil_div(d, LATCH_NORM_DW_COLUMNS);
  int64_t chunk_size = latch_rmsnorm_grad_chunk_rows(rows), chunks = ceil_div(rows, chunk_size);
  int partials = task_scratch(g, "partials", chunks * d, "f32");
  int arrivals = task_scratch(g, "arrivals", column_tiles, "i32");
  int zero = ci64(g, 0), lane = remc(g, g->tid, 32);
  int vt = tiles_begin(g, column_tiles * chunks + row_tiles);
  int dw_tile_count = ci64(g, column_tiles * chunks);
  when_begin(g, cmpi(g, "sge", vt, dw_tile_count, "i64"));
  {
    /* a warp per row of dx: lane l takes columns l, l + 32, ... */
    int row = warp_span_begin(g, sub(g, vt, dw_tile_count), dx_rows, rows);
    int base = mulc(g, row, d);
    if (row_in_lanes(d)) {
      int xs[ROW_LANE_PARTS], dys[ROW_LANE_PARTS], ws[ROW_LANE_PARTS], terms[ROW_LANE_PARTS];
      int gws[ROW_LANE_PARTS], dxs[ROW_LANE_PARTS];
      int64_t parts = ceil_div(d, 32);
      lane_row(g, x, base, d, lane, xs);
      lane_row(g, dy, base, d, lane, dys);
      lane_row(g, w, zero, d, lane, ws);
      for (int64_t m = 0; m < parts; ++m)
        terms[m] = fmul(g, xs[m], xs[m]);
      int mean_square = fdiv(g, warp_combine(g, "arith.addf", lane_sum(g, terms, d, lane)), cf32(g, (double)d));
      int r = fdiv(g, cf32(g, 1.0), op1(g, "math.sqrt", fadd(g, mean_square, cf32(g, eps)), "f32"));
      for (int64_t m = 0; m < parts; ++m) {
        gws[m] = fmul(g, dys[m], ws[m]);
        terms[m] = fmul(g, gws[m], fmul(g, xs[m], r));
      }
      int mean = fdiv(g, warp_combine(g, "arith.addf", lane_sum(g, terms, d, lane)), cf32(g, (double)d));
      for (int64_t m = 0; m < parts; ++m)
        dxs[m] = fmul(g, r, fsub(g, gws[m], fmul(g, fmul(g, xs[m], r), mean)));
      lane_row_store(g, dx, base, d, lane, dxs);
    } else {
      int r = warp_rms_inverse(g, x, base, d, eps, lane);
      int acc, total;
      int c = loop1_begin(g, lane, ci64(g, d), ci64(g, 32), cf32(g, 0.0), "f32", &acc, &total);
      int index = add(g, base, c);
      int gw = fmul(g, load_f32(g, dy, index), load_f32(g, w, c));
      loop1_end(g, fadd(g, acc, fmul(g, gw, fmul(g, load_f32(g, x, index), r))), "f32");
      int mean = fdiv(g, warp_combine(g, "arith.addf", total), cf32(g, (double)d));
      int c2 = loop_begin(g, lane, ci64(g, d), ci64(g, 32));
      int index2 = add(g, base, c2);
      int xh = fmul(g, load_f32(g, x, index2), r);
      int gw2 = fmul(g, load_f32(g, dy, index2), load_f32(g, w, c2));
      store_f32(g, dx, index2, fmul(g, r, fsub(g, gw2, fmul(g, xh, mean))));
      loop_end(g);
    }
    loop_end(g);
  }
  otherwise(g);
  {
    /* dw tile vt (column tile ct, chunk ch): this chunk's part of dw[ct's columns] into task scratch */
    int ct = divc(g, vt, chunks), ch = remc(g, vt, chunks);
    int column = add(g, mulc(g, ct, LATCH_NORM_DW_COLUMNS), g->tid);
    int column_inside = cmpi(g, "slt", column, ci64(g, d), "i64");
    int chunk = mulc(g, ch, chunk_size);
    int chunk_rows = mini(g, ci64(g, chunk_size), sub(g, ci64(g, rows), chunk));
    sync_threads(g);
    {
      /* the chunk's inverse RMS, a warp per pair of rows (the second clamped to the chunk's last row), into
       * shared memory */
      int pair = loop_begin(g, divc(g, g->tid, 32), divc(g, addc(g, chunk_rows, 1), 2), ci64(g, WARPS));
      int rr[2] = {mulc(g, pair, 2), 0}, base[2], inverse[2];
      rr[1] = mini(g, addc(g, rr[0], 1), addc(g, chunk_rows, -1));
      for (int r = 0; r < 2; ++r)
        base[r] = mulc(g, add(g, chunk, rr[r]), d);
      warp_rms_inverse_pair(g, x, base, d, eps, lane, inverse);
      when_begin(g, cmpi(g, "eq", lane, zero, "i64"));
      for (int r = 0; r < 2; ++r)
        shared_store(g, rr[r], inverse[r]);
      when_end(g);
      loop_end(g);
    }
    sync_threads(g);
    when_begin(g, column_inside);
    {
      /* the chunk's rows in order: blocks of NORM_DW_UNROLL rows with their loads issued first, then the
       * rest one by one */
      int full = mulc(g, divc(g, chunk_rows, NORM_DW_UNROLL), NORM_DW_UNROLL);
      int part, blocks_total;
      int b = loop1_begin(g, zero, full, ci64(g, NORM_DW_UNROLL), cf32(g, 0.0), "f32", &part, &blocks_total);
      {
        int xs[NORM_DW_UNROLL], dys[NORM_DW_UNROLL], inverse[NORM_DW_UNROLL];
        for (int u = 0; u < NORM_DW_UNROLL; ++u) {
          int rr = addc(g, b, u);
          int index = add(g, mulc(g, add(g, chunk, rr), d), column);
          xs[u] = load_f32(g, x, index);
          dys[u] = load_f32(g, dy, index);
          inverse[u] = shared_load(g, rr);
        }
        int sum = part;
        for (int u = 0; u < NORM_DW_UNROLL; ++u)
          sum = fadd(g, sum, fmul(g, dys[u], fmul(g, xs[u], inverse[u])));
        loop1_end(g, sum, "f32");
      }
      int rest, part_total;
      int rr = loop1_begin(g, full, chunk_rows, ci64(g, 1), blocks_total, "f32", &rest, &part_total);
      int index = add(g, mulc(g, add(g, chunk, rr), d), column);
      int xh = fmul(g, load_f32(g, x, index), shared_load(g, rr));
      loop1_end(g, fadd(g, rest, fmul(g, load_f32(g, dy, index), xh)), "f32");
      global_store(g, scratch_address(g, partials, add(g, mulc(g, ch, d), column), "f32"), part_total, "f32", 0);
      ln(g, "llvm.fence syncscope(\"device\") release");
    }
    when_end(g);
    int counter = scratch_address(g, arrivals, ct, "i32");
    int finishing = arrived_last(g, counter, chunks, ci64(g, chunk_size));
    when_begin(g, op2(g, "arith.andi", finishing, column_inside, "i1"));
    {
      /* the parts in chunk order, NORM_DW_UNROLL loaded at a time */
      int64_t full = chunks / NORM_DW_UNROLL * NORM_DW_UNROLL;
      int acc, total;
      int c = loop1_begin(g, zero, ci64(g, full), ci64(g, NORM_DW_UNROLL), cf32(g, 0.0), "f32", &acc, &total);
      int parts[NORM_DW_UNROLL];
      for (int u = 0; u < NORM_DW_UNROLL; ++u)
        parts[u] = scratch_load_f32(g, scratch_address(g, partials, add(g, mulc(g, addc(g, c, u), d), column), "f32"));
      int sum = acc;
      for (int u = 0; u < NORM_DW_UNROLL; ++u)
        sum = fadd(g, sum, parts[u]);
      loop1_end(g, sum, "f32");
      for (int64_t k = full; k < chunks; ++k)
        total = fadd(g, total, scratch_load_f32(g, scratch_address(g, partials, add(g, ci64(g, k * d), column), "f32")));
      store_f32(g, dw, column, total);
    }
    when_end(g);
    when_begin(g, op2(g, "arith.andi", finishing, cmpi(g, "eq", g->tid, zero, "i64"), "i1"));
    reset_arrivals(g, counter);
    when_end(g);
  }
  when_end(g);
  loop_end(g);
}

/* ---- rows copied by index: embedding, gather_rows; sums by index: scatter_add_rows, topk_grad ---- */

/* y[s, c] = table[ids[s], c] (0 for an id outside [0, V)); elementwise tiles (in[0] the table, in[1] the
 * ids). The load phase reads the id and the table element (at row 0 for an id outside). */
static void gather_load(gen *g, const task_io *io, const void *context, int i, int *values) {
  (void)context;
  const tensor_ref *table = &io->in[0], *ids = &io->in[1];
  int64_t v = dim(table, 0), d = dim(table, 1);
  int s = divc(g, i, d), c = remc(g, i, d);
  int id = load_index(g, ids, s);
  int zero = ci64(g, 0);
  int inside = op2(g, "arith.andi", cmpi(g, "sge", id, zero, "i64"), cmpi(g, "slt", id, ci64(g, v), "i64"), "i1");
  values[0] = load_raw(g, table, add(g, mulc(g, sel(g, inside, id, zero, "i64"), d), c));
  values[1] = inside;
}

static void gather_finish(gen *g, const task_io *io, const void *context, int i, const int *values) {
  (void)context;
  const tensor_ref *y = &io->out[0];
  store_raw(g, y, i, sel(g, values[1], values[0], cbits(g, y->dt, 0), dtype_name(y->dt)));
}

/* A vector of row id's row (zeros for an id outside the table, as gather_load). */
static int gather_vector_load(gen *g, const task_io *io, const void *context, int first) {
  (void)context;
  const tensor_ref *table = &io->in[0], *ids = &io->in[1];
  int64_t v = dim(table, 0), d = dim(table, 1);
  int id = load_index(g, ids, divc(g, first, d)), zero = ci64(g, 0);
  int inside = op2(g, "arith.andi", cmpi(g, "sge", id, zero, "i64"), cmpi(g, "slt", id, ci64(g, v), "i64"), "i1");
  int row = load_vector_as(g, table, add(g, mulc(g, sel(g, inside, id, zero, "i64"), d), remc(g, first, d)),
                           "vector<4xi32>");
  int zeros = fresh(g);
  ln(g, "%%v%d = llvm.mlir.zero : vector<4xi32>", zeros);
  return sel(g, inside, row, zeros, "vector<4xi32>");
}

static void gen_gather(gen *g, task_io *io) {
  int64_t per_vector = copy_vector_elements(&io->in[0], &io->out[0], dim(&io->in[0], 1));
  if (per_vector)
    vector_tiles(g, io, NULL, per_vector, "vector<4xi32>", gather_vector_load, copy_vector_store);
  else
    elementwise_tiles(g, io, NULL, io->out[0].elements, latch_elementwise_tile(io->out[0].elements), 2, gather_load,
                      NULL, gather_finish);
}

/* y[r, c] = sum over s with idx[s] = r of x[s, c], increasing s. With few sources (at most
 * LATCH_SCATTER_ELEMENTWISE_SOURCES) one y element per thread iteration tests them all (elementwise tiles).
 * Otherwise a tile owns latch_scatter_tile_rows(R) rows of y and reads the S indices once, 256 at a time:
 * the warps' ballots and their counts append the chunk's matches (s, local row) in increasing s to a
 * list in shared memory. When the list is nearly full, and after the last chunk, it is flushed: warp w
 * takes the tile's rows w, w + 8, ...; for each pass of SCATTER_LANE_COLUMNS columns per lane (lane l
 * owns columns l, l + 32, ...) it scans the list 32 entries at a time, and for each match of its row
 * (ballot, then the set bits in increasing lane order) adds row s of x into registers; the row is then
 * stored (the first flush starts from zero, a later one from what the first stored). So a tile reads the
 * S indices once (S x tiles index reads in all), each source row is read once by the
 * tile that owns its row, and every sum runs in increasing s: the bits of the definition's order. */
#define SCATTER_LANE_COLUMNS 8
#define SCATTER_LIST 4096                          /* shared words: s of each match, then its local row */
#define SCATTER_COUNTS (2 * SCATTER_LIST)          /* the match counts of each (round, warp) of a chunk */
#define SCATTER_ROUNDS 8                           /* a chunk: 8 rounds of 256 indices, loaded together */
_Static_assert(SCATTER_COUNTS + SCATTER_ROUNDS * WARPS <= SHARED_FLOATS, "the scatter tile fits @latch_smem");
_Static_assert(SCATTER_ROUNDS * CTA_THREADS <= SCATTER_LIST, "a chunk's matches fit an empty list");

/* The scatter's list flush (see gen_scatter_add_rows): `length` list entries, rows [r0, r0 + tile_rows). */
static void scatter_flush(gen *g, const tensor_ref *x, const tensor_ref *y, int64_t tile_rows, int r0, int length,
                          int first) {
  int64_t d = dim(x, 1), rows = dim(y, 0);
  int zero = ci64(g, 0), lane = remc(g, g->tid, 32), warp = divc(g, g->tid, 32);
  const char *f32s[SCATTER_LANE_COLUMNS + 1], *with_mask[SCATTER_LANE_COLUMNS + 1];
  for (int v = 0; v <= SCATTER_LANE_COLUMNS; ++v) {
    f32s[v] = "f32";
    with_mask[v] = v == 0 ? "i32" : "f32";
  }
  int local = loop_begin(g, warp, ci64(g, tile_rows), ci64(g, WARPS));
  int row = add(g, r0, local);
  when_begin(g, cmpi(g, "slt", row, ci64(g, rows), "i64"));
  int pass = loop_begin(g, zero, ci64(g, d), ci64(g, 32 * SCATTER_LANE_COLUMNS));
  int column[SCATTER_LANE_COLUMNS], inside[SCATTER_LANE_COLUMNS], init[SCATTER_LANE_COLUMNS];
  for (int v = 0; v < SCATTER_LANE_COLUMNS; ++v) {
    column[v] = add(g, pass, addc(g, lane, 32 * v));
    inside[v] = cmpi(g, "slt", column[v], ci64(g, d), "i64");
    /* what an earlier flush stored (this lane's own store), else zero */
    int earlier = load_f32_if(g, y, op2(g, "arith.andi", inside[v], not1(g, first), "i1"),
                              add(g, mulc(g, row, d), mini(g, column[v], ci64(g, d - 1))));
    init[v] = earlier;
  }
  int args[SCATTER_LANE_COLUMNS], sums[SCATTER_LANE_COLUMNS];
  int j = for_begin(g, zero, length, ci64(g, 32), SCATTER_LANE_COLUMNS, init, f32s, args, sums);
  {
    int e = add(g, j, lane);
    int present = cmpi(g, "slt", e, length, "i64");
    int safe = mini(g, e, ci64(g, SCATTER_LIST - 1));
    int entry_row = cast(g, "arith.extsi", shared_load_as(g, addc(g, safe, SCATTER_LIST), "i32"), "i32", "i64");
    int source = shared_load_as(g, safe, "i32");
    int hit = op2(g, "arith.andi", present, cmpi(g, "eq", entry_row, local, "i64"), "i1");
    int mask = warp_ballot(g, hit), matches = popc32(g, mask);
    int carried[SCATTER_LANE_COLUMNS + 1], inner[SCATTER_LANE_COLUMNS + 1], after[SCATTER_LANE_COLUMNS + 1];
    carried[0] = mask;
    for (int v = 0; v < SCATTER_LANE_COLUMNS; ++v)
      carried[v + 1] = args[v];
    for_begin(g, zero, cast(g, "arith.extui", matches, "i32", "i64"), ci64(g, 1), SCATTER_LANE_COLUMNS + 1, carried,
              with_mask, inner, after);
    {
      int bit = lowest_bit32(g, inner[0]), s_bits = fresh(g), valid = fresh(g);
      ln(g, "%%v%d, %%v%d = gpu.shuffle idx %%v%d, %%v%d, %%v%d : i32", s_bits, valid, source, bit, ci32(g, 32));
      int base = mulc(g, cast(g, "arith.extui", s_bits, "i32", "i64"), d);
      int next[SCATTER_LANE_COLUMNS + 1];
      next[0] = op2(g, "arith.andi", inner[0], op2(g, "arith.subi", inner[0], ci32(g, 1), "i32"), "i32");
      int loaded[SCATTER_LANE_COLUMNS];
      for (int v = 0; v < SCATTER_LANE_COLUMNS; ++v)
        loaded[v] = load_f32_if(g, x, inside[v], add(g, base, mini(g, column[v], ci64(g, d - 1))));
      for (int v = 0; v < SCATTER_LANE_COLUMNS; ++v)
        next[v + 1] = fadd(g, inner[v + 1], loaded[v]);
      for_end(g, SCATTER_LANE_COLUMNS + 1, next, with_mask);
    }
    for_end(g, SCATTER_LANE_COLUMNS, after + 1, f32s);
  }
  for (int v = 0; v < SCATTER_LANE_COLUMNS; ++v) {
    when_begin(g, inside[v]);
    store_f32(g, y, add(g, mulc(g, row, d), column[v]), sums[v]);
    when_end(g);
  }
  loop_end(g);
  when_end(g);
  loop_end(g);
}

/* The few-sources form: element i = (r, c) of y sums x[s, c] over the s with idx[s] = r, increasing s
 * (the loads and the sum are the load phase; elementwise tiles). */
static void scatter_few_load(gen *g, const task_io *io, const void *context, int i, int *values) {
  (void)context;
  const tensor_ref *x = &io->in[0], *idx = &io->in[1];
  int64_t s_count = dim(x, 0), d = dim(x, 1);
  int r = divc(g, i, d), c = remc(g, i, d);
  int acc, total;
  int s = loop1_begin(g, ci64(g, 0), ci64(g, s_count), ci64(g, 1), cf32(g, 0.0), "f32", &acc, &total);
  int hit = cmpi(g, "eq", load_index(g, idx, s), r, "i64");
  loop1_end(g, sel(g, hit, fadd(g, acc, load_f32(g, x, add(g, mulc(g, s, d), c))), acc, "f32"), "f32");
  values[0] = total;
}

static void scatter_few_finish(gen *g, const task_io *io, const void *context, int i, const int *values) {
  (void)context;
  store_f32(g, &io->out[0], i, values[0]);
}

static void gen_scatter_add_rows(gen *g, task_io *io) {
  const tensor_ref *x = &io->in[0], *idx = &io->in[1], *y = &io->out[0];
  int64_t s_count = dim(x, 0), rows = dim(y, 0);
  if (s_count <= LATCH_SCATTER_ELEMENTWISE_SOURCES) {
    elementwise_tiles(g, io, NULL, y->elements, latch_elementwise_tile(y->elements), 1, scatter_few_load, NULL,
                      scatter_few_finish);
    return;
  }
  int zero = ci64(g, 0);
  int lane = remc(g, g->tid, 32), warp = divc(g, g->tid, 32);
  int64_t tile_rows = latch_scatter_tile_rows(rows);
  int vt = tiles_begin(g, ceil_div(rows, tile_rows));
  int r0 = mulc(g, vt, tile_rows);
  const char *i64s[2] = {"i64", "i64"};
  int start[2] = {zero, ci64(g, 1)}, state[2], final_state[2]; /* list length, first flush still to come */
  int64_t chunk = (int64_t)SCATTER_ROUNDS * CTA_THREADS;
  int s0 = for_begin(g, zero, ci64(g, s_count), ci64(g, chunk), 2, start, i64s, state, final_state);
  {
    /* a chunk of SCATTER_ROUNDS x 256 indices, all loaded first; round u's s = s0 + 256 u + tid, so
     * matches placed by (round, warp, lane) are in increasing s */
    int length = state[0], first = cmpi(g, "ne", state[1], zero, "i64");
    int s[SCATTER_ROUNDS], local[SCATTER_ROUNDS], hit[SCATTER_ROUNDS], count[SCATTER_ROUNDS], before[SCATTER_ROUNDS];
    for (int u = 0; u < SCATTER_ROUNDS; ++u) {
      s[u] = add(g, addc(g, s0, (int64_t)u * CTA_THREADS), g->tid);
      local[u] = sub(g, load_index(g, idx, mini(g, s[u], ci64(g, s_count - 1))), r0);
    }
    int below = lanes_below(g, lane);
    for (int u = 0; u < SCATTER_ROUNDS; ++u) {
      hit[u] = op2(g, "arith.andi", cmpi(g, "slt", s[u], ci64(g, s_count), "i64"),
                   op2(g, "arith.andi", cmpi(g, "sge", local[u], zero, "i64"),
                       cmpi(g, "slt", local[u], ci64(g, tile_rows), "i64"), "i1"), "i1");
      int mask = warp_ballot(g, hit[u]);
      count[u] = popc32(g, mask);
      before[u] = popc32(g, op2(g, "arith.andi", mask, below, "i32"));
    }
    sync_threads(g); /* the previous chunk's counts are read */
    when_begin(g, cmpi(g, "eq", lane, zero, "i64"));
    for (int u = 0; u < SCATTER_ROUNDS; ++u)
      shared_store_as(g, addc(g, warp, SCATTER_COUNTS + (int64_t)u * WARPS), count[u], "i32");
    when_end(g);
    sync_threads(g);
    /* round u's match goes after the list so far, the chunk's earlier rounds, this round's warps before,
     * then the lanes before */
    int total = zero;
    for (int u = 0; u < SCATTER_ROUNDS; ++u) {
      int round_start = add(g, length, total), warps_before = zero;
      for (int w = 0; w < WARPS; ++w) {
        int word = ci64(g, SCATTER_COUNTS + (int64_t)u * WARPS + w);
        int n = cast(g, "arith.extui", shared_load_as(g, word, "i32"), "i32", "i64");
        warps_before = add(g, warps_before, sel(g, cmpi(g, "slt", ci64(g, w), warp, "i64"), n, zero, "i64"));
        total = add(g, total, n);
      }
      when_begin(g, hit[u]);
      int place = add(g, add(g, round_start, warps_before), cast(g, "arith.extui", before[u], "i32", "i64"));
      shared_store_as(g, place, cast(g, "arith.trunci", s[u], "i64", "i32"), "i32");
      shared_store_as(g, addc(g, place, SCATTER_LIST), cast(g, "arith.trunci", local[u], "i64", "i32"), "i32");
      when_end(g);
    }
    sync_threads(g);
    int grown = add(g, length, total);
    int last = cmpi(g, "sge", addc(g, s0, chunk), ci64(g, s_count), "i64");
    int full = cmpi(g, "sgt", addc(g, grown, chunk), ci64(g, SCATTER_LIST), "i64");
    int next[2];
    if_begin(g, op2(g, "arith.ori", last, full, "i1"), 2, i64s, next);
    scatter_flush(g, x, y, tile_rows, r0, grown, first);
    sync_threads(g); /* the list is read before the next chunk refills it */
    int flushed[2] = {zero, zero};
    if_else(g, 2, flushed, i64s);
    int kept[2] = {grown, state[1]};
    if_end(g, 2, kept, i64s);
    for_end(g, 2, next, i64s);
  }
  loop_end(g);
}

/* dx[n, c] = sum over j with indices[n, j] = c of dvalues[n, j] (0 if none), increasing j. */
static void gen_topk_grad(gen *g, task_io *io) {
  const tensor_ref *dvalues = &io->in[0], *indices = &io->in[1], *dx = &io->out[0];
  int64_t k = dim(dvalues, 1), columns = dim(dx, 1);
  int vt = tiles_begin(g, ceil_div(dim(dx, 0), ROW_TILE));
  int e = span_begin(g, vt, ROW_TILE * columns, dx->elements);
  int row = divc(g, e, columns), c = remc(g, e, columns);
  int base = mulc(g, row, k);
  int acc, total;
  int j = loop1_begin(g, ci64(g, 0), ci64(g, k), ci64(g, 1), cf32(g, 0.0), "f32", &acc, &total);
  int index = add(g, base, j);
  int hit = cmpi(g, "eq", load_index(g, indices, index), c, "i64");
  loop1_end(g, sel(g, hit, fadd(g, acc, load_f32(g, dvalues, index)), acc, "f32"), "f32");
  store_f32(g, dx, e, total);
  loop_end(g);
  loop_end(g);
}

/* ---- rotary embedding ---- */

/* f = theta^(-2 i / hd) for i < hd / 2 by a choice among constants that the host's pow computed as
 * latch-interp does: no libdevice pow call in the tile (a call ahead of the loads held them back). */
static int rope_frequency(gen *g, int i, double theta, int64_t hd) {
  int f = cf64(g, 1.0); /* i = 0 */
  for (int64_t k = 1; k < hd / 2; ++k)
    f = sel(g, cmpi(g, "eq", i, ci64(g, k), "i64"), cf64(g, pow(theta, -2.0 * (double)k / (double)hd)), f, "f64");
  return f;
}

/* y[..i] = x[i] cos a - x[i+h] sin a, y[..i+h] = x[i+h] cos a + x[i] sin a with a = t theta^(-2i/hd) (the
 * angle, its cosine and sine in fp64); the gradient uses the angle -a. Tiles of 64 rows of [B*T*H, hd].
 * The angle depends on the position and i only, so a thread takes one (position, i) of the tile at a
 * time and rotates that pair in each of the position's heads in the tile: one fp64 cosine and sine per
 * H pairs (fp64 is slow on the GPU; per pair they made rope a fifth of the memory bandwidth). The heads'
 * pairs are loaded ROPE_HEADS_IN_FLIGHT at a time, the first of them before the angle, so that the
 * loads' latency overlaps the angle's. */
#define ROPE_HEADS_IN_FLIGHT 8
static void gen_rope(gen *g, const tensor_ref *x, const tensor_ref *y, double theta, bool inverse) {
  int64_t t_count = dim(x, 1), heads = dim(x, 2), hd = dim(x, 3), half = hd / 2;
  int64_t rows = row_count(x);
  int vt = tiles_begin(g, ceil_div(rows, ROW_TILE));
  int lo = mulc(g, vt, ROW_TILE), hi = mini(g, addc(g, lo, ROW_TILE), ci64(g, rows));
  int first_position = divc(g, lo, heads), end_position = divc(g, addc(g, hi, heads - 1), heads);
  int e = loop_begin(g, add(g, mulc(g, first_position, half), g->tid), mulc(g, end_position, half), g->ntid);
  int position = divc(g, e, half), i = remc(g, e, half);
  int t = remc(g, position, t_count);
  bool straddles = ROW_TILE % heads != 0; /* then a tile's first and last positions have heads in others */
  int cosine = -1, sine = -1;
  for (int64_t h0 = 0; h0 < heads; h0 += ROPE_HEADS_IN_FLIGHT) {
    int64_t count = heads - h0 < ROPE_HEADS_IN_FLIGHT ? heads - h0 : ROPE_HEADS_IN_FLIGHT;
    int first[ROPE_HEADS_IN_FLIGHT], second[ROPE_HEADS_IN_FLIGHT], valid[ROPE_HEADS_IN_FLIGHT];
    int a[ROPE_HEADS_IN_FLIGHT], b[ROPE_HEADS_IN_FLIGHT];
    for (int64_t h = 0; h < count; ++h) {
      int row = addc(g, mulc(g, position, heads), h0 + h);
      first[h] = add(g, mulc(g, row, hd), i);
      second[h] = addc(g, first[h], half);
      valid[h] = straddles ? in_range(g, row, lo, hi) : -1;
      a[h] = straddles ? load_f32_if(g, x, valid[h], first[h]) : load_f32(g, x, first[h]);
      b[h] = straddles ? load_f32_if(g, x, valid[h], second[h]) : load_f32(g, x, second[h]);
    }
    if (cosine < 0) { /* a = t f */
      int angle = op2(g, "arith.mulf", i64_to_f64(g, t), rope_frequency(g, i, theta, hd), "f64");
      cosine = cast(g, "arith.truncf", op1(g, "math.cos", angle, "f64"), "f64", "f32");
      sine = cast(g, "arith.truncf", op1(g, "math.sin", angle, "f64"), "f64", "f32");
    }
    for (int64_t h = 0; h < count; ++h) {
      if (straddles)
        when_begin(g, valid[h]);
      if (!inverse) {
        store_f32(g, y, first[h], fsub(g, fmul(g, a[h], cosine), fmul(g, b[h], sine)));
        store_f32(g, y, second[h], fadd(g, fmul(g, b[h], cosine), fmul(g, a[h], sine)));
      } else {
        store_f32(g, y, first[h], fadd(g, fmul(g, a[h], cosine), fmul(g, b[h], sine)));
        store_f32(g, y, second[h], fsub(g, fmul(g, b[h], cosine), fmul(g, a[h], sine)));
      }
      if (straddles)
        when_end(g);
    }
  }
  loop_end(g);
  loop_end(g);
}

/* ---- attention ---- */

/* One step of the online softmax over increasing keys, with score s: m' = max(m, s), the rescale
 * exp(m - m') of what was summed so far, p = exp(s - m'), l' = l exp(m - m') + p. */
typedef struct softmax_step {
  int max, correction, p, sum;
} softmax_step;

static softmax_step online_softmax_step(gen *g, int max, int sum, int s) {
  softmax_step r;
  r.max = op2(g, "arith.maximumf", max, s, "f32");
  r.correction = fexp(g, fsub(g, max, r.max));
  r.p = fexp(g, fsub(g, s, r.max));
  r.sum = fadd(g, fmul(g, sum, r.correction), r.p);
  return r;
}

/* o = softmax(q k^T scale) v per (b, h), online softmax per query row (one row per thread iteration, its
 * output accumulator in local memory). Tiles: (b, h, block of 128 queries). */
static void gen_attention_rows(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *q = &io->in[0], *k = &io->in[1], *v = &io->in[2], *o = &io->out[0];
  bool causal = latch_attention_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hd = dim(q, 3), tk = dim(k, 2), hdv = dim(v, 3);
  int accumulator = local_array(g, hdv);
  int scale = cf32(g, latch_attention_scale(op));
  int64_t blocks = ceil_div(tq, ATTENTION_TILE);
  int vt = tiles_begin(g, bh_count * blocks);
  int bh = divc(g, vt, blocks), block = remc(g, vt, blocks);
  int first = mulc(g, block, ATTENTION_TILE);
  int last = mini(g, addc(g, first, ATTENTION_TILE), ci64(g, tq));
  int i = threads_begin(g, first, last);
  int q_base = mulc(g, add(g, mulc(g, bh, tq), i), hd);
  int k_base = mulc(g, bh, tk * hd), v_base = mulc(g, bh, tk * hdv);
  int keys = causal ? addc(g, i, 1) : ci64(g, tk);
  local_fill(g, accumulator, hdv, cf32(g, 0.0));
  /* online softmax: m, l carried; acc = acc * exp(m - m') + exp(s - m') v[j] */
  const char *types[2] = {"f32", "f32"};
  int init[2] = {cf32(g, -INFINITY), cf32(g, 0.0)}, args[2], results[2];
  int j = for_begin(g, ci64(g, 0), keys, ci64(g, 1), 2, init, types, args, results);
  int s = fmul(g, dot(g, q, q_base, k, add(g, k_base, mulc(g, j, hd)), hd), scale);
  softmax_step step = online_softmax_step(g, args[0], args[1], s);
  int v_row = add(g, v_base, mulc(g, j, hdv));
  int c = loop_begin(g, ci64(g, 0), ci64(g, hdv), ci64(g, 1));
  int updated = fadd(g, fmul(g, local_load(g, accumulator, c), step.correction),
                     fmul(g, step.p, load_f32(g, v, add(g, v_row, c))));
  local_store(g, accumulator, c, updated);
  loop_end(g);
  int next[2] = {step.max, step.sum};
  for_end(g, 2, next, types);
  if (io->out_count > 1) /* task.attention_lse */
    store_f32(g, &io->out[1], add(g, mulc(g, bh, tq), i), fadd(g, results[0], op1(g, "math.log", results[1], "f32")));
  int o_base = mulc(g, add(g, mulc(g, bh, tq), i), hdv);
  int c2 = loop_begin(g, ci64(g, 0), ci64(g, hdv), ci64(g, 1));
  store_f32(g, o, add(g, o_base, c2), fdiv(g, local_load(g, accumulator, c2), results[1]));
  loop_end(g);
  loop_end(g);
  loop_end(g);
}

/* With P = softmax(S), S = q k^T scale (masked): dq = dS k scale per query row i, dk = dS^T q scale and
 * dv = P^T do per key row j, dS = P (dP - D), dP = do v^T, D = rowsum(do o). Virtual tile (b, h, block):
 * the 128 query rows and the 128 key rows of the block, one per thread (the CTA's 256 threads), with
 * accumulators in local memory. The tile first computes, for the query rows that its key rows see (in
 * chunks of STATS_CHUNK rows), each row's log-sum-exp L (online, keys increasing) and D into shared
 * memory, so that P[i, j] = exp(S[i, j] - L[i]) costs one dot product: O(T hd) per row instead of
 * recomputing every query row's statistics per key row. No atomics. */
#define STATS_CHUNK 2048 /* query rows whose (L, D) sit in shared memory at once: 16 KiB */
_Static_assert(2 * STATS_CHUNK <= SHARED_FLOATS, "L and D of a chunk fit @latch_smem");
static void gen_attention_grad_rows(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *q = &io->in[0], *k = &io->in[1], *v = &io->in[2], *o = &io->in[3], *d_o = &io->in[4];
  const tensor_ref *dq = &io->out[0], *dk = &io->out[1], *dv = &io->out[2];
  bool causal = latch_attention_grad_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hd = dim(q, 3), tk = dim(k, 2), hdv = dim(v, 3);
  int acc_a = local_array(g, hd), acc_b = local_array(g, hdv);
  int scale = cf32(g, latch_attention_grad_scale(op));
  int64_t q_blocks = ceil_div(tq, ATTENTION_TILE), k_blocks = ceil_div(tk, ATTENTION_TILE);
  int64_t blocks = q_blocks > k_blocks ? q_blocks : k_blocks;
  int vt = tiles_begin(g, bh_count * blocks);
  int bh = divc(g, vt, blocks), block = remc(g, vt, blocks);
  int first = mulc(g, block, ATTENTION_TILE);
  int zero = ci64(g, 0);
  int q_rows = maxi(g, sub(g, mini(g, addc(g, first, ATTENTION_TILE), ci64(g, tq)), first), zero);
  int k_rows = maxi(g, sub(g, mini(g, addc(g, first, ATTENTION_TILE), ci64(g, tk)), first), zero);
  int q_head = mulc(g, bh, tq * hd), k_head = mulc(g, bh, tk * hd);
  int v_head = mulc(g, bh, tk * hdv), o_head = mulc(g, bh, tq * hdv);
  int w = g->tid;
  int is_query = cmpi(g, "slt", w, q_rows, "i64");
  int is_key = op2(g, "arith.andi", not1(g, is_query), cmpi(g, "slt", w, add(g, q_rows, k_rows), "i64"), "i1");
  int i_own = add(g, first, w), j_own = add(g, first, sub(g, w, q_rows));
  local_fill(g, acc_a, hd, cf32(g, 0.0));
  local_fill(g, acc_b, hdv, cf32(g, 0.0));
  /* Causal: the key rows j >= first are seen by the queries i >= j, so the rows from `first` on. */
  int chunk = loop_begin(g, causal ? first : zero, ci64(g, tq), ci64(g, STATS_CHUNK));
  int chunk_end = mini(g, addc(g, chunk, STATS_CHUNK), ci64(g, tq));
  sync_threads(g);
  {
    /* L[i] and D[i] of the chunk's rows, one row per thread iteration */
    int i = threads_begin(g, chunk, chunk_end);
    int q_base = add(g, q_head, mulc(g, i, hd)), o_row = add(g, o_head, mulc(g, i, hdv));
    int keys = causal ? addc(g, i, 1) : ci64(g, tk);
    const char *types[2] = {"f32", "f32"};
    int init[2] = {cf32(g, -INFINITY), cf32(g, 0.0)}, args[2], results[2];
    int j = for_begin(g, zero, keys, ci64(g, 1), 2, init, types, args, results);
    int s = fmul(g, dot(g, q, q_base, k, add(g, k_head, mulc(g, j, hd)), hd), scale);
    softmax_step step = online_softmax_step(g, args[0], args[1], s);
    int next[2] = {step.max, step.sum};
    for_end(g, 2, next, types);
    int lse = fadd(g, results[0], op1(g, "math.log", results[1], "f32"));
    int local = sub(g, i, chunk);
    shared_store(g, local, lse);
    shared_store(g, addc(g, local, STATS_CHUNK), dot(g, d_o, o_row, o, o_row, hdv));
    loop_end(g);
  }
  sync_threads(g);
  int own_in_chunk = op2(g, "arith.andi", cmpi(g, "sge", i_own, chunk, "i64"), cmpi(g, "slt", i_own, chunk_end, "i64"),
                         "i1");
  when_begin(g, op2(g, "arith.andi", is_query, own_in_chunk, "i1"));
  {
    /* query row i: dq[i] = sum_j dS[i, j] k[j] scale, keys increasing */
    int i = i_own;
    int q_base = add(g, q_head, mulc(g, i, hd)), o_row = add(g, o_head, mulc(g, i, hdv));
    int keys = causal ? addc(g, i, 1) : ci64(g, tk);
    int local = sub(g, i, chunk);
    int lse = shared_load(g, local), row_dot = shared_load(g, addc(g, local, STATS_CHUNK));
    int j = loop_begin(g, zero, keys, ci64(g, 1));
    int k_row = add(g, k_head, mulc(g, j, hd));
    int p = fexp(g, fsub(g, fmul(g, dot(g, q, q_base, k, k_row, hd), scale), lse));
    int dp = dot(g, d_o, o_row, v, add(g, v_head, mulc(g, j, hdv)), hdv);
    int ds = fmul(g, p, fsub(g, dp, row_dot));
    int c = loop_begin(g, zero, ci64(g, hd), ci64(g, 1));
    int term = fmul(g, fmul(g, ds, load_f32(g, k, add(g, k_row, c))), scale);
    local_store(g, acc_a, c, fadd(g, local_load(g, acc_a, c), term));
    loop_end(g);
    loop_end(g);
    int c2 = loop_begin(g, zero, ci64(g, hd), ci64(g, 1));
    store_f32(g, dq, add(g, q_base, c2), local_load(g, acc_a, c2));
    loop_end(g);
  }
  when_end(g);
  when_begin(g, is_key);
  {
    /* key row j: dv[j] += P[i, j] do[i], dk[j] += dS[i, j] q[i] scale over the chunk's queries that see
     * key j (i >= j when causal), increasing i */
    int j = j_own;
    int k_row = add(g, k_head, mulc(g, j, hd)), v_row = add(g, v_head, mulc(g, j, hdv));
    int i = loop_begin(g, causal ? maxi(g, chunk, j) : chunk, chunk_end, ci64(g, 1));
    int q_base = add(g, q_head, mulc(g, i, hd)), o_row = add(g, o_head, mulc(g, i, hdv));
    int local = sub(g, i, chunk);
    int lse = shared_load(g, local), row_dot = shared_load(g, addc(g, local, STATS_CHUNK));
    int p = fexp(g, fsub(g, fmul(g, dot(g, q, q_base, k, k_row, hd), scale), lse));
    int dp = dot(g, d_o, o_row, v, v_row, hdv);
    int ds = fmul(g, p, fsub(g, dp, row_dot));
    int c = loop_begin(g, zero, ci64(g, hdv), ci64(g, 1));
    local_store(g, acc_b, c, fadd(g, local_load(g, acc_b, c), fmul(g, p, load_f32(g, d_o, add(g, o_row, c)))));
    loop_end(g);
    int c2 = loop_begin(g, zero, ci64(g, hd), ci64(g, 1));
    int term = fmul(g, fmul(g, ds, load_f32(g, q, add(g, q_base, c2))), scale);
    local_store(g, acc_a, c2, fadd(g, local_load(g, acc_a, c2), term));
    loop_end(g);
    loop_end(g);
  }
  when_end(g);
  loop_end(g);
  when_begin(g, is_key);
  {
    int k_row = add(g, k_head, mulc(g, j_own, hd)), v_row = add(g, v_head, mulc(g, j_own, hdv));
    int c3 = loop_begin(g, zero, ci64(g, hd), ci64(g, 1));
    store_f32(g, dk, add(g, k_row, c3), local_load(g, acc_a, c3));
    loop_end(g);
    int c4 = loop_begin(g, zero, ci64(g, hdv), ci64(g, 1));
    store_f32(g, dv, add(g, v_row, c4), local_load(g, acc_b, c4));
    loop_end(g);
  }
  when_end(g);
  loop_end(g);
}

/* ---- attention, one warp per row ----
 * A warp owns a row (a query row, or a key row of the gradient); lane l holds elements l, l + 32, ... of
 * the row's vectors in registers (LANE_PARTS of them), so every row load is coalesced, and a dot product
 * is the lanes' partial sums combined by the xor butterfly (warp_combine: the same bits on every lane,
 * so the online-softmax state and the branch conditions stay uniform across the warp). Heads wider than
 * 32 x MAX_LANE_PARTS use the one-row-per-thread templates above. */
/* Balanced attention rows: a (b, h) pair's T rows are cut into P = ceil(T / ATTENTION_ROWS) virtual
 * tiles that interleave, tile t taking rows t, t + P, t + 2P, ... (slots 0..63), so that under a causal
 * mask, where row i costs i + 1 keys, every tile has about the same work. Inside a tile warp w takes the
 * slots w, 15 - w, 16 + w, 31 - w, ... (a zigzag over the 8 rounds of 8 slots), which evens out the
 * warps too. For virtual tile `vt` of attention_row_tiles(bh_count, total): returns the row (the code
 * that follows runs only below `total`); `bh` gets the (b, h) index. Close with attention_row_end. */
#define ATTENTION_ROWS 64
#define ATTENTION_ROUNDS (ATTENTION_ROWS / WARPS)
static int attention_row_begin(gen *g, int vt, int64_t total, int *bh) {
  int64_t per_head = ceil_div(total, ATTENTION_ROWS);
  *bh = divc(g, vt, per_head);
  int t = remc(g, vt, per_head);
  int warp = divc(g, g->tid, 32);
  int round = loop_begin(g, ci64(g, 0), ci64(g, ATTENTION_ROUNDS), ci64(g, 1));
  int odd = cmpi(g, "ne", remc(g, round, 2), ci64(g, 0), "i64");
  int slot = add(g, mulc(g, round, WARPS), sel(g, odd, sub(g, ci64(g, WARPS - 1), warp), warp, "i64"));
  int row = add(g, t, mulc(g, slot, per_head));
  when_begin(g, cmpi(g, "slt", row, ci64(g, total), "i64"));
  return row;
}

static void attention_row_end(gen *g) {
  when_end(g);
  loop_end(g);
}

/* The tile count of attention_row_begin (also dialects/schedule.c's rule for attention). */
static int64_t attention_row_tiles(int64_t bh_count, int64_t total) {
  return bh_count * ceil_div(total, ATTENTION_ROWS);
}

/* One step of a loop over rows j (keys of a query row, or queries of a key row) that carries `n` f32 values:
 * reads args, writes next. */
typedef void (*row_step_fn)(gen *g, const void *ctx, int j, const int *args, int *next);

/* for j in [lo, hi) in increasing order: step(j) with n carried values, two steps per iteration and the odd
 * one after the loop. The second step's loads and dot products do not wait for the first step's results,
 * so a warp keeps twice the loads and shuffles in flight; the arithmetic and its order are those of one
 * step per iteration (the same bits). */
static void row_loop(gen *g, int lo, int hi, int n, const int *init, int *results, row_step_fn step, const void *ctx) {
  int count = maxi(g, sub(g, hi, lo), ci64(g, 0));
  int pairs_end = add(g, lo, mulc(g, divc(g, count, 2), 2));
  int args[2 + 2 * MAX_LANE_PARTS], after_pairs[2 + 2 * MAX_LANE_PARTS];
  int middle[2 + 2 * MAX_LANE_PARTS], next[2 + 2 * MAX_LANE_PARTS];
  int j = for_begin(g, lo, pairs_end, ci64(g, 2), n, init, f32_types, args, after_pairs);
  step(g, ctx, j, args, middle);
  step(g, ctx, addc(g, j, 1), middle, next);
  for_end(g, n, next, f32_types);
  if_begin(g, cmpi(g, "slt", pairs_end, hi, "i64"), n, f32_types, results);
  step(g, ctx, pairs_end, after_pairs, next);
  if_else(g, n, next, f32_types);
  if_end(g, n, after_pairs, f32_types);
}

/* What the attention row steps read: the row's own vectors in lanes, the other side's tensors and heads. */
typedef struct attention_row {
  const tensor_ref *k, *v, *q, *d_o, *stats; /* the tensors a step loads rows of */
  int k_head, v_head, q_head, o_head, stats_head; /* element offsets of the (b, h) head */
  int64_t hd, hdv, pq, pv;
  int lane, scale;
  int qv[MAX_LANE_PARTS], dov[MAX_LANE_PARTS], kv[MAX_LANE_PARTS], vv[MAX_LANE_PARTS]; /* the own row */
  int lse, row_dot; /* of the own query row */
} attention_row;

/* Forward, key j of a query row: carried (m, l, acc[pv]); s = q . k[j] scale, online softmax, acc = acc
 * exp(m - m') + p v[j]. */
static void attention_forward_step(gen *g, const void *ctx, int j, const int *args, int *next) {
  const attention_row *r = ctx;
  int kv[MAX_LANE_PARTS], vv[MAX_LANE_PARTS];
  lane_row(g, r->k, add(g, r->k_head, mulc(g, j, r->hd)), r->hd, r->lane, kv);
  softmax_step step = online_softmax_step(g, args[0], args[1], fmul(g, lane_dot(g, r->qv, kv, r->hd), r->scale));
  next[0] = step.max;
  next[1] = step.sum;
  lane_row(g, r->v, add(g, r->v_head, mulc(g, j, r->hdv)), r->hdv, r->lane, vv);
  for (int64_t m = 0; m < r->pv; ++m)
    next[2 + m] = fadd(g, fmul(g, args[2 + m], step.correction), fmul(g, step.p, vv[m]));
}

/* Statistics, key j of a query row: carried (m, l). */
static void attention_stats_step(gen *g, const void *ctx, int j, const int *args, int *next) {
  const attention_row *r = ctx;
  int kv[MAX_LANE_PARTS];
  lane_row(g, r->k, add(g, r->k_head, mulc(g, j, r->hd)), r->hd, r->lane, kv);
  softmax_step step = online_softmax_step(g, args[0], args[1], fmul(g, lane_dot(g, r->qv, kv, r->hd), r->scale));
  next[0] = step.max;
  next[1] = step.sum;
}

/* P[i, j] = exp(q . k scale - L) and dS = P (do . v - D) of one (query, key) pair. */
static void attention_pair(gen *g, const attention_row *r, const int *qv, const int *kv, const int *dov,
                           const int *vv, int lse, int row_dot, int *p, int *ds) {
  *p = fexp(g, fsub(g, fmul(g, lane_dot(g, qv, kv, r->hd), r->scale), lse));
  *ds = fmul(g, *p, fsub(g, lane_dot(g, dov, vv, r->hdv), row_dot));
}

/* Products, key j of a query row: carried dq[pq] += dS k[j] scale. */
static void attention_dq_step(gen *g, const void *ctx, int j, const int *args, int *next) {
  const attention_row *r = ctx;
  int kv[MAX_LANE_PARTS], vv[MAX_LANE_PARTS], p, ds;
  lane_row(g, r->k, add(g, r->k_head, mulc(g, j, r->hd)), r->hd, r->lane, kv);
  lane_row(g, r->v, add(g, r->v_head, mulc(g, j, r->hdv)), r->hdv, r->lane, vv);
  attention_pair(g, r, r->qv, kv, r->dov, vv, r->lse, r->row_dot, &p, &ds);
  for (int64_t m = 0; m < r->pq; ++m)
    next[m] = fadd(g, args[m], fmul(g, fmul(g, ds, kv[m]), r->scale));
}

/* Products, query i of a key row: carried dk[pq] += dS q[i] scale, dv[pv] += P do[i]. */
static void attention_dkv_step(gen *g, const void *ctx, int i, const int *args, int *next) {
  const attention_row *r = ctx;
  int qv[MAX_LANE_PARTS], dov[MAX_LANE_PARTS], p, ds;
  lane_row(g, r->q, add(g, r->q_head, mulc(g, i, r->hd)), r->hd, r->lane, qv);
  lane_row(g, r->d_o, add(g, r->o_head, mulc(g, i, r->hdv)), r->hdv, r->lane, dov);
  int stats_row = add(g, r->stats_head, mulc(g, i, 2));
  int lse = load_f32(g, r->stats, stats_row), row_dot = load_f32(g, r->stats, addc(g, stats_row, 1));
  attention_pair(g, r, qv, r->kv, dov, r->vv, lse, row_dot, &p, &ds);
  for (int64_t m = 0; m < r->pq; ++m)
    next[m] = fadd(g, args[m], fmul(g, fmul(g, ds, qv[m]), r->scale));
  for (int64_t m = 0; m < r->pv; ++m)
    next[r->pq + m] = fadd(g, args[r->pq + m], fmul(g, p, dov[m]));
}

/* ---- attention on tensor cores ----
 * When q, k and v are bf16 in memory (not constants), heads are at most 64 wide (q and k multiples of 16,
 * v of 8) and the sequences are multiples of 64 (queries) and 32 (keys), attention and its statistics
 * run on mma.sync.m16n8k16 (bf16 operands, fp32 accumulators) in the FlashAttention-2 arrangement: a warp
 * owns a "group" of 16 query rows, whose q fragments stay in registers; the scores of a block of 32 keys,
 * S = q k^T, are 4 accumulator tiles of 16 x 8 whose registers, rounded to bf16 pairs, are the A fragments
 * of P v. Fragment layout (lane = 4 r + c): A words (r | r + 8, 2c | 2c + 8 pairs), B words (n = r, 2c |
 * 2c + 8 pairs of k), accumulators (r | r + 8, 2c + {0, 1}); so a thread sees query rows r and r + 8 of
 * its group, the row max and sum combine over the 4 lanes of a quad.
 * Tiles: 64 query rows of one (b, h) as the four groups 2t, 2t + 1, G - 2 - 2t and G - 1 - 2t of the
 * G = T / 16 (equal work under the causal mask); warps 2s and 2s + 1 take group s, the even and the odd
 * key blocks, and their online-softmax states meet in shared memory (the odd warp's state is rescaled
 * into the even warp's, which writes the rows). So each of the SM's four sub-partitions (warp % 4) holds
 * a light group (2t, 2t + 1) and a heavy one (G - 2 - 2t, G - 1 - 2t): warps w and w + 4, which share a
 * sub-partition, had one group between them, and two sub-partitions all the heavy work. The tile count is the warp-per-row template's,
 * B H T / 64. */
#define TC_GROUP 16
#define TC_KEYS 32
#define TC_TILE_ROWS 64
_Static_assert(TC_TILE_ROWS == 64 && TC_KEYS == 32, "latch_attention_fits_tensor_cores (schedule.c) counts rows so");
#define TC_MAX_HEAD LATCH_ATTENTION_TC_MAX_HEAD

/* Two f32 rounded to bf16 (nearest even) as a pair, lo in the low half: one vector truncation, which NVPTX
 * emits as one cvt.rn.bf16x2.f32 (two scalar truncations took six instructions to pack). */
static int pack_bf16(gen *g, int lo, int hi) {
  int values[2] = {lo, hi};
  int rounded = cast(g, "arith.truncf", vector_of(g, values, 2, "vector<2xf32>"), "vector<2xf32>", "vector<2xbf16>");
  return cast(g, "llvm.bitcast", rounded, "vector<2xbf16>", "i32");
}

/* Elements `index` and `index + stride` of t as a bf16 pair, for an mma fragment: one 32-bit load when t
 * is bf16 and they are adjacent (every caller's index is even then), two 16-bit loads when bf16, else two
 * f32 loads rounded to bf16. */
static int load_pair(gen *g, const tensor_ref *t, int index, int64_t stride) {
  if (t->dt == DT_BF16 && stride == 1) {
    return global_load(g, element_address(g, t, index), "i32", 4);
  }
  if (t->dt == DT_BF16) {
    int low = load_bf16_bits(g, t, index);
    return pair_word(g, low, load_bf16_bits(g, t, addc(g, index, stride)));
  }
  return pack_bf16(g, load_f32(g, t, index), load_f32(g, t, addc(g, index, stride)));
}

/* The butterfly over the 4 lanes of a quad (the lanes that hold one accumulator row). */
static int quad_combine(gen *g, const char *op, int value) {
  static const int offsets[] = {1, 2};
  return butterfly(g, op, value, offsets, 2);
}

/* latch_attention_fits_tensor_cores (dialects/schedule.h; latch_attention_products_fit_tensor_cores for
 * the split gradient's `products`), with q, k, v in memory (not constants). */
static bool attention_fits_tensor_cores(const tensor_ref *q, const tensor_ref *k, const tensor_ref *v, bool products) {
  bool bf16 = q->dt == DT_BF16 && k->dt == DT_BF16 && v->dt == DT_BF16;
  bool (*fits)(bool, int64_t, int64_t, int64_t, int64_t) =
      products ? latch_attention_products_fit_tensor_cores : latch_attention_fits_tensor_cores;
  return q->kind != PLACE_CONST && k->kind != PLACE_CONST && v->kind != PLACE_CONST &&
         fits(bf16, dim(q, 2), dim(q, 3), dim(k, 2), dim(v, 3));
}

/* Elements between row t and row t + 1 of one (b, h) of 4-D attention tensor t: d, or H d in the layout
 * "bthd" (tensor_ref.bthd). */
static int64_t attention_row_stride(const tensor_ref *t) { return t->bthd ? dim(t, 1) * dim(t, 3) : dim(t, 3); }

/* The element index of row 0 of (b, h) of 4-D attention tensor t, for `bh` = b H + h: bh T d, or
 * b T H d + h d in the layout "bthd". */
static int attention_head(gen *g, const tensor_ref *t, int bh) {
  int64_t heads = dim(t, 1), rows = dim(t, 2), width = dim(t, 3);
  if (!t->bthd)
    return mulc(g, bh, rows * width);
  return add(g, mulc(g, divc(g, bh, heads), rows * heads * width), mulc(g, remc(g, bh, heads), width));
}

/* What every tensor-core attention template shares: the warp's group of rows (query rows, or key rows of
 * the gradient) in its tile and its fragment coordinates. */
typedef struct tc_rows {
  int bh, row0;   /* the (b, h) index and the group's first row */
  int parity;     /* warp % 2 - 0: even blocks of the other side (and the writes), 1: odd */
  int slot, lane; /* the group, warp / 2 (0, 1 light, 2, 3 heavy); lane */
  int r, c;       /* lane / 4, lane % 4 */
  int tile, half; /* the tile's index within its (b, h); the half of a paired tile (-1: not paired) */
} tc_rows;

/* The group that slot `slot` (an i64 value) takes in tile `tile` of a (b, h) of `groups` groups (see
 * tc_rows_begin). */
static int tc_slot_group(gen *g, int tile, int slot, int half, int64_t groups) {
  if (half >= 0) {
    int pair = add(g, mulc(g, tile, 4), slot);
    return sel(g, cmpi(g, "eq", half, ci64(g, 0), "i64"), pair, sub(g, ci64(g, groups - 1), pair), "i64");
  }
  int two_t = mulc(g, tile, 2);
  int low = add(g, two_t, slot), high = sub(g, addc(g, slot, groups - 4), two_t);
  return sel(g, cmpi(g, "slt", slot, ci64(g, 2), "i64"), low, high, "i64");
}

/* Places the warp in virtual tile `vt` (of B H T / 64 for `rows` = T). Tile t of a head: slots 0 and 1
 * take groups 2t and 2t + 1, slots 2 and 3 their mirrors G - 4 + slot - 2t. `half` >= 0: a paired tile
 * (latch_attention_grad_tiles_paired; B H T / 128 tiles) in which slot s takes pair p = 4t + s, group p in
 * half 0 and its mirror G - 1 - p in half 1, so that every warp of the tile has the same causal work. */
static void tc_rows_begin(gen *g, int vt, int64_t rows, int half, tc_rows *w) {
  int64_t per_head = rows / (half >= 0 ? LATCH_ATTENTION_GRAD_PAIRED_ROWS : TC_TILE_ROWS);
  int warp = divc(g, g->tid, 32);
  w->lane = remc(g, g->tid, 32);
  w->r = divc(g, w->lane, 4);
  w->c = remc(g, w->lane, 4);
  w->slot = divc(g, warp, 2);
  w->parity = remc(g, warp, 2);
  w->bh = divc(g, vt, per_head);
  w->tile = remc(g, vt, per_head);
  w->half = half;
  w->row0 = mulc(g, tc_slot_group(g, w->tile, w->slot, half, rows / TC_GROUP), TC_GROUP);
}

/* The first row of the smallest (`largest`: the largest) group among the four of the warp's tile. */
static int tc_tile_row0(gen *g, const tc_rows *w, int64_t rows, bool largest) {
  int best = -1;
  for (int s = 0; s < 4; ++s) {
    int group = tc_slot_group(g, w->tile, ci64(g, s), w->half, rows / TC_GROUP);
    best = s == 0 ? group : largest ? maxi(g, best, group) : mini(g, best, group);
  }
  return mulc(g, best, TC_GROUP);
}

/* The A fragments of the group's 16 rows of t (rows of `width` elements from element `head`), per k16 step. */
static void tc_fragments(gen *g, const tc_rows *w, const tensor_ref *t, int head, int64_t width, int (*a)[4]) {
  for (int64_t kk = 0; kk < width / 16; ++kk)
    for (int i = 0; i < 4; ++i) {
      int row = add(g, w->row0, addc(g, w->r, i & 1 ? 8 : 0));
      int col = addc(g, mulc(g, w->c, 2), 16 * kk + (i & 2 ? 8 : 0));
      a[kk][i] = load_pair(g, t, add(g, head, add(g, mulc(g, row, attention_row_stride(t)), col)), 1);
    }
}

/* Key blocks of 32 that the group of query rows at `row0` sees. */
static int tc_key_blocks_from(gen *g, int row0, int64_t tk, bool causal) {
  int all = ci64(g, tk / TC_KEYS);
  return causal ? mini(g, addc(g, divc(g, addc(g, row0, TC_GROUP - 1), TC_KEYS), 1), all) : all;
}

static int tc_key_blocks(gen *g, const tc_rows *w, int64_t tk, bool causal) {
  return tc_key_blocks_from(g, w->row0, tk, causal);
}

typedef enum tc_mask { TC_MASK_NONE, TC_MASK_COLUMN_AFTER_ROW, TC_MASK_COLUMN_BEFORE_ROW } tc_mask;

/* Products of the group's fragments `a` (width `depth`) with the 32 rows col0.. of b (from element
 * `b_head`): s[nt * 4 + i] is row row0 + r (+ 8 for i >= 2), column col0 + 8 nt + 2c + (i & 1); times
 * `scale` when scale >= 0, and -inf where `mask` says (a later key than the query: the forward's causal
 * mask; an earlier query than the key: the same mask seen from the key rows). */
static void tc_products(gen *g, const tc_rows *w, int (*a)[4], int64_t depth, const tensor_ref *b, int b_head,
                        int col0, int scale, tc_mask mask, int *s) {
  int zero = cf32(g, 0.0), minus_inf = cf32(g, -INFINITY);
  for (int nt = 0; nt < TC_KEYS / 8; ++nt) {
    int *acc = &s[nt * 4];
    for (int i = 0; i < 4; ++i)
      acc[i] = zero;
    int b_row = add(g, b_head, mulc(g, add(g, col0, addc(g, w->r, 8 * nt)), attention_row_stride(b)));
    for (int64_t kk = 0; kk < depth / 16; ++kk) {
      int col = addc(g, mulc(g, w->c, 2), 16 * kk);
      int frag[2] = {load_pair(g, b, add(g, b_row, col), 1), load_pair(g, b, add(g, b_row, addc(g, col, 8)), 1)};
      mma_bf16(g, a[kk], frag, acc);
    }
    for (int i = 0; i < 4; ++i) {
      if (scale >= 0)
        acc[i] = fmul(g, acc[i], scale);
      if (mask != TC_MASK_NONE) {
        int column = add(g, col0, addc(g, mulc(g, w->c, 2), 8 * nt + (i & 1)));
        int row = add(g, w->row0, addc(g, w->r, i & 2 ? 8 : 0));
        int masked = mask == TC_MASK_COLUMN_AFTER_ROW ? cmpi(g, "sgt", column, row, "i64") : cmpi(g, "slt", column, row, "i64");
        acc[i] = sel(g, masked, minus_inf, acc[i], "f32");
      }
    }
  }
}

/* The accumulator tiles s (16 x 32) as the A fragments of the next product, two k16 steps: a[j]. */
static void tc_as_fragments(gen *g, const int *s, int (*a)[4]) {
  for (int j = 0; j < TC_KEYS / 16; ++j)
    for (int i = 0; i < 4; ++i)
      a[j][i] = pack_bf16(g, s[8 * j + 2 * i], s[8 * j + 2 * i + 1]);
}

/* acc[nt * 4 + i] (nt < width / 8) += a (16 x 32) times rows col0 .. col0 + 31 of b (width `width`, from
 * element `b_head`): the B fragments are pairs of rows (k) of one column (n). */
static void tc_accumulate_rows(gen *g, const tc_rows *w, int (*a)[4], const tensor_ref *b, int b_head, int64_t width,
                               int col0, int *acc) {
  for (int j = 0; j < TC_KEYS / 16; ++j) {
    int row = add(g, col0, addc(g, mulc(g, w->c, 2), 16 * j));
    for (int64_t nt = 0; nt < width / 8; ++nt) {
      int64_t stride = attention_row_stride(b);
      int lo = add(g, b_head, add(g, mulc(g, row, stride), addc(g, w->r, 8 * nt)));
      int frag[2] = {load_pair(g, b, lo, stride), load_pair(g, b, addc(g, lo, 8 * stride), stride)};
      mma_bf16(g, a[j], frag, &acc[nt * 4]);
    }
  }
}

/* One online-softmax step over a block of scores for the thread's rows h = 0 (r) and 1 (r + 8): m' = max(m,
 * max of the block over the quad), alpha = exp(m - m'), s -> p = exp(s - m'), l' = l alpha + the thread's
 * sum of p (the quad's partial sums meet at the end). m and l are updated in place. */
static void tc_softmax_step(gen *g, int *m, int *l, int *alpha, int *s) {
  for (int h = 0; h < 2; ++h) {
    int block_max = s[2 * h];
    for (int nt = 0; nt < TC_KEYS / 8; ++nt)
      for (int i = 2 * h; i < 2 * h + 2; ++i)
        if (nt || i != 2 * h)
          block_max = op2(g, "arith.maximumf", block_max, s[nt * 4 + i], "f32");
    int next = op2(g, "arith.maximumf", m[h], quad_combine(g, "arith.maximumf", block_max), "f32");
    alpha[h] = fexp(g, fsub(g, m[h], next));
    m[h] = next;
    int sum = fmul(g, l[h], alpha[h]);
    for (int nt = 0; nt < TC_KEYS / 8; ++nt)
      for (int i = 2 * h; i < 2 * h + 2; ++i) {
        s[nt * 4 + i] = fexp(g, fsub(g, s[nt * 4 + i], next));
        sum = fadd(g, sum, s[nt * 4 + i]);
      }
    l[h] = sum;
  }
}

/* The odd warp of each group hands its `n` carried values to the even one through shared memory (value
 * i of lane L of slot s at word i 128 + 32 s + L); the even warp gets them in `other`. */
static void tc_exchange(gen *g, const tc_rows *w, int n, const int *values, int *other) {
  int place = add(g, mulc(g, w->slot, 32), w->lane);
  sync_threads(g);
  when_begin(g, cmpi(g, "eq", w->parity, ci64(g, 1), "i64"));
  for (int i = 0; i < n; ++i)
    shared_store(g, addc(g, place, 128 * i), values[i]);
  when_end(g);
  sync_threads(g);
  for (int i = 0; i < n; ++i)
    other[i] = shared_load(g, addc(g, place, 128 * i));
}

/* Row h's online-softmax states (m, l at state[h], state[2 + h]) of the two warps of a group combined:
 * the merged max, the factors of each side and (returned) the row sum over the quad. */
static int tc_merge_rows(gen *g, const int *state, const int *other, int h, int *m, int *fa, int *fb) {
  *m = op2(g, "arith.maximumf", state[h], other[h], "f32");
  *fa = fexp(g, fsub(g, state[h], *m));
  *fb = fexp(g, fsub(g, other[h], *m));
  return quad_combine(g, "arith.addf", fadd(g, fmul(g, state[2 + h], *fa), fmul(g, other[2 + h], *fb)));
}

/* The place of accumulator register i of mma tile nt in the group's rows: row row0 + r (+ 8 for i >= 2),
 * column 2c + 8 nt + (i & 1). */
static void tc_place(gen *g, const tc_rows *w, int64_t nt, int i, int *row, int *col) {
  *row = add(g, w->row0, addc(g, w->r, i & 2 ? 8 : 0));
  *col = addc(g, mulc(g, w->c, 2), 8 * nt + (i & 1));
}

/* ---- attention blocks staged per CTA ----
 * When the operands start 16-byte aligned, the warps of a tensor-core attention tile step through the other
 * side's blocks of 32 rows together (k and v for query rows; in the split gradient's key rows q, do and
 * their (L, D)): iteration i holds blocks 2i and 2i + 1, copied once by the whole CTA by cp.async in 16-byte
 * chunks (f32 do rounded to bf16 on the way) into one of two buffers while the CTA computes the other, one
 * CTA barrier per iteration (which also frees the buffer that the next copy fills). Each warp takes the
 * block of its parity, in the order it always had, or none where the block lies outside its causal range,
 * and reads the B fragments back with ldmatrix (.trans where the block's rows are the product's k). The
 * fragments are the words that loads from global memory would give, so the products are bitwise those of
 * the loads. Copied per warp instead, each block came from L2 once for every warp of its parity (four per
 * tile) and the tiles ran at L2's bandwidth (docs/benchmarks.md, round twenty-nine). Key tiles of the split
 * gradient also keep their groups' k and v rows in shared memory, read back by ldmatrix for every block
 * instead of from global memory (the registers hold the 64 accumulators). Layout (words): two buffers of
 * [blocks 2i and 2i + 1 of the first operand (k; q)][the same of the second (v; do)][their 64 (L, D)
 * pairs], then per slot the group's 16 rows of k and of v. */
#define TC_BLOCK_WORDS(width) (TC_KEYS * ((width) / 2 + 4)) /* 32 rows of `width` bf16 and 4 words of padding */
#define TC_PAIR_WORDS (2 * TC_BLOCK_WORDS(TC_MAX_HEAD))
#define TC_STAGE_WORDS (2 * TC_PAIR_WORDS + 4 * TC_KEYS)
#define TC_OWN_WORDS (TC_GROUP * (TC_MAX_HEAD / 2 + 4))
#define TC_GRAD_SHARED_WORDS (2 * TC_STAGE_WORDS + 4 * 2 * TC_OWN_WORDS)
_Static_assert(TC_GRAD_SHARED_WORDS <= MMA_RING_WORDS, "the staged blocks fit the product ring");

static bool attention_grad_stages(const task_io *io) {
  for (int i = 0; i < 4; ++i) {
    bool bf16 = io->in[i].dt == DT_BF16 || (i == 3 && io->in[i].dt == DT_F32); /* do may be f32 */
    if (!bf16 || !place_aligned(&io->in[i], 16) || dim(&io->in[i], 3) % 16 != 0)
      return false;
  }
  return place_aligned(&io->in[4], 16);
}

/* The forward and the statistics stage k (and v, unless NULL) blocks when they are 16-byte aligned with
 * head sizes that are multiples of 16 (attention_fits_tensor_cores made them bf16). */
static bool attention_stages(const tensor_ref *k, const tensor_ref *v) {
  return place_aligned(k, 16) && dim(k, 3) % 16 == 0 && (!v || (place_aligned(v, 16) && dim(v, 3) % 16 == 0));
}

/* `rows` rows of `width` elements of t (from element `first`) as bf16 into rows of `width` / 2 + 4 words
 * from word `area`, copied by `threads` threads (this one `thread`) in chunks of 8: bf16 by cp.async; f32
 * loaded, each element rounded to bf16 as pack_bf16 rounds it, and stored. With `valid` >= 0 (an i64
 * value), only the first `valid` rows are copied. */
static void tc_stage_rows_by(gen *g, int thread, int64_t threads, int64_t rows, const tensor_ref *t, int first,
                             int valid, int64_t width, int area) {
  int64_t per_row = width / 8, chunks = rows * per_row;
  for (int64_t e0 = 0; e0 < chunks; e0 += threads) {
    int e = addc(g, thread, e0), row = divc(g, e, per_row), chunk = remc(g, e, per_row);
    bool guarded = valid >= 0 || e0 + threads > chunks;
    if (guarded) {
      int inside = cmpi(g, "slt", e, ci64(g, chunks), "i64");
      if (valid >= 0)
        inside = op2(g, "arith.andi", inside, cmpi(g, "slt", row, valid, "i64"), "i1");
      when_begin(g, inside);
    }
    int address = fresh(g), from = add(g, first, add(g, mulc(g, row, attention_row_stride(t)), mulc(g, chunk, 8)));
    ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32", address,
       shared_base(g), add(g, area, add(g, mulc(g, row, width / 2 + 4), mulc(g, chunk, 4))));
    if (t->dt == DT_BF16) {
      ln(g, "nvvm.cp.async.shared.global %%v%d, %%v%d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>", address,
         element_address(g, t, from));
    } else {
      int value = fresh(g);
      ln(g, "%%v%d = arith.truncf %%v%d : vector<8xf32> to vector<8xbf16>", value,
         load_vector_as(g, t, from, "vector<8xf32>"));
      ln(g, "llvm.store %%v%d, %%v%d {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>", value, address);
    }
    if (guarded)
      when_end(g);
  }
}

/* The (L, D) pairs of the 64 query rows from stats row `first` (the first `valid` of them, an i64 value)
 * into the 128 words at `area`, 4 words by each of the CTA's first 32 threads. */
static void tc_stage_pair_stats(gen *g, const tensor_ref *stats, int first, int valid, int area) {
  int thread = g->tid, first_threads = cmpi(g, "slt", thread, ci64(g, TC_KEYS), "i64");
  when_begin(g, op2(g, "arith.andi", first_threads, cmpi(g, "slt", mulc(g, thread, 2), valid, "i64"), "i1"));
  int address = fresh(g);
  ln(g, "%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32", address,
     shared_base(g), add(g, area, mulc(g, thread, 4)));
  ln(g, "nvvm.cp.async.shared.global %%v%d, %%v%d, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>", address,
     element_address(g, stats, add(g, mulc(g, first, 2), mulc(g, thread, 4))));
  when_end(g);
}

/* What an attention tile's blocks read besides their own accumulators (q, do and stats only in the split
 * gradient; v is NULL in the statistics). */
typedef struct tc_sides {
  const tensor_ref *q, *k, *v, *d_o, *stats;
  int q_head, k_head, v_head, o_head, stats_row0; /* the (b, h)'s first elements; its first stats row */
  int64_t hd, hdv;
  int scale;
  bool causal;
} tc_sides;

/* Blocks 2 `pair` and 2 `pair` + 1 of t's `rows` rows (one (b, h), from element `head`) into `area`, by
 * the whole CTA; rows past the end are not copied. */
static void tc_stage_pair(gen *g, const tensor_ref *t, int head, int pair, int64_t rows, int area) {
  int first_row = mulc(g, pair, 2 * TC_KEYS);
  tc_stage_rows_by(g, g->tid, CTA_THREADS, 2 * TC_KEYS, t, add(g, head, mulc(g, first_row, attention_row_stride(t))),
                   sub(g, ci64(g, rows), first_row), dim(t, 3), area);
}

/* Buffer `pair` % 2 of the staged blocks. */
static int tc_stage_buffer(gen *g, int pair) { return mulc(g, remc(g, pair, 2), TC_STAGE_WORDS); }

/* Copies the pair of blocks `pair` of the tile's other side (a and b; with stats, their (L, D) pairs) into
 * its buffer, one cp.async group (empty when pair >= pairs). */
static void tc_stage_next_pair(gen *g, const tc_sides *x, bool query_rows, int pair, int pairs) {
  int buffer = tc_stage_buffer(g, pair);
  when_begin(g, cmpi(g, "slt", pair, pairs, "i64"));
  if (query_rows) {
    tc_stage_pair(g, x->k, x->k_head, pair, dim(x->k, 2), buffer);
    if (x->v)
      tc_stage_pair(g, x->v, x->v_head, pair, dim(x->v, 2), addc(g, buffer, TC_PAIR_WORDS));
  } else {
    int64_t tq = dim(x->q, 2);
    int first_row = mulc(g, pair, 2 * TC_KEYS);
    tc_stage_pair(g, x->q, x->q_head, pair, tq, buffer);
    tc_stage_pair(g, x->d_o, x->o_head, pair, tq, addc(g, buffer, TC_PAIR_WORDS));
    tc_stage_pair_stats(g, x->stats, add(g, x->stats_row0, first_row), sub(g, ci64(g, tq), first_row),
                        addc(g, buffer, 2 * TC_PAIR_WORDS));
  }
  when_end(g);
  ln(g, "nvvm.cp.async.commit.group");
}

/* The loop over the pairs [first, pairs) of a staged tile: pair `first` is copied before it; each
 * iteration waits for its pair, opens it to the whole CTA (the barrier also ends every warp's reads of the
 * other buffer) and copies the next pair into the other buffer. Returns the pair index. */
static int tc_pairs_begin(gen *g, const tc_sides *x, bool query_rows, int first, int pairs, int n, const int *init,
                          int *args, int *results) {
  tc_stage_next_pair(g, x, query_rows, first, pairs);
  int pair = for_begin(g, first, pairs, ci64(g, 1), n, init, f32_types, args, results);
  ln(g, "nvvm.cp.async.wait.group 0");
  sync_threads(g);
  tc_stage_next_pair(g, x, query_rows, addc(g, pair, 1), pairs);
  return pair;
}

/* Opens a staged tile: its shared words, and the CTA barrier that ends the previous tile's reads of them. */
static void tc_tile_shared(gen *g, int64_t words) {
  need_shared(g, words);
  sync_threads(g);
}

/* ldmatrix .x4 from a staged block of `width` columns at `area`: lane L, in matrix j = L / 8, addresses
 * row row0 + (j % 2) a + (j / 2) b + L % 8 at column col0 + (j % 2) c + (j / 2) d. */
static void tc_block_ldmatrix(gen *g, const tc_rows *w, int area, int64_t width, int64_t row0, int64_t col0,
                              int64_t a, int64_t b, int64_t c, int64_t d, bool transposed, int *out) {
  int j = divc(g, w->lane, 8), low = remc(g, j, 2), high = divc(g, j, 2);
  int row = add(g, addc(g, add(g, mulc(g, low, a), mulc(g, high, b)), row0), remc(g, w->lane, 8));
  int col = addc(g, add(g, mulc(g, low, c), mulc(g, high, d)), col0);
  ldmatrix4(g, add(g, area, add(g, mulc(g, row, width / 2 + 4), divc(g, col, 2))), transposed, out);
}

/* tc_products with b's 32 rows staged at `area` (col0 the first row's index, for the mask). */
static void tc_products_staged(gen *g, const tc_rows *w, int (*a)[4], int64_t depth, int area, int col0, int scale,
                               tc_mask mask, int *s) {
  int zero = cf32(g, 0.0), minus_inf = cf32(g, -INFINITY);
  for (int nt = 0; nt < TC_KEYS / 8; nt += 2) {
    int frag[2][TC_MAX_HEAD / 16][2];
    for (int64_t kk = 0; kk < depth / 16; ++kk) {
      int out[4];
      tc_block_ldmatrix(g, w, area, depth, 8 * nt, 16 * kk, 0, 8, 8, 0, false, out);
      frag[0][kk][0] = out[0], frag[0][kk][1] = out[1], frag[1][kk][0] = out[2], frag[1][kk][1] = out[3];
    }
    for (int h = 0; h < 2; ++h) {
      int *acc = &s[(nt + h) * 4];
      for (int i = 0; i < 4; ++i)
        acc[i] = zero;
      for (int64_t kk = 0; kk < depth / 16; ++kk)
        mma_bf16(g, a[kk], frag[h][kk], acc);
      for (int i = 0; i < 4; ++i) {
        if (scale >= 0)
          acc[i] = fmul(g, acc[i], scale);
        if (mask != TC_MASK_NONE) {
          int column = add(g, col0, addc(g, mulc(g, w->c, 2), 8 * (nt + h) + (i & 1)));
          int row = add(g, w->row0, addc(g, w->r, i & 2 ? 8 : 0));
          int masked = mask == TC_MASK_COLUMN_AFTER_ROW ? cmpi(g, "sgt", column, row, "i64")
                                                        : cmpi(g, "slt", column, row, "i64");
          acc[i] = sel(g, masked, minus_inf, acc[i], "f32");
        }
      }
    }
  }
}

/* tc_accumulate_rows with b's 32 rows (the product's k) staged at `area`: ldmatrix .trans. */
static void tc_accumulate_staged(gen *g, const tc_rows *w, int (*a)[4], int area, int64_t width, int *acc) {
  for (int j = 0; j < TC_KEYS / 16; ++j)
    for (int64_t nt = 0; nt < width / 8; nt += 2) {
      int out[4];
      tc_block_ldmatrix(g, w, area, width, 16 * j, 8 * nt, 8, 0, 0, 8, true, out);
      int first[2] = {out[0], out[1]}, second[2] = {out[2], out[3]};
      mma_bf16(g, a[j], first, &acc[nt * 4]);
      mma_bf16(g, a[j], second, &acc[(nt + 1) * 4]);
    }
}

/* tc_products of b's 32 rows from col0, read from their staged block at `area`, or from global memory
 * (b's (b, h) from element b_head) where area < 0. */
static void tc_products_from(gen *g, const tc_rows *w, int (*a)[4], int64_t depth, const tensor_ref *b, int b_head,
                             int area, int col0, int scale, tc_mask mask, int *s) {
  if (area >= 0)
    tc_products_staged(g, w, a, depth, area, col0, scale, mask, s);
  else
    tc_products(g, w, a, depth, b, b_head, col0, scale, mask, s);
}

/* tc_accumulate_rows the same way: b's rows from col0 staged at `area`, or from global memory. */
static void tc_accumulate_from(gen *g, const tc_rows *w, int (*a)[4], const tensor_ref *b, int b_head, int area,
                               int64_t width, int col0, int *acc) {
  if (area >= 0)
    tc_accumulate_staged(g, w, a, area, width, acc);
  else
    tc_accumulate_rows(g, w, a, b, b_head, width, col0, acc);
}

/* The loop over a query tile's key blocks, staged per CTA (`staged`) or each warp's blocks of its parity
 * from global memory: calls `block` per block of the warp (k and v areas < 0 when not staged) and leaves the
 * warp's carried values in results. */
typedef void tc_query_block_fn(gen *g, const tc_rows *w, const tc_sides *x, const void *ctx, int key0, int k_area,
                               int v_area, const int *args, int *next);

static void tc_query_blocks(gen *g, const tc_rows *w, const tc_sides *x, bool staged, int64_t rows, int n,
                            const int *init, tc_query_block_fn *block, const void *ctx, int *results) {
  int args[8 * TC_MAX_HEAD / 8], next[8 * TC_MAX_HEAD / 8], blocks = tc_key_blocks(g, w, dim(x->k, 2), x->causal);
  if (!staged) {
    int kb = for_begin(g, w->parity, blocks, ci64(g, 2), n, init, f32_types, args, results);
    block(g, w, x, ctx, mulc(g, kb, TC_KEYS), -1, -1, args, next);
    for_end(g, n, next, f32_types);
    return;
  }
  /* the pairs up to the last block of the tile's largest group */
  int most = tc_key_blocks_from(g, tc_tile_row0(g, w, rows, true), dim(x->k, 2), x->causal), mine[8 * TC_MAX_HEAD / 8];
  int pair = tc_pairs_begin(g, x, true, ci64(g, 0), divc(g, addc(g, most, 1), 2), n, init, args, results);
  int kb = add(g, mulc(g, pair, 2), w->parity), buffer = tc_stage_buffer(g, pair);
  int k_area = add(g, buffer, mulc(g, w->parity, TC_BLOCK_WORDS(x->hd)));
  int v_area = add(g, addc(g, buffer, TC_PAIR_WORDS), mulc(g, w->parity, TC_BLOCK_WORDS(x->hdv)));
  if_begin(g, cmpi(g, "slt", kb, blocks, "i64"), n, f32_types, mine);
  block(g, w, x, ctx, mulc(g, kb, TC_KEYS), k_area, v_area, args, next);
  if_else(g, n, next, f32_types);
  if_end(g, n, args, f32_types);
  for_end(g, n, mine, f32_types);
}

/* One block of 32 keys (from key0) of the forward: the online softmax state and o accumulators args ->
 * next; k and v from their staged blocks (or global memory where k_area < 0). */
static void tc_forward_block(gen *g, const tc_rows *w, const tc_sides *x, const void *ctx, int key0, int k_area,
                             int v_area, const int *args, int *next) {
  int(*qa)[4] = (int(*)[4])ctx;
  int64_t n = 4 + 4 * (x->hdv / 8);
  int s[4 * TC_KEYS / 8], alpha[2], pa[TC_KEYS / 16][4];
  tc_mask mask = x->causal ? TC_MASK_COLUMN_AFTER_ROW : TC_MASK_NONE;
  tc_products_from(g, w, qa, x->hd, x->k, x->k_head, k_area, key0, x->scale, mask, s);
  memcpy(next, args, sizeof(int) * (size_t)n);
  tc_softmax_step(g, &next[0], &next[2], alpha, s);
  int *acc = &next[4];
  for (int64_t i = 0; i < n - 4; ++i)
    acc[i] = fmul(g, acc[i], alpha[(i & 2) ? 1 : 0]);
  tc_as_fragments(g, s, pa);
  tc_accumulate_from(g, w, pa, x->v, x->v_head, v_area, x->hdv, key0, acc);
}

/* Carried state of the forward: m[2], l[2], then the o accumulators (hdv / 8 tiles of 4). */
static void gen_attention_mma(gen *g, task_io *io, MlirOperation op) {
  tc_sides x = {.k = &io->in[1], .v = &io->in[2]};
  const tensor_ref *q = &io->in[0], *o = &io->out[0];
  x.causal = latch_attention_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2);
  x.hd = dim(q, 3), x.hdv = dim(x.v, 3);
  int64_t vtiles = x.hdv / 8, n = 4 + 4 * vtiles;
  x.scale = cf32(g, latch_attention_scale(op));
  tc_rows w;
  tc_rows_begin(g, tiles_begin(g, bh_count * (tq / TC_TILE_ROWS)), tq, -1, &w);
  x.k_head = attention_head(g, x.k, w.bh), x.v_head = attention_head(g, x.v, w.bh);
  int o_head = attention_head(g, o, w.bh);
  bool staged = attention_stages(x.k, x.v);
  if (staged)
    tc_tile_shared(g, 2 * TC_STAGE_WORDS);
  int qa[TC_MAX_HEAD / 16][4];
  tc_fragments(g, &w, q, attention_head(g, q, w.bh), x.hd, qa);
  int init[4 + 4 * TC_MAX_HEAD / 8], results[4 + 4 * TC_MAX_HEAD / 8];
  init[0] = init[1] = cf32(g, -INFINITY);
  for (int64_t i = 2; i < n; ++i)
    init[i] = cf32(g, 0.0);
  tc_query_blocks(g, &w, &x, staged, tq, (int)n, init, tc_forward_block, qa, results);
  int other[4 + 4 * TC_MAX_HEAD / 8];
  tc_exchange(g, &w, (int)n, results, other);
  when_begin(g, cmpi(g, "eq", w.parity, ci64(g, 0), "i64"));
  {
    int fa[2], fb[2], l[2];
    for (int h = 0; h < 2; ++h) {
      int m;
      l[h] = tc_merge_rows(g, results, other, h, &m, &fa[h], &fb[h]);
      if (io->out_count > 1) { /* task.attention_lse: L = m + log(l), the statistics' (gen_attention_stats_mma) */
        when_begin(g, cmpi(g, "eq", w.c, ci64(g, 0), "i64"));
        int row = add(g, mulc(g, w.bh, tq), add(g, w.row0, addc(g, w.r, 8 * h)));
        store_f32(g, &io->out[1], row, fadd(g, m, op1(g, "math.log", l[h], "f32")));
        when_end(g);
      }
    }
    for (int64_t nt = 0; nt < vtiles; ++nt)
      for (int i = 0; i < 4; ++i) {
        int h = i & 2 ? 1 : 0;
        int value = fadd(g, fmul(g, results[4 + nt * 4 + i], fa[h]), fmul(g, other[4 + nt * 4 + i], fb[h]));
        int row, col;
        tc_place(g, &w, nt, i, &row, &col);
        store_f32(g, o, add(g, o_head, add(g, mulc(g, row, attention_row_stride(o)), col)), fdiv(g, value, l[h]));
      }
  }
  when_end(g);
  loop_end(g);
}

/* Row `row`'s statistics (L, D) into stats [.., 2], written once: by the thread whose `lane` (its place
 * among the threads that hold the row's values) is 0. */
static void store_row_stats(gen *g, const tensor_ref *stats, int row, int lse, int row_dot, int lane) {
  when_begin(g, cmpi(g, "eq", lane, ci64(g, 0), "i64"));
  store_f32(g, stats, mulc(g, row, 2), lse);
  store_f32(g, stats, addc(g, mulc(g, row, 2), 1), row_dot);
  when_end(g);
}

/* One block of 32 keys of the statistics: the forward's scores and online softmax state, args -> next. */
static void tc_stats_block(gen *g, const tc_rows *w, const tc_sides *x, const void *ctx, int key0, int k_area,
                           int v_area, const int *args, int *next) {
  (void)v_area;
  int(*qa)[4] = (int(*)[4])ctx, s[4 * TC_KEYS / 8], alpha[2];
  tc_mask mask = x->causal ? TC_MASK_COLUMN_AFTER_ROW : TC_MASK_NONE;
  tc_products_from(g, w, qa, x->hd, x->k, x->k_head, k_area, key0, x->scale, mask, s);
  memcpy(next, args, sizeof(int) * 4);
  tc_softmax_step(g, &next[0], &next[2], alpha, s);
}

/* The statistics on tensor cores: the forward's scores and online softmax without P v; the even warp
 * writes L = m + log(l) and D = do . o of rows r and r + 8 (the quad's lanes sum columns c, c + 4, ...). */
static void gen_attention_stats_mma(gen *g, task_io *io, MlirOperation op) {
  tc_sides x = {.k = &io->in[1]};
  const tensor_ref *q = &io->in[0], *o = &io->in[2], *d_o = &io->in[3], *stats = &io->out[0];
  x.causal = latch_attention_stats_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hdv = dim(o, 3);
  x.hd = dim(q, 3);
  x.scale = cf32(g, latch_attention_stats_scale(op));
  tc_rows w;
  tc_rows_begin(g, tiles_begin(g, bh_count * (tq / TC_TILE_ROWS)), tq, -1, &w);
  x.k_head = attention_head(g, x.k, w.bh);
  bool staged = attention_stages(x.k, NULL);
  if (staged)
    tc_tile_shared(g, 2 * TC_STAGE_WORDS);
  int qa[TC_MAX_HEAD / 16][4];
  tc_fragments(g, &w, q, attention_head(g, q, w.bh), x.hd, qa);
  int init[4] = {cf32(g, -INFINITY), cf32(g, -INFINITY), cf32(g, 0.0), cf32(g, 0.0)}, results[4];
  tc_query_blocks(g, &w, &x, staged, tq, 4, init, tc_stats_block, qa, results);
  int other[4];
  tc_exchange(g, &w, 4, results, other);
  when_begin(g, cmpi(g, "eq", w.parity, ci64(g, 0), "i64"));
  for (int h = 0; h < 2; ++h) {
    int m, fa, fb;
    int l = tc_merge_rows(g, results, other, h, &m, &fa, &fb);
    int lse = fadd(g, m, op1(g, "math.log", l, "f32"));
    int local = add(g, w.row0, addc(g, w.r, 8 * h)), row = add(g, mulc(g, w.bh, tq), local);
    int do_row = add(g, attention_head(g, d_o, w.bh), mulc(g, local, attention_row_stride(d_o)));
    int o_row = add(g, attention_head(g, o, w.bh), mulc(g, local, attention_row_stride(o)));
    int dot_part = cf32(g, 0.0);
    for (int64_t col = 0; col < hdv; col += 4) { /* hdv % 8 == 0 (attention_fits_tensor_cores) */
      int at = addc(g, w.c, col);
      dot_part = fadd(g, dot_part, fmul(g, load_f32(g, d_o, add(g, do_row, at)), load_f32(g, o, add(g, o_row, at))));
    }
    int row_dot = quad_combine(g, "arith.addf", dot_part);
    store_row_stats(g, stats, row, lse, row_dot, w.c);
  }
  when_end(g);
  loop_end(g);
}

/* A paired tile of the split gradient (latch_attention_grad_tiles_paired) runs its rows in two halves:
 * opens the loop over them and returns the half (-1, no loop, when not paired). The CTA barrier keeps a
 * half's staging out of the shared words that the last half's exchange (tc_exchange) is still reading. */
static int paired_half_begin(gen *g, bool paired) {
  if (!paired)
    return -1;
  int half = loop_begin(g, ci64(g, 0), ci64(g, 2), ci64(g, 1));
  sync_threads(g);
  return half;
}

static void paired_half_end(gen *g, bool paired) {
  if (paired)
    loop_end(g);
}

/* What a query tile's group of the split gradient holds in registers for all its blocks. */
typedef struct tc_query_rows {
  int qa[TC_MAX_HEAD / 16][4], doa[TC_MAX_HEAD / 16][4]; /* the group's q and do fragments */
  int lse[2], row_dot[2];                                /* L and D of rows r and r + 8 */
} tc_query_rows;

/* One block of 32 keys (from key0) of a query tile's group (ctx: its tc_query_rows): dq accumulators
 * args -> next. k and v come from their staged blocks at k_area and v_area, or from global memory where
 * k_area < 0. */
static void tc_grad_query_block(gen *g, const tc_rows *w, const tc_sides *x, const void *ctx, int key0, int k_area,
                                int v_area, const int *args, int *next) {
  const tc_query_rows *rows = ctx;
  int(*qa)[4] = (int(*)[4])rows->qa, (*doa)[4] = (int(*)[4])rows->doa;
  const int *lse = rows->lse, *row_dot = rows->row_dot;
  int s[4 * TC_KEYS / 8], dp[4 * TC_KEYS / 8], dsa[TC_KEYS / 16][4];
  tc_mask mask = x->causal ? TC_MASK_COLUMN_AFTER_ROW : TC_MASK_NONE;
  tc_products_from(g, w, qa, x->hd, x->k, x->k_head, k_area, key0, x->scale, mask, s);
  tc_products_from(g, w, doa, x->hdv, x->v, x->v_head, v_area, key0, -1, TC_MASK_NONE, dp);
  for (int i = 0; i < 4 * TC_KEYS / 8; ++i) {
    int h = i & 2 ? 1 : 0;
    s[i] = fmul(g, fexp(g, fsub(g, s[i], lse[h])), fsub(g, dp[i], row_dot[h]));
  }
  tc_as_fragments(g, s, dsa);
  memcpy(next, args, sizeof(int) * (size_t)(4 * x->hd / 8));
  tc_accumulate_from(g, w, dsa, x->k, x->k_head, k_area, x->hd, key0, next);
}

/* The A fragments of the key group's 16 rows of t: by ldmatrix from their staged copy at `area`, or from
 * global memory (t's (b, h) from element `head`) where area < 0. */
static void tc_own_fragments(gen *g, const tc_rows *w, const tensor_ref *t, int head, int area, int64_t width,
                             int (*a)[4]) {
  if (area < 0) {
    tc_fragments(g, w, t, head, width, a);
    return;
  }
  for (int64_t kk = 0; kk < width / 16; ++kk)
    tc_block_ldmatrix(g, w, area, width, 0, 16 * kk, 8, 0, 0, 8, false, a[kk]);
}

/* One block of 32 queries (from query0) of a key tile's group: dk then dv accumulators args -> next. With
 * own_area >= 0, the group's k and v rows are staged there (k, then v 16 rows on) and q, do and the (L, D)
 * pairs at q_area, o_area and stats_area; else all come from global memory. */
static void tc_grad_key_block(gen *g, const tc_rows *w, const tc_sides *x, int query0, int own_area, int q_area,
                              int o_area, int stats_area, const int *args, int *next) {
  int s[4 * TC_KEYS / 8], dp[4 * TC_KEYS / 8];
  int ka[TC_MAX_HEAD / 16][4], va[TC_MAX_HEAD / 16][4], pa[TC_KEYS / 16][4], dsa[TC_KEYS / 16][4];
  int n_dk = (int)(4 * x->hd / 8), n = n_dk + (int)(4 * x->hdv / 8);
  bool staged = own_area >= 0;
  tc_mask mask = x->causal ? TC_MASK_COLUMN_BEFORE_ROW : TC_MASK_NONE;
  tc_own_fragments(g, w, x->k, x->k_head, own_area, x->hd, ka);
  tc_products_from(g, w, ka, x->hd, x->q, x->q_head, q_area, query0, x->scale, mask, s);
  tc_own_fragments(g, w, x->v, x->v_head, staged ? addc(g, own_area, TC_OWN_WORDS) : -1, x->hdv, va);
  tc_products_from(g, w, va, x->hdv, x->d_o, x->o_head, o_area, query0, -1, TC_MASK_NONE, dp);
  for (int nt = 0; nt < TC_KEYS / 8; ++nt)
    for (int e = 0; e < 2; ++e) {
      int local = addc(g, mulc(g, w->c, 2), 8 * nt + e), lse, row_dot;
      if (staged) {
        lse = shared_load(g, add(g, stats_area, mulc(g, local, 2)));
        row_dot = shared_load(g, addc(g, add(g, stats_area, mulc(g, local, 2)), 1));
      } else {
        int at = mulc(g, add(g, x->stats_row0, add(g, query0, local)), 2);
        lse = load_f32(g, x->stats, at);
        row_dot = load_f32(g, x->stats, addc(g, at, 1));
      }
      for (int i = e; i < 4; i += 2) {
        int *p = &s[nt * 4 + i];
        *p = fexp(g, fsub(g, *p, lse));
        dp[nt * 4 + i] = fmul(g, *p, fsub(g, dp[nt * 4 + i], row_dot));
      }
    }
  tc_as_fragments(g, s, pa);
  tc_as_fragments(g, dp, dsa);
  memcpy(next, args, sizeof(int) * (size_t)n);
  tc_accumulate_from(g, w, dsa, x->q, x->q_head, q_area, x->hd, query0, next);
  tc_accumulate_from(g, w, pa, x->d_o, x->o_head, o_area, x->hdv, query0, next + n_dk);
}

/* The products of the split gradient on tensor cores (see gen_attention_grad_from_stats for the formulas;
 * L and D from stats). Query tiles: a warp's group of 16 query rows with its q and do fragments in
 * registers; per block of 32 keys S = q k^T, P = exp(S scale - L), dP = do v^T, dS = P (dP - D) and
 * dq += dS k (k's rows as B pairs); the two warps of a group add their dq and the even one writes dq
 * scale. Key tiles: a group of 16 key rows; per block of 32 queries (those that see the keys), S^T = k q^T,
 * P^T = exp(S^T scale - L[query]), dP^T = v do^T, dS^T = P^T (dP^T - D[query]), dv += P^T do and
 * dk += dS^T q; the even warp writes dk scale and dv. Warp parity p takes the blocks of parity p (query
 * tiles) or of the parity of its first block plus p (key tiles). Staged: see "blocks staged per CTA". */
static void gen_attention_grad_from_stats_mma(gen *g, task_io *io, MlirOperation op) {
  tc_sides x = {.q = &io->in[0], .k = &io->in[1], .v = &io->in[2], .d_o = &io->in[3], .stats = &io->in[4]};
  const tensor_ref *dq = &io->out[0], *dk = &io->out[1], *dv = &io->out[2];
  x.causal = latch_attention_grad_from_stats_causal(op);
  int64_t bh_count = dim(x.q, 0) * dim(x.q, 1), tq = dim(x.q, 2), tk = dim(x.k, 2);
  x.hd = dim(x.q, 3), x.hdv = dim(x.v, 3);
  x.scale = cf32(g, latch_attention_grad_from_stats_scale(op));
  bool paired = latch_attention_grad_tiles_paired(x.causal, bh_count, tq, tk);
  int64_t tile_rows = paired ? LATCH_ATTENTION_GRAD_PAIRED_ROWS : TC_TILE_ROWS;
  int64_t query_tiles = bh_count * (tq / tile_rows);
  bool staged = attention_grad_stages(io);
  int vt = tiles_begin(g, query_tiles + bh_count * (tk / tile_rows));
  if (staged)
    tc_tile_shared(g, TC_GRAD_SHARED_WORDS);
  int zero = cf32(g, 0.0);
  int init[8 * TC_MAX_HEAD / 8], args[8 * TC_MAX_HEAD / 8], results[8 * TC_MAX_HEAD / 8], other[8 * TC_MAX_HEAD / 8];
  int next[8 * TC_MAX_HEAD / 8];
  when_begin(g, cmpi(g, "slt", vt, ci64(g, query_tiles), "i64"));
  {
    /* query rows: dq */
    tc_rows w;
    tc_rows_begin(g, vt, tq, paired_half_begin(g, paired), &w);
    x.q_head = attention_head(g, x.q, w.bh), x.k_head = attention_head(g, x.k, w.bh);
    x.v_head = attention_head(g, x.v, w.bh), x.o_head = attention_head(g, x.d_o, w.bh);
    tc_query_rows rows;
    tc_fragments(g, &w, x.q, x.q_head, x.hd, rows.qa);
    tc_fragments(g, &w, x.d_o, x.o_head, x.hdv, rows.doa);
    for (int h = 0; h < 2; ++h) {
      int row = add(g, mulc(g, w.bh, tq), add(g, w.row0, addc(g, w.r, 8 * h)));
      rows.lse[h] = load_f32(g, x.stats, mulc(g, row, 2));
      rows.row_dot[h] = load_f32(g, x.stats, addc(g, mulc(g, row, 2), 1));
    }
    int n = (int)(4 * x.hd / 8);
    for (int i = 0; i < n; ++i)
      init[i] = zero;
    tc_query_blocks(g, &w, &x, staged, tq, n, init, tc_grad_query_block, &rows, results);
    tc_exchange(g, &w, n, results, other);
    when_begin(g, cmpi(g, "eq", w.parity, ci64(g, 0), "i64"));
    for (int64_t nt = 0; nt < x.hd / 8; ++nt)
      for (int i = 0; i < 4; ++i) {
        int row, col;
        tc_place(g, &w, nt, i, &row, &col);
        int value = fmul(g, fadd(g, results[nt * 4 + i], other[nt * 4 + i]), x.scale);
        store_f32(g, dq, add(g, x.q_head, add(g, mulc(g, row, attention_row_stride(dq)), col)), value);
      }
    when_end(g);
    paired_half_end(g, paired);
  }
  otherwise(g);
  {
    /* key rows: dk and dv */
    tc_rows w;
    tc_rows_begin(g, sub(g, vt, ci64(g, query_tiles)), tk, paired_half_begin(g, paired), &w);
    x.q_head = attention_head(g, x.q, w.bh), x.k_head = attention_head(g, x.k, w.bh);
    x.v_head = attention_head(g, x.v, w.bh), x.o_head = attention_head(g, x.d_o, w.bh);
    x.stats_row0 = mulc(g, w.bh, tq);
    int n_dk = (int)(4 * x.hd / 8), n = n_dk + (int)(4 * x.hdv / 8);
    for (int i = 0; i < n; ++i)
      init[i] = zero;
    /* the group's first block: the first that sees its keys */
    int start = add(g, x.causal ? divc(g, w.row0, TC_KEYS) : ci64(g, 0), w.parity);
    if (staged) {
      /* the group's k and v rows, copied by its even warp (the loop's first barrier publishes them) */
      int own = addc(g, mulc(g, w.slot, 2 * TC_OWN_WORDS), 2 * TC_STAGE_WORDS);
      when_begin(g, cmpi(g, "eq", w.parity, ci64(g, 0), "i64"));
      tc_stage_rows_by(g, w.lane, 32, TC_GROUP, x.k, add(g, x.k_head, mulc(g, w.row0, attention_row_stride(x.k))), -1,
                       x.hd, own);
      tc_stage_rows_by(g, w.lane, 32, TC_GROUP, x.v, add(g, x.v_head, mulc(g, w.row0, attention_row_stride(x.v))), -1,
                       x.hdv, addc(g, own, TC_OWN_WORDS));
      when_end(g);
      /* from the pair of the tile's smallest group's first block */
      int first = x.causal ? divc(g, tc_tile_row0(g, &w, tk, false), 2 * TC_KEYS) : ci64(g, 0);
      int pair = tc_pairs_begin(g, &x, false, first, ci64(g, (tq / TC_KEYS + 1) / 2), n, init, args, results);
      {
        int mine[8 * TC_MAX_HEAD / 8], own_parity = remc(g, start, 2);
        int qb = add(g, mulc(g, pair, 2), own_parity), buffer = tc_stage_buffer(g, pair);
        int q_area = add(g, buffer, mulc(g, own_parity, TC_BLOCK_WORDS(x.hd)));
        int o_area = add(g, addc(g, buffer, TC_PAIR_WORDS), mulc(g, own_parity, TC_BLOCK_WORDS(x.hdv)));
        int stats_area = add(g, addc(g, buffer, 2 * TC_PAIR_WORDS), mulc(g, own_parity, 2 * TC_KEYS));
        int active = op2(g, "arith.andi", cmpi(g, "sge", qb, start, "i64"),
                         cmpi(g, "slt", qb, ci64(g, tq / TC_KEYS), "i64"), "i1");
        if_begin(g, active, n, f32_types, mine);
        tc_grad_key_block(g, &w, &x, mulc(g, qb, TC_KEYS), own, q_area, o_area, stats_area, args, next);
        if_else(g, n, next, f32_types);
        if_end(g, n, args, f32_types);
        for_end(g, n, mine, f32_types);
      }
    } else {
      int qb = for_begin(g, start, ci64(g, tq / TC_KEYS), ci64(g, 2), n, init, f32_types, args, results);
      tc_grad_key_block(g, &w, &x, mulc(g, qb, TC_KEYS), -1, -1, -1, -1, args, next);
      for_end(g, n, next, f32_types);
    }
    tc_exchange(g, &w, n, results, other);
    when_begin(g, cmpi(g, "eq", w.parity, ci64(g, 0), "i64"));
    for (int i = 0; i < n; ++i) {
      bool is_dk = i < n_dk;
      const tensor_ref *grad = is_dk ? dk : dv;
      int e = is_dk ? i : i - n_dk, row, col;
      tc_place(g, &w, e / 4, e % 4, &row, &col);
      int value = fadd(g, results[i], other[i]);
      store_f32(g, grad, add(g, is_dk ? x.k_head : x.v_head, add(g, mulc(g, row, attention_row_stride(grad)), col)),
                is_dk ? fmul(g, value, x.scale) : value);
    }
    when_end(g);
    paired_half_end(g, paired);
  }
  when_end(g);
  loop_end(g);
}

/* o = softmax(q k^T scale) v per (b, h): a warp per query row (attention_row_begin), an online softmax
 * over the keys in increasing order (row_loop). */
static void gen_attention(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *q = &io->in[0], *k = &io->in[1], *v = &io->in[2], *o = &io->out[0];
  bool causal = latch_attention_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hd = dim(q, 3), tk = dim(k, 2), hdv = dim(v, 3);
  int64_t pq = ceil_div(hd, 32), pv = ceil_div(hdv, 32);
  if (attention_fits_tensor_cores(q, k, v, false)) {
    gen_attention_mma(g, io, op);
    return;
  }
  if (pq > MAX_LANE_PARTS || pv > MAX_LANE_PARTS) {
    gen_attention_rows(g, io, op);
    return;
  }
  attention_row r = {.k = k, .v = v, .hd = hd, .hdv = hdv, .pq = pq, .pv = pv};
  r.scale = cf32(g, latch_attention_scale(op));
  r.lane = remc(g, g->tid, 32);
  int bh;
  int i = attention_row_begin(g, tiles_begin(g, attention_row_tiles(bh_count, tq)), tq, &bh);
  r.k_head = mulc(g, bh, tk * hd);
  r.v_head = mulc(g, bh, tk * hdv);
  lane_row(g, q, mulc(g, add(g, mulc(g, bh, tq), i), hd), hd, r.lane, r.qv);
  int init[2 + MAX_LANE_PARTS], results[2 + MAX_LANE_PARTS];
  init[0] = cf32(g, -INFINITY);
  init[1] = cf32(g, 0.0);
  for (int64_t m = 0; m < pv; ++m)
    init[2 + m] = cf32(g, 0.0);
  row_loop(g, ci64(g, 0), causal ? addc(g, i, 1) : ci64(g, tk), (int)(2 + pv), init, results, attention_forward_step, &r);
  int out[MAX_LANE_PARTS];
  for (int64_t m = 0; m < pv; ++m)
    out[m] = fdiv(g, results[2 + m], results[1]);
  lane_row_store(g, o, mulc(g, add(g, mulc(g, bh, tq), i), hdv), hdv, r.lane, out);
  if (io->out_count > 1) { /* task.attention_lse: L as the statistics compute it */
    when_begin(g, cmpi(g, "eq", r.lane, ci64(g, 0), "i64"));
    store_f32(g, &io->out[1], add(g, mulc(g, bh, tq), i), fadd(g, results[0], op1(g, "math.log", results[1], "f32")));
    when_end(g);
  }
  attention_row_end(g);
  loop_end(g);
}

/* The split gradient (latch-split-attention-grad). Statistics: per query row i (attention_row_begin),
 * L = log-sum-exp of the row's scores (online, keys increasing) and D = do[i] . o[i], written as
 * stats[bh, i] = (L, D) by lane 0. */
static void gen_attention_stats(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *q = &io->in[0], *k = &io->in[1], *o = &io->in[2], *d_o = &io->in[3], *stats = &io->out[0];
  bool causal = latch_attention_stats_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hd = dim(q, 3), tk = dim(k, 2), hdv = dim(o, 3);
  if (attention_fits_tensor_cores(q, k, o, false)) { /* o in v's place: bf16, as wide as v (only q, k feed mma) */
    gen_attention_stats_mma(g, io, op);
    return;
  }
  attention_row r = {.k = k, .hd = hd, .hdv = hdv, .pq = ceil_div(hd, 32), .pv = ceil_div(hdv, 32)};
  r.scale = cf32(g, latch_attention_stats_scale(op));
  r.lane = remc(g, g->tid, 32);
  int bh;
  int i = attention_row_begin(g, tiles_begin(g, attention_row_tiles(bh_count, tq)), tq, &bh);
  int row = add(g, mulc(g, bh, tq), i);
  r.k_head = mulc(g, bh, tk * hd);
  lane_row(g, q, mulc(g, row, hd), hd, r.lane, r.qv);
  int init[2] = {cf32(g, -INFINITY), cf32(g, 0.0)}, results[2];
  row_loop(g, ci64(g, 0), causal ? addc(g, i, 1) : ci64(g, tk), 2, init, results, attention_stats_step, &r);
  int lse = fadd(g, results[0], op1(g, "math.log", results[1], "f32"));
  int dov[MAX_LANE_PARTS], ov[MAX_LANE_PARTS];
  lane_row(g, d_o, mulc(g, row, hdv), hdv, r.lane, dov);
  lane_row(g, o, mulc(g, row, hdv), hdv, r.lane, ov);
  int row_dot = lane_dot(g, dov, ov, hdv);
  store_row_stats(g, stats, row, lse, row_dot, r.lane);
  attention_row_end(g);
  loop_end(g);
}

/* Statistics from the forward's lse (task.attention_stats_from_lse): stats[row] = (lse[row], do[row] . o[row])
 * per query row, four threads per row: thread c of the quad sums columns c, c + 4, ... in order and the
 * quad adds its four sums (quad_combine), the order of gen_attention_stats_mma's D, so the split gradient
 * reads the same bits either way. The last tile's threads past the rows read the last row (the shuffles
 * need every lane) and write nothing. */
static void gen_attention_stats_from_lse(gen *g, task_io *io) {
  const tensor_ref *o = &io->in[0], *d_o = &io->in[1], *lse = &io->in[2], *stats = &io->out[0];
  int64_t tq = dim(o, 2), hdv = dim(o, 3), rows = dim(o, 0) * dim(o, 1) * tq;
  int vt = tiles_begin(g, ceil_div(rows, LATCH_STATS_FROM_LSE_TILE_ROWS));
  int row = add(g, mulc(g, vt, LATCH_STATS_FROM_LSE_TILE_ROWS), divc(g, g->tid, 4)), c = remc(g, g->tid, 4);
  int at_row = mini(g, row, ci64(g, rows - 1)), bh = divc(g, at_row, tq), t = remc(g, at_row, tq);
  int do_row = add(g, attention_head(g, d_o, bh), mulc(g, t, attention_row_stride(d_o)));
  int o_row = add(g, attention_head(g, o, bh), mulc(g, t, attention_row_stride(o)));
  int dot_part = cf32(g, 0.0);
  for (int64_t col = 0; col < hdv; col += 4) {
    int at = addc(g, c, col);
    if (col + 4 <= hdv) {
      dot_part = fadd(g, dot_part, fmul(g, load_f32(g, d_o, add(g, do_row, at)), load_f32(g, o, add(g, o_row, at))));
      continue;
    }
    int inside = cmpi(g, "slt", at, ci64(g, hdv), "i64"), safe = mini(g, at, ci64(g, hdv - 1));
    int product = fmul(g, load_f32(g, d_o, add(g, do_row, safe)), load_f32(g, o, add(g, o_row, safe)));
    dot_part = sel(g, inside, fadd(g, dot_part, product), dot_part, "f32");
  }
  int row_dot = quad_combine(g, "arith.addf", dot_part);
  when_begin(g, cmpi(g, "slt", row, ci64(g, rows), "i64"));
  store_row_stats(g, stats, row, load_f32(g, lse, row), row_dot, c);
  when_end(g);
  loop_end(g);
}

/* Products of the split gradient, P[i, j] = exp(S[i, j] scale - L[i]) and dS = P (do[i] . v[j] - D[i]):
 * the first attention_row_tiles(B H, Tq) virtual tiles are query rows, dq[i] = sum_j dS k[j] scale over
 * increasing keys; the next attention_row_tiles(B H, Tk) are key rows, dk[j] = sum_i dS q[i] scale and
 * dv[j] = sum_i P do[i] over the queries that see key j (i >= j when causal), increasing i. One warp per
 * row, sums carried in registers (row_loop); every output row is written by one warp. */
static void gen_attention_grad_from_stats(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *q = &io->in[0], *k = &io->in[1], *v = &io->in[2], *d_o = &io->in[3], *stats = &io->in[4];
  const tensor_ref *dq = &io->out[0], *dk = &io->out[1], *dv = &io->out[2];
  bool causal = latch_attention_grad_from_stats_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hd = dim(q, 3), tk = dim(k, 2), hdv = dim(v, 3);
  int64_t pq = ceil_div(hd, 32), pv = ceil_div(hdv, 32);
  if (attention_fits_tensor_cores(q, k, v, true) && d_o->kind != PLACE_CONST &&
      stats->kind != PLACE_CONST) {
    gen_attention_grad_from_stats_mma(g, io, op);
    return;
  }
  attention_row r = {.k = k, .v = v, .q = q, .d_o = d_o, .stats = stats, .hd = hd, .hdv = hdv, .pq = pq, .pv = pv};
  r.scale = cf32(g, latch_attention_grad_from_stats_scale(op));
  r.lane = remc(g, g->tid, 32);
  int zero = ci64(g, 0);
  int init[2 * MAX_LANE_PARTS], results[2 * MAX_LANE_PARTS];
  int64_t query_tiles = attention_row_tiles(bh_count, tq), row_tiles = query_tiles + attention_row_tiles(bh_count, tk);
  /* paired (the tile count of latch_attention_grad_tiles_paired): a tile runs two of the row tiles */
  bool paired = latch_attention_grad_tiles_paired(causal, bh_count, tq, tk);
  int vt = tiles_begin(g, paired ? row_tiles / 2 : row_tiles);
  int half = paired_half_begin(g, paired);
  if (paired)
    vt = add(g, mulc(g, vt, 2), half);
  when_begin(g, cmpi(g, "slt", vt, ci64(g, query_tiles), "i64"));
  {
    /* query row i */
    int bh;
    int i = attention_row_begin(g, vt, tq, &bh);
    int row = add(g, mulc(g, bh, tq), i);
    r.k_head = mulc(g, bh, tk * hd);
    r.v_head = mulc(g, bh, tk * hdv);
    lane_row(g, q, mulc(g, row, hd), hd, r.lane, r.qv);
    lane_row(g, d_o, mulc(g, row, hdv), hdv, r.lane, r.dov);
    r.lse = load_f32(g, stats, mulc(g, row, 2));
    r.row_dot = load_f32(g, stats, addc(g, mulc(g, row, 2), 1));
    for (int64_t m = 0; m < pq; ++m)
      init[m] = cf32(g, 0.0);
    row_loop(g, zero, causal ? addc(g, i, 1) : ci64(g, tk), (int)pq, init, results, attention_dq_step, &r);
    lane_row_store(g, dq, mulc(g, row, hd), hd, r.lane, results);
    attention_row_end(g);
  }
  otherwise(g);
  {
    /* key row j */
    int bh;
    int j = attention_row_begin(g, sub(g, vt, ci64(g, query_tiles)), tk, &bh);
    int key = add(g, mulc(g, bh, tk), j);
    r.q_head = mulc(g, bh, tq * hd);
    r.o_head = mulc(g, bh, tq * hdv);
    r.stats_head = mulc(g, bh, tq * 2);
    lane_row(g, k, mulc(g, key, hd), hd, r.lane, r.kv);
    lane_row(g, v, mulc(g, key, hdv), hdv, r.lane, r.vv);
    int n = (int)(pq + pv);
    for (int m = 0; m < n; ++m)
      init[m] = cf32(g, 0.0);
    row_loop(g, causal ? j : zero, ci64(g, tq), n, init, results, attention_dkv_step, &r);
    lane_row_store(g, dk, mulc(g, key, hd), hd, r.lane, results);
    lane_row_store(g, dv, mulc(g, key, hdv), hdv, r.lane, results + pq);
    attention_row_end(g);
  }
  when_end(g);
  paired_half_end(g, paired);
  loop_end(g);
}

/* The gradient (see gen_attention_grad_rows for the formulas), one warp per row: per (b, h, block) warp
 * w takes query rows and key rows w, w + 8, ... of the block. For each chunk of STATS_CHUNK query rows
 * (from the block's first row on, causal) the warps compute each row's log-sum-exp (online, keys
 * increasing) and D = rowsum(do o) into shared memory; then the chunk's query rows sum dq over their
 * keys, and the key rows add the chunk's queries i >= j to dk and dv, carried between chunks in local
 * memory. No atomics; every sum in a fixed order. */
#define KEY_ROWS_PER_WARP (ATTENTION_TILE / WARPS)
static void gen_attention_grad(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *q = &io->in[0], *k = &io->in[1], *v = &io->in[2], *o = &io->in[3], *d_o = &io->in[4];
  const tensor_ref *dq = &io->out[0], *dk = &io->out[1], *dv = &io->out[2];
  bool causal = latch_attention_grad_causal(op);
  int64_t bh_count = dim(q, 0) * dim(q, 1), tq = dim(q, 2), hd = dim(q, 3), tk = dim(k, 2), hdv = dim(v, 3);
  int64_t pq = ceil_div(hd, 32), pv = ceil_div(hdv, 32);
  if (pq > MAX_LANE_PARTS || pv > MAX_LANE_PARTS) {
    gen_attention_grad_rows(g, io, op);
    return;
  }
  int dk_acc = local_array(g, KEY_ROWS_PER_WARP * pq), dv_acc = local_array(g, KEY_ROWS_PER_WARP * pv);
  int scale = cf32(g, latch_attention_grad_scale(op));
  int64_t q_blocks = ceil_div(tq, ATTENTION_TILE), k_blocks = ceil_div(tk, ATTENTION_TILE);
  int64_t blocks = q_blocks > k_blocks ? q_blocks : k_blocks;
  int vt = tiles_begin(g, bh_count * blocks);
  int bh = divc(g, vt, blocks), block = remc(g, vt, blocks);
  int first = mulc(g, block, ATTENTION_TILE);
  int zero = ci64(g, 0), one = ci64(g, 1);
  int q_end = mini(g, addc(g, first, ATTENTION_TILE), ci64(g, tq));
  int k_end = mini(g, addc(g, first, ATTENTION_TILE), ci64(g, tk));
  int q_head = mulc(g, bh, tq * hd), k_head = mulc(g, bh, tk * hd);
  int v_head = mulc(g, bh, tk * hdv), o_head = mulc(g, bh, tq * hdv);
  int lane = remc(g, g->tid, 32), warp = divc(g, g->tid, 32);
  local_fill(g, dk_acc, KEY_ROWS_PER_WARP * pq, cf32(g, 0.0));
  local_fill(g, dv_acc, KEY_ROWS_PER_WARP * pv, cf32(g, 0.0));
  int qv[MAX_LANE_PARTS], kv[MAX_LANE_PARTS], vv[MAX_LANE_PARTS], dov[MAX_LANE_PARTS], ov[MAX_LANE_PARTS];
  int chunk = loop_begin(g, causal ? first : zero, ci64(g, tq), ci64(g, STATS_CHUNK));
  int chunk_end = mini(g, addc(g, chunk, STATS_CHUNK), ci64(g, tq));
  sync_threads(g);
  {
    /* L[i] and D[i] of the chunk's rows, a row per warp iteration; lane 0 writes them */
    int i = loop_begin(g, add(g, chunk, warp), chunk_end, ci64(g, WARPS));
    lane_row(g, q, add(g, q_head, mulc(g, i, hd)), hd, lane, qv);
    int keys = causal ? addc(g, i, 1) : ci64(g, tk);
    const char *types[2] = {"f32", "f32"};
    int init[2] = {cf32(g, -INFINITY), cf32(g, 0.0)}, args[2], results[2];
    int j = for_begin(g, zero, keys, one, 2, init, types, args, results);
    lane_row(g, k, add(g, k_head, mulc(g, j, hd)), hd, lane, kv);
    int s = fmul(g, lane_dot(g, qv, kv, hd), scale);
    softmax_step step = online_softmax_step(g, args[0], args[1], s);
    int next[2] = {step.max, step.sum};
    for_end(g, 2, next, types);
    int lse = fadd(g, results[0], op1(g, "math.log", results[1], "f32"));
    int o_row = add(g, o_head, mulc(g, i, hdv));
    lane_row(g, d_o, o_row, hdv, lane, dov);
    lane_row(g, o, o_row, hdv, lane, ov);
    int row_dot = lane_dot(g, dov, ov, hdv);
    when_begin(g, cmpi(g, "eq", lane, zero, "i64"));
    int local = sub(g, i, chunk);
    shared_store(g, local, lse);
    shared_store(g, addc(g, local, STATS_CHUNK), row_dot);
    when_end(g);
    loop_end(g);
  }
  sync_threads(g);
  {
    /* query rows of the block in this chunk: dq[i] = sum_j dS[i, j] k[j] scale, keys increasing */
    int i = loop_begin(g, add(g, maxi(g, first, chunk), warp), mini(g, q_end, chunk_end), ci64(g, WARPS));
    int q_row = add(g, q_head, mulc(g, i, hd)), o_row = add(g, o_head, mulc(g, i, hdv));
    lane_row(g, q, q_row, hd, lane, qv);
    lane_row(g, d_o, o_row, hdv, lane, dov);
    int local = sub(g, i, chunk);
    int lse = shared_load(g, local), row_dot = shared_load(g, addc(g, local, STATS_CHUNK));
    int keys = causal ? addc(g, i, 1) : ci64(g, tk);
    int init[MAX_LANE_PARTS], args[MAX_LANE_PARTS], results[MAX_LANE_PARTS], next[MAX_LANE_PARTS];
    for (int64_t m = 0; m < pq; ++m)
      init[m] = cf32(g, 0.0);
    int j = for_begin(g, zero, keys, one, (int)pq, init, f32_types, args, results);
    lane_row(g, k, add(g, k_head, mulc(g, j, hd)), hd, lane, kv);
    lane_row(g, v, add(g, v_head, mulc(g, j, hdv)), hdv, lane, vv);
    int p = fexp(g, fsub(g, fmul(g, lane_dot(g, qv, kv, hd), scale), lse));
    int ds = fmul(g, p, fsub(g, lane_dot(g, dov, vv, hdv), row_dot));
    for (int64_t m = 0; m < pq; ++m)
      next[m] = fadd(g, args[m], fmul(g, fmul(g, ds, kv[m]), scale));
    for_end(g, (int)pq, next, f32_types);
    lane_row_store(g, dq, q_row, hd, lane, results);
    loop_end(g);
  }
  {
    /* key rows: dv[j] += P[i, j] do[i], dk[j] += dS[i, j] q[i] scale over the chunk's queries that see
     * key j (i >= j when causal), increasing i */
    int t = loop_begin(g, zero, ci64(g, KEY_ROWS_PER_WARP), one);
    int j = add(g, first, add(g, warp, mulc(g, t, WARPS)));
    when_begin(g, cmpi(g, "slt", j, k_end, "i64"));
    lane_row(g, k, add(g, k_head, mulc(g, j, hd)), hd, lane, kv);
    lane_row(g, v, add(g, v_head, mulc(g, j, hdv)), hdv, lane, vv);
    int init[2 * MAX_LANE_PARTS], args[2 * MAX_LANE_PARTS], results[2 * MAX_LANE_PARTS], next[2 * MAX_LANE_PARTS] = {0};
    int n = (int)(pq + pv);
    for (int64_t m = 0; m < pq; ++m)
      init[m] = local_load(g, dk_acc, addc(g, mulc(g, t, pq), m));
    for (int64_t m = 0; m < pv; ++m)
      init[pq + m] = local_load(g, dv_acc, addc(g, mulc(g, t, pv), m));
    int i = for_begin(g, causal ? maxi(g, chunk, j) : chunk, chunk_end, one, n, init, f32_types, args, results);
    lane_row(g, q, add(g, q_head, mulc(g, i, hd)), hd, lane, qv);
    lane_row(g, d_o, add(g, o_head, mulc(g, i, hdv)), hdv, lane, dov);
    int local = sub(g, i, chunk);
    int lse = shared_load(g, local), row_dot = shared_load(g, addc(g, local, STATS_CHUNK));
    int p = fexp(g, fsub(g, fmul(g, lane_dot(g, qv, kv, hd), scale), lse));
    int ds = fmul(g, p, fsub(g, lane_dot(g, dov, vv, hdv), row_dot));
    for (int64_t m = 0; m < pq; ++m)
      next[m] = fadd(g, args[m], fmul(g, fmul(g, ds, qv[m]), scale));
    for (int64_t m = 0; m < pv; ++m)
      next[pq + m] = fadd(g, args[pq + m], fmul(g, p, dov[m]));
    for_end(g, n, next, f32_types);
    for (int64_t m = 0; m < pq; ++m)
      local_store(g, dk_acc, addc(g, mulc(g, t, pq), m), results[m]);
    for (int64_t m = 0; m < pv; ++m)
      local_store(g, dv_acc, addc(g, mulc(g, t, pv), m), results[pq + m]);
    when_end(g);
    loop_end(g);
  }
  loop_end(g);
  {
    int t = loop_begin(g, zero, ci64(g, KEY_ROWS_PER_WARP), one);
    int j = add(g, first, add(g, warp, mulc(g, t, WARPS)));
    when_begin(g, cmpi(g, "slt", j, k_end, "i64"));
    int out[MAX_LANE_PARTS];
    for (int64_t m = 0; m < pq; ++m)
      out[m] = local_load(g, dk_acc, addc(g, mulc(g, t, pq), m));
    lane_row_store(g, dk, add(g, k_head, mulc(g, j, hd)), hd, lane, out);
    for (int64_t m = 0; m < pv; ++m)
      out[m] = local_load(g, dv_acc, addc(g, mulc(g, t, pv), m));
    lane_row_store(g, dv, add(g, v_head, mulc(g, j, hdv)), hdv, lane, out);
    when_end(g);
    loop_end(g);
  }
  loop_end(g);
}

/* ---- topk, bucket ---- */

/* True when (a, ia) comes before (b, ib) in topk order: larger first, NaN largest, ties to the lower
 * index. */
static int topk_before(gen *g, int a, int ia, int b, int ib) {
  int na = cmpf(g, "uno", a, a, "f32"), nb = cmpf(g, "uno", b, b, "f32");
  int differ = op2(g, "arith.xori", na, nb, "i1");
  int nan_first = op2(g, "arith.andi", differ, na, "i1");
  int greater = op2(g, "arith.andi", not1(g, na), cmpf(g, "ogt", a, b, "f32"), "i1");
  int tie = op2(g, "arith.andi", op2(g, "arith.ori", na, cmpf(g, "oeq", a, b, "f32"), "i1"),
                cmpi(g, "slt", ia, ib, "i64"), "i1");
  int same_kind = op2(g, "arith.andi", not1(g, differ), op2(g, "arith.ori", greater, tie, "i1"), "i1");
  return op2(g, "arith.ori", nan_first, same_kind, "i1");
}

/* Row per thread iteration: slot s takes the first element (in topk order) after the one slot s-1 took;
 * O(k E) per row, no scratch memory. */
static void gen_topk(gen *g, task_io *io, MlirOperation op) {
  const tensor_ref *x = &io->in[0], *values = &io->out[0], *indices = &io->out[1];
  int64_t e_count = dim(x, 1), k = latch_topk_k(op);
  int row = rows_begin(g, dim(x, 0));
  int base = mulc(g, row, e_count);
  const char *types[2] = {"f32", "i64"};
  int minus_one = ci64(g, -1);
  int init[2] = {cf32(g, 0.0), minus_one}, previous[2], last[2];
  int s = for_begin(g, ci64(g, 0), ci64(g, k), ci64(g, 1), 2, init, types, previous, last);
  int start[2] = {cf32(g, 0.0), minus_one}, best[2], chosen[2];
  int j = for_begin(g, ci64(g, 0), ci64(g, e_count), ci64(g, 1), 2, start, types, best, chosen);
  int value = load_f32(g, x, add(g, base, j));
  int none_before = cmpi(g, "slt", previous[1], ci64(g, 0), "i64");
  int after = op2(g, "arith.ori", none_before, topk_before(g, previous[0], previous[1], value, j), "i1");
  int none_yet = cmpi(g, "slt", best[1], ci64(g, 0), "i64");
  int better = op2(g, "arith.ori", none_yet, topk_before(g, value, j, best[0], best[1]), "i1");
  int take = op2(g, "arith.andi", after, better, "i1");
  int next[2] = {sel(g, take, value, best[0], "f32"), sel(g, take, j, best[1], "i64")};
  for_end(g, 2, next, types);
  int out = add(g, mulc(g, row, k), s);
  store_f32(g, values, out, chosen[0]);
  store_raw(g, indices, out, cast(g, "arith.trunci", chosen[1], "i64", "i32"));
  for_end(g, 2, chosen, types);
  loop_end(g);
  loop_end(g);
}

/* ends[g] = #{s : ids[s] <= g}; order[#{s' : ids[s'] < ids[s]} + #{s' < s : ids[s'] = ids[s]}] = s: a
 * stable counting sort. Two forms, both exact (integer counts) and with the same result:
 *
 * - G <= LATCH_BUCKET_COUNTED_GROUPS (bucket_by_match): tile vt owns the sort positions of s in
 *   [p0, p0 + 256). Every tile counts, over all N ids (256 at a time, coalesced), per bucket b how many
 *   ids equal b (total) and how many of those come before p0 (before): in each warp `match.any` groups
 *   the lanes of equal ids and the group's lowest lane adds its size to the warp's count of that id in
 *   shared memory (a few instructions per id, where a ballot per bucket took 2 G); the warps' counts
 *   meet in shared memory. Thread t then places s = p0 + t at sum over b < id of total[b], plus
 *   before[id], plus the ids equal to its own among the tile's earlier ones: its own warp's lanes below it
 *   (from the match of the tile's own step) and the earlier warps' counts of that step. Tile 0 writes
 *   ends. O(N) per tile, O(N^2 / 256) in all. Ids are clamped into [0, G) (an id outside is an error of
 *   the program; clamped, no write leaves order).
 * - otherwise every position is computed by one thread from all N ids (O(N) each): the G + N items in
 *   virtual tiles of 256. */
#define BUCKET_TILE 256
/* shared i32 words, per warp and bucket: the counts of all ids, of those before p0, of the tile's own */
#define BUCKET_COUNTS (WARPS * LATCH_BUCKET_COUNTED_GROUPS)
#define BUCKET_BEFORE BUCKET_COUNTS
#define BUCKET_OWN (2 * BUCKET_COUNTS)
_Static_assert(3 * BUCKET_COUNTS <= SHARED_FLOATS, "the bucket tile fits @latch_smem");
_Static_assert(BUCKET_TILE == CTA_THREADS, "a bucket tile is one position per thread");

static int clamped_bucket(gen *g, const tensor_ref *ids, int s, int64_t groups) {
  return mini(g, maxi(g, load_index(g, ids, s), ci64(g, 0)), ci64(g, groups - 1));
}

/* shared i32 word `index` += value (another lane of the warp may add to it in the next step) */
static void shared_add_i32(gen *g, int index, int value) {
  int old = fresh(g);
  ln(g, "%%v%d = llvm.atomicrmw add %%v%d, %%v%d syncscope(\"block\") monotonic : !llvm.ptr<3>, i32", old,
     shared_address(g, index), value);
}

/* The sum over the warps w (those below `below`, when it is not -1) of shared i32 word base + w G + b
 * (b an i64 value), as i64. */
static int warps_sum(gen *g, int64_t base, int64_t groups, int b, int below) {
  int sum = ci64(g, 0);
  for (int w = 0; w < WARPS; ++w) {
    int count = cast(g, "arith.extsi", shared_load_as(g, add(g, ci64(g, base + w * groups), b), "i32"), "i32", "i64");
    if (below >= 0)
      count = sel(g, cmpi(g, "slt", ci64(g, w), below, "i64"), count, ci64(g, 0), "i64");
    sum = add(g, sum, count);
  }
  return sum;
}

static void bucket_by_match(gen *g, const tensor_ref *ids, const tensor_ref *order, const tensor_ref *ends) {
  int64_t n = ids->elements, groups = ends->elements;
  int zero = ci64(g, 0), lane = remc(g, g->tid, 32), warp = divc(g, g->tid, 32);
  int vt = tiles_begin(g, ceil_div(n, BUCKET_TILE));
  int p0 = mulc(g, vt, BUCKET_TILE);
  sync_threads(g); /* the previous tile's shared words are used up */
  int w = loop_begin(g, g->tid, ci64(g, 3 * BUCKET_COUNTS), g->ntid);
  shared_store_as(g, w, ci32(g, 0), "i32");
  loop_end(g);
  sync_threads(g);
  int lane32 = cast(g, "arith.trunci", lane, "i64", "i32"), below = lanes_below(g, lane);
  int rank_arg, rank_in_warp; /* the lanes of the thread's warp below it with its id, in the tile's own step */
  int c = loop1_begin(g, zero, ci64(g, n), ci64(g, CTA_THREADS), ci32(g, 0), "i32", &rank_arg, &rank_in_warp);
  {
    int s = add(g, c, g->tid);
    int inside = cmpi(g, "slt", s, ci64(g, n), "i64");
    int id = sel(g, inside, clamped_bucket(g, ids, mini(g, s, ci64(g, n - 1)), groups), ci64(g, -1), "i64");
    int same = fresh(g);
    ln(g, "%%v%d = nvvm.match.sync any %%v%d, %%v%d : i32 -> i32", same, ci32(g, -1),
       cast(g, "arith.trunci", id, "i64", "i32"));
    int first = lowest_bit32(g, same);
    int own_step = cmpi(g, "eq", c, p0, "i64");
    when_begin(g, op2(g, "arith.andi", inside, cmpi(g, "eq", first, lane32, "i32"), "i1"));
    {
      int word = add(g, mulc(g, warp, groups), id), count = popc32(g, same);
      shared_add_i32(g, word, count);
      when_begin(g, cmpi(g, "slt", c, p0, "i64"));
      shared_add_i32(g, addc(g, word, BUCKET_BEFORE), count);
      when_end(g);
      when_begin(g, own_step);
      shared_add_i32(g, addc(g, word, BUCKET_OWN), count);
      when_end(g);
    }
    when_end(g);
    loop1_end(g, sel(g, own_step, popc32(g, op2(g, "arith.andi", same, below, "i32")), rank_arg, "i32"), "i32");
  }
  sync_threads(g);
  int s = add(g, p0, g->tid);
  int mine = cmpi(g, "slt", s, ci64(g, n), "i64");
  when_begin(g, mine);
  {
    int id = clamped_bucket(g, ids, s, groups);
    int rank = warps_sum(g, BUCKET_BEFORE, groups, id, -1);
    for (int64_t b = 0; b < groups; ++b) {
      int earlier = cmpi(g, "slt", ci64(g, b), id, "i64");
      rank = add(g, rank, sel(g, earlier, warps_sum(g, 0, groups, ci64(g, b), -1), zero, "i64"));
    }
    int within = add(g, cast(g, "arith.extui", rank_in_warp, "i32", "i64"), warps_sum(g, BUCKET_OWN, groups, id, warp));
    store_raw(g, order, add(g, rank, within), cast(g, "arith.trunci", s, "i64", "i32"));
  }
  when_end(g);
  int writes_ends = op2(g, "arith.andi", cmpi(g, "eq", vt, zero, "i64"), cmpi(g, "slt", g->tid, ci64(g, groups), "i64"), "i1");
  when_begin(g, writes_ends);
  {
    int acc, end;
    int b = loop1_begin(g, zero, addc(g, g->tid, 1), ci64(g, 1), zero, "i64", &acc, &end);
    loop1_end(g, add(g, acc, warps_sum(g, 0, groups, b, -1)), "i64");
    store_raw(g, ends, g->tid, cast(g, "arith.trunci", end, "i64", "i32"));
  }
  when_end(g);
  loop_end(g);
}

static void gen_bucket(gen *g, task_io *io) {
  const tensor_ref *ids = &io->in[0], *order = &io->out[0], *ends = &io->out[1];
  int64_t n = ids->elements, groups = ends->elements;
  if (groups <= LATCH_BUCKET_COUNTED_GROUPS) {
    bucket_by_match(g, ids, order, ends);
    return;
  }
  int vt = tiles_begin(g, ceil_div(groups + n, BUCKET_TILE));
  int w = span_begin(g, vt, BUCKET_TILE, groups + n);
  int group_count = ci64(g, groups);
  when_begin(g, cmpi(g, "slt", w, group_count, "i64"));
  {
    int acc, count;
    int s = loop1_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1), ci32(g, 0), "i32", &acc, &count);
    int below = cmpi(g, "sle", load_index(g, ids, s), w, "i64");
    loop1_end(g, op2(g, "arith.addi", acc, cast(g, "arith.extui", below, "i1", "i32"), "i32"), "i32");
    store_raw(g, ends, w, count);
  }
  otherwise(g);
  {
    int s = sub(g, w, group_count);
    int id = load_index(g, ids, s);
    int acc, position;
    int s2 = loop1_begin(g, ci64(g, 0), ci64(g, n), ci64(g, 1), ci64(g, 0), "i64", &acc, &position);
    int other = load_index(g, ids, s2);
    int earlier = op2(g, "arith.ori", cmpi(g, "slt", other, id, "i64"),
                      op2(g, "arith.andi", cmpi(g, "eq", other, id, "i64"), cmpi(g, "slt", s2, s, "i64"), "i1"), "i1");
    loop1_end(g, add(g, acc, cast(g, "arith.extui", earlier, "i1", "i64")), "i64");
    store_raw(g, order, position, cast(g, "arith.trunci", s, "i64", "i32"));
  }
  when_end(g);
  loop_end(g);
  loop_end(g);
}

/* ---- one task ---------------------------------------------------------------------------------------- */

/* Which results may share bytes with which operands: an elementwise task may write a result exactly over
 * an operand of the same element size (latch-plan-arena's in-place writes), a reshape may be planned
 * over its input (no copy then), task.adamw writes over p, m, v; anything else must be disjoint. */
static bool check_places(lowerer *l, MlirOperation op, latch_op_kind kind, const task_io *io) {
  for (int r = 0; r < io->out_count; ++r) {
    const tensor_ref *out = &io->out[r];
    if (out->kind == PLACE_CONST) {
      report(l, op, "a result cannot be a constant");
      return false;
    }
    if (kind == LATCH_OP_TASK_ADAMW)
      continue;
    for (int k = 0; k < io->in_count; ++k) {
      const tensor_ref *in = &io->in[k];
      if (!places_overlap(out, in))
        continue;
      bool elementwise = kind == LATCH_OP_TASK_MAP || kind == LATCH_OP_TASK_CONVERT || kind == LATCH_OP_TASK_RESHAPE;
      bool exact = places_equal(out, in) && dtype_bytes(out->dt) == dtype_bytes(in->dt) &&
                   (in->rank > 0 || out->elements == 1) && in->elements == out->elements;
      if (!(elementwise && exact)) {
        report(l, op, "result %d overlaps operand %d in memory and this task cannot run in place", r, k);
        return false;
      }
    }
    for (int s = 0; s < r; ++s)
      if (places_overlap(out, &io->out[s])) {
        report(l, op, "results %d and %d overlap in memory", s, r);
        return false;
      }
  }
  return true;
}

static bool read_io(lowerer *l, MlirOperation op, task_io *io) {
  io->in_count = (int)mlirOperationGetNumOperands(op);
  io->out_count = (int)mlirOperationGetNumResults(op);
  if (io->in_count > LATCH_MAP_MAX_INPUTS + 1 || io->out_count > LATCH_MAP_MAX_OUTPUTS) {
    report(l, op, "too many operands or results");
    return false;
  }
  for (int k = 0; k < io->in_count; ++k)
    if (!locate(l, op, mlirOperationGetOperand(op, k), &io->in[k]))
      return false;
  for (int r = 0; r < io->out_count; ++r)
    if (!locate(l, op, mlirOperationGetResult(op, r), &io->out[r]))
      return false;
  latch_op_kind kind = latch_op_kind_of(op);
  if (latch_op_takes_layout(kind) && latch_attention_bthd(op)) {
    int layout_in = latch_layout_operand_count(kind), layout_out = latch_layout_result_count(kind);
    for (int i = 0; i < layout_in + layout_out; ++i) {
      tensor_ref *t = i < layout_in ? &io->in[i] : &io->out[i - layout_in];
      if (t->rank != 4 || t->kind == PLACE_CONST) {
        report(l, op, "with layout = \"bthd\" every tensor but stats must be a 4-D tensor in memory");
        return false;
      }
      int64_t t_dim = t->dims[1];
      t->dims[1] = t->dims[2], t->dims[2] = t_dim, t->bthd = true;
    }
  }
  return true;
}

/* Shape facts the templates rely on that latch-verify checks; checked again so that a template never
 * indexes outside a tensor. */
static bool check_shapes(lowerer *l, MlirOperation op, latch_op_kind kind, const task_io *io) {
  const tensor_ref *in = io->in, *out = io->out;
  bool ok = true;
  switch (kind) {
  case LATCH_OP_TASK_MATMUL: {
    int r = out[0].rank;
    ok = io->in_count == 2 && (r == 2 || r == 3) && in[0].rank == r && in[1].rank == r;
    if (ok) {
      bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
      int64_t m = ta ? in[0].dims[r - 1] : in[0].dims[r - 2], k = ta ? in[0].dims[r - 2] : in[0].dims[r - 1];
      int64_t k2 = tb ? in[1].dims[r - 1] : in[1].dims[r - 2], n = tb ? in[1].dims[r - 2] : in[1].dims[r - 1];
      ok = k == k2 && out[0].dims[r - 2] == m && out[0].dims[r - 1] == n &&
           (r == 2 || (in[0].dims[0] == out[0].dims[0] && in[1].dims[0] == out[0].dims[0]));
      ok = ok && in[0].dt != DT_I32 && in[1].dt != DT_I32 && out[0].dt != DT_I32;
    }
    break;
  }
  case LATCH_OP_TASK_GROUPED_MATMUL: {
    bool transposed = latch_grouped_matmul_transpose_w(op); /* w is [G, K, N] or [G, N, K] */
    int64_t offset = latch_grouped_matmul_w_column_offset(op);
    ok = in[0].rank == 2 && in[1].rank == 3 && in[2].rank == 1 && out[0].rank == 2 && in[2].dt == DT_I32 &&
         in[2].dims[0] == in[1].dims[0] && out[0].dims[0] == in[0].dims[0];
    if (ok) {
      /* the dim of w the op reads whole, and the columns it reads of the last (all of them without an offset) */
      int64_t whole = transposed ? out[0].dims[1] : in[0].dims[1], read = transposed ? in[0].dims[1] : out[0].dims[1];
      ok = in[1].dims[1] == whole &&
           (offset < 0 ? in[1].dims[2] == read : offset + read <= in[1].dims[2]);
    }
    break;
  }
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD:
    ok = in[0].rank == 2 && in[1].rank == 2 && in[2].rank == 1 && out[0].rank == 3 && in[2].dt == DT_I32 &&
         in[1].dims[0] == in[0].dims[0] && out[0].dims[0] == in[2].dims[0] && out[0].dims[1] == in[0].dims[1] &&
         out[0].dims[2] == in[1].dims[1];
    break;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT:
    ok = in[0].rank == 2 && in[1].rank == 2 && in[2].rank == 2 && in[3].rank == 1 && out[0].rank == 3 &&
         in[3].dt == DT_I32 && in[1].dims[0] == in[0].dims[0] && in[2].dims[0] == in[0].dims[0] &&
         in[2].dims[1] == in[1].dims[1] && in[1].dt == in[2].dt && out[0].dims[0] == in[3].dims[0] &&
         out[0].dims[1] == in[0].dims[1] && out[0].dims[2] == 2 * in[1].dims[1];
    break;
  case LATCH_OP_TASK_MAP:
    ok = io->out_count >= 1;
    for (int k = 0; ok && k < io->in_count; ++k)
      ok = in[k].rank == 0 || in[k].elements == out[0].elements;
    for (int r = 0; ok && r < io->out_count; ++r)
      ok = out[r].elements == out[0].elements;
    break;
  case LATCH_OP_TASK_REDUCE:
  case LATCH_OP_TASK_REDUCE_GRAD: {
    int64_t axis = latch_attr_int(op, "axis", -1);
    MlirStringRef kind_name = latch_attr_string(op, "kind");
    ok = in[0].rank >= 1 && axis >= 0 && axis < in[0].rank && reduction_of(kind_name) != REDUCE_BAD &&
         out[0].elements == (kind == LATCH_OP_TASK_REDUCE ? (in[0].dims[axis] ? in[0].elements / in[0].dims[axis] : 0)
                                                           : in[0].elements);
    if (ok && kind == LATCH_OP_TASK_REDUCE && in[0].dt == DT_I32 && reduction_of(kind_name) == REDUCE_MEAN) {
      report(l, op, "kind \"mean\" needs a float tensor");
      return false;
    }
    if (ok && kind == LATCH_OP_TASK_REDUCE)
      ok = (in[0].dt == DT_I32) == (out[0].dt == DT_I32);
    if (ok && kind == LATCH_OP_TASK_REDUCE_GRAD)
      ok = in[0].dt != DT_I32 && in[1].dt != DT_I32 && out[0].dt != DT_I32 &&
           in[1].elements == out[0].elements / (in[0].dims[axis] ? in[0].dims[axis] : 1);
    break;
  }
  case LATCH_OP_TASK_RMSNORM:
  case LATCH_OP_TASK_RMSNORM_GRAD:
    ok = in[0].rank >= 1 && in[1].rank == 1 && in[1].dims[0] == last_dim(&in[0]) &&
         out[0].elements == in[0].elements && (kind == LATCH_OP_TASK_RMSNORM || (in[2].elements == in[0].elements &&
                                                                                 out[1].elements == in[1].elements));
    break;
  case LATCH_OP_TASK_SOFTMAX:
    ok = in[0].rank >= 1 && out[0].elements == in[0].elements;
    break;
  case LATCH_OP_TASK_SOFTMAX_GRAD:
    ok = in[0].rank >= 1 && in[1].elements == in[0].elements && out[0].elements == in[0].elements;
    break;
  case LATCH_OP_TASK_CROSS_ENTROPY:
  case LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS:
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD:
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS: {
    bool forward = kind == LATCH_OP_TASK_CROSS_ENTROPY || kind == LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS;
    ok = in[0].rank == 2 && in[1].rank == 1 && in[1].dt == DT_I32 && in[1].dims[0] == in[0].dims[0] &&
         in[0].dims[1] >= 1 &&
         (forward ? out[0].elements == 1 : in[2].elements == 1 && out[0].elements == in[0].elements);
    const tensor_ref *stats = kind == LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS ? &out[1]
                              : kind == LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS ? &in[3] : NULL;
    if (ok && stats)
      ok = stats->dt == DT_F32 && stats->elements == 2 * in[0].dims[0];
    break;
  }
  case LATCH_OP_TASK_EMBEDDING:
    ok = in[0].rank == 2 && in[1].dt == DT_I32 && out[0].elements == in[1].elements * in[0].dims[1] &&
         out[0].dt == in[0].dt;
    break;
  case LATCH_OP_TASK_GATHER_ROWS:
    ok = in[0].rank == 2 && in[1].rank == 1 && in[1].dt == DT_I32 && out[0].rank == 2 &&
         out[0].dims[0] == in[1].dims[0] && out[0].dims[1] == in[0].dims[1] && out[0].dt == in[0].dt;
    break;
  case LATCH_OP_TASK_SCATTER_ADD_ROWS:
    ok = in[0].rank == 2 && in[1].rank == 1 && in[1].dt == DT_I32 && out[0].rank == 2 &&
         in[1].dims[0] == in[0].dims[0] && out[0].dims[1] == in[0].dims[1] && in[0].dt != DT_I32 &&
         out[0].dt != DT_I32;
    break;
  case LATCH_OP_TASK_ROPE:
  case LATCH_OP_TASK_ROPE_GRAD:
    ok = in[0].rank == 4 && in[0].dims[3] % 2 == 0 && out[0].elements == in[0].elements;
    break;
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE:
  case LATCH_OP_TASK_ATTENTION_GRAD: {
    bool causal = latch_attr_bool(op, "causal", false);
    ok = in[0].rank == 4 && in[1].rank == 4 && in[2].rank == 4 && in[1].dims[0] == in[0].dims[0] &&
         in[1].dims[1] == in[0].dims[1] && in[1].dims[3] == in[0].dims[3] && in[2].dims[0] == in[0].dims[0] &&
         in[2].dims[1] == in[0].dims[1] && in[2].dims[2] == in[1].dims[2] && (!causal || in[1].dims[2] == in[0].dims[2]);
    int64_t o_elements = in[0].dims[0] * in[0].dims[1] * in[0].dims[2] * in[2].dims[3];
    if (ok && kind != LATCH_OP_TASK_ATTENTION_GRAD)
      ok = out[0].elements == o_elements;
    if (ok && kind == LATCH_OP_TASK_ATTENTION_LSE)
      ok = out[1].elements == in[0].dims[0] * in[0].dims[1] * in[0].dims[2] && out[1].dt == DT_F32;
    if (ok && kind == LATCH_OP_TASK_ATTENTION_GRAD)
      ok = in[3].elements == o_elements && in[4].elements == o_elements && out[0].elements == in[0].elements &&
           out[1].elements == in[1].elements && out[2].elements == in[2].elements;
    break;
  }
  case LATCH_OP_TASK_ATTENTION_STATS:
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: {
    /* q, k, (v), do, (o), stats: q/k/do/stats of one (B, H); the rows fit the warp templates */
    bool stats_op = kind == LATCH_OP_TASK_ATTENTION_STATS;
    const tensor_ref *q = &in[0], *k = &in[1], *d_o = &in[3];
    const tensor_ref *stats = stats_op ? &out[0] : &in[4], *v_or_o = &in[2];
    bool causal = latch_attr_bool(op, "causal", false);
    ok = q->rank == 4 && k->rank == 4 && v_or_o->rank == 4 && d_o->rank == 4 && stats->rank == 4 &&
         k->dims[0] == q->dims[0] && k->dims[1] == q->dims[1] && k->dims[3] == q->dims[3] &&
         d_o->dims[0] == q->dims[0] && d_o->dims[1] == q->dims[1] && d_o->dims[2] == q->dims[2] &&
         v_or_o->dims[3] == d_o->dims[3] && stats->dims[0] == q->dims[0] && stats->dims[1] == q->dims[1] &&
         stats->dims[2] == q->dims[2] && stats->dims[3] == 2 && stats->dt == DT_F32 &&
         (!causal || k->dims[2] == q->dims[2]);
    if (ok && stats_op)
      ok = v_or_o->dims[2] == q->dims[2];
    if (ok && !stats_op)
      ok = v_or_o->dims[2] == k->dims[2] && out[0].elements == q->elements && out[1].elements == k->elements &&
           out[2].elements == v_or_o->elements;
    if (ok && (ceil_div(q->dims[3], 32) > MAX_LANE_PARTS || ceil_div(d_o->dims[3], 32) > MAX_LANE_PARTS)) {
      report(l, op, "heads wider than %d are not supported (latch-split-attention-grad keeps them whole)",
             32 * MAX_LANE_PARTS);
      return false;
    }
    break;
  }
  case LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE: {
    const tensor_ref *o = &in[0], *d_o = &in[1], *lse = &in[2], *stats = &out[0];
    ok = o->rank == 4 && d_o->rank == 4 && stats->rank == 4 && stats->dt == DT_F32 && lse->dt == DT_F32 &&
         lse->elements == o->dims[0] * o->dims[1] * o->dims[2] && stats->dims[3] == 2 && o->dims[3] >= 1;
    for (int d = 0; ok && d < 4; ++d)
      ok = d_o->dims[d] == o->dims[d] && (d == 3 || stats->dims[d] == o->dims[d]);
    break;
  }
  case LATCH_OP_TASK_TOPK: {
    int64_t k = latch_topk_k(op);
    ok = in[0].rank == 2 && k >= 1 && k <= in[0].dims[1] && out[0].elements == in[0].dims[0] * k &&
         out[1].elements == out[0].elements && out[1].dt == DT_I32;
    break;
  }
  case LATCH_OP_TASK_TOPK_GRAD:
    ok = in[0].rank == 2 && in[1].elements == in[0].elements && in[1].dt == DT_I32 && out[0].rank == 2 &&
         out[0].dims[0] == in[0].dims[0];
    break;
  case LATCH_OP_TASK_BUCKET:
    ok = in[0].dt == DT_I32 && out[0].elements == in[0].elements && out[0].dt == DT_I32 && out[1].dt == DT_I32 &&
         out[1].elements == latch_bucket_buckets(op);
    break;
  case LATCH_OP_TASK_RESHAPE:
    ok = out[0].elements == in[0].elements && out[0].dt == in[0].dt;
    break;
  case LATCH_OP_TASK_TRANSPOSE:
    ok = latch_transpose_perm_size(op) == in[0].rank && out[0].rank == in[0].rank && out[0].dt == in[0].dt;
    for (int d = 0; ok && d < in[0].rank; ++d) {
      int64_t p = latch_transpose_perm_at(op, d);
      ok = p >= 0 && p < in[0].rank && out[0].dims[d] == in[0].dims[p];
    }
    break;
  case LATCH_OP_TASK_CONVERT:
    ok = out[0].elements == in[0].elements;
    break;
  case LATCH_OP_TASK_ADAMW:
    ok = io->in_count == 5 && io->out_count == 3 && in[4].elements == 1;
    for (int k = 0; ok && k < 4; ++k)
      ok = in[k].elements == in[0].elements && in[k].dt == DT_F32;
    for (int r = 0; ok && r < 3; ++r)
      ok = out[r].elements == in[0].elements && out[r].dt == DT_F32;
    break;
  default:
    break;
  }
  if (!ok) {
    report(l, op, "operand and result shapes do not fit this task (run latch-verify)");
    return false;
  }
  /* Only the tensor-core templates (and the one of the statistics from lse) read the layout "bthd"
   * (latch-fold-transposes writes it only there). */
  if (io->in[0].bthd && kind != LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE && !attention_fits_tensor_cores(&in[0], &in[1], &in[2], kind == LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS)) {
    report(l, op, "layout = \"bthd\" is lowered on tensor cores only (bf16 q, k and v or o, heads of at most %d, "
                  "query rows a multiple of 64, keys of 32, or 64 for the gradient)", TC_MAX_HEAD);
    return false;
  }
  return true;
}

static void generate_body(gen *g, task_io *io, MlirOperation op, latch_op_kind kind) {
  switch (kind) {
  case LATCH_OP_TASK_MATMUL: gen_matmul(g, io, op); break;
  case LATCH_OP_TASK_GROUPED_MATMUL: gen_grouped_matmul(g, io, op); break;
  case LATCH_OP_TASK_MAP: gen_map(g, io); break;
  case LATCH_OP_TASK_REDUCE: gen_reduce(g, io, op); break;
  case LATCH_OP_TASK_RMSNORM: gen_rmsnorm(g, io, op); break;
  case LATCH_OP_TASK_SOFTMAX: gen_softmax(g, io); break;
  case LATCH_OP_TASK_CROSS_ENTROPY:
  case LATCH_OP_TASK_CROSS_ENTROPY_WITH_STATS: gen_cross_entropy(g, io); break;
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD_FROM_STATS: gen_cross_entropy_grad_from_stats(g, io); break;
  case LATCH_OP_TASK_EMBEDDING: gen_gather(g, io); break;
  case LATCH_OP_TASK_ROPE: gen_rope(g, &io->in[0], &io->out[0], latch_rope_theta(op), false); break;
  case LATCH_OP_TASK_ATTENTION:
  case LATCH_OP_TASK_ATTENTION_LSE: gen_attention(g, io, op); break;
  case LATCH_OP_TASK_ATTENTION_STATS_FROM_LSE: gen_attention_stats_from_lse(g, io); break;
  case LATCH_OP_TASK_TOPK: gen_topk(g, io, op); break;
  case LATCH_OP_TASK_BUCKET: gen_bucket(g, io); break;
  case LATCH_OP_TASK_GATHER_ROWS: gen_gather(g, io); break;
  case LATCH_OP_TASK_SCATTER_ADD_ROWS: gen_scatter_add_rows(g, io); break;
  case LATCH_OP_TASK_RESHAPE: gen_reshape(g, io); break;
  case LATCH_OP_TASK_TRANSPOSE: gen_transpose(g, io, op); break;
  case LATCH_OP_TASK_CONVERT: gen_convert(g, io); break;
  case LATCH_OP_TASK_ADAMW: gen_adamw(g, io, op); break;
  case LATCH_OP_TASK_REDUCE_GRAD: gen_reduce_grad(g, io, op); break;
  case LATCH_OP_TASK_RMSNORM_GRAD: gen_rmsnorm_grad(g, io, op); break;
  case LATCH_OP_TASK_SOFTMAX_GRAD: gen_softmax_grad(g, io); break;
  case LATCH_OP_TASK_CROSS_ENTROPY_GRAD: gen_cross_entropy_grad(g, io); break;
  case LATCH_OP_TASK_ROPE_GRAD: gen_rope(g, &io->in[0], &io->out[0], latch_rope_grad_theta(op), true); break;
  case LATCH_OP_TASK_ATTENTION_GRAD: gen_attention_grad(g, io, op); break;
  case LATCH_OP_TASK_ATTENTION_STATS: gen_attention_stats(g, io, op); break;
  case LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS: gen_attention_grad_from_stats(g, io, op); break;
  case LATCH_OP_TASK_TOPK_GRAD: gen_topk_grad(g, io); break;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD: gen_grouped_matmul_weight_grad(g, io); break;
  case LATCH_OP_TASK_GROUPED_MATMUL_WEIGHT_GRAD_CONCAT: gen_grouped_matmul_weight_grad_concat(g, io); break;
  default: g->failed = true; break;
  }
}

/* ---- task.map bodies --------------------------------------------------------------------------------- */

typedef struct body_clone {
  lowerer *l;
  MlirOperation task, map;
  MlirBlock target;
  latch_ptrmap values; /* value of the map body (or from above) -> its clone */
  bool ok;
} body_clone;

/* Scalar constants the body uses from above (upstream canonicalize hoists them out of the map) are
 * cloned to the start of the function; any other value from above is an error. */
static MlirWalkResult clone_from_above(MlirOperation op, void *user_data) {
  body_clone *b = user_data;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n && b->ok; ++i) {
    MlirValue value = mlirOperationGetOperand(op, i);
    if (latch_ptrmap_get(&b->values, value.ptr) || is_inside(defining_scope(value), b->map))
      continue;
    MlirOperation def = mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value) : (MlirOperation){NULL};
    if (mlirOperationIsNull(def) || !latch_op_is(def, "arith.constant") ||
        mlirTypeIsAShaped(mlirValueGetType(value))) {
      report(b->l, b->task, "the task.map body uses a value from above that is not a scalar arith.constant");
      b->ok = false;
      break;
    }
    MlirOperation copy = mlirOperationClone(def);
    mlirBlockAppendOwnedOperation(b->target, copy);
    if (!latch_ptrmap_put(&b->values, value.ptr, (void *)(uintptr_t)mlirOperationGetResult(copy, 0).ptr))
      b->ok = false;
  }
  return b->ok ? MlirWalkResultAdvance : MlirWalkResultInterrupt;
}

static MlirWalkResult remap_operands(MlirOperation op, void *user_data) {
  body_clone *b = user_data;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    void *mapped = latch_ptrmap_get(&b->values, mlirOperationGetOperand(op, i).ptr);
    if (mapped)
      mlirOperationSetOperand(op, i, (MlirValue){mapped});
  }
  return MlirWalkResultAdvance;
}

/* `func.func private @map_body(scalars of the inputs) -> (scalars of the outputs)`: the map's body cloned,
 * its gpu.yield turned into func.return; the caller names and places it (use_map_body). Null after an
 * error. */
static MlirOperation build_map_body(lowerer *l, MlirOperation map, const task_io *io) {
  MlirBlock source = latch_map_body(map);
  if (mlirBlockIsNull(source)) {
    report(l, map, "task.map has no body");
    return (MlirOperation){NULL};
  }
  MlirOperation terminator = mlirBlockGetTerminator(source);
  intptr_t arg_count = mlirBlockGetNumArguments(source);
  if (mlirOperationIsNull(terminator) || !latch_op_is(terminator, "gpu.yield") || arg_count != io->in_count ||
      mlirOperationGetNumOperands(terminator) != io->out_count) {
    report(l, map, "the task.map body must take one scalar per input and end in gpu.yield of one scalar per output");
    return (MlirOperation){NULL};
  }
  MlirContext context = l->context;
  MlirLocation loc = mlirOperationGetLocation(map);
  MlirType arg_types[LATCH_MAP_MAX_INPUTS + 1], result_types[LATCH_MAP_MAX_OUTPUTS];
  MlirLocation arg_locs[LATCH_MAP_MAX_INPUTS + 1];
  for (intptr_t i = 0; i < arg_count; ++i) {
    arg_types[i] = mlirValueGetType(mlirBlockGetArgument(source, i));
    arg_locs[i] = loc;
    if (!mlirTypeEqual(arg_types[i], mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(map, i))))) {
      report(l, map, "body argument %d must have the element type of input %d", (int)i, (int)i);
      return (MlirOperation){NULL};
    }
  }
  for (int r = 0; r < io->out_count; ++r) {
    result_types[r] = mlirValueGetType(mlirOperationGetOperand(terminator, r));
    if (!mlirTypeEqual(result_types[r], mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(map, r))))) {
      report(l, map, "gpu.yield operand %d must have the element type of output %d", r, r);
      return (MlirOperation){NULL};
    }
  }

  body_clone b = {.l = l, .task = map, .map = map, .ok = true};
  if (!latch_ptrmap_initialize(&b.values))
    return (MlirOperation){NULL};
  MlirOperation func = {NULL};
  b.target = mlirBlockCreate(arg_count, arg_types, arg_locs);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, b.target);
  for (intptr_t i = 0; i < arg_count && b.ok; ++i)
    b.ok = latch_ptrmap_put(&b.values, mlirBlockGetArgument(source, i).ptr, (void *)(uintptr_t)mlirBlockGetArgument(b.target, i).ptr);
  for (MlirOperation op = mlirBlockGetFirstOperation(source); b.ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    mlirOperationWalk(op, clone_from_above, &b, MlirWalkPreOrder);
  for (MlirOperation op = mlirBlockGetFirstOperation(source); b.ok && !mlirOperationEqual(op, terminator);
       op = mlirOperationGetNextInBlock(op)) {
    MlirOperation copy = mlirOperationClone(op);
    mlirBlockAppendOwnedOperation(b.target, copy);
    mlirOperationWalk(copy, remap_operands, &b, MlirWalkPreOrder);
    for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n && b.ok; ++r)
      b.ok = latch_ptrmap_put(&b.values, mlirOperationGetResult(op, r).ptr, (void *)(uintptr_t)mlirOperationGetResult(copy, r).ptr);
  }
  if (b.ok) {
    MlirValue returned[LATCH_MAP_MAX_OUTPUTS];
    for (int r = 0; r < io->out_count; ++r) {
      MlirValue value = mlirOperationGetOperand(terminator, r);
      void *mapped = latch_ptrmap_get(&b.values, value.ptr);
      returned[r] = mapped ? (MlirValue){mapped} : value;
    }
    MlirOperationState state = mlirOperationStateGet(str("func.return"), loc);
    mlirOperationStateAddOperands(&state, io->out_count, returned);
    mlirBlockAppendOwnedOperation(b.target, mlirOperationCreate(&state));

    MlirType type = mlirFunctionTypeGet(context, arg_count, arg_types, io->out_count, result_types);
    MlirNamedAttribute attrs[3] = {
        mlirNamedAttributeGet(mlirIdentifierGet(context, str("sym_name")), mlirStringAttrGet(context, str("map_body"))),
        mlirNamedAttributeGet(mlirIdentifierGet(context, str("function_type")), mlirTypeAttrGet(type)),
        mlirNamedAttributeGet(mlirIdentifierGet(context, str("sym_visibility")), mlirStringAttrGet(context, str("private"))),
    };
    MlirOperationState func_state = mlirOperationStateGet(str("func.func"), loc);
    mlirOperationStateAddAttributes(&func_state, 3, attrs);
    mlirOperationStateAddOwnedRegions(&func_state, 1, &region);
    func = mlirOperationCreate(&func_state);
  } else {
    mlirRegionDestroy(region);
  }
  latch_ptrmap_deinitialize(&b.values);
  return func;
}

/* ---- placing generated functions -------------------------------------------------------------------- */

static MlirWalkResult relocate(MlirOperation op, void *user_data) {
  mlirOperationSetLocation(op, *(MlirLocation *)user_data);
  return MlirWalkResultAdvance;
}

/* True when gpu.module @latch held `name` before this pass ran (the table is made once, before the pass
 * adds anything; every name it adds is new). */
static bool symbol_taken(lowerer *l, const char *name) {
  return !mlirOperationIsNull(mlirSymbolTableLookup(l->symbols, str(name)));
}

/* ---- functions shared between tasks ----
 * Most tasks of a model repeat a few templates at other places (every layer's products, norms and maps):
 * their tile bodies differ only in the pointers they take, so one body serves them all and each task's
 * own function only computes its pointers and calls it. Keys are the functions' text without the name. */

static uint64_t text_hash(const char *data, size_t length) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < length; ++i)
    h = (h ^ (unsigned char)data[i]) * 1099511628211ull;
  return h;
}

/* The entry of `key` (of text_hash `hash`), or NULL. */
static const named_text *table_lookup(const text_table *t, const char *key, size_t length, uint64_t hash) {
  for (size_t i = 0; i < t->count; ++i) {
    const named_text *e = &t->entries[i];
    if (e->hash == hash && e->length == length && memcmp(e->key, key, length) == 0)
      return e;
  }
  return NULL;
}

/* A new entry naming `key` `name` (no requests), or NULL when out of memory. */
static named_text *table_add(text_table *t, const char *key, size_t length, uint64_t hash, const char *name) {
  if (t->count == t->capacity) {
    size_t capacity = t->capacity ? 2 * t->capacity : 64;
    named_text *grown = realloc(t->entries, capacity * sizeof(*grown));
    if (!grown)
      return NULL;
    t->entries = grown;
    t->capacity = capacity;
  }
  named_text *e = &t->entries[t->count];
  memset(e, 0, sizeof(*e));
  e->key = malloc(length + 1);
  if (!e->key)
    return NULL;
  memcpy(e->key, key, length);
  e->key[length] = '\0';
  e->length = length;
  e->hash = hash;
  snprintf(e->name, sizeof(e->name), "%s", name);
  t->count++;
  return e;
}

static void table_deinitialize(text_table *t) {
  for (size_t i = 0; i < t->count; ++i) {
    free(t->entries[i].key);
    free(t->entries[i].requests);
  }
  free(t->entries);
}

static void print_to_text(MlirStringRef piece, void *user_data) {
  latch_text_put(user_data, "%.*s", (int)piece.length, piece.data);
}

/* Names io->map_body: the map's body as a function, the one written for an earlier task when it is the
 * same text, else a new @map_body_<index>, which *added holds for gpu.module @latch (else null). */
static bool use_map_body(lowerer *l, MlirOperation map, task_io *io, int index, MlirOperation *added) {
  *added = (MlirOperation){NULL};
  MlirOperation func = build_map_body(l, map, io);
  if (mlirOperationIsNull(func))
    return false;
  latch_text key = {0};
  mlirOperationPrint(func, print_to_text, &key);
  uint64_t hash = key.failed ? 0 : text_hash(key.data, key.length);
  const named_text *earlier = key.failed ? NULL : table_lookup(&l->shared, key.data, key.length, hash);
  bool ok = !key.failed;
  if (earlier) {
    snprintf(io->map_body, sizeof(io->map_body), "%s", earlier->name);
    mlirOperationDestroy(func);
  } else {
    snprintf(io->map_body, sizeof(io->map_body), "map_body_%d", index);
    ok = ok && table_add(&l->shared, key.data, key.length, hash, io->map_body);
    mlirOperationSetAttributeByName(func, str("sym_name"), mlirStringAttrGet(l->context, str(io->map_body)));
    *added = func;
  }
  latch_text_deinitialize(&key);
  if (!ok)
    report(l, map, "out of memory");
  return ok;
}

/* ---- tile bodies by signature ----------------------------------------------------------------------
 * Most tasks' bodies are an earlier task's text (TinyMoE 2x1024: 429 of 507), and writing them only to
 * find that took a quarter of the pass. A task's signature is what the templates read of it: its op's
 * name, attributes and operand and result types, its tiles and map body, and of each tensor its place
 * kind, offset in the arena modulo 256 (the templates ask for 8- and 16-byte alignment), bytes, constant
 * bits and layout, and which tensors share or overlap a place. A task whose signature an earlier task had
 * gets that task's body without writing it, and repeats its scratch requests (which name its own globals
 * and take this interval's pools). latch-lower-tasks{check-signatures} writes every body anyway and
 * reports a task whose body differs from its signature's. */

static void write_tensor_signature(latch_text *s, const tensor_ref *t) {
  latch_text_put(s, "%d %lld %lld %u %d\n", (int)t->kind, (long long)(t->kind == PLACE_ARENA ? t->where % 256 : 0),
                 (long long)t->bytes, t->bits, (int)t->bthd);
}

static void write_signature(latch_text *s, MlirOperation op, const task_io *io, int64_t tiles) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  latch_text_put(s, "%.*s tiles %lld map %s\n", (int)name.length, name.data, (long long)tiles, io->map_body);
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op); ++i) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    MlirStringRef key = mlirIdentifierStr(a.name);
    latch_text_put(s, "%.*s = ", (int)key.length, key.data);
    mlirAttributePrint(a.attribute, print_to_text, s);
    latch_text_put(s, "\n");
  }
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    mlirTypePrint(mlirValueGetType(mlirOperationGetOperand(op, i)), print_to_text, s);
    latch_text_put(s, "\n");
  }
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i) {
    mlirTypePrint(mlirValueGetType(mlirOperationGetResult(op, i)), print_to_text, s);
    latch_text_put(s, "\n");
  }
  const tensor_ref *refs[LATCH_MAP_MAX_INPUTS + 1 + LATCH_MAP_MAX_OUTPUTS];
  int count = 0;
  for (int k = 0; k < io->in_count; ++k)
    refs[count++] = &io->in[k];
  for (int r = 0; r < io->out_count; ++r)
    refs[count++] = &io->out[r];
  for (int i = 0; i < count; ++i) {
    write_tensor_signature(s, refs[i]);
    for (int j = i + 1; j < count; ++j)
      latch_text_put(s, "%d%d", places_equal(refs[i], refs[j]), places_overlap(refs[i], refs[j]));
    latch_text_put(s, "\n");
  }
  if (io->epilogue.out_count > 0) {
    const fused_epilogue *e = &io->epilogue;
    latch_text_put(s, "epilogue: %s\n", e->map_body);
    for (int k = 0; k < e->in_count; ++k) {
      if (!e->is_result[k])
        write_tensor_signature(s, &e->in[k]);
      latch_text_put(s, "%d %s %d\n", e->is_result[k], dtype_name(e->in[k].dt), e->in[k].rank);
    }
    for (int r = 0; r < e->out_count; ++r) {
      write_tensor_signature(s, &e->out[r]);
      latch_text_put(s, "%s\n", dtype_name(e->out[r].dt));
    }
  }
  if (io->prologue_operand >= 0) {
    latch_text_put(s, "prologue of %d: %s\n", io->prologue_operand, io->prologue.map_body);
    for (int k = 0; k < io->prologue.in_count; ++k) {
      const tensor_ref *t = &io->prologue.in[k];
      write_tensor_signature(s, t);
      latch_text_put(s, "%s %d\n", dtype_name(t->dt), t->rank);
    }
  }
}

static void repeat_requests(gen *g, const named_text *b) {
  for (int i = 0; i < b->request_count; ++i) {
    const scratch_request *r = &b->requests[i];
    if (r->pooled)
      pooled_scratch(g, r->count);
    else
      task_scratch(g, r->what, r->count, r->type);
  }
}

/* `func.func @<function>(%tile: i32, %args: !llvm.ptr<1>)`, the task's entry point: the tile body's
 * pointers from the argument block (program argument k at args[3 + k], an arena value at args[0] + its
 * offset) and the task's scratch globals, then the call. */
static void write_task_function(latch_text *t, const char *function, const char *tile_body, const gen *g) {
  latch_text_put(t, "  func.func @%s(%%tile: i32, %%args: !llvm.ptr<1>) {\n", function);
  bool arena = false;
  for (int k = 0; k < g->param_count; ++k)
    arena = arena || (g->params[k].tensor && g->params[k].tensor->kind == PLACE_ARENA);
  if (arena)
    latch_text_put(t, "    %%base_word = llvm.load %%args {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n"
                      "    %%base = llvm.inttoptr %%base_word : i64 to !llvm.ptr<1>\n");
  for (int k = 0; k < g->param_count; ++k) {
    const gen_param *p = &g->params[k];
    if (!p->tensor)
      latch_text_put(t, "    %%p%d = llvm.mlir.addressof @%s : !llvm.ptr<1>\n", k, p->global);
    else if (p->tensor->kind == PLACE_ARG)
      latch_text_put(t,
                     "    %%slot%d = llvm.getelementptr %%args[%lld] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64\n"
                     "    %%word%d = llvm.load %%slot%d {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n"
                     "    %%p%d = llvm.inttoptr %%word%d : i64 to !llvm.ptr<1>\n",
                     k, (long long)(ARG_FIRST_BUFFER + p->tensor->where), k, k, k, k);
    else
      latch_text_put(t,
                     "    %%offset%d = arith.constant %lld : i64\n"
                     "    %%p%d = llvm.getelementptr %%base[%%offset%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8\n",
                     k, (long long)p->tensor->where, k, k);
  }
  latch_text_put(t, "    func.call @%s(%%tile", tile_body);
  for (int k = 0; k < g->param_count; ++k)
    latch_text_put(t, ", %%p%d", k);
  latch_text_put(t, ") : (i32");
  for (int k = 0; k < g->param_count; ++k)
    latch_text_put(t, ", !llvm.ptr<1>");
  latch_text_put(t, ") -> ()\n    return\n  }\n");
}

/* Moves every function with a body and every global but @latch_smem of the parsed scratch module into
 * gpu.module @latch, located at the task. */
static void move_into_module(lowerer *l, MlirOperation scratch, MlirLocation loc) {
  MlirBlock target = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->gpu_module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(scratch, 0)));
       !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    MlirAttribute name = mlirOperationGetAttributeByName(op, str("sym_name"));
    bool function = latch_op_is(op, "func.func") && mlirOperationGetNumRegions(op) == 1 &&
                    !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
    MlirStringRef symbol = mlirAttributeIsNull(name) ? str("") : mlirStringAttrGetValue(name);
    bool global = latch_op_is(op, "llvm.mlir.global") && !mlirAttributeIsNull(name) &&
                  !latch_ref_is(symbol, "latch_smem") && !is_pool(symbol);
    if (function || global) {
      mlirOperationWalk(op, relocate, &loc, MlirWalkPreOrder);
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(target, op);
    }
    op = next;
  }
}

/* ---- parsing the tasks' text ----------------------------------------------------------------------------
 * With the bodies shared, parsing the written text is most of the pass (TinyMoE 2x1024: 0.4 of 0.55 s),
 * and each task's text parses on its own. So the pass writes every task first, parses the texts on two
 * threads (the context multithreaded meanwhile, as latch-opt --emit does for its lowering: Latch's
 * contexts are single-threaded otherwise) and then moves each task's functions into gpu.module @latch in
 * program order: the module is the one that parsing them one by one gives. */

typedef struct pending_task {
  MlirOperation op; /* the task */
  char function[MAX_SYMBOL];
  MlirOperation map_body; /* a new @map_body_<N> that goes before the task's functions, or null */
  latch_text text;        /* gpu.module @latch_lower_tasks_scratch { ... } */
  MlirOperation scratch;  /* the text parsed */
  int parser;             /* 0: the pass's thread, 1: the second */
} pending_task;

/* Queues the task's text (taken from `text`, which is left empty). */
static bool add_pending(lowerer *l, MlirOperation op, const char *function, MlirOperation map_body,
                        latch_text *text) {
  if (l->pending_count == l->pending_capacity) {
    size_t capacity = l->pending_capacity ? 2 * l->pending_capacity : 256;
    pending_task *grown = realloc(l->pending, capacity * sizeof(*grown));
    if (!grown)
      return false;
    l->pending = grown;
    l->pending_capacity = capacity;
  }
  pending_task *t = &l->pending[l->pending_count++];
  memset(t, 0, sizeof(*t));
  t->op = op;
  snprintf(t->function, sizeof(t->function), "%s", function);
  t->map_body = map_body;
  t->text = *text;
  *text = (latch_text){0};
  return true;
}

typedef struct parse_job {
  lowerer *l;
  int parser;
} parse_job;

static void *parse_texts(void *argument) {
  const parse_job *job = argument;
  lowerer *l = job->l;
  for (size_t i = 0; i < l->pending_count; ++i) {
    pending_task *t = &l->pending[i];
    if (t->parser != job->parser)
      continue;
    t->scratch = mlirOperationCreateParse(l->context, mlirStringRefCreate(t->text.data, t->text.length),
                                          str("latch-lower-tasks"));
    latch_text_deinitialize(&t->text);
  }
  return NULL;
}

/* Parses every queued text, half of the characters on a second thread when one can be started. */
static void parse_pending(lowerer *l) {
  size_t characters[2] = {0, 0};
  for (size_t i = 0; i < l->pending_count; ++i) {
    pending_task *t = &l->pending[i];
    t->parser = characters[1] < characters[0];
    characters[t->parser] += t->text.length;
  }
  parse_job second = {.l = l, .parser = 1}, first = {.l = l, .parser = 0};
  pthread_t thread;
  mlirContextEnableMultithreading(l->context, true);
  bool threaded = pthread_create(&thread, NULL, parse_texts, &second) == 0;
  parse_texts(&first);
  if (threaded)
    pthread_join(thread, NULL);
  mlirContextEnableMultithreading(l->context, false);
  if (!threaded)
    parse_texts(&second);
}

/* Moves each parsed task into gpu.module @latch, in program order, and names its function on the task. */
static void finish_pending(lowerer *l) {
  MlirBlock target = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->gpu_module, 0));
  for (size_t i = 0; i < l->pending_count; ++i) {
    pending_task *t = &l->pending[i];
    if (!mlirOperationIsNull(t->map_body))
      mlirBlockAppendOwnedOperation(target, t->map_body);
    t->map_body = (MlirOperation){NULL};
    if (mlirOperationIsNull(t->scratch)) {
      report(l, t->op, "the generated device function did not parse (a bug in latch-lower-tasks)");
      continue;
    }
    move_into_module(l, t->scratch, mlirOperationGetLocation(t->op));
    mlirOperationDestroy(t->scratch);
    t->scratch = (MlirOperation){NULL};
    mlirOperationSetDiscardableAttributeByName(t->op, str("task.device_function"),
                                               mlirStringAttrGet(l->context, str(t->function)));
  }
}

static void free_pending(lowerer *l) {
  for (size_t i = 0; i < l->pending_count; ++i) {
    pending_task *t = &l->pending[i];
    if (!mlirOperationIsNull(t->map_body))
      mlirOperationDestroy(t->map_body);
    if (!mlirOperationIsNull(t->scratch))
      mlirOperationDestroy(t->scratch);
    latch_text_deinitialize(&t->text);
  }
  free(l->pending);
}

/* ---- one task ---------------------------------------------------------------------------------------- */

/* Writes @task_<index> (its tile body, @task_body_<N>, and for a map @map_body_<N>, unless an earlier
 * task wrote the same) into gpu.module @latch and names it on the task. */
/* ---- fused prologues --------------------------------------------------------------------------------- */

/* The operands whose templates read them only through load_raw, element by element in their own row-major
 * index (a prologue's value is computed there): rmsnorm's x and rmsnorm_grad's dy (TinyMoE's residual
 * gradients, summed just before each norm's backward). */
static bool fusable_operand(latch_op_kind kind, int operand) {
  return (kind == LATCH_OP_TASK_RMSNORM && operand == 0) || (kind == LATCH_OP_TASK_RMSNORM_GRAD && operand == 2);
}

/* Whether latch-fuse-phases marked `op` `task.fused = "<role>"` ("prologue" or "epilogue"). */
static bool fused_as(MlirOperation op, const char *role) {
  MlirAttribute mark = mlirOperationGetAttributeByName(op, str("task.fused"));
  return !mlirAttributeIsNull(mark) && mlirAttributeIsAString(mark) &&
         mlirStringRefEqual(mlirStringAttrGetValue(mark), str(role));
}

/* Fills io->prologue for the first fusable operand whose producer is a prologue of this task in its
 * interval: a task.map, or a task.convert between float types, whose one result only this task reads and
 * whose inputs are element-wise (the result's shape) or rank 0. Returns the prologue (null: none). */
static MlirOperation fuse_prologue(lowerer *l, MlirOperation op, latch_op_kind kind, task_io *io) {
  io->prologue_operand = -1;
  for (int k = 0; l->fuse && k < io->in_count; ++k) {
    MlirValue operand = mlirOperationGetOperand(op, k);
    if (!fusable_operand(kind, k) || !mlirValueIsAOpResult(operand))
      continue;
    MlirOperation producer = mlirOpResultGetOwner(operand);
    latch_op_kind producer_kind = latch_op_kind_of(producer);
    if ((producer_kind != LATCH_OP_TASK_MAP && producer_kind != LATCH_OP_TASK_CONVERT) || !fused_as(producer, "prologue") ||
        mlirOperationGetNumResults(producer) != 1 ||
        latch_schedule_interval_of(&l->schedule, operand) != l->current_interval)
      continue;
    bool only_here = true;
    for (MlirOpOperand use = mlirValueGetFirstUse(operand); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
      MlirOperation reader = mlirOpOperandGetOwner(use); /* the arena's binds name it too */
      only_here = only_here && (mlirOperationEqual(reader, op) || latch_op_kind_of(reader) == LATCH_OP_ARENA_BIND);
    }
    task_io p;
    memset(&p, 0, sizeof(p));
    if (!only_here || !read_io(l, producer, &p) || p.in_count > LATCH_MAP_MAX_INPUTS)
      continue;
    bool elementwise = true;
    for (int j = 0; j < p.in_count; ++j)
      elementwise = elementwise && (p.in[j].rank == 0 || p.in[j].elements == p.out[0].elements) && !p.in[j].bthd;
    if (!elementwise || (producer_kind == LATCH_OP_TASK_CONVERT && (p.in[0].dt == DT_I32 || p.out[0].dt == DT_I32)))
      continue;
    if (producer_kind == LATCH_OP_TASK_MAP) {
      /* its body, written when the map itself was lowered (it comes first): found by its text */
      MlirOperation added;
      if (!use_map_body(l, producer, &p, io->index, &added))
        return (MlirOperation){NULL};
      if (!mlirOperationIsNull(added)) {
        mlirOperationDestroy(added);
        report(l, producer, "a bug in latch-lower-tasks: this prologue's map body was not written before its task");
        return (MlirOperation){NULL};
      }
    }
    memcpy(io->prologue.in, p.in, (size_t)p.in_count * sizeof(p.in[0]));
    io->prologue.in_count = p.in_count;
    snprintf(io->prologue.map_body, sizeof(io->prologue.map_body), "%s", p.map_body);
    io->prologue_operand = k;
    io->in[k].prologue = &io->prologue;
    return producer;
  }
  return (MlirOperation){NULL};
}

/* Whether result 0 of `op` is stored only by store_raw / store_f32, element by element at its row-major
 * index: the tiled products (not the element-wise or narrow sliced ones). */
static bool fusable_result(MlirOperation op, latch_op_kind kind, const task_io *io) {
  if (kind != LATCH_OP_TASK_MATMUL || io->out[0].rank < 2)
    return false;
  const tensor_ref *a = &io->in[0], *b = &io->in[1], *c = &io->out[0];
  bool ta = latch_matmul_transpose_a(op), tb = latch_matmul_transpose_b(op);
  int r = c->rank;
  int64_t batch = r == 3 ? c->dims[0] : 1, m = dim(c, r - 2), n = dim(c, r - 1);
  int64_t k = ta ? dim(a, r - 2) : dim(a, r - 1);
  (void)b;
  return !latch_matmul_is_small(batch, m, n, ta) && latch_narrow_sliced_depth(batch, m, n, k, ta, tb) == 0;
}

/* Fills io->epilogue when result 0's one reader is an epilogue of this task in its interval (a task.map, or
 * a task.convert between float types) whose other inputs are element-wise or rank 0 and whose results
 * have the result's elements. Returns the epilogue (null: none); *added: its map body when this call
 * wrote it (the epilogue comes after its task), for gpu.module @latch. */
static MlirOperation fuse_epilogue(lowerer *l, MlirOperation op, latch_op_kind kind, task_io *io, MlirOperation *added) {
  *added = (MlirOperation){NULL};
  io->epilogue.out_count = 0;
  if (!l->fuse || io->out_count < 1 || !fusable_result(op, kind, io))
    return (MlirOperation){NULL};
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirOperation reader = {NULL};
  for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation owner = mlirOpOperandGetOwner(use);
    if (latch_op_kind_of(owner) == LATCH_OP_ARENA_BIND) /* the arena's binds name it too */
      continue;
    if (!mlirOperationIsNull(reader) && !mlirOperationEqual(reader, owner))
      return (MlirOperation){NULL};
    reader = owner;
  }
  if (mlirOperationIsNull(reader))
    return reader;
  latch_op_kind reader_kind = latch_op_kind_of(reader);
  if ((reader_kind != LATCH_OP_TASK_MAP && reader_kind != LATCH_OP_TASK_CONVERT) || !fused_as(reader, "epilogue") ||
      mlirOperationGetNumResults(reader) < 1 ||
      latch_schedule_interval_of(&l->schedule, mlirOperationGetResult(reader, 0)) != l->current_interval)
    return (MlirOperation){NULL};
  task_io e;
  memset(&e, 0, sizeof(e));
  if (!read_io(l, reader, &e) || e.in_count > LATCH_MAP_MAX_INPUTS)
    return (MlirOperation){NULL};
  bool elementwise = true;
  for (int k = 0; k < e.in_count; ++k)
    elementwise = elementwise && (e.in[k].rank == 0 || e.in[k].elements == io->out[0].elements) && !e.in[k].bthd;
  for (int r = 0; r < e.out_count; ++r)
    elementwise = elementwise && e.out[r].elements == io->out[0].elements && e.out[r].kind != PLACE_CONST;
  if (!elementwise || (reader_kind == LATCH_OP_TASK_CONVERT && (e.in[0].dt == DT_I32 || e.out[0].dt == DT_I32)))
    return (MlirOperation){NULL};
  if (reader_kind == LATCH_OP_TASK_MAP && !use_map_body(l, reader, &e, io->index, added))
    return (MlirOperation){NULL};
  fused_epilogue *f = &io->epilogue;
  for (int k = 0; k < e.in_count; ++k) {
    f->in[k] = e.in[k];
    f->is_result[k] = mlirValueEqual(mlirOperationGetOperand(reader, k), result);
  }
  f->in_count = e.in_count;
  memcpy(f->out, e.out, (size_t)e.out_count * sizeof(e.out[0]));
  f->out_count = e.out_count;
  snprintf(f->map_body, sizeof(f->map_body), "%s", e.map_body);
  io->out[0].epilogue = f;
  return reader;
}

/* `func.func private @body(...) -> (...)`: the declaration of a map body that call_map_body calls. */
static void declare_map_body(latch_text *t, const char *body, int in_count, const tensor_ref *in, int out_count,
                             const tensor_ref *out) {
  latch_text_put(t, "  func.func private @%s(", body);
  for (int k = 0; k < in_count; ++k)
    latch_text_put(t, "%s%s", k ? ", " : "", dtype_name(in[k].dt));
  latch_text_put(t, ") -> (");
  for (int r = 0; r < out_count; ++r)
    latch_text_put(t, "%s%s", r ? ", " : "", dtype_name(out[r].dt));
  latch_text_put(t, ")\n");
}

static bool lower_task(lowerer *l, MlirOperation op, int index) {
  latch_op_kind kind = latch_op_kind_of(op);
  task_io io;
  memset(&io, 0, sizeof(io));
  io.index = index;
  if (!read_io(l, op, &io) || !check_shapes(l, op, kind, &io) || !check_places(l, op, kind, &io))
    return false;
  MlirOperation prologue = fuse_prologue(l, op, kind, &io);
  char function[MAX_SYMBOL], tile_body[MAX_SYMBOL], map_name[MAX_SYMBOL];
  snprintf(function, sizeof(function), "task_%d", index);
  snprintf(tile_body, sizeof(tile_body), "task_body_%d", index);
  snprintf(map_name, sizeof(map_name), "map_body_%d", index);
  if (symbol_taken(l, function) || symbol_taken(l, tile_body) ||
      (kind == LATCH_OP_TASK_MAP && symbol_taken(l, map_name))) {
    report(l, op, "gpu.module @latch already holds @%s (run latch-lower-tasks once)", function);
    return false;
  }
  MlirOperation map_body = {NULL}; /* a new @map_body_<N> (of the task's map or its epilogue), or null */
  if (kind == LATCH_OP_TASK_MAP && !use_map_body(l, op, &io, index, &map_body))
    return false;
  MlirOperation epilogue = {NULL};
  if (kind != LATCH_OP_TASK_MAP)
    epilogue = fuse_epilogue(l, op, kind, &io, &map_body);
  int64_t tiles = latch_attr_int(op, "tiles", 0);
  if (tiles < 1)
    tiles = latch_task_tile_count(op);

  /* The tile body, and the same without its name: the key under which tasks share it. */
  latch_text body = {0}, key = {0};
  gen g = {.l = l, .op = op, .t = &body, .shared = -1, .tiles = tiles, .index = index,
           .evict_first = l->l2_evict_first};
  int tid32 = fresh(&g), ntid32 = fresh(&g);
  ln(&g, "%%v%d = nvvm.read.ptx.sreg.tid.x : i32", tid32);
  ln(&g, "%%v%d = nvvm.read.ptx.sreg.ntid.x : i32", ntid32);
  g.tid = cast(&g, "arith.extui", tid32, "i32", "i64");
  g.ntid = cast(&g, "arith.extui", ntid32, "i32", "i64");
  g.tile = fresh(&g);
  ln(&g, "%%v%d = arith.extui %%tile : i32 to i64", g.tile);
  for (int k = 0; k < io.in_count; ++k)
    prepare(&g, &io.in[k]);
  for (int r = 0; r < io.out_count; ++r)
    prepare(&g, &io.out[r]);

  latch_text signature = {0};
  write_signature(&signature, op, &io, tiles);
  bool failed = signature.failed;
  uint64_t signature_hash = failed ? 0 : text_hash(signature.data, signature.length);
  const named_text *known =
      failed ? NULL : table_lookup(&l->signatures, signature.data, signature.length, signature_hash);
  bool earlier = false; /* tile_body names an earlier task's body */
  if (known && !l->check_signatures) {
    repeat_requests(&g, known);
    snprintf(tile_body, sizeof(tile_body), "%s", known->name);
    earlier = true;
  } else {
    generate_body(&g, &io, op, kind);
    /* The tile's range on the body itself: LLVM folds the body's bounds checks with it whether or not it
     * sees the callers (latch-opt --emit-parts compiles them in other parts). */
    latch_text_put(&key, "(%%tile: i32 {llvm.range = #llvm.constant_range<i32, 0, %lld>}", (long long)tiles);
    for (int k = 0; k < g.param_count; ++k)
      latch_text_put(&key, ", %%v%d: !llvm.ptr<1>", g.params[k].id);
    latch_text_put(&key, ") attributes {passthrough = [\"noinline\"]} {\n%.*s%.*s    return\n  }\n",
                   (int)g.entry.length, g.entry.data ? g.entry.data : "", (int)body.length,
                   body.data ? body.data : "");
    failed = failed || key.failed;
    uint64_t hash = failed ? 0 : text_hash(key.data, key.length);
    const named_text *shared = failed ? NULL : table_lookup(&l->shared, key.data, key.length, hash);
    if (shared) {
      snprintf(tile_body, sizeof(tile_body), "%s", shared->name);
      earlier = true;
    } else if (!failed && !table_add(&l->shared, key.data, key.length, hash, tile_body)) {
      failed = true;
    }
    if (known && !failed && strcmp(known->name, tile_body) != 0)
      report(l, op, "check-signatures: the task's body is not @%s, the body of the earlier "
             "task of its signature (a bug: the signature misses something the templates read)", known->name);
    if (!known && !failed && !g.failed) {
      /* the signature's entry takes the body's scratch requests */
      named_text *added = table_add(&l->signatures, signature.data, signature.length, signature_hash, tile_body);
      if (added) {
        added->requests = g.requests;
        added->request_count = g.request_count;
        g.requests = NULL;
      }
      failed = !added;
    }
  }
  failed = failed || g.failed || g.entry.failed || g.globals.failed || body.failed;
  latch_text_deinitialize(&signature);

  latch_text t = {0};
  latch_text_put(&t, "gpu.module @latch_lower_tasks_scratch {\n" SHARED_GLOBAL);
  /* the map bodies it calls: its own, its epilogue's, its prologue's */
  if (kind == LATCH_OP_TASK_MAP)
    declare_map_body(&t, io.map_body, io.in_count, io.in, io.out_count, io.out);
  if (io.epilogue.out_count > 0 && io.epilogue.map_body[0])
    declare_map_body(&t, io.epilogue.map_body, io.epilogue.in_count, io.epilogue.in, io.epilogue.out_count,
                     io.epilogue.out);
  if (io.prologue.map_body[0])
    declare_map_body(&t, io.prologue.map_body, io.prologue.in_count, io.prologue.in, 1, &io.in[io.prologue_operand]);
  if (earlier) {
    latch_text_put(&t, "  func.func private @%s(i32", tile_body);
    for (int k = 0; k < g.param_count; ++k)
      latch_text_put(&t, ", !llvm.ptr<1>");
    latch_text_put(&t, ")\n");
  } else {
    latch_text_put(&t, "  func.func @%s%.*s", tile_body, (int)key.length, key.data ? key.data : "");
  }
  /* the pools are written once, at the end of the pass (write_pools): stand-ins here, left behind */
  for (int k = 0; k < g.param_count; ++k)
    if (!g.params[k].tensor && is_pool(str(g.params[k].global)))
      latch_text_put(&t, "  llvm.mlir.global internal @%s() {addr_space = 1 : i32} : !llvm.array<1 x f32>\n",
                     g.params[k].global);
  write_task_function(&t, function, tile_body, &g);
  latch_text_put(&t, "%.*s}\n", (int)g.globals.length, g.globals.data ? g.globals.data : "");
  failed = failed || t.failed;
  latch_text_deinitialize(&g.entry);
  latch_text_deinitialize(&g.globals);
  free(g.constants);
  free(g.requests);
  latch_text_deinitialize(&body);
  latch_text_deinitialize(&key);
  if (failed || !add_pending(l, op, function, map_body, &t)) {
    latch_text_deinitialize(&t);
    if (!mlirOperationIsNull(map_body))
      mlirOperationDestroy(map_body);
    report(l, op, "out of memory, or a bug in latch-lower-tasks (a task it cannot write)");
    return false;
  }
  /* they run inside this task's tiles: none of their own */
  if (!mlirOperationIsNull(prologue))
    mlirOperationSetAttributeByName(prologue, str("tiles"), latch_attr_get_int(l->context, 0));
  if (!mlirOperationIsNull(epilogue))
    mlirOperationSetAttributeByName(epilogue, str("tiles"), latch_attr_get_int(l->context, 0));
  return true;
}

/* ---- the pass ---------------------------------------------------------------------------------------- */

/* @latch_pool<k> (pooled_scratch) in gpu.module @latch, each of its largest request. */
static void write_pools(lowerer *l) {
  for (int k = 0; k < l->pool_count; ++k) {
    char name[MAX_SYMBOL], text[512];
    snprintf(name, sizeof(name), POOL_PREFIX "%d", k);
    if (symbol_taken(l, name)) {
      report(l, l->program, "gpu.module @latch already holds @%s (run latch-lower-tasks once)", name);
      return;
    }
    long long n = (long long)l->pool_floats[k];
    snprintf(text, sizeof(text),
             "llvm.mlir.global internal @%s() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<%lld x f32> {\n"
             "  %%z = llvm.mlir.zero : !llvm.array<%lld x f32>\n  llvm.return %%z : !llvm.array<%lld x f32>\n}\n",
             name, n, n, n);
    MlirOperation global = mlirOperationCreateParse(l->context, str(text), str("latch-lower-tasks"));
    if (mlirOperationIsNull(global)) {
      report(l, l->program, "cannot create @%s (a bug in latch-lower-tasks)", name);
      return;
    }
    mlirOperationSetLocation(global, mlirOperationGetLocation(l->program));
    mlirBlockAppendOwnedOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(l->gpu_module, 0)), global);
  }
}

/* The single interval.program and gpu.module @latch (created when missing) at the top level. */
static bool find_parts(lowerer *l) {
  int programs = latch_module_find_program(l->module, &l->program, &l->gpu_module);
  if (programs == 0) {
    report(l, l->module, "the module holds no interval.program (run latch-form-intervals first)");
    return false;
  }
  if (programs > 1) {
    report(l, l->module, "the module holds %d interval.program ops; one gpu.module @latch lowers exactly one", programs);
    return false;
  }
  if (mlirOperationIsNull(l->gpu_module)) {
    l->gpu_module = mlirOperationCreateParse(l->context, str("gpu.module @latch {\n}\n"), str("latch-lower-tasks"));
    if (mlirOperationIsNull(l->gpu_module)) {
      report(l, l->program, "cannot create gpu.module @latch");
      return false;
    }
    mlirOperationSetLocation(l->gpu_module, mlirOperationGetLocation(l->program));
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(l->program), l->program, l->gpu_module);
  }
  mlirOperationSetAttributeByName(l->module, str("gpu.container_module"), mlirUnitAttrGet(l->context));
  return true;
}

/* @latch_smem in gpu.module @latch, once; its size, the most shared words a task uses, in the attribute
 * latch.dynamic_shared_bytes of the gpu.module (latch-lower-intervals writes it into the manifest). */
static void record_shared_bytes(lowerer *l) {
  MlirAttribute bytes = mlirIntegerAttrGet(mlirIntegerTypeGet(l->context, 64), (l->shared_floats * 4 + 15) / 16 * 16);
  mlirOperationSetAttributeByName(l->gpu_module, str(LATCH_SHARED_BYTES_ATTRIBUTE), bytes);
}

static bool add_shared_memory(lowerer *l) {
  if (symbol_taken(l, "latch_smem"))
    return true;
  MlirOperation global = mlirOperationCreateParse(l->context, str(SHARED_GLOBAL), str("latch-lower-tasks"));
  if (mlirOperationIsNull(global)) {
    report(l, l->program, "cannot create @latch_smem (a bug in latch-lower-tasks)");
    return false;
  }
  mlirOperationSetLocation(global, mlirOperationGetLocation(l->program));
  mlirBlockAppendOwnedOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(l->gpu_module, 0)), global);
  return true;
}

typedef struct lower_tasks_options {
  bool wgmma;
  bool wgmma_in_flight;
  bool lean_wgmma_stages;
  bool adamw_evict_first;
  bool map_evict_first;
  bool l2_evict_first;
  bool vector_maps;
  bool check_signatures;
  bool fuse;
} lower_tasks_options;

static const latch_pass_option lower_tasks_option_table[] = {
    {"wgmma", LATCH_OPTION_BOOL, "true",
     "bf16 products whose operands are staged by copies run on wgmma.mma_async (sm_90a); false: mma.sync",
     offsetof(lower_tasks_options, wgmma)},
    {"wgmma-in-flight", LATCH_OPTION_BOOL, "true",
     "each k stage's wgmma group stays in flight while the next stage's is issued (wgmma.wait_group 1, a CTA "
     "barrier before the ring buffer it read is refilled); pays where ptxas keeps the wgmma asynchronous, in "
     "a body inlined into its kernel (called once, or table dispatch): the 4096^3 product 0.944 of the "
     "time without, TinyMoE 1.00 (docs/device-abi.md)",
     offsetof(lower_tasks_options, wgmma_in_flight)},
    {"lean-wgmma-stages", LATCH_OPTION_BOOL, "true",
     "a wgmma stage's places computed once per tile and stepped: a stage inside both operands (the tile's "
     "rows, its k, the thread's first chunk 16-byte aligned) copied by 16-byte copies without per-chunk "
     "tests, the matrix descriptors from one start per operand, the ring slot carried (the 4096^3 product "
     "0.708 of the time, TinyMoE 2x1024 0.943, 32x1024 0.926; H200, 2026-12-06)",
     offsetof(lower_tasks_options, lean_wgmma_stages)},
    {"adamw-evict-first", LATCH_OPTION_BOOL, "false",
     "AdamW steps by vectors load and store p, g, m, v evict-first in L2 (inline PTX: createpolicy, "
     ".L2::cache_hint), so that their stream, read and written once, does not evict the kernel's code from L2",
     offsetof(lower_tasks_options, adamw_evict_first)},
    {"map-evict-first", LATCH_OPTION_BOOL, "false",
     "maps by vectors load and store their vectors evict-first in L2 as well",
     offsetof(lower_tasks_options, map_evict_first)},
    {"l2-evict-first", LATCH_OPTION_BOOL, "false",
     "every task's loads and stores of global memory go first when L2 needs room (inline PTX: an evict_first "
     "createpolicy, .L2::cache_hint; cp.async stays plain), so that the data, of every task alike, does not "
     "evict the kernel's code from L2 (the same bits)",
     offsetof(lower_tasks_options, l2_evict_first)},
    {"vector-maps", LATCH_OPTION_BOOL, "true",
     "maps and AdamW steps whose per-element tensors start 16-byte aligned read and write 4 consecutive "
     "elements per vector access (the same bits; 1.3-1.6% faster TinyMoE updates on the H200)",
     offsetof(lower_tasks_options, vector_maps)},
    {"check-signatures", LATCH_OPTION_BOOL, "false",
     "write every tile body, also of a task whose signature an earlier task had (whose body it then takes "
     "without writing it), and report a task whose body is not that task's: a test of the signatures",
     offsetof(lower_tasks_options, check_signatures)},
    {"fuse", LATCH_OPTION_BOOL, "true",
     "run the prologues that latch-fuse-phases marks of a norm's x or dy, and the epilogues of a tiled "
     "product, inside that task's tiles (no tiles, wave or memory of their own); false: as tasks of their "
     "own, each in a wave after its partner's",
     offsetof(lower_tasks_options, fuse)},
};

static MlirLogicalResult run(MlirOperation module, const void *options) {
  lowerer l;
  memset(&l, 0, sizeof(l));
  l.wgmma = ((const lower_tasks_options *)options)->wgmma;
  l.wgmma_in_flight = ((const lower_tasks_options *)options)->wgmma_in_flight;
  l.lean_wgmma_stages = ((const lower_tasks_options *)options)->lean_wgmma_stages;
  l.adamw_evict_first = ((const lower_tasks_options *)options)->adamw_evict_first;
  l.map_evict_first = ((const lower_tasks_options *)options)->map_evict_first;
  l.l2_evict_first = ((const lower_tasks_options *)options)->l2_evict_first;
  l.vector_maps = ((const lower_tasks_options *)options)->vector_maps;
  l.check_signatures = ((const lower_tasks_options *)options)->check_signatures;
  l.fuse = ((const lower_tasks_options *)options)->fuse;
  l.context = mlirOperationGetContext(module);
  l.module = module;
  bool binds_ready = latch_ptrmap_initialize(&l.binds);
  if (binds_ready && find_parts(&l)) {
    if (!latch_schedule_initialize(&l.schedule, l.program)) {
      l.errors++;
    } else {
      l.schedule_ready = true;
      bool planned = false;
      for (size_t i = 0; i < l.schedule.count; ++i) {
        MlirOperation op = l.schedule.ops[i];
        if (latch_op_kind_of(op) == LATCH_OP_ARENA_ARENA)
          planned = true;
        if (latch_op_kind_of(op) == LATCH_OP_ARENA_BIND &&
            !latch_ptrmap_put(&l.binds, latch_bind_value(op).ptr, op.ptr))
          l.errors++;
      }
      if (!planned)
        report(&l, l.program, "the program has no arena.arena (run latch-plan-arena first)");
      l.symbols = mlirSymbolTableCreate(l.gpu_module);
      if (planned && !add_shared_memory(&l))
        planned = false;
      int index = 0;
      l.pool_interval = -1;
      for (size_t i = 0; planned && i < l.schedule.count; ++i)
        if (latch_op_is_task(l.schedule.ops[i])) {
          l.current_interval = l.schedule.interval[i];
          lower_task(&l, l.schedule.ops[i], index++);
        }
      if (planned) {
        parse_pending(&l);
        finish_pending(&l);
      }
      if (planned && !l.errors) {
        write_pools(&l);
        record_shared_bytes(&l);
      }
      mlirSymbolTableDestroy(l.symbols);
    }
  } else if (!binds_ready) {
    l.errors++;
  }
  table_deinitialize(&l.shared);
  table_deinitialize(&l.signatures);
  free_pending(&l);
  if (l.schedule_ready)
    latch_schedule_deinitialize(&l.schedule);
  if (binds_ready)
    latch_ptrmap_deinitialize(&l.binds);
  return l.errors ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}

static const latch_dialect_handle_getter dialects[] = {
    mlirGetDialectHandle__arith__, mlirGetDialectHandle__func__, mlirGetDialectHandle__gpu__,
    mlirGetDialectHandle__llvm__,  mlirGetDialectHandle__math__, mlirGetDialectHandle__nvvm__,
    mlirGetDialectHandle__scf__,
};

const latch_pass_info latch_lower_tasks_pass = {
    .name = "latch-lower-tasks",
    .summary = "Write one device function @task_<N> per task into gpu.module @latch (tile bodies in scf/arith/llvm)",
    .anchor = "builtin.module",
    .dependent_dialects = dialects,
    .dependent_dialect_count = sizeof(dialects) / sizeof(dialects[0]),
    .options = lower_tasks_option_table,
    .option_count = sizeof(lower_tasks_option_table) / sizeof(lower_tasks_option_table[0]),
    .options_size = sizeof(lower_tasks_options),
    .run = run,
};
