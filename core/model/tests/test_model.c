/* test_model.c - model containers, qualified names, lookups, implied nodes and the digest. */
#include <string.h>

#include "check.h"
#include "model/model.h"

static dra_slice_t *mk_slice(dra_model_t *m, const char *node, const char *driver, int ndev)
{
    dra_slice_t *s = dra_model_add_slice(m);
    s->name = dra_model_str(m, node);
    s->driver = dra_model_str(m, driver);
    s->pool_name = s->name;
    s->generation = 1;
    s->slice_count = 1;
    s->node_name = s->name;
    s->devices = dra_model_array(m, (size_t)ndev, sizeof(dra_device_t));
    s->ndevices = (uint32_t)ndev;
    for (int i = 0; i < ndev; i++) {
        char name[16];
        snprintf(name, sizeof name, "gpu-%d", i);
        dra_device_t *d = &s->devices[i];
        d->name = dra_model_str(m, name);
        d->attrs = dra_model_array(m, 2, sizeof(dra_attr_t));
        d->nattrs = 2;
        d->attrs[0].name = dra_model_str(m, "index");
        d->attrs[0].qname = dra_model_qname(m, driver, "index");
        d->attrs[0].kind = DRA_ATTR_INT;
        d->attrs[0].count = 1;
        d->attrs[0].v.i = i;
        d->attrs[1].name = dra_model_str(m, "resource.kubernetes.io/pcieRoot");
        d->attrs[1].qname = dra_model_qname(m, driver, d->attrs[1].name);
        d->attrs[1].kind = DRA_ATTR_STRING;
        d->attrs[1].count = 1;
        d->attrs[1].v.s = dra_model_str(m, i < 2 ? "pci0" : "pci1");
    }
    dra_model_slice_done(m, s);
    return s;
}

static void test_qname(void)
{
    dra_model_t m;
    dra_model_init(&m);
    uint32_t a = dra_model_qname(&m, "gpu.example.com", "numa");
    uint32_t b = dra_model_qname(&m, "other.example.com", "gpu.example.com/numa");
    uint32_t c = dra_model_qname(&m, "gpu.example.com", "gpu.example.com/numa");
    uint32_t d = dra_model_qname(&m, "other.example.com", "numa");
    CHECK(a != 0);
    CHECK_EQ_U64(a, b);
    CHECK_EQ_U64(a, c);
    CHECK(a != d);
    CHECK_STREQ(dra_intern_str(&m.intern, a), "gpu.example.com/numa");
    const char *dom, *id;
    size_t dl;
    dra_model_split_name("resource.kubernetes.io/pcieRoot", &dom, &dl, &id);
    CHECK_EQ_U64(dl, strlen("resource.kubernetes.io"));
    CHECK_STREQ(id, "pcieRoot");
    dra_model_split_name("numa", &dom, &dl, &id);
    CHECK(dom == NULL);
    CHECK_STREQ(id, "numa");
    dra_model_fini(&m);
}

static void test_slices_and_lookup(void)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_slice_t *s = mk_slice(&m, "node-1", "gpu.example.com", 4);
    mk_slice(&m, "node-2", "gpu.example.com", 2);
    CHECK_EQ_U64(m.ndevices, 6);
    CHECK(s->devices[3].slice == s);
    CHECK_EQ_U64(s->devices[3].index, 3);
    uint32_t q = dra_model_qname(&m, "gpu.example.com", "index");
    const dra_attr_t *a = dra_device_attr(&s->devices[3], q);
    CHECK(a && a->v.i == 3);
    CHECK(dra_device_attr(&s->devices[3], 0) == NULL);
    CHECK_OK(dra_model_imply_nodes(&m));
    CHECK_EQ_U64(m.nnodes, 2);
    CHECK(dra_model_find_node(&m, "node-2") && dra_model_find_node(&m, "node-2")->implied);
    /* implying twice adds nothing */
    CHECK_OK(dra_model_imply_nodes(&m));
    CHECK_EQ_U64(m.nnodes, 2);
    dra_claim_t *c = dra_model_add_claim(&m);
    c->name = "c1";
    dra_claim_t *t = dra_model_add_template(&m);
    t->name = "t1";
    t->namespace_ = "ns";
    CHECK(dra_model_find_claim(&m, NULL, "c1") == c);
    CHECK(dra_model_find_claim(&m, "default", "c1") == c);
    CHECK(dra_model_find_claim(&m, "other", "c1") == NULL);
    CHECK(dra_model_find_template(&m, "ns", "t1") == t && t->is_template);
    dra_model_fini(&m);
}

