/*
 * profref.h - the reference of the generator's node profiles and claim shapes, made from the code
 * (`drabench gen --list`, its --json and --markdown forms, and corpora/scenarios/PROFILES.md,
 * which a test compares with the --markdown output so the page cannot drift).
 *
 * Every node profile is built as one node (one pool for net-pool) with its default parameters,
 * and its devices are described as the allocator sees them: per device class whose selectors
 * they pass (the classes the generator adds for the profile), the devices per node, every
 * attribute with its kind, how many of those devices carry it and up to three example values
 * (more_examples: there are others),
 * every capacity with an example value, whether they consume shared counters; the profile's
 * drivers, counter sets (count, names, the counters of the first) and MIG profiles (the values of
 * gpu.nvidia.com/profile on its MIG devices, and those of the GPU model). Every claim shape is
 * built with its defaults: its template's requests (class, allocation mode, count, selectors,
 * capacity requests, adminAccess, firstAvailable subrequests) and constraints, the profile an empty
 * node of which satisfies it, and the mix-entry keys it reads.
 *
 * Ownership: the caller owns the returned JSON (json_decref). Errors: DRA_OK, DRA_ENOMEM,
 * DRA_EINVAL (a profile or shape that does not build: diag says which). Cost: one small cluster
 * per profile, one selector evaluation per device and class; milliseconds.
 */
#ifndef DRA_PROFREF_H
#define DRA_PROFREF_H

#include <jansson.h>

#include "base/err.h"

/* {"profiles": [{name, summary, driver, source, per_node, drivers, classes: [{class, driver,
 * devices, consumes_counters, multi_allocatable, attributes: [{name, kind, devices, examples,
 * more_examples}], capacities:
 * [{name, example}]}], other_devices, counter_sets: {count, first, last, counters: [{name,
 * value}]}, mig_profiles, model_mig_profiles}], "shapes": [{name, summary, profile, params,
 * template: {name, requests: [...], constraints: [...]}}]} */
DRA_NODISCARD int dra_profile_reference(json_t **out, dra_diag_t *diag);

#endif /* DRA_PROFREF_H */
