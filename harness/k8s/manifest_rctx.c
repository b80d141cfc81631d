/*
 * manifest_rctx.c - the manifest reader's reading context (manifest_rctx.h): errors and the
 * field path, typed reads, canonical JSON of opaque parameters, node selectors, tolerations,
 * device selectors and opaque configuration. Calls nothing of the per-kind readers above it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "manifest_rctx.h"

void dra_mr_err(rd_t *rd, const dra_ynode_t *at, const char *fmt, ...)
{
    rd->nerr++;
    if (!rd->errs)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    dra_msg_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    (void)dra_diag_list_add(rd->errs, DRA_EVALIDATE, rd->file, at ? at->line : 0,
                            at ? at->column : 0, "%s/%s: %s: %s", rd->kind ? rd->kind : "?",
                            rd->name ? rd->name : "<unnamed>", rd->plen ? rd->path : "(root)",
                            msg);
}

size_t dra_mr_push(rd_t *rd, const char *fmt, ...)
{
    size_t save = rd->plen;
    if (rd->plen < sizeof rd->path - 1) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(rd->path + rd->plen, sizeof rd->path - rd->plen, fmt, ap);
        va_end(ap);
        if (w > 0)
            rd->plen = DRA_MIN(rd->plen + (size_t)w, sizeof rd->path - 1);
    }
    return save;
}

void dra_mr_unknown_field(rd_t *rd, const dra_ynode_t *key, const char *const *known)
{
    for (const char *const *k = known; k && *k; k++)
        if (strcasecmp(*k, key->text) == 0) {
            dra_mr_err(rd, key,
                       "unknown field \"%s\" (did you mean \"%s\"? field names are case-sensitive)",
                       key->text, *k);
            return;
        }
    dra_mr_err(rd, key, "unknown field \"%.80s\"", key->text);
}

void dra_mr_case_check(rd_t *rd, const dra_ynode_t *map, const char *const *known)
{
    if (!dra_ynode_is_map(map))
        return;
    for (uint32_t i = 0; i < map->n; i++) {
        const char *key = map->keys[i]->text;
        for (const char *const *k = known; *k; k++)
            if (strcmp(*k, key) != 0 && strcasecmp(*k, key) == 0) {
                size_t s = pushk(rd, key);
                dra_mr_err(rd, map->keys[i],
                     "unknown field \"%s\" (did you mean \"%s\"? field names are case-sensitive)",
                     key, *k);
                pop(rd, s);
            }
    }
}

/* ---- typed reads (report and return false on mismatch) ------------------------------------ */

bool dra_mr_want_map(rd_t *rd, const dra_ynode_t *v)
{
    if (dra_ynode_is_map(v))
        return true;
    if (!dra_ynode_is_null(v))
        dra_mr_err(rd, v, "expected a map, got %s", dra_ynode_kind_name(v));
    return false;
}

bool dra_mr_want_seq(rd_t *rd, const dra_ynode_t *v)
{
    if (dra_ynode_is_seq(v))
        return true;
    if (!dra_ynode_is_null(v))
        dra_mr_err(rd, v, "expected a list, got %s", dra_ynode_kind_name(v));
    return false;
}

void *dra_mr_seq_array(rd_t *rd, const dra_ynode_t *v, size_t size, uint32_t *n)
{
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    void *a = dra_model_array(rd->m, v->n, size);
    *n = a ? v->n : 0;
    return a;
}

const char *dra_mr_str(rd_t *rd, const dra_ynode_t *v, bool lenient)
{
    if (dra_ynode_is_null(v) && v && v->type == DRA_YNODE_SCALAR)
        return NULL; /* explicit null = absent */
    const char *s;
    if (dra_ynode_string(v, NULL, NULL, lenient, &s, NULL) != DRA_OK) {
        if (v && v->type == DRA_YNODE_SCALAR)
            dra_mr_err(rd, v, "expected a string, got %s %.40s", dra_ynode_kind_name(v), v->text);
        else
            dra_mr_err(rd, v, "expected a string, got %s", dra_ynode_kind_name(v));
        return NULL;
    }
    if (memchr(s, 0, v->len)) {
        dra_mr_err(rd, v, "string contains a NUL character");
        return NULL;
    }
    const char *c = dra_model_strn(rd->m, s, v->len);
    if (!c)
        rd->nerr++;
    return c;
}

