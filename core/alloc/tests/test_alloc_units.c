/* test_alloc_units.c - allocator building blocks in isolation: release profiles, gate parsing,
 * variant selection and derived behaviour; taint toleration; consumable-capacity policy
 * arithmetic (default, validRange with step rounding, validValues round-up, violations, fit);
 * derived shareIDs (their hash input and text). */
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/alloc_impl.h"
#include "base/quantity.h"
#include "check.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- features ---------------------------------------------------------------------------- */

static void test_release_defaults(void)
{
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_34);
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_ADMIN_ACCESS));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_PRIORITIZED_LIST));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_DEVICE_TAINTS));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_CONSUMABLE_CAPACITY));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_PARTITIONABLE_DEVICES));
    CHECK(!f.upstream_bugs);
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_PARTITIONABLE_DEVICES));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_DEVICE_TAINTS));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_DEVICE_BINDING_CONDITIONS));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_CONSUMABLE_CAPACITY));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_LIST_TYPE_ATTRIBUTES));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_DEVICE_TAINT_RULES));
    CHECK_EQ_I64(f.release, 136);
    /* 1.37: DeviceTaintRules GA and on; the new 1.37 gates exist and are off */
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_DEVICE_TAINT_RULES));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_EXTENDED_RESOURCE));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_DEVICE_COMPATIBILITY_GROUPS));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_DERIVED_ATTRIBUTES));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_FRACTIONAL_CAPACITY_RANGE));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS));
    CHECK_EQ_I64(DRA_RELEASE_DEFAULT, DRA_RELEASE_1_37);
    dra_alloc_features_init(&f, DRA_RELEASE_1_38_PRE);
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_DEVICE_TAINT_RULES));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_DEVICE_TAINTS));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_DEVICE_COMPATIBILITY_GROUPS));
    /* every profile's defaults respect its own table: existing gates only, locked at default */
    for (size_t i = 0; i < DRA_RELEASE_COUNT; i++) {
        dra_release_t r = dra_alloc_releases[i];
        dra_alloc_features_init(&f, r);
        for (int g = 0; g < DRA_GATE_COUNT; g++) {
            dra_gate_stage_t st = dra_alloc_gate_stage(r, (dra_gate_t)g);
            CHECK(st.exists || !dra_alloc_gate_on(&f, (dra_gate_t)g));
            CHECK(dra_alloc_gate_on(&f, (dra_gate_t)g) == (st.exists && st.def));
            CHECK(!st.locked || st.exists);
        }
    }
}

static void test_release_locks(void)
{
    dra_alloc_features_t f;
    dra_diag_t d;
    /* 1.35: nothing of ours locked */
    dra_alloc_features_init(&f, DRA_RELEASE_1_35);
    CHECK_OK(dra_alloc_features_set(&f, "DRAAdminAccess=false", &d));
    /* 1.36: DRAAdminAccess GA, locked */
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRAAdminAccess=false", &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "cannot set feature gate DRAAdminAccess to false, feature is locked to "
                        "true in release 1.36") != NULL);
    CHECK_OK(dra_alloc_features_set(&f, "DRAAdminAccess=true", &d)); /* to its value: fine */
    CHECK_OK(dra_alloc_features_set(&f, "DRAPrioritizedList=false", &d));
    /* 1.37: PrioritizedList, ResourceClaimDeviceStatus, ExtendedResource locked too */
    static const char *const locked37[] = {"DRAPrioritizedList", "DRAResourceClaimDeviceStatus",
                                           "DRAExtendedResource", "DRAAdminAccess"};
    for (size_t i = 0; i < DRA_ARRAY_LEN(locked37); i++) {
        dra_alloc_features_init(&f, DRA_RELEASE_1_37);
        CHECK_EQ_I64(dra_alloc_features_set_gate(&f, locked37[i], false, &d), DRA_EINVAL);
        CHECK(dra_alloc_gate_on(&f, DRA_GATE_PRIORITIZED_LIST));
    }
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceTaints=false", &d)); /* GA, not locked yet */
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceTaintRules=false", &d));
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceCompatibilityGroups=true", &d));
    CHECK_OK(dra_alloc_features_set(&f, "DRADerivedAttributes=true", &d));
    CHECK_OK(dra_alloc_features_set(&f, "DRAFractionalCapacityRange=true", &d));
    /* 1.38-pre: taints and taint rules locked (#140256) */
    dra_alloc_features_init(&f, DRA_RELEASE_1_38_PRE);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRADeviceTaints=false", &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "release 1.38-pre") != NULL);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRADeviceTaintRules=false", &d), DRA_EINVAL);
    /* the 1.37 gates do not exist in 1.36 */
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRADerivedAttributes=true", &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "does not exist in release 1.36") != NULL);
    CHECK_OK(dra_alloc_features_set(&f, "DRADerivedAttributes=false", &d));
    dra_gate_stage_t st = dra_alloc_gate_stage(DRA_RELEASE_1_37, DRA_GATE_FRACTIONAL_CAPACITY_RANGE);
    CHECK(st.exists && !st.def && !st.locked);
    CHECK_STREQ(st.stage, "beta");
    dra_gate_t g;
    CHECK(dra_alloc_gate_lookup("DRAWorkloadResourceClaims", &g));
    CHECK_EQ_I64(g, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS);
    CHECK(!dra_alloc_gate_lookup("DRANoSuch", &g));
}

