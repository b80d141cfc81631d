/* rload.c - result file loader; see rload.h. */
#include "rload.h"

#include "hostinfo.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "escape.h"
#include "ydoc.h"

#define RLOAD_MAX_FILE ((size_t)1 << 30)

typedef struct {
    const char *file;
    dra_arena_t *a;
    dra_diag_t *d;
    int rc; /* first error */
    int64_t samples; /* histogram counts in the whole file (bounded: readers pool them) */
    char err_path[256]; /* JSON path of the first error, to give it a line:col afterwards */
} ctx_t;

static void note_path(ctx_t *c, const char *path)
{
    if (c->rc == DRA_OK)
        snprintf(c->err_path, sizeof c->err_path, "%s", path);
}

/* Histogram counts are summed when readers pool repetitions and files (int64_t): one histogram
 * may hold at most 2^40 samples and one file 2^44, so no realistic number of files overflows. */
#define HIST_MAX_COUNT (INT64_C(1) << 40)
#define FILE_MAX_SAMPLES (INT64_C(1) << 44)

static const char *jtype_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    case JSON_NULL:
        return "null";
    }
    return "value";
}

static int type_error(ctx_t *c, const char *path, const char *want, const json_t *got)
{
    note_path(c, path);
    if (c->rc == DRA_OK)
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0, "%s: expected %s, got %s", path,
                             want, jtype_name(got));
    return c->rc;
}

static int oom(ctx_t *c)
{
    if (c->rc == DRA_OK)
        c->rc = dra_diag_set(c->d, DRA_ENOMEM, c->file, 0, 0, "out of memory");
    return c->rc;
}

static const char *dup(ctx_t *c, const char *s)
{
    char *p = dra_arena_strdup(c->a, s ? s : "");
    if (!p)
        oom(c);
    return p ? p : "";
}

/* ---- character sets: result files are untrusted ----------------------------------------------
 * Every string may hold any printable UTF-8 (jansson has checked the encoding and rejects
 * NUL) but no control character: no C0/C1 control, DEL or bidi control, so nothing from a
 * result reaches a terminal, a line-based format or a script as a line break or an escape
 * sequence. Names (metrics, histograms, hashes, digests, release, policy, commit, dates) are
 * restricted further to NAME_CHARS, at most NAME_MAX bytes. Writers escape for their target as
 * well (escape.h); this is the second layer. */
#define NAME_CHARS "A-Za-z0-9 and ._/:+=,@%-"
#define NAME_MAX_LEN 256

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("._/:+=,@%-", ch) != NULL);
}

static bool check_text(ctx_t *c, const char *path, const char *s)
{
    for (size_t i = 0; s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0 || dra_esc_is_control(cp)) {
            note_path(c, path);
            if (c->rc == DRA_OK)
                c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                                     "%s: control character U+%04X at byte %zu is not allowed", path,
                                     n ? cp : (unsigned char)s[i], i);
            return false;
        }
        i += n;
    }
    return true;
}

static bool check_name(ctx_t *c, const char *path, const char *s)
{
    if (!check_text(c, path, s))
        return false;
    size_t n = strlen(s);
    bool ok = n <= NAME_MAX_LEN;
    for (size_t i = 0; ok && i < n; i++)
        ok = name_char(s[i]);
    if (!ok)
        note_path(c, path);
    if (!ok && c->rc == DRA_OK)
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "%s: \"%s\" is not a valid name (characters %s, at most %d bytes)",
                             path, s, NAME_CHARS, NAME_MAX_LEN);
    return ok;
}

/* Optional string member; "" when absent or null. */
static const char *get_str(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v))
        return "";
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", ppath, *ppath ? "." : "", key);
    if (!json_is_string(v)) {
        type_error(c, path, "a string", v);
        return "";
    }
    if (!check_text(c, path, json_string_value(v)))
        return "";
    return dup(c, json_string_value(v));
}

/* Optional string member that is a name (NAME_CHARS). */
static const char *get_name(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const char *s = get_str(c, obj, key, ppath);
    if (*s) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", ppath, *ppath ? "." : "", key);
        if (!check_name(c, path, s))
            return "";
    }
    return s;
}

static int64_t get_int(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v))
        return 0;
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_real(v))
        return (int64_t)json_real_value(v);
    char path[256];
    snprintf(path, sizeof path, "%s.%s", ppath, key);
    type_error(c, path, "a number", v);
    return 0;
}

