/*
 * manifest_validate.c - API-server and allocator-relevant validation of a model (see manifest.h).
 *
 * Each object is checked on its own (one-of fields, names, limits of DRA-SEMANTICS §1.6), then
 * cross-object rules run per pool (device names unique, counter-set names unique, consumed
 * counter sets exist) and per kind (duplicate object names). Findings carry the position of the
 * innermost object that has one (device, request, selector, else the document).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extres/extres.h"
#include "files.h"
#include "manifest.h"
#include "ydoc.h"

/* ---- field positions ------------------------------------------------------------------------
 * The model keeps one position per object (its document or list item). A finding about one of
 * its fields is moved to the field itself: the file is parsed again - once per validation, and
 * only when such a finding occurs - and the field path walked from the object's node. */
typedef struct loc {
    const char *file; /* the file parsed (borrowed from the model); NULL = none yet */
    bool ok;
    char *buf;
    dra_arena_t arena;
    const dra_ynode_t **docs;
    size_t ndocs, cap;
} loc_t;

static int loc_doc(const dra_ynode_t *root, void *ud)
{
    loc_t *l = ud;
    if (l->ndocs == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        const dra_ynode_t **nd = realloc(l->docs, nc * sizeof *nd);
        if (!nd)
            return DRA_ENOMEM;
        l->docs = nd;
        l->cap = nc;
    }
    l->docs[l->ndocs++] = root;
    return DRA_OK;
}

static void loc_reset(loc_t *l)
{
    if (l->file)
        dra_arena_fini(&l->arena);
    free(l->buf);
    free(l->docs);
    memset(l, 0, sizeof *l);
}

static bool before(const dra_ynode_t *n, uint32_t line, uint32_t col)
{
    return n->line < line || (n->line == line && n->column <= col);
}

/* The mapping that starts exactly at line:col: only the last child starting at or before it
 * can hold it (children are in document order), so the search is a path, not a scan. */
static const dra_ynode_t *loc_find(const dra_ynode_t *n, uint32_t line, uint32_t col, int depth)
{
    for (; n && depth < 16; depth++) {
        if (n->type == DRA_YNODE_MAP && n->line == line && n->column == col)
            return n;
        if ((n->type != DRA_YNODE_MAP && n->type != DRA_YNODE_SEQ) || !n->n || !n->vals)
            return NULL;
        size_t lo = 0, hi = n->n; /* last i with vals[i] before line:col */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (n->vals[mid] && before(n->vals[mid], line, col))
                lo = mid;
            else
                hi = mid;
        }
        n = n->vals[lo] && before(n->vals[lo], line, col) ? n->vals[lo] : NULL;
    }
    return NULL;
}

/* Position of `path` inside the object at pos, when the file can be read again; else false. */
static bool locate(loc_t *l, const dra_srcpos_t *pos, const char *path, dra_srcpos_t *out)
{
    if (!pos || !pos->file || !pos->line || !path || !*path || pos->file[0] == '<' ||
        strcmp(pos->file, "-") == 0)
        return false;
    if (!l->file || strcmp(l->file, pos->file) != 0) {
        loc_reset(l);
        l->file = pos->file;
        dra_arena_init(&l->arena, 0);
        size_t len = 0;
        l->ok = dra_io_read_file(pos->file, DRA_MANIFEST_MAX_FILE, &l->buf, &len, NULL) == DRA_OK &&
                dra_ydoc_parse_file_buf(l->buf, len, pos->file, &l->arena, 0, loc_doc, l, NULL) ==
                    DRA_OK;
    }
    if (!l->ok)
        return false;
    const dra_ynode_t *obj = NULL;
    for (size_t i = 0; i < l->ndocs && !obj; i++)
        obj = loc_find(l->docs[i], pos->line, pos->column, 0);
    const dra_ynode_t *at = obj ? dra_ynode_at_path(obj, path) : NULL;
    if (!at || at == obj || !at->line)
        return false;
    *out = (dra_srcpos_t){pos->file, at->line, at->column};
    return true;
}

typedef struct vd {
    const dra_model_t *m;
    const dra_slice_t **by_pool; /* slices sorted by (driver, pool name); NULL names excluded */
    uint32_t nby_pool;
    const dra_validate_opts_t *o;
    dra_diag_list_t *errs, *warns;
    const char *kind;
    const char *name;
    int nerr;
    loc_t loc; /* field positions, parsed on the first finding that needs them */
} vd_t;

enum { SEV_ERROR, SEV_RELEASE, SEV_INCOMPLETE, SEV_WARN };

static void vfind(vd_t *v, int sev, const dra_srcpos_t *pos, const char *path, const char *fmt,
                  ...) DRA_PRINTF(5, 6);

static void vfind(vd_t *v, int sev, const dra_srcpos_t *pos, const char *path, const char *fmt, ...)
{
    bool is_err = sev == SEV_ERROR || (sev == SEV_RELEASE && v->o->release != 0) ||
                  (sev == SEV_INCOMPLETE && (v->o->flags & DRA_VALIDATE_STRICT));
    dra_diag_list_t *l = is_err ? v->errs : v->warns;
    if (is_err)
        v->nerr++;
    if (!l)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    dra_msg_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dra_srcpos_t field;
    if (locate(&v->loc, pos, path, &field))
        pos = &field;
    (void)dra_diag_list_add(l, is_err ? DRA_EVALIDATE : DRA_OK, pos ? pos->file : NULL,
                            pos ? pos->line : 0, pos ? pos->column : 0, "%s/%s: %s: %s", v->kind,
                            v->name ? v->name : "<unnamed>", path, msg);
}

#define VERR(pos, path, ...) vfind(v, SEV_ERROR, (pos), (path), __VA_ARGS__)

/* Field paths without printf (check_device runs per device and per attribute): the same bytes
 * snprintf would write, truncated the same way to cap - 1 characters. */
typedef struct pbuf {
    char *p;
    size_t cap, len;
} pbuf_t;

static pbuf_t pb_start(char *p, size_t cap)
{
    p[0] = 0;
    return (pbuf_t){.p = p, .cap = cap, .len = 0};
}

static void pb_put(pbuf_t *b, const char *s, size_t n)
{
    size_t room = b->cap - 1 - b->len;
    if (n > room)
        n = room;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void pb_s(pbuf_t *b, const char *s)
{
    pb_put(b, s, strlen(s));
}

static void pb_u(pbuf_t *b, uint32_t u)
{
    char tmp[12];
    size_t n = sizeof tmp;
    do {
        tmp[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    pb_put(b, tmp + n, sizeof tmp - n);
}

/* ---- name rules ------------------------------------------------------------------------ */

static bool label_n(const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && i > 0 && i < n - 1))
            return false;
    }
    return true;
}

static bool subdomain_n(const char *s, size_t n, size_t max)
{
    if (n == 0 || n > max)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || s[i] == '.') {
            if (!label_n(s + start, i - start))
                return false;
            start = i + 1;
        }
    return true;
}

bool dra_name_is_dns_label(const char *s)
{
    return s && label_n(s, strlen(s));
}

bool dra_name_is_dns_subdomain(const char *s)
{
    return s && subdomain_n(s, strlen(s), 253);
}

static bool c_ident_n(const char *s, size_t n)
{
    if (n == 0 || n > 32)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                  (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return false;
    }
    return true;
}

bool dra_name_is_c_identifier(const char *s)
{
    return s && c_ident_n(s, strlen(s));
}

bool dra_name_is_qualified(const char *s)
{
    if (!s)
        return false;
    const char *slash = strchr(s, '/');
    if (!slash)
        return c_ident_n(s, strlen(s));
    if (strchr(slash + 1, '/'))
        return false;
    return subdomain_n(s, (size_t)(slash - s), 63) && c_ident_n(slash + 1, strlen(slash + 1));
}

static bool fully_qualified(const char *s)
{
    return s && strchr(s, '/') && dra_name_is_qualified(s);
}