bool dra_mr_bool(rd_t *rd, const dra_ynode_t *v, bool *out)
{
    if (dra_ynode_bool(v, NULL, NULL, out, NULL) == DRA_OK)
        return true;
    dra_mr_err(rd, v, "expected a bool, got %s %.40s", dra_ynode_kind_name(v),
         v && v->type == DRA_YNODE_SCALAR ? v->text : "");
    return false;
}

bool dra_mr_int(rd_t *rd, const dra_ynode_t *v, int64_t *out)
{
    dra_diag_t d;
    if (dra_ynode_int64(v, NULL, NULL, out, &d) == DRA_OK)
        return true;
    dra_mr_err(rd, v, "%s", d.msg);
    return false;
}

bool dra_mr_qty(rd_t *rd, const dra_ynode_t *v, dra_quantity_t *out)
{
    if (!v || v->type != DRA_YNODE_SCALAR || dra_ynode_is_null(v)) {
        dra_mr_err(rd, v, "expected a quantity, got %s", dra_ynode_kind_name(v));
        return false;
    }
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_quantity_parse(v->text, v->len, out, &d) != DRA_OK) {
        dra_mr_err(rd, v, "invalid quantity \"%.60s\": %s", v->text,
                   d.msg[0] ? d.msg : "parse error");
        return false;
    }
    return true;
}

const char **dra_mr_strlist(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    const char **out = dra_model_array(rd->m, v->n, sizeof *out);
    if (!out && v->n) {
        rd->nerr++;
        return NULL;
    }
    for (dra_mr_item_t e = dra_mr_items(v, v->n); dra_mr_next_item(rd, &e);)
        out[e.i] = dra_mr_str(rd, e.val, false);
    *n = v->n;
    return out;
}

/* ---- canonical JSON of opaque parameters ------------------------------------------------- */

static void json_str(dra_sbuf_t *b, const char *s, size_t n)
{
    dra_sbuf_put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        dra_sbuf_put(b, s + run, i - run);
        run = i + 1;
        char esc[8];
        switch (c) {
        case '"':
            dra_sbuf_put(b, "\\\"", 2);
            break;
        case '\\':
            dra_sbuf_put(b, "\\\\", 2);
            break;
        case '\n':
            dra_sbuf_put(b, "\\n", 2);
            break;
        case '\t':
            dra_sbuf_put(b, "\\t", 2);
            break;
        case '\r':
            dra_sbuf_put(b, "\\r", 2);
            break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            dra_sbuf_put(b, esc, 6);
        }
    }
    dra_sbuf_put(b, s + run, n - run);
    dra_sbuf_put(b, "\"", 1);
}

static int cmp_keyidx(const void *pa, const void *pb, const dra_ynode_t *map)
{
    const dra_ynode_t *a = map->keys[*(const uint32_t *)pa], *b = map->keys[*(const uint32_t *)pb];
    size_t n = DRA_MIN(a->len, b->len);
    int c = memcmp(a->text, b->text, n);
    return c ? c : (a->len < b->len ? -1 : a->len > b->len);
}

