/*
 * embedded.h - files compiled into the binary: built-in scenarios (corpora/scenarios/ *.yaml)
 * and samples (corpora/samples/ *.yaml). The table is generated at build time by
 * scripts/embed.cmake; it is static read-only data (nothing to free), terminated by a NULL name.
 */
#ifndef DRA_EMBEDDED_H
#define DRA_EMBEDDED_H

#include <stddef.h>

typedef struct dra_embedded {
    const char *name; /* "scenarios/default.yaml" */
    const char *data; /* NUL-terminated */
    size_t len;
} dra_embedded_t;

extern const dra_embedded_t dra_embedded_files[];

/* Find by exact name; NULL when absent. */
const dra_embedded_t *dra_embedded_find(const char *name);

#endif
