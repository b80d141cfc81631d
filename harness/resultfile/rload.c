/* rload.c - result file loader; see rload.h. The fields, their types, limits and where they go
 * in dra_rload_result_t are schema.def's: the walker (schema.h) checks and stores them; this file
 * allocates the arrays, and builds what a table row cannot (metric values, histogram buckets,
 * fragmentation samples, feature string, violations text, decisions, defaults). */
#include "rload.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "hostinfo.h"
#include "schema.h"
#include "ydoc.h"


/* Histogram counts are summed when readers pool repetitions and files (int64_t): one histogram
 * may hold at most 2^40 samples and one file 2^44, so no realistic number of files overflows. */
#define HIST_MAX_COUNT (INT64_C(1) << 40)
#define FILE_MAX_SAMPLES (INT64_C(1) << 44)

typedef struct {
    dra_rs_walk_t w;
    dra_rload_result_t *r;
    int64_t samples;      /* histogram counts in the whole file (bounded: readers pool them) */
    dra_rs_first_t first; /* the invariants.first element being read */
} ctx_t;

static int oom(ctx_t *c)
{
    if (c->w.rc == DRA_OK)
        c->w.rc = dra_diag_set(c->w.diag, DRA_ENOMEM, c->w.file, 0, 0, "out of memory");
    return c->w.rc;
}

static const char *dup(ctx_t *c, const char *s)
{
    char *p = dra_arena_strdup(c->w.arena, s ? s : "");
    if (!p)
        oom(c);
    return p ? p : "";
}

static void *alloc_arr(ctx_t *c, size_t n, size_t size)
{
    void *p = dra_arena_calloc(c->w.arena, n ? n : 1, size, 16);
    if (!p)
        oom(c);
    return p;
}

/* Layout and buckets of a histogram whose fields the walker has stored. */
static void hist_post(ctx_t *c, const json_t *h, const char *path, dra_rload_hist_t *out)
{
    if (out->lowest <= 0)
        out->lowest = 1;
    if (out->highest <= 0)
        out->highest = INT64_C(3600000000000);
    if (out->sigfigs <= 0)
        out->sigfigs = 3;
    if (out->sigfigs > 5 || out->highest / 2 < out->lowest) {
        dra_rs_fail(&c->w, path,
                    "layout sigfigs %d, lowest %lld, highest %lld is not a histogram "
                    "(sigfigs 1..5, highest >= 2 * lowest)",
                    out->sigfigs, (long long)out->lowest, (long long)out->highest);
        return;
    }
    const json_t *b = dra_rf_get(h, DRA_RF_HIST_BUCKETS);
    size_t n = json_is_array(b) ? json_array_size(b) : 0;
    out->bucket_value = alloc_arr(c, n, sizeof(int64_t));
    out->bucket_count = alloc_arr(c, n, sizeof(int64_t));
    if (c->w.rc)
        return;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) { /* pairs of integers, counts >= 0: checked by the walker */
        const json_t *pair = json_array_get(b, i);
        out->bucket_value[i] = (int64_t)json_integer_value(json_array_get(pair, 0));
        out->bucket_count[i] = (int64_t)json_integer_value(json_array_get(pair, 1));
        sum += out->bucket_count[i] > HIST_MAX_COUNT ? HIST_MAX_COUNT + 1 : out->bucket_count[i];
        if (sum > HIST_MAX_COUNT || c->samples + sum > FILE_MAX_SAMPLES) {
            char p[320];
            snprintf(p, sizeof p, "%s.%s", path, dra_rf_key(DRA_RF_HIST_BUCKETS));
            dra_rs_fail(&c->w, p, "more than 2^40 samples in one histogram or 2^44 in one file");
            return;
        }
    }
    c->samples += sum;
    out->nbuckets = n;
}

/* Rows of numbers (t first), ragged rows padded with 0: *out, *nrows, *ncols; path names the
 * array in an error. */
