/*
 * hist.h - HDR-style log-linear latency histogram (HdrHistogram bucket layout).
 *
 * Purpose: the runner keeps one histogram per claim shape x phase x outcome and records every
 * measured latency (integer nanoseconds) inside the timed region. Reports read percentiles,
 * min/max/mean/stddev, dump the non-empty buckets to JSON, and print HdrHistogram's .hgrm
 * percentile distribution so existing plotters (HistogramLogAnalyzer, hdr-plot, the
 * HdrHistogram plotter page) read our output unchanged.
 *
 * Layout (the same as HdrHistogram, so bucket indexes and .hgrm output agree with it):
 *   1. sub_bucket_count = 2^ceil(log2(2 * 10^sigfigs)) (2048 at 3 digits); unit = 2^floor(log2(lowest)).
 *   2. Bucket 0 covers [0, sub_bucket_count) units with width 1 unit; bucket b > 0 covers
 *      [2^b, 2^(b+1)) * sub_bucket_count/2 units with width 2^b units and only its upper half of
 *      sub-buckets is stored (the lower half is bucket b-1).
 *   3. counts[] has (bucket_count + 1) * sub_bucket_count / 2 int64 slots; index of a value v:
 *      b = floor(log2(v | mask)) - log2(unit) - log2(sub_bucket_count) + 1, s = v >> (b + log2(unit)),
 *      index = (b + 1) * sub_bucket_count/2 + s - sub_bucket_count/2.
 *   Relative error of any reported value (bucket width / value) is < 2/sub_bucket_count, which is
 *   below 10^-sigfigs (at 3 digits: <= 1/1024).
 *
 * Memory at 3 significant digits for 1 ns .. 1 h (3.6e12 ns): 32 buckets, 33,792 counters,
 * 270,336 bytes of counts (264 KiB) plus sizeof(dra_hist_t); at 1 ns..60 s: 27,648 counters
 * (216 KiB). At 5 digits 1 ns..1 h needs 3,407,872 counters (26 MiB). dra_hist_memory_size()
 * reports the exact figure.
 *
 * Cost: dra_hist_record / _record_n are O(1), inline, allocation-free and branch-light (clamping
 * compiles to conditional moves; one count-leading-zeros, two shifts, two adds, three stores).
 * Percentile, min, max, mean, stddev, merge, reset and the iterator scan counts[] (O(counts_len),
 * about 34k slots at 3 digits) and are meant for report time, not the timed region.
 *
 * Ownership: the caller owns the dra_hist_t struct; dra_hist_init allocates counts[] once
 * (calloc) and dra_hist_fini frees it. Nothing retains pointers passed in.
 * Errors: fallible functions return DRA_OK or a negative DRA_E* (core/base/err.h): DRA_EINVAL
 * for bad configuration or mismatched merges, DRA_ENOMEM, DRA_ELIMIT for a too large layout,
 * DRA_EIO for write failures. Recording never fails: out-of-range values are clamped into
 * [lowest, highest] and counted in out_of_range (never dropped silently).
 * Thread-safety: none; use one histogram per thread and dra_hist_merge them afterwards.
 * Reading functions take const and may run concurrently with each other.
 */
#ifndef DRA_HIST_H
#define DRA_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

/* Defaults used by the runner: 1 ns .. 1 hour at 3 significant digits. */
#define DRA_HIST_LOWEST INT64_C(1)
#define DRA_HIST_HIGHEST INT64_C(3600000000000)
#define DRA_HIST_SIGFIGS 3

/*
 * All fields are read-only for users except out_of_range, which a loader restoring a dumped
 * histogram may set. total_count includes clamped values (recorded at the clamped value).
 */
typedef struct dra_hist {
    int64_t lowest;          /* smallest value recorded unclamped (>= 1) */
    int64_t highest;         /* largest value recorded unclamped */
    int32_t sigfigs;         /* 1..5 */
    int32_t unit_magnitude;  /* floor(log2(lowest)) */
    int32_t sub_bucket_half_count_magnitude;
    int32_t sub_bucket_count;
    int32_t sub_bucket_half_count;
    int32_t bucket_count;
    int32_t counts_len;
    int64_t sub_bucket_mask; /* (sub_bucket_count - 1) << unit_magnitude */
    int64_t total_count;     /* every recorded value, clamped ones included */
    int64_t out_of_range;    /* values that were clamped (< lowest or > highest) */
    int64_t *counts;         /* counts_len slots, owned */
} dra_hist_t;

