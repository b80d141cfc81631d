/*
 * fast_tests.h - test hooks of the fast allocator (fast.h), for tests only (not part of the API,
 * as HdrHistogram keeps hdr_tests.h): switches that change how a call is served, never what it
 * decides. Ownership, errors and cost as fast.h; O(1).
 */
#ifndef DRA_ALLOC_FAST_TESTS_H
#define DRA_ALLOC_FAST_TESTS_H

#include <stdbool.h>

#include "alloc/fast.h"

/* Disable the fast paths (every call goes to the search; on by default). */
void dra_fast_set_paths(dra_fast_t *a, bool on);
/* Width in bits (2..32, default 32) of a packed counter item (an entry and the index of its
 * amount, fast.c "counters as columns"): a node whose items do not fit gets no counter columns
 * and its calls meeting a consumer go to the search. Takes effect for columns built afterwards. */
void dra_fast_set_counter_word_bits(dra_fast_t *a, uint32_t bits);
/* Whether the hint view (dra_fast_hints) names the row mirror's columns as they are now (and no
 * rows when the state's rows are not the allocator's), and its shortcuts flag is what the
 * switches and options say (dra_fast_shortcuts). */
bool dra_fast_hints_ok(const dra_fast_t *a);
/* Whether every row word (DRA_FAST_WORD_DUP) in the state's entries is what the allocator's own
 * indexes say (its pool number and repeated-ID bit); true when the state's rows are not the
 * allocator's (no words then). O(rows). */
bool dra_fast_row_words_ok(const dra_fast_t *a);

#endif /* DRA_ALLOC_FAST_TESTS_H */