static double get_num(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v))
        return 0;
    if (json_is_number(v))
        return json_number_value(v);
    char path[256];
    snprintf(path, sizeof path, "%s.%s", ppath, key);
    type_error(c, path, "a number", v);
    return 0;
}

static bool get_bool(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v))
        return false;
    if (json_is_boolean(v))
        return json_is_true(v);
    char path[256];
    snprintf(path, sizeof path, "%s.%s", ppath, key);
    type_error(c, path, "a bool", v);
    return false;
}

/* Optional object member: NULL when absent; type error when present and not an object. */
static const json_t *get_obj(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_object(v)) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", ppath, *ppath ? "." : "", key);
        type_error(c, path, "an object", v);
        return NULL;
    }
    return v;
}

static const json_t *get_arr(ctx_t *c, const json_t *obj, const char *key, const char *ppath)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_array(v)) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", ppath, *ppath ? "." : "", key);
        type_error(c, path, "an array", v);
        return NULL;
    }
    return v;
}

static void *alloc_arr(ctx_t *c, size_t n, size_t size)
{
    void *p = dra_arena_calloc(c->a, n ? n : 1, size, 16);
    if (!p)
        oom(c);
    return p;
}

static void load_hist(ctx_t *c, const json_t *h, const char *path, dra_rload_hist_t *out)
{
    if (!json_is_object(h)) {
        type_error(c, path, "an object", h);
        return;
    }
    out->name = get_name(c, h, "name", path);
    out->shape = get_name(c, h, "shape", path);
    out->phase = get_name(c, h, "phase", path);
    out->outcome = get_name(c, h, "outcome", path);
    out->lowest = get_int(c, h, "lowest", path);
    out->highest = get_int(c, h, "highest", path);
    out->sigfigs = (int)get_int(c, h, "sigfigs", path);
    out->count = get_int(c, h, "count", path);
    out->min = get_int(c, h, "min", path);
    out->max = get_int(c, h, "max", path);
    out->mean = get_num(c, h, "mean", path);
    out->stddev = get_num(c, h, "stddev", path);
    if (out->lowest <= 0)
        out->lowest = 1;
    if (out->highest <= 0)
        out->highest = INT64_C(3600000000000);
    if (out->sigfigs <= 0)
        out->sigfigs = 3;
    if ((out->sigfigs > 5 || out->highest / 2 < out->lowest) && c->rc == DRA_OK) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "%s: layout sigfigs %d, lowest %lld, highest %lld is not a histogram "
                             "(sigfigs 1..5, highest >= 2 * lowest)",
                             path, out->sigfigs, (long long)out->lowest, (long long)out->highest);
        return;
    }
    const json_t *b = get_arr(c, h, "buckets", path);
    size_t n = b ? json_array_size(b) : 0;
    out->bucket_value = alloc_arr(c, n, sizeof(int64_t));
    out->bucket_count = alloc_arr(c, n, sizeof(int64_t));
    if (c->rc)
        return;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *pair = json_array_get(b, i);
        const json_t *v = json_array_get(pair, 0), *k = json_array_get(pair, 1);
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(v) ||
            !json_is_integer(k) || json_integer_value(k) < 0) {
            char p[320];
            snprintf(p, sizeof p, "%s.buckets[%zu]", path, i);
            if (c->rc == DRA_OK)
                c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                                     "%s: expected [value, count] with non-negative integers", p);
            return;
        }
        out->bucket_value[i] = (int64_t)json_integer_value(v);
        out->bucket_count[i] = (int64_t)json_integer_value(k);
        sum += out->bucket_count[i] > HIST_MAX_COUNT ? HIST_MAX_COUNT + 1 : out->bucket_count[i];
        if (sum > HIST_MAX_COUNT || c->samples + sum > FILE_MAX_SAMPLES) {
            if (c->rc == DRA_OK)
                c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                                     "%s.buckets: more than 2^40 samples in one histogram or "
                                     "2^44 in one file",
                                     path);
            return;
        }
    }
    c->samples += sum;
    out->nbuckets = n;
}

