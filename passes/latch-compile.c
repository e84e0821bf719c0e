/* latch-compile.c - the named pipeline from a forward program to the persistent kernel (then
 * `latch-opt --emit=ptx` writes PTX and the manifest). */
#include "pass.h"

const latch_pass_info latch_compile_pipeline = {
    .name = "latch-compile",
    .summary = "Forward program to persistent kernel: train, split attention gradients, reuse the cross-entropy statistics, fold converts and transposes, schedule, fuse, plan and check the arena, lower",
    .pipeline = "latch-train,latch-split-attention-grad,latch-cross-entropy-stats,latch-fold-converts,latch-fold-transposes,latch-fold-weight-split,latch-form-intervals,latch-fuse-phases,latch-plan-arena,latch-verify-arena,"
                "latch-lower-tasks,latch-lower-intervals",
};
