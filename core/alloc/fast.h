/*
 * fast.h - the fast allocator: the same decisions as the reference allocator of alloc.h (same
 * outcome kind, same devices in the same order, same messages, same shareIDs for the same seed)
 * from indexes kept across calls instead of per-call rescans (DESIGN §4.3):
 *  - slices bucketed by node name once; GatherPools and the node's device layout ("slots" in
 *    upstream search order, kept per slice: nothing per device) computed once per node and
 *    reused by every later call;
 *  - selector results (class selectors + request selectors) cached per device for each distinct
 *    selector combination for the allocator's lifetime (a republished slice's rows are forgotten
 *    by dra_fast_invalidate_slice); a CEL
 *    error is cached as such and reported, with the reference's message, only when the search
 *    reaches that device in the reference's order; per-device node selection and
 *    binding-condition gating are checked per node on top;
 *  - the allocation state read per device only when the search looks at the device;
 *  - a request needing k more devices than the candidates left fails without descending
 *    (only where provably decision-preserving: no error, no share IDs, no step budget);
 *  - exact per-node fast paths (dra_fast_path_t) answer one ExactCount request without the
 *    search where the answer provably is the search's (greedy first leaf, matchAttribute
 *    groups, counters as per-node columns); out->stats.path names the path that decided.
 *
 * The API mirrors dra_alloc_new / dra_alloc_allocate / dra_alloc_free and fills the same
 * dra_alloc_outcome_t. Stats differ from the reference where work is skipped (cel_evals counts
 * real evaluations; candidates counts devices looked at); allocate_one is the number of
 * recursive search calls actually made.
 *
 * Ownership: borrows the model (which must not change while the allocator lives, except through
 * dra_model_slice_update followed by dra_fast_invalidate_slice), the state (may
 * change between calls through dra_alloc_state_commit / release) and the CEL cache. Results are
 * written into out_arena. Per-call scratch lives in an arena reset at the start of each call;
 * per-node layouts and selector caches grow in a long-lived arena (no malloc in allocate once a
 * node and a selector combination have been seen). Memory (core/alloc/README.md, "Memory"): per
 * device row a 16-byte ID record and a few bytes of hash, mirror and caches, one byte per
 * distinct selector combination; per node its gathered pools and 8 bytes per slice, plus
 * counter columns on nodes with devices consuming shared counters.
 *
 * Errors: as dra_alloc_allocate (DRA_OK whenever a decision was reached, see out->kind).
 * Cost: first call per node O(slices relevant to the node); later calls O(devices of the node
 * looked at by the search), exponential only where the reference is (bounded by max_steps).
 * Thread safety: single-threaded, like dra_allocator_t.
 */
#ifndef DRA_ALLOC_FAST_H
#define DRA_ALLOC_FAST_H

#include "alloc/alloc.h"
#include "alloc/state_hints.h"

typedef struct dra_fast dra_fast_t;

DRA_NODISCARD int dra_fast_new(const dra_model_t *m, const dra_alloc_features_t *f,
                               const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                               const dra_alloc_options_t *opts, dra_fast_t **out);
void dra_fast_free(dra_fast_t *a);
/* Put the allocator back as dra_fast_new left it, without building its model-wide indexes
 * again (slice rows, node-name and pool buckets, device-ID hash chains: they depend on the
 * model only): node layouts, counter columns, selector caches and the mirror of the state are
 * dropped (their memory kept for reuse), so the next calls do exactly what they would do on a
 * new allocator over the same model, state and CEL cache, and count the same stats (the
 * selector caches saved by dra_fast_save, if any, put back as saved). The
 * settings of dra_fast_set_pruning / _set_paths / _set_counter_word_bits are kept; the state
 * may hold allocations (the mirror is read again on demand). Cost: O(rows + nodes + pools),
 * memset-bound (about a millisecond on a million rows), no allocation. */
void dra_fast_reset(dra_fast_t *a);
/* Copy the selector caches as they are now (what dra_fast_seed_selectors and the calls so far
 * put in them) for every later dra_fast_reset to put back instead of starting them empty: a
 * caller that seeds the same caches after each reset (the placement engine's reset) saves the
 * state right after such a seeding, and the resets that follow give what reset and seeding
 * gave, the seeding then finding nothing to do. Forgotten by dra_fast_invalidate_slice and
 * replaced by the next save. Errors: DRA_ENOMEM (nothing saved), DRA_EINVAL. Cost: a copy of
 * the caches (a quarter byte per row and selector combination), untimed set-up. */
DRA_NODISCARD int dra_fast_save(dra_fast_t *a);

/* Allocate claims together on node (all-or-nothing), exactly as dra_alloc_allocate decides. */
DRA_NODISCARD int dra_fast_allocate(dra_fast_t *a, const dra_node_t *node,
                                    dra_claim_t *const *claims, uint32_t n, dra_arena_t *out_arena,
                                    dra_alloc_outcome_t *out);

