/*
 * common.c - release profiles, feature gates, and the rules shared by the reference allocator,
 * the brute-force enumerator and the invariant checker (see alloc_impl.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"

/* ---- release profiles --------------------------------------------------------------------- */

const dra_release_t dra_alloc_releases[DRA_RELEASE_COUNT] = {
    DRA_RELEASE_1_34, DRA_RELEASE_1_35, DRA_RELEASE_1_36, DRA_RELEASE_1_37, DRA_RELEASE_1_38_PRE};

bool dra_alloc_release_valid(int release)
{
    for (size_t i = 0; i < DRA_RELEASE_COUNT; i++)
        if ((int)dra_alloc_releases[i] == release)
            return true;
    return false;
}

const char *dra_alloc_release_name(dra_release_t release)
{
    switch (release) {
    case DRA_RELEASE_1_34:
        return "1.34";
    case DRA_RELEASE_1_35:
        return "1.35";
    case DRA_RELEASE_1_36:
        return "1.36";
    case DRA_RELEASE_1_37:
        return "1.37";
    case DRA_RELEASE_1_38_PRE:
        return "1.38-pre";
    }
    return "?";
}

/* Where each profile's semantics were read (core/alloc/README.md, "Release profiles", has the
 * file-by-file list). */
const char *dra_alloc_release_label(dra_release_t release)
{
    if (release == DRA_RELEASE_1_38_PRE)
        return "1.38-pre, master at 0c8a1b073dc3 + #141118";
    return dra_alloc_release_name(release);
}

const char *dra_alloc_release_source(dra_release_t release)
{
    switch (release) {
    case DRA_RELEASE_1_34:
        return "kubernetes/dynamic-resource-allocation release-1.34";
    case DRA_RELEASE_1_35:
        return "kubernetes/dynamic-resource-allocation release-1.35";
    case DRA_RELEASE_1_36:
        return "kubernetes/dynamic-resource-allocation release-1.36";
    case DRA_RELEASE_1_37:
        return "kubernetes/kubernetes v1.37 (allocator d9009869e0e8, gates of kube_features.go 1.37)";
    case DRA_RELEASE_1_38_PRE:
        return "kubernetes/kubernetes master at 0c8a1b073dc3 (after v1.38.0-alpha.2) plus #141118 (merged after it)";
    }
    return "?";
}

int dra_alloc_release_parse(const char *s, dra_release_t *out, dra_diag_t *diag)
{
    if (!s)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "missing release");
    const char *in = s;
    if (s[0] == 'v')
        s++;
    if (strcmp(s, "1.38-pre") == 0) {
        *out = DRA_RELEASE_1_38_PRE;
        return DRA_OK;
    }
    static const struct {
        const char *p;
        dra_release_t r;
    } tab[] = {{"1.34", DRA_RELEASE_1_34},
               {"1.35", DRA_RELEASE_1_35},
               {"1.36", DRA_RELEASE_1_36},
               {"1.37", DRA_RELEASE_1_37}};
    for (size_t i = 0; i < DRA_ARRAY_LEN(tab); i++) {
        size_t n = strlen(tab[i].p);
        if (strncmp(s, tab[i].p, n) == 0 && (s[n] == 0 || s[n] == '.')) {
            *out = tab[i].r;
            return DRA_OK;
        }
    }
    if (strncmp(s, "1.38", 4) == 0 && (s[4] == 0 || s[4] == '.' || s[4] == '-'))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "release \"%s\" is not released; the profile that follows master is "
                            "\"1.38-pre\" (%s)",
                            in, dra_alloc_release_source(DRA_RELEASE_1_38_PRE));
    return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                        "unknown release \"%s\" (expected 1.34, 1.35, 1.36, 1.37 or 1.38-pre)", in);
}

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
    "DRADeviceCompatibilityGroups",
    "DRADerivedAttributes",
    "DRAFractionalCapacityRange",
    "DRAWorkloadResourceClaims",
    "GenericWorkload",
    "GangScheduling",
    "TopologyAwareWorkloadScheduling",
    "DRAOptionalNodeOperations",
    "DRASharedConsumableCapacity",
};

const char *dra_alloc_gate_name(dra_gate_t g)
{
    return (unsigned)g < DRA_GATE_COUNT ? gate_names[g] : "?";
}

bool dra_alloc_gate_lookup(const char *name, dra_gate_t *out)
{
    for (int i = 0; i < DRA_GATE_COUNT; i++)
        if (name && strcmp(name, gate_names[i]) == 0) {
            *out = (dra_gate_t)i;
            return true;
        }
    return false;
}

#define G(x) (1u << (x))

/* The versioned gate table: DRA-SEMANTICS §3.1 for 1.34-1.36, kube-scheduler's
 * kube_features.go history for 1.37 (the version with "LockToDefault: true in 1.38" notes) and
 * CHANGELOG-1.38 (#140256: DRADeviceTaints and DRADeviceTaintRules locked) for 1.38-pre. */
