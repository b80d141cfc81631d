/* cmd_cel.c - `drabench cel EXPR (--device JSON | -f FILE...)`: compile a DRA device selector and
 * evaluate it per device; `--bench N` times interpreted and lowered evaluation over N generated
 * devices. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bitset.h"
#include "base/quantity.h"
#include "cel/cel.h"
#include "cel/lower.h"
#include "kern/kern.h"
#include "table/table.h"
#include "cli.h"
#include "escape.h"
#include "manifest.h"

/* Build a one-device model from the `device_context` JSON form of dra-expressions.tsv:
 * {"driver": ..., "allowMultipleAllocations": bool, "attributes": {name: {"int"|"bool"|"string"|
 * "version"|"ints"|"bools"|"strings"|"versions": value}}, "capacity": {name: "quantity"}}.
 * Unknown top-level keys (error, note) are ignored. Also used by the CEL TSV test runner. */
int dra_cel_device_from_json(dra_model_t *m, const json_t *o, const char *name,
                             const dra_device_t **out, dra_diag_t *diag);

int dra_cel_device_from_json(dra_model_t *m, const json_t *o, const char *name,
                             const dra_device_t **out, dra_diag_t *diag)
{
    if (o && !json_is_object(o))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "device context must be a JSON object");
    dra_slice_t *s = dra_model_add_slice(m);
    if (!s)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    const json_t *drv = o ? json_object_get(o, "driver") : NULL;
    s->driver = dra_model_str(m, drv && json_is_string(drv) ? json_string_value(drv) : "");
    s->name = dra_model_str(m, "cel-device-slice");
    s->pool_name = dra_model_str(m, "pool");
    s->devices = dra_model_array(m, 1, sizeof(dra_device_t));
    if (!s->devices || !s->driver)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    s->ndevices = 1;
    dra_device_t *d = &s->devices[0];
    d->name = dra_model_str(m, name ? name : "device");
    const json_t *amu = o ? json_object_get(o, "allowMultipleAllocations") : NULL;
    d->allow_multiple_allocations = amu && json_is_true(amu);
    const json_t *attrs = o ? json_object_get(o, "attributes") : NULL;
    if (attrs && json_is_object(attrs) && json_object_size(attrs)) {
        d->attrs = dra_model_array(m, json_object_size(attrs), sizeof(dra_attr_t));
        if (!d->attrs)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)attrs, k, v) {
            dra_attr_t *a = &d->attrs[d->nattrs];
            a->name = dra_model_str(m, k);
            a->qname = dra_model_qname(m, s->driver, k);
            const char *vk;
            const json_t *vv;
            if (!json_is_object(v) || json_object_size(v) != 1)
                return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                                    "attribute %s: expected an object with one value field", k);
            json_object_foreach((json_t *)v, vk, vv) {
                a->count = 1;
                if (!strcmp(vk, "int") && json_is_integer(vv)) {
                    a->kind = DRA_ATTR_INT;
                    a->v.i = json_integer_value(vv);
                } else if (!strcmp(vk, "bool") && json_is_boolean(vv)) {
                    a->kind = DRA_ATTR_BOOL;
                    a->v.b = json_is_true(vv);
                } else if ((!strcmp(vk, "string") || !strcmp(vk, "version")) && json_is_string(vv)) {
                    a->kind = vk[0] == 's' ? DRA_ATTR_STRING : DRA_ATTR_VERSION;
                    a->v.s = dra_model_strn(m, json_string_value(vv), json_string_length(vv));
                } else if (json_is_array(vv) && (!strcmp(vk, "ints") || !strcmp(vk, "bools") ||
                                                 !strcmp(vk, "strings") || !strcmp(vk, "versions"))) {
                    size_t n = json_array_size(vv);
                    a->count = (uint32_t)n;
                    if (vk[0] == 'i') {
                        int64_t *xs = dra_model_array(m, n ? n : 1, sizeof *xs);
                        if (!xs)
                            return DRA_ENOMEM;
                        for (size_t i = 0; i < n; i++)
                            xs[i] = json_integer_value(json_array_get(vv, i));
                        a->kind = DRA_ATTR_INTS;
                        a->v.ints = xs;
                    } else if (vk[0] == 'b') {
                        bool *xs = dra_model_array(m, n ? n : 1, sizeof *xs);
                        if (!xs)
                            return DRA_ENOMEM;
                        for (size_t i = 0; i < n; i++)
                            xs[i] = json_is_true(json_array_get(vv, i));
                        a->kind = DRA_ATTR_BOOLS;
                        a->v.bools = xs;
                    } else {
                        const char **xs = dra_model_array(m, n ? n : 1, sizeof *xs);
                        if (!xs)
                            return DRA_ENOMEM;
                        for (size_t i = 0; i < n; i++) {
                            const char *sv = json_string_value(json_array_get(vv, i));
                            xs[i] = dra_model_str(m, sv ? sv : "");
                        }
                        a->kind = vk[0] == 's' ? DRA_ATTR_STRINGS : DRA_ATTR_VERSIONS;
                        a->v.strs = xs;
                    }
                } else {
                    return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                                        "attribute %s: unsupported value field '%s'", k, vk);
                }
            }
            d->nattrs++;
        }
    }
    const json_t *caps = o ? json_object_get(o, "capacity") : NULL;
    if (caps && json_is_object(caps) && json_object_size(caps)) {
        d->caps = dra_model_array(m, json_object_size(caps), sizeof(dra_capacity_t));
        if (!d->caps)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)caps, k, v) {
            dra_capacity_t *c = &d->caps[d->ncaps];
            const json_t *val = json_is_object(v) ? json_object_get(v, "value") : v;
            if (!json_is_string(val))
                return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                                    "capacity %s: expected a quantity string", k);
            c->name = dra_model_str(m, k);
            c->qname = dra_model_qname(m, s->driver, k);
            int rc = dra_quantity_parse(json_string_value(val), json_string_length(val), &c->value,
                                        diag);
            if (rc != DRA_OK)
                return rc;
            d->ncaps++;
        }
    }
    dra_model_slice_done(m, s);
    *out = d;
    return DRA_OK;
}

