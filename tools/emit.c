/* emit.c - gpu.module @latch to PTX or LLVM IR through the MLIR and LLVM C APIs (see emit.h). */
#include "emit.h"

#include <stdarg.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm-c/Analysis.h"
#include "llvm-c/BitReader.h"
#include "llvm-c/Core.h"
#include "llvm-c/Linker.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Target/LLVMIR.h"

#include "../dialects/ops.h"
#include "../support/textbuf.h"
#include "emit_parts.h"

const char latch_emit_lowering_pipeline[] =
    "builtin.module(gpu.module(convert-scf-to-cf, convert-gpu-to-nvvm, convert-nvvm-to-llvm, "
    "reconcile-unrealized-casts), nvvm-attach-target{chip=" LATCH_EMIT_CHIP " features=" LATCH_EMIT_FEATURES "})";

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

/* ---- one error, whoever finds it --------------------------------------------------------------------- */

/* The first error that MLIR (while lowering and translating) or LLVM reports, held back so that the
 * caller sees one error line that says where it came from. */
typedef struct emit_errors {
  char message[1024];
  bool has_message;
  MlirLocation location; /* of the first MLIR error; null for LLVM errors */
} emit_errors;

static void append_message(MlirStringRef text, void *user_data) {
  emit_errors *errors = user_data;
  size_t used = strlen(errors->message);
  size_t room = sizeof(errors->message) - 1 - used;
  size_t n = text.length < room ? text.length : room;
  memcpy(errors->message + used, text.data, n);
  errors->message[used + n] = '\0';
}

static MlirLogicalResult capture_mlir_error(MlirDiagnostic diagnostic, void *user_data) {
  emit_errors *errors = user_data;
  if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
    return mlirLogicalResultFailure(); /* not ours: the next handler prints it */
  if (!errors->has_message) {
    errors->has_message = true;
    errors->message[0] = '\0';
    mlirDiagnosticPrint(diagnostic, append_message, errors);
    errors->location = mlirDiagnosticGetLocation(diagnostic);
  }
  return mlirLogicalResultSuccess();
}

static void capture_llvm_diagnostic(LLVMDiagnosticInfoRef info, void *user_data) {
  emit_errors *errors = user_data;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || errors->has_message)
    return; /* warnings and remarks (e.g. of the linker) are dropped */
  char *text = LLVMGetDiagInfoDescription(info);
  snprintf(errors->message, sizeof(errors->message), "%s", text);
  LLVMDisposeMessage(text);
  errors->has_message = true;
}

/* The one error a failed emission reports, emitted after the capturing handler is detached. */
typedef struct emit_failure {
  char message[2048];
  MlirLocation location;
  bool failed;
} emit_failure;

/* Records the failure (the first one counts), with the held-back error appended when `errors` has one;
 * its location wins over `fallback`. Returns false. */
__attribute__((format(printf, 4, 5))) static bool fail(emit_failure *failure, const emit_errors *errors,
                                                        MlirLocation fallback, const char *format, ...) {
  if (failure->failed)
    return false;
  failure->failed = true;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(failure->message, sizeof(failure->message), format, args);
  va_end(args);
  if (errors && errors->has_message && n >= 0 && (size_t)n < sizeof(failure->message))
    snprintf(failure->message + n, sizeof(failure->message) - (size_t)n, ": %s", errors->message);
  failure->location = errors && !mlirLocationIsNull(errors->location) ? errors->location : fallback;
  return false;
}

/* ---- helpers ----------------------------------------------------------------------------------------- */

static char *copy_text(const char *data, size_t length) {
  char *copy = malloc(length + 1);
  if (copy) {
    memcpy(copy, data, length);
    copy[length] = '\0';
  }
  return copy;
}

/* The op's symbol name (its sym_name string), or a null string when it has none. */
static MlirStringRef symbol_name(MlirOperation op) {
  MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
  if (mlirAttributeIsNull(sym) || !mlirAttributeIsAString(sym))
    return (MlirStringRef){NULL, 0};
  return mlirStringAttrGetValue(sym);
}

static bool starts_with(MlirStringRef s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.length >= n && memcmp(s.data, prefix, n) == 0;
}

