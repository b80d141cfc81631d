# harness/tests/fast.cmake - `drabench run` with the fast and the reference allocator make the
# same decisions: equal decision digests and outcome counts per built-in scenario (small
# counts, no warm-up). Arguments of the script: drabench, output dir, scenario, count.
set(_fast_digest_script [=[
out="$1/fast-digest-$2"
"$0" run "$2" --allocator reference -n "$3" -w 0 -r 1 -q -o "$out-ref.json"
"$0" run "$2" --allocator fast -n "$3" -w 0 -r 1 -q -o "$out-fast.json"
test "$(jq -r .run.allocator "$out-fast.json")" = fast
test "$(jq -r .run.allocator "$out-ref.json")" = reference
a=$(jq -r .digest "$out-ref.json"); b=$(jq -r .digest "$out-fast.json")
echo "reference $a fast $b"
test -n "$a" && test "$a" = "$b"
u1=$(jq -c '.repetitions[0].values["outcomes.unsatisfiable"]' "$out-ref.json")
u2=$(jq -c '.repetitions[0].values["outcomes.unsatisfiable"]' "$out-fast.json")
test "$u1" = "$u2"
]=])
function(dra_fast_digest_test scn count)
  add_test(NAME harness.fast.digest_${scn}
           COMMAND sh -ec "${_fast_digest_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
                   ${scn} ${count}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.fast.digest_${scn} PROPERTIES LABELS "harness;bench-smoke"
                       TIMEOUT 900 ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()
dra_fast_digest_test(default 300)
dra_fast_digest_test(sched-perf-500 600)
dra_fast_digest_test(nvl72-training 200)
dra_fast_digest_test(mig-inference 30)
dra_fast_digest_test(gpu-sharing 300)
# Every built-in scenario under every placement policy and release profile (short prefixes): the
# fast allocator (its exact fast paths included) and the reference decide alike (equal decision
# digests and outcome counts). Arguments: drabench, output dir, scenario, count, policies.
set(_fast_matrix_script [=[
out="$1/fast-matrix-$2"
for policy in $4; do
  for release in 1.34 1.35 1.36; do
    for al in reference fast; do
      "$0" run "$2" --allocator $al --policy $policy --release $release -n "$3" -w 0 -r 1 -q \
        --invariants off -o "$out-$al.json"
    done
    a=$(jq -r .digest "$out-reference.json"); b=$(jq -r .digest "$out-fast.json")
    u1=$(jq -c '.repetitions[0].outcomes' "$out-reference.json")
    u2=$(jq -c '.repetitions[0].outcomes' "$out-fast.json")
    echo "$policy $release: reference $a fast $b; $u1 $u2"
    test -n "$a" && test "$a" = "$b" && test "$u1" = "$u2"
  done
done
]=])
function(dra_fast_matrix_test scn count labels)
  set(policies "first-fit best-fit spread random")
  if(ARGC GREATER 3)
    set(policies "${ARGV3}")
  endif()
  add_test(NAME harness.fast.matrix_${scn}
           COMMAND sh -ec "${_fast_matrix_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
                   ${scn} ${count} ${policies}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.fast.matrix_${scn} PROPERTIES LABELS "${labels}" TIMEOUT 1800
                       ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()
# the reference allocator gathers pools per node and call: large clusters, MIG and the
# unsatisfiable storm only in Release (label bench), and on fleet-50k only first-fit (best-fit
# and spread try all 50,000 nodes for every pod)
dra_fast_matrix_test(default 20 "harness;no-asan")
dra_fast_matrix_test(sched-perf-500 20 "harness;no-asan")
dra_fast_matrix_test(nvl72-training 20 "harness;no-asan")
dra_fast_matrix_test(unsat-storm 3 "harness;bench")
dra_fast_matrix_test(mig-inference 4 "harness;bench")
dra_fast_matrix_test(fleet-5k 6 "harness;bench")
dra_fast_matrix_test(fleet-50k 3 "harness;bench" "first-fit")
dra_fast_matrix_test(gpu-sharing 20 "harness;no-asan")
