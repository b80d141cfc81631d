/* replay.c - GPU trace replay: openb CSV reading, objects, the arrival-only replay (replay.h). */
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/fast.h"
#include "files.h"
#include "manifest.h"
#include "sbuf.h"

/* ---- strings and names ------------------------------------------------------------------------
 */

static const char *keep(dra_replay_trace_t *t, const char *s, size_t n)
{
    if (t->nstrs == t->cap_strs) {
        uint32_t nc = t->cap_strs ? t->cap_strs * 2 : 1024;
        char **ns = realloc(t->strs, nc * sizeof *ns);
        if (!ns)
            return NULL;
        t->strs = ns;
        t->cap_strs = nc;
    }
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    t->strs[t->nstrs++] = c;
    return c;
}

void dra_replay_trace_fini(dra_replay_trace_t *t)
{
    for (uint32_t i = 0; i < t->nstrs; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->nodes);
    free(t->pods);
    memset(t, 0, sizeof *t);
}

static bool model_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* ---- CSV --------------------------------------------------------------------------------------
 */

#define MAX_FIELDS 16

typedef struct field {
    const char *p;
    size_t n;
} field_t;

typedef struct csv {
    const char *file;
    const char *buf, *end, *cur;
    uint32_t line;
    dra_diag_t *diag;
} csv_t;

static int csv_err(csv_t *c, const char *fmt, ...) DRA_PRINTF(2, 3);
static int csv_err(csv_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dra_diag_setv(c->diag, DRA_EPARSE, c->file, c->line, 0, fmt, ap);
    va_end(ap);
    return DRA_EPARSE;
}

/* Next record into f[0..*nf). Returns 1 for a record, 0 at the end, or DRA_EPARSE. A final
 * newline is optional; '\r' before '\n' is accepted; quotes and empty lines are errors. */
static int csv_next(csv_t *c, field_t *f, uint32_t *nf)
{
    if (c->cur >= c->end)
        return 0;
    c->line++;
    const char *e = memchr(c->cur, '\n', (size_t)(c->end - c->cur));
    const char *le = e ? e : c->end;
    const char *next = e ? e + 1 : c->end;
    if (le > c->cur && le[-1] == '\r')
        le--;
    if (le == c->cur)
        return csv_err(c, "empty line");
    *nf = 0;
    const char *s = c->cur;
    for (const char *p = c->cur;; p++) {
        if (p == le || *p == ',') {
            if (*nf == MAX_FIELDS)
                return csv_err(c, "more than %d fields", MAX_FIELDS);
            f[*nf].p = s;
            f[*nf].n = (size_t)(p - s);
            (*nf)++;
            if (p == le)
                break;
            s = p + 1;
        } else if (*p == '"') {
            return csv_err(c, "quoted fields are not supported");
        } else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) {
            return csv_err(c, "byte 0x%02x is not printable ASCII", (unsigned char)*p);
        }
    }
    c->cur = next;
    return 1;
}

