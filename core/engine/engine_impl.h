/*
 * engine_impl.h - the placement engine's internal types and the calls its files make of each
 * other. Not an API: include only from the engine's own sources (the .c files of core/engine).
 * engine.h documents the semantics; ownership is the engine's (everything here is freed by
 * dra_engine_free).
 *
 * Files, each calling only files listed before it (no call cycle between files; the project's
 * layering check, harness.layering, fails on one):
 *   index.c    the candidate-node index (segment trees, admission, leapfrog) and score buckets;
 *   hazard.c   hazard nodes (pools, node selectors) and All-hazard nodes;
 *   counters.c counters of partitionable devices (set-up);
 *   direct.c   exact per-node answers from the engine's columns (direct answers);
 *   direct_multi.c  the direct answers of allocationMode All, several claims, shares of several
 *              requests (CLAIMS), and the entry points that pick direct.c's or these; -> direct
 *   summary.c  row availability and the per-signature summaries, kept on row changes;
 *                                                                         -> index, counters
 *   plan.c     signatures and plans;                   -> summary, index, direct, direct_multi
 *   commit.c   rows by device ID, commit and release;                -> summary, index, direct
 *   place.c    placement by policy, one node's answer, nodes the allocator may see;
 *                                                                -> index, direct, direct_multi
 *   update.c   slice updates, the plans' digest;     -> plan, summary, index, direct, direct_multi
 *   engine.c   set-up, teardown, node resources, introspection;
 *                                        -> commit, hazard, counters, summary, direct, index
 */
#ifndef DRA_ENGINE_IMPL_H
#define DRA_ENGINE_IMPL_H

#include <stddef.h>
#include <string.h>

#include "alloc/alloc_impl.h"
#include "base/bitset.h"
#include "base/intern.h"
#include "base/mem.h"
#include "engine/engine.h"
#include "engine/engine_tests.h"

#define NONE DRA_ENGINE_NONE
#define HAZARD INT32_MAX
#define DRA__TD_MAX 32 /* signature leaves a commit or release defers (dra__tree_touch) */

#define GRP_NONE 0xFFu /* sig_t.grp: the row is in no group */

/* A counter of a partitionable device's set (counters.c): besides its remainder (crem, 16 bytes,
 * four a line), what a commit or release reads and writes per counter it charges, in one 8-byte
 * record (a set's records are contiguous from its first counter: a set of 15 counters is 4
 * lines of remainders and 2 of records, and the charge reads no other per-counter or per-set
 * column): where its list's fitting prefix ends, and its set's first consuming row (its list's
 * entries are offsets from it). */
typedef struct dra__ctr {
    uint32_t cut;       /* the first entry of its list with more than crem (an index into cl) */
    uint32_t row0 : 31; /* its set's first consuming row: a list entry x is row row0 + cl[x].k */
    uint32_t masked : 1; /* its set is kept by masks (set_masked; what a charge reads first) */
} dra__ctr_t;
_Static_assert(sizeof(dra__ctr_t) == 8, "eight counter records a cache line");

/* A set kept by masks (counters.c): bit k is its row row0 + k. fm: the rows that fail some
 * counter; um: the rows charged (in use, with a non-zero amount: what the remainders are the
 * capacities less). */
typedef struct dra__setm {
    uint64_t fm, um;
} dra__setm_t;

/* A memo entry (counters.c): charged rows u fail rows f; u all ones: empty (no set of a class
 * has a row at bit 63). */
typedef struct dra__fmemo {
    uint64_t u, f;
} dra__fmemo_t;
#define DRA__FMEMO_N 1024u  /* entries of a memo class's table (16 KiB) */
#define DRA__FMEMO_CLS 64u  /* memo classes at most (the other sets keep their cuts) */

/* An entry of a counter's list (counters.c): its amount amts[amt], its row row0 + k. Each list
 * starts with an entry of the smallest amount there is and ends with one of the largest, both
 * of no row: the cut's moves stop at them without a bound of their own. */
typedef struct dra__clent {
    uint32_t amt;
    uint32_t k;
} dra__clent_t;
typedef struct dra__stree dra__stree_t;

/* A table row's record of what a commit or release reads and writes of it at random (e->rs; a
 * row's release finds it cold, about 20,000 pods after its commit on fleet-5k at its defaults):
 * one 16-byte record, four rows a line, instead of a line in each of four per-row arrays. No
 * loop streams one of these fields over many rows (searches read the availability bits, avb,
 * and the table's columns); a charge's siblings are rows of one device's set, whose use, failing
 * entries and signatures its refresh reads together. dra_engine_check recomputes every field. */
typedef struct dra__rowst {
    uint32_t use;   /* results committed (exclusive; shares of multi-allocatable) */
    uint32_t nfail; /* its counter entries with more than what is left (counters.c; kept while
                       e->nfail_on, else 0): it fits while 0 */
    uint32_t sigs;  /* bit i set when signature i < 32 matches it */
    uint32_t nodec; /* its model node (dra__row_node) shifted up by one, NONE kept as all ones,
                       and in bit 0 whether it consumes counters (rc_pat[r] != NONE while
                       e->nfail_on, else 0): read by dra__rs_node and dra__rs_ctr. Both are set
                       once at set-up (the tables' nodes and a row's counter consumption do not
                       change after it: a slice update that changes consumption is refused).
                       The bit rides in the line every commit and release reads, so that a row
                       without counters (every device that is not partitionable) leaves its
                       rc_pat line unread */
} dra__rowst_t;
_Static_assert(sizeof(dra__rowst_t) == 16, "four row records a cache line");
_Static_assert((-2 >> 1) == -1, "a signed right shift is arithmetic (dra__rs_node)");

/* The largest model node count whose nodes dra__rowst_t.nodec holds (set-up refuses more). */
#define DRA__RS_NODES_MAX (1u << 30)

/* Row record s's model node (dra__row_node's answer for its row, NONE kept). O(1). */
static inline uint32_t dra__rs_node(const dra__rowst_t *s)
{
    return (uint32_t)((int32_t)s->nodec >> 1);
}
/* Row record s's row consumes counters (a pattern: rc_pat != NONE; never before nfail_on). */
static inline bool dra__rs_ctr(const dra__rowst_t *s)
{
    return (s->nodec & 1u) != 0;
}
/* The nodec of model node n (< DRA__RS_NODES_MAX, or NONE) and counter bit ctr. */
static inline uint32_t dra__rs_nodec(uint32_t n, bool ctr)
{
    return n << 1 | (ctr ? 1u : 0u);
}

typedef struct sig {
    const dra_device_class_t *cls;
    const dra_exact_request_t *body; /* selectors (the first body compiled with this key) */
    uint64_t *match, *err;           /* over table rows */
    int32_t *cnt;                    /* per model node: free matching rows in the node's range */
    uint8_t *herr;                   /* per model node: an error row in the node's range */
    int32_t *tree;                   /* max segment tree, 2 * P leaves-and-inner */
    int32_t shcnt;                   /* free matching rows in the shared range */
    bool sherr;                      /* an error row in the shared range */
    bool shany;                      /* a matching or error row in the shared range */
    bool any_err;                    /* sherr or some herr */
    uint32_t td_pend;                /* model node + 1 whose leaf the commit or release in
                                        progress has yet to set (dra__tree_touch), 0: none */
    uint32_t stm;                    /* the score trees over it among the first 32 (bit i:
                                        e->st[i]; index.c), 0 in a signature made from another */
    /* matchAttribute variant (attr != NONE): cnt[n] is the largest number of free matching rows
     * of node n sharing one value of the attribute (rows without it cannot join the request),
     * shcnt counts the shared rows that have the attribute */
    uint32_t attr;                   /* table attribute column index, NONE for the plain count */
    uint8_t *grp;                    /* per row: its group among its node's (the group is
                                        gfirst[node] + grp), GRP_NONE: none */
    int32_t *gcnt;                   /* per group: free matching rows */
    uint32_t *gfirst;                /* per node: its groups [gfirst[n], gfirst[n + 1]) */
    /* allocationMode All variant (all): blk[n] counts the matching rows of node n's range that
     * are certainly in the request's "all" set and certainly not allocatable (engine.h); the leaf
     * is -1 while blk[n] > 0, else cnt[n]. noblk: the request asks for capacity with
     * DRAConsumableCapacity on (static capacity filters the set): blk stays 0. */
    bool all, noblk;
    int32_t *blk;
    /* excl != NONE: match is the selectors' match minus the rows of the node ranges that are
     * certainly in the "all" set of the All signature excl (an allocation that takes both
     * cannot succeed); err is both signatures' errors */
    uint32_t excl;
    int32_t maxset; /* most matching rows one node can see (its range + shared), -1: not yet */
    /* capacity variant (capbody != NULL, DRAConsumableCapacity): a row counts only while the
     * request's capacity fits what its shares left (cfit, per row); for the rows with shares'
     * capacity (cx), per capacity profile: whether the request can fit at all (cok) and, per
     * capacity, the most the shares may consume for it still to fit (clim: the capacity minus
     * what the request consumes, policy rounding and defaults applied) */
    const dra_exact_request_t *capbody;
    uint64_t *cfit;
    uint8_t *cok;
    dra__aq_t *clim;
} sig_t;

