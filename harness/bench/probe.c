/* probe.c - memory latency and prefetch-hint cost on this machine; see probe.h. */
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clockstep.h"
#include "datapages.h"

const uint32_t dra_probe_hint_counts[DRA_PROBE_NHINT] = {0, 4, 8, 12, 16, 24, 32, 48};

#if defined(__x86_64__) || defined(__i386__)
#if defined(__PRFCHW__)
const char dra_probe_hint_insn[] = "prefetchw";
#else
const char dra_probe_hint_insn[] = "prefetcht0";
#endif
#elif defined(__aarch64__)
const char dra_probe_hint_insn[] = "prfm pstl1keep";
#else
const char dra_probe_hint_insn[] = "__builtin_prefetch";
#endif

#define LINE    64
#define HUGE_SZ ((uint64_t)2 << 20)

/* ---- defaults ---------------------------------------------------------------------------------- */

void dra_probe_opts_init(dra_probe_opts_t *o, bool quick)
{
    static const uint64_t full[] = {32 << 10, 256 << 10, 1 << 20,  2 << 20,
                                    4 << 20,  16 << 20,  64 << 20, 256 << 20};
    static const uint64_t small[] = {32 << 10, 256 << 10, 1 << 20};
    memset(o, 0, sizeof *o);
    const uint64_t *s = quick ? small : full;
    o->nsizes = quick ? sizeof small / sizeof small[0] : sizeof full / sizeof full[0];
    memcpy(o->sizes, s, o->nsizes * sizeof *s);
    o->clock_reps = quick ? 1001 : 20001;
    o->lat_reps = quick ? 16 : 512;
    o->lat_loads = quick ? 1024 : 4096;
    o->hint_reps = quick ? 100 : 5000;
    o->pause_ns = 2000;
    o->seed = 0x9e3779b97f4a7c15ull;
}

/* ---- statistics ------------------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void dra_probe_summarize(int64_t *x, size_t n, dra_probe_dist_t *out)
{
    out->n = n;
    if (n == 0) {
        out->p50 = out->p90 = out->min = out->max = NAN;
        return;
    }
    qsort(x, n, sizeof *x, cmp_i64);
    out->p50 = n % 2 ? (double)x[n / 2] : ((double)x[n / 2 - 1] + (double)x[n / 2]) / 2;
    size_t r = (n * 9 + 9) / 10; /* ceil(0.9 n), >= 1 */
    out->p90 = (double)x[r - 1];
    out->min = (double)x[0];
    out->max = (double)x[n - 1];
}

double dra_probe_slope(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    if (!(sxx > 0)) /* also NaN */
        return NAN;
    return sxy / sxx;
}

/* ---- sizes ----------------------------------------------------------------------------------- */

bool dra_probe_parse_size(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (DRA_PROBE_MAX_SIZE - (uint64_t)(*p - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    case '\0':
        break;
    default:
        return false;
    }
    if (shift) {
        p++;
        if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'b' || p[1] == 'B'))
            p += 2;
    }
    if (*p || v > DRA_PROBE_MAX_SIZE >> shift)
        return false;
    *out = v << shift;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int dra_probe_parse_sizes(const char *list, uint64_t *out, size_t max, size_t *n, char *why,
                          size_t whysz)
{
    size_t k = 0;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char item[64];
        if (len == 0) {
            snprintf(why, whysz, "an empty item in '%s'", list);
            return DRA_EINVAL;
        }
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        uint64_t v;
        if (len >= sizeof item || !dra_probe_parse_size(item, &v)) {
            snprintf(why, whysz,
                     "'%.*s' is not a size (bytes, or a number with K, M or G: 32K, "
                     "1M, 2G; at most 64G)",
                     (int)len, p);
            return DRA_EINVAL;
        }
        if (v < DRA_PROBE_MIN_SIZE) {
            snprintf(why, whysz, "'%s' is below 4K (64 lines)", item);
            return DRA_EINVAL;
        }
        if (v % LINE) {
            snprintf(why, whysz, "'%s' is not a multiple of 64 bytes (a line)", item);
            return DRA_EINVAL;
        }
        bool dup = false;
        for (size_t i = 0; i < k; i++)
            dup |= out[i] == v;
        if (!dup) {
            if (k == max) {
                snprintf(why, whysz, "more than %zu sizes in '%s'", max, list);
                return DRA_EINVAL;
            }
            out[k++] = v;
        }
        if (!e)
            break;
        p = e + 1;
    }
    qsort(out, k, sizeof *out, cmp_u64);
    *n = k;
    return DRA_OK;
}

