/*
 * hist.c - HDR-style log-linear latency histogram (see hist.h for the layout and costs).
 *
 * Design notes:
 *   - The bucket layout, percentile rule, mean/stddev over bucket midpoints and the .hgrm text are
 *     those of HdrHistogram (Gil Tene; C port HdrHistogram/HdrHistogram_c), so numbers printed by
 *     drabench agree with any HdrHistogram-based tool fed the same values. This is an independent
 *     implementation of that published layout.
 *   - Unlike HdrHistogram, recording never rejects a value: it clamps into [lowest, highest] and
 *     counts the clamp, so the timed region has no failure path and nothing disappears.
 *   - No min/max is tracked while recording (keeps the hot path to one counter update); min and
 *     max are derived from the non-empty buckets, which also makes a histogram rebuilt from its
 *     bucket dump identical in every reported figure.
 */
#include "hist.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int floor_log2_u64(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/* The O(1) part of dra_hist_check: the configuration dra_hist_init derives, or zeroed. */
static DRA_UNUSED bool layout_ok(const dra_hist_t *h)
{
    if (!h->counts)
        return h->counts_len == 0 && h->total_count == 0 && h->out_of_range == 0;
    return h->lowest >= 1 && h->highest >= 2 * h->lowest && h->sigfigs >= 1 && h->sigfigs <= 5 &&
           h->unit_magnitude == floor_log2_u64((uint64_t)h->lowest) &&
           h->sub_bucket_half_count_magnitude >= 0 && h->sub_bucket_half_count_magnitude < 30 &&
           h->sub_bucket_half_count == INT32_C(1) << h->sub_bucket_half_count_magnitude &&
           h->sub_bucket_count == 2 * h->sub_bucket_half_count && h->bucket_count >= 1 &&
           (int64_t)h->counts_len == (int64_t)(h->bucket_count + 1) * h->sub_bucket_half_count &&
           h->sub_bucket_mask == ((int64_t)h->sub_bucket_count - 1) << h->unit_magnitude &&
           h->total_count >= 0 && h->out_of_range >= 0 && h->out_of_range <= h->total_count;
}

bool dra_hist_check(const dra_hist_t *h)
{
    if (!layout_ok(h))
        return false;
    int64_t sum = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (h->counts[i] < 0 || h->counts[i] > INT64_MAX - sum)
            return false;
        sum += h->counts[i];
    }
    return sum == h->total_count;
}

int dra_hist_init(dra_hist_t *h, int64_t lowest, int64_t highest, int sigfigs)
{
    memset(h, 0, sizeof *h);
    if (lowest < 1 || sigfigs < 1 || sigfigs > 5 || highest > INT64_MAX / 2 ||
        highest < 2 * lowest)
        return DRA_EINVAL;

    /* sub_bucket_count = smallest power of two >= 2 * 10^sigfigs (exact integer arithmetic). */
    int64_t single_unit_limit = 2;
    for (int i = 0; i < sigfigs; i++)
        single_unit_limit *= 10;
    int32_t sub_count_mag = 0;
    while ((INT64_C(1) << sub_count_mag) < single_unit_limit)
        sub_count_mag++;
    int32_t half_mag = (sub_count_mag > 1 ? sub_count_mag : 1) - 1;
    int32_t unit_mag = floor_log2_u64((uint64_t)lowest);
    if (unit_mag + half_mag > 61)
        return DRA_ELIMIT;
    int32_t sub_count = INT32_C(1) << (half_mag + 1);

    /* Buckets needed so that the last one reaches past highest. */
    int64_t smallest_untrackable = (int64_t)sub_count << unit_mag;
    int32_t buckets = 1;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > INT64_MAX / 2) {
            buckets++;
            break;
        }
        smallest_untrackable <<= 1;
        buckets++;
    }
    int64_t len = (int64_t)(buckets + 1) * (sub_count / 2);
    if (len > INT32_MAX)
        return DRA_ELIMIT;

    int64_t *counts = calloc((size_t)len, sizeof *counts);
    if (!counts)
        return DRA_ENOMEM;
    h->lowest = lowest;
    h->highest = highest;
    h->sigfigs = sigfigs;
    h->unit_magnitude = unit_mag;
    h->sub_bucket_half_count_magnitude = half_mag;
    h->sub_bucket_count = sub_count;
    h->sub_bucket_half_count = sub_count / 2;
    h->bucket_count = buckets;
    h->counts_len = (int32_t)len;
    h->sub_bucket_mask = ((int64_t)sub_count - 1) << unit_mag;
    h->counts = counts;
    return DRA_OK;
}

