/*
 * reasons.h - the dominant per-node reasons of a claim set that no node took, for the summaries
 * of `drabench run` (outcome_reasons) and `drabench alloc` ("unsatisfiable on every node
 * tried: 16 nodes: ...; 8 nodes: ...").
 *
 * Each node gets one reason (core/alloc/explain.h, the same words as `drabench explain`): from
 * the caller's cheap source first (the placement engine's summaries and node resources: the
 * `summary` callback, which answers for the nodes it can), else from the reference allocator's
 * explain mode without its search (dra_explain_unsat), for at most max_exact nodes (in node
 * order; the rest are counted as not examined, so the cost is bounded and the same in every
 * run). Nodes with equal text form a group; the groups are kept largest first (ties: the first
 * node's order), those of nodes that offer no device of the class at all (dra_why_absent) after
 * the others.
 *
 * Ownership: plain values; the explainer, model and claims are borrowed. Errors: DRA_OK,
 * DRA_ENOMEM, or the explainer's error. Cost: per node the callback, or one explain without the
 * search; O(groups) per node to group. Never inside a timed region.
 */
#ifndef DRA_REASONS_H
#define DRA_REASONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/explain.h"
#include "model/model.h"

#define DRA_NODE_REASONS_MAX 8

typedef struct dra_node_reason {
    dra_why_kind_t kind;
    uint32_t nodes;
    char text[DRA_WHY_TEXT_MAX];
} dra_node_reason_t;

typedef struct dra_node_reasons {
    dra_node_reason_t r[DRA_NODE_REASONS_MAX]; /* largest groups first */
    uint32_t n;
    uint32_t other_groups, other_nodes; /* groups beyond the kept ones */
    uint32_t nodes;                     /* nodes with a reason (not skipped) */
    uint32_t exact;                     /* nodes explained by the allocator's explain mode */
} dra_node_reasons_t;

/* The caller's answer for model node `node`: 1 with *w filled (a reason it knows, e.g. from
 * summaries), 0 to let the allocator's explain mode answer, -1 to leave the node out. */
typedef int (*dra_node_reason_fn)(void *ud, uint32_t node, dra_why_t *w);

/* Reasons of claims[0..n) on every model node of m (summary may be NULL). */
DRA_NODISCARD int dra_node_reasons(dra_explainer_t *x, const dra_model_t *m,
                                   dra_claim_t *const *claims, uint32_t n,
                                   dra_node_reason_fn summary, void *ud, uint32_t max_exact,
                                   dra_node_reasons_t *out);

/* "4,812 nodes: <reason>; 180 nodes: <reason>; ..." for the first k groups (and "N other
 * reasons on M nodes" after), cut at a UTF-8 boundary to fit len. Returns buf. */
const char *dra_node_reasons_text(const dra_node_reasons_t *r, uint32_t k, char *buf, size_t len);

/* "4,812" */
const char *dra_thousands(uint64_t v, char *buf, size_t len);

#endif /* DRA_REASONS_H */
