/* test_ydoc_fast.c - the fast block-YAML path (yfast.h) gives exactly libyaml's result: the
 * same trees with positions and styles, diagnostics and return code, on hand-written edge cases,
 * on every single-byte mutation and truncation of them, on every YAML file of the real manifests
 * and of corpora/, and on drabench's own writer output (which must be read entirely by the fast
 * path: that is where its speed matters). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cli.h"
#include "each_manifest.h"
#include "manifest.h"
#include "ydoc.h"
#include "ytrace.h"

/* The pipeline is checked on every pipeline_every-th input (a thread per parse is costly under
 * the sanitizers; the mutation test thins it out). */
static unsigned pipeline_every = 1, ncompared;

/* Parse both ways; on a difference print both traces. Returns the fast path's document count. */
static size_t same_both_ways(const char *what, const char *text, size_t len, int stop_after)
{
    dra_ydoc_split_t sp = {0};
    char *want = ytrace_parse(text, len, DRA_YDOC_NO_FAST, NULL, stop_after);
    char *got = ytrace_parse(text, len, 0, &sp, stop_after);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "%s: fast path differs on:\n%.*s\n--- libyaml\n%s--- fast\n%s", what,
                (int)DRA_MIN(len, (size_t)2000), text, want, got);
        CHECK(0);
    }
    free(got);
    if (ncompared++ % pipeline_every) {
        free(want);
        return sp.fast_docs;
    }
    /* the same as a 2-thread pipeline */
    dra_ydoc_split_t pp = {.pipeline = true};
    got = ytrace_parse(text, len, DRA_YDOC_RESET_PER_DOC, &pp, stop_after);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "%s: fast pipeline differs on:\n%.*s\n--- libyaml\n%s--- fast\n%s", what,
                (int)DRA_MIN(len, (size_t)2000), text, want, got);
        CHECK(0);
    }
    CHECK_EQ_I64((int64_t)pp.fast_docs, (int64_t)sp.fast_docs);
    free(want);
    free(got);
    return sp.fast_docs;
}

/* Inputs the fast path must read without libyaml (fast documents expected), then inputs it must
 * decline or that libyaml rejects. Each checks the position rules of yfast.c. */
typedef struct fcase {
    const char *text;
    int fast_docs; /* documents the fast path must read; -1: any */
} fcase_t;