typedef struct alt {
    uint32_t sig;
    int32_t k;
} alt_t;

typedef struct creq {
    uint32_t alt0, nalt; /* alternatives in plan->alts; nalt 0: no condition */
} creq_t;

/* A plan answered on a node from the engine's own columns (direct.c explains when and why the
 * answer is the exact allocator's). kind DRA__DIRECT_NONE: never. */
enum { DRA__DIRECT_NONE = 0, DRA__DIRECT_FIRST, DRA__DIRECT_MATCH, DRA__DIRECT_PAIR,
       DRA__DIRECT_MULTI, DRA__DIRECT_CLAIMS /* direct_multi.c */ };
#define DRA__DIRECT_MAX_REQ 8 /* requests of a claim the direct answers serve (MULTI) */
typedef struct dra__dalt {
    uint32_t sig;                    /* the alternative's signature */
    uint32_t k;                      /* ExactCount */
    bool cons;                       /* some eligible row consumes counters */
    bool multi;                      /* some eligible row is multi-allocatable (shares) */
    bool cg;                         /* some eligible row consumes a set with compatibility
                                        groups (the rule in force; counters.c, direct.c) */
    bool match;                      /* MULTI: the request has a matchAttribute of its own */
    uint32_t attr;                   /* its constrained table column, NONE: no row has it */
    const uint64_t *cfit;            /* multi: the capacity signature's fit bits (a multi row
                                        with capacities is a candidate while set), NULL: none */
    struct dra__dcons {              /* multi: the consumedCapacity of a share for each distinct
                                        capacity list among the eligible rows (at most
                                        DRA__DCONS_MAX, plan time; others computed per answer) */
        const dra_device_t *rep;     /* a device with that list */
        dra_consumed_t *cons;        /* rep->ncaps entries (engine arena) */
    } *cc;
    uint32_t ncc;
    const dra_consumed_t **ccp;      /* multi: per capacity profile (e->cxp), cc's list for its
                                        devices, NULL: none (built after each fill of the rows,
                                        direct.c): an answer reads no model device */
    uint64_t *ok;                    /* per table row: statically eligible (direct.c) */
    const dra_exact_request_t *body;
    const char *req;                 /* the results' request name (engine arena) */
    dra_alloc_config_t *cfg;         /* the allocation's configs when it is chosen (engine arena);
                                        PAIR, MULTI: alternative 0 holds the claim's */
    uint32_t ncfg;
    /* CLAIMS (direct_multi.c) */
    bool all;                        /* allocationMode All (ok: its set among the node rows) */
    uint64_t *bad;                   /* All: members never allocatable (an untolerated taint) */
    uint64_t *okfit;                 /* matchAttribute over shares: ok & cfit over the node's
                                        words, written per answer (the candidates' bitset) */
    uint8_t claim;                   /* the plan's claim of the request; the first request of
                                        each claim holds the claim's configs */
    uint8_t grp;                     /* the first request with the same candidates (itself when
                                        none before it); gk: its group's devices (leader) */
    uint32_t gk;
} dra__dalt_t;
#define DRA__DCONS_MAX 8
typedef struct dra__direct {
    uint8_t kind;
    bool fallible;   /* an answer may be left to the allocator (counters with k >= 2) */
    bool cons;       /* some alternative consumes counters */
    bool multi;      /* some alternative may take shares (FIRST only) */
    bool cg;         /* some alternative reads compatibility groups (served "direct-groups") */
    uint32_t ncons;  /* alternatives with counters */
    uint64_t share_seed; /* multi: the allocator's options.share_seed (dra__share_id) */
    uint32_t share_gen;  /* multi: this plan's derivation gen in the state (dra__share_id_tag;
                            0: none, its derived shares are kept without tags) */
    bool sid_ok;         /* multi: sid_f, sid_n hold the claim's namespace and name and their
                            lengths (dra__share_id_begin_named; plan time: claims are compiled
                            once), else each answer reads them from the claim */
    const char *sid_f[2];
    size_t sid_n[2];
    uint32_t attr;   /* MATCH, PAIR: the constrained table column, NONE: no row has it */
    uint32_t nalt;   /* FIRST: the request's alternatives in order (firstAvailable: its
                        subrequests); MATCH: one; PAIR: the two requests; MULTI: one per
                        request, each answered alone (FIRST, or MATCH with its own attr) */
    dra__dalt_t *alt;
} dra__direct_t;

typedef struct plan {
    dra_claim_t **claims;
    uint32_t nclaims;
    bool indexed;
    bool hazard; /* some node is a hazard for this plan (an error row, a hazard node) */
    bool anyall; /* some alternative has allocationMode All */
    creq_t *reqs;
    uint32_t nreqs;
    alt_t *alts;
    uint32_t nalts;
    int64_t cpu_m, mem_b; /* pod requests (millicores, bytes); 0: none */
    /* nodes with an error row of one of the plan's signatures, ascending: always candidates
     * (the allocator may meet the error there, whatever the other requests' counts) */
    uint32_t *errn;
    uint32_t nerrn;
    bool err_all; /* an error row in the shared range: every node is an error node */
    bool nomulti; /* indexed and no alternative's signature matches a multi-allocatable row
                     (dra_engine_fit_bound counts devices; plan.c) */
    dra__direct_t d;      /* exact per-node answers from the engine's columns (direct.c) */
} plan_t;

