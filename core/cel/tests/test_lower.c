/*
 * test_lower.c - the lowered (column predicate) path agrees with the interpreter.
 *
 * Expressions: every row of ../shared/cel/dra-expressions.tsv and every `expression:` of the
 * YAML files under ../shared/real-manifests, plus hand-written shapes that exercise each leaf
 * kind. For every expression that compiles, over several generated tables of varied devices
 * (attributes present or missing, every value kind, mixed-kind columns, version ranks, bad
 * versions, capacities with fractional and inexact values), and for every kernel the CPU has,
 * the lowered match / error bitsets must equal dra_cel_eval_device on every device. Lowering
 * must also cover the common shapes (a minimum number of corpus expressions lower). Columns with
 * wide dictionaries (2- and 4-byte codes) are checked the same way. The timing of the lowered
 * path is `drabench cel --bench N EXPR [--kernel K]` (harness/cli/cmd_cel.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/bitset.h"
#include "cel/cel.h"
#include "cel/cel_ast.h"
#include "cel/lower.h"
#include "check.h"
#include "kern/kern.h"
#include "table/table.h"
#include "table/tests/table_testmodel.h"

/* ---- expression corpus ---------------------------------------------------------------------- */

typedef struct corpus {
    char **src;
    uint32_t n, cap;
} corpus_t;

static void corpus_add(corpus_t *c, const char *s, size_t len)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        c->src = realloc(c->src, c->cap * sizeof *c->src);
    }
    char *d = malloc(len + 1);
    memcpy(d, s, len);
    d[len] = 0;
    c->src[c->n++] = d;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while ((r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n < 2) {
            cap *= 2;
            b = realloc(b, cap);
        }
    }
    fclose(f);
    b[n] = 0;
    *len = n;
    return b;
}

/* TSV: first column, unescaped (\\ \t \n \r). */
static int load_tsv(corpus_t *c, const char *path)
{
    size_t len;
    char *b = read_all(path, &len);
    if (!b)
        return -1;
    char *line = b, *end = b + len;
    int first = 1;
    while (line < end) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl)
            nl = end;
        char *tab = memchr(line, '\t', (size_t)(nl - line));
        if (!first && tab) {
            char *out = malloc((size_t)(tab - line) + 1);
            size_t k = 0;
            for (char *p = line; p < tab; p++) {
                if (*p == '\\' && p + 1 < tab) {
                    p++;
                    out[k++] = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
                } else {
                    out[k++] = *p;
                }
            }
            corpus_add(c, out, k);
            free(out);
        }
        first = 0;
        line = nl + 1;
    }
    free(b);
    return 0;
}

/* YAML `expression:` values: plain, single- or double-quoted, or block (| |- > >-). */
static void yaml_exprs(corpus_t *c, const char *b)
{
    const char *p = b;
    while ((p = strstr(p, "expression:")) != NULL) {
        const char *ls = p;
        while (ls > b && ls[-1] != '\n')
            ls--;
        size_t indent = 0;
        while (ls[indent] == ' ' || ls[indent] == '-')
            indent++;
        const char *v = p + strlen("expression:");
        while (*v == ' ')
            v++;
        const char *eol = strchr(v, '\n');
        if (!eol)
            eol = v + strlen(v);
        char buf[12000];
        size_t k = 0;
        if (*v == '|' || *v == '>') {
            bool fold = *v == '>';
            const char *q = eol;
            while (*q == '\n') {
                const char *ln = q + 1, *le = strchr(ln, '\n');
                if (!le)
                    le = ln + strlen(ln);
                size_t ind = 0;
                while (ln + ind < le && ln[ind] == ' ')
                    ind++;
                if (ln + ind < le && ind <= indent)
                    break;
                if (ln + ind < le && k + (size_t)(le - ln) + 2 < sizeof buf) {
                    if (k)
                        buf[k++] = fold ? ' ' : '\n';
                    memcpy(buf + k, ln + ind, (size_t)(le - ln - (long)ind));
                    k += (size_t)(le - ln - (long)ind);
                }
                if (!*le)
                    break;
                q = le;
            }
        } else if (*v == '"' || *v == '\'') {
            char qc = *v;
            for (const char *q = v + 1; *q && k + 2 < sizeof buf; q++) {
                if (qc == '\'' && q[0] == '\'' && q[1] == '\'') {
                    buf[k++] = '\'';
                    q++;
                } else if (qc == '"' && q[0] == '\\' && q[1]) {
                    q++;
                    buf[k++] = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
                } else if (*q == qc) {
                    break;
                } else if (*q == '\n') {
                    buf[k++] = ' ';
                    while (q[1] == ' ')
                        q++;
                } else {
                    buf[k++] = *q;
                }
            }
        } else {
            for (const char *q = v; q < eol && k + 1 < sizeof buf; q++)
                buf[k++] = *q;
            while (k && (buf[k - 1] == ' ' || buf[k - 1] == '\r'))
                k--;
        }
        if (k)
            corpus_add(c, buf, k);
        p = eol;
    }
}

