/* hugemem.c - the big tables from a region advised for 2 MiB pages (hugemem.h). */
#define _GNU_SOURCE
#include "hugemem.h"
#include "textpages.h"

#include "base/mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef DRA_DATA_HUGE
#define DRA_DATA_HUGE 0
#endif

#define HUGE_SZ ((size_t)2 << 20)
#define UNIT    ((size_t)64)

typedef struct ext {
    size_t off, len; /* bytes from the region's start */
} ext_t;

typedef struct exts {
    ext_t *v;
    size_t n, cap;
} exts_t;

static struct {
    pthread_mutex_t mu;
    bool installed;
    unsigned char *base;
    size_t size;       /* reserved */
    size_t writable;   /* [0, writable) is read-write */
    size_t top;        /* [0, top) has been carved */
    size_t touched;    /* [0, touched) has been handed out at some time (may hold old data) */
    exts_t used, free; /* sorted by off, disjoint */
    uint64_t live, peak, allocs;
} R = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Index of the first extent with off >= off. */
static size_t lower(const exts_t *x, size_t off)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->v[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool ins(exts_t *x, size_t at, ext_t e)
{
    if (x->n == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 256;
        ext_t *nv = realloc(x->v, nc * sizeof *nv);
        if (!nv)
            return false;
        x->v = nv;
        x->cap = nc;
    }
    memmove(x->v + at + 1, x->v + at, (x->n - at) * sizeof *x->v);
    x->v[at] = e;
    x->n++;
    return true;
}

static void del(exts_t *x, size_t at)
{
    memmove(x->v + at, x->v + at + 1, (x->n - at - 1) * sizeof *x->v);
    x->n--;
}

/* Make [0, need) writable. */
static bool grow(size_t need)
{
    if (need <= R.writable)
        return true;
    if (need > R.size)
        return false;
    size_t to = (need + DRA_HUGEMEM_STEP - 1) / DRA_HUGEMEM_STEP * DRA_HUGEMEM_STEP;
    if (to > R.size)
        to = R.size;
    if (mprotect(R.base + R.writable, to - R.writable, PROT_READ | PROT_WRITE) != 0)
        return false;
    /* the advice is the mapping's, kept across mprotect's split; given again for the new part in
     * case the kernel made it a new mapping without it */
    (void)madvise(R.base + R.writable, to - R.writable, MADV_HUGEPAGE);
    R.writable = to;
    return true;
}

/* Give [off, off + len) back: merged with the free neighbours, or the top lowered. */
static void give_back(size_t off, size_t len)
{
    size_t i = lower(&R.free, off);
    if (i > 0 && R.free.v[i - 1].off + R.free.v[i - 1].len == off) {
        i--;
        off = R.free.v[i].off;
        len += R.free.v[i].len;
        del(&R.free, i);
    }
    if (i < R.free.n && R.free.v[i].off == off + len) {
        len += R.free.v[i].len;
        del(&R.free, i);
    }
    if (off + len == R.top) {
        R.top = off;
        return;
    }
    if (!ins(&R.free, i, (ext_t){off, len}))
        return; /* out of memory for the list: the extent is lost to reuse, not to correctness */
}

static void *take(size_t size, bool zero)
{
    size_t len = size ? (size + UNIT - 1) & ~(UNIT - 1) : UNIT;
    if (len < size)
        return NULL;
    /* best fit among the freed extents */
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < R.free.n; i++)
        if (R.free.v[i].len >= len && (best == SIZE_MAX || R.free.v[i].len < R.free.v[best].len))
            best = i;
    size_t off;
    if (best != SIZE_MAX) {
        off = R.free.v[best].off;
        if (R.free.v[best].len == len)
            del(&R.free, best);
        else {
            R.free.v[best].off += len;
            R.free.v[best].len -= len;
        }
    } else {
        if (len > R.size - R.top || !grow(R.top + len))
            return NULL;
        off = R.top;
        R.top += len;
    }
    size_t at = lower(&R.used, off);
    if (!ins(&R.used, at, (ext_t){off, len})) {
        give_back(off, len);
        return NULL;
    }
    if (zero && off < R.touched)
        memset(R.base + off, 0, (off + len < R.touched ? off + len : R.touched) - off);
    if (off + len > R.touched)
        R.touched = off + len;
    R.live += len;
    if (R.live > R.peak)
        R.peak = R.live;
    R.allocs++;
    return R.base + off;
}

/* The index of p's block in R.used, or SIZE_MAX. */
static size_t find(const void *p)
{
    size_t off = (size_t)((const unsigned char *)p - R.base);
    size_t i = lower(&R.used, off);
    return i < R.used.n && R.used.v[i].off == off ? i : SIZE_MAX;
}

