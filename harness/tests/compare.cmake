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
         COMMAND sh -c "out=$(\"$0\" compare corpora/golden/compare/base-default.json corpora/golden/compare/bad-type.json 2>&1 >/dev/null); echo \"$out\"; echo \"$out\" | grep -q 'bad-type.json: repetitions\\[2\\].values.throughput.claims_per_s: expected a number, got string'"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# JSON output parses and carries the verdicts.
add_test(NAME compare.cli_json
         COMMAND sh -c "\"$0\" compare -q --format json corpora/golden/compare/base-default.json corpora/golden/compare/regress-default.json | jq -e '.schema == \"drabench-compare/v1\" and .exit_status == 1 and ([.rows[] | select(.verdict == \"regression\")] | length) == 2'"
                 $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(compare.cli_bad_syntax_message compare.cli_bad_type_message compare.cli_json
                     PROPERTIES LABELS "unit;harness" TIMEOUT 60 ENVIRONMENT "${DRA_TEST_ENV}")
