/* pass-options.c - C-level test of latch_pass_options_parse on a local pass description with one option
 * of each kind (on a local pass description: this registers nothing).
 * Run by test/lit/latch-opt/pass-options.test; the CHECK lines below are matched against its output. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../../passes/pass.h"

typedef struct test_options {
  int64_t count;
  double scale;
  bool enabled;
  char label[LATCH_OPTION_STRING_MAX];
} test_options;

static const latch_pass_option options[] = {
    {"count", LATCH_OPTION_INT, "4", "an integer", offsetof(test_options, count)},
    {"scale", LATCH_OPTION_FLOAT, "0.5", "a number", offsetof(test_options, scale)},
    {"enabled", LATCH_OPTION_BOOL, "true", "a flag", offsetof(test_options, enabled)},
    {"label", LATCH_OPTION_STRING, "none", "a word", offsetof(test_options, label)},
};

static const latch_pass_info info = {
    .name = "test-options",
    .summary = "a pass that only has options",
    .anchor = "",
    .options = options,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options_size = sizeof(test_options),
};

/* Parses `text` and prints either the values or the one error message. */
static void parse(const char *text) {
  test_options values;
  memset(&values, 0xA5, sizeof(values)); /* garbage: defaults must overwrite every field */
  char error[256] = "";
  putchar('\'');
  for (const char *c = text; *c; ++c) { /* blanks other than spaces, visibly */
    if (*c == '\t')
      fputs("\\t", stdout);
    else if (*c == '\n')
      fputs("\\n", stdout);
    else
      putchar(*c);
  }
  printf("': ");
  if (latch_pass_options_parse(&info, text, strlen(text), &values, error, sizeof(error)))
    printf("count=%" PRId64 " scale=%g enabled=%s label='%s'\n", values.count, values.scale,
           values.enabled ? "true" : "false", values.label);
  else
    printf("error: %s\n", error);
}

int main(void) {
  /* Defaults, then each kind given a value, in any order and with any blanks between. */
  parse("");
  // CHECK: '': count=4 scale=0.5 enabled=true label='none'
  parse("count=7 scale=2.5 enabled=false label=abc");
  // CHECK-NEXT: 'count=7 scale=2.5 enabled=false label=abc': count=7 scale=2.5 enabled=false label='abc'
  parse("  label=x\tcount=-3\n enabled=0  ");
  // CHECK-NEXT: '  label=x\tcount=-3\n enabled=0  ': count=-3 scale=0.5 enabled=false label='x'
  parse("enabled=1 scale=1e-3 count=9223372036854775807");
  // CHECK-NEXT: count=9223372036854775807 scale=0.001 enabled=true label='none'
  parse("count=1 count=2");
  // CHECK-NEXT: 'count=1 count=2': count=2 scale=0.5
  parse("label=");
  // CHECK-NEXT: 'label=': count=4 scale=0.5 enabled=true label=''

  /* Every bad value is one message naming the option and the value. */
  parse("count=abc");
  // CHECK-NEXT: 'count=abc': error: option 'count' expects an integer, got 'abc'
  parse("count=");
  // CHECK-NEXT: 'count=': error: option 'count' expects an integer, got ''
  parse("count=3.5");
  // CHECK-NEXT: 'count=3.5': error: option 'count' expects an integer, got '3.5'
  parse("count=99999999999999999999");
  // CHECK-NEXT: error: option 'count' expects an integer, got '99999999999999999999'
  parse("scale=fast");
  // CHECK-NEXT: 'scale=fast': error: option 'scale' expects a finite number, got 'fast'
  parse("scale=inf");
  // CHECK-NEXT: 'scale=inf': error: option 'scale' expects a finite number, got 'inf'
  parse("scale=nan");
  // CHECK-NEXT: 'scale=nan': error: option 'scale' expects a finite number, got 'nan'
  parse("scale=1e999");
  // CHECK-NEXT: 'scale=1e999': error: option 'scale' expects a finite number, got '1e999'
  parse("enabled=yes");
  // CHECK-NEXT: 'enabled=yes': error: option 'enabled' expects true or false, got 'yes'
  char longest[6 + LATCH_OPTION_STRING_MAX + 1] = "label=";
  memset(longest + 6, 'a', LATCH_OPTION_STRING_MAX - 1); /* the most a value may hold: accepted */
  parse(longest);
  // CHECK-NEXT: 'label=a{{a+}}': count=4 scale=0.5 enabled=true label='a{{a+}}'
  longest[6 + LATCH_OPTION_STRING_MAX - 1] = 'a'; /* one more */
  parse(longest);
  // CHECK-NEXT: error: value of option 'label' is too long (at most 511 characters)
  parse("x=1");
  // CHECK-NEXT: 'x=1': error: pass 'test-options' has no option 'x'
  parse("count");
  // CHECK-NEXT: 'count': error: option 'count' of pass 'test-options' needs a value (key=value)
  parse("count =1");
  // CHECK-NEXT: 'count =1': error: option 'count' of pass 'test-options' needs a value (key=value)
  return 0;
}
