/* emit_parts.c - LLVM's O3 and the NVPTX backend on parts of the module at once (see emit_parts.h).
 *
 * Three steps. The plan (main thread) reads which function and global variable each definition names,
 * spreads the tile bodies over the parts (largest first, each to the lightest part) and decides for every
 * part which definitions it holds, which it only declares and which it exports. Each part (one thread)
 * reads the module's bitcode into its own LLVM context, drops what it does not hold, runs O3, renames its
 * internal symbols so that no two parts define one name, and writes PTX. The join then writes the PTX
 * texts in the order one module has (part 0's preamble, the other parts, part 0's functions), turning the
 * declarations of symbols that another part defines into forward declarations or dropping them. */
#include "emit_parts.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm-c/BitReader.h"
#include "llvm-c/BitWriter.h"
#include "llvm-c/Transforms/PassBuilder.h"

static const char unit_prefix[] = LATCH_EMIT_TILE_BODY_PREFIX;

/* An instruction of a kernel costs O3 and the NVPTX backend about 1.5 times what one of a tile body does
 * (TinyMoE 2x1024, 2026-12-03: part 0 with @latch_main and the bodies only it calls, 22,000 instructions,
 * 1.5-2.0 s; part 1 with the other bodies, 41,000 instructions, 2.1-2.8 s), so part 0 counts its kernels'
 * instructions 3/2 times. */
static const size_t kernel_weight_numerator = 3, kernel_weight_denominator = 2;

/* A tile body goes to another part only when the kernels reach it by more than one call path and it has
 * at least this many instructions: O3 may inline a body called once, or an empty one, when it sees it
 * beside its caller (latch-lower-intervals{table-dispatch=true} relies on that), so those stay in part 0. */
static const size_t min_unit_instructions = 16;

/* ---- the plan ---------------------------------------------------------------------------------------- */

typedef enum presence { ABSENT = 0, DEFINED, DECLARED } presence;

typedef struct symbol {
  LLVMValueRef value; /* in the whole module */
  char *name;
  bool is_function, is_kernel, is_unit, is_constant;
  size_t instructions;
  int *refs; /* the symbols its body or initializer names */
  unsigned *ref_calls; /* how many of its call instructions call each of them */
  size_t ref_count, ref_capacity;
  unsigned paths; /* call paths from the kernels to it, counted up to 2 */
  int owner; /* a unit's part; a mutable variable's: the first part that reaches it; else -1 */
  bool exported;
} symbol;

typedef struct plan {
  symbol *symbols;
  size_t count;
  int *by_value; /* indices sorted by value (while reading the module) */
  int *by_name;  /* indices sorted by name (in the parts' own modules) */
  unsigned parts;
  unsigned char *presence; /* [part * count + symbol] */
} plan;

static const plan *sorting_plan; /* qsort has no user pointer; the plan is built in the main thread only */

static int compare_by_value(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)sorting_plan->symbols[*(const int *)a].value;
  uintptr_t y = (uintptr_t)sorting_plan->symbols[*(const int *)b].value;
  return x < y ? -1 : x > y;
}

static int compare_by_name(const void *a, const void *b) {
  return strcmp(sorting_plan->symbols[*(const int *)a].name, sorting_plan->symbols[*(const int *)b].name);
}

static int find_by_value(const plan *p, LLVMValueRef value) {
  size_t low = 0, high = p->count;
  while (low < high) {
    size_t mid = (low + high) / 2;
    uintptr_t v = (uintptr_t)p->symbols[p->by_value[mid]].value;
    if (v == (uintptr_t)value)
      return p->by_value[mid];
    if (v < (uintptr_t)value)
      low = mid + 1;
    else
      high = mid;
  }
  return -1;
}

static int find_by_name(const plan *p, const char *name) {
  size_t low = 0, high = p->count;
  while (low < high) {
    size_t mid = (low + high) / 2;
    int c = strcmp(p->symbols[p->by_name[mid]].name, name);
    if (c == 0)
      return p->by_name[mid];
    if (c < 0)
      low = mid + 1;
    else
      high = mid;
  }
  return -1;
}

