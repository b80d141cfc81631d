/*
 * manifest_read.c - Kubernetes manifests (YAML/JSON, resource.k8s.io v1..v1alpha3) into the model.
 *
 * One pass over each document's ydoc tree. A small context tracks the object (Kind/name) and the
 * field path for messages; every problem is reported and reading continues with the next field,
 * so a file with ten faults gives ten messages. Old API shapes are mapped as they are decoded:
 * v1beta1/v1alpha3 requests carry the `exactly` fields inline, v1beta1/v1alpha3 devices wrap
 * attributes and capacity in `basic`, and v1alpha3 capacities may be bare quantities.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "files.h"
#include "manifest.h"
#include "walk.h"
#include "ydoc.h"

enum { API_V1 = 1, API_V1BETA2, API_V1BETA1, API_V1ALPHA3 };

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

/* Key dispatch: the first-byte test skips the strcmp call for almost every non-matching key. */
#define K(s) (key[0] == (s)[0] && strcmp(key, (s)) == 0)

static void rerr(rd_t *rd, const dra_ynode_t *at, const char *fmt, ...) DRA_PRINTF(3, 4);

static void rerr(rd_t *rd, const dra_ynode_t *at, const char *fmt, ...)
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

static size_t push(rd_t *rd, const char *fmt, ...) DRA_PRINTF(2, 3);

static size_t push(rd_t *rd, const char *fmt, ...)
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

/* ".key" (or "key" at the root) without printf: this runs for every field read. */
static size_t pushk(rd_t *rd, const char *key)
{
    size_t save = rd->plen, room = sizeof rd->path - 1 - rd->plen;
    size_t kl = strlen(key), need = kl + (save ? 1 : 0);
    if (need > room)
        return push(rd, save ? ".%s" : "%s", key);
    char *p = rd->path + save;
    if (save)
        *p++ = '.';
    memcpy(p, key, kl);
    p[kl] = 0;
    rd->plen = save + need;
    return save;
}

/* "[i]" without printf. */
static size_t pushi(rd_t *rd, uint32_t i)
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

static void pop(rd_t *rd, size_t save)
{
    rd->plen = save;
    rd->path[save] = 0;
}

static void unknown_field(rd_t *rd, const dra_ynode_t *key, const char *const *known)
{
    for (const char *const *k = known; k && *k; k++)
        if (strcasecmp(*k, key->text) == 0) {
            rerr(rd, key, "unknown field \"%s\" (did you mean \"%s\"? field names are case-sensitive)",
                 key->text, *k);
            return;
        }
    rerr(rd, key, "unknown field \"%.80s\"", key->text);
}

/* Keys that differ from a known field only by case (for maps we do not check strictly). */
static void case_check(rd_t *rd, const dra_ynode_t *map, const char *const *known)
{
    if (!dra_ynode_is_map(map))
        return;
    for (uint32_t i = 0; i < map->n; i++) {
        const char *key = map->keys[i]->text;
        for (const char *const *k = known; *k; k++)
            if (strcmp(*k, key) != 0 && strcasecmp(*k, key) == 0) {
                size_t s = pushk(rd, key);
                rerr(rd, map->keys[i],
                     "unknown field \"%s\" (did you mean \"%s\"? field names are case-sensitive)",
                     key, *k);
                pop(rd, s);
            }
    }
}

/* ---- typed reads (report and return false on mismatch) ------------------------------------ */

static bool want_map(rd_t *rd, const dra_ynode_t *v)
{
    if (dra_ynode_is_map(v))
        return true;
    if (!dra_ynode_is_null(v))
        rerr(rd, v, "expected a map, got %s", dra_ynode_kind_name(v));
    return false;
}

static bool want_seq(rd_t *rd, const dra_ynode_t *v)
{
    if (dra_ynode_is_seq(v))
        return true;
    if (!dra_ynode_is_null(v))
        rerr(rd, v, "expected a list, got %s", dra_ynode_kind_name(v));
    return false;
}

static const char *rd_str(rd_t *rd, const dra_ynode_t *v, bool lenient)
{
    if (dra_ynode_is_null(v) && v && v->type == DRA_YNODE_SCALAR)
        return NULL; /* explicit null = absent */
    const char *s;
    if (dra_ynode_string(v, NULL, NULL, lenient, &s, NULL) != DRA_OK) {
        if (v && v->type == DRA_YNODE_SCALAR)
            rerr(rd, v, "expected a string, got %s %.40s", dra_ynode_kind_name(v), v->text);
        else
            rerr(rd, v, "expected a string, got %s", dra_ynode_kind_name(v));
        return NULL;
    }
    if (memchr(s, 0, v->len)) {
        rerr(rd, v, "string contains a NUL character");
        return NULL;
    }
    const char *c = dra_model_strn(rd->m, s, v->len);
    if (!c)
        rd->nerr++;
    return c;
}

static bool rd_bool(rd_t *rd, const dra_ynode_t *v, bool *out)
{
    if (dra_ynode_bool(v, NULL, NULL, out, NULL) == DRA_OK)
        return true;
    rerr(rd, v, "expected a bool, got %s %.40s", dra_ynode_kind_name(v),
         v && v->type == DRA_YNODE_SCALAR ? v->text : "");
    return false;
}

static bool rd_int(rd_t *rd, const dra_ynode_t *v, int64_t *out)
{
    dra_diag_t d;
    if (dra_ynode_int64(v, NULL, NULL, out, &d) == DRA_OK)
        return true;
    rerr(rd, v, "%s", d.msg);
    return false;
}

static bool rd_qty(rd_t *rd, const dra_ynode_t *v, dra_quantity_t *out)
{
    if (!v || v->type != DRA_YNODE_SCALAR || dra_ynode_is_null(v)) {
        rerr(rd, v, "expected a quantity, got %s", dra_ynode_kind_name(v));
        return false;
    }
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_quantity_parse(v->text, v->len, out, &d) != DRA_OK) {
        rerr(rd, v, "invalid quantity \"%.60s\": %s", v->text, d.msg[0] ? d.msg : "parse error");
        return false;
    }
    return true;
}

static const char **rd_strlist(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    *n = 0;
    if (!want_seq(rd, v))
        return NULL;
    const char **out = dra_model_array(rd->m, v->n, sizeof *out);
    if (!out && v->n) {
        rd->nerr++;
        return NULL;
    }
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        out[i] = rd_str(rd, v->vals[i], false);
        pop(rd, s);
    }
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

static const char *rd_params(rd_t *rd, const dra_ynode_t *v)
{
    if (!v)
        return NULL;
    dra_sbuf_t b = {0};
    json_canon(&b, v);
    const char *r = NULL;
    if (b.err)
        rerr(rd, v, "parameters too large or out of memory");
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
    if (!want_seq(rd, v))
        return NULL;
    dra_ns_req_t *r = dra_model_array(rd->m, v->n, sizeof *r);
    if (!r && v->n)
        return rd->nerr++, NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        r[i].op = DRA_NS_UNKNOWN;
        if (want_map(rd, e)) {
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                size_t s2 = pushk(rd, key);
                if (K("key"))
                    r[i].key = rd_str(rd, e->vals[k], false);
                else if (K("operator")) {
                    const char *op = rd_str(rd, e->vals[k], false);
                    r[i].op_raw = op;
                    static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist",
                                                      "Gt", "Lt"};
                    for (int o = 0; op && o < 6; o++)
                        if (strcmp(op, ops[o]) == 0)
                            r[i].op = (dra_ns_op_t)o;
                } else if (K("values"))
                    r[i].values = rd_strlist(rd, e->vals[k], &r[i].nvalues);
                else
                    unknown_field(rd, e->keys[k], k_selector_req);
                pop(rd, s2);
            }
        }
        pop(rd, s);
    }
    *n = v->n;
    return r;
}

