/* cmd_inspect.c - `drabench inspect FILE|DIR... [-o table|json]`: what a manifest set contains. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "extres/extres.h"
#include "escape.h"
#include "manifest.h"

static const char help[] =
    "drabench inspect - summarise DRA manifests: nodes, pools, devices, attributes, claims\n"
    "\n"
    "Usage: drabench inspect [options] FILE|DIR...\n"
    "\n"
    "Reads manifests like `drabench validate` and prints, per driver, the pools, slices and\n"
    "devices, every attribute and capacity name with its kind, the shared counter sets, and the\n"
    "classes, claims, claim templates and pods, with the derived attributes of requests (1.37).\n"
    "Devices are listed one by one (with attributes, capacities and counter consumption, its\n"
    "compatibilityGroups included) when there are at most 256 of them, or always with --devices.\n"
    "\n"
    "Options:\n"
    "  -o, --output FMT   table or json                                   (default: table)\n"
    "  -d, --devices      list every device                               (default: <= 256)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  drabench inspect ../shared/real-manifests/dranet\n"
    "  drabench inspect -o json slices.yaml | jq '.drivers'\n"
    "\n"
    "Exit status: 0 ok, 2 invalid input or usage error, 4 a file could not be read.\n";

/* Distinct (driver, name, kind) of attributes and capacities, counted. */
typedef struct nameinfo {
    const char *driver, *name, *kind;
    uint64_t count;
} nameinfo_t;

typedef struct namevec {
    nameinfo_t *v;
    size_t n, cap;
} namevec_t;

static void nv_add(namevec_t *nv, const char *driver, const char *name, const char *kind)
{
    for (size_t i = nv->n; i-- > 0;)
        if (strcmp(nv->v[i].name, name) == 0 && strcmp(nv->v[i].kind, kind) == 0 &&
            strcmp(nv->v[i].driver, driver) == 0) {
            nv->v[i].count++;
            return;
        }
    if (nv->n == nv->cap) {
        size_t nc = nv->cap ? nv->cap * 2 : 64;
        nameinfo_t *p = realloc(nv->v, nc * sizeof *p);
        if (!p)
            return;
        nv->v = p;
        nv->cap = nc;
    }
    nv->v[nv->n++] = (nameinfo_t){driver, name, kind, 1};
}

static int cmp_ni(const void *a, const void *b)
{
    const nameinfo_t *x = a, *y = b;
    int c = strcmp(x->driver, y->driver);
    if (!c)
        c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->kind, y->kind);
}

typedef struct drv {
    const char *driver;
    uint64_t devices, slices;
    uint32_t pools;
} drv_t;

/* What the listings print beside the model: per driver counts, attribute and capacity names. */
typedef struct summary {
    drv_t *drivers;
    size_t ndrivers;
    namevec_t names; /* sorted by driver, name, kind */
    uint32_t declared; /* nodes not implied */
} summary_t;

/* Per driver: slices, devices, pools (distinct pool names); the names in use. */
static void summarise(const dra_model_t *m, summary_t *sum)
{
    memset(sum, 0, sizeof *sum);
    drv_t *drivers = calloc(m->nslices + 1, sizeof *drivers);
    size_t ndrivers = 0;
    namevec_t names = {0};
    for (uint32_t i = 0; drivers && i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        const char *dn = s->driver ? s->driver : "(none)";
        size_t k = 0;
        while (k < ndrivers && strcmp(drivers[k].driver, dn) != 0)
            k++;
        if (k == ndrivers)
            drivers[ndrivers++].driver = dn;
        drivers[k].slices++;
        drivers[k].devices += s->ndevices;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = m->slices[j]->driver && s->driver && m->slices[j]->pool_name && s->pool_name &&
                   strcmp(m->slices[j]->driver, s->driver) == 0 &&
                   strcmp(m->slices[j]->pool_name, s->pool_name) == 0;
        if (!seen)
            drivers[k].pools++;
        for (uint32_t d = 0; d < s->ndevices; d++) {
            const dra_device_t *dev = &s->devices[d];
            for (uint32_t a = 0; a < dev->nattrs; a++)
                nv_add(&names, dn, dra_intern_str(&m->intern, dev->attrs[a].qname)
                                       ? dra_intern_str(&m->intern, dev->attrs[a].qname)
                                       : dev->attrs[a].name,
                       dra_attr_kind_name((dra_attr_kind_t)dev->attrs[a].kind));
            for (uint32_t a = 0; a < dev->ncaps; a++)
                nv_add(&names, dn, dra_intern_str(&m->intern, dev->caps[a].qname)
                                       ? dra_intern_str(&m->intern, dev->caps[a].qname)
                                       : dev->caps[a].name,
                       "capacity");
        }
    }
    if (names.n)
        qsort(names.v, names.n, sizeof *names.v, cmp_ni);
    uint32_t declared = 0;
    for (uint32_t i = 0; i < m->nnodes; i++)
        declared += !m->nodes[i]->implied;
    sum->drivers = drivers;
    sum->ndrivers = ndrivers;
    sum->names = names;
    sum->declared = declared;
}