static bool add_ref(symbol *s, int target, bool is_call) {
  size_t i = 0;
  while (i < s->ref_count && s->refs[i] != target)
    i++;
  if (i == s->ref_count) {
    if (s->ref_count == s->ref_capacity) {
      size_t capacity = s->ref_capacity ? 2 * s->ref_capacity : 8;
      int *refs = realloc(s->refs, capacity * sizeof(int));
      if (refs)
        s->refs = refs;
      unsigned *calls = refs ? realloc(s->ref_calls, capacity * sizeof(unsigned)) : NULL;
      if (!calls)
        return false;
      s->ref_calls = calls;
      s->ref_capacity = capacity;
    }
    s->refs[i] = target;
    s->ref_calls[i] = 0;
    s->ref_count++;
  }
  s->ref_calls[i] += is_call;
  return true;
}

/* Records the symbols that `value` names: itself, or through the operands of a constant expression. */
static bool read_value(const plan *p, symbol *s, LLVMValueRef value, int depth, bool is_callee) {
  if (!value || depth > 32)
    return true;
  if (LLVMIsAGlobalValue(value)) {
    int target = find_by_value(p, value);
    return target < 0 || add_ref(s, target, is_callee);
  }
  if (!LLVMIsAConstant(value))
    return true;
  int n = LLVMGetNumOperands(value);
  for (int i = 0; i < n; i++)
    if (!read_value(p, s, LLVMGetOperand(value, (unsigned)i), depth + 1, false))
      return false;
  return true;
}

static bool read_symbol(const plan *p, symbol *s) {
  if (!s->is_function)
    return read_value(p, s, LLVMGetInitializer(s->value), 0, false);
  for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(s->value); block; block = LLVMGetNextBasicBlock(block))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst; inst = LLVMGetNextInstruction(inst)) {
      s->instructions++;
      LLVMValueRef callee = LLVMIsACallInst(inst) ? LLVMGetCalledValue(inst) : NULL;
      int n = LLVMGetNumOperands(inst);
      for (int i = 0; i < n; i++) {
        LLVMValueRef operand = LLVMGetOperand(inst, (unsigned)i);
        if (!read_value(p, s, operand, 0, operand == callee))
          return false;
      }
    }
  return true;
}

/* A body marked alwaysinline (latch-lower-intervals: one with wgmma that a kernel calls once) is inlined
 * into each kernel that calls it, so it stays beside them in part 0, whatever its paths. */
static bool always_inline(LLVMValueRef function) {
  unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", sizeof("alwaysinline") - 1);
  return LLVMGetEnumAttributeAtIndex(function, LLVMAttributeFunctionIndex, kind) != NULL;
}

static char *copy_name(LLVMValueRef value) {
  size_t length;
  const char *name = LLVMGetValueName2(value, &length);
  char *copy = malloc(length + 1);
  if (copy) {
    memcpy(copy, name, length);
    copy[length] = '\0';
  }
  return copy;
}

static void plan_free(plan *p) {
  for (size_t i = 0; i < p->count; i++) {
    free(p->symbols[i].name);
    free(p->symbols[i].refs);
    free(p->symbols[i].ref_calls);
  }
  free(p->symbols);
  free(p->by_value);
  free(p->by_name);
  free(p->presence);
  memset(p, 0, sizeof(*p));
}

/* Counts the call paths from the kernels to every function (up to 2): callers before callees, in the
 * reverse of a depth-first post-order. */