/* Insertion sort of key indices (maps in opaque parameters are small). */
static void sort_keys(uint32_t *idx, uint32_t n, const dra_ynode_t *map)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = idx[i], j = i;
        while (j > 0 && cmp_keyidx(&idx[j - 1], &x, map) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

static void json_canon(dra_sbuf_t *b, const dra_ynode_t *v)
{
    char num[64];
    if (v->type == DRA_YNODE_MAP) {
        uint32_t *idx = malloc((v->n ? v->n : 1) * sizeof *idx);
        if (!idx) {
            b->err = DRA_ENOMEM;
            return;
        }
        for (uint32_t i = 0; i < v->n; i++)
            idx[i] = i;
        if (v->n > 2000)
            b->err = DRA_ELIMIT; /* opaque parameters are small; refuse quadratic sorting */
        else
            sort_keys(idx, v->n, v);
        dra_sbuf_put(b, "{", 1);
        for (uint32_t i = 0; i < v->n && !b->err; i++) {
            if (i)
                dra_sbuf_put(b, ",", 1);
            json_str(b, v->keys[idx[i]]->text, v->keys[idx[i]]->len);
            dra_sbuf_put(b, ":", 1);
            json_canon(b, v->vals[idx[i]]);
        }
        dra_sbuf_put(b, "}", 1);
        free(idx);
        return;
    }
    if (v->type == DRA_YNODE_SEQ) {
        dra_sbuf_put(b, "[", 1);
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                dra_sbuf_put(b, ",", 1);
            json_canon(b, v->vals[i]);
        }
        dra_sbuf_put(b, "]", 1);
        return;
    }
    int64_t iv;
    switch (dra_ynode_scalar_kind(v)) {
    case DRA_YSCALAR_NULL:
        dra_sbuf_puts(b, "null");
        return;
    case DRA_YSCALAR_BOOL:
        dra_sbuf_puts(b, (v->text[0] == 't' || v->text[0] == 'T') ? "true" : "false");
        return;
    case DRA_YSCALAR_INT:
        if (dra_yparse_int64(v->text, v->len, &iv)) {
            snprintf(num, sizeof num, "%lld", (long long)iv);
            dra_sbuf_puts(b, num);
        } else {
            json_str(b, v->text, v->len); /* out of range: keep the digits as text */
        }
        return;
    case DRA_YSCALAR_FLOAT: {
        double d = 0;
        if (dra_ynode_double(v, NULL, NULL, &d, NULL) != DRA_OK || !isfinite(d)) {
            json_str(b, v->text, v->len);
            return;
        }
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(num, sizeof num, "%.*g", prec, d);
            if (strtod(num, NULL) == d)
                break;
        }
        if (!strpbrk(num, ".eE"))
            strcat(num, ".0");
        dra_sbuf_puts(b, num);
        return;
    }
    default:
        json_str(b, v->text, v->len);
    }
}

const char *dra_mr_params(rd_t *rd, const dra_ynode_t *v)
{
    if (!v)
        return NULL;
    dra_sbuf_t b = {0};
    json_canon(&b, v);
    const char *r = NULL;
    if (b.err)
        dra_mr_err(rd, v, "parameters too large or out of memory");
    else
        r = dra_model_strn(rd->m, b.p ? b.p : "", b.len);
    dra_sbuf_fini(&b);
    return r;
}

/* ---- shared pieces ----------------------------------------------------------------------- */

static const char *const k_selector_req[] = {"key", "operator", "values", NULL};

static dra_ns_req_t *rd_ns_reqs(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    dra_ns_req_t *r = dra_model_array(rd->m, v->n, sizeof *r);
    if (!r && v->n)
        return rd->nerr++, NULL;
    for (dra_mr_item_t e = dra_mr_items(v, v->n); dra_mr_next_item(rd, &e);) {
        dra_ns_req_t *q = &r[e.i];
        q->op = DRA_NS_UNKNOWN;
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "key"))
                q->key = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "operator")) {
                const char *op = dra_mr_str(rd, f.val, false);
                q->op_raw = op;
                static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist",
                                                  "Gt", "Lt"};
                for (int o = 0; op && o < 6; o++)
                    if (strcmp(op, ops[o]) == 0)
                        q->op = (dra_ns_op_t)o;
            } else if (KEY_IS(f.key, "values"))
                q->values = dra_mr_strlist(rd, f.val, &q->nvalues);
            else
                dra_mr_unknown_field(rd, f.keyn, k_selector_req);
        }
    }
    *n = v->n;
    return r;
}

