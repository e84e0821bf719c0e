/* latch-lower-intervals.c - writes the persistent kernel `gpu.func @latch_main` of gpu.module @latch from an
 * arena-planned interval.program (docs/device-abi.md): interval by interval a static tile loop that calls
 * the tasks' device functions, a grid barrier between intervals, trace points; and records the manifest
 * as the string attribute `latch.manifest` on the gpu.module, with the "probes" that latch-run --probe-dir
 * reads (each task.topk's values and indices: where they live, which interval and staged kernel write them,
 * whether they survive to the end of the update). With `staged=true` it also writes the staged control
 * (docs/device-abi.md "Staged control"): one kernel per interval wave, with the same tile loop, no grid
 * barrier, and PDL's griddepcontrol wait / launch_dependents.
 *
 * The kernel is generated as MLIR text of upstream dialects (gpu, scf, arith, llvm, nvvm, func), parsed
 * into the context inside a scratch gpu.module that declares the device functions, and moved into
 * gpu.module @latch. Text keeps the kernel readable in one place; its FileCheck test pins it. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/SCF.h"

#include "../dialects/ops.h"
#include "../dialects/schedule.h"
#include "../support/ptrmap.h"
#include "../support/textbuf.h"
#include "pass.h"

/* docs/device-abi.md: threads per CTA and the fixed words of the argument block. */
#define BLOCK_THREADS 256
#define ARG_SYNC_WORDS 1
#define ARG_TRACE 2
#define ARG_FIRST_BUFFER 3
/* args[1] points to the sync words (64 u32 that the runtime zeroes before each update): the grid barrier's
 * counter in word 0, the tile counter in word 32 (its own 128-byte line, away from the barrier's spinning). */
#define TILE_COUNTER_WORD 32
/* spread-ctas (docs/device-abi.md "Spread CTAs"): a CTA's rank on its SM is its claim on word
 * SPREAD_FIRST_WORD + (%smid mod SPREAD_SM_SLOTS); the CTAs of rank r (ranks above SPREAD_RANKS - 1 count as
 * that) count themselves on word SPREAD_FIRST_WORD + SPREAD_SM_SLOTS + r. */
#define SPREAD_FIRST_WORD 64
#define SPREAD_SM_SLOTS 256
#define SPREAD_RANKS 8
/* With dataflow: task k's count of finished tiles in word DATAFLOW_FIRST_WORD + k; then each counted wave's
 * tile counter on a 128-byte line of its own (docs/device-abi.md "Dataflow"). */
#define DATAFLOW_FIRST_WORD 64
#define LINE_WORDS 32
/* u64 words of a tile's record in the trace (trace-tiles): begin, end, the CTA that ran it. */
#define TILE_RECORD_WORDS 3
/* The tile loop counts in i32 and adds gridDim.x to the tile index: totals stay far from overflow. */
#define MAX_INTERVAL_TILES ((int64_t)1 << 30)
#define MAX_SYMBOL 128

typedef struct lower_options {
  bool staged;
  int64_t min_ctas_per_sm;
  bool tile_counter;
  int64_t counter_min_tiles;
  bool trace_tiles;
  int64_t spin_sleep_ns;
  bool table_dispatch;
  bool dataflow;
  bool spread_ctas;
  bool solo_attention;
  bool barrier_red;
  bool attention_kernels;
  char apart_kinds[LATCH_OPTION_STRING_MAX];
  char apart_intervals[LATCH_OPTION_STRING_MAX];
} lower_options;

static const latch_pass_option lower_option_table[] = {
    {"staged", LATCH_OPTION_BOOL, "false",
     "also write one kernel per interval (per wave) for latch-run --mode=staged, listed as staged_kernels",
     offsetof(lower_options, staged)},
    {"min-ctas-per-sm", LATCH_OPTION_INT, "2",
     "CTAs per SM that @latch_main must fit (.minnctapersm: ptxas caps the registers at 65536 / (256 n), "
     "spilling the rest); 0 leaves the count free",
     offsetof(lower_options, min_ctas_per_sm)},
    {"tile-counter", LATCH_OPTION_BOOL, "true",
     "@latch_main's CTAs take each interval's tiles after their first from a shared counter (false: round "
     "robin, tile t on CTA t mod gridDim.x)",
     offsetof(lower_options, tile_counter)},
    {"counter-min-tiles", LATCH_OPTION_INT, "600",
     "with tile-counter, a wave of fewer tiles than this runs them round robin (no tickets); trace-tiles "
     "counts every wave",
     offsetof(lower_options, counter_min_tiles)},
    {"trace-tiles", LATCH_OPTION_BOOL, "false",
     "with tile-counter, a tracing @latch_main also records each tile's begin and end (latch-run --trace "
     "then lists the slowest tasks); off by default because it makes LLVM's code generation of the kernel "
     "about 2.5 times slower",
     offsetof(lower_options, trace_tiles)},
    {"spin-sleep", LATCH_OPTION_INT, "200",
     "nanoseconds that a CTA waiting at the grid barrier sleeps between two reads of the counter "
     "(nanosleep: fewer issue slots and L2 reads taken from the CTA that shares its SM); 0: no sleep",
     offsetof(lower_options, spin_sleep_ns)},
    {"table-dispatch", LATCH_OPTION_BOOL, "false",
     "@latch_main walks its waves from constant tables and calls each tile body from one place, so that the "
     "bodies with wgmma are inlined once (ptxas serializes wgmma in a called function); correct on the H200 "
     "but 1.2-1.3x slower on TinyMoE: off by default",
     offsetof(lower_options, table_dispatch)},
    {"dataflow", LATCH_OPTION_BOOL, "false",
     "@latch_main has no grid barriers: each task counts its finished tiles, and a CTA starts a wave once "
     "the earlier tasks it conflicts with (what it reads they write, what it writes they read or write: "
     "arena bytes, arguments, shared scratch) have all their tiles done (not with table-dispatch)",
     offsetof(lower_options, dataflow)},
    {"spread-ctas", LATCH_OPTION_BOOL, "false",
     "from interval 1 on, @latch_main numbers its CTAs so that the first ones lie on distinct SMs (each CTA "
     "claims its rank on its SM and its place among the CTAs of that rank; docs/device-abi.md \"Spread CTAs\"), "
     "and a wave of fewer tiles than CTAs runs its tile t first on the CTA of number t, so that it no longer puts "
     "two tiles on one SM while others idle (not with dataflow or table-dispatch)",
     offsetof(lower_options, spread_ctas)},
    {"solo-attention", LATCH_OPTION_BOOL, "false",
     "from interval 1 on, a round-robin wave whose tiles are all attention-gradient tiles runs on one CTA per SM "
     "(the CTAs numbered as spread-ctas numbers them, those below the count of SMs; the others go on to the "
     "grid barrier), so that each tile has its SM alone as in its staged kernel (not with dataflow or "
     "table-dispatch; with trace-tiles every wave is counted and none runs solo)",
     offsetof(lower_options, solo_attention)},
    {"barrier-red", LATCH_OPTION_BOOL, "false",
     "a grid barrier's arrival is one red.release.gpu (inline PTX) and the count that ends it is the barrier's "
     "number in @latch_main times gridDim.x, known when the kernel is written, instead of a release fence and an "
     "atomic add whose returned count thread 0 waits for (not with table-dispatch, whose barriers run in a loop)",
     offsetof(lower_options, barrier_red)},
    {"attention-kernels", LATCH_OPTION_BOOL, "true",
     "each interval whose waves are all round-robin attention-gradient tiles runs as kernels of its own (its "
     "staged kernels: all the registers they need and the launch's fetch of their code) between parts of "
     "@latch_main (@latch_main, @latch_main_1, ...), which latch-run launches in the order of the manifest's "
     "\"launches\" (not with dataflow, table-dispatch, spread-ctas or solo-attention; with trace-tiles every "
     "wave is counted and none runs apart)",
     offsetof(lower_options, attention_kernels)},
    {"apart-kinds", LATCH_OPTION_STRING, "",
     "task kinds, comma-separated (scatter_add_rows,attention_lse): as attention-kernels, each interval whose "
     "waves are all round robin and that holds a task of one of these kinds runs as its staged kernels (TinyMoE "
     "2x1024's scatter and attention tiles took about twice as long in @latch_main as in their staged kernels; "
     "the same exclusions)",
     offsetof(lower_options, apart_kinds)},
    {"apart-intervals", LATCH_OPTION_STRING, "",
     "interval numbers, comma-separated (1,17): each of these intervals whose waves are all round robin runs as "
     "its staged kernels, as with apart-kinds (bench/code_sizes.py --apart-over KB names those whose tile bodies "
     "hold that much code, which @latch_main's tiles fetch cold after a grid barrier; the same exclusions)",
     offsetof(lower_options, apart_intervals)},
};

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_json_string(latch_text *t, MlirStringRef value) {
  latch_text_put(t, "\"");
  for (size_t i = 0; i < value.length; ++i) {
    unsigned char c = (unsigned char)value.data[i];
    if (c == '"' || c == '\\')
      latch_text_put(t, "\\%c", c);
    else if (c < 0x20)
      latch_text_put(t, "\\u%04x", c);
    else
      latch_text_put(t, "%c", c);
  }
  latch_text_put(t, "\"");
}

/* The shortest decimal form of `value` that reads back as the same double (a JSON number). */
static void put_json_double(latch_text *t, double value) {
  char buffer[40];
  for (int digits = 1; digits <= 17; ++digits) {
    snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
    if (strtod(buffer, NULL) == value)
      break;
  }
  latch_text_put(t, "%s", buffer);
}

/* ---- reading the program ----------------------------------------------------------------------------- */

typedef struct lowered_task {
  MlirOperation op;
  char function[MAX_SYMBOL]; /* the device function's symbol */
  char body[MAX_SYMBOL];     /* the tile body it calls (task_body_<N>, shared by a signature's tasks), or "" */
  int64_t tiles;
  int interval;
  /* Within its interval: 0, or one more than the wave of any task of the same interval whose result it
   * reads (fused prologues and epilogues share their partner's interval; those that latch-lower-tasks
   * does not run inside their partner's tiles are tasks of their own, so a grid barrier separates the
   * waves). */
  int wave;
  bool runs_inside; /* a fused prologue or epilogue that latch-lower-tasks runs inside its partner's tiles */
} lowered_task;

/* A kernel of the update: a part of @latch_main (cooperative: intervals [first, end) with grid barriers
 * between them), or the kernel of wave `wave` of an interval that runs apart (a normal launch). */
typedef struct launch {
  char name[MAX_SYMBOL];
  bool cooperative;
  int first, end;     /* a part's intervals */
  int interval, wave; /* an apart interval's wave */
} launch;

typedef struct lowerer {
  MlirContext context;
  MlirOperation program, gpu_module;
  latch_schedule schedule;
  bool schedule_ready;
  /* The schedule's arena.bind ops (their indices) and, for each bound value, its first one's index plus
   * one: the manifest asks for the arena offset of every result and probe (a search per question was
   * cubic in the program's size). */
  size_t *binds, bind_count;
  latch_ptrmap bind_of;
  bool bind_of_ready;
  lowered_task *tasks;
  size_t task_count;
  MlirOperation *markers; /* the interval.interval op of each interval */
  int64_t *interval_tiles;
  int *interval_waves; /* waves per interval */
  int interval_count;
  bool staged; /* also write the staged kernels */
  int64_t min_ctas_per_sm; /* .minnctapersm of @latch_main; 0 for none */
  bool tile_counter;       /* @latch_main takes tiles from the tile counter (else round robin) */
  int64_t counter_min_tiles; /* latch-lower-intervals{counter-min-tiles}: smaller waves run round robin */
  int64_t spin_sleep_ns;   /* latch-lower-intervals{spin-sleep} */
  bool trace_tiles;        /* and records each tile's begin and end when tracing */
  bool table_dispatch;     /* latch-lower-intervals{table-dispatch} */
  bool dataflow;           /* latch-lower-intervals{dataflow}: dependency waits instead of grid barriers */
  bool spread_ctas;        /* latch-lower-intervals{spread-ctas} (never with dataflow or table dispatch) */
  bool solo_attention;     /* latch-lower-intervals{solo-attention} (likewise) */
  bool number_ctas;        /* either: @latch_main numbers its CTAs (docs/device-abi.md "Spread CTAs") */
  bool barrier_red;        /* latch-lower-intervals{barrier-red} (never with table dispatch) */
  bool attention_kernels;  /* latch-lower-intervals{attention-kernels} (never with the four above) */
  bool apart_kind[LATCH_OP_COUNT]; /* latch-lower-intervals{apart-kinds}, likewise */
  int apart_intervals[LATCH_OPTION_STRING_MAX / 2]; /* latch-lower-intervals{apart-intervals}, likewise */
  int apart_interval_count;
  /* Per interval, once the program is read: whether apart-kinds or apart-intervals names it (null when
   * neither names any, or apart kernels are not allowed). */
  bool *named_apart;
  /* The update's kernels in launch order (docs/device-abi.md "Launches"): @latch_main alone, or with
   * attention-kernels, apart-kinds or apart-intervals its parts and the apart intervals' kernels. */
  struct launch *launches;
  int launch_count;
  /* With dataflow, per wave of the program (interval by interval, wave by wave): the tasks whose tiles
   * must all be done before a CTA starts it, wave_deps[dep_start[g] .. dep_start[g + 1]). */
  int *interval_first_wave; /* the program-wide number of each interval's wave 0 */
  int wave_count;
  int *dep_start, *wave_deps;
  int64_t ticket_first_word, sync_words;
  int errors;
} lowerer;

__attribute__((format(printf, 3, 4))) static void report(lowerer *l, MlirOperation op, const char *format, ...) {
  char message[512];
  int n = snprintf(message, sizeof(message), "latch-lower-intervals: ");
  va_list args;
  va_start(args, format);
  vsnprintf(message + n, sizeof(message) - (size_t)n, format, args);
  va_end(args);
  mlirEmitError(mlirOperationGetLocation(op), message);
  l->errors++;
}

/* The single interval.program and gpu.module @latch at the top level of `module`. */
static bool find_parts(lowerer *l, MlirOperation module) {
  int programs = latch_module_find_program(module, &l->program, &l->gpu_module);
  if (programs == 0) {
    report(l, module, "the module holds no interval.program (run latch-form-intervals first)");
    return false;
  }
  if (programs > 1) {
    report(l, module, "the module holds %d interval.program ops; one kernel lowers exactly one", programs);
    return false;
  }
  if (mlirOperationIsNull(l->gpu_module)) {
    report(l, l->program, "no gpu.module @latch holds the device functions (run latch-lower-tasks first)");
    return false;
  }
  return true;
}

/* The staged kernel of interval `interval`, wave `wave`: latch_interval_<i> when the interval has one wave
 * (or none), else latch_interval_<i>_<w>. */
static void staged_kernel_name(const lowerer *l, int interval, int wave, char *out) {
  if (l->interval_waves[interval] <= 1)
    snprintf(out, MAX_SYMBOL, "latch_interval_%d", interval);
  else
    snprintf(out, MAX_SYMBOL, "latch_interval_%d_%d", interval, wave);
}

/* Staged kernels of interval `interval`: one per wave, and one for an interval without tasks (it still
 * carries the interval's trace points). */
static int staged_waves(const lowerer *l, int interval) {
  return l->interval_waves[interval] > 1 ? l->interval_waves[interval] : 1;
}

/* The device function of task number `index`: its `task.device_function` attribute, else task_<index>. */
static bool device_function_name(lowerer *l, MlirOperation task, size_t index, char *out) {
  MlirAttribute attr = mlirOperationGetAttributeByName(task, str("task.device_function"));
  if (mlirAttributeIsNull(attr)) {
    snprintf(out, MAX_SYMBOL, "task_%zu", index);
    return true;
  }
  if (!mlirAttributeIsAString(attr)) {
    report(l, task, "task.device_function must be a string attribute");
    return false;
  }
  MlirStringRef name = mlirStringAttrGetValue(attr);
  bool plain = name.length > 0 && name.length < MAX_SYMBOL;
  for (size_t i = 0; plain && i < name.length; ++i) {
    char c = name.data[i];
    plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
            c == '$' || c == '-';
  }
  if (!plain) {
    report(l, task, "task.device_function '%.*s' is not a symbol name (letters, digits, _ . $ -; under %d bytes)",
           (int)(name.length > 200 ? 200 : name.length), name.data, MAX_SYMBOL);
    return false;
  }
  snprintf(out, MAX_SYMBOL, "%.*s", (int)name.length, name.data);
  return true;
}

/* The first tile body (a callee named task_body_<N>) that a task's device function calls, into the
 * MAX_SYMBOL bytes at `user_data` (the manifest names it: tools join it with the kernel's code sizes). */
