/*
 * manifest.h - Kubernetes manifests <-> the drabench object model: reader, validator, writer.
 *
 * Reader: YAML (multi-document) or JSON files of resource.k8s.io ResourceSlice, DeviceClass,
 * ResourceClaim and ResourceClaimTemplate in v1, v1beta2, v1beta1 and v1alpha3 (older shapes are
 * mapped: flat requests become `exactly`, `basic` device wrappers are unwrapped, bare v1alpha3
 * capacity quantities become `{value}`), core/v1 Pod and Node, the pod templates of apps/v1
 * Deployment, ReplicaSet, StatefulSet, DaemonSet and batch/v1 Job, and `List` / `*List` wrappers.
 * Other kinds (Namespace, DeviceTaintRule, drabench's own AllocationTest and Scenario, ...) are
 * skipped and counted in m->nskipped. Unknown fields inside the objects read are errors (as the
 * API server's strict field validation), except under metadata and in pod specs, where only
 * keys differing from a known field by case are errors.
 *
 * Validator: what the API server would reject and what the allocator relies on (one-of fields,
 * name rules, the limits of DRA-SEMANTICS §1.6, counts, requestPolicy consistency, duplicate
 * device / slice names, counter-set references, tolerations). Rules whose outcome depends on the
 * Kubernetes release (a slice holding both devices and sharedCounters is valid in 1.34 only) are
 * errors when a release is chosen and warnings otherwise. Fields the API requires but that
 * documentation examples commonly trim (a slice's driver, pool, node scoping) are "incomplete"
 * findings: warnings by default, errors with DRA_VALIDATE_STRICT.
 *
 * Writer: v1 multi-document YAML or one JSON `List`, canonical quantities, every field the model
 * holds, so read -> write -> read gives the same dra_model_digest.
 *
 * Diagnostics: every finding is one dra_diag_t with file, line, column and the message
 * "Kind/name: field.path: reason"; readers and the validator report all findings, not only the
 * first. A diagnostic's file pointer points into the model's arena: print or copy diagnostics
 * before dra_model_fini. Ownership: the model owns all it reads (strings copied into its arena); parse trees live
 * in a scratch arena released per document. Cost: O(input); reading 50,000 devices takes well under
 * a second. Not thread-safe (one model per thread).
 */
#ifndef DRA_MANIFEST_H
#define DRA_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "model/model.h"
#include "sbuf.h"
#include "walk.h"
#include "ydoc.h"

/* Largest manifest file read (bytes). */
#define DRA_MANIFEST_MAX_FILE ((size_t)1 << 30)

/* ---- reader ------------------------------------------------------------------------------ */

/* Read every document of buf[0..len) into m. file names positions (copied into the model arena;
 * "*.json" selects JSON, otherwise JSON is detected by a leading `{` or `[`). Returns DRA_OK, or
 * DRA_EPARSE / DRA_EVALIDATE / DRA_ELIMIT with every problem in errs (objects read without error
 * stay in the model), or DRA_ENOMEM. Calls dra_model_slice_done per slice; does NOT call
 * dra_model_imply_nodes (the _file and _paths variants do, after the last file). */
DRA_NODISCARD int dra_manifest_read_buffer(dra_model_t *m, const char *file, const char *buf,
                                           size_t len, dra_diag_list_t *errs);
/* The same with the YAML parse split as sp says (ydoc.h; sp NULL = one thread). The result never
 * depends on the split; dra_manifest_read_buffer uses DRA_YDOC_SPLIT_AUTO (2 threads for YAML
 * inputs of 2 MiB or more; the second half's parse trees are then held until handed over). */
DRA_NODISCARD int dra_manifest_read_buffer_split(dra_model_t *m, const char *file, const char *buf,
                                                 size_t len, dra_ydoc_split_t *sp,
                                                 dra_diag_list_t *errs);
