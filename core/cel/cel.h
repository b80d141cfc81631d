/*
 * cel.h - the CEL engine for DRA device selectors (resource.k8s.io/v1 CELDeviceSelector).
 *
 * Purpose: parse, type-check and evaluate Common Expression Language selectors in the
 * environment described by CEL-DRA.md: one variable `device` (driver, attributes, capacity,
 * allowMultipleAllocations), the standard CEL library, the Kubernetes libraries (quantity,
 * semver, regex, lists, strings extension v2, sets, optional types, cel.bind, two-variable
 * comprehensions) and DRA's includes(). Results are three-way: true, false or a runtime error
 * (an error is never `false`, CEL-DRA §4.3).
 *
 * Ownership: a compiled program (dra_cel_prog_t) lives in the arena given to dra_cel_compile and
 * is immutable afterwards; it stays valid until that arena is reset or finalised. Evaluation
 * allocates only from the caller's scratch arena and resets it to its entry mark before
 * returning (no malloc per evaluation once the scratch arena has warmed up). A cache owns its
 * own arena and every program it compiled.
 *
 * Errors: DRA_ECOMPILE (parse or check error; diag->msg reads like cel-go's message, diag->column
 * is the 1-based column and diag->offset the byte offset of the offending token),
 * DRA_ELIMIT (expression longer than DRA_CEL_MAX_LEN), DRA_ERUNTIME (CEL runtime error, the
 * message is the CEL error text, e.g. "no such key: model"), DRA_ECOST (runtime cost budget of
 * DRA_CEL_MAX_COST exceeded), DRA_ENOMEM.
 *
 * Cost: compile is O(length of the expression); evaluation is bounded by the cost budget.
 * Thread safety: a compiled program may be evaluated from many threads at once (each with its
 * own scratch arena). A cache is not thread-safe.
 */
#ifndef DRA_CEL_H
#define DRA_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "model/model.h"

#define DRA_CEL_MAX_LEN (10 * 1024)      /* CELSelectorExpressionMaxLength */
#define DRA_CEL_MAX_COST 1000000ULL      /* CELSelectorExpressionMaxCost, also the runtime limit */

typedef struct dra_cel_prog dra_cel_prog_t; /* opaque compiled program, arena-owned */

/* Compile (parse + check against the DRA `device` environment). DRA_ECOMPILE on a compile
 * error: diag->msg reads like upstream's compile error, diag->column is the 1-based position. */
DRA_NODISCARD int dra_cel_compile(const char *src, size_t len, dra_arena_t *arena, dra_cel_prog_t **out,
                    dra_diag_t *diag);

/* Evaluate against one device of the model (its driver is dev->slice->driver). Returns DRA_OK
 * and sets *match, or DRA_ERUNTIME / DRA_ECOST with the CEL runtime error text in diag (an error
 * is never `false`). scratch is reset by the callee to where it was on entry before returning. */
DRA_NODISCARD int dra_cel_eval_device(const dra_cel_prog_t *p, const dra_model_t *m, const dra_device_t *dev,
                        dra_arena_t *scratch, bool *match, dra_diag_t *diag);

/* A cache of compiled programs keyed by expression text (one compile per distinct expression).
 * Compile errors are cached too (the same diag is returned on every get). */
typedef struct dra_cel_cache dra_cel_cache_t;
DRA_NODISCARD int dra_cel_cache_new(dra_cel_cache_t **out);
void dra_cel_cache_free(dra_cel_cache_t *c);
DRA_NODISCARD int dra_cel_cache_get(dra_cel_cache_t *c, const char *src, const dra_cel_prog_t **out,
                      dra_diag_t *diag);

/* ---- extras ------------------------------------------------------------------------------- */

/* Root of the checked AST (see cel_ast.h), for the column-predicate lowering. */
struct dra_cel_expr;
const struct dra_cel_expr *dra_cel_prog_ast(const dra_cel_prog_t *p);

/* Fully qualified names ("domain/id") the program reads through constant attribute or capacity
 * lookups, e.g. device.attributes["gpu.nvidia.com"].model -> "gpu.nvidia.com/model". Entries
 * are NUL-terminated and arena-owned; is_capacity says which map the name is read from.
 * *dynamic is set when the program also reads attributes in a way that cannot be listed
 * (iteration over domains, a non-constant key). */
typedef struct dra_cel_ref {
    const char *qname;
    bool is_capacity;
} dra_cel_ref_t;
void dra_cel_prog_refs(const dra_cel_prog_t *p, const dra_cel_ref_t **refs, uint32_t *n,
                       bool *dynamic);

/* Static worst-case cost estimate, approximating the API server's cel-go estimate with DRA's
 * declared size limits (32 domains / ids, 64-byte strings, 64-value lists). API validation
 * rejects a new selector whose estimate exceeds DRA_CEL_MAX_COST ("too complex, exceeds cost
 * limit"); the scheduler never checks it (evaluation has its own runtime budget). Not bit-exact
 * with cel-go. */
DRA_NODISCARD int dra_cel_estimate_cost(const dra_cel_prog_t *p, uint64_t *max_cost);

/* Evaluate and render the result value (any type) as CEL-like text, for the CLI: "true",
 * "42", "\"abc\"", "[1, 2]". On DRA_OK *text is the value (allocated in out_arena, which is not
 * reset); on a runtime error, diag carries the message. The bool/non-bool check of DRA is
 * applied as in dra_cel_eval_device when *match is wanted; this call does not apply it. */
DRA_NODISCARD int dra_cel_eval_device_text(const dra_cel_prog_t *p, const dra_model_t *m,
                             const dra_device_t *dev, dra_arena_t *out_arena, const char **text,
                             dra_diag_t *diag);

/* ---- derived attributes (DRADerivedAttributes, KEP-6080; derived.c) ------------------------ */

/* Compile a derived attribute's expression: the DRA `device` environment, whose result is an
 * attribute value (string, int, bool or semver, or a list of these; dyn is checked at run
 * time). DRA_ECOMPILE ("must evaluate to a string, int, bool or semver, or a list of these")
 * otherwise; errors as dra_cel_compile. */
DRA_NODISCARD int dra_cel_compile_derived(const char *src, size_t len, dra_arena_t *arena,
                                          dra_cel_prog_t **out, dra_diag_t *diag);
/* The cache's program for src compiled as a derived attribute (kept apart from selectors). */
DRA_NODISCARD int dra_cel_cache_get_derived(dra_cel_cache_t *c, const char *src,
                                            const dra_cel_prog_t **out, dra_diag_t *diag);
/* Evaluate a derived attribute against a device into *out (name and qname left 0): kind and
 * values, strings and lists allocated in out_arena (not reset), versions as their text
 * (major.minor.patch[-pre][+build]). DRA_ERUNTIME / DRA_ECOST with the message in diag for a
 * runtime error or a result that is no attribute value ("derived attribute of type double", a
 * list mixing types); an empty list gives a list attribute without values. */
DRA_NODISCARD int dra_cel_eval_derived(const dra_cel_prog_t *p, const dra_model_t *m,
                                       const dra_device_t *dev, dra_arena_t *out_arena,
                                       dra_attr_t *out, dra_diag_t *diag);

#endif /* DRA_CEL_H */
