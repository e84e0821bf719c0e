/* trace.c - checks, sums and writes the per-CTA interval trace (see trace.h). */
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define AT(c, i, w) trace[((c) * m->interval_count + (i)) * LATCH_ABI_TRACE_WORDS + (w)]
/* CTA c's %smid word, after the timestamps of every CTA. */
#define SM_WORD(c) trace[ctas * m->interval_count * LATCH_ABI_TRACE_WORDS + (c)]

/* %smid is 32 bits, so a written word is 1 .. 2^32. */
static bool sm_word_valid(uint64_t word) { return word >= 1 && word <= (uint64_t)UINT32_MAX + 1; }

int64_t latch_trace_cta_sm(const latch_manifest *m, int64_t ctas, const uint64_t *trace, int64_t c) {
  uint64_t word = SM_WORD(c);
  return sm_word_valid(word) ? (int64_t)(word - 1) : -1;
}

typedef struct track {
  int64_t sm; /* -1: not recorded */
  int64_t cta;
} track;

/* By SM (not recorded last), then CTA. */
static int compare_tracks(const void *a, const void *b) {
  const track *x = a, *y = b;
  int64_t xs = x->sm < 0 ? INT64_MAX : x->sm, ys = y->sm < 0 ? INT64_MAX : y->sm;
  if (xs != ys)
    return xs < ys ? -1 : 1;
  return (x->cta > y->cta) - (x->cta < y->cta);
}

/* The CTAs in track order (by SM, then CTA); sets *out_per_sm when every CTA recorded its SM and no two
 * share one. NULL when out of memory. */
static track *sorted_tracks(const latch_manifest *m, int64_t ctas, const uint64_t *trace, bool *out_per_sm) {
  track *tracks = malloc((size_t)(ctas > 0 ? ctas : 1) * sizeof(track));
  if (!tracks)
    return NULL;
  for (int64_t c = 0; c < ctas; ++c)
    tracks[c] = (track){latch_trace_cta_sm(m, ctas, trace, c), c};
  qsort(tracks, (size_t)ctas, sizeof(track), compare_tracks);
  bool per_sm = ctas > 0;
  for (int64_t k = 0; k < ctas && per_sm; ++k)
    per_sm = tracks[k].sm >= 0 && (k == 0 || tracks[k].sm != tracks[k - 1].sm);
  *out_per_sm = per_sm;
  return tracks;
}

bool latch_trace_one_cta_per_sm(const latch_manifest *m, int64_t ctas, const uint64_t *trace) {
  bool per_sm = false;
  free(sorted_tracks(m, ctas, trace, &per_sm));
  return per_sm;
}

