/*
 * manifest_read.c - Kubernetes manifests (YAML/JSON, resource.k8s.io v1..v1alpha3) into the model:
 * documents, List wrappers, the kind dispatch and the public entry points (scheduling.k8s.io
 * PodGroup and Workload too). Each kind is read in
 * its own file (manifest_kinds.h lists them; the reading context they share is manifest_rctx.h).
 *
 * One pass over each document's ydoc tree. A small context tracks the object (Kind/name) and the
 * field path for messages; every problem is reported and reading continues with the next field,
 * so a file with ten faults gives ten messages. Old API shapes are mapped as they are decoded:
 * v1beta1/v1alpha3 requests carry the `exactly` fields inline, v1beta1/v1alpha3 devices wrap
 * attributes and capacity in `basic`, and v1alpha3 capacities may be bare quantities.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "manifest.h"
#include "manifest_kinds.h"
#include "walk.h"
#include "ydoc.h"

/* ---- documents --------------------------------------------------------------------------- */

typedef struct rctx {
    rd_t rd;
    int rc;
} rctx_t;

static int api_of(const char *apiv)
{
    if (!apiv)
        return 0;
    if (strcmp(apiv, "resource.k8s.io/v1") == 0)
        return API_V1;
    if (strcmp(apiv, "resource.k8s.io/v1beta2") == 0)
        return API_V1BETA2;
    if (strcmp(apiv, "resource.k8s.io/v1beta1") == 0)
        return API_V1BETA1;
    if (strcmp(apiv, "resource.k8s.io/v1alpha3") == 0)
        return API_V1ALPHA3;
    return -1;
}

static const char *const k_top[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};

static void rd_object(rd_t *rd, const dra_ynode_t *doc, int depth);

static void rd_list(rd_t *rd, const dra_ynode_t *doc, int depth)
{
    const dra_ynode_t *items = dra_ynode_get(doc, "items");
    size_t s = pushk(rd, "items");
    if (dra_mr_want_seq(rd, items))
        for (uint32_t i = 0; i < items->n; i++) {
            size_t s2 = pushi(rd, i);
            const char *kind = rd->kind, *name = rd->name;
            rd_object(rd, items->vals[i], depth + 1);
            rd->kind = kind;
            rd->name = name;
            pop(rd, s2);
        }
    pop(rd, s);
}

static const char *const k_meta_common[] = {"name", "namespace", "labels", "annotations", NULL};

static void rd_meta(rd_t *rd, const dra_ynode_t *meta, const char **name, const char **ns,
                    const dra_ynode_t **labels)
{
    if (!dra_mr_want_map(rd, meta))
        return;
    dra_mr_case_check(rd, meta, k_meta_common);
    for (uint32_t k = 0; k < meta->n; k++) {
        const char *key = meta->keys[k]->text;
        size_t s = pushk(rd, key);
        if (K("name"))
            *name = dra_mr_str(rd, meta->vals[k], false);
        else if (K("generateName") && !dra_ynode_get(meta, "name"))
            *name = dra_mr_str(rd, meta->vals[k], false); /* the prefix names the object */
        else if (K("namespace") && ns)
            *ns = dra_mr_str(rd, meta->vals[k], false);
        else if (K("labels") && labels)
            *labels = meta->vals[k];
        pop(rd, s);
    }
}