const char *dra_probe_fmt_size(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && b >= ((uint64_t)1024 << (10 * u)))
        u++;
    uint64_t div = (uint64_t)1 << (10 * u);
    if (b % div == 0)
        snprintf(buf, len, "%llu %s", (unsigned long long)(b / div), unit[u]);
    else
        snprintf(buf, len, "%.1f %s", (double)b / (double)div, unit[u]);
    return buf;
}

/* ---- measurement ----------------------------------------------------------------------------- */

/* As the runner reads its clock (runner.c). */
static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Keeps the compiler from moving memory operations (the hints) across the clock reads. */
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static inline uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void spin(uint32_t ns)
{
    int64_t t0 = now_ns();
    while (now_ns() - t0 < (int64_t)ns)
        ;
}

static volatile uintptr_t sink;

typedef struct buf {
    char *base; /* 2 MiB-aligned start */
    size_t len; /* bytes asked for */
    char *map;  /* the mapping (base rounded out) */
    size_t maplen;
    bool advised;
} buf_t;

/* A mapping of len bytes at a 2 MiB boundary, advised MADV_HUGEPAGE, untouched. */
static int buf_map(buf_t *b, uint64_t len, dra_diag_t *d)
{
    memset(b, 0, sizeof *b);
    size_t span = (size_t)((len + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
    size_t maplen = span + (size_t)HUGE_SZ;
    void *m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        char sz[32];
        return dra_diag_set(d, DRA_ENOMEM, NULL, 0, 0, "cannot map a %s buffer: %s",
                            dra_probe_fmt_size(len, sz, sizeof sz), strerror(errno));
    }
    uintptr_t a = ((uintptr_t)m + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1);
    /* trim to [a, a + span): the slack before and after goes back */
    size_t head = (size_t)(a - (uintptr_t)m), tail = maplen - head - span;
    if (head)
        munmap(m, head);
    if (tail)
        munmap((char *)a + span, tail);
    b->map = b->base = (char *)a;
    b->maplen = span;
    b->len = (size_t)len;
    b->advised = madvise(b->base, span, MADV_HUGEPAGE) == 0;
    return DRA_OK;
}

static void buf_unmap(buf_t *b)
{
    if (b->map)
        munmap(b->map, b->maplen);
    memset(b, 0, sizeof *b);
}

/* AnonHugePages of the mappings within [base, base + len), from /proc/self/smaps (0 when it
 * cannot be read). A mapping that reaches beyond the range (merged with a neighbour) counts
 * at most its overlap. */
static uint64_t huge_bytes(const char *base, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    uintptr_t r0 = (uintptr_t)base, r1 = r0 + len;
    char line[512];
    uint64_t sum = 0, overlap = 0;
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        dra_maps_line_t m;
        if (dra_datapages_parse_line(line, &m)) {
            in = m.start < r1 && m.end > r0;
            if (in)
                overlap = (uint64_t)((m.end < r1 ? m.end : r1) - (m.start > r0 ? m.start : r0));
            continue;
        }
        unsigned long long kb;
        if (in && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
            uint64_t v = (uint64_t)kb * 1024;
            sum += v < overlap ? v : overlap;
            in = false;
        }
        if (!strchr(line, '\n')) { /* a line longer than the buffer: skip its rest */
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n')
                ;
        }
    }
    fclose(f);
    return sum;
}

/* Link the buffer's lines into one random cycle: line i holds the address of line next(i).
 * Sattolo's shuffle of the identity gives a uniformly random single cycle; the indices are
 * kept in the lines themselves (the first touch, on the advised pages). */
static void build_cycle(buf_t *b, uint64_t *seed)
{
    size_t lines = b->len / LINE;
    char *base = b->base;
    for (size_t i = 0; i < lines; i++)
        *(uint64_t *)(base + i * LINE) = i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = (size_t)(rng_next(seed) % i); /* j < i: Sattolo */
        uint64_t *pi = (uint64_t *)(base + i * LINE), *pj = (uint64_t *)(base + j * LINE);
        uint64_t t = *pi;
        *pi = *pj;
        *pj = t;
    }
    for (size_t i = 0; i < lines; i++) {
        uint64_t nx = *(uint64_t *)(base + i * LINE);
        *(char **)(base + i * LINE) = base + nx * LINE;
    }
}

static char *walk(char *p, uint64_t n)
{
    for (; n >= 4; n -= 4) {
        p = *(char **)p;
        p = *(char **)p;
        p = *(char **)p;
        p = *(char **)p;
    }
    for (; n; n--)
        p = *(char **)p;
    return p;
}

