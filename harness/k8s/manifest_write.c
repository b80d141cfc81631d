/*
 * manifest_write.c - the model as resource.k8s.io/v1 manifests: multi-document YAML or a JSON List.
 *
 * One small streaming emitter serves both formats: the object walkers below call em_key /
 * em_map / em_seq / em_str / em_end and the emitter writes block YAML (kubectl layout: sequence
 * items at their key's indentation) or compact JSON into a growable buffer. Strings are written
 * plain in YAML only when no YAML 1.1 or 1.2 reader could type them as anything but a string;
 * otherwise they are double-quoted with JSON escapes, which YAML accepts. Quantities are printed
 * canonically (dra_quantity_format) and always quoted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "extres/extres.h"
#include "manifest.h"

enum { LV_MAP, LV_SEQ };

typedef struct lvl {
    uint8_t type;
    uint8_t inline_first;
    uint32_t indent;
    uint32_t n;
} lvl_t;

/* plain_safe results by string address: keys are mostly literals and model strings repeat
 * (attribute names), and nothing the writer reads changes while it runs. */
#define PLAIN_CACHE 512

typedef struct em {
    dra_sbuf_t *b;
    const char *pc_str[PLAIN_CACHE];
    uint32_t pc_len[PLAIN_CACHE]; /* length + 1 when plain-safe, 0 when not */
    bool json;
    int depth;
    bool after_key; /* YAML: "key:" written, value pending */
    lvl_t st[32];
} em_t;

static const char spaces[] = "                                                                ";
static const char nl_spaces[] = "\n                                                                ";

/* Appends without the NUL terminator and without a call on the fast path (the writer makes
 * ~20 appends per device); write_all terminates the buffer once at the end. */
static inline void bput(dra_sbuf_t *b, const char *s, size_t n)
{
    if (DRA_LIKELY(b->len + n < b->cap && !b->err)) {
        char *d = b->p + b->len;
        /* most pieces are short: fixed-size moves instead of a memcpy call */
        if (n >= 8 && n <= 16) {
            memcpy(d, s, 8);
            memcpy(d + n - 8, s + n - 8, 8);
        } else if (n >= 4 && n < 8) {
            memcpy(d, s, 4);
            memcpy(d + n - 4, s + n - 4, 4);
        } else if (n < 4) {
            for (size_t i = 0; i < n; i++)
                d[i] = s[i];
        } else {
            memcpy(d, s, n);
        }
        b->len += n;
    } else {
        dra_sbuf_put(b, s, n);
    }
}

static inline void bputs(dra_sbuf_t *b, const char *s)
{
    bput(b, s, strlen(s));
}

static void em_indent(em_t *e, uint32_t n)
{
    while (n > 0) {
        uint32_t k = n < 64 ? n : 64;
        bput(e->b, spaces, k);
        n -= k;
    }
}

/* A UTF-8 character YAML may not hold raw (YAML 1.2 c-printable, as libyaml's reader checks):
 * C1 controls U+0080-U+009F and U+FFFE, U+FFFF; valid in JSON, so a value read from JSON input
 * may carry one. Its length in bytes (the code point in *cp), or 0. */
static size_t yaml_unprintable(const char *p, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)p;
    if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f) {
        *cp = u[1];
        return 2;
    }
    if (u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf)) {
        *cp = 0xff00u | u[2] | 0x40u;
        return 3;
    }
    return 0;
}

static void json_quote(dra_sbuf_t *b, const char *s)
{
    bput(b, "\"", 1);
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        unsigned cp;
        size_t ul = c >= 0x80 ? yaml_unprintable(p, &cp) : 0;
        if (ul) { /* \uXXXX: valid in YAML double quotes and in JSON alike */
            char esc[8];
            bput(b, run, (size_t)(p - run));
            snprintf(esc, sizeof esc, "\\u%04x", cp);
            bput(b, esc, 6);
            p += ul - 1;
            run = p + 1;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
            continue;
        bput(b, run, (size_t)(p - run));
        run = p + 1;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            bput(b, esc, 2);
        } else if (c == '\n') {
            bput(b, "\\n", 2);
        } else if (c == '\t') {
            bput(b, "\\t", 2);
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            bput(b, esc, 6);
        }
    }
    bput(b, run, strlen(run));
    bput(b, "\"", 1);
}

