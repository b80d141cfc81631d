/*
 * table.h - the device table: every device of a model as one structure of arrays (DESIGN §4.1).
 *
 * Purpose: selectors (core/cel/lower.h) and the allocator scan devices by column instead of
 * chasing pointers. The table is transparent (STYLE §2.2): kernels, benchmarks and the allocator
 * read the columns directly; dra_table_check asserts every invariant documented here.
 *
 * Row order (the allocator relies on it):
 *  1. Rows are grouped by node: first the rows of node 0, then node 1, ... (each node one
 *     contiguous range [nodes[i].begin, nodes[i].end), possibly empty), then the shared range
 *     [shared_begin, nrows) of network-attached slices (allNodes, nodeSelector and
 *     perDeviceNodeSelection slices). "Devices usable on node n" = its range + the shared range
 *     (node selectors of shared slices are evaluated by the allocator, not here).
 *  2. Node indexes: i < m->nnodes is m->nodes[i] (the model's Node objects, in model order);
 *     node names that only slices mention follow, sorted by name. A name listed twice in
 *     m->nodes keeps its first index; the later entry gets an empty range.
 *  3. Within a node range and within the shared range, rows follow the upstream search order:
 *     pools sorted by (driver, pool name) — the pool index IS that rank, so merging a node range
 *     with the shared range by pool index restores the upstream order over both — then slices by
 *     name (ties by model order), then devices in slice order.
 *
 * Columns: fixed per-row columns (node, pool, driver string id, device name string id, model
 * slice index, model device pointer, flags), one dra_table_attr_t per distinct qualified
 * attribute name and one dra_table_cap_t per distinct qualified capacity name. Every per-row
 * array is 64-byte aligned and holds nrows_padded = round_up(nrows, 16) elements; the padding
 * rows hold neutral sentinels: node DRA_TABLE_NONE, pool DRA_TABLE_NONE, ids 0, codes 0,
 * flags DRA_ROW_PAD, device pointer NULL. Bitsets (present) have dra_bitset_words(nrows_padded)
 * words, 64-byte aligned, bits >= nrows zero.
 *
 * Attribute and capacity columns are dictionary-encoded: a column keeps a dictionary of the
 * distinct values its rows hold (entries 1..ndict; entry 0 is "absent") and one CODE per row,
 * the index of the row's value in the dictionary (0: the row has no such attribute / capacity,
 * or is padding). The code width is chosen per column from the dictionary size: 1 byte up to 255
 * entries, 2 bytes up to 65535, else 4 (`width`); read a code with dra_table_attr_code /
 * dra_table_cap_code. Predicates are evaluated once per dictionary entry into a bitmap over the
 * codes, then gathered over the rows (dra_kern_t gather_u8/u16/u32). Per-row cost: width bytes
 * per column plus one present bit, whatever the value's kind.
 *  - Attribute dictionary: entries (dkind[i], dval[i]) sorted by (kind, value), no duplicates:
 *    INT by value, BOOL 0 < 1, STRING by string id, VERSION by rank (so equal-precedence texts
 *    share an entry), lists by their index into `lists` (one list per distinct content). Two rows
 *    have the same code iff they have the same kind and value (for lists: the same elements).
 *  - Capacity dictionary: entries sorted by exact value (dra_quantity_cmp; equal values differ
 *    only when written differently and not both representable at the scale); dunits[i] is the
 *    value in fixed point at the column's scale, dq[i] the model's quantity (exact text), and
 *    bit i of dinexact says the value is not representable at the scale (dunits[i] is then 0).
 * Strings (drivers, pools, device and node names, string attribute values) are ids of the table's
 * own dictionary (1..nstrs, 0 = none), assigned in row order, so they are deterministic for a
 * given model. Attribute and capacity names are the model's interned qnames (model->intern).
 *
 * Versions: every distinct version text (scalar and list attributes) is parsed once (strict
 * SemVer, blang/semver v4) and ranked by SemVer precedence: rank 1 is the lowest, equal
 * precedence (e.g. differing only in build metadata) gives equal ranks. A version that does not
 * parse gets rank 0 and its row the flag DRA_ROW_BAD_VERSION (upstream fails every selector on
 * such a device, CEL-DRA §3.2).
 *
 * Capacities: fixed point, value = units * 10^scale with one scale per column (the coarsest of
 * 0, -3, -6, -9 that represents every value exactly; else the one that represents the most).
 * A value not representable exactly is an entry flagged in `dinexact`; predicates compare such
 * an entry exactly (dra_quantity_cmp on dq[i]). ninexact counts the rows holding such values.
 *
 * Ownership: everything lives in the arena given to dra_table_build, which must outlive the
 * table; the table keeps a pointer to the model (for device pointers and qname lookups), which
 * must outlive it too. Errors: DRA_ENOMEM, DRA_ELIMIT (more than 2^31 rows), DRA_EINVAL,
 * DRA_EINTERNAL (only with DRA_DEBUG >= 3: the built table fails dra_table_check).
 * Cost: build is O(devices * attributes + V log V) for V distinct versions and dictionary
 * entries; lookups are O(1) (names: one hash). Memory: `bytes` counts every per-row array and
 * bitset and every dictionary (fleet-5k: 93.2 B/device, fleet-50k: 95.1; README "Performance").
 * Thread safety: a built table changes only through dra_table_update_slice (single-threaded);
 * otherwise read it from any thread.
 */