static void load_yaml_dir(corpus_t *c, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            load_yaml_dir(c, path);
        } else {
            size_t n = strlen(e->d_name);
            if ((n > 5 && !strcmp(e->d_name + n - 5, ".yaml")) ||
                (n > 4 && !strcmp(e->d_name + n - 4, ".yml"))) {
                size_t len;
                char *b = read_all(path, &len);
                if (b) {
                    yaml_exprs(c, b);
                    free(b);
                }
            }
        }
    }
    closedir(d);
}

static const char *shared_dir(void)
{
    const char *s = getenv("DRA_SHARED");
    return s && *s ? s : "../shared";
}

/* Shapes the corpus may miss: one per leaf kind and combinator. */
static const char *extra_exprs[] = {
    "device.attributes[\"t.example.com\"].s == \"v1\"",
    "\"v2\" != device.attributes[\"t.example.com\"].s",
    "device.attributes[\"t.example.com\"].s in [\"v1\", \"v3\", \"nope\"]",
    "device.attributes[\"t.example.com\"].i == 3",
    "device.attributes[\"t.example.com\"].i != 0",
    "device.attributes[\"t.example.com\"].i >= 2 && 5 > device.attributes[\"t.example.com\"].i",
    "device.attributes[\"t.example.com\"].i in [1, 4, 7]",
    "device.attributes[\"t.example.com\"].b",
    "!device.attributes[\"t.example.com\"].b",
    "device.attributes[\"t.example.com\"].b == false",
    "device.attributes[\"t.example.com\"].m == 5",
    "device.attributes[\"t.example.com\"].m == \"v1\"",
    "device.attributes[\"t.example.com\"].m == true",
    "device.attributes[\"t.example.com\"].m",
    "device.attributes[\"t.example.com\"].m in [\"v1\", \"v2\"]",
    "has(device.attributes[\"t.example.com\"].s) && device.attributes[\"t.example.com\"].s == \"v2\"",
    "!has(device.capacity[\"t.example.com\"].mem) || device.capacity[\"t.example.com\"].mem.isGreaterThan(quantity(\"1Gi\"))",
    "device.capacity[\"t.example.com\"].mem.compareTo(quantity(\"40Gi\")) >= 0",
    "device.capacity[\"t.example.com\"].mem.compareTo(quantity(\"40Gi\")) == 0",
    "device.capacity[\"t.example.com\"].mem.compareTo(quantity(\"40Gi\")) != 1",
    "0 > device.capacity[\"t.example.com\"].mem.compareTo(quantity(\"40Gi\"))",
    "device.capacity[\"t.example.com\"].mem.compareTo(quantity(\"40Gi\")) < 5",
    "quantity(\"16Gi\").isLessThan(device.capacity[\"t.example.com\"].mem)",
    "device.capacity[\"t.example.com\"].mem == quantity(\"40Gi\")",
    "device.capacity[\"t.example.com\"].mem != quantity(\"80Gi\")",
    "device.capacity[\"t.example.com\"].frac.compareTo(quantity(\"1500m\")) > 0",
    "device.capacity[\"t.example.com\"].frac.isLessThan(quantity(\"2\"))",
    "device.attributes[\"t.example.com\"].v.compareTo(semver(\"1.2.0\")) >= 0",
    "device.attributes[\"t.example.com\"].v.compareTo(semver(\"1.10.0\")) == 0",
    "device.attributes[\"t.example.com\"].v.isGreaterThan(semver(\"1.9.0\"))",
    "device.attributes[\"t.example.com\"].v.isLessThan(semver(\"2.0.0-rc.1\"))",
    "device.attributes[\"t.example.com\"].v.compareTo(semver(\"1.0.0+other\")) != 0",
    "device.driver == \"t.example.com\" || device.attributes[\"t.example.com\"].s == \"v1\"",
    "device.driver != \"gpu.nvidia.com\" && device.attributes[\"t.example.com\"].i == 1",
    "device.allowMultipleAllocations && device.driver == \"t.example.com\"",
    "device.attributes[\"no.such.domain\"].x == 1 || true",
    "false && device.attributes[\"no.such.domain\"].x == 1",
    "device.attributes[\"t.example.com\"].nosuch == 1",
    "!(device.attributes[\"t.example.com\"].s == \"v1\" && device.attributes[\"t.example.com\"].i > 2)",
    "true",
    "false",
    NULL,
};