static void test_release_parse(void)
{
    dra_release_t r = DRA_RELEASE_1_34;
    dra_diag_t d;
    CHECK_OK(dra_alloc_release_parse("1.35", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_35);
    CHECK_OK(dra_alloc_release_parse("v1.36", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_36);
    CHECK_OK(dra_alloc_release_parse("1.34.7", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_34);
    CHECK_EQ_I64(dra_alloc_release_parse("1.33", &r, &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "unknown release") != NULL);
    CHECK_EQ_I64(dra_alloc_release_parse("1.361", &r, &d), DRA_EINVAL);
    CHECK_EQ_I64(dra_alloc_release_parse(NULL, &r, &d), DRA_EINVAL);
    CHECK_OK(dra_alloc_release_parse("1.37", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_37);
    CHECK_OK(dra_alloc_release_parse("v1.37.1", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_37);
    CHECK_OK(dra_alloc_release_parse("1.38-pre", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_38_PRE);
    CHECK_OK(dra_alloc_release_parse("v1.38-pre", &r, &d));
    CHECK_EQ_I64(r, DRA_RELEASE_1_38_PRE);
    /* 1.38 is not released: the message names the profile that follows master */
    CHECK_EQ_I64(dra_alloc_release_parse("1.38", &r, &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "1.38-pre") != NULL && strstr(d.msg, "master") != NULL);
    CHECK_EQ_I64(dra_alloc_release_parse("1.38.0-alpha.2", &r, &d), DRA_EINVAL);
    CHECK_EQ_I64(dra_alloc_release_parse("1.38-prerelease", &r, &d), DRA_EINVAL);
    for (size_t i = 0; i < DRA_RELEASE_COUNT; i++) {
        dra_release_t x = dra_alloc_releases[i], y;
        CHECK(dra_alloc_release_valid((int)x));
        CHECK_OK(dra_alloc_release_parse(dra_alloc_release_name(x), &y, &d));
        CHECK_EQ_I64(x, y);
        CHECK(strcmp(dra_alloc_release_source(x), "?") != 0);
        CHECK(i == 0 || dra_alloc_releases[i - 1] < x); /* ordered */
    }
    CHECK(!dra_alloc_release_valid(133) && !dra_alloc_release_valid(139));
    CHECK_STREQ(dra_alloc_release_name((dra_release_t)139), "?");
    CHECK_STREQ(dra_alloc_release_name(DRA_RELEASE_1_38_PRE), "1.38-pre");
}

static void test_gate_parse(void)
{
    dra_alloc_features_t f;
    dra_diag_t d;
    dra_alloc_features_init(&f, DRA_RELEASE_1_35);
    CHECK_OK(dra_alloc_features_set(&f, "DRAAdminAccess=false", &d));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_ADMIN_ACCESS));
    CHECK_OK(dra_alloc_features_set(&f, "DRAAdminAccess", &d)); /* bare name = true */
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_ADMIN_ACCESS));
    CHECK_OK(dra_alloc_features_set(&f, "DRAConsumableCapacity=0", &d));
    CHECK(!dra_alloc_gate_on(&f, DRA_GATE_CONSUMABLE_CAPACITY));
    CHECK_OK(dra_alloc_features_set(&f, "DRAConsumableCapacity=True", &d));
    CHECK(dra_alloc_gate_on(&f, DRA_GATE_CONSUMABLE_CAPACITY));
    CHECK_EQ_I64(dra_alloc_features_set(&f, "NoSuchGate=true", &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "unknown feature gate \"NoSuchGate\"") != NULL);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRADeviceTaints=maybe", &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "bad value \"maybe\"") != NULL);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "=true", &d), DRA_EINVAL);
    /* list-type attributes do not exist before 1.36 */
    dra_alloc_features_init(&f, DRA_RELEASE_1_35);
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRAListTypeAttributes=true", &d), DRA_EINVAL);
    CHECK_OK(dra_alloc_features_set(&f, "DRAListTypeAttributes=false", &d));
    for (int g = 0; g < DRA_GATE_COUNT; g++) {
        /* every gate exists in 1.37 but GangScheduling (merged into GenericWorkload in 1.37)
         * and DRASharedConsumableCapacity (new in 1.38-pre: flipped there); flip the unlocked
         * ones */
        bool new38 = g == DRA_GATE_SHARED_CONSUMABLE_CAPACITY;
        dra_release_t rel = new38 ? DRA_RELEASE_1_38_PRE : DRA_RELEASE_1_37;
        CHECK(!new38 || !dra_alloc_gate_stage(DRA_RELEASE_1_37, (dra_gate_t)g).exists);
        dra_alloc_features_init(&f, rel);
        dra_gate_stage_t st = dra_alloc_gate_stage(rel, (dra_gate_t)g);
        CHECK(st.exists == (g != DRA_GATE_GANG_SCHEDULING));
        if (!st.exists || st.locked)
            continue;
        uint32_t before = f.gates;
        CHECK_OK(dra_alloc_features_set_gate(&f, dra_alloc_gate_name((dra_gate_t)g),
                                             !dra_alloc_gate_on(&f, (dra_gate_t)g), &d));
        CHECK_EQ_U64(f.gates ^ before, 1u << g); /* the name maps to exactly its bit */
    }
    CHECK_STREQ(dra_alloc_gate_name(DRA_GATE_COUNT), "?");
}

