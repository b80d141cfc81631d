/* result.c - drabench-result/v1 pieces, writer and schema checker; see result.h. */
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "buildinfo.h"
#include "files.h"
#include "kern/kern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

const char *dra_result_hex64(uint64_t v, char buf[17])
{
    snprintf(buf, 17, "%016llx", (unsigned long long)v);
    return buf;
}

json_t *dra_result_hex_json(uint64_t v)
{
    char b[17];
    return json_string(dra_result_hex64(v, b));
}

json_t *dra_result_real(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

json_t *dra_result_tool_json(void)
{
    unsigned xv = XXH_versionNumber();
    char xxver[32], pcre[32];
    snprintf(xxver, sizeof xxver, "%u.%u.%u", xv / 10000, (xv / 100) % 100, xv % 100);
    snprintf(pcre, sizeof pcre, "%d.%d", PCRE2_MAJOR, PCRE2_MINOR);
    json_t *avail = json_array();
    for (const char *const *n = dra_kern_names(); n && *n; n++)
        if (dra_kern_lookup(*n))
            json_array_append_new(avail, json_string(*n));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:{s:s, s:o}, s:{s:s, s:s, s:s, s:s}}",
                     "name", "drabench", "version", DRA_VERSION, "git", DRA_BUILD_GIT,
                     "build_type", DRA_BUILD_TYPE, "compiler", DRA_BUILD_COMPILER, "flags",
                     DRA_BUILD_FLAGS, "sanitize", DRA_BUILD_SANITIZE, "native",
                     strcmp(DRA_BUILD_NATIVE, "ON") == 0 || strcmp(DRA_BUILD_NATIVE, "1") == 0,
                     "kernel", "selected", dra_kern_name(), "available", avail, "deps", "libyaml",
                     yaml_get_version_string(), "jansson", jansson_version_str(), "xxhash", xxver,
                     "pcre2", pcre);
}

json_t *dra_result_host_json(const dra_hostinfo_t *h)
{
    json_t *caches = json_array();
    for (int i = 0; i < h->ncaches; i++)
        json_array_append_new(caches, json_pack("{s:i, s:s, s:I}", "level", h->caches[i].level,
                                                "type", h->caches[i].type, "size_kib",
                                                (json_int_t)h->caches[i].size_kib));
    json_t *load = json_array();
    for (int i = 0; i < 3; i++)
        json_array_append_new(load, h->load_avg[i] >= 0 ? json_real(h->load_avg[i]) : json_null());
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:o, s:s, s:o, s:o, s:b, s:s}", "hostname",
                     h->hostname, "date", h->date, "kernel", h->kernel, "cpu_model", h->cpu_model,
                     "cpus", h->cpus, "mhz", h->has_mhz ? json_real(h->mhz) : json_null(),
                     "governor", h->governor, "caches", caches, "load_avg", load, "hw_counters",
                     h->hw_counters, "executable", h->executable);
}

void dra_result_set_fingerprint(json_t *doc)
{
    json_t *host = json_object_get(doc, "host"), *tool = json_object_get(doc, "tool");
    if (!json_is_object(host) || !json_is_object(tool))
        return;
    char san[256] = "";
    const json_t *sv = json_object_get(tool, "sanitize");
    if (json_is_array(sv)) {
        size_t pos = 0;
        for (size_t i = 0; i < json_array_size(sv) && pos < sizeof san - 1; i++) {
            const char *x = json_string_value(json_array_get(sv, i));
            pos += (size_t)snprintf(san + pos, sizeof san - pos, "%s%s", i ? "," : "", x ? x : "?");
            if (pos >= sizeof san)
                pos = sizeof san - 1;
        }
    } else if (json_is_string(sv)) {
        snprintf(san, sizeof san, "%s", json_string_value(sv));
    }
#define S_(o, k) (json_string_value(json_object_get(o, k)) ? json_string_value(json_object_get(o, k)) : "")
    uint64_t fp = dra_host_fingerprint(S_(host, "cpu_model"),
                                       (long long)json_integer_value(json_object_get(host, "cpus")),
                                       S_(host, "kernel"), S_(tool, "compiler"), S_(tool, "build_type"),
                                       S_(tool, "flags"), san,
                                       json_is_true(json_object_get(tool, "native")));
#undef S_
    json_object_set_new(host, "fingerprint", dra_result_hex_json(fp));
}

