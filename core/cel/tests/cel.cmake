# cel.cmake - data-driven CEL tests: the cel-spec conformance runner and the DRA expression TSV
# runner (both read ../shared/cel), plus CLI checks of `drabench cel`.
add_executable(cel_conformance ${CMAKE_CURRENT_LIST_DIR}/conformance_runner.c)
target_link_libraries(cel_conformance PRIVATE dra_cel PkgConfig::JANSSON)
target_include_directories(cel_conformance PRIVATE ${PROJECT_SOURCE_DIR}/core/cel)
add_test(NAME core/cel.conformance COMMAND cel_conformance WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(core/cel.conformance PROPERTIES LABELS "unit;core;cel" TIMEOUT 300
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${DRA_TEST_ENV}")

add_executable(cel_tsv ${CMAKE_CURRENT_LIST_DIR}/tsv_runner.c)
target_link_libraries(cel_tsv PRIVATE dra_harness)
target_include_directories(cel_tsv PRIVATE ${PROJECT_SOURCE_DIR}/core/cel)
add_test(NAME core/cel.dra_expressions COMMAND cel_tsv WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(core/cel.dra_expressions PROPERTIES LABELS "unit;core;cel" TIMEOUT 300
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${DRA_TEST_ENV}")

add_test(NAME core/cel.cli COMMAND ${CMAKE_COMMAND} -DDRABENCH=$<TARGET_FILE:drabench>
         -P ${CMAKE_CURRENT_LIST_DIR}/cli_cel.cmake.in WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(core/cel.cli PROPERTIES LABELS "unit;core;cel;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
