/* test_hugemem.c - the big tables through the allocation hook (core/base/mem.h) and the hook
 * drabench run installs (harness/bench/hugemem.h).
 *
 * First with a hook that registers every block it serves (every build): an engine's set-up,
 * placements, commit and release take their tables from the hook (none bypasses it: the engine
 * allocates through dra_mem) and its teardown gives every one back (none leaks, none is freed
 * by libc behind the hook's back). Then the 2 MiB-page region itself where the build and host
 * allow it (not in sanitizer builds, under valgrind or with THP never: the reason is checked
 * instead): blocks at or above its min come from the region, smaller ones from malloc; calloc
 * is zero also on reused memory; realloc keeps the contents; a freed block's memory is reused;
 * the region's touched memory is on 2 MiB pages (smaps' AnonHugePages) without any collapse;
 * and the same engine run through it leaves no byte live. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "check.h"
#include "engine_fx.h"
#include "hugemem.h"

/* ---- a registering hook --------------------------------------------------------------------- */

#define NREG (1u << 16)
static struct {
    const void *slot[NREG]; /* open addressing; TOMB for a freed one */
    long live, allocs;
} G;
static const char tomb;
#define TOMB ((const void *)&tomb)

static uint32_t hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
    return (uint32_t)(x >> 48) & (NREG - 1);
}

static long reg_find(const void *p)
{
    for (uint32_t i = hash(p), k = 0; k < NREG; k++, i = (i + 1) & (NREG - 1)) {
        if (!G.slot[i])
            return -1;
        if (G.slot[i] == p)
            return (long)i;
    }
    return -1;
}

static bool reg_add(const void *p)
{
    for (uint32_t i = hash(p), k = 0; k < NREG; k++, i = (i + 1) & (NREG - 1))
        if (!G.slot[i] || G.slot[i] == TOMB) {
            G.slot[i] = p;
            return true;
        }
    return false;
}

static void *r_alloc(void *ctx, size_t size, bool zero)
{
    (void)ctx;
    void *p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
    if (p && !reg_add(p)) {
        free(p);
        p = NULL;
    }
    if (p) {
        G.live++;
        G.allocs++;
    }
    return p;
}

static void *r_resize(void *ctx, void *p, size_t size)
{
    (void)ctx;
    long i = reg_find(p);
    CHECK_MSG(i >= 0, "resize of %p, not the hook's", p);
    void *q = realloc(p, size ? size : 1);
    if (q && i >= 0) {
        G.slot[i] = TOMB;
        CHECK(reg_add(q));
    }
    return q;
}

static void r_release(void *ctx, void *p)
{
    (void)ctx;
    long i = reg_find(p);
    CHECK_MSG(i >= 0, "release of %p, not the hook's", p);
    if (i >= 0) {
        G.slot[i] = TOMB;
        G.live--;
    }
    free(p);
}

static bool r_owns(void *ctx, const void *p)
{
    (void)ctx;
    return reg_find(p) >= 0;
}