json_t *dra_result_hist_json(const dra_hist_t *h, const char *shape, const char *phase,
                             const char *outcome)
{
    char name[256];
    snprintf(name, sizeof name, "%s/%s/%s", shape, phase, outcome);
    json_t *buckets = json_array();
    if (!buckets)
        return NULL;
    dra_hist_iter_t it;
    dra_hist_iter_init(&it, h);
    while (dra_hist_iter_next(&it))
        json_array_append_new(buckets, json_pack("[I, I]", (json_int_t)it.bucket.lo,
                                                 (json_int_t)it.bucket.count));
    int64_t n = dra_hist_count(h);
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I, s:i, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o}",
        "name", name, "shape", shape, "phase", phase, "outcome", outcome, "lowest",
        (json_int_t)h->lowest, "highest", (json_int_t)h->highest, "sigfigs", (int)h->sigfigs,
        "count", (json_int_t)n, "min", (json_int_t)dra_hist_min(h), "max",
        (json_int_t)dra_hist_max(h), "mean", n ? json_real(dra_hist_mean(h)) : json_null(),
        "stddev", n > 1 ? json_real(dra_hist_stddev(h)) : json_null(), "p50",
        (json_int_t)dra_hist_percentile(h, 50), "p90", (json_int_t)dra_hist_percentile(h, 90),
        "p99", (json_int_t)dra_hist_percentile(h, 99), "p999",
        (json_int_t)dra_hist_percentile(h, 99.9), "out_of_range",
        (json_int_t)dra_hist_out_of_range(h), "buckets", buckets);
    return o;
}

int dra_result_hist_from_json(const json_t *o, dra_hist_t *h, dra_diag_t *diag)
{
    memset(h, 0, sizeof *h);
    json_int_t lo = json_integer_value(json_object_get(o, "lowest"));
    json_int_t hi = json_integer_value(json_object_get(o, "highest"));
    json_int_t sf = json_integer_value(json_object_get(o, "sigfigs"));
    int rc = dra_hist_init(h, lo, hi, (int)sf);
    if (rc)
        return dra_diag_set(diag, rc, NULL, 0, 0, "histogram: bad configuration");
    const json_t *b = json_object_get(o, "buckets");
    size_t i;
    const json_t *pair;
    json_array_foreach(b, i, pair)
    {
        json_int_t v = json_integer_value(json_array_get(pair, 0));
        json_int_t c = json_integer_value(json_array_get(pair, 1));
        if (v < h->lowest || v > h->highest || c < 0 || c > INT64_MAX - h->total_count) {
            dra_hist_fini(h);
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "histogram: bucket %zu out of range", i);
        }
        dra_hist_record_n(h, v, c);
    }
    json_int_t oor = json_integer_value(json_object_get(o, "out_of_range"));
    if (oor < 0 || oor > h->total_count) {
        long long total = (long long)h->total_count;
        dra_hist_fini(h);
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "histogram: out_of_range %lld outside 0..%lld (the total count)",
                            (long long)oor, total);
    }
    h->out_of_range = oor;
    return DRA_OK;
}

int dra_result_write(const json_t *doc, const char *path, dra_diag_t *diag)
{
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    if (!s)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "cannot serialize the result");
    size_t len = strlen(s);
    s[len] = '\0';
    char *buf = realloc(s, len + 2);
    if (!buf) {
        free(s);
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    }
    buf[len] = '\n';
    buf[len + 1] = '\0';
    int rc = dra_cli_write_file_atomic(path, buf, len + 1, diag);
    free(buf);
    return rc;
}

/* ---- schema check --------------------------------------------------------------------------- */

typedef struct chk {
    dra_diag_t *diag;
    int rc;
} chk_t;

static bool fail(chk_t *c, const char *path, const char *what)
{
    if (c->rc == DRA_OK)
        c->rc = dra_diag_set(c->diag, DRA_EVALIDATE, NULL, 0, 0, "%s: %s", path, what);
    return false;
}

