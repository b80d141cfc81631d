/*
 * test_table.c - device table: row order and node ranges, every attribute kind, lists,
 * versions and ranks, fixed-point capacities with fractional and inexact values, padding
 * sentinels, alignment, the validator (it must catch corruption), digest stability, and the
 * bytes-per-device figure for a typical 8-GPU node, and re-encoding one republished slice.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bitset.h"
#include "check.h"
#include "table/table.h"
#include "table_testmodel.h"

#define AK(c, r) dra_table_attr_kind((c), (r))
#define AV(c, r) dra_table_attr_val((c), (r))
#define CU(c, r) ((c)->dunits[dra_table_cap_code((c), (r))])

static const char *rowname(const dra_table_t *t, uint32_t r)
{
    return dra_table_str(t, t->name[r]);
}

static void node(dra_model_t *m, const char *name)
{
    dra_node_t *n = dra_model_add_node(m);
    n->name = dra_model_str(m, name);
}

static void build_layout_model(dra_model_t *m)
{
    dra_model_init(m);
    node(m, "n2"); /* model order, not name order */
    node(m, "n1");
    node(m, "n-empty");
    dra_slice_t *s;
    /* n1: pools (d2,p1) slices "s-b" then "s-a", (d2,p0), (d1,p9) */
    s = tm_slice(m, "s-b", "d2.example.com", "p1", "n1", 2);
    tm_devname(m, s, 0, "b0");
    tm_devname(m, s, 1, "b1");
    dra_model_slice_done(m, s);
    s = tm_slice(m, "s-a", "d2.example.com", "p1", "n1", 1);
    tm_devname(m, s, 0, "a0");
    dra_model_slice_done(m, s);
    s = tm_slice(m, "s-c", "d2.example.com", "p0", "n1", 1);
    tm_devname(m, s, 0, "c0");
    dra_model_slice_done(m, s);
    s = tm_slice(m, "s-d", "d1.example.com", "p9", "n1", 1);
    tm_devname(m, s, 0, "d0");
    s->devices[0].allow_multiple_allocations = true;
    dra_model_slice_done(m, s);
    /* shared: allNodes slice, then a node-local slice of n2 */
    s = tm_slice(m, "net", "net.example.com", "fabric", NULL, 2);
    tm_devname(m, s, 0, "nic0");
    tm_devname(m, s, 1, "nic1");
    dra_model_slice_done(m, s);
    s = tm_slice(m, "s-n2", "d1.example.com", "p-n2", "n2", 1);
    tm_devname(m, s, 0, "x0");
    s->devices[0].ntaints = 1;
    s->devices[0].taints = dra_model_array(m, 1, sizeof(dra_taint_t));
    dra_model_slice_done(m, s);
    /* nodes only slices mention: sorted by name after the model's nodes */
    s = tm_slice(m, "s-z", "d1.example.com", "pz", "zz", 1);
    tm_devname(m, s, 0, "z0");
    dra_model_slice_done(m, s);
    s = tm_slice(m, "s-y", "d1.example.com", "py", "yy", 1);
    tm_devname(m, s, 0, "y0");
    dra_model_slice_done(m, s);
    /* per-device node selection goes to the shared range */
    s = tm_slice(m, "pd", "d1.example.com", "ppd", "n1", 1);
    s->per_device_node_selection = true;
    tm_devname(m, s, 0, "pd0");
    dra_model_slice_done(m, s);
}