static MlirOperation find_gpu_module(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (latch_op_is(op, "gpu.module") && mlirStringRefEqual(symbol_name(op), str("latch")))
      return op;
  }
  return (MlirOperation){NULL};
}

/* True when the module calls a libdevice function (__nv_*) that it does not define. */
static bool needs_libdevice(LLVMModuleRef module) {
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f)) {
    size_t length;
    const char *name = LLVMGetValueName2(f, &length);
    if (LLVMIsDeclaration(f) && length > 5 && memcmp(name, "__nv_", 5) == 0)
      return true;
  }
  return false;
}

/* Everything defined but the kernels (@latch_main and, with latch-lower-intervals{staged=true}, the staged
 * kernels: every function of the PTX kernel calling convention) becomes internal, so that O3 inlines it and
 * drops what is unused (the task functions' C wrappers, all of libdevice but what the tasks call). */
static void internalize(LLVMModuleRef module, const char *kernel) {
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f)) {
    size_t length;
    const char *name = LLVMGetValueName2(f, &length);
    bool is_kernel = LLVMGetFunctionCallConv(f) == LLVMPTXKernelCallConv ||
                     (length == strlen(kernel) && memcmp(name, kernel, length) == 0);
    if (!LLVMIsDeclaration(f) && !is_kernel)
      LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g))
      LLVMSetLinkage(g, LLVMInternalLinkage);
}

static bool link_libdevice(LLVMContextRef context, LLVMModuleRef module, LLVMTargetDataRef layout,
                           emit_failure *failure, const emit_errors *errors, MlirLocation loc) {
  const char *path = getenv("LATCH_LIBDEVICE");
  if (!path || !path[0])
    path = LATCH_EMIT_LIBDEVICE;
  LLVMMemoryBufferRef buffer;
  char *message = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buffer, &message)) {
    bool result = fail(failure, NULL, loc, "cannot read libdevice '%s': %s", path, message ? message : "unknown error");
    LLVMDisposeMessage(message);
    return result;
  }
  LLVMModuleRef library;
  bool parsed = !LLVMParseBitcodeInContext2(context, buffer, &library);
  LLVMDisposeMemoryBuffer(buffer);
  if (!parsed)
    return fail(failure, errors, loc, "cannot parse libdevice '%s'", path);
  /* libdevice carries its own triple and layout; ours are what the backend uses. */
  LLVMSetTarget(library, LATCH_EMIT_TRIPLE);
  LLVMSetModuleDataLayout(library, layout);
  if (LLVMLinkModules2(module, library)) /* consumes `library` */
    return fail(failure, errors, loc, "linking libdevice '%s' failed", path);
  return true;
}

/* ---- the path -------------------------------------------------------------------------------------- */

typedef struct emitter {
  MlirContext context;
  MlirLocation loc; /* of gpu.module @latch */
  emit_errors errors;
  emit_failure failure;
  MlirModule scratch;
  MlirPassManager pm;
  LLVMContextRef llvm_context;
  LLVMModuleRef llvm_module;
  LLVMTargetMachineRef machine;
  LLVMTargetDataRef layout;
  /* The lowering in halves: the globals made external for the second half, with their linkage. */
  char **shared_globals;
  MlirAttribute *shared_linkages;
  size_t shared_count;
} emitter;

/* ---- the lowering in two halves --------------------------------------------------------------------- */

/* With parts, the upstream lowering runs on two gpu.modules at once (the context's threads): the copy of
 * @latch keeps the kernels, the task wrappers, the map bodies and the globals; a second one takes about
 * half of the tile bodies (@task_body_<N>, by size), and an llvm.func declaration takes each one's place
 * in the first. The second declares what its bodies use of the first: a map body by a private func.func,
 * a global by an external llvm.mlir.global (the definition is made external meanwhile). After the
 * lowering the bodies (and their C-interface wrappers) go back in place of their declarations, the
 * globals get their linkage back and the second half goes: the module is then the one a lowering in one
 * piece writes, op for op, and so is the PTX. */
typedef struct op_counter {
  size_t ops;
} op_counter;

static MlirWalkResult count_ops(MlirOperation op, void *user_data) {
  (void)op;
  ((op_counter *)user_data)->ops++;
  return MlirWalkResultAdvance;
}

