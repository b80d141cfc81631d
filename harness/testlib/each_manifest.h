/*
 * each_manifest.h - tests: call fn on every manifest file below dir, in the order
 * `drabench validate DIR` reads them (dra_walk_paths, walk.h). Header-only; a walk error fails
 * the calling test through check.h (include check.h first).
 */
#ifndef DRA_EACH_MANIFEST_H
#define DRA_EACH_MANIFEST_H

#include "manifest.h"
#include "walk.h"

typedef struct each_manifest_fn {
    void (*fn)(const char *path);
} each_manifest_fn_t;

static int each_manifest_cb(const char *path, void *ud)
{
    ((const each_manifest_fn_t *)ud)->fn(path);
    return DRA_OK;
}

static void each_manifest(const char *dir, void (*fn)(const char *path))
{
    char *paths[] = {(char *)dir};
    each_manifest_fn_t w = {fn};
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    dra_walk_t wk;
    dra_walk_init(&wk, dra_walk_manifest_suffixes);
    CHECK_OK(dra_walk_paths(&wk, paths, 1, each_manifest_cb, &w, &errs));
    dra_diag_list_fini(&errs);
    dra_walk_fini(&wk);
}

#endif /* DRA_EACH_MANIFEST_H */