void dra_hist_fini(dra_hist_t *h)
{
    free(h->counts);
    memset(h, 0, sizeof *h);
}

void dra_hist_reset(dra_hist_t *h)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    if (h->counts)
        memset(h->counts, 0, (size_t)h->counts_len * sizeof *h->counts);
    h->total_count = 0;
    h->out_of_range = 0;
}

size_t dra_hist_memory_size(const dra_hist_t *h)
{
    return sizeof *h + (size_t)h->counts_len * sizeof *h->counts;
}

/* ---- value <-> index ------------------------------------------------------------------------ */

/* Lowest value and width of counts[index]. */
static void index_range(const dra_hist_t *h, int32_t index, int64_t *lo, int64_t *width)
{
    int32_t bucket = (index >> h->sub_bucket_half_count_magnitude) - 1;
    int32_t sub = (index & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
    if (bucket < 0) { /* lower half of bucket 0 */
        sub -= h->sub_bucket_half_count;
        bucket = 0;
    }
    *lo = (int64_t)sub << (bucket + h->unit_magnitude);
    *width = INT64_C(1) << (bucket + h->unit_magnitude);
}

static int64_t index_lo(const dra_hist_t *h, int32_t index)
{
    int64_t lo, w;
    index_range(h, index, &lo, &w);
    return lo;
}

static int64_t index_hi(const dra_hist_t *h, int32_t index)
{
    int64_t lo, w;
    index_range(h, index, &lo, &w);
    return lo + w - 1;
}

static int64_t index_mid(const dra_hist_t *h, int32_t index)
{
    int64_t lo, w;
    index_range(h, index, &lo, &w);
    return lo + (w >> 1);
}

int64_t dra_hist_lowest_equivalent(const dra_hist_t *h, int64_t v)
{
    DRA_ASSERT_INTERNAL(layout_ok(h) && h->counts);
    DRA_ASSERT(v >= 0 && v <= h->highest);
    return index_lo(h, dra_hist__index(h, v));
}

int64_t dra_hist_highest_equivalent(const dra_hist_t *h, int64_t v)
{
    DRA_ASSERT_INTERNAL(layout_ok(h) && h->counts);
    DRA_ASSERT(v >= 0 && v <= h->highest);
    return index_hi(h, dra_hist__index(h, v));
}

int dra_hist_bucket_range(const dra_hist_t *h, int32_t index, int64_t *lo, int64_t *hi)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    if (index < 0 || index >= h->counts_len)
        return DRA_EINVAL;
    *lo = index_lo(h, index);
    *hi = index_hi(h, index);
    return DRA_OK;
}

/* ---- merge, buckets ------------------------------------------------------------------------- */

int dra_hist_merge(dra_hist_t *dst, const dra_hist_t *src)
{
    DRA_ASSERT_INTERNAL(layout_ok(dst) && layout_ok(src));
    DRA_ASSERT_EXPENSIVE(dra_hist_check(dst) && dra_hist_check(src));
    if (dst->lowest != src->lowest || dst->highest != src->highest ||
        dst->sigfigs != src->sigfigs || dst->counts_len != src->counts_len || !dst->counts ||
        !src->counts)
        return DRA_EINVAL;
    for (int32_t i = 0; i < dst->counts_len; i++)
        dst->counts[i] += src->counts[i];
    dst->total_count += src->total_count;
    dst->out_of_range += src->out_of_range;
    return DRA_OK;
}