static const dra_node_selector_t *rd_node_selector(rd_t *rd, const dra_ynode_t *v)
{
    static const char *const known[] = {"nodeSelectorTerms", NULL};
    static const char *const kterm[] = {"matchExpressions", "matchFields", NULL};
    if (!want_map(rd, v))
        return NULL;
    dra_node_selector_t *ns = dra_model_array(rd->m, 1, sizeof *ns);
    if (!ns)
        return rd->nerr++, NULL;
    ns->pos.file = rd->file;
    ns->pos.line = v->line;
    ns->pos.column = v->column;
    for (uint32_t i = 0; i < v->n; i++) {
        const char *key = v->keys[i]->text;
        size_t s = pushk(rd, key);
        const dra_ynode_t *t = v->vals[i];
        if (K("nodeSelectorTerms")) {
            if (want_seq(rd, t)) {
                ns->terms = dra_model_array(rd->m, t->n, sizeof *ns->terms);
                ns->nterms = ns->terms ? t->n : 0;
                for (uint32_t j = 0; j < ns->nterms; j++) {
                    size_t s2 = pushi(rd, j);
                    const dra_ynode_t *term = t->vals[j];
                    if (want_map(rd, term))
                        for (uint32_t k = 0; k < term->n; k++) {
                            const char *key2 = term->keys[k]->text;
                            size_t s3 = pushk(rd, key2);
                            if (strcmp(key2, "matchExpressions") == 0)
                                ns->terms[j].exprs =
                                    rd_ns_reqs(rd, term->vals[k], &ns->terms[j].nexprs);
                            else if (strcmp(key2, "matchFields") == 0)
                                ns->terms[j].fields =
                                    rd_ns_reqs(rd, term->vals[k], &ns->terms[j].nfields);
                            else
                                unknown_field(rd, term->keys[k], kterm);
                            pop(rd, s3);
                        }
                    pop(rd, s2);
                }
            }
        } else {
            unknown_field(rd, v->keys[i], known);
        }
        pop(rd, s);
    }
    return ns;
}

static void set_pos(rd_t *rd, dra_srcpos_t *p, const dra_ynode_t *v)
{
    p->file = rd->file;
    p->line = v ? v->line : 0;
    p->column = v ? v->column : 0;
}

static dra_taint_effect_t effect_of(const char *s)
{
    if (!s || !*s)
        return DRA_EFFECT_EMPTY;
    if (strcmp(s, "NoSchedule") == 0)
        return DRA_EFFECT_NO_SCHEDULE;
    if (strcmp(s, "NoExecute") == 0)
        return DRA_EFFECT_NO_EXECUTE;
    return DRA_EFFECT_NONE;
}

static dra_toleration_t *rd_tolerations(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"key", "operator", "value", "effect", "tolerationSeconds",
                                        NULL};
    *n = 0;
    if (!want_seq(rd, v))
        return NULL;
    dra_toleration_t *t = dra_model_array(rd->m, v->n, sizeof *t);
    if (!t && v->n)
        return rd->nerr++, NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        t[i].effect = DRA_EFFECT_EMPTY;
        if (want_map(rd, e))
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                const dra_ynode_t *val = e->vals[k];
                size_t s2 = pushk(rd, key);
                if (K("key"))
                    t[i].key = rd_str(rd, val, false);
                else if (K("operator")) {
                    t[i].op_raw = rd_str(rd, val, false);
                    t[i].op = !t[i].op_raw                            ? DRA_TOL_EQUAL
                              : strcmp(t[i].op_raw, "Equal") == 0  ? DRA_TOL_EQUAL
                              : strcmp(t[i].op_raw, "Exists") == 0 ? DRA_TOL_EXISTS
                                                                   : DRA_TOL_UNKNOWN;
                } else if (K("value"))
                    t[i].value = rd_str(rd, val, false);
                else if (K("effect")) {
                    t[i].effect_raw = rd_str(rd, val, false);
                    t[i].effect = effect_of(t[i].effect_raw);
                } else if (K("tolerationSeconds")) {
                    if (!dra_ynode_is_null(val) && rd_int(rd, val, &t[i].seconds))
                        t[i].has_seconds = true;
                } else
                    unknown_field(rd, e->keys[k], known);
                pop(rd, s2);
            }
        pop(rd, s);
    }
    *n = v->n;
    return t;
}

/* ---- ResourceSlice ----------------------------------------------------------------------- */

static const char *const k_attr[] = {"int", "bool", "string", "version", "ints", "bools",
                                     "strings", "versions", NULL};

static void rd_attr(rd_t *rd, dra_attr_t *a, const dra_ynode_t *v)
{
    if (!want_map(rd, v)) {
        if (dra_ynode_is_null(v))
            rerr(rd, v, "attribute must have exactly one of int, bool, string, version");
        return;
    }
    int nset = 0;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        int kind = 0;
        for (int j = 0; k_attr[j]; j++)
            if (K(k_attr[j])) {
                kind = j + 1;
                break;
            }
        if (!kind) {
            unknown_field(rd, v->keys[k], k_attr);
        } else if (dra_ynode_is_null(val)) {
            /* null = not set */
        } else {
            nset++;
            a->kind = (uint8_t)kind;
            a->count = 1;
            switch (kind) {
            case DRA_ATTR_INT:
                rd_int(rd, val, &a->v.i);
                break;
            case DRA_ATTR_BOOL:
                rd_bool(rd, val, &a->v.b);
                break;
            case DRA_ATTR_STRING:
            case DRA_ATTR_VERSION:
                a->v.s = rd_str(rd, val, false);
                if (!a->v.s)
                    a->v.s = "";
                break;
            default: {
                if (!want_seq(rd, val)) {
                    a->count = 0;
                    break;
                }
                a->count = val->n;
                if (kind == DRA_ATTR_INTS) {
                    int64_t *x = dra_model_array(rd->m, val->n, sizeof *x);
                    for (uint32_t i = 0; x && i < val->n; i++) {
                        size_t s2 = pushi(rd, i);
                        rd_int(rd, val->vals[i], &x[i]);
                        pop(rd, s2);
                    }
                    a->v.ints = x;
                } else if (kind == DRA_ATTR_BOOLS) {
                    bool *x = dra_model_array(rd->m, val->n, sizeof *x);
                    for (uint32_t i = 0; x && i < val->n; i++) {
                        size_t s2 = pushi(rd, i);
                        rd_bool(rd, val->vals[i], &x[i]);
                        pop(rd, s2);
                    }
                    a->v.bools = x;
                } else {
                    uint32_t cnt;
                    const char **x = rd_strlist(rd, val, &cnt);
                    for (uint32_t i = 0; x && i < cnt; i++)
                        if (!x[i])
                            x[i] = "";
                    a->v.strs = x;
                }
                if (val->n && !a->v.ints)
                    rd->nerr++;
            }
            }
        }
        pop(rd, s);
    }
    if (nset != 1) {
        rerr(rd, v, "attribute must have exactly one of int, bool, string, version%s (has %d)",
             " (or a list kind)", nset);
        if (nset == 0)
            a->kind = DRA_ATTR_NONE;
    }
}

static dra_request_policy_t *rd_policy(rd_t *rd, const dra_ynode_t *v)
{
    static const char *const known[] = {"default", "validValues", "validRange", NULL};
    static const char *const krange[] = {"min", "max", "step", NULL};
    if (!want_map(rd, v))
        return NULL;
    dra_request_policy_t *p = dra_model_array(rd->m, 1, sizeof *p);
    if (!p)
        return rd->nerr++, NULL;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        if (K("default")) {
            if (!dra_ynode_is_null(val))
                p->has_default = rd_qty(rd, val, &p->def);
        } else if (K("validValues")) {
            if (want_seq(rd, val) && val->n) {
                p->valid_values = dra_model_array(rd->m, val->n, sizeof *p->valid_values);
                p->nvalid_values = p->valid_values ? val->n : 0;
                for (uint32_t i = 0; i < p->nvalid_values; i++) {
                    size_t s2 = pushi(rd, i);
                    rd_qty(rd, val->vals[i], &p->valid_values[i]);
                    pop(rd, s2);
                }
            }
        } else if (K("validRange")) {
            if (want_map(rd, val)) {
                p->has_valid_range = true;
                bool has_min = false;
                for (uint32_t i = 0; i < val->n; i++) {
                    const char *key2 = val->keys[i]->text;
                    const dra_ynode_t *x = val->vals[i];
                    size_t s2 = pushk(rd, key2);
                    if (strcmp(key2, "min") == 0) {
                        if (!dra_ynode_is_null(x))
                            has_min = rd_qty(rd, x, &p->min);
                    } else if (strcmp(key2, "max") == 0) {
                        if (!dra_ynode_is_null(x))
                            p->has_max = rd_qty(rd, x, &p->max);
                    } else if (strcmp(key2, "step") == 0) {
                        if (!dra_ynode_is_null(x))
                            p->has_step = rd_qty(rd, x, &p->step);
                    } else
                        unknown_field(rd, val->keys[i], krange);
                    pop(rd, s2);
                }
                if (!has_min)
                    rerr(rd, val, "validRange.min: required field missing");
            }
        } else
            unknown_field(rd, v->keys[k], known);
        pop(rd, s);
    }
    return p;
}