static void rd_object(rd_t *rd, const dra_ynode_t *doc, int depth)
{
    dra_model_t *m = rd->m;
    if (!dra_ynode_is_map(doc)) {
        rd->kind = "?";
        rd->name = NULL;
        dra_mr_err(rd, doc, "expected a Kubernetes object (a map), got %s",
                   dra_ynode_kind_name(doc));
        return;
    }
    const dra_ynode_t *kindn = dra_ynode_get(doc, "kind");
    const dra_ynode_t *apin = dra_ynode_get(doc, "apiVersion");
    const char *kind = kindn && kindn->type == DRA_YNODE_SCALAR ? kindn->text : NULL;
    rd->kind = kind ? kind : "?";
    rd->name = NULL;
    if (!kind) {
        dra_mr_err(rd, doc, "kind: required field missing");
        return;
    }
    size_t kl = strlen(kind);
    bool is_list = dra_ynode_get(doc, "items") &&
                   (strcmp(kind, "List") == 0 || (kl > 4 && strcmp(kind + kl - 4, "List") == 0));
    static const char *const known_kinds[] = {
        "ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "Pod", "Node",
        "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "PodGroup", "Workload",
        NULL};
    int ki = -1;
    for (int i = 0; known_kinds[i]; i++)
        if (strcmp(kind, known_kinds[i]) == 0)
            ki = i;
    if (ki < 0 && !is_list) {
        m->nskipped++;
        return;
    }
    const dra_ynode_t *meta = dra_ynode_get(doc, "metadata");
    const char *name = NULL, *ns = NULL;
    const dra_ynode_t *labels = NULL;
    {
        size_t s = pushk(rd, "metadata");
        rd_meta(rd, meta, &name, &ns, &labels);
        pop(rd, s);
    }
    rd->name = name;
    dra_mr_case_check(rd, doc, k_top);
    const char *apiv = NULL;
    if (!apin) {
        dra_mr_err(rd, doc, "apiVersion: required field missing");
    } else {
        size_t s = pushk(rd, "apiVersion");
        apiv = dra_mr_str(rd, apin, false);
        pop(rd, s);
    }
    if (is_list) {
        if (depth > 2)
            dra_mr_err(rd, doc, "nested List too deep");
        else
            rd_list(rd, doc, depth);
        return;
    }
    if (!name && ki != 3 && ki != 4 && !(meta && dra_ynode_get(meta, "generateName")))
        dra_mr_err(rd, meta ? meta : doc, "metadata.name: required field missing");
    int api = api_of(apiv);
    rd->api = api;
    if (ki <= 3) { /* resource.k8s.io kinds */
        if (apiv && api < 0)
            dra_mr_err(rd, apin, "unsupported apiVersion \"%s\" for %s (want resource.k8s.io/v1, "
                                 "v1beta2, v1beta1 or v1alpha3)",
                       apiv, kind);
        for (uint32_t i = 0; i < doc->n; i++) {
            const char *key = doc->keys[i]->text;
            if (!K("apiVersion") && !K("kind") && !K("metadata") && !K("spec") &&
                !(K("status") && ki == 2)) {
                size_t s = pushk(rd, key);
                dra_mr_unknown_field(rd, doc->keys[i], k_top);
                pop(rd, s);
            }
        }
    }
    dra_mr_obj_t o = {.doc = doc,
                      .spec = dra_ynode_get(doc, "spec"),
                      .labels = labels,
                      .name = name,
                      .ns = ns,
                      .api_version = apiv,
                      .pos = {rd->file, doc->line, doc->column},
                      .spath = pushk(rd, "spec")};
    switch (ki) {
    case 0:
        dra_mr_read_slice(rd, &o);
        break;
    case 1:
        dra_mr_read_class(rd, &o);
        break;
    case 2:
    case 3:
        dra_mr_read_claim(rd, &o, ki == 3);
        break;
    case 4:
        dra_mr_read_pod(rd, &o);
        break;
    case 5:
        dra_mr_read_node(rd, &o);
        break;
    case 11:
        dra_mr_read_podgroup(rd, &o);
        break;
    case 12:
        dra_mr_read_sched_workload(rd, &o);
        break;
    default: { /* workloads: 6 Deployment 7 ReplicaSet 8 StatefulSet 9 DaemonSet 10 Job */
        static const dra_pod_kind_t kinds[] = {DRA_POD_DEPLOYMENT, DRA_POD_REPLICASET,
                                               DRA_POD_STATEFULSET, DRA_POD_DAEMONSET,
                                               DRA_POD_JOB};
        dra_mr_read_workload(rd, &o, kinds[ki - 6]);
        break;
    }
    }
    pop(rd, o.spath);
}

static int on_doc(const dra_ynode_t *root, void *ud)
{
    rctx_t *c = ud;
    c->rd.plen = 0;
    c->rd.path[0] = 0;
    rd_object(&c->rd, root, 0);
    return DRA_OK;
}

int dra_manifest_read_buffer(dra_model_t *m, const char *file, const char *buf, size_t len,
                             dra_diag_list_t *errs)
{
    dra_ydoc_split_t sp = {.at = DRA_YDOC_SPLIT_AUTO};
    return dra_manifest_read_buffer_split(m, file, buf, len, &sp, errs);
}

int dra_manifest_read_buffer_split(dra_model_t *m, const char *file, const char *buf, size_t len,
                                   dra_ydoc_split_t *sp, dra_diag_list_t *errs)
{
    rctx_t c;
    memset(&c, 0, sizeof c);
    c.rd.m = m;
    c.rd.file = dra_model_str(m, file ? file : "<input>");
    c.rd.errs = errs;
    dra_arena_t scratch;
    dra_arena_init(&scratch, 0);
    int rc = dra_ydoc_parse_split(buf, len, c.rd.file, &scratch, DRA_YDOC_RESET_PER_DOC, sp, on_doc,
                                  &c, errs);
    dra_arena_fini(&scratch);
    if (rc == DRA_OK && c.rd.nerr)
        rc = DRA_EVALIDATE;
    return rc;
}

static int read_one(dra_model_t *m, const char *path, dra_diag_list_t *errs)
{
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_io_read_file(path, DRA_MANIFEST_MAX_FILE, &buf, &len, &d);
    if (rc != DRA_OK) {
        if (errs)
            (void)dra_diag_list_add(errs, rc, path, 0, 0, "%s",
                                    d.msg[0] ? d.msg : dra_strerror(rc));
        return rc;
    }
    rc = dra_manifest_read_buffer(m, path, buf, len, errs);
    free(buf);
    return rc;
}

int dra_manifest_read_file(dra_model_t *m, const char *path, dra_diag_list_t *errs)
{
    int rc = read_one(m, path, errs);
    int rc2 = dra_model_imply_nodes(m);
    return rc ? rc : rc2;
}

typedef struct read_paths_ctx {
    dra_model_t *m;
    dra_diag_list_t *errs;
} read_paths_ctx_t;

static int read_paths_one(const char *path, void *ud)
{
    read_paths_ctx_t *c = ud;
    return read_one(c->m, path, c->errs);
}

int dra_manifest_read_paths(dra_model_t *m, char *const *paths, int n, dra_diag_list_t *errs)
{
    read_paths_ctx_t c = {m, errs};
    size_t first = errs ? errs->count : 0;
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    int rc = dra_walk_paths(&w, paths, n, read_paths_one, &c, errs);
    /* the walker's path strings die with it: the diagnostics name the model's copies */
    for (size_t i = first; errs && i < errs->count; i++)
        if (errs->items[i].file) {
            const char *f = dra_model_str(m, errs->items[i].file);
            errs->items[i].file = f ? f : "<path>";
            if (!f && !rc)
                rc = DRA_ENOMEM;
        }
    dra_walk_fini(&w);
    int r = dra_model_imply_nodes(m);
    return rc ? rc : r;
}
