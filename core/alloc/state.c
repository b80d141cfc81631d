/*
 * state.c - the allocation state (alloc.h): per device ID (driver, pool, device) the number of
 * exclusive allocations, the set of share IDs, and the aggregated consumed capacity of the shares.
 *
 * Storage: one entry per device ID in an array whose first nrows entries are the model's device
 * rows (dra_model_device_rows numbering), registered when the state is made: entry i is row i's
 * device, unless an earlier row has the same ID (an invalid pool), in which case entry i stays
 * unregistered and that device lives in the earlier row's entry. Devices the model does not have
 * (results of a foreign allocation) get entries after the rows. Device and share IDs are interned
 * in the state's own table; an entry keeps its live shares' ids with a fingerprint of each text,
 * so a release or a lookup finds a share by a scan of the device's fingerprints and one compare
 * (no hash of the text), and consumedCapacity names are found through a small cache by their
 * pointer (checked by the text); an open-addressing hash of entry indexes keyed by the three ids finds
 * any entry by its strings. A result that carries its device's row (dra_result_t.row) reaches the
 * entry in O(1) without hashing a string: the entry's hot part (st_hot_t, 16 bytes in an array
 * of its own: registration, exclusive count, the watchers' word) remembers its row's device name
 * (the model's pointer), and a result naming another pointer is compared by strings with the
 * model's row (a wrong row costs time, not correctness); an exclusive commit or release of such
 * a result reads and writes the hot part only. The digest is the wrapping sum of
 * one XXH3 per entry (and per share / capacity inside it), so it does not depend on commit order
 * and a release restores it exactly. Quantities are summed exactly (dra__aq_t).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"

typedef struct st_cap {
    uint32_t name; /* interned capacity name as written in consumedCapacity */
    uint32_t n;    /* contributions */
    dra__aq_t sum;
} st_cap_t;

/* A live share of a device: where its text is (ref) and a fingerprint of the text (share_fp), so
 * a share is found by its text with a scan of the device's few fingerprints and one compare.
 * The text of a share is kept in a cell of the state's (a shareID is a 36-character UUID:
 * SCELL_TEXT bytes at most), taken at commit from the free list and given back at release, so
 * live shares take the cells of departed ones and nothing grows in a steady state; a longer
 * text is interned (REF_INTERN). */
typedef struct st_share {
    uint32_t ref; /* cell index, or REF_INTERN | intern id; REF_MARK: taken by a release's check */
    uint32_t fp;
    uint32_t tag; /* the result's share_tag (0: not known how the text was derived) */
} st_share_t;
#define REF_INTERN 0x80000000u
#define REF_MARK 0x40000000u
#define SCELL 48u                /* a cell: length byte, text, NUL */
#define SCELL_TEXT (SCELL - 2u)  /* the longest text a cell keeps */
#define SCELL_CHUNK 256u         /* cells per chunk (state arena) */
#define SCELL_MAX (REF_MARK - 1u) /* cell indexes stay below the flag bits */

typedef struct st_dev {
    uint32_t drv, pool, dev; /* 0 = unregistered row entry */
    uint32_t row;            /* model row + 1 whose device this is (0: an entry after the rows) */
    uint32_t nshares, capshares;
    uint32_t ncaps, capcaps;
    st_share_t *shares; /* live shares (malloc) */
    st_cap_t *caps;   /* malloc */
} st_dev_t;
_Static_assert(sizeof(st_dev_t) == DRA__STATE_REST, "the rest of an entry: DRA__STATE_REST bytes");

/* What a commit or release of an exclusive result of a row reads and writes, and the watchers'
 * word, apart from the entry, in an array of its own beside the entries (s->hot[i] is entry i's):
 * 16 bytes, four a line and 256 a 4 KiB page where an entry takes a line, so the rows a steady
 * state commits and releases at random sit in a quarter of the pages (on a host whose address
 * translations are cached by 4 KiB page, a page whose translation is not cached costs a commit,
 * a release or its look-ahead's hint about 300 ns: `drabench probe`'s translation rows). */
typedef struct st_hot {
    const char *devname; /* a row entry's: its row's device name (the model's pointer), else NULL */
    uint32_t excl;       /* HOT_REG when the entry is registered (drv != 0), plus its exclusive
                          * allocations (below HOT_REG: a count that high would need 2^31 live
                          * results on one device) */
    uint32_t word;       /* the watchers' (dra__state_word): no operation of the state's reads
                          * or writes it (zero in a new entry) */
} st_hot_t;
#define HOT_REG 0x80000000u
_Static_assert(sizeof(st_hot_t) == DRA__STATE_ENT, "a row's hot entry is DRA__STATE_ENT bytes");
_Static_assert(offsetof(st_hot_t, word) == DRA__STATE_WORD_OFF,
               "dra__state_word reads the word at DRA__STATE_WORD_OFF");

/* The fingerprint of a share ID's text (len bytes): its first and last 8 bytes and its length,
 * mixed; a derived ID's first 8 characters alone are 32 random bits. O(1). */
static uint32_t share_fp(const char *t, size_t len)
{
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, t, 8);
        memcpy(&b, t + len - 8, 8);
    } else {
        memcpy(&a, t, len);
    }
    uint64_t x = (a ^ (b * 0x9e3779b97f4a7c15ULL) ^ len) * 0xff51afd7ed558ccdULL;
    return (uint32_t)(x >> 32);
}

struct dra_alloc_state {
    dra__state_hints_t hints; /* first (dra__alloc_state_hints): ents and nrows for hints in line */
    const dra_model_t *model;
    dra__beh_t beh;
    dra_arena_t arena;
    dra_intern_t intern;
    st_dev_t *ents; /* rows first, then devices the model does not have */
    st_hot_t *hot;  /* per entry (capents of them): its hot part (st_hot_t) */
    uint32_t nents, capents;
    uint64_t *hslots; /* entry index + 1 (low 32 bits, 0 = empty) and the key hash's high 32 bits
                       * (SLOT_TAG: a probe compares these before it reads the entry) */
    size_t nslots, used;
    /* first row of each slice (dra_model_device_rows) */
    uint32_t *first;
    uint32_t nfirst, nrows;
    uint64_t nops; /* commits and releases, for the amortized debug check */
    /* share texts (st_share_t): chunks of SCELL_CHUNK cells in the arena; the free cells on a
     * stack of their indexes (cstk, malloc, room for every cell: a release pushes its cell's
     * index and does not touch the cell's line, long cold by then; a commit takes the top) */
    char **cchunk;
    uint32_t ncchunk, capcchunk, ncells;
    uint32_t *cstk;
    uint32_t nfree; /* cells on the stack */
    /* dra_alloc_state_reserve_shares: the free places per device it was last asked for, and
     * the entries a commit left with fewer (tight; all of them when it overflowed) */
    uint32_t room;
    uint32_t share_gens; /* dra__alloc_state_share_gen: handed out so far */
    uint32_t tight[16], ntight;
    bool tight_all;
    /* consumedCapacity names seen (cap_id): a name's pointer repeats from result to result (the
     * model's string, an engine plan's), so its interned id is found by the pointer and one
     * compare of the text instead of a hash of it; a pointer reused for another text misses */
    struct {
        const char *p;
        const char *text; /* the interned text of id (the state's arena: it stays put) */
        uint32_t id;
    } capc[8];
    /* change watchers (alloc_impl.h, used by the fast allocator's row mirror) */
    dra_alloc_state_watch_fn watch[DRA_ALLOC_STATE_MAX_WATCH];
    void *watch_ctx[DRA_ALLOC_STATE_MAX_WATCH];
    uint32_t nwatch;
    /* DRASharedConsumableCapacity on (beh.scc): the live results' consumedCounters snapshots
     * (sharedcap.c); NULL until the first commit */
    dra__scc_ledger_t *scc;
};
_Static_assert(offsetof(struct dra_alloc_state, hints) == 0,
               "dra__alloc_state_hints reads the hints at the address");

