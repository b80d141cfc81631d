/* test_ydoc.c - the positioned YAML/JSON tree: structure, positions, typing, limits, errors. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "ydoc.h"

typedef struct docs {
    const dra_ynode_t *roots[8];
    int n;
} docs_t;

static int keep(const dra_ynode_t *root, void *ud)
{
    docs_t *d = ud;
    if (d->n < 8)
        d->roots[d->n] = root;
    d->n++;
    return DRA_OK;
}

static int parse(const char *text, dra_arena_t *a, docs_t *d, dra_diag_list_t *errs)
{
    memset(d, 0, sizeof *d);
    return dra_ydoc_parse_auto(text, strlen(text), "t.yaml", a, 0, keep, d, errs);
}

static bool any_error_contains(const dra_diag_list_t *l, const char *needle)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].msg, needle))
            return true;
    return false;
}

static void test_structure_and_positions(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    docs_t d;
    const char *y = "a: 1\n"
                    "b:\n"
                    "  - x\n"
                    "  - \"1\"\n"
                    "c: {k: true}\n"
                    "---\n"
                    "# empty next\n"
                    "---\n"
                    "- 2\n";
    CHECK_OK(parse(y, &a, &d, &errs));
    CHECK_EQ_I64(d.n, 2);
    const dra_ynode_t *r = d.roots[0];
    CHECK(dra_ynode_is_map(r));
    CHECK_EQ_I64(r->n, 3);
    const dra_ynode_t *b = dra_ynode_get(r, "b");
    CHECK(dra_ynode_is_seq(b));
    CHECK_EQ_I64(b->n, 2);
    CHECK_EQ_I64(b->vals[0]->line, 3);
    CHECK_EQ_I64(b->vals[0]->column, 5);
    CHECK_EQ_I64(dra_ynode_scalar_kind(b->vals[1]), DRA_YSCALAR_STRING);
    CHECK_EQ_I64(dra_ynode_scalar_kind(dra_ynode_get(r, "a")), DRA_YSCALAR_INT);
    bool bv = false;
    CHECK_OK(dra_ynode_bool(dra_ynode_get(dra_ynode_get(r, "c"), "k"), "t", "c.k", &bv, NULL));
    CHECK(bv);
    CHECK(dra_ynode_get(r, "zz") == NULL);
    CHECK(dra_ynode_is_seq(d.roots[1]));
    CHECK_EQ_I64(d.roots[1]->line, 9);
    CHECK_EQ_I64(errs.count, 0);
    dra_diag_list_fini(&errs);
    dra_arena_fini(&a);
}

static void test_typing(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    docs_t d;
    const char *y = "[1, -7, 0x1F, 0o17, '1', 1.5, 1e3, .inf, true, False, ~, null, abc, 80Gi, "
                    "99999999999999999999, !!str 12]";
    memset(&d, 0, sizeof d);
    CHECK_OK(dra_ydoc_parse(y, strlen(y), "t.yaml", &a, keep, &d, NULL)); /* YAML flow, not JSON */
    const dra_ynode_t *s = d.roots[0];
    CHECK_EQ_I64(s->n, 16);
    static const dra_yscalar_kind_t want[] = {
        DRA_YSCALAR_INT,    DRA_YSCALAR_INT,    DRA_YSCALAR_INT,    DRA_YSCALAR_INT,
        DRA_YSCALAR_STRING, DRA_YSCALAR_FLOAT,  DRA_YSCALAR_FLOAT,  DRA_YSCALAR_FLOAT,
        DRA_YSCALAR_BOOL,   DRA_YSCALAR_BOOL,   DRA_YSCALAR_NULL,   DRA_YSCALAR_NULL,
        DRA_YSCALAR_STRING, DRA_YSCALAR_STRING, DRA_YSCALAR_INT,    DRA_YSCALAR_STRING};
    for (uint32_t i = 0; i < s->n && i < 16; i++)
        CHECK_MSG(dra_ynode_scalar_kind(s->vals[i]) == want[i], "item %u '%s'", i,
                  s->vals[i]->text);
    int64_t v = 0;
    CHECK_OK(dra_ynode_int64(s->vals[2], "t", "x", &v, NULL));
    CHECK_EQ_I64(v, 31);
    CHECK_OK(dra_ynode_int64(s->vals[3], "t", "x", &v, NULL));
    CHECK_EQ_I64(v, 15);
    dra_diag_t dg;
    CHECK_EQ_I64(dra_ynode_int64(s->vals[4], "t.yaml", "spec.count", &v, &dg), DRA_ETYPE);
    CHECK(strstr(dg.msg, "spec.count: expected integer, got string \"1\"") != NULL);
    CHECK_EQ_I64(dg.line, 1);
    CHECK_EQ_I64(dra_ynode_int64(s->vals[14], "t", "x", &v, &dg), DRA_ETYPE);
    CHECK(strstr(dg.msg, "out of the int64 range") != NULL);
    const char *str = NULL;
    CHECK_EQ_I64(dra_ynode_string(s->vals[0], "t", "x", false, &str, NULL), DRA_ETYPE);
    CHECK_OK(dra_ynode_string(s->vals[0], "t", "x", true, &str, NULL));
    CHECK_STREQ(str, "1");
    CHECK_EQ_I64(dra_ynode_string(s->vals[11], "t", "x", true, &str, NULL), DRA_ETYPE);
    double dv = 0;
    CHECK_OK(dra_ynode_double(s->vals[6], "t", "x", &dv, NULL));
    CHECK_NEAR(dv, 1000.0, 0);
    bool bv = true;
    CHECK_OK(dra_ynode_bool(s->vals[9], "t", "x", &bv, NULL));
    CHECK(!bv);
    CHECK_EQ_I64(dra_ynode_bool(s->vals[4], "t", "x", &bv, NULL), DRA_ETYPE);
    int64_t iv;
    CHECK(dra_yparse_int64("-9223372036854775808", 20, &iv) && iv == INT64_MIN);
    CHECK(!dra_yparse_int64("9223372036854775808", 19, &iv));
    CHECK(!dra_yparse_int64("0x", 2, &iv));
    CHECK(!dra_yparse_int64("12a", 3, &iv));
    dra_arena_fini(&a);
}