static MlirWalkResult find_tile_body(MlirOperation op, void *user_data) {
  char *body = user_data;
  if (!latch_op_is(op, "func.call"))
    return MlirWalkResultAdvance;
  MlirAttribute callee = mlirOperationGetAttributeByName(op, str("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return MlirWalkResultAdvance;
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(callee);
  if (name.length >= MAX_SYMBOL || name.length < 10 || memcmp(name.data, "task_body_", 10) != 0)
    return MlirWalkResultAdvance;
  memcpy(body, name.data, name.length);
  body[name.length] = '\0';
  return MlirWalkResultInterrupt;
}

/* Every task with its tiles and device function; every interval with its marker and total tiles. */
static bool read_program(lowerer *l) {
  if (!latch_schedule_initialize(&l->schedule, l->program)) {
    l->errors++;
    return false;
  }
  l->schedule_ready = true;
  latch_schedule *s = &l->schedule;
  l->bind_of_ready = latch_ptrmap_initialize(&l->bind_of);
  l->binds = calloc(s->count + 1, sizeof(*l->binds));
  if (!l->bind_of_ready || !l->binds) {
    report(l, l->program, "out of memory");
    return false;
  }
  for (size_t i = 0; i < s->count; ++i) {
    if (latch_op_kind_of(s->ops[i]) != LATCH_OP_ARENA_BIND)
      continue;
    l->binds[l->bind_count++] = i;
    MlirValue value = latch_bind_value(s->ops[i]);
    if (!latch_ptrmap_get(&l->bind_of, value.ptr) &&
        !latch_ptrmap_put(&l->bind_of, value.ptr, (void *)(uintptr_t)(i + 1))) {
      report(l, l->program, "out of memory");
      return false;
    }
  }
  l->interval_count = s->interval_count;
  l->tasks = calloc(s->count + 1, sizeof(*l->tasks));
  l->markers = calloc((size_t)s->interval_count + 1, sizeof(*l->markers));
  l->interval_tiles = calloc((size_t)s->interval_count + 1, sizeof(*l->interval_tiles));
  l->interval_waves = calloc((size_t)s->interval_count + 1, sizeof(*l->interval_waves));
  if (!l->tasks || !l->markers || !l->interval_tiles || !l->interval_waves) {
    report(l, l->program, "out of memory");
    return false;
  }
  int interval = -1;
  for (MlirOperation op = mlirBlockGetFirstOperation(s->body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (latch_op_kind_of(op) == LATCH_OP_INTERVAL_INTERVAL && interval + 1 < s->interval_count)
      l->markers[++interval] = op;

  MlirType expected = mlirTypeParseGet(l->context, str("(i32, !llvm.ptr<1>) -> ()"));
  MlirSymbolTable symbols = mlirSymbolTableCreate(l->gpu_module);
  for (size_t i = 0; i < s->count; ++i) {
    MlirOperation op = s->ops[i];
    if (!latch_op_is_task(op))
      continue;
    lowered_task *task = &l->tasks[l->task_count];
    task->op = op;
    task->interval = s->interval[i];
    task->wave = 0;
    MlirAttribute tiles = mlirOperationGetAttributeByName(op, str("tiles"));
    if (mlirAttributeIsNull(tiles) || !mlirAttributeIsAInteger(tiles)) {
      report(l, op, "task has no integer `tiles` attribute (latch-form-intervals sets it)");
    } else {
      task->tiles = mlirIntegerAttrGetValueInt(tiles);
      if (task->tiles < 0 || task->tiles > MAX_INTERVAL_TILES)
        report(l, op, "tiles = %lld is outside [0, 2^30]", (long long)task->tiles);
      else if ((l->interval_tiles[task->interval] += task->tiles) > MAX_INTERVAL_TILES)
        report(l, op, "interval %d has more than 2^30 tiles", task->interval);
    }
    /* A task without tiles (a view) runs nothing: it takes its producers' wave and adds none. A fused
     * prologue or epilogue without tiles (latch-lower-tasks computes it inside its partner's tiles) takes
     * the wave after its producers' (an epilogue's: its partner's), and its readers that same wave (a
     * prologue's: its partner, whose tiles compute it). */
    task->runs_inside = task->tiles == 0 && latch_has_fused_mark(op);
    int after = task->tiles > 0 || task->runs_inside ? 1 : 0;
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(op); k < n; ++k) {
      MlirValue operand = mlirOperationGetOperand(op, k);
      if (mlirValueIsABlockArgument(operand) || latch_schedule_interval_of(s, operand) != task->interval)
        continue;
      MlirOperation producer = mlirOpResultGetOwner(operand);
      for (size_t j = 0; j < l->task_count; ++j) {
        int wave = l->tasks[j].wave + (l->tasks[j].runs_inside ? 0 : after);
        if (mlirOperationEqual(l->tasks[j].op, producer) && wave > task->wave)
          task->wave = wave;
      }
    }
    if (task->tiles > 0 && task->wave + 1 > l->interval_waves[task->interval])
      l->interval_waves[task->interval] = task->wave + 1;
    if (device_function_name(l, op, l->task_count, task->function)) {
      MlirOperation function = mlirSymbolTableLookup(symbols, str(task->function));
      if (mlirOperationIsNull(function)) {
        report(l, op, "gpu.module @latch has no device function @%s for this task", task->function);
      } else {
        MlirAttribute type = mlirOperationGetAttributeByName(function, str("function_type"));
        if (!latch_op_is(function, "func.func") || mlirAttributeIsNull(type) || !mlirAttributeIsAType(type) ||
            !mlirTypeEqual(mlirTypeAttrGetValue(type), expected))
          report(l, op, "device function @%s must be a func.func of type (i32, !llvm.ptr<1>) -> ()", task->function);
        else
          mlirOperationWalk(function, find_tile_body, task->body, MlirWalkPreOrder);
      }
    }
    l->task_count++;
  }
  mlirSymbolTableDestroy(symbols);
  return l->errors == 0;
}

/* ---- dataflow: which earlier tasks a wave waits for ------------------------------------------------------
 * docs/device-abi.md "Dataflow". A task's accesses: the arena bytes of its operands (read) and results
 * (written), the program arguments it reads or writes over (task.adamw), and the module globals its device
 * function names (pooled scratch that tasks of different intervals share: written). Two tasks conflict
 * when some access of each touches the same bytes and one of them writes; an access that cannot be placed
 * conflicts with everything. A wave waits for every earlier task it conflicts with, less those that an
 * already chosen one implies (a task's tiles are done only after its wave's own waits were met). */
static int64_t arena_offset(const lowerer *l, MlirValue value);
static intptr_t alias_arg(const lowerer *l, MlirValue value);
static int64_t value_bytes(MlirValue value);
static bool wave_counted(const lowerer *l, int interval, int wave);

enum { BUFFER_UNKNOWN = -2, BUFFER_ARENA = -1, BUFFER_GLOBAL = 1 << 24 };

typedef struct task_access {
  int64_t buffer; /* BUFFER_ARENA, an argument's number, BUFFER_GLOBAL + a global's number, BUFFER_UNKNOWN */
  int64_t begin, end;
  bool write;
} task_access;

typedef struct access_list {
  task_access *items;
  size_t count, capacity;
} access_list;

typedef struct dataflow_plan {
  access_list *accesses; /* per lowered task */
  char (*globals)[MAX_SYMBOL];
  size_t global_count, global_capacity;
  bool failed;
} dataflow_plan;

static void add_access(dataflow_plan *p, access_list *list, int64_t buffer, int64_t begin, int64_t end, bool write) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 8;
    task_access *items = realloc(list->items, capacity * sizeof(*items));
    if (!items) {
      p->failed = true;
      return;
    }
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = (task_access){buffer, begin, end, write};
}

static int64_t global_number(dataflow_plan *p, MlirStringRef name) {
  if (name.length >= MAX_SYMBOL) /* not kept: such a global conflicts with every access */
    return BUFFER_UNKNOWN;
  for (size_t g = 0; g < p->global_count; ++g)
    if (strlen(p->globals[g]) == name.length && memcmp(p->globals[g], name.data, name.length) == 0)
      return BUFFER_GLOBAL + (int64_t)g;
  if (p->global_count == p->global_capacity) {
    size_t capacity = p->global_capacity ? 2 * p->global_capacity : 16;
    char(*globals)[MAX_SYMBOL] = realloc(p->globals, capacity * sizeof(*globals));
    if (!globals) {
      p->failed = true;
      return BUFFER_UNKNOWN;
    }
    p->globals = globals;
    p->global_capacity = capacity;
  }
  snprintf(p->globals[p->global_count], MAX_SYMBOL, "%.*s", (int)name.length, name.data);
  return BUFFER_GLOBAL + (int64_t)p->global_count++;
}

/* A value the task reads (write = false) or writes. */
static void add_value_access(const lowerer *l, dataflow_plan *p, access_list *list, MlirValue value, bool write) {
  if (!mlirTypeIsARankedTensor(mlirValueGetType(value)))
    return;
  intptr_t arg = alias_arg(l, value);
  if (arg >= 0) {
    add_access(p, list, arg, 0, INT64_MAX, write);
    return;
  }
  int64_t offset = arena_offset(l, value);
  if (offset >= 0) {
    add_access(p, list, BUFFER_ARENA, offset, offset + value_bytes(value), write);
    return;
  }
  /* Constants before the first interval are the program's own and never written. */
  if (!write && latch_schedule_interval_of(&l->schedule, value) == -1)
    return;
  add_access(p, list, BUFFER_UNKNOWN, 0, INT64_MAX, true);
}

typedef struct global_walk {
  dataflow_plan *plan;
  access_list *list;
} global_walk;

static MlirWalkResult find_globals(MlirOperation op, void *user_data) {
  global_walk *walk = user_data;
  if (!latch_op_is(op, "llvm.mlir.addressof"))
    return MlirWalkResultAdvance;
  MlirAttribute name = mlirOperationGetAttributeByName(op, str("global_name"));
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAFlatSymbolRef(name)) {
    add_access(walk->plan, walk->list, BUFFER_UNKNOWN, 0, INT64_MAX, true);
    return MlirWalkResultAdvance;
  }
  MlirStringRef symbol = mlirFlatSymbolRefAttrGetValue(name);
  /* Shared memory is the CTA's own: its tiles run one after another, with CTA barriers between. */
  if (mlirStringRefEqual(symbol, str("latch_smem")) || mlirStringRefEqual(symbol, str("latch_next_tile")) ||
      mlirStringRefEqual(symbol, str("latch_spread")))
    return MlirWalkResultAdvance;
  add_access(walk->plan, walk->list, global_number(walk->plan, symbol), 0, INT64_MAX, true);
  return MlirWalkResultAdvance;
}

static bool accesses_conflict(const access_list *a, const access_list *b) {
  for (size_t i = 0; i < a->count; ++i)
    for (size_t j = 0; j < b->count; ++j) {
      const task_access *x = &a->items[i], *y = &b->items[j];
      if (!x->write && !y->write)
        continue;
      if (x->buffer == BUFFER_UNKNOWN || y->buffer == BUFFER_UNKNOWN)
        return true;
      if (x->buffer == y->buffer && x->begin < y->end && y->begin < x->end)
        return true;
    }
  return false;
}

/* The lowered task of `op`, or null. */
static const lowered_task *lowered_task_of(const lowerer *l, MlirOperation op) {
  for (size_t k = 0; k < l->task_count; ++k)
    if (mlirOperationEqual(l->tasks[k].op, op))
      return &l->tasks[k];
  return NULL;
}

/* The program-wide number of wave `wave` of interval `interval`. */
static int global_wave(const lowerer *l, int interval, int wave) { return l->interval_first_wave[interval] + wave; }

static bool plan_dataflow(lowerer *l) {
  size_t n = l->task_count;
  l->interval_first_wave = calloc((size_t)l->interval_count + 1, sizeof(int));
  if (!l->interval_first_wave) {
    report(l, l->program, "out of memory");
    return false;
  }
  for (int i = 0; i < l->interval_count; ++i) {
    l->interval_first_wave[i] = l->wave_count;
    l->wave_count += l->interval_waves[i];
  }
  dataflow_plan plan = {0};
  plan.accesses = calloc(n + 1, sizeof(*plan.accesses));
  uint64_t *implied = calloc((n + 1) * ((n + 64) / 64), sizeof(uint64_t)); /* per task: tasks done with it */
  uint64_t *covered = calloc((n + 64) / 64, sizeof(uint64_t));
  size_t words = (n + 64) / 64;
  int *order = calloc(n + 1, sizeof(int));
  l->dep_start = calloc((size_t)l->wave_count + 2, sizeof(int));
  size_t dep_capacity = 64;
  l->wave_deps = calloc(dep_capacity, sizeof(int));
  if (!plan.accesses || !implied || !covered || !order || !l->dep_start || !l->wave_deps)
    plan.failed = true;
  MlirSymbolTable symbols = mlirSymbolTableCreate(l->gpu_module);
  for (size_t k = 0; k < n && !plan.failed; ++k) {
    const lowered_task *task = &l->tasks[k];
    if (task->tiles == 0)
      continue;
    access_list *list = &plan.accesses[k];
    for (intptr_t i = 0, count = mlirOperationGetNumOperands(task->op); i < count; ++i) {
      MlirValue operand = mlirOperationGetOperand(task->op, i);
      add_value_access(l, &plan, list, operand, false);
      /* A prologue inside this task's tiles: its inputs are read here. */
      const lowered_task *prologue = mlirValueIsAOpResult(operand) ? lowered_task_of(l, mlirOpResultGetOwner(operand)) : NULL;
      if (prologue && prologue->runs_inside)
        for (intptr_t j = 0, inputs = mlirOperationGetNumOperands(prologue->op); j < inputs; ++j)
          add_value_access(l, &plan, list, mlirOperationGetOperand(prologue->op, j), false);
    }
    /* An epilogue inside this task's tiles: its inputs are read and its results written here. */
    for (intptr_t i = 0, count = mlirOperationGetNumResults(task->op); i < count; ++i)
      for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(task->op, i)); !mlirOpOperandIsNull(use);
           use = mlirOpOperandGetNextUse(use)) {
        const lowered_task *epilogue = lowered_task_of(l, mlirOpOperandGetOwner(use));
        MlirAttribute mark = epilogue ? mlirOperationGetAttributeByName(epilogue->op, str("task.fused"))
                                      : mlirAttributeGetNull();
        if (!epilogue || !epilogue->runs_inside || !mlirAttributeIsAString(mark) ||
            !mlirStringRefEqual(mlirStringAttrGetValue(mark), str("epilogue")))
          continue;
        for (intptr_t j = 0, inputs = mlirOperationGetNumOperands(epilogue->op); j < inputs; ++j)
          add_value_access(l, &plan, list, mlirOperationGetOperand(epilogue->op, j), false);
        for (intptr_t j = 0, results = mlirOperationGetNumResults(epilogue->op); j < results; ++j)
          add_value_access(l, &plan, list, mlirOperationGetResult(epilogue->op, j), true);
      }
    for (intptr_t i = 0, count = mlirOperationGetNumResults(task->op); i < count; ++i)
      add_value_access(l, &plan, list, mlirOperationGetResult(task->op, i), true);
    MlirOperation function = mlirSymbolTableLookup(symbols, str(task->function));
    global_walk walk = {&plan, list};
    if (!mlirOperationIsNull(function))
      mlirOperationWalk(function, find_globals, &walk, MlirWalkPreOrder);
  }
  mlirSymbolTableDestroy(symbols);
  /* Tasks by wave, then by number (the order in which the kernel runs their waves). */
  size_t ordered = 0;
  for (int i = 0; i < l->interval_count && !plan.failed; ++i)
    for (int wave = 0; wave < l->interval_waves[i]; ++wave)
      for (size_t k = 0; k < n; ++k)
        if (l->tasks[k].interval == i && l->tasks[k].wave == wave && l->tasks[k].tiles > 0)
          order[ordered++] = (int)k;
  size_t dep_count = 0, position = 0;
  for (int g = 0; g < l->wave_count && !plan.failed; ++g) {
    l->dep_start[g] = (int)dep_count;
    size_t first = position;
    while (position < ordered && global_wave(l, l->tasks[order[position]].interval, l->tasks[order[position]].wave) == g)
      position++;
    memset(covered, 0, words * sizeof(uint64_t));
    /* The latest conflicting task first: it implies most of the others. */
    for (size_t e = first; e-- > 0 && !plan.failed;) {
      int earlier = order[e];
      if (covered[earlier / 64] >> (earlier % 64) & 1)
        continue;
      bool conflict = false;
      for (size_t m = first; m < position && !conflict; ++m)
        conflict = accesses_conflict(&plan.accesses[order[m]], &plan.accesses[earlier]);
      if (!conflict)
        continue;
      if (dep_count == dep_capacity) {
        int *grown = realloc(l->wave_deps, 2 * dep_capacity * sizeof(int));
        if (!grown) {
          plan.failed = true;
          break;
        }
        l->wave_deps = grown;
        dep_capacity *= 2;
      }
      l->wave_deps[dep_count++] = earlier;
      for (size_t w = 0; w < words; ++w)
        covered[w] |= implied[(size_t)earlier * words + w];
    }
    for (size_t m = first; m < position; ++m) {
      int task = order[m];
      memcpy(&implied[(size_t)task * words], covered, words * sizeof(uint64_t));
      implied[(size_t)task * words + (size_t)task / 64] |= (uint64_t)1 << (task % 64);
    }
  }
  l->dep_start[l->wave_count] = (int)dep_count;
  /* The sync words: the task counters, then each counted wave's tile counter on its own line. */
  l->ticket_first_word = (DATAFLOW_FIRST_WORD + (int64_t)n + LINE_WORDS - 1) / LINE_WORDS * LINE_WORDS;
  int64_t counted = 0;
  for (int i = 0; i < l->interval_count; ++i)
    for (int wave = 0; wave < l->interval_waves[i]; ++wave)
      counted += wave_counted(l, i, wave);
  l->sync_words = l->ticket_first_word + LINE_WORDS * counted;
  for (size_t k = 0; plan.accesses && k < n; ++k)
    free(plan.accesses[k].items);
  free(plan.accesses);
  free(plan.globals);
  free(implied);
  free(covered);
  free(order);
  if (plan.failed)
    report(l, l->program, "out of memory planning the dataflow waits");
  return !plan.failed;
}

/* ---- the kernel as MLIR text ------------------------------------------------------------------------- */

typedef struct writer {
  latch_text *t;
  int next;          /* the next %vN */
  bool spread_ready; /* number_ctas: @latch_main's %spread (and %solo) are defined (after its first grid barrier) */
  int barriers;      /* the grid barriers written so far (barrier-red: each runs once, in this order) */
} writer;

static int fresh(writer *w) { return w->next++; }

/* The CTA's first tile of a wave of %v<total> tiles: %cta; or, with spread-ctas once %spread is defined,
 * %spread when the wave has fewer tiles than CTAs (then the tiles lie on distinct SMs as far as they can; a
 * wave with as many tiles as CTAs keeps %cta, whose neighbours share a GPC: measured 1.023 of the time at
 * 32x1024 with %spread for every wave), written as %v<N>. Returns the value's name, in `name` when it is
 * written. */
static const char *first_tile_of(writer *w, const lowerer *l, int total, char name[static 16]) {
  if (!w->spread_ready || !l->spread_ctas)
    return "%cta";
  int fewer = fresh(w), first = fresh(w);
  latch_text_put(w->t, "    %%v%d = arith.cmpi ult, %%v%d, %%grid : i32\n", fewer, total);
  latch_text_put(w->t, "    %%v%d = arith.select %%v%d, %%spread, %%cta : i32\n", first, fewer);
  snprintf(name, 16, "%%v%d", first);
  return name;
}

/* Thread 0 of a tracing CTA writes %globaltimer into trace[(cta * intervals + interval) * 3 + point] for
 * each point of `points` (one timer read). `guard` is the i1 value that selects the writing thread. */
static void write_trace(writer *w, const char *indent, const char *guard, int interval, int first_point,
                        int point_count) {
  latch_text *t = w->t;
  latch_text_put(t, "%sscf.if %s {\n", indent, guard);
  int now = fresh(w);
  latch_text_put(t, "%s  %%v%d = nvvm.read.ptx.sreg.globaltimer : i64\n", indent, now);
  for (int p = first_point; p < first_point + point_count; ++p) {
    int word = fresh(w), index = fresh(w), address = fresh(w);
    latch_text_put(t, "%s  %%v%d = arith.constant %d : i64\n", indent, word, interval * 3 + p);
    latch_text_put(t, "%s  %%v%d = arith.addi %%trace_row, %%v%d : i64\n", indent, index, word);
    latch_text_put(t, "%s  %%v%d = llvm.getelementptr %%trace[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64\n",
                   indent, address, index);
    latch_text_put(t, "%s  llvm.store %%v%d, %%v%d {alignment = 8 : i64} : i64, !llvm.ptr<1>\n", indent, now, address);
  }
  latch_text_put(t, "%s}\n", indent);
}