static void test_layout(void)
{
    dra_model_t m;
    build_layout_model(&m);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    dra_diag_t diag = {0};
    CHECK_OK(dra_table_build(&m, &a, &t, &diag));
    if (!t)
        goto out;
    CHECK_OK(dra_table_check(t, &diag));
    CHECK_EQ_I64(t->nrows, 11);
    CHECK_EQ_I64(t->nrows_padded, 16);
    CHECK_EQ_I64(t->nnodes, 5);
    static const char *order[] = {"x0", "d0", "c0", "a0", "b0", "b1", "y0", "z0",
                                  "pd0", "nic0", "nic1"};
    for (uint32_t r = 0; r < 11; r++)
        CHECK_STREQ(rowname(t, r), order[r]);
    CHECK_STREQ(t->nodes[0].name, "n2");
    CHECK_EQ_I64(t->nodes[0].begin, 0);
    CHECK_EQ_I64(t->nodes[0].end, 1);
    CHECK_STREQ(t->nodes[1].name, "n1");
    CHECK_EQ_I64(t->nodes[1].begin, 1);
    CHECK_EQ_I64(t->nodes[1].end, 6);
    CHECK_STREQ(t->nodes[2].name, "n-empty");
    CHECK_EQ_I64(t->nodes[2].begin, 6);
    CHECK_EQ_I64(t->nodes[2].end, 6);
    CHECK_STREQ(t->nodes[3].name, "yy");
    CHECK_STREQ(t->nodes[4].name, "zz");
    CHECK_EQ_I64(t->shared_begin, 8);
    CHECK_EQ_I64(dra_table_node_index(t, "n1"), 1);
    CHECK_EQ_I64(dra_table_node_index(t, "zz"), 4);
    CHECK_EQ_U64(dra_table_node_index(t, "nope"), DRA_TABLE_NONE);
    /* pools sorted by (driver, pool): the pool index orders rows within a range */
    CHECK_STREQ(t->pools[0].driver, "d1.example.com");
    CHECK_STREQ(t->pools[0].name, "p-n2");
    CHECK(t->pool[1] < t->pool[2] && t->pool[2] < t->pool[3] && t->pool[3] == t->pool[4]);
    CHECK(t->pool[8] < t->pool[9]); /* ppd (d1) before fabric (net) in the shared range */
    for (uint32_t r = 0; r < t->nrows; r++) {
        CHECK(t->dev[r] != NULL);
        CHECK(t->dev[r]->slice == m.slices[t->slice[r]]);
        CHECK_EQ_I64(!!(t->flags[r] & DRA_ROW_SHARED), r >= 8);
    }
    CHECK(t->flags[1] & DRA_ROW_MULTI_ALLOC);
    CHECK(t->flags[0] & DRA_ROW_TAINTED);
    CHECK(!(t->flags[2] & (DRA_ROW_TAINTED | DRA_ROW_MULTI_ALLOC)));
    /* padding sentinels */
    for (uint32_t r = 11; r < 16; r++) {
        CHECK_EQ_U64(t->node[r], DRA_TABLE_NONE);
        CHECK_EQ_U64(t->flags[r], DRA_ROW_PAD);
        CHECK(t->dev[r] == NULL);
    }
    CHECK(((uintptr_t)t->node & 63) == 0 && ((uintptr_t)t->flags & 63) == 0);
out:
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

static void build_attr_model(dra_model_t *m)
{
    dra_model_init(m);
    dra_slice_t *s = tm_slice(m, "s", "gpu.example.com", "p", "n", 6);
    for (uint32_t i = 0; i < 6; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "dev%u", i);
        tm_devname(m, s, i, nm);
    }
    tm_int(m, s, 0, "index", 0);
    tm_int(m, s, 1, "index", -7);
    tm_int(m, s, 2, "index", INT64_MAX);
    tm_bool(m, s, 0, "ok", true);
    tm_bool(m, s, 1, "ok", false);
    tm_str(m, s, 0, "model", "H100");
    tm_str(m, s, 1, "model", "A100");
    tm_str(m, s, 2, "model", "H100");
    tm_str(m, s, 3, "other.example.com/model", "H100"); /* a different qname */
    tm_ver(m, s, 0, "driverVersion", "1.0.0");
    tm_ver(m, s, 1, "driverVersion", "1.0.0+build.7"); /* same precedence as 1.0.0 */
    tm_ver(m, s, 2, "driverVersion", "1.10.0");
    tm_ver(m, s, 3, "driverVersion", "1.9.0");
    tm_ver(m, s, 4, "driverVersion", "1.0.0-rc.1");
    tm_ver(m, s, 5, "driverVersion", "v1.0"); /* does not parse */
    int64_t iv[] = {1, 2, 3};
    tm_ints(m, s, 0, "numas", iv, 3);
    const char *sv[] = {"a", "H100"};
    tm_strs(m, s, 1, "numas", DRA_ATTR_STRINGS, sv, 2); /* mixed list kinds in one column */
    const char *vv[] = {"2.0.0", "1.9.0"};
    tm_strs(m, s, 2, "vers", DRA_ATTR_VERSIONS, vv, 2);
    bool bv[] = {true, false};
    tm_bools(m, s, 3, "bools", bv, 2);
    /* a column whose kind differs per device */
    tm_int(m, s, 4, "mixed", 5);
    tm_str(m, s, 5, "mixed", "five");
    dra_model_slice_done(m, s);
}