static void rd_capacity(rd_t *rd, dra_device_t *d, const dra_ynode_t *v, const char *driver)
{
    static const char *const known[] = {"value", "requestPolicy", NULL};
    if (!want_map(rd, v))
        return;
    d->caps = dra_model_array(rd->m, v->n, sizeof *d->caps);
    if (!d->caps && v->n)
    {
        rd->nerr++;
        return;
    }
    d->ncaps = v->n;
    for (uint32_t k = 0; k < v->n; k++) {
        dra_capacity_t *c = &d->caps[k];
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, v->keys[k]->text);
        c->name = dra_model_strn(rd->m, v->keys[k]->text, v->keys[k]->len);
        c->qname = c->name ? dra_model_qname(rd->m, driver ? driver : "", c->name) : 0;
        if (val->type == DRA_YNODE_SCALAR && !dra_ynode_is_null(val)) {
            if (rd->api == API_V1ALPHA3)
                rd_qty(rd, val, &c->value);
            else
                rerr(rd, val,
                     "expected a map with \"value\" (DeviceCapacity), got a bare quantity "
                     "\"%.40s\" (the v1alpha3 shape)",
                     val->text);
        } else if (want_map(rd, val)) {
            bool has_value = false;
            for (uint32_t i = 0; i < val->n; i++) {
                const char *key = val->keys[i]->text;
                size_t s2 = pushk(rd, key);
                if (K("value"))
                    has_value = rd_qty(rd, val->vals[i], &c->value) || true;
                else if (K("requestPolicy"))
                    c->policy = rd_policy(rd, val->vals[i]);
                else
                    unknown_field(rd, val->keys[i], known);
                pop(rd, s2);
            }
            if (!has_value)
                rerr(rd, val, "value: required field missing");
        } else {
            rerr(rd, val, "capacity needs a value");
        }
        pop(rd, s);
    }
}

static dra_counter_t *rd_counters(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"value", NULL};
    *n = 0;
    if (!want_map(rd, v))
        return NULL;
    dra_counter_t *c = dra_model_array(rd->m, v->n, sizeof *c);
    if (!c && v->n)
        return rd->nerr++, NULL;
    for (uint32_t k = 0; k < v->n; k++) {
        size_t s = pushk(rd, v->keys[k]->text);
        c[k].name = dra_model_strn(rd->m, v->keys[k]->text, v->keys[k]->len);
        const dra_ynode_t *val = v->vals[k];
        if (want_map(rd, val)) {
            bool has_value = false;
            for (uint32_t i = 0; i < val->n; i++) {
                size_t s2 = pushk(rd, val->keys[i]->text);
                if (strcmp(val->keys[i]->text, "value") == 0)
                    has_value = rd_qty(rd, val->vals[i], &c[k].value) || true;
                else
                    unknown_field(rd, val->keys[i], known);
                pop(rd, s2);
            }
            if (!has_value)
                rerr(rd, val, "value: required field missing");
        } else if (dra_ynode_is_null(val)) {
            rerr(rd, val, "counter needs a value");
        }
        pop(rd, s);
    }
    *n = v->n;
    return c;
}

static void rd_consumes(rd_t *rd, dra_device_t *d, const dra_ynode_t *v)
{
    static const char *const known[] = {"counterSet", "counters", NULL};
    if (!want_seq(rd, v))
        return;
    d->consumes = dra_model_array(rd->m, v->n, sizeof *d->consumes);
    if (!d->consumes && v->n)
    {
        rd->nerr++;
        return;
    }
    d->nconsumes = v->n;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        if (want_map(rd, e))
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                size_t s2 = pushk(rd, key);
                if (K("counterSet"))
                    d->consumes[i].counter_set = rd_str(rd, e->vals[k], false);
                else if (K("counters"))
                    d->consumes[i].counters =
                        rd_counters(rd, e->vals[k], &d->consumes[i].ncounters);
                else
                    unknown_field(rd, e->keys[k], known);
                pop(rd, s2);
            }
        pop(rd, s);
    }
}

static void rd_taints(rd_t *rd, dra_device_t *d, const dra_ynode_t *v)
{
    static const char *const known[] = {"key", "value", "effect", "timeAdded", NULL};
    if (!want_seq(rd, v))
        return;
    d->taints = dra_model_array(rd->m, v->n, sizeof *d->taints);
    if (!d->taints && v->n)
    {
        rd->nerr++;
        return;
    }
    d->ntaints = v->n;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        dra_taint_t *t = &d->taints[i];
        if (want_map(rd, e))
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                size_t s2 = pushk(rd, key);
                if (K("key"))
                    t->key = rd_str(rd, e->vals[k], false);
                else if (K("value"))
                    t->value = rd_str(rd, e->vals[k], false);
                else if (K("effect")) {
                    t->effect_raw = rd_str(rd, e->vals[k], false);
                    t->effect = effect_of(t->effect_raw);
                    if (t->effect == DRA_EFFECT_EMPTY)
                        t->effect = DRA_EFFECT_NONE;
                } else if (K("timeAdded"))
                    t->time_added = rd_str(rd, e->vals[k], false);
                else
                    unknown_field(rd, e->keys[k], known);
                pop(rd, s2);
            }
        pop(rd, s);
    }
}

static void rd_device_fields(rd_t *rd, dra_device_t *d, const dra_ynode_t *v, const char *driver,
                             bool in_basic);

static const char *const k_device[] = {
    "name", "attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes",
    "taints", "bindsToNode", "bindingConditions", "bindingFailureConditions",
    "allowMultipleAllocations", "nodeAllocatableResourceMappings", "basic", NULL};

static void rd_device_fields(rd_t *rd, dra_device_t *d, const dra_ynode_t *v, const char *driver,
                             bool in_basic)
{
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        if (K("name") && !in_basic)
            d->name = rd_str(rd, val, false);
        else if (K("basic") && !in_basic) {
            if (rd->api == API_V1 || rd->api == API_V1BETA2)
                rerr(rd, v->keys[k],
                     "unknown field \"basic\" (the device wrapper exists only in v1beta1 and "
                     "v1alpha3)");
            else if (want_map(rd, val))
                rd_device_fields(rd, d, val, driver, true);
        } else if (K("attributes")) {
            if (want_map(rd, val)) {
                d->attrs = dra_model_array(rd->m, val->n, sizeof *d->attrs);
                d->nattrs = d->attrs ? val->n : 0;
                for (uint32_t i = 0; i < d->nattrs; i++) {
                    size_t s2 = pushk(rd, val->keys[i]->text);
                    dra_attr_t *a = &d->attrs[i];
                    a->name = dra_model_strn(rd->m, val->keys[i]->text, val->keys[i]->len);
                    a->qname = a->name ? dra_model_qname(rd->m, driver ? driver : "", a->name) : 0;
                    rd_attr(rd, a, val->vals[i]);
                    pop(rd, s2);
                }
            }
        } else if (K("capacity"))
            rd_capacity(rd, d, val, driver);
        else if (K("consumesCounters"))
            rd_consumes(rd, d, val);
        else if (K("nodeName"))
            d->node_name = rd_str(rd, val, false);
        else if (K("nodeSelector"))
            d->node_selector = rd_node_selector(rd, val);
        else if (K("allNodes")) {
            if (!dra_ynode_is_null(val))
                rd_bool(rd, val, &d->all_nodes);
        } else if (K("taints"))
            rd_taints(rd, d, val);
        else if (K("bindsToNode")) {
            if (!dra_ynode_is_null(val))
                rd_bool(rd, val, &d->binds_to_node);
        } else if (K("bindingConditions"))
            d->binding_conditions = rd_strlist(rd, val, &d->nbinding_conditions);
        else if (K("bindingFailureConditions"))
            d->binding_failure_conditions = rd_strlist(rd, val, &d->nbinding_failure_conditions);
        else if (K("allowMultipleAllocations")) {
            if (!dra_ynode_is_null(val))
                rd_bool(rd, val, &d->allow_multiple_allocations);
        } else if (K("nodeAllocatableResourceMappings")) {
            /* 1.36 alpha, not read by the allocator */
        } else
            unknown_field(rd, v->keys[k], k_device);
        pop(rd, s);
    }
}