static int64_t *alloc_samples(size_t n, dra_diag_t *d)
{
    int64_t *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        dra_diag_set(d, DRA_ENOMEM, NULL, 0, 0, "out of memory for %zu samples", n);
    return s;
}

static void measure_clock(const dra_probe_opts_t *o, int64_t *t, dra_probe_dist_t *out)
{
    for (int i = 0; i < 1000; i++)
        (void)now_ns();
    for (uint32_t i = 0; i < o->clock_reps; i++) {
        int64_t t0 = now_ns();
        BARRIER();
        int64_t t1 = now_ns();
        t[i] = t1 - t0;
    }
    dra_probe_summarize(t, o->clock_reps, out);
}

static void measure_latency(const dra_probe_opts_t *o, buf_t *b, int64_t *t, uint64_t *seed,
                            double clock_ns, dra_probe_lat_t *out)
{
    build_cycle(b, seed);
    out->size = b->len;
    out->pages.bytes = b->len;
    out->pages.advised = b->advised;
    out->pages.huge_bytes = huge_bytes(b->base, b->maplen);
    if (out->pages.huge_bytes > b->len)
        out->pages.huge_bytes = b->len;
    uint64_t lines = b->len / LINE;
    /* warm-up: the whole cycle, or as many loads as the timed walks make */
    uint64_t total = o->lat_loads * o->lat_reps;
    char *p = walk(b->base, lines < total ? lines : total);
    for (uint32_t r = 0; r < o->lat_reps; r++) {
        int64_t t0 = now_ns();
        p = walk(p, o->lat_loads);
        int64_t t1 = now_ns();
        t[r] = t1 - t0;
    }
    sink = (uintptr_t)p;
    dra_probe_dist_t dist;
    dra_probe_summarize(t, o->lat_reps, &dist);
    out->ns_per_load = fmax(dist.p50 - clock_ns, 0) / (double)o->lat_loads;
    out->min_ns_per_load = fmax(dist.min - clock_ns, 0) / (double)o->lat_loads;
}

/* k distinct random line offsets of a buffer of `lines` lines (k <= DRA_PROBE_MAX_HINTS < lines). */
static void pick(size_t *off, uint32_t k, uint64_t lines, uint64_t *seed)
{
    for (uint32_t i = 0; i < k; i++) {
        size_t v;
        bool again;
        do {
            v = (size_t)(rng_next(seed) % lines) * LINE;
            again = false;
            for (uint32_t j = 0; j < i; j++)
                again |= off[j] == v;
        } while (again);
        off[i] = v;
    }
}

static int64_t hint_region(const char *base, const size_t *off, uint32_t k)
{
    int64_t t0 = now_ns();
    BARRIER();
    for (uint32_t i = 0; i < k; i++)
        __builtin_prefetch(base + off[i], 1);
    BARRIER();
    int64_t t1 = now_ns();
    return t1 - t0;
}

static void measure_hints(const dra_probe_opts_t *o, const buf_t *b, int64_t *cold, int64_t *warm,
                          uint64_t *seed, dra_probe_result_t *r, uint64_t *done, uint64_t total)
{
    uint64_t lines = b->len / LINE;
    size_t off[DRA_PROBE_MAX_HINTS];
    const volatile char *vb = b->base;
    uint32_t every = o->hint_reps / 10 ? o->hint_reps / 10 : 1;
    for (uint32_t rep = 0; rep < o->hint_reps; rep++) {
        for (int ki = 0; ki < DRA_PROBE_NHINT; ki++) {
            uint32_t k = dra_probe_hint_counts[ki];
            size_t at = (size_t)ki * o->hint_reps + rep;
            /* cold: fresh lines, not read */
            pick(off, k, lines, seed);
            spin(o->pause_ns);
            cold[at] = hint_region(b->base, off, k);
            /* warm: fresh lines, read now (into L1) */
            pick(off, k, lines, seed);
            uintptr_t s = 0;
            for (uint32_t i = 0; i < k; i++)
                s += (uintptr_t)vb[off[i]];
            sink = s;
            spin(o->pause_ns);
            warm[at] = hint_region(b->base, off, k);
        }
        if (o->progress && (rep + 1) % every == 0)
            o->progress(o->progress_ctx, "hints", ++*done, total);
    }
    double kx[DRA_PROBE_NHINT], yc[DRA_PROBE_NHINT], yw[DRA_PROBE_NHINT];
    for (int ki = 0; ki < DRA_PROBE_NHINT; ki++) {
        dra_probe_hint_row_t *h = &r->hints[ki];
        h->k = dra_probe_hint_counts[ki];
        dra_probe_summarize(cold + (size_t)ki * o->hint_reps, o->hint_reps, &h->cold);
        dra_probe_summarize(warm + (size_t)ki * o->hint_reps, o->hint_reps, &h->warm);
        kx[ki] = h->k;
        yc[ki] = h->cold.p50;
        yw[ki] = h->warm.p50;
    }
    r->cold_ns_per_line = dra_probe_slope(kx, yc, DRA_PROBE_NHINT);
    r->warm_ns_per_line = dra_probe_slope(kx, yw, DRA_PROBE_NHINT);
}

