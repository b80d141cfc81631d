/*
 * manifest_rctx.h - the manifest reader's reading context: the state every per-kind reader shares
 * (model, file, error list, the Kind/name and field path of the object being read), errors and
 * the field path, typed reads, and the field shapes several kinds read the same way (opaque
 * parameters as canonical JSON, node selectors, tolerations, device selectors, opaque
 * configuration). Files of the manifest reader only (harness/k8s/manifest_read*.c); never
 * included from another module.
 *
 * Layering inside the reader, lowest first (checked by harness.layering):
 *   manifest_rctx.c          this module: calls nothing of the reader above it;
 *   manifest_read_<kind>.c   one kind each (manifest_kinds.h): call the context only, never
 *                            manifest_read.c nor each other;
 *   manifest_read.c          documents, List wrappers, kind dispatch and the entry points.
 *
 * Ownership: the context belongs to its caller (manifest_read.c makes one per buffer); objects
 * and strings go into the model's arena, nothing here frees. Errors: every problem is reported
 * through dra_mr_err (counted in nerr, added to errs when not NULL) and reading goes on with the
 * next field. Cost: O(fields); the field-path helpers run for every field and are inline.
 */
#ifndef DRA_MANIFEST_RCTX_H
#define DRA_MANIFEST_RCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "manifest.h"
#include "ydoc.h"

enum { API_V1 = 1, API_V1BETA2, API_V1BETA1, API_V1ALPHA3 };

/* The reading context: the model, the object being read and the path of the field. */
typedef struct rd {
    dra_model_t *m;
    const char *file; /* model-arena copy */
    dra_diag_list_t *errs;
    const char *kind;
    const char *name;
    int api;
    int nerr;
    size_t plen;
    char path[768];
} rd_t;

/* Key dispatch: the first-byte test skips the strcmp call for almost every non-matching key.
 * KEY_IS(k, s) for the key k, K(s) for the local variable key. */
#define KEY_IS(k, s) ((k)[0] == (s)[0] && strcmp((k), (s)) == 0)
#define K(s) KEY_IS(key, s)

/* ---- errors and the field path ------------------------------------------------------------ */

/* Report "Kind/name: field.path: message" at node at (may be NULL) and count it. */
void dra_mr_err(rd_t *rd, const dra_ynode_t *at, const char *fmt, ...) DRA_PRINTF(3, 4);
/* Append printf text to the field path; returns the length to restore with pop. */
size_t dra_mr_push(rd_t *rd, const char *fmt, ...) DRA_PRINTF(2, 3);
void dra_mr_unknown_field(rd_t *rd, const dra_ynode_t *key, const char *const *known);
/* Keys that differ from a known field only by case (for maps we do not check strictly). */
void dra_mr_case_check(rd_t *rd, const dra_ynode_t *map, const char *const *known);

/* ".key" (or "key" at the root) without printf: this runs for every field read. */
static inline size_t pushk(rd_t *rd, const char *key)
{
    size_t save = rd->plen, room = sizeof rd->path - 1 - rd->plen;
    size_t kl = strlen(key), need = kl + (save ? 1 : 0);
    if (need > room)
        return dra_mr_push(rd, save ? ".%s" : "%s", key);
    char *p = rd->path + save;
    if (save)
        *p++ = '.';
    memcpy(p, key, kl);
    p[kl] = 0;
    rd->plen = save + need;
    return save;
}

/* "[i]" without printf. */
static inline size_t pushi(rd_t *rd, uint32_t i)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    size_t save = rd->plen;
    if (save + (size_t)n + 3 > sizeof rd->path)
        return save;
    char *p = rd->path + save;
    *p++ = '[';
    while (n)
        *p++ = tmp[--n];
    *p++ = ']';
    *p = 0;
    rd->plen = (size_t)(p - rd->path);
    return save;
}

static inline void pop(rd_t *rd, size_t save)
{
    rd->plen = save;
    rd->path[save] = 0;
}

/* ---- typed reads: report and return false / NULL on a mismatch ------------------------------ */

bool dra_mr_want_map(rd_t *rd, const dra_ynode_t *v);
bool dra_mr_want_seq(rd_t *rd, const dra_ynode_t *v);
/* A string copied into the model (explicit null: NULL, no error); lenient as dra_ynode_string's
 * (any non-null scalar as its text). */
