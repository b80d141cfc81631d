/* intern.c - string interning; see intern.h. */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t dra_hash64(const void *p, size_t len)
{
    return XXH3_64bits(p, len);
}

uint64_t dra_hash64_seed(const void *p, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(p, len, seed);
}

void dra_intern_init(dra_intern_t *t, dra_arena_t *arena)
{
    memset(t, 0, sizeof *t);
    t->arena = arena;
}

void dra_intern_fini(dra_intern_t *t)
{
    free(t->slots);
    free(t->entries);
    memset(t, 0, sizeof *t);
}

static int grow_slots(dra_intern_t *t)
{
    size_t n = t->nslots ? t->nslots * 2 : 256;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        return DRA_ENOMEM;
    for (uint32_t id = 1; id <= t->count; id++) {
        size_t i = (size_t)t->entries[id].hash & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = id;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return DRA_OK;
}

static uint32_t lookup(const dra_intern_t *t, const char *s, size_t len, uint64_t h, size_t *slot)
{
    if (!t->nslots) {
        *slot = 0;
        return 0;
    }
    size_t mask = t->nslots - 1;
    size_t i = (size_t)h & mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id)
            break;
        const dra_intern_entry_t *e = &t->entries[id];
        if (e->hash == h && e->len == len && memcmp(e->str, s, len) == 0) {
            *slot = i;
            return id;
        }
        i = (i + 1) & mask;
    }
    *slot = i;
    return 0;
}

int dra_intern_put(dra_intern_t *t, const char *s, size_t len, uint32_t *id)
{
    if (len > UINT32_MAX - 1)
        return DRA_ELIMIT;
    uint64_t h = dra_hash64(s, len);
    size_t slot;
    uint32_t found = lookup(t, s, len, h, &slot);
    if (found) {
        *id = found;
        return DRA_OK;
    }
    if (t->count >= (1u << 31))
        return DRA_ELIMIT;
    if ((size_t)(t->count + 1) * 4 >= t->nslots * 3) {
        int r = grow_slots(t);
        if (r)
            return r;
        lookup(t, s, len, h, &slot);
    }
    if ((size_t)t->count + 2 > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        dra_intern_entry_t *e = realloc(t->entries, nc * sizeof *e);
        if (!e)
            return DRA_ENOMEM;
        if (!t->cap)
            memset(&e[0], 0, sizeof e[0]);
        t->entries = e;
        t->cap = nc;
    }
    char *copy = dra_arena_strndup(t->arena, s, len);
    if (!copy)
        return DRA_ENOMEM;
    uint32_t nid = ++t->count;
    t->entries[nid].str = copy;
    t->entries[nid].len = (uint32_t)len;
    t->entries[nid].hash = h;
    t->slots[slot] = nid;
    *id = nid;
    return DRA_OK;
}

uint32_t dra_intern_find(const dra_intern_t *t, const char *s, size_t len)
{
    size_t slot;
    return lookup(t, s, len, dra_hash64(s, len), &slot);
}

const char *dra_intern_str(const dra_intern_t *t, uint32_t id)
{
    if (id == 0 || id > t->count)
        return NULL;
    return t->entries[id].str;
}

uint32_t dra_intern_len(const dra_intern_t *t, uint32_t id)
{
    if (id == 0 || id > t->count)
        return 0;
    return t->entries[id].len;
}
