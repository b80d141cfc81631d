/* test_state_rows.c - the allocation state's row index (state.c, dra_result_t.row): a result
 * carrying its device's row updates the same entry as one found by its strings, a wrong or
 * foreign row is never trusted, a device ID listed in two slices stays one entry, the index
 * survives the hash table growing, and the digest does not depend on the hints. Every model
 * row is registered when the state is made; commit and release report the rows they resolved
 * (to the caller and to the watchers). Also dra_model_device_rows, the numbering the hints use,
 * and dra_alloc_state_rows_in_use, every row's in-use bit at once; shares found by their text,
 * their cells reused, consumedCapacity names by text. */
#include <stdio.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/alloc_impl.h"
#include "check.h"
#include "state_results.h"

/* slices s0 (pool-a, 3 devices), s1 (pool-b, 2), s2 (pool-a again, its dev-1: the same ID as
 * s0's dev-1), then `extra` one-device slices (pool-x<i>) to make the state grow */
static void build(dra_model_t *m, uint32_t extra)
{
    dra_model_init(m);
    const char *pools[3] = {"pool-a", "pool-b", "pool-a"};
    const uint32_t ndev[3] = {3, 2, 1}, first[3] = {0, 0, 1};
    for (uint32_t i = 0; i < 3 + extra; i++) {
        char pool[32];
        snprintf(pool, sizeof pool, "pool-x%u", i);
        add_slice(m, i, i < 3 ? pools[i] : pool, i < 3 ? ndev[i] : 1, i < 3 ? first[i] : 0);
    }
}

static void test_rows_numbering(void)
{
    dra_model_t m;
    build(&m, 2);
    uint32_t first[5];
    CHECK_EQ_I64(dra_model_device_rows(&m, first), 8);
    CHECK_EQ_I64(first[0], 0);
    CHECK_EQ_I64(first[1], 3);
    CHECK_EQ_I64(first[2], 5);
    CHECK_EQ_I64(first[3], 6);
    CHECK_EQ_I64(first[4], 7);
    CHECK_EQ_I64(dra_model_device_rows(&m, NULL), 8);
    dra_model_fini(&m);
}

static void test_hint_equals_strings(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *a = NULL, *b = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &a));
    CHECK_OK(dra_alloc_state_new(&m, &f, &b));
    CHECK(dra_alloc_state_model(a) == &m);
    /* pool-b/dev-1 is row 4 (s1 starts at row 3) */
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 5), false));
    CHECK_OK(commit1(b, res("pool-b", "dev-1", 0), false));
    CHECK_EQ_I64(dra_alloc_state_digest(a), dra_alloc_state_digest(b));
    CHECK_EQ_I64(dra_alloc_state_exclusive(a, "drv", "pool-b", "dev-1"), 1);
    CHECK_EQ_I64(dra_alloc_state_row_flags(a, 4, "drv", "pool-b", "dev-1"),
                 DRA_STATE_EXCL | DRA_STATE_IN_USE);
    CHECK_EQ_I64(dra_alloc_state_row_flags(b, 4, "drv", "pool-b", "dev-1"),
                 DRA_STATE_EXCL | DRA_STATE_IN_USE);
    /* the row reached with its hint again, then by the strings alone: one entry */
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 5), false));
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 0), false));
    CHECK_EQ_I64(dra_alloc_state_exclusive(a, "drv", "pool-b", "dev-1"), 3);
    CHECK_EQ_I64(dra_alloc_state_count(a), 1);
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 0), true));
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 5), true));
    CHECK_EQ_I64(dra_alloc_state_digest(a), dra_alloc_state_digest(b));
    /* release with the hint of something never committed fails and changes nothing */
    CHECK_EQ_I64(commit1(b, res("pool-a", "dev-0", 1), true), DRA_ENOTFOUND);
    CHECK_OK(commit1(b, res("pool-b", "dev-1", 5), true));
    CHECK_EQ_I64(dra_alloc_state_count(b), 0);
    dra_alloc_state_free(a);
    dra_alloc_state_free(b);
    dra_model_fini(&m);
}