/* A small engine's life: set-up, plans, placements committed and released, teardown. */
static void engine_life(void)
{
    static const char yaml[] = NODE("n1") NODE(
        "n2") "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n"
              "spec: {selectors: [{cel: {expression: 'device.driver == \"drv\"'}}]}\n---\n"
              "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
              "spec:\n  driver: drv\n  pool: {name: s1, generation: 1, resourceSliceCount: 1}\n"
              "  nodeName: n1\n  devices: [{name: d1}, {name: d2}]\n---\n"
              "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s2}\n"
              "spec:\n  driver: drv\n  pool: {name: s2, generation: 1, resourceSliceCount: 1}\n"
              "  nodeName: n2\n  devices: [{name: d1}, {name: d2}]\n---\n" CLAIM(
                  "one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
                  CLAIM("pair", "{requests: [{name: a, exactly: {deviceClassName: a, count: 1}},"
                                " {name: b, exactly: {deviceClassName: a, count: 1}}]}");
    fx_t x;
    if (!fx_open(&x, yaml, DRA_RELEASE_1_36, NULL))
        return;
    uint32_t one = fx_plan(&x, "one"), pair = fx_plan(&x, "pair");
    dra_engine_result_t r[3];
    uint32_t plans[3] = {one, pair, one};
    dra_arena_t keep[3];
    for (int i = 0; i < 3; i++) {
        dra_arena_init(&keep[i], 0);
        r[i] = fx_place_vs_reference(&x, plans[i], DRA_ENGINE_FIRST_FIT, 0, &keep[i]);
        CHECK_EQ_U64(r[i].kind, DRA_OUTCOME_ALLOCATED);
        CHECK_OK(dra_engine_commit(x.e, r[i].node, r[i].allocations, r[i].n));
    }
    for (int i = 0; i < 3; i++) {
        CHECK_OK(dra_engine_release(x.e, r[i].node, r[i].allocations, r[i].n));
        dra_arena_fini(&keep[i]);
    }
    check_summaries(&x);
    fx_fini(&x);
}

static void test_engine_through_hook(void)
{
    memset(&G, 0, sizeof G);
    dra_mem_hook_t h = {r_alloc, r_resize, r_release, r_owns, NULL, 1};
    dra_mem_set_hook(&h);
    engine_life();
    dra_mem_set_hook(NULL);
    /* the engine's tables and the arenas' chunks came from the hook (a few dozen blocks at
     * least: the engine alone has more tables than that) and all went back to it */
    CHECK_MSG(G.allocs >= 40, "the hook served only %ld blocks", G.allocs);
    CHECK_MSG(G.live == 0, "%ld blocks of the hook not given back", G.live);
}

/* ---- the 2 MiB-page region ------------------------------------------------------------------ */

/* AnonHugePages and Rss (bytes) of the mappings inside [a, b), from /proc/self/smaps. */
static void region_pages(uintptr_t a, uintptr_t b, uint64_t *ahp, uint64_t *rss)
{
    *ahp = *rss = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[512];
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long long s, e, kb;
        if (sscanf(line, "%llx-%llx ", &s, &e) == 2 && strchr(line, ' ') &&
            strchr(line, '-') < strchr(line, ' ')) {
            in = s >= a && e <= b;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
            *ahp += (uint64_t)kb << 10;
        if (in && sscanf(line, "Rss: %llu kB", &kb) == 1)
            *rss += (uint64_t)kb << 10;
    }
    fclose(f);
}

static bool in_region(const void *p)
{
    dra_hugemem_stats_t s;
    dra_hugemem_stats(&s);
    return (uintptr_t)p >= s.start && (uintptr_t)p < s.end;
}

static void test_region(void)
{
    char why[256];
    bool ok = dra_hugemem_install(0, why, sizeof why);
    if (!ok) {
        CHECK_MSG(strstr(why, "not in this build") || strstr(why, "valgrind") ||
                      strstr(why, "never") || strstr(why, "transparent"),
                  "not installed for an unexpected reason: %s", why);
        CHECK(!dra_mem_hooked());
        CHECK_SKIP(why);
        return;
    }
    CHECK(dra_mem_hooked());
    CHECK(dra_hugemem_install(0, why, sizeof why)); /* again: nothing changes */
    dra_hugemem_stats_t s0;
    dra_hugemem_stats(&s0);
    CHECK(s0.installed);
    /* below the min: malloc's; at or above: the region's, 64-byte aligned */
    void *small = dra_mem_malloc(DRA_HUGEMEM_MIN - 1);
    unsigned char *big = dra_mem_malloc(DRA_HUGEMEM_MIN);
    CHECK(small && big);
    CHECK(!in_region(small));
    CHECK(in_region(big));
    CHECK(((uintptr_t)big & 63) == 0);
    /* 8 MiB written: 2 MiB pages without a collapse */
    size_t n = (size_t)8 << 20;
    unsigned char *m = dra_mem_malloc(n);
    CHECK(m && in_region(m));
    if (!m)
        return;
    memset(m, 0x5A, n);
    memset(big, 0x33, DRA_HUGEMEM_MIN);
    dra_hugemem_stats_t s;
    dra_hugemem_stats(&s);
    uint64_t ahp, rss;
    region_pages(s.start, s.end, &ahp, &rss);
    if (ahp == 0)
        fprintf(stderr,
                "note: no 2 MiB page in the region (%llu kB resident): the host has "
                "none free now\n",
                (unsigned long long)(rss >> 10));
    else
        CHECK_MSG(ahp >= ((uint64_t)6 << 20), "only %llu kB of %llu on 2 MiB pages",
                  (unsigned long long)(ahp >> 10), (unsigned long long)(rss >> 10));
    CHECK(s.live >= n + DRA_HUGEMEM_MIN);
    /* realloc keeps the contents (the top block grows in place, another moves) */
    unsigned char *g = dra_mem_realloc(big, 2 * DRA_HUGEMEM_MIN);
    CHECK(g && in_region(g));
    if (g) {
        CHECK(g[0] == 0x33 && g[DRA_HUGEMEM_MIN - 1] == 0x33);
        big = g;
    }
    /* freed and asked again zero-filled: the same memory, cleared */
    dra_mem_free(m);
    unsigned char *z = dra_mem_calloc(n / 4096, 4096);
    CHECK(z && in_region(z));
    /* best fit: the freed extent (m's, merged with the block big left when it moved) */
    CHECK(z && z <= m);
    if (z) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += z[i] != 0;
        CHECK_MSG(bad == 0, "%zu bytes not zero in a calloc of reused memory", bad);
    }
    unsigned char *y = dra_mem_realloc(z, n + 4096); /* the top block grows in place */
    CHECK(y && in_region(y));
    dra_mem_free(y ? y : z);
    dra_mem_free(big);
    dra_mem_free(small);
    dra_hugemem_stats(&s);
    CHECK_EQ_U64(s.live, s0.live);
    CHECK(s.peak >= n + DRA_HUGEMEM_MIN);
    /* an engine's life through the region leaves nothing live */
    uint64_t before = s.allocs;
    engine_life();
    dra_hugemem_stats(&s);
    CHECK_EQ_U64(s.live, s0.live);
    CHECK_MSG(s.allocs > before, "the engine's life took no block from the region");
}

int main(void)
{
    RUN(test_engine_through_hook);
    RUN(test_region);
    return check_summary();
}