static const char *const k_meta_common[] = {"name", "namespace", "labels", "annotations", NULL};

static void rd_meta(rd_t *rd, const dra_ynode_t *meta, const char **name, const char **ns,
                    const dra_ynode_t **labels)
{
    if (!want_map(rd, meta))
        return;
    case_check(rd, meta, k_meta_common);
    for (uint32_t k = 0; k < meta->n; k++) {
        const char *key = meta->keys[k]->text;
        size_t s = pushk(rd, key);
        if (K("name"))
            *name = rd_str(rd, meta->vals[k], false);
        else if (K("generateName") && !dra_ynode_get(meta, "name"))
            *name = rd_str(rd, meta->vals[k], false); /* the prefix names the object */
        else if (K("namespace") && ns)
            *ns = rd_str(rd, meta->vals[k], false);
        else if (K("labels") && labels)
            *labels = meta->vals[k];
        pop(rd, s);
    }
}

static void rd_slice(rd_t *rd, const dra_ynode_t *spec, dra_slice_t *sl)
{
    static const char *const known[] = {"driver", "pool", "nodeName", "nodeSelector", "allNodes",
                                        "perDeviceNodeSelection", "devices", "sharedCounters",
                                        "partitionTypeAttribute", "skipNodeOperations", NULL};
    static const char *const kpool[] = {"name", "generation", "resourceSliceCount", NULL};
    static const char *const kset[] = {"name", "counters", NULL};
    if (!want_map(rd, spec))
        return;
    /* driver first: it qualifies attribute names */
    const dra_ynode_t *drv = dra_ynode_get(spec, "driver");
    if (drv) {
        size_t s = pushk(rd, "driver");
        sl->driver = rd_str(rd, drv, false);
        pop(rd, s);
    }
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("driver")) {
        } else if (K("pool")) {
            if (want_map(rd, val))
                for (uint32_t i = 0; i < val->n; i++) {
                    const char *key2 = val->keys[i]->text;
                    size_t s2 = pushk(rd, key2);
                    if (strcmp(key2, "name") == 0)
                        sl->pool_name = rd_str(rd, val->vals[i], false);
                    else if (strcmp(key2, "generation") == 0)
                        rd_int(rd, val->vals[i], &sl->generation);
                    else if (strcmp(key2, "resourceSliceCount") == 0)
                        rd_int(rd, val->vals[i], &sl->slice_count);
                    else
                        unknown_field(rd, val->keys[i], kpool);
                    pop(rd, s2);
                }
        } else if (K("nodeName"))
            sl->node_name = rd_str(rd, val, false);
        else if (K("nodeSelector"))
            sl->node_selector = rd_node_selector(rd, val);
        else if (K("allNodes")) {
            if (!dra_ynode_is_null(val))
                rd_bool(rd, val, &sl->all_nodes);
        } else if (K("perDeviceNodeSelection")) {
            if (!dra_ynode_is_null(val))
                rd_bool(rd, val, &sl->per_device_node_selection);
        } else if (K("devices")) {
            if (want_seq(rd, val)) {
                sl->devices = dra_model_array(rd->m, val->n, sizeof *sl->devices);
                sl->ndevices = sl->devices ? val->n : 0;
                if (!sl->devices && val->n)
                    rd->nerr++;
                for (uint32_t i = 0; i < sl->ndevices; i++) {
                    size_t s2 = pushi(rd, i);
                    dra_device_t *d = &sl->devices[i];
                    set_pos(rd, &d->pos, val->vals[i]);
                    if (want_map(rd, val->vals[i]))
                        rd_device_fields(rd, d, val->vals[i], sl->driver, false);
                    pop(rd, s2);
                }
            }
        } else if (K("sharedCounters")) {
            if (want_seq(rd, val)) {
                sl->counter_sets = dra_model_array(rd->m, val->n, sizeof *sl->counter_sets);
                sl->ncounter_sets = sl->counter_sets ? val->n : 0;
                for (uint32_t i = 0; i < sl->ncounter_sets; i++) {
                    size_t s2 = pushi(rd, i);
                    const dra_ynode_t *e = val->vals[i];
                    if (want_map(rd, e))
                        for (uint32_t j = 0; j < e->n; j++) {
                            const char *key2 = e->keys[j]->text;
                            size_t s3 = pushk(rd, key2);
                            if (strcmp(key2, "name") == 0)
                                sl->counter_sets[i].name = rd_str(rd, e->vals[j], false);
                            else if (strcmp(key2, "counters") == 0)
                                sl->counter_sets[i].counters = rd_counters(
                                    rd, e->vals[j], &sl->counter_sets[i].ncounters);
                            else
                                unknown_field(rd, e->keys[j], kset);
                            pop(rd, s3);
                        }
                    pop(rd, s2);
                }
            }
        } else if (K("partitionTypeAttribute") || K("skipNodeOperations")) {
            /* 1.37 alpha, not used by the allocator */
        } else
            unknown_field(rd, spec->keys[k], known);
        pop(rd, s);
    }
}

/* ---- DeviceClass ------------------------------------------------------------------------- */

static dra_selector_t *rd_selectors(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"cel", NULL};
    static const char *const kcel[] = {"expression", NULL};
    *n = 0;
    if (!want_seq(rd, v))
        return NULL;
    dra_selector_t *sel = dra_model_array(rd->m, v->n, sizeof *sel);
    if (!sel && v->n)
        return rd->nerr++, NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        set_pos(rd, &sel[i].pos, e);
        if (want_map(rd, e)) {
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                const dra_ynode_t *val = e->vals[k];
                size_t s2 = pushk(rd, key);
                if (K("cel")) {
                    if (dra_ynode_is_null(val)) {
                        const dra_ynode_t *sib = dra_ynode_get(e, "expression");
                        if (sib)
                            rerr(rd, val,
                                 "required value: cel is null, and \"expression\" is a sibling "
                                 "of \"cel\" (mis-indented: it belongs under cel)");
                        else
                            rerr(rd, val, "required value: cel must not be null");
                    } else if (want_map(rd, val)) {
                        for (uint32_t j = 0; j < val->n; j++) {
                            size_t s3 = pushk(rd, val->keys[j]->text);
                            if (strcmp(val->keys[j]->text, "expression") == 0) {
                                sel[i].cel = rd_str(rd, val->vals[j], false);
                                set_pos(rd, &sel[i].pos, val->vals[j]);
                            } else
                                unknown_field(rd, val->keys[j], kcel);
                            pop(rd, s3);
                        }
                        if (!sel[i].cel)
                            rerr(rd, val, "expression: required field missing");
                    }
                } else
                    unknown_field(rd, e->keys[k], known);
                pop(rd, s2);
            }
            if (!dra_ynode_get(e, "cel"))
                rerr(rd, e, "cel: required field missing");
        }
        pop(rd, s);
    }
    *n = v->n;
    return sel;
}

static void rd_opaque(rd_t *rd, dra_opaque_config_t *o, const dra_ynode_t *v)
{
    static const char *const known[] = {"driver", "parameters", NULL};
    if (!want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        size_t s = pushk(rd, key);
        if (K("driver"))
            o->driver = rd_str(rd, v->vals[k], false);
        else if (K("parameters"))
            o->params_json = rd_params(rd, v->vals[k]);
        else
            unknown_field(rd, v->keys[k], known);
        pop(rd, s);
    }
    if (!o->driver)
        rerr(rd, v, "driver: required field missing");
}