/* Thread 0 of a tracing CTA writes %smid + 1 (0 = never written) into trace[grid * intervals * 3 + cta],
 * after every CTA's timestamps (docs/device-abi.md "Trace"). Only @latch_main writes it. */
static void write_trace_smid(writer *w) {
  latch_text *t = w->t;
  int sm = fresh(w), sm_wide = fresh(w), one = fresh(w), word = fresh(w), grid = fresh(w), base = fresh(w),
      index = fresh(w), address = fresh(w);
  latch_text_put(t, "    scf.if %%trace_leader {\n");
  latch_text_put(t, "      %%v%d = nvvm.read.ptx.sreg.smid : i32\n", sm);
  latch_text_put(t, "      %%v%d = arith.extui %%v%d : i32 to i64\n", sm_wide, sm);
  latch_text_put(t, "      %%v%d = arith.constant 1 : i64\n", one);
  latch_text_put(t, "      %%v%d = arith.addi %%v%d, %%v%d : i64\n", word, sm_wide, one);
  latch_text_put(t, "      %%v%d = arith.extui %%grid : i32 to i64\n", grid);
  latch_text_put(t, "      %%v%d = arith.muli %%v%d, %%trace_words : i64\n", base, grid);
  latch_text_put(t, "      %%v%d = arith.addi %%v%d, %%cta_wide : i64\n", index, base);
  latch_text_put(t, "      %%v%d = llvm.getelementptr %%trace[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64\n",
                 address, index);
  latch_text_put(t, "      llvm.store %%v%d, %%v%d {alignment = 8 : i64} : i64, !llvm.ptr<1>\n", word, address);
  latch_text_put(t, "    }\n");
}

/* The tiles of wave `wave` of interval `interval`, in the order of its tasks. */
static int64_t wave_tiles(const lowerer *l, int interval, int wave) {
  int64_t total = 0;
  for (size_t i = 0; i < l->task_count; ++i)
    if (l->tasks[i].interval == interval && l->tasks[i].wave == wave)
      total += l->tasks[i].tiles;
  return total;
}

/* The tiles of every wave before wave `wave` of interval `interval`: where its tiles' records start. */
static uint32_t tiles_before(const lowerer *l, int interval, int wave) {
  uint32_t total = 0;
  for (int i = 0; i <= interval; ++i)
    for (int v = 0; v < (i == interval ? wave : l->interval_waves[i]); ++v)
      total += (uint32_t)wave_tiles(l, i, v);
  return total;
}

/* Whether wave `wave` of interval `interval` takes its tiles after the first from the tile counter. */
static bool wave_counted(const lowerer *l, int interval, int wave) {
  return l->tile_counter && (l->trace_tiles || wave_tiles(l, interval, wave) >= l->counter_min_tiles);
}

/* Whether wave `wave` of interval `interval` has tiles and they are all attention-gradient tiles. */
static bool wave_attention_grad(const lowerer *l, int interval, int wave) {
  bool any = false;
  for (size_t i = 0; i < l->task_count; ++i) {
    const lowered_task *task = &l->tasks[i];
    if (task->interval != interval || task->wave != wave || task->tiles == 0)
      continue;
    latch_op_kind kind = latch_op_kind_of(task->op);
    if (kind != LATCH_OP_TASK_ATTENTION_GRAD && kind != LATCH_OP_TASK_ATTENTION_GRAD_FROM_STATS)
      return false;
    any = true;
  }
  return any;
}

/* solo-attention: whether @latch_main runs round-robin wave `wave` of interval `interval` on one CTA per SM:
 * its tiles are all attention-gradient tiles and the CTAs are numbered (after the first grid barrier). */
static bool wave_solo(const writer *w, const lowerer *l, int interval, int wave) {
  return l->solo_attention && w->spread_ready && !wave_counted(l, interval, wave) &&
         wave_attention_grad(l, interval, wave);
}

/* Whether interval `interval` runs apart from @latch_main (its staged kernels): each of its waves is round
 * robin, and with attention-kernels all of them are attention-gradient tiles, or it holds a task of a kind
 * that apart-kinds names, or apart-intervals names it. */
static bool interval_apart(const lowerer *l, int interval) {
  if (!(l->attention_kernels || l->named_apart) || l->interval_waves[interval] == 0)
    return false;
  bool attention = l->attention_kernels;
  for (int wave = 0; wave < l->interval_waves[interval]; ++wave) {
    if (wave_counted(l, interval, wave))
      return false;
    attention = attention && wave_attention_grad(l, interval, wave);
  }
  return attention || (l->named_apart && l->named_apart[interval]);
}

/* The update's kernels in launch order: the parts of @latch_main (the first named latch_main, then
 * latch_main_<k>) between the kernels of the intervals that run apart. When every interval would run
 * apart, none does (the runtime sizes the grid by @latch_main). */
static bool plan_launches(lowerer *l) {
  int apart = 0;
  for (int i = 0; i < l->interval_count; ++i)
    apart += interval_apart(l, i);
  bool split = apart > 0 && apart < l->interval_count;
  size_t most = 1; /* a part before each interval, and each interval's waves */
  for (int i = 0; i < l->interval_count; ++i)
    most += 1 + (size_t)staged_waves(l, i);
  l->launches = calloc(most, sizeof(*l->launches));
  if (!l->launches) {
    report(l, l->program, "out of memory");
    return false;
  }
  int parts = 0;
  for (int first = 0; first < l->interval_count || parts == 0;) { /* a program without intervals: one part */
    if (split && interval_apart(l, first)) {
      for (int wave = 0; wave < l->interval_waves[first]; ++wave) {
        launch *k = &l->launches[l->launch_count++];
        staged_kernel_name(l, first, wave, k->name);
        k->interval = first, k->wave = wave;
      }
      ++first;
      continue;
    }
    int end = first;
    while (end < l->interval_count && !(split && interval_apart(l, end)))
      ++end;
    launch *k = &l->launches[l->launch_count++];
    if (parts++ == 0)
      snprintf(k->name, MAX_SYMBOL, "latch_main");
    else
      snprintf(k->name, MAX_SYMBOL, "latch_main_%d", parts - 1);
    k->cooperative = true, k->first = first, k->end = end;
    first = end;
  }
  return true;
}

static void report_held(lowerer *l, MlirSymbolTable symbols, const char *name) {
  MlirOperation existing = mlirSymbolTableLookup(symbols, str(name));
  if (!mlirOperationIsNull(existing))
    report(l, existing, "gpu.module @latch already holds @%s", name);
}

/* Reports each symbol this pass is about to add that gpu.module @latch already holds: the update's kernels
 * (@latch_main, its parts, the apart intervals' kernels), its shared globals and the staged kernels (an
 * apart interval's kernel is one of those with staged=true, and checked once). */
static bool check_names_free(lowerer *l) {
  MlirSymbolTable symbols = mlirSymbolTableCreate(l->gpu_module);
  for (int k = 0; k < l->launch_count; ++k)
    if (l->launches[k].cooperative || !l->staged)
      report_held(l, symbols, l->launches[k].name);
  report_held(l, symbols, "latch_next_tile");
  report_held(l, symbols, "latch_spread");
  for (int i = 0; l->staged && i < l->interval_count; ++i)
    for (int wave = 0; wave < staged_waves(l, i); ++wave) {
      char name[MAX_SYMBOL];
      staged_kernel_name(l, i, wave, name);
      report_held(l, symbols, name);
    }
  mlirSymbolTableDestroy(symbols);
  return l->errors == 0;
}

/* Whether any wave of @latch_main does (only then does the kernel need the shared word). */
static bool any_wave_counted(const lowerer *l) {
  for (int i = 0; i < l->interval_count; ++i)
    for (int wave = 0; wave < l->interval_waves[i]; ++wave)
      if (wave_counted(l, i, wave))
        return true;
  return false;
}

/* The body of a tile loop whose tile index is %v<tile>: the task whose prefix-sum range holds it runs
 * tile t - start. Tasks of zero tiles are never chosen. */
static void write_tile_dispatch(writer *w, const lowerer *l, int interval, int wave, int tile) {
  latch_text *t = w->t;
  size_t last = 0;
  for (size_t i = 0; i < l->task_count; ++i)
    if (l->tasks[i].interval == interval && l->tasks[i].wave == wave && l->tasks[i].tiles > 0)
      last = i;
  int64_t start = 0;
  size_t open = 0;
  for (size_t i = 0; i < l->task_count; ++i) {
    const lowered_task *task = &l->tasks[i];
    if (task->interval != interval || task->wave != wave || task->tiles == 0)
      continue;
    int local = tile;
    if (i != last) {
      int end = fresh(w), inside = fresh(w);
      latch_text_put(t, "      %%v%d = arith.constant %lld : i32\n", end, (long long)(start + task->tiles));
      latch_text_put(t, "      %%v%d = arith.cmpi ult, %%v%d, %%v%d : i32\n", inside, tile, end);
      latch_text_put(t, "      scf.if %%v%d {\n", inside);
    }
    if (start) {
      int offset = fresh(w);
      local = fresh(w);
      latch_text_put(t, "      %%v%d = arith.constant %lld : i32\n", offset, (long long)start);
      latch_text_put(t, "      %%v%d = arith.subi %%v%d, %%v%d : i32\n", local, tile, offset);
    }
    latch_text_put(t, "      func.call @\"%s\"(%%v%d, %%args) : (i32, !llvm.ptr<1>) -> ()\n", task->function, local);
    if (i != last) {
      latch_text_put(t, "      } else {\n");
      open++;
    }
    start += task->tiles;
  }
  for (size_t i = 0; i < open; ++i)
    latch_text_put(t, "      }\n");
}

/* With dataflow, the lowered task (its number) whose tiles hold tile %v<tile> of the wave. */
static int write_task_of_tile(writer *w, const lowerer *l, const char *indent, int interval, int wave, int tile) {
  latch_text *t = w->t;
  int task = -1;
  int64_t start = 0;
  for (size_t i = 0; i < l->task_count; ++i) {
    const lowered_task *lowered = &l->tasks[i];
    if (lowered->interval != interval || lowered->wave != wave || lowered->tiles == 0)
      continue;
    int number = fresh(w);
    latch_text_put(t, "%s%%v%d = arith.constant %zu : i32\n", indent, number, i);
    if (task < 0) {
      task = number;
    } else {
      int bound = fresh(w), past = fresh(w), chosen = fresh(w);
      latch_text_put(t, "%s%%v%d = arith.constant %lld : i32\n", indent, bound, (long long)start);
      latch_text_put(t, "%s%%v%d = arith.cmpi uge, %%v%d, %%v%d : i32\n", indent, past, tile, bound);
      latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i32\n", indent, chosen, past, number, task);
      task = chosen;
    }
    start += lowered->tiles;
  }
  return task;
}

/* Thread 0 (inside its scf.if) adds `count` finished tiles to task `task`'s counter (both SSA names: %vN
 * or %vN#k): a release fence (the CTA barrier before it made the CTA's stores its own), then a relaxed add. */
static void write_signal(writer *w, const char *indent, const char *task, const char *count) {
  latch_text *t = w->t;
  int address = fresh(w), old = fresh(w);
  latch_text_put(t, "%sllvm.fence syncscope(\"device\") release\n", indent);
  latch_text_put(t, "%s%%v%d = llvm.getelementptr %%task_done[%s] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32\n",
                 indent, address, task);
  latch_text_put(t, "%s%%v%d = llvm.atomicrmw add %%v%d, %s syncscope(\"device\") monotonic : !llvm.ptr<1>, i32\n",
                 indent, old, address, count);
}

/* With dataflow, before tile %v<tile>: the task it belongs to (returned), and when that is not task
 * %v<current>, the %v<count> tiles the CTA ran of %v<current> are signalled (after a CTA barrier when
 * `barrier`: the round robin loop has none between tiles). A CTA's tiles of one task are consecutive (its
 * tiles come in increasing order), so it signals each task once per wave. Sets *out_switched. */
static int write_switch_task(writer *w, const lowerer *l, const char *indent, int interval, int wave, int tile,
                             int current, int count, bool barrier, int *out_switched) {
  latch_text *t = w->t;
  int task = write_task_of_tile(w, l, indent, interval, wave, tile);
  int switched = fresh(w), pending = fresh(w), flush = fresh(w);
  latch_text_put(t, "%s%%v%d = arith.cmpi ne, %%v%d, %%v%d : i32\n", indent, switched, task, current);
  latch_text_put(t, "%s%%v%d = arith.cmpi ne, %%v%d, %%c0 : i32\n", indent, pending, count);
  latch_text_put(t, "%s%%v%d = arith.andi %%v%d, %%v%d : i1\n", indent, flush, switched, pending);
  latch_text_put(t, "%sscf.if %%v%d {\n", indent, flush);
  if (barrier)
    latch_text_put(t, "%s  nvvm.barrier0\n", indent);
  latch_text_put(t, "%s  scf.if %%leader {\n", indent);
  char inner[64], task_name[32], count_name[32];
  snprintf(inner, sizeof(inner), "%s    ", indent);
  snprintf(task_name, sizeof(task_name), "%%v%d", current);
  snprintf(count_name, sizeof(count_name), "%%v%d", count);
  write_signal(w, inner, task_name, count_name);
  latch_text_put(t, "%s  }\n", indent);
  latch_text_put(t, "%s}\n", indent);
  *out_switched = switched;
  return task;
}

/* The count carried to the next tile: 1 after a switch, else one more. */
static int write_next_count(writer *w, const char *indent, int switched, int count) {
  int more = fresh(w), next = fresh(w);
  latch_text_put(w->t, "%s%%v%d = arith.addi %%v%d, %%c1 : i32\n", indent, more, count);
  latch_text_put(w->t, "%s%%v%d = arith.select %%v%d, %%c1, %%v%d : i32\n", indent, next, switched, more);
  return next;
}

/* After a dataflow loop whose results %v<results>#2 and #3 (or #0 and #1 when `first` is 0) are the last
 * task and its count: thread 0 signals them. */
static void write_final_signal(writer *w, int results, int first) {
  latch_text *t = w->t;
  int pending = fresh(w);
  char task[32], count[32];
  snprintf(task, sizeof(task), "%%v%d#%d", results, first);
  snprintf(count, sizeof(count), "%%v%d#%d", results, first + 1);
  latch_text_put(t, "    scf.if %%leader {\n");
  latch_text_put(t, "      %%v%d = arith.cmpi ne, %s, %%c0 : i32\n", pending, count);
  latch_text_put(t, "      scf.if %%v%d {\n", pending);
  write_signal(w, "        ", task, count);
  latch_text_put(t, "      }\n");
  latch_text_put(t, "    }\n");
}

static void write_tile_record(writer *w, const lowerer *l, int tile, uint32_t base, int base_value, int word);

/* Round robin (the staged kernels, and @latch_main with tile-counter=false): for (t = blockIdx.x;
 * t < total; t += gridDim.x). With dataflow (@latch_main only) the loop carries the task of the last tile
 * and how many of its tiles the CTA ran, and signals them when the task changes and after the loop (a CTA
 * barrier first, then thread 0). With trace-tiles (only the staged kernels: @latch_main then counts every
 * wave) each tile is recorded as the counted loop records it, numbered after the `base` tiles of the
 * earlier waves, with a CTA barrier before its end. */
static void write_tile_loop(writer *w, const lowerer *l, int interval, int wave, bool dataflow, uint32_t base) {
  latch_text *t = w->t;
  int64_t total = wave_tiles(l, interval, wave);
  if (total == 0)
    return;
  int total_value = fresh(w), tile = fresh(w);
  latch_text_put(t, "    %%v%d = arith.constant %lld : i32\n", total_value, (long long)total);
  if (!dataflow) {
    char name[16];
    const char *first = name, *step = "%solo";
    if (wave_solo(w, l, interval, wave)) { /* CTAs numbered below %solo, one per SM, take the tiles */
      int solo = fresh(w), start = fresh(w);
      latch_text_put(t, "    %%v%d = arith.cmpi ult, %%spread, %%solo : i32\n", solo);
      latch_text_put(t, "    %%v%d = arith.select %%v%d, %%spread, %%v%d : i32\n", start, solo, total_value);
      snprintf(name, sizeof(name), "%%v%d", start);
    } else {
      first = first_tile_of(w, l, total_value, name);
      step = "%grid";
    }
    latch_text_put(t, "    scf.for %%v%d = %s to %%v%d step %s : i32 {\n", tile, first, total_value, step);
    write_tile_record(w, l, tile, base, -1, 0);
    write_tile_dispatch(w, l, interval, wave, tile);
    if (l->trace_tiles)
      latch_text_put(t, "      nvvm.barrier0\n");
    write_tile_record(w, l, tile, base, -1, 1);
    latch_text_put(t, "    }\n");
    return;
  }
  int results = fresh(w), current = fresh(w), count = fresh(w), switched;
  latch_text_put(t, "    %%v%d:2 = scf.for %%v%d = %%cta to %%v%d step %%grid iter_args(%%v%d = %%c0, %%v%d = %%c0) -> "
                    "(i32, i32) : i32 {\n", results, tile, total_value, current, count);
  int task = write_switch_task(w, l, "      ", interval, wave, tile, current, count, true, &switched);
  write_tile_dispatch(w, l, interval, wave, tile);
  int next = write_next_count(w, "      ", switched, count);
  latch_text_put(t, "      scf.yield %%v%d, %%v%d : i32, i32\n", task, next);
  latch_text_put(t, "    }\n");
  latch_text_put(t, "    nvvm.barrier0\n");
  write_final_signal(w, results, 0);
}

/* With trace-tiles, %tile_records: the tiles' records, after every CTA's interval words and %smid words
 * (docs/device-abi.md "Trace"; the staged kernels write no %smid word but leave its place). */
static void write_tile_records_start(writer *w, const lowerer *l) {
  latch_text *t = w->t;
  if (!l->trace_tiles)
    return;
  latch_text_put(t, "    %%grid_wide = arith.extui %%grid : i32 to i64\n");
  latch_text_put(t, "    %%cta_words = arith.constant %lld : i64\n", (long long)l->interval_count * 3 + 1);
  latch_text_put(t, "    %%records_offset = arith.muli %%grid_wide, %%cta_words : i64\n");
  latch_text_put(t, "    %%tile_records = llvm.getelementptr %%trace[%%records_offset] : (!llvm.ptr<1>, i64) -> "
                    "!llvm.ptr<1>, i64\n");
}

/* A tracing CTA's thread 0 stores %globaltimer into word `word` (0: begin, 1: end) of the record of tile
 * %v<tile> of the wave whose tiles follow `base` earlier ones (or %v<base_value> when that is >= 0):
 * %tile_records[3 (base + tile) + word], and
 * with the begin its CTA index at word 2 (TILE_RECORD_WORDS; docs/device-abi.md "Trace"). Each end of
 * the record is stored where it is read, so no timer value lives across the tile's call. */