int dra_hist_set_bucket(dra_hist_t *h, int32_t index, int64_t count)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    if (index < 0 || index >= h->counts_len || count < 0)
        return DRA_EINVAL;
    h->total_count += count - h->counts[index];
    h->counts[index] = count;
    return DRA_OK;
}

void dra_hist_iter_init(dra_hist_iter_t *it, const dra_hist_t *h)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    DRA_ASSERT_EXPENSIVE(dra_hist_check(h));
    memset(it, 0, sizeof *it);
    it->h = h;
}

bool dra_hist_iter_next(dra_hist_iter_t *it)
{
    const dra_hist_t *h = it->h;
    for (int32_t i = it->next; i < h->counts_len; i++) {
        if (h->counts[i] != 0) {
            it->bucket.index = i;
            it->bucket.lo = index_lo(h, i);
            it->bucket.hi = index_hi(h, i);
            it->bucket.count = h->counts[i];
            it->next = i + 1;
            return true;
        }
    }
    it->next = h->counts_len;
    return false;
}

/* ---- summary figures ------------------------------------------------------------------------ */

int64_t dra_hist_percentile(const dra_hist_t *h, double p)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    DRA_ASSERT_EXPENSIVE(dra_hist_check(h));
    if (h->total_count <= 0)
        return 0;
    if (!(p > 0.0)) /* also maps NaN to 0 */
        p = 0.0;
    if (p > 100.0)
        p = 100.0;
    int64_t target = (int64_t)((p / 100.0) * (double)h->total_count + 0.5);
    if (target < 1)
        target = 1;
    int64_t cum = 0;
    int32_t i = 0;
    for (; i < h->counts_len; i++) {
        cum += h->counts[i];
        if (cum >= target)
            break;
    }
    if (i == h->counts_len) /* only if counts were corrupted; stay in range */
        i = h->counts_len - 1;
    return p == 0.0 ? index_lo(h, i) : index_hi(h, i);
}

int64_t dra_hist_min(const dra_hist_t *h)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    for (int32_t i = 0; i < h->counts_len; i++)
        if (h->counts[i] != 0)
            return index_lo(h, i);
    return 0;
}

int64_t dra_hist_max(const dra_hist_t *h)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    for (int32_t i = h->counts_len - 1; i >= 0; i--)
        if (h->counts[i] != 0)
            return index_hi(h, i);
    return 0;
}

double dra_hist_mean(const dra_hist_t *h)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    DRA_ASSERT_EXPENSIVE(dra_hist_check(h));
    if (h->total_count <= 0)
        return 0.0;
    /* long double keeps the sum exact wherever HdrHistogram's int64 sum is exact. */
    long double sum = 0;
    for (int32_t i = 0; i < h->counts_len; i++)
        if (h->counts[i] != 0)
            sum += (long double)h->counts[i] * (long double)index_mid(h, i);
    return (double)(sum / (long double)h->total_count);
}

double dra_hist_stddev(const dra_hist_t *h)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    if (h->total_count <= 0)
        return 0.0;
    double mean = dra_hist_mean(h);
    double acc = 0.0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (h->counts[i] != 0) {
            double dev = (double)index_mid(h, i) - mean;
            acc += dev * dev * (double)h->counts[i];
        }
    }
    return sqrt(acc / (double)h->total_count);
}

/* ---- .hgrm ---------------------------------------------------------------------------------- */

/*
 * Percentile walk of HdrHistogram's percentile iterator: stay on a bucket while the next
 * reporting percentile is <= the cumulative percentile reached there; after each reported step
 * the next percentile moves by 100 / (ticks * 2^(floor(log2(100 / (100 - p))) + 1)), i.e.
 * ticks_per_half steps per halving of the remaining distance; finally one 100 % row.
 */
typedef struct pct_walk {
    const dra_hist_t *h;
    int32_t idx;        /* current bucket, -1 before the first */
    int64_t count;      /* counts[idx] */
    int64_t cumulative; /* sum of counts[0..idx] */
    int64_t hi;         /* highest equivalent value of idx (0 before the first) */
    double next_pct;    /* percentile to report next */
    double pct;         /* percentile of the current row */
    int ticks;
    bool seen_last;
} pct_walk_t;