static size_t op_count(MlirOperation op) {
  op_counter counter = {0};
  mlirOperationWalk(op, count_ops, &counter, MlirWalkPreOrder);
  return counter.ops;
}

typedef struct symbol_uses {
  emitter *e;
  MlirBlock from; /* the first half's body: the symbols looked up there */
  MlirBlock into; /* the second half's body: declarations go here */
  MlirOperation *declared;
  size_t declared_count, declared_capacity;
  bool failed;
} symbol_uses;

static MlirOperation symbol_in(MlirBlock block, MlirStringRef name) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef op_name = symbol_name(op);
    if (op_name.data && mlirStringRefEqual(op_name, name))
      return op;
  }
  return (MlirOperation){NULL};
}

static void print_to_text(MlirStringRef piece, void *user_data) {
  latch_text_put(user_data, "%.*s", (int)piece.length, piece.data);
}

static MlirType function_type_of(MlirOperation func) {
  return mlirTypeAttrGetValue(mlirOperationGetAttributeByName(func, str("function_type")));
}

/* Declares in the second half the first half's symbol `name` (once). */
static void declare_symbol(MlirContext context, symbol_uses *uses, MlirStringRef name) {
  MlirOperation def = symbol_in(uses->from, name);
  if (mlirOperationIsNull(def))
    return; /* the second half's own */
  for (size_t i = 0; i < uses->declared_count; i++)
    if (mlirOperationEqual(uses->declared[i], def))
      return;
  if (uses->declared_count == uses->declared_capacity) {
    size_t capacity = uses->declared_capacity ? 2 * uses->declared_capacity : 16;
    MlirOperation *grown = realloc(uses->declared, capacity * sizeof(*grown));
    if (!grown) {
      uses->failed = true;
      return;
    }
    uses->declared = grown;
    uses->declared_capacity = capacity;
  }
  uses->declared[uses->declared_count++] = def;
  latch_text text = {0};
  if (latch_op_is(def, "func.func")) {
    latch_text_put(&text, "func.func private @%.*s", (int)name.length, name.data);
    mlirTypePrint(function_type_of(def), print_to_text, &text);
  } else if (latch_op_is(def, "llvm.mlir.global")) {
    latch_text_put(&text, "llvm.mlir.global external @%.*s() {addr_space = ", (int)name.length, name.data);
    mlirAttributePrint(mlirOperationGetAttributeByName(def, str("addr_space")), print_to_text, &text);
    latch_text_put(&text, "} : ");
    mlirTypePrint(mlirTypeAttrGetValue(mlirOperationGetAttributeByName(def, str("global_type"))), print_to_text, &text);
    emitter *e = uses->e;
    char **names = realloc(e->shared_globals, (e->shared_count + 1) * sizeof(*names));
    if (names)
      e->shared_globals = names;
    MlirAttribute *linkages = names ? realloc(e->shared_linkages, (e->shared_count + 1) * sizeof(*linkages)) : NULL;
    if (linkages)
      e->shared_linkages = linkages;
    char *copy = linkages ? copy_text(name.data, name.length) : NULL;
    if (!copy) {
      uses->failed = true;
    } else {
      e->shared_globals[e->shared_count] = copy;
      e->shared_linkages[e->shared_count++] = mlirOperationGetAttributeByName(def, str("linkage"));
      MlirAttribute external = mlirAttributeParseGet(context, str("#llvm.linkage<external>"));
      mlirOperationSetAttributeByName(def, str("linkage"), external);
    }
  } else {
    uses->failed = true; /* a kind of symbol the halves cannot share */
  }
  MlirOperation declaration = text.failed || uses->failed ? (MlirOperation){NULL}
      : mlirOperationCreateParse(context, mlirStringRefCreate(text.data, text.length), str("latch-emit"));
  latch_text_deinitialize(&text);
  if (mlirOperationIsNull(declaration))
    uses->failed = true;
  else
    mlirBlockInsertOwnedOperation(uses->into, 0, declaration);
}

