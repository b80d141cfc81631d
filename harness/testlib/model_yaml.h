/*
 * model_yaml.h - tests: a model read from a YAML text (as the file "t.yaml"), nodes implied from
 * the slices as `drabench alloc` does. Header-only; include check.h first.
 *
 * model_yaml_read returns DRA_OK or the reader's error code; on an error it prints every
 * diagnostic to stderr (one "  file:line:col: ..." line each) and leaves the check to the caller.
 * The model belongs to the caller (dra_model_init before, dra_model_fini after, on any result).
 */
#ifndef DRA_MODEL_YAML_H
#define DRA_MODEL_YAML_H

#include <stdio.h>
#include <string.h>

#include "manifest.h"

static inline int model_yaml_read(dra_model_t *m, const char *yaml)
{
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_manifest_read_buffer(m, "t.yaml", yaml, strlen(yaml), &errs);
    if (rc == DRA_OK)
        rc = dra_model_imply_nodes(m);
    for (size_t i = 0; rc != DRA_OK && i < errs.count; i++) {
        char buf[800];
        fprintf(stderr, "  %s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
    }
    dra_diag_list_fini(&errs);
    return rc;
}

#endif /* DRA_MODEL_YAML_H */
