/* trace.h - the per-CTA interval trace of one update (docs/device-abi.md, "Trace"): for CTA c and
 * interval i, trace[(c * intervals + i) * 3 + {0, 1, 2}] = %globaltimer (ns) on entering the interval, when
 * its tiles are done, and when it leaves the barrier (+2 = +1 for the last interval); after the timestamps
 * of all CTAs, trace[ctas * intervals * 3 + c] = %smid + 1 of CTA c (0 = never written: the staged
 * kernels do not write it). When the kernel records tiles (the manifest's tile_trace, from
 * latch-lower-intervals{trace-tiles=true}) and the manifest lists every interval's tasks, the tiles'
 * records follow:
 * tile t of the update (numbered through the intervals in order, each interval's as the manifest's tasks
 * list them) at trace[ctas * (intervals * 3 + 1) + 3 t + {0, 1, 2}] = when it began, when its CTA's
 * threads were done with it, and the CTA that ran it (@latch_main's tile counter loop writes them; 0
 * where nothing ran it).
 *
 * With one CTA per SM (every CTA recorded its SM, no two the same) the JSON has one track per SM;
 * otherwise one track per CTA, named and sorted by its SM where known. */
#ifndef LATCH_RUNTIME_TRACE_H
#define LATCH_RUNTIME_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "manifest.h"
#include "status.h"

/* The trace buffer's length in u64 words: the timestamps of `ctas` CTAs and `intervals` intervals, then
 * one %smid word per CTA. */
static inline int64_t latch_trace_buffer_words(int64_t ctas, int64_t intervals) {
  return ctas * intervals * LATCH_ABI_TRACE_WORDS + ctas;
}

/* Tiles of the update with a record in the trace buffer: all of them when the kernel records tiles
 * (manifest tile_trace) and every interval of the manifest lists its tasks, else 0. The buffer holds LATCH_ABI_TILE_RECORD_WORDS more u64 words per record after
 * latch_trace_buffer_words. */
int64_t latch_trace_tile_records(const latch_manifest *manifest);

/* Prints the `slowest` tasks by tile time (the sum over a task's recorded tiles of end - begin, the
 * median and the longest tile): which task of an interval holds it up. Prints nothing when no tile was
 * recorded (the staged kernels, round robin, or a manifest without tasks). */
void latch_trace_tasks_print(FILE *stream, const latch_manifest *manifest, int64_t ctas, const uint64_t *trace,
                             int64_t slowest);

/* Sorts `values` ascending and returns their median (the mean of the middle two for an even count; 0
 * for none): update times (latch-run) and tile times. */
double latch_sort_median(double *values, size_t count);

/* The SM that CTA `cta` ran on, from its %smid word; -1 when the word is 0 (never written). */
int64_t latch_trace_cta_sm(const latch_manifest *manifest, int64_t ctas, const uint64_t *trace, int64_t cta);

/* Whether every CTA recorded its SM and no two CTAs share one: then a track is an SM. */
bool latch_trace_one_cta_per_sm(const latch_manifest *manifest, int64_t ctas, const uint64_t *trace);

typedef struct latch_trace_kind {
  const char *kind;   /* points into the manifest's intervals */
  int64_t intervals;  /* intervals of this kind */
  uint64_t busy_ns;   /* sum over CTAs and those intervals of (done - enter) */
  uint64_t wait_ns;   /* sum of (leave - done): time at the barrier */
} latch_trace_kind;

typedef struct latch_trace_interval {
  const char *name;     /* points into the manifest's intervals */
  int64_t tiles;
  uint64_t span_ns;     /* the earliest entry of any CTA to the latest exit */
  uint64_t busy_max_ns; /* the busiest CTA's done - enter */
  uint64_t busy_ns;     /* sum over CTAs of done - enter */
} latch_trace_interval;

typedef struct latch_trace_report {
  int64_t ctas, intervals;
  uint64_t start_ns, end_ns; /* first entry, last exit */
  uint64_t busy_ns, wait_ns;
  int64_t kind_count;
  latch_trace_kind *kinds; /* in order of first appearance; owned */
  latch_trace_interval *per_interval; /* one per interval, in program order; owned */
  int64_t *sms;            /* per CTA: its SM, -1 when not recorded; owned */
  int64_t sms_recorded;    /* CTAs whose SM is known */
  bool one_cta_per_sm;     /* latch_trace_one_cta_per_sm */
} latch_trace_report;

/* Checks the trace's timestamps (every one written, enter <= done <= leave <= next enter) and sums them
 * up; reads each CTA's SM (a %smid word above 2^32 is an error). A violation is a DATA_LOSS status naming
 * the CTA (and interval). */
latch_status latch_trace_analyse(const latch_manifest *manifest, int64_t ctas, const uint64_t *trace,
                                 latch_trace_report *out_report);
void latch_trace_report_deinitialize(latch_trace_report *report);

/* Prints the barrier wait share, overall and per interval kind (largest time first), then the `slowest`
 * intervals of the longest span: where the update's time goes, and whether an interval is long because
 * of its work (mean CTA work near the span) or its slowest CTA (max >> mean). */
#define LATCH_TRACE_SLOWEST 12
void latch_trace_report_print(FILE *stream, const latch_trace_report *report, int64_t slowest);

/* Writes the trace as Chrome/Perfetto trace-event JSON: one track (tid) per SM ("SM s", tid s) when
 * latch_trace_one_cta_per_sm, else one per CTA (tid c, "SM s / CTA c", or "CTA c" when its SM is not
 * recorded; sorted by SM, then CTA); one complete event per interval (its name; cat "work"; args interval,
 * tiles, cta) and one per barrier wait (name "barrier"; cat "wait"); with the tiles' records, one per
 * recorded tile on its CTA's track (the task's kind; cat "tile"; args interval, task, tile of the task, cta);
 * ts/dur in us from the first entry. */
latch_status latch_trace_write_json(const char *path, const latch_manifest *manifest, int64_t ctas,
                                    const uint64_t *trace, const char *label);

#endif