struct dra_engine {
    const dra_model_t *m;
    const dra_table_t *t;
    dra_alloc_features_t feat;
    dra__beh_t beh;
    dra_alloc_state_t *state;
    bool state_own;      /* the state's model is m (set-up; both are fixed): its rows are ours */
    dra_cel_cache_t *cel;
    dra_anyalloc_t *alloc;
    dra_engine_opts_t opts;
    dra_arena_t arena;   /* signatures, lowered programs */
    dra_arena_t scratch; /* interpreter scratch */
    dra_arena_t spare;   /* brute-force best-fit trials */
    uint32_t nnodes;     /* model nodes */
    uint32_t P;          /* segment tree leaves (power of two >= nnodes) */
    uint32_t *tnode;     /* model node -> table node index (NONE: no rows) */
    uint32_t *mnode;     /* table node -> model node (NONE: no model node); dra__row_node */
    bool mnode_id;       /* mnode[tn] == tn for every table node (set-up: the tables' nodes are
                            the model's, in its order): dra__row_node reads no mnode line */
    uint32_t *slice_row0; /* per model slice: the model row of its first device */
    bool slice_index_ok;  /* every model slice's index field is its position */
    uint8_t *hz;         /* per model node: hazard */
    uint32_t nhazard;    /* nodes with hz set (0: hz is all zero and need not be read) */
    bool all_brute;      /* repeated node names: every plan is brute force */
    bool multiterm;
    dra__rowst_t *rs;    /* per row: its use, failing entries, signatures and model node, one
                          * record (above) */
    uint32_t *rowcfit;   /* per row: bit i set when capacity signature i < 32 fits it (its cfit
                          * bit, kept beside it: refresh_cap reads one word, not a line per
                          * signature; dra_engine_check compares them) */
    uint32_t capsig_m;   /* bit i set when signature i < 32 is a capacity signature */
    uint64_t *avb;       /* bitset per row: available (free and its counter consumption fits) */
    uint64_t *amem;      /* bitset per row: certainly in an All request's set when its selectors
                          * match */
    uint64_t *bk;         /* per row: amem and certainly not allocatable (engine.h, All); kept
                          * once there is an All signature */
    uint8_t *ahz;        /* per model node: sees a pool an All request may find incomplete */
    uint32_t nahz;
    uint32_t nall;       /* All signatures */
    uint32_t ncapsigs;   /* capacity signatures */
    uint32_t *cx_off;    /* per row: its capacities' consumption by shares at cx[cx_off], NONE */
    dra__aq_t *cx;       /* the state's aggregate per capacity name of the device, kept by
                          * commit and release of shares (cxn: contributions, as the state
                          * counts them: an aggregate without any is gone, i.e. 0) */
    uint32_t *cxn;
    /* capacity profiles of the rows with cx: rows whose capacity lists are the same (names,
     * values, policies) share one; a capacity signature's limits are per profile */
    uint32_t *cxp;       /* per row: its profile, NONE */
    uint32_t ncxp;
    uint32_t *cxp_row;   /* per profile: a row of it */
    uint32_t *cxp_off;   /* per profile: its capacities' limits at clim[cxp_off[p]], ncxp + 1 */
    /* counters of partitionable devices (DRAPartitionableDevices on): sets by (driver, pool,
     * name), what is left of their counters after the rows in use, each row's consumption
     * entries and each set's consuming rows. A row's entries are a pattern shared by every row
     * that consumes the same amounts at the same offsets from its first counter (the MIG
     * placements of every GPU of a model): row r has pattern rc_pat[r] (NONE: no entries) at
     * counter rc_base[r]; dra__ent_* below read them. */
    uint32_t nsets, nctrs;
    uint32_t *set_ctr0, *set_nctr; /* counters of set i: [set_ctr0, +set_nctr) */
    const dra_counter_set_t **set_def;
    dra__aq_t *crem;               /* per counter: capacity minus what the rows in use consume
                                      (while cl_v64 is false; else crem64 holds it) */
    int64_t *crem64;               /* per counter while cl_v64: its remainder >> cl_shift, exact,
                                      the remainder itself (dra__crem); engine arena */
    int64_t *amt64;                /* per amount (amts) while cl_v64: amts[a] >> cl_shift, exact
                                      for every amount a pattern names; engine arena */
    dra__ctr_t *ctrs;              /* per counter: its record (above), 64-byte aligned */
    uint32_t *rc_pat, *rc_base;    /* per row */
    uint32_t *pat_off;             /* per pattern: entries [pat_off[p], pat_off[p + 1]) */
    uint32_t *pat_nz;              /* per pattern: its entries of non-zero amounts come first and
                                      end at pat_nz[p] (what a charge moves; a zero amount
                                      moves nothing) */
    int32_t *pat_d;                /* per pattern entry: counter offset from the row's base */
    uint32_t *pat_a;               /* per pattern entry: its amount, an index into amts */
    uint32_t npats;
    dra__aq_t *amts;                /* the distinct amounts (dictionary) */
    uint32_t namts;
    uint32_t *ctr_set;             /* per counter: its set */
    uint32_t *sr_off, *sr_n, *srows; /* per set: consuming rows */
    uint32_t *set_rspan;           /* per set: its first and last consuming rows (2 a set), for
                                      the commit's prefetch without a cold load of srows */
    /* what a change of one counter's remainder can flip: sets of one shape (their consuming
     * rows have the same patterns at the same offsets from the set's first counter) share, per
     * counter d of the set, the list cl[cl_off[shp_ctr0[shape] + d] .. cl_off[... + d + 1]) of
     * the entries on it, ascending by amount between its two bounds (each entry's row an offset
     * from the set's first consuming row: the shape includes those offsets); a counter's record
     * (ctrs) keeps its cut and that row; rs[r].nfail counts per row the entries with more than
     * what is left (the row fits its counters while it is 0) */
    uint32_t *set_shape, *shp_ctr0, nshapes;
    uint32_t *cl_off;
    uint32_t amt_lo, amt_hi;        /* the amounts of the lists' bounds (amts) */
    dra__clent_t *cl;
    int64_t *cl_v;                  /* per list entry, beside cl: its amount >> cl_shift (the
                                       bounds': INT64_MIN, INT64_MAX), what a charge compares */
    bool cl_v64;                    /* every cl_v is exact, and every remainder's copy too
                                       (counters.c) */
    uint32_t cl_shift;              /* at most 63 */
    bool nfail_on;                  /* rs[r].nfail is kept (there are counters) */
    uint32_t *cflip, ncflip;        /* a charge's rows whose fit changed (dra__counters_charge):
                                       room for the most one charge can report,
                                       and a slot more (dra__apply_row_charged) */
    /* sets kept by masks (counters.c): a set whose consuming rows consume no other set and lie
     * within 64 rows of its first (row0 + k, k < 64) keeps its rows' fit as bits: per list
     * entry x, cl_suf[x] has bit k of every row with an entry at x or after it in the list (up
     * to the bound), so the rows that fail counter c are cl_suf[ctrs[c].cut]; such a row's nfail
     * says whether it fails (DRA__NFAIL_CTR) instead of how many entries do */
    uint8_t *set_masked;            /* per set (NULL: none) */
    uint32_t *rc_span;              /* per row of such a set, four: its set's counters [c0, c1),
                                       its set's memo class + 1 (0: none), and in one word its
                                       bit (the row's offset from the set's first consuming row,
                                       bits 0-7), its set's last consuming row's offset from the
                                       first (bits 8-15) and its first counter's offset from c0
                                       (rc_base[r] - c0, bits 16-31; the memo classes' sets have
                                       fewer than 2^16 counters): what the charge and the release
                                       look-ahead read, no per-set column */
    uint64_t *cl_suf;               /* per list entry, beside cl */
    uint32_t *cl_run;               /* per list entry x, two: the first entry of its run (the
                                       entries of its list with its amount) and the entry after
                                       the run; a masked charge moves a cut a run at a time */
    dra__setm_t *set_m;             /* per counter c0 that is such a set's first: its failing
                                       and its charged rows (dra__setm_t), kept by every charge */
    /* the memo of the sets kept by masks (counters.c): sets of one shape and the same
     * capacities (a memo class) fail the same rows when the same rows are charged, so a
     * charge looks the failing rows up by its set's charged rows (dra__setm_t.um) in its
     * class's table of DRA__FMEMO_N entries (direct-mapped, each filled from the remainders
     * on a miss) instead of moving its counters' cuts; a set of such a class keeps no cuts.
     * NULL: no class (then every set keeps its cuts) */
    dra__fmemo_t *fmemo;
    uint32_t nfmcls;                /* memo classes */
    /* compatibility groups (1.37, KEP-5963; counters.c): with the rule in force (enforced, or
     * the version-skew skip) the counter sets whose consuming devices declare groups keep the
     * state the allocator's baseline folds from their devices in use (cg_kind, cg_m), and a row
     * the baseline refuses counts one more failing entry in nfail (cg_row & DRA__CG_REF): the
     * availability bit and every summary then say what the allocator's check says for a claim
     * of one device. cg_on: all of this is kept (else a plan over grouped rows is never direct).
     * A record is one consumesCounters entry of a row naming a grouped set: rows' records are
     * [rcg_off[r], rcg_off[r + 1]), a set's members' records cgm[cgm_off[s] .. cgm_off[s + 1]).
     * Group names are bits of a mask (at most 64 distinct names). */
    bool cg_on;
    uint32_t *rcg_off;
    uint32_t *rec_set, *rec_row;
    uint64_t *rec_mask;
    uint8_t *rec_grp;    /* the entry declares groups (ngroups > 0, whatever the names) */
    uint32_t *cgm_off, *cgm;
    uint8_t *cg_kind;    /* per set: DRA__CG_EMPTY, _NOGRP, _GRP, _MIXED */
    uint64_t *cg_m;      /* per set (_GRP): the intersection of the in-use members' groups */
    uint32_t *cg_ng, *cg_nn; /* per set: members in use with groups, without */
    uint64_t *cg_u;      /* per set: the union of its members' groups */
    uint32_t *cg_coff, *cg_cnt; /* per set: per group of cg_u (in bit order) the members in use
                                   that have it, cg_cnt[cg_coff[s] ..] */
    uint8_t *cg_row;     /* per row: DRA__CG_REF, DRA__CG_DUP, DRA__CG_DECL */
    uint32_t *hslots;    /* (driver, pool, device) -> row + 1, open addressing */
    uint32_t nhslots;
    uint32_t *ord_row;   /* per model device row (dra_result_t.row - 1): its table row, NONE when
                            another device has the same (driver, pool, device) */
    uint32_t nord;
    sig_t *sigs;
    uint32_t nsigs, capsigs;
    uint32_t attrsigs;   /* bit i: signature i < 32 is a matchAttribute one (attr != NONE) */
    plan_t *plans;
    uint32_t nplans, capplans;
    uint32_t nlowered, ninterpreted;
    /* scores and buckets */
    uint32_t *score;
    uint32_t nbuckets;   /* the last bucket holds every score >= nbuckets - 1 */
    uint32_t W, W2;      /* words per bucket bitset, per bucket summary */
    uint64_t *bbits;     /* nbuckets * W */
    uint64_t *bsum;      /* nbuckets * W2: word w of the bucket is non-zero */
    uint32_t *bcount;
    bool buckets_live;   /* the buckets follow the scores (from the first best-fit / spread
                          * placement or dra_engine_prepare_policy on; first-fit never reads
                          * them, so commits do not keep them before) */
    uint32_t *tried;     /* per node: placement epoch of the last overflow-bucket trial */
    /* score trees (index.c): best-fit and spread over plans with a request of one alternative */
    struct dra__stree {
        uint32_t sig; /* its signature */
        int32_t need; /* a node is a candidate while the signature's leaf is at least this */
        bool most;    /* best-fit (keys: scores), else spread (keys: reversed scores) */
        int32_t *t;   /* max segment tree of the keys, -1: not a candidate */
    } *st;
    uint32_t nst, capst;
    uint32_t *hidden;    /* nodes tried and hidden during one placement (nnodes) */
    uint32_t nhidden;
    uint32_t epoch;
    uint64_t placements[DRA_ENGINE_PATH_COUNT];
    /* direct answers (direct.c) */
    struct dra__nrange {
        uint32_t begin, end; /* the node's range of table rows */
        const char *name;    /* its name (the result's node selector) */
        bool direct;         /* the range may be answered directly (direct.c, node_direct) */
    } *nrange;            /* per model node: what an answer reads about the node, together */
    struct dra__nsel {    /* per model node (direct answers on): the node selector of its results */
        dra_node_selector_t ns;
        dra_ns_term_t term;
        dra_ns_req_t req;
        const char *val;
    } *nsel;
    struct dra__rid {     /* per table row (direct answers on): what a result names, together in
                             16 bytes (direct.c, build_answer): the device's name (the model's),
                             its model row + 1 (dra_result_t.row), its table pool, and whether it
                             has binding conditions (else its model device is not read); engine
                             arena */
        const char *device;
        uint32_t row1;
        uint32_t pool : 31;
        uint32_t bind : 1;
    } *rid;
    uint32_t nneg;        /* counters with more in use than their capacity */
    bool direct_on;       /* the allocator is the fast one with its shortcuts and no budget */
    bool direct_now;      /* direct_on and the shortcuts still on (set per placement: tests may
                             switch them off after set-up) */
    bool any_groups;      /* some device declares compatibilityGroups (1.37; slice updates cannot
                             change consumption, so neither this) */
    dra_arena_t vscratch; /* verification of direct answers against the allocator */
    /* the caller's result slot of the placement under way (dra_engine_place_slot; NULL: none)
     * and what of it is taken; reached through a pointer so the answer's builders, which take
     * the engine const, can take from it (direct.c: dra__direct_take) */
    struct dra__pslot {
        dra_engine_slot_t *s;
        size_t used;
        uint64_t kbase; /* the templates' key but the alternative and count (0: none) */
    } pslot, *ps;
    uint32_t dgen; /* direct answers compiled (a slot's template names the generation) */
    /* node resources: allocatable (millicores, bytes; -1 unlimited) and what placed pods use */
    int64_t *cpu_cap, *mem_cap, *cpu_used, *mem_used;
    /* release records (commit.c; the records are the caller's memory) */
    uint32_t rec_n;      /* rows recorded so far by the commit in progress */
    uint32_t rec_ns;     /* shares recorded so far (0 or 1), rec_sh_srow / rec_sh_row its rows */
    uint32_t rec_sh_srow, rec_sh_row;
    uint8_t rec_cidx[DRA_ENGINE_REC_CAPS]; /* the capacity each consumed entry of the last share
                                              dra__cap_share applied names (a record's) */
    uint32_t rec_capmask, rec_capmask_n; /* the capacity signatures among the first 32, as of
                                            rec_capmask_n signatures (a look-ahead hint) */
    uint32_t rec_held;   /* records held (committed, not yet released) */
    uint8_t rec_ctr;     /* DRA_ENGINE_REC_CTR once a row recorded by the commit in progress
                            consumes counters (its row record's bit), else 0 */
    /* signature leaves a commit or release in progress changed (commit.c): set once each at
     * its end instead of once per row that moved a count (dra__tree_touch) */
    bool td_on;
    uint32_t ntd;
    uint32_t td_sig[DRA__TD_MAX]; /* the signatures whose td_pend is set */
#if DRA_DEBUG
    /* what commits and releases did (engine_tests.h; debug builds only, none in a timed
     * Release build): rows refreshed, rows whose availability flipped, counter-list entries a
     * counter's cut moved over, signature leaves set */
    dra_engine_work_t work;
#endif
    /* slice updates (update.c): scratch kept across updates, and what they did */
    dra_arena_t upd_arena;
    bool upd_init;
    uint32_t nupdates;
    uint64_t upd_rows;  /* (row, signature) pairs re-derived */
    uint64_t upd_evals; /* selector evaluations by the interpreter */
    /* the image dra_engine_reset restores (engine.c; NULL: none saved) */
    struct dra__engine_img *img;
    /* rows with an attribute of kind DRA_ATTR_NONE, which fails every selector (plan.c): gathered
     * once instead of once a signature; a slice update clears badattr_ok (malloc) */
    uint32_t *badattr;
    uint32_t nbadattr;
    bool badattr_ok;
};