/* Entry e's hot part, and its exclusive allocations. O(1). */
static inline st_hot_t *hot_of(const dra_alloc_state_t *s, const st_dev_t *e)
{
    return &s->hot[e - s->ents];
}
static inline uint32_t excl_of(const dra_alloc_state_t *s, const st_dev_t *e)
{
    return hot_of(s, e)->excl & ~HOT_REG;
}
/* The model row + 1 of entry e, found for result r: r's row when e is that row's entry (then its
 * own, dra_alloc_state_check: by the pointer, without reading e's line, which an exclusive
 * commit or release does not otherwise read), else e->row. O(1). */
static inline uint32_t row_of(const dra_alloc_state_t *s, const st_dev_t *e, const dra_result_t *r)
{
    return r->row && r->row <= s->nrows && e == &s->ents[r->row - 1] ? r->row : e->row;
}

/* Cell c of the share texts. */
static char *cell(const dra_alloc_state_t *s, uint32_t c)
{
    return s->cchunk[c / SCELL_CHUNK] + (size_t)(c % SCELL_CHUNK) * SCELL;
}

/* The text of a share's ref (and its length). */
static const char *share_text(const dra_alloc_state_t *s, uint32_t ref, size_t *len)
{
    if (ref & REF_INTERN) {
        uint32_t id = ref & ~(REF_INTERN | REF_MARK);
        *len = dra_intern_len(&s->intern, id);
        return dra_intern_str(&s->intern, id);
    }
    const char *x = cell(s, ref & ~REF_MARK);
    *len = (unsigned char)x[0];
    return x + 1;
}

void dra__alloc_state_set_word(const dra_alloc_state_t *cs, uint32_t row, uint32_t w)
{
    dra_alloc_state_t *s = (dra_alloc_state_t *)(uintptr_t)cs; /* the word is not state */
    if (row && row <= s->nrows)
        s->hot[row - 1].word = w;
}

void dra__alloc_state_unwatch(const dra_alloc_state_t *cs, dra_alloc_state_watch_fn fn, void *ctx)
{
    dra_alloc_state_t *s = (dra_alloc_state_t *)(uintptr_t)cs; /* watchers are not state */
    for (uint32_t i = 0; i < s->nwatch; i++)
        if (s->watch[i] == fn && s->watch_ctx[i] == ctx) {
            s->watch[i] = s->watch[s->nwatch - 1];
            s->watch_ctx[i] = s->watch_ctx[s->nwatch - 1];
            s->nwatch--;
            return;
        }
}

int dra__alloc_state_watch(const dra_alloc_state_t *cs, dra_alloc_state_watch_fn fn, void *ctx)
{
    dra_alloc_state_t *s = (dra_alloc_state_t *)(uintptr_t)cs; /* watchers are not state */
    for (uint32_t i = 0; i < s->nwatch; i++)
        if (s->watch[i] == fn && s->watch_ctx[i] == ctx)
            return DRA_OK;
    if (s->nwatch == DRA_ALLOC_STATE_MAX_WATCH)
        return DRA_ENOMEM;
    s->watch[s->nwatch] = fn;
    s->watch_ctx[s->nwatch++] = ctx;
    return DRA_OK;
}

static void notify(const dra_alloc_state_t *s, const dra_allocation_t *a, const uint32_t *rows,
                   uint32_t n)
{
    for (uint32_t i = 0; i < s->nwatch; i++)
        s->watch[i](s->watch_ctx[i], a, rows, n);
}

static uint64_t key_hash(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t k[3] = {a, b, c};
    return dra_hash64(k, sizeof k);
}

/* A slot's tag: the key hash's high 32 bits, beside the entry index + 1 in the low 32 bits, so
 * that a probe past another key reads no entry (an entry is a cache miss on large models). */
#define SLOT_TAG(h) ((h) & 0xffffffff00000000ULL)

/* Index of the entry with these ids, or UINT32_MAX. */
static uint32_t find(const dra_alloc_state_t *s, uint32_t a, uint32_t b, uint32_t c)
{
    if (!a || !b || !c)
        return UINT32_MAX;
    size_t mask = s->nslots - 1;
    uint64_t h = key_hash(a, b, c);
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        uint64_t x = s->hslots[i];
        if (!x)
            return UINT32_MAX;
        if (SLOT_TAG(x) != SLOT_TAG(h))
            continue;
        const st_dev_t *e = &s->ents[(uint32_t)x - 1];
        if (e->drv == a && e->pool == b && e->dev == c)
            return (uint32_t)x - 1;
    }
}

static void hash_put(uint64_t *slots, size_t nslots, const st_dev_t *e, uint32_t idx)
{
    uint64_t h = key_hash(e->drv, e->pool, e->dev);
    for (size_t j = (size_t)h & (nslots - 1);; j = (j + 1) & (nslots - 1))
        if (!slots[j]) {
            slots[j] = SLOT_TAG(h) | (idx + 1);
            return;
        }
}

/* Room in the hash for one more entry. */
static int hash_reserve(dra_alloc_state_t *s)
{
    if ((s->used + 1) * 4 <= s->nslots * 3)
        return DRA_OK;
    size_t nn = s->nslots * 2;
    uint64_t *ns = calloc(nn, sizeof *ns);
    if (!ns)
        return DRA_ENOMEM;
    for (size_t i = 0; i < s->nslots; i++)
        if (s->hslots[i]) {
            uint32_t k = (uint32_t)s->hslots[i] - 1;
            hash_put(ns, nn, &s->ents[k], k);
        }
    free(s->hslots);
    s->hslots = ns;
    s->nslots = nn;
    return DRA_OK;
}

static int intern3(dra_alloc_state_t *s, const char *d, const char *p, const char *v, uint32_t *a,
                   uint32_t *b, uint32_t *c)
{
    d = d ? d : "";
    p = p ? p : "";
    v = v ? v : "";
    if (dra_intern_put(&s->intern, d, strlen(d), a) || dra_intern_put(&s->intern, p, strlen(p), b) ||
        dra_intern_put(&s->intern, v, strlen(v), c))
        return DRA_ENOMEM;
    return DRA_OK;
}

static const char *nz(const char *x)
{
    return x ? x : "";
}

/* A row on its way into the hash (register_rows): its ids and their hash. */
typedef struct reg_row {
    const dra_device_t *d;
    uint32_t row, a, b, c;
    uint64_t h;
} reg_row_t;
#define REG_BATCH 32u

/* Registers rows q[0..n) in order, their slots prefetched: the ID's lookup and its insertion are
 * one probe sequence. */