const char *dra_mr_str(rd_t *rd, const dra_ynode_t *v, bool lenient);
bool dra_mr_bool(rd_t *rd, const dra_ynode_t *v, bool *out);
bool dra_mr_int(rd_t *rd, const dra_ynode_t *v, int64_t *out);
bool dra_mr_qty(rd_t *rd, const dra_ynode_t *v, dra_quantity_t *out);
const char **dra_mr_strlist(rd_t *rd, const dra_ynode_t *v, uint32_t *n);
/* Opaque parameters as canonical JSON (sorted keys) in the model. */
const char *dra_mr_params(rd_t *rd, const dra_ynode_t *v);
const dra_node_selector_t *dra_mr_node_selector(rd_t *rd, const dra_ynode_t *v);
void dra_mr_set_pos(rd_t *rd, dra_srcpos_t *p, const dra_ynode_t *v);
dra_taint_effect_t dra_mr_effect_of(const char *s);
dra_toleration_t *dra_mr_tolerations(rd_t *rd, const dra_ynode_t *v, uint32_t *n);
/* Taints of a device or a Node: key, value, effect (None for "" and for effects that do not
 * filter, such as PreferNoSchedule; the text is kept), timeAdded; another key is an unknown
 * field. */
dra_taint_t *dra_mr_taints(rd_t *rd, const dra_ynode_t *v, uint32_t *n);
/* A core/v1 ResourceList (resource name -> quantity), sorted by name, without the names in skip
 * (NULL-terminated, may be NULL); null: none. */
dra_resource_qty_t *dra_mr_resources(rd_t *rd, const dra_ynode_t *v, const char *const *skip,
                                     uint32_t *n);

/* ---- walking a map's keys and a sequence's elements with the field path kept ------------- */

/* The keys of a map, the field path at ".key" while each value is read:
 *     for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);)
 *         if (KEY_IS(f.key, "name")) ... f.val ... else dra_mr_unknown_field(rd, f.keyn, known);
 * dra_mr_fields reports a v that is not a map as dra_mr_want_map does (null: silently) and then
 * walks nothing. Each step pops the previous key and pushes the next; after the last the path is
 * as before the loop, so the loop must end by its test (continue is fine; no break, goto or
 * return out of it). */
typedef struct dra_mr_field {
    const dra_ynode_t *map; /* NULL: nothing to walk */
    uint32_t next;
    size_t save;
    const char *key; /* the current key's text, its node and its value */
    const dra_ynode_t *keyn, *val;
} dra_mr_field_t;

static inline dra_mr_field_t dra_mr_fields(rd_t *rd, const dra_ynode_t *v)
{
    dra_mr_field_t f = {0};
    f.map = dra_mr_want_map(rd, v) ? v : NULL;
    return f;
}

static inline bool dra_mr_next_field(rd_t *rd, dra_mr_field_t *f)
{
    if (f->next)
        pop(rd, f->save);
    if (!f->map || f->next >= f->map->n)
        return false;
    f->keyn = f->map->keys[f->next];
    f->val = f->map->vals[f->next];
    f->key = f->keyn->text;
    f->save = pushk(rd, f->key);
    f->next++;
    return true;
}

/* The first n elements of a sequence, the field path at "[i]" while each is read:
 *     for (dra_mr_item_t e = dra_mr_items(v, n); dra_mr_next_item(rd, &e);) ... e.i, e.val ...
 * The same rule as for dra_mr_fields: the loop ends by its test. */
typedef struct dra_mr_item {
    const dra_ynode_t *seq;
    uint32_t n, next;
    uint32_t i; /* the current element's index and node */
    const dra_ynode_t *val;
    size_t save;
} dra_mr_item_t;

static inline dra_mr_item_t dra_mr_items(const dra_ynode_t *seq, uint32_t n)
{
    dra_mr_item_t e = {0};
    e.seq = seq;
    e.n = n;
    return e;
}

static inline bool dra_mr_next_item(rd_t *rd, dra_mr_item_t *e)
{
    if (e->next)
        pop(rd, e->save);
    if (e->next >= e->n)
        return false;
    e->i = e->next++;
    e->val = e->seq->vals[e->i];
    e->save = pushi(rd, e->i);
    return true;
}

/* A zeroed array in the model for the elements of sequence v, size bytes each, *n its length:
 * v->n elements; NULL with *n = 0 when v is not a sequence (reported as dra_mr_want_seq does)
 * or memory ran out. */
void *dra_mr_seq_array(rd_t *rd, const dra_ynode_t *v, size_t size, uint32_t *n);

/* ---- field shapes several kinds share: device selectors and opaque configuration ---------- */

dra_selector_t *dra_mr_selectors(rd_t *rd, const dra_ynode_t *v, uint32_t *n);
void dra_mr_opaque(rd_t *rd, dra_opaque_config_t *o, const dra_ynode_t *v);

#endif /* DRA_MANIFEST_RCTX_H */
