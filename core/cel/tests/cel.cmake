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

# cel_fuzzer seeds extracted from the DRA expression TSV into the build tree at build time,
# replayed by ctest (the committed hand-written seeds in corpora/cel_fuzzer/ are replayed by the
# generic fuzz.cel_fuzzer test).
find_program(DRA_AWK NAMES awk gawk mawk)
if(EXISTS ${PROJECT_SOURCE_DIR}/harness/fuzz/cel_fuzzer.c AND DRA_AWK AND EXISTS ${DRA_SHARED_DIR}/cel/dra-expressions.tsv)
  set(_cel_seeds ${PROJECT_BINARY_DIR}/corpora/cel_fuzzer_tsv)
  add_custom_command(OUTPUT ${_cel_seeds}/.stamp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_cel_seeds}
    COMMAND ${DRA_AWK} -v OUT=${_cel_seeds} -f ${PROJECT_SOURCE_DIR}/corpora/cel_fuzzer_seeds.awk
            ${DRA_SHARED_DIR}/cel/dra-expressions.tsv
    COMMAND ${CMAKE_COMMAND} -E touch ${_cel_seeds}/.stamp
    DEPENDS ${DRA_SHARED_DIR}/cel/dra-expressions.tsv ${PROJECT_SOURCE_DIR}/corpora/cel_fuzzer_seeds.awk
    COMMENT "Extracting cel_fuzzer seeds from dra-expressions.tsv")
  add_custom_target(cel_fuzzer_seeds ALL DEPENDS ${_cel_seeds}/.stamp)
  # the fuzz targets are defined after the unit tests: add the dependency at the end
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL add_dependencies cel_fuzzer
                 cel_fuzzer_seeds)
  add_test(NAME fuzz.cel_fuzzer_tsv COMMAND cel_fuzzer ${_cel_seeds})
  set_tests_properties(fuzz.cel_fuzzer_tsv PROPERTIES LABELS "fuzz;regression" TIMEOUT 600
                       ENVIRONMENT "${DRA_TEST_ENV}")
endif()