latch_status latch_trace_analyse(const latch_manifest *m, int64_t ctas, const uint64_t *trace,
                                 latch_trace_report *out) {
  memset(out, 0, sizeof(*out));
  out->ctas = ctas;
  out->intervals = m->interval_count;
  out->kinds = calloc((size_t)m->interval_count, sizeof(*out->kinds));
  out->sms = calloc((size_t)(ctas > 0 ? ctas : 1), sizeof(int64_t));
  out->per_interval = calloc((size_t)(m->interval_count > 0 ? m->interval_count : 1), sizeof(*out->per_interval));
  size_t interval_slots = (size_t)(m->interval_count > 0 ? m->interval_count : 1);
  uint64_t *first_enter = malloc(interval_slots * sizeof(uint64_t));
  uint64_t *last_exit = calloc(interval_slots, sizeof(uint64_t));
  int64_t *kind_of = calloc((size_t)m->interval_count, sizeof(int64_t));
  if (!out->kinds || !out->sms || !out->per_interval || !first_enter || !last_exit || !kind_of) {
    free(first_enter);
    free(last_exit);
    free(kind_of);
    latch_trace_report_deinitialize(out);
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int64_t i = 0; i < m->interval_count; ++i) {
    int64_t k = 0;
    while (k < out->kind_count && strcmp(out->kinds[k].kind, m->intervals[i].kind) != 0)
      ++k;
    if (k == out->kind_count)
      out->kinds[out->kind_count++].kind = m->intervals[i].kind;
    out->kinds[k].intervals++;
    kind_of[i] = k;
    first_enter[i] = UINT64_MAX;
  }
  out->start_ns = UINT64_MAX;
  latch_status status = latch_ok_status();
  for (int64_t c = 0; c < ctas && !status; ++c) {
    for (int64_t i = 0; i < m->interval_count && !status; ++i) {
      uint64_t enter = AT(c, i, 0), done = AT(c, i, 1), leave = AT(c, i, 2);
      const char *name = m->intervals[i].name;
      if (!enter || !done || !leave)
        status = LATCH_MAKE_STATUS(LATCH_STATUS_DATA_LOSS,
                                   "trace: CTA %lld did not record interval %lld (%s): enter %llu, done %llu, leave "
                                   "%llu (zero = never written)",
                                   (long long)c, (long long)i, name, (unsigned long long)enter,
                                   (unsigned long long)done, (unsigned long long)leave);
      else if (enter > done || done > leave)
        status = LATCH_MAKE_STATUS(LATCH_STATUS_DATA_LOSS,
                                   "trace: CTA %lld interval %lld (%s): timestamps out of order (enter %llu, done "
                                   "%llu, leave %llu)",
                                   (long long)c, (long long)i, name, (unsigned long long)enter,
                                   (unsigned long long)done, (unsigned long long)leave);
      else if (i + 1 < m->interval_count && leave > AT(c, i + 1, 0) && AT(c, i + 1, 0) != 0)
        status = LATCH_MAKE_STATUS(LATCH_STATUS_DATA_LOSS,
                                   "trace: CTA %lld left interval %lld (%s) at %llu, after entering the next at %llu",
                                   (long long)c, (long long)i, name, (unsigned long long)leave,
                                   (unsigned long long)AT(c, i + 1, 0));
      if (status)
        break;
      if (enter < out->start_ns)
        out->start_ns = enter;
      if (leave > out->end_ns)
        out->end_ns = leave;
      latch_trace_kind *kind = &out->kinds[kind_of[i]];
      kind->busy_ns += done - enter;
      kind->wait_ns += leave - done;
      out->busy_ns += done - enter;
      out->wait_ns += leave - done;
      latch_trace_interval *at = &out->per_interval[i];
      if (enter < first_enter[i])
        first_enter[i] = enter;
      if (leave > last_exit[i])
        last_exit[i] = leave;
      if (done - enter > at->busy_max_ns)
        at->busy_max_ns = done - enter;
      at->busy_ns += done - enter;
    }
  }
  for (int64_t i = 0; i < m->interval_count && !status; ++i) {
    latch_trace_interval *at = &out->per_interval[i];
    at->name = m->intervals[i].name;
    at->tiles = m->intervals[i].tiles;
    at->span_ns = ctas > 0 ? last_exit[i] - first_enter[i] : 0;
  }
  free(first_enter);
  free(last_exit);
  free(kind_of);
  for (int64_t c = 0; c < ctas && !status; ++c) {
    uint64_t word = SM_WORD(c);
    if (word && !sm_word_valid(word))
      status = LATCH_MAKE_STATUS(LATCH_STATUS_DATA_LOSS,
                                 "trace: CTA %lld recorded %%smid word %llu (%%smid + 1 is at most 2^32)",
                                 (long long)c, (unsigned long long)word);
    out->sms[c] = latch_trace_cta_sm(m, ctas, trace, c);
    out->sms_recorded += out->sms[c] >= 0;
  }
  if (!status)
    out->one_cta_per_sm = latch_trace_one_cta_per_sm(m, ctas, trace);
  if (status)
    latch_trace_report_deinitialize(out);
  return status;
}

void latch_trace_report_deinitialize(latch_trace_report *report) {
  free(report->kinds);
  free(report->sms);
  free(report->per_interval);
  memset(report, 0, sizeof(*report));
}