static void write_tile_record(writer *w, const lowerer *l, int tile, uint32_t base, int base_value, int word) {
  latch_text *t = w->t;
  if (!l->trace_tiles)
    return;
  int now = fresh(w), wide = fresh(w), words = fresh(w), scaled = fresh(w), offset = fresh(w), at = fresh(w),
      address = fresh(w);
  latch_text_put(t, "      scf.if %%trace_leader {\n");
  latch_text_put(t, "        %%v%d = nvvm.read.ptx.sreg.globaltimer : i64\n", now);
  latch_text_put(t, "        %%v%d = arith.extui %%v%d : i32 to i64\n", wide, tile);
  if (base_value >= 0) { /* table-dispatch: the wave's base is a value */
    int numbered = fresh(w);
    latch_text_put(t, "        %%v%d = arith.addi %%v%d, %%v%d : i64\n", numbered, wide, base_value);
    wide = numbered;
    base = 0;
  }
  latch_text_put(t, "        %%v%d = arith.constant %d : i64\n", words, TILE_RECORD_WORDS);
  latch_text_put(t, "        %%v%d = arith.muli %%v%d, %%v%d : i64\n", scaled, wide, words);
  latch_text_put(t, "        %%v%d = arith.constant %lld : i64\n", offset, TILE_RECORD_WORDS * (long long)base + word);
  latch_text_put(t, "        %%v%d = arith.addi %%v%d, %%v%d : i64\n", at, scaled, offset);
  latch_text_put(t, "        %%v%d = llvm.getelementptr %%tile_records[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64\n",
                 address, at);
  latch_text_put(t, "        llvm.store %%v%d, %%v%d {alignment = 8 : i64} : i64, !llvm.ptr<1>\n", now, address);
  if (word == 0) {
    int cta_address = fresh(w);
    latch_text_put(t, "        %%v%d = llvm.getelementptr %%v%d[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64\n", cta_address,
                   address);
    latch_text_put(t, "        llvm.store %%cta_wide, %%v%d {alignment = 8 : i64} : i64, !llvm.ptr<1>\n", cta_address);
  }
  latch_text_put(t, "      }\n");
}

/* The hand-over of the next tile (docs/device-abi.md "Tile counter"): thread 0 stores gridDim.x + %v<ticket> -
 * %v<base> into shared word %v<parity> of @latch_next_tile, then a CTA barrier; returns the word's
 * address, from which every thread then reads its next tile. */
static int write_hand_over(writer *w, const char *indent, int ticket, int base, int parity) {
  latch_text *t = w->t;
  int slot = fresh(w), offset = fresh(w), next = fresh(w);
  latch_text_put(t, "%s%%v%d = llvm.getelementptr %%next_tile[%%v%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32\n",
                 indent, slot, parity);
  latch_text_put(t, "%sscf.if %%leader {\n", indent);
  latch_text_put(t, "%s  %%v%d = arith.subi %%v%d, %%v%d : i32\n", indent, offset, ticket, base);
  latch_text_put(t, "%s  %%v%d = arith.addi %%v%d, %%grid : i32\n", indent, next, offset);
  latch_text_put(t, "%s  llvm.store %%v%d, %%v%d {alignment = 4 : i64} : i32, !llvm.ptr<3>\n", indent, next, slot);
  latch_text_put(t, "%s}\n", indent);
  latch_text_put(t, "%snvvm.barrier0\n", indent);
  return slot;
}

/* docs/device-abi.md "Tile counter": CTA c runs tile c first; every tile it runs, thread 0 draws a ticket
 * (atomic add on the update's tile counter, issued before the tile so that its latency hides behind it)
 * and the next tile is gridDim.x + ticket - `base`, passed to the CTA's threads through a shared word
 * (two, alternating, so that one CTA barrier per tile suffices). Each tile run draws exactly one ticket, so
 * a wave of `total` tiles moves the counter by exactly `total`: `base`, the tiles of every earlier wave of
 * @latch_main, is a constant (u32 arithmetic wraps consistently). Which CTA runs a tile changes from run
 * to run; what a tile computes does not (no template depends on the CTA), so the bits stay the same.
 * With trace-tiles, a tracing CTA's thread 0 also records when the tile began and when its threads were
 * done (after the barrier) at %tile_records[3 (base + tile)] (docs/device-abi.md "Trace"). Returns the
 * wave's tiles: the tickets it draws. */
static uint32_t write_counted_tile_loop(writer *w, const lowerer *l, int interval, int wave, uint32_t base,
                                        int dataflow_ticket_word) {
  latch_text *t = w->t;
  int64_t total = wave_tiles(l, interval, wave);
  if (total == 0)
    return 0;
  bool dataflow = dataflow_ticket_word >= 0;
  /* With dataflow, waves may overlap in time, so each counted wave has a tile counter of its own. */
  char counter[32] = "%tile_counter";
  if (dataflow) {
    int own = fresh(w);
    latch_text_put(t, "    %%v%d = llvm.getelementptr %%counter[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n", own,
                   dataflow_ticket_word);
    snprintf(counter, sizeof(counter), "%%v%d", own);
  }
  int total_value = fresh(w), base_value = fresh(w), tile = fresh(w), parity = fresh(w), go = fresh(w),
      ticket = fresh(w), drawn = fresh(w), flipped = fresh(w);
  int results = fresh(w), current = fresh(w), count = fresh(w);
  latch_text_put(t, "    %%v%d = arith.constant %lld : i32\n", total_value, (long long)total);
  latch_text_put(t, "    %%v%d = arith.constant %d : i32\n", base_value, dataflow ? 0 : (int32_t)base);
  if (dataflow) {
    latch_text_put(t, "    %%v%d:4 = scf.while (%%v%d = %%cta, %%v%d = %%c0, %%v%d = %%c0, %%v%d = %%c0) : (i32, i32, i32, i32) "
                      "-> (i32, i32, i32, i32) {\n", results, tile, parity, current, count);
    latch_text_put(t, "      %%v%d = arith.cmpi ult, %%v%d, %%v%d : i32\n", go, tile, total_value);
    latch_text_put(t, "      scf.condition(%%v%d) %%v%d, %%v%d, %%v%d, %%v%d : i32, i32, i32, i32\n", go, tile, parity,
                   current, count);
    latch_text_put(t, "    } do {\n");
    latch_text_put(t, "    ^bb0(%%v%d: i32, %%v%d: i32, %%v%d: i32, %%v%d: i32):\n", tile, parity, current, count);
  } else {
    char name[16];
    const char *first = first_tile_of(w, l, total_value, name);
    latch_text_put(t, "    %%v%d:2 = scf.while (%%v%d = %s, %%v%d = %%c0) : (i32, i32) -> (i32, i32) {\n", results,
                   tile, first, parity);
    latch_text_put(t, "      %%v%d = arith.cmpi ult, %%v%d, %%v%d : i32\n", go, tile, total_value);
    latch_text_put(t, "      scf.condition(%%v%d) %%v%d, %%v%d : i32, i32\n", go, tile, parity);
    latch_text_put(t, "    } do {\n");
    latch_text_put(t, "    ^bb0(%%v%d: i32, %%v%d: i32):\n", tile, parity);
  }
  write_tile_record(w, l, tile, base, -1, 0);
  /* The hand-over's CTA barrier after each tile already orders the previous tile's stores. */
  int task = -1, switched = -1;
  if (dataflow)
    task = write_switch_task(w, l, "      ", interval, wave, tile, current, count, false, &switched);
  latch_text_put(t, "      %%v%d = scf.if %%leader -> (i32) {\n", ticket);
  latch_text_put(t, "        %%v%d = llvm.atomicrmw add %s, %%c1 syncscope(\"device\") monotonic "
                    ": !llvm.ptr<1>, i32\n", drawn, counter);
  latch_text_put(t, "        scf.yield %%v%d : i32\n", drawn);
  latch_text_put(t, "      } else {\n");
  latch_text_put(t, "        scf.yield %%c0 : i32\n");
  latch_text_put(t, "      }\n");
  write_tile_dispatch(w, l, interval, wave, tile);
  int slot = write_hand_over(w, "      ", ticket, base_value, parity);
  write_tile_record(w, l, tile, base, -1, 1);
  int taken = fresh(w);
  latch_text_put(t, "      %%v%d = llvm.load %%v%d {alignment = 4 : i64} : !llvm.ptr<3> -> i32\n", taken, slot);
  latch_text_put(t, "      %%v%d = arith.xori %%v%d, %%c1 : i32\n", flipped, parity);
  if (dataflow) {
    int next = write_next_count(w, "      ", switched, count);
    latch_text_put(t, "      scf.yield %%v%d, %%v%d, %%v%d, %%v%d : i32, i32, i32, i32\n", taken, flipped, task, next);
  } else {
    latch_text_put(t, "      scf.yield %%v%d, %%v%d : i32, i32\n", taken, flipped);
  }
  latch_text_put(t, "    }\n");
  if (dataflow)
    write_final_signal(w, results, 2);
  return (uint32_t)total;
}

static void write_trace_value(writer *w, const char *indent, const char *guard, int interval, int first, int count);

/* Thread 0 (inside its scf.if) spins until the u32 at `counter` (an SSA name) reaches %v<target>: acquire
 * loads, sleeping latch-lower-intervals{spin-sleep} ns before each further read. The grid barrier and the
 * dataflow waits share it. */
static void write_spin_until(writer *w, const lowerer *l, const char *counter, int target) {
  latch_text *t = w->t;
  int seen = fresh(w), wait = fresh(w);
  latch_text_put(t, "      scf.while : () -> () {\n");
  latch_text_put(t, "        %%v%d = llvm.load %s atomic syncscope(\"device\") acquire {alignment = 4 : i64} "
                    ": !llvm.ptr<1> -> i32\n", seen, counter);
  latch_text_put(t, "        %%v%d = arith.cmpi ult, %%v%d, %%v%d : i32\n", wait, seen, target);
  latch_text_put(t, "        scf.condition(%%v%d)\n", wait);
  latch_text_put(t, "      } do {\n");
  if (l->spin_sleep_ns > 0) {
    int sleep = fresh(w);
    latch_text_put(t, "        %%v%d = arith.constant %lld : i32\n", sleep, (long long)l->spin_sleep_ns);
    latch_text_put(t, "        nvvm.nanosleep %%v%d\n", sleep);
  }
  latch_text_put(t, "        scf.yield\n");
  latch_text_put(t, "      }\n");
}

/* With dataflow, before wave `g` (program-wide number): thread 0 waits until each task the wave waits for
 * has counted all its tiles (acquire loads, sleeping spin-sleep ns between reads), then a CTA barrier
 * (also when there is nothing to wait for: it keeps the shared hand-over words of two waves apart). */
static void write_dependency_wait(writer *w, const lowerer *l, int g) {
  latch_text *t = w->t;
  int first = l->dep_start[g], end = l->dep_start[g + 1];
  if (first < end) {
    latch_text_put(t, "    scf.if %%leader {\n");
    for (int d = first; d < end; ++d) {
      const lowered_task *task = &l->tasks[l->wave_deps[d]];
      int address = fresh(w), need = fresh(w);
      latch_text_put(t, "      %%v%d = llvm.getelementptr %%task_done[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n",
                     address, l->wave_deps[d]);
      latch_text_put(t, "      %%v%d = arith.constant %lld : i32\n", need, (long long)task->tiles);
      char counter[32];
      snprintf(counter, sizeof(counter), "%%v%d", address);
      write_spin_until(w, l, counter, need);
    }
    latch_text_put(t, "    }\n");
  }
  latch_text_put(t, "    nvvm.barrier0\n");
}

/* spread-ctas or solo-attention, at the top of @latch_main (docs/device-abi.md "Spread CTAs"): thread 0
 * claims the CTA's rank on its SM, %spread_claim#0 (at most SPREAD_RANKS - 1), and its order among the CTAs
 * of that rank, %spread_claim#1 (relaxed adds: nothing else is ordered by them); other threads get zeros. */
static void write_spread_claim(writer *w) {
  latch_text *t = w->t;
  int sm = fresh(w), slot = fresh(w), claim = fresh(w), seen = fresh(w), rank = fresh(w), word = fresh(w),
      count = fresh(w);
  latch_text_put(t, "    %%spread_words = llvm.getelementptr %%counter[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n",
                 SPREAD_FIRST_WORD);
  latch_text_put(t, "    %%spread_shared = llvm.mlir.addressof @latch_spread : !llvm.ptr<3>\n");
  latch_text_put(t, "    %%spread_claim:2 = scf.if %%leader -> (i32, i32) {\n");
  latch_text_put(t, "      %%v%d = nvvm.read.ptx.sreg.smid : i32\n", sm);
  latch_text_put(t, "      %%v%d = arith.remui %%v%d, %%c%d : i32\n", slot, sm, SPREAD_SM_SLOTS);
  latch_text_put(t, "      %%v%d = llvm.getelementptr %%spread_words[%%v%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32\n",
                 claim, slot);
  latch_text_put(t, "      %%v%d = llvm.atomicrmw add %%v%d, %%c1 syncscope(\"device\") monotonic : !llvm.ptr<1>, i32\n",
                 seen, claim);
  latch_text_put(t, "      %%v%d = arith.minui %%v%d, %%c%d : i32\n", rank, seen, SPREAD_RANKS - 1);
  latch_text_put(t, "      %%v%d = llvm.getelementptr %%spread_words[%%v%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32\n",
                 word, rank);
  latch_text_put(t, "      %%v%d = llvm.getelementptr %%v%d[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n", count, word,
                 SPREAD_SM_SLOTS);
  int order = fresh(w);
  latch_text_put(t, "      %%v%d = llvm.atomicrmw add %%v%d, %%c1 syncscope(\"device\") monotonic : !llvm.ptr<1>, i32\n",
                 order, count);
  latch_text_put(t, "      scf.yield %%v%d, %%v%d : i32, i32\n", rank, order);
  latch_text_put(t, "    } else {\n");
  latch_text_put(t, "      scf.yield %%c0, %%c0 : i32, i32\n");
  latch_text_put(t, "    }\n");
}

/* spread-ctas or solo-attention, thread 0 inside the first grid barrier, after the spin (every CTA has
 * claimed by then): the CTA's number, the CTAs of lower ranks plus its order among its own, into
 * @latch_spread (with `solo`, the count of rank 0 into @latch_solo). The numbers are a permutation of 0 ..
 * gridDim.x - 1, and those below the count of rank 0 lie on distinct SMs. */
static void write_spread_number(writer *w, bool solo) {
  latch_text *t = w->t;
  char sum[32] = "%spread_claim#1";
  for (int r = 0; r + 1 < SPREAD_RANKS; ++r) {
    int word = fresh(w), count = fresh(w), below = fresh(w), add = fresh(w), next = fresh(w);
    latch_text_put(t, "      %%v%d = llvm.getelementptr %%spread_words[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n", word,
                   SPREAD_SM_SLOTS + r);
    latch_text_put(t, "      %%v%d = llvm.load %%v%d atomic syncscope(\"device\") monotonic {alignment = 4 : i64} : "
                      "!llvm.ptr<1> -> i32\n", count, word);
    if (r == 0 && solo) /* the CTAs of rank 0: one on each SM that runs any */
      latch_text_put(t, "      llvm.store %%v%d, %%solo_shared {alignment = 4 : i64} : i32, !llvm.ptr<3>\n", count);
    latch_text_put(t, "      %%v%d = arith.cmpi ugt, %%spread_claim#0, %%c%d : i32\n", below, r);
    latch_text_put(t, "      %%v%d = arith.select %%v%d, %%v%d, %%c0 : i32\n", add, below, count);
    latch_text_put(t, "      %%v%d = arith.addi %s, %%v%d : i32\n", next, sum, add);
    snprintf(sum, sizeof(sum), "%%v%d", next);
  }
  latch_text_put(t, "      llvm.store %s, %%spread_shared {alignment = 4 : i64} : i32, !llvm.ptr<3>\n", sum);
}

/* docs/device-abi.md "Grid barrier": bar.sync; thread 0 fences (release at gpu scope), adds 1 to the
 * counter (monotonic), computes the count that ends this barrier and spins on an acquire load; bar.sync.
 * The fence is explicit because NVPTX prints an acq_rel atomicrmw without ordering. A CTA that finds the
 * count short sleeps latch-lower-intervals{spin-sleep} ns before each further read. With `trace`, thread
 * 0 first writes trace point 1 of interval `interval`, or of the interval in the i64 %v<interval_value>
 * when that is >= 0 (table-dispatch). */
static void write_barrier(writer *w, const lowerer *l, int interval, int interval_value, bool trace) {
  latch_text *t = w->t;
  int next = fresh(w), target = fresh(w);
  int number = ++w->barriers;
  latch_text_put(t, "    nvvm.barrier0\n");
  latch_text_put(t, "    scf.if %%leader {\n");
  if (trace && interval_value >= 0)
    write_trace_value(w, "      ", "%tracing", interval_value, 1, 1);
  else if (trace)
    write_trace(w, "      ", "%tracing", interval, 1, 1);
  if (l->barrier_red) {
    /* Every CTA runs the same barriers in the same order, so the count that ends barrier n is n gridDim.x
     * (the runtime zeroes the counter before each update). */
    latch_text_put(t, "      llvm.inline_asm has_side_effects \"red.release.gpu.global.add.u32 [$0], 1;\", "
                      "\"l,~{memory}\" %%counter : (!llvm.ptr<1>) -> !llvm.void\n");
    latch_text_put(t, "      %%v%d = arith.constant %d : i32\n", next, number);
  } else {
    int old = fresh(w), round = fresh(w);
    latch_text_put(t, "      llvm.fence syncscope(\"device\") release\n");
    latch_text_put(t,
                   "      %%v%d = llvm.atomicrmw add %%counter, %%c1 syncscope(\"device\") monotonic : !llvm.ptr<1>, i32\n",
                   old);
    latch_text_put(t, "      %%v%d = arith.divui %%v%d, %%grid : i32\n", round, old);
    latch_text_put(t, "      %%v%d = arith.addi %%v%d, %%c1 : i32\n", next, round);
  }
  latch_text_put(t, "      %%v%d = arith.muli %%v%d, %%grid : i32\n", target, next);
  write_spin_until(w, l, "%counter", target);
  bool spread_now = l->number_ctas && !w->spread_ready;
  if (spread_now)
    write_spread_number(w, l->solo_attention);
  latch_text_put(t, "    }\n");
  latch_text_put(t, "    nvvm.barrier0\n");
  if (spread_now) {
    latch_text_put(t, "    %%spread = llvm.load %%spread_shared {alignment = 4 : i64} : !llvm.ptr<3> -> i32\n");
    if (l->solo_attention)
      latch_text_put(t, "    %%solo = llvm.load %%solo_shared {alignment = 4 : i64} : !llvm.ptr<3> -> i32\n");
    w->spread_ready = true;
  }
}

