/* test_ydoc_split.c - the 2-thread split parse gives exactly the sequential result: the same
 * documents (trees with positions), diagnostics in the same order, return code, model digest. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "manifest.h"
#include "ydoc.h"
#include "ytrace.h"

static void dump_diags(dra_sbuf_t *o, const dra_diag_list_t *l)
{
    char buf[1024];
    for (size_t i = 0; i < l->count; i++)
        dra_sbuf_printf(o, "diag %s\n", dra_diag_format(&l->items[i], buf, sizeof buf));
}

/* Parse text split at `at` (0 = sequential) with libyaml only (fast path off unless `fast`);
 * returns the trace (caller frees). */
static char *trace_parse_ex(const char *text, size_t at, int stop_after, bool *used, bool fast)
{
    dra_ydoc_split_t sp = {.at = at, .pipeline = fast && at % 2};
    unsigned flags = DRA_YDOC_RESET_PER_DOC | (fast ? 0u : DRA_YDOC_NO_FAST);
    char *t = ytrace_parse(text, strlen(text), flags, &sp, stop_after);
    if (used)
        *used = sp.used;
    return t;
}

static char *trace_parse(const char *text, size_t at, int stop_after, bool *used)
{
    return trace_parse_ex(text, at, stop_after, used, false);
}

/* Every line start as the split point gives the sequential trace; returns how many splits were
 * used (the second part's result taken). */
static int check_all_splits(const char *text, int stop_after)
{
    char *want = trace_parse(text, 0, stop_after, NULL);
    int nused = 0;
    size_t len = strlen(text);
    for (size_t at = 1; at < len; at++) {
        if (text[at - 1] != '\n')
            continue;
        bool used = false;
        char *got = trace_parse(text, at, stop_after, &used);
        nused += used;
        if (strcmp(want, got) != 0) {
            fprintf(stderr, "split at %zu differs:\n--- sequential\n%s--- split\n%s", at, want,
                    got);
            CHECK(0);
        }
        free(got);
        /* the fast path first, then libyaml (split or not) from the first document it declines */
        got = trace_parse_ex(text, at, stop_after, NULL, true);
        if (strcmp(want, got) != 0) {
            fprintf(stderr, "fast path + split at %zu differs:\n--- libyaml\n%s--- fast\n%s", at,
                    want, got);
            CHECK(0);
        }
        free(got);
    }
    free(want);
    return nused;
}

#define PAD                                                                                        \
    "# padding padding padding padding padding padding padding padding padding padding\n"        \
    "# padding padding padding padding padding padding padding padding padding padding\n"

static const char *const k_texts[] = {
    /* clean documents */
    "a: 1\nb: [x, y]\n---\nc: {d: e}\n---\n- 1\n- two\n---\nlast: \"q\"\n",
    /* syntax error in the first part */
    "a: 1\n---\nb: [1, 2\nc: 3\n---\nd: 4\n---\ne: 5\n",
    /* syntax error in the last part */
    "a: 1\n---\nb: 2\n---\nc: 3\n---\nd: [1\n---\ne: }\n",
    /* errors right around a `---` */
    "a: 1\n---\nb: \"unterminated\n---\nc: 3\n---\nd: 4\n",
    "a: 1\nx: 2\na: 3\n--- \nb: 1\nb: 2\n---\t\nc: *nope\n---\nd: 4\n",
    /* `---` inside block scalars and quoted text */
    "a: |\n  line\n---\n  more\n---\nb: >\n  folded\n  --- not a start\n---\nc: 'x\n  --- y'\n---\nd: 1\n",
    "--- |\ntop level\n---\nsecond\n--- >\n  x\n---\n\"multi\n---\nline\"\n",
    /* explicit ends, comments, empty and null documents, a directive, CRLF */
    "a: 1\n...\n---\n# only a comment\n---\n~\n---\nb: 2\n...\n%YAML 1.1\n---\nc: 3\n",
    "a: 1\r\n---\r\nb: 2\r\n---\r\nc: [1,\r\n  2]\r\n",
    /* a lone CR before the split and a NEL line break */
    "a: 1\rb: 2\n---\nc: 3\n---\nd: \"x\xC2\x85y\"\n---\ne: 4\n",
    /* invalid UTF-8 and a control character after the split */
    "a: 1\n---\nb: 2\n---\nc: \xff\n---\nd: 4\n",
    "a: 1\n---\nb: 2\n---\nc: \x01\n---\nd: 4\n",
    /* an error only in the first part; consecutive `---` lines */
    "a: 1\na: 2\n---\nb: 1\n---\nc: 2\n---\nd: 3\n",
    "a: 1\n---\n---\n---\nb: [1]\n---\n---\nc: 2\n",
    "a: 1\n--- x\n---\nb: 2\n--- [y]\n---\nc: 3\n--- {z: 1}\n--- w\n",
    /* the same past the 64-byte blocks the input checks skip quickly */
    "a: 1\rb: 2\n" PAD "--- x\n---\ny: 2\n" PAD "--- [z]\n---\nw: 3\n",
    "a: 1\n" PAD "---\nx: \"\xC2\x85\"\n---\ny: 2\n" PAD "---\nz: \"\xE2\x80\xA8\"\n---\nw: 1\n",
    "a: 1\n" PAD "---\nx: 1\n" PAD "---\ny: \xC3\n" PAD "---\nz: \x7f\n---\nw: 1\n",
    /* directives: %TAG changes what !!str means, for its own document only */
    "%TAG !! tag:example.com,2000:\n---\na: !!str 1\n" PAD "---\nb: !!str 2\n---\nc: 3\n"
    "%YAML 1.1\n---\nd: !!str 4\n" PAD "%TAG !! tag:x,2000:\n---\ne: !!str 5\n---\nf: 6\n",
    /* a flow collection across a `---` line */
    "a: [1,\n---\n, 2]\n---\nb: 1\n",
    /* nesting deeper than the limit in the second part */
    ("a: 1\n---\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n---\nc: 2\n"),
};