static void test_many_objects(void)
{
    dra_model_t m;
    dra_model_init(&m);
    for (int i = 0; i < 1000; i++) {
        char n[32];
        snprintf(n, sizeof n, "node-%d", i);
        mk_slice(&m, n, "gpu.example.com", 8);
    }
    CHECK_EQ_U64(m.nslices, 1000);
    CHECK_EQ_U64(m.ndevices, 8000);
    CHECK_STREQ(m.slices[999]->name, "node-999");
    dra_model_fini(&m);
}

static uint64_t digest_of(int variant)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_slice_t *s = mk_slice(&m, "node-1", "gpu.example.com", 3);
    if (variant == 1) { /* attribute order swapped: same digest (maps are unordered) */
        for (uint32_t i = 0; i < s->ndevices; i++) {
            dra_attr_t tmp = s->devices[i].attrs[0];
            s->devices[i].attrs[0] = s->devices[i].attrs[1];
            s->devices[i].attrs[1] = tmp;
        }
    }
    if (variant == 2) /* a value changed: different digest */
        s->devices[1].attrs[0].v.i = 42;
    if (variant == 3) /* absent vs empty string differ */
        s->devices[0].node_name = "";
    if (variant == 4) { /* an implied node does not change the digest */
        if (dra_model_imply_nodes(&m) != DRA_OK)
            return 0;
    }
    uint64_t d = dra_model_digest(&m);
    dra_model_fini(&m);
    return d;
}

static void test_digest(void)
{
    uint64_t base = digest_of(0);
    CHECK(base != 0);
    CHECK_EQ_U64(digest_of(0), base);
    CHECK_EQ_U64(digest_of(1), base);
    CHECK(digest_of(2) != base);
    CHECK(digest_of(3) != base);
    CHECK_EQ_U64(digest_of(4), base);
}

static void test_uid(void)
{
    /* models built one after another at the same address must be told apart by caches */
    uint64_t prev = 0;
    for (int i = 0; i < 3; i++) {
        dra_model_t m;
        dra_model_init(&m);
        CHECK(m.uid != 0);
        CHECK(m.uid != prev);
        prev = m.uid;
        dra_model_fini(&m);
    }
}

/* dra_model_slice_done records whether every version attribute parses (CEL then skips the
 * per-evaluation check); one bad version anywhere in the slice, or in a list, clears it. */
static void test_versions_valid(void)
{
    static const char *const good[] = {"1.2.3", "550.54.15", "1.0.0-rc.1+b"};
    static const char *const bad_list[] = {"1.2.3", "v1"};
    const char *singles[] = {"1.2.3", "01.2.3", "1.2", NULL};
    for (int variant = 0; variant < 5; variant++) {
        dra_model_t m;
        dra_model_init(&m);
        dra_slice_t *s = dra_model_add_slice(&m);
        s->driver = dra_model_str(&m, "gpu.example.com");
        s->devices = dra_model_array(&m, 2, sizeof(dra_device_t));
        s->ndevices = 2;
        for (int i = 0; i < 2; i++) {
            dra_device_t *d = &s->devices[i];
            d->name = i ? "b" : "a";
            d->attrs = dra_model_array(&m, 1, sizeof(dra_attr_t));
            d->nattrs = 1;
            dra_attr_t *a = &d->attrs[0];
            a->name = "v";
            a->qname = dra_model_qname(&m, s->driver, "v");
            if (variant == 4 || (variant == 3 && i == 1)) {
                a->kind = DRA_ATTR_VERSIONS;
                a->v.strs = variant == 4 ? good : bad_list;
                a->count = variant == 4 ? 3 : 2;
            } else {
                a->kind = DRA_ATTR_VERSION;
                a->count = 1;
                a->v.s = i == 0 ? "2.0.0" : singles[variant];
            }
        }
        dra_model_slice_done(&m, s);
        bool want = variant == 0 || variant == 4; /* "01.2.3", "1.2", NULL, "v1": strict rejects */
        CHECK_MSG(s->versions_valid == want, "variant %d: versions_valid %d", variant,
                  (int)s->versions_valid);
        dra_model_fini(&m);
    }
}

int main(void)
{
    RUN(test_versions_valid);
    RUN(test_uid);
    RUN(test_qname);
    RUN(test_slices_and_lookup);
    RUN(test_many_objects);
    RUN(test_digest);
    return check_summary();
}