static void rd_class(rd_t *rd, const dra_ynode_t *spec, dra_device_class_t *c)
{
    static const char *const known[] = {"selectors", "config", "extendedResourceName", NULL};
    static const char *const kcfg[] = {"opaque", NULL};
    if (!want_map(rd, spec))
        return;
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("selectors"))
            c->selectors = rd_selectors(rd, val, &c->nselectors);
        else if (K("config")) {
            if (want_seq(rd, val)) {
                c->configs = dra_model_array(rd->m, val->n, sizeof *c->configs);
                c->nconfigs = c->configs ? val->n : 0;
                for (uint32_t i = 0; i < c->nconfigs; i++) {
                    size_t s2 = pushi(rd, i);
                    const dra_ynode_t *e = val->vals[i];
                    if (want_map(rd, e))
                        for (uint32_t j = 0; j < e->n; j++) {
                            size_t s3 = pushk(rd, e->keys[j]->text);
                            if (strcmp(e->keys[j]->text, "opaque") == 0)
                                rd_opaque(rd, &c->configs[i].opaque, e->vals[j]);
                            else
                                unknown_field(rd, e->keys[j], kcfg);
                            pop(rd, s3);
                        }
                    pop(rd, s2);
                }
            }
        } else if (K("extendedResourceName"))
            c->extended_resource_name = rd_str(rd, val, false);
        else
            unknown_field(rd, spec->keys[k], known);
        pop(rd, s);
    }
}

/* ---- ResourceClaim / ResourceClaimTemplate ---------------------------------------------- */

static const char *const k_exact[] = {"deviceClassName", "selectors",  "allocationMode",
                                      "count",           "adminAccess", "tolerations",
                                      "capacity",        NULL};

/* One field of an ExactDeviceRequest / DeviceSubRequest. Returns false when key is not one. */
static bool rd_exact_field(rd_t *rd, dra_exact_request_t *r, const dra_ynode_t *keyn,
                           const dra_ynode_t *val, bool allow_admin)
{
    const char *key = keyn->text;
    if (K("deviceClassName"))
        r->class_name = rd_str(rd, val, false);
    else if (K("selectors"))
        r->selectors = rd_selectors(rd, val, &r->nselectors);
    else if (K("allocationMode")) {
        r->mode_raw = rd_str(rd, val, false);
        r->mode = !r->mode_raw                               ? DRA_MODE_EXACT_COUNT
                  : strcmp(r->mode_raw, "ExactCount") == 0 ? DRA_MODE_EXACT_COUNT
                  : strcmp(r->mode_raw, "All") == 0        ? DRA_MODE_ALL
                                                           : DRA_MODE_UNKNOWN;
    } else if (K("count")) {
        if (!dra_ynode_is_null(val))
            r->has_count = rd_int(rd, val, &r->count);
    } else if (K("adminAccess")) {
        if (!allow_admin)
            rerr(rd, keyn, "unknown field \"adminAccess\" (subrequests have no adminAccess)");
        else if (!dra_ynode_is_null(val))
            r->has_admin_access = rd_bool(rd, val, &r->admin_access);
    } else if (K("tolerations"))
        r->tolerations = rd_tolerations(rd, val, &r->ntolerations);
    else if (K("capacity")) {
        static const char *const kcap[] = {"requests", NULL};
        if (want_map(rd, val)) {
            r->has_capacity = true;
            for (uint32_t i = 0; i < val->n; i++) {
                size_t s = pushk(rd, val->keys[i]->text);
                const dra_ynode_t *rq = val->vals[i];
                if (strcmp(val->keys[i]->text, "requests") == 0) {
                    if (want_map(rd, rq)) {
                        r->cap_requests = dra_model_array(rd->m, rq->n, sizeof *r->cap_requests);
                        r->ncap_requests = r->cap_requests ? rq->n : 0;
                        for (uint32_t j = 0; j < r->ncap_requests; j++) {
                            size_t s2 = pushk(rd, rq->keys[j]->text);
                            dra_cap_request_t *c = &r->cap_requests[j];
                            c->name = dra_model_strn(rd->m, rq->keys[j]->text, rq->keys[j]->len);
                            rd_qty(rd, rq->vals[j], &c->value);
                            pop(rd, s2);
                        }
                    }
                } else
                    unknown_field(rd, val->keys[i], kcap);
                pop(rd, s);
            }
        } else if (dra_ynode_is_null(val)) {
            r->has_capacity = false;
        }
    } else
        return false;
    return true;
}

static void rd_exact(rd_t *rd, dra_exact_request_t *r, const dra_ynode_t *v, bool allow_admin,
                     bool with_name)
{
    static const char *const k_sub[] = {"name",   "deviceClassName", "selectors",
                                        "allocationMode", "count", "tolerations",
                                        "capacity", NULL};
    set_pos(rd, &r->pos, v);
    if (!want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        size_t s = pushk(rd, v->keys[k]->text);
        if (with_name && strcmp(v->keys[k]->text, "name") == 0)
            r->name = rd_str(rd, v->vals[k], false);
        else if (!rd_exact_field(rd, r, v->keys[k], v->vals[k], allow_admin))
            unknown_field(rd, v->keys[k], with_name ? k_sub : k_exact);
        pop(rd, s);
    }
}

static void rd_requests(rd_t *rd, dra_claim_t *c, const dra_ynode_t *v)
{
    static const char *const k_req_v1[] = {"name", "exactly", "firstAvailable", NULL};
    static const char *const k_req_old[] = {"name",  "firstAvailable", "deviceClassName",
                                            "selectors", "allocationMode", "count",
                                            "adminAccess", "tolerations", "capacity", NULL};
    if (!want_seq(rd, v))
        return;
    c->requests = dra_model_array(rd->m, v->n, sizeof *c->requests);
    c->nrequests = c->requests ? v->n : 0;
    bool old = rd->api == API_V1BETA1 || rd->api == API_V1ALPHA3;
    for (uint32_t i = 0; i < c->nrequests; i++) {
        size_t s = pushi(rd, i);
        dra_request_t *r = &c->requests[i];
        const dra_ynode_t *e = v->vals[i];
        set_pos(rd, &r->pos, e);
        if (!want_map(rd, e)) {
            pop(rd, s);
            continue;
        }
        dra_exact_request_t *flat = NULL;
        for (uint32_t k = 0; k < e->n; k++) {
            const char *key = e->keys[k]->text;
            const dra_ynode_t *val = e->vals[k];
            size_t s2 = pushk(rd, key);
            if (K("name"))
                r->name = rd_str(rd, val, false);
            else if (K("exactly") && !old) {
                if (!dra_ynode_is_null(val)) {
                    r->exactly = dra_model_array(rd->m, 1, sizeof *r->exactly);
                    if (r->exactly)
                        rd_exact(rd, r->exactly, val, true, false);
                }
            } else if (K("firstAvailable")) {
                if (want_seq(rd, val)) {
                    r->first_available = dra_model_array(rd->m, val->n, sizeof *r->first_available);
                    r->nfirst_available = r->first_available ? val->n : 0;
                    for (uint32_t j = 0; j < r->nfirst_available; j++) {
                        size_t s3 = pushi(rd, j);
                        rd_exact(rd, &r->first_available[j], val->vals[j], false, true);
                        pop(rd, s3);
                    }
                }
            } else if (old) {
                if (!flat) {
                    flat = dra_model_array(rd->m, 1, sizeof *flat);
                    if (!flat) {
                        rd->nerr++;
                        pop(rd, s2);
                        break;
                    }
                    set_pos(rd, &flat->pos, e);
                }
                if (!rd_exact_field(rd, flat, e->keys[k], val, true))
                    unknown_field(rd, e->keys[k], k_req_old);
            } else
                unknown_field(rd, e->keys[k], k_req_v1);
            pop(rd, s2);
        }
        if (flat) {
            /* v1beta1/v1alpha3 flat request: its fields become `exactly` (when deviceClassName
             * is absent with firstAvailable set, the flat fields are an error the validator
             * reports as "both"). */
            r->exactly = flat;
        }
        if (r->exactly)
            r->exactly->name = r->name;
        pop(rd, s);
    }
}

