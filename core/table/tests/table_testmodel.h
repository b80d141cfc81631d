/*
 * table_testmodel.h - helpers to hand-build small models in table and lowering tests.
 * Header-only, static functions; include from one test translation unit.
 */
#ifndef DRA_TABLE_TESTMODEL_H
#define DRA_TABLE_TESTMODEL_H

#include <stdbool.h>
#include <string.h>

#include "base/quantity.h"
#include "model/model.h"

#define TM_MAX_ATTRS 24

static inline dra_slice_t *tm_slice(dra_model_t *m, const char *name, const char *driver,
                                    const char *pool, const char *node, uint32_t ndev)
{
    dra_slice_t *s = dra_model_add_slice(m);
    s->name = dra_model_str(m, name);
    s->driver = dra_model_str(m, driver);
    s->pool_name = dra_model_str(m, pool);
    if (node)
        s->node_name = dra_model_str(m, node);
    else
        s->all_nodes = true;
    s->devices = dra_model_array(m, ndev, sizeof(dra_device_t));
    s->ndevices = ndev;
    for (uint32_t i = 0; i < ndev; i++) {
        s->devices[i].attrs = dra_model_array(m, TM_MAX_ATTRS, sizeof(dra_attr_t));
        s->devices[i].caps = dra_model_array(m, TM_MAX_ATTRS, sizeof(dra_capacity_t));
    }
    return s;
}

static inline void tm_devname(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name)
{
    s->devices[i].name = dra_model_str(m, name);
}

static inline dra_attr_t *tm_attr(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                                  dra_attr_kind_t kind)
{
    dra_device_t *d = &s->devices[i];
    dra_attr_t *a = &d->attrs[d->nattrs++];
    a->name = dra_model_str(m, name);
    a->qname = dra_model_qname(m, s->driver, name);
    a->kind = (uint8_t)kind;
    a->count = 1;
    return a;
}

static inline void tm_int(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name, int64_t v)
{
    tm_attr(m, s, i, name, DRA_ATTR_INT)->v.i = v;
}
static inline void tm_bool(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name, bool v)
{
    tm_attr(m, s, i, name, DRA_ATTR_BOOL)->v.b = v;
}
static inline void tm_str(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                          const char *v)
{
    tm_attr(m, s, i, name, DRA_ATTR_STRING)->v.s = dra_model_str(m, v);
}
static inline void tm_ver(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                          const char *v)
{
    tm_attr(m, s, i, name, DRA_ATTR_VERSION)->v.s = dra_model_str(m, v);
}
static inline void tm_ints(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                           const int64_t *v, uint32_t n)
{
    dra_attr_t *a = tm_attr(m, s, i, name, DRA_ATTR_INTS);
    int64_t *c = dra_model_array(m, n, sizeof *c);
    memcpy(c, v, n * sizeof *c);
    a->v.ints = c;
    a->count = n;
}
static inline void tm_strs(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                           dra_attr_kind_t kind, const char *const *v, uint32_t n)
{
    dra_attr_t *a = tm_attr(m, s, i, name, kind);
    const char **c = dra_model_array(m, n, sizeof *c);
    for (uint32_t k = 0; k < n; k++)
        c[k] = dra_model_str(m, v[k]);
    a->v.strs = c;
    a->count = n;
}
static inline void tm_bools(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                            const bool *v, uint32_t n)
{
    dra_attr_t *a = tm_attr(m, s, i, name, DRA_ATTR_BOOLS);
    bool *c = dra_model_array(m, n, sizeof *c);
    memcpy(c, v, n * sizeof *c);
    a->v.bools = c;
    a->count = n;
}
/* returns 0 on success */
static inline int tm_cap(dra_model_t *m, dra_slice_t *s, uint32_t i, const char *name,
                         const char *q)
{
    dra_device_t *d = &s->devices[i];
    dra_capacity_t *c = &d->caps[d->ncaps++];
    c->name = dra_model_str(m, name);
    c->qname = dra_model_qname(m, s->driver, name);
    return dra_quantity_parse(q, strlen(q), &c->value, NULL);
}

#endif /* DRA_TABLE_TESTMODEL_H */
