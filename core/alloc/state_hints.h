/*
 * state_hints.h - what a caller reads of the allocation state (alloc.h) in line, without a call
 * or the state's internals (alloc_impl.h includes it; the fast allocator's hint view, fast.h,
 * reads through it): where the row entries are, to hint them, and the watchers' row word.
 * Internal to the allocator and the placement engine; ownership, errors and cost per function.
 */
#ifndef DRA_ALLOC_STATE_HINTS_H
#define DRA_ALLOC_STATE_HINTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "alloc/alloc.h"
#include "../compiler.h"

/* Where the hot parts of the state's row entries are (what a commit or release of an exclusive
 * result of a row reads and writes: its registration, its device name's pointer, its exclusive
 * allocations, the watchers' word), for a caller that hints every commit's rows in line (the
 * engine): kept by the state whenever they move (the state's first member: its address is the
 * state's). A hot part is DRA__STATE_ENT bytes, four a cache line, 256 a 4 KiB page; the rest
 * of an entry (its shares and capacities) is apart, read only for shares. */
#define DRA__STATE_ENT 16u
typedef struct dra__state_hints {
    const unsigned char *ents; /* model row 1's hot part */
    const unsigned char *rest; /* model row 1's entry, the rest (DRA__STATE_REST bytes each) */
    uint32_t nrows;            /* rows with an entry (0: none) */
} dra__state_hints_t;
static inline const dra__state_hints_t *dra__alloc_state_hints(const dra_alloc_state_t *s)
{
    return (const dra__state_hints_t *)(const void *)s;
}
/* Start loading the hot part of the entry of model row row + 1's device (dra_result_t.row
 * numbering; 0 or a row beyond the model: nothing). A hint: no effect on the state. Always in
 * line: gcc takes a function that only hints for pure and drops a call to it (core/compiler.h). */
static DRA_ALWAYS_INLINE void dra__state_hint_row(const dra__state_hints_t *h, uint32_t row)
{
    if (row && row <= h->nrows)
        __builtin_prefetch(h->ents + (size_t)(row - 1) * DRA__STATE_ENT, 1);
}
/* Bytes of the rest of an entry (its ids, its shares' and capacities' counts and pointers). */
#define DRA__STATE_REST 48u
/* Start loading the rest of the entry of model row row + 1's device (its ids, its shares' and
 * capacities' counts and pointers), for a commit or release of a share on it (0 or a row beyond
 * the model: nothing): its first and last byte, since half of the entries span two lines. A
 * hint, always in line. */
static DRA_ALWAYS_INLINE void dra__state_hint_rest(const dra__state_hints_t *h, uint32_t row)
{
    if (row && row <= h->nrows) {
        const unsigned char *p = h->rest + (size_t)(row - 1) * DRA__STATE_REST;
        __builtin_prefetch(p, 1);
        __builtin_prefetch(p + DRA__STATE_REST - 1, 1);
    }
}
/* A word in each row's entry (its hot part) that belongs to the state's watchers, not to the state:
 * no operation of the state's reads or writes it (not its digest, queries or checks; commits and
 * releases keep it), it is zero in a new state. The fast allocator keeps there its row's pool
 * number and repeated-ID bit (fast.c, "row words"), read by its watcher and its hints through the
 * hot part a commit or release reads anyway (and dra__state_hint_row starts) instead of a line of
 * its own; what it writes is a function of the model only, so every fast allocator over the state's
 * model writes the same words (the only kind of writer a state may have). DRA__STATE_WORD_OFF:
 * where in the entry it is. */
#define DRA__STATE_WORD_OFF 12u
/* Set the word of model row row + 1's entry (dra_result_t.row numbering; 0 or a row beyond the
 * model: nothing). Const: the word is not state (as the watcher list). O(1), the entry's line. */
void dra__alloc_state_set_word(const dra_alloc_state_t *s, uint32_t row, uint32_t w);
/* The word of model row row + 1's entry, from the hint view, in line: requires
 * 1 <= row <= h->nrows. O(1), one load (the hot part's line). */
static DRA_ALWAYS_INLINE uint32_t dra__state_word(const dra__state_hints_t *h, uint32_t row)
{
    uint32_t w;
    memcpy(&w, h->ents + (size_t)(row - 1) * DRA__STATE_ENT + DRA__STATE_WORD_OFF, sizeof w);
    return w;
}

#endif /* DRA_ALLOC_STATE_HINTS_H */