static void summary_fini(summary_t *sum)
{
    free(sum->names.v);
    free(sum->drivers);
}

/* ---- -o json ------------------------------------------------------------------------------- */

static json_t *json_drivers(const summary_t *sum)
{
    const drv_t *drivers = sum->drivers;
    const namevec_t names = sum->names;
    json_t *jd = json_array();
    for (size_t k = 0; k < sum->ndrivers; k++) {
        json_t *an = json_array();
        for (size_t i = 0; i < names.n; i++)
            if (strcmp(names.v[i].driver, drivers[k].driver) == 0)
                json_array_append_new(an, json_pack("{s:s, s:s, s:I}", "name", names.v[i].name,
                                                    "kind", names.v[i].kind, "devices",
                                                    (json_int_t)names.v[i].count));
        json_array_append_new(jd, json_pack("{s:s, s:I, s:I, s:I, s:o}", "driver",
                                            drivers[k].driver, "pools",
                                            (json_int_t)drivers[k].pools, "slices",
                                            (json_int_t)drivers[k].slices, "devices",
                                            (json_int_t)drivers[k].devices, "names", an));
    }
    return jd;
}

static json_t *json_slices(const dra_model_t *m, bool list_devices)
{
    char buf[2048];
    json_t *js = json_array();
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        json_t *o = json_pack("{s:s?, s:s?, s:s?, s:s?, s:I}", "name", s->name, "driver",
                              s->driver, "pool", s->pool_name, "node", s->node_name,
                              "devices", (json_int_t)s->ndevices);
        json_t *cs = json_array();
        for (uint32_t k = 0; k < s->ncounter_sets; k++) {
            json_t *o2 = json_pack("{s:s?, s:I}", "name", s->counter_sets[k].name, "counters",
                                   (json_int_t)s->counter_sets[k].ncounters);
            json_t *rp = json_array(); /* counters with a requestPolicy (KEP-5941, 1.38-pre) */
            for (uint32_t j = 0; j < s->counter_sets[k].ncounters; j++)
                if (s->counter_sets[k].counters[j].policy)
                    json_array_append_new(rp, json_string(s->counter_sets[k].counters[j].name
                                                              ? s->counter_sets[k].counters[j].name
                                                              : ""));
            json_object_set_new(o2, "request_policy_counters", rp);
            json_array_append_new(cs, o2);
        }
        json_object_set_new(o, "counter_sets", cs);
        if (s->nskip_node_ops) { /* 1.37, DRAOptionalNodeOperations */
            json_t *sk = json_array();
            for (uint32_t k = 0; k < s->nskip_node_ops; k++)
                json_array_append_new(sk, json_string(s->skip_node_ops[k] ? s->skip_node_ops[k]
                                                                          : ""));
            json_object_set_new(o, "skip_node_operations", sk);
        }
        if (list_devices) {
            json_t *dv = json_array();
            for (uint32_t d = 0; d < s->ndevices; d++) {
                const dra_device_t *dev = &s->devices[d];
                json_t *attrs = json_object(), *caps = json_object();
                for (uint32_t a = 0; a < dev->nattrs; a++) {
                    dra_attr_format(&dev->attrs[a], buf, sizeof buf);
                    json_object_set_new(attrs, dev->attrs[a].name ? dev->attrs[a].name : "",
                                        json_string(buf));
                }
                for (uint32_t a = 0; a < dev->ncaps; a++) {
                    dra_quantity_format(&dev->caps[a].value, buf, sizeof buf);
                    json_object_set_new(caps, dev->caps[a].name ? dev->caps[a].name : "",
                                        json_string(buf));
                }
                json_t *cons = json_array(); /* counter sets and 1.37 compatibilityGroups */
                for (uint32_t c = 0; c < dev->nconsumes; c++) {
                    const dra_consumes_t *cc = &dev->consumes[c];
                    json_t *g = json_array();
                    for (uint32_t k = 0; k < cc->ngroups; k++)
                        json_array_append_new(g, json_string(cc->groups[k] ? cc->groups[k] : ""));
                    json_t *vf = json_object(); /* counter -> valueFrom.capacityName */
                    for (uint32_t k = 0; k < cc->ncounters; k++)
                        if (cc->counters[k].value_from)
                            json_object_set_new(vf, cc->counters[k].name ? cc->counters[k].name
                                                                         : "",
                                                json_string(cc->counters[k].value_from));
                    json_array_append_new(cons, json_pack("{s:s?, s:I, s:o, s:o}", "counter_set",
                                                          cc->counter_set, "counters",
                                                          (json_int_t)cc->ncounters,
                                                          "compatibility_groups", g,
                                                          "value_from", vf));
                }
                json_array_append_new(dv, json_pack("{s:s?, s:o, s:o, s:o}", "name", dev->name,
                                                    "attributes", attrs, "capacity", caps,
                                                    "consumes_counters", cons));
            }
            json_object_set_new(o, "device_list", dv);
        }
        json_array_append_new(js, o);
    }
    return js;
}