/* ---- table-dispatch: each tile body called from one place ----
 * docs/device-abi.md "Table dispatch". ptxas serializes the wgmma of a tile body that @latch_main calls
 * (C7510), and inlining a body at each task that uses it multiplies the code by the tasks (TinyMoE 2x1024:
 * PTX x2, ptxas 50 s). With table-dispatch @latch_main is one loop over the waves of all intervals: each
 * wave's interval, tasks, tile count, tile counter use and ending come from @latch_table_waves, each
 * task's first tile, tiles, tile body and pointer recipes from @latch_table_tasks and
 * @latch_table_pointers, and one scf.index_switch on the tile body calls it; so a body has one call site
 * and the bodies with wgmma are inlined there (passthrough alwaysinline) once each. The pointers are the
 * recipes of the task's @task_<N> (docs/device-abi.md "Shared tile bodies"): an arena offset, an
 * argument slot or a global of gpu.module @latch. */
enum { POINTER_ARENA = 0, POINTER_ARG = 1, POINTER_GLOBAL = 2 };
enum { WAVE_FIELDS = 8, TASK_FIELDS = 4 };
enum { WAVE_END_WAVE = 0, WAVE_END_INTERVAL = 1, WAVE_END_LAST = 2 };
/* At most this many bytes of tables go to the constant space (64 KiB per module, the kernel's parameters
 * aside; TinyMoE's tables are 47,216 bytes at any batch). */
#define TABLE_CONSTANT_BYTES 60000

typedef struct table_body {
  char symbol[MAX_SYMBOL];
  int params;
  MlirOperation function;
} table_body;

typedef struct dispatch_tables {
  table_body *bodies;
  int body_count;
  int *task_body;       /* per lowered task: its body, -1 when it has no tiles */
  int64_t *task_params; /* per lowered task: its first row of pointers */
  int64_t *pointers;    /* (kind, value) per row */
  int64_t pointer_rows;
  char (*globals)[MAX_SYMBOL];
  int global_count;
  int64_t *waves; /* WAVE_FIELDS per wave */
  int wave_count;
  int64_t *task_rows; /* TASK_FIELDS per task with tiles, in wave order */
  int task_row_count;
  int space;        /* 4 (constant: cached, and one access serves every thread) when the three tables fit
                       TABLE_CONSTANT_BYTES, else 1 (global) */
} dispatch_tables;

static void tables_deinitialize(dispatch_tables *d) {
  free(d->bodies);
  free(d->task_body);
  free(d->task_params);
  free(d->pointers);
  free(d->globals);
  free(d->waves);
  free(d->task_rows);
}

static MlirOperation defining_op(MlirValue value) {
  return mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value) : (MlirOperation){NULL};
}

static bool is_op(MlirOperation op, const char *name) { return !mlirOperationIsNull(op) && latch_op_is(op, name); }

/* Whether `value` is the block argument %args of @task_<N> (its second argument). */
static bool is_args(MlirValue value) { return mlirValueIsABlockArgument(value) && mlirBlockArgumentGetArgNumber(value) == 1; }

/* Whether `value` is the arena base, inttoptr(load %args). */
static bool is_arena_base(MlirValue value) {
  MlirOperation def = defining_op(value);
  MlirOperation load = is_op(def, "llvm.inttoptr") ? defining_op(mlirOperationGetOperand(def, 0)) : (MlirOperation){NULL};
  return is_op(load, "llvm.load") && is_args(mlirOperationGetOperand(load, 0));
}

/* The recipe of pointer `value` of a @task_<N>: llvm.mlir.addressof @g, inttoptr(load(args[slot])) or
 * getelementptr i8 base[constant offset] (write_task_function of latch-lower-tasks). */
static bool read_pointer(dispatch_tables *d, MlirValue value, int64_t *kind, int64_t *out) {
  MlirOperation def = defining_op(value);
  if (is_op(def, "llvm.mlir.addressof")) {
    MlirAttribute name = mlirOperationGetAttributeByName(def, str("global_name"));
    if (mlirAttributeIsNull(name) || !mlirAttributeIsAFlatSymbolRef(name))
      return false;
    MlirStringRef symbol = mlirFlatSymbolRefAttrGetValue(name);
    if (symbol.length >= MAX_SYMBOL)
      return false;
    int found = -1;
    for (int g = 0; g < d->global_count && found < 0; ++g)
      if (latch_ref_is(symbol, d->globals[g]))
        found = g;
    if (found < 0) {
      char(*grown)[MAX_SYMBOL] = realloc(d->globals, (size_t)(d->global_count + 1) * MAX_SYMBOL);
      if (!grown)
        return false;
      d->globals = grown;
      snprintf(d->globals[d->global_count], MAX_SYMBOL, "%.*s", (int)symbol.length, symbol.data);
      found = d->global_count++;
    }
    *kind = POINTER_GLOBAL, *out = found;
    return true;
  }
  if (is_op(def, "llvm.inttoptr")) {
    MlirOperation load = defining_op(mlirOperationGetOperand(def, 0));
    MlirOperation slot = is_op(load, "llvm.load") ? defining_op(mlirOperationGetOperand(load, 0)) : (MlirOperation){NULL};
    MlirAttribute raw = is_op(slot, "llvm.getelementptr") && mlirOperationGetNumOperands(slot) == 1 &&
                                is_args(mlirOperationGetOperand(slot, 0))
                            ? mlirOperationGetAttributeByName(slot, str("rawConstantIndices"))
                            : (MlirAttribute){NULL};
    if (mlirAttributeIsNull(raw) || !mlirAttributeIsADenseI32Array(raw) || mlirDenseArrayGetNumElements(raw) != 1)
      return false;
    *kind = POINTER_ARG, *out = mlirDenseI32ArrayGetElement(raw, 0);
    return true;
  }
  if (is_op(def, "llvm.getelementptr") && mlirOperationGetNumOperands(def) == 2 &&
      is_arena_base(mlirOperationGetOperand(def, 0))) {
    MlirOperation offset = defining_op(mlirOperationGetOperand(def, 1));
    MlirAttribute constant = is_op(offset, "arith.constant") ? mlirOperationGetAttributeByName(offset, str("value"))
                                                             : (MlirAttribute){NULL};
    if (mlirAttributeIsNull(constant) || !mlirAttributeIsAInteger(constant))
      return false;
    *kind = POINTER_ARENA, *out = mlirIntegerAttrGetValueInt(constant);
    return true;
  }
  return false;
}