static bool count_paths(plan *p) {
  int *order = malloc((p->count ? p->count : 1) * sizeof(int));
  int *stack = malloc((p->count ? p->count : 1) * sizeof(int));
  size_t *next_ref = calloc(p->count ? p->count : 1, sizeof(size_t));
  unsigned char *state = calloc(p->count ? p->count : 1, 1); /* 0 new, 1 on the stack, 2 done */
  bool ok = order && stack && next_ref && state;
  size_t ordered = 0;
  for (size_t root = 0; ok && root < p->count; root++) {
    if (!p->symbols[root].is_kernel || state[root])
      continue;
    size_t top = 0;
    stack[top++] = (int)root;
    state[root] = 1;
    while (top) {
      int f = stack[top - 1];
      const symbol *s = &p->symbols[f];
      if (next_ref[f] < s->ref_count) {
        size_t i = next_ref[f]++;
        int g = s->refs[i];
        if (s->ref_calls[i] && !state[g]) { /* a call back up the stack (recursion) is not followed */
          state[g] = 1;
          stack[top++] = g;
        }
      } else {
        state[f] = 2;
        order[ordered++] = f;
        top--;
      }
    }
  }
  for (size_t k = ordered; ok && k-- > 0;) {
    symbol *s = &p->symbols[order[k]];
    if (s->is_kernel)
      s->paths = 1;
    for (size_t i = 0; i < s->ref_count; i++) {
      symbol *t = &p->symbols[s->refs[i]];
      unsigned long total = t->paths + (unsigned long)s->ref_calls[i] * s->paths;
      t->paths = total > 2 ? 2 : (unsigned)total;
    }
  }
  free(order);
  free(stack);
  free(next_ref);
  free(state);
  return ok;
}

/* Instructions of a unit and of the helpers it reaches (each helper once). */
static size_t unit_weight(const plan *p, int unit, unsigned char *seen, int *stack) {
  memset(seen, 0, p->count);
  size_t weight = 0, top = 0;
  stack[top++] = unit;
  seen[unit] = 1;
  while (top) {
    const symbol *s = &p->symbols[stack[--top]];
    weight += s->instructions;
    for (size_t i = 0; i < s->ref_count; i++) {
      int r = s->refs[i];
      if (!seen[r] && p->symbols[r].is_function && !p->symbols[r].is_unit && !p->symbols[r].is_kernel) {
        seen[r] = 1;
        stack[top++] = r;
      }
    }
  }
  return weight;
}

/* Marks what part `part` holds: from its roots through every reference, stopping at what another part
 * owns (which it declares, and which that part exports). Returns the instructions it defines. */
static size_t reach(plan *p, unsigned part, int *stack) {
  unsigned char *presence = p->presence + (size_t)part * p->count;
  size_t top = 0, instructions = 0;
  for (size_t i = 0; i < p->count; i++) {
    const symbol *s = &p->symbols[i];
    if ((s->is_kernel && part == 0) || (s->is_unit && s->owner == (int)part)) {
      presence[i] = DEFINED;
      stack[top++] = (int)i;
    }
  }
  while (top) {
    const symbol *s = &p->symbols[stack[--top]];
    instructions += s->instructions;
    for (size_t i = 0; i < s->ref_count; i++) {
      int r = s->refs[i];
      symbol *t = &p->symbols[r];
      if (presence[r] != ABSENT)
        continue;
      if (t->is_kernel || t->is_unit || (!t->is_function && !t->is_constant)) {
        int owner = t->is_kernel ? 0 : t->owner;
        if (owner < 0) /* a mutable variable not yet reached: the first part that reaches it owns it */
          owner = t->owner = (int)part;
        if (owner != (int)part) {
          presence[r] = DECLARED;
          t->exported = true;
          continue;
        }
      }
      presence[r] = DEFINED; /* owned here, or a helper or constant that each part has its own copy of */
      stack[top++] = r;
    }
  }
  return instructions;
}