static const char help[] =
    "drabench cel - compile a DRA device-selector CEL expression and evaluate it per device\n"
    "\n"
    "Usage: drabench cel EXPR (--device JSON | -f FILE... | --bench N | --cost) [-o text|json]\n"
    "\n"
    "Compiles EXPR in the DRA environment (the `device` variable, Kubernetes CEL libraries) and\n"
    "prints, for every device, `true`, `false` or the CEL runtime error (an error is not false).\n"
    "A compile error is printed with the expression and a caret under the position.\n"
    "\n"
    "Options:\n"
    "  -d, --device JSON   one device in the device_context form of dra-expressions.tsv:\n"
    "                      {\"driver\":\"d\",\"attributes\":{\"model\":{\"string\":\"x\"}},\n"
    "                       \"capacity\":{\"memory\":\"40Gi\"}}\n"
    "  -f, --file FILE     ResourceSlice manifests (YAML/JSON; files or directories); repeatable,\n"
    "                      further FILE arguments may follow EXPR\n"
    "  -o, --output FMT    text (default) or json: {\"results\":[{\"device\":N,\"value\":true}]}\n"
    "                      or {\"error\":\"compile: ...\"}\n"
    "      --bench N       time interpreted evaluation over N generated GPU devices (ns/device),\n"
    "                      then the lowered column predicates over a table of N devices\n"
    "                      (exit 3 if the two disagree on any verified row)\n"
    "      --kernel K      SIMD kernel for lowered evaluation: scalar, avx2, avx512 or auto\n"
    "                      (default auto: the best the CPU supports; env DRA_KERNEL too)\n"
    "      --cost          print the static worst-case cost estimate (API-server admission check)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Examples:\n"
    "  drabench cel 'device.driver == \"gpu.nvidia.com\"' --device '{\"driver\":\"gpu.nvidia.com\"}'\n"
    "  drabench cel 'device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0' \\\n"
    "      -f slices.yaml -o json\n"
    "  drabench cel --bench 100000 'device.attributes[\"gpu.nvidia.com\"].index < 4'\n"
    "\n"
    "Exit status: 0 when the expression compiled (whatever the per-device results), 2 on a\n"
    "compile error, a usage error, or -f input that cannot be walked (a symbolic-link loop,\n"
    "directories nested deeper than 32), 4 on an I/O or memory error.\n";

static void print_compile_error(const char *expr, const dra_diag_t *d, bool json)
{
    if (json) {
        char buf[DRA_DIAG_MSG_MAX + 16];
        snprintf(buf, sizeof buf, "compile: %s", d->msg);
        json_t *o = json_pack("{s:s}", "error", buf);
        char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (s)
            puts(s);
        free(s);
        json_decref(o);
        return;
    }
    fprintf(stderr, "drabench cel: compile error: %s\n", d->msg);
    if (d->code == DRA_ECOMPILE && strlen(expr) < 4096) {
        /* print the line of the error and a caret under the column */
        const char *line = expr;
        for (uint32_t l = 1; l < d->line && line; l++) {
            line = strchr(line, '\n');
            if (line)
                line++;
        }
        if (!line)
            line = expr;
        size_t ll = strcspn(line, "\n");
        fprintf(stderr, " | %.*s\n | ", (int)ll, line);
        for (uint32_t c = 1; c < d->column; c++)
            fputc(line[c - 1] == '\t' ? '\t' : '.', stderr);
        fputs("^\n", stderr);
    }
}

