/*
 * probe.h - the memory facts the performance notes rest on, measured on the machine it runs on
 * (`drabench probe`): what an empty timed region costs, what a dependent load costs for a range
 * of working-set sizes, and what a timed region that issues K write-intent prefetch hints costs
 * when the hinted lines come from memory ("cold") and when they are in L1 ("warm").
 *
 * What is measured, and how:
 *   clock    the median of many empty timed regions: two clock_gettime(CLOCK_MONOTONIC) reads
 *            back to back, as the runner times a claim (every timed region below includes it);
 *            and the step its readings advance by (clockstep.h: 10 ns on an AMD Zen).
 *   latency  per working-set size S: S/64 lines linked into one random cycle (Sattolo's
 *            shuffle, a pointer at the start of each 64-byte line); after a warm-up walk, many
 *            short timed walks of lat_loads dependent loads each, one continuing the other
 *            (short, so that a walk the scheduler interrupts, or that starts with caches
 *            another process filled, is an outlier the median drops: on a shared CPU one long
 *            walk measures the other processes too); the median walk's time less the clock's
 *            median, per load.
 *   hints    on the buffer of the largest size (or of hint_size): for every K in dra_probe_hint_counts, rounds of
 *            timed regions that each issue K __builtin_prefetch(p, 1) hints (the write-intent
 *            hint the engine issues), K in turn within a round so that drift spreads over
 *            every K alike. "cold": K lines picked at random afresh for the region (distinct,
 *            not touched by the probe since the buffer was built, unless the random pick met
 *            one again); "warm": K such lines read just before, so in L1. Before every timed
 *            region the probe spins for pause_ns on the clock, so the set-up's misses (the
 *            warm reads, the previous region's hints) have drained and the region starts with
 *            the miss buffers empty. p50 and p90 per K; the least-squares slope of p50 on K is
 *            the cost of one hinted line of the region (cold: a line from memory).
 *   translation  on the hint buffer: what a line costs to load (one dependent read) and to
 *            hint (one write-intent hint) in a timed region, by what was touched just before the
 *            region's pause: "near", another line of its 4 KiB page (2 KiB away: not the
 *            adjacent-line pair); "far", a line of another 4 KiB page of its 2 MiB page (1 MiB
 *            away; less on a buffer under 2 MiB); "none", nothing. The line itself is picked at
 *            random afresh each time, so it comes from memory in all three; what differs is
 *            whether its address translation is cached. none - near is what a translation
 *            miss adds; far tells by which page the translations are cached (the grain,
 *            dra_probe_xlat_grain): when a read of the same 2 MiB page does not save the
 *            miss, the TLB holds this memory by 4 KiB pages, whatever the guest's own page
 *            size (a hypervisor that maps the guest by 4 KiB pages). On the 2-vCPU AMD
 *            benchmark VM (the 256 MiB buffer on 2 MiB pages in the guest; `drabench probe
 *            --pin 0`, two runs) a load was 140 / 441-452 / 460-472 ns (near / far / none, p50)
 *            and a hint 30 / 310-320 / 321-341: the hint's cost above is its page walk, and the
 *            engine's cold lines cost by the 4 KiB page.
 * Every buffer is its own anonymous mapping, 2 MiB-aligned, advised MADV_HUGEPAGE before its
 * first touch; how much of it the kernel put on 2 MiB pages is read from /proc/self/smaps and
 * reported (the latencies of large sizes include page walks when the pages are 4 KiB).
 * The cold cost is no constant of the machine: it grows with the hint buffer's size and with
 * the quiet time before the region (pause_ns). On the 2-vCPU benchmark VM (2 MiB pages, the
 * other CPU busy, load average 10), `drabench probe --pin 1 --sizes 4K --hint-size S --reps
 * 2000 --pause P` gave the cold slope, ns a line:
 *              P = 0    0.5 us   1 us   2 us   5 us   10 us   20 us   50 us
 *     32 MiB     7.3      7.6     7.8    8.1    8.5     9.0    10.6    21.1
 *    256 MiB    10.7     11.8    13.0   15.1   23.6    31.8    37.3    41.8
 * and with P = 10 us 9.7 at 32 MiB, 13.5 at 64, 23.7 at 128, 33.1 at 256 and 42.4 at 1 GiB.
 * The step is at K = 4: four cold hints cost 11-18 ns over none at 32 MiB with P up to 10 us,
 * and 170-220 ns from 64 MiB up with P of 2 us or more, as if each hint waited for a page
 * walk once the translations of the buffer had been pushed out (by the other CPU's work, when
 * the two share a core; the translation rows below show it without counters). A timed region
 * of the engine follows
 * other work closely, so the default pause is 2 us: twice what the set-up's 48 misses take to
 * drain, and short of most of the growth.
 *
 * Ownership: dra_probe_run fills a caller-owned result; every mapping it makes is unmapped
 * before it returns, also on failure. Errors: DRA_EINVAL for options out of range, DRA_ENOMEM
 * when a buffer cannot be mapped (diag says which size and why). Cost: the default options take
 * about 10 s and map the largest size once (plus nothing else of note); --quick's well under a
 * second. The statistics helpers are pure functions. Not thread-safe (pin the caller first:
 * moving between CPUs in a measurement shows as noise).
 */
