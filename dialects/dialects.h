/* dialects.h - creating an MLIR context with every upstream dialect and Latch's IRDL dialects loaded. */
#ifndef LATCH_DIALECTS_H
#define LATCH_DIALECTS_H

#include "mlir-c/IR.h"

/* The IRDL source of each Latch dialect, embedded at build time (generated file). */
extern const char latch_task_irdl_source[];
extern const char latch_interval_irdl_source[];
extern const char latch_arena_irdl_source[];

/* Creates a context with all upstream dialects registered (and loaded, so that upstream passes can
 * create any op) and the task, interval and arena dialects loaded from their embedded IRDL. Returns a
 * null context if the embedded definitions fail to load (a build defect); diagnostics go to stderr.
 * The caller owns the context and destroys it last. */
MlirContext latch_context_create(void);

#endif
