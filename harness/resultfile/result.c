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
    json_t *t = json_object();
    dra_rf_put_str(t, DRA_RF_TOOL_NAME, "drabench");
    dra_rf_put_str(t, DRA_RF_TOOL_VERSION, DRA_VERSION);
    dra_rf_put_str(t, DRA_RF_TOOL_GIT, DRA_BUILD_GIT);
    dra_rf_put_str(t, DRA_RF_TOOL_BUILD_TYPE, DRA_BUILD_TYPE);
    dra_rf_put_str(t, DRA_RF_TOOL_COMPILER, DRA_BUILD_COMPILER);
    dra_rf_put_str(t, DRA_RF_TOOL_FLAGS, DRA_BUILD_FLAGS);
    dra_rf_put_str(t, DRA_RF_TOOL_SANITIZE, DRA_BUILD_SANITIZE);
    dra_rf_put_bool(t, DRA_RF_TOOL_NATIVE,
                    strcmp(DRA_BUILD_NATIVE, "ON") == 0 || strcmp(DRA_BUILD_NATIVE, "1") == 0);
    json_t *k = dra_rf_put_obj(t, DRA_RF_TOOL_KERNEL);
    dra_rf_put_str(k, DRA_RF_KERNEL_SELECTED, dra_kern_name());
    json_t *avail = dra_rf_put_arr(k, DRA_RF_KERNEL_AVAILABLE);
    for (const char *const *n = dra_kern_names(); avail && n && *n; n++)
        if (dra_kern_lookup(*n))
            json_array_append_new(avail, json_string(*n));
    json_t *deps = dra_rf_put_obj(t, DRA_RF_TOOL_DEPS);
    dra_rf_put_str(deps, DRA_RF_DEPS_LIBYAML, yaml_get_version_string());
    dra_rf_put_str(deps, DRA_RF_DEPS_JANSSON, jansson_version_str());
    dra_rf_put_str(deps, DRA_RF_DEPS_XXHASH, xxver);
    dra_rf_put_str(deps, DRA_RF_DEPS_PCRE2, pcre);
    return t;
}

json_t *dra_result_host_json(const dra_hostinfo_t *h)
{
    json_t *o = json_object();
    dra_rf_put_str(o, DRA_RF_HOST_HOSTNAME, h->hostname);
    dra_rf_put_str(o, DRA_RF_HOST_DATE, h->date);
    dra_rf_put_str(o, DRA_RF_HOST_KERNEL, h->kernel);
    dra_rf_put_str(o, DRA_RF_HOST_CPU_MODEL, h->cpu_model);
    dra_rf_put_int(o, DRA_RF_HOST_CPUS, h->cpus);
    if (h->has_mhz)
        dra_rf_put_num(o, DRA_RF_HOST_MHZ, h->mhz);
    else
        dra_rf_put(o, DRA_RF_HOST_MHZ, json_null());
    dra_rf_put_str(o, DRA_RF_HOST_GOVERNOR, h->governor);
    json_t *caches = dra_rf_put_arr(o, DRA_RF_HOST_CACHES);
    for (int i = 0; caches && i < h->ncaches; i++) {
        json_t *c = json_object();
        dra_rf_put_int(c, DRA_RF_CACHE_LEVEL, h->caches[i].level);
        dra_rf_put_str(c, DRA_RF_CACHE_TYPE, h->caches[i].type);
        dra_rf_put_int(c, DRA_RF_CACHE_SIZE_KIB, (int64_t)h->caches[i].size_kib);
        json_array_append_new(caches, c);
    }
    json_t *load = dra_rf_put_arr(o, DRA_RF_HOST_LOAD_AVG);
    for (int i = 0; load && i < 3; i++)
        json_array_append_new(load, h->load_avg[i] >= 0 ? json_real(h->load_avg[i]) : json_null());
    dra_rf_put_bool(o, DRA_RF_HOST_HW_COUNTERS, h->hw_counters);
    dra_rf_put_path(o, DRA_RF_HOST_EXECUTABLE, h->executable);
    return o;
}

