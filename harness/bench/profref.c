/* profref.c - the node profile and claim shape reference from the code; see profref.h. */
#include "profref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "cel/cel.h"
#include "gen/cluster.h"
#include "gen/profiles.h"
#include "gen/shapes.h"
#include "model/model.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* Does d pass every selector of cls? (A compile or runtime error: no.) */
static bool in_class(const dra_model_t *m, dra_cel_cache_t *cel, dra_arena_t *scratch,
                     const dra_device_class_t *cls, const dra_device_t *d)
{
    for (uint32_t i = 0; i < cls->nselectors; i++) {
        const dra_cel_prog_t *p = NULL;
        dra_diag_t dg;
        bool mt = false;
        if (!cls->selectors[i].cel || dra_cel_cache_get(cel, cls->selectors[i].cel, &p, &dg) ||
            dra_cel_eval_device(p, m, d, scratch, &mt, &dg) || !mt)
            return false;
    }
    return true;
}

/* Append s to JSON string array a unless it is there; false when a already holds max. */
static bool add_unique(json_t *a, const char *s, size_t max)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    if (!strcmp(json_string_value(v), s))
        return true;
    if (json_array_size(a) >= max)
        return false;
    json_array_append_new(a, json_string(s));
    return true;
}

/* The object of array a whose key "name" is name, appended (with count 0) when absent. */
static json_t *named(json_t *a, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    if (!strcmp(json_string_value(json_object_get(v, "name")), name))
        return v;
    v = json_pack("{s:s}", "name", name);
    json_array_append_new(a, v);
    return v;
}

static int cmp_name(const void *x, const void *y)
{
    const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
    return strcmp(json_string_value(json_object_get(a, "name")),
                  json_string_value(json_object_get(b, "name")));
}

/* Sort an array of objects by their "name". */
static void sort_named(json_t *a)
{
    size_t n = json_array_size(a);
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(a, i));
    qsort(v, n, sizeof *v, cmp_name);
    json_array_clear(a);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, v[i]);
    free(v);
}

static void describe_device(json_t *cls, const dra_model_t *m, const dra_device_t *d)
{
    char buf[256];
    json_t *attrs = json_object_get(cls, "attributes"), *caps = json_object_get(cls, "capacities");
    for (uint32_t a = 0; a < d->nattrs; a++) {
        const char *nm = dra_intern_str(&m->intern, d->attrs[a].qname);
        json_t *e = named(attrs, nm);
        if (!json_object_get(e, "kind")) {
            json_object_set_new(e, "kind",
                                json_string(dra_attr_kind_name((dra_attr_kind_t)d->attrs[a].kind)));
            json_object_set_new(e, "devices", json_integer(0));
            json_object_set_new(e, "examples", json_array());
        }
        json_object_set_new(e, "devices",
                            json_integer(json_integer_value(json_object_get(e, "devices")) + 1));
        add_unique(json_object_get(e, "examples"), dra_attr_format(&d->attrs[a], buf, sizeof buf),
                   4); /* a fourth only tells that there are more than three */
    }
    for (uint32_t c = 0; c < d->ncaps; c++) {
        const char *nm = dra_intern_str(&m->intern, d->caps[c].qname);
        json_t *e = named(caps, nm);
        if (!json_object_get(e, "example")) {
            dra_quantity_format(&d->caps[c].value, buf, sizeof buf);
            json_object_set_new(e, "example", json_string(buf));
        }
    }
    if (d->nconsumes)
        json_object_set_new(cls, "consumes_counters", json_true());
    if (d->allow_multiple_allocations)
        json_object_set_new(cls, "multi_allocatable", json_true());
}