static void test_variants(void)
{
    dra_alloc_features_t f;
    dra__beh_t b;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_INCUBATING); /* binding + capacity on */
    dra__beh_init(&b, &f);
    CHECK(b.combos && b.sort_slices && b.binds_to_node && b.strict_pools && b.pool_counters);
    CHECK(!b.lists && !b.bugs);
    CHECK_OK(dra_alloc_features_set(&f, "DRAConsumableCapacity=false", NULL));
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceBindingConditions=false", NULL));
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_STABLE);
    dra__beh_init(&b, &f);
    CHECK(!b.combos && !b.sort_slices && !b.binds_to_node); /* stable: permutations */
    CHECK(b.counter_slices_always);
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK_OK(dra_alloc_features_set(&f, "DRAListTypeAttributes=true", NULL));
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_EXPERIMENTAL);
    dra__beh_init(&b, &f);
    CHECK(b.lists);
    CHECK_STREQ(dra_alloc_variant_name(DRA_VARIANT_EXPERIMENTAL), "experimental");
    /* 1.34 / 1.35: permutations everywhere, 1.34 keeps incomplete pools and per-slice counters */
    dra_alloc_features_init(&f, DRA_RELEASE_1_34);
    f.upstream_bugs = true;
    dra__beh_init(&b, &f);
    CHECK(!b.combos && !b.strict_pools && !b.pool_counters && b.bugs);
    dra_alloc_features_init(&f, DRA_RELEASE_1_35);
    dra__beh_init(&b, &f);
    CHECK(!b.combos && b.strict_pools && b.pool_counters);
    /* 1.37: incubating also supports fractional ranges; the alpha features need experimental */
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_INCUBATING);
    dra__beh_init(&b, &f);
    CHECK(!b.cg && b.cg_skip && !b.cg_drop && !b.derived && b.derived_fatal && !b.fractional);
    CHECK(!b.count_strict); /* #141118 came after the 1.37 cut */
    /* 1.37 (upstream's table at 3c6bdf290c3a): an unrepresentable capacity request fails the
     * call, a capacity the device lacks skips it */
    CHECK(b.config_all_nil && b.cel_err_device && !b.cap_qualified && !b.cap_missing_fatal &&
          b.cap_unrepr_fatal);
    CHECK_OK(dra_alloc_features_set(&f, "DRAFractionalCapacityRange=true", NULL));
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_INCUBATING);
    dra__beh_init(&b, &f);
    CHECK(b.fractional);
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceCompatibilityGroups=true", NULL));
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_EXPERIMENTAL);
    dra__beh_init(&b, &f);
    CHECK(b.cg && !b.cg_skip && !b.cg_drop);
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK_OK(dra_alloc_features_set(&f, "DRADerivedAttributes=true", NULL));
    CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_EXPERIMENTAL);
    dra__beh_init(&b, &f);
    CHECK(b.derived && !b.derived_fatal && b.cg_skip);
    /* the same features in 1.36 change nothing of that */
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    dra__beh_init(&b, &f);
    CHECK(!b.cg_skip && !b.cg_drop && !b.derived_fatal && !b.config_all_nil &&
          !b.cap_missing_fatal && !b.cap_unrepr_fatal);
    /* bugs are reproduced only where the release has them */
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    f.upstream_bugs = true;
    dra__beh_init(&b, &f);
    CHECK(b.bug_rollback && b.bug_distinct && b.bug_isect && b.bug_config_dup && b.bug_all_cap &&
          b.bug_all_fatal && b.bug_range && b.bug_persisted_share && !b.share_blocks_excl);
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    f.upstream_bugs = true;
    dra__beh_init(&b, &f);
    CHECK(!b.bug_rollback && !b.bug_distinct && !b.bug_isect && !b.bug_config_dup &&
          !b.bug_all_cap && b.bug_all_fatal && b.bug_range && !b.bug_persisted_share &&
          !b.share_blocks_excl);
    dra_alloc_features_init(&f, DRA_RELEASE_1_38_PRE);
    f.upstream_bugs = true;
    dra__beh_init(&b, &f);
    CHECK(!b.bug_all_fatal && b.bug_range && b.share_blocks_excl && !b.cap_missing_fatal);
    f.upstream_bugs = false;
    dra__beh_init(&b, &f);
    CHECK(!b.bug_range && b.share_blocks_excl && b.cap_unrepr_fatal && b.cap_qualified);
    /* groups not enforced: master (1.38-pre) drops the slice while gathering pools instead of
     * 1.37's per-device skip; enforced (experimental variant), neither */
    CHECK(!b.cg && b.cg_drop && !b.cg_skip);
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceCompatibilityGroups=true", NULL));
    dra__beh_init(&b, &f);
    CHECK(b.cg && !b.cg_drop && !b.cg_skip);
    /* #141118: an inconsistent resourceSliceCount makes a pool invalid, whatever the gates */
    CHECK(b.count_strict);
}