static void test_wrong_hint_not_trusted(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    /* row 1 is pool-a/dev-1; learn it, then name another device with row 1's hint */
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 2), false));
    CHECK_OK(commit1(s, res("pool-a", "dev-2", 2), false));
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-a", "dev-1"), 1);
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-a", "dev-2"), 1);
    /* a row beyond the model, and a row of a device not in the model */
    CHECK_OK(commit1(s, res("pool-a", "dev-0", 99), false));
    CHECK_OK(commit1(s, res("pool-z", "ghost", 1), false));
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-a", "dev-0"), 1);
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-z", "ghost"), 1);
    CHECK(dra_alloc_state_check(s));
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-a", "dev-1"), 1);
    /* row flags with a row of another device answer for the strings */
    CHECK_EQ_I64(dra_alloc_state_row_flags(s, 1, "drv", "pool-a", "dev-2"),
                 DRA_STATE_EXCL | DRA_STATE_IN_USE);
    CHECK_EQ_I64(dra_alloc_state_row_flags(s, 1, "drv", "pool-b", "dev-0"), 0);
    CHECK_EQ_I64(dra_alloc_state_row_flags(s, UINT32_MAX, "drv", "pool-a", "dev-1"),
                 DRA_STATE_EXCL | DRA_STATE_IN_USE);
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

static void test_duplicate_id_one_entry(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    /* pool-a/dev-1 is row 1 (s0) and row 5 (s2): both hints reach the one entry */
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 2), false));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 6), false));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 2), false));
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-a", "dev-1"), 3);
    CHECK_EQ_I64(dra_alloc_state_count(s), 1);
    CHECK(dra_alloc_state_check(s));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 6), true));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 2), true));
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 6), true));
    CHECK_EQ_I64(commit1(s, res("pool-a", "dev-1", 2), true), DRA_ENOTFOUND);
    CHECK_EQ_I64(dra_alloc_state_count(s), 0);
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

/* dra_alloc_state_rows_in_use gives, for every row, the in-use bit dra_alloc_state_row_flags
 * gives for the row and its own device: the duplicate ID's second row (s2's dev-1, row 5) follows
 * the one entry it shares with row 1; a release clears the bits again; n limits the rows. */
static void rows_in_use_agree(const dra_model_t *m, const dra_alloc_state_t *s)
{
    uint8_t bits[16];
    memset(bits, 0xee, sizeof bits);
    uint32_t n = dra_model_device_rows(m, NULL);
    CHECK(n < sizeof bits);
    dra_alloc_state_rows_in_use(s, bits, n);
    for (uint32_t si = 0, row = 0; si < m->nslices; si++)
        for (uint32_t d = 0; d < m->slices[si]->ndevices; d++, row++) {
            const dra_slice_t *sl = m->slices[si];
            unsigned f = dra_alloc_state_row_flags(s, row, sl->driver, sl->pool_name,
                                                   sl->devices[d].name);
            CHECK_EQ_I64(bits[row], (f & DRA_STATE_IN_USE) != 0);
        }
    CHECK_EQ_I64(bits[n], 0xee); /* nothing past n written */
}

static void test_rows_in_use(void)
{
    dra_model_t m;
    build(&m, 2);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    rows_in_use_agree(&m, s);
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 2), false)); /* rows 1 and 5 */
    CHECK_OK(commit1(s, res("pool-b", "dev-0", 0), false)); /* no hint: row 3 by its strings */
    rows_in_use_agree(&m, s);
    uint8_t bits[16];
    uint32_t n = dra_model_device_rows(&m, NULL);
    dra_alloc_state_rows_in_use(s, bits, n);
    const uint8_t want[8] = {0, 1, 0, 1, 0, 1, 0, 0};
    CHECK_EQ_I64(n, 8);
    CHECK(memcmp(bits, want, sizeof want) == 0);
    memset(bits, 0xee, sizeof bits);
    dra_alloc_state_rows_in_use(s, bits, 2); /* only rows 0 and 1 */
    CHECK_EQ_I64(bits[1], 1);
    CHECK_EQ_I64(bits[2], 0xee);
    CHECK_OK(commit1(s, res("pool-a", "dev-1", 6), true));
    CHECK_OK(commit1(s, res("pool-b", "dev-0", 4), true));
    rows_in_use_agree(&m, s);
    dra_alloc_state_rows_in_use(s, bits, n);
    for (uint32_t r = 0; r < n; r++)
        CHECK_EQ_I64(bits[r], 0);
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

/* Many devices: the table grows several times while rows are learned; afterwards every row
 * still reaches its own entry (the digest equals a state built by strings only). */