#ifndef DRA_PROBE_H
#define DRA_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define DRA_PROBE_MAX_SIZES 32
#define DRA_PROBE_MIN_SIZE  ((uint64_t)4096)     /* 64 lines: more than the most hints, 48 */
#define DRA_PROBE_MAX_SIZE  ((uint64_t)64 << 30) /* parse limit; the machine's memory decides */
#define DRA_PROBE_NHINT     8
#define DRA_PROBE_MAX_HINTS 48

/* K of the hint rows: 0, 4, 8, 12, 16, 24, 32, 48. */
extern const uint32_t dra_probe_hint_counts[DRA_PROBE_NHINT];

/* The write-intent hint's instruction in this build ("prefetchw", "prefetcht0", "prfm pstl1keep"
 * or "__builtin_prefetch"): x86's prefetchw needs the compiler to be told the CPU has it. */
extern const char dra_probe_hint_insn[];

typedef struct dra_probe_opts {
    uint64_t sizes[DRA_PROBE_MAX_SIZES]; /* bytes, ascending, distinct, multiples of 64, at least
                                            DRA_PROBE_MIN_SIZE; the last one is the hint buffer */
    size_t nsizes;                       /* 1..DRA_PROBE_MAX_SIZES */
    uint32_t clock_reps;                 /* empty timed regions (>= 1) */
    uint32_t lat_reps;                   /* timed walks per size (>= 1) */
    uint64_t lat_loads;                  /* dependent loads per walk (>= 1) */
    uint32_t hint_reps;                  /* timed regions per K and kind (>= 1) */
    uint64_t hint_size;                  /* bytes of the hint buffer; 0: the largest size (the
                                            rules of a size otherwise) */
    uint32_t pause_ns;                   /* spin before each hint region (default 2000) */
    uint64_t seed;                       /* of the shuffles and the picks */
    /* Called between steps, never inside a timed region: what is being measured, steps done
     * and all steps. May be NULL. */
    void (*progress)(void *ctx, const char *what, uint64_t done, uint64_t total);
    void *progress_ctx;
} dra_probe_opts_t;

/* The defaults (sizes 32K 256K 1M 2M 4M 16M 64M 256M; quick: 32K 256K 1M, few repetitions). */
void dra_probe_opts_init(dra_probe_opts_t *o, bool quick);

/* A distribution of timed regions, in ns (the clock's readings, so whole nanoseconds). */
typedef struct dra_probe_dist {
    double p50; /* median (even count: the mean of the two middle values) */
    double p90; /* nearest rank: the ceil(0.9 n)-th smallest */
    double min, max;
    size_t n;
} dra_probe_dist_t;

typedef struct dra_probe_pages {
    uint64_t bytes;      /* the mapping's length */
    uint64_t huge_bytes; /* of which on 2 MiB pages (AnonHugePages), after it was built */
    bool advised;        /* madvise(MADV_HUGEPAGE) was accepted */
} dra_probe_pages_t;

typedef struct dra_probe_lat {
    uint64_t size;          /* working set, bytes */
    double ns_per_load;     /* (the median walk's time - the clock's p50) / lat_loads */
    double min_ns_per_load; /* the same of the fastest walk */
    dra_probe_pages_t pages;
} dra_probe_lat_t;

typedef struct dra_probe_hint_row {
    uint32_t k;
    dra_probe_dist_t cold, warm; /* of whole timed regions (clock included) */
} dra_probe_hint_row_t;