/* The derived attributes (1.37) of a claim's requests and subrequests: [{request, name,
 * expression}], "req/sub" for a subrequest's. */
static json_t *json_derived(const dra_claim_t *c)
{
    char rn[512];
    json_t *a = json_array();
    for (uint32_t r = 0; r < c->nrequests; r++) {
        const dra_request_t *q = &c->requests[r];
        for (uint32_t s = 0; s <= q->nfirst_available; s++) {
            const dra_exact_request_t *b = s < q->nfirst_available ? &q->first_available[s]
                                           : q->nfirst_available    ? NULL
                                                                    : q->exactly;
            if (!b)
                continue;
            snprintf(rn, sizeof rn, "%s%s%s", q->name ? q->name : "",
                     q->nfirst_available ? "/" : "",
                     q->nfirst_available && b->name ? b->name : "");
            for (uint32_t k = 0; k < b->nderived; k++)
                json_array_append_new(a, json_pack("{s:s, s:s?, s:s?}", "request", rn, "name",
                                                   b->derived[k].name, "expression",
                                                   b->derived[k].expr));
        }
    }
    return a;
}

/* Classes, claims and templates, pods: set on root. */
/* "gang", "basic", "none" (neither set) or "invalid" (both). */
static const char *policy_name(const dra_group_sched_t *s)
{
    return s->gang && s->basic ? "invalid" : s->gang ? "gang" : s->basic ? "basic" : "none";
}

/* Pods (replicas counted) whose spec.schedulingGroup names PodGroup g. */
static int64_t group_pods(const dra_model_t *m, const dra_podgroup_t *g)
{
    int64_t n = 0;
    const char *gns = g->namespace_ ? g->namespace_ : "default";
    for (uint32_t i = 0; i < m->npods; i++) {
        const dra_pod_t *p = m->pods[i];
        if (p->group && g->name && strcmp(p->group, g->name) == 0 &&
            strcmp(p->namespace_ ? p->namespace_ : "default", gns) == 0)
            n += p->replicas > 0 ? p->replicas : 1;
    }
    return n;
}

