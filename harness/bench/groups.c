/*
 * groups.c - PodGroups of a manifest set and their cycles on an allocator (groups.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "manifest.h"

#define NONE DRA_GROUP_NONE

typedef struct mg_member {
    uint32_t pod;
    const char *name;
    dra_claim_t **own;
    uint32_t nown;
    uint32_t gmask;
    uint32_t bound;       /* model node, NONE pending, nnodes: a node not among the inputs */
    const char *broken;   /* an own claim that does not exist: never fits */
    const char *sched;
    int64_t prio;
} mg_member_t;

typedef struct mg_group {
    dra_podgroup_t *pg;
    const char *rejected;   /* the API server would reject the PodGroup: its pods wait */
    const char *refused;    /* the cycle refuses the group (unschedulable before trying) */
    mg_member_t *members;
    uint32_t nmembers, cap;
    dra_claim_t *gcl[DRA_GROUP_MAX_GCLAIMS];
    uint32_t ngcl;
    dra_group_topo_t *topo;
    dra_group_member_t *gm;
} mg_group_t;

struct dra_mgroups {
    dra_model_t *m;
    dra_alloc_features_t f;
    dra_arena_t arena;
    mg_group_t *groups;
    uint32_t ngroups;
    uint8_t *pod_kind;
    uint32_t *pod_group;
    const char **pod_why;
};

static const char *nz(const char *s)
{
    return s ? s : "";
}

static const char *ns_of(const char *ns)
{
    return ns ? ns : "default";
}

static const char *fmt(dra_mgroups_t *g, const char *f, ...) DRA_PRINTF(2, 3);
static const char *fmt(dra_mgroups_t *g, const char *f, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return dra_arena_strdup(&g->arena, buf);
}

