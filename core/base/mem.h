/*
 * mem.h - the allocation hook for the big, long-lived tables (the engine's per-row, per-node,
 * per-set and per-counter arrays, and the arenas' chunks: the device table's columns, the
 * model, the engine's arena).
 *
 * Why: a caller that wants those tables on memory of its own choosing (drabench run puts them on
 * 2 MiB pages advised before their first touch, harness/bench/hugemem.h) installs a hook; the
 * core stays free of I/O and of any particular allocator. Without a hook (the default) every
 * call is libc's malloc / calloc / realloc / free.
 *
 * Which blocks: a hook serves the blocks of at least its `min` bytes that dra_mem_malloc,
 * dra_mem_calloc and dra_mem_realloc(NULL, n) ask for; smaller ones, and a dra_mem_realloc of a
 * block libc holds, stay with libc (the hook's owns() says whose a block is). dra_mem_free and
 * dra_mem_realloc accept blocks of both.
 *
 * Ownership: a block from these calls is the caller's until dra_mem_free (never libc's free: a
 * hook's block is not libc's). The hook is process-wide: set it before the first allocation it
 * should serve and while no other thread allocates; it must own its blocks until they are freed
 * (uninstalling it with blocks outstanding leaks them to owns() = false, so do not). The struct
 * passed in is copied.
 * Errors: NULL on out-of-memory or size overflow, as libc.
 * Cost: one predictable branch over libc when no hook is set; with a hook, the hook's own cost
 * (harness/bench/hugemem.h: a lock and a search of its free extents). Not for timed regions:
 * they allocate nothing (the core's rule), and neither do these.
 */
#ifndef DRA_MEM_H
#define DRA_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include "../compiler.h"

typedef struct dra_mem_hook {
    /* size bytes (size >= min), zero-filled when zero; NULL on failure (then libc is not
     * tried: the caller sees the failure) */
    void *(*alloc)(void *ctx, size_t size, bool zero);
    /* a block it owns resized to size (contents kept up to the smaller size); NULL on failure,
     * the block unchanged */
    void *(*resize)(void *ctx, void *p, size_t size);
    /* free a block it owns */
    void (*release)(void *ctx, void *p);
    /* whether p is a block it handed out */
    bool (*owns)(void *ctx, const void *p);
    void *ctx;
    size_t min; /* smaller blocks go to libc */
} dra_mem_hook_t;

/* Install h (copied), or libc again with NULL. */
void dra_mem_set_hook(const dra_mem_hook_t *h);
/* Whether a hook is installed. */
bool dra_mem_hooked(void);

DRA_NODISCARD void *dra_mem_malloc(size_t size);
DRA_NODISCARD void *dra_mem_calloc(size_t n, size_t size);
DRA_NODISCARD void *dra_mem_realloc(void *p, size_t size);
void dra_mem_free(void *p);

#endif /* DRA_MEM_H */