static const fcase_t k_cases[] = {
    {"a: 1\n", 1},
    {"a: 1\nb: two\nc: \"three\"\nd: 'fo''ur'\ne: \"x\\ty\\\"z\\\\\"\n", 1},
    {"a:\nb:\n  c:\n  d: 1\ne:", 1},                       /* empty values, no final newline */
    {"a:\n- 1\n- x: y\n  z: w\n-\n- # c\nb: 2\n", 1},        /* indentless sequence */
    {"a:\n  - 1\n  -\n    k: v\n  - - 2\n", -1},             /* compact nested seq declines */
    {"- a\n- b: c\n  d: e\n-   f: g\n    h: i\n- [1, \"2\", 'x']\n- []\n- {}\n", 1},
    {"# head\n\n  # indented comment\na: b # trailing\nc: d#not-a-comment\ne: f   \n", 1},
    {"---\na: 1\n---\n\n---\n# only a comment\n---\nb: [ ]\n--- # c\nc: {  }\n", 5},
    {"a: 1\n---\nb: 2\n", 2},
    {"  a: 1\n  b:\n    - x\n", 1},                          /* indented root */
    {"a: -1\nb: -x\nc: ~\nd: null\ne: true\nf: 0x1F\ng: 1e3\nh: a:b\ni: http://x/y\n", 1},
    {"\"q k\": 1\n'r k': 2\nk with space: 3\n-k: 4\n", 1},
    {"a: [a-b, c.d, /e, 1.5, -2, x_y, \"z, w\"]\n", 1},
    {"x:\n  y:\n    z:\n      w: [1]\n  v: 2\n", 1},
    {"a: \"\"\nb: ''\nc: \"\\/\\n\\r\\a\\b\\e\\f\\v\"\n", 1},
    /* declined: libyaml decides (errors or constructs outside the subset) */
    {"a: 1\na: 2\n", 0},
    {"a: &x 1\nb: *x\n", 0},
    {"a: !!str 1\n", 0},
    {"a: |\n  text\n", 0},
    {"a: >\n  text\n", 0},
    {"a: multi\n  line\n", 0},
    {"a: \"multi\n  line\"\n", 0},
    {"a: 'multi\n  line'\n", 0},
    {"? a\n: b\n", 0},
    {"a: {b: c, \"d\": [1, {e: 'f'}], g: {}}\nh: [[], [x], {}]\n", 1},
    {"p: {\"k\": \"v\", \"n\": {\"m\": 10, \"l\": [true, null, -1.5e3]}}\n", 1},
    {"a: {b: c, b: d}\n", 0},
    {"a: {b}\n", 0},
    {"a: {b:c}\n", 0},
    {"a: {\"b\":c}\n", 0},
    {"a: {b: c,}\n", 0},
    {"a: {b: c\n  , d: e}\n", 0},
    {"a: [b: c]\n", 0},
    {"a: [b,\n  c]\n", 0},
    {"a: [b, ]\n", 0},
    {"a: b: c\n", 0},
    {"a: b:\n", 0},
    {"a:\tb\n", 0},
    {"a: b\r\n", 0},
    {"a: \"\\u00e9\"\n", 0},
    {"a: \"\\x41\"\n", 0},
    {"a: caf\xc3\xa9\n", 0},
    {"%YAML 1.2\n---\na: 1\n", 0},
    {"a: 1\n...\n", 0},
    {"a: 1\n---x\n", 0},
    {"--- a\n", 0},
    {"---\n--- |\n  x\n", 1},
    {"a: 1\n - b\n", 0},
    {"a: 1\n  b: 2\n", 0},
    {"a:\n    b: 1\n  c: 2\n", 0},
    {"- a\nb: 1\n", 0},
    {"a: 1\n- b\n", 0},
    {"a : 1\n", 0},
    {"a: \"x\"y\n", 0},
    {"a: \"x\"#y\n", 0},
    {"a: - b\n", 0},
    {"a: -\n", 0},
    {"a: @x\n", 0},
    {"a: `x\n", 0},
    {"a: %x\n", 0},
    {"a: ,x\n", 0},
    {"plain scalar root\n", 0},
    {"[1, 2]\n", 0},
    {"\xEF\xBB\xBF" "a: 1\n", 0},
    {"a: 1\n---\nb: 2\nb: 3\n---\nc: 4\n", 1},              /* fast, then libyaml from doc 2 */
    {"a: 1\n---\nb: [1\n---\nc: 4\n", 1},
    {"a: 1\n---\nb: \xff\n---\nc: 4\n", 0}, /* reader errors: all libyaml */
    {"a: 1\n---\nb: \"x\xc2\x85y\"\n---\nc: 4\n", 1},
    {"a: 1\n---\nb:\n  c: \"x\n---\nd: 4\n", 1},
};

static void test_cases(void)
{
    for (size_t i = 0; i < DRA_ARRAY_LEN(k_cases); i++) {
        char what[32];
        snprintf(what, sizeof what, "case %zu", i);
        size_t n = same_both_ways(what, k_cases[i].text, strlen(k_cases[i].text), 0);
        if (k_cases[i].fast_docs >= 0 && n != (size_t)k_cases[i].fast_docs) {
            fprintf(stderr, "case %zu: %zu fast documents, want %d\n", i, n,
                    k_cases[i].fast_docs);
            CHECK(0);
        }
    }
    /* on_doc stopping the parse in the fast part and after the hand-over */
    const char *t = "a: 1\n---\nb: 2\n---\nc: [1\n---\nd: 4\n";
    for (int stop = 1; stop <= 3; stop++)
        (void)same_both_ways("stop", t, strlen(t), stop);
}