static int note(dra_diag_list_t *notes, const char *f, ...) DRA_PRINTF(2, 3);
static int note(dra_diag_list_t *notes, const char *f, ...)
{
    if (!notes)
        return DRA_OK;
    char buf[DRA_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return dra_diag_list_add(notes, DRA_OK, NULL, 0, 0, "%s", buf);
}

/* Why the API server would reject PodGroup pg under features f (NULL: accepted). */
static const char *rejection(dra_mgroups_t *g, const dra_podgroup_t *pg)
{
    const dra_group_sched_t *s = &pg->s;
    /* the version the release serves: v1alpha2 in 1.36, v1beta1 from 1.37 (v1alpha2 no longer
     * served, kubernetes/kubernetes#139743's release) */
    bool beta = pg->api_version && strcmp(pg->api_version, "scheduling.k8s.io/v1beta1") == 0;
    bool want_beta = g->f.release >= DRA_RELEASE_1_37;
    if (pg->api_version && beta != want_beta)
        return fmt(g, "%s is not served in release %s (scheduling.k8s.io/%s is)", pg->api_version,
                   dra_alloc_release_name((dra_release_t)g->f.release),
                   want_beta ? "v1beta1" : "v1alpha2");
    if (!s->has_policy || s->basic == s->gang)
        return "spec.schedulingPolicy must set exactly one of basic, gang";
    if (s->gang && (!s->has_min_count || s->min_count < 1 || s->min_count > INT32_MAX))
        return "spec.schedulingPolicy.gang.minCount must be at least 1";
    if (s->has_constraints) {
        if (!dra_alloc_gate_on(&g->f, DRA_GATE_TOPOLOGY_AWARE_WORKLOAD))
            return fmt(g, "spec.schedulingConstraints is forbidden while "
                          "TopologyAwareWorkloadScheduling is off (release %s; --feature "
                          "TopologyAwareWorkloadScheduling=true)",
                       dra_alloc_release_name((dra_release_t)g->f.release));
        if (s->ntopology > 1)
            return "spec.schedulingConstraints.topology: at most one key";
        for (uint32_t i = 0; i < s->ntopology; i++)
            if (!s->topology[i] || !dra_name_is_label_key(s->topology[i]))
                return "spec.schedulingConstraints.topology[].key: not a label key";
    }
    if (dra_alloc_gate_on(&g->f, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS)) {
        if (s->nclaims > DRA_GROUP_MAX_GCLAIMS)
            return "spec.resourceClaims: at most 4 entries";
        for (uint32_t i = 0; i < s->nclaims; i++)
            if (!s->claims[i].name ||
                (s->claims[i].claim_name != NULL) == (s->claims[i].template_name != NULL))
                return "spec.resourceClaims[]: a name and exactly one of resourceClaimName, "
                       "resourceClaimTemplateName";
    }
    return NULL;
}

static int add_member(mg_group_t *gr, const mg_member_t *mb)
{
    if (gr->nmembers == gr->cap) {
        uint32_t nc = gr->cap ? gr->cap * 2 : 8;
        mg_member_t *v = realloc(gr->members, nc * sizeof *v);
        if (!v)
            return DRA_ENOMEM;
        gr->members = v;
        gr->cap = nc;
    }
    gr->members[gr->nmembers++] = *mb;
    return DRA_OK;
}

static bool same_entry(const dra_pod_claim_t *pc, const dra_group_claim_t *gc)
{
    return pc->name && gc->name && strcmp(pc->name, gc->name) == 0 &&
           ((!pc->claim_name && !gc->claim_name) ||
            (pc->claim_name && gc->claim_name && strcmp(pc->claim_name, gc->claim_name) == 0)) &&
           ((!pc->template_name && !gc->template_name) ||
            (pc->template_name && gc->template_name &&
             strcmp(pc->template_name, gc->template_name) == 0));
}

/* The group's claims: instantiated from their templates ("<podgroup>-<name>") or found. */
static int resolve_gclaims(dra_mgroups_t *g, mg_group_t *gr)
{
    const dra_podgroup_t *pg = gr->pg;
    if (!dra_alloc_gate_on(&g->f, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS))
        return DRA_OK;
    for (uint32_t k = 0; k < pg->s.nclaims && k < DRA_GROUP_MAX_GCLAIMS; k++) {
        const dra_group_claim_t *gc = &pg->s.claims[k];
        dra_claim_t *c = NULL;
        if (gc->template_name) {
            const dra_claim_t *t = dra_model_find_template(g->m, pg->namespace_, gc->template_name);
            if (!t) {
                gr->refused = fmt(g, "group claim %s: ResourceClaimTemplate %s/%s not found",
                                  nz(gc->name), ns_of(pg->namespace_), gc->template_name);
                return DRA_OK;
            }
            char nm[600];
            snprintf(nm, sizeof nm, "%s-%s", nz(pg->name), nz(gc->name));
            c = dra_model_instantiate(g->m, t, pg->namespace_, nm);
            if (!c)
                return DRA_ENOMEM;
        } else {
            c = dra_model_find_claim(g->m, pg->namespace_, gc->claim_name);
            if (!c) {
                gr->refused = fmt(g, "group claim %s: ResourceClaim %s/%s not found", nz(gc->name),
                                  ns_of(pg->namespace_), nz(gc->claim_name));
                return DRA_OK;
            }
        }
        gr->gcl[k] = c;
        gr->ngcl = k + 1;
    }
    return DRA_OK;
}

static uint32_t find_node(const dra_model_t *m, const char *name)
{
    for (uint32_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i]->name && strcmp(m->nodes[i]->name, name) == 0)
            return i;
    return m->nnodes;
}

