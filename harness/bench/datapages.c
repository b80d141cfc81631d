/* datapages.c - the process's large anonymous data onto 2 MiB pages (datapages.h). */
#define _GNU_SOURCE
#include "datapages.h"
#include "hugemem.h"
#include "textpages.h"

#include "compiler.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef DRA_DATA_HUGE
#define DRA_DATA_HUGE 0
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE_SZ ((uintptr_t)2 << 20)

static void set_reason(dra_datapages_t *d, const char *fmt, ...) DRA_PRINTF(2, 3);
static void set_reason(dra_datapages_t *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->reason, sizeof d->reason, fmt, ap);
    va_end(ap);
}

/* Hex digits at *p (at most 16: more would not fit the address), advancing *p. */
static bool hex(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0;
    for (;; s++, n++) {
        int c = (unsigned char)*s, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            break;
        if (n == 16)
            return false;
        x = x << 4 | (uint64_t)d;
    }
    if (n == 0)
        return false;
    *p = s;
    *v = x;
    return true;
}

static bool dec(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0;
    for (; *s >= '0' && *s <= '9'; s++, n++) {
        if (n == 19)
            return false;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    if (n == 0)
        return false;
    *p = s;
    *v = x;
    return true;
}

static bool ch(const char **p, char c)
{
    if (**p != c)
        return false;
    (*p)++;
    return true;
}

bool dra_datapages_parse_line(const char *line, dra_maps_line_t *out)
{
    memset(out, 0, sizeof *out);
    if (!line)
        return false;
    const char *p = line;
    uint64_t a, b, off, major, minor, inode;
    if (!hex(&p, &a) || !ch(&p, '-') || !hex(&p, &b) || !ch(&p, ' ') || b <= a ||
        a > UINTPTR_MAX || b > UINTPTR_MAX)
        return false;
    char perms[4];
    for (int i = 0; i < 4; i++) {
        if (*p == '\0' || *p == ' ' || *p == '\n')
            return false;
        perms[i] = *p++;
    }
    if (!ch(&p, ' ') || !hex(&p, &off) || !ch(&p, ' ') || !hex(&p, &major) || !ch(&p, ':') ||
        !hex(&p, &minor) || !ch(&p, ' ') || !dec(&p, &inode))
        return false;
    if (*p != ' ' && *p != '\n' && *p != '\0')
        return false;
    while (*p == ' ')
        p++;
    size_t plen = strcspn(p, "\n");
    out->start = (uintptr_t)a;
    out->end = (uintptr_t)b;
    out->heap = plen == 6 && memcmp(p, "[heap]", 6) == 0;
    out->anon_rw = perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && inode == 0 &&
                   major == 0 && minor == 0 && (plen == 0 || out->heap);
    return true;
}

typedef struct map {
    uintptr_t start, end;
    uint64_t rss, ahp; /* bytes */
    bool hook;         /* inside the allocation hook's region (hugemem.h): advised already */
} map_t;

typedef struct maps {
    map_t *m;
    size_t n, cap;
} maps_t;

/* The private anonymous read-write mappings with their Rss and AnonHugePages, from
 * /proc/self/smaps. false (errno-style text in why) when it cannot be read. */
static bool scan(maps_t *out, char *why, size_t whysz)
{
    out->n = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) {
        snprintf(why, whysz, "cannot read /proc/self/smaps: %s", strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t lcap = 0;
    bool in = false, ok = true;
    dra_hugemem_stats_t hs;
    dra_hugemem_stats(&hs);
    while (getline(&line, &lcap, f) > 0) {
        dra_maps_line_t h;
        if (dra_datapages_parse_line(line, &h)) {
            in = h.anon_rw;
            if (!in)
                continue;
            if (out->n == out->cap) {
                size_t nc = out->cap ? out->cap * 2 : 64;
                map_t *nm = realloc(out->m, nc * sizeof *nm);
                if (!nm) {
                    snprintf(why, whysz, "out of memory reading /proc/self/smaps");
                    ok = false;
                    break;
                }
                out->m = nm;
                out->cap = nc;
            }
            out->m[out->n++] = (map_t){h.start, h.end, 0, 0,
                                       h.start >= hs.start && h.end <= hs.end};
            continue;
        }
        if (!in)
            continue;
        unsigned long long kb;
        if (sscanf(line, "Rss: %llu kB", &kb) == 1)
            out->m[out->n - 1].rss = (uint64_t)kb << 10;
        else if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
            out->m[out->n - 1].ahp = (uint64_t)kb << 10;
    }
    free(line);
    fclose(f);
    return ok;
}

/* Sums over the mappings with at least 2 MiB resident. */
static void totals(const maps_t *ms, dra_datapages_t *d)
{
    d->bytes = d->resident = d->hook_huge = d->hook_resident = 0;
    dra_hugemem_stats_t hs;
    dra_hugemem_stats(&hs);
    d->hook = hs.installed;
    d->hook_served = hs.live;
    d->mappings = 0;
    for (size_t i = 0; i < ms->n; i++)
        if (ms->m[i].hook) {
            d->hook_huge += ms->m[i].ahp;
            d->hook_resident += ms->m[i].rss;
        }
    for (size_t i = 0; i < ms->n; i++)
        if (ms->m[i].rss >= HUGE_SZ) {
            d->bytes += ms->m[i].ahp;
            d->resident += ms->m[i].rss;
            d->mappings++;
        }
}

/* Advise one mapping and collapse its 2 MiB blocks that hold a resident page; the errno of
 * the first refusal in *err (0 when none). */
static void advise_map(const map_t *m, size_t dense, int *err)
{
    if (madvise((void *)m->start, m->end - m->start, MADV_HUGEPAGE) != 0) {
        if (!*err)
            *err = errno;
        return;
    }
    uintptr_t a0 = (m->start + HUGE_SZ - 1) & ~(HUGE_SZ - 1), a1 = m->end & ~(HUGE_SZ - 1);
    if (a1 <= a0 || m->ahp >= a1 - a0)
        return;
    long pg = sysconf(_SC_PAGESIZE);
    size_t psz = pg > 0 ? (size_t)pg : 4096, np = HUGE_SZ / psz;
    unsigned char vec[HUGE_SZ / 4096];
    if (np > sizeof vec)
        return;
    for (uintptr_t b = a0; b < a1; b += HUGE_SZ) {
        if (mincore((void *)b, HUGE_SZ, vec) != 0)
            continue;
        size_t res = 0;
        for (size_t i = 0; i < np; i++)
            res += vec[i] & 1;
        if (res == 0 || res < dense)
            continue; /* untouched: its first fault takes a huge page (the advice); or too
                         sparse to be worth its copy and its untouched pages */
        if (madvise((void *)b, HUGE_SZ, MADV_COLLAPSE) != 0 && !*err)
            *err = errno;
    }
}

void dra_datapages_apply(bool want, dra_datapages_t *out)
{
    memset(out, 0, sizeof *out);
    if (!want) {
        /* the resident size only (the same untimed read of smaps as with 2 MiB pages) */
        maps_t ms = {NULL, 0, 0};
        if (scan(&ms, out->reason, sizeof out->reason))
            totals(&ms, out);
        free(ms.m);
        out->bytes = 0;
        set_reason(out, "turned off (--data-pages 4k)");
        return;
    }
    if (!DRA_DATA_HUGE) {
        set_reason(out, "not in this build (CMake option DRA_DATA_HUGE off: sanitizer or "
                        "fuzzing build)");
        return;
    }
    if (dra_under_valgrind()) {
        set_reason(out, "under valgrind");
        return;
    }
    if (!dra_thp_enabled(out->reason, sizeof out->reason))
        return;
    maps_t ms = {NULL, 0, 0};
    if (!scan(&ms, out->reason, sizeof out->reason)) {
        free(ms.m);
        return;
    }
    /* the blocks to collapse outside the allocation hook's region: those with at least
     * DRA_DATAPAGES_DENSE pages resident (DRA_DATA_PAGES_DENSE=N, a test hook, sets it) */
    size_t dense = DRA_DATAPAGES_DENSE;
    const char *dv = getenv("DRA_DATA_PAGES_DENSE");
    if (dv && *dv)
        dense = (size_t)strtoul(dv, NULL, 10);
    dra_datapages_t before;
    memset(&before, 0, sizeof before);
    totals(&ms, &before);
    int err = 0;
    for (size_t i = 0; i < ms.n; i++)
        if (ms.m[i].rss >= HUGE_SZ && !ms.m[i].hook)
            advise_map(&ms.m[i], dense, &err);
    char why[DRA_DATAPAGES_REASON_MAX] = "";
    if (!scan(&ms, why, sizeof why)) {
        free(ms.m);
        set_reason(out, "%s", why);
        return;
    }
    totals(&ms, out);
    free(ms.m);
    out->collapsed = out->bytes > before.bytes ? out->bytes - before.bytes : 0;
    if (out->bytes > 0) {
        out->huge = true;
        return;
    }
    out->bytes = 0;
    if (out->mappings == 0)
        set_reason(out, "no anonymous mapping with 2 MiB resident");
    else if (err)
        set_reason(out, "the kernel refused: madvise: %s", strerror(err));
    else
        set_reason(out, "the kernel gave no 2 MiB page (AnonHugePages 0 of %llu kB)",
                   (unsigned long long)(out->resident >> 10));
}

bool dra_datapages_prepare(char *why, size_t whysz)
{
    if (!DRA_DATA_HUGE || dra_under_valgrind() || !dra_thp_enabled(why, whysz)) {
        if (!DRA_DATA_HUGE || dra_under_valgrind())
            snprintf(why, whysz, "not in this build or under valgrind");
        return false;
    }
    /* arrays up to 32 MiB from the heap (fixed: setting the pad below would otherwise leave
     * the threshold at its 128 KiB start), the heap grown in steps of the pad, and one step
     * taken now: a block just larger than the heap's free top, freed again (the top keeps the
     * pad) */
    if (!mallopt(M_MMAP_THRESHOLD, DRA_DATAPAGES_MMAP_MAX) ||
        !mallopt(M_TOP_PAD, DRA_DATAPAGES_HEAP_PAD)) {
        snprintf(why, whysz, "mallopt refused the heap's settings");
        return false;
    }
    struct mallinfo2 mi = mallinfo2();
    size_t need = mi.keepcost + ((size_t)64 << 10);
    if (need < (size_t)DRA_DATAPAGES_MMAP_MAX) {
        void *volatile p = malloc(need); /* volatile: the pair is not optimized away */
        free(p);
    }
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) {
        snprintf(why, whysz, "cannot read /proc/self/maps: %s", strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t lcap = 0;
    uintptr_t hs = 0, he = 0;
    while (getline(&line, &lcap, f) > 0) {
        dra_maps_line_t h;
        if (dra_datapages_parse_line(line, &h) && h.heap && h.end - h.start > he - hs) {
            hs = h.start;
            he = h.end;
        }
    }
    free(line);
    fclose(f);
    if (he - hs < HUGE_SZ) {
        snprintf(why, whysz, "the heap did not grow (%zu bytes)", (size_t)(he - hs));
        return false;
    }
    if (madvise((void *)hs, he - hs, MADV_HUGEPAGE) != 0) {
        snprintf(why, whysz, "madvise(MADV_HUGEPAGE) of the heap: %s", strerror(errno));
        return false;
    }
    snprintf(why, whysz, "heap of %zu MiB advised", (size_t)((he - hs) >> 20));
    return true;
}

const char *dra_datapages_name(const dra_datapages_t *d)
{
    return d->huge ? "2M" : "4K";
}