/* ---- generated tables ----------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct pools {
    const char **strs;
    uint32_t nstrs;
    const char **vers;
    uint32_t nvers;
    dra_quantity_t *qs;
    uint32_t nqs;
    int64_t *ints;
    uint32_t nints;
    const dra_cel_ref_t **refs; /* per expression */
    uint32_t *nrefs;
    uint32_t nexpr;
} pools_t;

static void pool_str(pools_t *p, const char *s, size_t len, dra_arena_t *a)
{
    if (p->nstrs >= 4096)
        return;
    char *d = dra_arena_strndup(a, s, len);
    p->strs[p->nstrs++] = d;
    dra_semver_t v;
    if (p->nvers < 1024 && dra_semver_parse(d, len, false, &v, NULL) == DRA_OK)
        p->vers[p->nvers++] = d;
}

static void collect_consts(pools_t *p, const dra_cel_expr_t *e, dra_arena_t *a, int depth)
{
    if (!e || depth > 200)
        return;
    switch (e->kind) {
    case DRA_CEL_E_CONST:
        if (e->u.c.kind == DRA_CEL_STRING)
            pool_str(p, e->u.c.v.s, e->u.c.len, a);
        else if (e->u.c.kind == DRA_CEL_INT && p->nints < 1024)
            p->ints[p->nints++] = e->u.c.v.i;
        else if (e->u.c.kind == DRA_CEL_QUANTITY && p->nqs < 1024)
            p->qs[p->nqs++] = *e->u.c.v.q;
        else if (e->u.c.kind == DRA_CEL_LIST && e->u.c.v.list)
            for (uint32_t i = 0; i < e->u.c.v.list->n; i++) {
                const dra_cel_val_t *v = &e->u.c.v.list->items[i];
                if (v->kind == DRA_CEL_STRING)
                    pool_str(p, v->v.s, v->len, a);
                else if (v->kind == DRA_CEL_INT && p->nints < 1024)
                    p->ints[p->nints++] = v->v.i;
            }
        break;
    case DRA_CEL_E_SELECT:
        collect_consts(p, e->u.sel.operand, a, depth + 1);
        break;
    case DRA_CEL_E_CALL:
        collect_consts(p, e->u.call.target, a, depth + 1);
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            collect_consts(p, e->u.call.args[i], a, depth + 1);
        break;
    case DRA_CEL_E_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            collect_consts(p, e->u.list.elems[i], a, depth + 1);
        break;
    case DRA_CEL_E_COMPR:
        collect_consts(p, e->u.compr.range, a, depth + 1);
        collect_consts(p, e->u.compr.step, a, depth + 1);
        collect_consts(p, e->u.compr.result, a, depth + 1);
        break;
    default:
        break;
    }
}

/* Table flavours: how attribute kinds vary inside one column. */
enum { FLAVOUR_PURE = 0, FLAVOUR_SCALAR_MIX, FLAVOUR_ANY_MIX, FLAVOURS };

static const char *drivers[] = {"gpu.nvidia.com", "t.example.com", "gpu.example.com",
                                "dra.example.com", "gpu.amd.com", "dra.net"};

static uint8_t kind_for(uint32_t qhash, int flavour)
{
    static const uint8_t scalar[] = {DRA_ATTR_STRING, DRA_ATTR_INT, DRA_ATTR_BOOL};
    static const uint8_t any[] = {DRA_ATTR_STRING, DRA_ATTR_INT, DRA_ATTR_BOOL, DRA_ATTR_VERSION,
                                  DRA_ATTR_STRINGS, DRA_ATTR_INTS};
    uint8_t primary = (uint8_t)((qhash >> 3) % 4 == 3 ? DRA_ATTR_VERSION : scalar[qhash % 3]);
    if (flavour == FLAVOUR_PURE || rnd() % 8)
        return primary;
    if (flavour == FLAVOUR_SCALAR_MIX)
        return primary == DRA_ATTR_VERSION ? primary : scalar[rnd() % 3];
    return any[rnd() % DRA_ARRAY_LEN(any)];
}