static void rows_post(ctx_t *c, const json_t *samples, const char *path, double **outp,
                      size_t *nrows, size_t *ncols)
{
    size_t rows = json_array_size(samples), cols = 0;
    for (size_t i = 0; i < rows; i++)
        if (json_array_size(json_array_get(samples, i)) > cols)
            cols = json_array_size(json_array_get(samples, i));
    if (!rows || !cols)
        return;
    /* ragged rows are padded: bound the padding by the numbers the file holds, so a few
     * hundred kilobytes of one long row and many short ones cannot ask for gigabytes */
    size_t numbers = 0, cells;
    for (size_t i = 0; i < rows; i++)
        numbers += json_array_size(json_array_get(samples, i));
    if (__builtin_mul_overflow(rows, cols, &cells) || cells / 4 > numbers) {
        dra_rs_fail(&c->w, path, "rows of very unequal length (%zu rows, the longest %zu numbers)", rows, cols);
        return;
    }
    double *d = alloc_arr(c, cells, sizeof(double));
    if (c->w.rc)
        return;
    for (size_t i = 0; i < rows; i++) {
        const json_t *row = json_array_get(samples, i);
        for (size_t j = 0; j < cols; j++) {
            const json_t *x = json_array_get(row, j);
            d[i * cols + j] = x && json_is_number(x) ? json_number_value(x) : 0.0;
        }
    }
    *outp = d;
    *nrows = rows;
    *ncols = cols;
}