static void test_duplicate_keys(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    docs_t d;
    const char *y = "a: 1\nb: 2\na: 3\n---\nok: 1\n";
    CHECK_EQ_I64(parse(y, &a, &d, &errs), DRA_EPARSE);
    CHECK_EQ_I64(d.n, 1); /* the bad document is dropped, the next one still delivered */
    CHECK_EQ_I64(errs.count, 1);
    CHECK(any_error_contains(&errs, "duplicate mapping key \"a\" (first at line 1, column 1)"));
    CHECK_EQ_I64(errs.items[0].line, 3);
    CHECK_STREQ(errs.items[0].file, "t.yaml");
    /* a large map takes the sorted path */
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    char big[4096];
    size_t off = 0;
    for (int i = 0; i < 40; i++)
        off += (size_t)snprintf(big + off, sizeof big - off, "k%d: %d\n", i, i);
    snprintf(big + off, sizeof big - off, "k7: again\n");
    CHECK_EQ_I64(parse(big, &a, &d, &errs), DRA_EPARSE);
    CHECK(any_error_contains(&errs, "duplicate mapping key \"k7\" (first at line 8, column 1)"));
    CHECK_EQ_I64(errs.items[0].line, 41);
    dra_diag_list_fini(&errs);
    dra_arena_fini(&a);
}

static void test_errors(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    docs_t d;
    /* syntax error with position */
    CHECK_EQ_I64(parse("a: [1, 2\nb: 3\n", &a, &d, &errs), DRA_EPARSE);
    CHECK(errs.count == 1 && errs.items[0].line > 0 && errs.items[0].column > 0);
    /* alias */
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(parse("a: &x [1]\nb: *x\n", &a, &d, &errs), DRA_EPARSE);
    CHECK(any_error_contains(&errs, "aliases are not supported"));
    CHECK_EQ_I64(errs.items[0].line, 2);
    /* invalid UTF-8 */
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(parse("a: b\nc: \xff\xfe\n", &a, &d, &errs), DRA_EPARSE);
    CHECK(errs.count == 1 && errs.items[0].line == 2);
    CHECK(any_error_contains(&errs, "invalid"));
    /* complex key */
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(parse("? [a]\n: 1\n", &a, &d, &errs), DRA_EPARSE);
    CHECK(any_error_contains(&errs, "complex"));
    dra_diag_list_fini(&errs);
    dra_arena_fini(&a);
}

