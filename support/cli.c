/* cli.c - the command-line helpers of latch-interp and latch-run (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void latch_cli_verror(const char *tool, const char *format, va_list args) {
  fprintf(stderr, "%s: error: ", tool);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

__attribute__((format(printf, 2, 3))) static bool error(const char *tool, const char *format, ...) {
  va_list args;
  va_start(args, format);
  latch_cli_verror(tool, format, args);
  va_end(args);
  return false;
}

const char *latch_cli_flag_value(const char *flag, int argc, char **argv, int *i, bool *missing) {
  size_t n = strlen(flag);
  const char *arg = argv[*i];
  if (strncmp(arg, flag, n) != 0)
    return NULL;
  if (arg[n] == '=')
    return arg + n + 1;
  if (arg[n] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    *missing = true;
    return NULL;
  }
  return argv[++*i];
}

bool latch_cli_parse_seed(const char *tool, const char *flag, const char *text, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 0);
  if (!*text || *text == '-' || *end || errno == ERANGE)
    return error(tool, "%s needs an unsigned 64-bit integer, not '%s'", flag, text);
  *out = (uint64_t)value;
  return true;
}

bool latch_cli_parse_integer(const char *tool, const char *flag, const char *text, int64_t min, int64_t max,
                             int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long value = strtoll(text, &end, 10);
  if (!*text || *end || errno == ERANGE || value < min || value > max) {
    if (min == 1)
      return error(tool, "%s needs a positive integer, not '%s'", flag, text);
    return error(tool, "%s needs an integer in [%lld, %lld], not '%s'", flag, (long long)min, (long long)max, text);
  }
  *out = (int64_t)value;
  return true;
}

bool latch_cli_make_directory(const char *path, char *error, size_t error_size) {
  char buffer[4096];
  size_t length = strlen(path);
  if (length == 0 || length >= sizeof(buffer)) {
    snprintf(error, error_size, "bad directory name '%s'", path);
    return false;
  }
  memcpy(buffer, path, length + 1);
  for (size_t i = 1; i <= length; ++i) {
    if (buffer[i] != '/' && buffer[i] != '\0')
      continue;
    char saved = buffer[i];
    buffer[i] = '\0';
    struct stat info;
    if (stat(buffer, &info) != 0) {
      if (mkdir(buffer, 0777) != 0 && errno != EEXIST) {
        snprintf(error, error_size, "cannot create '%s': %s", buffer, strerror(errno));
        return false;
      }
    } else if (!S_ISDIR(info.st_mode)) {
      snprintf(error, error_size, "'%s' is not a directory", buffer);
      return false;
    }
    buffer[i] = saved;
  }
  return true;
}
