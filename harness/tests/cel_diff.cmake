# cel_diff.cmake - the differential CEL check (harness/tests/cel_diff/): random well-typed
# expressions evaluated by drabench's CEL engine (the cel_diff executable) and by @bufbuild/cel
# (node, installed by scripts/deps-node), compared with cel-go's semantics as the judge.
# A fixed-seed 5,000-expression run; scripts/cel-diff runs longer campaigns.
add_executable(cel_diff ${CMAKE_CURRENT_LIST_DIR}/cel_diff/cel_diff.c)
target_link_libraries(cel_diff PRIVATE dra_harness PkgConfig::JANSSON)
target_include_directories(cel_diff PRIVATE ${PROJECT_SOURCE_DIR}/core/cel)
add_test(NAME harness.cel_diff
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/cel-diff --exe $<TARGET_FILE:cel_diff> --seed 1
                 --count 5000 --no-install
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cel_diff PROPERTIES LABELS "unit;harness;cel" TIMEOUT 300
                     ENVIRONMENT "${DRA_TEST_ENV}")
# The comparison reports a wrong answer: one planted in drabench's answers must be the only
# difference found.
add_test(NAME harness.cel_diff_detects
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/cel-diff --exe $<TARGET_FILE:cel_diff> --seed 2
                 --count 300 --plant 17 --expect-differences 1 --show 1 --no-install
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cel_diff_detects PROPERTIES LABELS "unit;harness;cel" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