/* One profile, built as one node (one pool) with its default parameters. */
static int profile_json(dra_gen_profile_t p, dra_cel_cache_t *cel, json_t **out, dra_diag_t *diag)
{
    const dra_gen_profile_info_t *pi = dra_gen_profile_info(p);
    dra_model_t m;
    dra_model_init(&m);
    dra_arena_t scratch;
    dra_arena_init(&scratch, 16 * 1024);
    dra_gen_group_t g;
    memset(&g, 0, sizeof g);
    g.profile = p;
    g.count = 1;
    dra_gen_params_default(p, &g.params);
    dra_gen_cluster_spec_t spec = {&g, 1};
    int rc = dra_gen_cluster_build(&m, &spec, 1, NULL, diag);
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:b}", "name", pi->name, "summary", pi->summary,
                          "driver", pi->driver ? json_string(pi->driver) : json_null(), "source",
                          pi->source ? json_string(pi->source) : json_null(), "per_node",
                          pi->per_node);
    json_t *drivers = json_array(), *classes = json_array(), *other = json_array(),
           *migs = json_array(), *model_migs = json_array();
    if (!o || !drivers || !classes || !other || !migs || !model_migs) {
        json_decref(drivers), json_decref(classes), json_decref(other), json_decref(migs);
        json_decref(model_migs);
        rc = rc ? rc : DRA_ENOMEM;
    }
    uint32_t nsets = 0;
    const dra_counter_set_t *first = NULL, *last = NULL;
    uint32_t mig_prof = dra_intern_find(&m.intern, "gpu.nvidia.com/profile", 22);
    for (uint32_t si = 0; !rc && si < m.nslices; si++) {
        const dra_slice_t *sl = m.slices[si];
        add_unique(drivers, nz(sl->driver), 64);
        for (uint32_t k = 0; k < sl->ncounter_sets; k++, nsets++) {
            if (!first)
                first = &sl->counter_sets[k];
            last = &sl->counter_sets[k];
        }
        for (uint32_t di = 0; di < sl->ndevices; di++) {
            const dra_device_t *d = &sl->devices[di];
            json_t *cls = NULL;
            for (uint32_t c = 0; c < m.nclasses && !cls; c++) {
                if (!in_class(&m, cel, &scratch, m.classes[c], d))
                    continue;
                size_t i;
                json_t *v;
                json_array_foreach(classes, i, v)
                if (!strcmp(json_string_value(json_object_get(v, "class")), m.classes[c]->name))
                    cls = v;
                if (!cls) {
                    cls = json_pack("{s:s, s:s, s:i, s:b, s:b, s:[], s:[]}", "class",
                                    m.classes[c]->name, "driver", nz(sl->driver), "devices", 0,
                                    "consumes_counters", 0, "multi_allocatable", 0, "attributes",
                                    "capacities");
                    json_array_append_new(classes, cls);
                }
                if (mig_prof && strstr(m.classes[c]->name, "mig")) {
                    const dra_attr_t *pa = dra_device_attr(d, mig_prof);
                    if (pa && pa->kind == DRA_ATTR_STRING)
                        add_unique(migs, nz(pa->v.s), 64);
                }
            }
            if (!cls) {
                json_t *e = named(other, nz(sl->driver));
                json_object_set_new(e, "devices",
                                    json_integer(json_integer_value(json_object_get(e, "devices")) + 1));
                continue;
            }
            json_object_set_new(cls, "devices",
                                json_integer(json_integer_value(json_object_get(cls, "devices")) + 1));
            describe_device(cls, &m, d);
        }
    }
    if (!rc) {
        size_t i;
        json_t *v;
        json_array_foreach(classes, i, v)
        {
            json_t *attrs = json_object_get(v, "attributes");
            sort_named(attrs);
            sort_named(json_object_get(v, "capacities"));
            size_t k;
            json_t *a;
            json_array_foreach(attrs, k, a)
            {
                json_t *ex = json_object_get(a, "examples");
                bool more = json_array_size(ex) > 3;
                if (more)
                    json_array_remove(ex, 3);
                json_object_set_new(a, "more_examples", json_boolean(more));
            }
        }
        for (const char *const *n = dra_gen_profile_mig_names(p); n && *n; n++)
            add_unique(model_migs, *n, 64);
        json_t *cs = json_null();
        if (nsets) {
            json_t *ctr = json_array();
            for (uint32_t k = 0; ctr && k < first->ncounters; k++) {
                char q[64];
                dra_quantity_format(&first->counters[k].value, q, sizeof q);
                json_array_append_new(ctr, json_pack("{s:s, s:s}", "name", nz(first->counters[k].name),
                                                     "value", q));
            }
            cs = json_pack("{s:i, s:s, s:s, s:o}", "count", (int)nsets, "first", nz(first->name),
                           "last", nz(last->name), "counters", ctr ? ctr : json_array());
        }
        json_object_set_new(o, "drivers", drivers);
        json_object_set_new(o, "classes", classes);
        json_object_set_new(o, "other_devices", other);
        json_object_set_new(o, "counter_sets", cs ? cs : json_null());
        json_object_set_new(o, "mig_profiles", migs);
        json_object_set_new(o, "model_mig_profiles", model_migs);
        json_object_set_new(o, "nodes", json_integer(m.nnodes));
    } else {
        json_decref(o);
        o = NULL;
    }
    dra_arena_fini(&scratch);
    dra_model_fini(&m);
    *out = o;
    return rc ? rc : (o ? DRA_OK : DRA_ENOMEM);
}