#ifndef DRA_TABLE_H
#define DRA_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/semver.h"
#include "model/model.h"

#define DRA_TABLE_ALIGN 64
#define DRA_TABLE_PAD 16
#define DRA_TABLE_NONE UINT32_MAX

/* Row flags (flags column). */
#define DRA_ROW_MULTI_ALLOC 0x01u /* allowMultipleAllocations */
#define DRA_ROW_TAINTED 0x02u     /* at least one taint */
#define DRA_ROW_CONSUMES 0x04u    /* consumesCounters (partitionable device) */
#define DRA_ROW_BINDING 0x08u     /* bindingConditions or bindingFailureConditions or bindsToNode */
#define DRA_ROW_SHARED 0x10u      /* in the shared (network-attached) range */
#define DRA_ROW_BAD_VERSION 0x20u /* a version attribute failed to parse */
#define DRA_ROW_PAD 0x80u         /* padding row */

typedef struct dra_table_node {
    const char *name;
    uint32_t name_id; /* table string id */
    uint32_t begin, end;
} dra_table_node_t;

typedef struct dra_table_pool {
    const char *driver, *name;
    uint32_t driver_id, name_id; /* table string ids */
} dra_table_pool_t;

typedef struct dra_table_list {
    uint32_t off, len; /* elements lvals[off .. off+len) */
} dra_table_list_t;

typedef struct dra_table_attr {
    uint32_t qname;   /* model intern id of "domain/id" */
    const char *name; /* that text */
    uint32_t kinds;   /* bit (1u << kind) for each dra_attr_kind_t present in a row */
    uint32_t npresent;
    uint8_t width;     /* bytes per code: 1, 2 or 4 */
    void *code;        /* per row: dictionary entry (0: absent, padding); uint8/16/32_t by width */
    uint32_t ndict;    /* dictionary entries 1..ndict */
    uint8_t *dkind;    /* per entry: dra_attr_kind_t; dkind[0] = DRA_ATTR_NONE */
    int64_t *dval;     /* per entry: INT value, BOOL 0/1, STRING string id, VERSION rank (0: does
                          not parse), list kinds: index into lists; dval[0] = 0 */
    uint64_t *present; /* bitset: row has the attribute (any kind), i.e. code != 0 */
    dra_table_list_t *lists; /* list values (index 0 unused), one per distinct list */
    uint32_t nlists;
    int64_t *lvals; /* list elements: ints, bools 0/1, string ids, version ranks */
    uint32_t nlvals;
    uint32_t nsorted;  /* entries 1..nsorted are in the order above; later ones were appended by
                          dra_table_update_slice (nsorted == ndict until then) */
} dra_table_attr_t;

typedef struct dra_table_cap {
    uint32_t qname;
    const char *name;
    int32_t scale; /* value = units * 10^scale */
    uint32_t npresent, ninexact; /* rows */
    uint8_t width;               /* bytes per code: 1, 2 or 4 */
    void *code;                  /* per row: dictionary entry (0: absent, padding) */
    uint32_t ndict;              /* dictionary entries 1..ndict, ascending by value */
    int64_t *dunits;             /* per entry: fixed-point units; 0 for entry 0 and inexact ones */
    const dra_quantity_t **dq;   /* per entry: the model's quantity; dq[0] = NULL */
    uint64_t *dinexact;          /* bitset over entries: not exact at the scale */
    uint64_t *present;           /* bitset over rows */
    uint32_t nsorted;            /* as dra_table_attr_t.nsorted */
} dra_table_cap_t;