static void test_attrs(void)
{
    dra_model_t m;
    build_attr_model(&m);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    dra_diag_t diag = {0};
    CHECK_OK(dra_table_build(&m, &a, &t, &diag));
    if (!t)
        goto out;
    CHECK_MSG(dra_table_check(t, &diag) == DRA_OK, "%s", diag.msg);
    const char *q = "gpu.example.com/index";
    const dra_table_attr_t *c = dra_table_attr_by_name(t, q, strlen(q));
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_U64(c->kinds, 1u << DRA_ATTR_INT);
        CHECK_EQ_I64(c->npresent, 3);
        CHECK_EQ_I64(AV(c, 1), -7);
        CHECK_EQ_I64(AV(c, 2), INT64_MAX);
        CHECK_EQ_I64(AK(c, 1), DRA_ATTR_INT);
        CHECK_EQ_I64(AK(c, 3), DRA_ATTR_NONE);
        CHECK_EQ_I64(dra_table_attr_code(c, 3), 0);
        CHECK(dra_bit_get(c->present, 2) && !dra_bit_get(c->present, 3));
        CHECK(((uintptr_t)c->code & 63) == 0 && c->width == 1);
        /* dictionary ascending by value: -7 < ... < INT64_MAX */
        CHECK(dra_table_attr_code(c, 1) < dra_table_attr_code(c, 2));
    }
    q = "gpu.example.com/ok";
    c = dra_table_attr_by_name(t, q, strlen(q));
    CHECK(c && AV(c, 0) == 1 && AV(c, 1) == 0 && AK(c, 1) == DRA_ATTR_BOOL && c->ndict == 2);
    q = "gpu.example.com/model";
    c = dra_table_attr_by_name(t, q, strlen(q));
    uint32_t h100 = dra_table_str_find(t, "H100", 4);
    CHECK(h100 != 0);
    CHECK_EQ_I64(dra_table_str_find(t, "B200", 4), 0);
    CHECK(c && AV(c, 0) == h100 && AV(c, 2) == h100 && AV(c, 1) != h100 && AV(c, 3) == 0);
    /* rows with the same value share one dictionary entry */
    CHECK(c && dra_table_attr_same(c, 0, 2) && !dra_table_attr_same(c, 0, 1));
    q = "other.example.com/model";
    CHECK(dra_table_attr_by_name(t, q, strlen(q)) != c);
    /* versions: 1.0.0-rc.1 < 1.0.0 == 1.0.0+build.7 < 1.9.0 < 1.10.0 < 2.0.0 */
    q = "gpu.example.com/driverVersion";
    c = dra_table_attr_by_name(t, q, strlen(q));
    CHECK_EQ_I64(t->nvers, 5);
    if (c) {
        CHECK_EQ_I64(AV(c, 4), 1);
        CHECK_EQ_I64(AV(c, 0), 2);
        CHECK_EQ_I64(AV(c, 1), 2);
        CHECK_EQ_I64(AV(c, 3), 3);
        CHECK_EQ_I64(AV(c, 2), 4);
        CHECK_EQ_I64(AV(c, 5), 0);
        /* 1.0.0 and 1.0.0+build.7 have equal precedence: one entry */
        CHECK(dra_table_attr_same(c, 0, 1));
    }
    CHECK(t->flags[5] & DRA_ROW_BAD_VERSION);
    CHECK(!(t->flags[4] & DRA_ROW_BAD_VERSION));
    CHECK_EQ_I64(t->nbad_version_rows, 1);
    dra_semver_t v;
    uint32_t rank;
    bool exact;
    CHECK_OK(dra_semver_parse("1.5.0", 5, false, &v, NULL));
    dra_table_version_locate(t, &v, &rank, &exact);
    CHECK(rank == 2 && !exact);
    CHECK_OK(dra_semver_parse("1.9.0+x", 7, false, &v, NULL));
    dra_table_version_locate(t, &v, &rank, &exact);
    CHECK(rank == 3 && exact);
    CHECK_OK(dra_semver_parse("0.1.0", 5, false, &v, NULL));
    dra_table_version_locate(t, &v, &rank, &exact);
    CHECK(rank == 0 && !exact);
    /* lists */
    q = "gpu.example.com/numas";
    c = dra_table_attr_by_name(t, q, strlen(q));
    CHECK(c && AK(c, 0) == DRA_ATTR_INTS && AK(c, 1) == DRA_ATTR_STRINGS);
    if (c) {
        const dra_table_list_t *l = &c->lists[AV(c, 0)];
        CHECK(l->len == 3 && c->lvals[l->off + 2] == 3);
        l = &c->lists[AV(c, 1)];
        CHECK(l->len == 2 && c->lvals[l->off + 1] == h100);
    }
    q = "gpu.example.com/vers";
    c = dra_table_attr_by_name(t, q, strlen(q));
    if (c) {
        const dra_table_list_t *l = &c->lists[AV(c, 2)];
        CHECK(l->len == 2 && c->lvals[l->off] == 5 && c->lvals[l->off + 1] == 3);
    }
    q = "gpu.example.com/mixed";
    c = dra_table_attr_by_name(t, q, strlen(q));
    CHECK(c && c->kinds == ((1u << DRA_ATTR_INT) | (1u << DRA_ATTR_STRING)));