static void load_rep(ctx_t *c, const json_t *r, size_t ri, dra_rload_rep_t *out)
{
    char path[128];
    snprintf(path, sizeof path, "repetitions[%zu]", ri);
    if (!json_is_object(r)) {
        type_error(c, path, "an object", r);
        return;
    }
    out->index = json_object_get(r, "index") ? get_int(c, r, "index", path) : (int64_t)ri;
    out->wall_ns = get_int(c, r, "wall_ns", path);
    out->pods = get_int(c, r, "pods", path);
    out->claims = get_int(c, r, "claims", path);
    char sub[256];
    snprintf(sub, sizeof sub, "%s.outcomes", path);
    const json_t *oc = get_obj(c, r, "outcomes", path);
    out->allocated = get_int(c, oc, "allocated", sub);
    out->unsatisfiable = get_int(c, oc, "unsatisfiable", sub);
    out->node_failure = get_int(c, oc, "node_failure", sub);
    out->fatal = get_int(c, oc, "fatal", sub);
    out->digest = get_name(c, r, "digest", path);

    const json_t *vals = json_object_get(r, "values");
    if (!vals || !json_is_object(vals)) {
        snprintf(sub, sizeof sub, "%s.values", path);
        if (!vals) {
            if (c->rc == DRA_OK)
                c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0, "%s: missing", sub);
        } else {
            type_error(c, sub, "an object", vals);
        }
        return;
    }
    size_t nv = json_object_size(vals);
    out->value_names = alloc_arr(c, nv, sizeof(char *));
    out->values = alloc_arr(c, nv, sizeof(double));
    if (c->rc)
        return;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)vals, key, v) {
        if (json_is_null(v))
            continue;
        snprintf(sub, sizeof sub, "%s.values", path);
        if (!check_name(c, sub, key))
            return;
        if (!json_is_number(v)) {
            snprintf(sub, sizeof sub, "%s.values.%s", path, key);
            type_error(c, sub, "a number", v);
            return;
        }
        out->value_names[out->nvalues] = dup(c, key);
        out->values[out->nvalues] = json_number_value(v);
        out->nvalues++;
    }

    const json_t *hs = get_arr(c, r, "histograms", path);
    size_t nh = hs ? json_array_size(hs) : 0;
    out->hists = alloc_arr(c, nh, sizeof(dra_rload_hist_t));
    if (c->rc)
        return;
    for (size_t i = 0; i < nh && !c->rc; i++) {
        snprintf(sub, sizeof sub, "%s.histograms[%zu]", path, i);
        load_hist(c, json_array_get(hs, i), sub, &out->hists[i]);
    }
    out->nhists = nh;

    snprintf(sub, sizeof sub, "%s.fragmentation", path);
    const json_t *fr = get_obj(c, r, "fragmentation", path);
    out->idle_gpus_unusable = get_num(c, fr, "idle_gpus_unusable", sub);
    out->stranded_mig_fraction = get_num(c, fr, "stranded_mig_fraction", sub);
    out->partial_nvlink_domains = get_num(c, fr, "partial_nvlink_domains", sub);
    const json_t *samples = get_arr(c, fr, "samples", sub);
    size_t rows = samples ? json_array_size(samples) : 0, cols = 0;
    for (size_t i = 0; i < rows; i++) {
        const json_t *row = json_array_get(samples, i);
        if (json_is_array(row) && json_array_size(row) > cols)
            cols = json_array_size(row);
    }
    if (rows && cols) {
        size_t cells;
        if (__builtin_mul_overflow(rows, cols, &cells)) {
            oom(c);
            return;
        }
        out->frag = alloc_arr(c, cells, sizeof(double));
        if (c->rc)
            return;
        for (size_t i = 0; i < rows; i++) {
            const json_t *row = json_array_get(samples, i);
            if (!json_is_array(row)) {
                char p[320];
                snprintf(p, sizeof p, "%s.samples[%zu]", sub, i);
                type_error(c, p, "an array", row);
                return;
            }
            for (size_t j = 0; j < cols; j++) {
                const json_t *x = json_array_get(row, j);
                out->frag[i * cols + j] = x && json_is_number(x) ? json_number_value(x) : 0.0;
            }
        }
        out->nfrag_rows = rows;
        out->nfrag_cols = cols;
    }
    snprintf(sub, sizeof sub, "%s.invariants", path);
    const json_t *inv = get_obj(c, r, "invariants", path);
    out->inv_checked = get_int(c, inv, "checked", sub);
    out->inv_violations = get_int(c, inv, "violations", sub);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *features_string(ctx_t *c, const json_t *f)
{
    if (!f)
        return "";
    size_t n = json_object_size(f), i = 0, total = 1;
    const char **keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys) {
        oom(c);
        return "";
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)f, k, v) {
        if (!check_name(c, "run.features", k)) {
            free(keys);
            return "";
        }
        keys[i++] = k;
        total += strlen(k) + 8;
    }
    qsort(keys, n, sizeof *keys, cmp_cstr);
    char *s = dra_arena_alloc(c->a, total, 1);
    if (!s) {
        free(keys);
        oom(c);
        return "";
    }
    size_t pos = 0;
    s[0] = '\0';
    for (i = 0; i < n; i++) {
        const json_t *val = json_object_get(f, keys[i]);
        pos += (size_t)snprintf(s + pos, total - pos, "%s%s=%s", i ? "," : "", keys[i],
                                json_is_true(val) ? "true" : "false");
    }
    free(keys);
    return s;
}