/* Code of row r in a dictionary-encoded column of width w (padding rows: 0). */
static inline uint32_t dra_table_code_at(const void *code, uint8_t w, uint32_t r)
{
    DRA_ASSERT_INTERNAL(code && (w == 1 || w == 2 || w == 4));
    if (w == 1)
        return ((const uint8_t *)code)[r];
    if (w == 2)
        return ((const uint16_t *)code)[r];
    return ((const uint32_t *)code)[r];
}

/* Store v as row r's code in a column of width w (1, 2 or 4 bytes). */
static inline void dra_table_code_set(void *code, uint8_t w, uint32_t r, uint32_t v)
{
    if (w == 1)
        ((uint8_t *)code)[r] = (uint8_t)v;
    else if (w == 2)
        ((uint16_t *)code)[r] = (uint16_t)v;
    else
        ((uint32_t *)code)[r] = v;
}

static inline uint32_t dra_table_attr_code(const dra_table_attr_t *a, uint32_t r)
{
    return dra_table_code_at(a->code, a->width, r);
}

/* Kind of row r's value (DRA_ATTR_NONE: absent) and its dictionary value (see dval). */
static inline dra_attr_kind_t dra_table_attr_kind(const dra_table_attr_t *a, uint32_t r)
{
    return (dra_attr_kind_t)a->dkind[dra_table_attr_code(a, r)];
}

static inline int64_t dra_table_attr_val(const dra_table_attr_t *a, uint32_t r)
{
    return a->dval[dra_table_attr_code(a, r)];
}

/* Rows x and y hold the same value (same kind and value; both absent counts as the same). */
static inline bool dra_table_attr_same(const dra_table_attr_t *a, uint32_t x, uint32_t y)
{
    return dra_table_attr_code(a, x) == dra_table_attr_code(a, y);
}

static inline uint32_t dra_table_cap_code(const dra_table_cap_t *c, uint32_t r)
{
    return dra_table_code_at(c->code, c->width, r);
}

typedef struct dra_table {
    const dra_model_t *model;
    uint32_t nrows, nrows_padded;
    /* fixed columns, nrows_padded each */
    uint32_t *node;   /* node index, DRA_TABLE_NONE in the shared range */
    uint32_t *pool;   /* pool index */
    uint32_t *driver; /* string id */
    uint32_t *name;   /* string id of the device name */
    uint32_t *slice;  /* index into model->slices */
    const dra_device_t **dev;
    uint8_t *flags; /* DRA_ROW_* */
    /* nodes, shared range, pools */
    dra_table_node_t *nodes;
    uint32_t nnodes;
    uint32_t shared_begin; /* shared range is [shared_begin, nrows) */
    dra_table_pool_t *pools;
    uint32_t npools;
    /* attribute and capacity columns, in order of first appearance in row order */
    dra_table_attr_t *attrs;
    uint32_t nattrs;
    dra_table_cap_t *caps;
    uint32_t ncaps;
    uint32_t *attr_by_qname; /* qname -> attrs index + 1 (0 = none), qname < nqname_map */
    uint32_t *cap_by_qname;
    uint32_t nqname_map;
    /* string dictionary */
    const char **strs; /* strs[id], id 1..nstrs */
    uint32_t *str_lens;
    uint32_t nstrs;
    uint32_t *str_slots; /* open addressing over dra_hash64 (power of two) */
    uint32_t nstr_slots;
    /* node by string id: the first node whose name the id is, else DRA_TABLE_NONE; ids
     * 0..nnode_by_str-1 (the strings of the build's node step; later ids name no node) */
    uint32_t *node_by_str;
    uint32_t nnode_by_str;
    /* versions: sorted distinct precedence classes, vers[r - 1] is the lowest version of rank r */
    dra_semver_t *vers;
    uint32_t nvers;
    uint32_t nbad_version_rows;
    size_t bytes; /* bytes of every per-row column and bitset (the memory figure; as built) */
    /* incremental updates (dra_table_update_slice) */
    uint32_t *slice_first; /* per model slice: its first row (its rows are contiguous) */
    uint32_t nupdates;     /* slices re-encoded since the build */
} dra_table_t;