static bool field_is(const field_t *f, const char *s)
{
    return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

/* A decimal integer in [lo, hi] (no sign, no spaces). */
static int csv_int(csv_t *c, const field_t *f, const char *col, int64_t lo, int64_t hi,
                   int64_t *out)
{
    if (f->n == 0)
        return csv_err(c, "%s: empty, want an integer", col);
    int64_t v = 0;
    for (size_t i = 0; i < f->n; i++) {
        char ch = f->p[i];
        if (ch < '0' || ch > '9')
            return csv_err(c, "%s: \"%.*s\" is not a non-negative decimal integer", col,
                           (int)(f->n > 40 ? 40 : f->n), f->p);
        if (v > (INT64_MAX - 9) / 10)
            return csv_err(c, "%s: value too large", col);
        v = v * 10 + (ch - '0');
    }
    if (v < lo || v > hi)
        return csv_err(c, "%s: %lld is out of range %lld..%lld", col, (long long)v, (long long)lo,
                       (long long)hi);
    *out = v;
    return DRA_OK;
}

static int csv_name(csv_t *c, dra_replay_trace_t *t, const field_t *f, const char *col,
                    const char **out)
{
    char tmp[256];
    if (f->n == 0 || f->n > 240) /* room for the slice name "<node>-gpus" */
        return csv_err(c, "%s: want 1..240 characters, got %zu", col, f->n);
    memcpy(tmp, f->p, f->n);
    tmp[f->n] = '\0';
    if (!dra_name_is_dns_subdomain(tmp))
        return csv_err(c, "%s: \"%s\" is not a DNS subdomain (lowercase letters, digits, '-', '.')",
                       col, tmp);
    *out = keep(t, f->p, f->n);
    return *out ? DRA_OK : DRA_ENOMEM;
}

static int model_id(csv_t *c, dra_replay_trace_t *t, const char *p, size_t n, uint32_t *id)
{
    if (n == 0 || n > 63)
        return csv_err(c, "GPU model: want 1..63 characters");
    for (size_t i = 0; i < n; i++)
        if (!model_char(p[i]))
            return csv_err(c, "GPU model \"%.*s\": only letters, digits, '.', '_', '-' allowed",
                           (int)n, p);
    for (uint32_t i = 0; i < t->nmodels; i++)
        if (strlen(t->models[i]) == n && memcmp(t->models[i], p, n) == 0) {
            *id = i;
            return DRA_OK;
        }
    if (t->nmodels == DRA_POL_MAX_MODELS)
        return csv_err(c, "more than %d distinct GPU models", DRA_POL_MAX_MODELS);
    const char *s = keep(t, p, n);
    if (!s)
        return DRA_ENOMEM;
    t->models[t->nmodels] = (char *)s;
    *id = t->nmodels++;
    return DRA_OK;
}

typedef struct named {
    const char *name;
    uint32_t line;
} named_t;

static int named_qcmp(const void *a, const void *b)
{
    const named_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Names must be unique: sort (name, line) pairs, compare neighbours; the later line is named. */
static int check_unique(const char *file, named_t *v, uint32_t n, dra_diag_t *diag)
{
    qsort(v, n, sizeof *v, named_qcmp);
    for (uint32_t i = 1; i < n; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0)
            return dra_diag_set(diag, DRA_EPARSE, file, v[i].line, 0,
                                "duplicate name \"%s\" (also on line %u)", v[i].name,
                                v[i - 1].line);
    return DRA_OK;
}

static int unique_nodes(const char *file, const dra_replay_trace_t *t, dra_diag_t *diag)
{
    named_t *v = malloc(t->nnodes * sizeof *v);
    if (!v)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < t->nnodes; i++)
        v[i] = (named_t){t->nodes[i].name, t->nodes[i].line};
    int rc = check_unique(file, v, t->nnodes, diag);
    free(v);
    return rc;
}

static int unique_pods(const char *file, const dra_replay_trace_t *t, dra_diag_t *diag)
{
    named_t *v = malloc(t->npods * sizeof *v);
    if (!v)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < t->npods; i++)
        v[i] = (named_t){t->pods[i].name, t->pods[i].line};
    int rc = check_unique(file, v, t->npods, diag);
    free(v);
    return rc;
}