static double share(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

/* The `slowest` intervals of the longest span, longest first (ties: program order). */
static void print_slowest_intervals(FILE *stream, const latch_trace_report *r, int64_t slowest) {
  int64_t n = r->intervals < slowest ? r->intervals : slowest;
  bool *taken = n > 0 && r->ctas > 0 ? calloc((size_t)r->intervals, sizeof(bool)) : NULL;
  if (!taken)
    return;
  uint64_t update_ns = r->end_ns - r->start_ns;
  fprintf(stream, "slowest intervals (span: first entry to last exit; CTA work: mean and busiest CTA):\n");
  fprintf(stream, "  %-26s %8s %11s %8s %11s %11s\n", "interval", "tiles", "span us", "update", "mean us",
          "max us");
  for (int64_t k = 0; k < n; ++k) {
    int64_t best = -1;
    for (int64_t i = 0; i < r->intervals; ++i)
      if (!taken[i] && (best < 0 || r->per_interval[i].span_ns > r->per_interval[best].span_ns))
        best = i;
    taken[best] = true;
    const latch_trace_interval *at = &r->per_interval[best];
    fprintf(stream, "  %-26s %8lld %11.3f %7.1f%% %11.3f %11.3f\n", at->name, (long long)at->tiles,
            (double)at->span_ns * 1e-3, share(at->span_ns, update_ns),
            (double)at->busy_ns * 1e-3 / (double)r->ctas, (double)at->busy_max_ns * 1e-3);
  }
  free(taken);
}

void latch_trace_report_print(FILE *stream, const latch_trace_report *r, int64_t slowest) {
  uint64_t total = r->busy_ns + r->wait_ns;
  fprintf(stream, "trace: %lld CTAs x %lld intervals, %.3f us from the first entry to the last exit\n",
          (long long)r->ctas, (long long)r->intervals, (double)(r->end_ns - r->start_ns) * 1e-3);
  fprintf(stream, "barrier wait: %.1f%% of CTA time (%.3f of %.3f CTA-us)\n", share(r->wait_ns, total),
          (double)r->wait_ns * 1e-3, (double)total * 1e-3);
  /* Kinds by their CTA time, largest first (a small selection sort: there are few kinds). */
  int64_t n = r->kind_count;
  int64_t *order = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
  if (!order)
    return;
  for (int64_t k = 0; k < n; ++k)
    order[k] = k;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = a + 1; b < n; ++b) {
      const latch_trace_kind *x = &r->kinds[order[a]], *y = &r->kinds[order[b]];
      if (y->busy_ns + y->wait_ns > x->busy_ns + x->wait_ns) {
        int64_t t = order[a];
        order[a] = order[b];
        order[b] = t;
      }
    }
  fprintf(stream, "  %-24s %9s %12s %12s\n", "kind", "intervals", "time share", "wait share");
  for (int64_t k = 0; k < n; ++k) {
    const latch_trace_kind *kind = &r->kinds[order[k]];
    uint64_t kind_total = kind->busy_ns + kind->wait_ns;
    fprintf(stream, "  %-24s %9lld %11.1f%% %11.1f%%\n", kind->kind, (long long)kind->intervals,
            share(kind_total, total), share(kind->wait_ns, kind_total));
  }
  free(order);
  print_slowest_intervals(stream, r, slowest);
}

static void write_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* The tiles' records (`record_count` of them: latch_trace_tile_records) as events on the tracks of the
 * CTAs that ran them; a record without a begin, with its end before it, or naming no CTA of the grid is
 * left out. */
static void write_tile_events(FILE *f, const latch_manifest *m, int64_t ctas, const uint64_t *trace,
                              const uint64_t *records, int64_t record_count, uint64_t origin, bool per_sm) {
  if (record_count == 0)
    return;
  int64_t tile = 0;
  for (int64_t i = 0; i < m->interval_count; ++i)
    for (int64_t t = 0; t < m->intervals[i].task_count; ++t)
      for (int64_t k = 0; k < m->intervals[i].tasks[t].tiles; ++k, ++tile) {
        const uint64_t *r = records + LATCH_ABI_TILE_RECORD_WORDS * tile;
        if (r[0] == 0 || r[1] < r[0] || r[2] >= (uint64_t)ctas)
          continue;
        int64_t c = (int64_t)r[2];
        long long tid = per_sm ? (long long)latch_trace_cta_sm(m, ctas, trace, c) : (long long)c;
        fprintf(f, ",\n{\"name\": ");
        write_json_string(f, m->intervals[i].tasks[t].kind);
        fprintf(f, ", \"cat\": \"tile\", \"ph\": \"X\", \"pid\": 0, \"tid\": %lld, \"ts\": %.3f, \"dur\": %.3f, "
                   "\"args\": {\"interval\": ",
                tid, (double)(r[0] - origin) * 1e-3, (double)(r[1] - r[0]) * 1e-3);
        write_json_string(f, m->intervals[i].name);
        fprintf(f, ", \"task\": %lld, \"tile\": %lld, \"cta\": %lld}}", (long long)t, (long long)k, (long long)c);
      }
}