/* Every single-byte replacement, deletion and insertion, and every truncation. */
static void test_mutations(void)
{
    static const char subst[] = " \t\n:-#\"'[]{}a1,|&!?\\";
    char buf[512];
    size_t nparse = 0;
    pipeline_every = 7;
    for (size_t i = 0; i < DRA_ARRAY_LEN(k_cases); i++) {
        const char *t = k_cases[i].text;
        size_t len = strlen(t);
        if (len + 2 > sizeof buf)
            continue;
        for (size_t at = 0; at <= len; at++) {
            (void)same_both_ways("truncation", t, at, 0);
            for (size_t s = 0; s < sizeof subst - 1; s++) {
                memcpy(buf, t, len);
                if (at < len) {
                    buf[at] = subst[s];
                    (void)same_both_ways("replacement", buf, len, 0);
                }
                memcpy(buf, t, at);
                buf[at] = subst[s];
                memcpy(buf + at + 1, t + at, len - at);
                (void)same_both_ways("insertion", buf, len + 1, 0);
                nparse += 2;
            }
            if (at < len) {
                memcpy(buf, t, at);
                memcpy(buf + at, t + at + 1, len - at - 1);
                (void)same_both_ways("deletion", buf, len - 1, 0);
            }
        }
    }
    pipeline_every = 1;
    printf("%zu mutated inputs\n", nparse);
}

/* ---- files ---------------------------------------------------------------------------------- */

static size_t nfiles, ndocs_fast, nfiles_all_fast, nwritten;

static int count_doc(const dra_ynode_t *root, void *ud)
{
    (void)root;
    ++*(size_t *)ud;
    return DRA_OK;
}

static size_t count_docs(const char *text, size_t len)
{
    size_t n = 0;
    dra_arena_t a;
    dra_arena_init(&a, 0);
    /* the documents before an error count too, so the status does not matter */
    int rc = dra_ydoc_parse_ex(text, len, "w.yaml", &a, DRA_YDOC_NO_FAST, count_doc, &n, NULL);
    (void)rc;
    dra_arena_fini(&a);
    return n;
}

static void one_file(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    dra_diag_t d;
    if (dra_io_read_file(path, (size_t)64 << 20, &text, &len, &d) != DRA_OK) {
        CHECK_MSG(0, "%s: cannot read", path);
        return;
    }
    nfiles++;
    size_t nf = same_both_ways(path, text, len, 0);
    ndocs_fast += nf;
    if (getenv("DRA_TEST_VERBOSE"))
        printf("%s: %zu of %zu documents fast\n", path, nf, count_docs(text, len));
    /* drabench's writer output: read entirely by the fast path, with the same trees */
    dra_model_t m;
    dra_model_init(&m);
    if (dra_manifest_read_buffer(&m, path, text, len, NULL) == DRA_OK) {
        dra_sbuf_t o = {0};
        if (dra_manifest_write_yaml_buf(&m, &o) == DRA_OK && o.len) {
            size_t n = same_both_ways("writer output", o.p, o.len, 0);
            size_t want = count_docs(o.p, o.len);
            CHECK_MSG(n >= want, "%s: writer output: %zu of %zu documents fast:\n%.*s", path, n,
                      want, (int)DRA_MIN(o.len, (size_t)3000), o.p);
            nwritten++;
        }
        dra_sbuf_fini(&o);
    }
    dra_model_fini(&m);
    free(text);
}

/* JSON goes to jansson on both paths: only YAML files are compared. */
static void yaml_file(const char *path)
{
    size_t l = strlen(path);
    if (!(l > 5 && strcmp(path + l - 5, ".json") == 0))
        one_file(path);
}

static void test_files(void)
{
    const char *shared = getenv("DRA_SHARED");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/real-manifests", shared && *shared ? shared : "../shared");
    struct stat st;
    size_t before = nfiles;
    if (stat(dir, &st) == 0) {
        each_manifest(dir, yaml_file);
        CHECK(nfiles - before >= 150);
    } else {
        printf("real-manifests not found: only corpora/\n");
    }
    each_manifest("corpora", yaml_file);
    printf("%zu files (%zu documents read by the fast path), %zu writer outputs\n", nfiles,
           ndocs_fast, nwritten);
    (void)nfiles_all_fast;
    CHECK(nfiles > 200);
    CHECK(nwritten > 100);
    CHECK(ndocs_fast > 300);
}

int main(void)
{
    RUN(test_cases);
    RUN(test_mutations);
    RUN(test_files);
    return check_summary();
}