static void test_every_split_equals_sequential(void)
{
    int used = 0;
    for (size_t i = 0; i < DRA_ARRAY_LEN(k_texts); i++)
        used += check_all_splits(k_texts[i], 0);
    CHECK(used > 10); /* the clean cases really ran on two threads */
    /* on_doc stopping the parse in either part */
    for (int stop = 1; stop <= 4; stop++)
        (void)check_all_splits(k_texts[0], stop);
}

static void test_clean_split_is_used(void)
{
    const char *t = k_texts[0];
    size_t at = (size_t)(strstr(t, "---\nc:") - t);
    bool used = false;
    free(trace_parse(t, at, 0, &used));
    CHECK(used);
    /* a syntax error before the split: the second part is discarded */
    const char *e = k_texts[1];
    at = (size_t)(strstr(e, "---\nd: 4") - e);
    free(trace_parse(e, at, 0, &used));
    CHECK(!used);
    /* invalid UTF-8 after the split: not used (libyaml's reader reports it in chunks) */
    const char *u = k_texts[10];
    at = (size_t)(strstr(u, "---\nb: 2") - u);
    free(trace_parse(u, at, 0, &used));
    CHECK(!used);
}

/* ---- manifests: model digest and diagnostics ---------------------------------------------- */

static char *read_model_ex(const char *text, size_t len, size_t at, bool *used,
                           uint64_t *digest, bool fast)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    dra_ydoc_split_t sp = {.at = at, .no_fast = !fast};
    int rc = dra_manifest_read_buffer_split(&m, "m.yaml", text, len, &sp, &errs);
    dra_sbuf_t o = {0};
    dump_diags(&o, &errs);
    dra_sbuf_printf(&o, "rc %d\n", rc);
    dra_sbuf_put(&o, "", 1);
    *digest = dra_model_digest(&m);
    if (used)
        *used = at && sp.used;
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    return o.p;
}

/* libyaml only (the split mechanism under test). */
static char *read_model(const char *text, size_t len, size_t at, bool *used, uint64_t *digest)
{
    return read_model_ex(text, len, at, used, digest, false);
}

static void slice(dra_sbuf_t *o, int s, int ndev, bool bad)
{
    dra_sbuf_printf(o,
                    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n"
                    "  name: n%d-gpu\nspec:\n  driver: gpu.example.com\n  pool:\n    name: n%d\n"
                    "    generation: 1\n    resourceSliceCount: 1\n  nodeName: n%d\n  devices:\n",
                    s, s, s);
    for (int i = 0; i < ndev; i++)
        dra_sbuf_printf(o,
                        "  - name: gpu-%d\n    attributes:\n      index:\n        int: %d\n"
                        "      model:\n        string: \"H100 %d\"\n%s    capacity:\n"
                        "      memory:\n        value: 80Gi\n",
                        i, i, s, bad && i == 1 ? "    bogusField: 1\n" : "");
}

static const char k_list[] =
    "---\napiVersion: v1\nkind: List\nitems:\n"
    "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata:\n    name: gpu\n"
    "  spec:\n    selectors:\n    - cel:\n        expression: device.driver == \"gpu.example.com\"\n"
    "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata:\n    name: bad\n"
    "  spec:\n    nope: 1\n";

static const char k_block[] = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
                              "data:\n  script: |\n    echo hi\n---\n    echo still text?\n";

