# releases.cmake - the release comparison command and the nightly suite's other profiles.
# scripts/compare-releases end to end on a small suite with the built drabench: one result
# file per release and scenario, a Markdown report per pair with the decisions across releases
# and the timing tables, and the README linking them.
add_test(NAME harness.compare_releases
         COMMAND sh -c "d=$(mktemp -d) && scripts/compare-releases --bin \"$0\" --repeat 1 --suite harness/tests/data/release-compare-smoke.txt --out \"$d\" 2>\"$d/log\" && for r in 1.36 1.37 1.38-pre; do test -s \"$d/$r/unsat-storm.json\" && test -s \"$d/$r/default.json\" || exit 1; done && grep -q 'Decisions across inputs (release 1.36 vs 1.37)' \"$d/compare-1.36-vs-1.37.md\" && grep -q 'Decisions across inputs (release 1.37 vs 1.38-pre)' \"$d/compare-1.37-vs-1.38-pre.md\" && grep -q 'throughput.claims_per_s' \"$d/compare-1.37-vs-1.38-pre.md\" && grep -q 'compare-1.36-vs-1.37.md' \"$d/README.md\" && grep -q '1.38-pre  kubernetes/kubernetes master' \"$d/README.md\"; rc=$?; [ $rc -eq 0 ] || cat \"$d/log\" \"$d\"/*.txt; rm -rf \"$d\"; exit $rc"
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