static bool plan_build(plan *p, LLVMModuleRef module, unsigned parts, char *error, size_t error_size) {
  memset(p, 0, sizeof(*p));
  p->parts = parts;
  size_t capacity = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f))
    capacity += !LLVMIsDeclaration(f);
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g; g = LLVMGetNextGlobal(g))
    capacity += !LLVMIsDeclaration(g);
  p->symbols = calloc(capacity ? capacity : 1, sizeof(symbol));
  p->by_value = calloc(capacity ? capacity : 1, sizeof(int));
  p->by_name = calloc(capacity ? capacity : 1, sizeof(int));
  if (!p->symbols || !p->by_value || !p->by_name)
    goto out_of_memory;
  for (int pass = 0; pass < 2; pass++)
    for (LLVMValueRef v = pass == 0 ? LLVMGetFirstFunction(module) : LLVMGetFirstGlobal(module); v;
         v = pass == 0 ? LLVMGetNextFunction(v) : LLVMGetNextGlobal(v)) {
      if (LLVMIsDeclaration(v))
        continue;
      symbol *s = &p->symbols[p->count];
      s->value = v;
      s->owner = -1;
      s->is_function = pass == 0;
      if (!(s->name = copy_name(v)))
        goto out_of_memory;
      s->is_kernel = s->is_function && LLVMGetLinkage(v) != LLVMInternalLinkage &&
                     LLVMGetLinkage(v) != LLVMPrivateLinkage;
      s->is_constant = !s->is_function && LLVMIsGlobalConstant(v);
      p->by_value[p->count] = (int)p->count;
      p->by_name[p->count] = (int)p->count;
      p->count++;
    }
  sorting_plan = p;
  qsort(p->by_value, p->count, sizeof(int), compare_by_value);
  qsort(p->by_name, p->count, sizeof(int), compare_by_name);
  sorting_plan = NULL;
  for (size_t i = 0; i < p->count; i++)
    if (!read_symbol(p, &p->symbols[i]))
      goto out_of_memory;
  if (!count_paths(p))
    goto out_of_memory;
  for (size_t i = 0; i < p->count; i++) {
    symbol *s = &p->symbols[i];
    s->is_unit = s->is_function && !s->is_kernel && s->paths > 1 && s->instructions >= min_unit_instructions &&
                 strncmp(s->name, unit_prefix, sizeof(unit_prefix) - 1) == 0 && !always_inline(s->value);
  }

  /* Longest first, each unit to the lightest part; part 0 starts with the kernels' own weight. */
  unsigned char *seen = calloc(p->count ? p->count : 1, 1);
  int *stack = calloc(p->count ? p->count : 1, sizeof(int));
  size_t *weights = calloc(p->count ? p->count : 1, sizeof(size_t));
  int *units = calloc(p->count ? p->count : 1, sizeof(int));
  p->presence = calloc(p->count ? p->count * parts : 1, 1);
  bool ok = seen && stack && weights && units && p->presence;
  if (ok) {
    size_t load[LATCH_EMIT_MAX_PARTS] = {0}, unit_count = 0;
    for (size_t i = 0; i < p->count; i++) {
      if (p->symbols[i].is_kernel)
        load[0] += kernel_weight_numerator * unit_weight(p, (int)i, seen, stack) / kernel_weight_denominator;
      if (p->symbols[i].is_unit) {
        weights[i] = unit_weight(p, (int)i, seen, stack);
        units[unit_count++] = (int)i;
      }
    }
    /* Insertion sort, stable by the module's order: heaviest first. */
    for (size_t i = 1; i < unit_count; i++)
      for (size_t j = i; j > 0 && weights[units[j]] > weights[units[j - 1]]; j--) {
        int t = units[j];
        units[j] = units[j - 1];
        units[j - 1] = t;
      }
    for (size_t i = 0; i < unit_count; i++) {
      unsigned lightest = 0;
      for (unsigned k = 1; k < parts; k++)
        if (load[k] < load[lightest])
          lightest = k;
      p->symbols[units[i]].owner = (int)lightest;
      load[lightest] += weights[units[i]];
    }
    for (unsigned k = 0; k < parts; k++)
      reach(p, k, stack);
  }
  free(seen);
  free(stack);
  free(weights);
  free(units);
  if (!ok)
    goto out_of_memory;
  /* The join finds exported symbols by name in the PTX, which prints plain identifiers as they are. */
  for (size_t i = 0; i < p->count; i++) {
    if (!p->symbols[i].exported)
      continue;
    for (const char *c = p->symbols[i].name; *c; c++)
      if (!isalnum((unsigned char)*c) && *c != '_') {
        snprintf(error, error_size, "cannot share '%s' between parts: not a plain identifier", p->symbols[i].name);
        plan_free(p);
        return false;
      }
  }
  return true;