void dra_result_set_fingerprint(json_t *doc)
{
    json_t *host = dra_rf_get(doc, DRA_RF_HOST), *tool = dra_rf_get(doc, DRA_RF_TOOL);
    if (!json_is_object(host) || !json_is_object(tool))
        return;
    char san[256] = "";
    const json_t *sv = dra_rf_get(tool, DRA_RF_TOOL_SANITIZE);
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
#define S_(o, f) (json_string_value(dra_rf_get(o, f)) ? json_string_value(dra_rf_get(o, f)) : "")
    uint64_t fp = dra_host_fingerprint(
        S_(host, DRA_RF_HOST_CPU_MODEL),
        (long long)json_integer_value(dra_rf_get(host, DRA_RF_HOST_CPUS)),
        S_(host, DRA_RF_HOST_KERNEL), S_(tool, DRA_RF_TOOL_COMPILER),
        S_(tool, DRA_RF_TOOL_BUILD_TYPE), S_(tool, DRA_RF_TOOL_FLAGS), san,
        json_is_true(dra_rf_get(tool, DRA_RF_TOOL_NATIVE)));
#undef S_
    dra_rf_put_hex(host, DRA_RF_HOST_FINGERPRINT, fp);
}

json_t *dra_result_hist_json(const dra_hist_t *h, const char *shape, const char *phase,
                             const char *outcome)
{
    char name[256];
    snprintf(name, sizeof name, "%s/%s/%s", shape, phase, outcome);
    json_t *o = json_object();
    if (!o)
        return NULL;
    int64_t n = dra_hist_count(h);
    dra_rf_put_str(o, DRA_RF_HIST_NAME, name);
    dra_rf_put_str(o, DRA_RF_HIST_SHAPE, shape);
    dra_rf_put_str(o, DRA_RF_HIST_PHASE, phase);
    dra_rf_put_str(o, DRA_RF_HIST_OUTCOME, outcome);
    dra_rf_put_int(o, DRA_RF_HIST_LOWEST, h->lowest);
    dra_rf_put_int(o, DRA_RF_HIST_HIGHEST, h->highest);
    dra_rf_put_int(o, DRA_RF_HIST_SIGFIGS, h->sigfigs);
    dra_rf_put_int(o, DRA_RF_HIST_COUNT, n);
    dra_rf_put_int(o, DRA_RF_HIST_MIN, dra_hist_min(h));
    dra_rf_put_int(o, DRA_RF_HIST_MAX, dra_hist_max(h));
    dra_rf_put(o, DRA_RF_HIST_MEAN, n ? json_real(dra_hist_mean(h)) : json_null());
    dra_rf_put(o, DRA_RF_HIST_STDDEV, n > 1 ? json_real(dra_hist_stddev(h)) : json_null());
    dra_rf_put_int(o, DRA_RF_HIST_P50, dra_hist_percentile(h, 50));
    dra_rf_put_int(o, DRA_RF_HIST_P90, dra_hist_percentile(h, 90));
    dra_rf_put_int(o, DRA_RF_HIST_P99, dra_hist_percentile(h, 99));
    dra_rf_put_int(o, DRA_RF_HIST_P999, dra_hist_percentile(h, 99.9));
    dra_rf_put_int(o, DRA_RF_HIST_OUT_OF_RANGE, dra_hist_out_of_range(h));
    json_t *buckets = dra_rf_put_arr(o, DRA_RF_HIST_BUCKETS);
    dra_hist_iter_t it;
    dra_hist_iter_init(&it, h);
    while (buckets && dra_hist_iter_next(&it))
        json_array_append_new(
            buckets, json_pack("[I, I]", (json_int_t)it.bucket.lo, (json_int_t)it.bucket.count));
    return o;
}

