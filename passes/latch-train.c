/* latch-train.c - the named pipeline that turns a forward program into its training update. */
#include "pass.h"

const latch_pass_info latch_train_pipeline = {
    .name = "latch-train",
    .summary = "The training update from a forward program: verify, differentiate, add AdamW, verify",
    .pipeline = "latch-verify,latch-autodiff,latch-optimizer,latch-verify",
};
