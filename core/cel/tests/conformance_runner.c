/*
 * conformance_runner.c - runs google/cel-spec's conformance tests (../shared/cel/conformance/json)
 * through the engine in standard-CEL mode and prints pass/fail/skip per file.
 *
 * Usage: cel_conformance [-v] [-t NAME] [DIR]   (DIR defaults to $DRA_SHARED/cel/conformance,
 * else ../shared/cel/conformance). Exit 1 when fewer than 95% of the non-skipped tests pass.
 * Skipped (see core/cel/README.md): tests tagged proto, tsdur, checkonly or container in
 * index.tsv, tests declaring functions in type_env, `unknown` matchers, and the network_ext file.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

static int verbose;
static const char *only;

/* ---- index.tsv tags ---------------------------------------------------------------------- */

typedef struct tagrow {
    char *key; /* file\tsection\ttest */
    char *tags;
} tagrow_t;

static tagrow_t *tagrows;
static size_t ntagrows;

static void load_index(const char *dir)
{
    char path[1024];
    int pn = snprintf(path, sizeof path, "%s/index.tsv", dir);
    if (pn < 0 || (size_t)pn >= sizeof path)
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    size_t rcap = 0;
    while (getline(&line, &cap, f) > 0) {
        char *cols[6] = {0};
        char *p = line;
        for (int i = 0; i < 6 && p; i++) {
            cols[i] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = 0;
        }
        if (!cols[4])
            continue;
        if (ntagrows == rcap) {
            rcap = rcap ? rcap * 2 : 1024;
            tagrows = realloc(tagrows, rcap * sizeof *tagrows);
        }
        size_t kl = strlen(cols[0]) + strlen(cols[1]) + strlen(cols[2]) + 3;
        tagrows[ntagrows].key = malloc(kl);
        snprintf(tagrows[ntagrows].key, kl, "%s\t%s\t%s", cols[0], cols[1], cols[2]);
        tagrows[ntagrows].tags = strdup(cols[4]);
        ntagrows++;
    }
    free(line);
    fclose(f);
}

static const char *tags_of(const char *file, const char *section, const char *test)
{
    char key[1024];
    snprintf(key, sizeof key, "%s\t%s\t%s", file, section, test);
    for (size_t i = 0; i < ntagrows; i++)
        if (!strcmp(tagrows[i].key, key))
            return tagrows[i].tags;
    return "";
}