/* Characters a plain scalar may hold: [A-Za-z0-9._/-]. */
static const unsigned char plain_char[256] = {
    ['-'] = 1, ['.'] = 1, ['/'] = 1, ['_'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1,
    ['A'] = 2, ['B'] = 2, ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2, ['G'] = 2, ['H'] = 2,
    ['I'] = 2, ['J'] = 2, ['K'] = 2, ['L'] = 2, ['M'] = 2, ['N'] = 2, ['O'] = 2, ['P'] = 2,
    ['Q'] = 2, ['R'] = 2, ['S'] = 2, ['T'] = 2, ['U'] = 2, ['V'] = 2, ['W'] = 2, ['X'] = 2,
    ['Y'] = 2, ['Z'] = 2,
    ['a'] = 2, ['b'] = 2, ['c'] = 2, ['d'] = 2, ['e'] = 2, ['f'] = 2, ['g'] = 2, ['h'] = 2,
    ['i'] = 2, ['j'] = 2, ['k'] = 2, ['l'] = 2, ['m'] = 2, ['n'] = 2, ['o'] = 2, ['p'] = 2,
    ['q'] = 2, ['r'] = 2, ['s'] = 2, ['t'] = 2, ['u'] = 2, ['v'] = 2, ['w'] = 2, ['x'] = 2,
    ['y'] = 2, ['z'] = 2,
};

/* Can s be written as a plain YAML scalar and still read back as this string everywhere?
 * (starts with a letter, only [A-Za-z0-9._/-], at most 200 characters, not a YAML 1.1 bool or
 * null word in any case). On true, *len is strlen(s). */
static bool plain_safe(const char *s, size_t *len)
{
    static const char *const words[] = {"y", "n", "yes", "no", "on", "off", "true", "false",
                                        "null", NULL};
    if (plain_char[(unsigned char)s[0]] != 2)
        return false;
    size_t n = 1;
    while (plain_char[(unsigned char)s[n]])
        n++;
    if (s[n] || n > 200)
        return false;
    if (n <= 5) {
        /* the words start with y, n, o, t or f: skip the compares for anything else */
        char c0 = (char)(s[0] | 0x20);
        if (c0 == 'y' || c0 == 'n' || c0 == 'o' || c0 == 't' || c0 == 'f')
            for (const char *const *w = words; *w; w++)
                if (strcasecmp(*w, s) == 0)
                    return false;
    }
    *len = n;
    return true;
}

static bool plain_safe_cached(em_t *e, const char *s, size_t *len)
{
    size_t slot = ((uintptr_t)s >> 3 ^ (uintptr_t)s >> 12) & (PLAIN_CACHE - 1);
    if (e->pc_str[slot] == s) {
        *len = e->pc_len[slot] ? e->pc_len[slot] - 1 : 0;
        return e->pc_len[slot] != 0;
    }
    bool ok = plain_safe(s, len);
    e->pc_str[slot] = s;
    e->pc_len[slot] = ok ? (uint32_t)*len + 1 : 0;
    return ok;
}

/* Start an entry in the current collection (newline + indent, or inline after "- "). */
static void em_entry(em_t *e)
{
    lvl_t *l = &e->st[e->depth - 1];
    if (e->json) {
        if (l->n)
            bput(e->b, ",", 1);
    } else if (!(l->n == 0 && l->inline_first)) {
        if (l->indent < sizeof spaces) {
            bput(e->b, nl_spaces, 1 + l->indent);
        } else {
            bput(e->b, "\n", 1);
            em_indent(e, l->indent);
        }
    }
    if (!e->json && l->type == LV_SEQ)
        bput(e->b, "- ", 2);
    l->n++;
}

static void em_key(em_t *e, const char *k)
{
    em_entry(e);
    if (e->json) {
        json_quote(e->b, k);
        bput(e->b, ":", 1);
    } else {
        size_t kl;
        if (plain_safe_cached(e, k, &kl))
            bput(e->b, k, kl);
        else
            json_quote(e->b, k);
        bput(e->b, ":", 1);
        e->after_key = true;
    }
}

/* Before a value: in a sequence it is an entry of its own; after a key it follows it. */
static void em_value_start(em_t *e, bool scalar)
{
    if (e->depth == 0)
        return;
    lvl_t *l = &e->st[e->depth - 1];
    if (l->type == LV_SEQ)
        em_entry(e);
    else if (!e->json && scalar)
        bput(e->b, " ", 1);
    e->after_key = false;
}

static void em_push(em_t *e, uint8_t type)
{
    bool in_seq = e->depth > 0 && e->st[e->depth - 1].type == LV_SEQ;
    uint32_t pind = e->depth > 0 ? e->st[e->depth - 1].indent : 0;
    em_value_start(e, false);
    if (e->depth >= (int)DRA_ARRAY_LEN(e->st)) {
        e->b->err = DRA_ELIMIT;
        return;
    }
    lvl_t *l = &e->st[e->depth++];
    l->type = type;
    l->n = 0;
    if (e->depth == 1) {
        l->indent = 0;
        l->inline_first = 1;
    } else if (in_seq) {
        l->indent = pind + 2;
        l->inline_first = 1;
    } else {
        l->indent = type == LV_SEQ ? pind : pind + 2;
        l->inline_first = 0;
    }
    if (e->json)
        bput(e->b, type == LV_MAP ? "{" : "[", 1);
}

static void em_map(em_t *e)
{
    em_push(e, LV_MAP);
}

static void em_seq(em_t *e)
{
    em_push(e, LV_SEQ);
}

static void em_end(em_t *e)
{
    if (e->depth == 0)
        return;
    lvl_t *l = &e->st[--e->depth];
    if (e->json)
        bput(e->b, l->type == LV_MAP ? "}" : "]", 1);
    else if (l->n == 0)
        bputs(e->b, l->inline_first && e->depth > 0 ? (l->type == LV_MAP ? "{}" : "[]")
                                                            : (l->type == LV_MAP ? " {}" : " []"));
}

static void em_str(em_t *e, const char *s)
{
    em_value_start(e, true);
    size_t sl;
    if (!e->json && plain_safe_cached(e, s, &sl))
        bput(e->b, s, sl);
    else
        json_quote(e->b, s);
}

static void em_raw(em_t *e, const char *s)
{
    em_value_start(e, true);
    bputs(e->b, s);
}

static void em_i64(em_t *e, int64_t v)
{
    char num[24];
    size_t i = sizeof num;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        num[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        num[--i] = '-';
    em_value_start(e, true);
    bput(e->b, num + i, sizeof num - i);
}

static void em_bool(em_t *e, bool v)
{
    em_raw(e, v ? "true" : "false");
}

static void em_qty(em_t *e, const dra_quantity_t *q)
{
    char buf[DRA_QUANTITY_FMT_MAX + 8];
    size_t n = dra_quantity_format(q, buf, sizeof buf);
    if (n >= sizeof buf)
        buf[sizeof buf - 1] = 0;
    em_value_start(e, true);
    json_quote(e->b, buf);
}

/* Compact canonical JSON (opaque parameters) as a YAML flow node: a space after ':' and ','
 * outside strings, so no YAML reader mistakes "a":1 for a plain scalar. */
static void em_json_text(em_t *e, const char *j)
{
    em_value_start(e, true);
    if (e->json) {
        bputs(e->b, j);
        return;
    }
    bool in_str = false;
    const char *run = j;
    for (const char *p = j; *p; p++) {
        /* in a string, what YAML may not hold raw (DEL, C1 controls, U+FFFE/U+FFFF) as \uXXXX */
        unsigned cp = 0x7f;
        size_t ul = !in_str ? 0 : *p == 0x7f ? 1 : yaml_unprintable(p, &cp);
        if (ul) {
            char esc[8];
            bput(e->b, run, (size_t)(p - run));
            snprintf(esc, sizeof esc, "\\u%04x", cp);
            bput(e->b, esc, 6);
            p += ul - 1;
            run = p + 1;
        } else if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = false;
        } else if (*p == '"') {
            in_str = true;
        } else if (*p == ':' || *p == ',') {
            bput(e->b, run, (size_t)(p - run + 1));
            bput(e->b, " ", 1);
            run = p + 1;
        }
    }
    bputs(e->b, run);
}

/* key helpers */
static void kv_str(em_t *e, const char *k, const char *v)
{
    if (!v)
        return;
    em_key(e, k);
    em_str(e, v);
}

static void kv_i64(em_t *e, const char *k, int64_t v)
{
    em_key(e, k);
    em_i64(e, v);
}

static void kv_true(em_t *e, const char *k, bool v)
{
    if (!v)
        return;
    em_key(e, k);
    em_bool(e, true);
}

static void kv_qty(em_t *e, const char *k, const dra_quantity_t *q)
{
    em_key(e, k);
    em_qty(e, q);
}

static void kv_strs(em_t *e, const char *k, const char *const *v, uint32_t n, bool always)
{
    if (!n && !always)
        return;
    em_key(e, k);
    em_seq(e);
    for (uint32_t i = 0; i < n; i++)
        em_str(e, v[i] ? v[i] : "");
    em_end(e);
}

static void doc_begin(em_t *e, const char *api, const char *kind)
{
    if (!e->json)
        bputs(e->b, "---\n");
    em_map(e);
    kv_str(e, "apiVersion", api);
    kv_str(e, "kind", kind);
}

static void doc_end(em_t *e)
{
    em_end(e);
    if (!e->json)
        bput(e->b, "\n", 1);
}

static void meta(em_t *e, const char *name, const char *ns)
{
    em_key(e, "metadata");
    em_map(e);
    kv_str(e, "name", name);
    kv_str(e, "namespace", ns);
    em_end(e);
}

/* ---- pieces ----------------------------------------------------------------------------- */

static const char *ns_op_name(const dra_ns_req_t *r)
{
    static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    if (r->op_raw)
        return r->op_raw;
    return r->op < DRA_NS_UNKNOWN ? ops[r->op] : "";
}

static void w_node_selector(em_t *e, const char *k, const dra_node_selector_t *ns)
{
    if (!ns)
        return;
    em_key(e, k);
    em_map(e);
    em_key(e, "nodeSelectorTerms");
    em_seq(e);
    for (uint32_t t = 0; t < ns->nterms; t++) {
        em_map(e);
        for (int pass = 0; pass < 2; pass++) {
            const dra_ns_req_t *r = pass ? ns->terms[t].fields : ns->terms[t].exprs;
            uint32_t n = pass ? ns->terms[t].nfields : ns->terms[t].nexprs;
            if (!n)
                continue;
            em_key(e, pass ? "matchFields" : "matchExpressions");
            em_seq(e);
            for (uint32_t i = 0; i < n; i++) {
                em_map(e);
                kv_str(e, "key", r[i].key);
                kv_str(e, "operator", ns_op_name(&r[i]));
                kv_strs(e, "values", r[i].values, r[i].nvalues, false);
                em_end(e);
            }
            em_end(e);
        }
        em_end(e);
    }
    em_end(e);
    em_end(e);
}

static const char *effect_name(dra_taint_effect_t ef)
{
    switch (ef) {
    case DRA_EFFECT_NO_SCHEDULE:
        return "NoSchedule";
    case DRA_EFFECT_NO_EXECUTE:
        return "NoExecute";
    case DRA_EFFECT_NONE:
        return "None";
    default:
        return NULL;
    }
}

static void w_tolerations(em_t *e, const dra_toleration_t *t, uint32_t n)
{
    if (!n)
        return;
    em_key(e, "tolerations");
    em_seq(e);
    for (uint32_t i = 0; i < n; i++) {
        em_map(e);
        kv_str(e, "key", t[i].key);
        const char *op = t[i].op_raw ? t[i].op_raw : t[i].op == DRA_TOL_EXISTS ? "Exists" : NULL;
        kv_str(e, "operator", op);
        kv_str(e, "value", t[i].value);
        const char *ef = t[i].effect_raw ? t[i].effect_raw
                         : t[i].effect == DRA_EFFECT_EMPTY ? NULL
                                                           : effect_name(t[i].effect);
        kv_str(e, "effect", ef);
        if (t[i].has_seconds)
            kv_i64(e, "tolerationSeconds", t[i].seconds);
        em_end(e);
    }
    em_end(e);
}

/* The taints of a device or a Node. */
static void w_taints(em_t *e, const dra_taint_t *t, uint32_t n)
{
    if (!n)
        return;
    em_key(e, "taints");
    em_seq(e);
    for (uint32_t i = 0; i < n; i++) {
        em_map(e);
        kv_str(e, "key", t[i].key);
        kv_str(e, "value", t[i].value);
        kv_str(e, "effect", t[i].effect_raw ? t[i].effect_raw : effect_name(t[i].effect));
        kv_str(e, "timeAdded", t[i].time_added);
        em_end(e);
    }
    em_end(e);
}


static void w_opaque(em_t *e, const dra_opaque_config_t *o)
{
    if (!o->driver && !o->params_json)
        return;
    em_key(e, "opaque");
    em_map(e);
    kv_str(e, "driver", o->driver);
    if (o->params_json) {
        em_key(e, "parameters");
        em_json_text(e, o->params_json);
    }
    em_end(e);
}

static void w_attr(em_t *e, const dra_attr_t *a)
{
    static const char *const kinds[] = {NULL, "int", "bool", "string", "version",
                                        "ints", "bools", "strings", "versions"};
    em_key(e, a->name ? a->name : "");
    em_map(e);
    if (a->kind > DRA_ATTR_NONE && a->kind <= DRA_ATTR_VERSIONS) {
        em_key(e, kinds[a->kind]);
        switch ((dra_attr_kind_t)a->kind) {
        case DRA_ATTR_INT:
            em_i64(e, a->v.i);
            break;
        case DRA_ATTR_BOOL:
            em_bool(e, a->v.b);
            break;
        case DRA_ATTR_STRING:
        case DRA_ATTR_VERSION:
            em_value_start(e, true);
            json_quote(e->b, a->v.s ? a->v.s : ""); /* always quoted: "1.0" must stay text */
            break;
        default:
            em_seq(e);
            for (uint32_t i = 0; i < a->count; i++) {
                if (a->kind == DRA_ATTR_INTS)
                    em_i64(e, a->v.ints[i]);
                else if (a->kind == DRA_ATTR_BOOLS)
                    em_bool(e, a->v.bools[i]);
                else {
                    em_value_start(e, true);
                    json_quote(e->b, a->v.strs[i] ? a->v.strs[i] : "");
                }
            }
            em_end(e);
        }
    }
    em_end(e);
}

static void w_policy(em_t *e, const dra_request_policy_t *p)
{
    em_key(e, "requestPolicy");
    em_map(e);
    if (p->has_default)
        kv_qty(e, "default", &p->def);
    if (p->nvalid_values) {
        em_key(e, "validValues");
        em_seq(e);
        for (uint32_t i = 0; i < p->nvalid_values; i++)
            em_qty(e, &p->valid_values[i]);
        em_end(e);
    }
    if (p->has_valid_range) {
        em_key(e, "validRange");
        em_map(e);
        kv_qty(e, "min", &p->min);
        if (p->has_max)
            kv_qty(e, "max", &p->max);
        if (p->has_step)
            kv_qty(e, "step", &p->step);
        em_end(e);
    }
    em_end(e);
}

static void w_counters(em_t *e, const dra_counter_t *c, uint32_t n)
{
    em_key(e, "counters");
    em_map(e);
    for (uint32_t i = 0; i < n; i++) {
        em_key(e, c[i].name ? c[i].name : "");
        em_map(e);
        if (c[i].value_from) { /* KEP-5941: request-driven, no static value */
            em_key(e, "valueFrom");
            em_map(e);
            kv_str(e, "capacityName", c[i].value_from);
            em_end(e);
        } else {
            kv_qty(e, "value", &c[i].value);
        }
        if (c[i].policy)
            w_policy(e, c[i].policy);
        em_end(e);
    }
    em_end(e);
}

static void w_device(em_t *e, const dra_device_t *d)
{
    em_map(e);
    kv_str(e, "name", d->name);
    if (d->nattrs) {
        em_key(e, "attributes");
        em_map(e);
        for (uint32_t i = 0; i < d->nattrs; i++)
            w_attr(e, &d->attrs[i]);
        em_end(e);
    }
    if (d->ncaps) {
        em_key(e, "capacity");
        em_map(e);
        for (uint32_t i = 0; i < d->ncaps; i++) {
            em_key(e, d->caps[i].name ? d->caps[i].name : "");
            em_map(e);
            kv_qty(e, "value", &d->caps[i].value);
            if (d->caps[i].policy)
                w_policy(e, d->caps[i].policy);
            em_end(e);
        }
        em_end(e);
    }
    if (d->nconsumes) {
        em_key(e, "consumesCounters");
        em_seq(e);
        for (uint32_t i = 0; i < d->nconsumes; i++) {
            em_map(e);
            kv_str(e, "counterSet", d->consumes[i].counter_set);
            w_counters(e, d->consumes[i].counters, d->consumes[i].ncounters);
            kv_strs(e, "compatibilityGroups", d->consumes[i].groups, d->consumes[i].ngroups,
                    false);
            em_end(e);
        }
        em_end(e);
    }
    kv_str(e, "nodeName", d->node_name);
    w_node_selector(e, "nodeSelector", d->node_selector);
    kv_true(e, "allNodes", d->all_nodes);
    w_taints(e, d->taints, d->ntaints);
    kv_true(e, "bindsToNode", d->binds_to_node);
    kv_strs(e, "bindingConditions", d->binding_conditions, d->nbinding_conditions, false);
    kv_strs(e, "bindingFailureConditions", d->binding_failure_conditions,
            d->nbinding_failure_conditions, false);
    kv_true(e, "allowMultipleAllocations", d->allow_multiple_allocations);
    em_end(e);
}

static void w_slice(em_t *e, const dra_slice_t *s)
{
    doc_begin(e, "resource.k8s.io/v1", "ResourceSlice");
    meta(e, s->name, NULL);
    em_key(e, "spec");
    em_map(e);
    kv_str(e, "driver", s->driver);
    if (s->pool_name || s->generation || s->slice_count) {
        em_key(e, "pool");
        em_map(e);
        kv_str(e, "name", s->pool_name);
        kv_i64(e, "generation", s->generation);
        kv_i64(e, "resourceSliceCount", s->slice_count);
        em_end(e);
    }
    kv_str(e, "nodeName", s->node_name);
    w_node_selector(e, "nodeSelector", s->node_selector);
    kv_true(e, "allNodes", s->all_nodes);
    kv_true(e, "perDeviceNodeSelection", s->per_device_node_selection);
    kv_strs(e, "skipNodeOperations", s->skip_node_ops, s->nskip_node_ops, false);
    if (s->ncounter_sets) {
        em_key(e, "sharedCounters");
        em_seq(e);
        for (uint32_t i = 0; i < s->ncounter_sets; i++) {
            em_map(e);
            kv_str(e, "name", s->counter_sets[i].name);
            w_counters(e, s->counter_sets[i].counters, s->counter_sets[i].ncounters);
            em_end(e);
        }
        em_end(e);
    }
    if (s->ndevices) {
        em_key(e, "devices");
        em_seq(e);
        for (uint32_t i = 0; i < s->ndevices; i++)
            w_device(e, &s->devices[i]);
        em_end(e);
    }
    em_end(e);
    doc_end(e);
}

static void w_selectors(em_t *e, const dra_selector_t *s, uint32_t n)
{
    if (!n)
        return;
    em_key(e, "selectors");
    em_seq(e);
    for (uint32_t i = 0; i < n; i++) {
        em_map(e);
        em_key(e, "cel");
        em_map(e);
        kv_str(e, "expression", s[i].cel);
        em_end(e);
        em_end(e);
    }
    em_end(e);
}

static void w_class(em_t *e, const dra_device_class_t *c)
{
    doc_begin(e, "resource.k8s.io/v1", "DeviceClass");
    em_key(e, "metadata");
    em_map(e);
    kv_str(e, "name", c->name);
    kv_str(e, "creationTimestamp", c->created);
    em_end(e);
    em_key(e, "spec");
    em_map(e);
    w_selectors(e, c->selectors, c->nselectors);
    if (c->nconfigs) {
        em_key(e, "config");
        em_seq(e);
        for (uint32_t i = 0; i < c->nconfigs; i++) {
            em_map(e);
            w_opaque(e, &c->configs[i].opaque);
            em_end(e);
        }
        em_end(e);
    }
    kv_str(e, "extendedResourceName", c->extended_resource_name);
    em_end(e);
    doc_end(e);
}

static void w_exact(em_t *e, const dra_exact_request_t *r, bool sub)
{
    em_map(e);
    if (sub)
        kv_str(e, "name", r->name);
    kv_str(e, "deviceClassName", r->class_name);
    w_selectors(e, r->selectors, r->nselectors);
    const char *mode = r->mode_raw ? r->mode_raw : r->mode == DRA_MODE_ALL ? "All" : NULL;
    kv_str(e, "allocationMode", mode);
    if (r->has_count)
        kv_i64(e, "count", r->count);
    if (r->has_admin_access) {
        em_key(e, "adminAccess");
        em_bool(e, r->admin_access);
    }
    w_tolerations(e, r->tolerations, r->ntolerations);
    if (r->has_capacity) {
        em_key(e, "capacity");
        em_map(e);
        if (r->ncap_requests) {
            em_key(e, "requests");
            em_map(e);
            for (uint32_t i = 0; i < r->ncap_requests; i++)
                kv_qty(e, r->cap_requests[i].name ? r->cap_requests[i].name : "",
                       &r->cap_requests[i].value);
            em_end(e);
        }
        em_end(e);
    }
    if (r->nderived) {
        em_key(e, "derivedAttributes");
        em_seq(e);
        for (uint32_t i = 0; i < r->nderived; i++) {
            em_map(e);
            kv_str(e, "name", r->derived[i].name);
            kv_str(e, "expression", r->derived[i].expr);
            em_end(e);
        }
        em_end(e);
    }
    em_end(e);
}

static void w_claim_spec(em_t *e, const dra_claim_t *c)
{
    em_map(e);
    em_key(e, "devices");
    em_map(e);
    if (c->nrequests) {
        em_key(e, "requests");
        em_seq(e);
        for (uint32_t i = 0; i < c->nrequests; i++) {
            const dra_request_t *r = &c->requests[i];
            em_map(e);
            kv_str(e, "name", r->name);
            if (r->exactly) {
                em_key(e, "exactly");
                w_exact(e, r->exactly, false);
            }
            if (r->nfirst_available) {
                em_key(e, "firstAvailable");
                em_seq(e);
                for (uint32_t k = 0; k < r->nfirst_available; k++)
                    w_exact(e, &r->first_available[k], true);
                em_end(e);
            }
            em_end(e);
        }
        em_end(e);
    }
    if (c->nconstraints) {
        em_key(e, "constraints");
        em_seq(e);
        for (uint32_t i = 0; i < c->nconstraints; i++) {
            const dra_constraint_t *co = &c->constraints[i];
            em_map(e);
            kv_strs(e, "requests", co->requests, co->nrequests, false);
            kv_str(e, "matchAttribute", co->match_attribute);
            kv_str(e, "distinctAttribute", co->distinct_attribute);
            em_end(e);
        }
        em_end(e);
    }
    if (c->nconfigs) {
        em_key(e, "config");
        em_seq(e);
        for (uint32_t i = 0; i < c->nconfigs; i++) {
            em_map(e);
            kv_strs(e, "requests", c->configs[i].requests, c->configs[i].nrequests, false);
            w_opaque(e, &c->configs[i].opaque);
            em_end(e);
        }
        em_end(e);
    }
    em_end(e);
    em_end(e);
}

static void w_set_uses(em_t *e, const char *key, const dra_counter_set_use_t *u, uint32_t n)
{
    if (!n)
        return;
    em_key(e, key);
    em_seq(e);
    for (uint32_t i = 0; i < n; i++) {
        em_map(e);
        kv_str(e, "counterSet", u[i].counter_set);
        em_key(e, "counters");
        em_map(e);
        for (uint32_t k = 0; k < u[i].ncounters; k++)
            kv_qty(e, u[i].counters[k].name ? u[i].counters[k].name : "", &u[i].counters[k].value);
        em_end(e);
        em_end(e);
    }
    em_end(e);
}

/* consumedCounters (KEP-5941); an empty snapshot is written as {} (upstream's "known zero") */
static void w_snapshot(em_t *e, const dra_counter_snapshot_t *sn)
{
    em_key(e, "consumedCounters");
    em_map(e);
    w_set_uses(e, "perDevice", sn->per_device, sn->nper_device);
    w_set_uses(e, "perAllocation", sn->per_allocation, sn->nper_allocation);
    em_end(e);
}

static void w_allocation(em_t *e, const dra_allocation_t *a)
{
    em_key(e, "status");
    em_map(e);
    em_key(e, "allocation");
    em_map(e);
    em_key(e, "devices");
    em_map(e);
    em_key(e, "results");
    em_seq(e);
    for (uint32_t i = 0; i < a->nresults; i++) {
        const dra_result_t *r = &a->results[i];
        em_map(e);
        kv_str(e, "request", r->request);
        kv_str(e, "driver", r->driver);
        kv_str(e, "pool", r->pool);
        kv_str(e, "device", r->device);
        kv_true(e, "adminAccess", r->admin_access);
        w_tolerations(e, r->tolerations, r->ntolerations);
        kv_strs(e, "bindingConditions", r->binding_conditions, r->nbinding_conditions, false);
        kv_strs(e, "bindingFailureConditions", r->binding_failure_conditions,
                r->nbinding_failure_conditions, false);
        kv_str(e, "shareID", r->share_id);
        kv_strs(e, "skipNodeOperations", r->skip_node_ops, r->nskip_node_ops, false);
        if (r->nconsumed) {
            em_key(e, "consumedCapacity");
            em_map(e);
            for (uint32_t k = 0; k < r->nconsumed; k++)
                kv_qty(e, r->consumed[k].name ? r->consumed[k].name : "", &r->consumed[k].value);
            em_end(e);
        }
        if (a->counters && a->counters[i])
            w_snapshot(e, a->counters[i]);
        em_end(e);
    }
    em_end(e);
    if (a->nconfigs) {
        em_key(e, "config");
        em_seq(e);
        for (uint32_t i = 0; i < a->nconfigs; i++) {
            em_map(e);
            kv_str(e, "source",
                   a->configs[i].source == DRA_CONFIG_FROM_CLAIM ? "FromClaim" : "FromClass");
            kv_strs(e, "requests", a->configs[i].requests, a->configs[i].nrequests, false);
            w_opaque(e, &a->configs[i].opaque);
            em_end(e);
        }
        em_end(e);
    }
    em_end(e);
    w_node_selector(e, "nodeSelector", a->node_selector);
    kv_str(e, "allocationTimestamp", a->allocation_timestamp);
    em_end(e);
    em_end(e);
}

/* The metadata of a claim, with the marks of a scheduler-made extended-resource claim. */
static void w_claim_meta(em_t *e, const dra_claim_t *c)
{
    em_key(e, "metadata");
    em_map(e);
    kv_str(e, "name", c->name);
    kv_str(e, "generateName", c->generate_name);
    kv_str(e, "namespace", c->namespace_ ? c->namespace_ : "default");
    if (c->extended) {
        em_key(e, "annotations");
        em_map(e);
        kv_str(e, DRA_EXTRES_ANNOTATION, "true");
        em_end(e);
    }
    if (c->owner_pod) {
        em_key(e, "ownerReferences");
        em_seq(e);
        em_map(e);
        kv_str(e, "apiVersion", "v1");
        kv_str(e, "kind", "Pod");
        kv_str(e, "name", c->owner_pod);
        kv_str(e, "uid", c->owner_uid);
        em_key(e, "controller");
        em_bool(e, true);
        em_end(e);
        em_end(e);
    }
    em_end(e);
}

static void w_claim(em_t *e, const dra_claim_t *c)
{
    doc_begin(e, "resource.k8s.io/v1", c->is_template ? "ResourceClaimTemplate" : "ResourceClaim");
    if (c->is_template)
        meta(e, c->name, c->namespace_ ? c->namespace_ : "default");
    else
        w_claim_meta(e, c);
    em_key(e, "spec");
    if (c->is_template) {
        em_map(e);
        em_key(e, "spec");
        w_claim_spec(e, c);
        em_end(e);
    } else {
        w_claim_spec(e, c);
    }
    if (c->allocation && !c->is_template)
        w_allocation(e, c->allocation);
    doc_end(e);
}

/* A ResourceList (map of name to quantity); skip_defaulted leaves out the requests the reader
 * defaulted from limits. */
static void w_resources(em_t *e, const char *k, const dra_resource_qty_t *r, uint32_t n,
                        bool skip_defaulted)
{
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n; i++)
        shown += !(skip_defaulted && r[i].defaulted);
    if (!shown)
        return;
    em_key(e, k);
    em_map(e);
    for (uint32_t i = 0; i < n; i++)
        if (!(skip_defaulted && r[i].defaulted))
            kv_qty(e, r[i].name ? r[i].name : "", &r[i].value);
    em_end(e);
}