static void json_objects(const dra_model_t *m, json_t *root)
{
    json_t *jc = json_array();
    for (uint32_t i = 0; i < m->nclasses; i++)
        json_array_append_new(jc, json_pack("{s:s?, s:I, s:s?}", "name", m->classes[i]->name,
                                            "selectors", (json_int_t)m->classes[i]->nselectors,
                                            "extendedResourceName",
                                            m->classes[i]->extended_resource_name));
    json_object_set_new(root, "classes", jc);
    json_t *jq = json_array();
    for (int t = 0; t < 2; t++) {
        dra_claim_t **v = t ? m->templates : m->claims;
        uint32_t n = t ? m->ntemplates : m->nclaims;
        for (uint32_t i = 0; i < n; i++)
            json_array_append_new(jq, json_pack("{s:s, s:s?, s:s?, s:I, s:b, s:o}", "kind",
                                                t ? "ResourceClaimTemplate" : "ResourceClaim",
                                                "namespace", v[i]->namespace_, "name",
                                                v[i]->name, "requests",
                                                (json_int_t)v[i]->nrequests, "allocated",
                                                v[i]->allocation != NULL, "derived_attributes",
                                                json_derived(v[i])));
    }
    json_object_set_new(root, "claims", jq);
    json_t *jp = json_array();
    dra_arena_t a;
    dra_arena_init(&a, 0);
    for (uint32_t i = 0; i < m->npods; i++) {
        json_t *ext = json_object();
        dra_pod_req_t req;
        if (ext && dra_extres_pod(m->pods[i], &a, &req) == DRA_OK)
            for (uint32_t k = 0; k < req.nscalar; k++)
                if (dra_resource_is_dra_extended(req.scalar[k].name))
                    json_object_set_new(ext, req.scalar[k].name,
                                        json_integer((json_int_t)req.scalar[k].value));
        json_array_append_new(
            jp, json_pack("{s:s, s:s?, s:s?, s:I, s:I, s:o?}", "kind",
                          dra_pod_kind_name(m->pods[i]->kind), "namespace", m->pods[i]->namespace_,
                          "name", m->pods[i]->name, "replicas", (json_int_t)m->pods[i]->replicas,
                          "claims", (json_int_t)m->pods[i]->nclaims, "extendedResources", ext));
        dra_arena_reset(&a);
    }
    dra_arena_fini(&a);
    json_object_set_new(root, "pods", jp);
    if (m->npodgroups) {
        json_t *jg = json_array();
        for (uint32_t i = 0; i < m->npodgroups; i++) {
            const dra_podgroup_t *g = m->podgroups[i];
            json_t *keys = json_array();
            for (uint32_t k = 0; k < g->s.ntopology; k++)
                json_array_append_new(keys, json_string(g->s.topology[k] ? g->s.topology[k] : ""));
            json_t *gc = json_array();
            for (uint32_t k = 0; k < g->s.nclaims; k++)
                json_array_append_new(gc, json_pack("{s:s?, s:s?, s:s?}", "name",
                                                    g->s.claims[k].name, "resourceClaimName",
                                                    g->s.claims[k].claim_name,
                                                    "resourceClaimTemplateName",
                                                    g->s.claims[k].template_name));
            json_array_append_new(
                jg, json_pack("{s:s?, s:s?, s:s?, s:s, s:I, s:o, s:o, s:I, s:s?, s:s?}",
                              "namespace", g->namespace_, "name", g->name, "apiVersion",
                              g->api_version, "policy", policy_name(&g->s), "minCount",
                              (json_int_t)(g->s.has_min_count ? g->s.min_count : 0), "topology",
                              keys, "resourceClaims", gc, "pods",
                              (json_int_t)group_pods(m, g), "workload", g->workload_name,
                              "template", g->template_name));
        }
        json_object_set_new(root, "podgroups", jg);
    }
    if (m->nworkloads) {
        json_t *jw = json_array();
        for (uint32_t i = 0; i < m->nworkloads; i++) {
            const dra_workload_obj_t *w = m->workloads[i];
            json_t *jt = json_array();
            for (uint32_t k = 0; k < w->ntemplates; k++)
                json_array_append_new(
                    jt, json_pack("{s:s?, s:s, s:I}", "name", w->templates[k].name, "policy",
                                  policy_name(&w->templates[k].s), "minCount",
                                  (json_int_t)(w->templates[k].s.has_min_count
                                                   ? w->templates[k].s.min_count
                                                   : 0)));
            json_array_append_new(jw, json_pack("{s:s?, s:s?, s:o}", "namespace", w->namespace_,
                                                "name", w->name, "podGroupTemplates", jt));
        }
        json_object_set_new(root, "workloads", jw);
    }
}