bool dra_name_is_label_key(const char *s)
{
    if (!s)
        return false;
    const char *name = s, *slash = strrchr(s, '/');
    if (slash) {
        if (!subdomain_n(s, (size_t)(slash - s), 253))
            return false;
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0 || n > 63 || !isalnum((unsigned char)name[0]) || !isalnum((unsigned char)name[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_' && name[i] != '.')
            return false;
    return true;
}

bool dra_name_is_label_value(const char *s)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    if (n == 0)
        return true;
    if (n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

/* Pool names: DNS subdomains joined by '/', <= 253 in total. */
static bool pool_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || s[i] == '/') {
            if (!subdomain_n(s + start, i - start, 253))
                return false;
            start = i + 1;
        }
    return true;
}

/* Dot-separated non-empty identifiers of [0-9A-Za-z-], up to stop (or NUL). */
static const char *semver_ids(const char *p, char stop)
{
    const char *id = p;
    for (;; p++) {
        if (*p == '.' || *p == 0 || *p == stop) {
            if (p == id)
                return NULL;
            if (*p != '.')
                return p;
            id = p + 1;
        } else if (!isalnum((unsigned char)*p) && *p != '-') {
            return NULL;
        }
    }
}

/* Semantic version 2.0.0 (no leading 'v'): x.y.z[-pre][+build]. */
static bool semver_ok(const char *s)
{
    const char *p = s;
    for (int part = 0; part < 3; part++) {
        if (!isdigit((unsigned char)*p))
            return false;
        if (*p == '0' && isdigit((unsigned char)p[1]))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
        if (part < 2 && *p++ != '.')
            return false;
    }
    if (*p == '-' && !(p = semver_ids(p + 1, '+')))
        return false;
    if (*p == '+' && !(p = semver_ids(p + 1, 0)))
        return false;
    return *p == 0;
}

/* ---- pieces ---------------------------------------------------------------------------- */

static void check_node_selector(vd_t *v, const dra_node_selector_t *ns, const dra_srcpos_t *pos,
                                const char *path, bool one_term)
{
    char p[256];
    if (ns->pos.line)
        pos = &ns->pos;
    if (one_term && ns->nterms != 1)
        VERR(pos, path, "must have exactly one node selector term, has %u", ns->nterms);
    if (ns->nterms == 0)
        VERR(pos, path, "nodeSelectorTerms: must have at least one term");
    for (uint32_t t = 0; t < ns->nterms; t++) {
        const dra_ns_term_t *term = &ns->terms[t];
        for (int pass = 0; pass < 2; pass++) {
            const dra_ns_req_t *r = pass ? term->fields : term->exprs;
            uint32_t n = pass ? term->nfields : term->nexprs;
            for (uint32_t i = 0; i < n; i++) {
                snprintf(p, sizeof p, "%s.nodeSelectorTerms[%u].%s[%u]", path, t,
                         pass ? "matchFields" : "matchExpressions", i);
                if (!r[i].key || !dra_name_is_label_key(r[i].key))
                    VERR(pos, p, "key: invalid label key \"%s\"", r[i].key ? r[i].key : "");
                if (pass && r[i].key && strcmp(r[i].key, "metadata.name") != 0)
                    VERR(pos, p, "key: matchFields supports only metadata.name, not \"%s\"",
                         r[i].key);
                switch (r[i].op) {
                case DRA_NS_IN:
                case DRA_NS_NOT_IN:
                    if (r[i].nvalues == 0)
                        VERR(pos, p, "values: must be non-empty for operator %s", r[i].op_raw);
                    break;
                case DRA_NS_EXISTS:
                case DRA_NS_DOES_NOT_EXIST:
                    if (r[i].nvalues)
                        VERR(pos, p, "values: must be empty for operator %s", r[i].op_raw);
                    break;
                case DRA_NS_GT:
                case DRA_NS_LT:
                    if (r[i].nvalues != 1)
                        VERR(pos, p, "values: must have exactly one integer for operator %s",
                             r[i].op_raw);
                    break;
                default:
                    VERR(pos, p,
                         "operator: unsupported value \"%s\": supported values: \"In\", \"NotIn\", "
                         "\"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"",
                         r[i].op_raw ? r[i].op_raw : "");
                }
            }
        }
    }
}

static void check_tolerations(vd_t *v, const dra_toleration_t *t, uint32_t n,
                              const dra_srcpos_t *pos, const char *path)
{
    char p[256];
    if (n > 16)
        VERR(pos, path, "must have at most 16 tolerations, has %u", n);
    for (uint32_t i = 0; i < n; i++) {
        pbuf_t pb = pb_start(p, sizeof p);
        pb_s(&pb, path);
        pb_s(&pb, "[");
        pb_u(&pb, i);
        pb_s(&pb, "]");
        bool empty_key = !t[i].key || !t[i].key[0];
        if (!empty_key && !dra_name_is_label_key(t[i].key))
            VERR(pos, p, "key: invalid key \"%s\"", t[i].key);
        if (t[i].op == DRA_TOL_UNKNOWN)
            VERR(pos, p, "operator: unsupported value \"%s\": supported values: \"Equal\", \"Exists\"",
                 t[i].op_raw);
        if (empty_key && t[i].op == DRA_TOL_EQUAL && t[i].op_raw)
            VERR(pos, p, "operator: must be Exists when key is empty (which matches all keys)");
        else if (empty_key && t[i].op == DRA_TOL_EQUAL)
            vfind(v, SEV_WARN, pos, p,
                  "key is empty and operator defaults to Equal: the API documents that an empty "
                  "key needs operator Exists; as written this toleration matches no taint");
        if (t[i].op == DRA_TOL_EXISTS && t[i].value && t[i].value[0])
            VERR(pos, p, "value: must be empty when operator is Exists");
        if (t[i].effect_raw && t[i].effect_raw[0] && strcmp(t[i].effect_raw, "NoSchedule") != 0 &&
            strcmp(t[i].effect_raw, "NoExecute") != 0)
            VERR(pos, p, "effect: unsupported value \"%s\": supported values: \"NoSchedule\", "
                         "\"NoExecute\"",
                 t[i].effect_raw);
        if (t[i].has_seconds && t[i].effect != DRA_EFFECT_NO_EXECUTE)
            VERR(pos, p, "tolerationSeconds: effect must be NoExecute when tolerationSeconds is set");
    }
}

static int cmp_pool(const dra_slice_t *a, const char *driver, const char *pool)
{
    int c = strcmp(a->driver, driver);
    return c ? c : strcmp(a->pool_name, pool);
}

static int cmp_slice_pool(const void *x, const void *y)
{
    const dra_slice_t *a = *(const dra_slice_t *const *)x, *b = *(const dra_slice_t *const *)y;
    return cmp_pool(a, b->driver, b->pool_name);
}

/* The slices of s's pool: a range of v->by_pool (binary search). */
static const dra_slice_t *const *pool_slices(const vd_t *v, const dra_slice_t *s, uint32_t *n)
{
    *n = 0;
    if (!s->driver || !s->pool_name || !v->by_pool)
        return NULL;
    uint32_t lo = 0, hi = v->nby_pool;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cmp_pool(v->by_pool[mid], s->driver, s->pool_name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < v->nby_pool && cmp_pool(v->by_pool[end], s->driver, s->pool_name) == 0)
        end++;
    *n = end - lo;
    return v->by_pool + lo;
}

static void check_policy(vd_t *v, const dra_request_policy_t *p, const dra_srcpos_t *pos,
                         const char *path)
{
    if (p->nvalid_values && p->has_valid_range)
        VERR(pos, path, "validValues and validRange are mutually exclusive");
    if (p->nvalid_values > 10)
        VERR(pos, path, "validValues: must have at most 10 entries, has %u", p->nvalid_values);
    bool found = false;
    for (uint32_t i = 0; i < p->nvalid_values; i++) {
        if (i && dra_quantity_cmp(&p->valid_values[i - 1], &p->valid_values[i]) >= 0)
            VERR(pos, path, "validValues[%u]: must be sorted ascending without duplicates", i);
        if (p->has_default && dra_quantity_cmp(&p->valid_values[i], &p->def) == 0)
            found = true;
    }
    if (p->nvalid_values && p->has_default && !found)
        VERR(pos, path, "default: must be one of validValues");
    if (p->has_valid_range) {
        if (p->has_max && dra_quantity_cmp(&p->min, &p->max) > 0)
            VERR(pos, path, "validRange: min must not exceed max");
        if (p->has_default && (dra_quantity_cmp(&p->def, &p->min) < 0 ||
                               (p->has_max && dra_quantity_cmp(&p->def, &p->max) > 0)))
            VERR(pos, path, "default: must lie within validRange");
        dra_quantity_t zero = {0};
        if (p->has_step && dra_quantity_cmp(&p->step, &zero) <= 0)
            VERR(pos, path, "validRange.step: must be greater than zero");
    }
}

/* attributes and capacity: names, values, limits, duplicates */
static void check_device_attrs(vd_t *v, const dra_slice_t *s, const dra_device_t *d,
                               const dra_srcpos_t *pos, const char *path, size_t pathlen)
{
    char p[300];
    pbuf_t pb;
    (void)s;
    uint32_t nvalues = 0;
    for (uint32_t i = 0; i < d->nattrs; i++) {
        const dra_attr_t *a = &d->attrs[i];
        pb = pb_start(p, sizeof p);
        pb_put(&pb, path, pathlen);
        pb_s(&pb, ".attributes.");
        pb_s(&pb, a->name ? a->name : "");
        if (!dra_name_is_qualified(a->name))
            VERR(pos, p, "invalid qualified name (C identifier <= 32, optionally prefixed by a "
                         "DNS subdomain <= 63 and '/')");
        if (a->kind == DRA_ATTR_NONE)
            continue;
        nvalues += dra_attr_kind_is_list((dra_attr_kind_t)a->kind) ? a->count : 1;
        if (dra_attr_kind_is_list((dra_attr_kind_t)a->kind) && a->count == 0)
            VERR(pos, p, "list attribute must not be empty");
        if (a->kind == DRA_ATTR_STRING || a->kind == DRA_ATTR_VERSION) {
            if (a->v.s && strlen(a->v.s) > 64)
                VERR(pos, p, "value longer than 64 characters");
            if (a->kind == DRA_ATTR_VERSION && a->v.s && !semver_ok(a->v.s))
                VERR(pos, p, "version \"%s\" is not a semantic version (x.y.z)", a->v.s);
        }
        if (a->kind == DRA_ATTR_STRINGS || a->kind == DRA_ATTR_VERSIONS)
            for (uint32_t k = 0; a->v.strs && k < a->count; k++) {
                if (strlen(a->v.strs[k]) > 64)
                    VERR(pos, p, "value [%u] longer than 64 characters", k);
                if (a->kind == DRA_ATTR_VERSIONS && !semver_ok(a->v.strs[k]))
                    VERR(pos, p, "version \"%s\" is not a semantic version", a->v.strs[k]);
            }
        for (uint32_t k = 0; k < i; k++)
            if (d->attrs[k].qname && d->attrs[k].qname == a->qname)
                VERR(pos, p, "duplicate attribute (same qualified name as \"%s\")",
                     d->attrs[k].name);
    }
    if (nvalues > 48)
        VERR(pos, path, "attributes: at most 48 values per device, has %u", nvalues);
    if (d->nattrs + d->ncaps > 32)
        VERR(pos, path, "attributes and capacity: at most 32 combined, has %u",
             d->nattrs + d->ncaps);
    for (uint32_t i = 0; i < d->ncaps; i++) {
        const dra_capacity_t *c = &d->caps[i];
        pb = pb_start(p, sizeof p);
        pb_put(&pb, path, pathlen);
        pb_s(&pb, ".capacity.");
        pb_s(&pb, c->name ? c->name : "");
        if (!dra_name_is_qualified(c->name))
            VERR(pos, p, "invalid qualified name");
        if (c->policy)
            check_policy(v, c->policy, pos, p);
        for (uint32_t k = 0; k < d->nattrs; k++)
            if (d->attrs[k].qname && d->attrs[k].qname == c->qname)
                VERR(pos, p, "name used for both an attribute and a capacity");
    }
}

/* A field new in Kubernetes 1.37: an error under --release 1.34 ... 1.36 (the API server of
 * those releases does not know it), a warning when no release is given. */
static void new_in_137(vd_t *v, const dra_srcpos_t *pos, const char *path, const char *field,
                       const char *gate)
{
    if (v->o->release && v->o->release < 137)
        VERR(pos, path, "%s: not a field in Kubernetes 1.%d (new in 1.37, feature gate %s)", field,
             v->o->release - 100, gate);
    else if (!v->o->release)
        vfind(v, SEV_RELEASE, pos, path,
              "%s: new in Kubernetes 1.37 (feature gate %s); unknown to 1.34 ... 1.36", field,
              gate);
}

/* skipNodeOperations of a ResourceSlice spec or an allocation result (KEP-5945, 1.37): a set of
 * "NodePrepareResources", "NodeUnprepareResources", "*"; "NodePrepareResources" only beside
 * "NodeUnprepareResources" or "*" (skipping preparation but not clean-up would leave pods
 * Terminating on a node without the driver's plugin). Checked whatever the gate: KEP-5945 says
 * the rules apply regardless of it (the API server drops the field on write while it is off). */
static void check_skip_node_ops(vd_t *v, const char *const *ops, uint32_t n,
                                const dra_srcpos_t *pos, const char *path)
{
    if (!n)
        return;
    new_in_137(v, pos, path, "skipNodeOperations", "DRAOptionalNodeOperations");
    bool prepare = false, unprepare = false, all = false;
    for (uint32_t i = 0; i < n; i++) {
        const char *o = ops[i] ? ops[i] : "";
        if (strcmp(o, "NodePrepareResources") == 0)
            prepare = true;
        else if (strcmp(o, "NodeUnprepareResources") == 0)
            unprepare = true;
        else if (strcmp(o, "*") == 0)
            all = true;
        else
            VERR(pos, path,
                 "skipNodeOperations[%u]: Unsupported value: \"%s\": supported values: \"*\", "
                 "\"NodePrepareResources\", \"NodeUnprepareResources\"",
                 i, o);
        for (uint32_t k = 0; k < i; k++)
            if (ops[k] && strcmp(ops[k], o) == 0) {
                VERR(pos, path, "skipNodeOperations[%u]: Duplicate value: \"%s\"", i, o);
                break;
            }
    }
    if (prepare && !unprepare && !all)
        VERR(pos, path,
             "skipNodeOperations: Invalid value: \"NodePrepareResources\": may only be listed "
             "together with \"NodeUnprepareResources\" or \"*\"");
}

/* "<base>.counters.<name>" into buf (truncated like the other paths); the buffer for more. */
static pbuf_t counter_path(char *buf, size_t cap, const char *base, const char *name)
{
    pbuf_t pb = pb_start(buf, cap);
    pb_s(&pb, base);
    pb_s(&pb, ".counters.");
    pb_s(&pb, name ? name : "");
    return pb;
}

/* A field of master (KEP-5941, DRASharedConsumableCapacity): an error under --release 1.34 ...
 * 1.37, a warning when no release is given; 1.38-pre knows it (its API server drops it while the
 * gate is off, which the allocator models: sharedcap.c). */
static void new_in_138pre(vd_t *v, const dra_srcpos_t *pos, const char *path, const char *field)
{
    if (v->o->release && v->o->release < 138)
        VERR(pos, path,
             "%s: not a field in Kubernetes 1.%d (new in 1.38-pre, feature gate "
             "DRASharedConsumableCapacity)",
             field, v->o->release - 100);
    else if (!v->o->release)
        vfind(v, SEV_RELEASE, pos, path,
              "%s: new in Kubernetes 1.38-pre (feature gate DRASharedConsumableCapacity); unknown "
              "to 1.34 ... 1.37",
              field);
}

/* compatibilityGroups of one consumesCounters entry (KEP-5963): at most 2 DNS labels, unique;
 * an empty list is "no groups". */
static void check_groups(vd_t *v, const dra_consumes_t *c, const dra_srcpos_t *pos, const char *p)
{
    if (!c->ngroups)
        return;
    new_in_137(v, pos, p, "compatibilityGroups", "DRADeviceCompatibilityGroups");
    if (c->ngroups > 2)
        VERR(pos, p, "compatibilityGroups: at most 2, has %u", c->ngroups);
    for (uint32_t g = 0; g < c->ngroups; g++) {
        const char *n = c->groups[g];
        if (!n || !dra_name_is_dns_label(n))
            VERR(pos, p, "compatibilityGroups[%u]: \"%s\" is not a DNS label", g, n ? n : "");
        for (uint32_t k = 0; k < g && n; k++)
            if (c->groups[k] && strcmp(c->groups[k], n) == 0)
                VERR(pos, p, "compatibilityGroups[%u]: duplicate group \"%s\"", g, n);
    }
}

/* consumesCounters: entries, and every counter defined by its pool's counter set */
static void check_device_counters(vd_t *v, const dra_slice_t *s, const dra_device_t *d,
                                  const dra_srcpos_t *pos, const char *path, size_t pathlen)
{
    char p[300];
    pbuf_t pb;
    if (d->nconsumes > 2)
        VERR(pos, path, "consumesCounters: at most 2 entries, has %u", d->nconsumes);
    uint32_t nps = 0;
    const dra_slice_t *const *buf = d->nconsumes ? pool_slices(v, s, &nps) : NULL;
    for (uint32_t i = 0; i < d->nconsumes; i++) {
        const dra_consumes_t *c = &d->consumes[i];
        pb = pb_start(p, sizeof p);
        pb_put(&pb, path, pathlen);
        pb_s(&pb, ".consumesCounters[");
        pb_u(&pb, i);
        pb_s(&pb, "]");
        if (c->ncounters > 32)
            VERR(pos, p, "counters: at most 32, has %u", c->ncounters);
        check_groups(v, c, pos, p);
        if (!c->counter_set) {
            VERR(pos, p, "counterSet: required field missing");
            continue;
        }
        for (uint32_t k = 0; k < i; k++)
            if (d->consumes[k].counter_set && strcmp(d->consumes[k].counter_set, c->counter_set) == 0)
                VERR(pos, p, "counterSet \"%s\" listed twice", c->counter_set);
        const dra_counter_set_t *set = NULL;
        for (uint32_t k = 0; k < nps && !set; k++)
            for (uint32_t j = 0; j < buf[k]->ncounter_sets; j++)
                if (buf[k]->counter_sets[j].name &&
                    strcmp(buf[k]->counter_sets[j].name, c->counter_set) == 0) {
                    set = &buf[k]->counter_sets[j];
                    break;
                }
        if (!set) {
            if ((int64_t)nps < s->slice_count)
                vfind(v, SEV_INCOMPLETE, pos, p,
                      "counterSet: \"%s\" is not among the %u of %lld slices of pool %s/%s "
                      "present (incomplete pool)",
                      c->counter_set, nps, (long long)s->slice_count, s->driver ? s->driver : "",
                      s->pool_name ? s->pool_name : "");
            else
                VERR(pos, p, "counterSet: \"%s\" is not defined in the sharedCounters of pool %s/%s",
                     c->counter_set, s->driver ? s->driver : "", s->pool_name ? s->pool_name : "");
            continue;
        }
        for (uint32_t k = 0; k < c->ncounters; k++) {
            const char *from = c->counters[k].value_from;
            if (from) {
                char pk[400];
                counter_path(pk, sizeof pk, p, c->counters[k].name);
                new_in_138pre(v, pos, pk, "valueFrom");
                if (!dra_name_is_qualified(from))
                    VERR(pos, pk, "valueFrom.capacityName: \"%s\": invalid qualified name", from);
            }
        }
        for (uint32_t k = 0; k < c->ncounters; k++) {
            bool ok = false;
            for (uint32_t j = 0; j < set->ncounters && !ok; j++)
                ok = set->counters[j].name && c->counters[k].name &&
                     strcmp(set->counters[j].name, c->counters[k].name) == 0;
            if (!ok)
                VERR(pos, p, "counters.%s: not a counter of counter set \"%s\"",
                     c->counters[k].name ? c->counters[k].name : "", c->counter_set);
        }
    }
}

/* per-device node selection (perDeviceNodeSelection) */
static void check_device_nodes(vd_t *v, const dra_slice_t *s, const dra_device_t *d,
                               const dra_srcpos_t *pos, const char *path, size_t pathlen)
{
    char p[300];
    (void)pathlen;
    int nsel = (d->node_name != NULL) + (d->node_selector != NULL) + d->all_nodes;
    if (!s->per_device_node_selection) {
        if (nsel)
            VERR(pos, path, "nodeName, nodeSelector and allNodes may be set on a device only "
                            "when the slice sets perDeviceNodeSelection");
    } else if (nsel != 1) {
        VERR(pos, path, "exactly one of nodeName, nodeSelector, allNodes is required with "
                        "perDeviceNodeSelection (has %d)",
             nsel);
    }
    if (d->node_name && !dra_name_is_dns_subdomain(d->node_name))
        VERR(pos, path, "nodeName: \"%s\" is not a valid node name", d->node_name);
    if (d->node_selector) {
        snprintf(p, sizeof p, "%s.nodeSelector", path);
        check_node_selector(v, d->node_selector, pos, p, true);
    }
}

/* taints and binding conditions */
static void check_device_taints(vd_t *v, const dra_slice_t *s, const dra_device_t *d,
                                const dra_srcpos_t *pos, const char *path, size_t pathlen)
{
    char p[300];
    pbuf_t pb;
    (void)s;
    uint32_t tmax = v->o->release == 134 ? 4 : 16;
    if (d->ntaints > tmax)
        VERR(pos, path, "taints: at most %u, has %u", tmax, d->ntaints);
    else if (d->ntaints > 4 && v->o->release == 0)
        vfind(v, SEV_RELEASE, pos, path, "taints: %u taints are invalid in Kubernetes 1.34 (at most 4)",
              d->ntaints);
    for (uint32_t i = 0; i < d->ntaints; i++) {
        pb = pb_start(p, sizeof p);
        pb_put(&pb, path, pathlen);
        pb_s(&pb, ".taints[");
        pb_u(&pb, i);
        pb_s(&pb, "]");
        if (!d->taints[i].key || !dra_name_is_label_key(d->taints[i].key))
            VERR(pos, p, "key: invalid or missing taint key \"%s\"",
                 d->taints[i].key ? d->taints[i].key : "");
        if (d->taints[i].value && !dra_name_is_label_value(d->taints[i].value))
            VERR(pos, p, "value: \"%s\" is not a label value (at most 63 of [A-Za-z0-9-_.], "
                         "beginning and ending with a letter or digit)",
                 d->taints[i].value);
        if (!d->taints[i].effect_raw || !d->taints[i].effect_raw[0])
            VERR(pos, p, "effect: required field missing");
    }
    if (d->nbinding_conditions > 4)
        VERR(pos, path, "bindingConditions: at most 4, has %u", d->nbinding_conditions);
    if (d->nbinding_failure_conditions > 4)
        VERR(pos, path, "bindingFailureConditions: at most 4, has %u",
             d->nbinding_failure_conditions);
    if (d->nbinding_failure_conditions && !d->nbinding_conditions)
        VERR(pos, path, "bindingFailureConditions: requires bindingConditions");
}

static void check_device(vd_t *v, const dra_slice_t *s, const dra_device_t *d, uint32_t idx)
{
    char path[200];
    pbuf_t pb = pb_start(path, sizeof path);
    pb_s(&pb, "spec.devices[");
    pb_u(&pb, idx);
    pb_s(&pb, "]");
    size_t pathlen = pb.len;
    const dra_srcpos_t *pos = d->pos.line ? &d->pos : &s->pos;
    if (!d->name)
        VERR(pos, path, "name: required field missing");
    else if (!dra_name_is_dns_label(d->name))
        VERR(pos, path, "name: \"%s\" is not a DNS label", d->name);
    check_device_attrs(v, s, d, pos, path, pathlen);
    check_device_counters(v, s, d, pos, path, pathlen);
    check_device_nodes(v, s, d, pos, path, pathlen);
    check_device_taints(v, s, d, pos, path, pathlen);
}

static bool advanced(const dra_device_t *d)
{
    if (d->ntaints || d->nconsumes)
        return true;
    for (uint32_t i = 0; i < d->nattrs; i++)
        if (dra_attr_kind_is_list((dra_attr_kind_t)d->attrs[i].kind))
            return true;
    return false;
}

static void check_slice(vd_t *v, const dra_slice_t *s)
{
    v->kind = "ResourceSlice";
    v->name = s->name;
    const dra_srcpos_t *pos = &s->pos;
    if (!s->name)
        VERR(pos, "metadata.name", "required field missing");
    else if (!dra_name_is_dns_subdomain(s->name))
        VERR(pos, "metadata.name", "\"%s\" is not a DNS subdomain", s->name);
    if (!s->driver)
        vfind(v, SEV_INCOMPLETE, pos, "spec.driver", "required field missing (incomplete object)");
    else if (!subdomain_n(s->driver, strlen(s->driver), 63))
        VERR(pos, "spec.driver", "\"%s\" is not a DNS subdomain of at most 63 characters",
             s->driver);
    if (!s->pool_name)
        vfind(v, SEV_INCOMPLETE, pos, "spec.pool.name", "required field missing (incomplete object)");
    else if (!pool_name_ok(s->pool_name))
        VERR(pos, "spec.pool.name", "\"%s\" is not DNS subdomains joined by '/' (<= 253)",
             s->pool_name);
    if (s->pool_name && s->slice_count <= 0)
        VERR(pos, "spec.pool.resourceSliceCount", "must be greater than zero, is %lld",
             (long long)s->slice_count);
    if (s->generation < 0)
        VERR(pos, "spec.pool.generation", "must not be negative");
    check_skip_node_ops(v, s->skip_node_ops, s->nskip_node_ops,
                        s->skip_node_ops_pos.line ? &s->skip_node_ops_pos : pos, "spec");
    int nscope = (s->node_name != NULL) + (s->node_selector != NULL) + s->all_nodes +
                 s->per_device_node_selection;
    if (nscope > 1)
        VERR(pos, "spec", "exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection "
                          "must be set, %d are",
             nscope);
    else if (nscope == 0)
        vfind(v, SEV_INCOMPLETE, pos, "spec",
              "exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection must be set, "
              "none is (incomplete object)");
    if (s->node_name && !dra_name_is_dns_subdomain(s->node_name))
        VERR(pos, "spec.nodeName", "\"%s\" is not a valid node name", s->node_name);
    if (s->node_selector)
        check_node_selector(v, s->node_selector, pos, "spec.nodeSelector", true);
    bool adv = false;
    for (uint32_t i = 0; i < s->ndevices; i++)
        adv = adv || advanced(&s->devices[i]);
    uint32_t dmax = adv ? 64 : 128;
    if (s->ndevices > dmax)
        VERR(pos, "spec.devices", "must have at most %u devices%s, has %u", dmax,
             adv ? " when any device uses taints, consumesCounters or list attributes" : "",
             s->ndevices);
    if (s->ndevices && s->ncounter_sets) {
        if (v->o->release == 134) {
            /* the 1.34 layout: devices and their counters in one slice */
        } else {
            vfind(v, SEV_RELEASE, pos, "spec",
                  "devices and sharedCounters in one slice: invalid from Kubernetes 1.35 on (a "
                  "slice holds devices or sharedCounters, not both)");
        }
    }
    if (s->ncounter_sets > 8)
        VERR(pos, "spec.sharedCounters", "at most 8 counter sets, has %u", s->ncounter_sets);
    uint32_t total_counters = 0;
    for (uint32_t i = 0; i < s->ncounter_sets; i++) {
        const dra_counter_set_t *cs = &s->counter_sets[i];
        char p[200];
        snprintf(p, sizeof p, "spec.sharedCounters[%u]", i);
        total_counters += cs->ncounters;
        if (!cs->name || !dra_name_is_dns_label(cs->name))
            VERR(pos, p, "name: \"%s\" is not a DNS label", cs->name ? cs->name : "");
        if (cs->ncounters > 32)
            VERR(pos, p, "counters: at most 32, has %u", cs->ncounters);
        if (cs->ncounters == 0)
            VERR(pos, p, "counters: must not be empty");
        for (uint32_t k = 0; k < cs->ncounters; k++) {
            if (!dra_name_is_dns_label(cs->counters[k].name))
                VERR(pos, p, "counters.%s: counter name is not a DNS label",
                     cs->counters[k].name ? cs->counters[k].name : "");
            if (cs->counters[k].policy) { /* KEP-5941: the capacity requestPolicy's rules */
                char pk[400];
                pbuf_t pb2 = counter_path(pk, sizeof pk, p, cs->counters[k].name);
                new_in_138pre(v, pos, pk, "requestPolicy");
                pb_s(&pb2, ".requestPolicy");
                check_policy(v, cs->counters[k].policy, pos, pk);
            }
        }
    }
    if (v->o->release == 134 && total_counters > 32)
        VERR(pos, "spec.sharedCounters", "at most 32 counters in total in 1.34, has %u",
             total_counters);
    for (uint32_t i = 0; i < s->ndevices; i++)
        check_device(v, s, &s->devices[i], i);
}

/* ---- claims ---------------------------------------------------------------------------- */

static void check_exact(vd_t *v, const dra_exact_request_t *r, const dra_srcpos_t *pos,
                        const char *path)
{
    char p[300];
    if (r->pos.line)
        pos = &r->pos;
    if (!r->class_name)
        VERR(pos, path, "deviceClassName: required field missing");
    else if (!dra_name_is_dns_subdomain(r->class_name))
        VERR(pos, path, "deviceClassName: \"%s\" is not a DNS subdomain", r->class_name);
    if (r->nselectors > 32)
        VERR(pos, path, "selectors: at most 32, has %u", r->nselectors);
    for (uint32_t i = 0; i < r->nselectors; i++) {
        snprintf(p, sizeof p, "%s.selectors[%u].cel.expression", path, i);
        const dra_srcpos_t *sp = r->selectors[i].pos.line ? &r->selectors[i].pos : pos;
        if (!r->selectors[i].cel)
            VERR(sp, p, "required field missing");
        else if (strlen(r->selectors[i].cel) > 10 * 1024)
            VERR(sp, p, "expression longer than 10 KiB");
    }
    if (r->mode == DRA_MODE_UNKNOWN)
        VERR(pos, path, "allocationMode: unsupported value \"%s\": supported values: \"All\", "
                        "\"ExactCount\"",
             r->mode_raw);
    if (r->mode == DRA_MODE_EXACT_COUNT && r->has_count && r->count <= 0)
        VERR(pos, path, "count: must be greater than zero, is %lld", (long long)r->count);
    if (r->mode == DRA_MODE_ALL && r->has_count && r->count != 0)
        VERR(pos, path, "count: must not be set when allocationMode is All");
    snprintf(p, sizeof p, "%s.tolerations", path);
    check_tolerations(v, r->tolerations, r->ntolerations, pos, p);
    if (r->nderived) {
        new_in_137(v, pos, path, "derivedAttributes", "DRADerivedAttributes");
        if (r->nderived > 32)
            VERR(pos, path, "derivedAttributes: at most 32, has %u", r->nderived);
    }
    for (uint32_t i = 0; i < r->nderived; i++) {
        const dra_derived_attr_t *da = &r->derived[i];
        const dra_srcpos_t *dp = da->pos.line ? &da->pos : pos;
        snprintf(p, sizeof p, "%s.derivedAttributes[%u]", path, i);
        if (!da->name)
            VERR(dp, p, "name: required field missing");
        else if (!fully_qualified(da->name))
            VERR(dp, p, "name: \"%s\" is not a fully qualified name (<domain>/<identifier>)",
                 da->name);
        for (uint32_t k = 0; k < i && da->name; k++)
            if (r->derived[k].name && strcmp(r->derived[k].name, da->name) == 0)
                VERR(dp, p, "name: duplicate derived attribute \"%s\"", da->name);
        if (!da->expr)
            VERR(dp, p, "expression: required field missing");
        else if (strlen(da->expr) > 10 * 1024)
            VERR(dp, p, "expression: longer than 10 KiB");
    }
    for (uint32_t i = 0; i < r->ncap_requests; i++)
        if (!dra_name_is_qualified(r->cap_requests[i].name)) {
            snprintf(p, sizeof p, "%s.capacity.requests.%s", path,
                     r->cap_requests[i].name ? r->cap_requests[i].name : "");
            VERR(pos, p, "invalid qualified name");
        }
}

/* Does "req" or "req/sub" name a request (or subrequest) of the claim? */
static bool request_ref_ok(const dra_claim_t *c, const char *ref)
{
    if (!ref)
        return false;
    const char *slash = strchr(ref, '/');
    size_t rl = slash ? (size_t)(slash - ref) : strlen(ref);
    for (uint32_t i = 0; i < c->nrequests; i++) {
        const dra_request_t *r = &c->requests[i];
        if (!r->name || strlen(r->name) != rl || strncmp(r->name, ref, rl) != 0)
            continue;
        if (!slash)
            return true;
        for (uint32_t k = 0; k < r->nfirst_available; k++)
            if (r->first_available[k].name && strcmp(r->first_available[k].name, slash + 1) == 0)
                return true;
    }
    return false;
}

/* Each derived attribute of request r (body b, "req/sub" scope sub or NULL) must be named by a
 * constraint that applies to it (kubernetes.io's DRA API page for 1.37: an unreferenced one is
 * rejected); a release-dependent finding, as the rule is only documented. */
static void check_derived_refs(vd_t *v, const dra_claim_t *c, const dra_request_t *r,
                               const dra_exact_request_t *b, const dra_srcpos_t *pos,
                               const char *path)
{
    char p[400], sub[200];
    snprintf(sub, sizeof sub, "%s/%s", r->name ? r->name : "", b->name ? b->name : "");
    for (uint32_t i = 0; i < b->nderived; i++) {
        const char *n = b->derived[i].name;
        bool used = !fully_qualified(n); /* the name's own finding is enough */
        for (uint32_t x = 0; x < c->nconstraints && !used; x++) {
            const dra_constraint_t *co = &c->constraints[x];
            const char *a = co->match_attribute ? co->match_attribute : co->distinct_attribute;
            if (!a || strcmp(a, n) != 0)
                continue;
            used = co->nrequests == 0;
            for (uint32_t k = 0; k < co->nrequests && !used; k++)
                used = co->requests[k] && ((r->name && strcmp(co->requests[k], r->name) == 0) ||
                                           (r->nfirst_available && strcmp(co->requests[k], sub) == 0));
        }
        if (!used) {
            snprintf(p, sizeof p, "%s.derivedAttributes[%u]", path, i);
            vfind(v, SEV_RELEASE, b->derived[i].pos.line ? &b->derived[i].pos : pos, p,
                  "name: \"%s\" is not used by a constraint that applies to this request", n);
        }
    }
}

/* perDevice or perAllocation of a consumedCounters snapshot (KEP-5941): at most 2 counter sets
 * (as consumesCounters), each named once, a DNS label; its counters DNS labels, at most 32,
 * not negative. */
static void check_set_uses(vd_t *v, const dra_counter_set_use_t *u, uint32_t n,
                           const dra_srcpos_t *pos, const char *path)
{
    if (n > 2)
        VERR(pos, path, "at most 2 counter sets, has %u", n);
    for (uint32_t i = 0; i < n; i++) {
        char p[400];
        pbuf_t pb = pb_start(p, sizeof p);
        pb_s(&pb, path);
        pb_s(&pb, "[");
        pb_u(&pb, i);
        pb_s(&pb, "]");
        if (!u[i].counter_set)
            VERR(pos, p, "counterSet: required field missing");
        else if (!dra_name_is_dns_label(u[i].counter_set))
            VERR(pos, p, "counterSet: \"%s\" is not a DNS label", u[i].counter_set);
        for (uint32_t k = 0; k < i && u[i].counter_set; k++)
            if (u[k].counter_set && strcmp(u[k].counter_set, u[i].counter_set) == 0)
                VERR(pos, p, "counterSet \"%s\" listed twice", u[i].counter_set);
        if (u[i].ncounters > 32)
            VERR(pos, p, "counters: at most 32, has %u", u[i].ncounters);
        for (uint32_t k = 0; k < u[i].ncounters; k++) {
            if (!dra_name_is_dns_label(u[i].counters[k].name))
                VERR(pos, p, "counters.%s: counter name is not a DNS label",
                     u[i].counters[k].name ? u[i].counters[k].name : "");
            else if (u[i].counters[k].value.neg)
                VERR(pos, p, "counters.%s: must not be negative", u[i].counters[k].name);
        }
    }
}

static void check_snapshot(vd_t *v, const dra_counter_snapshot_t *sn, const dra_srcpos_t *cpos,
                           const char *path)
{
    const dra_srcpos_t *pos = sn->pos.line ? &sn->pos : cpos;
    char p[400];
    new_in_138pre(v, pos, path, "consumedCounters");
    pbuf_t pb = pb_start(p, sizeof p);
    pb_s(&pb, path);
    pb_s(&pb, ".consumedCounters.perDevice");
    check_set_uses(v, sn->per_device, sn->nper_device, pos, p);
    pb = pb_start(p, sizeof p);
    pb_s(&pb, path);
    pb_s(&pb, ".consumedCounters.perAllocation");
    check_set_uses(v, sn->per_allocation, sn->nper_allocation, pos, p);
}

static void check_claim(vd_t *v, const dra_claim_t *c)
{
    char p[300];
    v->kind = c->is_template ? "ResourceClaimTemplate" : "ResourceClaim";
    v->name = c->name;
    const char *pre = c->is_template ? "spec.spec.devices" : "spec.devices";
    const dra_srcpos_t *pos = &c->pos;
    if (!c->name)
        VERR(pos, "metadata.name", "required field missing");
    else if (!dra_name_is_dns_subdomain(c->name))
        VERR(pos, "metadata.name", "\"%s\" is not a DNS subdomain", c->name);
    if (c->namespace_ && !dra_name_is_dns_label(c->namespace_))
        VERR(pos, "metadata.namespace", "\"%s\" is not a DNS label", c->namespace_);
    if (c->nrequests > 32) {
        snprintf(p, sizeof p, "%s.requests", pre);
        VERR(pos, p, "at most 32 requests, has %u", c->nrequests);
    }
    for (uint32_t i = 0; i < c->nrequests; i++) {
        const dra_request_t *r = &c->requests[i];
        const dra_srcpos_t *rp = r->pos.line ? &r->pos : pos;
        snprintf(p, sizeof p, "%s.requests[%u]", pre, i);
        if (!r->name)
            VERR(rp, p, "name: required field missing");
        else if (!dra_name_is_dns_label(r->name))
            VERR(rp, p, "name: \"%s\" is not a DNS label", r->name);
        for (uint32_t k = 0; k < i; k++)
            if (r->name && c->requests[k].name && strcmp(r->name, c->requests[k].name) == 0)
                VERR(rp, p, "name: duplicate request name \"%s\"", r->name);
        if ((r->exactly != NULL) == (r->nfirst_available > 0))
            VERR(rp, p, "exactly one of exactly, firstAvailable must be set, %s",
                 r->exactly ? "both are" : "none is");
        if (r->exactly) {
            char p2[352];
            snprintf(p2, sizeof p2, "%s.exactly", p);
            check_exact(v, r->exactly, rp, p2);
            check_derived_refs(v, c, r, r->exactly, rp, p2);
        }
        if (r->nfirst_available > 8)
            VERR(rp, p, "firstAvailable: at most 8 subrequests, has %u", r->nfirst_available);
        for (uint32_t k = 0; k < r->nfirst_available; k++) {
            const dra_exact_request_t *sr = &r->first_available[k];
            char p2[352];
            snprintf(p2, sizeof p2, "%s.firstAvailable[%u]", p, k);
            if (!sr->name)
                VERR(rp, p2, "name: required field missing");
            else if (!dra_name_is_dns_label(sr->name))
                VERR(rp, p2, "name: \"%s\" is not a DNS label", sr->name);
            for (uint32_t j = 0; j < k; j++)
                if (sr->name && r->first_available[j].name &&
                    strcmp(sr->name, r->first_available[j].name) == 0)
                    VERR(rp, p2, "name: duplicate subrequest name \"%s\"", sr->name);
            if (sr->has_admin_access)
                VERR(rp, p2, "adminAccess: not allowed in a subrequest");
            check_exact(v, sr, rp, p2);
            check_derived_refs(v, c, r, sr, rp, p2);
        }
    }
    if (c->nconstraints > 32) {
        snprintf(p, sizeof p, "%s.constraints", pre);
        VERR(pos, p, "at most 32 constraints, has %u", c->nconstraints);
    }
    for (uint32_t i = 0; i < c->nconstraints; i++) {
        const dra_constraint_t *co = &c->constraints[i];
        const dra_srcpos_t *cp = co->pos.line ? &co->pos : pos;
        snprintf(p, sizeof p, "%s.constraints[%u]", pre, i);
        if ((co->match_attribute != NULL) == (co->distinct_attribute != NULL))
            VERR(cp, p, "exactly one of matchAttribute, distinctAttribute must be set, %s",
                 co->match_attribute ? "both are" : "none is");
        const char *attr = co->match_attribute ? co->match_attribute : co->distinct_attribute;
        if (attr && !fully_qualified(attr))
            VERR(cp, p, "%s: \"%s\" is not a fully qualified name (<domain>/<identifier>)",
                 co->match_attribute ? "matchAttribute" : "distinctAttribute", attr);
        for (uint32_t k = 0; k < co->nrequests; k++)
            if (!request_ref_ok(c, co->requests[k]))
                VERR(cp, p, "requests[%u]: \"%s\" is not a request of this claim", k,
                     co->requests[k] ? co->requests[k] : "");
    }
    if (c->nconfigs > 32) {
        snprintf(p, sizeof p, "%s.config", pre);
        VERR(pos, p, "at most 32 config entries, has %u", c->nconfigs);
    }
    for (uint32_t i = 0; i < c->nconfigs; i++) {
        snprintf(p, sizeof p, "%s.config[%u]", pre, i);
        const dra_claim_config_t *cf = &c->configs[i];
        if (!cf->opaque.driver)
            VERR(pos, p, "opaque: required field missing");
        else if (!dra_name_is_dns_subdomain(cf->opaque.driver))
            VERR(pos, p, "opaque.driver: \"%s\" is not a DNS subdomain", cf->opaque.driver);
        for (uint32_t k = 0; k < cf->nrequests; k++)
            if (!request_ref_ok(c, cf->requests[k]))
                VERR(pos, p, "requests[%u]: \"%s\" is not a request of this claim", k,
                     cf->requests[k] ? cf->requests[k] : "");
    }
    const dra_allocation_t *a = c->allocation;
    if (a) {
        if (a->nresults > 32)
            VERR(pos, "status.allocation.devices.results", "at most 32 results, has %u",
                 a->nresults);
        for (uint32_t i = 0; i < a->nresults; i++) {
            const dra_result_t *r = &a->results[i];
            snprintf(p, sizeof p, "status.allocation.devices.results[%u]", i);
            if (!r->request || !r->driver || !r->pool || !r->device)
                VERR(pos, p, "request, driver, pool and device are required");
            else if (!request_ref_ok(c, r->request))
                VERR(pos, p, "request: \"%s\" is not a request of this claim", r->request);
            check_skip_node_ops(v, r->skip_node_ops, r->nskip_node_ops, pos, p);
            if (a->counters && a->counters[i])
                check_snapshot(v, a->counters[i], pos, p);
        }
        if (a->node_selector)
            check_node_selector(v, a->node_selector, pos, "status.allocation.nodeSelector", false);
    }
}

static void check_class(vd_t *v, const dra_device_class_t *c)
{
    char p[200];
    v->kind = "DeviceClass";
    v->name = c->name;
    if (!c->name)
        VERR(&c->pos, "metadata.name", "required field missing");
    else if (!dra_name_is_dns_subdomain(c->name))
        VERR(&c->pos, "metadata.name", "\"%s\" is not a DNS subdomain", c->name);
    if (c->nselectors > 32)
        VERR(&c->pos, "spec.selectors", "at most 32, has %u", c->nselectors);
    for (uint32_t i = 0; i < c->nselectors; i++) {
        snprintf(p, sizeof p, "spec.selectors[%u].cel.expression", i);
        const dra_srcpos_t *sp = c->selectors[i].pos.line ? &c->selectors[i].pos : &c->pos;
        if (!c->selectors[i].cel)
            VERR(sp, p, "required field missing");
        else if (strlen(c->selectors[i].cel) > 10 * 1024)
            VERR(sp, p, "expression longer than 10 KiB");
    }
    if (c->nconfigs > 32)
        VERR(&c->pos, "spec.config", "at most 32, has %u", c->nconfigs);
    if (c->extended_resource_name && !dra_resource_is_extended(c->extended_resource_name))
        VERR(&c->pos, "spec.extendedResourceName",
             "Invalid value: \"%s\": must be a valid "
             "extended resource name",
             c->extended_resource_name);
    for (uint32_t i = 0; i < c->nconfigs; i++) {
        snprintf(p, sizeof p, "spec.config[%u].opaque.driver", i);
        if (!c->configs[i].opaque.driver)
            VERR(&c->pos, p, "required field missing");
        else if (!dra_name_is_dns_subdomain(c->configs[i].opaque.driver))
            VERR(&c->pos, p, "\"%s\" is not a DNS subdomain", c->configs[i].opaque.driver);
    }
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* validateContainerResourceName and ValidateResourceQuantityValue (core/v1 validation). */
static void check_resource(vd_t *v, const dra_srcpos_t *pos, const char *path,
                           const dra_resource_qty_t *r)
{
    const char *n = r->name ? r->name : "";
    if (!dra_resource_is_qualified(n)) {
        VERR(pos, path,
             "Invalid value: \"%s\": must be a qualified name (an optional DNS "
             "subdomain prefix and '/', and a name of at most 63 characters)",
             n);
        return;
    }
    if (!strchr(n, '/')) {
        if (strcmp(n, "cpu") != 0 && strcmp(n, "memory") != 0 &&
            strcmp(n, "ephemeral-storage") != 0 && strncmp(n, "hugepages-", 10) != 0)
            VERR(pos, path, "Invalid value: \"%s\": must be a standard resource for containers", n);
    } else if (!dra_resource_is_native(n) && !dra_resource_is_extended(n)) {
        VERR(pos, path, "Invalid value: \"%s\": doesn't follow extended resource name standard", n);
    }
    if (dra_quantity_sign(&r->value) < 0)
        VERR(pos, path, "must be greater than or equal to 0");
    else if (dra_resource_is_extended(n)) {
        int64_t milli;
        if (!dra_quantity_to_fixed(&r->value, &milli, -3) || milli % 1000 != 0)
            VERR(pos, path, "must be an integer");
    }
}

/* A container's resources (ValidateResourceRequirements) and its name. */
static void check_container(vd_t *v, const dra_pod_t *pd, uint32_t i, const char *pre)
{
    const dra_container_t *c = &pd->containers[i];
    char p[400], fp[700];
    bool init = i < pd->ninit;
    snprintf(p, sizeof p, "%s.%s[%u]", pre, init ? "initContainers" : "containers",
             init ? i : i - pd->ninit);
    if (!c->name || !dra_name_is_dns_label(c->name))
        VERR(&c->pos, p, "name: \"%s\" is not a DNS label", c->name ? c->name : "");
    for (uint32_t k = 0; k < i; k++)
        if (c->name && pd->containers[k].name && strcmp(c->name, pd->containers[k].name) == 0)
            VERR(&c->pos, p, "name: Duplicate value: \"%s\"", c->name);
    for (uint32_t k = 0; k < c->nlimits; k++) {
        snprintf(fp, sizeof fp, "%s.resources.limits[%s]", p, nz(c->limits[k].name));
        check_resource(v, &c->pos, fp, &c->limits[k]);
    }
    for (uint32_t k = 0; k < c->nrequests; k++) {
        const dra_resource_qty_t *r = &c->requests[k];
        if (r->defaulted)
            continue;
        snprintf(fp, sizeof fp, "%s.resources.requests[%s]", p, nz(r->name));
        check_resource(v, &c->pos, fp, r);
        const char *n = nz(r->name);
        bool overcommit = dra_resource_is_native(n) && strncmp(n, "hugepages-", 10) != 0;
        const dra_resource_qty_t *lim = NULL;
        for (uint32_t j = 0; j < c->nlimits; j++)
            if (c->limits[j].name && strcmp(c->limits[j].name, n) == 0)
                lim = &c->limits[j];
        char lq[DRA_QUANTITY_FMT_MAX];
        if (lim)
            dra_quantity_format(&lim->value, lq, sizeof lq);
        if (lim && dra_quantity_cmp(&r->value, &lim->value) != 0 && !overcommit)
            VERR(&c->pos, fp, "must be equal to %s limit of %s", n, lq);
        else if (lim && dra_quantity_cmp(&r->value, &lim->value) > 0)
            VERR(&c->pos, fp, "must be less than or equal to %s limit of %s", n, lq);
        else if (!lim && !overcommit) {
            snprintf(fp, sizeof fp, "%s.resources.limits", p);
            VERR(&c->pos, fp,
                 "Required value: Limit must be set for non overcommitable "
                 "resources");
        }
    }
}

static void check_pod(vd_t *v, const dra_pod_t *pd)
{
    char p[200];
    v->kind = dra_pod_kind_name(pd->kind);
    v->name = pd->name;
    const char *pre = pd->kind == DRA_POD_POD ? "spec" : "spec.template.spec";
    if (!pd->name)
        VERR(&pd->pos, "metadata.name", "required field missing");
    if (pd->replicas < 0 && pd->kind != DRA_POD_DAEMONSET)
        VERR(&pd->pos, "spec.replicas", "must not be negative");
    for (uint32_t i = 0; i < pd->nclaims; i++) {
        const dra_pod_claim_t *c = &pd->claims[i];
        snprintf(p, sizeof p, "%s.resourceClaims[%u]", pre, i);
        if (!c->name || !dra_name_is_dns_label(c->name))
            VERR(&pd->pos, p, "name: \"%s\" is not a DNS label", c->name ? c->name : "");
        for (uint32_t k = 0; k < i; k++)
            if (c->name && pd->claims[k].name && strcmp(c->name, pd->claims[k].name) == 0)
                VERR(&pd->pos, p, "name: duplicate \"%s\"", c->name);
        if ((c->claim_name != NULL) == (c->template_name != NULL))
            VERR(&pd->pos, p,
                 "exactly one of resourceClaimName, resourceClaimTemplateName must be set");
    }
    for (uint32_t i = 0; i < pd->ncontainers; i++)
        check_container(v, pd, i, pre);
    if (pd->has_group) {
        snprintf(p, sizeof p, "%s.schedulingGroup.podGroupName", pre);
        const dra_srcpos_t *gp = &pd->pos;
        if (!pd->group || !pd->group[0])
            VERR(gp, p, "required field missing (schedulingGroup names the pod's PodGroup)");
        else if (!dra_name_is_dns_subdomain(pd->group))
            VERR(gp, p, "\"%s\" is not a DNS subdomain", pd->group);
    }
}

/* ---- workloads (scheduling.k8s.io v1alpha2 / v1beta1, upstream's declarative rules) ------ */

/* k8s-path-segment-name: not "." or "..", no '/' or '%'. */
static bool path_segment_ok(const char *s)
{
    return s && s[0] && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 && !strchr(s, '/') &&
           !strchr(s, '%');
}

/* The scheduling part of a PodGroup spec or a Workload's PodGroupTemplate (pre: "spec" or
 * "spec.podGroupTemplates[i]"). */
static void check_group_sched(vd_t *v, const dra_group_sched_t *s, const dra_srcpos_t *pos,
                              const char *pre)
{
    char p[256];
    snprintf(p, sizeof p, "%s.schedulingPolicy", pre);
    /* positions: the object's (pos), from which the field path finds the field itself */
    const dra_srcpos_t *pp = pos;
    if (!s->has_policy || (!s->basic && !s->gang))
        VERR(pp, p, "must specify one of: `basic`, `gang`");
    else if (s->basic && s->gang)
        VERR(pp, p, "exactly one of `basic`, `gang` is required, but multiple fields are set");
    else if (s->gang) {
        snprintf(p, sizeof p, "%s.schedulingPolicy.gang.minCount", pre);
        if (!s->has_min_count || s->min_count == 0)
            VERR(pp, p, "required field missing");
        else if (s->min_count < 0)
            VERR(pp, p, "must be greater than or equal to 1, got %lld", (long long)s->min_count);
        else if (s->min_count > INT32_MAX)
            VERR(pp, p, "must fit a 32-bit integer, got %lld", (long long)s->min_count);
    }
    if (s->has_constraints) {
        const dra_srcpos_t *cp = pos;
        snprintf(p, sizeof p, "%s.schedulingConstraints.topology", pre);
        if (s->ntopology > 1)
            VERR(cp, p, "must have at most 1 item, has %u", s->ntopology);
        for (uint32_t i = 0; i < s->ntopology; i++) {
            snprintf(p, sizeof p, "%s.schedulingConstraints.topology[%u].key", pre, i);
            if (!s->topology[i] || !s->topology[i][0])
                VERR(cp, p, "required field missing");
            else if (!dra_name_is_label_key(s->topology[i]))
                VERR(cp, p, "\"%s\" is not a label key (an optional DNS-subdomain prefix and "
                            "'/', then a name of at most 63 characters)",
                     s->topology[i]);
        }
    }
    snprintf(p, sizeof p, "%s.resourceClaims", pre);
    if (s->nclaims > 4)
        VERR(pos, p, "must have at most 4 items, has %u", s->nclaims);
    for (uint32_t i = 0; i < s->nclaims; i++) {
        const dra_group_claim_t *c = &s->claims[i];
        const dra_srcpos_t *cp = pos;
        snprintf(p, sizeof p, "%s.resourceClaims[%u]", pre, i);
        if (!c->name || !c->name[0])
            VERR(cp, p, "name: required field missing");
        else if (!dra_name_is_dns_label(c->name))
            VERR(cp, p, "name: \"%s\" is not a DNS label", c->name);
        for (uint32_t k = 0; k < i; k++)
            if (c->name && s->claims[k].name && strcmp(c->name, s->claims[k].name) == 0)
                VERR(cp, p, "name: duplicate \"%s\"", c->name);
        if ((c->claim_name != NULL) == (c->template_name != NULL))
            VERR(cp, p, "exactly one of resourceClaimName, resourceClaimTemplateName must be set");
        else if (!dra_name_is_dns_subdomain(c->claim_name ? c->claim_name : c->template_name))
            VERR(cp, p, "%s: \"%s\" is not a DNS subdomain",
                 c->claim_name ? "resourceClaimName" : "resourceClaimTemplateName",
                 c->claim_name ? c->claim_name : c->template_name);
    }
}

static void check_podgroup(vd_t *v, const dra_podgroup_t *g)
{
    v->kind = "PodGroup";
    v->name = g->name;
    if (!g->name)
        VERR(&g->pos, "metadata.name", "required field missing");
    else if (!dra_name_is_dns_subdomain(g->name))
        VERR(&g->pos, "metadata.name", "\"%s\" is not a DNS subdomain", g->name);
    bool beta = g->api_version && strcmp(g->api_version, "scheduling.k8s.io/v1beta1") == 0;
    if (g->has_template_ref) {
        const char *ref = beta ? "spec.workloadRef" : "spec.podGroupTemplateRef.workload";
        char p[128];
        if (!beta && !g->workload_name && !g->template_name)
            VERR(&g->pos, "spec.podGroupTemplateRef", "must specify one of: `workload`");
        else {
            snprintf(p, sizeof p, "%s.workloadName", ref);
            if (!g->workload_name || !g->workload_name[0])
                VERR(&g->pos, p, "required field missing");
            else if (!dra_name_is_dns_subdomain(g->workload_name))
                VERR(&g->pos, p, "\"%s\" is not a DNS subdomain", g->workload_name);
            snprintf(p, sizeof p, "%s.%s", ref, beta ? "templateName" : "podGroupTemplateName");
            if (!g->template_name || !g->template_name[0])
                VERR(&g->pos, p, "required field missing");
            else if (!dra_name_is_dns_label(g->template_name))
                VERR(&g->pos, p, "\"%s\" is not a DNS label", g->template_name);
        }
    }
    check_group_sched(v, &g->s, &g->pos, "spec");
}

static void check_sched_workload(vd_t *v, const dra_workload_obj_t *w)
{
    v->kind = "Workload";
    v->name = w->name;
    if (!w->name)
        VERR(&w->pos, "metadata.name", "required field missing");
    else if (!dra_name_is_dns_subdomain(w->name))
        VERR(&w->pos, "metadata.name", "\"%s\" is not a DNS subdomain", w->name);
    if (w->has_controller_ref) {
        if (w->ctrl_api_group && w->ctrl_api_group[0] &&
            !dra_name_is_dns_subdomain(w->ctrl_api_group))
            VERR(&w->pos, "spec.controllerRef.apiGroup", "\"%s\" is not a DNS subdomain",
                 w->ctrl_api_group);
        if (!w->ctrl_kind || !w->ctrl_kind[0])
            VERR(&w->pos, "spec.controllerRef.kind", "required field missing");
        else if (!path_segment_ok(w->ctrl_kind))
            VERR(&w->pos, "spec.controllerRef.kind",
                 "\"%s\" is not a path segment name (not \".\" or \"..\", no '/' or '%%')",
                 w->ctrl_kind);
        if (!w->ctrl_name || !w->ctrl_name[0])
            VERR(&w->pos, "spec.controllerRef.name", "required field missing");
        else if (!path_segment_ok(w->ctrl_name))
            VERR(&w->pos, "spec.controllerRef.name",
                 "\"%s\" is not a path segment name (not \".\" or \"..\", no '/' or '%%')",
                 w->ctrl_name);
    }
    if (w->ntemplates == 0)
        VERR(&w->pos, "spec.podGroupTemplates", "must have at least one item");
    else if (w->ntemplates > 8)
        VERR(&w->pos, "spec.podGroupTemplates", "must have at most 8 items, has %u",
             w->ntemplates);
    for (uint32_t i = 0; i < w->ntemplates; i++) {
        const dra_pg_template_t *t = &w->templates[i];
        const dra_srcpos_t *tp = &w->pos; /* the path finds the field */
        char pre[64], p[96];
        snprintf(pre, sizeof pre, "spec.podGroupTemplates[%u]", i);
        snprintf(p, sizeof p, "%s.name", pre);
        if (!t->name || !t->name[0])
            VERR(tp, p, "required field missing");
        else if (!dra_name_is_dns_label(t->name))
            VERR(tp, p, "\"%s\" is not a DNS label", t->name);
        for (uint32_t k = 0; k < i; k++)
            if (t->name && w->templates[k].name && strcmp(t->name, w->templates[k].name) == 0)
                VERR(tp, p, "duplicate \"%s\"", t->name);
        check_group_sched(v, &t->s, tp, pre);
    }
}

/* ---- cross-object rules ------------------------------------------------------------------ */

typedef struct nref {
    const char *a, *b, *c; /* key parts */
    uint32_t idx;
    const dra_srcpos_t *pos;
    const char *oname; /* name of the object holding it (for messages) */
} nref_t;

static int cmp_nref(const void *x, const void *y)
{
    const nref_t *p = x, *q = y;
    int c = strcmp(p->a, q->a);
    if (!c)
        c = strcmp(p->b, q->b);
    if (!c)
        c = strcmp(p->c, q->c);
    return c ? c : (p->idx < q->idx ? -1 : p->idx > q->idx);
}

static bool nref_eq(const nref_t *p, const nref_t *q)
{
    return strcmp(p->a, q->a) == 0 && strcmp(p->b, q->b) == 0 && strcmp(p->c, q->c) == 0;
}

static void dup_names(vd_t *v)
{
    const dra_model_t *m = v->m;
    /* device names within a pool (highest generation only matters, but any dup is suspicious:
     * report duplicates among slices of the same generation) and slice names */
    size_t n = 0;
    for (uint32_t i = 0; i < m->nslices; i++)
        n += m->slices[i]->ndevices;
    nref_t *r = malloc((n ? n : 1) * sizeof *r);
    if (!r) {
        v->nerr++;
        return;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        for (uint32_t d = 0; d < s->ndevices; d++) {
            if (!s->devices[d].name)
                continue;
            r[k].a = s->driver ? s->driver : "";
            r[k].b = s->pool_name ? s->pool_name : (s->name ? s->name : "");
            r[k].c = s->devices[d].name;
            r[k].idx = (uint32_t)k;
            r[k].pos = s->devices[d].pos.line ? &s->devices[d].pos : &s->pos;
            r[k].oname = s->name;
            k++;
        }
    }
    qsort(r, k, sizeof *r, cmp_nref);
    for (size_t i = 1; i < k; i++)
        if (nref_eq(&r[i], &r[i - 1])) {
            v->kind = "ResourceSlice";
            v->name = r[i].oname;
            VERR(r[i].pos, "spec.devices", "duplicate device name \"%s\" in pool %s/%s (first at "
                                           "%s:%u)",
                 r[i].c, r[i].a, r[i].b, r[i - 1].pos->file ? r[i - 1].pos->file : "",
                 r[i - 1].pos->line);
        }
    free(r);
    /* slice names, class names, claim and template names (namespace/name) */
    size_t total = (size_t)m->nslices + m->nclasses + m->nclaims + m->ntemplates +
                   m->npodgroups + m->nworkloads;
    r = malloc((total ? total : 1) * sizeof *r);
    if (!r) {
        v->nerr++;
        return;
    }
    k = 0;
    for (uint32_t i = 0; i < m->nslices; i++)
        if (m->slices[i]->name)
            r[k++] = (nref_t){"ResourceSlice", "", m->slices[i]->name, 0,
                              &m->slices[i]->pos, NULL};
    for (uint32_t i = 0; i < m->nclasses; i++)
        if (m->classes[i]->name)
            r[k++] = (nref_t){"DeviceClass", "", m->classes[i]->name, 0,
                              &m->classes[i]->pos, NULL};
    for (uint32_t i = 0; i < m->nclaims; i++)
        if (m->claims[i]->name)
            r[k++] = (nref_t){"ResourceClaim", m->claims[i]->namespace_ ? m->claims[i]->namespace_ : "default",
                              m->claims[i]->name, 0, &m->claims[i]->pos, NULL};
    for (uint32_t i = 0; i < m->ntemplates; i++)
        if (m->templates[i]->name)
            r[k++] = (nref_t){"ResourceClaimTemplate",
                              m->templates[i]->namespace_ ? m->templates[i]->namespace_ : "default",
                              m->templates[i]->name, 0, &m->templates[i]->pos, NULL};
    for (uint32_t i = 0; i < m->npodgroups; i++)
        if (m->podgroups[i]->name)
            r[k++] = (nref_t){"PodGroup",
                              m->podgroups[i]->namespace_ ? m->podgroups[i]->namespace_ : "default",
                              m->podgroups[i]->name, 0, &m->podgroups[i]->pos, NULL};
    for (uint32_t i = 0; i < m->nworkloads; i++)
        if (m->workloads[i]->name)
            r[k++] = (nref_t){"Workload",
                              m->workloads[i]->namespace_ ? m->workloads[i]->namespace_ : "default",
                              m->workloads[i]->name, 0, &m->workloads[i]->pos, NULL};
    for (size_t i = 0; i < k; i++)
        r[i].idx = (uint32_t)i;
    qsort(r, k, sizeof *r, cmp_nref);
    for (size_t i = 1; i < k; i++)
        if (nref_eq(&r[i], &r[i - 1])) {
            v->kind = r[i].a;
            v->name = r[i].c;
            VERR(r[i].pos, "metadata.name", "duplicate name \"%s\" (first at %s:%u)", r[i].c,
                 r[i - 1].pos->file ? r[i - 1].pos->file : "", r[i - 1].pos->line);
        }
    free(r);
    /* counter-set names unique within a pool */
    total = 0;
    for (uint32_t i = 0; i < m->nslices; i++)
        total += m->slices[i]->ncounter_sets;
    r = malloc((total ? total : 1) * sizeof *r);
    if (!r) {
        v->nerr++;
        return;
    }
    k = 0;
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        for (uint32_t c = 0; c < s->ncounter_sets; c++)
            if (s->counter_sets[c].name && s->driver && s->pool_name) {
                r[k] = (nref_t){s->driver, s->pool_name, s->counter_sets[c].name, (uint32_t)k,
                                &s->pos, s->name};
                k++;
            }
    }
    qsort(r, k, sizeof *r, cmp_nref);
    for (size_t i = 1; i < k; i++)
        if (nref_eq(&r[i], &r[i - 1])) {
            v->kind = "ResourceSlice";
            v->name = r[i].oname;
            VERR(r[i].pos, "spec.sharedCounters", "duplicate counter set \"%s\" in pool %s/%s",
                 r[i].c, r[i].a, r[i].b);
        }
    free(r);
}

int dra_manifest_validate_ex(const dra_model_t *m, const dra_validate_opts_t *opts,
                             dra_diag_list_t *errs, dra_diag_list_t *warns)
{
    dra_validate_opts_t def = {0, 0};
    vd_t v = {m, NULL, 0, opts ? opts : &def, errs, warns, "", NULL, 0, {0}};
    v.by_pool = malloc((m->nslices ? m->nslices : 1) * sizeof *v.by_pool);
    if (!v.by_pool)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices; i++)
        if (m->slices[i]->driver && m->slices[i]->pool_name)
            v.by_pool[v.nby_pool++] = m->slices[i];
    qsort(v.by_pool, v.nby_pool, sizeof *v.by_pool, cmp_slice_pool);
    for (uint32_t i = 0; i < m->nslices; i++)
        check_slice(&v, m->slices[i]);
    for (uint32_t i = 0; i < m->nclasses; i++)
        check_class(&v, m->classes[i]);
    for (uint32_t i = 0; i < m->nclaims; i++)
        check_claim(&v, m->claims[i]);
    for (uint32_t i = 0; i < m->ntemplates; i++)
        check_claim(&v, m->templates[i]);
    for (uint32_t i = 0; i < m->npods; i++)
        check_pod(&v, m->pods[i]);
    for (uint32_t i = 0; i < m->npodgroups; i++)
        check_podgroup(&v, m->podgroups[i]);
    for (uint32_t i = 0; i < m->nworkloads; i++)
        check_sched_workload(&v, m->workloads[i]);
    dup_names(&v);
    free(v.by_pool);
    loc_reset(&v.loc);
    return v.nerr ? DRA_EVALIDATE : DRA_OK;
}

int dra_manifest_validate(const dra_model_t *m, dra_diag_list_t *errs)
{
    return dra_manifest_validate_ex(m, NULL, errs, NULL);
}