dra_gate_stage_t dra_alloc_gate_stage(dra_release_t r, dra_gate_t g)
{
    dra_gate_stage_t s = {false, false, false, "-"};
#define STAGE(ex, d, l, st) (s = (dra_gate_stage_t){(ex), (d), (l), (st)})
    switch (g) {
    case DRA_GATE_ADMIN_ACCESS:
        if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, true, "GA");
        else
            STAGE(true, true, false, "beta");
        break;
    case DRA_GATE_PRIORITIZED_LIST:
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, true, true, "GA");
        else if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, false, "GA");
        else
            STAGE(true, true, false, "beta");
        break;
    case DRA_GATE_PARTITIONABLE_DEVICES:
        if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, false, "beta");
        else
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_DEVICE_TAINTS:
        if (r >= DRA_RELEASE_1_38_PRE)
            STAGE(true, true, true, "GA");
        else if (r >= DRA_RELEASE_1_37)
            STAGE(true, true, false, "GA");
        else if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, false, "beta");
        else
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_DEVICE_BINDING_CONDITIONS:
        if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, false, "beta");
        else
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS:
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, true, true, "GA");
        else
            STAGE(true, true, false, "beta");
        break;
    case DRA_GATE_CONSUMABLE_CAPACITY:
        if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, false, "beta");
        else
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_LIST_TYPE_ATTRIBUTES:
        if (r >= DRA_RELEASE_1_36)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_EXTENDED_RESOURCE:
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, true, true, "GA");
        else if (r >= DRA_RELEASE_1_36)
            STAGE(true, true, false, "beta");
        else
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_DEVICE_TAINT_RULES:
        /* 1.34 had no gate of its own: rules followed DRADeviceTaints (harness/k8s/taintrule.h) */
        if (r >= DRA_RELEASE_1_38_PRE)
            STAGE(true, true, true, "GA");
        else if (r >= DRA_RELEASE_1_37)
            STAGE(true, true, false, "GA");
        else if (r >= DRA_RELEASE_1_36)
            STAGE(true, false, false, "beta");
        else
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_DEVICE_COMPATIBILITY_GROUPS:
    case DRA_GATE_DERIVED_ATTRIBUTES:
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_FRACTIONAL_CAPACITY_RANGE:
        /* beta, off; on only when the emulated minimum compatibility version is 1.37 */
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, false, false, "beta");
        break;
    case DRA_GATE_WORKLOAD_RESOURCE_CLAIMS:
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, false, false, "beta");
        else if (r >= DRA_RELEASE_1_36)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_GENERIC_WORKLOAD:
        /* 1.35 had it (alpha, v1alpha1 Workload API), which drabench does not model (set_gate) */
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, false, false, "beta");
        else if (r >= DRA_RELEASE_1_35)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_GANG_SCHEDULING:
        /* merged into GenericWorkload in 1.37 (with WorkloadAwarePreemption): the gang policy
         * then follows GenericWorkload (dra_alloc_gang_on) */
        if (r >= DRA_RELEASE_1_35 && r < DRA_RELEASE_1_37)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_TOPOLOGY_AWARE_WORKLOAD:
        if (r >= DRA_RELEASE_1_36)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_OPTIONAL_NODE_OPERATIONS:
        /* kube-scheduler's kube_features.go: alpha from 1.37, still alpha on master */
        if (r >= DRA_RELEASE_1_37)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_SHARED_CONSUMABLE_CAPACITY:
        /* KEP-5941: master's kube_features.go at 0c8a1b073dc3 (alpha, off; retargeted from 1.37
         * to 1.38, so 1.37 does not have it) */
        if (r >= DRA_RELEASE_1_38_PRE)
            STAGE(true, false, false, "alpha");
        break;
    case DRA_GATE_COUNT:
        break;
    }
#undef STAGE
    return s;
}

void dra_alloc_features_init(dra_alloc_features_t *f, dra_release_t release)
{
    memset(f, 0, sizeof *f);
    f->release = (uint16_t)release;
    uint32_t g = 0;
    for (int i = 0; i < DRA_GATE_COUNT; i++) {
        dra_gate_stage_t st = dra_alloc_gate_stage(release, (dra_gate_t)i);
        if (st.exists && st.def)
            g |= G(i);
    }
    f->gates = g;
}

int dra_alloc_features_set_gate(dra_alloc_features_t *f, const char *gate, bool on, dra_diag_t *diag)
{
    dra_gate_t g;
    if (!dra_alloc_gate_lookup(gate, &g))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "unknown feature gate \"%s\"", gate);
    dra_gate_stage_t st = dra_alloc_gate_stage((dra_release_t)f->release, g);
    bool workload = g == DRA_GATE_GENERIC_WORKLOAD || g == DRA_GATE_GANG_SCHEDULING ||
                    g == DRA_GATE_TOPOLOGY_AWARE_WORKLOAD;
    if (workload && on && f->release < DRA_RELEASE_1_36)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "feature gate %s: workload scheduling is modelled from release 1.36 "
                            "(scheduling.k8s.io/v1alpha2); release %s %s",
                            gate, dra_alloc_release_name((dra_release_t)f->release),
                            g == DRA_GATE_TOPOLOGY_AWARE_WORKLOAD
                                ? "does not have it"
                                : "has its v1alpha1 Workload API, which drabench does not read");
    if (!st.exists && on)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "feature gate %s does not exist in release %s", gate,
                            dra_alloc_release_name((dra_release_t)f->release));
    if (st.exists && st.locked && on != st.def)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "cannot set feature gate %s to %s, feature is locked to %s in release %s",
                            gate, on ? "true" : "false", st.def ? "true" : "false",
                            dra_alloc_release_name((dra_release_t)f->release));
    if (on)
        f->gates |= G(g);
    else
        f->gates &= ~G(g);
    return DRA_OK;
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

/* Allocator feature flags as upstream's Features struct (1.37: FractionalCapacityRange,
 * DerivedAttributes and CompatibilityGroups joined it). */
enum {
    F_AA = 1,
    F_PL = 2,
    F_PD = 4,
    F_DT = 8,
    F_BS = 16,
    F_CC = 32,
    F_LTA = 64,
    F_FCR = 128,
    F_DA = 256,
    F_CG = 512,
    F_ONO = 1024,
    F_SCC = 2048
};

