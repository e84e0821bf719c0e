/* registry.c - the pass registry (from passes.def), pass options, and turning Latch passes into MLIR
 * external passes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

#define LATCH_PASS(symbol) extern const latch_pass_info symbol;
#include "passes.def"
#undef LATCH_PASS

static const latch_pass_info *const registry[] = {
#define LATCH_PASS(symbol) &symbol,
#include "passes.def"
#undef LATCH_PASS
};

size_t latch_pass_count(void) { return sizeof(registry) / sizeof(registry[0]); }

const latch_pass_info *latch_pass_at(size_t index) {
  return index < latch_pass_count() ? registry[index] : NULL;
}

const latch_pass_info *latch_pass_lookup(const char *name, size_t length) {
  for (size_t i = 0; i < latch_pass_count(); ++i)
    if (strlen(registry[i]->name) == length && memcmp(registry[i]->name, name, length) == 0)
      return registry[i];
  return NULL;
}

/* ---- options ---------------------------------------------------------------------------------- */

static bool parse_option_value(const latch_pass_option *option, const char *value, size_t length,
                               void *out_options, char *error, size_t error_size) {
  char text[LATCH_OPTION_STRING_MAX];
  if (length >= sizeof(text)) {
    snprintf(error, error_size, "value of option '%s' is too long (at most %d characters)", option->name,
             LATCH_OPTION_STRING_MAX - 1);
    return false;
  }
  memcpy(text, value, length);
  text[length] = '\0';
  char *slot = (char *)out_options + option->offset;
  char *end = NULL;
  errno = 0;
  switch (option->kind) {
  case LATCH_OPTION_INT: {
    long long parsed = strtoll(text, &end, 10);
    if (length == 0 || *end != '\0' || errno != 0) {
      snprintf(error, error_size, "option '%s' expects an integer, got '%s'", option->name, text);
      return false;
    }
    *(int64_t *)slot = parsed;
    return true;
  }
  case LATCH_OPTION_FLOAT: {
    double parsed = strtod(text, &end);
    if (length == 0 || *end != '\0' || errno != 0 || !isfinite(parsed)) {
      snprintf(error, error_size, "option '%s' expects a finite number, got '%s'", option->name, text);
      return false;
    }
    *(double *)slot = parsed;
    return true;
  }
  case LATCH_OPTION_BOOL:
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0) {
      *(bool *)slot = true;
    } else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0) {
      *(bool *)slot = false;
    } else {
      snprintf(error, error_size, "option '%s' expects true or false, got '%s'", option->name, text);
      return false;
    }
    return true;
  case LATCH_OPTION_STRING:
    memcpy(slot, text, length + 1);
    return true;
  }
  return false;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool latch_pass_options_parse(const latch_pass_info *info, const char *text, size_t length,
                              void *out_options, char *error, size_t error_size) {
  for (size_t i = 0; i < info->option_count; ++i) {
    const latch_pass_option *option = &info->options[i];
    if (!parse_option_value(option, option->default_value, strlen(option->default_value), out_options,
                            error, error_size))
      return false;
  }
  const char *p = text, *end = text + length;
  while (p < end) {
    while (p < end && is_space(*p))
      ++p;
    if (p == end)
      break;
    const char *key = p;
    while (p < end && *p != '=' && !is_space(*p))
      ++p;
    size_t key_length = (size_t)(p - key);
    if (p == end || *p != '=') {
      snprintf(error, error_size, "option '%.*s' of pass '%s' needs a value (key=value)",
               (int)key_length, key, info->name);
      return false;
    }
    ++p;
    const char *value = p;
    while (p < end && !is_space(*p))
      ++p;
    const latch_pass_option *option = NULL;
    for (size_t i = 0; i < info->option_count; ++i)
      if (strlen(info->options[i].name) == key_length &&
          memcmp(info->options[i].name, key, key_length) == 0)
        option = &info->options[i];
    if (!option) {
      snprintf(error, error_size, "pass '%s' has no option '%.*s'", info->name, (int)key_length, key);
      return false;
    }
    if (!parse_option_value(option, value, (size_t)(p - value), out_options, error, error_size))
      return false;
  }
  return true;
}

/* ---- external passes -------------------------------------------------------------------------- */

typedef struct pass_instance {
  const latch_pass_info *info;
  void *options; /* info->options_size bytes, owned */
} pass_instance;

static pass_instance *instance_create(const latch_pass_info *info, const void *options) {
  pass_instance *instance = calloc(1, sizeof(*instance));
  if (!instance)
    return NULL;
  instance->info = info;
  if (info->options_size) {
    instance->options = malloc(info->options_size);
    if (!instance->options) {
      free(instance);
      return NULL;
    }
    memcpy(instance->options, options, info->options_size);
  }
  return instance;
}

static void instance_construct(void *user_data) { (void)user_data; }

static void instance_destruct(void *user_data) {
  pass_instance *instance = user_data;
  free(instance->options);
  free(instance);
}

static void *instance_clone(void *user_data) {
  pass_instance *instance = user_data;
  return instance_create(instance->info, instance->options);
}

static void instance_run(MlirOperation op, MlirExternalPass pass, void *user_data) {
  pass_instance *instance = user_data;
  if (mlirLogicalResultIsFailure(instance->info->run(op, instance->options)))
    mlirExternalPassSignalFailure(pass);
}

MlirPass latch_pass_create(const latch_pass_info *info, const void *options) {
  pass_instance *instance = instance_create(info, options);
  if (!instance)
    return (MlirPass){NULL};
  MlirDialectHandle handles[16];
  size_t handle_count = info->dependent_dialect_count < 16 ? info->dependent_dialect_count : 16;
  for (size_t i = 0; i < handle_count; ++i)
    handles[i] = info->dependent_dialects[i]();
  MlirExternalPassCallbacks callbacks = {instance_construct, instance_destruct, NULL, instance_clone,
                                         instance_run};
  /* The info object is static and pointer-aligned, so its address is a valid, unique TypeID. */
  return mlirCreateExternalPass(mlirTypeIDCreate(info), mlirStringRefCreateFromCString(info->name),
                                mlirStringRefCreateFromCString(info->name),
                                mlirStringRefCreateFromCString(info->summary),
                                mlirStringRefCreateFromCString(info->anchor), (intptr_t)handle_count,
                                handles, callbacks, instance);
}