static int register_batch(dra_alloc_state_t *s, const reg_row_t *q, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        const reg_row_t *r = &q[k];
        if (hash_reserve(s))
            return DRA_ENOMEM;
        size_t mask = s->nslots - 1, i;
        uint64_t x;
        bool dup = false;
        for (i = (size_t)r->h & mask; (x = s->hslots[i]) != 0; i = (i + 1) & mask) {
            const st_dev_t *o = &s->ents[(uint32_t)x - 1];
            if (SLOT_TAG(x) == SLOT_TAG(r->h) && o->drv == r->a && o->pool == r->b &&
                o->dev == r->c) {
                dup = true;
                break;
            }
        }
        if (dup)
            continue; /* the ID repeats an earlier row's: that entry is the device's */
        st_dev_t *e = &s->ents[r->row];
        e->drv = r->a;
        e->pool = r->b;
        e->dev = r->c;
        e->row = r->row + 1;
        s->hot[r->row].devname = r->d->name;
        s->hot[r->row].excl = HOT_REG;
        s->hslots[i] = SLOT_TAG(r->h) | (r->row + 1); /* the probe's first empty slot */
        s->used++;
        const dra_device_t *d = r->d;
        if (s->beh.cc && d->allow_multiple_allocations) {
            /* room for its first shares and their capacities now, not at a (timed) commit */
            e->capshares = 4;
            e->capcaps = d->ncaps;
            e->shares = malloc(e->capshares * sizeof *e->shares);
            e->caps = d->ncaps ? malloc(d->ncaps * sizeof *e->caps) : NULL;
            if (!e->shares || (d->ncaps && !e->caps))
                return DRA_ENOMEM;
        }
    }
    return DRA_OK;
}

/* Register every model row's device (see the top), in model row order. A slice's driver and
 * pool are interned once; rows go in batches whose hash slots are prefetched first (one cache
 * miss a row otherwise, in a table of millions of slots). O(devices). */
static int register_rows(dra_alloc_state_t *s)
{
    const dra_model_t *m = s->model;
    reg_row_t q[REG_BATCH];
    uint32_t n = 0;
    for (uint32_t si = 0; si < s->nfirst; si++) {
        const dra_slice_t *sl = m->slices[si];
        const char *dn = nz(sl->driver), *pn = nz(sl->pool_name);
        uint32_t a, b;
        if (sl->ndevices && (dra_intern_put(&s->intern, dn, strlen(dn), &a) ||
                             dra_intern_put(&s->intern, pn, strlen(pn), &b)))
            return DRA_ENOMEM;
        for (uint32_t di = 0; di < sl->ndevices; di++) {
            reg_row_t *r = &q[n++];
            const char *v = nz(sl->devices[di].name);
            if (dra_intern_put(&s->intern, v, strlen(v), &r->c))
                return DRA_ENOMEM;
            r->d = &sl->devices[di];
            r->row = s->first[si] + di;
            r->a = a;
            r->b = b;
            r->h = key_hash(a, b, r->c);
            __builtin_prefetch(&s->hslots[(size_t)r->h & (s->nslots - 1)]);
            if (n == REG_BATCH) {
                if (register_batch(s, q, n))
                    return DRA_ENOMEM;
                n = 0;
            }
        }
    }
    return register_batch(s, q, n);
}

int dra_alloc_state_new(const dra_model_t *m, const dra_alloc_features_t *f,
                        dra_alloc_state_t **out)
{
    dra_alloc_state_t *s = calloc(1, sizeof *s);
    if (!s)
        return DRA_ENOMEM;
    s->model = m;
    dra__beh_init(&s->beh, f);
    dra_arena_init(&s->arena, 64 * 1024);
    dra_intern_init(&s->intern, &s->arena);
    s->nfirst = m ? m->nslices : 0;
    s->first = malloc(((size_t)s->nfirst + 1) * sizeof *s->first);
    if (s->first)
        s->nrows = m ? dra_model_device_rows(m, s->first) : 0;
    s->nslots = 64;
    while (s->nslots / 4 * 3 < (size_t)s->nrows + 1)
        s->nslots *= 2;
    s->hslots = calloc(s->nslots, sizeof *s->hslots);
    s->capents = s->nrows + 16;
    s->nents = s->nrows;
    s->ents = calloc(s->capents, sizeof *s->ents);
    s->hot = calloc(s->capents, sizeof *s->hot);
    if (!s->hslots || !s->first || !s->ents || !s->hot || register_rows(s)) {
        dra_alloc_state_free(s);
        return DRA_ENOMEM;
    }
    s->hints.ents = (const unsigned char *)s->hot;
    s->hints.rest = (const unsigned char *)s->ents;
    s->hints.nrows = s->nrows;
    *out = s;
    return DRA_OK;
}

void dra_alloc_state_free(dra_alloc_state_t *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->ents && i < s->nents; i++) {
        free(s->ents[i].shares);
        free(s->ents[i].caps);
    }
    free(s->ents);
    free(s->hot);
    dra__scc_ledger_free(s->scc);
    free(s->cchunk);
    free(s->cstk);
    free(s->hslots);
    free(s->first);
    dra_intern_fini(&s->intern);
    dra_arena_fini(&s->arena);
    free(s);
}

/* The model device of row `row` (0-based) when it is the device (driver, pool, device) names,
 * else NULL. O(log slices). */
