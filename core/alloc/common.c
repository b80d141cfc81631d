/*
 * common.c - release profiles, feature gates, and the rules shared by the reference allocator,
 * the brute-force enumerator and the invariant checker (see alloc_impl.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"

/* ---- features --------------------------------------------------------------------------------- */

static const char *const gate_names[DRA_GATE_COUNT] = {
    "DRAAdminAccess",
    "DRAPrioritizedList",
    "DRAPartitionableDevices",
    "DRADeviceTaints",
    "DRADeviceBindingConditions",
    "DRAResourceClaimDeviceStatus",
    "DRAConsumableCapacity",
    "DRAListTypeAttributes",
    "DRAExtendedResource",
    "DRADeviceTaintRules",
    "GenericWorkload",
    "GangScheduling",
    "TopologyAwareWorkloadScheduling",
    "DRAWorkloadResourceClaims",
};

const char *dra_alloc_gate_name(dra_gate_t g)
{
    return (unsigned)g < DRA_GATE_COUNT ? gate_names[g] : "?";
}

#define G(x) (1u << (x))

void dra_alloc_features_init(dra_alloc_features_t *f, dra_release_t release)
{
    memset(f, 0, sizeof *f);
    f->release = (uint16_t)release;
    /* DRA-SEMANTICS §3.1 defaults */
    uint32_t g = G(DRA_GATE_ADMIN_ACCESS) | G(DRA_GATE_PRIORITIZED_LIST) |
                 G(DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS);
    if (release >= DRA_RELEASE_1_36)
        g |= G(DRA_GATE_PARTITIONABLE_DEVICES) | G(DRA_GATE_DEVICE_TAINTS) |
             G(DRA_GATE_DEVICE_BINDING_CONDITIONS) | G(DRA_GATE_CONSUMABLE_CAPACITY) |
             G(DRA_GATE_EXTENDED_RESOURCE);
    f->gates = g;
}

int dra_alloc_release_parse(const char *s, dra_release_t *out, dra_diag_t *diag)
{
    if (!s)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "missing release");
    if (s[0] == 'v')
        s++;
    static const struct {
        const char *p;
        dra_release_t r;
    } tab[] = {{"1.34", DRA_RELEASE_1_34}, {"1.35", DRA_RELEASE_1_35}, {"1.36", DRA_RELEASE_1_36}};
    for (size_t i = 0; i < DRA_ARRAY_LEN(tab); i++) {
        size_t n = strlen(tab[i].p);
        if (strncmp(s, tab[i].p, n) == 0 && (s[n] == 0 || s[n] == '.')) {
            *out = tab[i].r;
            return DRA_OK;
        }
    }
    return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                        "unknown release \"%s\" (expected 1.34, 1.35 or 1.36)", s);
}

int dra_alloc_features_set_gate(dra_alloc_features_t *f, const char *gate, bool on, dra_diag_t *diag)
{
    for (int i = 0; i < DRA_GATE_COUNT; i++) {
        if (strcmp(gate, gate_names[i]) == 0) {
            if (i == DRA_GATE_LIST_TYPE_ATTRIBUTES && on && f->release < DRA_RELEASE_1_36)
                return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                                    "feature gate %s does not exist in release 1.%u", gate,
                                    (unsigned)(f->release - 100));
            bool workload = i == DRA_GATE_GENERIC_WORKLOAD || i == DRA_GATE_GANG_SCHEDULING ||
                            i == DRA_GATE_TOPOLOGY_AWARE_WORKLOAD ||
                            i == DRA_GATE_WORKLOAD_RESOURCE_CLAIMS;
            if (workload && on && f->release < DRA_RELEASE_1_36)
                return dra_diag_set(
                    diag, DRA_EINVAL, NULL, 0, 0,
                    "feature gate %s: workload scheduling is modelled from release 1.36 "
                    "(scheduling.k8s.io/v1alpha2); release 1.%u %s", gate,
                    (unsigned)(f->release - 100),
                    i == DRA_GATE_GENERIC_WORKLOAD || i == DRA_GATE_GANG_SCHEDULING
                        ? "has its v1alpha1 Workload API, which drabench does not read"
                        : "does not have it");
            if (on)
                f->gates |= G(i);
            else
                f->gates &= ~G(i);
            return DRA_OK;
        }
    }
    return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "unknown feature gate \"%s\"", gate);
}

