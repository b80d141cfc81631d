/* test_mem.c - the allocation hook (base/mem.h): blocks of at least the hook's min go to it,
 * smaller ones and realloc of libc's blocks stay with libc, free and realloc route by owner,
 * calloc zeroes and checks overflow, an arena's chunks come from it, and without a hook (or after
 * removing it) everything is libc's. The hook here keeps a registry of its live blocks, so a
 * block lost (freed by libc or not at all) shows as live at the end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "check.h"

#define MAXB 64

static struct {
    void *b[MAXB];
    size_t n[MAXB];
    int live, allocs, resizes, releases;
} H;

static int slot_of(const void *p)
{
    for (int i = 0; i < MAXB; i++)
        if (H.b[i] && H.b[i] == p)
            return i;
    return -1;
}

static void *f_alloc(void *ctx, size_t size, bool zero)
{
    CHECK(ctx == &H);
    int i = 0;
    while (i < MAXB && H.b[i])
        i++;
    if (i == MAXB)
        return NULL;
    void *p = malloc(size ? size : 1);
    if (!p)
        return NULL;
    memset(p, zero ? 0 : 0xAB, size);
    H.b[i] = p;
    H.n[i] = size;
    H.live++;
    H.allocs++;
    return p;
}

static void *f_resize(void *ctx, void *p, size_t size)
{
    (void)ctx;
    int i = slot_of(p);
    CHECK_MSG(i >= 0, "resize of a block the hook does not own");
    if (i < 0)
        return NULL;
    void *q = realloc(p, size);
    if (q) {
        H.b[i] = q;
        H.n[i] = size;
    }
    H.resizes++;
    return q;
}

static void f_release(void *ctx, void *p)
{
    (void)ctx;
    int i = slot_of(p);
    CHECK_MSG(i >= 0, "release of a block the hook does not own");
    if (i < 0)
        return;
    free(p);
    H.b[i] = NULL;
    H.live--;
    H.releases++;
}

static bool f_owns(void *ctx, const void *p)
{
    (void)ctx;
    return slot_of(p) >= 0;
}

static void install(size_t min)
{
    memset(&H, 0, sizeof H);
    dra_mem_hook_t h = {f_alloc, f_resize, f_release, f_owns, &H, min};
    dra_mem_set_hook(&h);
}

static void test_no_hook(void)
{
    dra_mem_set_hook(NULL);
    CHECK(!dra_mem_hooked());
    void *p = dra_mem_malloc(1 << 20);
    unsigned char *z = dra_mem_calloc(1000, 1000);
    CHECK(p && z);
    if (z)
        for (size_t i = 0; i < 1000000; i += 4093)
            CHECK(z[i] == 0);
    p = dra_mem_realloc(p, 2 << 20);
    CHECK(p != NULL);
    dra_mem_free(p);
    dra_mem_free(z);
    dra_mem_free(NULL);
    /* an incomplete hook is no hook */
    dra_mem_hook_t h = {f_alloc, NULL, f_release, f_owns, &H, 0};
    dra_mem_set_hook(&h);
    CHECK(!dra_mem_hooked());
}

static void test_routing(void)
{
    install(4096);
    CHECK(dra_mem_hooked());
    void *small = dra_mem_malloc(4095);
    void *big = dra_mem_malloc(4096);
    CHECK(small && big);
    CHECK(!f_owns(NULL, small));
    CHECK(f_owns(NULL, big));
    CHECK_EQ_I64(H.allocs, 1);
    /* calloc: the product decides, zero-filled, overflow refused */
    unsigned char *z = dra_mem_calloc(64, 64);
    CHECK(z && f_owns(NULL, z));
    if (z)
        for (size_t i = 0; i < 4096; i++)
            CHECK(z[i] == 0);
    CHECK(dra_mem_calloc(SIZE_MAX / 2, 3) == NULL);
    CHECK_EQ_I64(H.allocs, 2);
    /* realloc: the hook's block stays the hook's, libc's stays libc's (even when it grows past
     * min), NULL is a malloc */
    memset(big, 7, 4096);
    big = dra_mem_realloc(big, 1 << 16);
    CHECK(big && f_owns(NULL, big));
    CHECK_EQ_I64(H.resizes, 1);
    CHECK(((unsigned char *)big)[4095] == 7);
    small = dra_mem_realloc(small, 1 << 16);
    CHECK(small && !f_owns(NULL, small));
    void *r = dra_mem_realloc(NULL, 8192);
    CHECK(r && f_owns(NULL, r));
    CHECK_EQ_I64(H.live, 3);
    dra_mem_free(small); /* libc's: not the hook's release */
    CHECK_EQ_I64(H.releases, 0);
    dra_mem_free(big);
    dra_mem_free(z);
    dra_mem_free(r);
    CHECK_EQ_I64(H.releases, 3);
    CHECK_EQ_I64(H.live, 0);
    dra_mem_set_hook(NULL);
}

static void test_arena_chunks(void)
{
    /* an arena's chunks come from the hook, and fini gives them back */
    install(4096);
    dra_arena_t a;
    dra_arena_init(&a, 1 << 16);
    for (int i = 0; i < 5; i++)
        CHECK(dra_arena_alloc(&a, 40000, 64) != NULL);
    CHECK(H.live >= 3);
    CHECK_EQ_I64(H.live, (int)a.nchunks);
    dra_arena_reset(&a); /* keeps one chunk, frees the rest */
    CHECK_EQ_I64(H.live, 1);
    dra_arena_fini(&a);
    CHECK_EQ_I64(H.live, 0);
    /* a small arena's chunks stay with libc */
    dra_arena_init(&a, 512);
    CHECK(dra_arena_alloc(&a, 100, 8) != NULL);
    int before = H.allocs;
    CHECK(dra_arena_alloc(&a, 1000, 8) != NULL);
    CHECK_EQ_I64(H.allocs, before);
    dra_arena_fini(&a);
    CHECK_EQ_I64(H.live, 0);
    dra_mem_set_hook(NULL);
}

static void test_hook_failure(void)
{
    /* the hook's NULL is the caller's NULL (libc is not tried behind its back) */
    install(1);
    for (int i = 0; i < MAXB; i++)
        H.b[i] = (void *)&H; /* full */
    CHECK(dra_mem_malloc(100) == NULL);
    CHECK(dra_mem_calloc(10, 10) == NULL);
    memset(&H, 0, sizeof H);
    dra_mem_set_hook(NULL);
}

int main(void)
{
    RUN(test_no_hook);
    RUN(test_routing);
    RUN(test_arena_chunks);
    RUN(test_hook_failure);
    return check_summary();
}