/* The translation measurement: a distribution per kind of prior touch (near, far, none:
 * probe.h's top comment) for a load and for a hint. */
enum { DRA_PROBE_XNEAR, DRA_PROBE_XFAR, DRA_PROBE_XNONE, DRA_PROBE_NXLAT };
typedef struct dra_probe_xlat {
    uint64_t far_bytes;                 /* distance of the far touch (0: not measured, the
                                           buffer under 16 KiB) */
    dra_probe_dist_t load[DRA_PROBE_NXLAT], hint[DRA_PROBE_NXLAT];
    double load_miss_ns, hint_miss_ns;  /* p50 none - p50 near (NaN: not measured) */
    uint64_t grain;                     /* dra_probe_xlat_grain of the loads' p50s */
} dra_probe_xlat_t;

typedef struct dra_probe_result {
    dra_probe_dist_t clock;
    uint32_t clock_step; /* ns the clock's readings advance by (clockstep.h); 0 unknown */
    dra_probe_lat_t lat[DRA_PROBE_MAX_SIZES];
    size_t nlat;
    uint64_t hint_buffer; /* bytes of the hint buffer */
    dra_probe_pages_t hint_pages;
    dra_probe_hint_row_t hints[DRA_PROBE_NHINT];
    double cold_ns_per_line, warm_ns_per_line; /* slopes of p50 on K */
    char thp[16];                              /* THP mode ("always", "madvise", "never", "?") */
    dra_probe_xlat_t xlat;                     /* on the hint buffer */
} dra_probe_result_t;

/* Measure (see above). DRA_OK with *r filled; DRA_EINVAL (options) or DRA_ENOMEM (a mapping;
 * diag names the size and the reason) with *r undefined. */
DRA_NODISCARD int dra_probe_run(const dra_probe_opts_t *o, dra_probe_result_t *r, dra_diag_t *d);

/* ---- helpers (pure; tested on their own) ---------------------------------------------------- */

/* Sort x[0..n) in place and summarise it into *out (every field NaN and n = 0 when n is 0). */
void dra_probe_summarize(int64_t *x, size_t n, dra_probe_dist_t *out);

/* Least-squares slope of y on x over n points: sum((x-mx)(y-my)) / sum((x-mx)^2). NaN when
 * n < 2, when every x is the same, or when a value is NaN. */
double dra_probe_slope(const double *x, const double *y, size_t n);

/* The page size by which address translations are cached, from the p50s of a cold line's
 * load after a touch of its own 4 KiB page (near), of another 4 KiB page of its 2 MiB page
 * (far) and of nothing (none), far_bytes the far touch's distance: 0 (cannot tell) when any
 * is NaN, far_bytes < 8192, or a miss (none - near) is below the larger of 25 ns and two clock
 * steps (step_ns; translations cached either way, or too little to tell); 4096 when the far
 * touch saved less than half the miss (the translation is per 4 KiB page); else 2 * far_bytes
 * (far_bytes is a power of two, the two lines differ in that bit alone: a translation that
 * covers both covers the aligned block of twice that, 2 MiB at the default 1 MiB). Pure. */
uint64_t dra_probe_xlat_grain(double near, double far, double none, uint64_t far_bytes,
                              uint32_t step_ns);

/* One size: a decimal number of bytes with an optional binary suffix K, M or G (also KiB, MiB,
 * GiB; either case): "32K" 32768, "1M", "4096". false unless it is one, at most
 * DRA_PROBE_MAX_SIZE. */
bool dra_probe_parse_size(const char *s, uint64_t *out);

/* A comma-separated list of sizes into out (ascending, duplicates dropped). DRA_OK, or
 * DRA_EINVAL with the reason in why, naming the offending item as given (not a size, not a
 * multiple of 64 bytes, below DRA_PROBE_MIN_SIZE, an empty item, more than max items). */
DRA_NODISCARD int dra_probe_parse_sizes(const char *list, uint64_t *out, size_t max, size_t *n,
                                        char *why, size_t whysz);

/* "32 KiB", "1 MiB", "1.5 GiB", "100 B" into buf; returns buf. */
const char *dra_probe_fmt_size(uint64_t bytes, char *buf, size_t len);

#endif /* DRA_PROBE_H */