static const dra_device_t *row_device(const dra_alloc_state_t *s, uint32_t row, const char *d,
                                      const char *p, const char *v)
{
    if (row >= s->nrows || !s->nfirst)
        return NULL;
    uint32_t lo = 0, hi = s->nfirst - 1; /* last slice whose first row <= row */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (s->first[mid] <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    const dra_slice_t *sl = s->model->slices[lo];
    uint32_t i = row - s->first[lo];
    if (i >= sl->ndevices)
        return NULL;
    const dra_device_t *dev = &sl->devices[i];
    if (strcmp(nz(dev->name), nz(v)) || strcmp(nz(sl->pool_name), nz(p)) ||
        strcmp(nz(sl->driver), nz(d)))
        return NULL;
    return dev;
}

/* The entry a result's row hint leads to, or NULL (no hint, an unregistered row, or not that
 * device). O(1); the strings are compared only when the name is not the model's own pointer.
 * In line at the one-result commit (dra__alloc_state_commit_share), a call elsewhere (by_row: in
 * line in the release's loops it cost more registers than the call saved). */
static DRA_ALWAYS_INLINE st_dev_t *by_row_at(const dra_alloc_state_t *s, const dra_result_t *r)
{
    uint32_t row = r->row;
    if (!row || row > s->nrows)
        return NULL;
    const st_hot_t *h = &s->hot[row - 1];
    if (!(h->excl & HOT_REG))
        return NULL;
    if (h->devname != r->device && !row_device(s, row - 1, r->driver, r->pool, r->device))
        return NULL;
    DRA_ASSERT_EXPENSIVE(row_device(s, row - 1, r->driver, r->pool, r->device) != NULL);
    return &s->ents[row - 1];
}
DRA_NOINLINE static st_dev_t *by_row(const dra_alloc_state_t *s, const dra_result_t *r)
{
    return by_row_at(s, r);
}

static int get_or_add(dra_alloc_state_t *s, const dra_result_t *r, st_dev_t **out)
{
    st_dev_t *hit = by_row(s, r);
    if (hit) {
        *out = hit;
        return DRA_OK;
    }
    uint32_t a, b, c;
    if (intern3(s, r->driver, r->pool, r->device, &a, &b, &c))
        return DRA_ENOMEM;
    uint32_t k = find(s, a, b, c);
    if (k == UINT32_MAX) { /* a device the model does not have */
        if (hash_reserve(s))
            return DRA_ENOMEM;
        if (s->nents == s->capents) {
            uint32_t nc = s->capents * 2;
            /* the hot parts first: grown alone, they are only larger than capents says */
            st_hot_t *nh = realloc(s->hot, (size_t)nc * sizeof *nh);
            if (!nh)
                return DRA_ENOMEM;
            s->hot = nh;
            s->hints.ents = (const unsigned char *)nh; /* the rows' hot parts moved with it */
            st_dev_t *ne = realloc(s->ents, (size_t)nc * sizeof *ne);
            if (!ne)
                return DRA_ENOMEM;
            s->ents = ne;
            s->hints.rest = (const unsigned char *)ne;
            s->capents = nc;
        }
        k = s->nents++;
        st_dev_t *e = &s->ents[k];
        memset(e, 0, sizeof *e);
        s->hot[k] = (st_hot_t){.excl = HOT_REG};
        e->drv = a;
        e->pool = b;
        e->dev = c;
        hash_put(s->hslots, s->nslots, e, k);
        s->used++;
    }
    *out = &s->ents[k];
    return DRA_OK;
}

static const st_dev_t *lookup(const dra_alloc_state_t *s, const char *d, const char *p,
                              const char *v);

/* The entry of a result's device, or NULL when the state never saw it. */
static st_dev_t *lookup_result(const dra_alloc_state_t *s, const dra_result_t *r)
{
    st_dev_t *e = by_row(s, r);
    if (e)
        return e;
    return (st_dev_t *)lookup(s, r->driver, r->pool, r->device);
}

static const st_dev_t *lookup(const dra_alloc_state_t *s, const char *d, const char *p,
                              const char *v)
{
    d = d ? d : "";
    p = p ? p : "";
    v = v ? v : "";
    uint32_t k = find(s, dra_intern_find(&s->intern, d, strlen(d)),
                      dra_intern_find(&s->intern, p, strlen(p)), dra_intern_find(&s->intern, v, strlen(v)));
    return k == UINT32_MAX ? NULL : &s->ents[k];
}

bool dra_alloc_state_check(const dra_alloc_state_t *s)
{
    if (!s || !s->hslots || !s->ents || (s->nslots & (s->nslots - 1)) ||
        s->used * 4 > s->nslots * 3 || s->nents < s->nrows || s->nents > s->capents)
        return false;
    /* the hint view follows the hot parts wherever they moved */
    if (!s->hot || s->hints.ents != (const unsigned char *)s->hot ||
        s->hints.rest != (const unsigned char *)s->ents || s->hints.nrows != s->nrows)
        return false;
    size_t used = 0, mask = s->nslots - 1;
    for (size_t i = 0; i < s->nslots; i++) {
        uint64_t x = s->hslots[i];
        uint32_t k = (uint32_t)x;
        if (!x)
            continue;
        used++;
        if (k == 0 || k > s->nents)
            return false;
        const st_dev_t *e = &s->ents[k - 1];
        if (!e->drv || !e->pool || !e->dev)
            return false;
        uint64_t h = key_hash(e->drv, e->pool, e->dev);
        if (SLOT_TAG(x) != SLOT_TAG(h)) /* its tag is its key's */
            return false;
        /* reachable: no empty slot between its home and its place */
        for (size_t j = (size_t)h & mask; j != i; j = (j + 1) & mask)
            if (!s->hslots[j])
                return false;
    }
    if (used != s->used)
        return false;
    size_t registered = 0;
    for (uint32_t i = 0; i < s->nents; i++) {
        const st_dev_t *e = &s->ents[i];
        const st_hot_t *h = &s->hot[i];
        if (!e->drv) { /* only a row whose ID repeats an earlier row's, with no record */
            if (i >= s->nrows || h->excl || h->devname || e->nshares || e->ncaps)
                return false;
            continue;
        }
        if (!(h->excl & HOT_REG) || (!e->row && h->devname))
            return false;
        registered++;
        if (find(s, e->drv, e->pool, e->dev) != i)
            return false;
        if (e->nshares > e->capshares || e->ncaps > e->capcaps)
            return false;
        for (uint32_t k = 0; k < e->nshares; k++) {
            size_t len;
            const char *t = share_text(s, e->shares[k].ref, &len);
            if ((e->shares[k].ref & REF_MARK) || !t || e->shares[k].fp != share_fp(t, len))
                return false;
        }
        for (uint32_t k = 0; k < e->ncaps; k++) {
            if (!e->caps[k].n)
                return false;
            for (uint32_t k2 = 0; k2 < k; k2++)
                if (e->caps[k2].name == e->caps[k].name)
                    return false;
        }
        if ((i < s->nrows) != (e->row != 0) || (e->row && e->row != i + 1))
            return false;
        if (e->row) {
            const dra_device_t *d = row_device(s, e->row - 1, dra_intern_str(&s->intern, e->drv),
                                               dra_intern_str(&s->intern, e->pool),
                                               dra_intern_str(&s->intern, e->dev));
            if (!d || d->name != h->devname)
                return false;
        }
    }
    return registered == s->used;
}

#if DRA_DEBUG >= 3
/* The debug check of commit / release, amortized: at powers of two and every 4096th call. */
static bool check_now(dra_alloc_state_t *s)
{
    uint64_t n = ++s->nops;
    return !(n & (n - 1)) || !(n & 4095);
}
#endif

/* The index of the live share with text t (len bytes) on e, -1 when none (a share marked by a
 * release's check is not live): its fingerprint among the device's, then the text. O(shares of
 * the device). */
static int share_at(const dra_alloc_state_t *s, const st_dev_t *e, const char *t, size_t len)
{
    uint32_t fp = share_fp(t, len);
    for (uint32_t i = 0; i < e->nshares; i++) {
        uint32_t ref = e->shares[i].ref;
        if (e->shares[i].fp != fp || (ref & REF_MARK))
            continue;
        size_t l;
        const char *x;
        if (ref & REF_INTERN) {
            x = share_text(s, ref, &l);
        } else { /* a cell (share_text's common case, here without a call) */
            x = cell(s, ref);
            l = (unsigned char)x[0];
            x++;
        }
        if (l == len && !memcmp(x, t, len))
            return (int)i;
    }
    return -1;
}

/* A chunk of SCELL_CHUNK new cells, all put on the free list (each written: its pages are
 * touched here, not at the commit that takes it). DRA_ENOMEM. */
static int cells_grow(dra_alloc_state_t *s)
{
    if (s->ncells > SCELL_MAX - SCELL_CHUNK)
        return DRA_ENOMEM;
    if (s->ncchunk == s->capcchunk) {
        uint32_t nc = s->capcchunk ? s->capcchunk * 2 : 16;
        char **ncs = realloc(s->cchunk, nc * sizeof *ncs);
        if (!ncs)
            return DRA_ENOMEM;
        s->cchunk = ncs;
        s->capcchunk = nc;
    }
    char *ch = dra_arena_alloc(&s->arena, (size_t)SCELL_CHUNK * SCELL, 64);
    if (!ch)
        return DRA_ENOMEM;
    uint32_t *stk = realloc(s->cstk, ((size_t)s->ncells + SCELL_CHUNK) * sizeof *stk);
    if (!stk)
        return DRA_ENOMEM;
    s->cstk = stk;
    s->cchunk[s->ncchunk++] = ch;
    /* stacked in index order: the lowest new cell is taken first */
    for (uint32_t i = SCELL_CHUNK; i-- > 0;) {
        uint32_t c = s->ncells + i;
        cell(s, c)[0] = 0;
        s->cstk[s->nfree++] = c;
    }
    s->ncells += SCELL_CHUNK;
    return DRA_OK;
}

/* Keep share text t (len bytes) for a commit: a free cell (or a new one), or interned when
 * longer than a cell. *ref: where (st_share_t.ref). DRA_ENOMEM. O(len). */
static int share_keep(dra_alloc_state_t *s, const char *t, size_t len, uint32_t *ref)
{
    if (len > SCELL_TEXT) {
        uint32_t id;
        if (dra_intern_put(&s->intern, t, len, &id) || id >= REF_MARK)
            return DRA_ENOMEM;
        *ref = REF_INTERN | id;
        return DRA_OK;
    }
    if (!s->nfree) {
        int rc = cells_grow(s);
        if (rc)
            return rc;
    }
    uint32_t c = s->cstk[--s->nfree];
    char *x = cell(s, c);
    x[0] = (char)len;
    memcpy(x + 1, t, len);
    x[1 + len] = 0;
    *ref = c;
    return DRA_OK;
}

/* Give back the cell of a released share (an interned text stays). */
static void share_drop(dra_alloc_state_t *s, uint32_t ref)
{
    if (ref & REF_INTERN)
        return;
    s->cstk[s->nfree++] = ref & ~REF_MARK; /* room for every cell (cells_grow) */
}

/* Grow entry e's list of live shares to hold `more` more. DRA_ENOMEM. */
static int shares_room(st_dev_t *e, uint32_t more)
{
    if (e->capshares - e->nshares >= more)
        return DRA_OK;
    uint32_t nc = e->capshares ? e->capshares : 4;
    while (nc - e->nshares < more)
        nc *= 2;
    st_share_t *ns = realloc(e->shares, nc * sizeof *ns);
    if (!ns)
        return DRA_ENOMEM;
    e->shares = ns;
    e->capshares = nc;
    return DRA_OK;
}

int dra_alloc_state_reserve_shares(dra_alloc_state_t *s, uint32_t texts, uint32_t per_device)
{
    if (!s)
        return DRA_EINVAL;
    while (s->nfree < texts)
        if (cells_grow(s))
            return DRA_ENOMEM;
    if (per_device > s->room) /* more than before: every device with shares is looked at */
        s->tight_all = true;
    s->room = per_device;
    if (s->tight_all) {
        for (uint32_t i = 0; i < s->nents; i++)
            if (s->ents[i].capshares && shares_room(&s->ents[i], per_device))
                return DRA_ENOMEM;
        s->tight_all = false;
    } else {
        for (uint32_t i = 0; i < s->ntight; i++)
            if (shares_room(&s->ents[s->tight[i]], per_device))
                return DRA_ENOMEM;
    }
    s->ntight = 0;
    return DRA_OK;
}

/* The slot of consumedCapacity name nm in the state's cache of names seen (capc). */
static inline unsigned cap_slot(const char *nm)
{
    return (unsigned)(((uintptr_t)nm >> 3) ^ ((uintptr_t)nm >> 9)) & 7u;
}

/* cap_id for a name not in the cache: looked up (interned when new if put) and cached. */
static int cap_id_miss(dra_alloc_state_t *s, const char *nm, bool put, uint32_t *id)
{
    unsigned k = cap_slot(nm);
    size_t len = strlen(nm);
    if (put) {
        if (dra_intern_put(&s->intern, nm, len, id))
            return DRA_ENOMEM;
    } else {
        *id = dra_intern_find(&s->intern, nm, len);
    }
    if (*id) {
        s->capc[k].p = nm;
        s->capc[k].text = dra_intern_str(&s->intern, *id);
        s->capc[k].id = *id;
    }
    return DRA_OK;
}

/* The interned id of consumedCapacity name nm (interned when new if put; 0 when not interned
 * and !put), through the state's cache of names seen (capc): a hit is a pointer and a text
 * compared in line, a miss is cap_id_miss. DRA_ENOMEM when interning fails. */
static inline int cap_id(dra_alloc_state_t *s, const char *nm, bool put, uint32_t *id)
{
    unsigned k = cap_slot(nm);
    uint32_t c = s->capc[k].id;
    if (s->capc[k].p == nm && c && !strcmp(s->capc[k].text, nm)) {
        *id = c;
        return DRA_OK;
    }
    return cap_id_miss(s, nm, put, id);
}

/* What a result means for the state (DRA-SEMANTICS §1.7). */
enum { R_SKIP, R_EXCL, R_SHARE };
static int result_kind(const dra_alloc_state_t *s, const dra_result_t *r)
{
    if (r->admin_access)
        return R_SKIP;
    if (s->beh.cc && r->share_id)
        return R_SHARE;
    return R_EXCL;
}

/* Entries never disappear (tombstone-free open addressing); an entry with no exclusive
 * allocation, share or capacity contributes nothing to the digest. rows (when not NULL, one per
 * result) receives each result's model row + 1 as the state resolved its device, 0 for a
 * skipped result or a device after the rows. */
static int commit_rows(dra_alloc_state_t *s, const dra_allocation_t *a, uint32_t *rows,
                       dra__state_share_t *sh)
{
    if (sh)
        sh->srow = 0;
    bool first_sh = sh && !s->beh.scc; /* no share seen yet (a record keeps one at most) */
    for (uint32_t i = 0; i < a->nresults; i++) {
        const dra_result_t *r = &a->results[i];
        int k = result_kind(s, r);
        if (rows)
            rows[i] = 0;
        if (k == R_SKIP)
            continue;
        st_dev_t *e;
        if (get_or_add(s, r, &e))
            return DRA_ENOMEM;
        if (rows)
            rows[i] = row_of(s, e, r);
        if (k == R_EXCL) {
            hot_of(s, e)->excl++;
            continue;
        }
        size_t slen = strlen(r->share_id);
        if (e->nshares == e->capshares && shares_room(e, 1))
            return DRA_ENOMEM;
        uint32_t ref;
        if (share_keep(s, r->share_id, slen, &ref))
            return DRA_ENOMEM;
        uint32_t fp = share_fp(r->share_id, slen);
        e->shares[e->nshares++] = (st_share_t){.ref = ref, .fp = fp, .tag = r->share_tag};
        /* the record of the allocation's one share: what this commit computes for it, kept in
         * passing (a second share, or more entries than it holds, leaves none) */
        dra__state_share_t *keep = NULL;
        if (first_sh && r->nconsumed <= sizeof sh->nid / sizeof sh->nid[0]) {
            keep = sh;
            keep->srow = e->row;
            keep->ref = ref;
            keep->fp = fp;
            keep->ncap = r->nconsumed;
        } else if (sh) {
            sh->srow = 0;
        }
        first_sh = false;
        if (s->room && e->capshares - e->nshares < s->room) { /* for the next reserve */
            if (s->ntight < sizeof s->tight / sizeof s->tight[0])
                s->tight[s->ntight++] = (uint32_t)(e - s->ents);
            else
                s->tight_all = true;
        }
        for (uint32_t j = 0; j < r->nconsumed; j++) {
            const char *nm = r->consumed[j].name ? r->consumed[j].name : "";
            uint32_t nid;
            if (cap_id(s, nm, true, &nid))
                return DRA_ENOMEM;
            st_cap_t *c = NULL;
            for (uint32_t k2 = 0; k2 < e->ncaps; k2++)
                if (e->caps[k2].name == nid)
                    c = &e->caps[k2];
            if (!c) {
                if (e->ncaps == e->capcaps) {
                    uint32_t nc = e->capcaps ? e->capcaps * 2 : 4;
                    st_cap_t *ncs = realloc(e->caps, nc * sizeof *ncs);
                    if (!ncs)
                        return DRA_ENOMEM;
                    e->caps = ncs;
                    e->capcaps = nc;
                }
                c = &e->caps[e->ncaps++];
                memset(c, 0, sizeof *c);
                c->name = nid;
            }
            dra__aq_t v = dra__aq_from(&r->consumed[j].value);
            c->n++;
            c->sum += v;
            if (keep) {
                keep->nid[j] = nid;
                keep->amt[j] = v;
            }
        }
    }
    return DRA_OK;
}

void dra__alloc_state_prefetch_free_cell(const dra_alloc_state_t *s)
{
    if (s->nfree)
        __builtin_prefetch(cell(s, s->cstk[s->nfree - 1]), 1);
}

void dra__alloc_state_prefetch_shares(const dra_alloc_state_t *s, uint32_t row)
{
    if (!row || row > s->nrows)
        return;
    /* the commit of the share finds the entry by its hot part first (by_row): a line apart */
    __builtin_prefetch(&s->hot[row - 1], 1);
    const st_dev_t *e = &s->ents[row - 1];
    if (e->nshares)
        __builtin_prefetch(e->shares, 1);
    if (e->ncaps)
        __builtin_prefetch(e->caps, 1);
}


int dra__alloc_state_commit_rows(dra_alloc_state_t *s, const dra_allocation_t *a, uint32_t *rows)
{
    return dra__alloc_state_commit_share(s, a, rows, NULL);
}

DRA_NOINLINE static int commit_share_rest(dra_alloc_state_t *s, const dra_allocation_t *a,
                                          uint32_t *rows, dra__state_share_t *sh);

int dra__alloc_state_commit_share(dra_alloc_state_t *s, const dra_allocation_t *a,
                                  uint32_t *rows, dra__state_share_t *sh)
{
    if (sh)
        sh->srow = 0;
    if (!a)
        return DRA_OK;
    DRA_ASSERT_EXPENSIVE(!check_now(s) || dra_alloc_state_check(s));
    /* the common commit: one exclusive result of a registered row (what commit_rows does for it,
     * without its frame) */
    if (a->nresults == 1 && !s->beh.scc) {
        const dra_result_t *r = a->results;
        /* by its hot part alone (a registered row's entry is the row's: e->row is r->row) */
        st_dev_t *e = result_kind(s, r) == R_EXCL ? by_row_at(s, r) : NULL;
        if (e) {
            uint32_t one;
            if (!rows)
                rows = &one;
            s->hot[r->row - 1].excl++;
            rows[0] = r->row;
            DRA_ASSERT_INTERNAL(e->row == r->row);
            notify(s, a, rows, 1);
            return DRA_OK;
        }
    }
    return commit_share_rest(s, a, rows, sh);
}

/* dra__alloc_state_commit_share past its first tests (a not NULL, sh->srow 0). */
DRA_NOINLINE static int commit_share_rest(dra_alloc_state_t *s, const dra_allocation_t *a,
                                          uint32_t *rows, dra__state_share_t *sh)
{
    uint32_t buf[DRA_ALLOC_STATE_ROWS_MAX];
    if (!rows && a->nresults <= DRA_ALLOC_STATE_ROWS_MAX)
        rows = buf;
    int rc = commit_rows(s, a, rows, sh);
    if (rc && sh)
        sh->srow = 0;
    if (!rc && s->beh.scc) /* KEP-5941: the snapshots (sharedcap.c) */
        rc = dra__scc_ledger_commit(&s->scc, a);
    notify(s, a, rc ? NULL : rows, a->nresults);
    return rc;
}

int dra_alloc_state_commit(dra_alloc_state_t *s, const dra_allocation_t *a)
{
    return dra__alloc_state_commit_rows(s, a, NULL);
}

int dra_alloc_state_add_model_claims(dra_alloc_state_t *s)
{
    for (uint32_t i = 0; i < s->model->nclaims; i++) {
        int rc = dra_alloc_state_commit(s, s->model->claims[i]->allocation);
        if (rc)
            return rc;
    }
    return DRA_OK;
}

/* The index of a share marked taken by a release's dry run, -1 when none. */
static int find_marked(const st_dev_t *e)
{
    for (uint32_t i = 0; i < e->nshares; i++)
        if (e->shares[i].ref & REF_MARK)
            return (int)i;
    return -1;
}

int dra__alloc_state_release_rows(dra_alloc_state_t *s, const dra_allocation_t *a, uint32_t *rows)
{
    if (!a)
        return DRA_OK;
    DRA_ASSERT_EXPENSIVE(!check_now(s) || dra_alloc_state_check(s));
    uint32_t buf[DRA_ALLOC_STATE_ROWS_MAX];
    if (!rows && a->nresults <= DRA_ALLOC_STATE_ROWS_MAX)
        rows = buf;
    /* check first, so a failed release leaves the state unchanged; multiplicities within one
     * allocation are counted by a dry run that decrements and then restores */
    int rc = DRA_OK;
    uint32_t done = 0;
    st_dev_t *seen[DRA_ALLOC_STATE_ROWS_MAX]; /* the dry run's entries, for the second pass */
    bool kept = a->nresults <= DRA_ALLOC_STATE_ROWS_MAX;
    for (; done < a->nresults; done++) {
        const dra_result_t *r = &a->results[done];
        int k = result_kind(s, r);
        if (rows)
            rows[done] = 0;
        if (k == R_SKIP)
            continue;
        st_dev_t *e = lookup_result(s, r);
        if (kept)
            seen[done] = e;
        if (!e) {
            rc = DRA_ENOTFOUND;
            break;
        }
        if (rows)
            rows[done] = row_of(s, e, r);
        if (k == R_EXCL) {
            if (!excl_of(s, e)) {
                rc = DRA_ENOTFOUND;
                break;
            }
            hot_of(s, e)->excl--;
        } else {
            int idx = share_at(s, e, r->share_id, strlen(r->share_id));
            if (idx < 0) {
                rc = DRA_ENOTFOUND;
                break;
            }
            e->shares[idx].ref |= REF_MARK; /* compacted below */
        }
    }
    if (rc) {
        /* undo the dry run */
        for (uint32_t i = 0; i < done; i++) {
            const dra_result_t *r = &a->results[i];
            int k = result_kind(s, r);
            if (k == R_SKIP)
                continue;
            st_dev_t *e = lookup_result(s, r);
            if (k == R_EXCL) {
                hot_of(s, e)->excl++;
            } else {
                int z = find_marked(e);
                e->shares[z].ref &= ~REF_MARK;
            }
        }
        return rc;
    }
    for (uint32_t i = 0; i < a->nresults; i++) {
        const dra_result_t *r = &a->results[i];
        if (result_kind(s, r) != R_SHARE)
            continue;
        st_dev_t *e = kept ? seen[i] : lookup_result(s, r);
        int z = find_marked(e);
        if (z >= 0) {
            share_drop(s, e->shares[z].ref);
            e->shares[z] = e->shares[e->nshares - 1];
            e->nshares--;
        }
        for (uint32_t j = 0; j < r->nconsumed; j++) {
            const char *nm = r->consumed[j].name ? r->consumed[j].name : "";
            uint32_t nid;
            (void)cap_id(s, nm, false, &nid); /* find only: never fails */
            for (uint32_t k2 = 0; k2 < e->ncaps; k2++) {
                if (e->caps[k2].name == nid && e->caps[k2].n > 0) {
                    e->caps[k2].n--;
                    e->caps[k2].sum -= dra__aq_from(&r->consumed[j].value);
                    if (e->caps[k2].n == 0) {
                        e->caps[k2] = e->caps[e->ncaps - 1];
                        e->ncaps--;
                    }
                    break;
                }
            }
        }
    }
    if (s->beh.scc)
        dra__scc_ledger_release(s->scc, a);
    notify(s, a, rows, a->nresults);
    return DRA_OK;
}

/* Take n exclusive allocations off their rows: all or nothing (DRA_ENOTFOUND, nothing
 * changed), a row named twice taken twice. */
static inline int excl_take(dra_alloc_state_t *s, const uint32_t *rows, uint32_t n)
{
    uint32_t done = 0;
    for (; done < n; done++) {
        uint32_t row = rows[done];
        /* registered (HOT_REG) with an exclusive allocation: more than the flag alone */
        if (!row || row > s->nrows || s->hot[row - 1].excl <= HOT_REG)
            break;
        s->hot[row - 1].excl--;
    }
    if (done < n) {
        while (done--)
            s->hot[rows[done] - 1].excl++;
        return DRA_ENOTFOUND;
    }
    return DRA_OK;
}

/* The index of the live share ref with fingerprint fp on e, -1 when none. */
static int share_by_ref(const st_dev_t *e, uint32_t ref, uint32_t fp)
{
    for (uint32_t i = 0; i < e->nshares; i++)
        if (e->shares[i].ref == ref && e->shares[i].fp == fp)
            return (int)i;
    return -1;
}

int dra__alloc_state_release_rec(dra_alloc_state_t *s, const uint32_t *rows, uint32_t n,
                                 const dra__state_share_t *sh, uint32_t nsh)
{
    if ((!rows && n) || (!sh && nsh) || (nsh && s->beh.scc) || n + nsh > DRA_ALLOC_STATE_ROWS_MAX)
        return DRA_EINVAL;
    if (!n && !nsh)
        return DRA_OK;
    DRA_ASSERT_EXPENSIVE(!check_now(s) || dra_alloc_state_check(s));
    /* every share live first (marked, so one kept twice is found once), then the exclusive
     * rows: all or nothing */
    uint32_t all[DRA_ALLOC_STATE_ROWS_MAX];
    st_dev_t *ent[DRA_ALLOC_STATE_ROWS_MAX];
    int at[DRA_ALLOC_STATE_ROWS_MAX]; /* one share alone: where it is (no mark needed) */
    uint32_t k = 0;
    int rc = DRA_OK;
    for (; k < nsh; k++) {
        uint32_t row = sh[k].srow;
        int z = -1;
        if (row && row <= s->nrows && s->ents[row - 1].drv && sh[k].ncap <= 4)
            z = share_by_ref(&s->ents[row - 1], sh[k].ref, sh[k].fp);
        if (z < 0) {
            rc = DRA_ENOTFOUND;
            break;
        }
        ent[k] = &s->ents[row - 1];
        at[k] = z;
        if (nsh > 1)
            ent[k]->shares[z].ref |= REF_MARK;
    }
    if (!rc)
        rc = excl_take(s, rows, n);
    if (rc) {
        while (nsh > 1 && k--)
            ent[k]->shares[share_by_ref(ent[k], sh[k].ref | REF_MARK, sh[k].fp)].ref &= ~REF_MARK;
        return rc;
    }
    for (uint32_t i = 0; i < nsh; i++) { /* as dra__alloc_state_release_rows' second pass */
        st_dev_t *e = ent[i];
        int z = nsh > 1 ? share_by_ref(e, sh[i].ref | REF_MARK, sh[i].fp) : at[i];
        share_drop(s, e->shares[z].ref);
        e->shares[z] = e->shares[e->nshares - 1];
        e->nshares--;
        for (uint32_t j = 0; j < sh[i].ncap; j++)
            for (uint32_t k2 = 0; k2 < e->ncaps; k2++) {
                if (e->caps[k2].name == sh[i].nid[j] && e->caps[k2].n > 0) {
                    e->caps[k2].n--;
                    e->caps[k2].sum -= sh[i].amt[j];
                    if (e->caps[k2].n == 0) {
                        e->caps[k2] = e->caps[e->ncaps - 1];
                        e->ncaps--;
                    }
                    break;
                }
            }
    }
    for (uint32_t i = 0; s->beh.scc && i < n; i++) {
        const st_dev_t *e = &s->ents[rows[i] - 1];
        dra__scc_ledger_release_device(s->scc, dra_intern_str(&s->intern, e->drv),
                                       dra_intern_str(&s->intern, e->pool),
                                       dra_intern_str(&s->intern, e->dev));
    }
    if (n)
        memcpy(all, rows, n * sizeof *rows);
    for (uint32_t i = 0; i < nsh; i++)
        all[n + i] = sh[i].srow;
    notify(s, NULL, all, n + nsh);
    return DRA_OK;
}

void dra__alloc_state_prefetch_share(const dra_alloc_state_t *s, uint32_t srow, uint32_t ref)
{
    if (!srow || srow > s->nrows)
        return;
    const st_dev_t *e = &s->ents[srow - 1];
    if (e->nshares)
        __builtin_prefetch(e->shares, 1);
    if (e->ncaps)
        __builtin_prefetch(e->caps, 1);
    (void)ref; /* the share's text cell: a release no longer touches it (cstk) */
}

int dra__alloc_state_release_excl(dra_alloc_state_t *s, const uint32_t *rows, uint32_t n)
{
    if (!n)
        return DRA_OK;
    if (!rows)
        return DRA_EINVAL;
    DRA_ASSERT_EXPENSIVE(!check_now(s) || dra_alloc_state_check(s));
    /* as dra__alloc_state_release_rows: all or nothing, a row named twice released twice */
    int rc = excl_take(s, rows, n);
    if (rc)
        return rc;
    for (uint32_t i = 0; s->beh.scc && i < n; i++) {
        const st_dev_t *e = &s->ents[rows[i] - 1];
        dra__scc_ledger_release_device(s->scc, dra_intern_str(&s->intern, e->drv),
                                       dra_intern_str(&s->intern, e->pool),
                                       dra_intern_str(&s->intern, e->dev));
    }
    notify(s, NULL, rows, n);
    return DRA_OK;
}

int dra_alloc_state_release(dra_alloc_state_t *s, const dra_allocation_t *a)
{
    return dra__alloc_state_release_rows(s, a, NULL);
}

uint64_t dra_alloc_state_digest(const dra_alloc_state_t *s)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < s->nents; i++) {
        const st_dev_t *e = &s->ents[i];
        uint32_t excl = excl_of(s, e);
        if (!e->drv || (!excl && !e->nshares && !e->ncaps))
            continue;
        /* hash the strings, not the ids, so equal states built in any order agree */
        const char *d = dra_intern_str(&s->intern, e->drv), *p = dra_intern_str(&s->intern, e->pool),
                   *v = dra_intern_str(&s->intern, e->dev);
        uint64_t h = dra_hash64_seed(d, strlen(d) + 1, 1);
        h = dra_hash64_seed(p, strlen(p) + 1, h);
        h = dra_hash64_seed(v, strlen(v) + 1, h);
        sum += dra_hash64_seed(&excl, sizeof excl, h ^ 0x9e3779b97f4a7c15ULL);
        for (uint32_t j = 0; j < e->nshares; j++) {
            size_t len;
            const char *sh = share_text(s, e->shares[j].ref, &len);
            sum += dra_hash64_seed(sh, len, h ^ 0x51ed270b27c5a3f1ULL);
        }
        for (uint32_t j = 0; j < e->ncaps; j++) {
            const char *cn = dra_intern_str(&s->intern, e->caps[j].name);
            uint64_t hc = dra_hash64_seed(cn, strlen(cn), h ^ 0x2545f4914f6cdd1dULL);
            uint64_t v2[3] = {(uint64_t)e->caps[j].sum, (uint64_t)(e->caps[j].sum >> 64),
                              e->caps[j].n}; /* no padding bytes in what is hashed */
            sum += dra_hash64_seed(&v2, sizeof v2, hc);
        }
    }
    return sum;
}