static void *h_alloc(void *ctx, size_t size, bool zero)
{
    (void)ctx;
    pthread_mutex_lock(&R.mu);
    void *p = take(size, zero);
    pthread_mutex_unlock(&R.mu);
    return p;
}

/* The index of p's block in the used list (R.mu held); a block the region did not hand out is
 * a caller's bug (mem.h routes by owns()): the lock is released and the process aborts, naming
 * the call (`what`). */
static size_t find_or_die(const void *p, const char *what)
{
    size_t i = find(p);
    if (i == SIZE_MAX) {
        pthread_mutex_unlock(&R.mu);
        fprintf(stderr,
                "drabench: internal error: %s of %p, not a block of the 2 MiB-page region\n", what,
                p);
        abort();
    }
    return i;
}

static void h_release(void *ctx, void *p)
{
    (void)ctx;
    pthread_mutex_lock(&R.mu);
    size_t i = find_or_die(p, "free");
    ext_t e = R.used.v[i];
    del(&R.used, i);
    R.live -= e.len;
    give_back(e.off, e.len);
    pthread_mutex_unlock(&R.mu);
}

static void *h_resize(void *ctx, void *p, size_t size)
{
    (void)ctx;
    pthread_mutex_lock(&R.mu);
    size_t i = find_or_die(p, "realloc");
    ext_t e = R.used.v[i];
    size_t len = size ? (size + UNIT - 1) & ~(UNIT - 1) : UNIT;
    void *q = NULL;
    if (len < size) {
        q = NULL;
    } else if (len <= e.len) {
        q = p; /* keeps its length */
    } else if (e.off + e.len == R.top && len - e.len <= R.size - R.top && grow(e.off + len)) {
        /* the top block grows in place */
        R.top = e.off + len;
        if (R.top > R.touched)
            R.touched = R.top;
        R.used.v[i].len = len;
        R.live += len - e.len;
        if (R.live > R.peak)
            R.peak = R.live;
        q = p;
    } else if ((q = take(size, false)) != NULL) {
        memcpy(q, p, e.len);
        i = find(p);
        del(&R.used, i);
        R.live -= e.len;
        give_back(e.off, e.len);
    }
    pthread_mutex_unlock(&R.mu);
    return q;
}

static bool h_owns(void *ctx, const void *p)
{
    (void)ctx;
    /* [base, base + top) only holds the region's blocks; the caller passes live blocks */
    const unsigned char *c = p;
    return R.installed && c >= R.base && c < R.base + R.size;
}

bool dra_hugemem_install(size_t min_override, char *why, size_t whysz)
{
    if (R.installed) {
        snprintf(why, whysz, "installed");
        return true;
    }
    if (!DRA_DATA_HUGE) {
        snprintf(why, whysz,
                 "not in this build (CMake option DRA_DATA_HUGE off: sanitizer or "
                 "fuzzing build)");
        return false;
    }
    if (dra_under_valgrind()) {
        snprintf(why, whysz, "under valgrind");
        return false;
    }
    if (!dra_thp_enabled(why, whysz))
        return false;
    size_t size = DRA_HUGEMEM_RESERVE;
    unsigned char *m = mmap(NULL, size + HUGE_SZ, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        snprintf(why, whysz, "cannot reserve %zu GiB of address space: %s", size >> 30,
                 strerror(errno));
        return false;
    }
    /* 2 MiB-aligned: trim the head and the tail */
    uintptr_t a = ((uintptr_t)m + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1);
    size_t head = (size_t)(a - (uintptr_t)m);
    if (head)
        munmap(m, head);
    if (HUGE_SZ - head)
        munmap((unsigned char *)a + size, HUGE_SZ - head);
    if (madvise((void *)a, size, MADV_HUGEPAGE) != 0) {
        snprintf(why, whysz, "the kernel refused: madvise: %s", strerror(errno));
        munmap((void *)a, size);
        return false;
    }
    R.base = (unsigned char *)a;
    R.size = size;
    R.installed = true;
    dra_mem_hook_t h = {h_alloc, h_resize, h_release,
                        h_owns,  NULL,     min_override ? min_override : DRA_HUGEMEM_MIN};
    dra_mem_set_hook(&h);
    snprintf(why, whysz, "installed");
    return true;
}

void dra_hugemem_stats(dra_hugemem_stats_t *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&R.mu);
    out->installed = R.installed;
    out->live = R.live;
    out->peak = R.peak;
    out->top = R.top;
    out->allocs = R.allocs;
    if (R.installed) {
        out->start = (uintptr_t)R.base;
        out->end = (uintptr_t)R.base + R.writable;
    }
    pthread_mutex_unlock(&R.mu);
}
