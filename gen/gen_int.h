/*
 * gen_int.h - internals shared by the generator's files (not a public header).
 */
#ifndef DRA_GEN_INT_H
#define DRA_GEN_INT_H

#include <stdarg.h>

#include "gen/cluster.h"
#include "gen/rng.h"

/* A quantity literal the generator parsed (dra_gen__cqty): devices of one profile write the
 * same few literals millions of times. */
#define DRA_GEN_QCACHE 32
typedef struct dra_gen_qcache {
    char text[24]; /* "" = empty entry */
    dra_quantity_t q;
} dra_gen_qcache_t;

typedef struct dra_gen_ctx {
    dra_model_t *m;
    dra_rng_t rng;
    dra_diag_t *diag;
    dra_gen_cluster_stats_t st;
    char cluster_uuid[40];
    int err; /* first error (sticky) */
    dra_gen_qcache_t qcache[DRA_GEN_QCACHE]; /* direct-mapped by text */
} dra_gen_ctx_t;

/* Arena-owned formatted string; NULL (and c->err = DRA_ENOMEM) on failure. */
const char *dra_gen__fmt(dra_gen_ctx_t *c, const char *fmt, ...) DRA_PRINTF(2, 3);
/* Interned (deduplicated) arena string. */
const char *dra_gen__intern(dra_model_t *m, const char *s);
/* Emit the nodes/pools of one group. */
int dra_gen__emit_group(dra_gen_ctx_t *c, const dra_gen_group_t *g, uint32_t gi);
/* Parse a quantity literal that the generator itself wrote (errors are internal). */
int dra_gen__qty(const char *s, dra_quantity_t *out, dra_diag_t *diag);
/* dra_gen__qty(s, out, c->diag) through c's cache of parsed literals (the same value). */
int dra_gen__cqty(dra_gen_ctx_t *c, const char *s, dra_quantity_t *out);

extern const char dra_gen__file[]; /* "<gen>" */

#endif
