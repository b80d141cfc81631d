# harness/tests/ab.cmake - `drabench ab`, the interleaved A/B comparison (harness/tests/ab.sh):
# the mechanics, not the rates (scripts/ab-campaign measures those): the rounds and their order,
# the samples and the noise floor in the JSON, a gross planted slowdown found, --budget, the exit
# statuses of bad input, a process that fails, a correctness failure, --extend (its rounds, its
# report, its seed, its budget), and scripts/ab-campaign's summary rebuilt by --summarize.
foreach(_case mechanics errors budget extend campaign)
  add_test(NAME harness.ab_${_case}
           COMMAND sh harness/tests/ab.sh ${_case}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.ab_${_case} PROPERTIES LABELS "unit;harness;bench-smoke"
                       TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")
endforeach()
# the planted 2x slowdown's verdict must not see other tests' load on a 2-core machine
set_tests_properties(harness.ab_mechanics PROPERTIES RUN_SERIAL TRUE)
# five sittings, two of them extended: minutes under the sanitizers on a loaded machine
set_tests_properties(harness.ab_extend PROPERTIES TIMEOUT 600)