/* One replica of pod p as a member of gr. */
static int member_of(dra_mgroups_t *g, mg_group_t *gr, uint32_t p, int64_t reps, int64_t rep)
{
    dra_model_t *m = g->m;
    const dra_pod_t *pod = m->pods[p];
    mg_member_t mb;
    memset(&mb, 0, sizeof mb);
    mb.pod = p;
    mb.name = reps > 1 ? fmt(g, "%s-%lld", nz(pod->name), (long long)rep) : fmt(g, "%s", nz(pod->name));
    mb.bound = pod->node_name ? find_node(m, pod->node_name) : NONE;
    mb.sched = pod->scheduler_name ? pod->scheduler_name : "default-scheduler";
    mb.prio = pod->has_priority ? pod->priority : 0;
    if (!mb.name)
        return DRA_ENOMEM;
    mb.own = dra_arena_calloc(&g->arena, pod->nclaims ? pod->nclaims : 1, sizeof *mb.own, 8);
    if (!mb.own)
        return DRA_ENOMEM;
    bool gate = dra_alloc_gate_on(&g->f, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS);
    for (uint32_t k = 0; k < pod->nclaims; k++) {
        const dra_pod_claim_t *pc = &pod->claims[k];
        bool grp = false;
        for (uint32_t j = 0; gate && j < gr->pg->s.nclaims && j < DRA_GROUP_MAX_GCLAIMS; j++)
            if (same_entry(pc, &gr->pg->s.claims[j])) {
                mb.gmask |= 1u << j;
                grp = true;
                break;
            }
        if (grp)
            continue;
        dra_claim_t *c = NULL;
        if (pc->claim_name) {
            c = dra_model_find_claim(m, pod->namespace_, pc->claim_name);
        } else if (pc->template_name) {
            const dra_claim_t *t = dra_model_find_template(m, pod->namespace_, pc->template_name);
            if (t) {
                char nm[600];
                snprintf(nm, sizeof nm, "%s-%s", mb.name, nz(pc->name));
                c = dra_model_instantiate(m, t, pod->namespace_, nm);
                if (!c)
                    return DRA_ENOMEM;
            }
        }
        if (!c) {
            mb.broken = fmt(g, "claim %s not found", nz(pc->name));
            continue;
        }
        mb.own[mb.nown++] = c;
    }
    return add_member(gr, &mb);
}