out_of_memory:
  snprintf(error, error_size, "out of memory");
  plan_free(p);
  return false;
}

/* ---- one part ---------------------------------------------------------------------------------------- */

typedef struct part_job {
  const plan *plan;
  unsigned index;
  const char *bitcode;
  size_t bitcode_size;
  LLVMTargetMachineRef machine;
  char *ptx;
  size_t ptx_length;
  char error[512];
} part_job;

static void capture_part_error(LLVMDiagnosticInfoRef info, void *user_data) {
  part_job *job = user_data;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || job->error[0])
    return;
  char *text = LLVMGetDiagInfoDescription(info);
  snprintf(job->error, sizeof(job->error), "%s", text);
  LLVMDisposeMessage(text);
}

/* Replaces the definition `f` by a declaration of the same name and type. */
static void drop_body(LLVMModuleRef module, LLVMValueRef f, const char *name) {
  LLVMValueRef declaration = LLVMAddFunction(module, "", LLVMGlobalGetValueType(f));
  LLVMSetFunctionCallConv(declaration, LLVMGetFunctionCallConv(f));
  LLVMReplaceAllUsesWith(f, declaration);
  LLVMDeleteFunction(f);
  LLVMSetValueName2(declaration, name, strlen(name));
}

/* The plan's index of a value this part's module defines, or -1 (a declaration, or not in the plan). */
static int planned_definition(const plan *p, LLVMValueRef value) {
  return LLVMIsDeclaration(value) ? -1 : find_by_name(p, LLVMGetValueName2(value, &(size_t){0}));
}

/* Keeps what the plan gives part `job->index`; the rest becomes declarations or goes. */
static void carve(const part_job *job, LLVMModuleRef module) {
  const plan *p = job->plan;
  const unsigned char *presence = p->presence + (size_t)job->index * p->count;
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = next) {
    next = LLVMGetNextFunction(f);
    int i = planned_definition(p, f);
    if (i < 0)
      continue;
    if (presence[i] == DEFINED) {
      if (p->symbols[i].exported)
        LLVMSetLinkage(f, LLVMExternalLinkage);
    } else {
      drop_body(module, f, p->symbols[i].name);
    }
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g; g = next) {
    next = LLVMGetNextGlobal(g);
    int i = planned_definition(p, g);
    if (i < 0)
      continue;
    if (presence[i] == DEFINED) {
      if (p->symbols[i].exported)
        LLVMSetLinkage(g, LLVMExternalLinkage);
    } else if (presence[i] == ABSENT && !LLVMGetFirstUse(g)) {
      LLVMDeleteGlobal(g);
    } else {
      LLVMSetInitializer(g, NULL);
      LLVMSetLinkage(g, LLVMExternalLinkage);
    }
  }
  /* Declarations of what nothing here calls any more. */
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = next) {
    next = LLVMGetNextFunction(f);
    int i = find_by_name(p, LLVMGetValueName2(f, &(size_t){0}));
    if (i >= 0 && presence[i] == ABSENT && !LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
  }
}

/* Parts after the first add "_p<index>" to their internal symbols: a helper copied into two parts, or a
 * constant LLVM made, would otherwise be defined twice in the joined PTX. */
static bool rename_internal(LLVMModuleRef module, unsigned index) {
  for (int pass = 0; pass < 2; pass++)
    for (LLVMValueRef v = pass == 0 ? LLVMGetFirstFunction(module) : LLVMGetFirstGlobal(module); v;
         v = pass == 0 ? LLVMGetNextFunction(v) : LLVMGetNextGlobal(v)) {
      LLVMLinkage linkage = LLVMGetLinkage(v);
      if (LLVMIsDeclaration(v) || (linkage != LLVMInternalLinkage && linkage != LLVMPrivateLinkage))
        continue;
      size_t length;
      const char *name = LLVMGetValueName2(v, &length);
      char *renamed = malloc(length + 16);
      if (!renamed)
        return false;
      int n = snprintf(renamed, length + 16, "%.*s_p%u", (int)length, name, index);
      LLVMSetValueName2(v, renamed, (size_t)n);
      free(renamed);
    }
  return true;
}