/* ---- taints ------------------------------------------------------------------------------ */

static void test_tolerations(void)
{
    dra_taint_t ns = {.key = "k", .value = "v", .effect = DRA_EFFECT_NO_SCHEDULE};
    dra_taint_t ne = {.key = "k", .value = "v", .effect = DRA_EFFECT_NO_EXECUTE};
    dra_taint_t none = {.key = "info", .effect = DRA_EFFECT_NONE};
    dra_toleration_t eq = {.key = "k", .op = DRA_TOL_EQUAL, .value = "v", .effect = DRA_EFFECT_NO_SCHEDULE};
    CHECK(dra__toleration_tolerates(&eq, &ns));
    CHECK(!dra__toleration_tolerates(&eq, &ne)); /* effect differs */
    eq.value = "w";
    CHECK(!dra__toleration_tolerates(&eq, &ns)); /* value differs */
    dra_toleration_t ex_any = {.key = "k", .op = DRA_TOL_EXISTS, .effect = DRA_EFFECT_EMPTY};
    CHECK(dra__toleration_tolerates(&ex_any, &ns));
    CHECK(dra__toleration_tolerates(&ex_any, &ne)); /* empty effect matches every effect */
    dra_toleration_t all = {.key = NULL, .op = DRA_TOL_EXISTS, .effect = DRA_EFFECT_EMPTY};
    CHECK(dra__toleration_tolerates(&all, &ns)); /* empty key + Exists = everything */
    dra_toleration_t other = {.key = "x", .op = DRA_TOL_EXISTS, .effect = DRA_EFFECT_EMPTY};
    CHECK(!dra__toleration_tolerates(&other, &ns));
    dra_toleration_t unk = {.key = "k", .op = DRA_TOL_UNKNOWN, .effect = DRA_EFFECT_EMPTY};
    CHECK(!dra__toleration_tolerates(&unk, &ns));

    dra_taint_t taints[2] = {none, ns};
    dra_device_t d;
    memset(&d, 0, sizeof d);
    d.taints = taints;
    d.ntaints = 1;
    CHECK(!dra__taint_blocks(&d, NULL, 0)); /* effect None never blocks */
    d.ntaints = 2;
    CHECK(dra__taint_blocks(&d, NULL, 0));
    dra_toleration_t tols[2] = {other, ex_any};
    CHECK(dra__taint_blocks(&d, tols, 1));
    CHECK(!dra__taint_blocks(&d, tols, 2));
}

