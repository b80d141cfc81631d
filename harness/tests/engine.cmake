# harness/tests/engine.cmake - the engine's scenario equivalence test (test_engine_scenarios.c)
# for the two fleet scenarios as their own entries, so they run beside the small ones.
if(TARGET harness_test_engine_scenarios)
  foreach(scn fleet-5k fleet-50k)
    add_test(NAME harness.test_engine_scenarios.${scn}
             COMMAND harness_test_engine_scenarios ${scn} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(harness.test_engine_scenarios.${scn} PROPERTIES LABELS "unit;harness"
                         TIMEOUT 900 ENVIRONMENT "${DRA_TEST_ENV}")
  endforeach()
endif()