static void *run_part(void *argument) {
  part_job *job = argument;
  LLVMContextRef context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(context, capture_part_error, job);
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(job->bitcode, job->bitcode_size, "latch", 0);
  LLVMModuleRef module = NULL;
  if (LLVMParseBitcodeInContext2(context, buffer, &module)) {
    if (!job->error[0])
      snprintf(job->error, sizeof(job->error), "part %u: cannot read the module's bitcode", job->index);
    module = NULL;
  }
  LLVMDisposeMemoryBuffer(buffer);
  if (module) {
    carve(job, module);
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    LLVMErrorRef failure = LLVMRunPasses(module, "default<O3>", job->machine, options);
    LLVMDisposePassBuilderOptions(options);
    if (failure) {
      char *text = LLVMGetErrorMessage(failure);
      snprintf(job->error, sizeof(job->error), "part %u: LLVM's O3 pipeline failed: %s", job->index, text);
      LLVMDisposeErrorMessage(text);
    } else if (job->index > 0 && !rename_internal(module, job->index)) {
      snprintf(job->error, sizeof(job->error), "out of memory");
    } else {
      char *message = NULL;
      LLVMMemoryBufferRef ptx;
      if (LLVMTargetMachineEmitToMemoryBuffer(job->machine, module, LLVMAssemblyFile, &message, &ptx)) {
        if (!job->error[0])
          snprintf(job->error, sizeof(job->error), "part %u: the NVPTX backend failed: %s", job->index,
                   message ? message : "");
        LLVMDisposeMessage(message);
      } else {
        job->ptx_length = LLVMGetBufferSize(ptx);
        job->ptx = malloc(job->ptx_length + 1);
        if (job->ptx) {
          memcpy(job->ptx, LLVMGetBufferStart(ptx), job->ptx_length);
          job->ptx[job->ptx_length] = '\0';
        } else {
          snprintf(job->error, sizeof(job->error), "out of memory");
        }
        LLVMDisposeMemoryBuffer(ptx);
      }
    }
    LLVMDisposeModule(module);
  }
  LLVMContextDispose(context);
  return NULL;
}

/* ---- the join ---------------------------------------------------------------------------------------- */

typedef struct text {
  char *data;
  size_t length, capacity;
} text;

static bool append(text *t, const char *data, size_t length) {
  if (t->length + length + 1 > t->capacity) {
    size_t capacity = t->capacity ? t->capacity : 1 << 20;
    while (capacity < t->length + length + 1)
      capacity *= 2;
    char *grown = realloc(t->data, capacity);
    if (!grown)
      return false;
    t->data = grown;
    t->capacity = capacity;
  }
  memcpy(t->data + t->length, data, length);
  t->length += length;
  t->data[t->length] = '\0';
  return true;
}

static bool is_identifier_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

/* The name an `.extern` statement [start, end) declares: a function's after `.func` and its return
 * parameter, a variable's before its `[`, `=` or `;`. */
static void declared_name(const char *start, const char *end, bool *is_function, char *name, size_t size) {
  const char *s;
  const char *func = strstr(start, ".func");
  *is_function = func && func < end;
  if (*is_function) {
    s = func + 5;
    while (s < end && isspace((unsigned char)*s))
      s++;
    if (s < end && *s == '(')
      while (s < end && *s != ')')
        s++;
    if (s < end && *s == ')')
      s++;
    while (s < end && isspace((unsigned char)*s))
      s++;
  } else {
    const char *stop = start;
    while (stop < end && *stop != '[' && *stop != '=' && *stop != ';')
      stop++;
    while (stop > start && isspace((unsigned char)stop[-1]))
      stop--;
    s = stop;
    while (s > start && is_identifier_char(s[-1]))
      s--;
  }
  size_t n = 0;
  while (s < end && is_identifier_char(*s) && n + 1 < size)
    name[n++] = *s++;
  name[n] = '\0';
}