/* fragmentation.samples */
static void frag_post(ctx_t *c, const json_t *samples, const char *path, dra_rload_rep_t *out)
{
    rows_post(c, samples, path, &out->frag, &out->nfrag_rows, &out->nfrag_cols);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* run.features as "gate=true,gate=true" (sorted): the gates that are on. A gate off and a gate a
 * file does not list are the same input (a build that did not know a gate ran without it, as
 * every new gate starts off): the committed baseline, written before the features list grew
 * by two gates off by default, was "not comparable" with every run after. Keys are names
 * (checked by the walker). */
static const char *features_string(ctx_t *c, const json_t *f)
{
    size_t n = json_object_size(f), i = 0, total = 1;
    const char **keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys) {
        oom(c);
        return "";
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)f, k, v)
    {
        keys[i++] = k;
        total += strlen(k) + 8;
    }
    qsort(keys, n, sizeof *keys, cmp_cstr);
    char *s = dra_arena_alloc(c->w.arena, total, 1);
    if (!s) {
        free(keys);
        oom(c);
        return "";
    }
    size_t pos = 0;
    s[0] = '\0';
    for (i = 0; i < n; i++) {
        if (!json_is_true(json_object_get(f, keys[i])))
            continue;
        pos += (size_t)snprintf(s + pos, total - pos, "%s%s=true", pos ? "," : "", keys[i]);
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
    if (!d || c->w.rc)
        return;
    const json_t *sh = dra_rf_get(d, DRA_RF_DEC_SHAPES), *pods = dra_rf_get(d, DRA_RF_DEC_PODS),
                 *rec = dra_rf_get(d, DRA_RF_DEC_RECORDS);
    /* types checked by the walker (schema.def); records may be absent for no pods */
    if (!json_is_array(sh) || !json_is_integer(pods) || (rec && !json_is_string(rec)) ||
        json_integer_value(pods) < 0 || json_array_size(sh) > 256) {
        dra_rs_fail(&c->w, "", "decisions: expected {shapes: [names], pods: N, records: base64}");
        return;
    }
    size_t n = (size_t)json_integer_value(pods), len = rec ? json_string_length(rec) : 0;
    const char *txt = rec ? json_string_value(rec) : "";
    /* every pod takes more than one character of records (a file holds at most 2^30): bound n
     * before the arithmetic below, which a huge count would wrap into a giant allocation */
    if (n > len) {
        dra_rs_fail(&c->w, "decisions.pods", "%zu pods but records holds %zu characters (want "
                                             "4 per 3 bytes of 5-byte records)", n, len);
        return;
    }
    if (len != 4 * ((n * 5 + 2) / 3)) {
        dra_rs_fail(&c->w, "", "decisions.records: %zu characters for %zu pods (want %zu)", len, n,
                    4 * ((n * 5 + 2) / 3));
        return;
    }
    r->dec_shapes = alloc_arr(c, json_array_size(sh), sizeof *r->dec_shapes);
    r->dec_shape = alloc_arr(c, n, 1);
    r->dec_hash = alloc_arr(c, n, sizeof *r->dec_hash);
    if (c->w.rc)
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
            dra_rs_fail(&c->w, "", "decisions.records: not base64 at character %zu", i);
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
        dra_rs_fail(&c->w, "", "decisions.records: %zu of %zu pods decoded", pod, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (r->dec_shape[i] >= r->ndec_shapes) {
            dra_rs_fail(&c->w, "", "decisions.records: pod %zu has mix entry %u of %zu", i,
                        r->dec_shape[i], r->ndec_shapes);
            return;
        }
    r->dec_pods = n;
}

/* A count the walk checked (integer, or a real in a lenient file), 0 when absent; a real beyond
 * int64_t reads as 0 rather than converting out of range. */
static int64_t count_of(const json_t *x)
{
    if (json_is_integer(x))
        return (int64_t)json_integer_value(x);
    double d = json_number_value(x);
    return d >= 0 && d < 9.0e18 ? (int64_t)d : 0;
}

/* Containers of the walk: allocate element frames, build what the table cannot. */
static void *on_walk(dra_rs_walk_t *w, int ev, dra_rf_t f, const json_t *v, size_t i,
                     const char *key, const char *path, void *frame)
{
    ctx_t *c = w->ud;
    dra_rload_result_t *r = c->r;
    size_t n = ev != DRA_RS_BEGIN ? 0 : json_is_array(v) ? json_array_size(v) : json_object_size(v);
    switch (f) {
    case DRA_RF_REPETITIONS:
        if (ev == DRA_RS_BEGIN && (r->reps = alloc_arr(c, n, sizeof *r->reps)) != NULL)
            r->nreps = n;
        if (ev == DRA_RS_ELEM && r->reps) {
            r->reps[i].index = (int64_t)i; /* when the file does not say */
            return &r->reps[i];
        }
        return NULL;
    case DRA_RF_REP_VALUES: {
        dra_rload_rep_t *rep = frame;
        if (!rep)
            return NULL;
        if (ev == DRA_RS_BEGIN) {
            rep->value_names = alloc_arr(c, n, sizeof(char *));
            rep->values = alloc_arr(c, n, sizeof(double));
        } else if (ev == DRA_RS_ELEM && rep->values && !json_is_null(v)) {
            rep->value_names[rep->nvalues] = dup(c, key);
            rep->values[rep->nvalues++] = json_number_value(v);
        }
        return NULL;
    }
    case DRA_RF_REP_HISTOGRAMS: {
        dra_rload_rep_t *rep = frame;
        if (!rep)
            return NULL;
        if (ev == DRA_RS_BEGIN && (rep->hists = alloc_arr(c, n, sizeof *rep->hists)) != NULL)
            rep->nhists = n;
        if (ev == DRA_RS_ELEM && rep->hists)
            return &rep->hists[i];
        if (ev == DRA_RS_ELEM_END && frame)
            hist_post(c, v, path, frame);
        return NULL;
    }
    case DRA_RF_FRAG_SAMPLES:
        if (ev == DRA_RS_END && frame)
            frag_post(c, v, path, frame);
        return NULL;
    case DRA_RF_GROUPS_DOMAINS: {
        if (ev == DRA_RS_BEGIN || ev == DRA_RS_ELEM) {
            dra_rload_rep_t *rep = frame;
            if (!rep)
                return NULL;
            if (ev == DRA_RS_BEGIN &&
                (rep->domains = alloc_arr(c, n, sizeof *rep->domains)) != NULL)
                rep->ndomains = n;
            return ev == DRA_RS_ELEM && rep->domains && i < rep->ndomains ? &rep->domains[i]
                                                                           : NULL;
        }
        if (ev == DRA_RS_ELEM_END && frame) { /* frame: the element's entry */
            dra_rload_domains_t *dm = frame;
            const char *k = json_string_value(dra_rf_get(v, DRA_RF_GROUPS_DOMAINS_KEY));
            dm->key = k ? dup(c, k) : "";
            dm->total = (int64_t)json_integer_value(dra_rf_get(v, DRA_RF_GROUPS_DOMAINS_TOTAL));
            dm->gpus = (int64_t)json_integer_value(dra_rf_get(v, DRA_RF_GROUPS_DOMAINS_GPUS));
            const json_t *sm = dra_rf_get(v, DRA_RF_GROUPS_DOMAINS_SAMPLES);
            if (sm) {
                char p[320];
                snprintf(p, sizeof p, "%s.%s", path, dra_rf_key(DRA_RF_GROUPS_DOMAINS_SAMPLES));
                rows_post(c, sm, p, &dm->samples, &dm->nrows, &dm->ncols);
            }
        }
        return NULL;
    }
    case DRA_RF_GROUPS_ENTRIES: {
        if (ev == DRA_RS_BEGIN || ev == DRA_RS_ELEM) {
            dra_rload_rep_t *rep = frame;
            if (!rep)
                return NULL;
            if (ev == DRA_RS_BEGIN && (rep->groups = alloc_arr(c, n, sizeof *rep->groups)) != NULL)
                rep->ngroups = n;
            return ev == DRA_RS_ELEM && rep->groups && i < rep->ngroups ? &rep->groups[i] : NULL;
        }
        if (ev == DRA_RS_ELEM_END && frame) { /* frame: the element's entry; the walk checked it */
            dra_rload_group_t *g = frame;
            const char *sh = json_string_value(dra_rf_get(v, DRA_RF_GROUPS_ENTRY_SHAPE));
            const char *po = json_string_value(dra_rf_get(v, DRA_RF_GROUPS_ENTRY_POLICY));
            g->shape = sh ? dup(c, sh) : "";
            g->policy = po ? dup(c, po) : "";
#define GI(f) count_of(dra_rf_get(v, DRA_RF_GROUPS_ENTRY_##f))
            g->pods = GI(PODS);
            g->min_count = GI(MIN_COUNT);
            g->cycles = GI(CYCLES);
            g->placed = GI(PLACED);
            g->partial = GI(PARTIAL);
            g->unschedulable = GI(UNSCHEDULABLE);
            g->waiting = GI(WAITING);
            g->error = GI(ERROR);
            g->retries = GI(RETRIES);
            g->waited = GI(WAITED);
            g->still_waiting = GI(STILL_WAITING);
#undef GI
            g->wait_s_mean = json_number_value(dra_rf_get(v, DRA_RF_GROUPS_ENTRY_WAIT_S_MEAN));
            g->wait_s_max = json_number_value(dra_rf_get(v, DRA_RF_GROUPS_ENTRY_WAIT_S_MAX));
        }
        return NULL;
    }
    case DRA_RF_METRICS:
        if (ev == DRA_RS_BEGIN)
            r->metrics = alloc_arr(c, n, sizeof *r->metrics);
        if (ev == DRA_RS_ELEM && r->metrics) {
            dra_rload_metric_t *e = &r->metrics[r->nmetrics++];
            e->name = dup(c, key);
            return e;
        }
        if (ev == DRA_RS_ELEM_END && frame) {
            dra_rload_metric_t *e = frame;
            const char *b = json_string_value(dra_rf_get(v, DRA_RF_METRIC_BETTER));
            e->better = b && strcmp(b, "higher") == 0  ? DRA_RLOAD_BETTER_HIGHER
                        : b && strcmp(b, "lower") == 0 ? DRA_RLOAD_BETTER_LOWER
                                                       : DRA_RLOAD_BETTER_NONE;
            if (json_is_true(dra_rf_get(v, DRA_RF_METRIC_INFORMATIONAL)))
                e->better = DRA_RLOAD_BETTER_NONE;
        }
        return NULL;
    case DRA_RF_INV_FIRST:
        if (ev == DRA_RS_BEGIN)
            r->first = alloc_arr(c, n, sizeof(char *));
        if (ev == DRA_RS_ELEM) {
            memset(&c->first, 0, sizeof c->first);
            return &c->first;
        }
        if (ev == DRA_RS_ELEM_END && r->first) {
            const dra_rs_first_t *x = &c->first;
            char buf[1024];
            snprintf(buf, sizeof buf, "repetition %lld%s%s%s%s%s%s: %s", (long long)x->repetition,
                     *x->pod ? " pod " : "", x->pod, *x->claim ? " claim " : "", x->claim,
                     *x->node ? " node " : "", x->node, x->message);
            r->first[r->nfirst++] = dup(c, buf);
        }
        return NULL;
    case DRA_RF_RUN_FEATURES:
        if (ev == DRA_RS_END)
            r->features = features_string(c, v);
        return NULL;
    case DRA_RF_HOST_LOAD_AVG:
        if (ev == DRA_RS_END && json_is_number(json_array_get(v, 0)))
            r->load1 = json_number_value(json_array_get(v, 0));
        return NULL;
    case DRA_RF_DECISIONS:
        if (ev == DRA_RS_END)
            load_decisions(c, v, r);
        return NULL;
    default:
        return NULL;
    }
}

static void load_root(ctx_t *c, const json_t *root, dra_rload_result_t *r)
{
    if (!json_is_object(root)) {
        dra_rs_fail(&c->w, "top level", "expected an object, got %s",
                    json_is_array(root) ? "array" : "value");
        return;
    }
    const json_t *schema = dra_rf_get(root, DRA_RF_SCHEMA);
    if (!schema || !json_is_string(schema)) {
        dra_rs_fail(&c->w, "", "not a drabench result file (no \"schema\" string; expected \"%s\")",
                    DRA_RESULT_SCHEMA);
        return;
    }
    if (strcmp(json_string_value(schema), DRA_RESULT_SCHEMA) != 0) {
        dra_rs_fail(&c->w, "", "unsupported schema \"%s\" (this drabench reads \"%s\")",
                    json_string_value(schema), DRA_RESULT_SCHEMA);
        return;
    }
    r->features = "";
    r->load1 = -1;
    dra_rs_walk_obj(&c->w, DRA_RF_ROOT, root, "", r);
    if (c->w.rc)
        return;
    if (!*r->status)
        r->status = "complete";
    const json_t *delay = dra_rf_get(dra_rf_get(root, DRA_RF_RUN), DRA_RF_RUN_TEST_DELAY_NS);
    r->has_test_delay = delay && !json_is_null(delay);
    if (r->timing_version <= 0)
        r->timing_version = 1; /* written before timing versions existed */
    if (!r->release_look_ahead || !*r->release_look_ahead)
        r->release_look_ahead = "timed"; /* the only place before the option existed */
    load_fingerprint(c, r);
    /* A file whose totals disagree with its repetitions counts the larger figure. */
    int64_t rep_viol = 0;
    for (size_t i = 0; i < r->nreps; i++)
        rep_viol += r->reps[i].inv_violations;
    if (rep_viol > r->inv_violations)
        r->inv_violations = rep_viol;
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
    ctx_t c = {.w = {.mode = DRA_RS_LOAD,
                     .file = name,
                     .diag = diag,
                     .arena = &out->arena,
                     .hook = on_walk,
                     .rc = DRA_OK},
               .r = out};
    c.w.ud = &c;
    out->path = dup(&c, name);
    load_root(&c, root, out);
    json_decref(root);
    if (c.w.rc == DRA_EVALIDATE && diag && c.w.err_path[0])
        locate(buf, len, name, c.w.err_path, diag);
    if (c.w.rc != DRA_OK) {
        dra_rload_fini(out);
        return c.w.rc;
    }
    return DRA_OK;
}

int dra_rload_file(const char *path, dra_rload_result_t *out, dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0;
    int rc = dra_io_read_file(path, DRA_RLOAD_MAX_FILE, &buf, &len, diag);
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