static void test_limits(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    docs_t d;
    size_t n = 100000;
    char *deep = malloc(n + 1);
    memset(deep, '[', n);
    deep[n] = 0;
    clock_t t0 = clock();
    CHECK_EQ_I64(dra_ydoc_parse(deep, n, "deep.yaml", &a, keep, &d, &errs), DRA_ELIMIT);
    CHECK(any_error_contains(&errs, "nesting deeper than 64 levels"));
    CHECK_EQ_I64(errs.items[0].column, 65);
    /* same through JSON */
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    CHECK(dra_ydoc_parse_auto(deep, n, "deep.json", &a, 0, keep, &d, &errs) != DRA_OK);
    CHECK(errs.count >= 1);
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
    free(deep);
    /* 10 MB scalar */
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    size_t big = 10u << 20;
    char *s = malloc(big + 8);
    memcpy(s, "a: ", 3);
    memset(s + 3, 'x', big);
    s[big + 3] = '\n';
    CHECK_EQ_I64(dra_ydoc_parse(s, big + 4, "big.yaml", &a, keep, &d, &errs), DRA_ELIMIT);
    CHECK(any_error_contains(&errs, "exceeds the limit"));
    CHECK_EQ_I64(errs.items[0].line, 1);
    free(s);
    dra_diag_list_fini(&errs);
    dra_arena_fini(&a);
}

static void test_json(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    docs_t d;
    CHECK_OK(parse(" {\"a\": 1, \"b\": \"1\", \"c\": [true, null, 2.5, 3.0], \"d\": {}}", &a, &d,
                   &errs));
    const dra_ynode_t *r = d.roots[0];
    CHECK_EQ_I64(dra_ynode_scalar_kind(dra_ynode_get(r, "a")), DRA_YSCALAR_INT);
    CHECK_EQ_I64(dra_ynode_scalar_kind(dra_ynode_get(r, "b")), DRA_YSCALAR_STRING);
    const dra_ynode_t *c = dra_ynode_get(r, "c");
    CHECK_EQ_I64(c->n, 4);
    CHECK_EQ_I64(dra_ynode_scalar_kind(c->vals[0]), DRA_YSCALAR_BOOL);
    CHECK(dra_ynode_is_null(c->vals[1]));
    CHECK_EQ_I64(dra_ynode_scalar_kind(c->vals[3]), DRA_YSCALAR_FLOAT);
    CHECK(dra_ynode_is_map(dra_ynode_get(r, "d")));
    /* duplicate keys and syntax errors carry jansson's position */
    CHECK_EQ_I64(parse("{\"a\": 1,\n \"a\": 2}", &a, &d, &errs), DRA_EPARSE);
    CHECK(errs.count == 1 && errs.items[0].line == 2);
    CHECK(any_error_contains(&errs, "duplicate"));
    dra_diag_list_fini(&errs);
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(dra_ydoc_parse_file_buf("[1,", 3, "x.json", &a, 0, keep, &d, &errs), DRA_EPARSE);
    CHECK(errs.count == 1 && errs.items[0].line == 1);
    dra_diag_list_fini(&errs);
    dra_arena_fini(&a);
}

static int count_and_stop(const dra_ynode_t *root, void *ud)
{
    (void)root;
    return ++*(int *)ud == 2 ? DRA_EEXIST : DRA_OK;
}

static void test_callback_stop_and_reset(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    int n = 0;
    const char *y = "a: 1\n---\nb: 2\n---\nc: 3\n";
    CHECK_EQ_I64(dra_ydoc_parse(y, strlen(y), "t", &a, count_and_stop, &n, NULL), DRA_EEXIST);
    CHECK_EQ_I64(n, 2);
    size_t used0 = a.used;
    docs_t d = {0};
    CHECK_OK(dra_ydoc_parse_ex(y, strlen(y), "t", &a, DRA_YDOC_RESET_PER_DOC, keep, &d, NULL));
    CHECK_EQ_I64(d.n, 3);
    CHECK_EQ_I64(a.used, used0);
    dra_arena_fini(&a);
}

int main(void)
{
    RUN(test_structure_and_positions);
    RUN(test_typing);
    RUN(test_duplicate_keys);
    RUN(test_errors);
    RUN(test_limits);
    RUN(test_json);
    RUN(test_callback_stop_and_reset);
    return check_summary();
}