/* The whole document on stdout; DRA_EXIT_OK or DRA_EXIT_ENV. */
static int print_json(const dra_model_t *m, const summary_t *sum, bool list_devices)
{
    int status = DRA_EXIT_OK;
    json_t *root = json_object();
    json_t *js = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "nodes",
                           (json_int_t)m->nnodes, "nodes_declared", (json_int_t)sum->declared,
                           "slices", (json_int_t)m->nslices, "devices",
                           (json_int_t)m->ndevices, "classes", (json_int_t)m->nclasses,
                           "claims", (json_int_t)m->nclaims, "templates",
                           (json_int_t)m->ntemplates, "pods", (json_int_t)m->npods, "skipped",
                           (json_int_t)m->nskipped);
    json_object_set_new(root, "summary", js);
    json_object_set_new(root, "drivers", json_drivers(sum));
    json_object_set_new(root, "slices", json_slices(m, list_devices));
    json_objects(m, root);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (s) {
        puts(s);
        free(s);
    } else {
        status = DRA_EXIT_ENV;
    }
    json_decref(root);
    return status;
}

/* ---- -o table ------------------------------------------------------------------------------- */

static void table_drivers(FILE *out, const summary_t *sum)
{
    const drv_t *drivers = sum->drivers;
    const namevec_t names = sum->names;
    if (sum->ndrivers) {
        fprintf(out, "%-40s %6s %7s %8s\n", "DRIVER", "POOLS", "SLICES", "DEVICES");
        for (size_t k = 0; k < sum->ndrivers; k++)
            fprintf(out, "%-40s %6u %7llu %8llu\n", drivers[k].driver, drivers[k].pools,
                    (unsigned long long)drivers[k].slices, (unsigned long long)drivers[k].devices);
        fprintf(out, "\n%-40s %-48s %-9s %8s\n", "DRIVER", "NAME", "KIND", "DEVICES");
        for (size_t i = 0; i < names.n; i++)
            fprintf(out, "%-40s %-48s %-9s %8llu\n", names.v[i].driver, names.v[i].name,
                    names.v[i].kind, (unsigned long long)names.v[i].count);
    }
}

static void table_counter_sets(FILE *out, const dra_model_t *m)
{
    char buf[2048];
    bool any_cs = false;
    for (uint32_t i = 0; i < m->nslices; i++)
        for (uint32_t k = 0; k < m->slices[i]->ncounter_sets; k++) {
            const dra_counter_set_t *cs = &m->slices[i]->counter_sets[k];
            if (!any_cs)
                fprintf(out, "\n%-40s %-32s %s\n", "SLICE", "COUNTER SET", "COUNTERS");
            any_cs = true;
            fprintf(out, "%-40s %-32s", m->slices[i]->name ? m->slices[i]->name : "",
                    cs->name ? cs->name : "");
            for (uint32_t j = 0; j < cs->ncounters; j++) {
                dra_quantity_format(&cs->counters[j].value, buf, sizeof buf);
                fprintf(out, " %s=%s%s", cs->counters[j].name ? cs->counters[j].name : "", buf,
                        cs->counters[j].policy ? "(requestPolicy)" : "");
            }
            fprintf(out, "\n");
        }
}

