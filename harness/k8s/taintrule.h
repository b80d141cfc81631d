/*
 * taintrule.h - DeviceTaintRule objects (resource.k8s.io v1alpha3 / v1beta2 / v1) and how the
 * scheduler applies them: before allocation, the ResourceSlice tracker appends the rule's taint
 * to every device the rule selects, so the allocator only ever sees device.taints
 * (DRA-SEMANTICS §1.7). The manifest reader skips this kind; loaders that want the rules read
 * the same buffers through dra_taint_rules_read_buffer and apply them to the model.
 *
 * Selection (as upstream's tracker): every field of spec.deviceSelector that is set must match;
 * an absent or null deviceSelector selects every device up to 1.37 and no device from 1.38-pre
 * on (#141648; `deviceSelector: {}` selects every device in every release). driver, pool and device compare names;
 * deviceClassName (v1alpha3) requires the class to exist and every CEL selector of the class to
 * match; selectors (v1alpha3) are CEL expressions that must all match. A CEL runtime error means
 * "does not match" (upstream records an event); a CEL compile error is an error of the apply
 * call. Rules are applied in the order read; each match appends one taint
 * {key, value, effect, timeAdded}.
 *
 * Gate: the scheduler applies rules when DRADeviceTaintRules is enabled (1.35 and later; in 1.34
 * the rules were part of DRADeviceTaints): dra_taint_rules_enabled.
 *
 * Ownership: rule strings are copied into the model's arena (the taints appended to devices point
 * at them); the rule array is malloc'd and freed by dra_taint_rules_fini. Applying replaces a
 * device's taint array with a new one from the model's arena (the old one is left to the arena).
 * Errors: DRA_EVALIDATE / DRA_EPARSE with every problem in errs (read), DRA_ECOMPILE with diag
 * (apply), DRA_ENOMEM. Cost: read O(input); apply O(devices x rules) plus CEL evaluations.
 * Not thread-safe (one model, one CEL cache).
 */
#ifndef DRA_TAINTRULE_H
#define DRA_TAINTRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "base/err.h"
#include "cel/cel.h"
#include "model/model.h"

typedef struct dra_taint_rule {
    const char *name;
    bool has_selector; /* spec.deviceSelector present and not null (`{}` counts) */
    /* spec.deviceSelector fields; NULL = not set (matches anything) */
    const char *class_name;
    const char *driver;
    const char *pool;
    const char *device;
    const char **selectors; /* CEL expressions */
    uint32_t nselectors;
    dra_taint_t taint; /* spec.taint */
    dra_srcpos_t pos;
} dra_taint_rule_t;

typedef struct dra_taint_rules {
    dra_taint_rule_t *items;
    uint32_t n, cap;
} dra_taint_rules_t;

void dra_taint_rules_init(dra_taint_rules_t *r);
void dra_taint_rules_fini(dra_taint_rules_t *r);

/* Read the DeviceTaintRule objects of a YAML/JSON buffer (also inside `List` wrappers); other
 * kinds are ignored. Strings go to m's arena. Returns DRA_OK, DRA_EPARSE (syntax) or
 * DRA_EVALIDATE (a rule without spec.taint.key or effect, unknown fields, wrong types) with every
 * problem in errs, or DRA_ENOMEM. Valid rules of the buffer are kept even after errors. */
DRA_NODISCARD int dra_taint_rules_read_buffer(dra_taint_rules_t *r, dra_model_t *m,
                                              const char *file, const char *buf, size_t len,
                                              dra_diag_list_t *errs);

/* Does device d of the model match rule under release profile f (a rule without a selector)?
 * DRA_OK with *match, DRA_ECOMPILE (diag) or DRA_ENOMEM. scratch is an arena for CEL evaluation
 * (reset by the callee). */
DRA_NODISCARD int dra_taint_rule_matches(const dra_taint_rule_t *rule, const dra_model_t *m,
                                         dra_cel_cache_t *cel, const dra_alloc_features_t *f,
                                         dra_arena_t *scratch, const dra_device_t *d, bool *match,
                                         dra_diag_t *diag);

/* Append the taint of every matching rule to every device of the model, as the scheduler of
 * profile f does. *ntainted (optional) receives the number of (device, rule) matches. */
DRA_NODISCARD int dra_taint_rules_apply(const dra_taint_rules_t *r, dra_model_t *m,
                                        dra_cel_cache_t *cel, const dra_alloc_features_t *f,
                                        uint32_t *ntainted, dra_diag_t *diag);

/* Whether the scheduler of this profile applies DeviceTaintRules (see "Gate" above). */
bool dra_taint_rules_enabled(const dra_alloc_features_t *f);

#endif /* DRA_TAINTRULE_H */