/* ---- consumable capacity ----------------------------------------------------------------- */

static dra_quantity_t q(const char *s)
{
    dra_quantity_t v;
    memset(&v, 0, sizeof v);
    int rc = dra_quantity_parse(s, strlen(s), &v, NULL);
    CHECK_OK(rc);
    return v;
}

static dra__aq_t aq(const char *s)
{
    dra_quantity_t v = q(s);
    return dra__aq_from(&v);
}

/* dra__aq_from against a conversion one digit at a time (multiply by ten saturating at
 * DRA_AQ_SAT, divide by ten rounding a remainder away from zero to 1n): magnitudes from 0 to
 * 2^128 - 1 in both halves, exponents -60..60, both signs; the inline path (a magnitude below
 * 2^64, exponents -9..10) and the general one (dra__aq_from_any) alike. */
static dra__aq_t aq_digits(const dra_quantity_t *v)
{
    dra__uaq_t m = ((dra__uaq_t)v->hi << 64) | v->lo;
    const dra__uaq_t lim = (dra__uaq_t)DRA_AQ_SAT;
    int32_t e = v->exp + 9;
    if (!m)
        return 0;
    bool rem = false;
    for (; e > 0; e--)
        m = m > lim / 10 ? lim : m * 10;
    for (; e < 0 && m; e++) {
        rem |= m % 10 != 0;
        m /= 10;
    }
    m += rem;
    if (m > lim)
        m = lim;
    return v->neg ? -(dra__aq_t)m : (dra__aq_t)m;
}

static void test_aq_from(void)
{
    static const uint64_t mags[][2] = {
        {0, 0}, {0, 1}, {0, 7}, {0, 10}, {0, 999}, {0, 1000000000}, {0, 123456789012345678ULL},
        {0, UINT64_MAX}, {0, 1329227995784915872ULL}, {0, 1329227995784915873ULL},
        {0, 132922799578491587ULL}, {0, 132922799578491588ULL}, {1, 0}, {0xffffffffULL, 5},
        {1ULL << 56, 3}, {UINT64_MAX, UINT64_MAX}};
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof mags / sizeof mags[0]; i++)
        for (int32_t x = -60; x <= 60; x++)
            for (int neg = 0; neg < 2; neg++) {
                dra_quantity_t v;
                memset(&v, 0, sizeof v);
                v.hi = mags[i][0];
                v.lo = mags[i][1];
                v.exp = x;
                v.neg = (int8_t)(neg && (v.hi || v.lo));
                dra__aq_t a = dra__aq_from(&v), b = aq_digits(&v), g = dra__aq_from_any(&v);
                CHECK_MSG(a == b && g == b, "magnitude %llx:%llx exp %d neg %d",
                          (unsigned long long)v.hi, (unsigned long long)v.lo, x, v.neg);
                n++;
            }
    CHECK(n > 2000);
}

static void test_capacity_default_policy(void)
{
    dra_request_policy_t p;
    memset(&p, 0, sizeof p);
    dra_capacity_t cap = {.name = "mem", .value = q("10Gi"), .policy = NULL};
    /* not requested, no policy: the whole capacity */
    CHECK(dra__cap_consumed(NULL, &cap, false) == aq("10Gi"));
    /* not requested, default: the default */
    p.has_default = true;
    p.def = q("1Gi");
    cap.policy = &p;
    CHECK(dra__cap_consumed(NULL, &cap, false) == aq("1Gi"));
    /* requested, policy without range/values: as requested */
    dra_cap_request_t r = {.name = "mem", .value = q("3Gi")};
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("3Gi"));
    /* the default is always acceptable; other values are fine without range / values */
    CHECK(!dra__cap_violates(aq("1Gi"), &p, false));
    CHECK(!dra__cap_violates(aq("3Gi"), &p, false));
    CHECK(!dra__cap_violates(aq("3Gi"), NULL, false));
}