static unsigned feature_flags(const dra_alloc_features_t *f)
{
    static const struct {
        dra_gate_t g;
        unsigned flag;
    } map[] = {{DRA_GATE_ADMIN_ACCESS, F_AA},
               {DRA_GATE_PRIORITIZED_LIST, F_PL},
               {DRA_GATE_PARTITIONABLE_DEVICES, F_PD},
               {DRA_GATE_DEVICE_TAINTS, F_DT},
               {DRA_GATE_CONSUMABLE_CAPACITY, F_CC},
               {DRA_GATE_LIST_TYPE_ATTRIBUTES, F_LTA},
               {DRA_GATE_FRACTIONAL_CAPACITY_RANGE, F_FCR},
               {DRA_GATE_DERIVED_ATTRIBUTES, F_DA},
               {DRA_GATE_DEVICE_COMPATIBILITY_GROUPS, F_CG},
               {DRA_GATE_OPTIONAL_NODE_OPERATIONS, F_ONO},
               {DRA_GATE_SHARED_CONSUMABLE_CAPACITY, F_SCC}};
    unsigned x = 0;
    for (size_t i = 0; i < DRA_ARRAY_LEN(map); i++)
        if (dra_alloc_gate_on(f, map[i].g))
            x |= map[i].flag;
    if (dra_alloc_gate_on(f, DRA_GATE_DEVICE_BINDING_CONDITIONS) &&
        dra_alloc_gate_on(f, DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS))
        x |= F_BS;
    return x;
}

/* SupportedFeatures of the variants (DRA-SEMANTICS §3.2; 1.37: stable as in 1.36, incubating
 * adds FractionalCapacityRange, experimental everything, allocator_experimental.go at
 * d9009869e0e8). */