latch_status latch_trace_write_json(const char *path, const latch_manifest *m, int64_t ctas, const uint64_t *trace,
                                    const char *label) {
  bool per_sm = false;
  track *tracks = sorted_tracks(m, ctas, trace, &per_sm);
  if (!tracks)
    return LATCH_MAKE_STATUS(LATCH_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  FILE *f = fopen(path, "w");
  if (!f) {
    free(tracks);
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "cannot write '%s': %s", path, strerror(errno));
  }
  const uint64_t *records = trace + latch_trace_buffer_words(ctas, m->interval_count);
  int64_t record_count = latch_trace_tile_records(m);
  uint64_t origin = UINT64_MAX;
  for (int64_t c = 0; c < ctas; ++c)
    for (int64_t i = 0; i < m->interval_count; ++i)
      if (AT(c, i, 0) && AT(c, i, 0) < origin)
        origin = AT(c, i, 0);
  for (int64_t t = 0; t < record_count; ++t)
    if (records[LATCH_ABI_TILE_RECORD_WORDS * t] && records[LATCH_ABI_TILE_RECORD_WORDS * t] < origin)
      origin = records[LATCH_ABI_TILE_RECORD_WORDS * t];
  fprintf(f, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
  fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": ");
  write_json_string(f, label);
  fprintf(f, "}}");
  for (int64_t k = 0; k < ctas; ++k) {
    const track *r = &tracks[k];
    long long tid = per_sm ? (long long)r->sm : (long long)r->cta;
    fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": %lld, \"args\": {\"name\": ",
            tid);
    if (per_sm)
      fprintf(f, "\"SM %lld\"}}", (long long)r->sm);
    else if (r->sm >= 0)
      fprintf(f, "\"SM %lld / CTA %lld\"}}", (long long)r->sm, (long long)r->cta);
    else
      fprintf(f, "\"CTA %lld\"}}", (long long)r->cta);
    fprintf(f, ",\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": %lld, \"args\": "
               "{\"sort_index\": %lld}}",
            tid, (long long)k);
  }
  free(tracks);
  for (int64_t c = 0; c < ctas; ++c) {
    long long tid = per_sm ? (long long)latch_trace_cta_sm(m, ctas, trace, c) : (long long)c;
    for (int64_t i = 0; i < m->interval_count; ++i) {
      uint64_t enter = AT(c, i, 0), done = AT(c, i, 1), leave = AT(c, i, 2);
      if (!enter || !done || !leave || enter > done || done > leave)
        continue; /* latch_trace_analyse reports these */
      fprintf(f, ",\n{\"name\": ");
      write_json_string(f, m->intervals[i].name);
      fprintf(f, ", \"cat\": \"work\", \"ph\": \"X\", \"pid\": 0, \"tid\": %lld, \"ts\": %.3f, \"dur\": %.3f, "
                 "\"args\": {\"interval\": %lld, \"tiles\": %lld, \"cta\": %lld}}",
              tid, (double)(enter - origin) * 1e-3, (double)(done - enter) * 1e-3, (long long)i,
              (long long)m->intervals[i].tiles, (long long)c);
      if (leave > done) {
        fprintf(f, ",\n{\"name\": \"barrier\", \"cat\": \"wait\", \"ph\": \"X\", \"pid\": 0, \"tid\": %lld, "
                   "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"after\": ",
                tid, (double)(done - origin) * 1e-3, (double)(leave - done) * 1e-3);
        write_json_string(f, m->intervals[i].name);
        fprintf(f, "}}");
      }
    }
  }
  write_tile_events(f, m, ctas, trace, records, record_count, origin, per_sm);
  fprintf(f, "\n]}\n");
  bool failed = ferror(f) != 0;
  if (fclose(f) != 0 || failed)
    return LATCH_MAKE_STATUS(LATCH_STATUS_INVALID_ARGUMENT, "cannot write '%s'", path);
  return latch_ok_status();
}

/* ---- the tiles' records ---- */

int64_t latch_trace_tile_records(const latch_manifest *m) {
  int64_t records = 0;
  if (!m->tile_trace)
    return 0;
  for (int64_t i = 0; i < m->interval_count; ++i) {
    if (m->intervals[i].task_count == 0 && m->intervals[i].tiles > 0)
      return 0;
    records += m->intervals[i].tiles;
  }
  return records;
}