static void w_containers(em_t *e, const dra_pod_t *p, bool init)
{
    uint32_t from = init ? 0 : p->ninit, to = init ? p->ninit : p->ncontainers;
    if (from == to)
        return;
    em_key(e, init ? "initContainers" : "containers");
    em_seq(e);
    for (uint32_t i = from; i < to; i++) {
        const dra_container_t *c = &p->containers[i];
        em_map(e);
        kv_str(e, "name", c->name);
        if (c->kind == DRA_CONTAINER_SIDECAR)
            kv_str(e, "restartPolicy", "Always");
        uint32_t nreq = 0;
        for (uint32_t k = 0; k < c->nrequests; k++)
            nreq += !c->requests[k].defaulted;
        if (c->nlimits || nreq) {
            em_key(e, "resources");
            em_map(e);
            w_resources(e, "limits", c->limits, c->nlimits, false);
            w_resources(e, "requests", c->requests, c->nrequests, true);
            em_end(e);
        }
        em_end(e);
    }
    em_end(e);
}

static void w_pod_spec(em_t *e, const dra_pod_t *p)
{
    em_map(e);
    kv_str(e, "nodeName", p->node_name);
    if (p->nnode_labels) {
        em_key(e, "nodeSelector");
        em_map(e);
        for (uint32_t i = 0; i < p->nnode_labels; i++)
            kv_str(e, p->node_labels[i].key ? p->node_labels[i].key : "",
                   p->node_labels[i].value ? p->node_labels[i].value : "");
        em_end(e);
    }
    if (p->node_affinity) {
        em_key(e, "affinity");
        em_map(e);
        em_key(e, "nodeAffinity");
        em_map(e);
        w_node_selector(e, "requiredDuringSchedulingIgnoredDuringExecution", p->node_affinity);
        em_end(e);
        em_end(e);
    }
    if (p->ntolerations)
        w_tolerations(e, p->tolerations, p->ntolerations);
    w_resources(e, "overhead", p->overhead, p->noverhead, false);
    kv_str(e, "schedulerName", p->scheduler_name);
    if (p->has_priority)
        kv_i64(e, "priority", p->priority);
    if (p->has_group) {
        em_key(e, "schedulingGroup");
        em_map(e);
        kv_str(e, "podGroupName", p->group);
        em_end(e);
    }
    if (p->nclaims) {
        em_key(e, "resourceClaims");
        em_seq(e);
        for (uint32_t i = 0; i < p->nclaims; i++) {
            em_map(e);
            kv_str(e, "name", p->claims[i].name);
            kv_str(e, "resourceClaimName", p->claims[i].claim_name);
            kv_str(e, "resourceClaimTemplateName", p->claims[i].template_name);
            em_end(e);
        }
        em_end(e);
    }
    w_containers(e, p, true);
    w_containers(e, p, false);
    em_end(e);
}