dra_variant_t dra_alloc_variant(const dra_alloc_features_t *f)
{
    unsigned x = feature_flags(f);
    unsigned stable, incubating;
    if (f->release >= DRA_RELEASE_1_37) {
        stable = F_AA | F_PL | F_PD | F_DT;
        incubating = stable | F_BS | F_CC | F_FCR;
    } else if (f->release >= DRA_RELEASE_1_36) {
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
    dra_release_t r = (dra_release_t)f->release;
    bool r37 = r >= DRA_RELEASE_1_37, r38 = r >= DRA_RELEASE_1_38_PRE;
    b->cg = (x & F_CG) && b->pd && b->variant == DRA_VARIANT_EXPERIMENTAL;
    /* with DRADeviceCompatibilityGroups off (version skew): 1.37 skips devices
     * (groupedCounterSetsForPool at d9009869e0e8), master drops whole slices while gathering
     * pools (stable/compatibility_groups.go, sliceUsesCompatibilityGroups; the table at
     * 0c8a1b073dc3, compatibility-groups-disabled-*) */
    b->cg_skip = r37 && !r38 && !b->cg;
    b->cg_drop = r38 && !b->cg;
    /* #141118 (master, merged after 0c8a1b073dc3; 1.38-pre carries it): a pool generation whose
     * slices disagree on resourceSliceCount, or that has more slices than it declares, is
     * invalid, not incomplete; fewer slices than declared stays incomplete. No gate. */
    b->count_strict = r38;
    /* OptionalNodeOperations is in no SupportedFeatures but experimental's, like every alpha
     * allocator feature: with the gate on, experimental runs */
    b->ono = (x & F_ONO) && b->variant == DRA_VARIANT_EXPERIMENTAL;
    /* DRASharedConsumableCapacity (KEP-5941, experimental variant; needs DRAPartitionableDevices
     * and DRAConsumableCapacity, as upstream's table cases name all three): sharedcap.c */
    b->scc = (x & F_SCC) && b->pd && b->cc && b->variant == DRA_VARIANT_EXPERIMENTAL;
    b->derived = (x & F_DA) && b->variant == DRA_VARIANT_EXPERIMENTAL;
    b->derived_fatal = r37 && !b->derived;
    b->fractional = (x & F_FCR) && b->variant != DRA_VARIANT_STABLE;
    /* consumable capacity: from 1.37 (#140442) a request the range arithmetic cannot represent
     * (past MaxInt64, not a whole milli value, or rounded past the range) or a negative consumed
     * capacity fails the call; a capacity the device lacks still skips the device (upstream's
     * table at 3c6bdf290c3a, cases consumable-capacity-range-policy-*-rejected and
     * ...-with-missing-capacity-request). No profile fails the call on a missing capacity.
     * 1.38-pre also matches qualified and unqualified capacity names (#142202). */
    b->cap_missing_fatal = false;
    b->cap_unrepr_fatal = r37;
    b->cap_qualified = r38;
    b->config_all_nil = r37;
    b->cel_err_device = r37;
    bool bugs = f->upstream_bugs;
    b->bugs = bugs;
    b->bug_rollback = bugs && !r37;
    b->bug_distinct = bugs && !r37;
    b->bug_isect = bugs && !r37;
    b->bug_pool_name = bugs && !r37;
    b->bug_config_dup = bugs && r == DRA_RELEASE_1_36;
    b->bug_all_cap = bugs && !r37;
    b->bug_all_fatal = bugs && !r38;
    b->bug_range = bugs;
    b->bug_persisted_share = bugs && !r37;
    b->share_blocks_excl = r38 || !bugs;
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

/* 10^i for i = 0..38 (10^38 < 2^127), as constants. */
#define P10(hi, lo) (((dra__uaq_t)(hi) << 64) | (dra__uaq_t)(lo))
static const dra__uaq_t k_pow10[39] = {
    P10(0x0ULL, 0x1ULL), /* 10^0 */
    P10(0x0ULL, 0xaULL), /* 10^1 */
    P10(0x0ULL, 0x64ULL), /* 10^2 */
    P10(0x0ULL, 0x3e8ULL), /* 10^3 */
    P10(0x0ULL, 0x2710ULL), /* 10^4 */
    P10(0x0ULL, 0x186a0ULL), /* 10^5 */
    P10(0x0ULL, 0xf4240ULL), /* 10^6 */
    P10(0x0ULL, 0x989680ULL), /* 10^7 */
    P10(0x0ULL, 0x5f5e100ULL), /* 10^8 */
    P10(0x0ULL, 0x3b9aca00ULL), /* 10^9 */
    P10(0x0ULL, 0x2540be400ULL), /* 10^10 */
    P10(0x0ULL, 0x174876e800ULL), /* 10^11 */
    P10(0x0ULL, 0xe8d4a51000ULL), /* 10^12 */
    P10(0x0ULL, 0x9184e72a000ULL), /* 10^13 */
    P10(0x0ULL, 0x5af3107a4000ULL), /* 10^14 */
    P10(0x0ULL, 0x38d7ea4c68000ULL), /* 10^15 */
    P10(0x0ULL, 0x2386f26fc10000ULL), /* 10^16 */
    P10(0x0ULL, 0x16345785d8a0000ULL), /* 10^17 */
    P10(0x0ULL, 0xde0b6b3a7640000ULL), /* 10^18 */
    P10(0x0ULL, 0x8ac7230489e80000ULL), /* 10^19 */
    P10(0x5ULL, 0x6bc75e2d63100000ULL), /* 10^20 */
    P10(0x36ULL, 0x35c9adc5dea00000ULL), /* 10^21 */
    P10(0x21eULL, 0x19e0c9bab2400000ULL), /* 10^22 */
    P10(0x152dULL, 0x2c7e14af6800000ULL), /* 10^23 */
    P10(0xd3c2ULL, 0x1bcecceda1000000ULL), /* 10^24 */
    P10(0x84595ULL, 0x161401484a000000ULL), /* 10^25 */
    P10(0x52b7d2ULL, 0xdcc80cd2e4000000ULL), /* 10^26 */
    P10(0x33b2e3cULL, 0x9fd0803ce8000000ULL), /* 10^27 */
    P10(0x204fce5eULL, 0x3e25026110000000ULL), /* 10^28 */
    P10(0x1431e0faeULL, 0x6d7217caa0000000ULL), /* 10^29 */
    P10(0xc9f2c9cd0ULL, 0x4674edea40000000ULL), /* 10^30 */
    P10(0x7e37be2022ULL, 0xc0914b2680000000ULL), /* 10^31 */
    P10(0x4ee2d6d415bULL, 0x85acef8100000000ULL), /* 10^32 */
    P10(0x314dc6448d93ULL, 0x38c15b0a00000000ULL), /* 10^33 */
    P10(0x1ed09bead87c0ULL, 0x378d8e6400000000ULL), /* 10^34 */
    P10(0x13426172c74d82ULL, 0x2b878fe800000000ULL), /* 10^35 */
    P10(0xc097ce7bc90715ULL, 0xb34b9f1000000000ULL), /* 10^36 */
    P10(0x785ee10d5da46d9ULL, 0xf436a000000000ULL), /* 10^37 */
    P10(0x4b3b4ca85a86c47aULL, 0x98a224000000000ULL), /* 10^38 */
};
/* DRA_AQ_SAT / 10^i, rounded down: the largest magnitude 10^i may multiply unsaturated. */
_Static_assert(DRA_AQ_SAT == ((dra__aq_t)1 << 120), "k_satdiv is computed for DRA_AQ_SAT = 2^120");
static const dra__uaq_t k_satdiv[39] = {
    P10(0x100000000000000ULL, 0x0ULL), /* 2^120 / 10^0 */
    P10(0x19999999999999ULL, 0x9999999999999999ULL), /* 2^120 / 10^1 */
    P10(0x28f5c28f5c28fULL, 0x5c28f5c28f5c28f5ULL), /* 2^120 / 10^2 */
    P10(0x4189374bc6a7ULL, 0xef9db22d0e560418ULL), /* 2^120 / 10^3 */
    P10(0x68db8bac710ULL, 0xcb295e9e1b089a02ULL), /* 2^120 / 10^4 */
    P10(0xa7c5ac471bULL, 0x4784230fcf80dc33ULL), /* 2^120 / 10^5 */
    P10(0x10c6f7a0b5ULL, 0xed8d36b4c7f34938ULL), /* 2^120 / 10^6 */
    P10(0x1ad7f29abULL, 0xcaf485787a6520ecULL), /* 2^120 / 10^7 */
    P10(0x2af31dc4ULL, 0x611873bf3f70834aULL), /* 2^120 / 10^8 */
    P10(0x44b82faULL, 0x9b5a52cb98b4054ULL), /* 2^120 / 10^9 */
    P10(0x6df37fULL, 0x675ef6eadf5ab9a2ULL), /* 2^120 / 10^10 */
    P10(0xafebfULL, 0xf0bcb24aafef78f6ULL), /* 2^120 / 10^11 */
    P10(0x11979ULL, 0x9812dea11197f27fULL), /* 2^120 / 10^12 */
    P10(0x1c25ULL, 0xc268497681c2650cULL), /* 2^120 / 10^13 */
    P10(0x2d0ULL, 0x9370d42573603d4eULL), /* 2^120 / 10^14 */
    P10(0x48ULL, 0xebe7b9d58566c87ULL), /* 2^120 / 10^15 */
    P10(0x7ULL, 0x34aca5f6226f0adaULL), /* 2^120 / 10^16 */
    P10(0x0ULL, 0xb877aa3236a4b449ULL), /* 2^120 / 10^17 */
    P10(0x0ULL, 0x12725dd1d243aba0ULL), /* 2^120 / 10^18 */
    P10(0x0ULL, 0x1d83c94fb6d2ac3ULL), /* 2^120 / 10^19 */
    P10(0x0ULL, 0x2f394219248446ULL), /* 2^120 / 10^20 */
    P10(0x0ULL, 0x4b8ed0283a6d3ULL), /* 2^120 / 10^21 */
    P10(0x0ULL, 0x78e480405d7bULL), /* 2^120 / 10^22 */
    P10(0x0ULL, 0xc16d9a00959ULL), /* 2^120 / 10^23 */
    P10(0x0ULL, 0x1357c299a88ULL), /* 2^120 / 10^24 */
    P10(0x0ULL, 0x1ef2d0f5daULL), /* 2^120 / 10^25 */
    P10(0x0ULL, 0x318481895ULL), /* 2^120 / 10^26 */
    P10(0x0ULL, 0x4f3a68dbULL), /* 2^120 / 10^27 */
    P10(0x0ULL, 0x7ec3dafULL), /* 2^120 / 10^28 */
    P10(0x0ULL, 0xcad2f7ULL), /* 2^120 / 10^29 */
    P10(0x0ULL, 0x14484bULL), /* 2^120 / 10^30 */
    P10(0x0ULL, 0x2073aULL), /* 2^120 / 10^31 */
    P10(0x0ULL, 0x33ecULL), /* 2^120 / 10^32 */
    P10(0x0ULL, 0x531ULL), /* 2^120 / 10^33 */
    P10(0x0ULL, 0x84ULL), /* 2^120 / 10^34 */
    P10(0x0ULL, 0xdULL), /* 2^120 / 10^35 */
    P10(0x0ULL, 0x1ULL), /* 2^120 / 10^36 */
    P10(0x0ULL, 0x0ULL), /* 2^120 / 10^37 */
    P10(0x0ULL, 0x0ULL), /* 2^120 / 10^38 */
};
#undef P10

dra__aq_t dra__aq_from_any(const dra_quantity_t *q)
{
    dra__uaq_t m = ((dra__uaq_t)q->hi << 64) | q->lo;
    int32_t e = q->exp + 9;
    const dra__uaq_t lim = (dra__uaq_t)DRA_AQ_SAT;
    if (m == 0)
        return 0;
    /* one multiplication or division by a power of ten: the same value as ten at a time (a
     * product above the saturation is the saturation; a quotient with a remainder is rounded
     * away from zero to 1n, as Kubernetes does) */
    if (e >= 0) {
        m = e > 38 || m > k_satdiv[e] ? lim : m * k_pow10[e];
    } else if (e < -38) {
        m = 1; /* m < 2^128 < 10^39: nothing left but the remainder */
    } else {
        dra__uaq_t p = k_pow10[-e], qt = m / p;
        m = qt + (m - qt * p != 0);
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

int dra_alloc_available_on(const dra_allocation_t *a, const dra_node_t *node, bool *ok, char *err,
                           size_t errlen)
{
    *ok = true;
    if (!a || !a->node_selector)
        return DRA_OK;
    return dra__node_matches(node, NULL, false, a->node_selector, ok, err, errlen);
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

bool dra_alloc_tolerates(const dra_toleration_t *t, const dra_taint_t *taint)
{
    return dra__toleration_tolerates(t, taint);
}

int dra_alloc_node_selector_matches(const dra_node_t *node, const dra_node_selector_t *sel,
                                    bool *match, char *err, size_t errlen)
{
    return dra__node_matches(node, NULL, false, sel, match, err, errlen);
}

const dra_taint_t *dra__taint_blocking(const dra_device_t *d, const dra_toleration_t *tols,
                                       uint32_t ntols)
{
    for (uint32_t i = 0; i < d->ntaints; i++) {
        const dra_taint_t *t = &d->taints[i];
        if (t->effect != DRA_EFFECT_NO_SCHEDULE && t->effect != DRA_EFFECT_NO_EXECUTE)
            continue;
        bool tolerated = false;
        for (uint32_t j = 0; j < ntols && !tolerated; j++)
            tolerated = dra__toleration_tolerates(&tols[j], t);
        if (!tolerated)
            return t;
    }
    return NULL;
}

bool dra__taint_blocks(const dra_device_t *d, const dra_toleration_t *tols, uint32_t ntols)
{
    return dra__taint_blocking(d, tols, ntols) != NULL;
}

/* ---- consumable capacity --------------------------------------------------------------------- */

dra__capmode_t dra__capmode(const dra__beh_t *b)
{
    dra__capmode_t m = {b->bug_range, b->fractional, b->cap_unrepr_fatal, b->cap_qualified,
                        b->scc};
    return m;
}

/* The domain-qualified form of a capacity name: "memory" of driver d is "d/memory"; a name with
 * a '/' is qualified already. */
static bool cap_name_eq(const char *a, const char *b, const char *driver, bool qualified)
{
    a = nz(a);
    b = nz(b);
    if (strcmp(a, b) == 0)
        return true;
    if (!qualified)
        return false;
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    if ((sa == NULL) == (sb == NULL))
        return false; /* both qualified (differently) or both bare (differently) */
    const char *q = sa ? a : b, *bare = sa ? b : a, *sl = sa ? sa : sb;
    size_t dl = strlen(nz(driver));
    return (size_t)(sl - q) == dl && strncmp(q, nz(driver), dl) == 0 && strcmp(sl + 1, bare) == 0;
}

/* Capacity requests and device capacities are matched by the name as written (map keys), as
 * upstream does up to 1.37: "memory" in a request does not match "driver.example/memory" on a
 * device. From 1.38-pre (#142202) both forms match and the fully qualified one wins. */
const dra_cap_request_t *dra__cap_request_for(const dra_exact_request_t *req, const dra_device_t *d,
                                             const char *cap_name, bool qualified)
{
    const dra_cap_request_t *hit = NULL;
    const char *drv = d && d->slice ? d->slice->driver : NULL;
    for (uint32_t i = 0; i < req->ncap_requests; i++) {
        const char *rn = nz(req->cap_requests[i].name);
        if (!cap_name_eq(rn, cap_name, drv, qualified))
            continue;
        if (!hit || strchr(rn, '/'))
            hit = &req->cap_requests[i];
    }
    return hit;
}

const dra_cap_request_t *dra__cap_find_request(const dra_exact_request_t *req, const char *name)
{
    return dra__cap_request_for(req, NULL, name, false);
}

static bool device_has_capacity(const dra_device_t *d, const char *name, bool qualified)
{
    const char *drv = d->slice ? d->slice->driver : NULL;
    for (uint32_t i = 0; i < d->ncaps; i++)
        if (cap_name_eq(d->caps[i].name, name, drv, qualified))
            return true;
    return false;
}

/* Milli units (resource.Quantity.MilliValue when lossless): the value must be a whole number of
 * 1e6 nano units and fit int64 after scaling. */
static bool aq_milli(dra__aq_t v, int64_t *out)
{
    const dra__aq_t per = 1000000;
    if (v % per)
        return false;
    dra__aq_t mv = v / per;
    if (mv > (dra__aq_t)INT64_MAX || mv < (dra__aq_t)INT64_MIN)
        return false;
    *out = (int64_t)mv;
    return true;
}

/* useMilli (DRAFractionalCapacityRange, consumable_capacity.go of 1.37): the gate is on, every
 * bound present is lossless in milli units and the step is at least 1m. */
static bool use_milli(const dra__capmode_t *m, const dra_request_policy_t *p)
{
    if (!m->fractional)
        return false;
    int64_t x;
    if (!aq_milli(dra__aq_from(&p->min), &x))
        return false;
    if (p->has_max && !aq_milli(dra__aq_from(&p->max), &x))
        return false;
    if (p->has_step && (!aq_milli(dra__aq_from(&p->step), &x) || x < 1))
        return false;
    return true;
}

static const dra__aq_t AQ_I64_MAX_UNITS = (dra__aq_t)INT64_MAX * DRA_AQ_UNIT;

int dra__cap_consumed_m(const dra__capmode_t *m, const dra_cap_request_t *r,
                        const dra_capacity_t *cap, dra__aq_t *out, char *err, size_t errlen)
{
    const dra_request_policy_t *p = cap->policy;
    if (!r) {
        *out = p && p->has_default ? dra__aq_from(&p->def) : dra__aq_from(&cap->value);
        return DRA_OK;
    }
    dra__aq_t rv = dra__aq_from(&r->value);
    *out = rv;
    if (!p || !p->has_valid_range)
        goto values;
    dra__aq_t min = dra__aq_from(&p->min);
    if (rv < min) {
        *out = min;
        return DRA_OK;
    }
    if (!p->has_step)
        return DRA_OK;
    dra__aq_t step = dra__aq_from(&p->step);
    char qb[DRA_QUANTITY_FMT_MAX];
    if (use_milli(m, p)) {
        int64_t req, mn = 0, st = 1; /* set by aq_milli: use_milli checked both */
        (void)aq_milli(min, &mn);
        (void)aq_milli(step, &st);
        if (!aq_milli(rv, &req)) {
            if (!m->unrepr_fatal)
                return DRA_OK; /* 1.37: kept as requested; the step check rejects it */
            dra_quantity_format(&r->value, qb, sizeof qb);
            snprintf(err, errlen, "capacity \"%s\": capacity request cannot be represented in the "
                                  "device's range arithmetic: request %s is not a representable "
                                  "milli value", nz(cap->name), qb);
            return DRA__CAP_UNREPR;
        }
        dra__aq_t added = (dra__aq_t)req - mn, n = added / st;
        if (added % st)
            n++;
        if (n > ((dra__aq_t)INT64_MAX - mn) / st) {
            if (!m->unrepr_fatal) {
                *out = (dra__aq_t)INT64_MAX * 1000000; /* capped at the largest milli value */
                return DRA_OK;
            }
            dra_quantity_format(&r->value, qb, sizeof qb);
            snprintf(err, errlen, "capacity \"%s\": capacity request cannot be represented in the "
                                  "device's range arithmetic: rounding request %s up to the next "
                                  "step passes the milli-value range", nz(cap->name), qb);
            return DRA__CAP_UNREPR;
        }
        *out = ((dra__aq_t)mn + (dra__aq_t)st * n) * 1000000;
        return DRA_OK;
    }
    if (m->unrepr_fatal && rv > AQ_I64_MAX_UNITS) {
        dra_quantity_format(&r->value, qb, sizeof qb);
        snprintf(err, errlen, "capacity \"%s\": capacity request cannot be represented in the "
                              "device's range arithmetic: request %s exceeds MaxInt64",
                 nz(cap->name), qb);
        return DRA__CAP_UNREPR;
    }
    dra__aq_t res;
    if (m->bug_range) {
        /* Quantity.Value() arithmetic (issue #140160): integers rounded up */
        dra__aq_t ri = dra__aq_ceil_units(rv), si = dra__aq_ceil_units(step),
                 mi = dra__aq_ceil_units(min);
        if (si <= 0)
            return DRA_OK;
        dra__aq_t added = ri - mi, n = added / si;
        if (added % si)
            n++;
        res = (mi + si * n) * DRA_AQ_UNIT;
    } else {
        if (step <= 0)
            return DRA_OK;
        dra__aq_t added = rv - min, n = added / step;
        if (added % step)
            n++;
        res = min + step * n;
    }
    if (m->unrepr_fatal && min >= 0 && res > AQ_I64_MAX_UNITS) {
        dra_quantity_format(&r->value, qb, sizeof qb);
        snprintf(err, errlen, "capacity \"%s\": capacity request cannot be represented in the "
                              "device's range arithmetic: rounding request %s up to the next step "
                              "passes MaxInt64", nz(cap->name), qb);
        return DRA__CAP_UNREPR;
    }
    *out = res;
    return DRA_OK;
values:
    if (p && p->nvalid_values) {
        for (uint32_t i = 0; i < p->nvalid_values; i++) {
            dra__aq_t v = dra__aq_from(&p->valid_values[i]);
            if (rv <= v) {
                *out = v;
                return DRA_OK;
            }
        }
    }
    return DRA_OK;
}

bool dra__cap_violates_m(const dra__capmode_t *m, dra__aq_t c, const dra_request_policy_t *p)
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
            if (use_milli(m, p)) {
                int64_t cm, sm = 1, mm = 0; /* set by aq_milli: use_milli checked both */
                if (!aq_milli(c, &cm))
                    return true;
                (void)aq_milli(step, &sm);
                (void)aq_milli(min, &mm);
                return ((dra__aq_t)cm - mm) % sm != 0;
            }
            if (m->bug_range) {
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

int dra__cap_fits_m(const dra__capmode_t *m, const dra_exact_request_t *req, const dra_device_t *d,
                    const dra__aq_t *existing, const dra__aq_t *allocating, char *err,
                    size_t errlen)
{
    for (uint32_t i = 0; i < req->ncap_requests; i++)
        if (!device_has_capacity(d, req->cap_requests[i].name, m->qualified) &&
            !(m->scc && dra__scc_device_maps(d, req->cap_requests[i].name)))
            return DRA__CAP_MISSING;
    /* representability of every capacity first (1.38-pre), so a fatal outcome does not depend
     * on which capacity a soft mismatch stops at */
    dra__aq_t cons[DRA__CAP_STACK];
    bool stacked = d->ncaps <= DRA__CAP_STACK;
    for (uint32_t i = 0; i < d->ncaps; i++) {
        const dra_capacity_t *cap = &d->caps[i];
        dra__aq_t c;
        int rc = dra__cap_consumed_m(m, dra__cap_request_for(req, d, cap->name, m->qualified), cap,
                                     &c, err, errlen);
        if (rc)
            return rc;
        if (m->unrepr_fatal && c < 0) {
            snprintf(err, errlen, "capacity \"%s\": capacity value is negative", nz(cap->name));
            return DRA__CAP_UNREPR;
        }
        if (stacked)
            cons[i] = c;
    }
    for (uint32_t i = 0; i < d->ncaps; i++) {
        const dra_capacity_t *cap = &d->caps[i];
        dra__aq_t c = 0;
        if (stacked)
            c = cons[i];
        else
            (void)dra__cap_consumed_m(m, dra__cap_request_for(req, d, cap->name, m->qualified), cap,
                                      &c, err, errlen);
        if (dra__cap_violates_m(m, c, cap->policy))
            return 0;
        dra__aq_t total = c + (existing ? existing[i] : 0) + (allocating ? allocating[i] : 0);
        if (total > dra__aq_from(&cap->value))
            return 0;
    }
    return 1;
}

/* The 1.36 arithmetic (no milli ranges, names as written), for callers that know no profile. */
dra__aq_t dra__cap_consumed(const dra_cap_request_t *r, const dra_capacity_t *cap, bool bugs)
{
    dra__capmode_t m = {bugs, false, false, false, false};
    dra__aq_t v = 0;
    char e[8];
    (void)dra__cap_consumed_m(&m, r, cap, &v, e, sizeof e);
    return v;
}

bool dra__cap_violates(dra__aq_t c, const dra_request_policy_t *p, bool bugs)
{
    dra__capmode_t m = {bugs, false, false, false, false};
    return dra__cap_violates_m(&m, c, p);
}

int dra__cap_fits(const dra_exact_request_t *req, const dra_device_t *d, const dra__aq_t *existing,
                 const dra__aq_t *allocating, bool bugs)
{
    dra__capmode_t m = {bugs, false, false, false, false};
    char e[8];
    int rc = dra__cap_fits_m(&m, req, d, existing, allocating, e, sizeof e);
    return rc < 0 ? -1 : rc;
}

/* ---- derived attributes and compatibility groups (1.37) ------------------------------------ */

int dra__constraint_attr(const dra_model_t *m, const dra__beh_t *b, dra_cel_cache_t *cel,
                         dra_arena_t *scratch, const dra_exact_request_t *body, uint32_t qname,
                         const dra_device_t *d, const dra_attr_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!qname)
        return DRA_OK;
    if (b->derived && body)
        for (uint32_t i = 0; i < body->nderived; i++) {
            const dra_derived_attr_t *da = &body->derived[i];
            if (da->qname != qname)
                continue;
            const dra_cel_prog_t *prog = NULL;
            dra_diag_t diag;
            dra_diag_clear(&diag);
            int rc = dra_cel_cache_get_derived(cel, nz(da->expr), &prog, &diag);
            if (rc == DRA_ENOMEM)
                return rc;
            if (rc) {
                snprintf(err, errlen, "compile derived attribute %s failed: %s", nz(da->name),
                         diag.msg);
                return DRA_EFATAL;
            }
            dra_attr_t *at = dra_arena_calloc(scratch, 1, sizeof *at, 8);
            if (!at)
                return DRA_ENOMEM;
            rc = dra_cel_eval_derived(prog, m, d, scratch, at, &diag);
            if (rc == DRA_ENOMEM)
                return rc;
            if (rc) {
                const dra_slice_t *sl = d->slice;
                snprintf(err, errlen, "evaluate derived attribute %s on device %s/%s/%s failed: %s",
                         nz(da->name), sl ? nz(sl->driver) : "", sl ? nz(sl->pool_name) : "",
                         nz(d->name), diag.msg);
                return DRA_EFATAL;
            }
            at->name = da->name;
            at->qname = da->qname;
            *out = at;
            return DRA_OK;
        }
    *out = dra_device_attr(d, qname);
    return DRA_OK;
}

static bool cg_has(const dra__cgstate_t *s, const char *g)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (strcmp(s->g[i], g) == 0)
            return true;
    return false;
}

/* upstream's admits(): may a device with these groups join the set? */
bool dra__cg_admits(const dra__cgstate_t *s, const dra_consumes_t *c)
{
    if (!s->has)
        return true;
    if (!c->ngroups)
        return s->all_empty;
    if (s->all_empty)
        return false;
    for (uint32_t i = 0; i < c->ngroups; i++)
        if (c->groups[i] && cg_has(s, c->groups[i]))
            return true;
    return false;
}

/* upstream's add(): fold the device's groups into the set's state */
void dra__cg_fold(dra__cgstate_t *s, const dra_consumes_t *c)
{
    if (c->ngroups)
        s->grouped = true;
    if (!s->has) {
        s->has = true;
        s->all_empty = c->ngroups == 0;
        s->n = 0;
        for (uint32_t i = 0; i < c->ngroups && s->n < DRA__CG_MAX; i++)
            if (c->groups[i] && !cg_has(s, c->groups[i]))
                s->g[s->n++] = c->groups[i];
        return;
    }
    if (s->all_empty || !c->ngroups)
        return;
    uint8_t k = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        bool in = false;
        for (uint32_t j = 0; j < c->ngroups && !in; j++)
            in = c->groups[j] && strcmp(c->groups[j], s->g[i]) == 0;
        if (in)
            s->g[k++] = s->g[i];
    }
    s->n = k;
}

bool dra__cg_lists_ok(const dra_consumes_t *const *lists, uint32_t nbase, uint32_t n)
{
    dra__cgstate_t st = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (i >= nbase && !dra__cg_admits(&st, lists[i]))
            return false;
        dra__cg_fold(&st, lists[i]);
    }
    return true;
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
                          const dra_device_t *d, bool *match, uint32_t *failed, uint64_t *nevals,
                          char *err, size_t errlen)
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
            /* 1.37+ names the device: "selector #N on device driver/pool/device" */
            char on[400] = "";
            if (b->cel_err_device && d->slice)
                snprintf(on, sizeof on, " on device %s/%s/%s", nz(d->slice->driver),
                         nz(d->slice->pool_name), nz(d->name));
            if (cls)
                snprintf(err, errlen, "class %s: selector #%u%s: CEL runtime error: %s",
                         cls->name, i, on, diag.msg);
            else
                snprintf(err, errlen, "claim %s: selector #%u%s: CEL runtime error: %s",
                         dra__claim_ref(claim, cref, sizeof cref), i, on, diag.msg);
            return DRA_EFATAL;
        }
        if (!mt) {
            *match = false;
            if (failed)
                *failed = i;
            return DRA_OK;
        }
    }
    return DRA_OK;
}

