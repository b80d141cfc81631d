# compare.cmake - CLI tests of `drabench compare`, `report`, `export` and `baseline` on the
# hand-made fixtures in corpora/golden/compare/ (exit codes of the gate, error messages).
set(_cmp_dir corpora/golden/compare)

# dra_compare_cli(NAME EXPECTED_EXIT ARGS...): run drabench with ARGS, expect that exit status.
function(dra_compare_cli name want)
  add_test(NAME compare.cli_${name}
           COMMAND sh -c "\"$0\" \"$@\" >/dev/null; rc=$?; [ $rc -eq ${want} ] || { echo \"exit $rc, want ${want}\"; exit 1; }"
                   $<TARGET_FILE:drabench> ${ARGN}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(compare.cli_${name} PROPERTIES LABELS "unit;harness" TIMEOUT 60
                       ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()

foreach(side base noise regress within improve digest violation)
  set(_${side} ${_cmp_dir}/${side}-default.json ${_cmp_dir}/${side}-mig-inference.json)
endforeach()
dra_compare_cli(help 0 compare --help)
dra_compare_cli(noise 0 compare ${_base} -- ${_noise})
dra_compare_cli(regression 1 compare ${_base} -- ${_regress})
dra_compare_cli(regression_md 1 compare --format md ${_base} -- ${_regress})
dra_compare_cli(regression_off 0 compare --threshold off ${_base} -- ${_regress})
dra_compare_cli(regression_25pct 0 compare --threshold 25% ${_base} -- ${_regress})
dra_compare_cli(within 0 compare ${_base} -- ${_within})
dra_compare_cli(within_2pct 1 compare -t 2% ${_base} -- ${_within})
dra_compare_cli(improvement 0 compare ${_base} -- ${_improve})
dra_compare_cli(improvement_reversed 1 compare ${_improve} -- ${_base})
dra_compare_cli(digest 3 compare ${_base} -- ${_digest})
dra_compare_cli(digest_allowed 0 compare --allow-digest-change ${_base} -- ${_digest})
dra_compare_cli(violation 3 compare --allow-digest-change ${_base} -- ${_violation})
dra_compare_cli(two_files 0 compare ${_cmp_dir}/base-default.json ${_cmp_dir}/noise-default.json)
dra_compare_cli(usage_no_new 2 compare ${_cmp_dir}/base-default.json)
dra_compare_cli(usage_empty_side 2 compare ${_base} --)
dra_compare_cli(usage_bad_threshold 2 compare -t fast ${_base} -- ${_noise})
dra_compare_cli(usage_bad_format 2 compare -f xml ${_base} -- ${_noise})
dra_compare_cli(bad_schema 2 compare ${_cmp_dir}/bad-schema.json ${_cmp_dir}/base-default.json)
dra_compare_cli(bad_type 2 compare ${_cmp_dir}/base-default.json ${_cmp_dir}/bad-type.json)
dra_compare_cli(missing_file 2 compare ${_cmp_dir}/nope.json ${_cmp_dir}/base-default.json)

# Error messages name the file and the reason (file:line:col for syntax errors).
add_test(NAME compare.cli_bad_syntax_message
         COMMAND sh -c "out=$(\"$0\" compare corpora/golden/compare/bad-syntax.json corpora/golden/compare/base-default.json 2>&1 >/dev/null); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'bad-syntax.json:3:[0-9]*: invalid JSON'"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME compare.cli_bad_type_message
         COMMAND sh -c "out=$(\"$0\" compare corpora/golden/compare/base-default.json corpora/golden/compare/bad-type.json 2>&1 >/dev/null); echo \"$out\"; echo \"$out\" | grep -q 'bad-type.json:[0-9]*:[0-9]*: repetitions\\[2\\].values.throughput.claims_per_s: expected a number, got string'"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# JSON output parses and carries the verdicts.
add_test(NAME compare.cli_json
         COMMAND sh -c "\"$0\" compare -q --format json corpora/golden/compare/base-default.json corpora/golden/compare/regress-default.json | jq -e '.schema == \"drabench-compare/v1\" and .exit_status == 1 and ([.rows[] | select(.verdict == \"regression\")] | length) == 2'"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(compare.cli_bad_syntax_message compare.cli_bad_type_message compare.cli_json
                     PROPERTIES LABELS "unit;harness" TIMEOUT 60 ENVIRONMENT "${DRA_TEST_ENV}")

# report/export/baseline CLI
dra_compare_cli(report_help 0 report --help)
dra_compare_cli(export_help 0 export --help)
dra_compare_cli(baseline_help 0 baseline --help)
dra_compare_cli(report_no_dir 2 report ${_cmp_dir}/base-default.json)
dra_compare_cli(export_no_format 2 export ${_cmp_dir}/base-default.json)
dra_compare_cli(export_bad_input 2 export --format benchfmt ${_cmp_dir}/bad-schema.json)
dra_compare_cli(baseline_refuses_violation 3 baseline bless --dir /tmp/drabench-baseline-test-refused ${_cmp_dir}/violation-default.json)
add_test(NAME compare.cli_baseline_bless
         COMMAND sh -c "d=$(mktemp -d) && \"$0\" baseline bless --dir \"$d\" --release fixture corpora/golden/compare/base-default.json corpora/golden/compare/base-mig-inference.json >/dev/null && test -s \"$d/fixture/default.json\" && test -s \"$d/fixture/mig-inference.json\" && grep -q '^release: fixture' \"$d/fixture/MANIFEST\" && grep -q 'host: fixture-host, Fixture CPU' \"$d/fixture/MANIFEST\" && grep -qx fixture \"$d/CURRENT\" && \"$0\" compare -q \"$d\"/fixture/*.json -- corpora/golden/compare/noise-default.json corpora/golden/compare/noise-mig-inference.json >/dev/null; rc=$?; rm -rf \"$d\"; exit $rc"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME compare.cli_export_perfdash
         COMMAND sh -c "d=$(mktemp -d) && \"$0\" export --format perfdash -o \"$d\" corpora/golden/compare/base-default.json >/dev/null && jq -e '.version == \"v1\" and (.dataItems | length) > 0 and all(.dataItems[]; (.labels | keys) == [\"Metric\",\"Name\",\"phase\",\"policy\",\"release\",\"shape\"])' \"$d/BenchmarkDRAAlloc_2026-01-01T00:00:00Z.json\"; rc=$?; rm -rf \"$d\"; exit $rc"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# Blessing every JSON file of a nightly directory skips its compare.json (a comparison, not a run).
add_test(NAME compare.cli_baseline_bless_nightly_dir
         COMMAND sh -c "t=$(mktemp -d) && d=$(mktemp -d) && cp corpora/golden/compare/base-default.json corpora/golden/compare/base-mig-inference.json \"$t\" && \"$0\" compare --format json \"$t\"/base-default.json -- corpora/golden/compare/noise-default.json > \"$t/compare.json\" && \"$0\" baseline bless --dir \"$d\" --release fx \"$t\"/*.json 2>\"$t/err\" >/dev/null && grep -q 'skipping .*compare.json' \"$t/err\" && test $(ls \"$d/fx\"/*.json | wc -l) -eq 2; rc=$?; rm -rf \"$t\" \"$d\"; exit $rc"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(compare.cli_baseline_bless compare.cli_export_perfdash
                     compare.cli_baseline_bless_nightly_dir
                     PROPERTIES LABELS "unit;harness" TIMEOUT 60 ENVIRONMENT "${DRA_TEST_ENV}")

# End to end with the runner (tiny runs, seconds): two runs of one build do not gate (the gate file
# corpora/golden/compare/e2e-gate.yaml keeps a noisy shared CI machine from failing on wall-clock
# blips; deterministic metrics and digests must match exactly), and DRA_TEST_DELAY_NS (5 ms of
# busy waiting per claim) compares as a regression (exit 1).
add_test(NAME compare.e2e_same_build_and_delay
         COMMAND sh -c "set -u; d=$(mktemp -d); run() { \"$0\" run default --repeat 6 --count 40 --invariants off -q -o \"$1\" || exit 4; }; run \"$d/a.json\"; run \"$d/b.json\"; DRA_TEST_DELAY_NS=5000000 run \"$d/c.json\"; \"$0\" compare -q --gate corpora/golden/compare/e2e-gate.yaml \"$d/a.json\" \"$d/b.json\"; s=$?; \"$0\" compare -q --gate corpora/golden/compare/e2e-gate.yaml \"$d/a.json\" \"$d/c.json\" >\"$d/c.txt\"; r=$?; echo \"same build: exit $s (want 0); with delay: exit $r (want 1)\"; grep -E '^expected throughput' \"$d/c.txt\"; rm -rf \"$d\"; [ $s -eq 0 ] && [ $r -eq 1 ]"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(compare.e2e_same_build_and_delay PROPERTIES LABELS "bench-smoke;harness" TIMEOUT 300 RUN_SERIAL TRUE
                     ENVIRONMENT "${DRA_TEST_ENV}")
dra_compare_cli(report_bad_base 2 report -b 2 -o /tmp/drabench-report-bad-base ${_cmp_dir}/base-default.json ${_cmp_dir}/regress-default.json)
add_test(NAME compare.cli_report_base
         COMMAND sh -c "d=$(mktemp -d) && \"$0\" report --no-plots -b 2 -o \"$d\" corpora/golden/compare/base-default.json corpora/golden/compare/base-mig-inference.json corpora/golden/compare/regress-default.json corpora/golden/compare/regress-mig-inference.json >/dev/null 2>&1 && grep -q 'Runs #1-#2 against the others' \"$d/index.html\" && grep -q 'mig-inference</td><td class=num>400.5 claims/s</td><td class=num>320.4 claims/s' \"$d/index.html\"; rc=$?; rm -rf \"$d\"; exit $rc"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(compare.cli_report_base PROPERTIES LABELS "unit;harness" TIMEOUT 60
                     ENVIRONMENT "${DRA_TEST_ENV}")