typedef struct result_sink {
    bool json;
    json_t *arr;
} result_sink_t;

static void emit(result_sink_t *r, const char *dev, int rc, bool match, const dra_diag_t *d)
{
    if (r->json) {
        json_t *o;
        if (rc == DRA_OK) {
            o = json_pack("{s:s, s:b}", "device", dev, "value", match);
        } else {
            char buf[DRA_DIAG_MSG_MAX + 16];
            snprintf(buf, sizeof buf, "runtime: %s", d->msg);
            o = json_pack("{s:s, s:s}", "device", dev, "error", buf);
        }
        if (o)
            json_array_append_new(r->arr, o);
        return;
    }
    dra_esc_term(stdout, dev); /* names from the manifests (escape.h) */
    if (rc == DRA_OK)
        printf(": %s\n", match ? "true" : "false");
    else
        printf(": error: runtime: %s\n", d->msg);
}

/* Thread CPU time: the bench reports CPU time per device so that a loaded machine (other
 * processes taking the cores) does not inflate the figure. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Build N GPU-like devices in m: driver gpu.nvidia.com, productName alternating, memory. */
static int bench_model(dra_model_t *m, unsigned long long n)
{
    static const char *const products[] = {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB",
                                           "NVIDIA L4", "NVIDIA H100 80GB HBM3"};
    static const char *const mems[] = {"80Gi", "40Gi", "24Gi", "80Gi"};
    const uint32_t per_slice = 128;
    for (unsigned long long base = 0; base < n; base += per_slice) {
        dra_slice_t *s = dra_model_add_slice(m);
        if (!s)
            return DRA_ENOMEM;
        uint32_t cnt = (uint32_t)DRA_MIN(per_slice, n - base);
        s->driver = dra_model_str(m, "gpu.nvidia.com");
        s->pool_name = dra_model_str(m, "bench");
        s->name = s->pool_name;
        s->devices = dra_model_array(m, cnt, sizeof(dra_device_t));
        if (!s->devices)
            return DRA_ENOMEM;
        s->ndevices = cnt;
        for (uint32_t i = 0; i < cnt; i++) {
            unsigned long long k = base + i;
            dra_device_t *d = &s->devices[i];
            char name[32];
            snprintf(name, sizeof name, "gpu-%llu", k);
            d->name = dra_model_str(m, name);
            d->attrs = dra_model_array(m, 5, sizeof(dra_attr_t));
            d->caps = dra_model_array(m, 1, sizeof(dra_capacity_t));
            if (!d->attrs || !d->caps)
                return DRA_ENOMEM;
            const char *an[] = {"productName", "index", "uuid", "architecture", "driverVersion"};
            for (int a = 0; a < 5; a++) {
                d->attrs[a].name = dra_model_str(m, an[a]);
                d->attrs[a].qname = dra_model_qname(m, s->driver, an[a]);
                d->attrs[a].count = 1;
            }
            d->attrs[0].kind = DRA_ATTR_STRING;
            d->attrs[0].v.s = products[k % 4];
            d->attrs[1].kind = DRA_ATTR_INT;
            d->attrs[1].v.i = (int64_t)(k % 8);
            d->attrs[2].kind = DRA_ATTR_STRING;
            snprintf(name, sizeof name, "GPU-%08llx", k);
            d->attrs[2].v.s = dra_model_str(m, name);
            d->attrs[3].kind = DRA_ATTR_STRING;
            d->attrs[3].v.s = k % 4 == 1 ? "Ampere" : "Hopper";
            d->attrs[4].kind = DRA_ATTR_STRING; /* kept a string so the bench measures CEL only */
            d->attrs[4].v.s = "550.54.15";
            d->nattrs = 5;
            d->caps[0].name = dra_model_str(m, "memory");
            d->caps[0].qname = dra_model_qname(m, s->driver, "memory");
            if (dra_quantity_parse(mems[k % 4], strlen(mems[k % 4]), &d->caps[0].value, NULL))
                return DRA_EINTERNAL;
            d->ncaps = 1;
        }
        dra_model_slice_done(m, s);
    }
    return DRA_OK;
}