int dra_mgroups_new(dra_model_t *m, const dra_alloc_features_t *f, dra_mgroups_t **out,
                    dra_diag_list_t *notes)
{
    *out = NULL;
    dra_mgroups_t *g = calloc(1, sizeof *g);
    if (!g)
        return DRA_ENOMEM;
    g->m = m;
    g->f = *f;
    dra_arena_init(&g->arena, 0);
    uint32_t np = m->npods;
    g->pod_kind = calloc(np ? np : 1, 1);
    g->pod_group = calloc(np ? np : 1, sizeof *g->pod_group);
    g->pod_why = calloc(np ? np : 1, sizeof *g->pod_why);
    if (!g->pod_kind || !g->pod_group || !g->pod_why) {
        dra_mgroups_free(g);
        return DRA_ENOMEM;
    }
    *out = g;
    uint32_t with_group = 0;
    for (uint32_t p = 0; p < np; p++)
        with_group += m->pods[p]->has_group;
    bool generic = dra_alloc_gate_on(f, DRA_GATE_GENERIC_WORKLOAD);
    if (!generic) {
        if (m->npodgroups || with_group)
            return note(notes,
                        "%u PodGroup(s) and the schedulingGroup of %u pod(s) ignored: "
                        "GenericWorkload is off in release %s (--feature GenericWorkload=true "
                        "schedules them as groups); every pod is scheduled alone",
                        m->npodgroups, with_group, dra_alloc_release_name((dra_release_t)f->release));
        return DRA_OK;
    }
    uint32_t dropped = 0, basic = 0;
    g->groups = calloc(m->npodgroups ? m->npodgroups : 1, sizeof *g->groups);
    if (!g->groups)
        return DRA_ENOMEM;
    g->ngroups = m->npodgroups;
    for (uint32_t i = 0; i < m->npodgroups; i++) {
        mg_group_t *gr = &g->groups[i];
        gr->pg = m->podgroups[i];
        gr->rejected = rejection(g, gr->pg);
        if (!dra_alloc_gate_on(f, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS))
            dropped += gr->pg->s.nclaims ? 1 : 0;
        if (gr->pg->s.gang && !dra_alloc_gang_on(f))
            basic++;
        if (gr->rejected)
            continue;
        int rc = resolve_gclaims(g, gr);
        if (rc)
            return rc;
        if (gr->pg->s.has_constraints && gr->pg->s.ntopology == 1) {
            if ((rc = dra_group_topo_new(m, gr->pg->s.topology[0], &gr->topo)))
                return rc;
        }
    }
    if (dropped &&
        note(notes,
             "the resourceClaims of %u PodGroup(s) dropped: DRAWorkloadResourceClaims is off in "
             "release %s (--feature DRAWorkloadResourceClaims=true); a pod's matching claim is "
             "then its own",
             dropped, dra_alloc_release_name((dra_release_t)f->release)) != DRA_OK)
        return DRA_ENOMEM;
    if (basic && note(notes,
                      "the gang policy of %u PodGroup(s) has no minCount: GangScheduling is off "
                      "in release %s (--feature GangScheduling=true); their pods are scheduled "
                      "as a basic group",
                      basic, dra_alloc_release_name((dra_release_t)f->release)) != DRA_OK)
        return DRA_ENOMEM;
    for (uint32_t p = 0; p < np; p++) {
        const dra_pod_t *pod = m->pods[p];
        if (!pod->has_group)
            continue;
        if (!pod->group) {
            g->pod_kind[p] = DRA_MG_WAITS;
            g->pod_why[p] = "spec.schedulingGroup names no PodGroup (podGroupName missing)";
            continue;
        }
        uint32_t gi = NONE;
        for (uint32_t i = 0; i < g->ngroups && gi == NONE; i++)
            if (g->groups[i].pg->name && strcmp(g->groups[i].pg->name, pod->group) == 0 &&
                strcmp(ns_of(g->groups[i].pg->namespace_), ns_of(pod->namespace_)) == 0)
                gi = i;
        if (gi == NONE) {
            g->pod_kind[p] = DRA_MG_WAITS;
            g->pod_why[p] = fmt(g, "PodGroup %s/%s does not exist: the pod waits for it",
                                ns_of(pod->namespace_), pod->group);
            continue;
        }
        mg_group_t *gr = &g->groups[gi];
        if (gr->rejected) {
            g->pod_kind[p] = DRA_MG_WAITS;
            g->pod_why[p] = fmt(g, "PodGroup %s/%s is rejected by the API server (%s): the pod "
                                   "waits for a valid one",
                                ns_of(pod->namespace_), pod->group, gr->rejected);
            continue;
        }
        g->pod_kind[p] = DRA_MG_MEMBER;
        g->pod_group[p] = gi;
        int64_t reps = pod->replicas > 0 ? pod->replicas : 1;
        for (int64_t r = 0; r < reps; r++) {
            int rc = member_of(g, gr, p, reps, r);
            if (rc)
                return rc;
        }
    }
    for (uint32_t i = 0; i < g->ngroups; i++) {
        mg_group_t *gr = &g->groups[i];
        if (gr->nmembers > DRA_GROUP_MAX_MEMBERS && !gr->refused)
            gr->refused = fmt(g, "%u pods: drabench schedules groups of at most %u", gr->nmembers,
                              DRA_GROUP_MAX_MEMBERS);
        for (uint32_t k = 1; k < gr->nmembers && !gr->refused; k++)
            if (strcmp(gr->members[k].sched, gr->members[0].sched) != 0)
                gr->refused = fmt(g, "pods of the group disagree on spec.schedulerName (%s: %s, "
                                     "%s: %s): all of them are rejected",
                                  gr->members[0].name, gr->members[0].sched, gr->members[k].name,
                                  gr->members[k].sched);
        if (gr->nmembers) {
            gr->gm = dra_arena_calloc(&g->arena, gr->nmembers, sizeof *gr->gm, 8);
            if (!gr->gm)
                return DRA_ENOMEM;
        }
    }
    return DRA_OK;
}

