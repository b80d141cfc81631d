/*
 * cel_fuzzer.c - fuzz the CEL engine: parse + check (DRA environment and unchecked standard
 * mode), evaluate against a device derived from the input bytes.
 *
 * Input: EXPR [ '\0' DEVICE-BYTES ]. Without a NUL the device bytes are a hash of the
 * expression. The device bytes pick the driver, up to 8 attributes (name, kind, value) and up to
 * 2 capacities from small tables, so expressions that name those attributes reach real values.
 * Invariants checked (abort on violation): compile returns OK, ECOMPILE or ELIMIT; evaluation
 * returns OK, ERUNTIME or ECOST with a non-empty message; the scratch arena is back at its mark;
 * the cache returns the same outcome twice.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/cel_int.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const drivers[] = {"gpu.nvidia.com", "dra.example.com", "", "gpu.intel.com"};
static const char *const names[] = {"model",       "index", "rdma",
                                    "driverVersion", "names", "numa",
                                    "ext.example.com/family", "productName"};
static const char *const strs[] = {"a", "NVIDIA H100 80GB HBM3", "", "gpu-1", "x-y-z", "ü"};
static const char *const vers[] = {"1.0.0", "550.54.15", "1.2.3-rc.1+b", "99999999999999999999.0.0",
                                   "v1"};
static const char *const qty[] = {"40Gi", "1", "1.5Gi", "100m", "9Ei", "0", "-1k"};

static uint8_t take(const uint8_t *b, size_t n, size_t *i)
{
    uint8_t v = n ? b[*i % n] : 0;
    (*i)++;
    return v;
}

static const dra_device_t *make_device(dra_model_t *m, const uint8_t *b, size_t n)
{
    size_t i = 0;
    dra_slice_t *s = dra_model_add_slice(m);
    if (!s)
        return NULL;
    s->driver = dra_model_str(m, drivers[take(b, n, &i) % 4]);
    s->devices = dra_model_array(m, 1, sizeof(dra_device_t));
    if (!s->devices || !s->driver)
        return NULL;
    s->ndevices = 1;
    dra_device_t *d = &s->devices[0];
    d->name = "fuzz";
    d->allow_multiple_allocations = take(b, n, &i) & 1;
    uint32_t na = take(b, n, &i) % 9;
    d->attrs = dra_model_array(m, na ? na : 1, sizeof(dra_attr_t));
    if (!d->attrs)
        return NULL;
    for (uint32_t k = 0; k < na; k++) {
        const char *nm = names[take(b, n, &i) % 8];
        bool dup = false;
        for (uint32_t j = 0; j < d->nattrs; j++)
            dup |= !strcmp(d->attrs[j].name, nm);
        if (dup)
            continue;
        dra_attr_t *a = &d->attrs[d->nattrs++];
        a->name = nm;
        a->qname = dra_model_qname(m, s->driver, nm);
        a->count = 1;
        uint8_t kind = take(b, n, &i) % 8;
        uint8_t v = take(b, n, &i);
        switch (kind) {
        case 0: a->kind = DRA_ATTR_INT; a->v.i = (int64_t)(int8_t)v * 1000003LL; break;
        case 1: a->kind = DRA_ATTR_BOOL; a->v.b = v & 1; break;
        case 2: a->kind = DRA_ATTR_STRING; a->v.s = strs[v % 6]; break;
        case 3: a->kind = DRA_ATTR_VERSION; a->v.s = vers[v % 5]; break;
        case 4: {
            int64_t *xs = dra_model_array(m, 3, sizeof *xs);
            if (!xs)
                return NULL;
            xs[0] = v;
            xs[1] = -1;
            xs[2] = INT64_MAX;
            a->kind = DRA_ATTR_INTS;
            a->v.ints = xs;
            a->count = v % 4;
            break;
        }
        case 5: {
            bool *xs = dra_model_array(m, 2, sizeof *xs);
            if (!xs)
                return NULL;
            xs[0] = true;
            a->kind = DRA_ATTR_BOOLS;
            a->v.bools = xs;
            a->count = v % 3;
            break;
        }
        case 6: {
            const char **xs = dra_model_array(m, 2, sizeof *xs);
            if (!xs)
                return NULL;
            xs[0] = strs[v % 6];
            xs[1] = strs[(v / 6) % 6];
            a->kind = DRA_ATTR_STRINGS;
            a->v.strs = xs;
            a->count = v % 3;
            break;
        }
        default: {
            const char **xs = dra_model_array(m, 1, sizeof *xs);
            if (!xs)
                return NULL;
            xs[0] = vers[v % 3];
            a->kind = DRA_ATTR_VERSIONS;
            a->v.strs = xs;
            a->count = v % 2;
            break;
        }
        }
    }
    uint32_t nc = take(b, n, &i) % 3;
    d->caps = dra_model_array(m, 2, sizeof(dra_capacity_t));
    if (!d->caps)
        return NULL;
    for (uint32_t k = 0; k < nc; k++) {
        dra_capacity_t *c = &d->caps[d->ncaps++];
        c->name = k ? "cores" : "memory";
        c->qname = dra_model_qname(m, s->driver, c->name);
        const char *q = qty[take(b, n, &i) % 7];
        if (dra_quantity_parse(q, strlen(q), &c->value, NULL) != DRA_OK)
            abort();
    }
    dra_model_slice_done(m, s);
    return d;
}

static void check_eval_rc(int rc, const dra_diag_t *d)
{
    if (rc != DRA_OK && rc != DRA_ERUNTIME && rc != DRA_ECOST) {
        fprintf(stderr, "cel_fuzzer: unexpected evaluation result %s: %s\n", dra_err_name(rc), d->msg);
        abort();
    }
    if (rc != DRA_OK && !d->msg[0]) {
        fprintf(stderr, "cel_fuzzer: runtime error without a message\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    const uint8_t *nul = memchr(data, 0, size);
    size_t elen = nul ? (size_t)(nul - data) : size;
    const uint8_t *db = nul ? nul + 1 : data;
    size_t dn = nul ? size - elen - 1 : size;
    uint8_t hb[8];
    if (!nul) {
        uint64_t h = dra_hash64(data, size);
        memcpy(hb, &h, sizeof hb);
        db = hb;
        dn = sizeof hb;
    }
    const char *expr = (const char *)data;

    dra_model_t m;
    dra_model_init(&m);
    const dra_device_t *dev = make_device(&m, db, dn);
    dra_arena_t arena, scratch;
    dra_arena_init(&arena, 1 << 16);
    dra_arena_init(&scratch, 1 << 16);
    dra_cel_prog_t *p = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cel_compile(expr, elen, &arena, &p, &d);
    if (rc != DRA_OK && rc != DRA_ECOMPILE && rc != DRA_ELIMIT) {
        fprintf(stderr, "cel_fuzzer: unexpected compile result %s: %s\n", dra_err_name(rc), d.msg);
        abort();
    }
    if (rc == DRA_ECOMPILE && (d.column == 0 || !d.msg[0])) {
        fprintf(stderr, "cel_fuzzer: compile error without position or message\n");
        abort();
    }
    if (rc == DRA_OK && dev) {
        bool match = false;
        dra_arena_mark_t before = dra_arena_mark(&scratch);
        dra_diag_clear(&d);
        int erc = dra_cel_eval_device(p, &m, dev, &scratch, &match, &d);
        check_eval_rc(erc, &d);
        dra_arena_mark_t after = dra_arena_mark(&scratch);
        if (before.used != after.used) {
            fprintf(stderr, "cel_fuzzer: scratch arena not reset\n");
            abort();
        }
        /* evaluating twice gives the same outcome (the name cache is now warm); an evaluation
         * stopped by the runtime cost limit is not repeated: it is the slowest input there is
         * (a million cost units), and the fuzzer's time limit is wall time on shared machines */
        if (erc == DRA_ECOST) {
            dra_arena_reset(&scratch);
            goto standard;
        }
        bool match2 = false;
        dra_diag_t d2;
        dra_diag_clear(&d2);
        int erc2 = dra_cel_eval_device(p, &m, dev, &scratch, &match2, &d2);
        if (erc2 != erc || (erc == DRA_OK && match2 != match)) {
            fprintf(stderr, "cel_fuzzer: evaluation is not deterministic\n");
            abort();
        }
        const char *text = NULL;
        dra_diag_clear(&d);
        erc = dra_cel_eval_device_text(p, &m, dev, &scratch, &text, &d);
        check_eval_rc(erc, &d);
        dra_arena_reset(&scratch);
    }
standard:
    /* standard CEL mode without the checker: the evaluator must cope with any tree */
    if (elen <= DRA_CEL_MAX_LEN) {
        dra_cel_env_t env = {.no_check = true, .cost_limit = DRA_CEL_MAX_COST};
        dra_cel_prog_t *q = NULL;
        dra_diag_clear(&d);
        rc = dra_cel_compile_env(expr, elen, &env, &arena, &q, &d);
        if (rc == DRA_OK) {
            dra_cel_act_t act = {0};
            dra_cel_val_t v;
            dra_diag_clear(&d);
            int erc = dra_cel_eval_value(q, &act, &scratch, &v, &d);
            check_eval_rc(erc, &d);
            if (erc == DRA_OK && !dra_cel_val_str(&scratch, &v))
                abort();
        }
    }
    dra_arena_fini(&scratch);
    dra_arena_fini(&arena);
    dra_model_fini(&m);
    return 0;
}