/* Model node of table row r (NONE: shared range or no model node). O(1). */
static inline uint32_t dra__row_node(const dra_engine_t *e, uint32_t r)
{
    uint32_t tn = e->t->node[r];
    return tn == DRA_ENGINE_NONE || e->mnode_id ? tn : e->mnode[tn];
}

/* ---- strings of rows, device-ID hashing ---- */

/* s, or "" for NULL. */
static inline const char *dra__nz(const char *s)
{
    return s ? s : "";
}

/* The hash of a device ID (also of a counter set's (driver, pool, name)). */
static inline uint64_t dra__key_hash(const char *driver, const char *pool, const char *device)
{
    uint64_t h = dra_hash64(driver, strlen(driver));
    h = dra_hash64_seed(pool, strlen(pool), h);
    return dra_hash64_seed(device, strlen(device), h);
}

/* Driver, pool and device name of table row r ("" for none). O(1). */
static inline const char *dra__row_driver(const dra_engine_t *e, uint32_t r)
{
    return dra__nz(e->t->pools[e->t->pool[r]].driver);
}

static inline const char *dra__row_pool(const dra_engine_t *e, uint32_t r)
{
    return dra__nz(e->t->pools[e->t->pool[r]].name);
}

static inline const char *dra__row_device(const dra_engine_t *e, uint32_t r)
{
    return dra__nz(e->t->dev[r]->name);
}

/* The first slot of hash h in a table of n slots (the top 32 bits scaled to n). */
static inline uint32_t dra__hslot_start(uint64_t h, uint32_t n)
{
    return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32);
}

/* ---- counter entries ---- */

/* Row r's counter entries: i in [dra__ent_b(e, r), dra__ent_e(e, r)), counter
 * dra__ent_ctr(e, r, i), amount dra__ent_amt(e, i). O(1). */
static inline uint32_t dra__ent_b(const dra_engine_t *e, uint32_t r)
{
    return e->rc_pat && e->rc_pat[r] != DRA_ENGINE_NONE ? e->pat_off[e->rc_pat[r]] : 0;
}
static inline uint32_t dra__ent_e(const dra_engine_t *e, uint32_t r)
{
    return e->rc_pat && e->rc_pat[r] != DRA_ENGINE_NONE ? e->pat_off[e->rc_pat[r] + 1] : 0;
}
static inline uint32_t dra__ent_ctr(const dra_engine_t *e, uint32_t r, uint32_t i)
{
    return e->rc_base[r] + (uint32_t)e->pat_d[i];
}
static inline dra__aq_t dra__ent_amt(const dra_engine_t *e, uint32_t i)
{
    return e->amts[e->pat_a[i]];
}

/* Counter c's list: cl[cl_off[x], cl_off[x + 1]) for the x this returns, the first and the last
 * entry its bounds (set-up and checks; a charge goes from the record's cut). */
static inline uint32_t dra__ctr_list(const dra_engine_t *e, uint32_t c)
{
    uint32_t st = e->ctr_set[c];
    return e->shp_ctr0[e->set_shape[st]] + (c - e->set_ctr0[st]);
}

