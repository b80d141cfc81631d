# harness/tests/rows.cmake - claims compiled once, rows carried in results (included by
# dra_add_unit_tests(harness ...)).
#
# With the placement engine, the fast allocator reads the engine's compiled selector bitsets
# (dra_fast_seed_selectors) and every node's layout is built before the timed loop
# (dra_anyalloc_prepare): a run evaluates no CEL inside the allocator, and its decisions are the
# ones of a run without them (the digest of this workload is pinned by the engine matrix
# tests; here the reference allocator's run of the same prefix must agree).
set(_rows_script [=[
set -e
out="$1/rows-fast.json"
"$0" run default -n 300 -w 0 -r 1 --invariants all -o "$out" > /dev/null
test "$(jq -r '.repetitions[0].search.cel_evals' "$out")" = 0
test "$(jq -r '.repetitions[0].invariants.violations // 0' "$out")" = 0
ref="$1/rows-ref.json"
"$0" run default -n 300 -w 0 -r 1 --invariants off --allocator reference -o "$ref" > /dev/null
test "$(jq -r '.repetitions[0].digest' "$out")" = "$(jq -r '.repetitions[0].digest' "$ref")"
test "$(jq -r '.repetitions[0].search.cel_evals' "$ref")" -gt 0
]=])
add_test(NAME harness.rows.compiled_once
         COMMAND sh -c "${_rows_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.rows.compiled_once PROPERTIES LABELS "harness" TIMEOUT 600
                     ENVIRONMENT "${DRA_TEST_ENV}")

# The run summary's memory line (heap growth while the engine and the allocator's per-node
# layouts are built, the per-device figures the docs quote). Only where glibc's allocator is the
# one in use: a sanitizer's allocator does not report heap use, and the line is left out. The
# default scenario's pods are all answered from the engine's columns, so no layout is built
# there (0.0; with DRA_DEBUG >= 3 every direct answer is checked against the allocator, so every
# node is prepared and the figure is not 0); mig-inference's pairs of MIG slices on one GPU need
# the allocator on its dynamic-MIG nodes, whose layouts are then counted.
if(DRA_DEBUG GREATER_EQUAL 3)
  set(_rows_default_layouts "[0-9]+[.][0-9]")
else()
  set(_rows_default_layouts "0[.]0")
endif()
if(NOT DRA_SANITIZE)
  add_test(NAME harness.rows.memory_line
           COMMAND sh -c "\"$0\" run default -n 50 -w 0 -r 1 --invariants off -o \"$1/rows-mem.json\" | grep -E '^memory +engine [0-9]+[.][0-9] B/device, allocator node layouts ${_rows_default_layouts} B/device' | grep -vE 'engine 0[.]0 ' && \"$0\" run mig-inference -n 50 -w 0 -r 1 --invariants off -o \"$1/rows-mem2.json\" | grep -E '^memory +engine [0-9]+[.][0-9] B/device, allocator node layouts [0-9]+[.][0-9] B/device' | grep -vE 'engine 0[.]0 |layouts 0[.]0 '"
                   $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.rows.memory_line PROPERTIES LABELS "harness" TIMEOUT 300
                       ENVIRONMENT "${DRA_TEST_ENV}")
endif()

# What decided each placement (search.served): with the fast allocator every placement of the
# default scenario is a direct answer of the engine (pods of a shared claim that is already
# allocated need no placement, so the counts add up to at most the allocated pods), with the
# reference allocator every one is the reference's; the summary prints it. On gpu-sharing every
# placement is a share answered directly (direct-shares); on mig-vgpu every one is answered over
# the compatibility groups (direct-groups, 1.37), and by the counters alone under 1.36.
set(_rows_served_script [=[
set -e
f="$1/rows-served-fast.json"; r="$1/rows-served-ref.json"
"$0" run default -n 200 -w 0 -r 1 --invariants off -o "$f" | grep -E '^served +direct-'
a=$(jq -r '.repetitions[0].outcomes.allocated' "$f")
d=$(jq -r '[.repetitions[0].search.served | to_entries[] | select(.key | startswith("direct-")) | .value] | add // 0' "$f")
echo "allocated $a direct $d"
test "$d" -gt 0 && test "$d" -le "$a"
test "$(jq -r '[.repetitions[0].search.served | keys[] | select(startswith("direct-") | not)] | length' "$f")" = 0
"$0" run default -n 200 -w 0 -r 1 --invariants off --allocator reference -o "$r" > /dev/null
test "$(jq -r '.repetitions[0].search.served | keys | join(",")' "$r")" = reference
test "$(jq -r '.repetitions[0].search.served.reference' "$r")" -le "$(jq -r '.repetitions[0].outcomes.allocated' "$r")"
g="$1/rows-served-shares.json"
"$0" run gpu-sharing -n 200 -w 0 -r 1 --invariants off -o "$g" | grep -E '^served +direct-shares [0-9]+'
test "$(jq -r '.repetitions[0].search.served | keys | join(",")' "$g")" = direct-shares
test "$(jq -r '.repetitions[0].search.served["direct-shares"]' "$g")" = "$(jq -r '.repetitions[0].outcomes.allocated' "$g")"
v="$1/rows-served-groups.json"
"$0" run mig-vgpu -n 300 -w 0 -r 1 --invariants off -o "$v" | grep -E '^served +direct-groups [0-9]+'
test "$(jq -r '.repetitions[0].search.served | keys | join(",")' "$v")" = direct-groups
test "$(jq -r '.repetitions[0].search.served["direct-groups"]' "$v")" = "$(jq -r '.repetitions[0].outcomes.allocated' "$v")"
"$0" run mig-vgpu -n 300 -w 0 -r 1 --invariants off --release 1.36 -o "$v" | grep -E '^served +direct-counters [0-9]+'
]=])
add_test(NAME harness.rows.served
         COMMAND sh -c "${_rows_served_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.rows.served PROPERTIES LABELS "harness" TIMEOUT 300
                     ENVIRONMENT "${DRA_TEST_ENV}")

# The timer's own cost (run.method.timer_overhead_ns: the median of back-to-back pairs of
# readings, part of every latency) is written and printed: a positive number of nanoseconds
# below a millisecond, the same figure in the summary's timer line; the step its readings advance
# by (run.method.timer_step_ns, harness/bench/clockstep.h) in that line when above 1 ns.
set(_rows_timer_script [=[
set -e
out="$1/rows-timer.json"
"$0" run default -n 20 -w 0 -r 1 --invariants off -o "$out" > "$1/rows-timer.txt"
ov="$(jq -r '.run.method.timer_overhead_ns' "$out")"
test "$ov" -gt 0
test "$ov" -lt 1000000
step="$(jq -r '.run.method.timer_step_ns // 0' "$out")"
if [ "$step" -gt 1 ]; then
  grep -E "^timer +CLOCK_MONOTONIC, resolution [0-9]+ ns, advancing in steps of $step ns \(every latency a multiple of it, \+-1\); a pair of readings costs $ov ns" "$1/rows-timer.txt"
else
  grep -E "^timer +CLOCK_MONOTONIC, resolution [0-9]+ ns; a pair of readings costs $ov ns" "$1/rows-timer.txt"
fi
]=])
add_test(NAME harness.rows.timer_overhead
         COMMAND sh -c "${_rows_timer_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.rows.timer_overhead PROPERTIES LABELS "harness" TIMEOUT 300
                     ENVIRONMENT "${DRA_TEST_ENV}")