/* The lowered benchmark: compile src, build a table of `ndevices` synthetic GPU devices (8 per
 * node; 1/4 H100 80GB, the rest other products; memory 16Gi..141Gi), lower the expression and time
 * dra_lower_eval_with with kernel `kernel` ("scalar", "avx2", "avx512", "auto") over `reps` runs
 * (>= 1). DRA_EUNSUPPORTED when the expression does not lower, DRA_EUNSUPPORTED / DRA_EINVAL
 * for the kernel as dra_kern_select, DRA_ECOMPILE with diag for a bad expression. Also checks
 * the lowered result against the evaluator on the first `verify` rows (0 = none) and counts
 * mismatches. */
typedef struct lower_bench_result {
    const char *kernel;    /* name of the kernel used */
    uint32_t ndevices;     /* rows of the table */
    uint32_t nleaves;      /* column passes */
    double compile_ns;     /* lowering time (one run) */
    double eval_ns_best;   /* best of reps */
    double eval_ns_median; /* median of reps */
    double build_ms;       /* table build time */
    uint64_t nmatch, nerror;
    uint32_t verified;   /* rows checked against the evaluator */
    uint32_t mismatches; /* of those, rows where value or error differ */
    size_t table_bytes;
} lower_bench_result_t;


/* ---- lowered benchmark ---------------------------------------------------------------------- */

static double lb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int lb_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* ndevices GPUs, 8 per node: a quarter are H100 80GB, the others spread over four products;
 * memory from a fixed cycle; an int index and a driver version on every device. */
static int lower_bench_model(dra_model_t *m, uint32_t ndevices)
{
    static const char *products[] = {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB",
                                     "NVIDIA A100-SXM4-80GB", "NVIDIA L4", "NVIDIA H200"};
    static const char *mems[] = {"80Gi", "40Gi", "80Gi", "24Gi", "141Gi", "16Gi", "48Gi"};
    static const char *vers[] = {"550.54.15", "535.129.3", "560.28.3"};
    dra_quantity_t q[DRA_ARRAY_LEN(mems)];
    for (size_t i = 0; i < DRA_ARRAY_LEN(mems); i++)
        if (dra_quantity_parse(mems[i], strlen(mems[i]), &q[i], NULL) != DRA_OK)
            return DRA_EINTERNAL;
    uint32_t q_prod = dra_model_qname(m, "gpu.nvidia.com", "productName");
    uint32_t q_idx = dra_model_qname(m, "gpu.nvidia.com", "index");
    uint32_t q_ver = dra_model_qname(m, "gpu.nvidia.com", "driverVersion");
    uint32_t q_mem = dra_model_qname(m, "gpu.nvidia.com", "memory");
    if (!q_prod || !q_idx || !q_ver || !q_mem)
        return DRA_ENOMEM;
    const char *drv = dra_model_str(m, "gpu.nvidia.com");
    uint32_t nnodes = (ndevices + 7) / 8;
    uint64_t seq = 0;
    for (uint32_t nd = 0; nd < nnodes; nd++) {
        char name[32];
        snprintf(name, sizeof name, "node-%u", nd);
        dra_slice_t *s = dra_model_add_slice(m);
        if (!s)
            return DRA_ENOMEM;
        uint32_t ndev = ndevices - nd * 8 < 8 ? ndevices - nd * 8 : 8;
        s->name = dra_model_str(m, name);
        s->driver = drv;
        s->pool_name = s->name;
        s->node_name = s->name;
        s->devices = dra_model_array(m, ndev, sizeof(dra_device_t));
        if (!s->devices)
            return DRA_ENOMEM;
        s->ndevices = ndev;
        for (uint32_t i = 0; i < ndev; i++, seq++) {
            static const char *gpu_names[] = {"gpu-0", "gpu-1", "gpu-2", "gpu-3",
                                              "gpu-4", "gpu-5", "gpu-6", "gpu-7"};
            dra_device_t *d = &s->devices[i];
            d->name = gpu_names[i];
            d->attrs = dra_model_array(m, 3, sizeof(dra_attr_t));
            d->caps = dra_model_array(m, 1, sizeof(dra_capacity_t));
            if (!d->attrs || !d->caps)
                return DRA_ENOMEM;
            uint64_t h = seq * 0x9e3779b97f4a7c15ull;
            d->nattrs = 3;
            d->attrs[0] = (dra_attr_t){.name = "productName", .qname = q_prod,
                                       .kind = DRA_ATTR_STRING, .count = 1};
            d->attrs[0].v.s = products[(h >> 40) % 4 == 0 ? 0 : 1 + (h >> 44) % 4];
            d->attrs[1] = (dra_attr_t){.name = "index", .qname = q_idx, .kind = DRA_ATTR_INT,
                                       .count = 1};
            d->attrs[1].v.i = i;
            d->attrs[2] = (dra_attr_t){.name = "driverVersion", .qname = q_ver,
                                       .kind = DRA_ATTR_VERSION, .count = 1};
            d->attrs[2].v.s = vers[(h >> 50) % 3];
            d->ncaps = 1;
            d->caps[0] = (dra_capacity_t){.name = "memory", .qname = q_mem,
                                          .value = q[(h >> 33) % DRA_ARRAY_LEN(mems)]};
        }
        dra_model_slice_done(m, s);
    }
    return DRA_OK;
}