/* The first entry of counter c's list with more than v (the end of the prefix that fits v), an
 * index into cl. O(log entries on the counter). */
static inline uint32_t dra__ctr_cut(const dra_engine_t *e, uint32_t c, dra__aq_t v)
{
    uint32_t x = dra__ctr_list(e, c), lo = e->cl_off[x] + 1, hi = e->cl_off[x + 1] - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->amts[e->cl[mid].amt] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- compatibility groups (counters.c) ---- */

/* A grouped counter set's devices in use, as the allocator's baseline folds them: none, only
 * devices without groups, only devices with groups (their intersection in cg_m), or both (the
 * fold's answer then depends on which device it meets first: the direct answers leave such a
 * set to the allocator, and the availability bit does not refuse on it). */
enum { DRA__CG_EMPTY = 0, DRA__CG_NOGRP, DRA__CG_GRP, DRA__CG_MIXED };
#define DRA__CG_REF 1u  /* cg_row: the baseline refuses the row (counted in nfail) */
#define DRA__CG_DUP 2u  /* cg_row: two entries of the row name one grouped set (never direct) */
#define DRA__CG_DECL 4u /* cg_row: the device declares groups (the skip refuses it for good) */

/* Whether the baseline of its grouped sets refuses row r: with the rule enforced, a set of
 * devices without groups refuses a row with groups and one of devices with groups a row without
 * or without a group of their intersection; with the version-skew skip, a device declaring
 * groups, or one joining a set whose devices in use have groups. A mixed set refuses nothing.
 * fresh: the sets' states recomputed from the rows in use (dra_engine_check), else kept ones.
 * O(records of the row), fresh O(their sets' members). */
bool dra__cg_refused(const dra_engine_t *e, uint32_t r, bool fresh);
/* Record i's row went in use (or out of use: rs[r].use says which): its set's counts and state;
 * true when the state changed. O(groups of the record + groups of the set). */
bool dra__cg_set_refresh(dra_engine_t *e, uint32_t i);
/* Row r's refusal re-derived from its sets' kept states, nfail adjusted; true when it changed
 * (the caller refreshes the row's availability). O(records of the row). */
bool dra__cg_row_refresh(dra_engine_t *e, uint32_t r);
/* Every kept set state and row refusal equals a recomputation (dra_engine_check). */
bool dra__cg_check(const dra_engine_t *e, char *why, size_t len);

/* nfail of a row of a set kept by masks (counters.c): this bit while some entry of the row has
 * more than what is left of its counter (the count of such entries is not kept). */
#define DRA__NFAIL_CTR 0x80000000u

/* Row r's counters are all of one set whose rows' fit is kept by masks (e->set_masked, counters.c:
 * dra__counters_charge). O(1). */
static inline bool dra__row_masked(const dra_engine_t *e, uint32_t r)
{
    return e->set_masked && e->rc_pat[r] != DRA_ENGINE_NONE &&
           e->set_masked[e->ctr_set[e->rc_base[r]]];
}

/* What is left of counter c: crem64's copy shifted back while cl_v64 (a charge then moves the
 * 64-bit copies only, counters.c), else crem. O(1). */
static inline dra__aq_t dra__crem(const dra_engine_t *e, uint32_t c)
{
    if (e->cl_v64)
        return (dra__aq_t)((dra__uaq_t)(dra__aq_t)e->crem64[c] << e->cl_shift);
    return e->crem[c];
}

/* Row r's counter entries with more than what is left of their counter (for a row of a set kept
 * by masks, DRA__NFAIL_CTR when there is any), plus one while the compatibility-group baseline
 * refuses it (the row fits while 0). O(entries of the row); rs[r].nfail keeps it. */
static inline uint32_t dra__row_nfail(const dra_engine_t *e, uint32_t r)
{
    uint32_t n = 0;
    for (uint32_t i = dra__ent_b(e, r), end = dra__ent_e(e, r); i < end; i++)
        n += dra__ent_amt(e, i) > dra__crem(e, dra__ent_ctr(e, r, i));
    if (n && dra__row_masked(e, r)) /* a row of a set kept by masks: whether, not how many */
        n = DRA__NFAIL_CTR;
    return n + (e->cg_on && dra__cg_refused(e, r, true));
}

/* ---- capacity in the profile's arithmetic ---- */

/* capacityFits of body b on device d, x the capacity its shares consume (NULL: none), as the
 * allocator computes it for the engine's profile (dra__capmode: 1.37's fractional ranges,
 * 1.38-pre's qualified names and unrepresentable requests): 1 fits, 0 does not, DRA__CAP_MISSING
 * or DRA__CAP_UNREPR (dra__cap_is_fatal says whether the allocator then fails the call). */
static inline int dra__eng_cap_fits(const dra_engine_t *e, const dra_exact_request_t *b,
                                    const dra_device_t *d, const dra__aq_t *x)
{
    dra__capmode_t m = dra__capmode(&e->beh);
    char err[8];
    return dra__cap_fits_m(&m, b, d, x, NULL, err, sizeof err);
}

/* A dra__eng_cap_fits result the allocator turns into Fatal when its search reaches the device
 * (1.37: a requested capacity the device lacks; 1.38-pre: an unrepresentable request). */
static inline bool dra__cap_is_fatal(const dra_engine_t *e, int rc)
{
    return (rc == DRA__CAP_MISSING && e->beh.cap_missing_fatal) || rc == DRA__CAP_UNREPR;
}

/* ---- index.c ---- */

/* Signature s's leaf of model node n: HAZARD on a hazard node or one with an error row, -1 for an
 * All signature while a member of its set is blocked, else the count. O(1). */
static inline int32_t dra__leaf_value(const dra_engine_t *e, const sig_t *s, uint32_t n)
{
    /* no hazard node (nhazard), no error row (any_err): the node's flag lines are all zero and
     * left unread (a release's node lines are cold, about 20,000 pods after its commit) */
    if ((e->nhazard && e->hz[n]) || (s->any_err && s->herr[n]))
        return HAZARD;
    return s->all && s->blk[n] ? -1 : s->cnt[n];
}
/* A max tree's slot 0 (no node of the tree: the root is 1): INT32_MAX, set where each tree is
 * built (dra__max_fill) and never written after, so that a rise stops there without a test of
 * the index (dra__max_set). */
#define DRA__TREE_TOP INT32_MAX
/* Max tree t over its leaves t[P..2P-1] (set by the caller) made whole: each inner node the
 * larger of its children, slot 0 DRA__TREE_TOP. Every tree is built by it (dra__tree_build, the
 * score trees). O(P). */
static inline void dra__max_fill(int32_t *t, uint32_t P)
{
    for (uint32_t i = P - 1; i >= 1; i--)
        t[i] = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
    t[0] = DRA__TREE_TOP;
}
/* What dra__max_fill would change in t: P when nothing (t is whole), 0 when slot 0 is not
 * DRA__TREE_TOP, else the first inner node that is not the larger of its children. For the
 * checks (dra_engine_check); O(P). */
static inline uint32_t dra__max_stale(const int32_t *t, uint32_t P)
{
    if (t[0] != DRA__TREE_TOP)
        return 0;
    for (uint32_t k = 1; k < P; k++)
        if (t[k] != (t[2 * k] > t[2 * k + 1] ? t[2 * k] : t[2 * k + 1]))
            return k;
    return P;
}
/* Leaf i (P + node) of max tree t set to v, and the path above it (index.c's trees; in line
 * where a call would cost). A rise reads only the path: an inner node's new value is the larger
 * of its old one and v (its old one was the larger of the sibling's and the leaf's old value
 * o < v), so the walk stops at the first node >= v, at the latest at slot 0 (DRA__TREE_TOP,
 * which no v exceeds: the walk writes the same nodes as one that stops after the root). A fall
 * reads a node's children only while the node held o (a node above o got it from elsewhere and
 * keeps it) and stops where its new maximum is still o. O(log nodes); stops where the path
 * stops changing. */
static inline void dra__max_set(int32_t *t, uint32_t i, int32_t v)
{
    int32_t o = t[i];
    t[i] = v;
    if (v > o) {
        for (size_t j = i >> 1; t[j] < v; j >>= 1) /* t[0] stops it (DRA__TREE_TOP) */
            t[j] = v;
    } else if (v < o) {
        for (i >>= 1; i >= 1 && t[i] == o; i >>= 1) {
            int32_t m = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
            if (m == o)
                break;
            t[i] = m;
        }
    }
}
/* Signature s's leaf of model node n from its counts and flags, and the path above it.
 * O(log nodes). */
void dra__tree_set(dra_engine_t *e, sig_t *s, uint32_t n);
/* Signature s's count, flags or blocked count of node n changed: its leaf is set now, or, while
 * a commit or release is applied (td_on), once at its end (dra__tree_flush): a pod's rows move
 * one node's counts several times (a multi-device pod, a partitionable device's siblings), and
 * nothing reads the trees until it is done. A full list, or a leaf of another node already
 * pending on s, is set now. O(1). */
static inline void dra__tree_touch(dra_engine_t *e, sig_t *s, uint32_t n)
{
    if (e->td_on) {
        if (s->td_pend == n + 1)
            return;
        if (!s->td_pend && e->ntd < DRA__TD_MAX) {
            s->td_pend = n + 1;
            e->td_sig[e->ntd++] = (uint32_t)(s - e->sigs);
            return;
        }
    }
    dra__tree_set(e, s, n);
}
/* Set the leaves dra__tree_touch deferred, and stop deferring. In line (every commit and release
 * ends with it), and a signature without score trees over it (first-fit builds none) has its leaf
 * set without a call. */
static DRA_ALWAYS_INLINE void dra__tree_flush(dra_engine_t *e)
{
    e->td_on = false;
    for (uint32_t i = 0; i < e->ntd; i++) {
        sig_t *s = &e->sigs[e->td_sig[i]];
        uint32_t n = s->td_pend - 1;
        s->td_pend = 0;
        if (s->stm || e->nst > 32) { /* score trees over s: dra__tree_set sets their leaves */
            dra__tree_set(e, s, n);
            continue;
        }
        /* none (first-fit builds none): the signature's leaf in line, no call */
#if DRA_DEBUG
        e->work.leaves_set++;
#endif
        dra__max_set(s->tree, e->P + n, dra__leaf_value(e, s, n));
    }
    e->ntd = 0;
}
/* Signature s's whole tree from its counts. O(nodes). */
void dra__tree_build(dra_engine_t *e, sig_t *s);
/* Whether plan p's summaries admit model node n (every request does, or it is an error node). */
bool dra__plan_admits(const dra_engine_t *e, const plan_t *p, uint32_t n);
/* First node >= pos plan p admits, NONE when none. O(requests * log nodes) per leapfrog step. */
uint32_t dra__plan_next(const dra_engine_t *e, const plan_t *p, uint32_t pos);
/* Score buckets (best-fit, spread): the bucket of a score; node n's score set to v (its bucket
 * follows once the buckets are live); every node put in its bucket and kept there from now on
 * (O(buckets * nodes / 64 + nodes), once); the next node >= from in bucket b (NONE: none).
 * dra__score_moved: node n's score (e->score[n]) changed from was; its bucket and its score
 * trees' keys follow. It reads a score tree's leaf for whether the node is a candidate there (its
 * sign), not the signature's counts: call it with no signature leaf of the node deferred (after
 * dra__tree_flush; set the score before that flush, and the leaves it sets take the new key). */
uint32_t dra__bucket_of(const dra_engine_t *e, uint32_t score);
void dra__score_follow(dra_engine_t *e, uint32_t n, uint32_t was);
/* dra__score_moved's work is the buckets' (once live) and the score trees' (once one is built):
 * first-fit keeps neither and calls nothing (a call and its register saves were about 40
 * instructions of every commit and release on sched-perf-500). */
static inline void dra__score_moved(dra_engine_t *e, uint32_t n, uint32_t was)
{
    if (e->buckets_live || e->nst)
        dra__score_follow(e, n, was);
}
void dra__buckets_sync(dra_engine_t *e);
uint32_t dra__bucket_next(const dra_engine_t *e, uint32_t b, uint32_t from);

/* Score trees (best-fit: most first, spread: fewest): the tree that orders plan p's candidates
 * (a request of one alternative whose signature has no shared rows: its candidates in (score,
 * node) order are p's admitted nodes in that order, once filtered by dra__plan_admits), built
 * on first use; NONE when p has none or out of memory (the buckets are walked instead). The best
 * candidate not hidden, NONE when none; hide a candidate tried during the placement, and unhide
 * every hidden one after it. O(log nodes) each. */
uint32_t dra__plan_stree(dra_engine_t *e, const plan_t *p, bool most);
uint32_t dra__stree_best(const dra_engine_t *e, uint32_t st);
void dra__stree_hide(dra_engine_t *e, uint32_t st, uint32_t n);
void dra__stree_unhide(dra_engine_t *e, uint32_t st);
/* Every score tree equals a recomputation from the summaries and scores (dra_engine_check). */
bool dra__stree_check(const dra_engine_t *e, char *why, size_t len);

/* ---- hazard.c ---- */

/* Hazard nodes (e->hz, e->nhazard), All-hazard nodes (e->ahz, e->nahz) and e->multiterm from
 * the model's pools and node selectors. DRA_ENOMEM. */
DRA_NODISCARD int dra__hazards(dra_engine_t *e);

/* ---- counters.c ---- */

/* The counters of partitionable devices (sets, what is left, row entries, consuming rows) with
 * the consumption of the rows in use (rs[r].use) charged. DRA_ENOMEM. */
DRA_NODISCARD int dra__counters_setup(dra_engine_t *e);
/* Row r went in use (delta 1) or out of use (-1): its counter consumption charged or refunded
 * (the remainders, the count over capacity, each counter's cut and each row's count of failing
 * entries, nfail); the rows whose fit that changed (nfail crossed zero) are written to e->cflip,
 * how many returned, for the caller to refresh (a row at most twice, only when amounts of both
 * signs move its nfail both ways). O(entries of the row + list entries the cuts move over). */
uint32_t dra__counters_charge(dra_engine_t *e, uint32_t r, int delta);
/* Every counter's record recomputed from the rows in use (rs[r].use) and the sets' capacities:
 * what is left, the rows it names, its cut, and the count of counters over capacity; false with
 * the first difference in why (dra_engine_check). O(counters + entries of the rows in use +
 * counters x log entries on a counter). */
bool dra__counters_check(const dra_engine_t *e, char *why, size_t len);

/* ---- summary.c ---- */

/* Every counter row r consumes has that much left (a device whose consumption does not fit the
 * remaining counters cannot be allocated; consumption is counted for exclusively allocated
 * devices only, so the remaining counters are never underestimated). O(1): rs[r].nfail. */
static inline bool dra__row_fits(const dra_engine_t *e, uint32_t r)
{
    return !e->nfail_on || e->rs[r].nfail == 0;
}
/* Row r is multi-allocatable with DRAConsumableCapacity on. */
static inline bool dra__row_multi(const dra_engine_t *e, uint32_t r)
{
    return e->beh.cc && (e->t->flags[r] & DRA_ROW_MULTI_ALLOC);
}
/* Row r is free: not in use, or multi-allocatable (shares do not take it). */
static inline bool dra__row_free(const dra_engine_t *e, uint32_t r)
{
    return e->rs[r].use == 0 || (e->t->flags[r] & DRA_ROW_MULTI_ALLOC);
}
/* Row r is available (free, and its counters fit unless it is multi-allocatable: such a device
 * skips the counter check while it has capacity in use, DRA-SEMANTICS 2.6 step 4). The fit is
 * tested before the flags: a free row whose counters fit leaves its flags line unread (a
 * release's rows and the siblings its refund flips are cold). */
static inline bool dra__row_avail(const dra_engine_t *e, uint32_t r)
{
    return dra__row_free(e, r) && (dra__row_fits(e, r) || dra__row_multi(e, r));
}
/* Row r is certainly in an All set and certainly not allocatable (engine.h, All). */
bool dra__row_blocked(const dra_engine_t *e, uint32_t r);
/* Signature s's summaries counted from the rows (set-up of a signature). O(rows + nodes). */
void dra__sig_count(dra_engine_t *e, sig_t *s);
/* Whether the request of capacity signature s fits row r's capacity left by its shares. */
bool dra__cap_fits_row(const dra_engine_t *e, const sig_t *s, uint32_t r);
/* Capacity profiles of the rows with shares' capacity (e->cxp, set-up). DRA_ENOMEM. */
DRA_NODISCARD int dra__cap_profiles(dra_engine_t *e);
/* Capacity signature s's limits per profile (s->cok, s->clim; before its fit bits). DRA_ENOMEM. */
DRA_NODISCARD int dra__cap_limits(dra_engine_t *e, sig_t *s);
/* Capacity signature i's fit bits (cfit) over rows [r0, r1) copied into rowcfit, and i (< 32)
 * marked in capsigs; nothing for i >= 32. After every write of cfit other than refresh_cap's.
 * O(r1 - r0). */
void dra__cfit_sync(dra_engine_t *e, uint32_t i, uint32_t r0, uint32_t r1);
/* A share result of row r (with cx) committed (delta 1) or released (-1): the capacity its
 * shares consume, as the state aggregates it, and the capacity signatures' fit bits. cidx (its
 * first ncidx entries; NULL when ncidx is 0) receives, per consumedCapacity entry j < ncidx, the
 * one capacity of the row's device it names (0xff: none, 0xfe: two or more, or one numbered
 * 0xfe or above), for a release record. O(consumed entries * capacities + capacity signatures * capacities). */
void dra__cap_share(dra_engine_t *e, uint32_t r, const dra_result_t *res, int delta,
                    uint8_t *cidx, uint32_t ncidx);
/* dra__cap_share's release (-1) of a share its commit described (cidx), from the record: each
 * entry's amount amt[j] off capacity cidx[j] (0xff: none) and the capacity signatures' fit bits,
 * reading no result. O(ncap + capacity signatures * capacities). */
void dra__cap_unshare(dra_engine_t *e, uint32_t r, const uint8_t *cidx, const dra__aq_t *amt,
                      uint32_t ncap);
/* sig_row_delta of a row of model node n (NONE only for a shared row, shared): a signature
 * with matchAttribute groups, or a shared row. */
void dra__sig_row_delta_at(dra_engine_t *e, sig_t *s, uint32_t r, uint32_t n, bool shared,
                           int delta);
/* Row r changed between blocked and not: adjust the All signatures it matches. */
void dra__row_flip_blocked(dra_engine_t *e, uint32_t r, int delta);
/* dra__apply_row_in of a row that went in or out of use and consumes counters, or with
 * compatibility groups on: the charge, then the rows it flipped and r re-read. */
void dra__apply_row_charged(dra_engine_t *e, uint32_t r);

/* The part of dra__row_flip for the signatures of mask m (those below 32 that row r matches, its
 * record's sigs): each one whose capacities r fits moves by delta, r a row of model node n (NONE
 * only for a shared row, shared), as dra__sig_row_delta_at says. In line at both callers. */
static DRA_ALWAYS_INLINE void dra__row_flip_mask(dra_engine_t *e, uint32_t m, uint32_t r,
                                                 uint32_t n, bool shared, int delta)
{
    for (; m; m &= m - 1) {
        sig_t *s = &e->sigs[__builtin_ctz(m)];
        if (s->capbody && !dra_bit_get(s->cfit, r))
            continue;
        if (s->attr == NONE && !shared) {
            s->cnt[n] += delta;
            dra__tree_touch(e, s, n);
        } else {
            dra__sig_row_delta_at(e, s, r, n, shared, delta);
        }
    }
}

/* Row r changed between free and not free: adjust every signature it matches. The row's node
 * is read once for all of them, and a signature without matchAttribute groups (a node's count,
 * the common case) is counted in line. */
static DRA_ALWAYS_INLINE void dra__row_flip(dra_engine_t *e, uint32_t r, int delta)
{
    bool shared = r >= e->t->shared_begin;
    uint32_t n = dra__rs_node(&e->rs[r]); /* dra__row_node, in the row's record (below: sigs) */
    if (!shared && n == NONE)
        return;
    /* the first 32 signatures through the row's mask (one cache line instead of one per
     * signature), the others by their match bits */
    dra__row_flip_mask(e, e->rs[r].sigs, r, n, shared, delta);
    for (uint32_t i = 32; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (dra_bit_get(s->match, r) && (!s->capbody || dra_bit_get(s->cfit, r)))
            dra__sig_row_delta_at(e, s, r, n, shared, delta);
    }
}

/* Row r re-read (availability, All-blocked) and, where that changed, its signatures' counts
 * moved. In line at its callers (dra__apply_row_in, every commit and release, and summary.c's
 * loops over flipped rows): a call a row costs its register saves. */
static DRA_ALWAYS_INLINE void dra__refresh_one(dra_engine_t *e, uint32_t r)
{
#if DRA_DEBUG
    e->work.rows_refreshed++;
#endif
    bool now = dra__row_avail(e, r);
    if (now != dra_bit_get(e->avb, r)) {
#if DRA_DEBUG
        e->work.rows_flipped++;
#endif
        dra_bit_assign(e->avb, r, now);
        dra__row_flip(e, r, now ? 1 : -1);
    }
    if (e->nall) { /* bk is kept from the first All signature on */
        bool b = dra__row_blocked(e, r);
        if (b != dra_bit_get(e->bk, r)) {
            dra_bit_assign(e->bk, r, b);
            dra__row_flip_blocked(e, r, b ? 1 : -1);
        }
    }
}

/* dra__refresh_lean applies: counters kept (nfail_on), no All signature (nall: no blocked
 * flags to keep) and at most 32 signatures (every signature of a row in its mask). */
static inline bool dra__lean_on(const dra_engine_t *e)
{
    return e->nfail_on && !e->nall && e->nsigs <= 32;
}
/* dra__refresh_one of row r (its record x) while dra__lean_on, with the columns it reads passed
 * in by the caller's loop (avb, the table's flags, beh.cc: read once for a charge's rows, where
 * the writes to counts and leaves in between made the compiler read them again each row). Its
 * availability is dra__row_avail's, the flags read only for a row in use or whose counters do
 * not fit; a row that matches no signature is done once its availability bit is (a charge's
 * siblings are mostly placements no request asks for: two in three on fleet-5k). */
static DRA_ALWAYS_INLINE void dra__refresh_lean(dra_engine_t *e, uint32_t r,
                                                const dra__rowst_t *x, uint64_t *avb,
                                                const uint8_t *flags, bool cc)
{
#if DRA_DEBUG
    e->work.rows_refreshed++;
#endif
    bool now = x->nfail == 0;
    if (x->use || !now) { /* dra__row_avail: free, and fits or multi-allocatable */
        bool ma = (flags[r] & DRA_ROW_MULTI_ALLOC) != 0;
        now = (x->use == 0 || ma) && (now || (cc && ma));
    }
    uint64_t w = avb[r >> 6];
    if (now == ((w >> (r & 63)) & 1))
        return;
#if DRA_DEBUG
    e->work.rows_flipped++;
#endif
    avb[r >> 6] = w ^ (uint64_t)1 << (r & 63);
    if (!x->sigs)
        return;
    /* dra__row_flip, less its loop beyond 32 signatures (none) */
    uint32_t nd = dra__rs_node(x);
    bool shared = r >= e->t->shared_begin;
    if (!shared && nd == NONE)
        return;
    dra__row_flip_mask(e, x->sigs, r, nd, shared, now ? 1 : -1);
}

/* Row r went in use (delta 1) or out of use (-1): its use count, counters, availability and
 * every summary that reads them. In line at the commit's and the release record's loops over
 * their rows (the one row of most commits and releases makes no call: its register saves cost
 * more than the rest of it), else dra__apply_row. Rows that consume counters or with
 * compatibility groups on go to dra__apply_row_charged when they go in or out of use. */
static DRA_ALWAYS_INLINE void dra__apply_row_in(dra_engine_t *e, uint32_t r, int delta)
{
    uint32_t before = e->rs[r].use;
    if (delta > 0)
        e->rs[r].use++;
    else if (e->rs[r].use)
        e->rs[r].use--;
    /* the rows to re-read: r, after the rows whose fit its counters' charge flipped (apart, so
     * that the one row of most commits and releases makes no call and keeps no loop) */
    if ((before == 0) != (e->rs[r].use == 0) && (dra__rs_ctr(&e->rs[r]) || e->cg_on)) {
        dra__apply_row_charged(e, r);
        return;
    }
    dra__refresh_one(e, r);
}
/* dra__apply_row_in out of line (the release of a record's share). */
void dra__apply_row(dra_engine_t *e, uint32_t r, int delta);

/* ---- plan.c ---- */

/* The two bodies have the same selector texts, in order. */
bool dra__same_selectors(const dra_exact_request_t *a, const dra_exact_request_t *b);
/* matchAttribute signature s's groups over table node tn's range: s->grp of each row (GRP_NONE
 * when it does not match or has no value), one group per distinct value by first member, the
 * 64th holding the rest; returns the number of groups. O(range * groups). */
uint32_t dra__group_node(const dra_engine_t *e, sig_t *s, uint32_t tn);
/* Recompile plan `plan` from scratch (its indexed decision may depend on the rows). */
DRA_NODISCARD int dra__plan_recompile(dra_engine_t *e, uint32_t plan);

/* ---- commit.c ---- */

/* A release record (engine.h, release records): what the release of one commit needs, dense,
 * two cache lines at most: the node, the plan, the results (the node's score moves by them) and
 * per exclusive result the state's row (model row + 1) and the engine's table row, side by side,
 * so a pod of up to DRA__REC_LINE_ROWS rows (all of fleet-5k's but gpu-n 8) is one line of a
 * 64-byte aligned record - its commit writes one line and its release reads one. A commit only
 * stores into its record (no load: a cold record costs the commit no wait). */
typedef dra_engine_rec_t dra__rec_t;
_Static_assert(sizeof(dra__rec_t) == 128, "a release record is two cache lines");
_Static_assert(offsetof(dra__rec_t, s.share) == 64 && sizeof(dra_engine_rec_share_t) <= 64,
               "a record's share is its second line");
/* Rows a record keeps in its first line. */
#define DRA__REC_LINE_ROWS 6
_Static_assert(offsetof(dra__rec_t, rows) + DRA__REC_LINE_ROWS * sizeof(((dra__rec_t *)0)->rows[0]) == 64,
               "a record's first line holds DRA__REC_LINE_ROWS rows");

/* Rows by device ID (e->hslots), the model-row mapping (e->ord_row) and the slices' first model
 * rows (e->slice_row0). DRA_ENOMEM. */
DRA_NODISCARD int dra__rows_index_build(dra_engine_t *e);

/* ---- direct.c ---- */

/* Set-up of the per-node facts (after hazards and counters). DRA_ENOMEM. */
DRA_NODISCARD int dra__direct_setup(dra_engine_t *e);
/* Compile plan p's direct answer (after plan_compile). DRA_ENOMEM. */
DRA_NODISCARD int dra__direct_plan(dra_engine_t *e, plan_t *p);
/* Whether plan p is answered directly on model node n now. In line: every placement asks it
 * of the node it tries. */
static inline bool dra__direct_applies(const dra_engine_t *e, const plan_t *p, uint32_t n)
{
    if (p->d.kind == DRA__DIRECT_NONE || !e->direct_now || !e->nrange[n].direct ||
        (p->d.cons && e->nneg))
        return false;
    /* an error row: the leaf is HAZARD (direct: no hz) */
    for (uint32_t i = 0; i < p->d.nalt; i++) {
        const sig_t *s = &e->sigs[p->d.alt[i].sig];
        if (s->tree[e->P + n] == HAZARD)
            return false;
    }
    return true;
}
/* Answer plan p on node n into arena: *decided with out filled (ALLOCATED) or not
 * (unsatisfiable on n). DRA_OK, DRA__DIRECT_FALLBACK (the allocator must answer), DRA_ENOMEM. */
#define DRA__DIRECT_FALLBACK 1
DRA_NODISCARD int dra__direct_try(dra_engine_t *e, const plan_t *p, uint32_t n,
                                  dra_arena_t *arena, dra_engine_result_t *out, bool *decided);
/* Compare a direct answer (decided: out's allocation, else unsatisfiable) with the allocator's on
 * node n: DRA_OK when equal, DRA_EINTERNAL with the difference in out->msg. Not timed. */
DRA_NODISCARD int dra__direct_verify(dra_engine_t *e, const plan_t *p, uint32_t n, bool decided,
                                     dra_engine_result_t *out);
/* Slice update (update.c): recompute the per-node facts of model node n (NONE: none) and every
 * plan's static eligibility over table rows [begin, end); a plan whose direct answer no longer
 * holds loses it (the allocator answers). */
void dra__direct_update_rows(dra_engine_t *e, uint32_t n, uint32_t begin, uint32_t end);

/* A committed result of row r with a shareID on a device that is not multi-allocatable, or
 * (DRAConsumableCapacity) without one on a multi-allocatable device, turns direct answers off
 * (the allocator leaves its scan for the first; the second is an exclusive allocation of a
 * device the availability bit counts free). */
static inline void dra__direct_note_share(dra_engine_t *e, uint32_t r, const dra_result_t *res)
{
    /* in line at every commit and release (commit.c): the flags line is read only under
     * DRAConsumableCapacity */
    if (e->beh.cc && (res->share_id != NULL) != ((e->t->flags[r] & DRA_ROW_MULTI_ALLOC) != 0))
        e->direct_on = false;
}

/* direct.c's pieces that direct_multi.c composes (each documented at its static original in
 * direct.c): the body and constraint checks, an alternative's set-up and static eligibility
 * (ExactCount; over a range of rows again after a slice update), the claim's configs, one
 * alternative's picks on a node's range (DRA__PICK_*),
 * a row's counters beside picks, the result of the picks (one allocation), the shares of a
 * single-claim answer, and an engine string "a" or "a/b". */
enum { DRA__PICK_UNSAT = 0, DRA__PICK_OK = 1, DRA__PICK_FALLBACK = 2 };
bool dra__direct_body_ok(const dra_engine_t *e, const dra_exact_request_t *b, bool cap_ok);
bool dra__direct_constraints(const dra_engine_t *e, const dra_claim_t *c, const char **all,
                             const char **own);
bool dra__direct_match_column(const dra_engine_t *e, const char *attr, uint32_t *col);
DRA_NODISCARD int dra__direct_alt_init(dra_engine_t *e, dra__dalt_t *al, uint32_t si,
                                       const dra_request_t *r, const dra_exact_request_t *b,
                                       bool shares_ok);
DRA_NODISCARD int dra__direct_configs(dra_engine_t *e, const dra_claim_t *c,
                                      dra__dalt_t *const *chosen, dra_alloc_config_t **out,
                                      uint32_t *nout);
int dra__direct_pick(const dra_engine_t *e, const dra__dalt_t *al, uint32_t begin, uint32_t end,
                     uint32_t *pick, uint32_t *np, uint64_t *looked);
DRA_NODISCARD int dra__direct_fill_range(dra_engine_t *e, dra__dalt_t *al, bool shares_ok,
                                         uint32_t begin, uint32_t end);
bool dra__direct_fits_after(const dra_engine_t *e, uint32_t r, const uint32_t *pick, uint32_t np);
bool dra__direct_row_grouped(const dra_engine_t *e, uint32_t r);
bool dra__direct_entries_distinct(const dra_engine_t *e, uint32_t r);
DRA_NODISCARD int dra__direct_build(const dra_engine_t *e, const dra__direct_t *d, uint32_t n,
                                    const uint32_t *pick, const uint8_t *palt, uint32_t np,
                                    uint32_t calt, dra_arena_t *arena, dra_engine_result_t *out);
DRA_NODISCARD int dra__direct_shares(const dra_engine_t *e, const plan_t *p, const uint32_t *pick,
                                     const uint8_t *palt, uint32_t np, dra_arena_t *arena,
                                     dra_result_t *res, bool *any);
const char *dra__direct_str(dra_engine_t *e, const char *a, const char *b);
/* n bytes (16-aligned) of an answer: from the placement's slot while it has room, else from
 * arena (NULL: out of memory). Taking the slot's start clears its template (build_answer
 * takes the start itself when it writes one). */
void *dra__direct_take(const dra_engine_t *e, dra_arena_t *arena, size_t n);

/* ---- direct_multi.c ---- */

/* Compile plan p's direct answer: direct.c's kinds, else CLAIMS (direct_multi.c: requests of
 * several claims, allocationMode All, shares over several requests). DRA_ENOMEM. */
DRA_NODISCARD int dra__direct_compile(dra_engine_t *e, plan_t *p);
/* Answer plan p on node n (dra__direct_applies said yes): dra__direct_try's contract, for every
 * kind. */
DRA_NODISCARD int dra__direct_answer(dra_engine_t *e, const plan_t *p, uint32_t n,
                                     dra_arena_t *arena, dra_engine_result_t *out, bool *decided);
/* Slice update: dra__direct_update_rows, then the CLAIMS answers compiled again (their static
 * eligibility may have changed anywhere in the rows). DRA_ENOMEM. */
DRA_NODISCARD int dra__direct_refresh(dra_engine_t *e, uint32_t n, uint32_t begin, uint32_t end);

#endif /* DRA_ENGINE_IMPL_H */