int dra_result_hist_from_json(const json_t *o, dra_hist_t *h, dra_diag_t *diag)
{
    memset(h, 0, sizeof *h);
    json_int_t lo = json_integer_value(dra_rf_get(o, DRA_RF_HIST_LOWEST));
    json_int_t hi = json_integer_value(dra_rf_get(o, DRA_RF_HIST_HIGHEST));
    json_int_t sf = json_integer_value(dra_rf_get(o, DRA_RF_HIST_SIGFIGS));
    int rc = dra_hist_init(h, lo, hi, (int)sf);
    if (rc)
        return dra_diag_set(diag, rc, NULL, 0, 0, "histogram: bad configuration");
    const json_t *b = dra_rf_get(o, DRA_RF_HIST_BUCKETS);
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
    json_int_t oor = json_integer_value(dra_rf_get(o, DRA_RF_HIST_OUT_OF_RANGE));
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
    int rc = dra_io_write_file_atomic(path, buf, len + 1, diag);
    free(buf);
    return rc;
}

/* ---- schema check ---------------------------------------------------------------------------
 * The fields, their types and limits are schema.def's (strict walk); here what ties fields
 * together. */

/* Metric values that every repetition carries (a number, or null when undefined: no claim was
 * allocated, so there is no allocated-claim throughput nor latency). */
static const char *const required_values[] = {"throughput.claims_per_s", "throughput.pods_per_s",
                                              "latency.pod.p50", "latency.pod.p99"};

static void *check_hook(dra_rs_walk_t *w, int ev, dra_rf_t f, const json_t *v, size_t i,
                        const char *key, const char *path, void *frame)
{
    (void)i, (void)key, (void)frame;
    const json_t *doc = w->ud;
    char q[400];
    if (f == DRA_RF_REP_HISTOGRAMS && ev == DRA_RS_ELEM_END) {
        json_int_t sum = 0, prev = -1;
        size_t k;
        const json_t *pair;
        json_array_foreach(dra_rf_get(v, DRA_RF_HIST_BUCKETS), k, pair)
        {
            json_int_t x = json_integer_value(json_array_get(pair, 0));
            if (x <= prev) {
                snprintf(q, sizeof q, "%s.%s", path, dra_rf_key(DRA_RF_HIST_BUCKETS));
                dra_rs_fail(w, q, "values not increasing");
                return NULL;
            }
            prev = x;
            sum += json_integer_value(json_array_get(pair, 1));
        }
        if (sum != json_integer_value(dra_rf_get(v, DRA_RF_HIST_COUNT)))
            dra_rs_fail(w, path, "buckets do not sum to count");
    } else if (f == DRA_RF_REP_VALUES && ev == DRA_RS_END) {
        const json_t *metrics = dra_rf_get(doc, DRA_RF_METRICS);
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)v, k, x)
        {
            if (json_is_object(metrics) && !json_object_get(metrics, k)) {
                snprintf(q, sizeof q, "%s.%s", path, k);
                dra_rs_fail(w, q, "not described in metrics");
                return NULL;
            }
        }
        for (size_t r = 0; r < DRA_ARRAY_LEN(required_values); r++)
            if (!json_is_number(json_object_get(v, required_values[r])) &&
                !json_is_null(json_object_get(v, required_values[r]))) {
                snprintf(q, sizeof q, "%s.%s", path, required_values[r]);
                dra_rs_fail(w, q, "missing");
                return NULL;
            }
    }
    return NULL;
}

int dra_result_check(const json_t *doc, dra_diag_t *diag)
{
    dra_rs_walk_t w = {.mode = DRA_RS_STRICT, .diag = diag, .hook = check_hook, .ud = (void *)doc};
    if (!json_is_object(doc))
        return dra_rs_fail(&w, "$", "expected an object");
    dra_rs_walk_obj(&w, DRA_RF_ROOT, doc, "", NULL);
    const char *st = json_string_value(dra_rf_get(doc, DRA_RF_STATUS));
    if (w.rc == DRA_OK && st && strcmp(st, "complete") == 0 &&
        json_array_size(dra_rf_get(doc, DRA_RF_REPETITIONS)) == 0)
        dra_rs_fail(&w, dra_rf_key(DRA_RF_REPETITIONS),
                    "a complete run has at least one repetition");
    return w.rc;
}