static int lower_bench(const char *src, uint32_t ndevices, const char *kernel, uint32_t reps,
                       uint32_t verify, lower_bench_result_t *res, dra_diag_t *diag)
{
    if (!src || !res || !kernel)
        return DRA_EINVAL;
    memset(res, 0, sizeof *res);
    if (reps == 0)
        reps = 1;
    const dra_kern_t *k = dra_kern_lookup(kernel);
    if (!k) {
        bool known = strcmp(kernel, "auto") == 0;
        for (const char *const *n = dra_kern_names(); *n; n++)
            known |= strcmp(*n, kernel) == 0;
        return dra_diag_set(diag, known ? DRA_EUNSUPPORTED : DRA_EINVAL, NULL, 0, 0,
                            "kernel %s: %s", kernel,
                            known ? "not supported by this CPU" : "unknown kernel");
    }
    res->kernel = k->name;
    dra_model_t m;
    dra_model_init(&m);
    dra_arena_t a, scratch;
    dra_arena_init(&a, 0);
    dra_arena_init(&scratch, 0);
    dra_table_t *t = NULL;
    dra_cel_prog_t *p = NULL;
    dra_lowered_t *l = NULL;
    uint64_t *M = NULL, *E = NULL;
    double *times = NULL;
    int rc = dra_cel_compile(src, strlen(src), &a, &p, diag);
    if (rc != DRA_OK)
        goto out;
    if ((rc = lower_bench_model(&m, ndevices)) != DRA_OK)
        goto out;
    double t0 = lb_now_ns();
    if ((rc = dra_table_build(&m, &a, &t, diag)) != DRA_OK)
        goto out;
    res->build_ms = (lb_now_ns() - t0) / 1e6;
    res->ndevices = t->nrows;
    res->table_bytes = t->bytes;
    t0 = lb_now_ns();
    rc = dra_lower_compile(p, t, &a, &l);
    res->compile_ns = lb_now_ns() - t0;
    if (rc != DRA_OK) {
        dra_diag_set(diag, rc, NULL, 0, 0, "expression does not lower to column predicates");
        goto out;
    }
    res->nleaves = dra_lower_nleaves(l);
    size_t nw = dra_bitset_words(t->nrows_padded);
    M = dra_arena_calloc(&a, nw ? nw : 1, sizeof *M, 64);
    E = dra_arena_calloc(&a, nw ? nw : 1, sizeof *E, 64);
    times = calloc(reps, sizeof *times);
    if (!M || !E || !times) {
        rc = DRA_ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < reps; i++) {
        t0 = lb_now_ns();
        rc = dra_lower_eval_with(l, t, k, M, E);
        times[i] = lb_now_ns() - t0;
        if (rc != DRA_OK) {
            dra_diag_set(diag, rc, NULL, 0, 0, "evaluating the lowered expression failed");
            goto out;
        }
    }
    qsort(times, reps, sizeof *times, lb_cmp_double);
    res->eval_ns_best = times[0];
    res->eval_ns_median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    res->nmatch = dra_bitset_count(M, t->nrows);
    res->nerror = dra_bitset_count(E, t->nrows);
    for (uint32_t r = 0; r < t->nrows && r < verify; r++) {
        bool match = false;
        int erc = dra_cel_eval_device(p, &m, t->dev[r], &scratch, &match, NULL);
        bool is_err = erc != DRA_OK;
        if (is_err != dra_bit_get(E, r) || (!is_err && match != dra_bit_get(M, r)))
            res->mismatches++;
        res->verified++;
    }
out:
    free(times);
    dra_arena_fini(&scratch);
    dra_arena_fini(&a);
    dra_model_fini(&m);
    return rc;
}

/* Lowered timing through core/cel/lower.h: the same expression compiled to column predicates
 * over a generated table, with the first rows checked against the evaluator. Returns the exit
 * status (3 when lowered and interpreted evaluation disagree). */
