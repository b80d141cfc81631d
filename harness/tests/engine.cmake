# harness/tests/engine.cmake - the engine's scenario equivalence test (test_engine_scenarios.c)
# for the two fleet scenarios as their own entries, so they run beside the small ones.
if(TARGET harness_test_engine_scenarios)
  # fleet-5k under every profile, fleet-50k under the default one, the small scenarios under
  # 1.37 and 1.38-pre (the entry without an argument runs them under 1.34-1.36)
  foreach(scn fleet-5k fleet-50k 1.37 1.38-pre)
    add_test(NAME harness.test_engine_scenarios.${scn}
             COMMAND harness_test_engine_scenarios ${scn} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(harness.test_engine_scenarios.${scn} PROPERTIES LABELS "unit;harness"
                         TIMEOUT 900 ENVIRONMENT "${DRA_TEST_ENV}")
  endforeach()
endif()

# `drabench run --allocator both`: the engine's decisions on the first arrivals equal the
# brute-force reference placement's (exit 0), the comparison count and speed ratio are printed,
# and the result file records the allocator as "both".
set(_both_script [=[
out="$1/engine-both.json"
"$0" run default -n 40 -w 0 -r 1 --allocator both --both-prefix 25 -o "$out" > "$1/engine-both.txt"
grep -E "^both +25 decisions compared .*: [0-9]+x$" "$1/engine-both.txt"
grep -E "^placement +[0-9]+ by the node index" "$1/engine-both.txt"
test "$(jq -r .run.allocator "$out")" = both
if "$0" run default --allocator both --both-prefix 0 -o "$out" 2>/dev/null; then exit 1; fi
]=])
add_test(NAME harness.engine.cli_both
         COMMAND sh -ec "${_both_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.engine.cli_both PROPERTIES LABELS "harness;cli" TIMEOUT 600
                     ENVIRONMENT "${DRA_TEST_ENV}")

# scripts/profile: a short run under callgrind prints the per-phase table (every phase, numbers
# per claim, direct answers counted) and says over how many claims; a missing scenario is a
# usage error (2). Not under ASan (valgrind cannot run an ASan binary).
set(_profile_script [=[
out="$1/profile.txt"
DRABENCH="$0" scripts/profile --no-cache sched-perf-500 -n 30 > "$out"
grep -E "^placement +dra_engine_place +[0-9]+$" "$out"
grep -E "^  direct +dra__direct_answer - build_answer +[1-9][0-9]*$" "$out"
grep -E "^commit +commit_pod, commit_pod_rec +[1-9][0-9]*$" "$out"
grep -E "^release +release_pod, release_record +[0-9]+$" "$out"
grep -E "^per claim over 30 claims of sched-perf-500" "$out"
if DRABENCH="$0" scripts/profile 2>/dev/null; then exit 1; else test $? -eq 2; fi
]=])
add_test(NAME harness.engine.profile_script
         COMMAND sh -ec "${_profile_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.engine.profile_script PROPERTIES LABELS "harness;no-asan"
                     TIMEOUT 600 ENVIRONMENT "${DRA_TEST_ENV}")