out:
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

static void test_caps(void)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_slice_t *s = tm_slice(&m, "s", "gpu.example.com", "p", "n", 4);
    for (uint32_t i = 0; i < 4; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "g%u", i);
        tm_devname(&m, s, i, nm);
    }
    CHECK_OK(tm_cap(&m, s, 0, "memory", "80Gi"));
    CHECK_OK(tm_cap(&m, s, 1, "memory", "40Gi"));
    CHECK_OK(tm_cap(&m, s, 2, "memory", "1.5Gi"));
    CHECK_OK(tm_cap(&m, s, 0, "cores", "500m")); /* fractional: scale -3 */
    CHECK_OK(tm_cap(&m, s, 1, "cores", "2"));
    CHECK_OK(tm_cap(&m, s, 0, "mixed", "1n")); /* needs scale -9 */
    CHECK_OK(tm_cap(&m, s, 1, "mixed", "9Ei")); /* too large at -9 */
    CHECK_OK(tm_cap(&m, s, 2, "mixed", "5"));
    dra_model_slice_done(&m, s);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    dra_diag_t diag = {0};
    CHECK_OK(dra_table_build(&m, &a, &t, &diag));
    if (!t)
        goto out;
    CHECK_MSG(dra_table_check(t, &diag) == DRA_OK, "%s", diag.msg);
    const char *q = "gpu.example.com/memory";
    const dra_table_cap_t *c = dra_table_cap_by_name(t, q, strlen(q));
    CHECK(c && c->scale == 0 && c->ninexact == 0 && c->npresent == 3);
    if (c) {
        CHECK_EQ_I64(CU(c, 0), 80LL << 30);
        CHECK_EQ_I64(CU(c, 2), 1610612736LL);
        /* ascending: 1.5Gi < 40Gi < 80Gi */
        CHECK(c->ndict == 3 && dra_table_cap_code(c, 2) == 1 && dra_table_cap_code(c, 0) == 3);
        CHECK(!dra_bit_get(c->present, 3));
    }
    q = "gpu.example.com/cores";
    c = dra_table_cap_by_name(t, q, strlen(q));
    CHECK(c && c->scale == -3);
    if (c)
        CHECK(CU(c, 0) == 500 && CU(c, 1) == 2000);
    q = "gpu.example.com/mixed";
    c = dra_table_cap_by_name(t, q, strlen(q));
    CHECK(c && c->ninexact == 1);
    if (c) {
        /* scale 0 keeps two of three exact (9Ei, 5); 1n is the inexact row */
        CHECK_EQ_I64(c->scale, 0);
        CHECK(dra_bit_get(c->dinexact, dra_table_cap_code(c, 0)));
        CHECK(!dra_bit_get(c->dinexact, dra_table_cap_code(c, 1)));
        CHECK_EQ_I64(CU(c, 2), 5);
        /* ascending by exact value: 1n (inexact) < 5 < 9Ei */
        CHECK(dra_table_cap_code(c, 0) == 1 && dra_table_cap_code(c, 2) == 2 &&
              dra_table_cap_code(c, 1) == 3);
    }
out:
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

