/* cli.h - the command-line helpers that latch-interp and latch-run share: `--flag VALUE` or `--flag=VALUE`,
 * checked numbers, and `TOOL: error: ...` lines on stderr. No MLIR dependency (the GPU bundle builds
 * latch-run from these sources with plain gcc). */
#ifndef LATCH_SUPPORT_CLI_H
#define LATCH_SUPPORT_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Prints `TOOL: error: MESSAGE` and a newline to stderr. */
void latch_cli_verror(const char *tool, const char *format, va_list args);

/* The value of `--flag VALUE` or `--flag=VALUE` when argv[*i] is that flag (advancing *i past a separate
 * VALUE); NULL when it is not, or when VALUE is missing at the end of argv (then *missing is set). */
const char *latch_cli_flag_value(const char *flag, int argc, char **argv, int *i, bool *missing);

/* An unsigned 64-bit integer (decimal, 0x hex or 0 octal; no sign). On failure prints `TOOL: error:` with
 * the flag and returns false. */
bool latch_cli_parse_seed(const char *tool, const char *flag, const char *text, uint64_t *out);

/* A decimal integer in [min, max]. On failure prints `TOOL: error:` with the flag ("a positive integer"
 * when min is 1) and returns false. */
bool latch_cli_parse_integer(const char *tool, const char *flag, const char *text, int64_t min, int64_t max,
                             int64_t *out);

/* mkdir -p `path`: creates every missing directory along it. On failure writes why into `error` ("cannot
 * create 'a/b': ...", "'a' is not a directory", "bad directory name '...'") and returns false. */
bool latch_cli_make_directory(const char *path, char *error, size_t error_size);

#endif
