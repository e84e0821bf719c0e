/* models.h - the reference models of ../shared/notes/models.md written with the task builder, and the
 * table through which latch-gen finds them (one C file per model). */
#ifndef LATCH_MODELS_H
#define LATCH_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlir-c/IR.h"

/* ---- TinyMoE (models.md: the default model) ---------------------------------------------------- */

typedef struct latch_tinymoe_config {
  int64_t batch, seq, layers, d_model, heads, experts, top_k, ffn, vocab;
} latch_tinymoe_config;

/* TinyMoE at 2 x 1024 tokens: vocab 8192, d_model 512, 4 layers, 8 heads of 64, 8 experts, top-2,
 * ffn 1024 (62,935,552 parameters). */
extern const latch_tinymoe_config latch_tinymoe_default;

/* True when `config` describes a buildable TinyMoE; otherwise writes one sentence to `error`. */
bool latch_tinymoe_check(const latch_tinymoe_config *config, char *error, size_t size);
/* The closed-form parameter count of models.md (the generated program must agree with it). */
int64_t latch_tinymoe_param_count(const latch_tinymoe_config *config);
/* Builds `@tinymoe` (loss only); a null module, after a diagnostic, when the config is invalid.
 * The caller owns the module. */
MlirModule latch_tinymoe_build(MlirContext context, const latch_tinymoe_config *config);

/* ---- MLP (a small dense model for tests) ------------------------------------------------------- */

typedef struct latch_mlp_config {
  int64_t batch, d_model, hidden, classes;
} latch_mlp_config;

extern const latch_mlp_config latch_mlp_default;

bool latch_mlp_check(const latch_mlp_config *config, char *error, size_t size);
int64_t latch_mlp_param_count(const latch_mlp_config *config);
MlirModule latch_mlp_build(MlirContext context, const latch_mlp_config *config);

/* ---- the model table --------------------------------------------------------------------------- */

/* One integer option of a model: `--<name> N` sets the int64_t at `offset` in the model's config. */
typedef struct latch_model_option {
  const char *name;
  size_t offset;
  const char *help;
} latch_model_option;

typedef struct latch_model {
  const char *name;
  const char *summary;
  size_t config_size;
  const void *defaults;
  const latch_model_option *options;
  size_t option_count;
  bool (*check)(const void *config, char *error, size_t size);
  int64_t (*param_count)(const void *config);
  MlirModule (*build)(MlirContext context, const void *config);
} latch_model;

/* Every model: X(name) names the `latch_model_<name>` object defined in models/<name>.c. */
#define LATCH_MODEL_LIST(X) X(tinymoe) X(mlp)

#define X(name) extern const latch_model latch_model_##name;
LATCH_MODEL_LIST(X)
#undef X

#endif