void dra_mgroups_free(dra_mgroups_t *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->ngroups; i++) {
        free(g->groups[i].members);
        dra_group_topo_free(g->groups[i].topo);
    }
    free(g->groups);
    free(g->pod_kind);
    free(g->pod_group);
    free(g->pod_why);
    dra_arena_fini(&g->arena);
    free(g);
}

dra_mg_pod_t dra_mgroups_pod(const dra_mgroups_t *g, uint32_t p, uint32_t *group, const char **why)
{
    if (p >= g->m->npods)
        return DRA_MG_ALONE;
    if (group)
        *group = g->pod_group[p];
    if (why)
        *why = g->pod_why[p];
    return (dra_mg_pod_t)g->pod_kind[p];
}

uint32_t dra_mgroups_count(const dra_mgroups_t *g)
{
    return g->ngroups;
}

const dra_podgroup_t *dra_mgroups_podgroup(const dra_mgroups_t *g, uint32_t group)
{
    return group < g->ngroups ? g->groups[group].pg : NULL;
}

uint32_t dra_mgroups_members(const dra_mgroups_t *g, uint32_t group)
{
    return group < g->ngroups ? g->groups[group].nmembers : 0;
}

const char *dra_mgroups_member_name(const dra_mgroups_t *g, uint32_t group, uint32_t member)
{
    return group < g->ngroups && member < g->groups[group].nmembers
               ? g->groups[group].members[member].name
               : "?";
}

dra_claim_t *dra_mgroups_gclaim(const dra_mgroups_t *g, uint32_t group, uint32_t k)
{
    return group < g->ngroups && k < g->groups[group].ngcl ? g->groups[group].gcl[k] : NULL;
}

dra_claim_t *const *dra_mgroups_own(const dra_mgroups_t *g, uint32_t group, uint32_t member,
                                    uint32_t *nown)
{
    *nown = 0;
    if (group >= g->ngroups || member >= g->groups[group].nmembers)
        return NULL;
    *nown = g->groups[group].members[member].nown;
    return g->groups[group].members[member].own;
}

uint32_t dra_mgroups_max_members(const dra_mgroups_t *g)
{
    uint32_t mx = 0;
    for (uint32_t i = 0; i < g->ngroups; i++)
        if (g->groups[i].nmembers > mx)
            mx = g->groups[i].nmembers;
    return mx;
}

/* ---- the host: an allocator on node after node ------------------------------------------------ */

typedef struct mhost {
    dra_mgroups_t *g;
    mg_group_t *gr;
    const dra_mgroups_env_t *env;
    dra_claim_t *batch[64];
} mhost_t;

static int h_answer(void *ctx, uint32_t member, uint32_t need, uint32_t node, dra_arena_t *arena,
                    dra_alloc_outcome_t *out)
{
    mhost_t *h = ctx;
    const mg_member_t *mb = &h->gr->members[member];
    const dra_node_t *n = h->g->m->nodes[node];
    memset(out, 0, sizeof *out);
    out->kind = DRA_OUTCOME_UNSATISFIABLE;
    if (mb->broken || (h->env->only_node && strcmp(h->env->only_node, nz(n->name)) != 0))
        return DRA_OK;
    uint32_t nb = 0;
    for (uint32_t k = 0; k < h->gr->ngcl; k++)
        if (need >> k & 1u)
            h->batch[nb++] = h->gr->gcl[k];
    for (uint32_t k = 0; k < mb->nown && nb < 64; k++)
        if (!mb->own[k]->allocation)
            h->batch[nb++] = mb->own[k];
    if (nb == 0) { /* nothing to allocate: the node takes the pod */
        out->kind = DRA_OUTCOME_ALLOCATED;
        return DRA_OK;
    }
    return dra_anyalloc_allocate(h->env->al, n, h->batch, nb, arena, out);
}

