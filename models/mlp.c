/* mlp.c - a small dense model for tests: x[B,D] -> silu(x W1) W2 -> mean cross-entropy against labels.
 *
 * Everything is f32 (no bf16 conversions), and the activation is SiLU rather than ReLU, so that
 * interpreter and finite-difference checks are smooth and tight. Weights are stored [in, out] and
 * initialised normal with std 1/sqrt(fan_in). */
#include <math.h>
#include <stdio.h>

#include "mlir-c/Diagnostics.h"

#include "../dialects/builder.h"
#include "models.h"

const latch_mlp_config latch_mlp_default = {.batch = 4, .d_model = 16, .hidden = 32, .classes = 8};

#define MAX_DIM (INT64_C(1) << 24)

bool latch_mlp_check(const latch_mlp_config *c, char *error, size_t size) {
  const struct {
    const char *name;
    int64_t value;
  } fields[] = {{"batch", c->batch}, {"d-model", c->d_model}, {"hidden", c->hidden}, {"classes", c->classes}};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i)
    if (fields[i].value < 1 || fields[i].value > MAX_DIM) {
      snprintf(error, size, "%s must be in 1..%lld, got %lld", fields[i].name, (long long)MAX_DIM,
               (long long)fields[i].value);
      return false;
    }
  return true;
}

int64_t latch_mlp_param_count(const latch_mlp_config *c) {
  return c->d_model * c->hidden + c->hidden * c->classes;
}

MlirModule latch_mlp_build(MlirContext context, const latch_mlp_config *c) {
  char error[256];
  if (!latch_mlp_check(c, error, sizeof(error))) {
    char message[300];
    snprintf(message, sizeof(message), "mlp: %s", error);
    mlirEmitError(mlirLocationUnknownGet(context), message);
    return (MlirModule){NULL};
  }
  latch_builder *b = latch_builder_create(context, "mlp", "mlp.c");
  if (!b)
    return (MlirModule){NULL};

  LATCH_AT(b, "inputs");
  MlirValue x = latch_input(b, "x", LATCH_SHAPE(c->batch, c->d_model), LATCH_F32);
  MlirValue labels = latch_input_ids(b, "labels", LATCH_SHAPE(c->batch), c->classes);

  LATCH_AT(b, "fc1");
  MlirValue w1 = latch_param(b, "fc1.w", LATCH_SHAPE(c->d_model, c->hidden),
                             latch_normal(1.0 / sqrt((double)c->d_model)));
  MlirValue h = latch_map1(b, latch_matmul(b, x, w1, false, false), LATCH_FN_SILU);

  LATCH_AT(b, "fc2");
  MlirValue w2 = latch_param(b, "fc2.w", LATCH_SHAPE(c->hidden, c->classes),
                             latch_normal(1.0 / sqrt((double)c->hidden)));
  MlirValue logits = latch_matmul(b, h, w2, false, false);

  LATCH_AT(b, "loss");
  MlirValue loss = latch_cross_entropy(b, logits, labels);

  MlirModule module = latch_builder_finish(b, loss, 0, NULL);
  latch_builder_destroy(b);
  return module;
}

/* ---- the model table entry --------------------------------------------------------------------- */

static bool check(const void *config, char *error, size_t size) { return latch_mlp_check(config, error, size); }
static int64_t param_count(const void *config) { return latch_mlp_param_count(config); }
static MlirModule build(MlirContext context, const void *config) { return latch_mlp_build(context, config); }

#define OPTION(name, field, help) {name, offsetof(latch_mlp_config, field), help}
static const latch_model_option options[] = {
    OPTION("batch", batch, "examples per batch (B)"),
    OPTION("d-model", d_model, "input width (D)"),
    OPTION("hidden", hidden, "hidden width"),
    OPTION("classes", classes, "number of classes (label range)"),
};
#undef OPTION

const latch_model latch_model_mlp = {
    .name = "mlp",
    .summary = "2-layer MLP (SiLU) with mean cross-entropy, all f32: a small dense model for tests",
    .config_size = sizeof(latch_mlp_config),
    .defaults = &latch_mlp_default,
    .options = options,
    .option_count = sizeof(options) / sizeof(options[0]),
    .check = check,
    .param_count = param_count,
    .build = build,
};