static void test_index_survives_growth(void)
{
    dra_model_t m;
    build(&m, 300);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *a = NULL, *b = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &a));
    CHECK_OK(dra_alloc_state_new(&m, &f, &b));
    uint32_t row = 0;
    for (int pass = 0; pass < 2; pass++) {
        row = 0;
        for (uint32_t si = 0; si < m.nslices; si++) {
            const dra_slice_t *sl = m.slices[si];
            for (uint32_t d = 0; d < sl->ndevices; d++) {
                row++;
                CHECK_OK(commit1(a, res(sl->pool_name, sl->devices[d].name, row), false));
                CHECK_OK(commit1(b, res(sl->pool_name, sl->devices[d].name, 0), false));
            }
        }
    }
    CHECK_EQ_I64(dra_alloc_state_digest(a), dra_alloc_state_digest(b));
    CHECK_EQ_I64(dra_alloc_state_count(a), dra_alloc_state_count(b));
    CHECK(dra_alloc_state_check(a));
    CHECK(dra_alloc_state_check(b));
    CHECK_EQ_I64(dra_alloc_state_exclusive(a, "drv", "pool-x200", "dev-0"), 2);
    CHECK_EQ_I64(dra_alloc_state_exclusive(a, "drv", "pool-a", "dev-1"), 4); /* rows 1 and 5 */
    row = 0;
    for (uint32_t si = 0; si < m.nslices; si++) {
        const dra_slice_t *sl = m.slices[si];
        for (uint32_t d = 0; d < sl->ndevices; d++) {
            row++;
            CHECK_OK(commit1(a, res(sl->pool_name, sl->devices[d].name, row), true));
        }
    }
    CHECK_EQ_I64(dra_alloc_state_exclusive(a, "drv", "pool-x200", "dev-0"), 1);
    CHECK_EQ_I64(dra_alloc_state_row_flags(a, 6 + 200 - 3, "drv", "pool-x200", "dev-0"),
                 DRA_STATE_EXCL | DRA_STATE_IN_USE);
    dra_alloc_state_free(a);
    dra_alloc_state_free(b);
    dra_model_fini(&m);
}

/* A watcher's record of its last call. */
typedef struct seen {
    uint32_t calls, n, rows[8];
    bool had_rows;
} seen_t;

static void watch_fn(void *ctx, const dra_allocation_t *a, const uint32_t *rows, uint32_t n)
{
    seen_t *w = ctx;
    w->calls++;
    w->n = n;
    CHECK(!a || a->nresults == n);
    w->had_rows = rows != NULL;
    for (uint32_t i = 0; rows && i < n && i < 8; i++)
        w->rows[i] = rows[i];
}

/* commit / release resolve each result to its model row (hint or strings), the first row of a
 * repeated ID, 0 for adminAccess and devices the model does not have; watchers get the same
 * rows after the change, and a release that fails tells nobody. */
static void test_resolved_rows(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    seen_t w;
    memset(&w, 0, sizeof w);
    CHECK_OK(dra__alloc_state_watch(s, watch_fn, &w));
    dra_result_t r[5] = {res("pool-b", "dev-1", 5), res("pool-a", "dev-2", 0),
                         res("pool-a", "dev-1", 6), res("pool-z", "ghost", 0),
                         res("pool-a", "dev-0", 0)};
    r[4].admin_access = true;
    dra_allocation_t a;
    memset(&a, 0, sizeof a);
    a.results = r;
    a.nresults = 5;
    uint32_t rows[5] = {9, 9, 9, 9, 9};
    CHECK_OK(dra__alloc_state_commit_rows(s, &a, rows));
    const uint32_t want[5] = {5, 3, 2, 0, 0}; /* pool-a/dev-1: rows 2 and 6, the first */
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_I64(rows[i], want[i]);
        CHECK_EQ_I64(w.rows[i], want[i]);
    }
    CHECK_EQ_I64(w.calls, 1);
    CHECK(w.had_rows);
    CHECK(dra_alloc_state_check(s));
    /* every model row is registered from the start: the count is of records, not entries */
    CHECK_EQ_I64(dra_alloc_state_count(s), 4);
    memset(rows, 0, sizeof rows);
    memset(w.rows, 0, sizeof w.rows);
    CHECK_OK(dra__alloc_state_release_rows(s, &a, rows));
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_I64(rows[i], want[i]);
        CHECK_EQ_I64(w.rows[i], want[i]);
    }
    CHECK_EQ_I64(w.calls, 2);
    CHECK_EQ_I64(dra_alloc_state_count(s), 0);
    CHECK_EQ_I64(dra__alloc_state_release_rows(s, &a, NULL), DRA_ENOTFOUND);
    CHECK_EQ_I64(w.calls, 2);
    /* the public calls tell the watchers the rows too */
    CHECK_OK(commit1(s, res("pool-b", "dev-0", 0), false));
    CHECK_EQ_I64(w.calls, 3);
    CHECK(w.had_rows);
    CHECK_EQ_I64(w.rows[0], 4);
    dra__alloc_state_unwatch(s, watch_fn, &w);
    CHECK_OK(commit1(s, res("pool-b", "dev-0", 0), true));
    CHECK_EQ_I64(w.calls, 3);
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