static bool has_tag(const char *tags, const char *t)
{
    size_t n = strlen(t);
    for (const char *p = tags; (p = strstr(p, t)); p += n)
        if ((p == tags || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

/* ---- JSON -> types and values ------------------------------------------------------------- */

static const dra_cel_type_t *jtype(dra_arena_t *a, const json_t *t)
{
    if (!t || !json_is_object(t))
        return &dra_cel_t_dyn;
    const json_t *p;
    if ((p = json_object_get(t, "primitive"))) {
        const char *s = json_string_value(p);
        if (!s)
            return &dra_cel_t_dyn;
        if (!strcmp(s, "INT64"))
            return &dra_cel_t_int;
        if (!strcmp(s, "UINT64"))
            return &dra_cel_t_uint;
        if (!strcmp(s, "DOUBLE"))
            return &dra_cel_t_double;
        if (!strcmp(s, "STRING"))
            return &dra_cel_t_string;
        if (!strcmp(s, "BOOL"))
            return &dra_cel_t_bool;
        if (!strcmp(s, "BYTES"))
            return &dra_cel_t_bytes;
        return &dra_cel_t_dyn;
    }
    dra_cel_type_t *r = dra_arena_calloc(a, 1, sizeof *r, 8);
    if (!r)
        return &dra_cel_t_dyn;
    if ((p = json_object_get(t, "list_type"))) {
        r->k = DRA_CEL_T_LIST;
        r->p1 = jtype(a, json_object_get(p, "elem_type"));
        return r;
    }
    if ((p = json_object_get(t, "map_type"))) {
        r->k = DRA_CEL_T_MAP;
        r->p1 = jtype(a, json_object_get(p, "key_type"));
        r->p2 = jtype(a, json_object_get(p, "value_type"));
        return r;
    }
    if (json_object_get(t, "null"))
        return &dra_cel_t_null;
    if ((p = json_object_get(t, "abstract_type"))) {
        const char *n = json_string_value(json_object_get(p, "name"));
        if (n && !strcmp(n, "optional_type")) {
            r->k = DRA_CEL_T_OPTIONAL;
            r->p1 = jtype(a, json_array_get(json_object_get(p, "parameter_types"), 0));
            return r;
        }
    }
    return &dra_cel_t_dyn;
}

static bool b64dec(const char *s, char *out, size_t *n)
{
    static const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (; *s && *s != '='; s++) {
        const char *q = strchr(tab, *s);
        if (!q)
            return false;
        acc = (acc << 6) | (uint32_t)(q - tab);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xFF);
        }
    }
    *n = o;
    return true;
}

/* Returns false for values the runner cannot represent (objects, enums). */
static bool json_value(dra_arena_t *a, const json_t *v, dra_cel_val_t *out)
{
    const json_t *p;
    memset(out, 0, sizeof *out);
    if (!v || !json_is_object(v))
        return false;
    if (json_object_get(v, "null_value")) {
        out->kind = DRA_CEL_NULL;
        return true;
    }
    if ((p = json_object_get(v, "bool_value"))) {
        *out = dra_cel_bool(json_is_true(p));
        return true;
    }
    if ((p = json_object_get(v, "int64_value"))) {
        *out = dra_cel_int(json_is_string(p) ? strtoll(json_string_value(p), NULL, 10)
                                             : json_integer_value(p));
        return true;
    }
    if ((p = json_object_get(v, "uint64_value"))) {
        *out = dra_cel_uint(json_is_string(p) ? strtoull(json_string_value(p), NULL, 10)
                                              : (uint64_t)json_integer_value(p));
        return true;
    }
    if ((p = json_object_get(v, "double_value"))) {
        if (json_is_string(p)) {
            const char *s = json_string_value(p);
            *out = dra_cel_double(!strcmp(s, "NaN") ? NAN : !strcmp(s, "Infinity") ? INFINITY
                                  : !strcmp(s, "-Infinity") ? -INFINITY : strtod(s, NULL));
        } else {
            *out = dra_cel_double(json_number_value(p));
        }
        return true;
    }
    if ((p = json_object_get(v, "string_value"))) {
        size_t n = json_string_length(p);
        char *s = dra_arena_strndup(a, json_string_value(p), n);
        *out = dra_cel_str(s, n);
        return s != NULL;
    }
    if ((p = json_object_get(v, "bytes_value"))) {
        const char *s = json_string_value(p);
        char *b = dra_arena_alloc(a, strlen(s) + 1, 1);
        size_t n;
        if (!b || !b64dec(s, b, &n))
            return false;
        *out = dra_cel_str(b, n);
        out->kind = DRA_CEL_BYTES;
        return true;
    }
    if ((p = json_object_get(v, "type_value"))) {
        char *s = dra_arena_strdup(a, json_string_value(p));
        *out = dra_cel_typeval(s);
        return true;
    }
    if ((p = json_object_get(v, "list_value"))) {
        const json_t *vals = json_object_get(p, "values");
        size_t n = json_array_size(vals);
        dra_cel_list_t *l = dra_arena_calloc(a, 1, sizeof *l, 8);
        dra_cel_val_t *it = dra_arena_calloc(a, n ? n : 1, sizeof *it, 8);
        if (!l || !it)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!json_value(a, json_array_get(vals, i), &it[i]))
                return false;
        l->n = (uint32_t)n;
        l->items = it;
        out->kind = DRA_CEL_LIST;
        out->v.list = l;
        return true;
    }
    if ((p = json_object_get(v, "map_value"))) {
        const json_t *es = json_object_get(p, "entries");
        size_t n = json_array_size(es);
        dra_cel_map_t *m = dra_arena_calloc(a, 1, sizeof *m, 8);
        dra_cel_val_t *ks = dra_arena_calloc(a, n ? n : 1, sizeof *ks, 8);
        dra_cel_val_t *vs = dra_arena_calloc(a, n ? n : 1, sizeof *vs, 8);
        if (!m || !ks || !vs)
            return false;
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(es, i);
            if (!json_value(a, json_object_get(e, "key"), &ks[i]) ||
                !json_value(a, json_object_get(e, "value"), &vs[i]))
                return false;
        }
        m->n = (uint32_t)n;
        m->keys = ks;
        m->vals = vs;
        out->kind = DRA_CEL_MAP;
        out->v.map = m;
        return true;
    }
    return false;
}

/* Strict equality for test expectations: same kinds, NaN equals NaN. */
static bool same(const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case DRA_CEL_DOUBLE:
        if (isnan(a->v.d) && isnan(b->v.d))
            return true;
        return a->v.d == b->v.d;
    case DRA_CEL_LIST:
        if (a->v.list->n != b->v.list->n)
            return false;
        for (uint32_t i = 0; i < a->v.list->n; i++)
            if (!same(&a->v.list->items[i], &b->v.list->items[i]))
                return false;
        return true;
    case DRA_CEL_MAP:
        if (a->v.map->n != b->v.map->n)
            return false;
        for (uint32_t i = 0; i < a->v.map->n; i++) {
            int j = dra_cel_map_find(b->v.map, &a->v.map->keys[i]);
            if (j < 0 || b->v.map->keys[j].kind != a->v.map->keys[i].kind ||
                !same(&a->v.map->vals[i], &b->v.map->vals[j]))
                return false;
        }
        return true;
    default:
        return dra_cel_equal(a, b) == 1;
    }
}