/* Manifests with errors in both parts, a List wrapper and a block scalar; every `---` split. */
static void test_manifest_splits(void)
{
    dra_sbuf_t t = {0};
    for (int s = 0; s < 8; s++) {
        slice(&t, s, 3, s == 2 || s == 6);
        if (s == 3)
            dra_sbuf_puts(&t, k_list);
        if (s == 5)
            dra_sbuf_puts(&t, k_block);
    }
    dra_sbuf_puts(&t, "---\nkind: ResourceSlice\napiVersion: resource.k8s.io/v1\nspec: [1\n");
    CHECK(!t.err);
    for (int variant = 0; variant < 2; variant++) {
        size_t len = variant ? t.len - 17 : t.len; /* variant 1 cuts the syntax error off */
        uint64_t d0, d1;
        char *want = read_model(t.p, len, 0, NULL, &d0);
        CHECK(strstr(want, "bogusField") != NULL);
        CHECK(strstr(want, "nope") != NULL);
        int nused = 0, ntried = 0;
        for (size_t at = 1; at < len; at++) {
            if (t.p[at - 1] != '\n' || strncmp(t.p + at, "---", 3) != 0)
                continue;
            bool used = false;
            char *got = read_model(t.p, len, at, &used, &d1);
            ntried++;
            nused += used;
            CHECK_EQ_I64((int64_t)d1, (int64_t)d0);
            if (strcmp(got, want) != 0) {
                fprintf(stderr, "split at %zu:\n--- sequential\n%s--- split\n%s", at, want, got);
                CHECK(0);
            }
            free(got);
            got = read_model_ex(t.p, len, at, NULL, &d1, true);
            CHECK_EQ_I64((int64_t)d1, (int64_t)d0);
            CHECK_STREQ(got, want);
            free(got);
        }
        CHECK(ntried > 10);
        CHECK(nused >= ntried - 3); /* all but the block-scalar lines and the first */
        free(want);
    }
    dra_sbuf_fini(&t);
}

/* Above DRA_YDOC_SPLIT_MIN the plain reader splits by itself, with the same result. */
static void test_large_auto(void)
{
    dra_sbuf_t t = {0};
    for (int s = 0; t.len < DRA_YDOC_SPLIT_MIN + 4096; s++)
        slice(&t, s, 8, s == 3 || s == 9000);
    dra_sbuf_puts(&t, "---\nkind: ResourceSlice\nspec: {a: 1, a: 2}\n");
    CHECK(!t.err);
    size_t at = dra_ydoc_find_split(t.p, t.len);
    CHECK(at > t.len / 2 && at < t.len / 20 * 11);
    CHECK(strncmp(t.p + at, "---\n", 4) == 0);
    uint64_t d0, d1;
    bool used = false;
    char *want = read_model(t.p, t.len, 0, NULL, &d0);
    char *got = read_model(t.p, t.len, DRA_YDOC_SPLIT_AUTO, &used, &d1);
    CHECK(used);
    CHECK_EQ_I64((int64_t)d1, (int64_t)d0);
    CHECK_STREQ(got, want);
    CHECK(strstr(want, "duplicate mapping key") != NULL);
    free(got);
    /* fast path: the clean slices without libyaml, the last document by libyaml */
    used = false;
    got = read_model_ex(t.p, t.len, DRA_YDOC_SPLIT_AUTO, &used, &d1, true);
    CHECK(used); /* the second third read on the other thread */
    CHECK_EQ_I64((int64_t)d1, (int64_t)d0);
    CHECK_STREQ(got, want);
    free(got);
    free(want);
    /* the public entry point agrees too */
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    /* the planted duplicate key is reported through the public entry point as well */
    CHECK(dra_manifest_read_buffer(&m, "m.yaml", t.p, t.len, &errs) != DRA_OK && errs.count > 0);
    CHECK_EQ_I64((int64_t)dra_model_digest(&m), (int64_t)d0);
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    /* small, JSON or directive inputs are not split */
    CHECK_EQ_I64((int64_t)dra_ydoc_find_split(t.p, DRA_YDOC_SPLIT_MIN - 1), 0);
    t.p[0] = '%';
    CHECK_EQ_I64((int64_t)dra_ydoc_find_split(t.p, t.len), 0);
    t.p[0] = '[';
    CHECK_EQ_I64((int64_t)dra_ydoc_find_split(t.p, t.len), 0);
    dra_sbuf_fini(&t);
}

int main(void)
{
    RUN(test_every_split_equals_sequential);
    RUN(test_clean_split_is_used);
    RUN(test_manifest_splits);
    RUN(test_large_auto);
    return check_summary();
}
