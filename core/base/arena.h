/*
 * arena.h - chunked bump allocator.
 *
 * One arena owns everything built for one cluster snapshot or one manifest set: model objects,
 * interned strings, device-table columns, compiled CEL programs. Allocation is a pointer bump
 * (O(1), no locking); memory is released all at once by dra_arena_fini, or back to a mark by
 * dra_arena_reset_to (scratch arenas are reset after every measured operation so that no malloc
 * runs inside a timed region once the arena has warmed up: reset keeps the chunks).
 *
 * Ownership: the arena owns its chunks (dra_mem_malloc, base/mem.h: libc's unless an allocation
 * hook serves them). Pointers it returns are valid until fini or a reset to an earlier mark.
 * Errors: allocation returns NULL on out-of-memory or size overflow. Debug builds fill fresh
 * memory with 0xAA and reset memory with 0x55; ASan builds also poison the released region so a
 * use-after-reset is reported. Not thread-safe.
 */
#ifndef DRA_ARENA_H
#define DRA_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../compiler.h"

typedef struct dra_arena_chunk dra_arena_chunk_t;

typedef struct dra_arena {
    dra_arena_chunk_t *head;  /* current chunk (most recent); chunks form a list to the oldest */
    size_t chunk_size;        /* default size of a new chunk */
    size_t used;              /* bytes handed out (incl. alignment padding) */
    size_t high_water;        /* maximum of used */
    size_t reserved;          /* bytes malloc'd for chunks */
    size_t nchunks;
} dra_arena_t;

typedef struct dra_arena_mark {
    dra_arena_chunk_t *chunk;
    size_t pos;
    size_t used;
} dra_arena_mark_t;

/* The chunk an arena takes when its owner names none: 1 MiB. Under AddressSanitizer 64 KiB: the
 * sanitizer serves each block above 128 KiB by a mapping of its own, made by malloc and unmapped
 * by free (a TLB shootdown on every CPU), and the sanitizer tests build thousands of small models
 * (ctest's fuzz.alloc_fuzzer, the corpus replay, spent most of its time in mmap and munmap:
 * 288 s with 1 MiB chunks, 66 s with 64 KiB ones). Smaller chunks also put more chunk
 * boundaries under the sanitizer's eye; the other builds keep 1 MiB. */
#ifdef DRA_ASAN
#define DRA_ARENA_DEFAULT_CHUNK ((size_t)1 << 16)
#else
#define DRA_ARENA_DEFAULT_CHUNK ((size_t)1 << 20)
#endif

/* chunk_size 0 = DRA_ARENA_DEFAULT_CHUNK. Never fails (chunks are allocated lazily). */
void dra_arena_init(dra_arena_t *a, size_t chunk_size);
void dra_arena_fini(dra_arena_t *a);

/* size bytes aligned to align (power of two, <= 4096). NULL on OOM/overflow. size 0 is valid. */
DRA_NODISCARD void *dra_arena_alloc(dra_arena_t *a, size_t size, size_t align);
/* Zero-filled; n * size checked for overflow. */
DRA_NODISCARD void *dra_arena_calloc(dra_arena_t *a, size_t n, size_t size, size_t align);
/* Copy of s[0..len) plus a NUL. */
DRA_NODISCARD char *dra_arena_strndup(dra_arena_t *a, const char *s, size_t len);
DRA_NODISCARD char *dra_arena_strdup(dra_arena_t *a, const char *s);
/* Grow an array allocated from this arena (copies; the old block is simply abandoned). */
DRA_NODISCARD void *dra_arena_realloc(dra_arena_t *a, void *old, size_t old_size, size_t new_size,
                                      size_t align);

/* Make sure the next allocations of up to `bytes` in all (counting their alignment padding;
 * 64 bytes of slack are added) need no new chunk: a new chunk is taken now when the current one
 * has less room left, so a timed region that appends to a long-lived arena does not malloc.
 * false on out-of-memory (nothing changed). O(1). */
DRA_NODISCARD bool dra_arena_reserve(dra_arena_t *a, size_t bytes);
dra_arena_mark_t dra_arena_mark(const dra_arena_t *a);
/* Release everything allocated after the mark; chunks are kept for reuse. */
void dra_arena_reset_to(dra_arena_t *a, dra_arena_mark_t m);
/* Release everything, keep the chunks. */
void dra_arena_reset(dra_arena_t *a);

#endif /* DRA_ARENA_H */
