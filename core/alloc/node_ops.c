/*
 * node_ops.c - optional node operations (DRAOptionalNodeOperations, KEP-5945; alpha from 1.37).
 *
 * A ResourceSlice may list node-local operations the kubelet skips for its devices
 * (spec.skipNodeOperations: "NodePrepareResources", "NodeUnprepareResources", "*"). Upstream's
 * allocator (the table's `optional-node-operations` / `-missing-feature` cases at
 * kubernetes/kubernetes 0c8a1b073dc3; KEP-5945's "Allocator Changes" as updated for alpha)
 * treats a device of such a slice as not allocatable when the allocator's feature is off, or
 * when the candidate node does not list DRAOptionalNodeOperations in status.declaredFeatures;
 * otherwise it copies the slice's list verbatim into each of the device's results
 * (claims.c, dra__acall_build_results). The device is filtered out, not the claim failed, so the
 * search falls back to other devices and nodes: drabench applies the rule where isSelectable
 * decides, beside binding conditions with their gate off (dra__device_selectable_why,
 * dra__slot_binding_blocked), so an allocationMode All request leaves such a device out of its
 * set. Before 1.37 the field does not exist and is ignored.
 *
 * Ownership: nothing is allocated. Errors: none. Cost: O(1) for a slice without the field,
 * O(declared features) otherwise.
 */
#include "alloc/alloc_impl.h"

#include <string.h>

const char *const dra__ono_feature = DRA_NODE_FEATURE_OPTIONAL_NODE_OPERATIONS;

bool dra__node_declares(const dra_node_t *node, const char *feature)
{
    if (!node)
        return false;
    for (uint32_t i = 0; i < node->ndeclared_features; i++)
        if (node->declared_features[i] && strcmp(node->declared_features[i], feature) == 0)
            return true;
    return false;
}

bool dra_alloc_node_declares(const dra_node_t *node, const char *feature)
{
    return dra__node_declares(node, feature);
}

bool dra__node_ops_usable(const dra__beh_t *b, const dra_node_t *node)
{
    return b->ono && dra__node_declares(node, dra__ono_feature);
}

bool dra__node_ops_blocked(const dra__beh_t *b, const dra_node_t *node, const dra_device_t *d)
{
    /* before 1.37 the field does not exist: the API server of those releases does not keep it,
     * so the allocator never sees it (as compatibilityGroups there; `validate --release` says
     * so) */
    return b->release >= DRA_RELEASE_1_37 && d->slice && d->slice->nskip_node_ops > 0 &&
           !dra__node_ops_usable(b, node);
}