/* status: the claims generated from templates and the extended-resource claim (Pods only). */
static void w_pod_status(em_t *e, const dra_pod_t *p)
{
    uint32_t ngen = 0;
    for (uint32_t i = 0; i < p->nclaims; i++)
        ngen += p->claims[i].generated_name != NULL;
    if (!ngen && !p->ext_claim && !p->next_mappings)
        return;
    em_key(e, "status");
    em_map(e);
    if (ngen) {
        em_key(e, "resourceClaimStatuses");
        em_seq(e);
        for (uint32_t i = 0; i < p->nclaims; i++)
            if (p->claims[i].generated_name) {
                em_map(e);
                kv_str(e, "name", p->claims[i].name);
                kv_str(e, "resourceClaimName", p->claims[i].generated_name);
                em_end(e);
            }
        em_end(e);
    }
    if (p->ext_claim || p->next_mappings) {
        em_key(e, "extendedResourceClaimStatus");
        em_map(e);
        kv_str(e, "resourceClaimName", p->ext_claim);
        if (p->next_mappings) {
            em_key(e, "requestMappings");
            em_seq(e);
            for (uint32_t i = 0; i < p->next_mappings; i++) {
                em_map(e);
                kv_str(e, "containerName", p->ext_mappings[i].container);
                kv_str(e, "resourceName", p->ext_mappings[i].resource);
                kv_str(e, "requestName", p->ext_mappings[i].request);
                em_end(e);
            }
            em_end(e);
        }
        em_end(e);
    }
    em_end(e);
}

