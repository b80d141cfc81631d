/*
 * arena.c - chunked bump allocator; see arena.h.
 *
 * Chunks form a singly linked list from newest to oldest. A reset to a mark frees the chunks
 * newer than the mark except the newest one, which is emptied and kept as the head, so a scratch
 * arena whose operations fit in one chunk reaches a steady state with no further malloc.
 */
#include "arena.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

struct dra_arena_chunk {
    dra_arena_chunk_t *prev; /* older chunk */
    size_t size;             /* usable bytes in data[] */
    size_t pos;              /* bump offset */
    _Alignas(64) unsigned char data[];
};

static dra_arena_chunk_t *new_chunk(size_t min)
{
    size_t sz = min;
    if (sz > SIZE_MAX - sizeof(dra_arena_chunk_t) - 64)
        return NULL;
    dra_arena_chunk_t *c = dra_mem_malloc(sizeof(dra_arena_chunk_t) + sz);
    if (!c)
        return NULL;
    c->prev = NULL;
    c->size = sz;
    c->pos = 0;
    DRA_POISON(c->data, sz);
    return c;
}

/* A new chunk of at least `need` bytes (or the arena's chunk size) as the head, NULL on
 * out-of-memory. */
static dra_arena_chunk_t *push_chunk(dra_arena_t *a, size_t need)
{
    size_t csz = need > a->chunk_size ? need : a->chunk_size;
    dra_arena_chunk_t *n = new_chunk(csz);
    if (!n)
        return NULL;
    n->prev = a->head;
    a->head = n;
    a->reserved += csz;
    a->nchunks++;
    return n;
}

void dra_arena_init(dra_arena_t *a, size_t chunk_size)
{
    memset(a, 0, sizeof *a);
    a->chunk_size = chunk_size ? chunk_size : DRA_ARENA_DEFAULT_CHUNK;
}

void *dra_arena_alloc(dra_arena_t *a, size_t size, size_t align)
{
    if (align == 0)
        align = 1;
    DRA_ASSERT((align & (align - 1)) == 0 && align <= 4096);
    dra_arena_chunk_t *c = a->head;
    for (;;) {
        if (c) {
            uintptr_t base = (uintptr_t)c->data;
            uintptr_t p = (base + c->pos + (align - 1)) & ~(uintptr_t)(align - 1);
            size_t off = (size_t)(p - base);
            if (off <= c->size && size <= c->size - off) {
                size_t before = c->pos;
                c->pos = off + size;
                a->used += c->pos - before;
                if (a->used > a->high_water)
                    a->high_water = a->used;
                void *r = (void *)p;
                DRA_UNPOISON(r, size);
#if DRA_DEBUG >= 2
                memset(r, 0xAA, size);
#endif
                return r;
            }
        }
        size_t need = size + align;
        if (need < size || !(c = push_chunk(a, need)))
            return NULL;
    }
}

bool dra_arena_reserve(dra_arena_t *a, size_t bytes)
{
    if (bytes > SIZE_MAX / 2)
        return false;
    size_t need = bytes + 64;
    const dra_arena_chunk_t *h = a->head;
    if (h && h->size - h->pos >= need)
        return true;
    return push_chunk(a, need) != NULL;
}

void *dra_arena_calloc(dra_arena_t *a, size_t n, size_t size, size_t align)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return NULL;
    void *p = dra_arena_alloc(a, total, align);
    if (p)
        memset(p, 0, total);
    return p;
}

char *dra_arena_strndup(dra_arena_t *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = dra_arena_alloc(a, len + 1, 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *dra_arena_strdup(dra_arena_t *a, const char *s)
{
    return dra_arena_strndup(a, s, strlen(s));
}

void *dra_arena_realloc(dra_arena_t *a, void *old, size_t old_size, size_t new_size, size_t align)
{
    void *p = dra_arena_alloc(a, new_size, align);
    if (p && old && old_size)
        memcpy(p, old, old_size < new_size ? old_size : new_size);
    return p;
}

dra_arena_mark_t dra_arena_mark(const dra_arena_t *a)
{
    dra_arena_mark_t m;
    m.chunk = a->head;
    m.pos = a->head ? a->head->pos : 0;
    m.used = a->used;
    return m;
}

void dra_arena_reset_to(dra_arena_t *a, dra_arena_mark_t m)
{
    dra_arena_chunk_t *c = a->head;
    dra_arena_chunk_t *keep = NULL;
    while (c && c != m.chunk) {
        dra_arena_chunk_t *prev = c->prev;
        if (!keep) {
            keep = c;
        } else {
            a->reserved -= c->size;
            a->nchunks--;
            dra_mem_free(c);
        }
        c = prev;
    }
    if (m.chunk) {
        DRA_ASSERT(m.pos <= m.chunk->pos);
#if DRA_DEBUG >= 2
        DRA_UNPOISON(m.chunk->data + m.pos, m.chunk->pos - m.pos);
        memset(m.chunk->data + m.pos, 0x55, m.chunk->pos - m.pos);
#endif
        DRA_POISON(m.chunk->data + m.pos, m.chunk->size - m.pos);
        m.chunk->pos = m.pos;
    }
    if (keep) {
        keep->pos = 0;
        DRA_POISON(keep->data, keep->size);
        /* The kept chunk becomes the head above the marked one; the marked chunk's tail stays
         * unused until a reset below it. */
        keep->prev = m.chunk;
        a->head = keep;
    } else {
        a->head = m.chunk;
    }
    a->used = m.used;
}

void dra_arena_reset(dra_arena_t *a)
{
    dra_arena_mark_t m = {NULL, 0, 0};
    dra_arena_reset_to(a, m);
}

void dra_arena_fini(dra_arena_t *a)
{
    dra_arena_chunk_t *c = a->head;
    while (c) {
        dra_arena_chunk_t *p = c->prev;
        DRA_UNPOISON(c->data, c->size);
        dra_mem_free(c);
        c = p;
    }
    memset(a, 0, sizeof *a);
}