const dra_node_selector_t *dra_mr_node_selector(rd_t *rd, const dra_ynode_t *v)
{
    static const char *const known[] = {"nodeSelectorTerms", NULL};
    static const char *const kterm[] = {"matchExpressions", "matchFields", NULL};
    if (!dra_mr_want_map(rd, v))
        return NULL;
    dra_node_selector_t *ns = dra_model_array(rd->m, 1, sizeof *ns);
    if (!ns)
        return rd->nerr++, NULL;
    ns->pos.file = rd->file;
    ns->pos.line = v->line;
    ns->pos.column = v->column;
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (!KEY_IS(f.key, "nodeSelectorTerms")) {
            dra_mr_unknown_field(rd, f.keyn, known);
            continue;
        }
        ns->terms = dra_mr_seq_array(rd, f.val, sizeof *ns->terms, &ns->nterms);
        for (dra_mr_item_t e = dra_mr_items(f.val, ns->nterms); dra_mr_next_item(rd, &e);) {
            dra_ns_term_t *term = &ns->terms[e.i];
            for (dra_mr_field_t x = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &x);) {
                if (KEY_IS(x.key, "matchExpressions"))
                    term->exprs = rd_ns_reqs(rd, x.val, &term->nexprs);
                else if (KEY_IS(x.key, "matchFields"))
                    term->fields = rd_ns_reqs(rd, x.val, &term->nfields);
                else
                    dra_mr_unknown_field(rd, x.keyn, kterm);
            }
        }
    }
    return ns;
}

void dra_mr_set_pos(rd_t *rd, dra_srcpos_t *p, const dra_ynode_t *v)
{
    p->file = rd->file;
    p->line = v ? v->line : 0;
    p->column = v ? v->column : 0;
}

dra_taint_effect_t dra_mr_effect_of(const char *s)
{
    if (!s || !*s)
        return DRA_EFFECT_EMPTY;
    if (strcmp(s, "NoSchedule") == 0)
        return DRA_EFFECT_NO_SCHEDULE;
    if (strcmp(s, "NoExecute") == 0)
        return DRA_EFFECT_NO_EXECUTE;
    return DRA_EFFECT_NONE;
}

dra_toleration_t *dra_mr_tolerations(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"key", "operator", "value", "effect", "tolerationSeconds",
                                        NULL};
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    dra_toleration_t *t = dra_model_array(rd->m, v->n, sizeof *t);
    if (!t && v->n)
        return rd->nerr++, NULL;
    for (dra_mr_item_t e = dra_mr_items(v, v->n); dra_mr_next_item(rd, &e);) {
        dra_toleration_t *tl = &t[e.i];
        tl->effect = DRA_EFFECT_EMPTY;
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "key"))
                tl->key = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "operator")) {
                tl->op_raw = dra_mr_str(rd, f.val, false);
                tl->op = !tl->op_raw                            ? DRA_TOL_EQUAL
                         : strcmp(tl->op_raw, "Equal") == 0  ? DRA_TOL_EQUAL
                         : strcmp(tl->op_raw, "Exists") == 0 ? DRA_TOL_EXISTS
                                                             : DRA_TOL_UNKNOWN;
            } else if (KEY_IS(f.key, "value"))
                tl->value = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "effect")) {
                tl->effect_raw = dra_mr_str(rd, f.val, false);
                tl->effect = dra_mr_effect_of(tl->effect_raw);
            } else if (KEY_IS(f.key, "tolerationSeconds")) {
                if (!dra_ynode_is_null(f.val) && dra_mr_int(rd, f.val, &tl->seconds))
                    tl->has_seconds = true;
            } else
                dra_mr_unknown_field(rd, f.keyn, known);
        }
    }
    *n = v->n;
    return t;
}

/* ---- device selectors and opaque configuration (DeviceClass and ResourceClaim) ------------ */

