/*
 * engine_tests.h - a test hook of the placement engine (engine.h), for tests only (not part of
 * the API, as fast_tests.h is the fast allocator's): what commits and releases did, counted in
 * debug builds (DRA_DEBUG >= 1; a Release build counts nothing and adds no work to a timed
 * call). A test compares a release with the commit it takes back: a release that refreshed rows
 * or moved counter cuts the commit did not would show here.
 * Ownership: the counts live in the engine; dra_engine_work copies them. O(1).
 */
#ifndef DRA_ENGINE_TESTS_H
#define DRA_ENGINE_TESTS_H

#include <stdbool.h>

#include "engine/engine.h"

/* Counted from dra_engine_new on, by commits, releases and slice updates alike. */
typedef struct dra_engine_work {
    uint64_t rows_refreshed; /* rows whose availability and summaries were re-derived */
    uint64_t rows_flipped;   /* of those, rows whose availability changed */
    uint64_t cut_moves;      /* counter-list entries a counter's cut moved over (their fit
                              * changed: a partitionable device's siblings); for a set of a
                              * memo class (counters.c), which keeps no cuts, its rows whose
                              * fit changed */
    uint64_t leaves_set;     /* signature tree leaves set (a walk up the node's tree path) */
} dra_engine_work_t;

/* Copy the engine's counts into *w: false (and *w zeroed) when this build does not count them
 * (DRA_DEBUG 0) or e is NULL. */
bool dra_engine_work(const dra_engine_t *e, dra_engine_work_t *w);

/* Add `by` to what the engine holds left of counter c (its c-th counter over every counter set,
 * in set order), so that a test can show dra_engine_check finding a remainder that the rows in
 * use do not give; the test adds it back before it goes on. false when the engine has no
 * counter c. In every build; no caller but the tests. */
bool dra_engine_test_nudge_counter(dra_engine_t *e, uint32_t c, int64_t by);

/* Flip table row r's copy of whether it consumes counters (the bit of its row record that
 * commits, releases and the release look-ahead read instead of the row's counter pattern), so
 * that a test can show dra_engine_check finding a stale copy; the test flips it back before it
 * goes on. false when the engine has no row r. In every build; no caller but the tests. */
bool dra_engine_test_flip_row_counters(dra_engine_t *e, uint32_t r);

#endif /* DRA_ENGINE_TESTS_H */