int dra__device_selectable_why(const dra_model_t *m, const dra__beh_t *b, dra_cel_cache_t *cel,
                              dra_arena_t *scratch, const dra_node_t *node,
                              const dra_claim_t *claim, const dra_device_class_t *cls,
                              const dra_exact_request_t *req, const dra_device_t *d,
                              dra__selwhy_t *why, uint32_t *index, uint64_t *nevals, char *err,
                              size_t errlen)
{
    *why = DRA__SEL_BINDING;
    *index = 0;
    if (!b->binding && d->nbinding_conditions > 0)
        return DRA_OK;
    *why = DRA__SEL_NODE_OPS; /* before the selectors, as dra__slot_binding_blocked */
    if (dra__dev_ops_blocked(b, node, d))
        return DRA_OK;
    bool mt;
    int rc;
    if (cls) {
        *why = DRA__SEL_CLASS;
        rc = eval_selectors(m, b, cel, scratch, claim, cls, cls->selectors, cls->nselectors, d, &mt,
                            index, nevals, err, errlen);
        if (rc || !mt)
            return rc;
    }
    *why = DRA__SEL_REQUEST;
    rc = eval_selectors(m, b, cel, scratch, claim, NULL, req->selectors, req->nselectors, d, &mt,
                        index, nevals, err, errlen);
    if (rc || !mt)
        return rc;
    if (d->slice && d->slice->per_device_node_selection) {
        char e2[256];
        *why = DRA__SEL_NODE;
        if (dra__node_matches(node, d->node_name, d->all_nodes, d->node_selector, &mt, e2,
                             sizeof e2)) {
            snprintf(err, errlen, "failed to parse node selector: %s", e2);
            return DRA_EFATAL;
        }
        if (!mt)
            return DRA_OK;
    }
    *why = DRA__SEL_OK;
    return DRA_OK;
}