static void set_value(dra_model_t *m, dra_attr_t *at, uint8_t kind, const pools_t *p,
                      const char *name)
{
    at->kind = kind;
    at->count = 1;
    switch (kind) {
    case DRA_ATTR_STRING:
        at->v.s = p->nstrs && rnd() % 4 ? p->strs[rnd() % p->nstrs] : (rnd() % 2 ? "v1" : "v2");
        if (!strcmp(name, "t.example.com/s") || !strcmp(name, "t.example.com/m"))
            at->v.s = rnd() % 2 ? "v1" : "v2";
        break;
    case DRA_ATTR_INT:
        at->v.i = p->nints && rnd() % 2 ? p->ints[rnd() % p->nints] : (int64_t)(rnd() % 9) - 1;
        break;
    case DRA_ATTR_BOOL:
        at->v.b = rnd() % 2;
        break;
    case DRA_ATTR_VERSION: {
        static const char *vs[] = {"1.0.0", "1.0.0+b1", "1.2.0", "1.9.0", "1.10.0",
                                   "2.0.0-rc.1", "2.0.0", "550.54.15", "12.4.0"};
        at->v.s = p->nvers && rnd() % 3 == 0 ? p->vers[rnd() % p->nvers] : vs[rnd() % 9];
        break;
    }
    case DRA_ATTR_STRINGS: {
        const char **l = dra_model_array(m, 2, sizeof *l);
        l[0] = "v1";
        l[1] = p->nstrs ? p->strs[rnd() % p->nstrs] : "v2";
        at->v.strs = l;
        at->count = 2;
        break;
    }
    case DRA_ATTR_VERSIONS: {
        const char **l = dra_model_array(m, 2, sizeof *l);
        l[0] = "1.2.0";
        l[1] = rnd() % 2 ? "2.0.0" : "1.10.0";
        at->v.strs = l;
        at->count = 2;
        break;
    }
    case DRA_ATTR_BOOLS: {
        bool *l = dra_model_array(m, 2, sizeof *l);
        l[0] = rnd() % 2;
        l[1] = true;
        at->v.bools = l;
        at->count = 2;
        break;
    }
    case DRA_ATTR_INTS: {
        int64_t *l = dra_model_array(m, 3, sizeof *l);
        for (int i = 0; i < 3; i++)
            l[i] = (int64_t)(rnd() % 5);
        at->v.ints = l;
        at->count = 3;
        break;
    }
    default:
        break;
    }
}

/* Devices focused on one expression each: its references present with high probability, values
 * drawn from all constants of the corpus (so equalities do hit). */