int dra_alloc_features_set(dra_alloc_features_t *f, const char *assignment, dra_diag_t *diag)
{
    const char *eq = strchr(assignment, '=');
    char name[64];
    size_t n = eq ? (size_t)(eq - assignment) : strlen(assignment);
    if (n == 0 || n >= sizeof name)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "bad feature assignment \"%s\"",
                            assignment);
    memcpy(name, assignment, n);
    name[n] = 0;
    bool on = true;
    if (eq) {
        const char *v = eq + 1;
        if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "1") == 0)
            on = true;
        else if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "0") == 0)
            on = false;
        else
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                                "bad value \"%s\" for feature gate %s (expected true or false)", v,
                                name);
    }
    return dra_alloc_features_set_gate(f, name, on, diag);
}

/* Allocator feature flags as upstream's Features struct. */
enum { F_AA = 1, F_PL = 2, F_PD = 4, F_DT = 8, F_BS = 16, F_CC = 32, F_LTA = 64 };

static unsigned feature_flags(const dra_alloc_features_t *f)
{
    unsigned x = 0;
    if (dra_alloc_gate_on(f, DRA_GATE_ADMIN_ACCESS))
        x |= F_AA;
    if (dra_alloc_gate_on(f, DRA_GATE_PRIORITIZED_LIST))
        x |= F_PL;
    if (dra_alloc_gate_on(f, DRA_GATE_PARTITIONABLE_DEVICES))
        x |= F_PD;
    if (dra_alloc_gate_on(f, DRA_GATE_DEVICE_TAINTS))
        x |= F_DT;
    if (dra_alloc_gate_on(f, DRA_GATE_DEVICE_BINDING_CONDITIONS) &&
        dra_alloc_gate_on(f, DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS))
        x |= F_BS;
    if (dra_alloc_gate_on(f, DRA_GATE_CONSUMABLE_CAPACITY))
        x |= F_CC;
    if (dra_alloc_gate_on(f, DRA_GATE_LIST_TYPE_ATTRIBUTES))
        x |= F_LTA;
    return x;
}

dra_variant_t dra_alloc_variant(const dra_alloc_features_t *f)
{
    unsigned x = feature_flags(f);
    unsigned stable, incubating;
    if (f->release >= DRA_RELEASE_1_36) {
        stable = F_AA | F_PL | F_PD | F_DT;
        incubating = stable | F_BS | F_CC;
    } else {
        stable = 0;
        incubating = F_AA | F_PL | F_PD | F_DT;
    }
    if ((x & ~stable) == 0)
        return DRA_VARIANT_STABLE;
    if ((x & ~incubating) == 0)
        return DRA_VARIANT_INCUBATING;
    return DRA_VARIANT_EXPERIMENTAL;
}

const char *dra_alloc_variant_name(dra_variant_t v)
{
    switch (v) {
    case DRA_VARIANT_STABLE:
        return "stable";
    case DRA_VARIANT_INCUBATING:
        return "incubating";
    case DRA_VARIANT_EXPERIMENTAL:
        return "experimental";
    }
    return "?";
}

void dra__beh_init(dra__beh_t *b, const dra_alloc_features_t *f)
{
    memset(b, 0, sizeof *b);
    unsigned x = feature_flags(f);
    b->release = (dra_release_t)f->release;
    b->variant = dra_alloc_variant(f);
    b->admin = x & F_AA;
    b->prio = x & F_PL;
    b->pd = x & F_PD;
    b->taints = x & F_DT;
    b->binding = x & F_BS;
    b->cc = x & F_CC;
    b->lists = (x & F_LTA) && b->variant == DRA_VARIANT_EXPERIMENTAL;
    bool modern = f->release >= DRA_RELEASE_1_36 && b->variant != DRA_VARIANT_STABLE;
    b->combos = modern;
    b->sort_slices = modern;
    b->bc_last = modern;
    b->binds_to_node = modern;
    b->strict_pools = f->release >= DRA_RELEASE_1_35;
    b->pool_counters = f->release >= DRA_RELEASE_1_35;
    b->counter_slices_always = b->variant == DRA_VARIANT_STABLE;
    b->bugs = f->upstream_bugs;
}