/* PodGroup / Workload: the object's own version when it is one of the two drabench reads, else
 * v1alpha2 (the 1.36 API). */
static bool sched_beta(const char *api)
{
    return api && strcmp(api, "scheduling.k8s.io/v1beta1") == 0;
}

static void w_group_sched(em_t *e, const dra_group_sched_t *s)
{
    if (s->has_policy) {
        em_key(e, "schedulingPolicy");
        em_map(e);
        if (s->basic) {
            em_key(e, "basic");
            em_map(e);
            em_end(e);
        }
        if (s->gang) {
            em_key(e, "gang");
            em_map(e);
            if (s->has_min_count)
                kv_i64(e, "minCount", s->min_count);
            em_end(e);
        }
        em_end(e);
    }
    if (s->has_constraints) {
        em_key(e, "schedulingConstraints");
        em_map(e);
        if (s->ntopology) {
            em_key(e, "topology");
            em_seq(e);
            for (uint32_t i = 0; i < s->ntopology; i++) {
                em_map(e);
                kv_str(e, "key", s->topology[i]);
                em_end(e);
            }
            em_end(e);
        }
        em_end(e);
    }
    if (s->nclaims) {
        em_key(e, "resourceClaims");
        em_seq(e);
        for (uint32_t i = 0; i < s->nclaims; i++) {
            em_map(e);
            kv_str(e, "name", s->claims[i].name);
            kv_str(e, "resourceClaimName", s->claims[i].claim_name);
            kv_str(e, "resourceClaimTemplateName", s->claims[i].template_name);
            em_end(e);
        }
        em_end(e);
    }
}