uint32_t dra_alloc_state_exclusive(const dra_alloc_state_t *s, const char *driver,
                                   const char *pool, const char *device)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    return e ? excl_of(s, e) : 0;
}

uint32_t dra_alloc_state_shares(const dra_alloc_state_t *s, const char *driver, const char *pool,
                                const char *device)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    return e ? e->nshares : 0;
}

bool dra_alloc_state_has_share(const dra_alloc_state_t *s, const char *driver, const char *pool,
                               const char *device, const char *share_id)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    if (!e || !share_id)
        return false;
    return share_at(s, e, share_id, strlen(share_id)) >= 0;
}

bool dra_alloc_state_aggregated(const dra_alloc_state_t *s, const char *driver, const char *pool,
                                const char *device, const char *cap_name, dra_quantity_t *out)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    if (!e || !cap_name)
        return false;
    uint32_t nid = dra_intern_find(&s->intern, cap_name, strlen(cap_name));
    for (uint32_t j = 0; nid && j < e->ncaps; j++)
        if (e->caps[j].name == nid) {
            if (out)
                dra__aq_to(e->caps[j].sum, NULL, out);
            return true;
        }
    return false;
}

bool dra__alloc_state_cap_aq(const dra_alloc_state_t *s, const char *driver, const char *pool,
                            const char *device, const char *cap_name, dra__aq_t *out)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    if (!e || !cap_name)
        return false;
    uint32_t nid = dra_intern_find(&s->intern, cap_name, strlen(cap_name));
    for (uint32_t j = 0; nid && j < e->ncaps; j++)
        if (e->caps[j].name == nid) {
            *out = e->caps[j].sum;
            return true;
        }
    return false;
}