static int run_bench_lowered(const char *src, unsigned long long n, const char *kernel,
                             double interp_ns, bool json)
{
    lower_bench_result_t r;
    memset(&r, 0, sizeof r);
    dra_diag_t d;
    dra_diag_clear(&d);
    uint32_t verify = n < 100000 ? (uint32_t)n : 100000;
    int rc = lower_bench(src, (uint32_t)n, kernel, 20, verify, &r, &d);
    if (rc == DRA_EUNSUPPORTED) {
        if (json)
            printf("{\"mode\": \"lowered\", \"lowerable\": false}\n");
        else
            printf("lowered: not lowerable (this shape runs on the evaluator)\n");
        return DRA_EXIT_OK;
    }
    if (rc != DRA_OK) {
        dra_cli_errorf("lowered bench: %s", d.msg[0] ? d.msg : dra_strerror(rc));
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    double per_dev = r.eval_ns_median / (double)(r.ndevices ? r.ndevices : 1);
    if (json)
        printf("{\"mode\": \"lowered\", \"lowerable\": true, \"kernel\": \"%s\", \"devices\": %u, "
               "\"column_passes\": %u, \"compile_ns\": %.0f, \"eval_ns_best\": %.0f, "
               "\"eval_ns_median\": %.0f, \"ns_per_device\": %.3f, \"speedup\": %.1f, "
               "\"table_build_ms\": %.1f, \"table_bytes\": %zu, \"verified\": %u, "
               "\"mismatches\": %u}\n",
               r.kernel, r.ndevices, r.nleaves, r.compile_ns, r.eval_ns_best, r.eval_ns_median, per_dev,
               per_dev > 0 ? interp_ns / per_dev : 0.0, r.build_ms, r.table_bytes, r.verified,
               r.mismatches);
    else
        printf("lowered: kernel %s, %u column passes, lowering %.1f us, whole table %.3f ms median "
               "(%.3f ms best) = %.3f ns/device, %.0fx the interpreter; table %zu bytes built in "
               "%.1f ms; %u rows verified, %u mismatches\n",
               r.kernel, r.nleaves, r.compile_ns / 1e3, r.eval_ns_median / 1e6, r.eval_ns_best / 1e6,
               per_dev, per_dev > 0 ? interp_ns / per_dev : 0.0, r.table_bytes, r.build_ms,
               r.verified, r.mismatches);
    if (r.mismatches) {
        dra_cli_errorf("lowered and interpreted evaluation disagree on %u rows", r.mismatches);
        return DRA_EXIT_CORRECTNESS;
    }
    return DRA_EXIT_OK;
}

static int run_bench(const dra_cel_prog_t *p, unsigned long long n, bool json, double *ns_out)
{
    dra_model_t m;
    dra_model_init(&m);
    if (bench_model(&m, n) != DRA_OK) {
        dra_model_fini(&m);
        dra_cli_errorf("out of memory building the bench table");
        return DRA_EXIT_ENV;
    }
    dra_arena_t scratch;
    dra_arena_init(&scratch, 1 << 16);
    uint64_t matches = 0, errors = 0, evals = 0;
    double t0 = now_s(), t1;
    unsigned reps = 0;
    do {
        for (uint32_t si = 0; si < m.nslices; si++) {
            const dra_slice_t *s = m.slices[si];
            for (uint32_t i = 0; i < s->ndevices; i++) {
                bool match;
                int rc = dra_cel_eval_device(p, &m, &s->devices[i], &scratch, &match, NULL);
                if (rc != DRA_OK)
                    errors++;
                else if (match)
                    matches++;
                evals++;
            }
        }
        reps++;
        t1 = now_s();
    } while (t1 - t0 < 0.5 && reps < 1000000);
    double ns = (t1 - t0) * 1e9 / (double)evals;
    *ns_out = ns;
    if (json)
        printf("{\"devices\": %llu, \"reps\": %u, \"ns_per_device\": %.1f, \"matches\": %llu, "
               "\"errors\": %llu, \"mode\": \"interpreted\", \"clock\": \"thread-cpu\"}\n",
               n, reps, ns, (unsigned long long)(matches / reps), (unsigned long long)(errors / reps));
    else
        printf("devices %llu  reps %u  interpreted %.1f ns/device (thread CPU time)  matches %llu  "
               "errors %llu\n",
               n,
               reps, ns, (unsigned long long)(matches / reps), (unsigned long long)(errors / reps));
    dra_arena_fini(&scratch);
    dra_model_fini(&m);
    return DRA_EXIT_OK;
}

enum { OPT_BENCH = 256, OPT_COST, OPT_KERNEL };

typedef struct {
    const char *device_json, *kernel;
    char **files;
    int nfiles;
    bool json, cost;
    unsigned long long bench;
} cel_opts_t;

/* One parsed option into o; returns -1 to go on, or the exit status to return with. */
static int apply_opt(cel_opts_t *o, int c, const char *arg)
{
    switch (c) {
    case 'd':
        o->device_json = arg;
        return -1;
    case 'f':
        o->files[o->nfiles++] = (char *)arg;
        return -1;
    case 'o':
        if (!strcmp(arg, "json"))
            o->json = true;
        else if (!strcmp(arg, "text"))
            o->json = false;
        else
            return dra_cli_usage_error("cel", "unknown output format '%s'", arg);
        return -1;
    case OPT_BENCH:
        if (!dra_io_parse_u64_in(arg, 1, 100000000ULL, &o->bench))
            return dra_cli_usage_error("cel", "--bench wants a device count in 1..1e8");
        return -1;
    case OPT_COST:
        o->cost = true;
        return -1;
    case OPT_KERNEL:
        o->kernel = arg;
        return -1;
    case 'h':
        fputs(help, stdout);
        return DRA_EXIT_OK;
    default:
        return dra_cli_usage_error("cel", "unknown option");
    }
}

/* --device JSON: one device evaluated and printed (its slice becomes the model's first). */
static int eval_device_arg(const dra_cel_prog_t *prog, dra_model_t *m, const char *device_json,
                           dra_arena_t *scratch, result_sink_t *sink)
{
    bool json = sink->json;
    dra_diag_t d;
    dra_diag_clear(&d);
    json_error_t je;
    json_t *o = json_loads(device_json, 0, &je);
    const dra_device_t *dev = NULL;
    if (!o)
        return dra_cli_usage_error("cel", "--device: invalid JSON: %s", je.text);
    int rc = dra_cel_device_from_json(m, o, "device", &dev, &d);
    json_decref(o);
    if (rc != DRA_OK)
        return dra_cli_usage_error("cel", "--device: %s", d.msg);
    bool match = false;
    dra_diag_clear(&d);
    rc = dra_cel_eval_device(prog, m, dev, scratch, &match, &d);
    if (rc == DRA_ENOMEM)
        return DRA_EXIT_ENV;
    if (json)
        emit(sink, dev->name, rc, match, &d);
    else if (rc == DRA_OK)
        puts(match ? "true" : "false");
    else
        printf("error: runtime: %s\n", d.msg);
    return DRA_EXIT_OK;
}

/* Every device of the manifests read from files[0..nfiles) (after the --device slice when
 * skip_first) evaluated into the sink; a file that cannot be read ends it with its status. */
static int eval_manifest_devices(const dra_cel_prog_t *prog, dra_model_t *m, char **files,
                                 int nfiles, bool skip_first, dra_arena_t *scratch,
                                 result_sink_t *sink)
{
    dra_diag_t d;
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_manifest_read_paths(m, files, nfiles, &errs);
    /* a file or directory that cannot be read (4), a symbolic-link loop, nesting too deep,
     * a file over the size limit, a missing or invalid file (2) stop here */
    int walk_status = rc == DRA_ENOMEM || rc == DRA_EIO ? DRA_EXIT_ENV : DRA_EXIT_OK;
    for (size_t i = 0; i < errs.count; i++) {
        char buf[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench cel: %s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
        if (errs.items[i].code == DRA_EIO)
            walk_status = DRA_EXIT_ENV;
        else if (errs.items[i].code == DRA_ELIMIT && walk_status == DRA_EXIT_OK)
            walk_status = DRA_EXIT_USAGE;
    }
    dra_diag_list_fini(&errs);
    if (walk_status == DRA_EXIT_OK && rc != DRA_OK)
        walk_status = dra_io_exit_for(rc); /* missing or invalid file 2; I/O, memory 4 */
    if (walk_status != DRA_EXIT_OK)
        return walk_status;
    for (uint32_t si = 0; si < m->nslices; si++) {
        const dra_slice_t *s = m->slices[si];
        if (skip_first && si == 0)
            continue; /* the --device slice */
        for (uint32_t i = 0; i < s->ndevices; i++) {
            const dra_device_t *dev = &s->devices[i];
            char name[512];
            snprintf(name, sizeof name, "%s/%s/%s", s->driver ? s->driver : "",
                     s->pool_name ? s->pool_name : "", dev->name ? dev->name : "");
            bool match = false;
            dra_diag_clear(&d);
            rc = dra_cel_eval_device(prog, m, dev, scratch, &match, &d);
            emit(sink, name, rc, match, &d);
        }
    }
    return DRA_EXIT_OK;
}

int dra_cmd_cel(int argc, char **argv)
{
    static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
                                         {"file", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"bench", required_argument, NULL, OPT_BENCH},
                                         {"cost", no_argument, NULL, OPT_COST},
                                         {"kernel", required_argument, NULL, OPT_KERNEL},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    cel_opts_t opt = {.files = calloc((size_t)argc + 1, sizeof(char *))};
    char **files = opt.files;
    int c;
    if (!files)
        return DRA_EXIT_ENV;
    optind = 1;
    int status = DRA_EXIT_OK;
    while ((c = getopt_long(argc, argv, "+d:f:o:h", opts, NULL)) != -1) {
        int r = apply_opt(&opt, c, optarg);
        if (r >= 0) {
            free(files);
            return r;
        }
    }
    /* EXPR, then (with -f) more files; options may also follow EXPR */
    const char *expr = NULL;
    while (optind < argc) {
        if (!expr) {
            expr = argv[optind++];
        } else if (opt.nfiles > 0 || argv[optind][0] != '-') {
            files[opt.nfiles++] = argv[optind++];
            continue;
        }
        int c2;
        while (optind < argc && argv[optind][0] == '-' &&
               (c2 = getopt_long(argc, argv, "+d:f:o:h", opts, NULL)) != -1) {
            int r = apply_opt(&opt, c2, optarg);
            if (r >= 0) {
                free(files);
                return r;
            }
        }
    }
    const char *device_json = opt.device_json, *kernel = opt.kernel;
    int nfiles = opt.nfiles;
    bool json = opt.json, cost = opt.cost;
    unsigned long long bench = opt.bench;
    if (!expr) {
        free(files);
        return dra_cli_usage_error("cel", "missing EXPR");
    }
    if (!device_json && !nfiles && !bench && !cost) {
        free(files);
        return dra_cli_usage_error("cel", "give --device JSON, -f FILE or --bench N");
    }
    dra_arena_t arena;
    dra_arena_init(&arena, 0);
    dra_cel_prog_t *prog = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cel_compile(expr, strlen(expr), &arena, &prog, &d);
    if (rc != DRA_OK) {
        print_compile_error(expr, &d, json);
        dra_arena_fini(&arena);
        free(files);
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    if (cost) {
        uint64_t est = 0;
        if (dra_cel_estimate_cost(prog, &est) != DRA_OK) {
            dra_arena_fini(&arena);
            free(files);
            return DRA_EXIT_ENV;
        }
        if (json)
            printf("{\"estimated_cost\": %llu, \"limit\": %llu, \"exceeds\": %s}\n",
                   (unsigned long long)est, (unsigned long long)DRA_CEL_MAX_COST,
                   est > DRA_CEL_MAX_COST ? "true" : "false");
        else
            printf("estimated cost: %llu (limit %llu%s)\n", (unsigned long long)est,
                   (unsigned long long)DRA_CEL_MAX_COST,
                   est > DRA_CEL_MAX_COST ? ", too complex, exceeds cost limit" : "");
        if (!device_json && !nfiles && !bench) {
            dra_arena_fini(&arena);
            free(files);
            return DRA_EXIT_OK;
        }
    }
    if (kernel && dra_kern_select(kernel) != DRA_OK) {
        dra_arena_fini(&arena);
        free(files);
        return dra_cli_usage_error("cel", "--kernel %s: unknown or not supported by this CPU "
                                   "(scalar, avx2, avx512, auto)", kernel);
    }
    if (bench) {
        double interp_ns = 0;
        status = run_bench(prog, bench, json, &interp_ns);
        if (status == DRA_EXIT_OK)
            status = run_bench_lowered(expr, bench, dra_kern_name(), interp_ns, json);
        dra_arena_fini(&arena);
        free(files);
        return status;
    }
    dra_model_t m;
    dra_model_init(&m);
    result_sink_t sink = {.json = json, .arr = json ? json_array() : NULL};
    dra_arena_t scratch;
    dra_arena_init(&scratch, 1 << 16);
    if (device_json) {
        status = eval_device_arg(prog, &m, device_json, &scratch, &sink);
        if (status != DRA_EXIT_OK)
            goto out;
    }
    if (nfiles) {
        status = eval_manifest_devices(prog, &m, files, nfiles, device_json != NULL, &scratch,
                                       &sink);
        if (status != DRA_EXIT_OK)
            goto out;
    }
    if (json) {
        json_t *o = json_pack("{s:O}", "results", sink.arr);
        char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (s)
            puts(s);
        free(s);
        json_decref(o);
    }
out:
    json_decref(sink.arr);
    dra_arena_fini(&scratch);
    dra_model_fini(&m);
    dra_arena_fini(&arena);
    free(files);
    return status;
}
