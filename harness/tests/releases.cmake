# releases.cmake - the release comparison command and the nightly suite's other profiles.
# scripts/compare-releases end to end on a small suite with the built drabench: one result
# file per release and scenario, a Markdown report per pair with the decisions across releases
# and the timing tables, and the README linking them.
add_test(NAME harness.compare_releases
         COMMAND sh -c "d=$(mktemp -d) && scripts/compare-releases --bin \"$0\" --repeat 2 --suite harness/tests/data/release-compare-smoke.txt --out \"$d\" 2>\"$d/log\" && for r in 1.36 1.37 1.38-pre; do test -s \"$d/$r/unsat-storm.json\" && test -s \"$d/$r/default.json\" || exit 1; done && grep -q 'Decisions across inputs (release 1.36 vs 1.37)' \"$d/compare-1.36-vs-1.37.md\" && grep -q 'Decisions across inputs (release 1.37 vs 1.38-pre)' \"$d/compare-1.37-vs-1.38-pre.md\" && grep -q 'throughput.claims_per_s' \"$d/compare-1.37-vs-1.38-pre.md\" && grep -q 'compare-1.36-vs-1.37.md' \"$d/README.md\" && grep -q '1.38-pre  kubernetes/kubernetes master' \"$d/README.md\"; rc=$?; [ $rc -eq 0 ] || cat \"$d/log\" \"$d\"/*.txt; rm -rf \"$d\"; exit $rc"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.compare_releases PROPERTIES LABELS "unit;harness;bench-smoke"
                     TIMEOUT 600 ENVIRONMENT "${DRA_TEST_ENV}")
# corpora/nightly/<scenario>-<release>.yaml stay the built-in scenarios under another profile
add_test(NAME harness.nightly_profiles
         COMMAND sh harness/tests/nightly_profiles.sh
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.nightly_profiles PROPERTIES LABELS "unit;harness"
                     ENVIRONMENT "${DRA_TEST_ENV}")
# 1.37's API fields from JSON (harness/tests/data/releases/fields-1.37.json: compatibilityGroups
# on consumesCounters, derivedAttributes on a request and on a firstAvailable subrequest, a
# fractional validRange): valid under 1.37 and 1.38-pre, each field an error at its line and
# column under 1.36, shown by inspect (table and JSON)
set(_f137_script [=[
set -e
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; F=harness/tests/data/releases/fields-1.37.json
"$B" validate --release 1.37 $F > "$d/v.txt" 2>&1
"$B" validate --release 1.38-pre $F > "$d/v.txt" 2>&1
set +e; "$B" validate --release 1.36 $F > "$d/v.txt" 2>&1; rc=$?; set -e; test $rc = 2
grep -qF "fields-1.37.json:8:14: error: ResourceSlice/n1-devices: spec.devices[0].consumesCounters[0]: compatibilityGroups: not a field in Kubernetes 1.36 (new in 1.37, feature gate DRADeviceCompatibilityGroups)" "$d/v.txt"
grep -qF "fields-1.37.json:17:40: error: ResourceClaim/pair: spec.devices.requests[1].firstAvailable[0]: derivedAttributes: not a field in Kubernetes 1.36 (new in 1.37, feature gate DRADerivedAttributes)" "$d/v.txt"
"$B" inspect $F > "$d/i.txt"
grep -qE "gpu-0 +consumes mem=1  compatibilityGroups=mig,shared" "$d/i.txt"
grep -qE "^pair +b/x +example.com/socket +device.attributes\['gpu.example.com'\].numa / 4" "$d/i.txt"
"$B" inspect -o json --devices $F > "$d/i.json"
jq -e '[.slices[] | select(.name == "n1-devices") | .device_list[].consumes_counters[0].compatibility_groups] == [["mig", "shared"], ["vgpu", "shared"]]' "$d/i.json" > /dev/null
jq -e '[.claims[0].derived_attributes[] | .request, .name] == ["a", "example.com/socket", "b/x", "example.com/socket"]' "$d/i.json" > /dev/null
]=])
add_test(NAME harness.fields_1_37
         COMMAND sh -c "${_f137_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.fields_1_37 PROPERTIES LABELS "unit;harness;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
# 1.38-pre is no release: summaries say what it follows; the result file names the profile
set(_rl_script [=[
set -e
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$B" run default -n 20 -w 0 -r 1 --release 1.38-pre -o "$d/r.json" > "$d/r.txt"
grep -qF "scenario    default (seed 1, first-fit, release 1.38-pre, master at v1.38.0-alpha.2, fast allocator)" "$d/r.txt"
jq -e '.run.release == "1.38-pre"' "$d/r.json" > /dev/null
"$B" run default -n 20 -w 0 -r 1 -o "$d/r.json" > "$d/r.txt"
grep -qF "scenario    default (seed 1, first-fit, release 1.37, fast allocator)" "$d/r.txt"
"$B" version | grep -qF "1.38-pre  kubernetes/kubernetes master at v1.38.0-alpha.2 (0411cc704533)"
]=])
add_test(NAME harness.release_label
         COMMAND sh -c "${_rl_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.release_label PROPERTIES LABELS "unit;harness;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