static void rd_claim_spec(rd_t *rd, dra_claim_t *c, const dra_ynode_t *spec)
{
    static const char *const known[] = {"devices", NULL};
    static const char *const kdev[] = {"requests", "constraints", "config", NULL};
    static const char *const kcons[] = {"requests", "matchAttribute", "distinctAttribute", NULL};
    static const char *const kcfg[] = {"requests", "opaque", NULL};
    if (!want_map(rd, spec))
        return;
    for (uint32_t k = 0; k < spec->n; k++) {
        size_t s = pushk(rd, spec->keys[k]->text);
        const dra_ynode_t *dv = spec->vals[k];
        if (strcmp(spec->keys[k]->text, "devices") != 0) {
            unknown_field(rd, spec->keys[k], known);
        } else if (want_map(rd, dv)) {
            for (uint32_t i = 0; i < dv->n; i++) {
                const char *key = dv->keys[i]->text;
                const dra_ynode_t *val = dv->vals[i];
                size_t s2 = pushk(rd, key);
                if (K("requests"))
                    rd_requests(rd, c, val);
                else if (K("constraints")) {
                    if (want_seq(rd, val)) {
                        c->constraints = dra_model_array(rd->m, val->n, sizeof *c->constraints);
                        c->nconstraints = c->constraints ? val->n : 0;
                        for (uint32_t j = 0; j < c->nconstraints; j++) {
                            size_t s3 = pushi(rd, j);
                            dra_constraint_t *co = &c->constraints[j];
                            const dra_ynode_t *e = val->vals[j];
                            set_pos(rd, &co->pos, e);
                            if (want_map(rd, e))
                                for (uint32_t x = 0; x < e->n; x++) {
                                    const char *key2 = e->keys[x]->text;
                                    size_t s4 = pushk(rd, key2);
                                    if (strcmp(key2, "requests") == 0)
                                        co->requests = rd_strlist(rd, e->vals[x], &co->nrequests);
                                    else if (strcmp(key2, "matchAttribute") == 0)
                                        co->match_attribute = rd_str(rd, e->vals[x], false);
                                    else if (strcmp(key2, "distinctAttribute") == 0)
                                        co->distinct_attribute = rd_str(rd, e->vals[x], false);
                                    else
                                        unknown_field(rd, e->keys[x], kcons);
                                    pop(rd, s4);
                                }
                            pop(rd, s3);
                        }
                    }
                } else if (K("config")) {
                    if (want_seq(rd, val)) {
                        c->configs = dra_model_array(rd->m, val->n, sizeof *c->configs);
                        c->nconfigs = c->configs ? val->n : 0;
                        for (uint32_t j = 0; j < c->nconfigs; j++) {
                            size_t s3 = pushi(rd, j);
                            const dra_ynode_t *e = val->vals[j];
                            if (want_map(rd, e))
                                for (uint32_t x = 0; x < e->n; x++) {
                                    const char *key2 = e->keys[x]->text;
                                    size_t s4 = pushk(rd, key2);
                                    if (strcmp(key2, "requests") == 0)
                                        c->configs[j].requests =
                                            rd_strlist(rd, e->vals[x], &c->configs[j].nrequests);
                                    else if (strcmp(key2, "opaque") == 0)
                                        rd_opaque(rd, &c->configs[j].opaque, e->vals[x]);
                                    else
                                        unknown_field(rd, e->keys[x], kcfg);
                                    pop(rd, s4);
                                }
                            pop(rd, s3);
                        }
                    }
                } else
                    unknown_field(rd, dv->keys[i], kdev);
                pop(rd, s2);
            }
        }
        pop(rd, s);
    }
}

static void rd_allocation(rd_t *rd, dra_claim_t *c, const dra_ynode_t *v)
{
    static const char *const kalloc[] = {"devices", "nodeSelector", "allocationTimestamp",
                                         "controller", NULL};
    static const char *const kdev[] = {"results", "config", NULL};
    static const char *const kres[] = {
        "request", "driver", "pool", "device", "adminAccess", "tolerations", "bindingConditions",
        "bindingFailureConditions", "shareID", "consumedCapacity", NULL};
    static const char *const kcfg[] = {"source", "requests", "opaque", NULL};
    if (!want_map(rd, v))
        return;
    dra_allocation_t *a = dra_model_array(rd->m, 1, sizeof *a);
    if (!a)
    {
        rd->nerr++;
        return;
    }
    c->allocation = a;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        if (K("nodeSelector"))
            a->node_selector = rd_node_selector(rd, val);
        else if (K("allocationTimestamp"))
            a->allocation_timestamp = rd_str(rd, val, false);
        else if (K("controller")) {
        } else if (K("devices")) {
            if (want_map(rd, val))
                for (uint32_t i = 0; i < val->n; i++) {
                    const char *k2 = val->keys[i]->text;
                    const dra_ynode_t *x = val->vals[i];
                    size_t s2 = pushk(rd, k2);
                    if (strcmp(k2, "results") == 0 && want_seq(rd, x)) {
                        a->results = dra_model_array(rd->m, x->n, sizeof *a->results);
                        a->nresults = a->results ? x->n : 0;
                        for (uint32_t j = 0; j < a->nresults; j++) {
                            size_t s3 = pushi(rd, j);
                            dra_result_t *r = &a->results[j];
                            const dra_ynode_t *e = x->vals[j];
                            if (want_map(rd, e))
                                for (uint32_t y = 0; y < e->n; y++) {
                                    const char *k3 = e->keys[y]->text;
                                    const dra_ynode_t *z = e->vals[y];
                                    size_t s4 = pushk(rd, k3);
                                    if (strcmp(k3, "request") == 0)
                                        r->request = rd_str(rd, z, false);
                                    else if (strcmp(k3, "driver") == 0)
                                        r->driver = rd_str(rd, z, false);
                                    else if (strcmp(k3, "pool") == 0)
                                        r->pool = rd_str(rd, z, false);
                                    else if (strcmp(k3, "device") == 0)
                                        r->device = rd_str(rd, z, false);
                                    else if (strcmp(k3, "adminAccess") == 0) {
                                        if (!dra_ynode_is_null(z))
                                            rd_bool(rd, z, &r->admin_access);
                                    } else if (strcmp(k3, "tolerations") == 0)
                                        r->tolerations = rd_tolerations(rd, z, &r->ntolerations);
                                    else if (strcmp(k3, "bindingConditions") == 0)
                                        r->binding_conditions =
                                            rd_strlist(rd, z, &r->nbinding_conditions);
                                    else if (strcmp(k3, "bindingFailureConditions") == 0)
                                        r->binding_failure_conditions =
                                            rd_strlist(rd, z, &r->nbinding_failure_conditions);
                                    else if (strcmp(k3, "shareID") == 0)
                                        r->share_id = rd_str(rd, z, false);
                                    else if (strcmp(k3, "consumedCapacity") == 0) {
                                        if (want_map(rd, z)) {
                                            r->consumed =
                                                dra_model_array(rd->m, z->n, sizeof *r->consumed);
                                            r->nconsumed = r->consumed ? z->n : 0;
                                            for (uint32_t q = 0; q < r->nconsumed; q++) {
                                                size_t s5 = pushk(rd, z->keys[q]->text);
                                                r->consumed[q].name = dra_model_strn(
                                                    rd->m, z->keys[q]->text, z->keys[q]->len);
                                                rd_qty(rd, z->vals[q], &r->consumed[q].value);
                                                pop(rd, s5);
                                            }
                                        }
                                    } else
                                        unknown_field(rd, e->keys[y], kres);
                                    pop(rd, s4);
                                }
                            pop(rd, s3);
                        }
                    } else if (strcmp(k2, "config") == 0 && want_seq(rd, x)) {
                        a->configs = dra_model_array(rd->m, x->n, sizeof *a->configs);
                        a->nconfigs = a->configs ? x->n : 0;
                        for (uint32_t j = 0; j < a->nconfigs; j++) {
                            size_t s3 = pushi(rd, j);
                            const dra_ynode_t *e = x->vals[j];
                            if (want_map(rd, e))
                                for (uint32_t y = 0; y < e->n; y++) {
                                    const char *k3 = e->keys[y]->text;
                                    size_t s4 = pushk(rd, k3);
                                    if (strcmp(k3, "source") == 0) {
                                        const char *src = rd_str(rd, e->vals[y], false);
                                        if (src && strcmp(src, "FromClaim") == 0)
                                            a->configs[j].source = DRA_CONFIG_FROM_CLAIM;
                                        else if (src && strcmp(src, "FromClass") == 0)
                                            a->configs[j].source = DRA_CONFIG_FROM_CLASS;
                                        else
                                            rerr(rd, e->vals[y],
                                                 "unsupported value \"%s\": must be FromClass or "
                                                 "FromClaim",
                                                 src ? src : "");
                                    } else if (strcmp(k3, "requests") == 0)
                                        a->configs[j].requests = rd_strlist(
                                            rd, e->vals[y], &a->configs[j].nrequests);
                                    else if (strcmp(k3, "opaque") == 0)
                                        rd_opaque(rd, &a->configs[j].opaque, e->vals[y]);
                                    else
                                        unknown_field(rd, e->keys[y], kcfg);
                                    pop(rd, s4);
                                }
                            pop(rd, s3);
                        }
                    } else if (strcmp(k2, "results") != 0 && strcmp(k2, "config") != 0)
                        unknown_field(rd, val->keys[i], kdev);
                    pop(rd, s2);
                }
        } else
            unknown_field(rd, v->keys[k], kalloc);
        pop(rd, s);
    }
}

