# gate.cmake - the regression gate of `drabench compare` (harness/tests/gate.sh): inconclusive
# with too few samples, timings refused across hosts, inputs that are not comparable unless
# --across, missing/interrupted/empty files, the noise floor and shapes of meaningful size,
# repetitions the kernel preempted.
foreach(_case few_samples other_host inputs_differ sets noise report_same_gate preempted)
  add_test(NAME compare.gate_${_case}
           COMMAND sh harness/tests/gate.sh ${_case}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(compare.gate_${_case} PROPERTIES LABELS "unit;harness" TIMEOUT 120
                       ENVIRONMENT "${DRA_TEST_ENV}")
endforeach()

# `drabench run` behind the gate (harness/tests/gate_run.sh): independent repetitions, outcome
# reasons, default result names, the ETA, CSV export; the gate end to end: a 20% slowdown at
# the default repetitions is never PASS, the same build passes 20 compares in a row; a run's
# preempted repetitions recorded and named.
foreach(_case independent_reps reasons names eta csv delay20 self20 cluster gen_list_json validate ci across
              preemptions)
  add_test(NAME harness.gate_run_${_case}
           COMMAND sh harness/tests/gate_run.sh ${_case}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.gate_run_${_case} PROPERTIES LABELS "unit;harness;bench-smoke"
                       TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")
endforeach()
# the timing verdicts must not see other tests' load on a 2-core machine
set_tests_properties(harness.gate_run_self20 harness.gate_run_delay20 PROPERTIES RUN_SERIAL TRUE)
# its busy loop takes a CPU from whatever runs beside it
set_tests_properties(harness.gate_run_preemptions PROPERTIES RUN_SERIAL TRUE)