/* The tile body and pointer recipes of lowered task `i` from its @task_<N>. */
static bool read_task_recipe(lowerer *l, dispatch_tables *d, MlirSymbolTable symbols, size_t i) {
  const lowered_task *task = &l->tasks[i];
  MlirOperation function = mlirSymbolTableLookup(symbols, str(task->function));
  MlirRegion region = mlirOperationGetRegion(function, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  MlirOperation call = {NULL};
  for (MlirOperation op = mlirBlockIsNull(entry) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(entry);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (latch_op_is(op, "func.call"))
      call = op;
  MlirAttribute callee = mlirOperationIsNull(call) ? (MlirAttribute){NULL} : mlirOperationGetAttributeByName(call, str("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee)) {
    report(l, task->op, "table-dispatch: @%s does not call a tile body", task->function);
    return false;
  }
  MlirStringRef symbol = mlirFlatSymbolRefAttrGetValue(callee);
  int params = (int)mlirOperationGetNumOperands(call) - 1, body = -1;
  if (params > 64) {
    report(l, task->op, "table-dispatch: @%s passes %d pointers (at most 64)", task->function, params);
    return false;
  }
  for (int b = 0; b < d->body_count && body < 0; ++b)
    if (latch_ref_is(symbol, d->bodies[b].symbol))
      body = b;
  if (body < 0) {
    table_body *grown = realloc(d->bodies, (size_t)(d->body_count + 1) * sizeof(*grown));
    if (grown)
      d->bodies = grown;
    if (!grown || symbol.length >= MAX_SYMBOL) {
      report(l, task->op, "table-dispatch: out of memory, or a tile body name of %zu bytes", symbol.length);
      return false;
    }
    table_body *b = &d->bodies[d->body_count];
    snprintf(b->symbol, MAX_SYMBOL, "%.*s", (int)symbol.length, symbol.data);
    b->params = params;
    b->function = mlirSymbolTableLookup(symbols, symbol);
    body = d->body_count++;
  }
  if (d->bodies[body].params != params) {
    report(l, task->op, "table-dispatch: @%s calls @%s with %d pointers, another task with %d", task->function,
           d->bodies[body].symbol, params, d->bodies[body].params);
    return false;
  }
  int64_t *grown = realloc(d->pointers, (size_t)(d->pointer_rows + params + 1) * 2 * sizeof(int64_t));
  if (!grown) {
    report(l, task->op, "out of memory");
    return false;
  }
  d->pointers = grown;
  d->task_body[i] = body;
  d->task_params[i] = d->pointer_rows;
  for (int k = 0; k < params; ++k) {
    int64_t *row = &d->pointers[2 * (d->pointer_rows + k)];
    if (!read_pointer(d, mlirOperationGetOperand(call, k + 1), &row[0], &row[1])) {
      report(l, task->op, "table-dispatch: pointer %d of @%s is not an arena offset, an argument or a global", k,
             task->function);
      return false;
    }
  }
  d->pointer_rows += params;
  return true;
}

/* Whether `op` or an op nested in it is an nvvm.wgmma.mma_async. */
static MlirWalkResult find_wgmma(MlirOperation op, void *user_data) {
  if (latch_op_is(op, "nvvm.wgmma.mma_async")) {
    *(bool *)user_data = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static bool has_wgmma(MlirOperation function) {
  bool wgmma = false;
  if (!mlirOperationIsNull(function))
    mlirOperationWalk(function, find_wgmma, &wgmma, MlirWalkPreOrder);
  return wgmma;
}

static void mark_always_inline(lowerer *l, MlirOperation function) {
  MlirAttribute inline_always = mlirStringAttrGet(l->context, str("alwaysinline"));
  mlirOperationSetAttributeByName(function, str("passthrough"), mlirArrayAttrGet(l->context, 1, &inline_always));
}

/* The tables of @latch_main's waves and tasks, and the bodies with wgmma marked alwaysinline. */
static bool build_tables(lowerer *l, dispatch_tables *d) {
  memset(d, 0, sizeof(*d));
  d->task_body = calloc(l->task_count + 1, sizeof(int));
  d->task_params = calloc(l->task_count + 1, sizeof(int64_t));
  d->waves = calloc(((size_t)l->interval_count * 2 + l->task_count + 1) * WAVE_FIELDS, sizeof(int64_t));
  d->task_rows = calloc((l->task_count + 1) * TASK_FIELDS, sizeof(int64_t));
  if (!d->task_body || !d->task_params || !d->waves || !d->task_rows) {
    report(l, l->program, "out of memory");
    return false;
  }
  MlirSymbolTable symbols = mlirSymbolTableCreate(l->gpu_module);
  bool ok = true;
  for (size_t i = 0; i < l->task_count && ok; ++i) {
    d->task_body[i] = -1;
    if (l->tasks[i].tiles > 0)
      ok = read_task_recipe(l, d, symbols, i);
  }
  mlirSymbolTableDestroy(symbols);
  if (!ok)
    return false;
  uint32_t tickets = 0;
  for (int i = 0; i < l->interval_count; ++i) {
    int waves = l->interval_waves[i] > 0 ? l->interval_waves[i] : 1;
    for (int wave = 0; wave < waves; ++wave) {
      int64_t *row = &d->waves[(size_t)d->wave_count++ * WAVE_FIELDS];
      int64_t start = 0;
      row[0] = i;
      row[1] = d->task_row_count;
      for (size_t k = 0; k < l->task_count; ++k) {
        const lowered_task *task = &l->tasks[k];
        if (task->interval != i || task->wave != wave || task->tiles == 0)
          continue;
        int64_t *t = &d->task_rows[(size_t)d->task_row_count++ * TASK_FIELDS];
        t[0] = start, t[1] = task->tiles, t[2] = d->task_body[k], t[3] = d->task_params[k];
        start += task->tiles;
      }
      row[2] = d->task_row_count;
      row[3] = start;
      row[4] = wave_counted(l, i, wave) && start > 0;
      row[5] = (int64_t)tickets;
      if (row[4])
        tickets += (uint32_t)start;
      row[6] = wave + 1 < waves ? WAVE_END_WAVE : i + 1 < l->interval_count ? WAVE_END_INTERVAL : WAVE_END_LAST;
      row[7] = wave == 0;
    }
  }
  int64_t bytes = 8 * ((int64_t)d->wave_count * WAVE_FIELDS + (int64_t)d->task_row_count * TASK_FIELDS +
                       2 * d->pointer_rows);
  d->space = bytes <= TABLE_CONSTANT_BYTES ? 4 : 1;
  for (int b = 0; b < d->body_count; ++b)
    if (has_wgmma(d->bodies[b].function))
      mark_always_inline(l, d->bodies[b].function);
  return true;
}

/* A constant i64 table as a global of gpu.module @latch in address space `space`. */
static void write_table(latch_text *t, const char *name, const int64_t *values, int64_t count, int space) {
  latch_text_put(t, "  llvm.mlir.global internal constant @%s(dense<[", name);
  for (int64_t i = 0; i < count; ++i)
    latch_text_put(t, "%s%lld", i ? ", " : "", (long long)values[i]);
  if (count == 0)
    latch_text_put(t, "0");
  latch_text_put(t, "]> : tensor<%lldxi64>) {addr_space = %d : i32} : !llvm.array<%lld x i64>\n",
                 (long long)(count ? count : 1), space, (long long)(count ? count : 1));
}

static void write_tables(const dispatch_tables *d, latch_text *t) {
  for (int b = 0; b < d->body_count; ++b) { /* declarations, so that the scratch module parses */
    latch_text_put(t, "  func.func private @\"%s\"(i32", d->bodies[b].symbol);
    for (int k = 0; k < d->bodies[b].params; ++k)
      latch_text_put(t, ", !llvm.ptr<1>");
    latch_text_put(t, ")\n");
  }
  write_table(t, "latch_table_waves", d->waves, (int64_t)d->wave_count * WAVE_FIELDS, d->space);
  write_table(t, "latch_table_tasks", d->task_rows, (int64_t)d->task_row_count * TASK_FIELDS, d->space);
  write_table(t, "latch_table_pointers", d->pointers, d->pointer_rows * 2, d->space);
  if (d->global_count == 0)
    return;
  for (int g = 0; g < d->global_count; ++g) /* the same */
    latch_text_put(t, "  llvm.mlir.global external @%s() {addr_space = 1 : i32} : i8\n", d->globals[g]);
  latch_text_put(t, "  llvm.mlir.global internal constant @latch_table_globals() {addr_space = 1 : i32} : "
                    "!llvm.array<%d x ptr<1>> {\n    %%g = llvm.mlir.undef : !llvm.array<%d x ptr<1>>\n",
                 d->global_count, d->global_count);
  for (int g = 0; g < d->global_count; ++g) {
    char previous[24];
    snprintf(previous, sizeof(previous), g ? "g%d" : "g", g - 1);
    latch_text_put(t, "    %%a%d = llvm.mlir.addressof @%s : !llvm.ptr<1>\n", g, d->globals[g]);
    latch_text_put(t, "    %%g%d = llvm.insertvalue %%a%d, %%%s[%d] : !llvm.array<%d x ptr<1>>\n", g, g, previous, g,
                   d->global_count);
  }
  latch_text_put(t, "    llvm.return %%g%d : !llvm.array<%d x ptr<1>>\n  }\n", d->global_count - 1, d->global_count);
}

/* Whether `name` is one of the tables' globals (declared in the scratch module only so that it parses). */
static bool table_global(const dispatch_tables *d, MlirStringRef name) {
  for (int g = 0; d && g < d->global_count; ++g)
    if (latch_ref_is(name, d->globals[g]))
      return true;
  return false;
}

/* %v<out> = the i64 at `index` (an i64 value) of table @name (in the tables' address space). */
static int table_load(writer *w, const dispatch_tables *d, const char *indent, const char *name, int index) {
  int base = fresh(w), address = fresh(w), value = fresh(w), space = d->space;
  latch_text_put(w->t, "%s%%v%d = llvm.mlir.addressof @%s : !llvm.ptr<%d>\n", indent, base, name, space);
  latch_text_put(w->t, "%s%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<%d>, i64) -> !llvm.ptr<%d>, i64\n",
                 indent, address, base, index, space, space);
  latch_text_put(w->t, "%s%%v%d = llvm.load %%v%d {alignment = 8 : i64} : !llvm.ptr<%d> -> i64\n", indent, value, address,
                 space);
  return value;
}

static int const_i64(writer *w, const char *indent, int64_t value) {
  int v = fresh(w);
  latch_text_put(w->t, "%s%%v%d = arith.constant %lld : i64\n", indent, v, (long long)value);
  return v;
}

static int add_i64(writer *w, const char *indent, int a, int b) {
  int v = fresh(w);
  latch_text_put(w->t, "%s%%v%d = arith.addi %%v%d, %%v%d : i64\n", indent, v, a, b);
  return v;
}

/* Field `field` of row `row` (an i64 value) of a table of `fields` per row. */
static int table_field(writer *w, const dispatch_tables *d, const char *indent, const char *name, int row, int fields,
                       int field) {
  int scaled = fresh(w);
  latch_text_put(w->t, "%s%%v%d = arith.muli %%v%d, %%v%d : i64\n", indent, scaled, row, const_i64(w, indent, fields));
  return table_load(w, d, indent, name, add_i64(w, indent, scaled, const_i64(w, indent, field)));
}

/* Trace points [first, first + count) of the interval in %v<interval> (i64), by the tracing leader. */
static void write_trace_value(writer *w, const char *indent, const char *guard, int interval, int first, int count) {
  latch_text *t = w->t;
  latch_text_put(t, "%sscf.if %s {\n", indent, guard);
  int now = fresh(w), three = fresh(w), row = fresh(w);
  latch_text_put(t, "%s  %%v%d = nvvm.read.ptx.sreg.globaltimer : i64\n", indent, now);
  latch_text_put(t, "%s  %%v%d = arith.constant 3 : i64\n", indent, three);
  latch_text_put(t, "%s  %%v%d = arith.muli %%v%d, %%v%d : i64\n", indent, row, interval, three);
  for (int p = first; p < first + count; ++p) {
    int word = fresh(w), local = fresh(w), index = fresh(w), address = fresh(w);
    latch_text_put(t, "%s  %%v%d = arith.constant %d : i64\n", indent, word, p);
    latch_text_put(t, "%s  %%v%d = arith.addi %%v%d, %%v%d : i64\n", indent, local, row, word);
    latch_text_put(t, "%s  %%v%d = arith.addi %%trace_row, %%v%d : i64\n", indent, index, local);
    latch_text_put(t, "%s  %%v%d = llvm.getelementptr %%trace[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64\n",
                   indent, address, index);
    latch_text_put(t, "%s  llvm.store %%v%d, %%v%d {alignment = 8 : i64} : i64, !llvm.ptr<1>\n", indent, now, address);
  }
  latch_text_put(t, "%s}\n", indent);
}

/* Pointer `k` of the task whose rows start at %v<first> (i64): its recipe resolved. */
static int write_table_pointer(writer *w, const dispatch_tables *d, const char *in, int first, int k) {
  latch_text *t = w->t;
  int row = add_i64(w, in, first, const_i64(w, in, k));
  int kind = table_field(w, d, in, "latch_table_pointers", row, 2, 0);
  int value = table_field(w, d, in, "latch_table_pointers", row, 2, 1);
  int is_arena = fresh(w), is_arg = fresh(w), slot = fresh(w), slot_address = fresh(w), arg_word = fresh(w);
  int arena_word = fresh(w), other = fresh(w), word = fresh(w), pointer = fresh(w), zero = const_i64(w, in, 0);
  latch_text_put(t, "%s%%v%d = arith.cmpi eq, %%v%d, %%v%d : i64\n", in, is_arena, kind, const_i64(w, in, POINTER_ARENA));
  latch_text_put(t, "%s%%v%d = arith.cmpi eq, %%v%d, %%v%d : i64\n", in, is_arg, kind, const_i64(w, in, POINTER_ARG));
  latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i64\n", in, slot, is_arg, value, zero);
  latch_text_put(t, "%s%%v%d = llvm.getelementptr %%args[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64\n", in,
                 slot_address, slot);
  latch_text_put(t, "%s%%v%d = llvm.load %%v%d {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n", in, arg_word, slot_address);
  latch_text_put(t, "%s%%v%d = arith.addi %%arena_word, %%v%d : i64\n", in, arena_word, value);
  int global_word = zero;
  if (d->global_count > 0) {
    int is_global = fresh(w), index = fresh(w), table = fresh(w), address = fresh(w), loaded = fresh(w);
    global_word = fresh(w);
    latch_text_put(t, "%s%%v%d = arith.cmpi eq, %%v%d, %%v%d : i64\n", in, is_global, kind,
                   const_i64(w, in, POINTER_GLOBAL));
    latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i64\n", in, index, is_global, value, zero);
    latch_text_put(t, "%s%%v%d = llvm.mlir.addressof @latch_table_globals : !llvm.ptr<1>\n", in, table);
    latch_text_put(t, "%s%%v%d = llvm.getelementptr %%v%d[%%v%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, !llvm.ptr<1>\n",
                   in, address, table, index);
    latch_text_put(t, "%s%%v%d = llvm.load %%v%d {alignment = 8 : i64} : !llvm.ptr<1> -> !llvm.ptr<1>\n", in, loaded,
                   address);
    latch_text_put(t, "%s%%v%d = llvm.ptrtoint %%v%d : !llvm.ptr<1> to i64\n", in, global_word, loaded);
  }
  latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i64\n", in, other, is_arg, arg_word, global_word);
  latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i64\n", in, word, is_arena, arena_word, other);
  latch_text_put(t, "%s%%v%d = llvm.inttoptr %%v%d : i64 to !llvm.ptr<1>\n", in, pointer, word);
  return pointer;
}

/* Tile %v<tile> (i32) of the wave whose task rows are [%v<begin>, %v<end>): its task found by the rows'
 * tile ranges, then one scf.index_switch on the task's tile body. */
static void write_table_dispatch(writer *w, const dispatch_tables *d, int tile, int begin, int end) {
  latch_text *t = w->t;
  const char *in = "        ";
  int wide = fresh(w), n = fresh(w), found = fresh(w), local = fresh(w), result = fresh(w);
  latch_text_put(t, "      %%v%d = arith.extui %%v%d : i32 to i64\n", wide, tile);
  latch_text_put(t, "      %%v%d:2 = scf.for %%v%d = %%v%d to %%v%d step %%v%d iter_args(%%v%d = %%v%d, %%v%d = %%v%d) "
                    "-> (i64, i64) : i64 {\n",
                 result, n, begin, end, const_i64(w, "      ", 1), found, begin, local, const_i64(w, "      ", 0));
  int start = table_field(w, d, in, "latch_table_tasks", n, TASK_FIELDS, 0);
  int tiles = table_field(w, d, in, "latch_table_tasks", n, TASK_FIELDS, 1);
  int after = fresh(w), from = fresh(w), below = fresh(w), inside = fresh(w), own = fresh(w), next_found = fresh(w),
      next_local = fresh(w);
  latch_text_put(t, "%s%%v%d = arith.addi %%v%d, %%v%d : i64\n", in, after, start, tiles);
  latch_text_put(t, "%s%%v%d = arith.cmpi uge, %%v%d, %%v%d : i64\n", in, from, wide, start);
  latch_text_put(t, "%s%%v%d = arith.cmpi ult, %%v%d, %%v%d : i64\n", in, below, wide, after);
  latch_text_put(t, "%s%%v%d = arith.andi %%v%d, %%v%d : i1\n", in, inside, from, below);
  latch_text_put(t, "%s%%v%d = arith.subi %%v%d, %%v%d : i64\n", in, own, wide, start);
  latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i64\n", in, next_found, inside, n, found);
  latch_text_put(t, "%s%%v%d = arith.select %%v%d, %%v%d, %%v%d : i64\n", in, next_local, inside, own, local);
  latch_text_put(t, "%sscf.yield %%v%d, %%v%d : i64, i64\n", in, next_found, next_local);
  latch_text_put(t, "      }\n");
  int task = fresh(w), local32 = fresh(w), body_index = fresh(w);
  latch_text_put(t, "      %%v%d = arith.addi %%v%d#0, %%v%d : i64\n", task, result, const_i64(w, "      ", 0));
  int body = table_field(w, d, "      ", "latch_table_tasks", task, TASK_FIELDS, 2);
  int first = table_field(w, d, "      ", "latch_table_tasks", task, TASK_FIELDS, 3);
  latch_text_put(t, "      %%v%d = arith.trunci %%v%d#1 : i64 to i32\n", local32, result);
  latch_text_put(t, "      %%v%d = arith.index_cast %%v%d : i64 to index\n", body_index, body);
  latch_text_put(t, "      scf.index_switch %%v%d\n", body_index);
  for (int b = 0; b < d->body_count; ++b) {
    latch_text_put(t, "      case %d {\n", b);
    int pointers[64], count = d->bodies[b].params;
    for (int k = 0; k < count; ++k)
      pointers[k] = write_table_pointer(w, d, in, first, k);
    latch_text_put(t, "%sfunc.call @\"%s\"(%%v%d", in, d->bodies[b].symbol, local32);
    for (int k = 0; k < count; ++k)
      latch_text_put(t, ", %%v%d", pointers[k]);
    latch_text_put(t, ") : (i32");
    for (int k = 0; k < count; ++k)
      latch_text_put(t, ", !llvm.ptr<1>");
    latch_text_put(t, ") -> ()\n%sscf.yield\n      }\n", in);
  }
  latch_text_put(t, "      default {\n%sscf.yield\n      }\n", in);
}

/* @latch_main's body with table-dispatch: for each wave of @latch_table_waves, (its interval's first wave)
 * trace point 0, the tile loop (round robin, or the tile counter as write_counted_tile_loop draws it, by
 * the wave's flag), then its end: a wave barrier, the interval's grid barrier with trace points 1 and 2,
 * or for the last interval trace points 1 and 2 after the CTA's threads are done. */
static void write_table_waves(writer *w, const lowerer *l, const dispatch_tables *d) {
  latch_text *t = w->t;
  const char *in = "      ";
  bool counted_kernel = any_wave_counted(l); /* write_kernel then declares the tile counter and shared word */
  int wave = fresh(w);
  latch_text_put(t, "    %%arena_word = llvm.load %%args {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n");
  latch_text_put(t, "    scf.for %%v%d = %%v%d to %%v%d step %%v%d : i64 {\n", wave, const_i64(w, "    ", 0),
                 const_i64(w, "    ", d->wave_count), const_i64(w, "    ", 1));
  int interval = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 0);
  int begin = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 1);
  int end = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 2);
  int total = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 3);
  int counted_word = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 4);
  int base = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 5);
  int ending = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 6);
  int first_word = table_field(w, d, in, "latch_table_waves", wave, WAVE_FIELDS, 7);
  int zero = const_i64(w, in, 0), first = fresh(w), enter = fresh(w), counted = fresh(w), total32 = fresh(w),
      base32 = fresh(w);
  latch_text_put(t, "%s%%v%d = arith.cmpi ne, %%v%d, %%v%d : i64\n", in, first, first_word, zero);
  latch_text_put(t, "%s%%v%d = arith.andi %%trace_leader, %%v%d : i1\n", in, enter, first);
  char guard[32];
  snprintf(guard, sizeof(guard), "%%v%d", enter);
  write_trace_value(w, in, guard, interval, 0, 1);
  latch_text_put(t, "%s%%v%d = arith.cmpi ne, %%v%d, %%v%d : i64\n", in, counted, counted_word, zero);
  latch_text_put(t, "%s%%v%d = arith.trunci %%v%d : i64 to i32\n", in, total32, total);
  latch_text_put(t, "%s%%v%d = arith.trunci %%v%d : i64 to i32\n", in, base32, base);
  /* The tile loop: tile ctaid first, then tickets (counted) or + gridDim.x (round robin). */
  int results = fresh(w), tile = fresh(w), parity = fresh(w), go = fresh(w), draws = fresh(w), ticket = fresh(w),
      drawn = fresh(w), next = fresh(w), flipped = fresh(w);
  latch_text_put(t, "%s%%v%d:2 = scf.while (%%v%d = %%cta, %%v%d = %%c0) : (i32, i32) -> (i32, i32) {\n", in, results,
                 tile, parity);
  latch_text_put(t, "%s  %%v%d = arith.cmpi ult, %%v%d, %%v%d : i32\n", in, go, tile, total32);
  latch_text_put(t, "%s  scf.condition(%%v%d) %%v%d, %%v%d : i32, i32\n", in, go, tile, parity);
  latch_text_put(t, "%s} do {\n", in);
  latch_text_put(t, "%s^bb0(%%v%d: i32, %%v%d: i32):\n", in, tile, parity);
  write_tile_record(w, l, tile, 0, base, 0);
  latch_text_put(t, "      %%v%d = arith.andi %%leader, %%v%d : i1\n", draws, counted);
  latch_text_put(t, "      %%v%d = scf.if %%v%d -> (i32) {\n", ticket, draws);
  if (counted_kernel)
    latch_text_put(t, "        %%v%d = llvm.atomicrmw add %%tile_counter, %%c1 syncscope(\"device\") monotonic "
                      ": !llvm.ptr<1>, i32\n        scf.yield %%v%d : i32\n", drawn, drawn);
  else
    latch_text_put(t, "        scf.yield %%c0 : i32\n");
  latch_text_put(t, "      } else {\n        scf.yield %%c0 : i32\n      }\n");
  write_table_dispatch(w, d, tile, begin, end);
  latch_text_put(t, "      %%v%d = scf.if %%v%d -> (i32) {\n", next, counted);
  if (counted_kernel) {
    int slot = write_hand_over(w, "        ", ticket, base32, parity), taken = fresh(w);
    write_tile_record(w, l, tile, 0, base, 1);
    latch_text_put(t, "        %%v%d = llvm.load %%v%d {alignment = 4 : i64} : !llvm.ptr<3> -> i32\n", taken, slot);
    latch_text_put(t, "        scf.yield %%v%d : i32\n", taken);
  } else {
    latch_text_put(t, "        scf.yield %%v%d : i32\n", total32); /* never taken: no wave is counted */
  }
  int stepped = fresh(w);
  latch_text_put(t, "      } else {\n        %%v%d = arith.addi %%v%d, %%grid : i32\n        scf.yield %%v%d : i32\n"
                    "      }\n", stepped, tile, stepped);
  latch_text_put(t, "      %%v%d = arith.xori %%v%d, %%c1 : i32\n", flipped, parity);
  latch_text_put(t, "      scf.yield %%v%d, %%v%d : i32, i32\n", next, flipped);
  latch_text_put(t, "%s}\n", in);
  /* The wave's end. */
  int ending_index = fresh(w);
  latch_text_put(t, "%s%%v%d = arith.index_cast %%v%d : i64 to index\n", in, ending_index, ending);
  latch_text_put(t, "%sscf.index_switch %%v%d\n", in, ending_index);
  latch_text_put(t, "%scase %d {\n", in, WAVE_END_WAVE);
  write_barrier(w, l, -1, -1, false);
  latch_text_put(t, "%s  scf.yield\n%s}\n", in, in);
  latch_text_put(t, "%scase %d {\n", in, WAVE_END_INTERVAL);
  write_barrier(w, l, -1, interval, true);
  write_trace_value(w, in, "%trace_leader", interval, 2, 1);
  latch_text_put(t, "%s  scf.yield\n%s}\n", in, in);
  latch_text_put(t, "%sdefault {\n", in);
  latch_text_put(t, "%s  scf.if %%tracing {\n%s    nvvm.barrier0\n%s  }\n", in, in, in);
  write_trace_value(w, in, "%trace_leader", interval, 1, 2);
  latch_text_put(t, "%s  scf.yield\n%s}\n", in, in);
  latch_text_put(t, "    }\n");
}

/* docs/device-abi.md "Staged control": the kernel of wave `wave` of interval `interval`, launched on its
 * own (normal launch, same grid) with programmatic dependent launch. It waits for the previous kernel of
 * the stream (griddepcontrol.wait: that grid has completed and its writes are visible) before anything
 * else, runs the same static tile loop as @latch_main, lets the next kernel launch once the CTA's tiles are
 * done (bar.sync, then griddepcontrol.launch_dependents) and has no grid barrier. The interval's first wave
 * writes trace point 0 (after the wait), its last points 1 and 2 (one timer read, as for the persistent
 * kernel's last interval). */
static void write_staged_kernel(writer *w, const lowerer *l, int interval, int wave) {
  latch_text *t = w->t;
  char name[MAX_SYMBOL];
  staged_kernel_name(l, interval, wave, name);
  bool first = wave == 0, last = wave + 1 == staged_waves(l, interval);
  latch_text_put(t,
                 "  gpu.func @%s(%%args: !llvm.ptr<1>) kernel attributes {nvvm.reqntid = array<i32: %d, 1, 1>} {\n",
                 name, BLOCK_THREADS);
  latch_text_put(t, "    nvvm.griddepcontrol wait\n");
  latch_text_put(t, "    %%c0 = arith.constant 0 : i32\n");
  latch_text_put(t, "    %%cta = nvvm.read.ptx.sreg.ctaid.x : i32\n");
  latch_text_put(t, "    %%grid = nvvm.read.ptx.sreg.nctaid.x : i32\n");
  latch_text_put(t, "    %%tid = nvvm.read.ptx.sreg.tid.x : i32\n");
  latch_text_put(t, "    %%leader = arith.cmpi eq, %%tid, %%c0 : i32\n");
  latch_text_put(t, "    %%trace_slot = llvm.getelementptr %%args[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64\n",
                 ARG_TRACE);
  latch_text_put(t, "    %%trace_word = llvm.load %%trace_slot {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n");
  latch_text_put(t, "    %%trace = llvm.inttoptr %%trace_word : i64 to !llvm.ptr<1>\n");
  latch_text_put(t, "    %%no_trace = arith.constant 0 : i64\n");
  latch_text_put(t, "    %%tracing = arith.cmpi ne, %%trace_word, %%no_trace : i64\n");
  latch_text_put(t, "    %%trace_leader = arith.andi %%tracing, %%leader : i1\n");
  latch_text_put(t, "    %%cta_wide = arith.extui %%cta : i32 to i64\n");
  latch_text_put(t, "    %%trace_words = arith.constant %lld : i64\n", (long long)l->interval_count * 3);
  latch_text_put(t, "    %%trace_row = arith.muli %%cta_wide, %%trace_words : i64\n");
  write_tile_records_start(w, l);
  if (first)
    write_trace(w, "    ", "%trace_leader", interval, 0, 1);
  write_tile_loop(w, l, interval, wave, false, tiles_before(l, interval, wave));
  latch_text_put(t, "    nvvm.barrier0\n");
  latch_text_put(t, "    nvvm.griddepcontrol launch_dependents\n");
  if (last)
    write_trace(w, "    ", "%trace_leader", interval, 1, 2);
  latch_text_put(t, "    gpu.return\n");
  latch_text_put(t, "  }\n");
}

/* A part of @latch_main (docs/device-abi.md "Launches"; the whole of it unless attention-kernels sets
 * intervals apart): intervals [part->first, part->end), a grid barrier between two of them. `tickets`
 * counts the tile counter's draws of the waves before the part (the counter runs on across launches). */
