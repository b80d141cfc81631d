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
# Scale: fleet-50k (50,000 nodes, 1.18 M devices) builds within the stated bounds: cluster build
# at most 10 s even in this unoptimised build (about 0.2-1.4 s in Release) and a model arena of at
# most 256 MiB (200 MiB today; independent of the build type). Not under ASan (too slow there).
add_test(NAME gen.scale_fleet_50k
  COMMAND sh -c "out=$(\"$1\" gen fleet-50k --no-pods) || exit 1; printf '%s\\n' \"$out\"; \
printf '%s\\n' \"$out\" | grep -q '50000 nodes, 92040 slices, 1180920 devices' || exit 1; \
built=$(printf '%s\\n' \"$out\" | sed -n 's/.*(built in \\([0-9.]*\\) s).*/\\1/p'); \
mib=$(printf '%s\\n' \"$out\" | sed -n 's/^memory: *\\([0-9.]*\\) MiB.*/\\1/p'); \
test -n \"$built\" && test -n \"$mib\" || exit 1; \
awk -v b=\"$built\" -v m=\"$mib\" 'BEGIN { exit !(b <= 10 && m <= 256) }'" sh $<TARGET_FILE:drabench>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(gen.scale_fleet_50k PROPERTIES LABELS "unit;gen;scale;no-asan" TIMEOUT 300
                     ENVIRONMENT "${DRA_TEST_ENV}")
# gen -o: a bar of MiB written when forced (ctest's stderr is no terminal).
add_test(NAME gen.cli_gen_progress
  COMMAND sh -c "d=$(mktemp -d) && \"$1\" gen default --progress always -o \"$d\" 2>&1 >/dev/null | grep -q 'gen: MiB written [0-9]'; rc=$?; rm -rf \"$d\"; exit $rc" sh $<TARGET_FILE:drabench>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(gen.cli_gen_progress PROPERTIES LABELS "unit;gen;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
# gen --json: the summary as JSON, with the same model digest as the text summary.
add_test(NAME gen.cli_gen_json
  COMMAND sh -c "j=$(\"$1\" gen default --no-pods --json) || exit 1; \
t=$(\"$1\" gen default --no-pods -q | sed -n 's/^model digest: *//p'); \
printf '%s\\n' \"$j\" | grep -q \"\\\"model_digest\\\": \\\"$t\\\"\" && printf '%s\\n' \"$j\" | grep -q '\"seed\": \"1\"' && \
printf '%s\\n' \"$j\" | grep -q '\"written\": null'" sh $<TARGET_FILE:drabench>
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(gen.cli_gen_json PROPERTIES LABELS "unit;gen;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