static MlirWalkResult declare_uses(MlirOperation op, void *user_data) {
  symbol_uses *uses = user_data;
  intptr_t n = mlirOperationGetNumAttributes(op);
  for (intptr_t i = 0; i < n && !uses->failed; i++) {
    MlirAttribute value = mlirOperationGetAttribute(op, i).attribute;
    if (mlirAttributeIsAFlatSymbolRef(value))
      declare_symbol(mlirOperationGetContext(op), uses, mlirFlatSymbolRefAttrGetValue(value));
  }
  return uses->failed ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

/* Moves about half of the tile bodies of `first` (gpu.module @latch's copy) into a new gpu.module after
 * it, with the declarations each half needs. */
static bool split_halves(emitter *e, MlirOperation first) {
  MlirOperation second =
      mlirOperationCreateParse(e->context, str("gpu.module @latch_emit_half {\n}"), str("latch-emit"));
  if (mlirOperationIsNull(second))
    return fail(&e->failure, &e->errors, e->loc, "cannot create the second half of the lowering");
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(e->scratch), second);
  MlirBlock from = mlirRegionGetFirstBlock(mlirOperationGetRegion(first, 0));
  MlirBlock into = mlirRegionGetFirstBlock(mlirOperationGetRegion(second, 0));
  size_t load[2] = {0, 0};
  for (MlirOperation op = mlirBlockGetFirstOperation(from); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    load[0] += op_count(op);
  size_t total = load[0];
  MlirOperation next;
  for (MlirOperation op = mlirBlockGetFirstOperation(from); !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    MlirStringRef name = symbol_name(op);
    if (!latch_op_is(op, "func.func") || !starts_with(name, LATCH_EMIT_TILE_BODY_PREFIX))
      continue;
    size_t ops = op_count(op);
    if (2 * (load[1] + ops) > total)
      continue; /* the second half is full */
    load[1] += ops;
    /* the first half calls it: an llvm.func declaration takes its place there (a func.func one would get
     * convert-gpu-to-nvvm's C-interface wrappers between the calls and the body) */
    latch_text text = {0};
    latch_text_put(&text, "llvm.func @%.*s(", (int)name.length, name.data);
    MlirType type = function_type_of(op);
    for (intptr_t k = 0; k < mlirFunctionTypeGetNumInputs(type); k++) {
      latch_text_put(&text, k ? ", " : "");
      mlirTypePrint(mlirFunctionTypeGetInput(type, k), print_to_text, &text);
    }
    latch_text_put(&text, ")");
    if (mlirFunctionTypeGetNumResults(type) != 0)
      text.failed = true; /* tile bodies return nothing */
    MlirOperation declaration = text.failed ? (MlirOperation){NULL}
        : mlirOperationCreateParse(e->context, mlirStringRefCreate(text.data, text.length), str("latch-emit"));
    latch_text_deinitialize(&text);
    if (mlirOperationIsNull(declaration))
      return fail(&e->failure, &e->errors, e->loc, "cannot declare @%.*s for the lowering in halves",
                  (int)name.length, name.data);
    mlirBlockInsertOwnedOperationBefore(from, op, declaration);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(into, op);
  }
  symbol_uses uses = {.e = e, .from = from, .into = into};
  for (MlirOperation op = mlirBlockGetFirstOperation(into); !mlirOperationIsNull(op) && !uses.failed;
       op = mlirOperationGetNextInBlock(op))
    mlirOperationWalk(op, declare_uses, &uses, MlirWalkPreOrder);
  free(uses.declared);
  if (uses.failed)
    return fail(&e->failure, &e->errors, e->loc, "cannot declare what the halves of the lowering share");
  return true;
}

/* Puts the second half's bodies and their C-interface wrappers back in place of their declarations in
 * the first, gives the shared globals their linkage back and drops the second half. */
static bool join_halves(emitter *e) {
  MlirOperation first = mlirBlockGetFirstOperation(mlirModuleGetBody(e->scratch));
  MlirOperation second = mlirOperationGetNextInBlock(first);
  MlirBlock into = mlirRegionGetFirstBlock(mlirOperationGetRegion(first, 0));
  MlirBlock from = mlirRegionGetFirstBlock(mlirOperationGetRegion(second, 0));
  MlirOperation next, pending = {NULL}; /* the first of the declarations the lowering wrote before a body */
  for (MlirOperation op = mlirBlockGetFirstOperation(from); !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    MlirStringRef name = symbol_name(op);
    if (!latch_op_is(op, "llvm.func") || !name.data)
      continue;
    if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)))) {
      /* a declaration the conversion wrote (libdevice's functions) that the first half lacks: it goes
       * back with the body after it, where a lowering in one piece writes it */
      if (mlirOperationIsNull(symbol_in(into, name)) && mlirOperationIsNull(pending))
        pending = op;
      continue;
    }
    MlirStringRef wrapped = name;
    static const char prefix[] = "_mlir_ciface_";
    bool wrapper = name.length > sizeof(prefix) - 1 && starts_with(name, prefix);
    if (wrapper)
      wrapped = mlirStringRefCreate(name.data + sizeof(prefix) - 1, name.length - (sizeof(prefix) - 1));
    MlirOperation anchor = symbol_in(into, wrapped);
    if (mlirOperationIsNull(anchor))
      continue; /* the second half's own declarations turned into wrappers */
    bool declared = mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(anchor, 0)));
    if (wrapper == declared) /* a wrapper goes after its body (back already), a body in place of its declaration */
      continue;
    if (!wrapper) /* the declarations just before it, in their order */
      for (MlirOperation d = pending, after; !mlirOperationIsNull(d) && !mlirOperationEqual(d, op); d = after) {
        after = mlirOperationGetNextInBlock(d);
        MlirStringRef d_name = symbol_name(d);
        if (!latch_op_is(d, "llvm.func") || !d_name.data || !mlirOperationIsNull(symbol_in(into, d_name)))
          continue;
        mlirOperationRemoveFromParent(d);
        mlirBlockInsertOwnedOperationBefore(into, anchor, d);
      }
    pending = (MlirOperation){NULL};
    mlirOperationRemoveFromParent(op);
    if (wrapper) {
      mlirBlockInsertOwnedOperationAfter(into, anchor, op);
    } else {
      mlirBlockInsertOwnedOperationBefore(into, anchor, op);
      mlirOperationRemoveFromParent(anchor);
      mlirOperationDestroy(anchor);
    }
  }
  for (size_t i = 0; i < e->shared_count; i++) {
    MlirOperation global = symbol_in(into, mlirStringRefCreateFromCString(e->shared_globals[i]));
    if (mlirOperationIsNull(global))
      return fail(&e->failure, NULL, e->loc, "the global @%s went missing in the lowering", e->shared_globals[i]);
    mlirOperationSetAttributeByName(global, str("linkage"), e->shared_linkages[i]);
  }
  mlirOperationRemoveFromParent(second);
  mlirOperationDestroy(second);
  return true;
}