/* ---- pods and workloads ------------------------------------------------------------------ */

static void rd_pod_spec(rd_t *rd, dra_pod_t *p, const dra_ynode_t *spec)
{
    static const char *const kspec[] = {"resourceClaims", "nodeName", "containers",
                                        "initContainers", "restartPolicy", "tolerations",
                                        "nodeSelector", "affinity", NULL};
    static const char *const kclaim[] = {"name", "resourceClaimName", "resourceClaimTemplateName",
                                         "source", NULL};
    if (!want_map(rd, spec))
        return;
    case_check(rd, spec, kspec);
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("nodeName"))
            p->node_name = rd_str(rd, val, false);
        else if (K("resourceClaims") && want_seq(rd, val)) {
            p->claims = dra_model_array(rd->m, val->n, sizeof *p->claims);
            p->nclaims = p->claims ? val->n : 0;
            for (uint32_t i = 0; i < p->nclaims; i++) {
                size_t s2 = pushi(rd, i);
                const dra_ynode_t *e = val->vals[i];
                dra_pod_claim_t *c = &p->claims[i];
                if (want_map(rd, e))
                    for (uint32_t j = 0; j < e->n; j++) {
                        const char *k2 = e->keys[j]->text;
                        const dra_ynode_t *x = e->vals[j];
                        size_t s3 = pushk(rd, k2);
                        if (strcmp(k2, "name") == 0)
                            c->name = rd_str(rd, x, false);
                        else if (strcmp(k2, "resourceClaimName") == 0)
                            c->claim_name = rd_str(rd, x, false);
                        else if (strcmp(k2, "resourceClaimTemplateName") == 0)
                            c->template_name = rd_str(rd, x, false);
                        else if (strcmp(k2, "source") == 0 && want_map(rd, x)) {
                            /* pre-1.31 PodResourceClaimSource */
                            const dra_ynode_t *cn = dra_ynode_get(x, "resourceClaimName");
                            const dra_ynode_t *tn = dra_ynode_get(x, "resourceClaimTemplateName");
                            if (cn)
                                c->claim_name = rd_str(rd, cn, false);
                            if (tn)
                                c->template_name = rd_str(rd, tn, false);
                        } else if (strcmp(k2, "source") != 0)
                            unknown_field(rd, e->keys[j], kclaim);
                        pop(rd, s3);
                    }
                pop(rd, s2);
            }
        }
        pop(rd, s);
    }
}

/* ---- documents --------------------------------------------------------------------------- */

typedef struct rctx {
    rd_t rd;
    int rc;
} rctx_t;

static int api_of(const char *apiv)
{
    if (!apiv)
        return 0;
    if (strcmp(apiv, "resource.k8s.io/v1") == 0)
        return API_V1;
    if (strcmp(apiv, "resource.k8s.io/v1beta2") == 0)
        return API_V1BETA2;
    if (strcmp(apiv, "resource.k8s.io/v1beta1") == 0)
        return API_V1BETA1;
    if (strcmp(apiv, "resource.k8s.io/v1alpha3") == 0)
        return API_V1ALPHA3;
    return -1;
}

static const char *const k_top[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};

static void rd_object(rd_t *rd, const dra_ynode_t *doc, int depth);

static void rd_list(rd_t *rd, const dra_ynode_t *doc, int depth)
{
    const dra_ynode_t *items = dra_ynode_get(doc, "items");
    size_t s = pushk(rd, "items");
    if (want_seq(rd, items))
        for (uint32_t i = 0; i < items->n; i++) {
            size_t s2 = pushi(rd, i);
            const char *kind = rd->kind, *name = rd->name;
            rd_object(rd, items->vals[i], depth + 1);
            rd->kind = kind;
            rd->name = name;
            pop(rd, s2);
        }
    pop(rd, s);
}