enum { T_STR, T_INT, T_NUM, T_BOOL, T_OBJ, T_ARR, T_NUM_OR_NULL, T_HEX };

static const json_t *need(chk_t *c, const json_t *o, const char *prefix, const char *key, int type)
{
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", key);
    const json_t *v = json_object_get(o, key);
    if (!v) {
        fail(c, path, "missing");
        return NULL;
    }
    bool ok = true;
    switch (type) {
    case T_STR: ok = json_is_string(v); break;
    case T_INT: ok = json_is_integer(v); break;
    case T_NUM: ok = json_is_number(v); break;
    case T_BOOL: ok = json_is_boolean(v); break;
    case T_OBJ: ok = json_is_object(v); break;
    case T_ARR: ok = json_is_array(v); break;
    case T_NUM_OR_NULL: ok = json_is_number(v) || json_is_null(v); break;
    case T_HEX: {
        const char *s = json_string_value(v);
        ok = s && strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
        break;
    }
    }
    if (!ok) {
        static const char *const names[] = {"string",  "integer", "number",         "boolean",
                                            "object",  "array",   "number or null", "16 hex digits"};
        char msg[64];
        snprintf(msg, sizeof msg, "expected %s", names[type]);
        fail(c, path, msg);
        return NULL;
    }
    return v;
}

static void check_hist(chk_t *c, const json_t *h, const char *p)
{
    static const char *const ints[] = {"lowest", "highest", "sigfigs", "count", "min", "max",
                                       "p50",    "p90",     "p99",     "p999"};
    need(c, h, p, "name", T_STR);
    need(c, h, p, "shape", T_STR);
    const json_t *ph = need(c, h, p, "phase", T_STR);
    const json_t *oc = need(c, h, p, "outcome", T_STR);
    for (size_t i = 0; i < DRA_ARRAY_LEN(ints); i++)
        need(c, h, p, ints[i], T_INT);
    need(c, h, p, "mean", T_NUM_OR_NULL);
    need(c, h, p, "stddev", T_NUM_OR_NULL);
    const json_t *b = need(c, h, p, "buckets", T_ARR);
    if (ph) {
        static const char *const phases[] = {"node_search", "allocate", "commit", "release", "pod"};
        bool ok = false;
        for (size_t i = 0; i < DRA_ARRAY_LEN(phases); i++)
            ok |= strcmp(json_string_value(ph), phases[i]) == 0;
        if (!ok)
            fail(c, p, "unknown phase");
    }
    if (oc) {
        const char *s = json_string_value(oc);
        if (strcmp(s, "allocated") && strcmp(s, "unsatisfiable") && strcmp(s, "any"))
            fail(c, p, "unknown outcome");
    }
    if (!b)
        return;
    json_int_t sum = 0, prev = -1;
    size_t i;
    const json_t *pair;
    json_array_foreach(b, i, pair)
    {
        if (!json_is_array(pair) || json_array_size(pair) != 2 ||
            !json_is_integer(json_array_get(pair, 0)) || !json_is_integer(json_array_get(pair, 1))) {
            fail(c, p, "buckets: expected [value, count] integer pairs");
            return;
        }
        json_int_t v = json_integer_value(json_array_get(pair, 0));
        if (v <= prev) {
            fail(c, p, "buckets: values not increasing");
            return;
        }
        prev = v;
        sum += json_integer_value(json_array_get(pair, 1));
    }
    if (sum != json_integer_value(json_object_get(h, "count")))
        fail(c, p, "buckets do not sum to count");
}