/* One non-empty bucket as produced by the iterator: counts[index] values lie in [lo, hi]. */
typedef struct dra_hist_bucket {
    int32_t index;
    int64_t lo, hi; /* inclusive value range (lowest / highest equivalent value) */
    int64_t count;
} dra_hist_bucket_t;

typedef struct dra_hist_iter {
    const dra_hist_t *h;
    int32_t next;
    dra_hist_bucket_t bucket; /* valid after dra_hist_iter_next returned true */
} dra_hist_iter_t;

/*
 * Configure h for values in [lowest, highest] at sigfigs significant decimal digits and allocate
 * its counters (zeroed). Requires lowest >= 1, highest >= 2 * lowest, 1 <= sigfigs <= 5.
 * Returns DRA_OK, DRA_EINVAL, DRA_ELIMIT (layout would not fit 32-bit indexes) or DRA_ENOMEM;
 * on error h is left zeroed (dra_hist_fini is still safe).
 */
DRA_NODISCARD int dra_hist_init(dra_hist_t *h, int64_t lowest, int64_t highest, int sigfigs);
/* Free the counters; h becomes zeroed. Accepts a zeroed or failed-init h. */
void dra_hist_fini(dra_hist_t *h);
/* Zero every count, total_count and out_of_range; keeps the configuration and memory. */
void dra_hist_reset(dra_hist_t *h);
/* Bytes used by h: sizeof(dra_hist_t) + counts_len * sizeof(int64_t). */
size_t dra_hist_memory_size(const dra_hist_t *h);
/* True when h holds its invariants: the layout dra_hist_init computes (or the zeroed state of
 * dra_hist_fini), every count >= 0 and summing to total_count, 0 <= out_of_range <= total_count.
 * O(counts_len). Debug builds assert it at the entry of the report-time functions
 * (DRA_ASSERT_EXPENSIVE, DRA_DEBUG >= 3) and the O(1) layout part everywhere (DRA_DEBUG >= 2). */
bool dra_hist_check(const dra_hist_t *h);

/* Internal: counts[] index of a value already inside [lowest, highest]. */
static inline int32_t dra_hist__index(const dra_hist_t *h, int64_t v)
{
    /* v | mask makes values of bucket 0 share the magnitude of sub_bucket_count. */
    int32_t pow2ceil = 64 - __builtin_clzll((unsigned long long)(v | h->sub_bucket_mask));
    int32_t bucket = pow2ceil - h->unit_magnitude - (h->sub_bucket_half_count_magnitude + 1);
    int32_t sub = (int32_t)(v >> (bucket + h->unit_magnitude));
    return ((bucket + 1) << h->sub_bucket_half_count_magnitude) + sub - h->sub_bucket_half_count;
}

/*
 * Record n occurrences of value (n >= 0). Values below lowest (including 0 and negatives) or
 * above highest are clamped to the nearest bound and counted in out_of_range. O(1), no
 * allocation, no failure.
 */
static inline void dra_hist_record_n(dra_hist_t *h, int64_t value, int64_t n)
{
    DRA_ASSERT_INTERNAL(h->counts != NULL && n >= 0);
    int64_t v = value < h->lowest ? h->lowest : value;
    v = v > h->highest ? h->highest : v;
    h->out_of_range += (v != value) ? n : 0;
    h->counts[dra_hist__index(h, v)] += n;
    h->total_count += n;
}

static inline void dra_hist_record(dra_hist_t *h, int64_t value)
{
    dra_hist_record_n(h, value, 1);
}

/*
 * dst += src, bucket for bucket, including total_count and out_of_range. Both must have the
 * same lowest, highest and sigfigs, else DRA_EINVAL and dst is unchanged.
 */
DRA_NODISCARD int dra_hist_merge(dra_hist_t *dst, const dra_hist_t *src);

/*
 * Value at percentile p (0..100; values outside are clamped), HdrHistogram semantics: with
 * N = total_count the target rank is k = max(1, (int64_t)(p/100 * N + 0.5)), and the result is
 * the highest equivalent value of the first bucket whose cumulative count reaches k (for p == 0
 * exactly, like HdrHistogram, its lowest equivalent value, i.e. dra_hist_min). 0 when empty.
 * The result is >= the exact order statistic x_(k) and within a relative 10^-sigfigs of it.
 */