uint32_t dra__alloc_state_cap_n(const dra_alloc_state_t *s, const char *driver, const char *pool,
                                const char *device, const char *cap_name)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    if (!e || !cap_name)
        return 0;
    uint32_t nid = dra_intern_find(&s->intern, cap_name, strlen(cap_name));
    for (uint32_t j = 0; nid && j < e->ncaps; j++)
        if (e->caps[j].name == nid)
            return e->caps[j].n;
    return 0;
}

bool dra__alloc_state_has_capacity(const dra_alloc_state_t *s, const char *driver,
                                  const char *pool, const char *device)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    return e && e->ncaps > 0;
}

static bool entry_in_use(const dra_alloc_state_t *s, const st_dev_t *e)
{
    if (excl_of(s, e))
        return true;
    if (s->beh.bugs && s->beh.release < DRA_RELEASE_1_36)
        return false; /* before PR #139040 only AllocatedDevices counted (issue #139034) */
    return e->nshares > 0 || e->ncaps > 0;
}

void dra_alloc_state_rows_in_use(const dra_alloc_state_t *s, uint8_t *out, uint32_t n)
{
    const dra_model_t *m = s->model;
    uint32_t row = 0;
    for (uint32_t si = 0; m && si < m->nslices; si++) {
        const dra_slice_t *sl = m->slices[si];
        for (uint32_t di = 0; di < sl->ndevices; di++, row++) {
            if (row >= n)
                return;
            /* as dra_alloc_state_row_flags: the row's entry when it is its device's (by_row, a
             * pointer comparison), else the strings */
            dra_result_t r = {.driver = sl->driver, .pool = sl->pool_name,
                              .device = sl->devices[di].name, .row = row + 1};
            const st_dev_t *e = lookup_result(s, &r);
            out[row] = e && entry_in_use(s, e);
        }
    }
}

