/*
 * manifest_kinds.h - the per-kind readers of the manifest reader: one object of a kind, read by
 * its own file and called by manifest_read.c's kind dispatch only (files of the manifest reader
 * only; never included from another module).
 *   manifest_read_slice.c  ResourceSlice;   manifest_read_class.c  DeviceClass;
 *   manifest_read_claim.c  ResourceClaim and ResourceClaimTemplate;
 *   manifest_read_pod.c    Pod and the workloads holding a pod template;
 *   manifest_read_node.c   Node;
 *   manifest_read_podgroup.c  PodGroup and Workload (scheduling.k8s.io v1alpha2, v1beta1).
 * A per-kind reader uses the reading context (manifest_rctx.h) and nothing else of the reader:
 * not manifest_read.c, not another kind's file (harness.layering checks it).
 */
#ifndef DRA_MANIFEST_KINDS_H
#define DRA_MANIFEST_KINDS_H

#include "manifest_rctx.h"

/* ---- one object of a kind (the document's spec path is pushed; spath restores it) ---------- */

typedef struct dra_mr_obj {
    const dra_ynode_t *doc;    /* the whole document */
    const dra_ynode_t *spec;   /* doc.spec (may be NULL) */
    const dra_ynode_t *labels; /* metadata.labels (may be NULL) */
    const char *name, *ns, *api_version;
    dra_srcpos_t pos;
    size_t spath; /* field-path length before "spec" */
} dra_mr_obj_t;

void dra_mr_read_slice(rd_t *rd, const dra_mr_obj_t *o);
void dra_mr_read_class(rd_t *rd, const dra_mr_obj_t *o);
void dra_mr_read_claim(rd_t *rd, const dra_mr_obj_t *o, bool is_template);
void dra_mr_read_pod(rd_t *rd, const dra_mr_obj_t *o);
void dra_mr_read_workload(rd_t *rd, const dra_mr_obj_t *o, dra_pod_kind_t kind);
void dra_mr_read_node(rd_t *rd, const dra_mr_obj_t *o);
void dra_mr_read_podgroup(rd_t *rd, const dra_mr_obj_t *o);
void dra_mr_read_sched_workload(rd_t *rd, const dra_mr_obj_t *o); /* kind Workload */

#endif /* DRA_MANIFEST_KINDS_H */