int64_t dra_hist_percentile(const dra_hist_t *h, double p);

/* Lowest equivalent value of the lowest non-empty bucket; 0 when empty. */
int64_t dra_hist_min(const dra_hist_t *h);
/* Highest equivalent value of the highest non-empty bucket (as HdrHistogram's hdr_max); 0 when empty. */
int64_t dra_hist_max(const dra_hist_t *h);
static inline int64_t dra_hist_count(const dra_hist_t *h) { return h->total_count; }
static inline int64_t dra_hist_out_of_range(const dra_hist_t *h) { return h->out_of_range; }
/* Mean and population standard deviation over bucket midpoints (median equivalent values), as
 * HdrHistogram's hdr_mean / hdr_stddev; 0 when empty. */
double dra_hist_mean(const dra_hist_t *h);
double dra_hist_stddev(const dra_hist_t *h);

/* Equivalence range of a value (v is not clamped; requires 0 <= v <= highest). */
int64_t dra_hist_lowest_equivalent(const dra_hist_t *h, int64_t v);
int64_t dra_hist_highest_equivalent(const dra_hist_t *h, int64_t v);
/* Value range [lo, hi] of counts[index]; DRA_EINVAL if index is outside [0, counts_len). */
DRA_NODISCARD int dra_hist_bucket_range(const dra_hist_t *h, int32_t index, int64_t *lo, int64_t *hi);

/* Iterate over the non-empty buckets in increasing value order:
 *   dra_hist_iter_t it; dra_hist_iter_init(&it, h);
 *   while (dra_hist_iter_next(&it)) use(it.bucket.index, it.bucket.lo, it.bucket.hi, it.bucket.count);
 * h must not change during the iteration. */
void dra_hist_iter_init(dra_hist_iter_t *it, const dra_hist_t *h);
bool dra_hist_iter_next(dra_hist_iter_t *it);

/*
 * Set counts[index] = count (count >= 0), adjusting total_count: rebuilds a histogram from a
 * bucket dump exactly (same configuration, then set each dumped bucket and out_of_range).
 * dra_hist_record_n(h, bucket.lo, bucket.count) is equivalent for buckets inside the range.
 * DRA_EINVAL for a bad index or negative count.
 */
DRA_NODISCARD int dra_hist_set_bucket(dra_hist_t *h, int32_t index, int64_t count);

/*
 * Print the percentile distribution exactly as HdrHistogram_c's hdr_percentiles_print(h, f,
 * ticks_per_half, value_scale, CLASSIC): header "Value Percentile TotalCount 1/(1-Percentile)",
 * one row per percentile step (ticks_per_half rows per halving of the remaining distance to
 * 100 %, values printed as highest_equivalent / value_scale with sigfigs decimals), the 100 % row,
 * then the "#[Mean = ...]", "#[Max = ...]", "#[Buckets = ...]" footer. Typical arguments:
 * value_scale 1000.0 (ns -> us) or 1e6 (ns -> ms), ticks_per_half 5.
 * Deviation: for an empty histogram the footer prints Mean and StdDeviation 0.000 where
 * HdrHistogram prints nan. Returns DRA_OK, DRA_EINVAL (value_scale <= 0, ticks_per_half < 1)
 * or DRA_EIO.
 */
DRA_NODISCARD int dra_hist_write_hgrm(const dra_hist_t *h, FILE *f, double value_scale,
                                      int ticks_per_half);

/*
 * The file name (without directory) of the .hgrm file of histogram NAME "<shape>/<phase>/
 * <outcome>": "<shape>_<phase>_<outcome>.hgrm", where in the shape part '%', '_' and '/' are
 * written %25, %5F and %2F and a leading '.' %2E, so two histograms never share a file (shapes
 * "x/y" and "x_y" did) and no name leaves the directory or hides in it. Shapes the scenario rule
 * admits (DNS subdomains) and "all" come out unchanged: "gpu-1_pod_any.hgrm". Returns buf, or
 * NULL when the name does not fit in len bytes or has fewer than three parts.
 */
const char *dra_hist_hgrm_file_name(const char *name, char *buf, size_t len);

#endif /* DRA_HIST_H */