const char *dra_outcome_name(dra_outcome_t o)
{
    switch (o) {
    case DRA_OUTCOME_ALLOCATED:
        return "Allocated";
    case DRA_OUTCOME_UNSATISFIABLE:
        return "Unsatisfiable";
    case DRA_OUTCOME_NODE_FAILURE:
        return "NodeFailure";
    case DRA_OUTCOME_FATAL:
        return "Fatal";
    }
    return "?";
}

const char *dra__claim_ref(const dra_claim_t *c, char *buf, size_t len)
{
    if (c->namespace_ && c->namespace_[0])
        snprintf(buf, len, "%s/%s", c->namespace_, c->name ? c->name : "");
    else
        snprintf(buf, len, "%s", c->name ? c->name : "");
    return buf;
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- quantities ------------------------------------------------------------------------------ */

dra__aq_t dra__aq_from(const dra_quantity_t *q)
{
    dra__uaq_t m = ((dra__uaq_t)q->hi << 64) | q->lo;
    int32_t e = q->exp + 9;
    const dra__uaq_t lim = (dra__uaq_t)DRA_AQ_SAT;
    if (m == 0)
        return 0;
    if (e >= 0) {
        for (int32_t i = 0; i < e; i++) {
            if (m > lim / 10) {
                m = lim;
                break;
            }
            m *= 10;
        }
    } else {
        bool rem = false;
        for (int32_t i = 0; i < -e && m; i++) {
            if (m % 10)
                rem = true;
            m /= 10;
        }
        if (rem)
            m += 1; /* round away from zero to 1n, as Kubernetes does */
    }
    if (m > lim)
        m = lim;
    dra__aq_t v = (dra__aq_t)m;
    return q->neg ? -v : v;
}

void dra__aq_to(dra__aq_t v, const dra_quantity_t *like, dra_quantity_t *out)
{
    memset(out, 0, sizeof *out);
    if (like)
        out->format = like->format;
    if (v < 0) {
        out->neg = 1;
        v = -v;
    }
    dra__uaq_t m = (dra__uaq_t)v;
    int32_t e = -9;
    while (m && m % 10 == 0 && e < 0) {
        m /= 10;
        e++;
    }
    if (m == 0)
        e = 0;
    out->lo = (uint64_t)m;
    out->hi = (uint64_t)(m >> 64);
    out->exp = e;
}

dra__aq_t dra__aq_ceil_units(dra__aq_t v)
{
    dra__aq_t q = v / DRA_AQ_UNIT;
    if (v % DRA_AQ_UNIT > 0)
        q += 1;
    return q;
}

/* ---- node selectors -------------------------------------------------------------------------- */

static const char *label_of(const dra_node_t *n, const char *key)
{
    for (uint32_t i = 0; i < n->nlabels; i++)
        if (strcmp(n->labels[i].key, key) == 0)
            return n->labels[i].value ? n->labels[i].value : "";
    return NULL;
}

static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end)
        return false;
    *out = v;
    return true;
}