/* Devices the model does not have get entries after the rows; many of them grow the entry array
 * and the hash while the rows keep reaching their own entries. */
static void test_foreign_devices_grow(void)
{
    dra_model_t m;
    build(&m, 2);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *a = NULL, *b = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &a));
    CHECK_OK(dra_alloc_state_new(&m, &f, &b));
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 5), false));
    char nm[32];
    for (uint32_t i = 0; i < 500; i++) {
        snprintf(nm, sizeof nm, "ghost-%u", i);
        CHECK_OK(commit1(a, res("pool-z", nm, 0), false));
        CHECK_OK(commit1(b, res("pool-z", nm, i % 8 + 1), false)); /* wrong hints */
    }
    CHECK_OK(commit1(b, res("pool-b", "dev-1", 0), false));
    CHECK(dra_alloc_state_check(a));
    CHECK(dra_alloc_state_check(b));
    CHECK_EQ_I64(dra_alloc_state_digest(a), dra_alloc_state_digest(b));
    CHECK_EQ_I64(dra_alloc_state_count(a), 501);
    CHECK_EQ_I64(dra_alloc_state_exclusive(a, "drv", "pool-z", "ghost-499"), 1);
    CHECK_EQ_I64(dra_alloc_state_row_flags(a, 4, "drv", "pool-b", "dev-1"),
                 DRA_STATE_EXCL | DRA_STATE_IN_USE);
    CHECK_OK(commit1(a, res("pool-b", "dev-1", 5), true));
    CHECK_EQ_I64(dra_alloc_state_row_flags(a, 4, "drv", "pool-b", "dev-1"), 0);
    dra_alloc_state_free(a);
    dra_alloc_state_free(b);
    dra_model_fini(&m);
}

/* Shares (DRAConsumableCapacity): a share is found by its text (the device's fingerprints, then
 * the text), whatever its length (a text longer than a cell is interned); a released share's
 * cell is taken by a later one and the digest is the digest of the live shares whatever came
 * before; a release that fails changes nothing; the same text twice on a device is two shares;
 * consumedCapacity names are told apart by their text even at one reused address. */
static dra_result_t share(const char *dev, uint32_t row, const char *id)
{
    dra_result_t r = res("pool-a", dev, row);
    r.share_id = id;
    return r;
}

static void share_text(char *out, size_t n, uint32_t i, bool long_text)
{
    if (long_text)
        snprintf(out, n, "a-share-id-longer-than-a-cell-keeps-%08u-and-then-some-%u", i, i % 7);
    else
        snprintf(out, n, "%08x-0000-4000-8000-%012u", i * 2654435761u, i);
}