static void test_digest_and_check(void)
{
    dra_model_t m1, m2;
    build_attr_model(&m1);
    dra_arena_t pad;
    dra_arena_init(&pad, 0);
    void *junk = dra_arena_alloc(&pad, 12345, 8); /* different addresses for the second model */
    (void)junk;
    build_attr_model(&m2);
    dra_arena_t a1, a2;
    dra_arena_init(&a1, 0);
    dra_arena_init(&a2, 4096);
    dra_table_t *t1 = NULL, *t2 = NULL, *t3 = NULL;
    CHECK_OK(dra_table_build(&m1, &a1, &t1, NULL));
    CHECK_OK(dra_table_build(&m2, &a2, &t2, NULL));
    CHECK_OK(dra_table_build(&m1, &a2, &t3, NULL));
    if (!t1 || !t2 || !t3)
        goto out;
    uint64_t d1 = dra_table_digest(t1);
    CHECK_EQ_U64(d1, dra_table_digest(t2));
    CHECK_EQ_U64(d1, dra_table_digest(t3));
    /* a changed value changes the digest */
    m2.slices[0]->devices[3].attrs[0].v.s = "A100";
    dra_table_t *t4 = NULL;
    CHECK_OK(dra_table_build(&m2, &a2, &t4, NULL));
    if (t4)
        CHECK(dra_table_digest(t4) != d1);
    /* the validator catches corruption (then restore) */
    dra_diag_t diag = {0};
    CHECK_OK(dra_table_check(t1, &diag));
    dra_table_attr_t *c = &t1->attrs[0];
    dra_table_code_set(c->code, c->width, t1->nrows_padded - 1, 1); /* a padding row with a value */
    CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
    dra_table_code_set(c->code, c->width, t1->nrows_padded - 1, 0);
    c->dval[1]++; /* a dictionary value no longer the model's */
    CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
    c->dval[1]--;
    c->ndict++; /* an entry no row uses */
    CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
    c->ndict--;
    t1->nodes[0].end++;
    CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
    t1->nodes[0].end--;
    uint32_t keep = t1->name[0];
    t1->name[0] = t1->name[1];
    CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
    t1->name[0] = keep;
    const char *q = "gpu.example.com/driverVersion";
    dra_table_attr_t *vc = (dra_table_attr_t *)dra_table_attr_by_name(t1, q, strlen(q));
    if (vc) {
        uint32_t e = dra_table_attr_code(vc, 2);
        vc->dval[e]--; /* 1.10.0 given the rank of 1.9.0 */
        CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
        vc->dval[e]++;
        uint32_t e0 = dra_table_attr_code(vc, 0), e3 = dra_table_attr_code(vc, 3);
        dra_table_code_set(vc->code, vc->width, 0, e3); /* row 0 pointing at another entry */
        CHECK_EQ_I64(dra_table_check(t1, &diag), DRA_EVALIDATE);
        dra_table_code_set(vc->code, vc->width, 0, e0);
    }
    CHECK_OK(dra_table_check(t1, &diag));
out:
    dra_arena_fini(&a1);
    dra_arena_fini(&a2);
    dra_arena_fini(&pad);
    dra_model_fini(&m1);
    dra_model_fini(&m2);
}

