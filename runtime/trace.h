/* trace.h - the per-CTA interval trace of one update (docs/device-abi.md, "Trace"): for CTA c and
 * interval i, trace[(c * intervals + i) * 3 + {0, 1, 2}] = %globaltimer (ns) on entering the interval, when
 * its tiles are done, and when it leaves the barrier (+2 = +1 for the last interval).
 *
 * The ABI records no %smid, so each CTA is one track; with one CTA per SM (the grid the runtime picks when
 * one CTA fits per SM) a track is an SM, otherwise CTAs c and c + SMs may share one. */
#ifndef LATCH_RUNTIME_TRACE_H
#define LATCH_RUNTIME_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "manifest.h"
#include "status.h"

typedef struct latch_trace_kind {
  const char *kind;   /* points into the manifest's intervals */
  int64_t intervals;  /* intervals of this kind */
  uint64_t busy_ns;   /* sum over CTAs and those intervals of (done - enter) */
  uint64_t wait_ns;   /* sum of (leave - done): time at the barrier */
} latch_trace_kind;

typedef struct latch_trace_report {
  int64_t ctas, intervals;
  uint64_t start_ns, end_ns; /* first entry, last exit */
  uint64_t busy_ns, wait_ns;
  int64_t kind_count;
  latch_trace_kind *kinds; /* in order of first appearance; owned */
} latch_trace_report;

/* Checks the trace (every timestamp written, enter <= done <= leave <= next enter) and sums it up. A
 * violation is a DATA_LOSS status naming the CTA and interval. */
latch_status latch_trace_analyse(const latch_manifest *manifest, int64_t ctas, const uint64_t *trace,
                                 latch_trace_report *out_report);
void latch_trace_report_deinitialize(latch_trace_report *report);

/* Prints the barrier wait share, overall and per interval kind (largest time first). */
void latch_trace_report_print(FILE *stream, const latch_trace_report *report);

/* Writes the trace as Chrome/Perfetto trace-event JSON: one track (tid) per CTA, one complete event per
 * interval (its name; cat "work") and one per barrier wait (name "barrier"; cat "wait"); ts/dur in us
 * from the first entry. */
latch_status latch_trace_write_json(const char *path, const latch_manifest *manifest, int64_t ctas,
                                    const uint64_t *trace, const char *label);

#endif
