/*
 * scencheck.h - a scenario checked against the cluster it builds (`drabench validate` of a
 * scenario): the mistakes that make its pods unsatisfiable, or its measurement meaningless,
 * before anything runs. Each finding is a diagnostic at the scenario field it is about
 * (file:line:col: spec.path: reason), naming the alternatives the cluster offers.
 *
 * Errors (the entry cannot work as written):
 *  - a request selector or a class selector reads an attribute or capacity that no device of the
 *    request's class has (dra_cel_prog_refs; the class's devices' names listed);
 *  - a matchAttribute / distinctAttribute names an attribute no device of its requests' classes
 *    has; a capacity request names a capacity none of them has;
 *  - the entry fits no node of the empty cluster, by the reference allocator's explain mode
 *    (core/alloc/explain.h) on one node of each node group (and each node read from manifests,
 *    up to 256): a count larger than any node holds (the count field, with what each node
 *    profile holds), a selector no device passes (the selector, or a MIG shape's profile, with
 *    the values the selector's attributes take on each node profile: the MIG profiles it offers),
 *    a release or feature gate that withholds the devices (the release / features field), a
 *    matchAttribute group too small, or any other reason (the entry);
 *  - an entry that says `expect: unsatisfiable` but fits some node.
 * Warnings (the run works but measures something else than meant):
 *  - a steady workload whose arrivals (count / rate) end before occupancy settles (3 mean
 *    lifetimes of an exponential lifetime, the value of a constant one, the max of a uniform
 *    one): the run never reaches steady state;
 *  - a fill workload's stopAfter that ends it early: the arrivals (the workload's own seeded
 *    sequence of mix entries) hold stopAfter entries in a row that fit no node even in the empty
 *    cluster, before count arrivals; stopAfter in steady mode (ignored).
 *
 * Ownership: m holds the built cluster and templates (dra_scenario_build, plus the scenario's
 * manifests); the checks add instantiated claims to it. Diagnostics' file names are s->file
 * (valid while s lives). Errors: DRA_OK, DRA_ENOMEM. Cost: per mix entry one explain per node
 * group representative plus one CEL evaluation per distinct device definition and class.
 */
#ifndef DRA_SCENCHECK_H
#define DRA_SCENCHECK_H

#include "base/err.h"
#include "model/model.h"
#include "scenario.h"

DRA_NODISCARD int dra_scenario_selfcheck(const dra_scenario_t *s, dra_model_t *m,
                                         const dra_scenario_built_t *b, dra_diag_list_t *errs,
                                         dra_diag_list_t *warns);

#endif /* DRA_SCENCHECK_H */