typedef struct task_time {
  int64_t interval, task, tiles, recorded;
  double sum_us, median_us, max_us;
} task_time;

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double latch_sort_median(double *values, size_t count) {
  if (count == 0)
    return 0.0;
  qsort(values, count, sizeof(double), compare_double);
  return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static int compare_task_time(const void *a, const void *b) {
  const task_time *x = a, *y = b;
  return x->sum_us < y->sum_us ? 1 : x->sum_us > y->sum_us ? -1 : 0;
}

void latch_trace_tasks_print(FILE *stream, const latch_manifest *m, int64_t ctas, const uint64_t *trace,
                             int64_t slowest) {
  int64_t records = latch_trace_tile_records(m), tasks = 0, longest = 1;
  if (records == 0 || slowest <= 0)
    return;
  for (int64_t i = 0; i < m->interval_count; ++i)
    for (int64_t t = 0; t < m->intervals[i].task_count; ++t) {
      tasks++;
      if (m->intervals[i].tasks[t].tiles > longest)
        longest = m->intervals[i].tasks[t].tiles;
    }
  task_time *times = calloc((size_t)(tasks ? tasks : 1), sizeof(*times));
  double *durations = malloc((size_t)longest * sizeof(double));
  if (!times || !durations) {
    free(times);
    free(durations);
    return;
  }
  const uint64_t *record = trace + latch_trace_buffer_words(ctas, m->interval_count);
  int64_t n = 0, tile = 0;
  double total_us = 0;
  for (int64_t i = 0; i < m->interval_count; ++i)
    for (int64_t t = 0; t < m->intervals[i].task_count; ++t) {
      task_time *tt = &times[n++];
      tt->interval = i, tt->task = t, tt->tiles = m->intervals[i].tasks[t].tiles;
      for (int64_t k = 0; k < tt->tiles; ++k, ++tile) {
        const uint64_t *r = record + LATCH_ABI_TILE_RECORD_WORDS * tile;
        uint64_t begin = r[0], end = r[1];
        if (begin == 0 || end < begin)
          continue;
        durations[tt->recorded++] = (double)(end - begin) * 1e-3;
        tt->sum_us += (double)(end - begin) * 1e-3;
      }
      if (tt->recorded) {
        tt->median_us = latch_sort_median(durations, (size_t)tt->recorded);
        tt->max_us = durations[tt->recorded - 1];
      }
      total_us += tt->sum_us;
    }
  if (total_us > 0) {
    qsort(times, (size_t)n, sizeof(*times), compare_task_time);
    fprintf(stream, "slowest tasks (tile time: the sum over a task's tiles of begin to its CTA's barrier after it; "
                    "median and longest tile; its bytes and products over its tile time spread on all %lld CTAs):\n",
            (long long)ctas);
    fprintf(stream, "  %-28s %-26s %6s %11s %7s %10s %10s %7s %8s\n", "interval", "task", "tiles", "sum us", "share",
            "median us", "max us", "TB/s", "TFLOP/s");
    for (int64_t k = 0; k < n && k < slowest && times[k].sum_us > 0; ++k) {
      const task_time *tt = &times[k];
      const latch_manifest_interval *interval = &m->intervals[tt->interval];
      const latch_manifest_task *task = &interval->tasks[tt->task];
      double seconds = tt->sum_us * 1e-6 / (double)ctas; /* as if every CTA ran only this task */
      char bandwidth[32] = "-", arithmetic[32] = "-";
      if (task->bytes > 0)
        snprintf(bandwidth, sizeof(bandwidth), "%.2f", (double)task->bytes / seconds * 1e-12);
      if (task->flops > 0)
        snprintf(arithmetic, sizeof(arithmetic), "%.1f", (double)task->flops / seconds * 1e-12);
      fprintf(stream, "  %-28s %-26s %6lld %11.3f %6.1f%% %10.3f %10.3f %7s %8s\n", interval->name, task->kind,
              (long long)tt->tiles, tt->sum_us, 100.0 * tt->sum_us / total_us, tt->median_us, tt->max_us, bandwidth,
              arithmetic);
    }
  }
  free(times);
  free(durations);
}