static void test_capacity_valid_range(void)
{
    dra_request_policy_t p;
    memset(&p, 0, sizeof p);
    p.has_default = true;
    p.def = q("2");
    p.has_valid_range = true;
    p.min = q("2");
    p.has_max = true;
    p.max = q("10");
    p.has_step = true;
    p.step = q("2");
    dra_capacity_t cap = {.name = "c", .value = q("10"), .policy = &p};
    dra_cap_request_t r = {.name = "c"};
    r.value = q("1"); /* below min: min */
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("2"));
    r.value = q("3"); /* rounded up to min + k*step */
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("4"));
    r.value = q("4");
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("4"));
    r.value = q("9");
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("10"));
    CHECK(!dra__cap_violates(aq("10"), &p, false));
    CHECK(dra__cap_violates(aq("12"), &p, false)); /* over max */
    CHECK(dra__cap_violates(aq("5"), &p, false));  /* off the step grid */
    /* fractional step: exact arithmetic (fixed) vs Quantity.Value() ceilings (#140160) */
    p.def = q("500m");
    p.min = q("500m");
    p.step = q("500m");
    p.max = q("4");
    r.value = q("700m");
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("1"));
    /* bugs: ceil(0.7)=1, ceil(0.5)=1, ceil(0.5)=1 -> min 1 + 1*ceil((1-1)/1)=1 unit */
    CHECK(dra__cap_consumed(&r, &cap, true) == aq("1"));
    r.value = q("1200m");
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("1500m"));
    CHECK(dra__cap_consumed(&r, &cap, true) == aq("2")); /* ceil(1.2)=2 */
    CHECK(!dra__cap_violates(aq("1500m"), &p, false));
    CHECK(dra__cap_violates(aq("1200m"), &p, false));
    /* without a step any value in range is taken as requested */
    p.has_step = false;
    r.value = q("1234m");
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("1234m"));
    CHECK(!dra__cap_violates(aq("1234m"), &p, false));
}

static void test_capacity_valid_values(void)
{
    dra_quantity_t vals[3] = {q("1Gi"), q("4Gi"), q("8Gi")};
    dra_request_policy_t p;
    memset(&p, 0, sizeof p);
    p.has_default = true;
    p.def = q("1Gi");
    p.valid_values = vals;
    p.nvalid_values = 3;
    dra_capacity_t cap = {.name = "mem", .value = q("8Gi"), .policy = &p};
    dra_cap_request_t r = {.name = "mem"};
    r.value = q("2Gi"); /* rounded up to the next valid value */
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("4Gi"));
    r.value = q("4Gi");
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("4Gi"));
    r.value = q("9Gi"); /* above every value: as requested, then a violation */
    CHECK(dra__cap_consumed(&r, &cap, false) == aq("9Gi"));
    CHECK(dra__cap_violates(aq("9Gi"), &p, false));
    CHECK(!dra__cap_violates(aq("8Gi"), &p, false));
    CHECK(dra__cap_violates(aq("3Gi"), &p, false));
}

static void test_capacity_fits(void)
{
    dra_request_policy_t p;
    memset(&p, 0, sizeof p);
    p.has_default = true;
    p.def = q("1");
    dra_capacity_t caps[2] = {{.name = "a", .value = q("4"), .policy = &p},
                              {.name = "b", .value = q("2"), .policy = NULL}};
    dra_device_t d;
    memset(&d, 0, sizeof d);
    d.caps = caps;
    d.ncaps = 2;
    dra_cap_request_t creq[2] = {{.name = "a", .value = q("2")}, {.name = "b", .value = q("1")}};
    dra_exact_request_t req;
    memset(&req, 0, sizeof req);
    req.cap_requests = creq;
    req.ncap_requests = 2;
    CHECK_EQ_I64(dra__cap_fits(&req, &d, NULL, NULL, false), 1);
    dra__aq_t existing[2] = {aq("2"), 0}, allocating[2] = {0, aq("1")};
    CHECK_EQ_I64(dra__cap_fits(&req, &d, existing, NULL, false), 1);        /* 2+2 <= 4 */
    CHECK_EQ_I64(dra__cap_fits(&req, &d, existing, allocating, false), 1);  /* 1+1 <= 2 */
    existing[0] = aq("3");
    CHECK_EQ_I64(dra__cap_fits(&req, &d, existing, NULL, false), 0);        /* 2+3 > 4 */
    /* a capacity the request does not name consumes its default / the whole value */
    req.ncap_requests = 1;
    existing[0] = 0;
    allocating[1] = aq("1");
    CHECK_EQ_I64(dra__cap_fits(&req, &d, NULL, allocating, false), 0); /* b: 2 + 1 > 2 */
    CHECK_EQ_I64(dra__cap_fits(&req, &d, NULL, NULL, false), 1);
    /* a request naming a capacity the device lacks */
    dra_cap_request_t unknown = {.name = "c", .value = q("1")};
    req.cap_requests = &unknown;
    req.ncap_requests = 1;
    CHECK_EQ_I64(dra__cap_fits(&req, &d, NULL, NULL, false), -1);
}