/* Build the table of every device of every slice of m. *out is arena-owned.
 * Errors: DRA_ENOMEM, DRA_ELIMIT, DRA_EINVAL (NULL arguments). */
DRA_NODISCARD int dra_table_build(const dra_model_t *m, dra_arena_t *arena, dra_table_t **out,
                                  dra_diag_t *diag);

/* Re-encode the rows of model slice `slice` after dra_model_slice_update changed its devices
 * (same device count, names and node scoping: the rows, their order, node, pool, driver, name,
 * slice and device pointer stay; t->model must be the model that changed). Rewritten: the
 * flags (multi-allocatable, tainted, consumes, binding, bad version) and the row's code in every
 * attribute and capacity column (present bits and counts). Dictionaries may grow: a scalar
 * attribute value (int, bool, string) or a capacity value no row held before is appended as a
 * new entry (entries past nsorted are in append order, so dictionary order is only guaranteed
 * for 1..nsorted; an entry may end up unused); a string new to the table joins the string
 * dictionary. Not incremental (DRA_EUNSUPPORTED, diag says why, the table unchanged: rebuild
 * it): an attribute or capacity name no device had when the table was built (a new column), a
 * version whose precedence no version of the table has (ranks would shift), a list value no row
 * holds, or a column whose dictionary would outgrow its code width. arena must be the arena the
 * table was built in. Lowered programs compiled before the update are bound to the dictionaries
 * they saw: evaluate the updated rows with the interpreter (core/engine/update.c does).
 * Cost: O(rows of the slice * (columns + the dictionary entries of the columns whose value
 * changed)) plus, per appended entry, a copy of its column's dictionary and, per new string,
 * of the string dictionary. Errors: DRA_EINVAL (arguments), DRA_EUNSUPPORTED, DRA_ENOMEM. */
DRA_NODISCARD int dra_table_update_slice(dra_table_t *t, dra_arena_t *arena, uint32_t slice,
                                         dra_diag_t *diag);

/* Check every invariant listed above against the table and its model. DRA_EVALIDATE with the
 * first violation in diag (DRA_ENOMEM if its scratch cannot be allocated). Cost O(rows *
 * columns); meant for tests and debug builds: with DRA_DEBUG >= 3 (the gcc-debug preset)
 * dra_table_build runs it on every table it builds and fails with DRA_EINTERNAL (the violation
 * in diag) when it does not hold. */
DRA_NODISCARD int dra_table_check(const dra_table_t *t, dra_diag_t *diag);

/* XXH3-64 of the logical content (row order, strings as text, attribute and capacity values,
 * ranks, scales, flags), independent of memory addresses, dictionary ids and column order. */
uint64_t dra_table_digest(const dra_table_t *t);

/* Column lookups by model qname id / by qualified name text; NULL when no device has it. */
const dra_table_attr_t *dra_table_attr(const dra_table_t *t, uint32_t qname);
const dra_table_cap_t *dra_table_cap(const dra_table_t *t, uint32_t qname);
const dra_table_attr_t *dra_table_attr_by_name(const dra_table_t *t, const char *qname,
                                               size_t len);
const dra_table_cap_t *dra_table_cap_by_name(const dra_table_t *t, const char *qname, size_t len);

/* Node by name: its index (the first node of that name), or DRA_TABLE_NONE. O(1): one lookup in
 * the string dictionary. */
uint32_t dra_table_node_index(const dra_table_t *t, const char *name);

/* Table string id of s[0..len), 0 when no device uses that string; text of an id (NULL for 0). */
uint32_t dra_table_str_find(const dra_table_t *t, const char *s, size_t len);
const char *dra_table_str(const dra_table_t *t, uint32_t id);

/* Where version v falls among the ranks: *rank = number of ranks whose versions are <= v
 * (0..nvers); *exact = v has the precedence of rank *rank. */
void dra_table_version_locate(const dra_table_t *t, const dra_semver_t *v, uint32_t *rank,
                              bool *exact);

#endif /* DRA_TABLE_H */