bool dra_alloc_state_in_use(const dra_alloc_state_t *s, const char *driver, const char *pool,
                            const char *device)
{
    const st_dev_t *e = lookup(s, driver, pool, device);
    return e && entry_in_use(s, e);
}

unsigned dra_alloc_state_row_flags(const dra_alloc_state_t *s, uint32_t row, const char *driver,
                                   const char *pool, const char *device)
{
    dra_result_t r = {.driver = driver, .pool = pool, .device = device,
                      .row = row < UINT32_MAX ? row + 1 : 0};
    const st_dev_t *e = lookup_result(s, &r);
    if (!e)
        return 0;
    return (excl_of(s, e) ? DRA_STATE_EXCL : 0u) | (entry_in_use(s, e) ? DRA_STATE_IN_USE : 0u) |
           (e->ncaps ? DRA_STATE_CAP : 0u) | (e->nshares ? DRA_STATE_SHARE : 0u);
}

bool dra__alloc_state_scc(const dra_alloc_state_t *s, const dra__scc_ledger_t **out)
{
    *out = s->scc;
    return s->beh.scc;
}

const dra_model_t *dra_alloc_state_model(const dra_alloc_state_t *s)
{
    return s->model;
}

uint32_t dra_alloc_state_count(const dra_alloc_state_t *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nents; i++) {
        const st_dev_t *e = &s->ents[i];
        if (e->drv && (excl_of(s, e) || e->nshares || e->ncaps))
            n++;
    }
    return n;
}