static void write_main_part(writer *w, const lowerer *l, const dispatch_tables *d, const launch *part,
                            uint32_t *tickets) {
  latch_text *t = w->t;
  bool counted = any_wave_counted(l);
  latch_text_put(t,
                 "  gpu.func @%s(%%args: !llvm.ptr<1>) kernel attributes {nvvm.reqntid = array<i32: %d, 1, 1>",
                 part->name, BLOCK_THREADS);
  if (l->min_ctas_per_sm > 0)
    latch_text_put(t, ", nvvm.minctasm = %lld : i32", (long long)l->min_ctas_per_sm);
  latch_text_put(t, "} {\n");
  latch_text_put(t, "    %%c0 = arith.constant 0 : i32\n");
  latch_text_put(t, "    %%c1 = arith.constant 1 : i32\n");
  latch_text_put(t, "    %%cta = nvvm.read.ptx.sreg.ctaid.x : i32\n");
  latch_text_put(t, "    %%grid = nvvm.read.ptx.sreg.nctaid.x : i32\n");
  latch_text_put(t, "    %%tid = nvvm.read.ptx.sreg.tid.x : i32\n");
  latch_text_put(t, "    %%leader = arith.cmpi eq, %%tid, %%c0 : i32\n");
  latch_text_put(t, "    %%counter_slot = llvm.getelementptr %%args[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64\n",
                 ARG_SYNC_WORDS);
  latch_text_put(t, "    %%counter_word = llvm.load %%counter_slot {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n");
  latch_text_put(t, "    %%counter = llvm.inttoptr %%counter_word : i64 to !llvm.ptr<1>\n");
  if (l->dataflow && !d)
    latch_text_put(t, "    %%task_done = llvm.getelementptr %%counter[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n",
                   DATAFLOW_FIRST_WORD);
  if (l->number_ctas) {
    /* %c<r> for the ranks after 0 and 1, and %c<slots> */
    for (int r = 2; r < SPREAD_RANKS; ++r)
      latch_text_put(t, "    %%c%d = arith.constant %d : i32\n", r, r);
    latch_text_put(t, "    %%c%d = arith.constant %d : i32\n", SPREAD_SM_SLOTS, SPREAD_SM_SLOTS);
    write_spread_claim(w);
    if (l->solo_attention)
      latch_text_put(t, "    %%solo_shared = llvm.mlir.addressof @latch_solo : !llvm.ptr<3>\n");
  }
  if (counted) {
    if (!(l->dataflow && !d)) /* with dataflow each counted wave has its own tile counter */
      latch_text_put(t, "    %%tile_counter = llvm.getelementptr %%counter[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32\n",
                     TILE_COUNTER_WORD);
    latch_text_put(t, "    %%next_tile = llvm.mlir.addressof @latch_next_tile : !llvm.ptr<3>\n");
  }
  latch_text_put(t, "    %%trace_slot = llvm.getelementptr %%args[%d] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64\n",
                 ARG_TRACE);
  latch_text_put(t, "    %%trace_word = llvm.load %%trace_slot {alignment = 8 : i64} : !llvm.ptr<1> -> i64\n");
  latch_text_put(t, "    %%trace = llvm.inttoptr %%trace_word : i64 to !llvm.ptr<1>\n");
  latch_text_put(t, "    %%no_trace = arith.constant 0 : i64\n");
  latch_text_put(t, "    %%tracing = arith.cmpi ne, %%trace_word, %%no_trace : i64\n");
  latch_text_put(t, "    %%trace_leader = arith.andi %%tracing, %%leader : i1\n");
  latch_text_put(t, "    %%cta_wide = arith.extui %%cta : i32 to i64\n");
  latch_text_put(t, "    %%trace_words = arith.constant %lld : i64\n", (long long)l->interval_count * 3);
  latch_text_put(t, "    %%trace_row = arith.muli %%cta_wide, %%trace_words : i64\n");
  write_tile_records_start(w, l);
  write_trace_smid(w);
  if (d)
    write_table_waves(w, l, d);
  int counted_waves = 0;  /* with dataflow: the counted waves before the current one */
  bool waited = false;    /* with dataflow: the current interval's wave 0 was waited for at the last interval's end */
  for (int i = part->first; !d && i < part->end; ++i) {
    write_trace(w, "    ", "%trace_leader", i, 0, 1);
    for (int wave = 0; wave < l->interval_waves[i]; ++wave) {
      if (l->dataflow && !(wave == 0 && waited))
        write_dependency_wait(w, l, global_wave(l, i, wave));
      else if (!l->dataflow && wave > 0)
        write_barrier(w, l, i, -1, false);
      if (wave_counted(l, i, wave)) {
        int word = l->dataflow ? (int)(l->ticket_first_word + LINE_WORDS * counted_waves++) : -1;
        *tickets += write_counted_tile_loop(w, l, i, wave, *tickets, word);
      } else {
        write_tile_loop(w, l, i, wave, l->dataflow, 0);
      }
    }
    waited = false;
    if (i + 1 < part->end && l->dataflow) {
      /* Trace points 1 and 2 around the wait for the next interval's first wave: the trace's barrier wait. */
      latch_text_put(t, "    scf.if %%tracing {\n");
      latch_text_put(t, "      nvvm.barrier0\n");
      latch_text_put(t, "    }\n");
      write_trace(w, "    ", "%trace_leader", i, 1, 1);
      if (l->interval_waves[i + 1] > 0) {
        write_dependency_wait(w, l, global_wave(l, i + 1, 0));
        waited = true;
      }
      write_trace(w, "    ", "%trace_leader", i, 2, 1);
    } else if (i + 1 < part->end) {
      write_barrier(w, l, i, -1, true);
      write_trace(w, "    ", "%trace_leader", i, 2, 1);
    } else {
      /* The last interval has no grid barrier: its tiles are done when the CTA's threads are. */
      latch_text_put(t, "    scf.if %%tracing {\n");
      latch_text_put(t, "      nvvm.barrier0\n");
      latch_text_put(t, "    }\n");
      write_trace(w, "    ", "%trace_leader", i, 1, 2);
    }
  }
  latch_text_put(t, "    gpu.return\n");
  latch_text_put(t, "  }\n");
}

/* A scratch gpu.module declaring the device functions and holding the kernel. */
static void write_kernel(const lowerer *l, const dispatch_tables *d, latch_text *t) {
  writer w = {t, 0, false, 0};
  bool counted = any_wave_counted(l);
  latch_text_put(t, "gpu.module @latch_lower_intervals_scratch {\n");
  if (d)
    write_tables(d, t);
  if (l->number_ctas)
    latch_text_put(t, "  llvm.mlir.global internal @latch_spread() {addr_space = 3 : i32, alignment = 4 : i64} : i32 {\n"
                      "    %%u = llvm.mlir.undef : i32\n    llvm.return %%u : i32\n  }\n");
  if (l->solo_attention)
    latch_text_put(t, "  llvm.mlir.global internal @latch_solo() {addr_space = 3 : i32, alignment = 4 : i64} : i32 {\n"
                      "    %%u = llvm.mlir.undef : i32\n    llvm.return %%u : i32\n  }\n");
  if (counted)
    latch_text_put(t, "  llvm.mlir.global internal @latch_next_tile() {addr_space = 3 : i32, alignment = 4 : i64} : "
                      "!llvm.array<2 x i32> {\n"
                      "    %%u = llvm.mlir.undef : !llvm.array<2 x i32>\n    llvm.return %%u : !llvm.array<2 x i32>\n  }\n");
  for (size_t i = 0; i < l->task_count; ++i) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j)
      seen = strcmp(l->tasks[j].function, l->tasks[i].function) == 0;
    if (!seen)
      latch_text_put(t, "  func.func private @\"%s\"(i32, !llvm.ptr<1>)\n", l->tasks[i].function);
  }
  uint32_t tickets = 0; /* drawn from the tile counter before the current wave */
  for (int k = 0; k < l->launch_count; ++k)
    if (l->launches[k].cooperative)
      write_main_part(&w, l, d, &l->launches[k], &tickets);
    else if (!l->staged) /* with staged=true it is written below */
      write_staged_kernel(&w, l, l->launches[k].interval, l->launches[k].wave);
  w.spread_ready = false; /* the staged kernels number their CTAs by %cta */
  for (int i = 0; l->staged && i < l->interval_count; ++i)
    for (int wave = 0; wave < staged_waves(l, i); ++wave)
      write_staged_kernel(&w, l, i, wave);
  latch_text_put(t, "}\n");
}

static MlirWalkResult relocate(MlirOperation op, void *user_data) {
  mlirOperationSetLocation(op, *(MlirLocation *)user_data);
  return MlirWalkResultAdvance;
}

/* ---- wgmma bodies called once ----
 * Without table dispatch each task's @task_<N> calls its tile body, so a body shared by several tasks has
 * several call sites and stays out of line, and ptxas serializes its wgmma (C7510). A body with wgmma that
 * @latch_main reaches by exactly one call (a task whose signature no other task has, the standalone
 * products) is marked alwaysinline: it is inlined once, the code does not grow, and its wgmma run
 * asynchronously. Its @task_<N> is marked too, so that a staged kernel calling it inlines its own copy. With
 * attention-kernels the calls are counted over every kernel of the update (the parts of @latch_main and the
 * apart intervals' kernels), which call each task where the one @latch_main would. */
typedef struct call_count {
  MlirStringRef callee;
  unsigned calls;
  MlirOperation caller; /* the function of the last call counted */
} call_count;

typedef struct call_counts {
  call_count *entries;
  size_t count, capacity;
  unsigned weight;      /* what each call found adds */
  MlirOperation caller; /* the function walked */
  bool failed;
} call_counts;

static void add_call(call_counts *c, MlirStringRef callee, unsigned calls) {
  for (size_t i = 0; i < c->count; ++i)
    if (mlirStringRefEqual(c->entries[i].callee, callee)) {
      c->entries[i].calls += calls;
      c->entries[i].caller = c->caller;
      return;
    }
  if (c->count == c->capacity) {
    size_t capacity = c->capacity ? 2 * c->capacity : 64;
    call_count *grown = realloc(c->entries, capacity * sizeof(*grown));
    if (!grown) {
      c->failed = true;
      return;
    }
    c->entries = grown, c->capacity = capacity;
  }
  c->entries[c->count++] = (call_count){callee, calls, c->caller};
}

static MlirWalkResult count_call(MlirOperation op, void *user_data) {
  call_counts *c = user_data;
  if (latch_op_is(op, "func.call")) {
    MlirAttribute callee = mlirOperationGetAttributeByName(op, str("callee"));
    if (!mlirAttributeIsNull(callee) && mlirAttributeIsAFlatSymbolRef(callee))
      add_call(c, mlirFlatSymbolRefAttrGetValue(callee), c->weight);
  }
  return MlirWalkResultAdvance;
}

static bool inline_lone_wgmma_bodies(lowerer *l) {
  MlirSymbolTable symbols = mlirSymbolTableCreate(l->gpu_module);
  call_counts tasks = {.weight = 1}, bodies = {0};
  for (int k = 0; k < l->launch_count; ++k) { /* the update's kernels: each task called as in one @latch_main */
    MlirOperation kernel = mlirSymbolTableLookup(symbols, str(l->launches[k].name));
    if (!mlirOperationIsNull(kernel))
      mlirOperationWalk(kernel, count_call, &tasks, MlirWalkPreOrder);
  }
  for (size_t i = 0; i < tasks.count && !tasks.failed; ++i) {
    MlirOperation task = mlirSymbolTableLookup(symbols, tasks.entries[i].callee);
    bodies.weight = tasks.entries[i].calls;
    bodies.caller = task;
    if (!mlirOperationIsNull(task))
      mlirOperationWalk(task, count_call, &bodies, MlirWalkPreOrder);
  }
  bool ok = !tasks.failed && !bodies.failed;
  for (size_t i = 0; i < bodies.count && ok; ++i) {
    if (bodies.entries[i].calls != 1)
      continue;
    MlirOperation body = mlirSymbolTableLookup(symbols, bodies.entries[i].callee);
    if (has_wgmma(body)) { /* the body into its @task_<N>, and that into each kernel that calls it */
      mark_always_inline(l, body);
      mark_always_inline(l, bodies.entries[i].caller);
    }
  }
  free(tasks.entries);
  free(bodies.entries);
  mlirSymbolTableDestroy(symbols);
  if (!ok)
    report(l, l->program, "out of memory counting the tile bodies' calls");
  return ok;
}

/* Parses the kernel text and moves @latch_main into gpu.module @latch. */
static bool insert_kernel(lowerer *l) {
  latch_text t = {0};
  dispatch_tables tables, *d = NULL;
  if (l->table_dispatch) {
    if (!build_tables(l, &tables)) {
      tables_deinitialize(&tables);
      return false;
    }
    d = &tables;
  }
  write_kernel(l, d, &t);
  if (t.failed) {
    if (d)
      tables_deinitialize(d);
    latch_text_deinitialize(&t);
    report(l, l->program, "out of memory writing the kernel");
    return false;
  }
  MlirOperation scratch = mlirOperationCreateParse(l->context, mlirStringRefCreate(t.data, t.length),
                                                   str("latch-lower-intervals"));
  latch_text_deinitialize(&t);
  if (mlirOperationIsNull(scratch)) {
    if (d)
      tables_deinitialize(d);
    report(l, l->program, "the generated kernel did not parse (a bug in this pass)");
    return false;
  }
  /* @latch_main, then (staged=true) the staged kernels, in order. */
  MlirBlock scratch_body = mlirRegionGetFirstBlock(mlirOperationGetRegion(scratch, 0));
  MlirLocation loc = mlirOperationGetLocation(l->program);
  MlirBlock target = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->gpu_module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(scratch_body), next; !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (!latch_op_is(op, "gpu.func") && !latch_op_is(op, "llvm.mlir.global"))
      continue;
    MlirAttribute name = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (!mlirAttributeIsNull(name) && table_global(d, mlirStringAttrGetValue(name)))
      continue; /* a declaration of the tables' scratch module: the global is already there */
    mlirOperationWalk(op, relocate, &loc, MlirWalkPreOrder);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(target, op);
  }
  mlirOperationDestroy(scratch);
  if (d)
    tables_deinitialize(d);
  return d || inline_lone_wgmma_bodies(l);
}

/* ---- the manifest ------------------------------------------------------------------------------------ */

static MlirAttribute arg_attr(MlirOperation program, const char *attrs_name, intptr_t index, const char *name) {
  MlirAttribute all = mlirOperationGetAttributeByName(program, str(attrs_name));
  if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all) || index >= mlirArrayAttrGetNumElements(all))
    return mlirAttributeGetNull();
  MlirAttribute dict = mlirArrayAttrGetElement(all, index);
  if (!mlirAttributeIsADictionary(dict))
    return mlirAttributeGetNull();
  return mlirDictionaryAttrGetElementByName(dict, str(name));
}

static MlirStringRef string_or(MlirAttribute attr, const char *fallback) {
  if (!mlirAttributeIsNull(attr) && mlirAttributeIsAString(attr))
    return mlirStringAttrGetValue(attr);
  return str(fallback);
}

/* "shape": [...], "dtype": "...", "bytes": B for a static tensor of f32, bf16 or i32. */
static bool put_tensor(lowerer *l, latch_text *t, MlirType type, MlirOperation where, const char *what, long index,
                       int64_t *out_bytes) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type)) {
    report(l, where, "%s %ld is not a static ranked tensor", what, index);
    return false;
  }
  MlirType element = mlirShapedTypeGetElementType(type);
  const char *dtype = mlirTypeIsAF32(element)    ? "f32"
                      : mlirTypeIsABF16(element) ? "bf16"
                      : mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 32 ? "i32"
                                                                                             : NULL;
  if (!dtype) {
    report(l, where, "%s %ld: the device stores f32, bf16 and i32 tensors only", what, index);
    return false;
  }
  int64_t elements = 1;
  latch_text_put(t, "\"shape\": [");
  for (intptr_t d = 0, rank = mlirShapedTypeGetRank(type); d < rank; ++d) {
    int64_t size = mlirShapedTypeGetDimSize(type, d);
    elements = size && elements > INT64_MAX / 8 / size ? INT64_MAX / 8 : elements * size;
    latch_text_put(t, d ? ", %lld" : "%lld", (long long)size);
  }
  *out_bytes = elements * (dtype[0] == 'b' ? 2 : 4);
  latch_text_put(t, "], \"dtype\": \"%s\", \"bytes\": %lld", dtype, (long long)*out_bytes);
  return true;
}

static void put_arg(lowerer *l, latch_text *t, MlirBlock body, intptr_t k) {
  MlirOperation p = l->program;
  MlirStringRef name = string_or(arg_attr(p, "arg_attrs", k, "task.name"), "");
  char fallback[32];
  snprintf(fallback, sizeof(fallback), "arg%ld", (long)k);
  const char *role = !mlirAttributeIsNull(arg_attr(p, "arg_attrs", k, "task.param"))   ? "param"
                     : !mlirAttributeIsNull(arg_attr(p, "arg_attrs", k, "task.state")) ? "state"
                     : latch_ref_is(name, "step")                                             ? "step"
                                                                                        : "input";
  latch_text_put(t, "  {\"index\": %ld, \"name\": ", (long)k);
  put_json_string(t, name.length ? name : str(fallback));
  latch_text_put(t, ", \"role\": \"%s\", ", role);
  MlirType type = mlirValueGetType(mlirBlockGetArgument(body, k));
  int64_t bytes;
  if (!put_tensor(l, t, type, p, "argument", (long)k, &bytes))
    return;
  MlirType element = mlirShapedTypeGetElementType(type);
  if (mlirTypeIsAFloat(element)) {
    MlirAttribute init = arg_attr(p, "arg_attrs", k, "task.init");
    MlirStringRef kind = string_or(init, "normal");
    if (!latch_ref_is(kind, "normal") && !latch_ref_is(kind, "ones") && !latch_ref_is(kind, "zeros")) {
      report(l, p, "argument %ld: task.init must be \"normal\", \"ones\" or \"zeros\"", (long)k);
      return;
    }
    MlirAttribute std_attr = arg_attr(p, "arg_attrs", k, "task.init_std");
    double std = 0.02;
    if (!mlirAttributeIsNull(std_attr)) {
      double value = mlirAttributeIsAFloat(std_attr) ? mlirFloatAttrGetValueDouble(std_attr) : NAN;
      if (!isfinite(value) || value < 0) {
        report(l, p, "argument %ld: task.init_std must be a finite, non-negative float attribute", (long)k);
        return;
      }
      std = mlirFloatAttrGetValueDouble(std_attr);
    }
    latch_text_put(t, ", \"init\": \"%.*s\", \"init_std\": ", (int)kind.length, kind.data);
    put_json_double(t, std);
  } else {
    MlirAttribute range = arg_attr(p, "arg_attrs", k, "task.range");
    if (!mlirAttributeIsNull(range)) {
      int64_t r = mlirAttributeIsAInteger(range) ? mlirIntegerAttrGetValueInt(range) : 0;
      if (r < 1 || r > ((int64_t)1 << 31)) {
        report(l, p, "argument %ld: task.range must be an integer in [1, 2^31]", (long)k);
        return;
      }
      latch_text_put(t, ", \"range\": %lld", (long long)r);
    }
  }
  latch_text_put(t, "}");
}

/* The byte offset in the arena of `value` (slot offset + bind offset), or -1 when it is not bound. */
static int64_t arena_offset(const lowerer *l, MlirValue value) {
  uintptr_t index = (uintptr_t)latch_ptrmap_get(&l->bind_of, value.ptr);
  if (!index)
    return -1;
  MlirOperation op = l->schedule.ops[index - 1];
  MlirValue slot = latch_bind_slot(op);
  if (!mlirValueIsAOpResult(slot) || latch_op_kind_of(mlirOpResultGetOwner(slot)) != LATCH_OP_ARENA_SLOT)
    return -1;
  return latch_slot_offset(mlirOpResultGetOwner(slot)) + latch_bind_offset(op);
}

/* The program argument that result `value` is stored in: itself, or the p, m or v operand that a
 * task.adamw result is written over (through a chain of steps over tile ranges, each written over the
 * last one's result). -1 when neither. */