/* Host fingerprint from the loaded facts (hostinfo.h); never trusted from the file. */
static void load_fingerprint(ctx_t *c, dra_rload_result_t *r)
{
    char hex[17];
    uint64_t fp = dra_host_fingerprint(r->cpu_model, (long long)r->cpus, r->host_kernel,
                                       r->compiler, r->build_type, r->flags, r->sanitize, r->native);
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fp);
    r->fingerprint = dup(c, hex);
}

static int b64_value(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* `decisions`: {shapes, pods, records}. Optional; a malformed one is an error, naming the key. */
static void load_decisions(ctx_t *c, const json_t *d, dra_rload_result_t *r)
{
    if (!d || c->rc)
        return;
    if (!json_is_object(d)) {
        type_error(c, "decisions", "an object", d);
        return;
    }
    const json_t *sh = json_object_get(d, "shapes"), *pods = json_object_get(d, "pods"),
                 *rec = json_object_get(d, "records");
    if (!json_is_array(sh) || !json_is_integer(pods) || !json_is_string(rec) ||
        json_integer_value(pods) < 0 || json_array_size(sh) > 256) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "decisions: expected {shapes: [names], pods: N, records: base64}");
        return;
    }
    size_t n = (size_t)json_integer_value(pods), len = json_string_length(rec);
    const char *txt = json_string_value(rec);
    if (len != 4 * ((n * 5 + 2) / 3)) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "decisions.records: %zu characters for %zu pods (want %zu)", len, n,
                             4 * ((n * 5 + 2) / 3));
        return;
    }
    r->dec_shapes = alloc_arr(c, json_array_size(sh), sizeof *r->dec_shapes);
    r->dec_shape = alloc_arr(c, n, 1);
    r->dec_hash = alloc_arr(c, n, sizeof *r->dec_hash);
    if (c->rc)
        return;
    for (size_t i = 0; i < json_array_size(sh); i++) {
        const char *nm = json_string_value(json_array_get(sh, i));
        r->dec_shapes[i] = dup(c, nm ? nm : "?");
    }
    r->ndec_shapes = json_array_size(sh);
    uint8_t rec5[5];
    size_t nb = 0, pod = 0;
    uint32_t acc = 0;
    int nacc = 0;
    for (size_t i = 0; i < len && pod < n; i++) {
        if (txt[i] == '=')
            break;
        int v = b64_value(txt[i]);
        if (v < 0) {
            c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                                 "decisions.records: not base64 at character %zu", i);
            return;
        }
        acc = (acc << 6) | (uint32_t)v;
        if (++nacc == 4) {
            uint8_t b3[3] = {(uint8_t)(acc >> 16), (uint8_t)(acc >> 8), (uint8_t)acc};
            for (int k = 0; k < 3 && pod < n; k++) {
                rec5[nb++] = b3[k];
                if (nb == 5) {
                    r->dec_shape[pod] = rec5[0];
                    r->dec_hash[pod] = (uint32_t)rec5[1] | (uint32_t)rec5[2] << 8 |
                                       (uint32_t)rec5[3] << 16 | (uint32_t)rec5[4] << 24;
                    pod++;
                    nb = 0;
                }
            }
            acc = 0;
            nacc = 0;
        }
    }
    if (nacc >= 2) { /* the tail group */
        acc <<= 6 * (4 - nacc);
        uint8_t b3[3] = {(uint8_t)(acc >> 16), (uint8_t)(acc >> 8), (uint8_t)acc};
        for (int k = 0; k < nacc - 1 && pod < n; k++) {
            rec5[nb++] = b3[k];
            if (nb == 5) {
                r->dec_shape[pod] = rec5[0];
                r->dec_hash[pod] = (uint32_t)rec5[1] | (uint32_t)rec5[2] << 8 |
                                   (uint32_t)rec5[3] << 16 | (uint32_t)rec5[4] << 24;
                pod++;
                nb = 0;
            }
        }
    }
    if (pod != n) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "decisions.records: %zu of %zu pods decoded", pod, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (r->dec_shape[i] >= r->ndec_shapes) {
            c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                                 "decisions.records: pod %zu has mix entry %u of %zu", i,
                                 r->dec_shape[i], r->ndec_shapes);
            return;
        }
    r->dec_pods = n;
}