static void test_shares(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK_OK(dra_alloc_features_set(&f, "DRAConsumableCapacity=true", NULL));
    dra_alloc_state_t *a = NULL, *b = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &a));
    CHECK_OK(dra_alloc_state_new(&m, &f, &b));
    /* b's room for share texts and per-device shares is made ahead (the cells a reserve made
     * are taken like any other: the same digests as a's below) */
    CHECK(dra_alloc_state_reserve_shares(NULL, 1, 1) == DRA_EINVAL);
    CHECK_OK(dra_alloc_state_reserve_shares(b, 700, 3));
    CHECK_OK(dra_alloc_state_reserve_shares(b, 10, 1));
    static char ids[600][80];
    for (uint32_t i = 0; i < 600; i++)
        share_text(ids[i], sizeof ids[i], i, i % 5 == 0);
    /* 600 shares on dev-0 (row 1) and dev-2 (row 3), every fifth with a long text */
    for (uint32_t i = 0; i < 600; i++)
        CHECK_OK(commit1(a, share(i & 1 ? "dev-2" : "dev-0", i & 1 ? 3 : 1, ids[i]), false));
    CHECK(dra_alloc_state_check(a));
    for (uint32_t i = 0; i < 600; i++)
        CHECK(dra_alloc_state_has_share(a, "drv", "pool-a", i & 1 ? "dev-2" : "dev-0", ids[i]));
    CHECK(!dra_alloc_state_has_share(a, "drv", "pool-a", "dev-2", ids[0])); /* another device */
    char near[80];
    memcpy(near, ids[2], sizeof near);
    near[strlen(near) - 1] ^= 1; /* the last character differs */
    CHECK(!dra_alloc_state_has_share(a, "drv", "pool-a", "dev-0", near));
    CHECK(dra_alloc_state_row_has_share(a, 0, "drv", "pool-a", "dev-0", ids[4]));
    CHECK(!dra_alloc_state_row_has_share(a, 0, "drv", "pool-a", "dev-0", near));
    /* release every third; b gets the others only, in reverse order: the same digest */
    for (uint32_t i = 0; i < 600; i += 3)
        CHECK_OK(commit1(a, share(i & 1 ? "dev-2" : "dev-0", i & 1 ? 3 : 1, ids[i]), true));
    for (uint32_t i = 600; i-- > 0;)
        if (i % 3)
            CHECK_OK(commit1(b, share(i & 1 ? "dev-2" : "dev-0", i & 1 ? 3 : 1, ids[i]), false));
    CHECK(dra_alloc_state_check(a));
    CHECK_EQ_I64(dra_alloc_state_digest(a), dra_alloc_state_digest(b));
    CHECK(!dra_alloc_state_has_share(a, "drv", "pool-a", "dev-0", ids[0]));
    CHECK(dra_alloc_state_has_share(a, "drv", "pool-a", "dev-0", ids[2]));
    /* new shares take the released cells; still the digest of the live ones */
    char fresh[200][80];
    for (uint32_t i = 0; i < 200; i++) {
        share_text(fresh[i], sizeof fresh[i], 1000 + i, i % 9 == 0);
        CHECK_OK(commit1(a, share("dev-1", 2, fresh[i]), false));
        CHECK_OK(commit1(b, share("dev-1", 2, fresh[i]), false));
    }
    CHECK(dra_alloc_state_check(a));
    CHECK_EQ_I64(dra_alloc_state_digest(a), dra_alloc_state_digest(b));
    CHECK(dra_alloc_state_has_share(a, "drv", "pool-a", "dev-1", fresh[199]));
    /* a release whose second result was never committed fails and changes nothing */
    uint64_t before = dra_alloc_state_digest(a);
    dra_result_t two[2] = {share("dev-1", 2, fresh[5]), share("dev-1", 2, near)};
    dra_allocation_t al = {.results = two, .nresults = 2};
    CHECK_EQ_I64(dra_alloc_state_release(a, &al), DRA_ENOTFOUND);
    CHECK_EQ_I64(dra_alloc_state_digest(a), before);
    CHECK(dra_alloc_state_has_share(a, "drv", "pool-a", "dev-1", fresh[5]));
    CHECK(dra_alloc_state_check(a));
    /* one text twice on a device: two shares, released one at a time */
    CHECK_OK(commit1(a, share("dev-1", 2, fresh[7]), false));
    CHECK_EQ_I64(dra_alloc_state_shares(a, "drv", "pool-a", "dev-1"), 201);
    CHECK_OK(commit1(a, share("dev-1", 2, fresh[7]), true));
    CHECK(dra_alloc_state_has_share(a, "drv", "pool-a", "dev-1", fresh[7]));
    CHECK_OK(commit1(a, share("dev-1", 2, fresh[7]), true));
    CHECK(!dra_alloc_state_has_share(a, "drv", "pool-a", "dev-1", fresh[7]));
    CHECK_EQ_I64(commit1(a, share("dev-1", 2, fresh[7]), true), DRA_ENOTFOUND);
    /* consumedCapacity names at one address with two texts stay two names */
    dra_alloc_state_t *c = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &c));
    char nm[16];
    dra_consumed_t cs;
    memset(&cs, 0, sizeof cs);
    cs.name = nm;
    CHECK_OK(dra_quantity_parse("3", 1, &cs.value, NULL));
    dra_result_t r = share("dev-0", 1, ids[1]);
    r.consumed = &cs;
    r.nconsumed = 1;
    strcpy(nm, "memory");
    CHECK_OK(commit1(c, r, false));
    strcpy(nm, "compute");
    r.share_id = ids[3];
    CHECK_OK(commit1(c, r, false));
    dra_quantity_t q, three;
    CHECK_OK(dra_quantity_parse("3", 1, &three, NULL));
    CHECK(dra_alloc_state_aggregated(c, "drv", "pool-a", "dev-0", "memory", &q));
    CHECK_EQ_I64(dra_quantity_cmp(&q, &three), 0);
    CHECK(dra_alloc_state_aggregated(c, "drv", "pool-a", "dev-0", "compute", &q));
    CHECK_EQ_I64(dra_quantity_cmp(&q, &three), 0);
    strcpy(nm, "memory");
    r.share_id = ids[1];
    CHECK_OK(commit1(c, r, true));
    CHECK(!dra_alloc_state_aggregated(c, "drv", "pool-a", "dev-0", "memory", &q));
    CHECK(dra_alloc_state_aggregated(c, "drv", "pool-a", "dev-0", "compute", &q));
    CHECK(dra_alloc_state_check(c));
    dra_alloc_state_free(a);
    dra_alloc_state_free(b);
    dra_alloc_state_free(c);
    dra_model_fini(&m);
}