/* A DGX-class node as the NVIDIA driver publishes it (attribute names from the real manifests). */
static void test_bytes_per_device(void)
{
    dra_model_t m;
    dra_model_init(&m);
    const uint32_t nnodes = 64;
    for (uint32_t n = 0; n < nnodes; n++) {
        char nn[32], sn[48];
        snprintf(nn, sizeof nn, "node-%u", n);
        snprintf(sn, sizeof sn, "node-%u-gpu", n);
        dra_slice_t *s = tm_slice(&m, sn, "gpu.nvidia.com", nn, nn, 8);
        for (uint32_t i = 0; i < 8; i++) {
            char dn[16], uuid[48], bus[32];
            snprintf(dn, sizeof dn, "gpu-%u", i);
            snprintf(uuid, sizeof uuid, "GPU-%08x-1111-2222-3333-%012u", n, i);
            snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + i * 16);
            tm_devname(&m, s, i, dn);
            tm_str(&m, s, i, "type", "gpu");
            tm_int(&m, s, i, "index", i);
            tm_int(&m, s, i, "minor", i);
            tm_str(&m, s, i, "uuid", uuid);
            tm_str(&m, s, i, "productName", "NVIDIA H100 80GB HBM3");
            tm_str(&m, s, i, "brand", "Nvidia");
            tm_str(&m, s, i, "architecture", "Hopper");
            tm_ver(&m, s, i, "cudaComputeCapability", "9.0.0");
            tm_ver(&m, s, i, "driverVersion", "550.54.15");
            tm_ver(&m, s, i, "cudaDriverVersion", "12.4.0");
            tm_str(&m, s, i, "pcieBusID", bus);
            tm_str(&m, s, i, "resource.kubernetes.io/pcieRoot", "pci0000:10");
            tm_bool(&m, s, i, "addressingMode", false);
            CHECK_OK(tm_cap(&m, s, i, "memory", "80Gi"));
        }
        dra_model_slice_done(&m, s);
    }
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    CHECK_OK(dra_table_build(&m, &a, &t, NULL));
    if (t) {
        double per = (double)t->bytes / t->nrows;
        printf("bytes per device (8-GPU H100 nodes, %u attributes, %u capacity): %.1f\n",
               t->nattrs, t->ncaps, per);
        CHECK(per <= 200.0);
        CHECK_OK(dra_table_check(t, NULL));
    }
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

static void test_empty(void)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    CHECK_OK(dra_table_build(&m, &a, &t, NULL));
    CHECK(t && t->nrows == 0 && t->nrows_padded == 0 && t->nattrs == 0);
    if (t) {
        CHECK_OK(dra_table_check(t, NULL));
        CHECK(dra_table_attr_by_name(t, "a/b", 3) == NULL);
    }
    CHECK_EQ_I64(dra_table_build(NULL, &a, &t, NULL), DRA_EINVAL);
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

/* Dictionary encoding: code widths follow the dictionary size (1, 2, 4 bytes), equal lists
 * share an entry (a list of ints and a list of strings never do), equal capacities written
 * differently share an entry, and the digest is the same whatever the width. */
static void test_dictionary(void)
{
    static const uint32_t sizes[] = {255, 256, 65535, 65536};
    static const uint8_t widths[] = {1, 2, 2, 4};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        dra_model_t m;
        dra_model_init(&m);
        uint32_t n = sizes[k] + 3; /* three repeats of value 0 */
        dra_slice_t *s = tm_slice(&m, "s", "gpu.example.com", "p", "n", n);
        for (uint32_t i = 0; i < n; i++) {
            char nm[16];
            snprintf(nm, sizeof nm, "g%u", i);
            tm_devname(&m, s, i, nm);
            tm_int(&m, s, i, "v", i < sizes[k] ? (int64_t)sizes[k] - 1 - i : 0);
        }
        dra_model_slice_done(&m, s);
        dra_arena_t a;
        dra_arena_init(&a, 0);
        dra_table_t *t = NULL;
        CHECK_OK(dra_table_build(&m, &a, &t, NULL));
        const dra_table_attr_t *c = t ? dra_table_attr_by_name(t, "gpu.example.com/v", 17) : NULL;
        CHECK(c != NULL);
        if (c) {
            CHECK_EQ_I64(c->ndict, sizes[k]);
            CHECK_EQ_I64(c->width, widths[k]);
            /* value v has code v + 1 (ascending), whatever the row order */
            CHECK_EQ_I64(dra_table_attr_code(c, 0), sizes[k]);
            CHECK_EQ_I64(dra_table_attr_code(c, n - 1), 1);
            CHECK_EQ_I64(AV(c, 0), (int64_t)sizes[k] - 1);
            CHECK(dra_table_attr_same(c, n - 1, n - 2));
            CHECK_OK(dra_table_check(t, NULL));
        }
        dra_arena_fini(&a);
        dra_model_fini(&m);
    }
    dra_model_t m;
    dra_model_init(&m);
    dra_slice_t *s = tm_slice(&m, "s", "gpu.example.com", "p", "n", 4);
    static const int64_t ones[] = {1, 1};
    const char *strs[] = {"x", "y"};
    for (uint32_t i = 0; i < 4; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "g%u", i);
        tm_devname(&m, s, i, nm);
        if (i < 3)
            tm_ints(&m, s, i, "l", ones, 2);
        else
            tm_strs(&m, s, i, "l", DRA_ATTR_STRINGS, strs, 2);
    }
    CHECK_OK(tm_cap(&m, s, 0, "memory", "1Gi"));
    CHECK_OK(tm_cap(&m, s, 1, "memory", "1024Mi"));
    CHECK_OK(tm_cap(&m, s, 2, "memory", "2Gi"));
    dra_model_slice_done(&m, s);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    CHECK_OK(dra_table_build(&m, &a, &t, NULL));
    if (t) {
        CHECK_OK(dra_table_check(t, NULL));
        const dra_table_attr_t *c = dra_table_attr_by_name(t, "gpu.example.com/l", 17);
        CHECK(c && c->ndict == 2 && c->nlists == 3 && c->nlvals == 4);
        CHECK(c && dra_table_attr_same(c, 0, 2) && !dra_table_attr_same(c, 0, 3));
        const dra_table_cap_t *q = dra_table_cap_by_name(t, "gpu.example.com/memory", 22);
        CHECK(q && q->ndict == 2 && dra_table_cap_code(q, 0) == dra_table_cap_code(q, 1));
        CHECK(q && dra_table_cap_code(q, 3) == 0 && q->dq[0] == NULL);
    }
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