static json_t *body_json(const dra_exact_request_t *b)
{
    json_t *o = json_pack("{s:s, s:s}", "name", nz(b->name), "class", nz(b->class_name));
    if (!o)
        return NULL;
    json_object_set_new(o, "mode", json_string(b->mode == DRA_MODE_ALL ? "All" : "ExactCount"));
    if (b->mode != DRA_MODE_ALL)
        json_object_set_new(o, "count", json_integer(b->count));
    json_t *sel = json_array();
    for (uint32_t i = 0; sel && i < b->nselectors; i++)
        json_array_append_new(sel, json_string(nz(b->selectors[i].cel)));
    json_object_set_new(o, "selectors", sel ? sel : json_array());
    if (b->ncap_requests) {
        json_t *cap = json_object();
        for (uint32_t i = 0; cap && i < b->ncap_requests; i++) {
            char q[64];
            dra_quantity_format(&b->cap_requests[i].value, q, sizeof q);
            json_object_set_new(cap, nz(b->cap_requests[i].name), json_string(q));
        }
        json_object_set_new(o, "capacity", cap ? cap : json_object());
    }
    if (b->admin_access)
        json_object_set_new(o, "adminAccess", json_true());
    return o;
}

static int shape_json(dra_shape_kind_t k, json_t **out, dra_diag_t *diag)
{
    const dra_shape_info_t *si = dra_shape_info(k);
    dra_model_t m;
    dra_model_init(&m);
    dra_shape_spec_t spec;
    memset(&spec, 0, sizeof spec);
    spec.kind = k;
    dra_claim_t *t = NULL;
    int rc = dra_shape_build(&m, &spec, &t, diag);
    json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "name",
                          k == DRA_SHAPE_MIG ? "mig-<profile>" : si->name, "summary", si->summary,
                          "profile", dra_gen_profile_info(si->profile)->name, "params",
                          si->params ? json_string(si->params) : json_null());
    if (!rc && !o)
        rc = DRA_ENOMEM;
    if (!rc) {
        json_t *reqs = json_array(), *cons = json_array();
        for (uint32_t r = 0; reqs && r < t->nrequests; r++) {
            const dra_request_t *rq = &t->requests[r];
            json_t *ro;
            if (rq->exactly) {
                ro = body_json(rq->exactly);
            } else {
                ro = json_pack("{s:s, s:[]}", "name", nz(rq->name), "firstAvailable");
                for (uint32_t a = 0; ro && a < rq->nfirst_available; a++)
                    json_array_append_new(json_object_get(ro, "firstAvailable"),
                                          body_json(&rq->first_available[a]));
            }
            json_array_append_new(reqs, ro);
        }
        for (uint32_t c = 0; cons && c < t->nconstraints; c++) {
            const dra_constraint_t *cn = &t->constraints[c];
            json_t *co = json_object();
            if (cn->match_attribute)
                json_object_set_new(co, "matchAttribute", json_string(cn->match_attribute));
            if (cn->distinct_attribute)
                json_object_set_new(co, "distinctAttribute", json_string(cn->distinct_attribute));
            json_array_append_new(cons, co);
        }
        json_object_set_new(o, "template",
                            json_pack("{s:s, s:o, s:o}", "name", nz(t->name), "requests",
                                      reqs ? reqs : json_array(), "constraints",
                                      cons ? cons : json_array()));
    }
    if (rc) {
        json_decref(o);
        o = NULL;
    }
    dra_model_fini(&m);
    *out = o;
    return rc;
}

int dra_profile_reference(json_t **out, dra_diag_t *diag)
{
    *out = NULL;
    json_t *root = json_object(), *prof = json_array(), *shapes = json_array();
    dra_cel_cache_t *cel = NULL;
    int rc = root && prof && shapes ? dra_cel_cache_new(&cel) : DRA_ENOMEM;
    for (int i = 0; !rc && i < DRA_GEN_NPROFILES; i++) {
        json_t *p = NULL;
        rc = profile_json((dra_gen_profile_t)i, cel, &p, diag);
        if (!rc)
            json_array_append_new(prof, p);
    }
    for (int i = 0; !rc && i < DRA_SHAPE_NKINDS; i++) {
        if (i == DRA_SHAPE_INLINE) { /* written in the scenario: nothing to build */
            const dra_shape_info_t *si = dra_shape_info((dra_shape_kind_t)i);
            json_array_append_new(shapes, json_pack("{s:s, s:s, s:s, s:n, s:n}", "name", si->name,
                                                    "summary", si->summary, "profile",
                                                    dra_gen_profile_info(si->profile)->name,
                                                    "params", "template"));
            continue;
        }
        json_t *s = NULL;
        rc = shape_json((dra_shape_kind_t)i, &s, diag);
        if (!rc)
            json_array_append_new(shapes, s);
    }
    dra_cel_cache_free(cel);
    if (rc) {
        json_decref(root);
        json_decref(prof);
        json_decref(shapes);
        return rc;
    }
    json_object_set_new(root, "profiles", prof);
    json_object_set_new(root, "shapes", shapes);
    *out = root;
    return DRA_OK;
}