static void w_podgroup(em_t *e, const dra_podgroup_t *g)
{
    bool beta = sched_beta(g->api_version);
    doc_begin(e, beta ? "scheduling.k8s.io/v1beta1" : "scheduling.k8s.io/v1alpha2", "PodGroup");
    meta(e, g->name, g->namespace_ ? g->namespace_ : "default");
    em_key(e, "spec");
    em_map(e);
    if (g->has_template_ref) {
        if (beta) {
            em_key(e, "workloadRef");
            em_map(e);
            kv_str(e, "workloadName", g->workload_name);
            kv_str(e, "templateName", g->template_name);
            em_end(e);
        } else {
            em_key(e, "podGroupTemplateRef");
            em_map(e);
            em_key(e, "workload");
            em_map(e);
            kv_str(e, "workloadName", g->workload_name);
            kv_str(e, "podGroupTemplateName", g->template_name);
            em_end(e);
            em_end(e);
        }
    }
    w_group_sched(e, &g->s);
    em_end(e);
    doc_end(e);
}

static void w_sched_workload(em_t *e, const dra_workload_obj_t *w)
{
    doc_begin(e, sched_beta(w->api_version) ? "scheduling.k8s.io/v1beta1" : "scheduling.k8s.io/v1alpha2",
              "Workload");
    meta(e, w->name, w->namespace_ ? w->namespace_ : "default");
    em_key(e, "spec");
    em_map(e);
    if (w->has_controller_ref) {
        em_key(e, "controllerRef");
        em_map(e);
        kv_str(e, "apiGroup", w->ctrl_api_group);
        kv_str(e, "kind", w->ctrl_kind);
        kv_str(e, "name", w->ctrl_name);
        em_end(e);
    }
    em_key(e, "podGroupTemplates");
    em_seq(e);
    for (uint32_t i = 0; i < w->ntemplates; i++) {
        em_map(e);
        kv_str(e, "name", w->templates[i].name);
        w_group_sched(e, &w->templates[i].s);
        em_end(e);
    }
    em_end(e);
    em_end(e);
    doc_end(e);
}