static void table_devices(FILE *out, const dra_model_t *m)
{
    char buf[2048];
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        fprintf(out, "\nslice %s  driver %s  pool %s  node %s  (%u devices)\n",
                s->name ? s->name : "", s->driver ? s->driver : "",
                s->pool_name ? s->pool_name : "",
                s->node_name                   ? s->node_name
                : s->all_nodes                 ? "(all nodes)"
                : s->node_selector             ? "(selector)"
                : s->per_device_node_selection ? "(per device)"
                                               : "",
                s->ndevices);
        for (uint32_t k = 0; k < s->nskip_node_ops; k++) /* 1.37, DRAOptionalNodeOperations */
            fprintf(out, "%s%s%s", k ? "," : "  skipNodeOperations=",
                    s->skip_node_ops[k] ? s->skip_node_ops[k] : "",
                    k + 1 == s->nskip_node_ops ? "\n" : "");
        for (uint32_t d = 0; d < s->ndevices; d++) {
            const dra_device_t *dev = &s->devices[d];
            fprintf(out, "  %s\n", dev->name ? dev->name : "");
            for (uint32_t a = 0; a < dev->nattrs; a++) {
                dra_attr_format(&dev->attrs[a], buf, sizeof buf);
                fprintf(out, "    %-44s %-8s %s\n", dev->attrs[a].name ? dev->attrs[a].name : "",
                        dra_attr_kind_name((dra_attr_kind_t)dev->attrs[a].kind), buf);
            }
            for (uint32_t a = 0; a < dev->ncaps; a++) {
                dra_quantity_format(&dev->caps[a].value, buf, sizeof buf);
                fprintf(out, "    %-44s %-8s %s\n", dev->caps[a].name ? dev->caps[a].name : "",
                        "capacity", buf);
            }
            for (uint32_t c = 0; c < dev->nconsumes; c++) { /* counters, 1.37 groups */
                const dra_consumes_t *cc = &dev->consumes[c];
                fprintf(out, "    %-44s %-8s", cc->counter_set ? cc->counter_set : "", "consumes");
                for (uint32_t k = 0; k < cc->ncounters; k++) {
                    if (cc->counters[k].value_from) { /* KEP-5941: from a capacity request */
                        fprintf(out, " %s<-%s", cc->counters[k].name ? cc->counters[k].name : "",
                                cc->counters[k].value_from);
                        continue;
                    }
                    dra_quantity_format(&cc->counters[k].value, buf, sizeof buf);
                    fprintf(out, " %s=%s", cc->counters[k].name ? cc->counters[k].name : "", buf);
                }
                for (uint32_t k = 0; k < cc->ngroups; k++)
                    fprintf(out, "%s%s", k ? "," : "  compatibilityGroups=",
                            cc->groups[k] ? cc->groups[k] : "");
                fprintf(out, "\n");
            }
        }
    }
}