/* A release by the rows commit gave reads no allocation: it undoes exactly that commit (the
 * digest is the one before it), tells the watchers the rows with no allocation, and refuses,
 * changing nothing, a row with no exclusive allocation left or one named more often than held. */
static void test_release_excl(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra_alloc_state_t *s = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &s));
    CHECK_OK(commit1(s, res("pool-a", "dev-0", 0), false)); /* held throughout */
    uint64_t before = dra_alloc_state_digest(s);
    seen_t w;
    memset(&w, 0, sizeof w);
    CHECK_OK(dra__alloc_state_watch(s, watch_fn, &w));
    dra_result_t r[3] = {res("pool-b", "dev-1", 5), res("pool-a", "dev-2", 0),
                         res("pool-a", "dev-1", 6)};
    dra_allocation_t a;
    memset(&a, 0, sizeof a);
    a.results = r;
    a.nresults = 3;
    uint32_t rows[3];
    CHECK_OK(dra__alloc_state_commit_rows(s, &a, rows));
    uint64_t held = dra_alloc_state_digest(s);
    CHECK(held != before);
    uint32_t twice[2] = {rows[0], rows[0]};
    CHECK_EQ_I64(dra__alloc_state_release_excl(s, twice, 2), DRA_ENOTFOUND);
    uint32_t bad[2] = {rows[1], 0};
    CHECK_EQ_I64(dra__alloc_state_release_excl(s, bad, 2), DRA_ENOTFOUND);
    CHECK_EQ_I64(dra__alloc_state_release_excl(s, NULL, 1), DRA_EINVAL);
    CHECK_EQ_I64(dra_alloc_state_digest(s), held);
    CHECK_EQ_I64(w.calls, 1);
    CHECK_OK(dra__alloc_state_release_excl(s, rows, 3));
    CHECK_EQ_I64(w.calls, 2);
    CHECK_EQ_I64(w.n, 3);
    CHECK(w.had_rows);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I64(w.rows[i], rows[i]);
    CHECK(dra_alloc_state_check(s));
    CHECK_EQ_I64(dra_alloc_state_digest(s), before);
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-a", "dev-0"), 1);
    CHECK_EQ_I64(dra_alloc_state_exclusive(s, "drv", "pool-b", "dev-1"), 0);
    CHECK_EQ_I64(dra__alloc_state_release_excl(s, rows, 3), DRA_ENOTFOUND);
    CHECK_EQ_I64(dra_alloc_state_digest(s), before);
    dra__alloc_state_unwatch(s, watch_fn, &w);
    dra_alloc_state_free(s);
    dra_model_fini(&m);
}