/* Lowers a copy of `gpu_module` to the LLVM and NVVM dialects. */
static bool lower(emitter *e, MlirOperation gpu_module, bool halves) {
  e->scratch = mlirModuleCreateEmpty(e->loc);
  MlirOperation copy = mlirOperationClone(gpu_module);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(e->scratch), copy);
  if (halves && !split_halves(e, copy))
    return false;
  e->pm = mlirPassManagerCreateOnOperation(e->context, str("builtin.module"));
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(e->pm),
                                                       str(latch_emit_lowering_pipeline), append_message,
                                                       &e->errors))) {
    e->errors.has_message = e->errors.message[0] != '\0';
    return fail(&e->failure, &e->errors, e->loc,
                "the lowering pipeline does not parse (upstream passes not registered?)");
  }
  /* MLIR's verifier runs once, on the lowered module, instead of after each upstream pass: a run over the
   * whole module costs about what a pass does (TinyMoE 2x1024: the lowering 1.3-1.5 s with it after each
   * pass, 0.8-1.2 s without). */
  mlirPassManagerEnableVerifier(e->pm, false);
  if (halves) /* the two gpu.modules on the context's threads; Latch's passes run single-threaded */
    mlirContextEnableMultithreading(e->context, true);
  bool lowered = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(e->pm, mlirModuleGetOperation(e->scratch)));
  if (halves)
    mlirContextEnableMultithreading(e->context, false);
  if (!lowered)
    return fail(&e->failure, &e->errors, e->loc, "lowering gpu.module @latch to the LLVM dialect failed");
  if (halves && !join_halves(e))
    return false;
  if (!mlirOperationVerify(mlirModuleGetOperation(e->scratch)))
    return fail(&e->failure, &e->errors, e->loc,
                "gpu.module @latch lowered to the LLVM dialect does not verify (an upstream pass wrote invalid IR)");
  return true;
}

