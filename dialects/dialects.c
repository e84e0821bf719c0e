/* dialects.c - the Latch MLIR context: upstream dialects plus task, interval and arena from IRDL. */
#include "dialects.h"

#include <stdio.h>

#include "mlir-c/Dialect/IRDL.h"
#include "mlir-c/RegisterEverything.h"

static bool load_irdl(MlirContext context, const char *source, const char *dialect) {
  MlirModule definitions = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(definitions)) {
    fprintf(stderr, "error: the embedded IRDL definition of the '%s' dialect does not parse\n", dialect);
    return false;
  }
  bool ok = mlirLogicalResultIsSuccess(mlirLoadIRDLDialects(definitions));
  if (!ok)
    fprintf(stderr, "error: the embedded IRDL definition of the '%s' dialect does not load\n", dialect);
  mlirModuleDestroy(definitions);
  return ok;
}

MlirContext latch_context_create(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(context);
  mlirContextLoadAllAvailableDialects(context);
  if (!load_irdl(context, latch_task_irdl_source, "task") ||
      !load_irdl(context, latch_interval_irdl_source, "interval") ||
      !load_irdl(context, latch_arena_irdl_source, "arena")) {
    mlirContextDestroy(context);
    return (MlirContext){NULL};
  }
  return context;
}