/* ---- shareIDs (dra__share_id) -------------------------------------------------------------- */

/* The documented hash input, built here independently: per field an 8-byte little-endian
 * length and its bytes (namespace, name, driver, pool, device, then index and attempt as 4
 * bytes each), XXH3-128 with the seed, as UUID v4 text. */
static void expected_share_id(uint64_t seed, const char *ns, const char *name, uint32_t index,
                              const char *const dev[3], uint32_t attempt, char out[37])
{
    static unsigned char in[4096];
    size_t at = 0;
    const char *f[5] = {ns, name, dev[0], dev[1], dev[2]};
    unsigned char num[8];
    for (int i = 0; i < 4; i++) {
        num[i] = (unsigned char)(index >> (8 * i));
        num[4 + i] = (unsigned char)(attempt >> (8 * i));
    }
    for (int i = 0; i < 6; i++) {
        const void *p = i < 5 ? (const void *)f[i] : (const void *)num;
        size_t n = i < 5 ? strlen(f[i]) : sizeof num;
        for (int b = 0; b < 8; b++)
            in[at++] = (unsigned char)((uint64_t)n >> (8 * b));
        memcpy(in + at, p, n);
        at += n;
    }
    XXH128_hash_t v = XXH3_128bits_withSeed(in, at, seed);
    snprintf(out, 37, "%08x-%04x-4%03x-%x%03x-%012llx", (unsigned)(v.high64 >> 32),
             (unsigned)((v.high64 >> 16) & 0xffff), (unsigned)(v.high64 & 0xfff),
             (unsigned)(8 + ((v.low64 >> 60) & 3)), (unsigned)((v.low64 >> 48) & 0xfff),
             (unsigned long long)(v.low64 & 0xffffffffffffULL));
}