static void rd_object(rd_t *rd, const dra_ynode_t *doc, int depth)
{
    dra_model_t *m = rd->m;
    if (!dra_ynode_is_map(doc)) {
        rd->kind = "?";
        rd->name = NULL;
        rerr(rd, doc, "expected a Kubernetes object (a map), got %s", dra_ynode_kind_name(doc));
        return;
    }
    const dra_ynode_t *kindn = dra_ynode_get(doc, "kind");
    const dra_ynode_t *apin = dra_ynode_get(doc, "apiVersion");
    const char *kind = kindn && kindn->type == DRA_YNODE_SCALAR ? kindn->text : NULL;
    rd->kind = kind ? kind : "?";
    rd->name = NULL;
    if (!kind) {
        rerr(rd, doc, "kind: required field missing");
        return;
    }
    size_t kl = strlen(kind);
    bool is_list = dra_ynode_get(doc, "items") &&
                   (strcmp(kind, "List") == 0 || (kl > 4 && strcmp(kind + kl - 4, "List") == 0));
    static const char *const known_kinds[] = {
        "ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "Pod", "Node",
        "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", NULL};
    int ki = -1;
    for (int i = 0; known_kinds[i]; i++)
        if (strcmp(kind, known_kinds[i]) == 0)
            ki = i;
    if (ki < 0 && !is_list) {
        m->nskipped++;
        return;
    }
    const dra_ynode_t *meta = dra_ynode_get(doc, "metadata");
    const char *name = NULL, *ns = NULL;
    const dra_ynode_t *labels = NULL;
    {
        size_t s = pushk(rd, "metadata");
        rd_meta(rd, meta, &name, &ns, &labels);
        pop(rd, s);
    }
    rd->name = name;
    case_check(rd, doc, k_top);
    const char *apiv = NULL;
    if (!apin) {
        rerr(rd, doc, "apiVersion: required field missing");
    } else {
        size_t s = pushk(rd, "apiVersion");
        apiv = rd_str(rd, apin, false);
        pop(rd, s);
    }
    if (is_list) {
        if (depth > 2)
            rerr(rd, doc, "nested List too deep");
        else
            rd_list(rd, doc, depth);
        return;
    }
    if (!name && ki != 3 && ki != 4 && !(meta && dra_ynode_get(meta, "generateName")))
        rerr(rd, meta ? meta : doc, "metadata.name: required field missing");
    const dra_ynode_t *spec = dra_ynode_get(doc, "spec");
    int api = api_of(apiv);
    rd->api = api;
    if (ki <= 3) { /* resource.k8s.io kinds */
        if (apiv && api < 0)
            rerr(rd, apin, "unsupported apiVersion \"%s\" for %s (want resource.k8s.io/v1, "
                           "v1beta2, v1beta1 or v1alpha3)",
                 apiv, kind);
        for (uint32_t i = 0; i < doc->n; i++) {
            const char *key = doc->keys[i]->text;
            if (!K("apiVersion") && !K("kind") && !K("metadata") && !K("spec") &&
                !(K("status") && ki == 2)) {
                size_t s = pushk(rd, key);
                unknown_field(rd, doc->keys[i], k_top);
                pop(rd, s);
            }
        }
    }
    dra_srcpos_t pos = {rd->file, doc->line, doc->column};
    size_t s = pushk(rd, "spec");
    switch (ki) {
    case 0: {
        dra_slice_t *sl = dra_model_add_slice(m);
        if (!sl)
            break;
        sl->name = name;
        sl->api_version = apiv;
        sl->pos = pos;
        if (!spec)
            rerr(rd, doc, "spec: required field missing");
        rd_slice(rd, spec, sl);
        dra_model_slice_done(m, sl);
        break;
    }
    case 1: {
        dra_device_class_t *c = dra_model_add_class(m);
        if (!c)
            break;
        c->name = name;
        c->pos = pos;
        rd_class(rd, spec, c);
        break;
    }
    case 2:
    case 3: {
        dra_claim_t *c = ki == 2 ? dra_model_add_claim(m) : dra_model_add_template(m);
        if (!c)
            break;
        c->name = name;
        c->namespace_ = ns ? ns : "default";
        c->is_template = ki == 3;
        c->api_version = apiv;
        c->pos = pos;
        if (ki == 3) {
            static const char *const kt[] = {"spec", "metadata", NULL};
            if (want_map(rd, spec))
                for (uint32_t i = 0; i < spec->n; i++) {
                    size_t s2 = pushk(rd, spec->keys[i]->text);
                    if (strcmp(spec->keys[i]->text, "spec") == 0)
                        rd_claim_spec(rd, c, spec->vals[i]);
                    else if (strcmp(spec->keys[i]->text, "metadata") != 0)
                        unknown_field(rd, spec->keys[i], kt);
                    pop(rd, s2);
                }
        } else {
            rd_claim_spec(rd, c, spec);
            const dra_ynode_t *st = dra_ynode_get(doc, "status");
            const dra_ynode_t *al = dra_ynode_get(st, "allocation");
            if (al && !dra_ynode_is_null(al)) {
                pop(rd, s);
                s = pushk(rd, "status.allocation");
                rd_allocation(rd, c, al);
            }
        }
        break;
    }
    case 4: {
        dra_pod_t *p = dra_model_add_pod(m);
        if (!p)
            break;
        p->kind = DRA_POD_POD;
        p->name = name;
        p->namespace_ = ns ? ns : "default";
        p->replicas = 1;
        p->pos = pos;
        rd_pod_spec(rd, p, spec);
        break;
    }
    case 5: {
        dra_node_t *nd = dra_model_add_node(m);
        if (!nd)
            break;
        nd->name = name;
        nd->pos = pos;
        pop(rd, s);
        s = pushk(rd, "metadata.labels");
        if (want_map(rd, labels)) {
            nd->labels = dra_model_array(m, labels->n, sizeof *nd->labels);
            nd->nlabels = nd->labels ? labels->n : 0;
            for (uint32_t i = 0; i < nd->nlabels; i++) {
                size_t s2 = pushk(rd, labels->keys[i]->text);
                nd->labels[i].key = dra_model_strn(m, labels->keys[i]->text, labels->keys[i]->len);
                nd->labels[i].value = rd_str(rd, labels->vals[i], true);
                if (!nd->labels[i].value)
                    nd->labels[i].value = "";
                pop(rd, s2);
            }
        }
        const dra_ynode_t *alc = dra_ynode_get(dra_ynode_get(doc, "status"), "allocatable");
        if (alc) { /* cpu / memory kept as written (drabench replay --emit writes them) */
            pop(rd, s);
            s = pushk(rd, "status.allocatable");
            const dra_ynode_t *v = dra_ynode_get(alc, "cpu");
            if (v && v->type == DRA_YNODE_SCALAR) { /* `cpu: 8` or `cpu: "8"`: kept as text */
                size_t s2 = pushk(rd, "cpu");
                nd->alloc_cpu = rd_str(rd, v, true);
                pop(rd, s2);
            }
            v = dra_ynode_get(alc, "memory");
            if (v && v->type == DRA_YNODE_SCALAR) {
                size_t s2 = pushk(rd, "memory");
                nd->alloc_memory = rd_str(rd, v, true);
                pop(rd, s2);
            }
        }
        break;
    }
    default: { /* workloads: 6 Deployment 7 ReplicaSet 8 StatefulSet 9 DaemonSet 10 Job */
        static const dra_pod_kind_t kinds[] = {DRA_POD_DEPLOYMENT, DRA_POD_REPLICASET,
                                               DRA_POD_STATEFULSET, DRA_POD_DAEMONSET,
                                               DRA_POD_JOB};
        dra_pod_t *p = dra_model_add_pod(m);
        if (!p)
            break;
        p->kind = kinds[ki - 6];
        p->name = name;
        p->namespace_ = ns ? ns : "default";
        p->pos = pos;
        p->replicas = p->kind == DRA_POD_DAEMONSET ? -1 : 1;
        const char *rkey = p->kind == DRA_POD_JOB ? "parallelism" : "replicas";
        const dra_ynode_t *rn = dra_ynode_get(spec, rkey);
        if (rn && !dra_ynode_is_null(rn) && p->kind != DRA_POD_DAEMONSET) {
            size_t s2 = pushk(rd, rkey);
            rd_int(rd, rn, &p->replicas);
            pop(rd, s2);
        }
        const dra_ynode_t *tmpl = dra_ynode_get(spec, "template");
        size_t s2 = pushk(rd, "template.spec");
        if (!tmpl)
            rerr(rd, spec ? spec : doc, "spec.template: required field missing");
        else
            rd_pod_spec(rd, p, dra_ynode_get(tmpl, "spec"));
        pop(rd, s2);
        break;
    }
    }
    pop(rd, s);
}

static int on_doc(const dra_ynode_t *root, void *ud)
{
    rctx_t *c = ud;
    c->rd.plen = 0;
    c->rd.path[0] = 0;
    rd_object(&c->rd, root, 0);
    return DRA_OK;
}

int dra_manifest_read_buffer(dra_model_t *m, const char *file, const char *buf, size_t len,
                             dra_diag_list_t *errs)
{
    dra_ydoc_split_t sp = {.at = DRA_YDOC_SPLIT_AUTO};
    return dra_manifest_read_buffer_split(m, file, buf, len, &sp, errs);
}

int dra_manifest_read_buffer_split(dra_model_t *m, const char *file, const char *buf, size_t len,
                                   dra_ydoc_split_t *sp, dra_diag_list_t *errs)
{
    rctx_t c;
    memset(&c, 0, sizeof c);
    c.rd.m = m;
    c.rd.file = dra_model_str(m, file ? file : "<input>");
    c.rd.errs = errs;
    dra_arena_t scratch;
    dra_arena_init(&scratch, 0);
    int rc = dra_ydoc_parse_split(buf, len, c.rd.file, &scratch, DRA_YDOC_RESET_PER_DOC, sp, on_doc,
                                  &c, errs);
    dra_arena_fini(&scratch);
    if (rc == DRA_OK && c.rd.nerr)
        rc = DRA_EVALIDATE;
    return rc;
}

static int read_one(dra_model_t *m, const char *path, dra_diag_list_t *errs)
{
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cli_read_file(path, DRA_MANIFEST_MAX_FILE, &buf, &len, &d);
    if (rc != DRA_OK) {
        if (errs)
            (void)dra_diag_list_add(errs, rc, path, 0, 0, "%s",
                                    d.msg[0] ? d.msg : dra_strerror(rc));
        return rc;
    }
    rc = dra_manifest_read_buffer(m, path, buf, len, errs);
    free(buf);
    return rc;
}

int dra_manifest_read_file(dra_model_t *m, const char *path, dra_diag_list_t *errs)
{
    int rc = read_one(m, path, errs);
    int rc2 = dra_model_imply_nodes(m);
    return rc ? rc : rc2;
}

typedef struct read_paths_ctx {
    dra_model_t *m;
    dra_diag_list_t *errs;
} read_paths_ctx_t;

static int read_paths_one(const char *path, void *ud)
{
    read_paths_ctx_t *c = ud;
    return read_one(c->m, path, c->errs);
}

int dra_manifest_read_paths(dra_model_t *m, char *const *paths, int n, dra_diag_list_t *errs)
{
    read_paths_ctx_t c = {m, errs};
    size_t first = errs ? errs->count : 0;
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    int rc = dra_walk_paths(&w, paths, n, read_paths_one, &c, errs);
    /* the walker's path strings die with it: the diagnostics name the model's copies */
    for (size_t i = first; errs && i < errs->count; i++)
        if (errs->items[i].file) {
            const char *f = dra_model_str(m, errs->items[i].file);
            errs->items[i].file = f ? f : "<path>";
            if (!f && !rc)
                rc = DRA_ENOMEM;
        }
    dra_walk_fini(&w);
    int r = dra_model_imply_nodes(m);
    return rc ? rc : r;
}