static void gen_model(dra_model_t *m, const pools_t *p, uint32_t ndev, int flavour, bool badver)
{
    static const char *caps[] = {"40Gi", "80Gi", "16Gi", "1500m", "2", "500m", "1n",
                                 "9Ei",  "0",    "1.5Gi", "100G"};
    dra_model_init(m);
    uint32_t per_slice = 16;
    for (uint32_t base = 0; base < ndev; base += per_slice) {
        char nm[32];
        snprintf(nm, sizeof nm, "node-%u", base / per_slice);
        dra_slice_t *s = dra_model_add_slice(m);
        s->name = dra_model_str(m, nm);
        s->driver = drivers[rnd() % DRA_ARRAY_LEN(drivers)];
        s->pool_name = s->name;
        if (rnd() % 4)
            s->node_name = s->name;
        else
            s->all_nodes = true;
        s->ndevices = per_slice;
        s->devices = dra_model_array(m, per_slice, sizeof(dra_device_t));
        for (uint32_t i = 0; i < per_slice; i++) {
            dra_device_t *d = &s->devices[i];
            char dn[32];
            snprintf(dn, sizeof dn, "dev-%u", i);
            d->name = dra_model_str(m, dn);
            d->allow_multiple_allocations = rnd() % 3 == 0;
            uint32_t ex = p->nexpr ? (uint32_t)(rnd() % p->nexpr) : 0;
            uint32_t nr = p->nexpr ? p->nrefs[ex] : 0;
            /* the test.example.com attributes are on every device, for the extra shapes */
            static const char *tn[] = {"t.example.com/s", "t.example.com/i", "t.example.com/b",
                                       "t.example.com/m", "t.example.com/v"};
            d->attrs = dra_model_array(m, nr + 6, sizeof(dra_attr_t));
            d->caps = dra_model_array(m, nr + 2, sizeof(dra_capacity_t));
            for (uint32_t j = 0; j < 5; j++) {
                if (rnd() % 6 == 0)
                    continue;
                dra_attr_t *at = &d->attrs[d->nattrs++];
                at->name = tn[j];
                at->qname = dra_model_qname(m, NULL, tn[j]);
                uint8_t k = j == 0 ? DRA_ATTR_STRING : j == 1 ? DRA_ATTR_INT
                          : j == 2 ? DRA_ATTR_BOOL : j == 4 ? DRA_ATTR_VERSION
                          : (uint8_t)(rnd() % 3 + DRA_ATTR_INT);
                if (flavour == FLAVOUR_ANY_MIX && rnd() % 8 == 0)
                    k = (uint8_t)(rnd() % 8 + 1);
                set_value(m, at, k, p, tn[j]);
            }
            static const char *cn[] = {"t.example.com/mem", "t.example.com/frac"};
            for (uint32_t j = 0; j < 2; j++) {
                if (rnd() % 6 == 0)
                    continue;
                dra_capacity_t *c = &d->caps[d->ncaps++];
                c->name = cn[j];
                c->qname = dra_model_qname(m, NULL, cn[j]);
                const char *q = j == 0 ? caps[rnd() % 3] : caps[3 + rnd() % 8];
                CHECK(dra_quantity_parse(q, strlen(q), &c->value, NULL) == DRA_OK);
            }
            for (uint32_t j = 0; j < nr; j++) {
                const dra_cel_ref_t *r = &p->refs[ex][j];
                if (rnd() % 7 == 0 || !strncmp(r->qname, "t.example.com/", 14))
                    continue;
                uint32_t q = dra_model_qname(m, NULL, r->qname);
                if (r->is_capacity) {
                    if (dra_device_capacity(d, q))
                        continue;
                    dra_capacity_t *c = &d->caps[d->ncaps++];
                    c->name = r->qname;
                    c->qname = q;
                    if (p->nqs && rnd() % 2)
                        c->value = p->qs[rnd() % p->nqs];
                    else {
                        const char *qs = caps[rnd() % DRA_ARRAY_LEN(caps)];
                        CHECK(dra_quantity_parse(qs, strlen(qs), &c->value, NULL) == DRA_OK);
                    }
                } else {
                    if (dra_device_attr(d, q))
                        continue;
                    dra_attr_t *at = &d->attrs[d->nattrs++];
                    at->name = r->qname;
                    at->qname = q;
                    set_value(m, at, kind_for(q * 2654435761u, flavour), p, r->qname);
                }
            }
            if (badver && rnd() % 50 == 0) {
                dra_attr_t *at = &d->attrs[d->nattrs++];
                at->name = "t.example.com/badver";
                at->qname = dra_model_qname(m, NULL, at->name);
                at->kind = DRA_ATTR_VERSION;
                at->count = 1;
                at->v.s = "v1.0";
            }
        }
        dra_model_slice_done(m, s);
    }
}

/* ---- the differential test ------------------------------------------------------------------ */

static corpus_t corpus;
static dra_arena_t prog_arena;
static dra_cel_prog_t **progs;
static uint32_t nlowered_any, ncompiled;

static void load_corpus(void)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/cel/dra-expressions.tsv", shared_dir());
    if (load_tsv(&corpus, path) != 0)
        fprintf(stderr, "note: %s not readable\n", path);
    uint32_t ntsv = corpus.n;
    snprintf(path, sizeof path, "%s/real-manifests", shared_dir());
    load_yaml_dir(&corpus, path);
    uint32_t nyaml = corpus.n - ntsv;
    for (const char **e = extra_exprs; *e; e++)
        corpus_add(&corpus, *e, strlen(*e));
    printf("corpus: %u TSV rows, %u manifest expressions, %zu extra shapes\n", ntsv, nyaml,
           DRA_ARRAY_LEN(extra_exprs) - 1);
    dra_arena_init(&prog_arena, 0);
    progs = calloc(corpus.n, sizeof *progs);
    for (uint32_t i = 0; i < corpus.n; i++) {
        dra_diag_t d = {0};
        if (dra_cel_compile(corpus.src[i], strlen(corpus.src[i]), &prog_arena, &progs[i], &d) !=
            DRA_OK)
            progs[i] = NULL;
        else
            ncompiled++;
    }
}