static void check_rep(chk_t *c, const json_t *r, const char *p, const json_t *metrics)
{
    char q[128];
    need(c, r, p, "index", T_INT);
    need(c, r, p, "wall_ns", T_INT);
    need(c, r, p, "pods", T_INT);
    need(c, r, p, "claims", T_INT);
    need(c, r, p, "digest", T_HEX);
    const json_t *o = need(c, r, p, "outcomes", T_OBJ);
    if (o) {
        snprintf(q, sizeof q, "%s.outcomes", p);
        need(c, o, q, "allocated", T_INT);
        need(c, o, q, "unsatisfiable", T_INT);
        need(c, o, q, "node_failure", T_INT);
        need(c, o, q, "fatal", T_INT);
    }
    const json_t *v = need(c, r, p, "values", T_OBJ);
    if (v) {
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)v, k, x)
        {
            snprintf(q, sizeof q, "%s.values.%s", p, k);
            if (!json_is_number(x))
                fail(c, q, "expected number");
            else if (metrics && !json_object_get(metrics, k))
                fail(c, q, "not described in metrics");
        }
        static const char *const req[] = {"throughput.claims_per_s", "throughput.pods_per_s",
                                          "latency.pod.p50", "latency.pod.p99"};
        for (size_t i = 0; i < DRA_ARRAY_LEN(req); i++) {
            snprintf(q, sizeof q, "%s.values", p);
            need(c, v, q, req[i], T_NUM);
        }
    }
    const json_t *hs = need(c, r, p, "histograms", T_ARR);
    if (hs) {
        size_t i;
        const json_t *h;
        json_array_foreach(hs, i, h)
        {
            snprintf(q, sizeof q, "%s.histograms[%zu]", p, i);
            if (!json_is_object(h))
                fail(c, q, "expected object");
            else
                check_hist(c, h, q);
        }
    }
    const json_t *f = need(c, r, p, "fragmentation", T_OBJ);
    if (f) {
        snprintf(q, sizeof q, "%s.fragmentation", p);
        need(c, f, q, "idle_gpus_unusable", T_NUM);
        need(c, f, q, "stranded_mig_fraction", T_NUM);
        need(c, f, q, "partial_nvlink_domains", T_NUM);
        need(c, f, q, "samples", T_ARR);
    }
    const json_t *inv = need(c, r, p, "invariants", T_OBJ);
    if (inv) {
        snprintf(q, sizeof q, "%s.invariants", p);
        need(c, inv, q, "checked", T_INT);
        need(c, inv, q, "violations", T_INT);
    }
}

