/*
 * intern.h - string interning over XXH3-64.
 *
 * Every distinct string gets a dense id (1, 2, 3, ...; 0 is reserved for "no string"), so strings
 * compare by id and columns of the device table store ids. The table is open addressing with
 * linear probing on the XXH3 hash; the string bytes live in the caller's arena.
 *
 * Ownership: the intern table owns its hash slots and id->string array (malloc); the strings
 * themselves are copied into the arena given at init, which must outlive the table.
 * Errors: DRA_ENOMEM, DRA_ELIMIT (more than 2^31 strings). Cost: O(len) hash + O(1) expected
 * probe. Not thread-safe.
 */
#ifndef DRA_INTERN_H
#define DRA_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct dra_intern_entry {
    const char *str; /* NUL-terminated, arena-owned */
    uint32_t len;
    uint64_t hash;
} dra_intern_entry_t;

typedef struct dra_intern {
    dra_arena_t *arena;
    uint32_t *slots;            /* 0 = empty, else id */
    size_t nslots;              /* power of two */
    dra_intern_entry_t *entries; /* index by id; entries[0] unused */
    uint32_t count;             /* number of strings (ids 1..count) */
    size_t cap;
} dra_intern_t;

void dra_intern_init(dra_intern_t *t, dra_arena_t *arena);
void dra_intern_fini(dra_intern_t *t);

/* Id of s[0..len), inserting it if new. */
DRA_NODISCARD int dra_intern_put(dra_intern_t *t, const char *s, size_t len, uint32_t *id);
/* Id of s[0..len) or 0 if absent. Never inserts. */
uint32_t dra_intern_find(const dra_intern_t *t, const char *s, size_t len);
/* String of an id (NULL for 0 or out of range) and its length. */
const char *dra_intern_str(const dra_intern_t *t, uint32_t id);
uint32_t dra_intern_len(const dra_intern_t *t, uint32_t id);

/* XXH3-64 of a buffer, the project's one hash function (stable across releases and hosts). */
uint64_t dra_hash64(const void *p, size_t len);
uint64_t dra_hash64_seed(const void *p, size_t len, uint64_t seed);

#endif /* DRA_INTERN_H */
