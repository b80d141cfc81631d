/*
 * lower.h - lowering of common CEL selector shapes to column predicates over a device table
 * (DESIGN §4.2).
 *
 * Purpose: evaluate a selector on every device of a dra_table_t in a few vector passes instead
 * of one interpreter run per device. dra_lower_compile walks the checked AST of a program and,
 * when every node is of a lowerable shape, builds a small predicate tree bound to the table's
 * columns; dra_lower_eval then produces two bitsets over the table rows:
 *   match: rows where the selector is true;
 *   error: rows where the evaluator (dra_cel_eval_device) would return a runtime error.
 * Rows in neither are false. An error stays an error (it is never folded into false), and CEL's
 * commutative && / || absorb errors exactly as upstream: false && error = false,
 * true || error = true; ! of an error is an error.
 *
 * Lowerable shapes (anything else: DRA_EUNSUPPORTED, the caller falls back to the evaluator):
 *   - device.driver == "x" / != (either operand order);
 *   - an attribute read (DEVREF) compared with ==, != to a string / int / bool constant, with
 *     <, <=, >, >= to an int constant, or tested with `in [constants]`; the column may mix int,
 *     bool and string values (mixed-type equality is false), not versions or lists;
 *   - a bare bool attribute (non-bool values are errors, as at run time);
 *   - has(device.attributes["d"].id), has(device.capacity["d"].id);
 *   - device.allowMultipleAllocations;
 *   - capacity comparisons: c.compareTo(Q) OP k (k in -1..1), c.isGreaterThan(Q),
 *     c.isLessThan(Q), c == Q, c != Q, in either operand order, Q a constant quantity exactly
 *     representable at the column's fixed-point scale (dictionary entries flagged inexact in the
 *     table are compared exactly, dra_quantity_cmp, when the program is lowered);
 *   - version comparisons: v.compareTo(semver("...")) OP k, isGreaterThan, isLessThan, by rank;
 *   - true, false, and &&, ||, ! of lowerable shapes.
 * A missing attribute / capacity is an error row (CEL-DRA §3.3); a device whose version
 * attribute does not parse is an error row for every selector (CEL-DRA §3.2).
 *
 * Ownership: the lowered program lives in the arena given to dra_lower_compile and refers to the
 * table (and through it the model); both must outlive it and must not change. It holds its own
 * scratch bitsets, so ONE evaluation at a time per lowered program (compile one per thread for
 * parallel use). match and error are caller-owned, dra_bitset_words(t->nrows_padded) words each;
 * on return bits >= t->nrows are zero.
 * Errors: DRA_EUNSUPPORTED (shape not lowerable; not an error of the selector), DRA_ENOMEM,
 * DRA_EINVAL. Cost: compile O(AST size + constant sizes + dictionary entries of the columns
 * read: each column leaf is evaluated once per distinct value); eval O(rows) per leaf with the
 * selected kernel (core/kern): one gather of the leaf's per-code bitmap over the column's codes.
 * No allocation in eval.
 */
#ifndef DRA_LOWER_H
#define DRA_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "cel.h"
#include "kern/kern.h"
#include "table/table.h"

typedef struct dra_lowered dra_lowered_t;

/* Lower program p against table t. DRA_EUNSUPPORTED when some node is not lowerable. */
DRA_NODISCARD int dra_lower_compile(const dra_cel_prog_t *p, const dra_table_t *t,
                                    dra_arena_t *arena, dra_lowered_t **out);

/* Evaluate over every row of t with the selected kernel (dra_kern_get). t must be the table the
 * program was lowered against. */
DRA_NODISCARD int dra_lower_eval(const dra_lowered_t *l, const dra_table_t *t, uint64_t *match, uint64_t *error);
/* Same with an explicit kernel table. */
DRA_NODISCARD int dra_lower_eval_with(const dra_lowered_t *l, const dra_table_t *t, const dra_kern_t *k,
                        uint64_t *match, uint64_t *error);

/* Number of predicate leaves (column passes) of a lowered program, for reports. */
uint32_t dra_lower_nleaves(const dra_lowered_t *l);

#endif /* DRA_LOWER_H */
