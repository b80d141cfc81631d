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
# --tlb: the same phases with simulated data-TLB misses and page walks a claim
DRABENCH="$0" scripts/profile --tlb sched-perf-500 -n 30 > "$out"
grep -E "^phase +functions \(inclusive\) +instr +dTLB miss +walks$" "$out"
grep -E "^commit +commit_pod, commit_pod_rec +[1-9][0-9]* +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{3}$" "$out"
grep -E "^release +release_pod, release_record +[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{3}$" "$out"
grep -E "^dTLB miss, walks: a simulated 96-entry" "$out"
]=])
add_test(NAME harness.engine.profile_script
         COMMAND sh -ec "${_profile_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.engine.profile_script PROPERTIES LABELS "harness;no-asan"
                     TIMEOUT 600 ENVIRONMENT "${DRA_TEST_ENV}")

# scripts/hints-as-loads.h: every hint is a load callgrind's simulation sees, also two hints in a
# row whose loads land in one register (a dropped volatile read there is removed by Valgrind's
# translation: 2 x 4,096 hints then count about 4,096 reads), and the byte read is the byte
# hinted. Not under ASan (valgrind).
set(_hints_script [=[
printf '%s\n' \
  'static char a[1 << 18], b[1 << 18];' \
  '__attribute__((noinline)) static void hint2(const char *p, const char *q)' \
  '{' \
  '    for (int i = 0; i < (1 << 18); i += 64) {' \
  '        __builtin_prefetch(p + i);' \
  '        __builtin_prefetch(q + i, 1);' \
  '    }' \
  '}' \
  'int main(void)' \
  '{' \
  '    a[64] = 7;' \
  '    hint2(a, b);' \
  '    __builtin_prefetch(a + 64, 0, 3);' \
  '    return dra__hint_sink == 7 ? 0 : 1;' \
  '}' > "$1/hints.c"
"$0" -O2 -include scripts/hints-as-loads.h "$1/hints.c" -o "$1/hints"
"$1/hints"
valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$1/hints.out" --collect-atstart=no \
    --toggle-collect='hint2*' "$1/hints" 2> "$1/hints.log"
reads=$(callgrind_annotate --show=Dr "$1/hints.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
test "$reads" -ge 8192
]=])
add_test(NAME harness.engine.hints_as_loads
         COMMAND sh -ec "${_hints_script}" ${CMAKE_C_COMPILER} ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.engine.hints_as_loads PROPERTIES LABELS "harness;no-asan"
                     TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")
