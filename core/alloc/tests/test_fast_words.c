/* test_fast_words.c - the fast allocator's row words (fast.h, DRA_FAST_WORD_*) in the
 * allocation state's entries (state_hints.h, dra__state_word): each model row's word is its
 * pool's number (the model's pools numbered in the order of their first slice) with the
 * repeated-ID bit when another row has the same device ID, written when the allocator is made;
 * the state's commits and releases (by allocation and by rows), its digest and checks neither
 * read nor change it; the words stay right when the state's entries move (a device the model
 * does not have grows them) and the allocator's hint view follows them there; a second
 * allocator over the same state writes the same words; dra_fast_reset, a slice update and
 * dra_fast_invalidate_slice keep them; an allocator over another model writes none. */
#include <stdio.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/alloc_impl.h"
#include "alloc/fast.h"
#include "alloc/fast_tests.h"
#include "check.h"
#include "state_results.h"

/* slices s0 (pool-a, 3 devices), s1 (pool-b, 2), s2 (pool-a again, its one device dev-1: the
 * same ID as s0's dev-1), s3 (pool-c, 2), s4 (pool-b again, dev-7): rows 0-2, 3-4, 5, 6-7, 8 */
static void build(dra_model_t *m)
{
    dra_model_init(m);
    const char *pools[5] = {"pool-a", "pool-b", "pool-a", "pool-c", "pool-b"};
    const uint32_t ndev[5] = {3, 2, 1, 2, 1}, first[5] = {0, 0, 1, 0, 7};
    for (uint32_t i = 0; i < 5; i++)
        add_slice(m, i, pools[i], ndev[i], first[i]);
}

#define NROWS 9u
/* per row: pool-a 0, pool-b 1, pool-c 2; rows 1 and 5 are the same device ID */
static const uint32_t k_words[NROWS] = {
    0, 0 | DRA_FAST_WORD_DUP, 0, 1, 1, 0 | DRA_FAST_WORD_DUP, 2, 2, 1,
};

/* Every row's word in s is k_words's (want) or zero (!want). */
static bool words_are(const dra_alloc_state_t *s, bool want)
{
    const dra__state_hints_t *h = dra__alloc_state_hints(s);
    if (h->nrows != NROWS)
        return false;
    for (uint32_t r = 1; r <= NROWS; r++)
        if (dra__state_word(h, r) != (want ? k_words[r - 1] : 0)) {
            fprintf(stderr, "row %u: word %#x, want %#x\n", r, dra__state_word(h, r),
                    want ? k_words[r - 1] : 0);
            return false;
        }
    return true;
}

/* The state's own operations keep a word they do not own. */
static void test_state_keeps_word(void)
{
    dra_model_t m;
    build(&m);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    CHECK(words_are(s, false)); /* zero in a new state */
    uint64_t empty = dra_alloc_state_digest(s);
    for (uint32_t r = 1; r <= NROWS; r++)
        dra__alloc_state_set_word(s, r, k_words[r - 1]);
    dra__alloc_state_set_word(s, 0, 77);         /* no row: nothing */
    dra__alloc_state_set_word(s, NROWS + 1, 77); /* beyond the model: nothing */
    CHECK(words_are(s, true));
    CHECK_EQ_U64(dra_alloc_state_digest(s), empty);
    CHECK(dra_alloc_state_check(s));
    /* commits and releases by allocation (with and without the row) and by rows */
    CHECK_OK(commit1(s, res("pool-b", "dev-1", 5), false));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 0), false));
    CHECK(words_are(s, true));
    uint32_t rows[1] = {5};
    CHECK_OK(dra__alloc_state_release_excl(s, rows, 1));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 0), true));
    CHECK(words_are(s, true));
    CHECK_EQ_U64(dra_alloc_state_digest(s), empty);
    /* devices the model does not have: their entries grow the array (it moves), the rows'
     * words go with it */
    const unsigned char *before = dra__alloc_state_hints(s)->ents;
    for (uint32_t i = 0; i < 40; i++) {
        char dn[16];
        snprintf(dn, sizeof dn, "ghost-%u", i);
        CHECK_OK(commit1(s, res("pool-z", dn, 0), false));
    }
    CHECK(dra__alloc_state_hints(s)->ents != before);
    CHECK(words_are(s, true));
    CHECK(dra_alloc_state_check(s));
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