static void test_differential(void)
{
    if (corpus.n < 100)
        CHECK_SKIP("expression corpus not found (../shared)");
    /* constant pools and references */
    dra_arena_t pa;
    dra_arena_init(&pa, 0);
    pools_t p = {0};
    p.strs = dra_arena_calloc(&pa, 4096, sizeof(char *), 8);
    p.vers = dra_arena_calloc(&pa, 1024, sizeof(char *), 8);
    p.qs = dra_arena_calloc(&pa, 1024, sizeof(dra_quantity_t), 8);
    p.ints = dra_arena_calloc(&pa, 1024, sizeof(int64_t), 8);
    p.refs = dra_arena_calloc(&pa, corpus.n, sizeof(*p.refs), 8);
    p.nrefs = dra_arena_calloc(&pa, corpus.n, sizeof(uint32_t), 8);
    for (uint32_t i = 0; i < corpus.n; i++) {
        if (!progs[i])
            continue;
        collect_consts(&p, dra_cel_prog_ast(progs[i]), &pa, 0);
        bool dyn;
        dra_cel_prog_refs(progs[i], &p.refs[p.nexpr], &p.nrefs[p.nexpr], &dyn);
        p.nexpr++;
    }
    uint32_t *lowered_in = calloc(corpus.n, sizeof(uint32_t));
    uint64_t rows_checked = 0, evals = 0;
    for (int flavour = 0; flavour < FLAVOURS; flavour++) {
        rng_state = 0x243f6a8885a308d3ull + (uint64_t)flavour * 7919;
        dra_model_t m;
        gen_model(&m, &p, 512, flavour, flavour == FLAVOUR_SCALAR_MIX);
        dra_arena_t ta, scratch;
        dra_arena_init(&ta, 0);
        dra_arena_init(&scratch, 0);
        dra_table_t *t = NULL;
        dra_diag_t diag = {0};
        CHECK_OK(dra_table_build(&m, &ta, &t, &diag));
        if (!t)
            break;
        CHECK_MSG(dra_table_check(t, &diag) == DRA_OK, "%s", diag.msg);
        size_t nw = dra_bitset_words(t->nrows_padded);
        uint64_t *M = calloc(nw + 1, 8), *E = calloc(nw + 1, 8);
        uint8_t *want = calloc(t->nrows + 1, 1); /* 0 false, 1 true, 2 error */
        for (uint32_t i = 0; i < corpus.n; i++) {
            if (!progs[i])
                continue;
            dra_lowered_t *l = NULL;
            dra_arena_mark_t mk = dra_arena_mark(&ta);
            int rc = dra_lower_compile(progs[i], t, &ta, &l);
            if (rc == DRA_EUNSUPPORTED)
                continue;
            CHECK_OK(rc);
            if (rc != DRA_OK)
                continue;
            lowered_in[i]++;
            for (uint32_t r = 0; r < t->nrows; r++) {
                bool match = false;
                int erc = dra_cel_eval_device(progs[i], &m, t->dev[r], &scratch, &match, NULL);
                want[r] = erc != DRA_OK ? 2 : match ? 1 : 0;
                evals++;
            }
            for (const char *const *kn = dra_kern_names(); *kn; kn++) {
                const dra_kern_t *k = dra_kern_lookup(*kn);
                if (!k)
                    continue;
                memset(M, 0xa5, (nw + 1) * 8);
                memset(E, 0x5a, (nw + 1) * 8);
                CHECK_OK(dra_lower_eval_with(l, t, k, M, E));
                uint32_t bad = 0;
                for (uint32_t r = 0; r < t->nrows; r++) {
                    uint8_t got = dra_bit_get(E, r) ? 2 : dra_bit_get(M, r) ? 1 : 0;
                    if (dra_bit_get(E, r) && dra_bit_get(M, r))
                        got = 3;
                    if (got != want[r]) {
                        if (bad++ < 3)
                            CHECK_MSG(got == want[r],
                                      "kernel %s flavour %d expr [%s] row %u (%s/%s): lowered %u, "
                                      "evaluator %u",
                                      k->name, flavour, corpus.src[i], r,
                                      t->dev[r]->slice->name, t->dev[r]->name, got, want[r]);
                    }
                    rows_checked++;
                }
                CHECK(dra_bitset_words(t->nrows) == nw ||
                      (M[nw - 1] == 0 && E[nw - 1] == 0)); /* padding words cleared */
                if (t->nrows & 63)
                    CHECK((M[t->nrows / 64] >> (t->nrows & 63)) == 0);
            }
            dra_arena_reset_to(&ta, mk);
        }
        free(M);
        free(E);
        free(want);
        dra_arena_fini(&scratch);
        dra_arena_fini(&ta);
        dra_model_fini(&m);
    }
    uint32_t n_any = 0, n_extra = 0;
    for (uint32_t i = 0; i < corpus.n; i++) {
        n_any += lowered_in[i] > 0;
        if (i >= corpus.n - (DRA_ARRAY_LEN(extra_exprs) - 1)) {
            n_extra += lowered_in[i] > 0;
            if (!lowered_in[i])
                printf("extra shape not lowered%s: %s\n", progs[i] ? "" : " (compile error)",
                       corpus.src[i]);
        }
    }
    nlowered_any = n_any;
    printf("compiled %u of %u expressions; %u lowered in at least one table (%u of %zu extra "
           "shapes); %llu evaluator runs, %llu lowered rows compared\n",
           ncompiled, corpus.n, n_any, n_extra, DRA_ARRAY_LEN(extra_exprs) - 1,
           (unsigned long long)evals, (unsigned long long)rows_checked);
    /* every extra shape is lowerable in the pure table (the mixed ones by design) */
    CHECK(n_extra >= DRA_ARRAY_LEN(extra_exprs) - 1 - 2);
    CHECK(n_any >= 100);
    free(lowered_in);
    dra_arena_fini(&pa);
}