/* dra_table_update_slice: re-encoded rows equal a fresh build (digest, check); dictionaries
 * grow by appended entries; what cannot be incremental is refused and changes nothing. */
static void upd_expect_fresh(const dra_model_t *m, const dra_table_t *t, const char *what)
{
    dra_diag_t d = {0};
    CHECK_MSG(dra_table_check(t, &d) == DRA_OK, "%s: %s", what, d.msg);
    dra_arena_t a2;
    dra_arena_init(&a2, 0);
    dra_table_t *t2 = NULL;
    CHECK_OK(dra_table_build(m, &a2, &t2, &d));
    if (t2)
        CHECK_MSG(dra_table_digest(t2) == dra_table_digest(t), "%s: differs from a fresh table",
                  what);
    dra_arena_fini(&a2);
}

static void test_update_slice(void)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_slice_t *s = tm_slice(&m, "s", "gpu.example.com", "p", "n", 3);
    static const int64_t l12[] = {1, 2};
    for (uint32_t i = 0; i < 3; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "g%u", i);
        tm_devname(&m, s, i, nm);
        tm_ver(&m, s, i, "driver", i == 1 ? "2.0.0" : "1.0.0");
        tm_str(&m, s, i, "model", i == 1 ? "b" : "a");
        tm_ints(&m, s, i, "links", l12, 2);
        CHECK_OK(tm_cap(&m, s, i, "memory", i == 1 ? "40Gi" : "80Gi"));
    }
    dra_model_slice_done(&m, s);
    /* 255 distinct values fill a one-byte column */
    dra_slice_t *w = tm_slice(&m, "w", "gpu.example.com", "pw", "n2", 255);
    for (uint32_t i = 0; i < 255; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "w%u", i);
        tm_devname(&m, w, i, nm);
        tm_int(&m, w, i, "slot", i);
    }
    dra_model_slice_done(&m, w);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_table_t *t = NULL;
    dra_diag_t d = {0};
    CHECK_OK(dra_table_build(&m, &a, &t, &d));
    if (!t)
        goto out;
    dra_device_t devs[3];
    dra_attr_t at[4];
    dra_capacity_t cp[1];
    const char *q = "gpu.example.com/driver";
    const dra_table_attr_t *ver = dra_table_attr_by_name(t, q, strlen(q));
    q = "gpu.example.com/model";
    const dra_table_attr_t *mod = dra_table_attr_by_name(t, q, strlen(q));
    q = "gpu.example.com/memory";
    const dra_table_cap_t *mem = dra_table_cap_by_name(t, q, strlen(q));
    CHECK(ver && mod && mem);
    if (!ver || !mod || !mem)
        goto out;
    uint32_t r0 = t->slice_first[0];
    /* 1. a version of an existing precedence (build metadata): same code as 2.0.0 */
    memcpy(devs, s->devices, sizeof devs);
    memcpy(at, devs[0].attrs, 3 * sizeof *at);
    at[0].v.s = "2.0.0+b1";
    devs[0].attrs = at;
    CHECK_OK(dra_model_slice_update(&m, 0, devs, 3, &d));
    CHECK_MSG(dra_table_update_slice(t, &a, 0, &d) == DRA_OK, "%s", d.msg);
    CHECK_EQ_U64(dra_table_attr_code(ver, r0), dra_table_attr_code(ver, r0 + 1));
    upd_expect_fresh(&m, t, "version of a known precedence");
    /* 2. a new string and a new capacity value: appended entries, a new table string */
    uint32_t nstrs = t->nstrs, nmod = mod->ndict, nmem = mem->ndict;
    memcpy(devs, s->devices, sizeof devs);
    memcpy(at, devs[2].attrs, 3 * sizeof *at);
    at[1].v.s = "brand-new";
    devs[2].attrs = at;
    cp[0] = devs[2].caps[0];
    CHECK_OK(dra_quantity_parse("1Gi", 3, &cp[0].value, NULL));
    devs[2].caps = cp;
    CHECK_OK(dra_model_slice_update(&m, 0, devs, 3, &d));
    CHECK_MSG(dra_table_update_slice(t, &a, 0, &d) == DRA_OK, "%s", d.msg);
    CHECK_EQ_U64(t->nstrs, nstrs + 1);
    CHECK_EQ_U64(mod->ndict, nmod + 1);
    CHECK_EQ_U64(mem->ndict, nmem + 1);
    CHECK_EQ_U64(dra_table_attr_code(mod, r0 + 2), mod->ndict);
    CHECK_EQ_I64(CU(mem, r0 + 2), 1LL << 30);
    CHECK(mod->nsorted == nmod && t->nupdates == 2);
    upd_expect_fresh(&m, t, "appended entries");
    /* 3. not incremental: the table stays as it was */
    uint64_t dg = dra_table_digest(t);
    memcpy(devs, s->devices, sizeof devs);
    memcpy(at, devs[0].attrs, 3 * sizeof *at);
    at[0].v.s = "3.0.0"; /* a precedence no row has: ranks would shift */
    devs[0].attrs = at;
    CHECK_OK(dra_model_slice_update(&m, 0, devs, 3, &d));
    CHECK_EQ_I64(dra_table_update_slice(t, &a, 0, &d), DRA_EUNSUPPORTED);
    CHECK_MSG(strstr(d.msg, "attribute gpu.example.com/driver") != NULL, "%s", d.msg);
    CHECK_EQ_U64(dra_table_digest(t), dg);
    static const int64_t l21[] = {2, 1};
    memcpy(at, s->devices[0].attrs, 3 * sizeof *at);
    at[0].v.s = "1.0.0";
    at[2].v.ints = l21; /* a list no row holds */
    devs[0].attrs = at;
    CHECK_OK(dra_model_slice_update(&m, 0, devs, 3, &d));
    CHECK_EQ_I64(dra_table_update_slice(t, &a, 0, &d), DRA_EUNSUPPORTED);
    at[2].v.ints = l12; /* back to a list the table has: fine again */
    CHECK_OK(dra_model_slice_update(&m, 0, devs, 3, &d));
    CHECK_MSG(dra_table_update_slice(t, &a, 0, &d) == DRA_OK, "%s", d.msg);
    upd_expect_fresh(&m, t, "list restored");
    /* a 256th value in a one-byte column */
    dra_device_t wd = w->devices[0];
    dra_attr_t wa = wd.attrs[0];
    wa.v.i = 999;
    wd.attrs = &wa;
    dra_device_t wdevs[255];
    memcpy(wdevs, w->devices, sizeof wdevs);
    wdevs[0] = wd;
    dg = dra_table_digest(t);
    CHECK_OK(dra_model_slice_update(&m, 1, wdevs, 255, &d));
    CHECK_EQ_I64(dra_table_update_slice(t, &a, 1, &d), DRA_EUNSUPPORTED);
    CHECK_MSG(strstr(d.msg, "outgrow the column's 1-byte codes") != NULL, "%s", d.msg);
    CHECK_EQ_U64(dra_table_digest(t), dg);
out:
    dra_arena_fini(&a);
    dra_model_fini(&m);
}

int main(void)
{
    RUN(test_layout);
    RUN(test_attrs);
    RUN(test_caps);
    RUN(test_digest_and_check);
    RUN(test_dictionary);
    RUN(test_bytes_per_device);
    RUN(test_empty);
    RUN(test_update_slice);
    return check_summary();
}