/* Classes, claims and templates, pods. */
static void table_objects(FILE *out, const dra_model_t *m)
{
    if (m->nclasses) {
        fprintf(out, "\n%-48s %9s %s\n", "CLASS", "SELECTORS", "EXTENDED-RESOURCE");
        for (uint32_t i = 0; i < m->nclasses; i++)
            fprintf(out, "%-48s %9u %s\n", m->classes[i]->name ? m->classes[i]->name : "",
                    m->classes[i]->nselectors,
                    m->classes[i]->extended_resource_name ? m->classes[i]->extended_resource_name
                                                          : "-");
    }
    if (m->nclaims + m->ntemplates) {
        fprintf(out, "\n%-22s %-24s %-40s %8s %s\n", "KIND", "NAMESPACE", "NAME", "REQUESTS",
                "ALLOCATED");
        for (int t = 0; t < 2; t++) {
            dra_claim_t **v = t ? m->templates : m->claims;
            uint32_t n = t ? m->ntemplates : m->nclaims;
            for (uint32_t i = 0; i < n; i++)
                fprintf(out, "%-22s %-24s %-40s %8u %s\n",
                        t ? "ResourceClaimTemplate" : "ResourceClaim",
                        v[i]->namespace_ ? v[i]->namespace_ : "", v[i]->name ? v[i]->name : "",
                        v[i]->nrequests, v[i]->allocation ? "yes" : "no");
        }
    }
    bool any_derived = false; /* 1.37 derived attributes, per claim and (sub)request */
    for (int t = 0; t < 2; t++) {
        dra_claim_t **v = t ? m->templates : m->claims;
        uint32_t n = t ? m->ntemplates : m->nclaims;
        for (uint32_t i = 0; i < n; i++) {
            json_t *d = json_derived(v[i]);
            size_t k;
            json_t *e;
            json_array_foreach(d, k, e)
            {
                if (!any_derived)
                    fprintf(out, "\n%-40s %-24s %-40s %s\n", "CLAIM", "REQUEST",
                            "DERIVED ATTRIBUTE", "EXPRESSION");
                any_derived = true;
                fprintf(out, "%-40s %-24s %-40s %s\n", v[i]->name ? v[i]->name : "",
                        json_string_value(json_object_get(e, "request")),
                        json_string_value(json_object_get(e, "name")),
                        json_string_value(json_object_get(e, "expression")));
            }
            json_decref(d);
        }
    }
    if (m->npods) {
        fprintf(out, "\n%-12s %-24s %-40s %8s %6s %s\n", "KIND", "NAMESPACE", "NAME", "REPLICAS",
                "CLAIMS", "EXTENDED-RESOURCES");
        dra_arena_t a;
        dra_arena_init(&a, 0);
        for (uint32_t i = 0; i < m->npods; i++) {
            /* the pod's requests of extended resources (PodRequests: init containers and
             * sidecars counted as the scheduler does), "name=count,...", or "-" */
            char ext[256] = "-";
            size_t u = 0;
            dra_pod_req_t req;
            if (dra_extres_pod(m->pods[i], &a, &req) == DRA_OK)
                for (uint32_t k = 0; k < req.nscalar && u < sizeof ext; k++)
                    if (dra_resource_is_dra_extended(req.scalar[k].name))
                        u += (size_t)snprintf(ext + u, sizeof ext - u, "%s%s=%lld", u ? "," : "",
                                              req.scalar[k].name, (long long)req.scalar[k].value);
            dra_arena_reset(&a);
            fprintf(out, "%-12s %-24s %-40s %8lld %6u %s\n", dra_pod_kind_name(m->pods[i]->kind),
                    m->pods[i]->namespace_ ? m->pods[i]->namespace_ : "",
                    m->pods[i]->name ? m->pods[i]->name : "", (long long)m->pods[i]->replicas,
                    m->pods[i]->nclaims, ext);
        }
        dra_arena_fini(&a);
    }
    if (m->npodgroups) {
        fprintf(out, "\n%-24s %-40s %-6s %8s %6s %-32s %s\n", "PODGROUP NAMESPACE", "NAME",
                "POLICY", "MINCOUNT", "PODS", "TOPOLOGY", "GROUP CLAIMS");
        for (uint32_t i = 0; i < m->npodgroups; i++) {
            const dra_podgroup_t *g = m->podgroups[i];
            char claims[256] = "-";
            size_t used = 0;
            for (uint32_t k = 0; k < g->s.nclaims && used < sizeof claims; k++)
                used += (size_t)snprintf(claims + used, sizeof claims - used, "%s%s", k ? "," : "",
                                         g->s.claims[k].name ? g->s.claims[k].name : "?");
            fprintf(out, "%-24s %-40s %-6s %8lld %6lld %-32s %s\n",
                    g->namespace_ ? g->namespace_ : "", g->name ? g->name : "",
                    policy_name(&g->s), (long long)(g->s.has_min_count ? g->s.min_count : 0),
                    (long long)group_pods(m, g),
                    g->s.ntopology && g->s.topology[0] ? g->s.topology[0] : "-", claims);
        }
    }
    if (m->nworkloads) {
        fprintf(out, "\n%-24s %-40s %s\n", "WORKLOAD NAMESPACE", "NAME", "POD GROUP TEMPLATES");
        for (uint32_t i = 0; i < m->nworkloads; i++) {
            const dra_workload_obj_t *w = m->workloads[i];
            char tl[256] = "-";
            size_t used = 0;
            for (uint32_t k = 0; k < w->ntemplates && used < sizeof tl; k++)
                used += (size_t)snprintf(tl + used, sizeof tl - used, "%s%s (%s)", k ? ", " : "",
                                         w->templates[k].name ? w->templates[k].name : "?",
                                         policy_name(&w->templates[k].s));
            fprintf(out, "%-24s %-40s %s\n", w->namespace_ ? w->namespace_ : "",
                    w->name ? w->name : "", tl);
        }
    }
}