/* Disable the decision-preserving pruning (tests compare allocate_one counts with it off). */
void dra_fast_set_pruning(dra_fast_t *a, bool on);
/* Where the row's mirror and its pool's version are, for a caller that hints every commit's
 * rows in line (the engine): kept by the allocator whenever they move (the allocator's first
 * member: its address is the allocator's). A row's pool number is in the row's state entry
 * (dra__state_word: the allocator's row word, DRA_FAST_WORD_*), read through the state's own
 * hint view, which follows the entries wherever they move. */
typedef struct dra_fast_hints {
    const uint8_t *mir;
    const uint32_t *pver;          /* per pool number: its version (a change bumps it) */
    const dra__state_hints_t *st;  /* the state's hint view (its row entries) */
    uint32_t nrows; /* 0: nothing to hint (the state's rows are not the allocator's) */
    bool shortcuts; /* dra_fast_shortcuts, kept wherever what it tests is set */
} dra_fast_hints_t;
/* The allocator's row word in the state's entry of each of its rows (dra__state_word), when the
 * state's rows are its own (hint view nrows > 0): the row's pool number (the index of its
 * (driver, pool) among the model's pools in the order of their first slice), and
 * DRA_FAST_WORD_DUP when another row has the same device ID (its changes are found by the
 * strings). A function of the model only (a slice update keeps every slice's pool and device
 * names), written for every row when the allocator is made. */
#define DRA_FAST_WORD_DUP 0x80000000u
#define DRA_FAST_WORD_POOL 0x7fffffffu
static inline const dra_fast_hints_t *dra_fast_hints(const dra_fast_t *a)
{
    return (const dra_fast_hints_t *)(const void *)a;
}
/* Whether the allocator answers with its shortcuts: fast paths and pruning on, no step budget,
 * no upstream-bug mode (the placement engine answers some calls itself only then: their
 * answers are those of the fast paths). O(1), in line (every placement asks it): the flag the
 * allocator keeps in its hint view. */
static inline bool dra_fast_shortcuts(const dra_fast_t *a)
{
    return a && dra_fast_hints(a)->shortcuts;
}
/* Start loading what a commit or release of the device of model row row + 1 (dra_result_t.row
 * numbering over the state's model) changes here beyond the row's state entry: the row's
 * mirror byte. What on_state_change reads besides is the row word in the state entry (start it
 * with dra__state_hint_row) and the pool's version (dra_fast_hint_pool, a step later). A hint,
 * O(1). Always in line: gcc takes a function that only hints for pure and drops a call to it
 * (core/compiler.h). */
static DRA_ALWAYS_INLINE void dra_fast_hint_row(const dra_fast_hints_t *h, uint32_t row)
{
    if (row && row <= h->nrows)
        __builtin_prefetch(&h->mir[row - 1], 1);
}
/* The next step of it: start loading the version of the row's pool (a commit or release bumps
 * it), reading the row word in the row's state entry (call it a step after
 * dra__state_hint_row started the entry). A hint, O(1). */
void dra_fast_prefetch_pool(const dra_fast_t *a, uint32_t row);
/* The same from the hint view, in line (the release look-ahead calls it a row at a time: a
 * call of its own cost it about 20 instructions a release at fleet-5k's defaults). */
static DRA_ALWAYS_INLINE void dra_fast_hint_pool(const dra_fast_hints_t *h, uint32_t row)
{
    if (row && row <= h->nrows)
        __builtin_prefetch(&h->pver[dra__state_word(h->st, row) & DRA_FAST_WORD_POOL], 1);
}

/* The path that decided a call (out->stats.path). Every path other than the search answers
 * only calls whose answer it proves equal to the search's (see fast.c, "exact per-node fast
 * paths"); anything else, and any call a path cannot finish, goes to the search. */
typedef enum dra_fast_path {
    DRA_FAST_PATH_SEARCH = 0, /* the depth-first search (the reference's, with caches) */
    DRA_FAST_PATH_FIRST,      /* one request, ExactCount k: the first k eligible devices */
    DRA_FAST_PATH_MATCH,      /* the same with matchAttribute / distinctAttribute constraints */
    DRA_FAST_PATH_COUNTERS,   /* the same over devices consuming shared counters */
    DRA_FAST_PATH_UNSAT,      /* fewer than k eligible devices, eligibility independent of the
                                 picks: unsatisfiable without the search (only with pruning on) */
    DRA_FAST_PATH_COUNT
} dra_fast_path_t;
/* "search", "first", "match", "counters", "unsat". */
const char *dra_fast_path_name(dra_fast_path_t p);

/* Decisions differ: outcome kind, message, and for ALLOCATED every claim's results (request,
 * device, adminAccess, shareID, consumed capacity, consumedCounters snapshots, tolerations,
 * binding conditions), configs and node selector. Stats are not compared. why (may be NULL)
 * gets the first difference. */
bool dra_alloc_outcome_differs(const dra_alloc_outcome_t *x, const dra_alloc_outcome_t *y,
                               char *why, size_t len);

/* ---- an allocator of either kind ------------------------------------------------------------ */