/* Derivation tags (dra__alloc_state_share_tags): the bits of the live shares committed with
 * tags of tag0's gen and index, attempts tag0 .. tag0 + 63 only; a share without a tag, with
 * another gen or index, or on another device is not seen, nor one released; gens are unique
 * and run out at DRA__SHARE_GEN_MAX. */
static void test_share_tags(void)
{
    dra_model_t m;
    build(&m, 0);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK_OK(dra_alloc_features_set(&f, "DRAConsumableCapacity=true", NULL));
    dra_alloc_state_t *a = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &a));
    uint32_t g = dra__alloc_state_share_gen(a), h = dra__alloc_state_share_gen(a);
    CHECK(g != 0 && h != 0 && g != h);
    CHECK_EQ_U64(dra__share_id_tag(g, 32, 0), 0);  /* an index beyond the tag's */
    CHECK_EQ_U64(dra__share_id_tag(g, 0, 2048), 0); /* an attempt beyond the tag's */
    CHECK_EQ_U64(dra__share_id_tag(0, 0, 0), 0);    /* no gen */
    static char ids[16][40];
    for (uint32_t i = 0; i < 16; i++)
        snprintf(ids[i], sizeof ids[i], "%08x-0000-4000-8000-%012u", i * 2654435761u, i);
    /* dev-0 (row 1): g's index 0 at attempts 3, 5, 70 (beyond 64 from 3), 2047; g's index 1 at
     * attempt 4; h's index 0 at attempt 6; one without a tag; dev-2 (row 3): g's attempt 7 */
    const uint32_t tags[8] = {dra__share_id_tag(g, 0, 3),    dra__share_id_tag(g, 0, 5),
                              dra__share_id_tag(g, 0, 70),   dra__share_id_tag(g, 0, 2047),
                              dra__share_id_tag(g, 1, 4),    dra__share_id_tag(h, 0, 6),
                              0,                             dra__share_id_tag(g, 0, 7)};
    for (uint32_t i = 0; i < 8; i++) {
        dra_result_t r = share(i == 7 ? "dev-2" : "dev-0", i == 7 ? 3 : 1, ids[i]);
        r.share_tag = tags[i];
        CHECK_OK(commit1(a, r, false));
    }
    uint32_t t3 = dra__share_id_tag(g, 0, 3);
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0", t3),
                 UINT64_C(1) << 0 | UINT64_C(1) << 2);
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0",
                                             dra__share_id_tag(g, 0, 10)),
                 UINT64_C(1) << 60); /* 70 */
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0",
                                             dra__share_id_tag(g, 0, 2000)),
                 UINT64_C(1) << 47); /* 2047, and nothing of index 1 beyond it */
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0",
                                             dra__share_id_tag(g, 1, 0)),
                 UINT64_C(1) << 4);
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0",
                                             dra__share_id_tag(h, 0, 0)),
                 UINT64_C(1) << 6);
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 2, "drv", "pool-a", "dev-2", t3),
                 UINT64_C(1) << 4);
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0", 0), 0);
    /* released: gone from the bits */
    dra_result_t r = share("dev-0", 1, ids[1]);
    r.share_tag = tags[1];
    CHECK_OK(commit1(a, r, true));
    CHECK_EQ_U64(dra__alloc_state_share_tags(a, 0, "drv", "pool-a", "dev-0", t3), 1);
    CHECK(dra_alloc_state_check(a));
    uint32_t last = h;
    for (uint32_t i = h; i < DRA__SHARE_GEN_MAX; i++)
        last = dra__alloc_state_share_gen(a);
    CHECK_EQ_U64(last, DRA__SHARE_GEN_MAX);
    CHECK_EQ_U64(dra__alloc_state_share_gen(a), 0);
    dra_alloc_state_free(a);
    dra_model_fini(&m);
}

int main(void)
{
    RUN(test_rows_numbering);
    RUN(test_hint_equals_strings);
    RUN(test_wrong_hint_not_trusted);
    RUN(test_duplicate_id_one_entry);
    RUN(test_index_survives_growth);
    RUN(test_resolved_rows);
    RUN(test_foreign_devices_grow);
    RUN(test_rows_in_use);
    RUN(test_shares);
    RUN(test_share_tags);
    RUN(test_release_excl);
    return check_summary();
}