static void print_table(FILE *out, const dra_model_t *m, const summary_t *sum, bool list_devices)
{
    fprintf(out,
            "nodes %u (%u declared)  slices %u  devices %llu  classes %u  claims %u  "
            "templates %u  pods/workloads %u  skipped %u",
            m->nnodes, sum->declared, m->nslices, (unsigned long long)m->ndevices, m->nclasses,
            m->nclaims, m->ntemplates, m->npods, m->nskipped);
    if (m->npodgroups || m->nworkloads)
        fprintf(out, "  podgroups %u  workloads (scheduling.k8s.io) %u", m->npodgroups,
                m->nworkloads);
    uint32_t nskip = 0, ndecl = 0; /* DRAOptionalNodeOperations: shown only when used */
    for (uint32_t i = 0; i < m->nslices; i++)
        nskip += m->slices[i]->nskip_node_ops > 0;
    for (uint32_t i = 0; i < m->nnodes; i++)
        ndecl += dra_alloc_node_declares(m->nodes[i], "DRAOptionalNodeOperations");
    if (nskip || ndecl)
        fprintf(out, "\nslices with skipNodeOperations %u  nodes declaring DRAOptionalNodeOperations %u",
                nskip, ndecl);
    fprintf(out, "\n\n");
    table_drivers(out, sum);
    table_counter_sets(out, m);
    if (list_devices)
        table_devices(out, m);
    table_objects(out, m);
}

/* ---- the command ---------------------------------------------------------------------------- */

int dra_cmd_inspect(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"devices", no_argument, NULL, 'd'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int json = 0, all_devices = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:dh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (strcmp(optarg, "json") == 0)
                json = 1;
            else if (strcmp(optarg, "table") != 0)
                return dra_cli_usage_error("inspect", "-o must be table or json, not '%s'", optarg);
            break;
        case 'd':
            all_devices = 1;
            break;
        case 'h':
            fputs(help, stdout);
            return DRA_EXIT_OK;
        default:
            return dra_cli_usage_error("inspect", "unknown option");
        }
    }
    if (optind >= argc)
        return dra_cli_usage_error("inspect", "no FILE or DIR given");
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_manifest_read_paths(&m, argv + optind, argc - optind, &errs);
    char buf[2048];
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "%s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
    int status = rc == DRA_OK ? DRA_EXIT_OK : rc == DRA_EIO ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    bool list_devices = all_devices || m.ndevices <= 256;

    summary_t sum;
    summarise(&m, &sum);
    if (json) {
        int js = print_json(&m, &sum, list_devices);
        if (js != DRA_EXIT_OK)
            status = js;
    } else {
        /* the table holds names and values from the inputs: it reaches the terminal through
         * dra_esc_term_text, which shows control characters as \xNN (escape.h) */
        char *tbuf = NULL;
        size_t tlen = 0;
        FILE *out = open_memstream(&tbuf, &tlen);
        if (!out) {
            status = DRA_EXIT_ENV;
        } else {
            print_table(out, &m, &sum, list_devices);
            if (fclose(out) != 0)
                status = DRA_EXIT_ENV;
            else
                dra_esc_term_text(stdout, tbuf, tlen);
            free(tbuf);
        }
    }
    summary_fini(&sum);
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    return status;
}
