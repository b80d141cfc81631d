/*
 * diag_fx.h - tests: a manifest text read and validated as the file "t.yaml", with its
 * diagnostics kept for the test to look into. Header-only; include check.h first.
 *
 * diag_fx_load initialises the model and the list (the caller owns both: diag_fx_done frees
 * them, on any result) and returns the reader's error code, else the validator's. diag_fx_has
 * says whether a diagnostic's message contains a text, diag_fx_line_of gives the line of the
 * first such diagnostic (0: none), diag_fx_dump prints every diagnostic to stderr, one
 * "  file:line:col: ..." line each. Cost: linear in the diagnostics.
 */
#ifndef DRA_DIAG_FX_H
#define DRA_DIAG_FX_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "manifest.h"

static inline bool diag_fx_has(const dra_diag_list_t *l, const char *needle)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].msg, needle))
            return true;
    return false;
}

static inline uint32_t diag_fx_line_of(const dra_diag_list_t *l, const char *needle)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].msg, needle))
            return l->items[i].line;
    return 0;
}

static inline void diag_fx_dump(const dra_diag_list_t *l)
{
    char buf[1024];
    for (size_t i = 0; i < l->count; i++)
        fprintf(stderr, "  %s\n", dra_diag_format(&l->items[i], buf, sizeof buf));
}

static inline int diag_fx_load(dra_model_t *m, const char *text, dra_diag_list_t *errs)
{
    dra_model_init(m);
    dra_diag_list_init(errs);
    int rc = dra_manifest_read_buffer(m, "t.yaml", text, strlen(text), errs);
    int vrc = dra_manifest_validate(m, errs);
    return rc ? rc : vrc;
}

static inline void diag_fx_done(dra_model_t *m, dra_diag_list_t *errs)
{
    dra_diag_list_fini(errs);
    dra_model_fini(m);
}

#endif /* DRA_DIAG_FX_H */