static void test_share_id(void)
{
    dra_claim_t c = {.namespace_ = "team-a", .name = "infer-0"};
    const char *dev[3] = {"gpu.example.com", "node-1", "gpu-3"};
    char got[37], want[37], other[37];
    dra__share_id(7, &c, 2, dev[0], dev[1], dev[2], 0, got);
    expected_share_id(7, "team-a", "infer-0", 2, dev, 0, want);
    CHECK_STREQ(got, want);
    /* the text formatting over many values (every digit in every position, both variants'
     * bits): the same text as printf's */
    for (uint32_t i = 0; i < 512; i++) {
        dra__share_id(1000 + i, &c, i & 7, dev[0], dev[1], dev[2], i >> 3, other);
        expected_share_id(1000 + i, "team-a", "infer-0", i & 7, dev, i >> 3, want);
        CHECK_STREQ(other, want);
    }
    CHECK_EQ_U64(strlen(got), 36);
    CHECK(got[8] == '-' && got[13] == '-' && got[18] == '-' && got[23] == '-' && got[14] == '4');
    CHECK(strchr("89ab", got[19]) != NULL);
    /* every input matters */
    dra__share_id(8, &c, 2, dev[0], dev[1], dev[2], 0, other);
    CHECK(strcmp(other, got) != 0);
    dra__share_id(7, &c, 3, dev[0], dev[1], dev[2], 0, other);
    CHECK(strcmp(other, got) != 0);
    dra__share_id(7, &c, 2, dev[0], dev[1], dev[2], 1, other);
    CHECK(strcmp(other, got) != 0);
    dra__share_id(7, &c, 2, dev[0], dev[1], "gpu-4", 0, other);
    CHECK(strcmp(other, got) != 0);
    /* no field boundary ambiguity: ("ab", "c") is not ("a", "bc") */
    dra_claim_t c1 = {.namespace_ = "ab", .name = "c"}, c2 = {.namespace_ = "a", .name = "bc"};
    dra__share_id(7, &c1, 0, dev[0], dev[1], dev[2], 0, got);
    dra__share_id(7, &c2, 0, dev[0], dev[1], dev[2], 0, other);
    CHECK(strcmp(other, got) != 0);
    /* an absent namespace is "default" */
    dra_claim_t cn = {.name = "x"}, cd = {.namespace_ = "default", .name = "x"};
    dra__share_id(7, &cn, 0, dev[0], dev[1], dev[2], 0, got);
    dra__share_id(7, &cd, 0, dev[0], dev[1], dev[2], 0, other);
    CHECK_STREQ(got, other);
    /* names too long for the stack buffer take the streaming hash: the same value */
    static char longname[1100];
    memset(longname, 'n', sizeof longname - 1);
    dra_claim_t cl = {.namespace_ = "team-a", .name = longname};
    dra__share_id(7, &cl, 1, dev[0], dev[1], dev[2], 5, got);
    expected_share_id(7, "team-a", longname, 1, dev, 5, want);
    CHECK_STREQ(got, want);
    /* every field from empty to 40 bytes (the one-pass assembly of the input), and inputs on
     * both sides of the stack buffer's end (768 bytes: 56 of lengths and numbers, 712 of text) */
    static char fb[5][720];
    for (int k = 0; k < 5; k++)
        for (int b = 0; b < 719; b++)
            fb[k][b] = (char)('a' + (b * 7 + k * 3) % 26);
    uint32_t lcg = 12345;
    for (uint32_t i = 0; i < 300; i++) {
        uint32_t len[5];
        for (int k = 0; k < 5; k++) {
            lcg = lcg * 1103515245u + 12345u;
            len[k] = (lcg >> 16) % 41;
        }
        if (i >= 296) { /* name fills the text to 711, 712, 713, 714 bytes */
            len[1] = 0;
            uint32_t rest = len[0] + len[2] + len[3] + len[4];
            len[1] = 711 + (i - 296) - rest;
        }
        char keep[5];
        for (int k = 0; k < 5; k++) {
            keep[k] = fb[k][len[k]];
            fb[k][len[k]] = 0;
        }
        dra_claim_t cv = {.namespace_ = fb[0], .name = fb[1]};
        const char *dv[3] = {fb[2], fb[3], fb[4]};
        dra__share_id(99 + i, &cv, i, dv[0], dv[1], dv[2], i * 3, got);
        expected_share_id(99 + i, fb[0], fb[1], i, dv, i * 3, want);
        CHECK_STREQ(got, want);
        for (int k = 0; k < 5; k++)
            fb[k][len[k]] = keep[k];
    }
}

/* dra__share_id_begin / _attempt: one input laid out, attempts in any order and repeated, each
 * the text dra__share_id and the documented input give; both sides of the stack buffer's end
 * and the streaming form; the fields are read at begin (a later change of the caller's
 * buffers that begin copied does not matter for the stack form) and the index kept. */
static void test_share_id_attempts(void)
{
    const char *dev[3] = {"gpu.example.com", "node-1", "gpu-3"};
    char got[37], want[37], one[37];
    static char big[800];
    memset(big, 'q', sizeof big - 1);
    /* inputs of 95 bytes, 768 (56 of lengths and numbers, 32 of the other fields and a name of
     * 680: the stack form's largest), 769 (streaming) and 887 */
    size_t names[4] = {7, 680, 681, 799};
    for (int k = 0; k < 4; k++) {
        big[names[k]] = 0;
        dra_claim_t c = {.namespace_ = "team-a", .name = k ? big : "infer-0"};
        dra__sid_t b;
        dra__share_id_begin(&b, 31 + (uint64_t)k, &c, 3, dev[0], dev[1], dev[2]);
        const uint32_t order[] = {5, 0, 1, 1, 40, 2, 0, 7, 6, 65536, 3};
        for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
            dra__share_id_attempt(&b, order[i], got);
            expected_share_id(31 + (uint64_t)k, "team-a", c.name, 3, dev, order[i], want);
            CHECK_STREQ(got, want);
            dra__share_id(31 + (uint64_t)k, &c, 3, dev[0], dev[1], dev[2], order[i], one);
            CHECK_STREQ(one, want);
        }
        big[names[k]] = 'q';
    }
}

int main(void)
{
    RUN(test_release_defaults);
    RUN(test_release_parse);
    RUN(test_release_locks);
    RUN(test_gate_parse);
    RUN(test_variants);
    RUN(test_tolerations);
    RUN(test_aq_from);
    RUN(test_capacity_default_policy);
    RUN(test_capacity_valid_range);
    RUN(test_capacity_valid_values);
    RUN(test_capacity_fits);
    RUN(test_share_id);
    RUN(test_share_id_attempts);
    return check_summary();
}