static int h_commit(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                    dra_allocation_t *const *a, uint32_t n)
{
    mhost_t *h = ctx;
    (void)member, (void)need, (void)node;
    for (uint32_t i = 0; i < n; i++) {
        int rc = dra_alloc_state_commit(h->env->st, a[i]);
        if (rc)
            return rc;
    }
    return DRA_OK;
}

static int h_release(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                     dra_allocation_t *const *a, uint32_t n)
{
    mhost_t *h = ctx;
    (void)member, (void)need, (void)node;
    int first = DRA_OK;
    for (uint32_t i = n; i-- > 0;) {
        int rc = dra_alloc_state_release(h->env->st, a[i]);
        if (rc && !first)
            first = rc;
    }
    return first;
}

static uint32_t h_score(void *ctx, uint32_t node)
{
    (void)ctx, (void)node;
    return 0; /* alloc places first-fit */
}

static void h_res(void *ctx, uint32_t node, int64_t out[4])
{
    (void)ctx, (void)node;
    out[0] = out[1] = -1; /* alloc does not model cpu / memory */
    out[2] = out[3] = 0;
}

int dra_mgroups_schedule(dra_mgroups_t *g, uint32_t group, const dra_mgroups_env_t *env,
                         dra_group_ctx_t *ctx, dra_arena_t *arena, dra_group_result_t *out)
{
    if (group >= g->ngroups)
        return DRA_EINVAL;
    mg_group_t *gr = &g->groups[group];
    const dra_podgroup_t *pg = gr->pg;
    dra_group_spec_t spec;
    memset(&spec, 0, sizeof spec);
    spec.policy = pg->s.gang ? DRA_GROUP_GANG : DRA_GROUP_BASIC;
    spec.min_count = pg->s.gang ? (uint32_t)pg->s.min_count : 1;
    spec.gang_gate = dra_alloc_gang_on(&g->f);
    spec.tas = dra_alloc_gate_on(&g->f, DRA_GATE_TOPOLOGY_AWARE_WORKLOAD);
    spec.topo = gr->topo;
    spec.node_policy = env->policy;
    spec.ngclaims = gr->ngcl;
    for (uint32_t k = 0; k < gr->ngcl; k++)
        spec.gclaim_alloc[k] = gr->gcl[k] ? gr->gcl[k]->allocation : NULL;
    for (uint32_t i = 0; i < gr->nmembers; i++) {
        const mg_member_t *mb = &gr->members[i];
        gr->gm[i] = (dra_group_member_t){mb->gmask, mb->bound, mb->prio, 0, 0, 0};
    }
    spec.members = gr->gm;
    spec.nmembers = gr->nmembers;
    if (gr->refused) {
        memset(out, 0, sizeof *out);
        out->outcome = DRA_GROUP_UNSCHEDULABLE;
        out->domain = out->best_domain = out->short_member = NONE;
        out->score = -1;
        out->pending = gr->nmembers;
        out->members = dra_arena_calloc(arena, gr->nmembers ? gr->nmembers : 1,
                                        sizeof *out->members, 8);
        if (!out->members)
            return DRA_ENOMEM;
        for (uint32_t i = 0; i < gr->nmembers; i++) {
            out->members[i].node = gr->members[i].bound;
            out->members[i].kind = DRA_OUTCOME_UNSATISFIABLE;
        }
        snprintf(out->reason, sizeof out->reason, "%s", gr->refused);
        return DRA_OK;
    }
    mhost_t mh = {g, gr, env, {0}};
    dra_group_host_t h = {&mh, g->m, h_answer, h_commit, h_release, h_score, h_res, NULL, NULL};
    return env->fast ? dra_group_cycle_fast(ctx, &spec, &h, arena, out)
                     : dra_group_cycle_reference(ctx, &spec, &h, arena, out);
}

