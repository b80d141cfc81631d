# Conformance: every case under corpora/conformance through the reference allocator
# (`drabench alloc --test`, one PASS/FAIL line per case; exit 0 = all pass). With --explain the
# explain mode (core/alloc/explain.h) must agree with the allocator on every Node of every case
# and give every unsatisfiable case a reason (dra_explain_verify: outcome, the node's view of the
# model, allocated devices passing every check, reasons confirmed by the brute-force enumerator).
add_test(NAME alloc.conformance
         COMMAND $<TARGET_FILE:drabench> alloc --test --explain corpora/conformance
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.conformance PROPERTIES LABELS "conformance" TIMEOUT 600
                     ENVIRONMENT "${DRA_TEST_ENV}")
add_test(NAME alloc.smoke
         COMMAND $<TARGET_FILE:drabench> alloc --test corpora/conformance/alloc-smoke
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.smoke PROPERTIES LABELS "conformance;unit" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
add_test(NAME alloc.cli_help COMMAND $<TARGET_FILE:drabench> alloc --help
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.cli_help PROPERTIES LABELS "unit" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "drabench alloc - " ENVIRONMENT "${DRA_TEST_ENV}")
add_test(NAME alloc.cli_bad_feature
         COMMAND ${DRA_EXPECT_EXIT} 2 $<TARGET_FILE:drabench> alloc --feature NoSuchGate=true -f corpora/conformance/alloc-smoke
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.cli_bad_feature PROPERTIES LABELS "unit" TIMEOUT 60
                     ENVIRONMENT "${DRA_TEST_ENV}")