uint64_t dra_probe_xlat_grain(double near, double far, double none, uint64_t far_bytes,
                              uint32_t step_ns)
{
    if (!isfinite(near) || !isfinite(far) || !isfinite(none) || far_bytes < 8192 ||
        (far_bytes & (far_bytes - 1)))
        return 0;
    double miss = none - near, floor = fmax(25.0, 2.0 * step_ns);
    if (!(miss >= floor))
        return 0;
    return far - near > miss / 2 ? 4096 : 2 * far_bytes;
}

/* The far touch's distance for a buffer of len bytes: 1 MiB, or the largest power of two
 * whose double fits the buffer; 0 below 8 KiB (the buffer under 16 KiB). */
static uint64_t xlat_far(uint64_t len)
{
    uint64_t f = (uint64_t)1 << 20;
    while (f >= 8192 && 2 * f > len)
        f >>= 1;
    return f >= 8192 ? f : 0;
}

/* One timed region of the translation measurement: a dependent read (load) or a write-intent
 * hint of the line at p. */
static int64_t xlat_region(const char *p, bool load)
{
    int64_t t0 = now_ns();
    BARRIER();
    if (load)
        sink = *(const volatile uintptr_t *)p;
    else
        __builtin_prefetch(p, 1);
    BARRIER();
    int64_t t1 = now_ns();
    return t1 - t0;
}

/* The translation measurement on buffer b (every line touched when it was built): per
 * repetition and per kind of prior touch (near, far, none; in turn, the first one rotating),
 * a fresh random line in the part of the buffer whose far partner is inside it, the touch,
 * the pause, then a timed load; the same again with a hint. s holds 2 * NXLAT * reps. */
static void measure_xlat(const dra_probe_opts_t *o, const buf_t *b, int64_t *s, uint64_t *seed,
                         uint32_t step_ns, dra_probe_xlat_t *x)
{
    uint64_t far = xlat_far(b->len);
    x->far_bytes = far;
    x->load_miss_ns = x->hint_miss_ns = NAN;
    x->grain = 0;
    if (!far) {
        for (int k = 0; k < DRA_PROBE_NXLAT; k++) {
            dra_probe_summarize(s, 0, &x->load[k]);
            dra_probe_summarize(s, 0, &x->hint[k]);
        }
        return;
    }
    uint64_t lines = (b->len / (2 * far)) * (2 * far) / LINE; /* lines with a partner inside */
    const volatile char *vb = b->base;
    uint32_t reps = o->hint_reps;
    for (uint32_t rep = 0; rep < reps; rep++) {
        for (int j = 0; j < 2 * DRA_PROBE_NXLAT; j++) {
            int kind = (j / 2 + (int)(rep % DRA_PROBE_NXLAT)) % DRA_PROBE_NXLAT;
            bool load = j % 2 == 0;
            size_t off = (size_t)(rng_next(seed) % lines) * LINE;
            if (kind == DRA_PROBE_XNEAR)
                sink = (uintptr_t)vb[off ^ 2048];
            else if (kind == DRA_PROBE_XFAR)
                sink = (uintptr_t)vb[off ^ far];
            spin(o->pause_ns);
            s[((size_t)(load ? 0 : 1) * DRA_PROBE_NXLAT + (size_t)kind) * reps + rep] =
                xlat_region(b->base + off, load);
        }
    }
    for (int k = 0; k < DRA_PROBE_NXLAT; k++) {
        dra_probe_summarize(s + (size_t)k * reps, reps, &x->load[k]);
        dra_probe_summarize(s + (size_t)(DRA_PROBE_NXLAT + k) * reps, reps, &x->hint[k]);
    }
    x->load_miss_ns = x->load[DRA_PROBE_XNONE].p50 - x->load[DRA_PROBE_XNEAR].p50;
    x->hint_miss_ns = x->hint[DRA_PROBE_XNONE].p50 - x->hint[DRA_PROBE_XNEAR].p50;
    x->grain = dra_probe_xlat_grain(x->load[DRA_PROBE_XNEAR].p50, x->load[DRA_PROBE_XFAR].p50,
                                    x->load[DRA_PROBE_XNONE].p50, far, step_ns);
}