void dra_mgroups_apply(dra_mgroups_t *g, uint32_t group, const dra_group_result_t *r)
{
    if (group >= g->ngroups || (r->outcome != DRA_GROUP_PLACED && r->outcome != DRA_GROUP_PARTIAL))
        return;
    mg_group_t *gr = &g->groups[group];
    for (uint32_t k = 0; k < gr->ngcl; k++)
        if (gr->gcl[k] && r->gclaim_alloc[k])
            gr->gcl[k]->allocation = r->gclaim_alloc[k];
    for (uint32_t i = 0; i < gr->nmembers; i++) {
        const dra_group_member_res_t *mr = &r->members[i];
        const mg_member_t *mb = &gr->members[i];
        if (mr->kind != DRA_OUTCOME_ALLOCATED || mb->bound != NONE || !mr->allocs)
            continue;
        uint32_t j = (uint32_t)__builtin_popcount(mr->need);
        for (uint32_t k = 0; k < mb->nown; k++)
            if (!mb->own[k]->allocation && j < mr->nallocs)
                mb->own[k]->allocation = mr->allocs[j++];
    }
}

void dra_mgroups_describe(const dra_mgroups_t *g, uint32_t group, const dra_group_result_t *r,
                          char *buf, size_t len)
{
    const mg_group_t *gr = &g->groups[group];
    const dra_podgroup_t *pg = gr->pg;
    size_t u = (size_t)snprintf(buf, len, "%s %s/%s", pg->s.gang ? "gang" : "basic group",
                                ns_of(pg->namespace_), nz(pg->name));
    if (pg->s.gang && u < len)
        u += (size_t)snprintf(buf + u, len - u, " (minCount %lld)", (long long)pg->s.min_count);
    if (u >= len)
        return;
    if (r->outcome == DRA_GROUP_PLACED || r->outcome == DRA_GROUP_PARTIAL) {
        u += (size_t)snprintf(buf + u, len - u, ": %s %u/%u pods",
                              r->outcome == DRA_GROUP_PLACED ? "placed" : "placed partially",
                              r->placed, r->pending);
        if (r->domain != NONE && gr->topo && u < len)
            u += (size_t)snprintf(buf + u, len - u, " in %s=%s", gr->topo->key,
                                  gr->topo->values[r->domain]);
        for (uint32_t i = 0; i < gr->nmembers && u < len; i++) {
            const dra_group_member_res_t *mr = &r->members[i];
            if (gr->members[i].bound != NONE)
                continue;
            bool on = mr->kind == DRA_OUTCOME_ALLOCATED && mr->node < g->m->nnodes;
            u += (size_t)snprintf(buf + u, len - u, "%s %s %s%s", i ? "," : ":",
                                  gr->members[i].name, on ? "on " : "",
                                  on ? nz(g->m->nodes[mr->node]->name) : "waits");
        }
        for (uint32_t k = 0; k < gr->ngcl && u < len; k++)
            if (r->gclaim_alloc[k])
                u += (size_t)snprintf(buf + u, len - u, "; group claim %s shared",
                                      nz(gr->gcl[k]->name));
        if (r->outcome == DRA_GROUP_PARTIAL && u < len)
            snprintf(buf + u, len - u, " (%s)", r->reason);
        return;
    }
    u += (size_t)snprintf(buf + u, len - u, ": %s: %s", dra_group_outcome_name(r->outcome),
                          r->reason);
    if (r->short_member != NONE && r->short_member < gr->nmembers && u < len) {
        const mg_member_t *mb = &gr->members[r->short_member];
        dra_outcome_t k = r->members[r->short_member].kind;
        snprintf(buf + u, len - u, " (first short: pod %s, %s%s)", mb->name,
                 mb->broken ? mb->broken : dra_outcome_name(k),
                 k == DRA_OUTCOME_UNSATISFIABLE && !mb->broken ? " on every node tried" : "");
    }
}