static int req_validate(const dra_ns_req_t *r, bool field, char *err, size_t errlen)
{
    switch (r->op) {
    case DRA_NS_IN:
    case DRA_NS_NOT_IN:
        if (r->nvalues == 0) {
            snprintf(err, errlen, "values: Required value: must be specified when `operator` is 'In' or 'NotIn'");
            return DRA_EINVAL;
        }
        break;
    case DRA_NS_EXISTS:
    case DRA_NS_DOES_NOT_EXIST:
        if (field) {
            snprintf(err, errlen, "%s: Invalid value: \"%s\": not a valid selector operator",
                     r->key ? r->key : "", r->op_raw ? r->op_raw : "");
            return DRA_EINVAL;
        }
        if (r->nvalues) {
            snprintf(err, errlen, "values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
            return DRA_EINVAL;
        }
        break;
    case DRA_NS_GT:
    case DRA_NS_LT: {
        int64_t v;
        if (field || r->nvalues != 1 || !parse_i64(r->values[0], &v)) {
            snprintf(err, errlen, "values: Invalid value: must be a single integer for 'Gt'/'Lt'");
            return DRA_EINVAL;
        }
        break;
    }
    default:
        snprintf(err, errlen, "%s: Invalid value: \"%s\": not a valid selector operator",
                 r->key ? r->key : "", r->op_raw ? r->op_raw : "");
        return DRA_EINVAL;
    }
    if (field && (!r->key || strcmp(r->key, "metadata.name") != 0)) {
        snprintf(err, errlen, "%s: Invalid value: \"%s\": not a valid field selector key",
                 r->key ? r->key : "", r->key ? r->key : "");
        return DRA_EINVAL;
    }
    return DRA_OK;
}

static bool req_match(const dra_ns_req_t *r, const char *val /* NULL = absent */)
{
    switch (r->op) {
    case DRA_NS_IN:
        if (!val)
            return false;
        for (uint32_t i = 0; i < r->nvalues; i++)
            if (strcmp(r->values[i], val) == 0)
                return true;
        return false;
    case DRA_NS_NOT_IN:
        if (!val)
            return true;
        for (uint32_t i = 0; i < r->nvalues; i++)
            if (strcmp(r->values[i], val) == 0)
                return false;
        return true;
    case DRA_NS_EXISTS:
        return val != NULL;
    case DRA_NS_DOES_NOT_EXIST:
        return val == NULL;
    case DRA_NS_GT:
    case DRA_NS_LT: {
        int64_t a, b;
        if (!val || !parse_i64(val, &a) || !parse_i64(r->values[0], &b))
            return false;
        return r->op == DRA_NS_GT ? a > b : a < b;
    }
    default:
        return false;
    }
}

int dra__node_matches(const dra_node_t *node, const char *node_name, bool all_nodes,
                     const dra_node_selector_t *sel, bool *match, char *err, size_t errlen)
{
    *match = false;
    if (node_name && node_name[0]) {
        *match = node && node->name && strcmp(node->name, node_name) == 0;
        return DRA_OK;
    }
    if (all_nodes) {
        *match = true;
        return DRA_OK;
    }
    if (!sel)
        return DRA_OK;
    /* parse (validate) everything first, as nodeaffinity.NewNodeSelector does */
    for (uint32_t t = 0; t < sel->nterms; t++) {
        const dra_ns_term_t *term = &sel->terms[t];
        for (uint32_t i = 0; i < term->nexprs; i++)
            if (req_validate(&term->exprs[i], false, err, errlen))
                return DRA_EINVAL;
        for (uint32_t i = 0; i < term->nfields; i++)
            if (req_validate(&term->fields[i], true, err, errlen))
                return DRA_EINVAL;
    }
    for (uint32_t t = 0; t < sel->nterms && !*match; t++) {
        const dra_ns_term_t *term = &sel->terms[t];
        if (term->nexprs == 0 && term->nfields == 0)
            continue; /* an empty term matches nothing */
        bool ok = node != NULL;
        for (uint32_t i = 0; ok && i < term->nexprs; i++)
            ok = req_match(&term->exprs[i], label_of(node, term->exprs[i].key));
        for (uint32_t i = 0; ok && i < term->nfields; i++)
            ok = req_match(&term->fields[i], node->name);
        *match = ok;
    }
    return DRA_OK;
}

bool dra__ns_req_equal(const dra_ns_req_t *a, const dra_ns_req_t *b)
{
    if (strcmp(a->key ? a->key : "", b->key ? b->key : "") != 0 || a->op != b->op ||
        a->nvalues != b->nvalues)
        return false;
    if (a->op == DRA_NS_UNKNOWN &&
        strcmp(a->op_raw ? a->op_raw : "", b->op_raw ? b->op_raw : "") != 0)
        return false;
    for (uint32_t i = 0; i < a->nvalues; i++)
        if (strcmp(a->values[i], b->values[i]) != 0)
            return false;
    return true;
}

/* ---- taints ---------------------------------------------------------------------------------- */

bool dra__toleration_tolerates(const dra_toleration_t *t, const dra_taint_t *taint)
{
    if (t->effect != DRA_EFFECT_EMPTY && t->effect != taint->effect)
        return false;
    if (t->key && t->key[0] && strcmp(t->key, nz(taint->key)) != 0)
        return false;
    switch (t->op) {
    case DRA_TOL_EQUAL:
        return strcmp(nz(t->value), nz(taint->value)) == 0;
    case DRA_TOL_EXISTS:
        return true;
    default:
        return false;
    }
}

bool dra__taint_blocks(const dra_device_t *d, const dra_toleration_t *tols, uint32_t ntols)
{
    for (uint32_t i = 0; i < d->ntaints; i++) {
        const dra_taint_t *t = &d->taints[i];
        if (t->effect != DRA_EFFECT_NO_SCHEDULE && t->effect != DRA_EFFECT_NO_EXECUTE)
            continue;
        bool tolerated = false;
        for (uint32_t j = 0; j < ntols && !tolerated; j++)
            tolerated = dra__toleration_tolerates(&tols[j], t);
        if (!tolerated)
            return true;
    }
    return false;
}

/* ---- consumable capacity --------------------------------------------------------------------- */

/* Capacity requests and device capacities are matched by the name as written (map keys), as
 * upstream does; "memory" in a request does not match "driver.example/memory" on a device. */
const dra_cap_request_t *dra__cap_find_request(const dra_exact_request_t *req, const char *name)
{
    for (uint32_t i = 0; i < req->ncap_requests; i++)
        if (strcmp(nz(req->cap_requests[i].name), nz(name)) == 0)
            return &req->cap_requests[i];
    return NULL;
}

static bool device_has_capacity(const dra_device_t *d, const char *name)
{
    for (uint32_t i = 0; i < d->ncaps; i++)
        if (strcmp(nz(d->caps[i].name), nz(name)) == 0)
            return true;
    return false;
}

dra__aq_t dra__cap_consumed(const dra_cap_request_t *r, const dra_capacity_t *cap, bool bugs)
{
    const dra_request_policy_t *p = cap->policy;
    if (!r) {
        if (p && p->has_default)
            return dra__aq_from(&p->def);
        return dra__aq_from(&cap->value);
    }
    dra__aq_t rv = dra__aq_from(&r->value);
    if (!p)
        return rv;
    if (p->has_valid_range) {
        dra__aq_t min = dra__aq_from(&p->min);
        if (rv < min)
            return min;
        if (!p->has_step)
            return rv;
        dra__aq_t step = dra__aq_from(&p->step);
        if (bugs) {
            /* Quantity.Value() arithmetic (issue #140160): integers rounded up */
            dra__aq_t ri = dra__aq_ceil_units(rv), si = dra__aq_ceil_units(step),
                     mi = dra__aq_ceil_units(min);
            if (si <= 0)
                return rv;
            dra__aq_t added = ri - mi, n = added / si;
            if (added % si)
                n++;
            return (mi + si * n) * DRA_AQ_UNIT;
        }
        if (step <= 0)
            return rv;
        dra__aq_t added = rv - min, n = added / step;
        if (added % step)
            n++;
        return min + step * n;
    }
    if (p->nvalid_values) {
        for (uint32_t i = 0; i < p->nvalid_values; i++) {
            dra__aq_t v = dra__aq_from(&p->valid_values[i]);
            if (rv <= v)
                return v;
        }
        return rv;
    }
    return rv;
}

bool dra__cap_violates(dra__aq_t c, const dra_request_policy_t *p, bool bugs)
{
    if (!p)
        return false;
    if (p->has_default && c == dra__aq_from(&p->def))
        return false;
    if (p->has_valid_range) {
        if (p->has_max && c > dra__aq_from(&p->max))
            return true;
        if (p->has_step) {
            dra__aq_t step = dra__aq_from(&p->step), min = dra__aq_from(&p->min);
            if (bugs) {
                dra__aq_t si = dra__aq_ceil_units(step);
                if (si > 0 && (dra__aq_ceil_units(c) - dra__aq_ceil_units(min)) % si != 0)
                    return true;
            } else if (step > 0 && (c - min) % step != 0) {
                return true;
            }
        }
        return false;
    }
    if (p->nvalid_values) {
        for (uint32_t i = 0; i < p->nvalid_values; i++)
            if (c == dra__aq_from(&p->valid_values[i]))
                return false;
        return true;
    }
    return false;
}

int dra__cap_fits(const dra_exact_request_t *req, const dra_device_t *d, const dra__aq_t *existing,
                 const dra__aq_t *allocating, bool bugs)
{
    for (uint32_t i = 0; i < req->ncap_requests; i++)
        if (!device_has_capacity(d, req->cap_requests[i].name))
            return -1;
    for (uint32_t i = 0; i < d->ncaps; i++) {
        const dra_capacity_t *cap = &d->caps[i];
        dra__aq_t c = dra__cap_consumed(dra__cap_find_request(req, cap->name), cap, bugs);
        if (dra__cap_violates(c, cap->policy, bugs))
            return 0;
        dra__aq_t total = c + (existing ? existing[i] : 0) + (allocating ? allocating[i] : 0);
        if (total > dra__aq_from(&cap->value))
            return 0;
    }
    return 1;
}

/* ---- attribute values ------------------------------------------------------------------------ */

bool dra__attr_is_scalar(const dra_attr_t *a)
{
    return a->kind >= DRA_ATTR_INT && a->kind <= DRA_ATTR_VERSION;
}

bool dra__attr_scalar_eq(const dra_attr_t *a, const dra_attr_t *b)
{
    if (a->kind != b->kind || !dra__attr_is_scalar(a))
        return false;
    switch (a->kind) {
    case DRA_ATTR_INT:
        return a->v.i == b->v.i;
    case DRA_ATTR_BOOL:
        return a->v.b == b->v.b;
    default:
        return strcmp(nz(a->v.s), nz(b->v.s)) == 0;
    }
}

uint32_t dra__attr_values(const dra_attr_t *a, dra__aval_t *out, uint32_t max)
{
    uint32_t n = 0;
    switch (a->kind) {
    case DRA_ATTR_INT:
    case DRA_ATTR_BOOL:
    case DRA_ATTR_STRING:
    case DRA_ATTR_VERSION:
        if (max < 1)
            return 0;
        out[0].base = a->kind;
        out[0].i = a->kind == DRA_ATTR_INT ? a->v.i : a->kind == DRA_ATTR_BOOL ? a->v.b : 0;
        out[0].s = (a->kind == DRA_ATTR_STRING || a->kind == DRA_ATTR_VERSION) ? nz(a->v.s) : NULL;
        return 1;
    case DRA_ATTR_INTS:
    case DRA_ATTR_BOOLS:
    case DRA_ATTR_STRINGS:
    case DRA_ATTR_VERSIONS:
        for (uint32_t i = 0; i < a->count; i++) {
            dra__aval_t v = {0};
            v.base = (uint8_t)(a->kind - (DRA_ATTR_INTS - DRA_ATTR_INT));
            if (a->kind == DRA_ATTR_INTS)
                v.i = a->v.ints[i];
            else if (a->kind == DRA_ATTR_BOOLS)
                v.i = a->v.bools[i];
            else
                v.s = nz(a->v.strs[i]);
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = dra__aval_eq(&out[j], &v);
            if (!dup && n < max)
                out[n++] = v;
        }
        return n;
    default:
        return 0;
    }
}

bool dra__aval_eq(const dra__aval_t *a, const dra__aval_t *b)
{
    if (a->base != b->base)
        return false;
    if (a->base == DRA_ATTR_STRING || a->base == DRA_ATTR_VERSION)
        return strcmp(a->s, b->s) == 0;
    return a->i == b->i;
}

/* ---- selectors ------------------------------------------------------------------------------- */

static int eval_selectors(const dra_model_t *m, const dra__beh_t *b, dra_cel_cache_t *cel,
                          dra_arena_t *scratch, const dra_claim_t *claim,
                          const dra_device_class_t *cls, const dra_selector_t *sels, uint32_t n,
                          const dra_device_t *d, bool *match, uint64_t *nevals, char *err,
                          size_t errlen)
{
    char cref[300];
    *match = true;
    for (uint32_t i = 0; i < n; i++) {
        const dra_cel_prog_t *prog = NULL;
        dra_diag_t diag;
        dra_diag_clear(&diag);
        int rc = dra_cel_cache_get(cel, sels[i].cel ? sels[i].cel : "", &prog, &diag);
        if (rc != DRA_OK) {
            if (cls)
                snprintf(err, errlen, "class %s: selector #%u: CEL compile error: %s", cls->name,
                         i, diag.msg);
            else
                snprintf(err, errlen, "claim %s: selector #%u: CEL compile error: %s",
                         dra__claim_ref(claim, cref, sizeof cref), i, diag.msg);
            return DRA_EFATAL;
        }
        bool bad_attr = false;
        for (uint32_t a = 0; a < d->nattrs; a++)
            if (d->attrs[a].kind == DRA_ATTR_NONE)
                bad_attr = true;
        bool mt = false;
        if (bad_attr) {
            rc = DRA_ERUNTIME;
            snprintf(diag.msg, sizeof diag.msg, "unsupported attribute value");
        } else {
            if (nevals)
                (*nevals)++;
            rc = dra_cel_eval_device(prog, m, d, scratch, &mt, &diag);
        }
        if (rc == DRA_ENOMEM)
            return rc;
        if (rc != DRA_OK) {
            (void)b;
            if (cls)
                snprintf(err, errlen, "class %s: selector #%u: CEL runtime error: %s", cls->name,
                         i, diag.msg);
            else
                snprintf(err, errlen, "claim %s: selector #%u: CEL runtime error: %s",
                         dra__claim_ref(claim, cref, sizeof cref), i, diag.msg);
            return DRA_EFATAL;
        }
        if (!mt) {
            *match = false;
            return DRA_OK;
        }
    }
    return DRA_OK;
}

int dra__device_selectable(const dra_model_t *m, const dra__beh_t *b, dra_cel_cache_t *cel,
                          dra_arena_t *scratch, const dra_node_t *node, const dra_claim_t *claim,
                          const dra_device_class_t *cls, const dra_exact_request_t *req,
                          const dra_device_t *d, bool *match, uint64_t *nevals, char *err,
                          size_t errlen)
{
    *match = false;
    if (!b->binding && d->nbinding_conditions > 0)
        return DRA_OK;
    bool mt;
    int rc;
    if (cls) {
        rc = eval_selectors(m, b, cel, scratch, claim, cls, cls->selectors, cls->nselectors, d, &mt,
                            nevals, err, errlen);
        if (rc || !mt)
            return rc;
    }
    rc = eval_selectors(m, b, cel, scratch, claim, NULL, req->selectors, req->nselectors, d, &mt,
                        nevals, err, errlen);
    if (rc || !mt)
        return rc;
    if (d->slice && d->slice->per_device_node_selection) {
        char e2[256];
        if (dra__node_matches(node, d->node_name, d->all_nodes, d->node_selector, &mt, e2,
                             sizeof e2)) {
            snprintf(err, errlen, "failed to parse node selector: %s", e2);
            return DRA_EFATAL;
        }
        if (!mt)
            return DRA_OK;
    }
    *match = true;
    return DRA_OK;
}