static void w_pod(em_t *e, const dra_pod_t *p)
{
    const char *api = p->kind == DRA_POD_POD ? "v1" : p->kind == DRA_POD_JOB ? "batch/v1" : "apps/v1";
    doc_begin(e, api, dra_pod_kind_name(p->kind));
    em_key(e, "metadata");
    em_map(e);
    kv_str(e, "name", p->name);
    kv_str(e, "namespace", p->namespace_ ? p->namespace_ : "default");
    kv_str(e, "uid", p->kind == DRA_POD_POD ? p->uid : NULL);
    em_end(e);
    em_key(e, "spec");
    if (p->kind == DRA_POD_POD) {
        w_pod_spec(e, p);
        w_pod_status(e, p);
    } else {
        em_map(e);
        if (p->kind != DRA_POD_DAEMONSET)
            kv_i64(e, p->kind == DRA_POD_JOB ? "parallelism" : "replicas", p->replicas);
        em_key(e, "template");
        em_map(e);
        em_key(e, "spec");
        w_pod_spec(e, p);
        em_end(e);
        em_end(e);
    }
    doc_end(e);
}

static void w_node(em_t *e, const dra_node_t *n)
{
    doc_begin(e, "v1", "Node");
    em_key(e, "metadata");
    em_map(e);
    kv_str(e, "name", n->name);
    if (n->nlabels) {
        em_key(e, "labels");
        em_map(e);
        for (uint32_t i = 0; i < n->nlabels; i++) {
            em_key(e, n->labels[i].key ? n->labels[i].key : "");
            em_value_start(e, true);
            json_quote(e->b, n->labels[i].value ? n->labels[i].value : "");
        }
        em_end(e);
    }
    em_end(e);
    if (n->ntaints || n->unschedulable) {
        em_key(e, "spec");
        em_map(e);
        w_taints(e, n->taints, n->ntaints);
        kv_true(e, "unschedulable", n->unschedulable);
        em_end(e);
    }
    if (n->alloc_cpu || n->alloc_memory || n->nallocatable || n->ndeclared_features) {
        em_key(e, "status");
        em_map(e);
        if (n->alloc_cpu || n->alloc_memory || n->nallocatable) {
            em_key(e, "allocatable");
            em_map(e);
            kv_str(e, "cpu", n->alloc_cpu);
            kv_str(e, "memory", n->alloc_memory);
            for (uint32_t i = 0; i < n->nallocatable; i++)
                kv_qty(e, n->allocatable[i].name ? n->allocatable[i].name : "",
                       &n->allocatable[i].value);
            em_end(e);
        }
        kv_strs(e, "declaredFeatures", n->declared_features, n->ndeclared_features, false);
        em_end(e);
    }
    doc_end(e);
}