static void load_root(ctx_t *c, const json_t *root, dra_rload_result_t *r)
{
    if (!json_is_object(root)) {
        type_error(c, "top level", "an object", root);
        return;
    }
    const json_t *schema = json_object_get(root, "schema");
    if (!schema || !json_is_string(schema)) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "not a drabench result file (no \"schema\" string; expected \"%s\")",
                             DRA_RLOAD_SCHEMA);
        return;
    }
    if (strcmp(json_string_value(schema), DRA_RLOAD_SCHEMA) != 0) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "unsupported schema \"%s\" (this drabench reads \"%s\")",
                             json_string_value(schema), DRA_RLOAD_SCHEMA);
        return;
    }
    r->status = get_name(c, root, "status", "");
    if (!*r->status)
        r->status = "complete";
    if (strcmp(r->status, "complete") != 0 && strcmp(r->status, "interrupted") != 0 &&
        c->rc == DRA_OK)
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "status: \"%s\" (expected \"complete\" or \"interrupted\")", r->status);

    const json_t *tool = get_obj(c, root, "tool", "");
    r->tool_version = get_name(c, tool, "version", "tool");
    r->tool_git = get_name(c, tool, "git", "tool");
    r->build_type = get_name(c, tool, "build_type", "tool");
    r->compiler = get_str(c, tool, "compiler", "tool");
    r->flags = get_str(c, tool, "flags", "tool");
    const json_t *san = tool ? json_object_get(tool, "sanitize") : NULL;
    if (san && json_is_array(san)) {
        char buf[256] = "";
        size_t pos = 0;
        for (size_t i = 0; i < json_array_size(san) && pos < sizeof buf - 1; i++) {
            const char *s = json_string_value(json_array_get(san, i));
            if (s && !check_name(c, "tool.sanitize", s))
                return;
            pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%s", i ? "," : "",
                                    s ? s : "?");
            if (pos >= sizeof buf)
                pos = sizeof buf - 1;
        }
        r->sanitize = dup(c, buf);
    } else {
        r->sanitize = get_str(c, tool, "sanitize", "tool");
    }
    r->native = get_bool(c, tool, "native", "tool");
    const json_t *kern = get_obj(c, tool, "kernel", "tool");
    r->kernel = get_name(c, kern, "selected", "tool.kernel");

    const json_t *host = get_obj(c, root, "host", "");
    r->hostname = get_str(c, host, "hostname", "host");
    r->date = get_name(c, host, "date", "host");
    /* RFC 3339 characters only: the date becomes part of an export file name */
    if (r->date[strspn(r->date, "0123456789-:.+TZ")] != '\0' && c->rc == DRA_OK)
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0,
                             "host.date: \"%s\" is not an RFC 3339 date", r->date);
    r->host_kernel = get_str(c, host, "kernel", "host");
    r->cpu_model = get_str(c, host, "cpu_model", "host");
    r->governor = get_str(c, host, "governor", "host");
    r->cpus = get_int(c, host, "cpus", "host");
    r->mhz = get_num(c, host, "mhz", "host");

    const json_t *run = json_object_get(root, "run");
    if (!run || !json_is_object(run)) {
        if (c->rc == DRA_OK) {
            if (run)
                type_error(c, "run", "an object", run);
            else
                c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0, "run: missing");
        }
        return;
    }
    r->scenario = get_str(c, run, "scenario", "run");
    if (!*r->scenario && c->rc == DRA_OK) {
        c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0, "run.scenario: missing or empty");
        return;
    }
    r->scenario_hash = get_name(c, run, "scenario_hash", "run");
    r->cluster_hash = get_name(c, run, "cluster_hash", "run");
    r->workload_hash = get_name(c, run, "workload_hash", "run");
    r->seed = get_name(c, run, "seed", "run");
    r->seed_hex = get_name(c, run, "seed_hex", "run");
    r->release = get_name(c, run, "release", "run");
    r->allocator = get_name(c, run, "allocator", "run");
    r->policy = get_name(c, run, "policy", "run");
    r->invariant_mode = get_name(c, run, "invariant_mode", "run");
    r->features = features_string(c, get_obj(c, run, "features", "run"));
    r->upstream_bugs = get_bool(c, run, "upstream_bugs", "run");
    r->has_test_delay = json_object_get(run, "test_delay_ns") != NULL;
    r->test_delay_ns = get_int(c, run, "test_delay_ns", "run");
    const json_t *method = get_obj(c, run, "method", "run");
    r->warmup = get_int(c, method, "warmup", "run.method");
    r->repetitions_planned = get_int(c, method, "repetitions", "run.method");
    r->timer_resolution_ns = get_int(c, method, "timer_resolution_ns", "run.method");
    r->workload_count = get_int(c, run, "workload_count", "run");
    load_fingerprint(c, r);
    const json_t *la = host ? json_object_get(host, "load_avg") : NULL;
    r->load1 = json_is_array(la) && json_is_number(json_array_get(la, 0))
                   ? json_number_value(json_array_get(la, 0))
                   : -1;
    load_decisions(c, json_object_get(root, "decisions"), r);

    const json_t *cl = get_obj(c, root, "cluster", "");
    r->nodes = get_int(c, cl, "nodes", "cluster");
    r->slices = get_int(c, cl, "slices", "cluster");
    r->devices = get_int(c, cl, "devices", "cluster");
    r->arena_high_water_bytes = get_int(c, cl, "arena_high_water_bytes", "cluster");

    const json_t *reps = json_object_get(root, "repetitions");
    if (!reps || !json_is_array(reps)) {
        if (c->rc == DRA_OK) {
            if (reps)
                type_error(c, "repetitions", "an array", reps);
            else
                c->rc = dra_diag_set(c->d, DRA_EVALIDATE, c->file, 0, 0, "repetitions: missing");
        }
        return;
    }
    size_t nr = json_array_size(reps);
    r->reps = alloc_arr(c, nr, sizeof(dra_rload_rep_t));
    if (c->rc)
        return;
    for (size_t i = 0; i < nr && !c->rc; i++)
        load_rep(c, json_array_get(reps, i), i, &r->reps[i]);
    r->nreps = nr;

    const json_t *mets = get_obj(c, root, "metrics", "");
    size_t nm = mets ? json_object_size(mets) : 0;
    r->metrics = alloc_arr(c, nm, sizeof(dra_rload_metric_t));
    if (c->rc)
        return;
    const char *key;
    const json_t *m;
    json_object_foreach((json_t *)mets, key, m) {
        char p[256];
        if (!check_name(c, "metrics", key))
            return;
        snprintf(p, sizeof p, "metrics.%s", key);
        if (!json_is_object(m)) {
            type_error(c, p, "an object", m);
            return;
        }
        dra_rload_metric_t *e = &r->metrics[r->nmetrics++];
        e->name = dup(c, key);
        e->unit = get_name(c, m, "unit", p);
        const char *b = get_str(c, m, "better", p);
        if (strcmp(b, "higher") == 0)
            e->better = DRA_RLOAD_BETTER_HIGHER;
        else if (strcmp(b, "lower") == 0)
            e->better = DRA_RLOAD_BETTER_LOWER;
        else
            e->better = DRA_RLOAD_BETTER_NONE;
        e->exact = get_bool(c, m, "exact", p);
        if (get_bool(c, m, "informational", p))
            e->better = DRA_RLOAD_BETTER_NONE;
    }

    const json_t *inv = get_obj(c, root, "invariants", "");
    r->inv_checked = get_int(c, inv, "checked", "invariants");
    r->inv_violations = get_int(c, inv, "violations", "invariants");
    const json_t *first = get_arr(c, inv, "first", "invariants");
    size_t nf = first ? json_array_size(first) : 0;
    r->first = alloc_arr(c, nf, sizeof(char *));
    if (c->rc)
        return;
    for (size_t i = 0; i < nf; i++) {
        const json_t *f = json_array_get(first, i);
        char p[64], buf[1024];
        snprintf(p, sizeof p, "invariants.first[%zu]", i);
        if (!json_is_object(f)) {
            type_error(c, p, "an object", f);
            return;
        }
        const char *pod = get_str(c, f, "pod", p), *claim = get_str(c, f, "claim", p);
        const char *node = get_str(c, f, "node", p), *msg = get_str(c, f, "message", p);
        snprintf(buf, sizeof buf, "repetition %lld%s%s%s%s%s%s: %s",
                 (long long)get_int(c, f, "repetition", p), *pod ? " pod " : "", pod,
                 *claim ? " claim " : "", claim, *node ? " node " : "", node, msg);
        r->first[r->nfirst++] = dup(c, buf);
    }
    /* A file whose totals disagree with its repetitions counts the larger figure. */
    int64_t rep_viol = 0;
    for (size_t i = 0; i < r->nreps; i++)
        rep_viol += r->reps[i].inv_violations;
    if (rep_viol > r->inv_violations)
        r->inv_violations = rep_viol;
    r->digest = get_name(c, root, "digest", "");
    if (!*r->digest && r->nreps)
        r->digest = r->reps[0].digest;
}