int dra_replay_parse_nodes(dra_replay_trace_t *t, const char *file, const char *buf, size_t len,
                           dra_diag_t *diag)
{
    static const char *const cols[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
    csv_t c = {file, buf, buf + len, buf, 0, diag};
    field_t f[MAX_FIELDS];
    uint32_t nf;
    int rc = csv_next(&c, f, &nf);
    if (rc <= 0)
        return rc < 0 ? rc
                      : dra_diag_set(diag, DRA_EPARSE, file, 1, 0, "empty file, want a header");
    if (nf != 5)
        return csv_err(&c, "header: want sn,cpu_milli,memory_mib,gpu,model");
    for (uint32_t i = 0; i < 5; i++)
        if (!field_is(&f[i], cols[i]))
            return csv_err(&c, "header: column %u is \"%.*s\", want \"%s\"", i + 1,
                           (int)(f[i].n > 40 ? 40 : f[i].n), f[i].p, cols[i]);
    uint32_t cap = 0;
    while ((rc = csv_next(&c, f, &nf)) == 1) {
        if (nf != 5)
            return csv_err(&c, "want 5 fields, got %u", nf);
        if (t->nnodes == cap) {
            uint32_t ncap = cap ? cap * 2 : 256;
            dra_replay_node_t *nn = realloc(t->nodes, ncap * sizeof *nn);
            if (!nn)
                return DRA_ENOMEM;
            t->nodes = nn;
            cap = ncap;
        }
        dra_replay_node_t *n = &t->nodes[t->nnodes];
        memset(n, 0, sizeof *n);
        n->line = c.line;
        int64_t g;
        if ((rc = csv_name(&c, t, &f[0], "sn", &n->name)) ||
            (rc = csv_int(&c, &f[1], "cpu_milli", 0, INT64_C(1) << 40, &n->cpu_milli)) ||
            (rc = csv_int(&c, &f[2], "memory_mib", 0, INT64_C(1) << 40, &n->mem_mib)) ||
            (rc = csv_int(&c, &f[3], "gpu", 0, DRA_POL_MAX_GPUS, &g)))
            return rc;
        n->ngpu = (uint32_t)g;
        if (n->ngpu > 0 && (rc = model_id(&c, t, f[4].p, f[4].n, &n->model)))
            return rc;
        if (n->ngpu == 0 && f[4].n)
            return csv_err(&c, "model: \"%.*s\" given for a node without GPUs",
                           (int)(f[4].n > 40 ? 40 : f[4].n), f[4].p);
        t->nnodes++;
    }
    if (rc < 0)
        return rc;
    if (t->nnodes == 0)
        return dra_diag_set(diag, DRA_EPARSE, file, c.line, 0, "no nodes");
    return unique_nodes(file, t, diag);
}

int dra_replay_parse_pods(dra_replay_trace_t *t, const char *file, const char *buf, size_t len,
                          dra_diag_t *diag)
{
    static const char *const cols[] = {
        "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
        "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
    csv_t c = {file, buf, buf + len, buf, 0, diag};
    field_t f[MAX_FIELDS];
    uint32_t nf;
    int rc = csv_next(&c, f, &nf);
    if (rc <= 0)
        return rc < 0 ? rc
                      : dra_diag_set(diag, DRA_EPARSE, file, 1, 0, "empty file, want a header");
    uint32_t ncols = nf;
    if (ncols != 5 && ncols != 11)
        return csv_err(&c, "header: want the 11 columns name,...,scheduled_time or the first 5");
    for (uint32_t i = 0; i < ncols; i++)
        if (!field_is(&f[i], cols[i]))
            return csv_err(&c, "header: column %u is \"%.*s\", want \"%s\"", i + 1,
                           (int)(f[i].n > 40 ? 40 : f[i].n), f[i].p, cols[i]);
    uint32_t cap = 0;
    while ((rc = csv_next(&c, f, &nf)) == 1) {
        if (nf != ncols)
            return csv_err(&c, "want %u fields, got %u", ncols, nf);
        if (t->npods == cap) {
            uint32_t ncap = cap ? cap * 2 : 1024;
            dra_replay_pod_t *np = realloc(t->pods, ncap * sizeof *np);
            if (!np)
                return DRA_ENOMEM;
            t->pods = np;
            cap = ncap;
        }
        dra_replay_pod_t *p = &t->pods[t->npods];
        memset(p, 0, sizeof *p);
        p->line = c.line;
        p->spec = "";
        int64_t ng, gm;
        if ((rc = csv_name(&c, t, &f[0], "name", &p->name)) ||
            (rc = csv_int(&c, &f[1], "cpu_milli", 0, INT64_C(1) << 40, &p->cpu_milli)) ||
            (rc = csv_int(&c, &f[2], "memory_mib", 0, INT64_C(1) << 40, &p->mem_mib)) ||
            (rc = csv_int(&c, &f[3], "num_gpu", 0, DRA_POL_MAX_GPUS, &ng)) ||
            (rc = csv_int(&c, &f[4], "gpu_milli", 0, DRA_POL_MILLI, &gm)))
            return rc;
        p->num_gpu = (uint32_t)ng;
        p->gpu_milli = (uint32_t)gm;
        if ((ng == 0) != (gm == 0))
            return csv_err(&c, "num_gpu %lld with gpu_milli %lld: both or neither must be 0",
                           (long long)ng, (long long)gm);
        if (ng > 1 && gm != DRA_POL_MILLI)
            return csv_err(&c, "gpu_milli %lld with num_gpu %lld: a share (< 1000) needs num_gpu 1",
                           (long long)gm, (long long)ng);
        if (ncols == 11 && f[5].n) {
            if (ng == 0)
                return csv_err(&c, "gpu_spec given for a pod without GPUs");
            p->spec = keep(t, f[5].p, f[5].n);
            if (!p->spec)
                return DRA_ENOMEM;
            /* '|'-separated models; empty entries are ignored, as the simulator does */
            const char *s = f[5].p, *e = f[5].p + f[5].n;
            while (s < e) {
                const char *bar = memchr(s, '|', (size_t)(e - s));
                const char *te = bar ? bar : e;
                if (te > s) {
                    uint32_t id;
                    if ((rc = model_id(&c, t, s, (size_t)(te - s), &id)))
                        return rc;
                    p->models |= UINT64_C(1) << id;
                }
                s = bar ? bar + 1 : e;
            }
        }
        t->npods++;
    }
    if (rc < 0)
        return rc;
    if (t->npods == 0)
        return dra_diag_set(diag, DRA_EPARSE, file, c.line, 0, "no pods");
    return unique_pods(file, t, diag);
}

static int read_csv(dra_replay_trace_t *t, const char *path, dra_diag_t *diag, bool nodes)
{
    char *buf = NULL;
    size_t len = 0;
    errno = 0;
    int rc = dra_io_read_file(path, (size_t)1 << 30, &buf, &len, diag);
    if (rc != DRA_OK) {
        if (diag && !diag->file)
            diag->file = path;
        if (rc == DRA_EIO && (errno == ENOENT || errno == ENOTDIR || errno == EISDIR))
            /* a missing input (or a directory) is invalid input: exit 2 */
            rc = DRA_ENOTFOUND;
        if (diag)
            diag->code = rc;
        return rc;
    }
    rc = nodes ? dra_replay_parse_nodes(t, path, buf, len, diag)
               : dra_replay_parse_pods(t, path, buf, len, diag);
    free(buf);
    return rc;
}

int dra_replay_read_nodes(dra_replay_trace_t *t, const char *path, dra_diag_t *diag)
{
    return read_csv(t, path, diag, true);
}

int dra_replay_read_pods(dra_replay_trace_t *t, const char *path, dra_diag_t *diag)
{
    return read_csv(t, path, diag, false);
}

/* ---- names ------------------------------------------------------------------------------------
 */

const char *dra_replay_choice_name(dra_replay_choice_t c)
{
    return c == DRA_REPLAY_CHOICE_DRA ? "dra" : "policy";
}

const char *dra_replay_mode_name(dra_replay_mode_t m)
{
    return m == DRA_REPLAY_MODE_DEVICE_PLUGIN ? "device-plugin" : "dra";
}

const char *dra_replay_reason_name(dra_replay_reason_t r)
{
    switch (r) {
    case DRA_REPLAY_UNSCHED_CPU_MEMORY:
        return "cpu_memory";
    case DRA_REPLAY_UNSCHED_GPU_MODEL:
        return "gpu_model";
    case DRA_REPLAY_UNSCHED_GPU_CAPACITY:
        return "gpu_capacity";
    default:
        return "unknown";
    }
}

/* ---- objects ----------------------------------------------------------------------------------
 */

static uint32_t pod_milli(const dra_replay_pod_t *p, bool device_plugin)
{
    if (p->num_gpu == 0)
        return 0;
    return device_plugin ? DRA_POL_MILLI : p->gpu_milli;
}

int dra_replay_build_model(const dra_replay_trace_t *t, bool device_plugin, dra_model_t *m)
{
    char buf[512];
    const char *drv = dra_model_str(m, DRA_REPLAY_DRIVER);
    uint32_t q_model = dra_model_qname(m, DRA_REPLAY_DRIVER, "model");
    uint32_t q_milli = dra_model_qname(m, DRA_REPLAY_DRIVER, "milli");
    if (!drv || !q_model || !q_milli)
        return DRA_ENOMEM;
    const char *gen = dra_model_str(m, "<replay>");
    dra_device_class_t *cls = dra_model_add_class(m);
    if (!cls || !gen)
        return DRA_ENOMEM;
    cls->name = drv;
    cls->pos.file = gen;
    cls->selectors = dra_model_array(m, 1, sizeof *cls->selectors);
    if (!cls->selectors)
        return DRA_ENOMEM;
    snprintf(buf, sizeof buf, "device.driver == \"%s\"", DRA_REPLAY_DRIVER);
    cls->selectors[0].cel = dra_model_str(m, buf);
    cls->selectors[0].pos.file = gen;
    cls->nselectors = 1;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const dra_replay_node_t *tn = &t->nodes[i];
        dra_node_t *n = dra_model_add_node(m);
        if (!n)
            return DRA_ENOMEM;
        n->name = dra_model_str(m, tn->name);
        n->pos.file = gen;
        n->pos.line = tn->line;
        snprintf(buf, sizeof buf, "%lldm", (long long)tn->cpu_milli);
        n->alloc_cpu = dra_model_str(m, buf);
        snprintf(buf, sizeof buf, "%lldMi", (long long)tn->mem_mib);
        n->alloc_memory = dra_model_str(m, buf);
        if (!n->name || !n->alloc_cpu || !n->alloc_memory)
            return DRA_ENOMEM;
        if (tn->ngpu == 0)
            continue;
        dra_slice_t *s = dra_model_add_slice(m);
        if (!s)
            return DRA_ENOMEM;
        snprintf(buf, sizeof buf, "%s-gpus", tn->name);
        s->name = dra_model_str(m, buf);
        s->api_version = dra_model_str(m, "resource.k8s.io/v1");
        s->driver = drv;
        s->pool_name = n->name;
        s->generation = 1;
        s->slice_count = 1;
        s->node_name = n->name;
        s->pos.file = gen;
        s->pos.line = tn->line;
        s->devices = dra_model_array(m, tn->ngpu, sizeof *s->devices);
        if (!s->name || !s->api_version || !s->devices)
            return DRA_ENOMEM;
        s->ndevices = tn->ngpu;
        const char *model = dra_model_str(m, t->models[tn->model]);
        for (uint32_t g = 0; g < tn->ngpu; g++) {
            dra_device_t *d = &s->devices[g];
            snprintf(buf, sizeof buf, "gpu-%u", g);
            d->name = dra_model_str(m, buf);
            d->attrs = dra_model_array(m, 1, sizeof *d->attrs);
            d->caps = dra_model_array(m, 1, sizeof *d->caps);
            if (!d->name || !d->attrs || !d->caps || !model)
                return DRA_ENOMEM;
            d->attrs[0].name = dra_model_str(m, "model");
            d->attrs[0].qname = q_model;
            d->attrs[0].kind = DRA_ATTR_STRING;
            d->attrs[0].count = 1;
            d->attrs[0].v.s = model;
            d->nattrs = 1;
            d->caps[0].name = dra_model_str(m, "milli");
            d->caps[0].qname = q_milli;
            dra_quantity_from_int64(DRA_POL_MILLI, &d->caps[0].value);
            d->ncaps = 1;
            d->allow_multiple_allocations = true;
            d->pos = s->pos;
        }
        dra_model_slice_done(m, s);
    }
    for (uint32_t i = 0; i < t->npods; i++) {
        const dra_replay_pod_t *tp = &t->pods[i];
        if (tp->num_gpu == 0)
            continue;
        dra_claim_t *c = dra_model_add_claim(m);
        if (!c)
            return DRA_ENOMEM;
        c->namespace_ = dra_model_str(m, "default");
        c->name = dra_model_str(m, tp->name);
        c->api_version = dra_model_str(m, "resource.k8s.io/v1");
        c->pos.file = gen;
        c->pos.line = tp->line;
        c->requests = dra_model_array(m, 1, sizeof *c->requests);
        dra_exact_request_t *e = dra_model_array(m, 1, sizeof *e);
        dra_cap_request_t *cr = dra_model_array(m, 1, sizeof *cr);
        if (!c->namespace_ || !c->name || !c->requests || !e || !cr)
            return DRA_ENOMEM;
        c->nrequests = 1;
        c->requests[0].name = dra_model_str(m, "gpu");
        c->requests[0].exactly = e;
        c->requests[0].pos = c->pos;
        e->name = c->requests[0].name;
        e->class_name = drv;
        e->mode = DRA_MODE_EXACT_COUNT;
        e->has_count = true;
        e->count = tp->num_gpu;
        e->pos = c->pos;
        cr->name = dra_model_str(m, "milli");
        cr->qname = q_milli;
        dra_quantity_from_int64(pod_milli(tp, device_plugin), &cr->value);
        e->cap_requests = cr;
        e->ncap_requests = 1;
        e->has_capacity = true;
        if (tp->models) {
            /* any allowed list (64 models of 63 characters: about 4.4 KB, within the 10 KiB
             * Kubernetes allows a selector) fits: a buffer that grows, not a fixed one */
            dra_sbuf_t sel = {0};
            dra_sbuf_printf(&sel, "device.attributes[\"%s\"].model in [", DRA_REPLAY_DRIVER);
            bool first = true;
            for (uint32_t k = 0; k < t->nmodels; k++)
                if ((tp->models >> k) & 1u) {
                    dra_sbuf_printf(&sel, "%s\"%s\"", first ? "" : ", ", t->models[k]);
                    first = false;
                }
            dra_sbuf_puts(&sel, "]");
            e->selectors = dra_model_array(m, 1, sizeof *e->selectors);
            const char *cel = sel.err ? NULL : dra_model_str(m, sel.p);
            dra_sbuf_fini(&sel);
            if (!e->selectors || !cel)
                return DRA_ENOMEM;
            e->selectors[0].cel = cel;
            e->selectors[0].pos = c->pos;
            e->nselectors = 1;
        }
    }
    return DRA_OK;
}

int dra_replay_dra_init(dra_replay_dra_t *d, const dra_replay_trace_t *t, bool device_plugin)
{
    memset(d, 0, sizeof *d);
    dra_model_init(&d->model);
    d->claim = calloc(t->npods ? t->npods : 1, sizeof *d->claim);
    int rc = d->claim ? dra_replay_build_model(t, device_plugin, &d->model) : DRA_ENOMEM;
    if (rc == DRA_OK)
        rc = dra_cel_cache_new(&d->cel);
    if (rc != DRA_OK) {
        dra_replay_dra_fini(d);
        return rc;
    }
    for (uint32_t i = 0, k = 0; i < t->npods; i++)
        if (t->pods[i].num_gpu)
            d->claim[i] = d->model.claims[k++];
    dra_alloc_features_init(&d->features, DRA_RELEASE_DEFAULT);
    d->features.gates |= 1u << DRA_GATE_CONSUMABLE_CAPACITY;
    return DRA_OK;
}

void dra_replay_dra_fini(dra_replay_dra_t *d)
{
    if (d->cel)
        dra_cel_cache_free(d->cel);
    free(d->claim);
    dra_model_fini(&d->model);
    memset(d, 0, sizeof *d);
}

/* ---- the replay -------------------------------------------------------------------------------
 */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

static int64_t demand(const dra_replay_pod_t *p)
{
    return (int64_t)p->num_gpu * p->gpu_milli;
}

/* The index of the k-th (0-based) element still present, in a Fenwick tree over n slots that
 * counts the present ones (tree[1..n], 1-based). */
static size_t fenwick_kth(const uint32_t *tree, size_t n, size_t k)
{
    size_t pos = 0, step = 1;
    while (step * 2 <= n)
        step *= 2;
    for (; step; step /= 2)
        if (pos + step <= n && tree[pos + step] <= k) {
            pos += step;
            k -= tree[pos];
        }
    return pos; /* 0-based: slot pos + 1 of the tree */
}

/* Remove pods at random positions of the list (order kept) until the demand is within the
 * target: the same choices as removing one at a time by shifting the list, in O(n log n)
 * instead of O(n^2). */
static int remove_surplus(const dra_replay_trace_t *t, double target, uint64_t *rng, uint32_t *o,
                          size_t *n_io, int64_t *total)
{
    size_t n0 = *n_io, n = n0;
    if (!((double)*total > target) || n0 == 0)
        return DRA_OK;
    uint32_t *tree = calloc(n0 + 1, sizeof *tree);
    uint8_t *gone = calloc(n0, 1);
    if (!tree || !gone) {
        free(tree);
        free(gone);
        return DRA_ENOMEM;
    }
    for (size_t i = 1; i <= n0; i++) { /* every slot present: linear build */
        tree[i] += 1;
        size_t up = i + (i & (~i + 1));
        if (up <= n0)
            tree[up] += tree[i];
    }
    while ((double)*total > target && n > 0) {
        size_t idx = fenwick_kth(tree, n0, rng_below(rng, (uint32_t)n));
        *total -= demand(&t->pods[o[idx]]);
        gone[idx] = 1;
        for (size_t i = idx + 1; i <= n0; i += i & (~i + 1))
            tree[i]--;
        n--;
    }
    size_t j = 0;
    for (size_t i = 0; i < n0; i++)
        if (!gone[i])
            o[j++] = o[i];
    *n_io = n;
    free(tree);
    free(gone);
    return DRA_OK;
}

/* TunePodsByNodeTotalResource: the trace's pods, then random removals (demand above target) or
 * random copies (below) until the demand is as close to tune x capacity as the next pod allows;
 * then shuffled. *order_out receives pod indexes, *n_out their count (at most
 * DRA_REPLAY_MAX_SUBMITTED: DRA_ELIMIT beyond, with the figures in diag). */
static int resample(const dra_replay_trace_t *t, double target, uint64_t seed,
                    uint32_t **order_out, size_t *n_out, dra_diag_t *diag)
{
    uint64_t rng = seed;
    size_t n = t->npods, cap = n * 2 + 16;
    uint32_t *o = malloc(cap * sizeof *o);
    if (!o)
        return DRA_ENOMEM;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        o[i] = (uint32_t)i;
        total += demand(&t->pods[i]);
    }
    int rc = remove_surplus(t, target, &rng, o, &n, &total);
    if (rc != DRA_OK) {
        free(o);
        return rc;
    }
    int64_t trace_demand = total;
    /* a trace without GPU demand never reaches the target: stop copying its pods after this */
    size_t zero_stop = 64 * (size_t)t->npods + 1024;
    for (;;) {
        uint32_t k = rng_below(&rng, t->npods);
        int64_t dk = demand(&t->pods[k]);
        if ((double)(total + dk) > target)
            break;
        if (n >= DRA_REPLAY_MAX_SUBMITTED) {
            free(o);
            return dra_diag_set(diag, DRA_ELIMIT, NULL, 0, 0,
                                "resampling would submit more than %u pods (the limit of one "
                                "replay): the target is %.0f GPU milli (tune x capacity) and "
                                "the %u pods of the list ask for %lld; lower --tune, use fewer "
                                "nodes or a pod list with more GPU demand per pod",
                                DRA_REPLAY_MAX_SUBMITTED, target, t->npods,
                                (long long)trace_demand);
        }
        if (n == cap) {
            cap *= 2;
            uint32_t *no = realloc(o, cap * sizeof *o);
            if (!no) {
                free(o);
                return DRA_ENOMEM;
            }
            o = no;
        }
        o[n++] = k;
        total += dk;
        if (dk == 0 && n > zero_stop)
            break;
    }
    for (size_t i = n; i > 1; i--) {
        uint32_t j = rng_below(&rng, (uint32_t)i);
        uint32_t tmp = o[i - 1];
        o[i - 1] = o[j];
        o[j] = tmp;
    }
    *order_out = o;
    *n_out = n;
    return DRA_OK;
}