static bool has_bs_q(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '\\' && s[i + 1] == '?')
            return true;
    return false;
}

static bool has_bs_u(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '\\' && (s[i + 1] == 'u' || s[i + 1] == 'U'))
            return true;
    return false;
}

/* ---- running ------------------------------------------------------------------------------ */

typedef struct counts {
    int pass, fail, skip;
} counts_t;

static void run_test(const char *file, const char *section, const json_t *t, counts_t *c)
{
    const char *name = json_string_value(json_object_get(t, "name"));
    const char *expr = json_string_value(json_object_get(t, "expr"));
    size_t expr_len = json_string_length(json_object_get(t, "expr"));
    if (!name || !expr) {
        c->skip++;
        return;
    }
    if (only && strcmp(only, name))
        return;
    const char *tags = tags_of(file, section, name);
    const char *why = NULL;
    if (has_tag(tags, "proto") || has_tag(tags, "container"))
        why = "protobuf messages / containers";
    else if (has_tag(tags, "tsdur"))
        why = "timestamp / duration";
    else if (has_tag(tags, "checkonly") || json_is_true(json_object_get(t, "check_only")))
        why = "check-only (type deduction)";
    else if (json_object_get(t, "unknown") || json_object_get(t, "any_unknowns"))
        why = "unknowns";
    else if (!strcmp(file, "network_ext"))
        why = "cel-go network extension (Kubernetes has its own ip/cidr library)";
    else if (json_object_get(t, "container"))
        why = "container";
    else if (!strcmp(section, "reverse") && !strcmp(file, "string_ext"))
        why = "string reverse() is strings extension v3; Kubernetes pins v2";
    else if ((!strcmp(section, "string_literals") || !strcmp(section, "bytes_literals")) &&
             expr[0] != 'r' && expr[0] != 'R' && expr[1] != 'r' && expr[1] != 'R') {
        /* the JSON form was produced by python-protobuf's text parser, which leaves \u, \U and
         * \? escapes of the *expected* value undecoded: those expectations are wrong */
        const json_t *sv = json_object_get(json_object_get(t, "value"), "string_value");
        if (!sv)
            sv = json_object_get(json_object_get(t, "value"), "bytes_value");
        const char *s = json_string_value(sv);
        if (s && json_object_get(json_object_get(t, "value"), "bytes_value")) {
            char raw[512];
            size_t rn = 0;
            if (strlen(s) < sizeof raw && b64dec(s, raw, &rn) && has_bs_q(raw, rn))
                why = "expected value mis-decoded in the JSON form (\\? escape)";
        } else if (s && has_bs_u(s, json_string_length(sv))) {
            why = "expected value mis-decoded in the JSON form (\\u escape)";
        }
    }
    const json_t *tenv = json_object_get(t, "type_env");
    size_t ntenv = json_array_size(tenv);
    for (size_t i = 0; i < ntenv && !why; i++)
        if (json_object_get(json_array_get(tenv, i), "function"))
            why = "custom function declarations";
    if (why) {
        c->skip++;
        if (verbose > 1)
            printf("  skip %s/%s: %s\n", section, name, why);
        return;
    }
    dra_arena_t a;
    dra_arena_init(&a, 1 << 16);
    const json_t *binds = json_object_get(t, "bindings");
    size_t nb = json_object_size(binds);
    size_t nv = ntenv + nb;
    dra_cel_var_t *vars = dra_arena_calloc(&a, nv ? nv : 1, sizeof *vars, 8);
    dra_cel_val_t *globals = dra_arena_calloc(&a, nv ? nv : 1, sizeof *globals, 8);
    uint32_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < ntenv; i++) {
        const json_t *d = json_array_get(tenv, i);
        vars[n].name = dra_arena_strdup(&a, json_string_value(json_object_get(d, "name")));
        vars[n].type = jtype(&a, json_object_get(json_object_get(d, "ident"), "type"));
        globals[n].kind = DRA_CEL_ERROR;
        globals[n].v.s = "no value bound";
        globals[n].len = 14;
        n++;
    }
    const char *k;
    const json_t *bv;
    json_object_foreach((json_t *)binds, k, bv) {
        uint32_t idx = n;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(vars[i].name, k))
                idx = i;
        if (idx == n) {
            vars[n].name = dra_arena_strdup(&a, k);
            vars[n].type = &dra_cel_t_dyn;
            n++;
        }
        if (!json_value(&a, json_object_get(bv, "value"), &globals[idx]))
            ok = false;
    }
    if (!ok) {
        c->skip++;
        dra_arena_fini(&a);
        return;
    }
    dra_cel_env_t env = {.vars = vars, .nvars = n,
                         .no_check = json_is_true(json_object_get(t, "disable_check")),
                         .no_macros = json_is_true(json_object_get(t, "disable_macros"))};
    dra_cel_prog_t *p = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cel_compile_env(expr, expr_len, &env, &a, &p, &d);
    dra_cel_val_t want = dra_cel_bool(true), got = {0};
    bool want_err = json_object_get(t, "eval_error") || json_object_get(t, "any_eval_errors");
    const json_t *wv = json_object_get(t, "value");
    const json_t *tr = json_object_get(t, "typed_result");
    if (tr)
        wv = json_object_get(tr, "result");
    if (wv && !json_value(&a, wv, &want)) {
        c->skip++;
        dra_arena_fini(&a);
        return;
    }
    bool pass;
    char detail[700];
    detail[0] = 0;
    if (rc != DRA_OK) {
        pass = false;
        snprintf(detail, sizeof detail, "compile error: %s", d.msg);
    } else {
        dra_cel_act_t act = {.globals = globals};
        dra_diag_clear(&d);
        rc = dra_cel_eval_value(p, &act, &a, &got, &d);
        if (want_err) {
            pass = rc == DRA_ERUNTIME || rc == DRA_ECOST;
            if (!pass)
                snprintf(detail, sizeof detail, "want an error, got %s", dra_cel_val_str(&a, &got));
        } else if (rc != DRA_OK) {
            pass = false;
            snprintf(detail, sizeof detail, "runtime error: %s (want %s)", d.msg,
                     dra_cel_val_str(&a, &want));
        } else {
            pass = same(&got, &want);
            if (!pass)
                snprintf(detail, sizeof detail, "got %s, want %s", dra_cel_val_str(&a, &got),
                         dra_cel_val_str(&a, &want));
        }
    }
    if (pass) {
        c->pass++;
    } else {
        c->fail++;
        if (verbose)
            printf("  FAIL %s/%s: %s\n     expr: %s\n", section, name, detail, expr);
    }
    dra_arena_fini(&a);
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    char dbuf[1024];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose++;
        else if (!strcmp(argv[i], "-vv"))
            verbose += 2;
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            only = argv[++i];
        else
            dir = argv[i];
    }
    if (!dir) {
        const char *sh = getenv("DRA_SHARED");
        snprintf(dbuf, sizeof dbuf, "%s/cel/conformance", sh && *sh ? sh : "../shared");
        dir = dbuf;
    }
    load_index(dir);
    char jdir[1100];
    snprintf(jdir, sizeof jdir, "%s/json", dir);
    DIR *dp = opendir(jdir);
    if (!dp) {
        fprintf(stderr, "cel_conformance: cannot open %s\n", jdir);
        return 77;
    }
    char *names[64];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && nn < 64) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".json"))
            names[nn++] = strdup(de->d_name);
    }
    closedir(dp);
    qsort(names, (size_t)nn, sizeof *names, cmpstr);
    counts_t tot = {0};
    for (int i = 0; i < nn; i++) {
        char path[1300], file[256];
        snprintf(path, sizeof path, "%s/%s", jdir, names[i]);
        snprintf(file, sizeof file, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        json_error_t je;
        json_t *root = json_load_file(path, JSON_ALLOW_NUL, &je);
        if (!root) {
            fprintf(stderr, "cel_conformance: %s: %s\n", path, je.text);
            return 1;
        }
        counts_t c = {0};
        const json_t *secs = json_object_get(root, "section");
        for (size_t s = 0; s < json_array_size(secs); s++) {
            const json_t *sec = json_array_get(secs, s);
            const char *sname = json_string_value(json_object_get(sec, "name"));
            const json_t *tests = json_object_get(sec, "test");
            for (size_t t = 0; t < json_array_size(tests); t++)
                run_test(file, sname ? sname : "", json_array_get(tests, t), &c);
        }
        json_decref(root);
        printf("%-16s pass %4d  fail %4d  skip %4d\n", file, c.pass, c.fail, c.skip);
        tot.pass += c.pass;
        tot.fail += c.fail;
        tot.skip += c.skip;
        free(names[i]);
    }
    double rate = tot.pass + tot.fail ? 100.0 * tot.pass / (tot.pass + tot.fail) : 0;
    printf("TOTAL            pass %4d  fail %4d  skip %4d  (%.1f%% of non-skipped pass)\n", tot.pass,
           tot.fail, tot.skip, rate);
    for (size_t i = 0; i < ntagrows; i++) {
        free(tagrows[i].key);
        free(tagrows[i].tags);
    }
    free(tagrows);
    if (only)
        return tot.fail ? 1 : 0;
    return rate >= 95.0 ? 0 : 1;
}