/* A target machine for sm_90a; one per thread that optimises or assembles (emit_parts.c). */
static LLVMTargetMachineRef new_machine(void) {
  LLVMTargetRef target;
  char *message = NULL;
  if (LLVMGetTargetFromTriple(LATCH_EMIT_TRIPLE, &target, &message)) {
    LLVMDisposeMessage(message);
    return NULL;
  }
  return LLVMCreateTargetMachine(target, LATCH_EMIT_TRIPLE, LATCH_EMIT_CHIP, LATCH_EMIT_FEATURES,
                                 LLVMCodeGenLevelAggressive, LLVMRelocDefault, LLVMCodeModelDefault);
}

static bool create_machine(emitter *e) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  e->machine = new_machine();
  if (!e->machine)
    return fail(&e->failure, NULL, e->loc,
                "cannot create an LLVM target machine for " LATCH_EMIT_TRIPLE " " LATCH_EMIT_CHIP);
  e->layout = LLVMCreateTargetDataLayout(e->machine);
  return true;
}

/* Translation, libdevice and internalisation. */
static bool translate(emitter *e) {
  e->llvm_context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(e->llvm_context, capture_llvm_diagnostic, &e->errors);
  MlirOperation lowered = mlirBlockGetFirstOperation(mlirModuleGetBody(e->scratch));
  e->llvm_module = mlirTranslateModuleToLLVMIR(lowered, e->llvm_context);
  if (!e->llvm_module)
    return fail(&e->failure, &e->errors, e->loc, "translating gpu.module @latch to LLVM IR failed");
  if (!LLVMGetNamedFunction(e->llvm_module, "latch_main"))
    return fail(&e->failure, NULL, e->loc,
                "gpu.module @latch has no kernel @latch_main (run latch-lower-intervals first)");
  LLVMSetTarget(e->llvm_module, LATCH_EMIT_TRIPLE);
  LLVMSetModuleDataLayout(e->llvm_module, e->layout);
  /* libdevice's __nvvm_reflect("__CUDA_FTZ") reads this flag: no flush of denormals to zero. */
  LLVMAddModuleFlag(e->llvm_module, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(e->llvm_context), 0, 0)));
  if (needs_libdevice(e->llvm_module) &&
      !link_libdevice(e->llvm_context, e->llvm_module, e->layout, &e->failure, &e->errors, e->loc))
    return false;
  internalize(e->llvm_module, "latch_main");

  char *message = NULL;
  if (LLVMVerifyModule(e->llvm_module, LLVMReturnStatusAction, &message)) {
    bool result = fail(&e->failure, NULL, e->loc, "the LLVM module is invalid: %s", message ? message : "");
    LLVMDisposeMessage(message);
    return result;
  }
  LLVMDisposeMessage(message);
  return true;
}

static bool run_passes(emitter *e, const char *pipeline, const char *what) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef error = LLVMRunPasses(e->llvm_module, pipeline, e->machine, options);
  LLVMDisposePassBuilderOptions(options);
  if (error) {
    char *text = LLVMGetErrorMessage(error);
    fail(&e->failure, NULL, e->loc, "LLVM's %s failed: %s", what, text);
    LLVMDisposeErrorMessage(text);
    return false;
  }
  return true;
}