/* Give a validation error the line:col of its field: jansson keeps no positions, so on an
 * error (only then) the text is parsed again with positions (ydoc) and the JSON path walked. */
static int locate_doc(const dra_ynode_t *root, void *ud)
{
    const dra_ynode_t **out = ud;
    *out = root;
    return DRA_OK;
}

static void locate(const char *buf, size_t len, const char *name, const char *path,
                   dra_diag_t *diag)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    const dra_ynode_t *root = NULL;
    if (dra_ydoc_parse_json(buf, len, name, &a, 0, locate_doc, &root, NULL) == DRA_OK && root) {
        const dra_ynode_t *at = dra_ynode_at_path(root, path);
        if (at && at != root && at->line) {
            diag->line = at->line;
            diag->column = at->column;
        }
    }
    dra_arena_fini(&a);
}

int dra_rload_buf(const char *buf, size_t len, const char *name, dra_rload_result_t *out,
                  dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    dra_arena_init(&out->arena, 64 * 1024);
    json_error_t jerr;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        int rc = dra_diag_set(diag, DRA_EPARSE, name, jerr.line > 0 ? (uint32_t)jerr.line : 0,
                              jerr.column > 0 ? (uint32_t)jerr.column : 0, "invalid JSON: %s",
                              jerr.text);
        dra_rload_fini(out);
        return rc;
    }
    ctx_t c = {.file = name, .a = &out->arena, .d = diag, .rc = DRA_OK};
    out->path = dup(&c, name);
    load_root(&c, root, out);
    json_decref(root);
    if (c.rc == DRA_EVALIDATE && diag && c.err_path[0])
        locate(buf, len, name, c.err_path, diag);
    if (c.rc != DRA_OK) {
        dra_rload_fini(out);
        return c.rc;
    }
    return DRA_OK;
}