typedef enum dra_alloc_kind {
    DRA_ALLOC_REFERENCE = 0,
    DRA_ALLOC_FAST,
} dra_alloc_kind_t;

/* "reference" / "fast" -> kind; DRA_EINVAL for anything else. */
DRA_NODISCARD int dra_alloc_kind_parse(const char *s, dra_alloc_kind_t *out);
const char *dra_alloc_kind_name(dra_alloc_kind_t k);

/* A tagged pair so callers (runner, CLI, fuzzer) switch allocators with one option. */
typedef struct dra_anyalloc {
    dra_alloc_kind_t kind;
    dra_allocator_t *ref;
    dra_fast_t *fast;
} dra_anyalloc_t;

DRA_NODISCARD int dra_anyalloc_new(dra_alloc_kind_t kind, const dra_model_t *m,
                                   const dra_alloc_features_t *f, const dra_alloc_state_t *state,
                                   dra_cel_cache_t *cel, const dra_alloc_options_t *opts,
                                   dra_anyalloc_t *out);
void dra_anyalloc_free(dra_anyalloc_t *a);
/* As dra_anyalloc_free then dra_anyalloc_new with the same arguments, cheaper: the fast
 * allocator is reset (dra_fast_reset), the reference allocator, which keeps nothing across
 * calls but its scratch, is made anew. Errors: DRA_ENOMEM (the allocator is then freed),
 * DRA_EINVAL. */
DRA_NODISCARD int dra_anyalloc_reset(dra_anyalloc_t *a, const dra_model_t *m,
                                     const dra_alloc_features_t *f, const dra_alloc_state_t *state,
                                     dra_cel_cache_t *cel, const dra_alloc_options_t *opts);
/* Build what the fast allocator keeps per node (gathered pools, slot layout) ahead of the node's
 * first allocate call, so that call costs what every later one does (the runner prepares every
 * node before its timed loop). The reference allocator keeps nothing per node: a no-op.
 * Errors: DRA_ENOMEM, DRA_EINVAL. Cost: the first-call cost of the node, O(its slices). */
DRA_NODISCARD int dra_fast_prepare(dra_fast_t *a, const dra_node_t *node);
DRA_NODISCARD int dra_anyalloc_prepare(dra_anyalloc_t *a, const dra_node_t *node);

/* Claims compiled once: fill the selector cache of (cls, req) from a compiled match / error
 * bitset over some other row numbering (the placement engine's device table): col_of_row[r]
 * is the bit of model device row r (dra_model_device_rows), UINT32_MAX to leave the row to be
 * evaluated on demand. A set err bit marks the row as an error (the search evaluates it again
 * for its message when it reaches it, as it does without the seed); otherwise the match bit is
 * the selectors' answer, which must be exactly what dra__device_selectable would compute for the
 * row without node selection (class selectors, then request selectors, stopping at the first
 * false or error). Rows already cached keep their value. A call with the same col_of_row,
 * match, err and nrows as the last complete one for (cls, req) returns at once (its rows are
 * all known), unless dra_fast_invalidate_slice forgot rows since: the arrays must not change
 * in between without such a call. Errors: DRA_ENOMEM, DRA_EINVAL.
 * Cost: O(nrows), untimed setup. */
DRA_NODISCARD int dra_fast_seed_selectors(dra_fast_t *a, const dra_device_class_t *cls,
                                          const dra_exact_request_t *req, uint32_t nrows,
                                          const uint32_t *col_of_row, const uint64_t *match,
                                          const uint64_t *err);
/* A slice was republished (dra_model_slice_update; call once after each, it reads the slice's
 * `changed`): forget what the allocator derived from its devices - their cached selector results
 * (every selector combination) and capacity fits - and, when capacities, counter consumption,
 * binding conditions or allowMultipleAllocations changed, the layout of `node`, the node the
 * slice's devices are on (rebuilt at once, as by dra_fast_prepare; the old one stays in the
 * allocator's memory until it is freed). With node NULL, or when the slice's pool has slices
 * elsewhere, every node's layout is dropped and rebuilt on the node's next call. An update of
 * attributes or taints only keeps the layouts (they do not depend on them): republishing a
 * device's taints grows nothing. Requires the same device count and names
 * (dra_model_slice_update guarantees it). Errors: DRA_EINVAL, DRA_ENOMEM. Cost: O(devices
 * of the slice * selector combinations + slices of its pool) plus the node's layout. */
DRA_NODISCARD int dra_fast_invalidate_slice(dra_fast_t *a, uint32_t slice, const dra_node_t *node);
/* options.share_seed of the allocator (the engine's direct answers derive shareIDs with it,
 * dra__share_id). O(1). */
uint64_t dra_fast_share_seed(const dra_fast_t *a);
DRA_NODISCARD int dra_anyalloc_allocate(dra_anyalloc_t *a, const dra_node_t *node,
                                        dra_claim_t *const *claims, uint32_t n,
                                        dra_arena_t *out_arena, dra_alloc_outcome_t *out);

#endif /* DRA_ALLOC_FAST_H */