/* The joined text's state: `.extern` statements written once, forward declarations written. */
typedef struct joiner {
  const plan *plan;
  text *out;
  bool *forward_declared; /* [symbol] */
  const char **externs;   /* the `.extern` statements of symbols that no part defines, written once */
  size_t *extern_lengths, extern_count;
  char *error;
  size_t error_size;
} joiner;

/* Where the join writes a symbol's definition: variables in part 0's preamble (position 0) or in their
 * part's text (its index); functions in their part's text, or, part 0's, after every other part. */
static unsigned definition_position(const plan *p, const symbol *s, bool is_function) {
  unsigned part = s->is_kernel ? 0 : (unsigned)s->owner;
  return part == 0 && is_function ? p->parts : part;
}

static bool write_once(joiner *j, const char *s, size_t length) {
  for (size_t e = 0; e < j->extern_count; e++)
    if (j->extern_lengths[e] == length && memcmp(j->externs[e], s, length) == 0)
      return true;
  const char **externs = realloc(j->externs, (j->extern_count + 1) * sizeof(*externs));
  if (externs)
    j->externs = externs;
  size_t *lengths = externs ? realloc(j->extern_lengths, (j->extern_count + 1) * sizeof(size_t)) : NULL;
  if (!lengths)
    return false;
  j->extern_lengths = lengths;
  j->externs[j->extern_count] = s;
  j->extern_lengths[j->extern_count++] = length;
  return append(j->out, s, length);
}

/* Writes [s, end), a segment at `position` in the joined text, with its `.extern` statements resolved:
 * one for a symbol defined earlier goes, one for a function defined later becomes a forward declaration
 * (once), one for a symbol no part defines is written once. */
static bool write_segment(joiner *j, const char *s, const char *end, unsigned position) {
  while (s < end) {
    const char *line_end = memchr(s, '\n', (size_t)(end - s));
    line_end = line_end ? line_end + 1 : end;
    if (strncmp(s, ".extern ", 8) != 0) {
      if (!append(j->out, s, (size_t)(line_end - s)))
        return false;
      s = line_end;
      continue;
    }
    const char *semicolon = memchr(s, ';', (size_t)(end - s));
    const char *statement_end = semicolon ? semicolon + 1 : line_end;
    if (statement_end < end && *statement_end == '\n')
      statement_end++;
    bool is_function;
    char name[256];
    declared_name(s, statement_end, &is_function, name, sizeof(name));
    int i = find_by_name(j->plan, name);
    const symbol *sym = i >= 0 && j->plan->symbols[i].exported ? &j->plan->symbols[i] : NULL;
    if (!sym) {
      if (!write_once(j, s, (size_t)(statement_end - s)))
        return false;
    } else if (definition_position(j->plan, sym, is_function) > position) {
      if (!is_function) {
        snprintf(j->error, j->error_size, "'%s' would be used before its definition in the joined PTX", name);
        return false;
      }
      if (!j->forward_declared[i]) {
        j->forward_declared[i] = true;
        if (!append(j->out, ".visible", 8) || !append(j->out, s + 7, (size_t)(statement_end - s - 7)))
          return false;
      }
    }
    s = statement_end;
  }
  return true;
}

/* The first function definition (not a forward declaration) in `s`, or `end`. */
static const char *first_definition(const char *s, const char *end) {
  while (s < end) {
    const char *line_end = memchr(s, '\n', (size_t)(end - s));
    line_end = line_end ? line_end + 1 : end;
    if (strncmp(s, ".func", 5) == 0 || strncmp(s, ".visible .func", 14) == 0 || strncmp(s, ".entry", 6) == 0 ||
        strncmp(s, ".visible .entry", 15) == 0 || strncmp(s, ".weak .func", 11) == 0) {
      const char *brace = strstr(s, "\n{"), *semicolon = strchr(s, ';');
      if (brace && brace < end && (!semicolon || brace < semicolon))
        return s;
    }
    s = line_end;
  }
  return end;
}

/* Joins the parts' PTX in the order one module would have: part 0's preamble (header, globals,
 * declarations), the other parts' texts (their headers dropped), then part 0's functions, the kernels
 * last. */