uint32_t dra__alloc_state_share_gen(dra_alloc_state_t *s)
{
    if (s->share_gens >= DRA__SHARE_GEN_MAX)
        return 0;
    return ++s->share_gens;
}

uint64_t dra__alloc_state_share_tags(const dra_alloc_state_t *s, uint32_t row, const char *driver,
                                     const char *pool, const char *device, uint32_t tag0)
{
    dra_result_t r = {.driver = driver, .pool = pool, .device = device,
                      .row = row < UINT32_MAX ? row + 1 : 0};
    const st_dev_t *e = lookup_result(s, &r);
    if (!e || !tag0)
        return 0;
    uint64_t m = 0;
    for (uint32_t i = 0; i < e->nshares; i++) {
        uint32_t d = e->shares[i].tag - tag0; /* the attempt above tag0's; wraps when below */
        if (d < 64 && !(e->shares[i].ref & REF_MARK) &&
            (e->shares[i].tag & ~DRA__SHARE_TAG_ATTEMPTS) == (tag0 & ~DRA__SHARE_TAG_ATTEMPTS))
            m |= UINT64_C(1) << d;
    }
    return m;
}

bool dra_alloc_state_row_has_share(const dra_alloc_state_t *s, uint32_t row, const char *driver,
                                   const char *pool, const char *device, const char *share_id)
{
    dra_result_t r = {.driver = driver, .pool = pool, .device = device,
                      .row = row < UINT32_MAX ? row + 1 : 0};
    const st_dev_t *e = lookup_result(s, &r);
    if (!e || !e->nshares || !share_id)
        return false;
    return share_at(s, e, share_id, strlen(share_id)) >= 0;
}

/* ---- DRASharedConsumableCapacity: the state keeps a ledger (sharedcap.c) ------------------- */

int dra__scc_check_pools(const dra__beh_t *b, const dra_alloc_state_t *st,
                         const dra__gpools_t *gp, char *err, size_t errlen)
{
    if (!b->scc)
        return DRA_OK;
    const dra__scc_ledger_t *l = NULL;
    if (st && !dra__alloc_state_scc(st, &l)) {
        snprintf(err, errlen, "feature gate DRASharedConsumableCapacity is on for the allocator "
                              "but not for its allocation state");
        return DRA_EFATAL;
    }
    (void)gp; /* the live states sharedcap.c cannot charge are withheld, not refused */
    return DRA_OK;
}
