/*
 * groups.h - PodGroups of a manifest set, scheduled as groups (the group cycle of
 * core/group/group.h) by `drabench alloc` and the GroupTest conformance cases.
 *
 * dra_mgroups_new finds, for the release's gates, which pods belong to which PodGroup and what
 * happens to the others:
 *  - GenericWorkload off: PodGroups do not exist for the scheduler and pods' schedulingGroup is
 *    dropped (the API server drops gated fields): every pod is scheduled alone (one note).
 *  - a pod naming a PodGroup that is not among the inputs, or one the API server would reject
 *    (no or two policies, minCount below 1, schedulingConstraints while
 *    TopologyAwareWorkloadScheduling is off), waits: it is never tried (upstream:
 *    UnschedulableAndUnresolvable until the PodGroup appears), with the reason and the pod's
 *    position;
 *  - DRAWorkloadResourceClaims off: a PodGroup's resourceClaims are dropped (note), so a pod's
 *    matching claim is its own claim;
 *  - the members of a group: every replica of every pod (in input order) whose
 *    spec.schedulingGroup names it, in its namespace; a pod with spec.nodeName is a bound member
 *    on that node. A member's claim entry that equals a group claim entry in name,
 *    resourceClaimName and resourceClaimTemplateName is the group's claim (instantiated once as
 *    "<podgroup>-<name>" from a template, or the named claim); every other entry is the pod's
 *    own ("<pod>-<name>" from a template, as alloc names claims of pods alone).
 *  - pods of one group with different spec.schedulerName values: the whole group is rejected
 *    (unschedulable) before the cycle, as upstream validates.
 * dra_mgroups_schedule runs one group's cycle with an allocator on a state (first-fit over the
 * nodes, or one node), committing what it keeps; dra_mgroups_apply writes the kept allocations
 * into the claims (for printing).
 *
 * Ownership: the groups object borrows the model (claims it instantiates go into the model);
 * names and topologies are its own (dra_mgroups_free). Errors: DRA_ENOMEM, DRA_EINVAL, an
 * allocator's error. Cost: O(pods + groups * members) to set up; a cycle as core/group/group.h.
 */
#ifndef DRA_MGROUPS_H
#define DRA_MGROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "base/arena.h"
#include "group/group.h"
#include "model/model.h"

typedef struct dra_mgroups dra_mgroups_t;

/* What happens to a pod. */
typedef enum dra_mg_pod {
    DRA_MG_ALONE = 0, /* scheduled on its own */
    DRA_MG_MEMBER,    /* scheduled by its group's cycle */
    DRA_MG_WAITS,     /* never tried: its PodGroup is missing or rejected */
} dra_mg_pod_t;

/* notes: one line each (gates that drop fields or groups), caller-owned list. */
DRA_NODISCARD int dra_mgroups_new(dra_model_t *m, const dra_alloc_features_t *f,
                                  dra_mgroups_t **out, dra_diag_list_t *notes);
void dra_mgroups_free(dra_mgroups_t *g);

/* Pod p's fate; for MEMBER *group its group, for WAITS *why the reason (the groups' memory). */
dra_mg_pod_t dra_mgroups_pod(const dra_mgroups_t *g, uint32_t p, uint32_t *group,
                             const char **why);
uint32_t dra_mgroups_count(const dra_mgroups_t *g);
const dra_podgroup_t *dra_mgroups_podgroup(const dra_mgroups_t *g, uint32_t group);
uint32_t dra_mgroups_members(const dra_mgroups_t *g, uint32_t group);
/* "<pod>" or "<pod>-<replica>" */
const char *dra_mgroups_member_name(const dra_mgroups_t *g, uint32_t group, uint32_t member);
/* A group claim's claim object (NULL when the group has fewer). */
dra_claim_t *dra_mgroups_gclaim(const dra_mgroups_t *g, uint32_t group, uint32_t k);
/* The member's own claims (nown). */
dra_claim_t *const *dra_mgroups_own(const dra_mgroups_t *g, uint32_t group, uint32_t member,
                                    uint32_t *nown);

typedef struct dra_mgroups_env {
    dra_anyalloc_t *al;        /* the allocator answering on one node */
    dra_alloc_state_t *st;     /* the state it reads, which assumptions are committed to */
    const char *only_node;     /* try this node only (NULL: all, in order) */
    dra_engine_policy_t policy;/* node order within a placement (alloc: first-fit) */
    bool fast;                 /* dra_group_cycle_fast (alloc has no engine index: its procedure
                                  without per-domain summaries), else the reference cycle */
} dra_mgroups_env_t;

/* One cycle of `group` (a group rejected before the cycle gets outcome UNSCHEDULABLE with its
 * reason, no allocator call). ctx is scratch for the model's node count and the largest group.
 * Kept allocations are committed to env->st and live in arena. */
DRA_NODISCARD int dra_mgroups_schedule(dra_mgroups_t *g, uint32_t group,
                                       const dra_mgroups_env_t *env, dra_group_ctx_t *ctx,
                                       dra_arena_t *arena, dra_group_result_t *out);
/* Set the claims' status.allocation from a kept result (own claims and group claims). */
void dra_mgroups_apply(dra_mgroups_t *g, uint32_t group, const dra_group_result_t *r);
/* Largest group (members), for dra_group_ctx_new. */
uint32_t dra_mgroups_max_members(const dra_mgroups_t *g);

/* One line: "gang team-a/g (minCount 4): placed 4/4 pods [in key=value]" plus the reason and the
 * member that was short, with names. */
void dra_mgroups_describe(const dra_mgroups_t *g, uint32_t group, const dra_group_result_t *r,
                          char *buf, size_t len);

#endif /* DRA_MGROUPS_H */