static bool join(const plan *p, part_job *jobs, text *out, char *error, size_t error_size) {
  joiner j = {.plan = p, .out = out, .error = error, .error_size = error_size};
  j.forward_declared = calloc(p->count ? p->count : 1, 1);
  const char *start = jobs[0].ptx, *end = jobs[0].ptx + jobs[0].ptx_length;
  const char *functions = first_definition(start, end);
  bool ok = j.forward_declared && write_segment(&j, start, functions, 0);
  for (unsigned k = 1; ok && k < p->parts; k++) {
    const char *header = strstr(jobs[k].ptx, "\n.address_size");
    const char *after = header ? strchr(header + 1, '\n') : NULL;
    if (!after) {
      snprintf(error, error_size, "part %u's PTX has no .address_size line", k);
      ok = false;
      break;
    }
    ok = write_segment(&j, after + 1, jobs[k].ptx + jobs[k].ptx_length, k);
  }
  ok = ok && write_segment(&j, functions, end, p->parts);
  if (!ok && error[0] == '\0')
    snprintf(error, error_size, "out of memory");
  free(j.forward_declared);
  free(j.externs);
  free(j.extern_lengths);
  return ok;
}

/* ---- all of it --------------------------------------------------------------------------------------- */

bool latch_emit_parts_ptx(LLVMModuleRef module, unsigned parts, LLVMTargetMachineRef (*machine_for)(void),
                          char **out_ptx, size_t *out_length, char *error, size_t error_size) {
  *out_ptx = NULL;
  *out_length = 0;
  error[0] = '\0';
  if (parts < 2 || parts > LATCH_EMIT_MAX_PARTS) {
    snprintf(error, error_size, "the number of parts must be 2 to %d, not %u", LATCH_EMIT_MAX_PARTS, parts);
    return false;
  }
  plan p;
  if (!plan_build(&p, module, parts, error, error_size))
    return false;
  LLVMMemoryBufferRef bitcode = LLVMWriteBitcodeToMemoryBuffer(module);
  part_job jobs[LATCH_EMIT_MAX_PARTS];
  pthread_t threads[LATCH_EMIT_MAX_PARTS];
  bool started[LATCH_EMIT_MAX_PARTS] = {false};
  memset(jobs, 0, sizeof(jobs));
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, (size_t)64 << 20); /* LLVM recurses deeply on large functions */
  for (unsigned k = 0; k < parts; k++) {
    jobs[k] = (part_job){.plan = &p, .index = k, .bitcode = LLVMGetBufferStart(bitcode),
                         .bitcode_size = LLVMGetBufferSize(bitcode), .machine = machine_for()};
    if (!jobs[k].machine)
      snprintf(jobs[k].error, sizeof(jobs[k].error), "cannot create a target machine for part %u", k);
    else if (k > 0) /* part 0 runs on this thread */
      started[k] = pthread_create(&threads[k], &attributes, run_part, &jobs[k]) == 0;
  }
  pthread_attr_destroy(&attributes);
  if (jobs[0].machine)
    run_part(&jobs[0]);
  for (unsigned k = 1; k < parts; k++) {
    if (started[k])
      pthread_join(threads[k], NULL);
    else if (jobs[k].machine) /* no thread: run it here */
      run_part(&jobs[k]);
  }
  bool ok = true;
  for (unsigned k = 0; k < parts && ok; k++)
    if (jobs[k].error[0] || !jobs[k].ptx) {
      snprintf(error, error_size, "%s", jobs[k].error[0] ? jobs[k].error : "a part produced no PTX");
      ok = false;
    }
  text joined = {0};
  ok = ok && join(&p, jobs, &joined, error, error_size);
  for (unsigned k = 0; k < parts; k++) {
    free(jobs[k].ptx);
    if (jobs[k].machine)
      LLVMDisposeTargetMachine(jobs[k].machine);
  }
  LLVMDisposeMemoryBuffer(bitcode);
  plan_free(&p);
  if (!ok) {
    free(joined.data);
    return false;
  }
  *out_ptx = joined.data;
  *out_length = joined.length;
  return true;
}