static bool walk_advance(pct_walk_t *w)
{
    if (w->cumulative >= w->h->total_count || w->idx + 1 >= w->h->counts_len)
        return false;
    w->idx++;
    w->count = w->h->counts[w->idx];
    w->cumulative += w->count;
    w->hi = index_hi(w->h, w->idx);
    return true;
}

static bool walk_next(pct_walk_t *w)
{
    if (w->cumulative >= w->h->total_count) {
        if (w->seen_last)
            return false;
        w->seen_last = true;
        w->pct = 100.0;
        return true;
    }
    if (w->idx == -1 && !walk_advance(w))
        return false;
    do {
        double current = (100.0 * (double)w->cumulative) / (double)w->h->total_count;
        if (w->count != 0 && w->next_pct <= current) {
            w->pct = w->next_pct;
            int64_t halvings = (int64_t)(log(100.0 / (100.0 - w->next_pct)) / log(2)) + 1;
            int64_t half_distance = (int64_t)pow(2, (double)halvings);
            int64_t reporting_ticks = (int64_t)w->ticks * half_distance;
            w->next_pct += 100.0 / (double)reporting_ticks;
            return true;
        }
    } while (walk_advance(w));
    return true;
}

const char *dra_hist_hgrm_file_name(const char *name, char *buf, size_t len)
{
    /* phase and outcome hold no '/': the shape is everything before the second-to-last one */
    const char *last = strrchr(name, '/');
    const char *mid = last;
    while (mid && mid > name && *--mid != '/')
        ;
    if (!last || !mid || *mid != '/')
        return NULL;
    size_t k = 0;
    for (const char *p = name; p < mid; p++) {
        char c = *p;
        bool esc = c == '%' || c == '_' || c == '/' || (p == name && c == '.');
        if (k + 4 > len)
            return NULL;
        if (esc)
            k += (size_t)snprintf(buf + k, len - k, "%%%02X", (unsigned char)c);
        else
            buf[k++] = c;
    }
    int n = snprintf(buf + k, len - k, "_%.*s_%s.hgrm", (int)(last - mid - 1), mid + 1, last + 1);
    if (n < 0 || (size_t)n >= len - k)
        return NULL;
    return buf;
}

int dra_hist_write_hgrm(const dra_hist_t *h, FILE *f, double value_scale, int ticks_per_half)
{
    DRA_ASSERT_INTERNAL(layout_ok(h));
    DRA_ASSERT_EXPENSIVE(dra_hist_check(h));
    if (!(value_scale > 0.0) || ticks_per_half < 1 || !h->counts)
        return DRA_EINVAL;
    if (fprintf(f, "%12s %12s %12s %12s\n\n", "Value", "Percentile", "TotalCount",
                "1/(1-Percentile)") < 0)
        return DRA_EIO;
    pct_walk_t w = {.h = h, .idx = -1, .ticks = ticks_per_half};
    while (walk_next(&w)) {
        double value = (double)w.hi / value_scale;
        double pct = w.pct / 100.0;
        double inverted = 1.0 / (1.0 - pct);
        if (fprintf(f, "%12.*f %12f %12" PRId64 " %12.2f\n", (int)h->sigfigs, value, pct,
                    w.cumulative, inverted) < 0)
            return DRA_EIO;
    }
    double mean = dra_hist_mean(h) / value_scale;
    double stddev = dra_hist_stddev(h) / value_scale;
    double max = (double)dra_hist_max(h) / value_scale;
    if (fprintf(f,
                "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n"
                "#[Max     = %12.3f, Total count    = %12" PRIu64 "]\n"
                "#[Buckets = %12d, SubBuckets     = %12d]\n",
                mean, stddev, max, (uint64_t)h->total_count, (int)h->bucket_count,
                (int)h->sub_bucket_count) < 0)
        return DRA_EIO;
    return DRA_OK;
}