/* Read one file ("-" = stdin), then dra_model_imply_nodes. */
DRA_NODISCARD int dra_manifest_read_file(dra_model_t *m, const char *path, dra_diag_list_t *errs);
/* Files, or directories walked recursively in sorted order (*.yaml, *.yml, *.json; the walk of
 * walk.h: symbolic-link loops, unreadable directories and nesting deeper than 32 are errors naming
 * the path); then dra_model_imply_nodes. Reads every path even after errors; returns the first
 * non-OK code (DRA_EIO for an unreadable directory, DRA_ELIMIT for a loop or depth). The file
 * names of the diagnostics are owned by m. Walking the same order without reading:
 * dra_walk_paths with dra_walk_manifest_suffixes (walk.h). */
DRA_NODISCARD int dra_manifest_read_paths(dra_model_t *m, char *const *paths, int n,
                                          dra_diag_list_t *errs);

/* ---- validator --------------------------------------------------------------------------- */

enum {
    DRA_VALIDATE_STRICT = 1u << 0, /* incomplete objects (trimmed docs) are errors, not warnings */
};

typedef struct dra_validate_opts {
    unsigned flags;  /* DRA_VALIDATE_* */
    int release;     /* 0 = any (release-dependent rules warn), or a dra_release_t (134 ... 138) */
} dra_validate_opts_t;

/* Errors only (release-dependent and incomplete findings are not reported). DRA_OK or
 * DRA_EVALIDATE. */
DRA_NODISCARD int dra_manifest_validate(const dra_model_t *m, dra_diag_list_t *errs);
/* Full form: errors to errs, warnings to warns (either may be NULL; opts NULL = defaults). */
DRA_NODISCARD int dra_manifest_validate_ex(const dra_model_t *m, const dra_validate_opts_t *opts,
                                           dra_diag_list_t *errs, dra_diag_list_t *warns);

/* Name rules (exposed for the generator and tests). */
bool dra_name_is_dns_label(const char *s);     /* RFC 1123 label, <= 63 */
bool dra_name_is_dns_subdomain(const char *s); /* RFC 1123 subdomain, <= 253 */
bool dra_name_is_c_identifier(const char *s);  /* [A-Za-z_][A-Za-z0-9_]*, <= 32 */
/* QualifiedName: C identifier (<= 32) or "<DNS subdomain <= 63>/<C identifier <= 32>". */
bool dra_name_is_qualified(const char *s);
/* Kubernetes label key (optional DNS-subdomain prefix "/" name <= 63). */
bool dra_name_is_label_key(const char *s);
/* A label value (a taint's value): empty, or at most 63 of [A-Za-z0-9-_.] starting and ending
 * with a letter or digit. */
bool dra_name_is_label_value(const char *s);

/* ---- writer ------------------------------------------------------------------------------ */

/* v1 multi-document YAML (Nodes, DeviceClasses, ResourceSlices, ResourceClaimTemplates,
 * ResourceClaims, Pods/workloads), appended to out. Implied nodes are not written. */
DRA_NODISCARD int dra_manifest_write_yaml_buf(const dra_model_t *m, dra_sbuf_t *out);
/* One JSON `List` (apiVersion v1, kind List, items) with the same objects. */
DRA_NODISCARD int dra_manifest_write_json_buf(const dra_model_t *m, dra_sbuf_t *out);
/* Streaming: the output is handed to sink in pieces of about 256 KiB, split at object
 * boundaries, so memory stays bounded by the largest object; the concatenated pieces are the
 * bytes the _buf functions produce. sink returns DRA_OK or an error code, which stops the
 * writer and is returned. */
typedef int (*dra_manifest_sink_fn)(void *ud, const char *p, size_t n);
DRA_NODISCARD int dra_manifest_write_yaml_sink(const dra_model_t *m, dra_manifest_sink_fn sink,
                                               void *ud);
DRA_NODISCARD int dra_manifest_write_json_sink(const dra_model_t *m, dra_manifest_sink_fn sink,
                                               void *ud);
/* The same to a stream; DRA_EIO on a write error. */
DRA_NODISCARD int dra_manifest_write_yaml(const dra_model_t *m, FILE *f);
DRA_NODISCARD int dra_manifest_write_json(const dra_model_t *m, FILE *f);

#endif /* DRA_MANIFEST_H */