static void to_pol_pod(const dra_replay_pod_t *p, bool device_plugin, dra_pol_pod_t *out)
{
    out->cpu_milli = p->cpu_milli;
    out->mem_mib = p->mem_mib;
    out->num_gpu = p->num_gpu;
    out->gpu_milli = pod_milli(p, device_plugin);
    out->models = p->models;
}

static void record(const dra_pol_t *pol, int64_t served, int64_t cap, double pct,
                   dra_replay_point_t *pt)
{
    double frag = pol->class_total ? (double)pol->frag_total / (double)pol->class_total : 0.0;
    double idle = (double)dra_pol_idle_milli(pol);
    pt->arrived_pct = pct;
    pt->alloc_pct = cap ? 100.0 * (double)pol->gpu_milli_used / (double)cap : 0.0;
    pt->frag_ratio_pct = idle > 0 ? 100.0 * frag / idle : 0.0;
    pt->frag_amount_pct = cap ? 100.0 * frag / (double)cap : 0.0;
    pt->served_pct = cap ? 100.0 * (double)served / (double)cap : 0.0;
}

static dra_replay_reason_t classify(const dra_pol_t *pol, const dra_pol_pod_t *pod)
{
    bool model = false, fits = false;
    for (uint32_t i = 0; i < pol->nnodes; i++) {
        const dra_pol_node_t *n = &pol->nodes[i];
        bool m = pod->num_gpu == 0 || (n->ngpu >= pod->num_gpu &&
                                       (pod->models == 0 || ((pod->models >> n->model) & 1u)));
        if (!m)
            continue;
        model = true;
        if (n->cpu_left >= pod->cpu_milli && n->mem_left >= pod->mem_mib) {
            fits = true;
            break;
        }
    }
    if (!model)
        return DRA_REPLAY_UNSCHED_GPU_MODEL;
    return fits ? DRA_REPLAY_UNSCHED_GPU_CAPACITY : DRA_REPLAY_UNSCHED_CPU_MEMORY;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct dractx {
    dra_replay_dra_t *d;
    dra_alloc_state_t *state;
    dra_fast_t *fast;
    dra_arena_t arena;
} dractx_t;

/* Exact allocation of the pod's claim on node; gpus[] from the result's device names. 1 when
 * allocated, 0 when the allocator refused, <0 on error. */
static int dra_place(dractx_t *x, const dra_replay_trace_t *t, uint32_t pod, uint32_t node,
                     uint32_t *gpus, dra_diag_t *diag)
{
    dra_claim_t *c = x->d->claim[pod];
    const dra_node_t *mn = x->d->model.nodes[node];
    dra_alloc_outcome_t out;
    int rc = dra_fast_allocate(x->fast, mn, &c, 1, &x->arena, &out);
    if (rc != DRA_OK)
        return rc;
    if (out.kind != DRA_OUTCOME_ALLOCATED)
        return 0;
    const dra_allocation_t *a = out.allocations[0];
    if (a->nresults != t->pods[pod].num_gpu)
        return dra_diag_set(diag, DRA_EINTERNAL, NULL, 0, 0, "claim %s: %u results, want %u",
                            c->name, a->nresults, t->pods[pod].num_gpu);
    for (uint32_t r = 0; r < a->nresults; r++) {
        unsigned g;
        char extra;
        if (strcmp(a->results[r].pool, mn->name) != 0 ||
            sscanf(a->results[r].device, "gpu-%u%c", &g, &extra) != 1 || g >= t->nodes[node].ngpu)
            return dra_diag_set(diag, DRA_EINTERNAL, NULL, 0, 0,
                                "claim %s: unexpected device %s/%s on node %s", c->name,
                                a->results[r].pool, a->results[r].device, mn->name);
        gpus[r] = g;
    }
    rc = dra_alloc_state_commit(x->state, a);
    return rc == DRA_OK ? 1 : rc;
}

int dra_replay_run(const dra_replay_trace_t *t, const dra_replay_opts_t *o, dra_replay_dra_t *dra,
                   dra_replay_result_t *out, dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    if (!(o->tune >= 0.1 && o->tune <= 3.0)) /* at least one point after the start */
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "tune must be in [0.1, 3]");
    if (o->choice == DRA_REPLAY_CHOICE_DRA && !dra)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "device choice dra needs the model");
    bool dp = o->mode == DRA_REPLAY_MODE_DEVICE_PLUGIN;
    int rc = DRA_ENOMEM;
    dra_pol_node_spec_t *ns = calloc(t->nnodes, sizeof *ns);
    dra_pol_pod_t *pp = calloc(t->npods, sizeof *pp);
    dra_pol_class_t *cls = calloc(t->npods, sizeof *cls);
    uint8_t *skip = calloc(t->nnodes, 1);
    uint32_t *order = NULL, *skipped = calloc(t->nnodes, sizeof *skipped);
    dra_pol_t pol = {0};
    bool pol_ok = false;
    dractx_t x = {0};
    dra_arena_init(&x.arena, 0);
    if (!ns || !pp || !cls || !skip || !skipped)
        goto done;
    int64_t cap = 0;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        ns[i].cpu_milli = t->nodes[i].cpu_milli;
        ns[i].mem_mib = t->nodes[i].mem_mib;
        ns[i].ngpu = t->nodes[i].ngpu;
        ns[i].model = t->nodes[i].model;
        cap += (int64_t)t->nodes[i].ngpu * DRA_POL_MILLI;
    }
    for (uint32_t i = 0; i < t->npods; i++)
        to_pol_pod(&t->pods[i], dp, &pp[i]);
    uint32_t ncls;
    if ((rc = dra_pol_typical_classes(pp, t->npods, cls, &ncls)) != DRA_OK)
        goto done;
    if ((rc = dra_pol_init(&pol, o->policy, ns, t->nnodes, cls, ncls, o->seed ^ 0x5eed)) != DRA_OK)
        goto done;
    pol_ok = true;
    out->nclasses = ncls;
    out->capacity_milli = cap;
    size_t n = 0;
    if ((rc = resample(t, o->tune * (double)cap, o->seed, &order, &n, diag)) != DRA_OK)
        goto done;
    if (o->choice == DRA_REPLAY_CHOICE_DRA) {
        dra_alloc_options_t ao = {0, o->seed};
        x.d = dra;
        if ((rc = dra_alloc_state_new(&dra->model, &dra->features, &x.state)) != DRA_OK ||
            (rc = dra_fast_new(&dra->model, &dra->features, x.state, dra->cel, &ao, &x.fast)) !=
                DRA_OK)
            goto done;
    }
    out->npoints = (uint32_t)(o->tune * 10.0 + 1e-9) + 1;
    uint32_t next = 1;
    int64_t arrived = 0, served = 0;
    record(&pol, 0, cap, 0, &out->pt[0]);
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t k = 0; k < n; k++) {
        uint32_t pi = order[k];
        const dra_pol_pod_t *pod = &pp[pi];
        uint32_t node, gpus[DRA_POL_MAX_GPUS], nskipped = 0;
        bool placed = false;
        while (dra_pol_pick(&pol, pod, skip, &node, gpus)) {
            if (o->choice == DRA_REPLAY_CHOICE_DRA && pod->num_gpu) {
                out->dra_calls++;
                int r = dra_place(&x, t, pi, node, gpus, diag);
                if (r < 0) {
                    rc = r;
                    goto done;
                }
                if (r == 0) { /* refused: the next best node */
                    out->dra_refused++;
                    skip[node] = 1;
                    skipped[nskipped++] = node;
                    continue;
                }
            }
            if ((rc = dra_pol_place(&pol, node, pod, gpus)) != DRA_OK) {
                dra_diag_set(diag, DRA_EINTERNAL, NULL, 0, 0,
                             "pod %s: placement on node %s rejected", t->pods[pi].name,
                             t->nodes[node].name);
                rc = DRA_EINTERNAL;
                goto done;
            }
            placed = true;
            break;
        }
        for (uint32_t s = 0; s < nskipped; s++)
            skip[skipped[s]] = 0;
        out->submitted++;
        arrived += demand(&t->pods[pi]);
        if (placed) {
            out->scheduled++;
            served += demand(&t->pods[pi]);
        } else {
            out->unsched[classify(&pol, pod)]++;
        }
        while (next < out->npoints && (double)arrived * 10.0 >= (double)next * (double)cap) {
            record(&pol, served, cap, 10.0 * next, &out->pt[next]);
            next++;
        }
    }
    out->seconds = clock_s(CLOCK_MONOTONIC) - t0;
    out->cpu_seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    for (; next < out->npoints; next++) /* the end of the trace (demand within one pod of it) */
        record(&pol, served, cap, 10.0 * next, &out->pt[next]);
    out->submitted_milli = arrived;
    rc = DRA_OK;
done:
    if (x.fast)
        dra_fast_free(x.fast);
    if (x.state)
        dra_alloc_state_free(x.state);
    dra_arena_fini(&x.arena);
    if (pol_ok)
        dra_pol_fini(&pol);
    free(ns);
    free(pp);
    free(cls);
    free(skip);
    free(skipped);
    free(order);
    return rc;
}