int dra_rload_file(const char *path, dra_rload_result_t *out, dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0;
    int rc = dra_cli_read_file(path, RLOAD_MAX_FILE, &buf, &len, diag);
    if (rc != DRA_OK)
        return rc;
    rc = dra_rload_buf(buf, len, path, out, diag);
    free(buf);
    return rc;
}

void dra_rload_fini(dra_rload_result_t *r)
{
    if (!r)
        return;
    dra_arena_fini(&r->arena);
    memset(r, 0, sizeof *r);
}

const dra_rload_metric_t *dra_rload_metric(const dra_rload_result_t *r, const char *name)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0)
            return &r->metrics[i];
    return NULL;
}

bool dra_rload_value(const dra_rload_rep_t *rep, const char *name, double *out)
{
    for (size_t i = 0; i < rep->nvalues; i++)
        if (strcmp(rep->value_names[i], name) == 0) {
            *out = rep->values[i];
            return true;
        }
    return false;
}

int dra_rload_default_better(const char *metric)
{
    if (strncmp(metric, "throughput.", 11) == 0)
        return DRA_RLOAD_BETTER_HIGHER;
    if (strncmp(metric, "latency.", 8) == 0 || strncmp(metric, "table.", 6) == 0 ||
        strncmp(metric, "search.", 7) == 0)
        return DRA_RLOAD_BETTER_LOWER;
    return DRA_RLOAD_BETTER_NONE;
}