/* O3 and the code: the module whole (LLVM IR, or PTX in one part), or PTX in `parts` parts at once. */
static bool optimise_and_write(emitter *e, latch_emit_format format, unsigned parts, latch_emit_output *out) {
  if (format == LATCH_EMIT_PTX && parts > 1) {
    /* Unused libdevice goes first, so that no part reads it. */
    if (!run_passes(e, "globaldce", "global dead code elimination"))
      return false;
    char error[1024];
    if (!latch_emit_parts_ptx(e->llvm_module, parts, new_machine, &out->code, &out->code_length, error,
                              sizeof(error)))
      return fail(&e->failure, NULL, e->loc, "emitting PTX in %u parts failed: %s", parts, error);
    return true;
  }
  if (!run_passes(e, "default<O3>", "O3 pipeline"))
    return false;
  if (format == LATCH_EMIT_LLVM) {
    char *text = LLVMPrintModuleToString(e->llvm_module);
    out->code_length = strlen(text);
    out->code = copy_text(text, out->code_length);
    LLVMDisposeMessage(text);
  } else {
    char *message = NULL;
    LLVMMemoryBufferRef buffer;
    if (LLVMTargetMachineEmitToMemoryBuffer(e->machine, e->llvm_module, LLVMAssemblyFile, &message, &buffer)) {
      bool result = fail(&e->failure, &e->errors, e->loc, "the NVPTX backend failed%s%s", message ? ": " : "",
                         message ? message : "");
      LLVMDisposeMessage(message);
      return result;
    }
    out->code_length = LLVMGetBufferSize(buffer);
    out->code = copy_text(LLVMGetBufferStart(buffer), out->code_length);
    LLVMDisposeMemoryBuffer(buffer);
  }
  return out->code ? true : fail(&e->failure, NULL, e->loc, "out of memory");
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool latch_emit(MlirOperation module, latch_emit_format format, unsigned parts, latch_emit_output *out_output) {
  memset(out_output, 0, sizeof(*out_output));
  MlirOperation gpu_module = find_gpu_module(module);
  if (mlirOperationIsNull(gpu_module)) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "no gpu.module @latch to emit (run latch-lower-tasks and latch-lower-intervals first)");
    return false;
  }
  emitter e;
  memset(&e, 0, sizeof(e));
  e.context = mlirOperationGetContext(module);
  e.loc = mlirOperationGetLocation(gpu_module);

  MlirAttribute manifest = mlirOperationGetAttributeByName(gpu_module, str("latch.manifest"));
  bool ok = !mlirAttributeIsNull(manifest) && mlirAttributeIsAString(manifest);
  if (!ok) {
    fail(&e.failure, NULL, e.loc, "gpu.module @latch has no latch.manifest string (run latch-lower-intervals first)");
  } else {
    MlirDiagnosticHandlerID handler =
        mlirContextAttachDiagnosticHandler(e.context, capture_mlir_error, &e.errors, NULL);
    double t0 = now_seconds();
    ok = lower(&e, gpu_module, parts > 1);
    double t1 = now_seconds();
    ok = ok && create_machine(&e) && translate(&e);
    double t2 = now_seconds();
    ok = ok && optimise_and_write(&e, format, parts, out_output);
    out_output->lower_seconds = t1 - t0;
    out_output->translate_seconds = t2 - t1;
    out_output->llvm_seconds = now_seconds() - t2;
    mlirContextDetachDiagnosticHandler(e.context, handler);
  }
  if (ok) {
    MlirStringRef text = mlirStringAttrGetValue(manifest);
    out_output->manifest_length = text.length;
    out_output->manifest = copy_text(text.data, text.length);
    if (!out_output->manifest)
      ok = fail(&e.failure, NULL, e.loc, "out of memory");
  }
  if (e.llvm_module)
    LLVMDisposeModule(e.llvm_module);
  if (e.llvm_context)
    LLVMContextDispose(e.llvm_context);
  if (e.layout)
    LLVMDisposeTargetData(e.layout);
  if (e.machine)
    LLVMDisposeTargetMachine(e.machine);
  if (e.pm.ptr)
    mlirPassManagerDestroy(e.pm);
  if (e.scratch.ptr)
    mlirModuleDestroy(e.scratch);
  for (size_t i = 0; i < e.shared_count; i++)
    free(e.shared_globals[i]);
  free(e.shared_globals);
  free(e.shared_linkages);
  if (!ok) {
    if (!e.failure.failed)
      fail(&e.failure, &e.errors, e.loc, "emission failed");
    mlirEmitError(e.failure.location, e.failure.message);
    latch_emit_output_deinitialize(out_output);
  }
  return ok;
}

void latch_emit_output_deinitialize(latch_emit_output *output) {
  free(output->code);
  free(output->manifest);
  memset(output, 0, sizeof(*output));
}