/* Output is handed to the sink in pieces of about this size, at object boundaries. */
#define WRITE_CHUNK ((size_t)256 << 10)

static int flush_to(dra_sbuf_t *out, dra_manifest_sink_fn sink, void *ud)
{
    if (out->err || !out->len)
        return out->err;
    int rc = sink(ud, out->p, out->len);
    out->len = 0;
    if (rc)
        out->err = rc;
    return rc;
}

/* With a sink, out is a scratch buffer flushed to it every WRITE_CHUNK bytes; without one, the
 * whole output is appended to out. */
static int write_all(const dra_model_t *m, dra_sbuf_t *out, bool json, dra_manifest_sink_fn sink,
                     void *ud)
{
    em_t e;
    memset(&e, 0, sizeof e);
    e.b = out;
    e.json = json;
    uint64_t nitems = 0;
    if (json)
        bputs(out, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n");
#define ITEM(fn, obj)                                                                              \
    do {                                                                                           \
        if (json && nitems)                                                                        \
            bput(out, ",\n", 2);                                                                   \
        e.depth = 0;                                                                               \
        fn(&e, obj);                                                                               \
        nitems++;                                                                                  \
        if (sink && out->len >= WRITE_CHUNK && flush_to(out, sink, ud))                            \
            return out->err;                                                                       \
    } while (0)
    for (uint32_t i = 0; i < m->nnodes; i++)
        if (!m->nodes[i]->implied)
            ITEM(w_node, m->nodes[i]);
    for (uint32_t i = 0; i < m->nclasses; i++)
        ITEM(w_class, m->classes[i]);
    for (uint32_t i = 0; i < m->nslices; i++)
        ITEM(w_slice, m->slices[i]);
    for (uint32_t i = 0; i < m->ntemplates; i++)
        ITEM(w_claim, m->templates[i]);
    for (uint32_t i = 0; i < m->nclaims; i++)
        ITEM(w_claim, m->claims[i]);
    /* creation order of workload-aware objects: Workload, PodGroup, then the pods */
    for (uint32_t i = 0; i < m->nworkloads; i++)
        ITEM(w_sched_workload, m->workloads[i]);
    for (uint32_t i = 0; i < m->npodgroups; i++)
        ITEM(w_podgroup, m->podgroups[i]);
    for (uint32_t i = 0; i < m->npods; i++)
        ITEM(w_pod, m->pods[i]);
#undef ITEM
    if (json)
        bputs(out, "\n]}\n");
    if (out->p && out->len < out->cap)
        out->p[out->len] = 0; /* bput does not terminate */
    if (sink)
        flush_to(out, sink, ud);
    return out->err ? out->err : DRA_OK;
}

int dra_manifest_write_yaml_buf(const dra_model_t *m, dra_sbuf_t *out)
{
    return write_all(m, out, false, NULL, NULL);
}

int dra_manifest_write_json_buf(const dra_model_t *m, dra_sbuf_t *out)
{
    return write_all(m, out, true, NULL, NULL);
}

static int to_sink(const dra_model_t *m, bool json, dra_manifest_sink_fn sink, void *ud)
{
    dra_sbuf_t b = {0};
    b.p = malloc(WRITE_CHUNK * 2);
    if (!b.p)
        return DRA_ENOMEM;
    b.cap = WRITE_CHUNK * 2;
    int rc = write_all(m, &b, json, sink, ud);
    dra_sbuf_fini(&b);
    return rc;
}

int dra_manifest_write_yaml_sink(const dra_model_t *m, dra_manifest_sink_fn sink, void *ud)
{
    return to_sink(m, false, sink, ud);
}

int dra_manifest_write_json_sink(const dra_model_t *m, dra_manifest_sink_fn sink, void *ud)
{
    return to_sink(m, true, sink, ud);
}

static int file_sink(void *ud, const char *p, size_t n)
{
    return fwrite(p, 1, n, (FILE *)ud) == n ? DRA_OK : DRA_EIO;
}

static int to_file(const dra_model_t *m, FILE *f, bool json)
{
    int rc = to_sink(m, json, file_sink, f);
    if (rc == DRA_OK && fflush(f) != 0)
        rc = DRA_EIO;
    return rc;
}

int dra_manifest_write_yaml(const dra_model_t *m, FILE *f)
{
    return to_file(m, f, false);
}

int dra_manifest_write_json(const dra_model_t *m, FILE *f)
{
    return to_file(m, f, true);
}
