/*
 * result.h - result files of schema drabench-result/v1 (results/README.md): JSON pieces the
 * runner assembles, the writer, and a schema checker. The fields themselves are schema.def's
 * (schema.h): the pieces set their keys by field id, the checker walks that table.
 *
 * Conventions enforced here: 64-bit identifiers as 16 lower-case hex digits, integer
 * nanoseconds, floats with 15 significant digits, undefined statistics as null (jansson refuses
 * NaN), keys sorted, files written to a temporary name and renamed.
 *
 * Ownership: functions returning json_t * return a new reference (NULL on out-of-memory); the
 * caller decrefs. dra_result_write borrows the document. Errors: DRA_OK, DRA_ENOMEM, DRA_EIO
 * (diag says why). dra_result_check returns DRA_OK or DRA_EVALIDATE with the first problem
 * ("repetitions[0].histograms[3].p50: expected integer") in diag. Not thread-safe (jansson
 * objects are not).
 */
#ifndef DRA_RESULT_H
#define DRA_RESULT_H

#include <jansson.h>
#include <stdint.h>

#include "base/err.h"
#include "hist.h"
#include "hostinfo.h"
#include "schema.h"

/* "%016llx" of v into buf[17]; returns buf. */
const char *dra_result_hex64(uint64_t v, char buf[17]);
/* json string of the hex form. */
json_t *dra_result_hex_json(uint64_t v);
/* A real, or null when x is not finite. */
json_t *dra_result_real(double x);

/* `tool`: build facts (buildinfo.h), selected/available kernels, dependency versions. */
json_t *dra_result_tool_json(void);
/* `host`. */
json_t *dra_result_host_json(const dra_hostinfo_t *h);
/* Add host.fingerprint (hex, dra_host_fingerprint of the document's host and tool facts) to a
 * document that has `host` and `tool` objects; no-op otherwise. */
void dra_result_set_fingerprint(json_t *doc);
/* One histogram object: name, shape, phase, outcome, lowest, highest, sigfigs, count, min, max,
 * mean, stddev, p50, p90, p99, p999 and buckets [[lowest equivalent value, count], ...]. */
json_t *dra_result_hist_json(const dra_hist_t *h, const char *shape, const char *phase,
                             const char *outcome);
/* Rebuild a histogram from such an object (h is initialised here; dra_hist_fini it). */
DRA_NODISCARD int dra_result_hist_from_json(const json_t *o, dra_hist_t *h, dra_diag_t *diag);

/* Serialize (sorted keys, 2-space indent, 15 significant digits) and write atomically to path
 * ("-" = stdout). */
DRA_NODISCARD int dra_result_write(const json_t *doc, const char *path, dra_diag_t *diag);

/* Check a document the runner wrote against the schema, strictly (schema.h DRA_RS_STRICT):
 * every field schema.def marks W or R, types (integers as integers), limits and allowed values
 * at every level, no key the table does not know; then histogram consistency (bucket values
 * increasing, counts sum to count), every `values` key described in `metrics`, the four values
 * every repetition carries, and a complete run has a repetition. */
DRA_NODISCARD int dra_result_check(const json_t *doc, dra_diag_t *diag);

#endif /* DRA_RESULT_H */