dra_selector_t *dra_mr_selectors(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"cel", NULL};
    static const char *const kcel[] = {"expression", NULL};
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    dra_selector_t *sel = dra_model_array(rd->m, v->n, sizeof *sel);
    if (!sel && v->n)
        return rd->nerr++, NULL;
    for (dra_mr_item_t e = dra_mr_items(v, v->n); dra_mr_next_item(rd, &e);) {
        dra_selector_t *se = &sel[e.i];
        dra_mr_set_pos(rd, &se->pos, e.val);
        dra_mr_field_t f = dra_mr_fields(rd, e.val);
        while (dra_mr_next_field(rd, &f)) {
            if (!KEY_IS(f.key, "cel"))
                dra_mr_unknown_field(rd, f.keyn, known);
            else if (dra_ynode_is_null(f.val)) {
                if (dra_ynode_get(e.val, "expression"))
                    dra_mr_err(rd, f.val,
                               "required value: cel is null, and \"expression\" is a sibling "
                               "of \"cel\" (mis-indented: it belongs under cel)");
                else
                    dra_mr_err(rd, f.val, "required value: cel must not be null");
            } else if (dra_mr_want_map(rd, f.val)) {
                for (dra_mr_field_t x = dra_mr_fields(rd, f.val); dra_mr_next_field(rd, &x);) {
                    if (KEY_IS(x.key, "expression")) {
                        se->cel = dra_mr_str(rd, x.val, false);
                        dra_mr_set_pos(rd, &se->pos, x.val);
                    } else
                        dra_mr_unknown_field(rd, x.keyn, kcel);
                }
                if (!se->cel)
                    dra_mr_err(rd, f.val, "expression: required field missing");
            }
        }
        if (f.map && !dra_ynode_get(e.val, "cel")) /* a map without cel */
            dra_mr_err(rd, e.val, "cel: required field missing");
    }
    *n = v->n;
    return sel;
}

void dra_mr_opaque(rd_t *rd, dra_opaque_config_t *o, const dra_ynode_t *v)
{
    static const char *const known[] = {"driver", "parameters", NULL};
    if (!dra_mr_want_map(rd, v))
        return;
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "driver"))
            o->driver = dra_mr_str(rd, f.val, false);
        else if (KEY_IS(f.key, "parameters"))
            o->params_json = dra_mr_params(rd, f.val);
        else
            dra_mr_unknown_field(rd, f.keyn, known);
    }
    if (!o->driver)
        dra_mr_err(rd, v, "driver: required field missing");
}

dra_taint_t *dra_mr_taints(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"key", "value", "effect", "timeAdded", NULL};
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    dra_taint_t *t = dra_model_array(rd->m, v->n, sizeof *t);
    if (!t)
        return rd->nerr++, NULL;
    for (dra_mr_item_t e = dra_mr_items(v, v->n); dra_mr_next_item(rd, &e);) {
        dra_taint_t *ta = &t[e.i];
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "key"))
                ta->key = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "value"))
                ta->value = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "effect")) {
                ta->effect_raw = dra_mr_str(rd, f.val, false);
                ta->effect = dra_mr_effect_of(ta->effect_raw);
                if (ta->effect == DRA_EFFECT_EMPTY)
                    ta->effect = DRA_EFFECT_NONE;
            } else if (KEY_IS(f.key, "timeAdded"))
                ta->time_added = dra_mr_str(rd, f.val, false);
            else
                dra_mr_unknown_field(rd, f.keyn, known);
        }
    }
    *n = v->n;
    return t;
}

static int cmp_resource(const void *x, const void *y)
{
    const dra_resource_qty_t *a = x, *b = y;
    return strcmp(a->name, b->name);
}

dra_resource_qty_t *dra_mr_resources(rd_t *rd, const dra_ynode_t *v, const char *const *skip,
                                     uint32_t *n)
{
    *n = 0;
    if (dra_ynode_is_null(v) || !dra_mr_want_map(rd, v))
        return NULL;
    dra_resource_qty_t *r = dra_model_array(rd->m, v->n, sizeof *r);
    if (!r)
        return rd->nerr++, NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        bool skipped = false;
        for (const char *const *sk = skip; sk && *sk && !skipped; sk++)
            skipped = strcmp(*sk, v->keys[i]->text) == 0;
        if (skipped)
            continue;
        size_t s = pushk(rd, v->keys[i]->text);
        r[k].name = dra_model_strn(rd->m, v->keys[i]->text, v->keys[i]->len);
        if (!r[k].name)
            rd->nerr++;
        else if (!r[k].name[0])
            dra_mr_err(rd, v->keys[i], "resource name must not be empty");
        else if (dra_mr_qty(rd, v->vals[i], &r[k].value))
            k++;
        pop(rd, s);
    }
    if (k)
        qsort(r, k, sizeof *r, cmp_resource);
    *n = k;
    return r;
}