static void thp_mode(char *out, size_t len)
{
    snprintf(out, len, "?");
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return;
    char line[128] = "";
    if (fgets(line, sizeof line, f)) {
        const char *a = strchr(line, '['), *e = a ? strchr(a, ']') : NULL;
        if (a && e)
            snprintf(out, len, "%.*s", (int)(e - a - 1), a + 1);
    }
    fclose(f);
}

int dra_probe_run(const dra_probe_opts_t *o, dra_probe_result_t *r, dra_diag_t *d)
{
    memset(r, 0, sizeof *r);
    if (o->nsizes == 0 || o->nsizes > DRA_PROBE_MAX_SIZES || !o->clock_reps || !o->lat_reps ||
        !o->lat_loads || !o->hint_reps)
        return dra_diag_set(d, DRA_EINVAL, NULL, 0, 0, "probe: options out of range");
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] < DRA_PROBE_MIN_SIZE || o->sizes[i] % LINE ||
            o->sizes[i] > DRA_PROBE_MAX_SIZE || (i && o->sizes[i] <= o->sizes[i - 1]))
            return dra_diag_set(d, DRA_EINVAL, NULL, 0, 0,
                                "probe: sizes must ascend, be multiples of 64 and at least 4K");
    if (o->hint_size && (o->hint_size < DRA_PROBE_MIN_SIZE || o->hint_size % LINE ||
                         o->hint_size > DRA_PROBE_MAX_SIZE))
        return dra_diag_set(d, DRA_EINVAL, NULL, 0, 0,
                            "probe: the hint size must be a multiple of 64 and at least 4K");
    thp_mode(r->thp, sizeof r->thp);
    uint64_t seed = o->seed;
    uint32_t every = o->hint_reps / 10 ? o->hint_reps / 10 : 1;
    uint64_t total = 1 + o->nsizes + o->hint_reps / every + 1, done = 0;
    size_t nt = o->clock_reps > o->lat_reps ? o->clock_reps : o->lat_reps;
    size_t nh = (size_t)DRA_PROBE_NHINT * o->hint_reps; /* >= 2 * NXLAT * hint_reps too */
    _Static_assert(DRA_PROBE_NHINT >= 2 * DRA_PROBE_NXLAT, "the hint samples hold xlat's");
    int64_t *t = alloc_samples(nt, d), *cold = t ? alloc_samples(nh, d) : NULL,
            *warm = cold ? alloc_samples(nh, d) : NULL;
    buf_t b = {0};
    int rc = warm ? DRA_OK : DRA_ENOMEM;
    if (rc == DRA_OK) {
        if (o->progress)
            o->progress(o->progress_ctx, "clock", done, total);
        measure_clock(o, t, &r->clock);
        r->clock_step = dra_clock_step_measure(now_ns);
        if (o->progress)
            o->progress(o->progress_ctx, "clock", ++done, total);
    }
    for (size_t i = 0; rc == DRA_OK && i < o->nsizes; i++) {
        buf_unmap(&b);
        if ((rc = buf_map(&b, o->sizes[i], d)) != DRA_OK)
            break;
        measure_latency(o, &b, t, &seed, r->clock.p50, &r->lat[i]);
        r->nlat = i + 1;
        if (o->progress)
            o->progress(o->progress_ctx, "latency", ++done, total);
    }
    uint64_t hs = o->hint_size ? o->hint_size : o->sizes[o->nsizes - 1];
    if (rc == DRA_OK && hs != b.len) { /* a buffer of its own, every line touched */
        buf_unmap(&b);
        if ((rc = buf_map(&b, hs, d)) == DRA_OK)
            build_cycle(&b, &seed);
    }
    if (rc == DRA_OK) {
        r->hint_buffer = b.len;
        r->hint_pages.bytes = b.len;
        r->hint_pages.advised = b.advised;
        r->hint_pages.huge_bytes = huge_bytes(b.base, b.maplen);
        if (r->hint_pages.huge_bytes > b.len)
            r->hint_pages.huge_bytes = b.len;
        measure_hints(o, &b, cold, warm, &seed, r, &done, total);
        measure_xlat(o, &b, cold, &seed, r->clock_step, &r->xlat);
        if (o->progress)
            o->progress(o->progress_ctx, "translation", ++done, total);
    }
    buf_unmap(&b);
    free(t);
    free(cold);
    free(warm);
    return rc;
}