/* The fast allocator's words: written at dra_fast_new, kept by everything after. */
static void test_fast_writes_words(void)
{
    dra_model_t m;
    build(&m);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    dra_cel_cache_t *cel = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    CHECK_OK(dra_cel_cache_new(&cel));
    dra_fast_t *a = NULL, *b = NULL;
    CHECK_OK(dra_fast_new(&m, &f, s, cel, NULL, &a));
    CHECK(words_are(s, true));
    CHECK(dra_fast_row_words_ok(a) && dra_fast_hints_ok(a));
    const dra_fast_hints_t *h = dra_fast_hints(a);
    CHECK(h->nrows == NROWS && h->st == dra__alloc_state_hints(s));
    /* a commit and release through the state (the allocator's watcher bumps the pool's
     * version through the word) */
    CHECK_OK(commit1(s, res("pool-c", "dev-1", 8), false));
    CHECK_OK(commit1(s, res("pool-c", "dev-1", 8), true));
    CHECK(words_are(s, true) && dra_fast_row_words_ok(a));
    /* the entries move: the hint view reads them where they are now */
    for (uint32_t i = 0; i < 40; i++) {
        char dn[16];
        snprintf(dn, sizeof dn, "ghost-%u", i);
        CHECK_OK(commit1(s, res("pool-z", dn, 0), false));
    }
    CHECK(h->st->ents == dra__alloc_state_hints(s)->ents);
    for (uint32_t r = 1; r <= NROWS; r++)
        CHECK_EQ_U64(dra__state_word(h->st, r), k_words[r - 1]);
    CHECK(dra_fast_row_words_ok(a));
    /* a second allocator over the same state writes the same words; a reset keeps them */
    CHECK_OK(dra_fast_new(&m, &f, s, cel, NULL, &b));
    CHECK(words_are(s, true) && dra_fast_row_words_ok(a) && dra_fast_row_words_ok(b));
    dra_fast_reset(a);
    CHECK(words_are(s, true) && dra_fast_row_words_ok(a) && dra_fast_hints_ok(a));
    /* a slice republished (a device's attribute) and its rows forgotten: pools and names stay,
     * so do the words */
    dra_device_t devs[2];
    memcpy(devs, m.slices[3]->devices, sizeof devs);
    dra_attr_t at;
    memset(&at, 0, sizeof at);
    at.name = "model";
    at.kind = DRA_ATTR_STRING;
    at.count = 1;
    at.v.s = "x";
    devs[0].attrs = &at;
    devs[0].nattrs = 1;
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_OK(dra_model_slice_update(&m, 3, devs, 2, &d));
    CHECK_OK(dra_fast_invalidate_slice(a, 3, NULL));
    CHECK_OK(dra_fast_invalidate_slice(b, 3, NULL));
    dra_fast_reset(b);
    CHECK(words_are(s, true) && dra_fast_row_words_ok(a) && dra_fast_row_words_ok(b));
    dra_fast_free(b);
    dra_fast_free(a);
    /* an allocator over another model (the same slices, another object) shares no rows with
     * the state: it writes no word (the state's stay as the first allocators left them) */
    dra_model_t m2;
    build(&m2);
    dra_alloc_state_t *s2 = NULL;
    CHECK_OK(dra_alloc_state_new(&m2, &f, &s2));
    CHECK_OK(dra_fast_new(&m, &f, s2, cel, NULL, &a));
    CHECK(words_are(s2, false) && dra_fast_row_words_ok(a) && dra_fast_hints(a)->nrows == 0);
    dra_fast_free(a);
    dra_alloc_state_free(s2);
    dra_model_fini(&m2);
    dra_cel_cache_free(cel);
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

int main(void)
{
    RUN(test_state_keeps_word);
    RUN(test_fast_writes_words);
    return check_summary();
}
