# gen/tests/gen.cmake - extra settings and CLI tests of the generator.
# The shape satisfiability test needs the allocator; it skips (77) only if dra_alloc is absent.
if(TARGET dra_alloc AND TARGET gen_test_shapes)
  target_compile_definitions(gen_test_shapes PRIVATE DRA_HAVE_ALLOC=1)
  target_link_libraries(gen_test_shapes PRIVATE dra_alloc)
endif()
# CLI: determinism of the written manifests and validation by `drabench validate`.
add_test(NAME gen.cli_gen
  COMMAND ${CMAKE_COMMAND} -DDRABENCH=$<TARGET_FILE:drabench> -DOUT=${CMAKE_CURRENT_BINARY_DIR}/gen-cli
          -P ${PROJECT_SOURCE_DIR}/gen/tests/cli_gen.cmk
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(gen.cli_gen PROPERTIES LABELS "unit;gen;cli" TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")