/* Shapes that must NOT lower (the fallback must be taken, never a wrong answer). */
static void test_unsupported(void)
{
    static const char *srcs[] = {
        "device.attributes[\"t.example.com\"].s.startsWith(\"v\")",
        "device.attributes[\"t.example.com\"].s.matches(\"^v[0-9]$\")",
        "device.attributes.exists(d, d == \"t.example.com\")",
        "device.attributes[\"t.example.com\"].i + 1 == 3",
        "device.attributes[\"t.example.com\"].s < \"v2\"",
        /* cel-go's qualifiers: presence tests on an attribute value, map field selection */
        "has(device.attributes[\"t.example.com\"].i.x)",
        "device.attributes[\"t.example.com\"].i.?x.orValue(1) == 1",
        "{1: 2}.a == 2 || device.driver == \"x\"",
        "has({1: 2}.a) || device.driver == \"x\"",
        NULL,
    };
    dra_model_t m;
    dra_model_init(&m);
    pools_t p = {0};
    rng_state = 42;
    gen_model(&m, &p, 64, FLAVOUR_PURE, false);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    CHECK_OK(dra_table_build(&m, &a, &t, NULL));
    for (const char **s = srcs; t && *s; s++) {
        dra_cel_prog_t *pr = NULL;
        CHECK_OK(dra_cel_compile(*s, strlen(*s), &a, &pr, NULL));
        if (!pr)
            continue;
        dra_lowered_t *l = NULL;
        CHECK_EQ_I64(dra_lower_compile(pr, t, &a, &l), DRA_EUNSUPPORTED);
        CHECK(l == NULL);
    }
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

/* Wide dictionaries: columns of more than 255 (2-byte codes) and more than 65535 (4-byte codes)
 * distinct values, every leaf kind over them, lowered against the evaluator with every kernel. */
static void test_wide_dictionaries(void)
{
    static const char *exprs[] = {
        "device.attributes[\"w.example.com\"].v >= 300",
        "device.attributes[\"w.example.com\"].v == 17 || "
        "device.attributes[\"w.example.com\"].v in [5, 699, 70000]",
        "device.attributes[\"w.example.com\"].s == \"s-123\"",
        "device.attributes[\"w.example.com\"].s in [\"s-1\", \"s-399\", \"nope\"]",
        "device.attributes[\"w.example.com\"].ver.compareTo(semver(\"1.150.0\")) < 0",
        "device.attributes[\"w.example.com\"].ver.isGreaterThan(semver(\"1.77.5\"))",
        "device.capacity[\"w.example.com\"].memory.compareTo(quantity(\"300Mi\")) >= 0",
        "device.capacity[\"w.example.com\"].memory == quantity(\"7Mi\")",
        "device.attributes[\"w.example.com\"].b",
        NULL};
    static const uint32_t sizes[] = {1000, 82000}; /* 82000: 65600 distinct v */
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        uint32_t n = sizes[z];
        dra_model_t m;
        dra_model_init(&m);
        for (uint32_t base = 0; base < n; base += 1000) {
            char sn[32];
            snprintf(sn, sizeof sn, "s%u", base / 1000);
            uint32_t nd = n - base < 1000 ? n - base : 1000;
            dra_slice_t *s = tm_slice(&m, sn, "w.example.com", sn, "node", nd);
            for (uint32_t i = 0; i < nd; i++) {
                uint32_t g = base + i;
                char nm[32], sv[32], ver[32], mem[32];
                snprintf(nm, sizeof nm, "d%u", g);
                snprintf(sv, sizeof sv, "s-%u", g % 400);
                snprintf(ver, sizeof ver, "1.%u.%u", g % 300, g % 7);
                snprintf(mem, sizeof mem, "%uMi", g % (n > 65536 ? 70000 : 600));
                tm_devname(&m, s, i, nm);
                if (g % 5 != 4) /* some rows lack the attributes: errors */
                    tm_int(&m, s, i, "v", n > 65536 ? (int64_t)g : (int64_t)(g % 700));
                tm_str(&m, s, i, "s", sv);
                tm_ver(&m, s, i, "ver", ver);
                if (g % 3)
                    tm_bool(&m, s, i, "b", g % 2);
                else
                    tm_int(&m, s, i, "b", 1); /* a non-bool: an error row for the bare use */
                CHECK_OK(tm_cap(&m, s, i, "memory", mem));
            }
            dra_model_slice_done(&m, s);
        }
        dra_arena_t a, scratch;
        dra_arena_init(&a, 0);
        dra_arena_init(&scratch, 0);
        dra_table_t *t = NULL;
        CHECK_OK(dra_table_build(&m, &a, &t, NULL));
        if (!t)
            goto next;
        const dra_table_attr_t *vc = dra_table_attr_by_name(t, "w.example.com/v", 15);
        CHECK(vc && vc->width == (n > 65536 ? 4 : 2));
        const dra_table_cap_t *mc = dra_table_cap_by_name(t, "w.example.com/memory", 20);
        CHECK(mc && mc->width == (n > 65536 ? 4 : 2));
        size_t nw = dra_bitset_words(t->nrows_padded);
        uint64_t *M = calloc(nw + 1, 8), *E = calloc(nw + 1, 8);
        for (const char **e = exprs; *e; e++) {
            dra_cel_prog_t *pr = NULL;
            dra_diag_t d = {0};
            CHECK_MSG(dra_cel_compile(*e, strlen(*e), &a, &pr, &d) == DRA_OK, "%s: %s", *e, d.msg);
            dra_lowered_t *l = NULL;
            CHECK_MSG(pr && dra_lower_compile(pr, t, &a, &l) == DRA_OK, "%s does not lower", *e);
            if (!l)
                continue;
            for (const char *const *kn = dra_kern_names(); *kn; kn++) {
                const dra_kern_t *k = dra_kern_lookup(*kn);
                if (!k)
                    continue;
                CHECK_OK(dra_lower_eval_with(l, t, k, M, E));
                uint32_t bad = 0;
                for (uint32_t r = 0; r < t->nrows && bad < 3; r++) {
                    bool match = false;
                    int erc = dra_cel_eval_device(pr, &m, t->dev[r], &scratch, &match, NULL);
                    dra_arena_reset(&scratch);
                    bool ok = erc != DRA_OK ? dra_bit_get(E, r) && !dra_bit_get(M, r)
                                            : !dra_bit_get(E, r) && dra_bit_get(M, r) == match;
                    CHECK_MSG(ok, "%u devices, kernel %s, [%s] row %u differs", n, k->name, *e, r);
                    bad += !ok;
                }
            }
        }
        free(M);
        free(E);
    next:
        dra_arena_fini(&scratch);
        dra_arena_fini(&a);
        dra_model_fini(&m);
    }
}

int main(void)
{
    load_corpus();
    RUN(test_differential);
    RUN(test_unsupported);
    RUN(test_wide_dictionaries);
    for (uint32_t i = 0; i < corpus.n; i++)
        free(corpus.src[i]);
    free(corpus.src);
    free(progs);
    dra_arena_fini(&prog_arena);
    return check_summary();
}