static intptr_t alias_arg(const lowerer *l, MlirValue value) {
  if (!mlirValueIsAOpResult(value)) {
    return mlirBlockEqual(mlirBlockArgumentGetOwner(value), l->schedule.body) ? mlirBlockArgumentGetArgNumber(value)
                                                                              : -1;
  }
  MlirOperation def = mlirOpResultGetOwner(value);
  if (latch_op_kind_of(def) != LATCH_OP_TASK_ADAMW)
    return -1;
  intptr_t result = mlirOpResultGetResultNumber(value);
  if (result < 0 || result > 2)
    return -1;
  return alias_arg(l, mlirOperationGetOperand(def, latch_adamw_written_over(result)));
}

static void put_result(lowerer *l, latch_text *t, MlirOperation yield, intptr_t r, int64_t arena_bytes) {
  MlirValue value = mlirOperationGetOperand(yield, r);
  intptr_t alias = alias_arg(l, value);
  int64_t offset = alias < 0 ? arena_offset(l, value) : -1;
  if (alias < 0 && offset < 0) {
    report(l, yield, "result %ld is neither bound in the arena nor stored in an argument (run latch-plan-arena)",
           (long)r);
    return;
  }
  MlirStringRef name = string_or(arg_attr(l->program, "res_attrs", r, "task.name"), "");
  /* Unnamed results: a rank-0 first result is the loss (docs/task-dialect.md), others are resultN. */
  MlirType type = mlirValueGetType(value);
  bool loss = r == 0 && mlirTypeIsARankedTensor(type) && mlirShapedTypeGetRank(type) == 0;
  char fallback[32];
  snprintf(fallback, sizeof(fallback), loss ? "loss" : "result%ld", (long)r);
  if (!name.length && alias >= 0)
    name = string_or(arg_attr(l->program, "arg_attrs", alias, "task.name"), "");
  latch_text_put(t, "  {\"index\": %ld, \"name\": ", (long)r);
  put_json_string(t, name.length ? name : str(fallback));
  latch_text_put(t, ", ");
  int64_t bytes;
  if (!put_tensor(l, t, type, yield, "result", (long)r, &bytes))
    return;
  if (alias < 0 && (offset > arena_bytes || bytes > arena_bytes - offset))
    report(l, yield, "result %ld occupies bytes %lld .. %lld, outside the arena of %lld bytes", (long)r,
           (long long)offset, (long long)(offset + bytes), (long long)arena_bytes);
  if (alias >= 0)
    latch_text_put(t, ", \"alias_arg\": %ld}", (long)alias);
  else
    latch_text_put(t, ", \"arena_offset\": %lld}", (long long)offset);
}

/* ---- probes ------------------------------------------------------------------------------------------ */

/* Bytes of `value` in the arena: elements x dtype size (f32 and i32 4, bf16 2, f64 8). */
static int64_t value_bytes(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  if (!mlirTypeIsARankedTensor(type))
    return 0;
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t size = mlirTypeIsABF16(element) ? 2 : mlirTypeIsAF64(element) ? 8 : 4;
  return latch_type_element_count(type) * size;
}

/* Whether the bytes [offset, offset + bytes) of the value defined by schedule op `writer` still hold it
 * when the update ends: no arena.bind of a value defined later in the program overlaps them, views left
 * out (a reshape bound over its input writes nothing). (A later value that overlaps starts its life after
 * this one's last reader: latch-verify-arena's rule.) */
static bool intact_at_end(const lowerer *l, long writer, int64_t offset, int64_t bytes) {
  const latch_schedule *s = &l->schedule;
  for (size_t b = 0; b < l->bind_count; ++b) {
    MlirOperation bind = s->ops[l->binds[b]];
    MlirValue other = latch_bind_value(bind);
    if (!mlirValueIsAOpResult(other) || latch_schedule_index_of(s, mlirOpResultGetOwner(other)) <= writer)
      continue;
    MlirOperation owner = mlirOpResultGetOwner(other);
    if (latch_op_kind_of(owner) == LATCH_OP_TASK_RESHAPE && mlirOperationGetNumOperands(owner) == 1 &&
        arena_offset(l, mlirOperationGetOperand(owner, 0)) == arena_offset(l, other))
      continue;
    int64_t start = arena_offset(l, other), length = value_bytes(other);
    if (start >= 0 && start < offset + bytes && offset < start + length)
      return false;
  }
  return true;
}

/* The position of the staged kernel of interval `interval`, wave `wave` in "staged_kernels". */
static int staged_index(const lowerer *l, int interval, int wave) {
  int index = 0;
  for (int i = 0; i < interval; ++i)
    index += staged_waves(l, i);
  return index + wave;
}

/* ",\n \"probes\": [...]" when the program has any task result that a rule of latch_probe_rules
 * (dialects/schedule.h) probes: the task results that `latch-run --probe-dir` copies out of the arena
 * (docs/device-abi.md "Probes"); nothing otherwise. */
static void put_probes(lowerer *l, latch_text *t, int64_t arena_bytes) {
  bool any = false;
  for (size_t r = 0; r < latch_probe_rule_count; ++r) {
    const latch_probe_rule *rule = &latch_probe_rules[r];
    int ordinal = 0;
    for (size_t i = 0; i < l->task_count; ++i) {
      const lowered_task *task = &l->tasks[i];
      if (latch_op_kind_of(task->op) != rule->kind)
        continue;
      long writer = latch_schedule_index_of(&l->schedule, task->op);
      for (int k = 0; k < rule->result_count && k < mlirOperationGetNumResults(task->op); ++k) {
        MlirValue value = mlirOperationGetResult(task->op, k);
        int64_t offset = arena_offset(l, value);
        if (offset < 0)
          continue; /* not in the arena: nothing to probe */
        char name[MAX_SYMBOL];
        snprintf(name, sizeof(name), "%s%d.%s", rule->prefix, ordinal, rule->results[k]);
        latch_text_put(t, any ? ",\n  {\"name\": \"%s\", " : "],\n \"probes\": [\n  {\"name\": \"%s\", ", name);
        any = true;
        MlirIdentifier op_name = mlirOperationGetName(task->op);
        MlirStringRef op_text = mlirIdentifierStr(op_name);
        latch_text_put(t, "\"op\": \"%.*s\", \"result\": %d, ", (int)op_text.length, op_text.data, k);
        int64_t bytes;
        if (!put_tensor(l, t, mlirValueGetType(value), task->op, "probed result", (long)k, &bytes))
          return;
        if (offset > arena_bytes || bytes > arena_bytes - offset)
          report(l, task->op, "result %d occupies bytes %lld .. %lld, outside the arena of %lld bytes", k,
                 (long long)offset, (long long)(offset + bytes), (long long)arena_bytes);
        latch_text_put(t, ", \"arena_offset\": %lld, \"interval\": %d", (long long)offset, task->interval);
        if (l->staged)
          latch_text_put(t, ", \"staged_kernel\": %d", staged_index(l, task->interval, task->wave));
        latch_text_put(t, ", \"intact_at_end\": %s}", intact_at_end(l, writer, offset, bytes) ? "true" : "false");
      }
      ordinal++;
    }
  }
}

static bool record_manifest(lowerer *l) {
  latch_schedule *s = &l->schedule;
  int64_t arena_bytes = -1;
  for (size_t i = 0; i < s->count; ++i)
    if (latch_op_kind_of(s->ops[i]) == LATCH_OP_ARENA_ARENA) {
      if (arena_bytes >= 0) {
        report(l, s->ops[i], "a program has one arena.arena");
        return false;
      }
      arena_bytes = latch_arena_size(s->ops[i]);
    }
  if (arena_bytes < 0) {
    report(l, l->program, "the program has no arena.arena (run latch-plan-arena first)");
    return false;
  }

  /* latch-lower-tasks sizes @latch_smem by the most that a task uses */
  MlirAttribute shared = mlirOperationGetAttributeByName(l->gpu_module, str(LATCH_SHARED_BYTES_ATTRIBUTE));
  int64_t shared_bytes =
      !mlirAttributeIsNull(shared) && mlirAttributeIsAInteger(shared) ? mlirIntegerAttrGetValueInt(shared) : 0;
  latch_text t = {0};
  latch_text_put(&t,
                 "{\"version\": 1, \"kernel\": \"latch_main\", \"block\": [%d, 1, 1], \"dynamic_shared_bytes\": %lld,%s\n",
                 BLOCK_THREADS, (long long)shared_bytes, l->trace_tiles ? " \"tile_trace\": true," : "");
  if (l->dataflow || l->number_ctas)
    latch_text_put(&t, " \"sync_words\": %lld,", (long long)l->sync_words);
  latch_text_put(&t, " \"arena_bytes\": %lld,\n \"intervals\": [", (long long)arena_bytes);
  for (int i = 0; i < l->interval_count; ++i) {
    latch_text_put(&t, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
    put_json_string(&t, latch_interval_name(l->markers[i]));
    latch_text_put(&t, ", \"tiles\": %lld, \"tasks\": [", (long long)l->interval_tiles[i]);
    /* In the order the tile loops number their tiles: wave by wave, tasks in program order. */
    bool first = true;
    for (int wave = 0; wave < l->interval_waves[i]; ++wave)
      for (size_t k = 0; k < l->task_count; ++k) {
        const lowered_task *task = &l->tasks[k];
        if (task->interval != i || task->wave != wave)
          continue;
        MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(task->op));
        latch_text_put(&t, "%s{\"kind\": ", first ? "" : ", ");
        put_json_string(&t, mlirStringRefCreate(name.data + 5, name.length - 5)); /* after "task." */
        latch_text_put(&t, ", \"tiles\": %lld, \"bytes\": %.0f", (long long)task->tiles, latch_task_bytes(task->op));
        double flops = latch_task_flops(task->op);
        if (flops > 0)
          latch_text_put(&t, ", \"flops\": %.0f", flops);
        if (task->body[0])
          latch_text_put(&t, ", \"body\": \"%s\"", task->body);
        latch_text_put(&t, "}");
        first = false;
      }
    latch_text_put(&t, "]}");
  }
  if (l->staged) {
    latch_text_put(&t, "],\n \"staged_kernels\": [");
    bool any = false;
    for (int i = 0; i < l->interval_count; ++i)
      for (int wave = 0; wave < staged_waves(l, i); ++wave) {
        char name[MAX_SYMBOL];
        staged_kernel_name(l, i, wave, name);
        latch_text_put(&t, any ? ", \"%s\"" : "\"%s\"", name);
        any = true;
      }
  }
  if (l->launch_count > 1) {
    latch_text_put(&t, "],\n \"launches\": [");
    for (int k = 0; k < l->launch_count; ++k)
      latch_text_put(&t, "%s{\"kernel\": \"%s\", \"cooperative\": %s}", k ? ", " : "", l->launches[k].name,
                     l->launches[k].cooperative ? "true" : "false");
  }
  latch_text_put(&t, "],\n \"args\": [");
  for (intptr_t k = 0, n = mlirBlockGetNumArguments(s->body); k < n; ++k) {
    latch_text_put(&t, k ? ",\n" : "\n");
    put_arg(l, &t, s->body, k);
  }
  latch_text_put(&t, "],\n \"results\": [");
  MlirOperation yield = mlirBlockGetTerminator(s->body);
  for (intptr_t r = 0, n = mlirOperationIsNull(yield) ? 0 : mlirOperationGetNumOperands(yield); r < n; ++r) {
    latch_text_put(&t, r ? ",\n" : "\n");
    put_result(l, &t, yield, r, arena_bytes);
  }
  put_probes(l, &t, arena_bytes);
  latch_text_put(&t, "]}\n");
  if (t.failed)
    report(l, l->program, "out of memory writing the manifest");
  if (l->errors == 0)
    mlirOperationSetDiscardableAttributeByName(l->gpu_module, str("latch.manifest"),
                                               mlirStringAttrGet(l->context, mlirStringRefCreate(t.data, t.length)));
  latch_text_deinitialize(&t);
  return l->errors == 0;
}

/* apart-kinds: the task kinds named in `text` (comma-separated, without "task."); reports the first name that
 * is not a task kind at the module. */
static bool parse_apart_kinds(lowerer *l, MlirOperation module, const char *text) {
  for (const char *p = text; *p;) {
    const char *end = strchr(p, ',');
    size_t length = end ? (size_t)(end - p) : strlen(p);
    latch_op_kind kind = latch_task_kind_named(p, length);
    if (kind == LATCH_OP_UNKNOWN) {
      char message[160];
      snprintf(message, sizeof(message),
               "latch-lower-intervals: '%.*s' in apart-kinds is not a task kind (e.g. scatter_add_rows)", (int)length,
               p);
      mlirEmitError(mlirOperationGetLocation(module), message);
      return false;
    }
    l->apart_kind[kind] = true;
    p = end ? end + 1 : p + length;
  }
  return true;
}

/* apart-intervals: the interval numbers in `text` (comma-separated); reports the first that is not a number. */
static bool parse_apart_intervals(lowerer *l, MlirOperation module, const char *text) {
  for (const char *p = text; *p;) {
    char *end = NULL;
    errno = 0;
    long number = strtol(p, &end, 10);
    if (end == p || (*end && *end != ',') || errno || number < 0 || number > INT32_MAX ||
        l->apart_interval_count == (int)(sizeof(l->apart_intervals) / sizeof(l->apart_intervals[0]))) {
      const char *stop = strchr(p, ',');
      char message[160];
      snprintf(message, sizeof(message), "latch-lower-intervals: '%.*s' in apart-intervals is not an interval number",
               (int)(stop ? stop - p : (ptrdiff_t)strlen(p)), p);
      mlirEmitError(mlirOperationGetLocation(module), message);
      return false;
    }
    l->apart_intervals[l->apart_interval_count++] = (int)number;
    p = *end ? end + 1 : end;
  }
  return true;
}

/* Once the program is read: the intervals that apart-kinds (a task with tiles of a named kind) or
 * apart-intervals names, which must be intervals the program has. With `allowed` false (apart kernels
 * excluded by other options) neither is looked at. */
static bool mark_named_apart(lowerer *l, bool allowed) {
  if (!allowed)
    return true;
  for (int i = 0; i < l->apart_interval_count; ++i)
    if (l->apart_intervals[i] >= l->interval_count)
      report(l, l->program, "apart-intervals names interval %d, but the program has %d (0 .. %d)",
             l->apart_intervals[i], l->interval_count, l->interval_count - 1);
  if (l->errors)
    return false;
  bool *named = calloc((size_t)l->interval_count + 1, sizeof(bool));
  if (!named) {
    report(l, l->program, "out of memory");
    return false;
  }
  bool any = false;
  for (size_t i = 0; i < l->task_count; ++i)
    if (l->tasks[i].tiles > 0 && l->apart_kind[latch_op_kind_of(l->tasks[i].op)])
      any = named[l->tasks[i].interval] = true;
  for (int i = 0; i < l->apart_interval_count; ++i)
    any = named[l->apart_intervals[i]] = true;
  if (any)
    l->named_apart = named;
  else
    free(named);
  return true;
}

static MlirLogicalResult run(MlirOperation module, const void *options) {
  lowerer l;
  memset(&l, 0, sizeof(l));
  l.context = mlirOperationGetContext(module);
  l.staged = ((const lower_options *)options)->staged;
  l.min_ctas_per_sm = ((const lower_options *)options)->min_ctas_per_sm;
  l.tile_counter = ((const lower_options *)options)->tile_counter;
  l.counter_min_tiles = ((const lower_options *)options)->counter_min_tiles;
  l.spin_sleep_ns = ((const lower_options *)options)->spin_sleep_ns;
  if (l.spin_sleep_ns < 0 || l.spin_sleep_ns > 1000000) { /* nanosleep sleeps at most 1 ms */
    mlirEmitError(mlirOperationGetLocation(module), "latch-lower-intervals: spin-sleep must be 0..1000000 ns");
    return mlirLogicalResultFailure();
  }
  l.trace_tiles = l.tile_counter && ((const lower_options *)options)->trace_tiles;
  l.table_dispatch = ((const lower_options *)options)->table_dispatch;
  l.spread_ctas = ((const lower_options *)options)->spread_ctas && !l.table_dispatch &&
                  !((const lower_options *)options)->dataflow;
  l.solo_attention = ((const lower_options *)options)->solo_attention && !l.table_dispatch &&
                     !((const lower_options *)options)->dataflow;
  l.number_ctas = l.spread_ctas || l.solo_attention;
  if (l.number_ctas)
    l.sync_words = SPREAD_FIRST_WORD + SPREAD_SM_SLOTS + SPREAD_RANKS;
  /* Table dispatch walks its waves from tables and keeps the grid barriers. */
  l.dataflow = ((const lower_options *)options)->dataflow && !l.table_dispatch;
  l.barrier_red = ((const lower_options *)options)->barrier_red && !l.table_dispatch;
  /* Apart kernels end a part of @latch_main, which the dataflow waits, the table's one loop over all waves
   * and the CTAs' numbering (claimed once per update) do not allow. */
  bool apart_allowed = !l.dataflow && !l.table_dispatch && !l.number_ctas;
  l.attention_kernels = ((const lower_options *)options)->attention_kernels && apart_allowed;
  if (!parse_apart_kinds(&l, module, ((const lower_options *)options)->apart_kinds) ||
      !parse_apart_intervals(&l, module, ((const lower_options *)options)->apart_intervals))
    return mlirLogicalResultFailure();
  if (find_parts(&l, module) && read_program(&l) && mark_named_apart(&l, apart_allowed) &&
      (!l.dataflow || plan_dataflow(&l)) && plan_launches(&l) &&
      check_names_free(&l) && record_manifest(&l))
    insert_kernel(&l);
  if (l.schedule_ready)
    latch_schedule_deinitialize(&l.schedule);
  if (l.bind_of_ready)
    latch_ptrmap_deinitialize(&l.bind_of);
  free(l.binds);
  free(l.tasks);
  free(l.markers);
  free(l.interval_tiles);
  free(l.interval_waves);
  free(l.interval_first_wave);
  free(l.dep_start);
  free(l.wave_deps);
  free(l.launches);
  free(l.named_apart);
  return l.errors ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}

static const latch_dialect_handle_getter dialects[] = {
    mlirGetDialectHandle__arith__, mlirGetDialectHandle__func__, mlirGetDialectHandle__gpu__,
    mlirGetDialectHandle__llvm__,  mlirGetDialectHandle__nvvm__, mlirGetDialectHandle__scf__,
};

const latch_pass_info latch_lower_intervals_pass = {
    .name = "latch-lower-intervals",
    .summary = "Write the persistent kernel @latch_main (tile loops, grid barriers, trace) and latch.manifest",
    .anchor = "builtin.module",
    .options = lower_option_table,
    .option_count = sizeof(lower_option_table) / sizeof(lower_option_table[0]),
    .options_size = sizeof(lower_options),
    .dependent_dialects = dialects,
    .dependent_dialect_count = sizeof(dialects) / sizeof(dialects[0]),
    .run = run,
};