int dra__device_selectable(const dra_model_t *m, const dra__beh_t *b, dra_cel_cache_t *cel,
                          dra_arena_t *scratch, const dra_node_t *node, const dra_claim_t *claim,
                          const dra_device_class_t *cls, const dra_exact_request_t *req,
                          const dra_device_t *d, bool *match, uint64_t *nevals, char *err,
                          size_t errlen)
{
    dra__selwhy_t why;
    uint32_t index;
    int rc = dra__device_selectable_why(m, b, cel, scratch, node, claim, cls, req, d, &why, &index,
                                        nevals, err, errlen);
    *match = rc == DRA_OK && why == DRA__SEL_OK;
    return rc;
}

/* ---- capacity names (DRASharedConsumableCapacity's rule 2, sharedcap.c) ------------------ */

bool dra__cap_qname_eq(const char *a, const char *b, const char *drv)
{
    a = nz(a);
    b = nz(b);
    drv = nz(drv);
    bool qa = strchr(a, '/') != NULL, qb = strchr(b, '/') != NULL;
    if (qa == qb)
        return strcmp(a, b) == 0;
    const char *q = qa ? a : b, *bare = qa ? b : a;
    size_t dl = strlen(drv);
    return strncmp(q, drv, dl) == 0 && q[dl] == '/' && strcmp(q + dl + 1, bare) == 0;
}

bool dra__scc_device_maps(const dra_device_t *d, const char *req_name)
{
    const char *drv = d->slice ? d->slice->driver : NULL;
    for (uint32_t c = 0; c < d->nconsumes; c++)
        for (uint32_t k = 0; k < d->consumes[c].ncounters; k++)
            if (d->consumes[c].counters[k].value_from &&
                dra__cap_qname_eq(d->consumes[c].counters[k].value_from, req_name, drv))
                return true;
    return false;
}