int dra_result_check(const json_t *doc, dra_diag_t *diag)
{
    chk_t c = {diag, DRA_OK};
    if (!json_is_object(doc)) {
        fail(&c, "$", "expected object");
        return c.rc;
    }
    const json_t *s = need(&c, doc, "", "schema", T_STR);
    if (s && strcmp(json_string_value(s), DRA_RESULT_SCHEMA) != 0)
        fail(&c, "schema", "expected \"" DRA_RESULT_SCHEMA "\"");
    const json_t *st = need(&c, doc, "", "status", T_STR);
    if (st && strcmp(json_string_value(st), "complete") && strcmp(json_string_value(st), "interrupted"))
        fail(&c, "status", "expected \"complete\" or \"interrupted\"");
    need(&c, doc, "", "digest", T_HEX);

    const json_t *t = need(&c, doc, "", "tool", T_OBJ);
    if (t) {
        static const char *const keys[] = {"name", "version", "git", "build_type", "compiler",
                                           "flags", "sanitize"};
        for (size_t i = 0; i < DRA_ARRAY_LEN(keys); i++)
            need(&c, t, "tool", keys[i], T_STR);
        need(&c, t, "tool", "native", T_BOOL);
        const json_t *k = need(&c, t, "tool", "kernel", T_OBJ);
        if (k) {
            need(&c, k, "tool.kernel", "selected", T_STR);
            need(&c, k, "tool.kernel", "available", T_ARR);
        }
        need(&c, t, "tool", "deps", T_OBJ);
    }
    const json_t *h = need(&c, doc, "", "host", T_OBJ);
    if (h) {
        static const char *const keys[] = {"hostname", "date", "kernel", "cpu_model", "governor",
                                           "executable"};
        for (size_t i = 0; i < DRA_ARRAY_LEN(keys); i++)
            need(&c, h, "host", keys[i], T_STR);
        need(&c, h, "host", "cpus", T_INT);
        need(&c, h, "host", "mhz", T_NUM_OR_NULL);
        need(&c, h, "host", "caches", T_ARR);
        need(&c, h, "host", "load_avg", T_ARR);
        need(&c, h, "host", "hw_counters", T_BOOL);
    }
    const json_t *r = need(&c, doc, "", "run", T_OBJ);
    if (r) {
        static const char *const strs[] = {"scenario", "seed", "release", "allocator", "policy",
                                           "invariant_mode"};
        for (size_t i = 0; i < DRA_ARRAY_LEN(strs); i++)
            need(&c, r, "run", strs[i], T_STR);
        need(&c, r, "run", "scenario_hash", T_HEX);
        need(&c, r, "run", "cluster_hash", T_HEX);
        need(&c, r, "run", "workload_hash", T_HEX);
        need(&c, r, "run", "seed_hex", T_HEX);
        need(&c, r, "run", "features", T_OBJ);
        need(&c, r, "run", "upstream_bugs", T_BOOL);
        need(&c, r, "run", "argv", T_ARR);
        const json_t *m = need(&c, r, "run", "method", T_OBJ);
        if (m) {
            need(&c, m, "run.method", "warmup", T_INT);
            need(&c, m, "run.method", "repetitions", T_INT);
            need(&c, m, "run.method", "timer", T_STR);
            need(&c, m, "run.method", "timer_resolution_ns", T_INT);
            need(&c, m, "run.method", "hist_sigfigs", T_INT);
            need(&c, m, "run.method", "interleaving", T_STR);
        }
        const json_t *d = json_object_get(r, "test_delay_ns");
        if (d && !json_is_integer(d))
            fail(&c, "run.test_delay_ns", "expected integer");
    }
    const json_t *cl = need(&c, doc, "", "cluster", T_OBJ);
    if (cl) {
        static const char *const keys[] = {"nodes", "slices", "devices", "pools", "build_ns",
                                           "table_build_ns", "table_bytes", "arena_high_water_bytes"};
        for (size_t i = 0; i < DRA_ARRAY_LEN(keys); i++)
            need(&c, cl, "cluster", keys[i], T_INT);
        need(&c, cl, "cluster", "bytes_per_device", T_NUM);
    }
    const json_t *metrics = need(&c, doc, "", "metrics", T_OBJ);
    if (metrics) {
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)metrics, k, x)
        {
            char q[160];
            snprintf(q, sizeof q, "metrics.%s", k);
            if (!json_is_object(x)) {
                fail(&c, q, "expected object");
                continue;
            }
            need(&c, x, q, "unit", T_STR);
            const json_t *b = need(&c, x, q, "better", T_STR);
            if (b && strcmp(json_string_value(b), "higher") && strcmp(json_string_value(b), "lower"))
                fail(&c, q, "better: expected \"higher\" or \"lower\"");
            need(&c, x, q, "exact", T_BOOL);
        }
    }
    const json_t *reps = need(&c, doc, "", "repetitions", T_ARR);
    if (reps) {
        size_t i;
        const json_t *rep;
        json_array_foreach(reps, i, rep)
        {
            char q[64];
            snprintf(q, sizeof q, "repetitions[%zu]", i);
            if (!json_is_object(rep))
                fail(&c, q, "expected object");
            else
                check_rep(&c, rep, q, metrics);
        }
        if (st && strcmp(json_string_value(st), "complete") == 0 && json_array_size(reps) == 0)
            fail(&c, "repetitions", "a complete run has at least one repetition");
    }
    const json_t *inv = need(&c, doc, "", "invariants", T_OBJ);
    if (inv) {
        need(&c, inv, "invariants", "mode", T_STR);
        need(&c, inv, "invariants", "checked", T_INT);
        need(&c, inv, "invariants", "violations", T_INT);
        const json_t *first = need(&c, inv, "invariants", "first", T_ARR);
        size_t i;
        const json_t *v;
        if (first)
            json_array_foreach(first, i, v)
            {
                char q[64];
                snprintf(q, sizeof q, "invariants.first[%zu]", i);
                need(&c, v, q, "repetition", T_INT);
                need(&c, v, q, "pod", T_INT);
                need(&c, v, q, "claim", T_STR);
                need(&c, v, q, "node", T_STR);
                need(&c, v, q, "message", T_STR);
            }
    }
    return c.rc;
}
